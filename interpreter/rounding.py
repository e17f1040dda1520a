"""Arithmetic rounded as PTX says: once, and in the mode an instruction names.

Owns the fused multiply-add (one rounding) and every operation with an explicit rounding
mode (`add/sub/mul/div/fma/rcp/sqrt.{rn,rz,rm,rp}[.ftz]` of float and double, the conversions
`i2f/ui2f/ll2f/ull2f/ll2d/ull2d/d2f`, and inline PTX's `cvt` to f16, f32 and f64 in a mode), registered by NVVM's
intrinsic names into mathlib's table. Each is vectorized: the nearest result, then the side
of it the exact value lies on, found without rounding (the exact value written as a sum of
doubles, Shewchuk's expansion), then one step where the mode rounds the other way. Imports
NumPy and interpreter.values only.

One case is not exact: a double fma whose addend is more than 2**1000 times smaller than the
product (or the other way round), where the smaller can decide the side only if the rest
cancels exactly."""

from __future__ import annotations

import numpy as np

from interpreter.values import dtype_of

MODES = ("rn", "rz", "rm", "rp")


def fma(args, types, result):
    """x*y+z rounded once, as the GPU's fma. Float: the product is exact in double, the sum
    rounded to odd there, then to float (rounding to odd first makes the two roundings one).
    Double: Boldo and Melquiond's emulation, the exact product as two doubles (Dekker), its
    sum with z rounded to odd, then to nearest; where their terms would overflow or lose bits
    below the subnormals (and for inf and NaN), through long double."""
    return _fused(dtype_of(result), *args)


def _fused(dtype, *operands):
    with np.errstate(all="ignore"):
        if dtype != np.float64:
            x, y, z = (np.asarray(a, dtype=np.float64) for a in operands)
            return odd_sum(x * y, z).astype(dtype)
        x, y, z = np.broadcast_arrays(*(np.asarray(a, dtype=np.float64) for a in operands))
        product, low = exact_product(x, y)
        high, rest = two_sum(z, product)
        fused = high + odd_sum(rest, low)
        fused = np.where((x == 0) | (y == 0), x * y + z, fused)  # a zero product: one rounding, and its sign
        magnitudes = np.abs(np.stack([x, y, z, product]))
        exact = np.all(np.isfinite(magnitudes) & (magnitudes < 2.0 ** 995), axis=0) & np.isfinite(fused) & \
            ((x == 0) | (y == 0) | (magnitudes[3] > 2.0 ** -960))  # Dekker's product exact: far from the extremes
        if exact.all():
            return fused
        wide = [np.asarray(a, dtype=np.longdouble) for a in (x, y, z)]
        return np.where(exact, fused, (wide[0] * wide[1] + wide[2]).astype(np.float64))


def two_sum(a, b):
    """(a + b rounded, its exact error) (Knuth)."""
    total = a + b
    back = total - a
    return total, (a - (total - back)) + (b - back)


def exact_product(a, b):
    """(a * b rounded, its exact error) of doubles (Dekker, Veltkamp's split)."""
    def halves(v):
        scaled = 134217729.0 * v  # 2**27 + 1
        high = scaled - (scaled - v)
        return high, v - high
    product = a * b
    (a_high, a_low), (b_high, b_low) = halves(a), halves(b)
    return product, ((a_high * b_high - product) + a_high * b_low + a_low * b_high) + a_low * b_low


def odd_sum(a, b):
    """a + b of doubles rounded to odd: where inexact, of the two doubles around it the one
    whose last bit is 1."""
    total, error = two_sum(a, b)
    total = np.asarray(total, dtype=np.float64)
    bits = total.view(np.int64)
    even = (error != 0) & np.isfinite(total) & (bits & 1 == 0)
    outward = np.where((error > 0) == (total > 0), 1, -1)  # away from zero where the error has the sum's sign
    return np.where(even, (bits + outward).view(np.float64), total)


def sign_of_sum(*terms) -> np.ndarray:
    """The sign (-1, 0 or 1) of the exact sum of doubles: the terms grown into a
    nonoverlapping expansion (Shewchuk's Grow-Expansion), whose largest nonzero component
    has the sum's sign."""
    expansion: list = []
    for term in np.broadcast_arrays(*(np.asarray(t, dtype=np.float64) for t in terms)):
        carry, grown = term, []
        for component in expansion:
            carry, error = two_sum(carry, component)
            grown.append(error)
        expansion = grown + [carry]
    sign = np.zeros(np.shape(expansion[0]))
    for component in expansion:  # in increasing magnitude: the last nonzero decides
        sign = np.where(component != 0, np.sign(component), sign)
    return sign


# ---------------------------------------------------------------------------- the operations
# each: (nearest, operands as float64) -> (doubles whose exact sum has the sign of exact -
# nearest, times a factor's sign; scaled by powers of two, so that every product's two
# halves are exact however large or small the operands; that factor)


def _sum_terms(nearest, x, y):
    return [x, y, -nearest], 1


def _product_terms(nearest, x, y):
    (mx, ex), (my, ey) = np.frexp(x), np.frexp(y)
    high, low = exact_product(mx, my)
    return [high, low, -np.ldexp(nearest, -(ex + ey))], 1


def _quotient_terms(nearest, x, y):
    """x/y - q has the sign of (x - q*y) * sign(y)."""
    (mx, ex), (my, ey) = np.frexp(x), np.frexp(y)
    high, low = exact_product(np.ldexp(nearest, ey - ex), my)
    return [mx, -high, -low], np.sign(y)


def _reciprocal_terms(nearest, x):
    return _quotient_terms(nearest, np.ones_like(x), x)


def _root_terms(nearest, x):
    """sqrt(x) - r has the sign of x - r*r (x scaled by an even power of two)."""
    mx, ex = np.frexp(x)
    odd = ex & 1
    high, low = exact_product(*[np.ldexp(nearest, -(ex - odd) // 2)] * 2)
    return [mx * (1 + odd), -high, -low], 1


def _fused_terms(nearest, x, y, z):
    """x*y + z - r, every term scaled by the largest one's power of two; a product or addend
    so much smaller that it scales to zero still decides where the rest cancels exactly (as
    the smallest double of its sign, below every other term's last bit)."""
    (mx, ex), (my, ey), (_, ez), (_, er) = np.frexp(x), np.frexp(y), np.frexp(z), np.frexp(nearest)
    scales = [np.where(v == 0, -(1 << 20), e) for v, e in ((mx * my, ex + ey), (z, ez), (nearest, er))]
    top = np.maximum.reduce(scales)
    high, low = exact_product(mx, my)
    product, addend = np.ldexp(high, ex + ey - top), np.ldexp(z, -top)
    lost = np.where((product == 0) & (high != 0), np.sign(high), np.where((addend == 0) & (z != 0), np.sign(z), 0))
    return [lost * 5e-324, np.ldexp(low, ex + ey - top), product, addend, -np.ldexp(nearest, -top)], 1


_OPERATIONS = {  # name: (arity, the nearest result of float64 operands in dtype, its terms)
    "add": (2, lambda dtype, x, y: (x + y).astype(dtype), _sum_terms),
    "sub": (2, lambda dtype, x, y: (x - y).astype(dtype), lambda nearest, x, y: _sum_terms(nearest, x, -y)),
    "mul": (2, lambda dtype, x, y: (x * y).astype(dtype), _product_terms),
    "div": (2, lambda dtype, x, y: (x / y).astype(dtype), _quotient_terms),
    "rcp": (1, lambda dtype, x: (1 / x).astype(dtype), _reciprocal_terms),
    "sqrt": (1, lambda dtype, x: np.sqrt(x).astype(dtype), _root_terms),
    "fma": (3, _fused, _fused_terms),
}


def _rounded(operation: str, mode: str, flush: bool):
    """PTX's `operation.mode[.ftz]`: the nearest result (float results from double
    arithmetic, which for these operations rounds as float would), moved a step toward the
    exact value where `mode` rounds to its other side; `flush` makes subnormal operands and
    results zeros of their sign."""
    arity, nearest_of, terms_of = _OPERATIONS[operation]

    def call(args, types, result):
        dtype = dtype_of(result)
        with np.errstate(all="ignore"):
            operands = [np.asarray(a, dtype=dtype) for a in args[:arity]]
            if flush:
                operands = [_flushed(x) for x in operands]
            wide = np.broadcast_arrays(*(x.astype(np.float64) for x in operands))
            nearest = np.asarray(nearest_of(dtype, *wide), dtype=dtype)
            if mode != "rn":
                terms, factor = terms_of(nearest.astype(np.float64), *wide)
                known = np.all(np.isfinite(np.stack(np.broadcast_arrays(*terms))), axis=0)
                side = np.where(known, sign_of_sum(*terms) * factor, _overflowed(nearest, wide, operation))
                nearest = _toward(nearest, side, mode)
                if mode == "rm" and operation in ("add", "sub", "fma"):
                    nearest = _negative_zero(nearest, side, wide, operation)
            return _flushed(nearest) if flush else nearest
    return call


def _overflowed(nearest, wide, operation) -> np.ndarray:
    """The side of an exact value the terms could not hold: below an infinity that finite
    operands rounded to (not a division by zero), else unknown (0: the nearest stands)."""
    finite = np.all(np.isfinite(np.stack(wide)), axis=0)
    if operation in ("div", "rcp"):
        finite &= wide[-1] != 0
    return np.where(np.isinf(nearest) & finite, -np.sign(nearest), 0)


def _toward(nearest, side, mode: str):
    """`nearest` moved one step in the direction `mode` rounds, where the exact value lies
    on the other side of it (`side`: the sign of exact - nearest)."""
    up, down = np.asarray(np.inf, nearest.dtype), np.asarray(-np.inf, nearest.dtype)
    if mode == "rp":
        return np.where(side > 0, np.nextafter(nearest, up), nearest)
    if mode == "rm":
        return np.where(side < 0, np.nextafter(nearest, down), nearest)
    inward = (side != 0) & (side != np.sign(nearest)) & (nearest != 0)  # rz: never away from zero
    return np.where(inward, np.nextafter(nearest, np.zeros_like(nearest)), nearest)


def _negative_zero(nearest, side, wide, operation):
    """Rounding down, an exact zero sum of addends not both zeros of one sign is -0."""
    if operation in ("add", "sub"):
        first, second = wide[0], (wide[1] if operation == "add" else -wide[1])
    else:
        x, y, second = wide
        first = np.where((x == 0) | (y == 0), np.copysign(0.0, x) * np.copysign(1.0, y), x * y)
    same_zeros = (first == 0) & (second == 0) & (np.signbit(first) == np.signbit(second))
    return np.where((nearest == 0) & (side == 0) & ~same_zeros, -np.zeros_like(nearest), nearest)


def _flushed(x):
    tiny = np.finfo(x.dtype).tiny
    return np.where(np.abs(x) < tiny, np.copysign(np.zeros_like(x), x), x)


# ---------------------------------------------------------------------------- conversions


def _converted(source: str, mode: str, flush: bool = False):
    """PTX's conversion from `source` (s32, u32, s64, u64, f64, f32) to the result's float
    type in `mode`: the nearest value, moved a step as the mode says (a 64-bit integer's
    exact value as two doubles, its high and low 32 bits)."""
    kind = {"s16": np.int16, "u16": np.uint16, "s32": np.int32, "u32": np.uint32, "s64": np.int64,
            "u64": np.uint64, "f64": np.float64, "f32": np.float32}[source]

    def call(args, types, result):
        dtype = dtype_of(result)
        with np.errstate(all="ignore"):
            value = np.asarray(args[0]).astype(kind)
            nearest = value.astype(dtype)  # NumPy converts to nearest even
            if mode != "rn":
                if source in ("s64", "u64"):
                    terms = [(value >> 32).astype(np.float64) * 2.0 ** 32, (value & 0xFFFFFFFF).astype(np.float64)]
                else:
                    terms = [value.astype(np.float64)]
                side = sign_of_sum(*terms, -nearest.astype(np.float64))
                side = np.where(np.isfinite(terms[0]), side, 0)  # infinity and NaN convert exactly
                side = np.where(np.isinf(nearest) & np.isfinite(terms[0]), -np.sign(nearest), side)
                nearest = _toward(nearest, side, mode)
            return _flushed(nearest) if flush else nearest
    return call


def operation_name(operation: str, mode: str, flush: bool, double: bool) -> str:
    """The intrinsic an operation in a mode is called by: NVVM's (`llvm.nvvm.add.rz.ftz.f`),
    Simulee's for sub, which NVVM has not (inline PTX's `sub.rz.f32`)."""
    prefix = "__simulee_" if operation == "sub" else "llvm.nvvm."
    return f"{prefix}{operation}.{mode}{'.ftz' if flush else ''}.{'d' if double else 'f'}"


def conversion_name(mode: str, flush: bool, source: str) -> str:
    """The function inline PTX's `cvt.<mode>[.ftz].<float>.<source>` is called by (its result
    type says the target)."""
    return f"__simulee_cvt.{mode}{'.ftz' if flush else ''}.{source}"


def register(functions: dict) -> None:
    """Put every operation and conversion with a rounding mode into `functions` by its
    intrinsic's name."""
    for mode in MODES:
        for name in _OPERATIONS:
            for flush, double in ((False, False), (False, True), (True, False)):
                functions[operation_name(name, mode, flush, double)] = _rounded(name, mode, flush)
        for name, source in {"i2f": "s32", "ui2f": "u32", "ll2f": "s64", "ull2f": "u64", "ll2d": "s64",
                             "ull2d": "u64", "d2f": "f64"}.items():
            functions[f"llvm.nvvm.{name}.{mode}"] = _converted(source, mode)
        functions[f"llvm.nvvm.d2f.{mode}.ftz"] = _converted("f64", mode, flush=True)
        for source in ("s16", "u16", "s32", "u32", "s64", "u64", "f32", "f64"):  # inline PTX's cvt.<mode>.<to>.<from>
            for flush in (False, True):
                functions[conversion_name(mode, flush, source)] = _converted(source, mode, flush)
