"""The device heap behind in-kernel malloc and free, as CUDA's allocator gives it: one
region of a fixed size (cudaLimitMallocHeapSize, 8 MiB by default), where malloc returns
NULL when a request does not fit. Memory is handed out in 16-byte granules, first from
space never used, then from freed space, so that a use after free is caught for as long as
possible. Every granule is unused, allocated or freed; an access to a freed granule is a
use-after-free, to an unused one (or across two allocations) out of bounds; freeing what
is not the start of an allocation, or freeing twice, is a fault."""

from __future__ import annotations

import numpy as np

from interpreter.memory import FAULT_CODES, GLOBAL, Memory, split
from interpreter.trace import OUT_OF_BOUNDS, USE_AFTER_FREE

GRANULE = 16
UNUSED, ALLOCATED, FREED = 0, 1, 2


class Heap:
    """The heap of one launch. `region` is its memory region."""

    def __init__(self, memory: Memory, size: int):
        self.memory = memory
        granules = max(size // GRANULE, 1)
        self.region = memory.add_region("device heap", GLOBAL, size=granules * GRANULE)
        memory.regions[self.region].guard = self.guard
        # per granule (zeros until touched, so a large heap costs only what is used):
        self.state = np.zeros(granules, dtype=np.int8)
        self.owner = np.zeros(granules, dtype=np.int32)  # 1 + the first granule of the allocation holding it
        self.length = np.zeros(granules, dtype=np.int32)  # granules of the allocation starting here
        self.top = 0  # granules before it have been handed out at least once

    def malloc(self, sizes: np.ndarray) -> np.ndarray:
        """Addresses of new allocations of `sizes` bytes, one per lane in lane order; NULL
        (0) for a size of 0 or less, or one that does not fit."""
        sizes = np.asarray(sizes, dtype=np.int64)
        need = np.where(sizes > 0, (np.maximum(sizes, 1) + GRANULE - 1) // GRANULE, 0)
        starts = np.full(len(sizes), -1, dtype=np.int64)
        wanted = np.flatnonzero((need > 0) & (need <= len(self.state)))
        ends = self.top + np.cumsum(need[wanted])
        fits = ends <= len(self.state)
        fresh = wanted[fits]
        starts[fresh] = ends[fits] - need[fresh]
        if len(fresh):
            self.top = int(ends[fits][-1])
        self._mark(starts[fresh], need[fresh], ALLOCATED)
        for size in np.unique(need[wanted[~fits]]):
            lanes = wanted[~fits][need[wanted[~fits]] == size]
            starts[lanes] = self._reuse(int(size), len(lanes))
            reused = lanes[starts[lanes] >= 0]
            self._mark(starts[reused], need[reused], ALLOCATED)
        taken = np.flatnonzero(starts >= 0)
        addresses = np.zeros(len(sizes), dtype=np.int64)
        addresses[taken] = self.memory.region_address(self.region) + starts[taken] * GRANULE
        return addresses

    def _reuse(self, need: int, count: int) -> np.ndarray:
        """First granules of up to `count` blocks of `need` granules in freed space, first
        fit; -1 for the requests that find none."""
        freed = np.r_[False, self.state[: self.top] == FREED, False]
        edges = np.flatnonzero(freed[1:] != freed[:-1])
        run_starts, run_ends = edges[0::2], edges[1::2]
        slots = (run_ends - run_starts) // need
        starts = np.full(count, -1, dtype=np.int64)
        total = int(slots.sum())
        if total == 0:
            return starts
        run = np.repeat(np.arange(len(slots)), slots)[:count]
        within = np.arange(len(run)) - np.repeat(np.cumsum(slots) - slots, slots)[:count]
        starts[: len(run)] = run_starts[run] + within * need
        return starts

    def _mark(self, starts: np.ndarray, lengths: np.ndarray, state: int) -> None:
        if len(starts) == 0:
            return
        granules = np.repeat(starts, lengths) + (np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths,
                                                                                            lengths))
        self.state[granules] = state
        if state == ALLOCATED:
            self.owner[granules] = np.repeat(starts, lengths) + 1
            self.length[starts] = lengths

    def malloc_aligned(self, sizes: np.ndarray, align: int) -> np.ndarray:
        """As malloc, each address a multiple of `align` (a power of two): inside an
        allocation `align` bytes longer, which free_containing frees."""
        sizes = np.asarray(sizes, dtype=np.int64)
        starts = self.malloc(np.where(sizes > 0, sizes + max(align - GRANULE, 0), 0))
        return np.where(starts != 0, (starts + align - 1) & ~np.int64(align - 1), 0)

    def free_containing(self, address: int) -> None:
        """Free the allocation holding `address` (from malloc_aligned)."""
        space, region, offset = (int(v[()]) for v in split(np.int64(address)))
        granule = offset // GRANULE
        if space == GLOBAL and region == self.region and granule < len(self.state) and self.owner[granule]:
            self.free(np.array([self.memory.region_address(self.region) + (int(self.owner[granule]) - 1) * GRANULE]))

    def free(self, addresses: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Free the allocations at `addresses` (NULL frees nothing). Returns the lanes
        whose pointer is no allocation's start (invalid free) and those freeing memory
        already freed (double free, also when two lanes free one allocation together)."""
        addresses = np.asarray(addresses, dtype=np.int64)
        lanes = np.flatnonzero(addresses != 0)
        space, region, offset = split(addresses[lanes])
        granule = offset // GRANULE
        inside = (space == GLOBAL) & (region == self.region) & (offset % GRANULE == 0) & (granule < len(self.state))
        granule = np.where(inside, granule, 0)
        start = inside & (self.length[granule] > 0) & (self.owner[granule] == granule + 1)
        invalid = lanes[~start]
        state = self.state[granule]
        _, first = np.unique(np.where(start, granule, -1), return_index=True)
        again = np.ones(len(lanes), dtype=bool)
        again[first] = False
        double = start & ((state == FREED) | again)
        freeing = start & ~double
        self._mark(granule[freeing], self.length[granule[freeing]].astype(np.int64), FREED)
        return invalid, lanes[double]

    def guard(self, offsets: np.ndarray, size: int) -> np.ndarray:
        """Per access at `offsets` of `size` bytes: 0 when it lies in one live allocation,
        else the code (memory.FAULT_CODES) of its fault: use-after-free or out-of-bounds."""
        first = offsets // GRANULE
        last = np.minimum((offsets + max(size, 1) - 1) // GRANULE, len(self.state) - 1)
        codes = np.zeros(len(offsets), dtype=np.int8)
        freed = (self.state[first] == FREED) | (self.state[last] == FREED)
        outside = (self.state[first] != ALLOCATED) | (self.state[last] != ALLOCATED) | \
            (self.owner[first] != self.owner[last])
        codes[outside] = FAULT_CODES[OUT_OF_BOUNDS]
        codes[freed] = FAULT_CODES[USE_AFTER_FREE]
        return codes
