"""What a launch did: the memory-access trace and the events the interpreter observed.

The trace has one record per thread access, kept as NumPy columns:

    space      1 global, 3 shared, 4 constant, 5 local (memory.py)
    kind       0 read, 1 write, 2 atomic read-modify-write
    region     the buffer or global variable (global/constant; 0 for shared and local)
    offset     byte offset in the region, in the block's shared segment, or in the
               thread's local stack
    size       bytes touched
    block      linear block index in the grid (x fastest)
    thread     linear thread index in the block (x fastest)
    op         static instruction (index into Trace.ops)
    epoch      barrier epoch of the block when the access happened
    grid_epoch grid-wide barrier epoch (cooperative launches)
    step       scheduler step: accesses of one dynamic instruction share it
    active     the warp's lanes executing that step together (bit per lane)
    warp_sync  how many warp collectives this thread had completed
    value      the bits written (up to 8 bytes; a hash for wider writes), else 0
    sync       0 for a plain access; for an atomic or volatile one its scope (1 block,
               2 device, 3 system) plus 4 if it acquires, 8 if it releases by itself
               (interpreter.vocabulary)
    taint      the invented values (Result.labels, one bit each) its address and the
               thread's reaching it depend on (interpreter.taint); 0 when not tracked
    divergent  those its address and the branches that split the thread's block on the
               way depend on: who in the block takes part, not whether the block gets there

Warp and lane are thread // 32 and thread % 32; `coordinates` turns linear indices into
(x, y, z) for given dimensions.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from interpreter.debuginfo import SourceLocation

READ, WRITE, ATOMIC = 0, 1, 2
# fault kinds (Fault.kind): an access the memory refuses, then what else a thread can do wrong
NULL_POINTER, OUT_OF_BOUNDS, MISALIGNED, CONSTANT_WRITE, BAD_ADDRESS, USE_AFTER_FREE = (
    "null-pointer", "out-of-bounds", "misaligned", "constant-write", "bad-address", "use-after-free")
# past the bytes a buffer of no given size may grow to: the launch is too large to run, not faulty
BUFFER_LIMIT = "buffer-limit"
DIVISION_BY_ZERO, TRAP, REACHED_UNREACHABLE, STACK_OVERFLOW, BAD_FUNCTION_POINTER, DOUBLE_FREE, INVALID_FREE = (
    "division-by-zero", "trap", "unreachable", "stack-overflow", "bad-function-pointer", "double-free",
    "invalid-free")
KIND_NAMES = {READ: "read", WRITE: "write", ATOMIC: "atomic"}
COLUMNS = {
    "space": np.uint8, "kind": np.uint8, "region": np.int32, "offset": np.int64, "size": np.int32,
    "block": np.int64, "thread": np.int32, "op": np.int32, "epoch": np.int32, "grid_epoch": np.int32,
    "step": np.int64, "active": np.uint32, "warp_sync": np.int32, "value": np.uint64, "sync": np.uint8,
    "taint": np.uint64, "divergent": np.uint64,
}


@dataclass(frozen=True)
class OpInfo:
    """A static instruction that appears in the trace or in an event. `decides`: a read of
    memory (a load, an atomic) whose value decides a branch of its function (a spin's or a
    check's read of a flag). `seeds`: a load whose value a compare-and-swap of its function
    expects (a CAS retry loop's first guess)."""

    function: str
    index: int
    opcode: str
    location: SourceLocation | None
    text: str
    decides: bool = False
    seeds: bool = False
    controls: tuple[int, ...] = ()  # the branches (op ids) it is control dependent on, transitively


@dataclass
class Fault:
    """Lanes of one dynamic instruction that faulted; `kind` is one of the fault kinds above."""

    kind: str
    op: int
    blocks: np.ndarray  # linear block index per faulting lane
    threads: np.ndarray  # linear thread index per faulting lane
    addresses: np.ndarray | None = None
    detail: str = ""  # what went wrong, when the kind alone does not say
    taint: np.ndarray | None = None  # per faulting lane, the invented values its fault depends on


@dataclass
class BarrierDivergence:
    """Threads of a block reached barrier `op` while other live threads did not: they
    exited (`missing_ops` is the ret they left by) or wait at another barrier. For a grid
    barrier the missing threads may be in other blocks (`missing_blocks`)."""

    block: int
    op: int
    epoch: int
    arrived: np.ndarray  # linear thread indices
    missing: np.ndarray
    missing_ops: np.ndarray  # per missing thread: the op where it is (ret or other barrier)
    missing_exited: np.ndarray  # per missing thread: it left the kernel (else it waits elsewhere)
    missing_blocks: np.ndarray | None = None  # per missing thread, for a grid barrier (else `block`)
    taint: int = 0  # the invented values where the threads went depends on


@dataclass
class WarpMaskEvent:
    """A warp collective whose mask named lanes that never joined it (exited or elsewhere),
    or (`read_outside` not 0) a shuffle whose lanes read lanes their mask leaves out."""

    block: int
    warp: int
    op: int
    mask: int
    arrived: int  # bit per lane that took part
    read_outside: int = 0  # bit per lane read from outside the reader's mask
    taint: int = 0  # the invented values which lanes came, and the lanes read, depend on


@dataclass
class Assertion:
    """A thread failed an assert() (kind "assert") or violated a kernel assumption
    (__assume / __requires / llvm.assume: kind "assume", which marks the launch invalid)."""

    kind: str
    op: int
    blocks: np.ndarray
    threads: np.ndarray
    message: str = ""
    taint: np.ndarray | None = None  # per thread, the invented values its failing depends on


@dataclass
class ChildLaunch:
    """A launch a kernel made (dynamic parallelism): the kernel, the device address of its
    arguments, its dimensions, and who launched it where."""

    kernel: str
    parameters: int
    grid: tuple
    block: tuple
    shared: int
    op: int
    block_index: int  # of the launching thread
    thread: int


@dataclass
class Events:
    faults: list[Fault] = field(default_factory=list)
    barrier_divergence: list[BarrierDivergence] = field(default_factory=list)
    warp_masks: list[WarpMaskEvent] = field(default_factory=list)
    launches: list[ChildLaunch] = field(default_factory=list)  # by kernels (dynamic parallelism), in order
    assertions: list[Assertion] = field(default_factory=list)
    printf: list[tuple[int, int, str]] = field(default_factory=list)  # (block, thread, text)
    # warp collectives completed: (step, block per warp, warp in block per warp, lanes per warp)
    collectives: list[tuple[int, np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list)
    # barriers passed: (barrier op, blocks, the epoch each block left); a block stuck at two
    # barriers at once appears under both
    barrier_passes: list[tuple[int, np.ndarray, np.ndarray]] = field(default_factory=list)
    # memory fences executed: (step, blocks, threads in block, their barrier epochs, their warp
    # collectives completed, scope, op)
    fences: list[tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, int]] = field(default_factory=list)
    # of a part of a launch (Launch.flush) that ends inside a wave: the barrier op whose pass it ends at, or
    # SPLIT where it ends inside a barrier interval
    cuts: list[int] = field(default_factory=list)
    # of a part that ends inside a barrier interval: the blocks of its wave and the epoch each is in, which go on
    open: tuple[np.ndarray, np.ndarray] | None = None
    looping_op: int = -1  # where threads were running when a limit stopped the launch
    looping_taint: int = 0  # the invented values their being stuck there depends on
    in_loop: bool = True  # ... in a loop (else the launch ran out before its blocks did)
    # faulting threads per (kind, op); `faults` keeps only the first of them (simt.FAULT_SAMPLE)
    fault_counts: dict[tuple[str, int], int] = field(default_factory=dict)
    # with Launch.coverage, branches taken: (function, pc, target block), or code -1 / -2
    # when the threads of one block / one warp went different ways
    coverage: set[tuple[str, int, int]] = field(default_factory=set)

    def fault_count(self) -> int:
        return sum(self.fault_counts.values())


SPLIT = -1  # Events.cuts: a part cut inside a barrier interval (when one makes more accesses than a part holds)


class TraceRecorder:
    """Collects trace records in entries, one per instruction executed (or per native call);
    at most `limit` records (later ones are counted in `dropped`, not kept), unless an
    `overflow` takes them before (then one entry may pass the limit alone)."""

    def __init__(self, limit: float = float("inf"), overflow=None, overflow_at: float = float("inf")):
        self.entries: list[tuple[int, dict]] = []
        self.count = 0
        self.limit = limit
        self.dropped = 0
        # called before records would pass `overflow_at`: it takes the records held (take), making room
        self.overflow, self.overflow_at = overflow, overflow_at

    def record(self, **columns) -> None:
        """Append one record per lane; a scalar column holds for every lane."""
        self.append(len(columns["offset"]), columns)

    def append(self, count: int, columns: dict) -> None:
        """Append `count` records: per column (missing: 0) one value per record, or one for all."""
        if count == 0:
            return
        if self.overflow is not None and self.count and self.count + count > min(self.overflow_at, self.limit):
            self.overflow()
        if self.count + count > self.limit and self.overflow is None:  # with an overflow, nothing is dropped
            self.dropped += count
            return
        self.entries.append((count, columns))
        self.count += count

    def room(self) -> float:
        """Records that fit before the trace is full, or is handed over (`overflow_at`):
        native code records no more at once, so that a part is about that size."""
        return max(0, min(self.limit, self.overflow_at if self.overflow is not None else self.limit) - self.count)

    def finish(self, ops: list[OpInfo]) -> "Trace":
        return Trace(self.entries, ops, self.count, self.dropped)

    def take(self, ops: list[OpInfo]) -> "Trace":
        """The records held, as a trace; the recorder goes on empty (its dropped count stays)."""
        trace = self.finish(ops)
        self.entries, self.count = [], 0
        return trace


class Trace:
    """The columns of the trace; each is joined from its entries when first read.
    `dropped` counts the accesses past the recorder's limit, which it does not hold."""

    def __init__(self, entries: list[tuple[int, dict]], ops: list[OpInfo], count: int, dropped: int = 0):
        self.dropped = dropped
        self._entries = entries
        self._chunks: dict[str, list] | None = None
        self._columns: dict[str, np.ndarray] = {}
        self.ops = ops
        self.count = count

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, name: str) -> np.ndarray:
        column = self._columns.get(name)
        if column is None:
            if self._chunks is None:  # the entries split by column once, so that each column frees its own
                self._chunks = {column: [] for column in COLUMNS}
                for count, columns in self._entries:
                    for column in COLUMNS:
                        self._chunks[column].append((count, columns.get(column, 0)))
                self._entries = []
            column = _joined(self._chunks[name], COLUMNS[name])
            self._columns[name] = column
            self._chunks[name] = []
        return column

    @property
    def columns(self) -> dict[str, np.ndarray]:
        return {name: self[name] for name in COLUMNS}

    @property
    def warp(self) -> np.ndarray:
        return self["thread"] // 32

    @property
    def lane(self) -> np.ndarray:
        return self["thread"] % 32


def _joined(chunks: list[tuple[int, object]], dtype) -> np.ndarray:
    """One column of a trace's (count, value) chunks, a value an array of count records or
    one for all of them; vectorized over the chunks (a NumPy-path launch makes hundreds of
    thousands, most of them one value for all)."""
    counts = np.fromiter((count for count, _ in chunks), dtype=np.int64, count=len(chunks))
    whole = np.fromiter((type(value) is np.ndarray and value.ndim > 0 for _, value in chunks), dtype=bool,
                        count=len(chunks))
    arrays = [value for (_, value), is_array in zip(chunks, whole) if is_array]
    if len(arrays) == len(chunks):
        return np.concatenate(arrays).astype(dtype, copy=False) if arrays else np.zeros(0, dtype=dtype)
    column = np.empty(int(counts.sum()), dtype=dtype)
    from_arrays = np.repeat(whole, counts)
    if arrays:
        column[from_arrays] = np.concatenate([value.astype(dtype, copy=False) for value in arrays])
    singles = [value for (_, value), is_array in zip(chunks, whole) if not is_array]
    try:
        singles = np.array(singles, dtype=dtype)
    except (OverflowError, ValueError, TypeError):  # a Python int outside the dtype: wrapped, as astype does
        singles = np.array([np.asarray(value).astype(dtype) for value in singles], dtype=dtype)
    column[~from_arrays] = np.repeat(singles, counts[~whole])
    return column


def coordinates(linear, dims: tuple[int, int, int]) -> np.ndarray:
    """(x, y, z) of linear indices (x fastest) in a grid or block of shape `dims`; an array
    of shape (n, 3)."""
    linear = np.asarray(linear, dtype=np.int64)
    x = linear % dims[0]
    y = (linear // dims[0]) % dims[1]
    z = linear // (dims[0] * dims[1])
    return np.stack([x, y, z], axis=-1)
