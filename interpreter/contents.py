"""What a buffer that grows on demand holds before anything writes it.

A paged buffer's content is a function of its seed and the element index, so a chunk is
filled only when first touched and the same seed always gives the same bytes. Elements are
drawn as the type the pointer parameter points to (raw 32-bit words when that is not a plain
C type). The modes:

- zeros: what a fresh cudaMalloc'd buffer holds in a run, and `run`'s default;
- small: integers in [0, 64), small enough to serve as indices, loop bounds or counts
  (as floats: 0.0 to 63.0), with many repeats: index arrays collide;
- wide: a mix across the type's range: small values, negatives, 0/1/-1 and the type's
  extremes, the constants the kernel compares against, moderate floats, anything;
- distinct: every element differs (a permutation of the indices within aligned runs of 64):
  an index array that maps threads to different places;
- sorted: non-decreasing with every value twice (0, 0, 1, 1, ...): a monotone index array
  (offsets, a scan) with duplicates;
- identity: every element its own index (0, 1, 2, ...): index arrays that are the identity
  and offsets of unit rows, consistent from one buffer to the next (a row table and the
  table of another matrix's rows it selects agree on every row's length).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from interpreter.limits import FILLS



@dataclass(frozen=True)
class Fill:
    """The content of one paged buffer: `mode` (FILLS, not zeros), `seed`, the element
    type (a NumPy dtype string), and the constants a wide fill draws some elements from."""

    mode: str
    seed: int
    dtype: str = "<u4"
    dictionary: tuple[int, ...] = ()

    def inner(self, slot: int, dtype: str | None = None) -> "Fill":
        """The fill of the buffer slot `slot` of a table of pointers points to."""
        return Fill(self.mode, self.seed * 7919 + slot + 1, dtype or self.dtype, self.dictionary)

    def values(self, elements: np.ndarray) -> np.ndarray:
        """The elements at indices `elements`, as self.dtype."""
        dtype = np.dtype(self.dtype)
        if self.mode == "small":
            return _as(dtype, hashed(self.seed, elements) >> np.uint64(58))
        if self.mode == "distinct":
            mask = int(hashed(self.seed, np.zeros(1, dtype=np.int64))[0] >> np.uint64(58))
            return _as(dtype, elements.astype(np.int64) ^ mask)
        if self.mode == "sorted":
            return _as(dtype, elements.astype(np.int64) >> 1)
        if self.mode == "identity":
            return _as(dtype, elements.astype(np.int64))
        if self.mode == "wide":
            return self._wide(dtype, hashed(self.seed, elements))
        raise ValueError(f"unknown fill '{self.mode}' (expected one of {', '.join(FILLS)})")

    def _wide(self, dtype: np.dtype, h: np.ndarray) -> np.ndarray:
        """Per element one of eight kinds, chosen by the hash's low bits: small, small,
        negative, a compared constant, an extreme, moderate, moderate, anything."""
        kind = (h & np.uint64(7)).astype(np.int64)
        rest = h >> np.uint64(8)
        small = (rest >> np.uint64(50)).astype(np.int64)  # [0, 64)
        pick = lambda table: table[(rest % np.uint64(len(table))).astype(np.int64)]
        if dtype.kind == "f":
            info = np.finfo(dtype)
            extremes = np.array([0.0, 1.0, -1.0, float(info.max), float(info.min), float(info.tiny)])
            moderate = (rest % np.uint64(2_000_000)).astype(np.float64) / 1000.0 - 1000.0
            magnitude = np.ldexp(1.0 + (rest & np.uint64(0xFFFF)).astype(np.float64) / 65536.0,
                                 ((rest >> np.uint64(16)) % np.uint64(60)).astype(np.int64) - 30)
            anything = np.where(rest >> np.uint64(55) & np.uint64(1), -magnitude, magnitude)
            compared = np.array(self.dictionary or (0,), dtype=np.float64)
        else:
            info = np.iinfo(dtype)
            extremes = np.array([_int64(v) for v in (0, 1, -1, info.min, info.max, info.max - 1)], dtype=np.int64)
            moderate = (rest % np.uint64(65536)).astype(np.int64) - 32768
            anything = rest.view(np.int64)
            compared = np.array([_int64(v) for v in self.dictionary or (0,)], dtype=np.int64)
        choices = [small, small, -1 - small, pick(compared), pick(extremes), moderate, moderate, anything]
        values = np.select([kind == k for k in range(8)], [np.asarray(c).astype(choices[-1].dtype) for c in choices])
        return values.astype(dtype, casting="unsafe")


def hashed(seed: int, elements: np.ndarray) -> np.ndarray:
    """A splitmix64 hash of (seed, element index) per element: uint64."""
    with np.errstate(over="ignore"):
        x = np.asarray(elements).astype(np.uint64) + np.uint64(seed & (2**64 - 1)) * np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def _as(dtype: np.dtype, integers: np.ndarray) -> np.ndarray:
    """Non-negative integers as `dtype` (wrapping at its width)."""
    if dtype.kind == "f":
        return integers.astype(dtype)
    return integers.astype(np.int64).astype(dtype, casting="unsafe")


def _int64(value: int) -> int:
    """An integer as the int64 with the same low 64 bits."""
    return (int(value) + (1 << 63)) % (1 << 64) - (1 << 63)
