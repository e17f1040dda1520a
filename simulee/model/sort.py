"""Stable orders of a launch's rows, fast: the sorts the model and the detectors take of
columns of millions of integers.

NumPy's stable argsort of int64 is a merge sort; its plain sort of int64 is a vectorized
one several times faster. A key and its row packed into one int64 sort to the stable
order with the plain sort, when both fit in 63 bits.

May import: numpy.
"""

from __future__ import annotations

import numpy as np

_BITS = 63


def stable_order(key: np.ndarray) -> np.ndarray:
    """np.argsort(key, kind="stable") of an integer array."""
    n = len(key)
    if n < 2:
        return np.arange(n)
    low, high = int(key.min()), int(key.max())
    row_bits = (n - 1).bit_length()
    if (high - low).bit_length() + row_bits > _BITS or high >= 1 << _BITS:
        return np.argsort(key, kind="stable")
    packed = ((key.astype(np.int64) - low) << row_bits) if low else (key.astype(np.int64) << row_bits)
    packed |= np.arange(n, dtype=np.int64)
    packed.sort()
    return packed & ((1 << row_bits) - 1)


def columns_order(columns: list[np.ndarray]) -> np.ndarray:
    """The stable order sorting rows by integer columns (the first most significant): one
    stable_order of their combined key when it fits, else a lexsort."""
    key = combined_key(columns)
    return np.lexsort(tuple(reversed(columns))) if key is None else stable_order(key)


def combined_key(columns: list[np.ndarray]) -> np.ndarray | None:
    """One int64 per row, ordered as the rows' integer columns are (the first most
    significant) and equal where they all are; None when their ranges do not fit in 62 bits."""
    n = len(columns[0])
    combined = np.zeros(n, dtype=np.int64)
    span = 1
    for column in columns:
        low = int(column.min()) if n else 0
        width = (int(column.max()) - low + 1) if n else 1
        span *= width
        if span >= 1 << 62:
            return None
        combined *= width
        combined += column.astype(np.int64) - low
    return combined


def ranges(starts, lengths: np.ndarray) -> np.ndarray:
    """starts[i], starts[i] + 1, ..., starts[i] + lengths[i] - 1 for each i, joined (int64)."""
    lengths = np.asarray(lengths, dtype=np.int64)
    return np.repeat(np.asarray(starts, dtype=np.int64) - (np.cumsum(lengths) - lengths), lengths) \
        + np.arange(int(lengths.sum()), dtype=np.int64)


__all__ = ["stable_order", "columns_order", "combined_key", "ranges"]
