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
# each function of the math API and the most units in the last place NVIDIA documents it may be off
FLOAT_MATH = {"sinf": 2, "cosf": 2, "tanf": 4, "expf": 2, "exp2f": 2, "exp10f": 2, "expm1f": 1, "logf": 1,
              "log2f": 1, "log10f": 2, "log1pf": 1, "powf": 4, "sqrtf": 0, "rsqrtf": 2, "cbrtf": 1, "sinhf": 3,
              "coshf": 2, "tanhf": 2, "asinf": 2, "acosf": 2, "atanf": 2, "atan2f": 3, "erff": 2, "erfcf": 4,
              "hypotf": 3, "fmodf": 0, "floorf": 0, "ceilf": 0, "roundf": 0, "truncf": 0, "fminf": 0, "fmaxf": 0,
              "fdividef": 2, "/": 0}
DOUBLE_MATH = {"sin": 2, "cos": 2, "exp": 1, "log": 1, "pow": 2, "sqrt": 0, "tanh": 2, "atan2": 2, "erf": 2, "/": 0}


def _references(name: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """`name` (its double-precision name) in double precision (SciPy's erf and erfc), on
    float64 operands."""
    from scipy import special

    functions = {
        "sin": np.sin, "cos": np.cos, "tan": np.tan, "exp": np.exp, "exp2": np.exp2, "exp10": lambda x: 10.0 ** x,
        "expm1": np.expm1, "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p, "pow": np.power,
        "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x), "cbrt": np.cbrt, "sinh": np.sinh, "cosh": np.cosh,
        "tanh": np.tanh, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "atan2": np.arctan2,
        "erf": special.erf, "erfc": special.erfc, "hypot": np.hypot, "fmod": np.fmod, "floor": np.floor,
        "ceil": np.ceil, "round": lambda x: np.trunc(x + np.copysign(0.5, x) * (np.abs(x - np.trunc(x)) >= 0.5)),
        "trunc": np.trunc, "fmin": np.fmin, "fmax": np.fmax, "fdivide": np.divide, "/": np.divide}
    with np.errstate(all="ignore"):
        return functions[name](a, b) if name in ("pow", "atan2", "hypot", "fmod", "fmin", "fmax", "fdivide", "/") \
            else functions[name](a)


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
    return (np.concatenate([magnitudes[0], pairs[:, 0]]).astype(dtype),
            np.concatenate([magnitudes[1], pairs[:, 1]]).astype(dtype))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("kernel, dtype, bounds", [("float_math", np.float32, FLOAT_MATH),
                                                    ("double_math", np.float64, DOUBLE_MATH)])
def test_the_math_api_is_within_the_errors_nvidia_documents(engine, kernel, dtype, bounds):
    from simulee.frontend.compiler import load_program

    program = load_program(MATH)
    a, b = _math_operands(dtype)
    out = _run(program, kernel, engine, {"x": a, "y": b}, {"out": (dtype, len(bounds) * N)})["out"]
    slack = 1 if dtype == np.float64 else 0  # the double reference is itself within an ulp
    for k, (name, bound) in enumerate(bounds.items()):
        double = name[:-1] if dtype == np.float32 and name != "/" else name  # sinf is sin in float
        expected = _references(double, a.astype(np.float64), b.astype(np.float64))
        with np.errstate(all="ignore"):
            expected = expected.astype(dtype)
        found = out[k * N:(k + 1) * N]
        off = _ulps(found, expected)
        worst = int(np.argmax(off))
        assert off[worst] <= bound + slack, \
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
