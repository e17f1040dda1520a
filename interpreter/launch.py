"""A launch (what to run) and its result (what happened)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from interpreter.memory import DEFAULT_GROWTH_LIMIT
from interpreter.trace import Events, Trace

DEFAULT_STEP_LIMIT = 200_000  # real kernels need a few thousand steps; this allows long loops

Dim3 = tuple[int, int, int]


@dataclass
class Launch:
    """Grid and block dimensions and the kernel's arguments.

    `args` maps parameter names to values: a number for a scalar parameter; for a pointer a
    NumPy array (the buffer, whose size is enforced) or None (a paged buffer that grows on
    first touch and reads as zeros, or as seeded small random words with `paged_random`). Pointer
    parameters missing from `args` get paged buffers; struct parameters passed by value may
    be given as a bytes-like object, else they are zero."""

    grid: Dim3
    block: Dim3
    args: dict[str, object] = field(default_factory=dict)
    shared_bytes: int = 48 * 1024  # dynamic (extern __shared__) memory per block
    step_limit: int = DEFAULT_STEP_LIMIT  # scheduler steps (an instruction run by one group)
    work_limit: float = float("inf")  # thread-instructions; beyond, the launch stops as at the step limit
    recursion_limit: int = 64
    wave_threads: int = 1 << 18  # threads run together; larger grids run in waves of blocks
    seed: int = 0
    paged_random: bool = False
    trace: bool = True
    coverage: bool = False  # record branch coverage in Events.coverage (the search's runs)
    growth_limit: int = DEFAULT_GROWTH_LIMIT  # bytes a paged buffer may grow to; beyond is out of bounds
    sample: tuple[int, ...] | None = None  # run only these linear block indices (all for grid.sync kernels)

    def __post_init__(self):
        self.grid = _dim3(self.grid)
        self.block = _dim3(self.block)

    @property
    def threads_per_block(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def blocks(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]

    @property
    def threads(self) -> int:
        return self.blocks * self.threads_per_block


def _dim3(value) -> Dim3:
    if isinstance(value, int):
        value = (value,)
    dims = tuple(int(v) for v in value) + (1,) * (3 - len(tuple(value)))
    if len(dims) != 3 or min(dims) < 1:
        raise ValueError(f"dimensions must be 1 to 3 positive integers, not {value!r}")
    return dims


@dataclass
class Result:
    """What a launch did. `status` is "ok", "step-limit" (stopped: `message` names the loop),
    "unsupported" (stopped at something the interpreter cannot execute) or "error"."""

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
