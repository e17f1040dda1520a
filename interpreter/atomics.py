"""Atomic read-modify-writes of many lanes, serialized as hardware does: lanes act one after
another (in lane order) and each sees the value the previous lane left.

`serialize` takes the lanes sorted by address, grouped into segments (one per address), the
value each address holds before, and each lane's operands; it returns the value every lane
saw and the final value of every address. It is exact and vectorized: associative operations
accumulate per address or in rounds (one lane per address per round), whichever takes fewer
steps; compare-and-swap jumps from one successful swap to the next; inc/dec with a common
limit use their closed form.
"""

from __future__ import annotations

import numpy as np

# operation -> (ufunc over the stored values, True when it works on the unsigned bits)
ACCUMULATE = {
    "add": (np.add, False), "fadd": (np.add, False), "sub": (np.subtract, False), "fsub": (np.subtract, False),
    "and": (np.bitwise_and, False), "or": (np.bitwise_or, False), "xor": (np.bitwise_xor, False),
    "max": (np.maximum, False), "min": (np.minimum, False), "umax": (np.maximum, True), "umin": (np.minimum, True),
    "fmax": (np.fmax, False), "fmin": (np.fmin, False), "fmaximum": (np.maximum, False),
    "fminimum": (np.minimum, False),
}
OPERATIONS = set(ACCUMULATE) | {"xchg", "uinc_wrap", "udec_wrap", "cmpxchg", "nand"}


def serialize(operation: str, initial: np.ndarray, segment: np.ndarray, values: np.ndarray,
              compare: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Apply `operation` lane after lane.

    initial: the value at each address before (one per segment), in the value dtype;
    segment:  the segment (address) of each lane, non-decreasing, lanes in execution order;
    values:   each lane's operand (the new value for xchg and cmpxchg);
    compare:  each lane's expected value (cmpxchg only).
    Returns (old value seen by each lane, final value of each segment)."""
    if operation not in OPERATIONS:
        raise ValueError(f"unknown atomic operation {operation}")
    count = len(segment)
    starts = np.flatnonzero(np.r_[True, segment[1:] != segment[:-1]]) if count else np.zeros(0, dtype=np.int64)
    lengths = np.diff(np.r_[starts, count])
    rank = np.arange(count) - np.repeat(starts, lengths)
    old = np.empty_like(values)
    final = initial.copy()
    longest = int(lengths.max()) if count else 0

    if operation == "cmpxchg":
        _compare_exchange(final, starts, lengths, rank, longest, values, compare, old)
        return old, final
    if operation in ("uinc_wrap", "udec_wrap") and longest > len(starts) and _uniform_per_segment(values, starts):
        _wrap_counter(operation, final, starts, lengths, values, old)
        return old, final
    if longest > len(starts) and (operation in ACCUMULATE or operation == "xchg"):
        for index, (start, length) in enumerate(zip(starts, lengths)):
            sequence = np.concatenate([final[index : index + 1], values[start : start + length]])
            if operation == "xchg":
                accumulated = sequence
            else:
                function, unsigned = ACCUMULATE[operation]
                accumulated = _accumulate(function, sequence, unsigned)
            old[start : start + length] = accumulated[:-1]
            final[index] = accumulated[-1]
        return old, final
    for round_ in range(longest):  # one lane per address per round
        lanes = np.flatnonzero(rank == round_)
        segments = segment_index(starts, lanes)
        current = final[segments]
        old[lanes] = current
        final[segments] = apply(operation, current, values[lanes])
    return old, final


def segment_index(starts: np.ndarray, lanes: np.ndarray) -> np.ndarray:
    """The segment of each lane, given the segments' start lanes."""
    return np.searchsorted(starts, lanes, side="right") - 1


def apply(operation: str, current: np.ndarray, operand: np.ndarray) -> np.ndarray:
    """The value an address holds after one lane's `operation` with `operand`."""
    if operation == "xchg":
        return operand.copy()
    if operation == "nand":
        return ~(current & operand)
    if operation == "uinc_wrap":
        c, v = _unsigned(current), _unsigned(operand)
        return np.where(c >= v, 0, c + 1).astype(c.dtype).view(current.dtype)
    if operation == "udec_wrap":
        c, v = _unsigned(current), _unsigned(operand)
        return np.where((c == 0) | (c > v), v, c - 1).astype(c.dtype).view(current.dtype)
    function, unsigned = ACCUMULATE[operation]
    if unsigned:
        return function(_unsigned(current), _unsigned(operand)).view(current.dtype)
    return function(current, operand).astype(current.dtype)


def _accumulate(function, sequence: np.ndarray, unsigned: bool) -> np.ndarray:
    if unsigned:
        return function.accumulate(_unsigned(sequence)).view(sequence.dtype)
    return function.accumulate(sequence, dtype=sequence.dtype)


def _unsigned(values: np.ndarray) -> np.ndarray:
    if values.dtype.kind == "i":
        return values.view(f"u{values.dtype.itemsize}")
    return values


def _compare_exchange(final, starts, lengths, rank, longest, new, expected, old) -> None:
    """Serial compare-and-swap: a lane swaps when the address holds what it expects."""
    if longest <= len(starts):  # few lanes per address: rounds
        for round_ in range(longest):
            lanes = np.flatnonzero(rank == round_)
            segments = segment_index(starts, lanes)
            current = final[segments]
            old[lanes] = current
            final[segments] = np.where(current == expected[lanes], new[lanes], current)
        return
    for index, (start, length) in enumerate(zip(starts, lengths)):  # jump between successes
        position, stop, current = start, start + length, final[index]
        while position < stop:
            matches = np.flatnonzero(expected[position:stop] == current)
            if len(matches) == 0:
                old[position:stop] = current
                break
            hit = position + int(matches[0])
            old[position : hit + 1] = current
            current = new[hit]
            position = hit + 1
        final[index] = current


def _uniform_per_segment(values: np.ndarray, starts: np.ndarray) -> bool:
    """Whether every lane of each segment has the segment's first lane's operand."""
    return bool(np.all(values == np.repeat(values[starts], np.diff(np.r_[starts, len(values)]))))


def _wrap_counter(operation, final, starts, lengths, limits, old) -> None:
    """atomicInc / atomicDec on one address by many lanes with the same limit v: the
    counter walks 0..v cyclically (up for inc, down for dec), in closed form."""
    for index, (start, length) in enumerate(zip(starts, lengths)):
        dtype = _unsigned(final[index : index + 1]).dtype
        current = int(_unsigned(final[index : index + 1])[0])
        limit = int(_unsigned(limits[start : start + 1])[0])
        steps = np.arange(length, dtype=np.int64)
        period = limit + 1
        if operation == "uinc_wrap":
            if current <= limit:
                sequence = (current + steps) % period
            else:  # the first lane sees the out-of-range value, which resets to 0
                sequence = np.where(steps == 0, current, (steps - 1) % period)
            after = int((sequence[-1] + 1) % period) if sequence[-1] <= limit else 0
        else:
            if current <= limit:
                sequence = (current - steps) % period
            else:
                sequence = np.where(steps == 0, current, (limit - (steps - 1)) % period)
            last = int(sequence[-1])
            after = limit if last == 0 or last > limit else last - 1
        old[start : start + length] = sequence.astype(dtype).view(final.dtype)
        final[index] = np.array([after], dtype=dtype).view(final.dtype)[0]
