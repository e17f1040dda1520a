"""A launch (what to run) and its result (what happened)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from interpreter.limits import DEFAULT_HEAP_BYTES, trace_part
from interpreter.memory import DEFAULT_GROWTH_LIMIT
from interpreter.trace import Events, Trace

Dim3 = tuple[int, int, int]
CUT_OFF_MESSAGE = "was stopped: the program it ran for ended"  # a launch its `cut_off` stopped (Result.message)

# CUDA's launch limits (compute capability 3.0 and later)
GRID_LIMITS = (2**31 - 1, 65_535, 65_535)
BLOCK_LIMITS = (1024, 1024, 64)
MAX_THREADS_PER_BLOCK = 1024


@dataclass
class Launch:
    """Grid and block dimensions and the kernel's arguments.

    `args` maps parameter names to values: a number for a scalar parameter; for a pointer a
    NumPy array (the buffer, whose size is enforced), 0 (NULL) or None (a paged buffer that grows on
    first touch and reads as `fill` says: zeros, or seeded content, interpreter.contents), or
    an Alias of another pointer parameter (the same buffer). Pointer
    parameters missing from `args` get paged buffers; struct parameters passed by value may
    be given as a bytes-like object, else they are zero."""

    grid: Dim3
    block: Dim3
    args: dict[str, object] = field(default_factory=dict)
    shared_bytes: int = 48 * 1024  # dynamic (extern __shared__) memory per block
    step_limit: int | None = None  # scheduler steps (an instruction run by one group); None: as loops.step_budget
    work_limit: float = float("inf")  # thread-instructions; beyond, the launch stops as at the step limit
    time_limit: float = float("inf")  # seconds; beyond, the launch stops
    # a one-element list: the time.perf_counter() at which the launch stops, which another thread may lower while
    # it runs (the program a device serves has ended); None: never
    cut_off: list | None = None
    recursion_limit: int = 64
    heap_bytes: int = DEFAULT_HEAP_BYTES  # the device heap in-kernel malloc allocates from
    wave_threads: int = 1 << 18  # threads run together; larger grids run in waves of blocks
    seed: int = 0
    fill: str = "zeros"  # what paged buffers hold before they are written (interpreter.contents.FILLS)
    dictionary: tuple[int, ...] = ()  # constants a "wide" fill draws some elements from
    trace: bool = True
    keep_buffers: bool = True  # copy every pointer argument's final contents into Result.buffers
    trace_limit: float = float("inf")  # trace records kept at most; later accesses are counted, not kept
    stop_when_traced: bool = False  # stop the launch once the trace is full (a check needs nothing after)
    # called with a Result of the waves run since the last call (their trace, and the events that go with it:
    # collectives, barrier passes, fences) after each wave once the trace holds `flush_at` accesses, and inside a
    # wave at a barrier no block's epoch straddles once it holds as many (Events.cuts); the trace then starts
    # empty, and waves are sized to fit it, so that every access of a launch of any size is traced
    flush: object = None
    flush_at: int = field(default_factory=trace_part)
    # with `flush` and not stop_when_traced: past this many accesses a part is handed over even inside a barrier
    # interval (Events.open), so that no interval need fit a trace
    split_at: int = field(default_factory=lambda: 2 * trace_part())
    access_limit: float = float("inf")  # accesses a launch handed over in parts makes in all; past it, trace-limit
    coverage: bool = False  # record branch coverage in Events.coverage (the search's runs)
    growth_limit: int = DEFAULT_GROWTH_LIMIT  # bytes a paged buffer may grow to; beyond is out of bounds
    sample: tuple[int, ...] | None = None  # run only these linear block indices (all for grid.sync kernels)
    origin: str = ""  # where the launch comes from, for reports: given, site FILE:LINE, synthetic
    # a whole program's device (simulee.exec.device.Device): the launch runs on its memory, where the globals stay
    # placed; pointer arguments are addresses in it
    device: object = None
    # scalars (struct members dotted) of a launch site Simulee chose, each with the site's inputs it is computed
    # from (none: the site does not pass it)
    guessed: tuple[tuple[str, frozenset], ...] = ()
    # grid axes a launch site passes on as they come from callers Simulee could not read, each with their files
    unread: tuple[tuple[str, tuple[str, ...]], ...] = ()
    site_inputs: tuple = ()  # (the launch site's number in its search space, its inputs): what made the launch
    taint: bool = False  # track what Simulee invented (Result.labels) through the run (interpreter.taint)
    symbols: dict = field(default_factory=dict)  # device variable -> the array it holds (what the user states)
    engine: str = ""  # native or numpy (interpreter.native); "" for native.default_engine()

    def __post_init__(self):
        self.grid = _dim3(self.grid)
        self.block = _dim3(self.block)
        problem = launch_problem(self.grid, self.block)
        if problem:
            raise ValueError(problem)

    @property
    def threads_per_block(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def blocks(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]

    @property
    def threads(self) -> int:
        return self.blocks * self.threads_per_block


def launch_problem(grid: Dim3, block: Dim3) -> str | None:
    """Why CUDA would refuse a launch of these dimensions, or None when it would not."""
    for what, dims, limits in (("grid", grid, GRID_LIMITS), ("block", block, BLOCK_LIMITS)):
        for axis, size, limit in zip("xyz", dims, limits):
            if size > limit:
                return f"{what} {axis} is at most {limit:,} in CUDA, not {size:,}"
    if block[0] * block[1] * block[2] > MAX_THREADS_PER_BLOCK:
        return f"a block has at most {MAX_THREADS_PER_BLOCK} threads in CUDA, not {block[0] * block[1] * block[2]:,}"
    return None


def _dim3(value) -> Dim3:
    if isinstance(value, int):
        value = (value,)
    dims = tuple(int(v) for v in value) + (1,) * (3 - len(tuple(value)))
    if len(dims) != 3 or min(dims) < 1:
        raise ValueError(f"dimensions must be 1 to 3 positive integers, not {value!r}")
    return dims


class Stop(Exception):
    """The launch stops early: `status` step-limit (steps or work ran out: an endless
    loop, or a limit set too low), time-limit, infinite-loop (threads came back to a loop
    with their registers and all memory unchanged, and nothing else could run),
    invalid-launch (a thread broke an assumption the kernel states: nothing more counts)
    or trace-limit (the trace is full and the launch asked to stop then). `where` is (op,
    in a loop): where threads were running (Compiler.looping_op)."""

    def __init__(self, status: str, where: tuple[int, bool], message: str):
        super().__init__(message)
        self.status, self.message = status, message
        self.op, self.in_loop = where


@dataclass
class Result:
    """What a launch did. `status` is "ok"; a Stop's status (stopped early: `message` says
    why, `events.looping_op` where threads were running); "unsupported" (stopped at
    something the interpreter cannot execute) or "out-of-memory". `threads` counts the
    threads of the blocks that ran (a sample of the grid, or until the stop)."""

    status: str
    message: str
    buffers: dict[str, np.ndarray]
    trace: Trace
    events: Events
    launch: Launch
    threads: int
    thread_instructions: int
    steps: int
    seconds: float
    regions: list[str] = field(default_factory=list)  # name of every memory region, by number
    kernel: str = ""
    step_limit: int = 0  # the step limit in force
    blocks_run: int = 0  # blocks that ran to their end (or the stop)
    blocks_total: int = 0  # blocks the launch was to run (the sample's, if any)
    labels: list[str] = field(default_factory=list)  # what taint bit i stands for (Placement.labels); [] untracked
    traced_per_block: float = 0.0  # accesses a block of the finished waves recorded (0: no wave finished)
    # per branch evaluated while tracking taint (op id): whether every evaluation's condition carried a label
    invented_branches: dict[int, bool] = field(default_factory=dict)


@dataclass(frozen=True)
class Alias:
    """A pointer argument that is another pointer argument: both point to the same buffer."""

    target: str


@dataclass(frozen=True)
class Allocated:
    """A pointer argument to a buffer the host allocates `size` bytes for (cudaMalloc): what
    it holds is made up as a paged buffer's is, and an access past its end is out of bounds."""

    size: int
