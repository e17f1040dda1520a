"""Pure functions callable from kernels: libdevice's __nv_* math, LLVM's math and bit
intrinsics (llvm.sqrt.f32, llvm.ctpop.i32, ...) and NVVM's arithmetic intrinsics
(llvm.nvvm.mul24.i, ...). Each takes the argument values and types and returns the result
in the result type's precision; none touches memory or thread state.

The special functions (error functions and their inverses, gamma, Bessel, normal
distribution) are not here: libdevice's own code is linked for them
(simulee.frontend.device_library), NVIDIA's algorithms with their special values (SciPy's
erfc, for one, is 48 ulp off in double where libdevice's is within its 5). The rest agree
with CUDA's to within the documented ulp errors, not bit for bit; arithmetic that PTX rounds
exactly (fma, the explicit rounding modes) comes from interpreter.rounding, bit for bit.
"""

from __future__ import annotations

import re

import numpy as np

from interpreter import rounding
from interpreter.types import FloatType, Type
from interpreter.values import cast, dtype_of, scalar_type, unsigned, unsigned_of_width, wrap

_TYPE_SUFFIX = re.compile(r"^(i\d+|f\d+|bf16|v\d+\w+|p\d+|nxv\w+)$")


def base_name(callee: str) -> str:
    """An LLVM intrinsic's name without its type suffixes: llvm.smax.i32 -> llvm.smax."""
    parts = callee.split(".")
    while len(parts) > 2 and _TYPE_SUFFIX.match(parts[-1]):
        parts.pop()
    return ".".join(parts)


def find(callee: str):
    """The implementation of a pure callee, or None."""
    if callee in FUNCTIONS:
        return FUNCTIONS[callee]
    return FUNCTIONS.get(base_name(callee))


def _in(result: Type):
    """Convert an output to the result's dtype."""
    dtype = dtype_of(result)
    return lambda value: np.asarray(value).astype(dtype, copy=False)


def _float1(function):
    """A unary float function computed in the argument's own precision."""
    def call(args, types, result):
        x = np.asarray(args[0], dtype=dtype_of(result))
        return np.asarray(function(x)).astype(x.dtype, copy=False)
    return call


def _float2(function):
    def call(args, types, result):
        dtype = dtype_of(result)
        return np.asarray(function(np.asarray(args[0], dtype=dtype), np.asarray(args[1], dtype=dtype))).astype(
            dtype, copy=False)
    return call


def _fmax(x, y):
    """The GPU's max (PTX max, fmaxf): the other operand where one is NaN, and +0 above -0."""
    return np.where((x == 0) & (y == 0), np.where(np.signbit(x), y, x), np.fmax(x, y))


def _fmin(x, y):
    """The GPU's min (PTX min, fminf): the other operand where one is NaN, and -0 below +0."""
    return np.where((x == 0) & (y == 0), np.where(np.signbit(x), x, y), np.fmin(x, y))


def _round_half_away(x):
    """C round(): halves away from zero."""
    truncated = np.trunc(x)
    return np.where(np.abs(x - truncated) >= 0.5, truncated + np.sign(x), truncated)


def remquo(x, y):
    """C remquo(): (x - n*y exactly, with n the integer nearest x/y, ties to even; n's low
    three bits, with the sign of x/y). fmod is exact, and of 8|y| keeps n's low bits."""
    magnitude = np.abs(y)
    eightfold = np.fmod(np.abs(x), 8 * magnitude)  # 8|y| past the largest value: |x| < 8|y| already
    eightfold = np.where(np.isinf(8 * magnitude) & np.isfinite(magnitude), np.abs(x), eightfold)
    rest = np.fmod(eightfold, magnitude)
    quotient = np.rint((eightfold - rest) / magnitude)
    over = (rest > magnitude / 2) | ((rest == magnitude / 2) & (np.fmod(quotient, 2) == 1))
    rest = np.where(over, rest - magnitude, rest)
    quotient = np.where(over, quotient + 1, quotient)
    remainder = np.where(rest == 0, np.copysign(np.zeros_like(rest), x), np.copysign(1, x) * rest)
    bits = np.nan_to_num(np.fmod(quotient, 8), nan=0).astype(np.int32)
    return remainder.astype(x.dtype), np.where(np.signbit(x) != np.signbit(y), -bits, bits)


def _remainder(x, y):
    return remquo(x, y)[0]


def sinpi(x):
    """sin(pi x) with x reduced exactly to [-1, 1] (fmod) and folded to where sin and cos
    are accurate: integers give zeros of x's sign, large x no reduction error."""
    r = np.fmod(x, x.dtype.type(2))
    r = np.where(r > 1, r - 2, np.where(r < -1, r + 2, r))
    a = np.abs(r).astype(np.float64)
    pi = np.pi
    value = np.where(a <= 0.25, np.sin(pi * a), np.where(a <= 0.75, np.cos(pi * (a - 0.5)), np.sin(pi * (1 - a))))
    return (np.copysign(1, r) * value).astype(x.dtype)


def cospi(x):
    """cos(pi x), reduced as sinpi; cospi of n + 1/2 is +0."""
    a = np.abs(np.fmod(x, x.dtype.type(2)))
    a = np.where(a > 1, 2 - a, a).astype(np.float64)
    pi = np.pi
    value = np.where(a <= 0.25, np.cos(pi * a), np.where(a <= 0.75, np.sin(pi * (0.5 - a)), -np.cos(pi * (1 - a))))
    return value.astype(x.dtype)


def _logb(x):
    mantissa, exponent = np.frexp(x)
    out = (exponent - 1).astype(x.dtype)
    return np.where(x == 0, -np.inf, np.where(np.isinf(x), np.inf, np.where(np.isnan(x), x, out)))


def _classify(function):
    def call(args, types, result):
        return np.asarray(function(np.asarray(args[0]))).astype(dtype_of(result))
    return call


def _float_to_integer(rounded, signed: bool, flush: bool = False):
    """PTX's cvt to an integer in a rounding mode (and llrint, llround): saturated, NaN 0
    (`flush`: subnormal operands are zeros first)."""
    def call(args, types, result):
        value = np.asarray(args[0], dtype=np.float64)
        if flush:
            value = np.where(np.abs(value) < np.finfo(np.float32).tiny, 0.0, value)
        return cast("fptosi" if signed else "fptoui", rounded(value), FloatType("double"), result)
    return call


def _ilogb(args, types, result):
    x = np.asarray(args[0], dtype=np.float64)
    _, exponent = np.frexp(x)
    return np.where((x == 0) | np.isnan(x), -2147483648, np.where(np.isinf(x), 2147483647, exponent - 1)).astype(
        dtype_of(result))


def _ldexp(args, types, result):
    dtype = dtype_of(result)
    return np.ldexp(np.asarray(args[0], dtype=dtype), np.asarray(args[1], dtype=np.int32)).astype(dtype)


def _nan(args, types, result):
    return np.asarray(np.nan, dtype=dtype_of(result))


def _norm(reciprocal: bool):
    """norm3d, rnorm4d, ...: the square root of the sum of squares (or its reciprocal) in long
    double, where no square overflows; infinite if any operand is, even with a NaN."""
    def call(args, types, result):
        wide = [np.asarray(a, dtype=np.longdouble) for a in args]
        value = np.sqrt(sum(np.square(a) for a in wide))
        value = np.where(np.any([np.isinf(a) for a in wide], axis=0), np.inf, value)
        return (1 / value if reciprocal else value).astype(dtype_of(result))
    return call


def _wide1(function):
    """A unary function computed in long double and rounded once to the argument's type
    (the reciprocal roots: rsqrt, rcbrt, within half an ulp)."""
    def call(args, types, result):
        dtype = dtype_of(result)
        return np.asarray(function(np.asarray(args[0], dtype=dtype).astype(np.longdouble))).astype(dtype)
    return call


def _wide2(function):
    def call(args, types, result):
        dtype = dtype_of(result)
        x, y = (np.asarray(a, dtype=dtype).astype(np.longdouble) for a in args[:2])
        return np.asarray(function(x, y)).astype(dtype)
    return call


def _fdim(x, y):
    """C fdim(): x - y where x > y, else +0; NaN if either is."""
    return np.where(np.isnan(x) | np.isnan(y), x + y, np.where(x > y, x - y, 0))


# ---------------------------------------------------------------------------- integers


def _int2(function):
    def call(args, types, result):
        dtype = dtype_of(result)
        return wrap(np.asarray(function(np.asarray(args[0], dtype=dtype), np.asarray(args[1], dtype=dtype))).astype(
            dtype), result)
    return call


def _unsigned2(function):
    def call(args, types, result):
        dtype = dtype_of(result)
        a, b = unsigned_of_width(args[0], result), unsigned_of_width(args[1], result)
        return wrap(np.asarray(function(a, b)).astype(a.dtype).view(dtype), result)
    return call


def _ctpop(args, types, result):
    return np.bitwise_count(unsigned_of_width(args[0], result)).astype(dtype_of(result))


def _bit_length(values: np.ndarray) -> np.ndarray:
    """Position of the highest set bit plus one (0 for 0), by smearing the bits downward."""
    smeared = unsigned(values).copy()
    for shift in (1, 2, 4, 8, 16, 32)[: int(np.log2(smeared.dtype.itemsize * 8))]:
        smeared |= smeared >> smeared.dtype.type(shift)
    return np.bitwise_count(smeared).astype(np.int64)


def _ctlz(args, types, result):
    bits = scalar_type(result).bits
    return (bits - _bit_length(unsigned_of_width(args[0], result))).astype(dtype_of(result))


def _cttz(args, types, result):
    bits = scalar_type(result).bits
    value = unsigned_of_width(args[0], result)
    lowest_below = (value & (~value + value.dtype.type(1))) - value.dtype.type(1)  # ones below the lowest set bit
    return np.where(value == 0, bits, np.bitwise_count(lowest_below)).astype(dtype_of(result))


def _bitreverse(args, types, result):
    bits = scalar_type(result).bits
    value = unsigned_of_width(args[0], result).astype(np.uint64)
    out = np.zeros(value.shape, dtype=np.uint64)
    for position in range(bits):
        out |= ((value >> np.uint64(position)) & np.uint64(1)) << np.uint64(bits - 1 - position)
    return wrap(out.astype(unsigned(np.zeros(1, dtype_of(result))).dtype).view(dtype_of(result)), result)


def _bswap(args, types, result):
    return np.asarray(args[0], dtype=dtype_of(result)).byteswap()


def _funnel(left: bool):
    """fshl/fshr: shift the concatenation a:b by c modulo the width."""
    def call(args, types, result):
        bits = scalar_type(result).bits
        dtype = dtype_of(result)
        a = unsigned_of_width(args[0], result).astype(np.uint64)
        b = unsigned_of_width(args[1], result).astype(np.uint64)
        c = (unsigned_of_width(args[2], result).astype(np.uint64) % np.uint64(bits))
        combined_high, combined_low = a, b
        mask = np.uint64((1 << bits) - 1)
        if left:
            out = ((combined_high << c) | np.where(c == 0, 0, combined_low >> (np.uint64(bits) - c))) & mask
        else:
            out = ((combined_low >> c) | np.where(c == 0, 0, combined_high << (np.uint64(bits) - c))) & mask
        out = np.where(c == 0, combined_high if left else combined_low, out)
        return wrap(out.astype(np.uint64).astype(unsigned(np.zeros(1, dtype)).dtype).view(dtype), result)
    return call


def _abs(args, types, result):
    return np.abs(np.asarray(args[0], dtype=dtype_of(result)))


def _mul24(signed: bool):
    def call(args, types, result):
        if signed:
            a = (np.asarray(args[0], dtype=np.int64) << 40) >> 40
            b = (np.asarray(args[1], dtype=np.int64) << 40) >> 40
        else:
            a = np.asarray(args[0], dtype=np.int64) & 0xFFFFFF
            b = np.asarray(args[1], dtype=np.int64) & 0xFFFFFF
        return (a * b).astype(np.int64).astype(np.int32)
    return call


def _mulhi(bits: int, signed: bool):
    """The high half of the full product (32- or 64-bit, signed or unsigned)."""
    def call(args, types, result):
        dtype = dtype_of(result)
        if bits == 32:
            a = np.asarray(args[0], dtype=dtype).astype(np.int64) if signed else unsigned(args[0]).astype(np.int64)
            b = np.asarray(args[1], dtype=dtype).astype(np.int64) if signed else unsigned(args[1]).astype(np.int64)
            return ((a * b) >> 32).astype(np.int64).astype(dtype)
        a = np.asarray(args[0], dtype=np.int64)
        b = np.asarray(args[1], dtype=np.int64)
        ua, ub = a.view(np.uint64), b.view(np.uint64)
        low_mask, thirty_two = np.uint64(0xFFFFFFFF), np.uint64(32)
        al, ah, bl, bh = ua & low_mask, ua >> thirty_two, ub & low_mask, ub >> thirty_two
        ll, lh, hl, hh = al * bl, al * bh, ah * bl, ah * bh
        middle = (ll >> thirty_two) + (lh & low_mask) + (hl & low_mask)
        high = hh + (lh >> thirty_two) + (hl >> thirty_two) + (middle >> thirty_two)
        if signed:  # two's complement correction of the unsigned high half
            high = high - np.where(a < 0, ub, np.uint64(0)) - np.where(b < 0, ua, np.uint64(0))
        return np.asarray(high, dtype=np.uint64).view(np.int64)
    return call


def _sad(signed: bool):
    def call(args, types, result):
        if signed:
            a, b = np.asarray(args[0], dtype=np.int64), np.asarray(args[1], dtype=np.int64)
        else:
            a, b = unsigned(args[0]).astype(np.int64), unsigned(args[1]).astype(np.int64)
        return (np.abs(a - b) + unsigned(args[2]).astype(np.int64)).astype(np.uint32).view(np.int32)
    return call


def _prmt(args, types, result):
    """PTX prmt (byte permute, default mode): selector nibble k picks byte k of the result
    from the 8 bytes b:a; its bit 3 replicates the chosen byte's sign."""
    a = unsigned(args[0]).astype(np.uint64)
    b = unsigned(args[1]).astype(np.uint64)
    selector = unsigned(args[2]).astype(np.uint64)
    pool = a | (b << np.uint64(32))
    out = np.zeros(np.broadcast(a, b, selector).shape, dtype=np.uint64)
    for k in range(4):
        nibble = (selector >> np.uint64(4 * k)) & np.uint64(0xF)
        byte = (pool >> ((nibble & np.uint64(7)) * np.uint64(8))) & np.uint64(0xFF)
        sign = np.where((byte & np.uint64(0x80)) != 0, np.uint64(0xFF), np.uint64(0))
        byte = np.where((nibble & np.uint64(8)) != 0, sign, byte)
        out |= byte << np.uint64(8 * k)
    return out.astype(np.uint32).view(np.int32)


def _fns(args, types, result):
    """PTX fns / __fns(mask, base, offset): the position of the offset-th set bit of mask
    counting up from base (offset > 0) or down from it (offset < 0); for offset 0, base
    itself if its bit is set. 0xffffffff when there is no such bit."""
    mask = unsigned(np.asarray(args[0], dtype=np.int32)).astype(np.int64)
    base = np.asarray(args[1], dtype=np.int64) & 31
    offset = np.asarray(args[2], dtype=np.int64)
    shape = np.broadcast(mask, base, offset).shape
    mask, base, offset = (np.broadcast_to(v, shape).reshape(-1) for v in (mask, base, offset))
    positions = np.arange(32)
    bit_set = ((mask[:, None] >> positions) & 1) == 1
    upward = offset[:, None] >= 0
    in_range = np.where(upward, positions >= base[:, None], positions <= base[:, None])
    counted = bit_set & in_range
    order = np.where(upward, positions, 31 - positions)  # the order bits are visited in
    ranks = np.zeros_like(counted, dtype=np.int64)
    visiting = np.argsort(order, axis=1, kind="stable")
    ranks_in_order = np.cumsum(np.take_along_axis(counted, visiting, axis=1), axis=1)
    np.put_along_axis(ranks, visiting, ranks_in_order, axis=1)
    wanted = np.maximum(np.abs(offset), 1)[:, None]
    hit = counted & (ranks == wanted)
    found = np.where(hit.any(axis=1), np.argmax(hit, axis=1), -1)
    zero_offset = offset == 0
    found = np.where(zero_offset, np.where(bit_set[np.arange(len(base)), base], base, -1), found)
    return found.reshape(shape).astype(np.int64).astype(np.uint32).view(np.int32)


def _saturate(args, types, result):
    dtype = dtype_of(result)
    x = np.asarray(args[0], dtype=dtype)
    return np.where(np.isnan(x), 0, np.clip(x, 0, 1)).astype(dtype)


def _f2h(args, types, result):
    """float -> IEEE half bits (as i16), round to nearest even."""
    return np.asarray(args[0], dtype=np.float32).astype(np.float16).view(np.int16)


def _h2f(args, types, result):
    return np.asarray(args[0], dtype=np.int16).view(np.float16).astype(np.float32)


# FP8 formats (OCP's, as PTX has them): mantissa bits, exponent bias, largest finite value
_FP8 = {"e4m3": (3, 7, 448.0), "e5m2": (2, 15, 57344.0)}


def to_fp8(values, name: str, relu: bool = False) -> np.ndarray:
    """The FP8 bytes (uint8) of float `values`, rounded to nearest even and saturated to the
    largest finite magnitude (PTX's cvt.rn.satfinite); NaN is 0x7F; with `relu` a negative
    value is 0 first."""
    mantissa, bias, largest = _FP8[name]
    x = np.asarray(values, dtype=np.float64)
    nan = np.isnan(x)
    if relu:
        x = np.where(x < 0, 0.0, x)
    sign = np.signbit(x) & ~nan
    a = np.abs(np.where(nan, 0.0, x))
    exponent = np.maximum(np.frexp(a)[1] - 1, 1 - bias)  # the binade (subnormals share the smallest normal's)
    quantum = np.ldexp(1.0, exponent - mantissa)
    rounded = np.minimum(np.rint(np.where(np.isinf(a), largest, a) / quantum) * quantum, largest)
    field = np.frexp(rounded)[1] - 1
    normal = (rounded > 0) & (field >= 1 - bias)
    exponent_bits = np.where(normal, field + bias, 0)
    fraction = np.where(normal, rounded / np.ldexp(1.0, field - mantissa) - (1 << mantissa),
                        rounded / np.ldexp(1.0, 1 - bias - mantissa))
    byte = (sign.astype(np.int64) << 7) | (exponent_bits.astype(np.int64) << mantissa) | fraction.astype(np.int64)
    return np.where(nan, 0x7F, byte).astype(np.uint8)


def from_fp8(bytes_, name: str) -> np.ndarray:
    """The values (float64) of FP8 bytes: E4M3 has NaN for S.1111.111 and no infinity, E5M2
    IEEE's infinities and NaNs."""
    mantissa, bias, _ = _FP8[name]
    b = np.asarray(bytes_).astype(np.int64) & 0xFF
    sign = np.where(b & 0x80, -1.0, 1.0)
    exponent_bits, fraction = (b >> mantissa) & ((1 << (7 - mantissa)) - 1), b & ((1 << mantissa) - 1)
    top = (1 << (7 - mantissa)) - 1
    value = np.where(exponent_bits == 0, np.ldexp(fraction.astype(np.float64), 1 - bias - mantissa),
                     np.ldexp((fraction + (1 << mantissa)).astype(np.float64), exponent_bits - bias - mantissa))
    if name == "e4m3":
        value = np.where((exponent_bits == top) & (fraction == (1 << mantissa) - 1), np.nan, value)
    else:
        value = np.where(exponent_bits == top, np.where(fraction == 0, np.inf, np.nan), value)
    return sign * value


def _floats_to_fp8x2(name: str, relu: bool):
    """llvm.nvvm.ff.to.{e4m3,e5m2}x2.rn(.relu)(high, low): two FP8 bytes in an i16."""
    def call(args, types, result):
        high, low = (to_fp8(a, name, relu).astype(np.int32) for a in args[:2])
        return ((high << 8) | low).astype(np.uint16).view(np.int16)
    return call


def _halves_to_fp8x2(name: str, relu: bool):
    """llvm.nvvm.f16x2.to.{e4m3,e5m2}x2.rn(.relu)(<2 x half>): element 1 the high byte."""
    def call(args, types, result):
        pair = np.asarray(args[0], dtype=np.float16)
        low, high = (to_fp8(pair[..., lane], name, relu).astype(np.int32) for lane in (0, 1))
        return ((high << 8) | low).astype(np.uint16).view(np.int16)
    return call


def _fp8x2_to_halves(name: str):
    """llvm.nvvm.{e4m3,e5m2}x2.to.f16x2.rn(i16): <2 x half>, the low byte element 0 (exact)."""
    def call(args, types, result):
        word = np.asarray(args[0]).astype(np.int64) & 0xFFFF
        return np.stack([from_fp8(word & 0xFF, name), from_fp8(word >> 8, name)], axis=-1).astype(np.float16)
    return call


def _identity(args, types, result):
    return np.asarray(args[0], dtype=dtype_of(result)).copy()


def _min_max(function, unsigned_compare: bool = False):
    def call(args, types, result):
        if unsigned_compare:
            a, b = unsigned_of_width(args[0], result), unsigned_of_width(args[1], result)
            return function(a, b).view(dtype_of(result))
        dtype = dtype_of(result)
        return function(np.asarray(args[0], dtype=dtype), np.asarray(args[1], dtype=dtype)).astype(dtype)
    return call


# ---------------------------------------------------------------------------- the table

FUNCTIONS: dict = {}


def _libdevice_pair(name: str, implementation) -> None:
    """Register __nv_<name>f (float) and __nv_<name> (double)."""
    FUNCTIONS[f"__nv_{name}f"] = implementation
    FUNCTIONS[f"__nv_{name}"] = implementation


for _name, _function in {
    "sqrt": np.sqrt, "cbrt": np.cbrt,
    "exp": np.exp, "exp2": np.exp2, "exp10": lambda x: np.power(x.dtype.type(10), x), "expm1": np.expm1,
    "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p, "logb": _logb,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "sinpi": sinpi,
    "cospi": cospi, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh,
    "atanh": np.arctanh, "floor": np.floor, "ceil": np.ceil, "round": _round_half_away, "trunc": np.trunc,
    "rint": np.rint, "nearbyint": np.rint, "fabs": np.abs,
}.items():
    _libdevice_pair(_name, _float1(_function))
for _name, _function in {
    "pow": np.power, "atan2": np.arctan2, "fmod": np.fmod, "remainder": _remainder, "fmin": _fmin,
    "fmax": _fmax, "fdim": _fdim,
    "copysign": np.copysign, "hypot": np.hypot,
    "nextafter": np.nextafter,
}.items():
    _libdevice_pair(_name, _float2(_function))
_libdevice_pair("rsqrt", _wide1(lambda x: 1 / np.sqrt(x)))
_libdevice_pair("rcbrt", _wide1(lambda x: 1 / np.cbrt(x)))
_libdevice_pair("rhypot", _wide2(lambda x, y: 1 / np.hypot(x, y)))
_libdevice_pair("fma", rounding.fma)
_libdevice_pair("ldexp", _ldexp)
_libdevice_pair("scalbn", _ldexp)
_libdevice_pair("ilogb", _ilogb)
_libdevice_pair("llrint", _float_to_integer(np.rint, True))
_libdevice_pair("llround", _float_to_integer(_round_half_away, True))
FUNCTIONS["__nv_llroundf"] = lambda args, types, result: np.where(  # libdevice's float version: NaN is LLONG_MIN
    np.isnan(np.asarray(args[0], dtype=np.float32)), np.int64(-2 ** 63), FUNCTIONS["__nv_llround"](args, types, result))
_libdevice_pair("nan", _nan)
_libdevice_pair("norm3d", _norm(False))
_libdevice_pair("rnorm3d", _norm(True))
_libdevice_pair("norm4d", _norm(False))
_libdevice_pair("rnorm4d", _norm(True))
for _suffix, _function in {"isnan": np.isnan, "isinf": np.isinf, "signbit": np.signbit}.items():
    FUNCTIONS[f"__nv_{_suffix}f"] = _classify(_function)
    FUNCTIONS[f"__nv_{_suffix}d"] = _classify(_function)
FUNCTIONS["__nv_finitef"] = _classify(np.isfinite)
FUNCTIONS["__nv_isfinited"] = _classify(np.isfinite)

# LLVM intrinsics, by base name (type suffixes stripped)
FUNCTIONS.update({
    "llvm.sqrt": _float1(np.sqrt), "llvm.fabs": _float1(np.abs), "llvm.floor": _float1(np.floor),
    "llvm.ceil": _float1(np.ceil), "llvm.trunc": _float1(np.trunc), "llvm.round": _float1(_round_half_away),
    "llvm.roundeven": _float1(np.rint), "llvm.rint": _float1(np.rint), "llvm.nearbyint": _float1(np.rint),
    "llvm.exp": _float1(np.exp), "llvm.exp2": _float1(np.exp2), "llvm.exp10": _float1(lambda x: np.power(
        x.dtype.type(10), x)), "llvm.log": _float1(np.log), "llvm.log2": _float1(np.log2),
    "llvm.log10": _float1(np.log10), "llvm.sin": _float1(np.sin), "llvm.cos": _float1(np.cos),
    "llvm.tan": _float1(np.tan), "llvm.pow": _float2(np.power), "llvm.minnum": _float2(_fmin),
    "llvm.maxnum": _float2(_fmax), "llvm.minimum": _float2(np.minimum), "llvm.maximum": _float2(np.maximum),
    "llvm.copysign": _float2(np.copysign), "llvm.fma": rounding.fma, "llvm.fmuladd": rounding.fma,
    "llvm.smax": _min_max(np.maximum), "llvm.smin": _min_max(np.minimum),
    "llvm.umax": _min_max(np.maximum, True), "llvm.umin": _min_max(np.minimum, True), "llvm.abs": _abs,
    "llvm.ctpop": _ctpop, "llvm.ctlz": _ctlz, "llvm.cttz": _cttz, "llvm.bitreverse": _bitreverse,
    "llvm.bswap": _bswap, "llvm.fshl": _funnel(True), "llvm.fshr": _funnel(False),
    "llvm.expect": _identity, "llvm.ssa.copy": _identity, "llvm.canonicalize": _float1(lambda x: x),
    # NVVM arithmetic
    "llvm.nvvm.mul24.i": _mul24(True), "llvm.nvvm.mul24.ui": _mul24(False),
    "llvm.nvvm.mulhi.i": _mulhi(32, True), "llvm.nvvm.mulhi.ui": _mulhi(32, False),
    "llvm.nvvm.mulhi.ll": _mulhi(64, True), "llvm.nvvm.mulhi.ull": _mulhi(64, False),
    "llvm.nvvm.sad.i": _sad(True), "llvm.nvvm.sad.ui": _sad(False), "llvm.nvvm.prmt": _prmt,
    "llvm.nvvm.fns": _fns, "llvm.nvvm.saturate.f": _saturate, "llvm.nvvm.saturate.d": _saturate,
    "llvm.nvvm.saturate.ftz.f": _saturate, "llvm.nvvm.f2h.rn": _f2h, "llvm.nvvm.f2h.rn.ftz": _f2h,
    "llvm.nvvm.ex2.approx.f": _float1(np.exp2), "llvm.nvvm.ex2.approx.ftz.f": _float1(np.exp2),
    "llvm.nvvm.ex2.approx.d": _float1(np.exp2), "llvm.nvvm.lg2.approx.f": _float1(np.log2),
    "llvm.nvvm.lg2.approx.ftz.f": _float1(np.log2), "llvm.nvvm.lg2.approx.d": _float1(np.log2),
    "llvm.nvvm.sin.approx.f": _float1(np.sin), "llvm.nvvm.sin.approx.ftz.f": _float1(np.sin),
    "llvm.nvvm.cos.approx.f": _float1(np.cos), "llvm.nvvm.cos.approx.ftz.f": _float1(np.cos),
    "llvm.nvvm.sqrt.f": _float1(np.sqrt),
    "llvm.nvvm.sqrt.approx.f": _float1(np.sqrt),
    "llvm.nvvm.rsqrt.approx.f": _float1(lambda x: 1 / np.sqrt(x)),
    "llvm.nvvm.rsqrt.approx.ftz.f": _float1(lambda x: 1 / np.sqrt(x)),
    "llvm.nvvm.rsqrt.approx.d": _float1(lambda x: 1 / np.sqrt(x)),
    "llvm.nvvm.div.approx.f": _float2(np.divide),
    "llvm.nvvm.fabs.f": _float1(np.abs), "llvm.nvvm.fabs.d": _float1(np.abs), "llvm.nvvm.fabs": _float1(np.abs),
    "llvm.nvvm.fabs.ftz": _float1(np.abs),
    "llvm.nvvm.fmin.f": _float2(_fmin), "llvm.nvvm.fmax.f": _float2(_fmax),
    "llvm.nvvm.fmin.d": _float2(_fmin), "llvm.nvvm.fmax.d": _float2(_fmax),
    "llvm.nvvm.brev32": _bitreverse, "llvm.nvvm.brev64": _bitreverse,
})
for _format in _FP8:
    FUNCTIONS[f"llvm.nvvm.ff.to.{_format}x2.rn"] = _floats_to_fp8x2(_format, False)
    FUNCTIONS[f"llvm.nvvm.ff.to.{_format}x2.rn.relu"] = _floats_to_fp8x2(_format, True)
    FUNCTIONS[f"llvm.nvvm.f16x2.to.{_format}x2.rn"] = _halves_to_fp8x2(_format, False)
    FUNCTIONS[f"llvm.nvvm.f16x2.to.{_format}x2.rn.relu"] = _halves_to_fp8x2(_format, True)
    FUNCTIONS[f"llvm.nvvm.{_format}x2.to.f16x2.rn"] = _fp8x2_to_halves(_format)
rounding.register(FUNCTIONS)


def _double_half(high: bool):
    def call(args, types, result):
        bits = np.asarray(args[0], dtype=np.float64).view(np.int64)
        return (bits >> 32 if high else bits & 0xFFFFFFFF).astype(np.uint32).view(np.int32)
    return call


def _lohi_to_double(args, types, result):
    low, high = (np.asarray(a, dtype=np.int32).view(np.uint32).astype(np.uint64) for a in args[:2])
    return ((high << np.uint64(32)) | low).view(np.float64)


# what libdevice's own code calls (for the __nv_* functions linked from it)
for _mode, _rounded in {"rn": np.rint, "rz": np.trunc, "rm": np.floor, "rp": np.ceil}.items():
    for _name, _signed in (("i", True), ("ui", False), ("ll", True), ("ull", False)):
        FUNCTIONS[f"llvm.nvvm.d2{_name}.{_mode}"] = _float_to_integer(_rounded, _signed)
        FUNCTIONS[f"llvm.nvvm.f2{_name}.{_mode}"] = _float_to_integer(_rounded, _signed)
        FUNCTIONS[f"llvm.nvvm.f2{_name}.{_mode}.ftz"] = _float_to_integer(_rounded, _signed, flush=True)
for _name, _rounded in {"ceil": np.ceil, "floor": np.floor, "trunc": np.trunc, "round": np.rint}.items():
    for _suffix in ("f", "d", "ftz.f"):
        FUNCTIONS[f"llvm.nvvm.{_name}.{_suffix}"] = _float1(_rounded)
FUNCTIONS.update({
    "llvm.nvvm.d2i.hi": _double_half(True), "llvm.nvvm.d2i.lo": _double_half(False),
    "llvm.nvvm.lohi.i2d": _lohi_to_double,
    "llvm.nvvm.i2d.rn": lambda args, types, result: np.asarray(args[0], dtype=np.int32).astype(np.float64),
    "llvm.nvvm.ui2d.rn": lambda args, types, result: np.asarray(args[0], dtype=np.int32).view(np.uint32).astype(
        np.float64),
    "llvm.nvvm.ex2.approx": _float1(np.exp2), "llvm.nvvm.ex2.approx.ftz": _float1(np.exp2),
    "llvm.nvvm.div.approx.ftz.f": _float2(np.divide), "llvm.nvvm.fmax.ftz.f": _float2(_fmax),
    "llvm.nvvm.fmin.ftz.f": _float2(_fmin), "llvm.nvvm.rcp.approx.ftz.d": _float1(lambda x: 1 / x),
    "llvm.nvvm.sqrt.approx.ftz.f": _float1(np.sqrt), "llvm.tanh": _float1(np.tanh),
    "llvm.convert.from.fp16": lambda args, types, result: np.asarray(args[0], dtype=np.int16).view(
        np.float16).astype(dtype_of(result)),
})
