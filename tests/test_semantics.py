"""Building blocks of the interpreter checked against straightforward scalar references:
serialized atomics, warp shuffles, and LLVM integer/float semantics."""

import numpy as np
import pytest

from interpreter import atomics, collectives
from interpreter.types import FloatType, IntType
from interpreter.values import cast, divide, integer_binary, integer_compare

I8, I32, I24, I1 = IntType(8), IntType(32), IntType(24), IntType(1)


def sequential(operation, initial, segment, values, compare):
    """Lane after lane, in order: the reference for atomics.serialize."""
    memory = list(initial)
    seen = []
    for lane, address in enumerate(segment):
        old = memory[address]
        seen.append(old)
        if operation == "cmpxchg":
            memory[address] = values[lane] if old == compare[lane] else old
        else:
            memory[address] = atomics.apply(operation, np.array([old]), np.array([values[lane]]))[0]
    return seen, memory


@pytest.mark.parametrize("operation", sorted(atomics.OPERATIONS - {"fadd", "fsub", "fmax", "fmin", "fmaximum",
                                                                   "fminimum"}))
@pytest.mark.parametrize("shape", ["few addresses", "many addresses"])
def test_atomics_match_one_lane_after_another(operation, shape):
    rng = np.random.default_rng(hash((operation, shape)) % 2**32)
    lanes = 200
    addresses = 3 if shape == "few addresses" else 150  # accumulate path vs rounds path
    segment = np.sort(rng.integers(0, addresses, lanes))
    used = np.unique(segment)
    segment = np.searchsorted(used, segment)
    initial = rng.integers(-20, 20, len(used)).astype(np.int32)
    values = rng.integers(-20, 20, lanes).astype(np.int32)
    if operation in ("uinc_wrap", "udec_wrap"):
        initial, values = np.abs(initial), np.full(lanes, 7, np.int32)
    compare = rng.integers(-2, 2, lanes).astype(np.int32) if operation == "cmpxchg" else None
    if operation == "cmpxchg":  # make some swaps succeed: expect what the address holds now and then
        compare[::3] = initial[segment[::3]]
    seen, final = atomics.serialize(operation, initial, segment, values, compare)
    expected_seen, expected_final = sequential(operation, initial.tolist(), segment.tolist(), values.tolist(),
                                               None if compare is None else compare.tolist())
    assert seen.tolist() == [int(np.int32(v)) for v in expected_seen]
    assert final.tolist() == [int(np.int32(v)) for v in expected_final]


def test_float_atomic_add_is_sequential_in_single_precision():
    values = np.array([1e8, 1.0, -1e8, 1.0] * 50, np.float32)
    seen, final = atomics.serialize("fadd", np.zeros(1, np.float32), np.zeros(len(values), np.int64), values)
    total = np.float32(0)
    for v in values:
        total = np.float32(total + v)
    assert final[0] == total


def _groups(width: int, sources) -> list:
    """`sources` (for the lanes of one group of `width`, relative to its first lane)
    repeated over the 32 lanes of a warp."""
    return [None if source is None else start + source for start in range(0, 32, width) for source in sources]


# (mode, operand, width, the lane each of the 32 lanes reads; None: out of range, the lane
# keeps its own value), hand-written from the CUDA Programming Guide's __shfl_sync,
# __shfl_up_sync, __shfl_down_sync and __shfl_xor_sync.
SHUFFLE_CASES = [
    ("idx", 3, 32, [3] * 32),
    ("idx", 3, 8, [3] * 8 + [11] * 8 + [19] * 8 + [27] * 8),
    ("idx", 37, 32, [5] * 32),  # srcLane beyond the warp wraps
    ("idx", 6, 4, _groups(4, [2, 2, 2, 2])),  # ... and beyond the width
    ("up", 2, 16, [None, None] + list(range(0, 14)) + [None, None] + list(range(16, 30))),
    ("up", 1, 32, [None] + list(range(0, 31))),
    ("down", 4, 32, list(range(4, 32)) + [None] * 4),
    ("down", 1, 4, _groups(4, [1, 2, 3, None])),
    ("bfly", 1, 32, _groups(2, [1, 0])),
    ("bfly", 16, 32, list(range(16, 32)) + list(range(0, 16))),
    ("bfly", 4, 8, _groups(8, [4, 5, 6, 7, 0, 1, 2, 3])),
    # a later group is out of reach (own value), an earlier one is not
    ("bfly", 4, 4, [None] * 4 + [0, 1, 2, 3] + [None] * 4 + [8, 9, 10, 11] + [None] * 4 + [16, 17, 18, 19]
     + [None] * 4 + [24, 25, 26, 27]),
]


@pytest.mark.parametrize("mode, operand, width, sources", SHUFFLE_CASES)
def test_shuffles_read_the_lane_cuda_documents(mode, operand, width, sources):
    lanes = np.arange(64)  # two warps: each exchanges within itself
    warps = collectives.Warps(lanes // 32, lanes % 32)
    values = 1000 + lanes.astype(np.int32) * 7
    clamp = ((32 - width) << 8) | (0 if mode == "up" else 0x1F)  # how CUDA's headers encode the width
    result, valid = collectives.shuffle(mode, warps, values, np.full(64, operand), np.full(64, clamp))
    for warp in (0, 32):
        expected = [values[warp + lane if source is None else warp + source] for lane, source in enumerate(sources)]
        assert result[warp : warp + 32].tolist() == expected
        assert valid[warp : warp + 32].tolist() == [source is not None for source in sources]


def test_votes_over_partial_warps():
    lanes = np.array([0, 1, 2, 5, 31])
    warps = collectives.Warps(np.zeros(5, np.int64), lanes)
    predicate = np.array([True, False, True, True, False])
    assert collectives.vote("ballot", warps, 0xFFFFFFFF, predicate)[0] == 0b100101
    assert not collectives.vote("all", warps, 0xFFFFFFFF, predicate).any()
    assert collectives.vote("all", warps, 0b100101, predicate)[0]  # only the lanes of the mask vote
    assert collectives.vote("any", warps, 0b10, predicate).tolist() == [False] * 5


def test_integer_wrap_division_and_comparisons():
    a = np.array([127, -128, 100], np.int8)
    assert integer_binary("add", a, np.int8(1), I8).tolist() == [-128, -127, 101]
    assert integer_binary("mul", a, np.int8(2), I8).tolist() == [-2, 0, -56]
    assert integer_binary("lshr", a, np.int8(1), I8).tolist() == [63, 64, 50]
    assert integer_binary("ashr", a, np.int8(1), I8).tolist() == [63, -64, 50]
    assert integer_binary("shl", a, np.int8(9), I8).tolist() == [0, 0, 0]  # shift by width or more: 0
    quotient, zero = divide("sdiv", np.array([-7, 7], np.int32), np.array([2, 0], np.int32), I32)
    assert quotient.tolist() == [-3, 0] and zero.tolist() == [False, True]
    assert integer_compare("ult", np.array([-1], np.int32), np.array([1], np.int32), I32).tolist() == [False]
    assert integer_compare("slt", np.array([-1], np.int32), np.array([1], np.int32), I32).tolist() == [True]


def test_odd_widths_and_booleans():
    value = np.array([0x7FFFFF, -0x800000], np.int32)  # i24 extremes
    assert integer_binary("add", value, np.int32(1), I24).tolist() == [-0x800000, -0x7FFFFF]
    assert cast("zext", np.array([-1], np.int32), I24, I32).tolist() == [0xFFFFFF]
    assert cast("sext", np.array([True, False]), I1, I32).tolist() == [-1, 0]
    assert cast("zext", np.array([True, False]), I1, I32).tolist() == [1, 0]
    assert integer_binary("add", np.array([True, True]), np.array([True, False]), I1).tolist() == [False, True]
    assert integer_compare("slt", np.array([True]), np.array([False]), I1).tolist() == [True]  # -1 < 0


def test_casts_between_floats_and_integers():
    floats = np.array([np.nan, -1.5, 3e9, -3e9, 2.5], np.float32)
    assert cast("fptosi", floats, FloatType("float"), I32).tolist() == [0, -1, 2**31 - 1, -(2**31), 2]
    assert cast("fptoui", floats, FloatType("float"), I32).view(np.uint32).tolist() == [0, 0, 3000000000, 0, 2]
    big = np.array([2**63 - 1, -1], np.int64)
    assert cast("uitofp", big, IntType(64), FloatType("float")).tolist() == [2.0**63, 2.0**64]
    assert cast("sitofp", np.array([16777217], np.int32), I32, FloatType("float")).tolist() == [16777216.0]


def test_vector_and_odd_width_instructions_from_ir():
    from conftest import IR_FILES, program
    from interpreter.launch import Launch
    from interpreter.simt import execute

    values = np.arange(64 * 4, dtype=np.int32).reshape(64, 4) - 3
    out = np.zeros(256 + 64 + 32, np.int64)  # vectors, then i64 results, then floats
    counters = np.zeros(6, np.int32)  # i32, i32, float, pad, then an i64 at byte 16
    counters[0] = -1
    result = execute(program(IR_FILES / "vectors.ll"), "vectors",
                     Launch(1, 64, {"in": values, "out": out, "counters": counters}))
    assert result.status == "ok" and not result.events.faults, result.message
    got = result.buffers["out"]
    vectors = got[:128].view(np.int32).reshape(64, 4)
    expected = np.where(values > 5, (2 * values)[:, ::-1], 0)
    expected[:, 2] = np.arange(64)
    np.testing.assert_array_equal(vectors, expected)
    lane0 = values[:, 0].astype(np.int64)
    pair = (values[:, 1].astype(np.uint32).astype(np.int64) | (values[:, 2].astype(np.int64) << 32))
    narrow = ((lane0 & 0xFFFFFF) * 1048576) & 0xFFFFFF
    back = np.where(narrow >= 1 << 23, narrow - (1 << 24), narrow)
    np.testing.assert_array_equal(got[256:320], pair + back)
    floats = got[320:352].view(np.float32)
    np.testing.assert_array_equal(floats, -np.fmod(lane0.astype(np.float32), np.float32(3)))
    final = result.buffers["counters"]
    nand = -1
    for v in lane0.tolist():
        nand = ~(nand & v)
    assert final[0] == np.int32(nand)
    assert final[1] == -3  # umax compares unsigned: -3 is 0xfffffffd, the largest
    assert final[2:3].view(np.float32)[0] == lane0.max()
    assert final[4:6].view(np.int64)[0] == 1  # cmpxchg(0 -> tid): lane 0 swaps 0 for 0, lane 1 0 for 1, then no more

