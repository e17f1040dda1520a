"""Stable orders of a launch's rows, fast: the sorts the model and the detectors take of
columns of millions of integers.

NumPy's stable argsort of int64 is a merge sort. A key and its row packed into one int64,
when both fit in 63 bits, sort to the stable order by the key's bits alone: a radix sort
in machine code (interpreter.native_sort), several times faster than NumPy's plain sort.

May import: numpy, interpreter.native_sort.
"""

from __future__ import annotations

import numpy as np

from interpreter.native_sort import stable_rows

_BITS = 63


def stable_order(key: np.ndarray) -> np.ndarray:
    """np.argsort(key, kind="stable") of an integer array."""
    n = len(key)
    if n < 2:
        return np.arange(n)
    low, high = int(key.min()), int(key.max())
    key_bits = (high - low).bit_length()
    if key_bits + (n - 1).bit_length() > _BITS or high >= 1 << _BITS:
        return np.argsort(key, kind="stable")
    return stable_rows(np.subtract(key, low, dtype=np.int64), key_bits)


def columns_order(columns: list[np.ndarray]) -> np.ndarray:
    """The stable order sorting rows by integer columns (the first most significant): one
    stable_order of their combined key when it fits, else a lexsort."""
    key = combined_key(columns)
    return np.lexsort(tuple(reversed(columns))) if key is None else stable_order(key)


def combined_key(columns: list[np.ndarray]) -> np.ndarray | None:
    """One int64 per row, ordered as the rows' integer columns are (the first most
    significant) and equal where they all are; None when their ranges do not fit in 62 bits."""
    n = len(columns[0])
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    combined, digit = None, None
    span = 1
    for column in columns:
        low = int(column.min())
        width = int(column.max()) - low + 1
        span *= width
        if span >= 1 << 62:
            return None
        if combined is None:
            combined = np.subtract(column, low, dtype=np.int64)
            continue
        digit = np.subtract(column, low, dtype=np.int64, out=digit)  # one scratch column for them all
        combined *= width
        combined += digit
    return combined


def ranges(starts, lengths: np.ndarray) -> np.ndarray:
    """starts[i], starts[i] + 1, ..., starts[i] + lengths[i] - 1 for each i, joined (int64)."""
    lengths = np.asarray(lengths, dtype=np.int64)
    return np.repeat(np.asarray(starts, dtype=np.int64) - (np.cumsum(lengths) - lengths), lengths) \
        + np.arange(int(lengths.sum()), dtype=np.int64)


__all__ = ["stable_order", "columns_order", "combined_key", "ranges"]
