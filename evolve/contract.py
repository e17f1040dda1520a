"""The launch contract a kernel implies without stating it. A fixed-size array indexed by
the thread index (`__shared__ float s[256]; s[threadIdx.x]`) only works for blocks that
are small enough: a launch whose threads index past such an array is one the kernel was
never meant for, not a bug in it. The contract is learned from launches: an out-of-bounds
fault whose faulting threads all lie at index m or beyond along a block axis bounds that
axis (blockDim.x <= m), because without those threads the fault would not happen; one
whose faulting threads are exactly those from the m-th on, counted x fastest, and no
axis's, bounds the block's threads (an array indexed by `threadIdx.y * blockDim.x +
threadIdx.x`: blockDim.x * blockDim.y * blockDim.z <= m). A fault in thread 0 of every
axis bounds nothing: it stays a finding.

Likewise for the scalar arguments the search chooses: an index that is the same in every
thread and depends only on such arguments (`d_count[2 * octave + 1]` into a 17-element
array; evolve.taint.address_sources) going out of bounds says the arguments are outside
what the kernel was written for: such launches are outside the contract, not bugs in the
kernel. (What buffers hold is judged by simulee.checker.kernel: a fault at an address computed from
content Simulee made up is the made-up content's, not the kernel's.)

What a kernel does state, an assumption every launch must satisfy that fixes a scalar
(`__assume(n == 256)`, GPUVerify's `__requires(pitch == 3072)`), is a value, not a range to
search: `stated_values`."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from evolve.taint import AddressSource
from interpreter import irparse as ir
from interpreter.decode import DecodedFunction
from interpreter.debuginfo import SourceLocation
from interpreter.launch import Alias, Result
from interpreter.memory import LOCAL, SHARED, split
from interpreter.trace import BAD_ADDRESS, BUFFER_LIMIT, MISALIGNED, NULL_POINTER, OUT_OF_BOUNDS, coordinates

ASSUMPTIONS = ("__simulee_assume", "llvm.assume")  # the calls a kernel's preconditions become
AXES = "xyz"
THREADS = "threads"  # a Bound on the block's thread count
MEMORY_FAULTS = (OUT_OF_BOUNDS, NULL_POINTER, MISALIGNED, BAD_ADDRESS)


@dataclass(frozen=True)
class Bound:
    """blockDim.<axis> <= limit, learned from the fault at `location`."""

    axis: str  # x, y, z, or THREADS: the block's thread count
    limit: int
    location: SourceLocation | None

    def extent(self, block: tuple[int, int, int]) -> int:
        return int(np.prod(block)) if self.axis == THREADS else block[AXES.index(self.axis)]

    def text(self) -> str:
        if self.axis == THREADS:
            return f"blockDim.x * blockDim.y * blockDim.z <= {self.limit}"
        return f"blockDim.{self.axis} <= {self.limit}"


@dataclass(frozen=True)
class Outside:
    """A launch outside the contract because of the fault at `location`: `why` says what
    of the launch caused it."""

    why: str
    location: SourceLocation | None


UNIFORM_INDEX = "the same index in every thread goes past a fixed-size array when {}"


@dataclass
class Contract:
    """Bounds on block dimensions, the tightest one per axis; what each instruction's
    address depends on (`sources`, evolve.taint.address_sources), the scalar arguments
    the search chooses (`open`) and the pointer parameters whose content may be made up
    (`buffers`); and the launches found outside the contract (`outside`, one per place)."""

    bounds: dict[str, Bound] = field(default_factory=dict)
    sources: dict = field(default_factory=dict)
    open: frozenset[str] = frozenset()
    buffers: frozenset[str] = frozenset()
    outside: list[Outside] = field(default_factory=list)

    def allows(self, block: tuple[int, int, int]) -> bool:
        return all(bound.extent(block) <= bound.limit for bound in self.bounds.values())

    def learn(self, result: Result) -> bool:
        """Add what `result`'s faults imply; True when they put its launch outside the
        contract. The faulting threads of each instruction (over all its dynamic
        instances: paths that diverged before it fault apart) bound the axis they start
        furthest out on; of several instructions bounding one axis, the loosest bound
        counts (s[t] and s[t + stride] both fault in a block too large for s, but only
        s[t] tells how large it may be)."""
        block = result.launch.block
        made_up = made_up_buffers(result.launch, self.buffers)
        threads: dict[int, list[np.ndarray]] = {}
        for fault in result.events.faults:
            if _fixed_size(fault) and not self._source(result, fault).contents & made_up:
                threads.setdefault(fault.op, []).append(fault.threads)
            # (an index read from made-up content says nothing about the block)
        found: dict[str, Bound] = {}
        ops = result.trace.ops
        for op, faulting in threads.items():
            axis, limit = _bounded(np.unique(np.concatenate(faulting)), block)
            if limit and (axis not in found or limit > found[axis].limit):
                found[axis] = Bound(axis, limit, ops[op].location if 0 <= op < len(ops) else None)
        for bound in found.values():
            self.tighten(bound)
        return bool(found)

    def breaks(self, result: Result, note: bool = True) -> Outside | None:
        """Why `result`'s launch is outside the contract through its arguments (None: it
        is not): an out-of-bounds fault at an index only searched arguments decide. With
        `note`, the first such launch at each place is kept (`outside`)."""
        for fault in result.events.faults:
            source = self._source(result, fault)
            uniform = source.uniform_in(self.open) if fault.kind in (OUT_OF_BOUNDS, BUFFER_LIMIT) else frozenset()
            if not uniform:
                continue
            why = UNIFORM_INDEX.format(", ".join(f"{n}={result.launch.args.get(n)}" for n in sorted(uniform)))
            found = Outside(why, result.trace.ops[fault.op].location)
            if note and all(known.location != found.location for known in self.outside):
                self.outside.append(found)  # the first launch that breaks it there
            return found
        return None

    def _source(self, result: Result, fault) -> AddressSource:
        ops = result.trace.ops
        if not 0 <= fault.op < len(ops):
            return NO_SOURCE
        return self.sources.get((ops[fault.op].function, ops[fault.op].index), NO_SOURCE)

    def tighten(self, bound: Bound) -> None:
        current = self.bounds.get(bound.axis)
        if current is None or bound.limit < current.limit:
            self.bounds[bound.axis] = bound

    def texts(self) -> list[str]:
        return [self.bounds[axis].text() for axis in (*AXES, THREADS) if axis in self.bounds]


NO_SOURCE = AddressSource(frozenset(), frozenset(), True)


def _bounded(threads: np.ndarray, block: tuple[int, int, int]) -> tuple[str, int]:
    """The axis (or THREADS) and limit the faulting `threads` (sorted linear indices in a
    block of shape `block`) bound; a limit of 0 bounds nothing. Threads that are exactly
    those from the m-th on, and not the last rows along one axis, bound the thread count."""
    lowest = coordinates(threads, block).min(axis=0)
    axis = int(np.argmax(lowest))
    threads_per_block = int(np.prod(block))
    along_axis = lowest[axis] > 0 and len(threads) == threads_per_block // block[axis] * (block[axis] - lowest[axis])
    suffix = threads[0] > 0 and len(threads) == threads_per_block - threads[0]  # exactly those from threads[0] on
    if suffix and not along_axis:
        return THREADS, int(threads[0])
    return AXES[axis], int(lowest[axis])


def content_buffers(kernel) -> frozenset[str]:
    """The pointer parameters whose content may be made up: all but tables of pointers,
    which Simulee fills with buffers of its own."""
    return frozenset(p.name for p in kernel.params if p.kind == "pointer" and p.pointee_kind != "pointer")


def made_up_buffers(launch, pointers: frozenset[str]) -> frozenset[str]:
    """The pointer parameters among `pointers` whose buffer content Simulee makes up in
    `launch`: every one not given as an array (an alias is what its target is)."""
    given = {name for name in pointers if isinstance(launch.args.get(name), np.ndarray)}
    given |= {name for name in pointers if isinstance(launch.args.get(name), Alias)
              and isinstance(launch.args.get(launch.args[name].target), np.ndarray)}
    return frozenset(pointers - given)


def _fixed_size(fault) -> bool:
    """An index past an array dimension (no address), or an access past shared or local
    memory: never a buffer the host sized, which would say nothing about the block."""
    if fault.kind != OUT_OF_BOUNDS:
        return False
    if fault.addresses is None:
        return True
    space, _, _ = split(fault.addresses)
    return bool(np.isin(space, (SHARED, LOCAL)).all())


def stated_values(function: DecodedFunction, params) -> dict[str, int]:
    """The integer parameters (of `params`, the kernel's) that an assumption in the kernel's
    entry block, which every thread makes before anything else decides, equates with a
    constant: `__assume(n == 256)` gives {"n": 256}."""
    if len(function.params) != len(params):
        return {}
    defined = {op.result: op for op in function.ops if op.result >= 0}
    names = {slot: param.name for slot, param in zip(function.params, params) if param.kind == "integer"}

    def uncast(slot: int) -> int:  # a parameter compared after widening or narrowing is the parameter
        while slot in defined and defined[slot].opcode in ("sext", "zext", "trunc"):
            slot = defined[slot].args[0]
        return slot

    values = {}
    for op in function.ops:
        if op.block != 0 or op.opcode != "call" or op.extra.get("callee") not in ASSUMPTIONS or not op.args:
            continue
        test = defined.get(op.args[0])
        if test is None or test.opcode != "icmp" or test.extra.get("predicate") != "eq":
            continue
        left, right = (uncast(slot) for slot in test.args)
        for one, other in ((left, right), (right, left)):
            constant = function.constants.get(other)
            if one in names and isinstance(constant, ir.ConstInt):
                values[names[one]] = constant.value
    return values
