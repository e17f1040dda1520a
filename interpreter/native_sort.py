"""A radix sort of non-negative int64 keys in machine code, for the large sorts of a
launch's rows (simulee.model.sort): NumPy's sort of int64 runs at about 60 ns a key on a
processor where its vectorized sort is off (AMD's Zen 4 among them); a least-significant-
digit radix sort of 11-bit digits, whose histograms are all counted in one read, needs a
read and a scattered write per digit the keys use.

May import: numpy, interpreter.native (its JIT and code cache).
"""

from __future__ import annotations

import ctypes
import functools

import numpy as np

DIGIT = 11  # bits a pass sorts by: 2,048 counts, 16 KB, stay in the first-level cache
MIN_KEYS = 1 << 15  # fewer keys sort as fast in NumPy

_IR = f"""
define i64 @RUN_radix_sort(ptr noalias %a, ptr noalias %tmp, i64 %n, i64 %low, i64 %passes, ptr noalias %counts) {{
entry:
  br label %count
count:
  %i = phi i64 [0, %entry], [%i.next, %counted]
  %counting = icmp ult i64 %i, %n
  br i1 %counting, label %count.key, label %sort
count.key:
  %pa = getelementptr i64, ptr %a, i64 %i
  %key = load i64, ptr %pa
  %shifted.key = shl i64 %key, %low
  %v = or i64 %shifted.key, %i
  store i64 %v, ptr %pa
  br label %count.digit
count.digit:
  %p = phi i64 [0, %count.key], [%p.next, %count.digit]
  %digits = mul i64 %p, {DIGIT}
  %shift = add i64 %digits, %low
  %shifted = lshr i64 %v, %shift
  %digit = and i64 %shifted, {(1 << DIGIT) - 1}
  %base = shl i64 %p, {DIGIT}
  %slot = add i64 %base, %digit
  %pc = getelementptr i64, ptr %counts, i64 %slot
  %c = load i64, ptr %pc
  %c.next = add i64 %c, 1
  store i64 %c.next, ptr %pc
  %p.next = add i64 %p, 1
  %more = icmp ult i64 %p.next, %passes
  br i1 %more, label %count.digit, label %counted
counted:
  %i.next = add i64 %i, 1
  br label %count
sort:
  br label %pass
pass:
  %q = phi i64 [0, %sort], [%q.next, %passed]
  %src = phi ptr [%a, %sort], [%src.after, %passed]
  %dst = phi ptr [%tmp, %sort], [%dst.after, %passed]
  %moved = phi i64 [0, %sort], [%moved.after, %passed]
  %sorting = icmp ult i64 %q, %passes
  br i1 %sorting, label %pass.start, label %done
pass.start:
  %qdigits = mul i64 %q, {DIGIT}
  %qshift = add i64 %qdigits, %low
  %qbase = shl i64 %q, {DIGIT}
  %first = load i64, ptr %src
  %first.shifted = lshr i64 %first, %qshift
  %first.digit = and i64 %first.shifted, {(1 << DIGIT) - 1}
  %first.slot = add i64 %qbase, %first.digit
  %pfirst = getelementptr i64, ptr %counts, i64 %first.slot
  %first.count = load i64, ptr %pfirst
  %one.digit = icmp eq i64 %first.count, %n
  br i1 %one.digit, label %skipped, label %offsets
offsets:
  %k = phi i64 [0, %pass.start], [%k.next, %offsets]
  %total = phi i64 [0, %pass.start], [%total.next, %offsets]
  %kslot = add i64 %qbase, %k
  %pk = getelementptr i64, ptr %counts, i64 %kslot
  %ck = load i64, ptr %pk
  store i64 %total, ptr %pk
  %total.next = add i64 %total, %ck
  %k.next = add i64 %k, 1
  %kmore = icmp ult i64 %k.next, {1 << DIGIT}
  br i1 %kmore, label %offsets, label %scatter
scatter:
  %j = phi i64 [0, %offsets], [%j.next, %scatter.key]
  %scattering = icmp ult i64 %j, %n
  br i1 %scattering, label %scatter.key, label %scattered
scatter.key:
  %ps = getelementptr i64, ptr %src, i64 %j
  %w = load i64, ptr %ps
  %w.shifted = lshr i64 %w, %qshift
  %w.digit = and i64 %w.shifted, {(1 << DIGIT) - 1}
  %w.slot = add i64 %qbase, %w.digit
  %pw = getelementptr i64, ptr %counts, i64 %w.slot
  %at = load i64, ptr %pw
  %at.next = add i64 %at, 1
  store i64 %at.next, ptr %pw
  %pd = getelementptr i64, ptr %dst, i64 %at
  store i64 %w, ptr %pd
  %j.next = add i64 %j, 1
  br label %scatter
scattered:
  %flipped = xor i64 %moved, 1
  br label %passed
skipped:
  br label %passed
passed:
  %src.after = phi ptr [%dst, %scattered], [%src, %skipped]
  %dst.after = phi ptr [%src, %scattered], [%dst, %skipped]
  %moved.after = phi i64 [%flipped, %scattered], [%moved, %skipped]
  %q.next = add i64 %q, 1
  br label %pass
done:
  %mask = shl i64 1, %low
  %row.mask = sub i64 %mask, 1
  br label %unpack
unpack:
  %r = phi i64 [0, %done], [%r.next, %unpack.key]
  %unpacking = icmp ult i64 %r, %n
  br i1 %unpacking, label %unpack.key, label %unpacked
unpack.key:
  %pr = getelementptr i64, ptr %src, i64 %r
  %packed = load i64, ptr %pr
  %row = and i64 %packed, %row.mask
  store i64 %row, ptr %pr
  %r.next = add i64 %r, 1
  br label %unpack
unpacked:
  ret i64 %moved
}}
"""

_SIGNATURE = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64,
                              ctypes.c_int64, ctypes.c_void_p)


@functools.cache
def _radix_sort():
    """The compiled sort, or None where native code cannot be made (then NumPy sorts)."""
    from interpreter import native

    try:
        prefix, engine = native._compile(_IR, 2)
        return _SIGNATURE(engine.get_function_address(f"{prefix}radix_sort"))
    except Exception:  # noqa: BLE001 - no JIT on this machine: NumPy's sort is the same order
        return None


def stable_rows(keys: np.ndarray, key_bits: int) -> np.ndarray:
    """np.argsort(keys, kind="stable") of `keys`, a contiguous int64 array of values in
    [0, 2**key_bits) that it overwrites, where key_bits and the bits of a row number fit in
    63: each key packed above its row, sorted by the key's bits (radix passes in machine
    code past MIN_KEYS keys, else NumPy's sort), and the rows taken back."""
    n = len(keys)
    row_bits = max((n - 1).bit_length(), 1)
    sort = _radix_sort() if n >= MIN_KEYS else None
    if sort is None:
        keys <<= row_bits
        keys |= np.arange(n, dtype=np.int64)
        keys.sort()
        keys &= (1 << row_bits) - 1
        return keys
    passes = max(1, -(-key_bits // DIGIT))
    scratch = np.empty_like(keys)
    counts = np.zeros(passes << DIGIT, dtype=np.int64)
    moved = sort(keys.ctypes.data, scratch.ctypes.data, n, row_bits, passes, counts.ctypes.data)
    return scratch if moved else keys


__all__ = ["stable_rows"]
