"""Every CUDA number type computes what the GPU computes, on every architecture NVIDIA's
headers take a path of their own for (tests/arith/types.cu): half and half2, bfloat16 and its
pairs (sm_80 has instructions for them: inline PTX the front end lifts), FP8 E4M3 and E5M2
(sm_89's conversions), and the integer intrinsics, under both engines. The references share
no code with Simulee: NumPy's float16, ml_dtypes' bfloat16 and FP8 types, and the CUDA
documentation's definitions of the integer intrinsics written out in Python."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from conftest import TESTS
from interpreter.launch import Launch
from interpreter.simt import execute

pytestmark = pytest.mark.xdist_group("arithmetic")  # one worker compiles the file once per architecture

TYPES = TESTS / "arith" / "types.cu"
ARCHS = ("sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_100", "sm_120")
ENGINES = ("native", "numpy")
N = 512  # operands of each operation: random ones, then every special value against every other
BF16 = ml_dtypes.bfloat16


@pytest.fixture(autouse=True)
def native_from_the_first_instruction(monkeypatch):
    """The native engine compiles a kernel's code at once (not after its warm-up's work)."""
    monkeypatch.setenv("SIMULEE_NATIVE_WARMUP", "0")


@pytest.fixture(scope="module", params=ARCHS)
def compiled(request):
    from simulee.frontend.compiler import CompileOptions, load_program

    return request.param, load_program(TYPES, CompileOptions(arch=request.param))


def _operands(dtype, seed: int) -> tuple[np.ndarray, ...]:
    """Three arrays of N values of `dtype`: random magnitudes over its whole range (normal and
    subnormal), then zeros of both signs, infinities, NaN, the largest and smallest values,
    each against each."""
    rng = np.random.default_rng(seed)
    info = ml_dtypes.finfo(dtype)
    special = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, float(info.max), -float(info.max),
                        float(info.smallest_normal), float(info.smallest_subnormal), 0.5, 3.0], dtype=np.float64)
    pairs = np.array([(a, b) for a in special for b in special])
    count = N - len(pairs)
    exponents = rng.uniform(np.log2(float(info.smallest_subnormal)), np.log2(float(info.max)) - 1, size=(3, count))
    randoms = np.where(rng.random((3, count)) < 0.5, -1, 1) * np.exp2(exponents)
    randoms[:, : count // 2] = rng.normal(0, 4, size=(3, count // 2))  # half of them near 1: products stay finite
    a = np.concatenate([randoms[0], pairs[:, 0]])
    b = np.concatenate([randoms[1], pairs[:, 1]])
    c = np.concatenate([randoms[2], np.resize(special, len(pairs))])
    return tuple(np.asarray(x, dtype=np.float64).astype(dtype) for x in (a, b, c))


def _run(program, kernel: str, engine: str, arrays: dict, out: dict, count: int = N) -> dict:
    """Run `kernel` on `count` elements (pairs of a pair type: N values are N // 2 pairs)."""
    args = {**arrays, **{name: np.zeros(size, dtype) for name, (dtype, size) in out.items()}, "n": count}
    result = execute(program, kernel, Launch((N // 128, 1, 1), (128, 1, 1), args, engine=engine))
    assert result.status == "ok", result.message
    return {name: result.buffers[name] for name in out}


def _same(found: np.ndarray, expected: np.ndarray, what: str) -> None:
    """Bit for bit, any NaN standing for any other."""
    found, expected = np.asarray(found), np.asarray(expected)
    both_nan = np.isnan(found.astype(np.float64)) & np.isnan(expected.astype(np.float64))
    differ = (found.view(np.uint8).reshape(len(found), -1) != expected.view(np.uint8).reshape(len(expected), -1))
    wrong = np.flatnonzero(differ.any(axis=1) & ~both_nan)
    assert not len(wrong), f"{what}: {len(wrong)} of {len(found)} differ, first at {wrong[0]}: " \
                           f"{found[wrong[0]]!r} instead of {expected[wrong[0]]!r}"


def _max(x, y):
    """CUDA's __hmax: the larger; the other where one is NaN; +0 over -0."""
    larger = np.where(np.isnan(x), y, np.where(np.isnan(y), x, np.where(x > y, x, y)))
    zeros = (x == 0) & (y == 0)
    return np.where(zeros, np.where(np.signbit(x) & np.signbit(y), x, np.abs(x)), larger)


def _min(x, y):
    smaller = np.where(np.isnan(x), y, np.where(np.isnan(y), x, np.where(x < y, x, y)))
    zeros = (x == 0) & (y == 0)
    return np.where(zeros, np.where(np.signbit(x) | np.signbit(y), -np.abs(x), x), smaller)


def _float_references(a, b, c, dtype, rounding_through=np.float64) -> list:
    """The results of add, sub, mul, fma, neg, abs, max, min of `dtype` operands, each rounded
    once to `dtype` from exact arithmetic (or first to `rounding_through`, as NVIDIA's headers
    compute bfloat16 through float before sm_80)."""
    x, y, z = (v.astype(np.float64) for v in (a, b, c))

    def rounded(value):
        return value.astype(rounding_through).astype(dtype)

    with np.errstate(all="ignore"):
        return [rounded(x + y), rounded(x - y), rounded(x * y), rounded(x * y + z), (-x).astype(dtype),
                np.abs(x).astype(dtype), _max(x, y).astype(dtype), _min(x, y).astype(dtype)]


@pytest.mark.parametrize("engine", ENGINES)
def test_half_arithmetic_rounds_once_to_nearest_even(compiled, engine):
    arch, program = compiled
    a, b, c = _operands(np.float16, 1)
    out = _run(program, "half_ops", engine, {"a": a, "b": b, "c": c}, {"out": (np.float16, 11 * N)})["out"]
    expected = _float_references(a, b, c, np.float16)
    with np.errstate(all="ignore"):
        expected += [expected[0], expected[2], (a.astype(np.float64) / b.astype(np.float64)).astype(np.float16)]
    names = ("__hadd", "__hsub", "__hmul", "__hfma", "__hneg", "__habs", "__hmax", "__hmin", "+", "*", "__hdiv")
    for k, (name, values) in enumerate(zip(names, expected)):
        _same(out[k * N:(k + 1) * N], values, f"{arch} {name}")


@pytest.mark.parametrize("engine", ENGINES)
def test_half2_arithmetic_is_half_arithmetic_per_lane(compiled, engine):
    arch, program = compiled
    a, b, c = _operands(np.float16, 2)
    out = _run(program, "half2_ops", engine, {"a": a, "b": b, "c": c}, {"out": (np.float16, 6 * N)}, N // 2)["out"]
    expected = _float_references(a, b, c, np.float16)[:6]
    for k, (name, values) in enumerate(zip(("__hadd2", "__hsub2", "__hmul2", "__hfma2", "__hneg2", "__habs2"),
                                           expected)):
        _same(out[k * N:(k + 1) * N], values, f"{arch} {name}")


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("kernel, lanes", [("bf16_ops", 10), ("bf162_ops", 6)])
def test_bfloat16_arithmetic_is_what_each_gpu_computes(compiled, engine, kernel, lanes):
    """sm_80 and later round once (their bf16 instructions); before, NVIDIA's headers compute
    in float and round that to bfloat16."""
    arch, program = compiled
    a, b, c = _operands(BF16, 3)
    raw = {name: value.view(np.uint16) for name, value in (("a", a), ("b", b), ("c", c))}
    pairs = kernel == "bf162_ops"
    out = _run(program, kernel, engine, raw, {"out": (np.uint16, lanes * N)}, N // 2 if pairs else N)["out"].view(BF16)
    native = int(arch.removeprefix("sm_")) >= 80
    expected = _float_references(a, b, c, BF16, np.float64 if native else np.float32)
    expected += [expected[0], expected[2]]
    names = ("__hadd", "__hsub", "__hmul", "__hfma", "__hneg", "__habs", "__hmax", "__hmin", "+", "*")
    for k, (name, values) in enumerate(zip(names[:lanes], expected)):
        _same(out[k * N:(k + 1) * N], values, f"{arch} {kernel} {name}")


def _float_inputs() -> np.ndarray:
    """Floats for conversions: ties and near-ties of each format, values past their ranges,
    specials, random magnitudes."""
    rng = np.random.default_rng(4)
    ties = [1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8, 1 + 2.0 ** -4, 1.125 + 2.0 ** -4,
            1 + 2.0 ** -3, 1.25 + 2.0 ** -3, 464.0, 480.0, 449.0, 61440.0, 57345.0, 65520.0, 65504.0, 2.0 ** -10,
            2.0 ** -7, 2.0 ** -17, 2.0 ** -25, 3e38, 1e-40]
    special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0]
    values = np.array(ties + [-t for t in ties] + special, dtype=np.float64)
    randoms = np.where(rng.random(N) < 0.5, -1, 1) * np.exp2(rng.uniform(-30, 20, N))
    return np.concatenate([values, randoms])[:N].astype(np.float32)


def _fp8(values: np.ndarray, dtype, largest: float) -> np.ndarray:
    """PTX's cvt.rn.satfinite to an FP8 format: nearest even, the finite range."""
    x = values.astype(np.float64)
    return np.where(np.isnan(x), x, np.clip(x, -largest, largest)).astype(dtype)


@pytest.mark.parametrize("engine", ENGINES)
def test_conversions_from_float_round_to_nearest_even_and_fp8_saturates(compiled, engine):
    arch, program = compiled
    f = _float_inputs()
    found = _run(program, "conversions", engine, {"f": f},
                 {"h": (np.float16, N), "bf": (np.uint16, N), "e4m3": (np.uint8, N), "e5m2": (np.uint8, N),
                  "back": (np.float32, 4 * N)})
    with np.errstate(over="ignore"):  # values past a format's range become infinities (or saturate), as they should
        half, bf16 = f.astype(np.float16), f.astype(BF16)
        e4m3, e5m2 = _fp8(f, ml_dtypes.float8_e4m3fn, 448.0), _fp8(f, ml_dtypes.float8_e5m2, 57344.0)
    _same(found["h"], half, f"{arch} __float2half")
    _same(found["bf"].view(BF16), bf16, f"{arch} __float2bfloat16")
    _same(found["e4m3"].view(ml_dtypes.float8_e4m3fn), e4m3, f"{arch} __nv_fp8_e4m3(float)")
    _same(found["e5m2"].view(ml_dtypes.float8_e5m2), e5m2, f"{arch} __nv_fp8_e5m2(float)")
    back = found["back"]
    for k, (name, values) in enumerate((("__half2float", half), ("__bfloat162float", bf16), ("float(e4m3)", e4m3),
                                        ("float(e5m2)", e5m2))):
        _same(back[k * N:(k + 1) * N], values.astype(np.float32), f"{arch} {name}")


def _integer_references(a: np.ndarray, b: np.ndarray) -> list[np.ndarray]:
    """The integer intrinsics as the CUDA Math API documents them, element by element."""
    def unsigned(x):
        return int(x) & 0xFFFFFFFF

    def signed(x):
        x &= 0xFFFFFFFF
        return x - (1 << 32) if x >> 31 else x

    def byte_perm(x, y, s):
        source = (unsigned(y) << 32) | unsigned(x)
        return sum(((source >> (8 * ((s >> (4 * k)) & 7))) & 0xFF) << (8 * k) for k in range(4))

    def low24(x):  # the low 24 bits as a signed number
        return ((x & 0xFFFFFF) ^ 0x800000) - 0x800000

    def bytes_of(x):
        return [signed(x << (24 - 8 * k)) >> 24 for k in range(4)]

    rows = []
    for x, y in zip(a.tolist(), b.tolist()):
        u, v = unsigned(x), unsigned(y)
        shift = v & 31
        rows.append([
            bin(u).count("1"), 32 - u.bit_length(), (u & -u).bit_length(), int(f"{u:032b}"[::-1], 2),
            byte_perm(x, y, v & 0x7777), ((((v << 32) | u) << shift) >> 32) & 0xFFFFFFFF,
            (((v << 32) | u) >> shift) & 0xFFFFFFFF, ((x * y) >> 32), (u * v) >> 32,
            low24(x) * low24(y),
            ((u & 0xFFFFFF) * (v & 0xFFFFFF)) & 0xFFFFFFFF, abs(x - y) + 7, abs(u - v) + 7, (x + y) >> 1,
            (x + y + 1) >> 1, (u + v) >> 1, (u + v + 1) >> 1, sum(p * q for p, q in zip(bytes_of(x), bytes_of(y))) + 3,
            bin((u << 32) | v).count("1"), 64 - ((x << 32) & 0xFFFFFFFFFFFFFFFF).bit_length(),
        ])
    return [np.array([r[k] & 0xFFFFFFFF for r in rows], dtype=np.uint32) for k in range(20)]


@pytest.mark.parametrize("engine", ENGINES)
def test_integer_intrinsics_compute_what_cuda_documents(compiled, engine):
    arch, program = compiled
    rng = np.random.default_rng(5)
    special = np.array([0, 1, -1, 2 ** 31 - 1, -2 ** 31, 0x00FF00FF, 31, 32, 33, 0x800000, -0x800000], dtype=np.int64)
    a = np.concatenate([np.repeat(special, len(special)), rng.integers(-2 ** 31, 2 ** 31, N)])[:N].astype(np.int32)
    b = np.concatenate([np.tile(special, len(special)), rng.integers(-2 ** 31, 2 ** 31, N)])[:N].astype(np.int32)
    out = _run(program, "integer_ops", engine, {"a": a, "b": b}, {"out": (np.uint32, 20 * N)})["out"]
    names = ("__popc", "__clz", "__ffs", "__brev", "__byte_perm", "__funnelshift_l", "__funnelshift_r", "__mulhi",
             "__umulhi", "__mul24", "__umul24", "__sad", "__usad", "__hadd", "__rhadd", "__uhadd", "__urhadd",
             "__dp4a", "__popcll", "__clzll")
    for k, (name, values) in enumerate(zip(names, _integer_references(a.astype(np.int64), b.astype(np.int64)))):
        _same(out[k * N:(k + 1) * N], values, f"{arch} {name}")


MATH = TESTS / "arith" / "math.cu"
BESSEL = 8.0  # below it Bessel functions are held to ulps, above to an absolute error
# each function of tests/arith/math.cu in its order: the most units in the last place NVIDIA
# documents it may be off in float and in double (0: exact), and its reference's name
MATH_TABLE = [
    ("sin", 2, 2), ("cos", 2, 2), ("tan", 4, 2), ("exp", 2, 1), ("exp2", 2, 1), ("exp10", 2, 1), ("expm1", 1, 1),
    ("log", 1, 1), ("log2", 1, 1), ("log10", 2, 1), ("log1p", 1, 1), ("pow", 4, 2), ("sqrt", 0, 0), ("rsqrt", 2, 1),
    ("cbrt", 1, 1), ("rcbrt", 1, 1), ("sinh", 3, 2), ("cosh", 2, 1), ("tanh", 2, 1), ("asin", 2, 2), ("acos", 2, 2),
    ("atan", 2, 2), ("atan2", 3, 2), ("asinh", 3, 3), ("acosh", 4, 3), ("atanh", 3, 2), ("sinpi", 1, 2),
    ("cospi", 1, 2), ("sin", 2, 2), ("cos", 2, 2), ("sinpi", 1, 2), ("cospi", 1, 2), ("hypot", 3, 2),
    ("rhypot", 2, 1), ("norm3d", 3, 2), ("rnorm3d", 2, 1), ("norm4d", 3, 2), ("rnorm4d", 2, 1), ("erf", 2, 2),
    ("erfc", 4, 5), ("erfinv", 2, 5), ("erfcinv", 4, 6), ("erfcx", 4, 4), ("normcdf", 5, 5), ("normcdfinv", 5, 8),
    ("lgamma", 6, 4), ("tgamma", 5, 10), ("j0", 9, 7), ("j1", 9, 7), ("y0", 9, 7), ("y1", 9, 7), ("jn", None, None),
    ("yn", None, None), ("i0", 6, 6), ("i1", 6, 6), ("fmod", 0, 0), ("remainder", 0, 0), ("remainder", 0, 0),
    ("remquo", 0, 0), ("fdim", 0, 0), ("floor", 0, 0), ("ceil", 0, 0), ("round", 0, 0), ("trunc", 0, 0),
    ("rint", 0, 0), ("rint", 0, 0), ("llrint", 0, 0), ("llround", 0, 0), ("fmin", 0, 0), ("fmax", 0, 0),
    ("fabs", 0, 0), ("copysign", 0, 0), ("nextafter", 0, 0), ("ldexp", 0, 0), ("ldexp", 0, 0), ("logb", 0, 0),
    ("ilogb", 0, 0), ("frexp", 0, 0), ("frexp_exponent", 0, 0), ("modf", 0, 0), ("modf_whole", 0, 0), ("/", 0, 0)]
# the absolute errors documented where ulps are not: Bessel functions past 8, jn and yn
ABSOLUTE = {np.float32: 2.2e-6, np.float64: 5e-12}


def _ulps(found: np.ndarray, expected: np.ndarray) -> np.ndarray:
    """Units in the last place between two arrays of one float type (0 for two NaNs or equal
    infinities, a large number for a NaN against a number)."""
    signed = {4: np.int32, 8: np.int64}[found.dtype.itemsize]
    def ordered(x):
        bits = x.view(signed).astype(np.int64)
        return np.where(bits < 0, np.iinfo(signed).min - bits, bits)  # -0 and +0 both 0: monotonic in value
    distance = np.abs(ordered(found) - ordered(expected)).astype(np.float64)
    nan_f, nan_e = np.isnan(found), np.isnan(expected)
    return np.where(nan_f & nan_e, 0, np.where(nan_f | nan_e, np.inf, distance))


def _math_operands(dtype) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(6)
    special = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, np.inf, -np.inf, np.nan, 1e-3, 10.0, 100.0])
    pairs = np.array([(p, q) for p in special for q in special])
    count = N - len(pairs)
    magnitudes = np.exp2(rng.uniform(-30, 30, (2, count))) * np.where(rng.random((2, count)) < 0.5, -1, 1)
    magnitudes[:, : count // 2] = rng.uniform(-10, 10, (2, count // 2))  # where the functions vary most
    magnitudes[0, : count // 8] = rng.uniform(-1, 1, count // 8)  # the inverse error functions' domain
    magnitudes[0, count // 8: count // 6] = rng.uniform(0, 2, count // 6 - count // 8)  # erfcinv's
    return (np.concatenate([magnitudes[0], pairs[:, 0]]).astype(dtype),
            np.concatenate([magnitudes[1], pairs[:, 1]]).astype(dtype))


def _saturated(x: np.ndarray, bits: int) -> np.ndarray:
    """x rounded toward zero to an integer of `bits`, saturated, NaN 0 (PTX's cvt.rzi)."""
    limit = 2.0 ** (bits - 1)
    return np.where(np.isnan(x), 0, np.clip(np.trunc(np.nan_to_num(x)), -limit, limit - 1))


def _remquo(a, b):
    """(remainder, low three bits of the quotient with its sign) by exact arithmetic."""
    import math
    from fractions import Fraction

    remainders, bits = [], []
    for x, y in zip(a.tolist(), b.tolist()):
        if not (np.isfinite(x) and np.isfinite(y)) or y == 0:
            remainders.append(x if np.isfinite(x) and np.isinf(y) else np.nan)
            bits.append(0)
            continue
        r = math.remainder(x, y)
        n = (Fraction(x) - Fraction(r)) / Fraction(y)
        remainders.append(r)
        bits.append((int(np.sign(n)) * (abs(int(n)) % 8)) & 7)  # as the kernel stores it: q & 7
    return np.array(remainders), np.array(bits, dtype=np.float64)


def _float_reference(name: str, a: np.ndarray, b: np.ndarray, dtype) -> np.ndarray:
    """`name` of float64 operands in double precision (NumPy, and SciPy for the special
    functions), as C defines it at zeros, infinities and NaN."""
    from scipy import special

    k = _saturated(b, 32)
    with np.errstate(all="ignore"):
        table = {
            "sin": np.sin, "cos": np.cos, "tan": np.tan, "exp": np.exp, "exp2": np.exp2, "exp10": lambda x: 10.0 ** x,
            "expm1": np.expm1, "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
            "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x), "cbrt": np.cbrt, "rcbrt": lambda x: 1 / np.cbrt(x),
            "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asin": np.arcsin, "acos": np.arccos,
            "atan": np.arctan, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
            "sinpi": lambda x: np.where(np.isfinite(x) & (np.trunc(x) == x), np.copysign(0, x),
                                        np.sin(np.pi * np.fmod(x, 2))),
            "cospi": lambda x: np.where(np.isfinite(x) & (np.trunc(x + 0.5) == x + 0.5), 0.0,
                                        np.cos(np.pi * np.fmod(x, 2))),
            "erf": special.erf, "erfc": special.erfc, "erfinv": special.erfinv,
            "erfcinv": special.erfcinv, "erfcx": special.erfcx, "normcdf": special.ndtr, "normcdfinv": special.ndtri,
            "lgamma": lambda x: np.where(np.isinf(x), np.inf, special.gammaln(x)),
            "tgamma": lambda x: np.where(x == -np.inf, np.nan, np.where((x == 0), np.copysign(np.inf, x),
                                                                        special.gamma(x))),
            "j0": lambda x: np.where(np.isinf(x), 0, special.j0(x)), "j1": lambda x: np.where(np.isinf(x), 0,
                                                                                               special.j1(x)),
            "y0": special.y0, "y1": special.y1, "jn": lambda x: np.where(np.isinf(x), 0, special.jv(3, x)),
            "yn": lambda x: special.yn(2, x), "i0": lambda x: np.where(np.isinf(x), np.inf, special.i0(x)),
            "i1": lambda x: np.where(np.isinf(x), x, special.i1(x)), "floor": np.floor,
            "ceil": np.ceil, "round": lambda x: np.trunc(x + np.copysign(0.5, x) * (np.abs(x - np.trunc(x)) >= 0.5)),
            "trunc": np.trunc, "rint": np.rint, "fabs": np.abs,
            "llrint": lambda x: _saturated(np.rint(x), 64),
            "llround": lambda x: np.where(np.isnan(x) & (dtype == np.float32), -2.0 ** 63,
                                          _saturated(_references_round(x), 64)),
            "logb": lambda x: np.where(x == 0, -np.inf, np.where(np.isfinite(x), np.frexp(x)[1] - 1.0, np.abs(x))),
            "ilogb": lambda x: np.where((x == 0) | np.isnan(x), -2.0 ** 31, np.where(np.isinf(x), 2.0 ** 31 - 1,
                                                                                     np.frexp(x)[1] - 1.0)),
            "frexp": lambda x: np.frexp(x)[0], "frexp_exponent": lambda x: np.frexp(x)[1].astype(np.float64),
            "modf": lambda x: np.modf(x)[0], "modf_whole": lambda x: np.modf(x)[1],
        }
        pairs = {
            "pow": np.power, "atan2": np.arctan2, "hypot": np.hypot, "rhypot": lambda x, y: 1 / np.hypot(x, y),
            "norm3d": lambda x, y: _norms(x, y, x), "rnorm3d": lambda x, y: 1 / _norms(x, y, x),
            "norm4d": lambda x, y: _norms(x, y, x, y), "rnorm4d": lambda x, y: 1 / _norms(x, y, x, y),
            "fmod": np.fmod, "remainder": lambda x, y: _remquo(x, y)[0], "remquo": lambda x, y: _remquo(x, y)[1],
            "fdim": lambda x, y: np.where(np.isnan(x) | np.isnan(y), np.nan, np.where(x > y, x - y, 0.0)),
            "fmin": np.fmin, "fmax": np.fmax, "copysign": np.copysign,
            "nextafter": lambda x, y: np.nextafter(x.astype(dtype), y.astype(dtype)).astype(np.float64),
            "ldexp": lambda x, y: np.ldexp(x.astype(dtype), k.astype(np.int32)).astype(np.float64), "/": np.divide,
        }
        if name in pairs:
            return pairs[name](a, b)
        return table[name](a)


def _references_round(x):
    return np.trunc(x + np.copysign(0.5, x) * (np.abs(x - np.trunc(x)) >= 0.5))


def _norms(*values):
    wide = [np.asarray(v, dtype=np.longdouble) for v in values]
    norm = np.sqrt(sum(v * v for v in wide)).astype(np.float64)
    return np.where(np.any([np.isinf(v) for v in values], axis=0), np.inf, norm)


def _precise(name: str, x: float, y: float) -> float:
    """`name` of finite doubles in 100-bit arithmetic (mpmath; erfcx in 250), rounded to
    double; NaN where it is not a real number."""
    import mpmath

    mp = mpmath.mp
    X, Y = mpmath.mpf(x), mpmath.mpf(y)
    functions = {
        "sin": mpmath.sin, "cos": mpmath.cos, "tan": mpmath.tan, "exp": mpmath.exp, "exp2": lambda v: 2 ** v,
        "exp10": lambda v: 10 ** v, "expm1": mpmath.expm1, "log": mpmath.log, "log2": lambda v: mpmath.log(v, 2),
        "log10": mpmath.log10, "log1p": mpmath.log1p, "pow": lambda v: mpmath.power(v, Y), "sqrt": mpmath.sqrt,
        "rsqrt": lambda v: 1 / mpmath.sqrt(v), "cbrt": lambda v: mpmath.sign(v) * mpmath.cbrt(abs(v)),
        "rcbrt": lambda v: mpmath.sign(v) / mpmath.cbrt(abs(v)), "sinh": mpmath.sinh, "cosh": mpmath.cosh,
        "tanh": mpmath.tanh, "asin": mpmath.asin, "acos": mpmath.acos, "atan": mpmath.atan,
        "atan2": lambda v: mpmath.atan2(v, Y), "asinh": mpmath.asinh, "acosh": mpmath.acosh, "atanh": mpmath.atanh,
        "sinpi": mpmath.sinpi, "cospi": mpmath.cospi, "hypot": lambda v: mpmath.hypot(v, Y),
        "rhypot": lambda v: 1 / mpmath.hypot(v, Y), "norm3d": lambda v: mpmath.sqrt(2 * v * v + Y * Y),
        "rnorm3d": lambda v: 1 / mpmath.sqrt(2 * v * v + Y * Y), "norm4d": lambda v: mpmath.sqrt(2 * v * v + 2 * Y * Y),
        "rnorm4d": lambda v: 1 / mpmath.sqrt(2 * v * v + 2 * Y * Y), "erf": mpmath.erf, "erfc": mpmath.erfc,
        "erfinv": mpmath.erfinv, "erfcinv": lambda v: mpmath.erfinv(1 - v),
        "erfcx": lambda v: mpmath.exp(v * v) * mpmath.erfc(v), "normcdf": mpmath.ncdf,
        "normcdfinv": lambda v: -mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * v),
        "lgamma": lambda v: mpmath.log(abs(mpmath.gamma(v))), "tgamma": mpmath.gamma,
        "j0": lambda v: mpmath.besselj(0, v), "j1": lambda v: mpmath.besselj(1, v),
        "y0": lambda v: mpmath.bessely(0, v), "y1": lambda v: mpmath.bessely(1, v),
        "i0": lambda v: mpmath.besseli(0, v), "i1": lambda v: mpmath.besseli(1, v),
    }
    with mp.workprec(250 if name == "erfcx" else 100):  # exp(x*x) needs the bits of x*x's exponent besides
        try:
            value = functions[name](X)
        except (ValueError, ZeroDivisionError, OverflowError):
            return np.nan
        return float(value) if isinstance(value, mpmath.mpf) else np.nan


def _math_reference(name: str, a, b, dtype) -> np.ndarray:
    """The reference values of `name`: in double (float's), and for double to 100 bits
    where the operands are finite and the function is not exact."""
    expected = _float_reference(name, a.astype(np.float64), b.astype(np.float64), dtype)
    precise = dtype == np.float64 and name in ("sin", "cos", "tan", "exp", "exp2", "exp10", "expm1", "log", "log2",
                                               "log10", "log1p", "pow", "rsqrt", "cbrt", "rcbrt", "sinh", "cosh",
                                               "tanh", "asin", "acos", "atan", "atan2", "asinh", "acosh", "atanh",
                                               "sinpi", "cospi", "hypot", "rhypot", "norm3d", "rnorm3d", "norm4d",
                                               "rnorm4d", "erf", "erfc", "erfinv", "erfcinv", "erfcx", "normcdf",
                                               "normcdfinv", "lgamma", "tgamma", "j0", "j1", "y0", "y1", "i0", "i1")
    if precise:
        finite = np.isfinite(a) & np.isfinite(b) & np.isfinite(expected) & (a != 0) & (b != 0)  # mpmath has no -0
        if name in ("j0", "j1", "y0", "y1"):
            finite &= np.abs(a) < BESSEL
        expected = expected.copy()
        for i in np.flatnonzero(finite):
            expected[i] = _precise(name, float(a[i]), float(b[i]))
    with np.errstate(all="ignore"):
        return expected.astype(dtype)


def _held(name: str, a: np.ndarray, dtype) -> np.ndarray:
    """The operands where NVIDIA's ulp bound applies (Bessel functions below 8, lgamma outside
    the interval near its negative zeros, where the documentation gives none)."""
    if name in ("j0", "j1", "y0", "y1"):
        return np.abs(a) < BESSEL
    if name == "lgamma":
        low, high = (-10.001, -2.264) if dtype == np.float32 else (-11.0001, -2.2637)
        return ~((a > low) & (a < high))
    return np.ones(len(a), dtype=bool)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("kernel, dtype", [("float_math", np.float32), ("double_math", np.float64)])
def test_the_math_api_is_within_the_errors_nvidia_documents(engine, kernel, dtype):
    """Every function of CUDA's math API in float and double (tests/arith/math.cu), within
    the ulps NVIDIA documents of a reference (double precision for float, 100 bits for
    double), and where it documents an absolute error (Bessel functions past 8), within
    that; exactly the C standard's values at zeros, infinities and NaN."""
    from simulee.frontend.compiler import load_program

    program = load_program(MATH)
    a, b = _math_operands(dtype)
    out = _run(program, kernel, engine, {"x": a, "y": b}, {"out": (dtype, len(MATH_TABLE) * N)})["out"]
    slack = 1 if dtype == np.float64 else 0  # the double reference is itself rounded: within half an ulp
    for k, (name, single, double) in enumerate(MATH_TABLE):
        bound = single if dtype == np.float32 else double
        expected = _math_reference(name, a, b, dtype)
        found = out[k * N:(k + 1) * N]
        held = _held(name, a.astype(np.float64), dtype)
        if bound is None or name in ("j0", "j1", "y0", "y1"):  # an absolute error where no ulps are documented
            loose = ~held & np.isfinite(expected) if bound is not None else np.isfinite(expected)
            if name == "yn":
                loose &= a > 3
            error = np.abs(found.astype(np.float64) - expected.astype(np.float64))
            assert not np.any(error[loose] > ABSOLUTE[dtype]), f"{name}: {error[loose].max()} from the reference"
            held &= bound is not None
        off = np.where(held, _ulps(found, expected), 0)
        worst = int(np.argmax(off))
        assert off[worst] <= (bound or 0) + (slack if bound else 0), \
            f"{name}({a[worst]!r}, {b[worst]!r}) = {found[worst]!r}, {off[worst]:g} ulp from {expected[worst]!r} " \
            f"(at most {bound})"


def _exactly_rounded(x, y, z, dtype) -> np.ndarray:
    """x*y+z of each lane computed in rationals, rounded once to `dtype` (to float: first to
    the double that rounds to odd, which rounds on as the rational would)."""
    from fractions import Fraction

    values = []
    for p, q, r in zip(x.tolist(), y.tolist(), z.tolist()):
        if not all(np.isfinite((p, q, r))):  # infinities and NaN: no rounding to speak of
            values.append(p * q + r)
            continue
        exact = Fraction(p) * Fraction(q) + Fraction(r)
        try:
            nearest = float(exact)
        except OverflowError:
            nearest = np.inf if exact > 0 else -np.inf
        if dtype == np.float32 and Fraction(nearest) != exact and np.float64(nearest).view(np.int64) % 2 == 0:
            nearest = float(np.nextafter(nearest, np.inf if exact > nearest else -np.inf))
        values.append(nearest)
    with np.errstate(over="ignore"):  # past float's largest: infinity, as rounding once gives
        return np.array(values).astype(dtype)


def _fused_operands(dtype, rng) -> tuple[np.ndarray, ...]:
    """Products exactly halfway between two values of `dtype` with an addend far below them
    (where rounding the sum twice goes the other way), cancellations, and random triples."""
    first, second = {np.float32: (12, 12), np.float64: (26, 27)}[dtype]  # 2**-24 and 2**-53: half an ulp of 1
    signs = rng.choice([1.0, -1.0], N // 4)
    tiny = rng.choice([1e-30, -1e-30, 1e-38, -1e-38], N // 4)
    x = rng.normal(0, 8, N)
    y = rng.normal(0, 8, N) * np.exp2(rng.integers(-20, 20, N))
    z = rng.normal(0, 8, N)
    q = N // 4
    x[:q], y[:q], z[:q] = (1 + np.exp2(-first)) * signs, 1 + np.exp2(-second), tiny
    z[q:2 * q] = -(x[q:2 * q] * y[q:2 * q])  # x*y rounded, taken away: what is left is the product's error
    big = float(np.sqrt(np.finfo(dtype).max)) * 4  # products past the largest value, and what is not a number
    x[-6:], y[-6:], z[-6:] = [big, -big, np.inf, np.inf, np.nan, 1.0], [big, big, 0.0, 2.0, 1.0, np.inf], \
        [0.0, 1.0, 1.0, -np.inf, 1.0, -np.inf]
    return tuple(v.astype(dtype) for v in (x, y, z))


@pytest.mark.parametrize("engine", ENGINES)
def test_a_fused_multiply_add_rounds_once(engine):
    """__fmaf_rn, fmaf and fma as the GPU computes them: the exact x*y+z rounded once, also
    where the product lies halfway between two floats and the addend is far below it."""
    from simulee.frontend.compiler import load_program

    rng = np.random.default_rng(7)
    a, b, c = _fused_operands(np.float32, rng)
    x, y, z = _fused_operands(np.float64, rng)
    out = _run(load_program(MATH), "fused", engine, {"a": a, "b": b, "c": c, "x": x, "y": y, "z": z},
               {"out": (np.float32, 2 * N), "dout": (np.float64, N)})
    single = _exactly_rounded(a, b, c, np.float32)
    _same(out["out"][:N], single, "__fmaf_rn")
    _same(out["out"][N:], single, "fmaf")
    _same(out["dout"], _exactly_rounded(x, y, z, np.float64), "fma")


def _tf32(x: np.ndarray, mode: str) -> np.ndarray:
    """f32 to TF32 by the bits: 13 low mantissa bits dropped after rounding (ties away, to
    even, or none), NaN as it is."""
    bits = x.view(np.uint32).astype(np.uint64)
    add = {"rna": 0x1000, "rn": 0xFFF + (bits >> 13 & 1), "rz": 0}[mode]
    rounded = ((bits + add) & 0xFFFFE000).astype(np.uint32)
    return np.where(np.isnan(x), x, rounded.view(np.float32))


@pytest.mark.parametrize("engine", ENGINES)
def test_tf32_conversions_round_as_each_ptx_mode_says(engine):
    from simulee.frontend.compiler import CompileOptions, load_program

    x = _operands(np.float32, 8)[0]
    x[:4] = np.array([1 + 2 ** -11, 1 + 3 * 2 ** -11, -(1 + 2 ** -11), 3.4e38], np.float32)  # ties, the largest
    out = _run(load_program(TESTS / "arith" / "tf32.cu", CompileOptions(arch="sm_80")), "tf32", engine, {"x": x},
               {"out": (np.float32, 3 * N)})["out"]
    for k, mode in enumerate(("rna", "rn", "rz")):
        _same(out[k * N:(k + 1) * N], _tf32(x, mode), f"cvt.{mode}.tf32.f32")


def _in_mode(exact, estimate: float, dtype, mode: str, zero):
    """The value of `dtype` that rounding `exact` (a Fraction, or a function giving the sign
    of q - exact for a Fraction q) in `mode` gives, searched from `estimate`; `zero` where the
    exact value is 0 (its sign is the operation's rule)."""
    from fractions import Fraction

    sign = exact if callable(exact) else lambda q: (q > exact) - (q < exact)
    if sign(Fraction(0)) == 0:
        return zero
    info, inf = np.finfo(dtype), dtype(np.inf)

    def above(c):  # c > exact
        return c == inf or (c != -inf and sign(Fraction(float(c))) > 0)

    c = dtype(np.clip(estimate, -float(info.max), float(info.max)))
    while above(c):
        c = np.nextafter(c, -inf)
    while not above(np.nextafter(c, inf)):
        c = np.nextafter(c, inf)
    exactly = np.isfinite(c) and sign(Fraction(float(c))) == 0
    down, up = c, (c if exactly else np.nextafter(c, inf))
    positive = sign(Fraction(0)) < 0
    if mode == "rn" and not exactly:
        ends = [Fraction(float(v)) if np.isfinite(v) else None for v in (down, up)]
        if None in ends:  # beyond the largest value: the midpoint to infinity is half an ulp past it
            step = Fraction(float(info.max)) - Fraction(float(np.nextafter(info.max, dtype(0))))
            ends = [e if e is not None else (ends[0] + step if positive else ends[1] - step) for e in ends]
        middle = sign((ends[0] + ends[1]) / 2)
        bits = np.asarray(down).view({2: np.int16, 4: np.int32, 8: np.int64}[np.dtype(dtype).itemsize])
        even = down if int(bits) % 2 == 0 else up
        value = down if middle > 0 else up if middle < 0 else even
    else:
        value = {"rn": down, "rd": down, "ru": up, "rz": down if positive else up}[mode]
    return dtype(value) if value != 0 else dtype(0.0 if positive else -0.0)


def _directed_references(a, b, c, dtype) -> list:
    """add, sub, mul, div, rcp, sqrt and fma of each lane in rn, rz, ru, rd: exact rational
    arithmetic rounded in the mode (IEEE's results where an operand is not finite)."""
    from fractions import Fraction

    def each(x, y, z):
        with np.errstate(all="ignore"):
            nearest = {"add": x + y, "sub": x - y, "mul": x * y, "div": x / y, "rcp": dtype(1) / x,
                       "sqrt": np.sqrt(x), "fma": dtype(float(x) * float(y) + float(z))}
        uses = {"add": (x, y), "sub": (x, y), "mul": (x, y), "div": (x, y), "rcp": (x,), "sqrt": (x,), "fma": (x, y, z)}
        nearest["fma"] = dtype(np.float64(x) * np.float64(y) + np.float64(z)) if not np.isfinite([x, y, z]).all() \
            else nearest["fma"]
        X, Y, Z = (Fraction(float(v)) if np.isfinite(v) else Fraction(0) for v in (x, y, z))
        exact = {"add": X + Y, "sub": X - Y, "mul": X * Y, "div": X / Y if Y else None,
                 "rcp": 1 / X if X else None, "sqrt": (lambda q: -1 if q < 0 else (q * q > X) - (q * q < X))
                 if X >= 0 else None, "fma": X * Y + Z}
        product = x * y if x * y != 0 else np.copysign(0, x) * np.copysign(1, y)  # a zero product's sign
        addends = {"add": (x, y), "sub": (x, -y), "fma": (product, z)}
        values = []
        for op, value in exact.items():
            for mode in ("rn", "rz", "ru", "rd"):
                if value is None or not np.isfinite(uses[op]).all():  # exact as IEEE has it
                    values.append(nearest[op])
                    continue
                zero = nearest[op] if op not in addends else \
                    _zero_sum(*addends[op], mode, dtype)
                estimate = float(np.sqrt(float(x))) if op == "sqrt" else float(nearest[op])
                values.append(_in_mode(value, estimate, dtype, mode, zero))
        return values

    rows = [each(x, y, z) for x, y, z in zip(a, b, c)]
    return [np.array(column, dtype=dtype) for column in zip(*rows)]


def _zero_sum(p, q, mode, dtype):
    """An exact zero sum's sign: that of two zeros of one sign, else -0 rounding down, +0
    in every other mode."""
    if p == 0 and q == 0 and np.signbit(p) == np.signbit(q):
        return dtype(p)
    return dtype(-0.0 if mode == "rd" else 0.0)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("kernel, dtype", [("float_modes", np.float32), ("double_modes", np.float64)])
def test_each_rounding_mode_rounds_as_ieee_says(engine, kernel, dtype):
    """__fadd_rz, __dmul_ru, __fsqrt_rd, __fma_rz, ...: each the exact result rounded in its
    mode, bit for bit, on random operands over the whole range and on every special value."""
    from simulee.frontend.compiler import load_program

    a, b, c = _operands(dtype, 9)
    out = _run(load_program(TESTS / "arith" / "rounding.cu"), kernel, engine, {"x": a, "y": b, "z": c},
               {"out": (dtype, 28 * N)})["out"]
    names = [f"{op}_{mode}" for op in ("add", "sub", "mul", "div", "rcp", "sqrt", "fma")
             for mode in ("rn", "rz", "ru", "rd")]
    for k, (name, expected) in enumerate(zip(names, _directed_references(a, b, c, dtype))):
        _same(out[k * N:(k + 1) * N], expected, f"{dtype.__name__} {name}")


@pytest.mark.parametrize("engine", ENGINES)
def test_conversions_to_float_round_in_each_mode(engine):
    """__int2float_rz, __ull2double_ru, __double2float_rd, ...: the integer's or double's
    exact value rounded in the mode."""
    from fractions import Fraction

    from simulee.frontend.compiler import load_program

    rng = np.random.default_rng(10)
    w = rng.integers(-2 ** 63, 2 ** 63 - 1, N, dtype=np.int64)
    w[: N // 4] >>= rng.integers(0, 62, N // 4)  # every magnitude
    w[:6] = [0, 1, -1, 2 ** 63 - 1, -2 ** 63, 2 ** 24 + 1]
    d = _operands(np.float64, 11)[0]
    out = _run(load_program(TESTS / "arith" / "rounding.cu"), "conversions", engine, {"w": w, "d": d},
               {"out": (np.float32, 20 * N), "dout": (np.float64, 8 * N)})
    sources = {"int": w.astype(np.int32).tolist(), "uint": w.astype(np.int32).view(np.uint32).tolist(),
               "ll": w.tolist(), "ull": w.view(np.uint64).tolist()}
    modes = ("rn", "rz", "ru", "rd")
    k = 0
    for name, values in sources.items():
        for mode in modes:
            expected = [_in_mode(Fraction(v), float(v), np.float32, mode, np.float32(0)) for v in values]
            _same(out["out"][k * N:(k + 1) * N], np.array(expected, np.float32), f"__{name}2float_{mode}")
            k += 1
    for mode in modes:
        expected = [_in_mode(Fraction(v), v, np.float32, mode, np.float32(v)) if np.isfinite(v) else np.float32(v)
                    for v in d.tolist()]
        _same(out["out"][k * N:(k + 1) * N], np.array(expected, np.float32), f"__double2float_{mode}")
        k += 1
    for j, (name, values) in enumerate((("ll", sources["ll"]), ("ull", sources["ull"]))):
        for m, mode in enumerate(modes):
            expected = [_in_mode(Fraction(v), float(v), np.float64, mode, 0.0) for v in values]
            _same(out["dout"][(4 * j + m) * N:(4 * j + m + 1) * N], np.array(expected), f"__{name}2double_{mode}")


@pytest.mark.parametrize("engine", ENGINES)
def test_inline_ptx_rounds_in_the_mode_its_instruction_names(engine):
    """add.rz.f32, sub.rm.f32, fma.rm.f32, rcp.rz.f64, cvt.rz.f32.f64, cvt.rm.f32.s32, ... in
    `asm` give what the intrinsics of the same mode give (held to exact arithmetic above), and
    cuda_fp16.h's __float2half_rz/rd/ru/rn (inline PTX) round a float to half in each mode."""
    from fractions import Fraction

    from simulee.frontend.compiler import load_program

    a, b, _ = _operands(np.float32, 12)
    c, d, _ = _operands(np.float64, 13)
    out = _run(load_program(TESTS / "arith" / "rounding.cu"), "inline_modes", engine,
               {"x": a, "y": b, "u": c, "v": d},
               {"out": (np.float32, 16 * N), "dout": (np.float64, 10 * N), "hout": (np.float16, 4 * N)})
    for k in range(8):
        _same(out["out"][2 * k * N:(2 * k + 1) * N], out["out"][(2 * k + 1) * N:(2 * k + 2) * N], f"float pair {k}")
    for k in range(5):
        _same(out["dout"][2 * k * N:(2 * k + 1) * N], out["dout"][(2 * k + 1) * N:(2 * k + 2) * N], f"double pair {k}")
    assert np.any(out["out"][: N] != (a + b)), "add.rz.f32 never differed from rounding to nearest"
    for k, mode in enumerate(("rz", "rd", "ru", "rn")):
        expected = [_in_mode(Fraction(float(v)), float(v), np.float16, mode, np.float16(v)) if np.isfinite(v)
                    else np.float16(v) for v in a]
        _same(out["hout"][k * N:(k + 1) * N], np.array(expected, np.float16), f"__float2half_{mode}")
