"""How likely a launch is to make threads collide, measured on its trace (the paper's
Eq. 1). F = distinct addresses / thread accesses, where a thread access is a distinct
(thread, address) pair: 1 / the mean number of threads touching an address. Lower is
better: F = 1 when no two threads share an address, 1/k when every address is shared by
k threads. Between launches of equal F, the one with the larger address range R (summed
over buffers, and over the blocks' shared memories) ranks first: the same density of
collisions over more memory means more threads and more collisions, across more warps
and blocks. Global and shared memory count; a thread's local memory and constant memory
never conflict, so they do not."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from interpreter.memory import GLOBAL, SHARED
from interpreter.trace import Trace

ACCEPTABLE = 0.3  # the search stops once F is below this


WEIGHTS = (-1.0, -1.0, 1.0)  # DEAP weights: minimize F, then a run's length, then maximize R


@dataclass(frozen=True)
class Fitness:
    F: float
    R: float
    long: bool = False  # the run needed more than the search's short step budget

    def rank(self) -> tuple[float, bool, float]:
        """Sort key: the better fitness sorts first (at equal F, a launch that needs fewer
        steps: a check of it is as telling and quicker)."""
        return self.F, self.long, -self.R

    def values(self) -> tuple[float, float, float]:
        """DEAP's fitness values (WEIGHTS)."""
        return self.F, float(self.long), self.R

    def to_json(self) -> dict:
        if self == UNMEASURED:
            return {"unmeasured": True}
        return {"F": round(self.F, 6), "R": int(self.R)}


WORST = Fitness(float("inf"), 0)  # an invalid launch
UNMEASURED = Fitness(float(np.finfo(float).max), 0)  # valid, but more work than a fitness run does: ranks last


def measure(trace: Trace) -> Fitness:
    """F and R of a launch's trace; a launch that touches no shared or global memory has
    F = 1 (nothing can collide) and R = 0."""
    space = trace["space"]
    kept = (space == GLOBAL) | (space == SHARED)
    if not kept.any():
        return Fitness(1.0, 0)
    shared = space[kept] == SHARED
    block = trace["block"][kept].astype(np.int64)
    # a memory is a global buffer or one block's shared memory
    memory = np.where(shared, -1 - block, trace["region"][kept].astype(np.int64))
    offset = trace["offset"][kept]
    _, memory = np.unique(memory, return_inverse=True)
    address = memory << 40 | offset
    addresses, address = np.unique(address, return_inverse=True)
    _, agent = np.unique(block << 32 | trace["thread"][kept], return_inverse=True)
    thread_accesses = len(np.unique(address.astype(np.int64) * (int(agent.max()) + 1) + agent))
    end = offset + trace["size"][kept]
    spans = np.zeros(int(memory.max()) + 1, dtype=np.int64)
    low = np.full(len(spans), np.iinfo(np.int64).max)
    np.maximum.at(spans, memory, end)
    np.minimum.at(low, memory, offset)
    return Fitness(len(addresses) / thread_accesses, int((spans - low).sum()))
