"""The SIMT interpreter: kernels run on launches, outputs compared with NumPy."""

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import KERNELS, at, line_of, position_of, program, written
from interpreter.launch import Launch
from interpreter import simt
from interpreter.compiler import Compiler
from interpreter.simt import execute
from interpreter.trace import READ, WRITE
from simulee.frontend.compiler import user_location

RNG = np.random.default_rng(2024)


def run(file: str, kernel: str, grid, block, check_clean: bool = True, **launch_options):
    """Run a test kernel; unless told otherwise, insist on a clean run."""
    args = launch_options.pop("args")
    result = execute(program(KERNELS / file), kernel, Launch(grid, block, args, **launch_options))
    if check_clean:
        assert result.status == "ok", result.message
        assert result.events.faults == [], [(f.kind, len(f.threads)) for f in result.events.faults]
        assert result.events.barrier_divergence == []
    return result


# ---------------------------------------------------------------------------- grids


REUSED = """
__device__ int *table;  // a pointer global: given a buffer of its own unless the host writes it
__device__ int base = 37;
__global__ void numbered(int *out, int *dims) {
    int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    int b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    int n = blockDim.x * blockDim.y * blockDim.z;
    out[b * n + t] = base + b * 1000 + t;
    if (b == 0 && t == 0) {
        dims[0] = n; dims[1] = gridDim.x * gridDim.y * gridDim.z;
        if (table) dims[2] = table[0] & 0;
    }
}
"""


@pytest.mark.parametrize("grid, block", [((2, 3, 1), (4, 2, 2)), (5, (33, 1, 1)), ((1, 2, 2), (8, 8, 1)), (3, 64)])
def test_launches_of_one_kernel_share_its_compiled_code(tmp_path, grid, block):
    """Each launch reads its own dimensions, whichever launch the kernel's code was compiled for."""
    loaded, kernel = written(tmp_path, "numbered.cu", REUSED, "numbered")
    for launch_grid, launch_block in ((2, 32), (grid, block)):
        threads, blocks = np.prod(launch_block), np.prod(launch_grid)
        result = run_program(loaded, kernel, launch_grid, launch_block, threads * blocks)
        expected = 37 + np.arange(blocks)[:, None] * 1000 + np.arange(threads)[None, :]
        np.testing.assert_array_equal(result.buffers["out"], expected.reshape(-1))
        np.testing.assert_array_equal(result.buffers["dims"][:2], [threads, blocks])
    assert len({id(e) for e in loaded.executions.values()}) == 1


def test_a_launch_whose_globals_move_gets_code_compiled_for_it(tmp_path):
    """Written by the host, `table` needs no buffer of its own, so `base` is placed elsewhere:
    code compiled with base's old address must not run."""
    loaded, kernel = written(tmp_path, "moved.cu", REUSED, "numbered")
    run_program(loaded, kernel, 1, 32, 32)
    first = loaded.executions[kernel.symbol]
    loaded.host_written = frozenset({"table"})
    result = run_program(loaded, kernel, 1, 32, 32)
    np.testing.assert_array_equal(result.buffers["out"], 37 + np.arange(32))
    assert loaded.executions[kernel.symbol] is not first


def run_program(loaded, kernel, grid, block, count):
    buffers = dict(out=np.zeros(count, np.int32), dims=np.zeros(3, np.int32))
    result = execute(loaded, kernel, Launch(grid, block, buffers))
    assert result.status == "ok" and result.events.faults == [], result.message
    return result



def test_vector_add():
    n = 1000
    a, b = RNG.random(n, dtype=np.float32), RNG.random(n, dtype=np.float32)
    result = run("whole_program.cu", "vector_add", 4, 256, args=dict(a=a, b=b, c=np.zeros(n, np.float32), n=n))
    np.testing.assert_array_equal(result.buffers["c"], a + b)
    assert result.threads == 1024


def test_saxpy_one_dimensional():
    n = 3000
    x, y = RNG.random(n, dtype=np.float32), RNG.random(n, dtype=np.float32)
    result = run("saxpy.cu", "saxpy", 12, 256, args=dict(n=n, a=np.float32(1.5), x=x, y=y.copy()))
    np.testing.assert_array_equal(result.buffers["y"], np.float32(1.5) * x + y)


def test_two_dimensional_grid():
    width, height = 50, 37
    a, b = RNG.random((height, width), dtype=np.float32), RNG.random((height, width), dtype=np.float32)
    result = run("index_2d.cu", "matrix_add", (4, 3), (16, 16),
                 args=dict(a=a, b=b, c=np.zeros_like(a), width=width, height=height))
    np.testing.assert_array_equal(result.buffers["c"], a + b)


def test_three_dimensional_grid_with_grid_stride():
    nx, ny, nz = 12, 10, 9
    volume = RNG.random((nz, ny, nx), dtype=np.float32)
    result = run("index_3d.cu", "stencil3d", (2, 2, 2), (8, 8, 2),
                 args={"in": volume, "out": np.zeros_like(volume), "nx": nx, "ny": ny, "nz": nz})
    expected = np.zeros_like(volume)
    inner = (slice(1, -1),) * 3
    expected[inner] = (volume[inner] * np.float32(-6.0) + volume[1:-1, 1:-1, :-2] + volume[1:-1, 1:-1, 2:]
                       + volume[1:-1, :-2, 1:-1] + volume[1:-1, 2:, 1:-1] + volume[:-2, 1:-1, 1:-1]
                       + volume[2:, 1:-1, 1:-1])
    np.testing.assert_allclose(result.buffers["out"], expected, rtol=1e-6)


# ---------------------------------------------------------------------------- shared memory algorithms


def test_shared_memory_tree_reduction():
    n = 64 * 256 - 100
    x = RNG.random(n, dtype=np.float32)
    result = run("reduction.cu", "reduce_sum", 64, 256, args={"in": x, "out": np.zeros(64, np.float32), "n": n})
    expected = np.concatenate([x, np.zeros(100, np.float32)]).reshape(64, 256).sum(axis=1)
    np.testing.assert_allclose(result.buffers["out"], expected, rtol=1e-5)


def test_warp_shuffle_reduction():
    n = 1000
    x = RNG.integers(-10, 10, n).astype(np.float32)
    result = run("warp_reduce.cu", "warp_sum", 4, 256, args={"in": x, "total": np.zeros(1, np.float32), "n": n})
    assert result.buffers["total"][0] == x.sum()


def test_hillis_steele_scan():
    x = RNG.integers(-50, 50, 300).astype(np.int32)
    result = run("scan.cu", "hillis_steele", 1, 512, args={"in": x, "out": np.zeros(300, np.int32), "n": 300})
    np.testing.assert_array_equal(result.buffers["out"], np.cumsum(x))


def test_blelloch_scan():
    x = RNG.integers(-50, 50, 512).astype(np.int32)
    result = run("scan.cu", "blelloch", 1, 256, args={"in": x, "out": np.zeros(512, np.int32), "n": 512})
    np.testing.assert_array_equal(result.buffers["out"], np.concatenate([[0], np.cumsum(x)[:-1]]))


def test_tiled_transpose_with_padding():
    width, height = 96, 64
    a = np.arange(width * height, dtype=np.float32).reshape(height, width)
    result = run("transpose.cu", "transpose", (3, 2), (32, 8),
                 args={"out": np.zeros((width, height), np.float32), "in": a, "width": width, "height": height})
    np.testing.assert_array_equal(result.buffers["out"], a.T)


def test_tiled_matrix_multiply():
    m, k, n = 37, 50, 29
    a, b = RNG.random((m, k), dtype=np.float32), RNG.random((k, n), dtype=np.float32)
    result = run("matmul.cu", "matmul", (2, 3), (16, 16),
                 args=dict(a=a, b=b, c=np.zeros((m, n), np.float32), m=m, k=k, n=n))
    np.testing.assert_allclose(result.buffers["c"], a @ b, rtol=1e-5)


def test_histogram_with_shared_and_global_atomics():
    data = RNG.integers(0, 256, 100_000).astype(np.uint8)
    result = run("histogram.cu", "histogram256", 16, 128,
                 args=dict(data=data, bins=np.zeros(256, np.uint32), n=len(data)))
    np.testing.assert_array_equal(result.buffers["bins"], np.bincount(data, minlength=256))


def test_bitonic_sort_in_shared_memory():
    keys = RNG.random(512, dtype=np.float32)
    result = run("bitonic.cu", "bitonic_sort", 1, 512, args=dict(keys=keys))
    np.testing.assert_array_equal(result.buffers["keys"], np.sort(keys))


def test_dynamic_shared_memory():
    data = np.arange(128, dtype=np.int32)
    result = run("extern_shared.cu", "dynamic_reverse", 1, 128, shared_bytes=128 * 4,
                 args=dict(data=data, n=128))
    np.testing.assert_array_equal(result.buffers["data"], data[::-1])


# ---------------------------------------------------------------------------- control flow


def classify_reference(value: int) -> int:
    score = [10, 20, 30, -1][value & 3]
    for k in range(value):
        if k % 2:
            continue
        if score > 100:
            break
        score += k
    return score


def test_early_return_switch_and_thread_dependent_loops():
    values = np.arange(-3, 61, dtype=np.int32)
    result = run("control_flow.cu", "classify", 1, 64, args={"in": values, "out": np.full(64, -99, np.int32),
                                                             "n": 60})
    assert list(result.buffers["out"][:60]) == [classify_reference(int(v)) for v in values[:60]]
    np.testing.assert_array_equal(result.buffers["out"][60:], -99)  # returned early: never written


def test_device_function_and_recursion():
    data = np.arange(64, dtype=np.int32)
    result = run("device_functions.cu", "call_tree", 1, 64, args=dict(data=data, depth=10))
    fib10 = 55
    np.testing.assert_array_equal(result.buffers["data"], data * data + data * data + fib10)


def test_recursion_past_the_limit_overflows_the_stack_and_stops_the_threads():
    result = run("device_functions.cu", "call_tree", 1, 32, check_clean=False, recursion_limit=5,
                 args=dict(data=np.zeros(32, np.int32), depth=10))
    assert result.status == "ok"
    (fault,) = result.events.faults  # the threads stop there: nothing follows from it
    assert fault.kind == "stack-overflow" and len(fault.threads) == 32
    assert fault.detail == "fibonacci needs calls nested more than 5 deep"


def test_struct_by_value_and_float3_members():
    params = np.zeros(1, dtype=[("dt", "<f4"), ("count", "<i4"), ("damping", "<f8"), ("steps", "<i4"),
                                ("pad", "<i4")])
    params[0] = (0.5, 40, 0.5, 3, 0)
    bodies = np.zeros((64, 6), dtype=np.float32)
    bodies[:, 3] = 2.0  # velocity.x
    result = run("struct_param.cu", "apply", 1, 64, args=dict(params=params.tobytes(), bodies=bodies.copy()))
    out = result.buffers["bodies"]
    # 40 bodies move: x += v*dt three times while v halves each step: 1 + 0.5 + 0.25
    np.testing.assert_allclose(out[:40, 0], 1.75)
    np.testing.assert_allclose(out[:40, 3], 0.25)
    np.testing.assert_array_equal(out[40:], bodies[40:])


def test_pointers_inside_a_struct_argument_get_buffers_of_their_own():
    result = run("struct_param.cu", "gather", 1, 32, args={}, trace=True)
    trace = result.trace
    names = [result.regions[r] for r in trace["region"]]
    written = {name for name, kind in zip(names, trace["kind"]) if kind == WRITE}
    read = {name for name, kind in zip(names, trace["kind"]) if kind == READ}
    assert written == {"arrays.2"} and {"arrays.0", "arrays.1"} <= read
    assert (trace["kind"] == WRITE).sum() == 32


def test_a_zero_global_pointer_gets_a_buffer_as_if_the_host_had_set_it():
    result = run("struct_param.cu", "through_global", 1, 32, args={}, trace=True)
    read = {result.regions[r] for r, kind in zip(result.trace["region"], result.trace["kind"]) if kind == READ}
    assert "table.0" in read
    np.testing.assert_array_equal(result.buffers["out"], np.ones(32, np.float32))


def test_vector_types():
    f4 = RNG.random((64, 4), dtype=np.float32)
    i2 = RNG.integers(-100, 100, (64, 2)).astype(np.int32)
    c4 = RNG.integers(0, 250, (64, 4)).astype(np.uint8)
    d2 = RNG.random((64, 2))
    result = run("vector_types.cu", "vectors", 1, 64,
                 args=dict(f4=f4, i2=i2, c4=c4, d2=d2, where=np.zeros((64, 3), np.uint32)))
    np.testing.assert_array_equal(result.buffers["f4"], f4[:, ::-1])
    np.testing.assert_array_equal(result.buffers["i2"], i2[:, ::-1])
    np.testing.assert_array_equal(result.buffers["c4"][:, 0], c4[:, 0] + 1)
    np.testing.assert_array_equal(result.buffers["d2"][:, 0], d2[:, 0] * 2)
    np.testing.assert_array_equal(result.buffers["where"][:, 0], np.arange(64))
    np.testing.assert_array_equal(result.buffers["where"][:, 1], 1)


# ---------------------------------------------------------------------------- integers and floats


def c_divide(x: int, y: int) -> int:
    quotient = abs(x) // abs(y)
    return quotient if (x < 0) == (y < 0) else -quotient


def to_int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >> 31 else value


def test_signed_and_unsigned_division_remainder_and_shifts():
    a = np.array([-7, 7, -7, 7, -2147483648, 100, -1, 0, -100, 2147483647], np.int32)
    b = np.array([2, -2, -2, 3, -1, 7, 3, 5, 33, -3], np.int32)
    result = run("integer_ops.cu", "divide_and_shift", 1, len(a), args=dict(a=a, b=b, out=np.zeros(80, np.int32)))
    out = result.buffers["out"].reshape(-1, 8)
    for row, (x, y) in zip(out, zip(a.tolist(), b.tolist())):
        ux, uy = x & 0xFFFFFFFF, y & 0xFFFFFFFF
        quotient = to_int32(c_divide(x, y))  # INT_MIN / -1 wraps
        expected = [quotient, x - c_divide(x, y) * y if not (x == -2**31 and y == -1) else 0,
                    to_int32(ux // uy), to_int32(ux % uy), x >> 3, to_int32(ux >> 3), to_int32(x << 5),
                    to_int32(ux >> (y & 31)) if y & 31 else -7]
        assert row.tolist() == expected, (x, y)


def test_division_by_zero_is_a_fault_not_an_exception():
    result = run("faults.cu", "divide_by_zero", 1, 8, check_clean=False,
                 args=dict(a=np.arange(8, dtype=np.int32), b=np.array([1, 0, 2, 0, 3, 0, 4, 0], np.int32),
                           out=np.full(8, 9, np.int32)))
    assert result.status == "ok"
    (fault,) = result.events.faults
    assert fault.kind == "division-by-zero" and fault.threads.tolist() == [1, 3, 5, 7]
    assert result.buffers["out"].tolist() == [0, 0, 1, 0, 1, 0, 1, 0]
    assert result.trace.ops[fault.op].location.line == line_of("faults.cu", "a[threadIdx.x] / b[threadIdx.x]")


def test_overflow_wraps_at_every_width():
    values = np.array([0, 1, -1, 127, 200, -129, 40000, -70000, 3_000_000_000, -9_000_000_000_000_000_000 // 10],
                      np.int64)
    result = run("integer_ops.cu", "wrap_widths", 1, len(values),
                 args={"in": values, "out": np.zeros(6 * len(values), np.int64)})
    out = result.buffers["out"].reshape(-1, 6)

    def wrap(value, bits, signed):
        value &= (1 << bits) - 1
        return value - (1 << bits) if signed and value >> (bits - 1) else value

    for row, v in zip(out, values.tolist()):
        expected = [wrap(wrap(v, 8, True) * 3 + 100, 8, True), wrap(wrap(v, 8, False) * 3 + 200, 8, False),
                    wrap(wrap(v, 16, True) * 7 + 30000, 16, True), wrap(wrap(v, 16, False) * 7 + 60000, 16, False),
                    wrap(wrap(v, 32, True) * 1000003 + 2000000000, 32, True),
                    wrap((v * 6364136223846793005 + 1442695040888963407), 64, True)]
        assert row.tolist() == expected, v


def test_float_to_int_conversions_saturate_and_round():
    floats = np.array([1.9, -1.9, -0.5, 3e10, -3e10, np.nan, 4.2e9, np.inf], np.float32)
    doubles = floats.astype(np.float64)
    doubles[6] = 1e19
    longs = np.array([1, -1, 2**53 + 1, -(2**62) - 3, 2**63 - 1, -(2**63), 16777217, 123456789012], np.int64)
    result = run("conversions.cu", "convert", 1, 8, args=dict(f=floats, d=doubles, l=longs,
                 i=np.zeros(16, np.int32), u=np.zeros(8, np.uint32), ll=np.zeros(8, np.int64),
                 back=np.zeros(16, np.float32)))
    i = result.buffers["i"].reshape(8, 2)
    int_max, int_min = 2**31 - 1, -(2**31)
    assert i[:, 0].tolist() == [1, -1, 0, int_max, int_min, 0, int_max, int_max]
    assert i[:, 1].tolist() == [1, -1, 0, int_max, int_min, 0, int_max, int_max]
    assert result.buffers["u"].tolist() == [1, 0, 0, 2**32 - 1, 0, 0, 4200000000, 2**32 - 1]
    assert result.buffers["ll"].tolist() == [1, -1, 0, 30000001024, -30000001024, 0, 2**63 - 1, 2**63 - 1]
    back = result.buffers["back"].reshape(8, 2)
    np.testing.assert_array_equal(back[:, 0], longs.astype(np.float32))
    np.testing.assert_array_equal(back[:, 1], longs.view(np.uint64).astype(np.float32))


def test_bit_intrinsics_and_min_max():
    """Each value worked out by hand from intrinsics.cu for x = 0x80000000 (s = INT_MIN)."""
    result = run("intrinsics.cu", "bit_tricks", 1, 1, args={
        "in": np.array([0x80000000], np.uint32), "out": np.zeros(8, np.int32),
        "f": np.array([1.5, -2.5, 7.75, 0.0, 0.0], np.float32)})
    out, f = result.buffers["out"], result.buffers["f"]
    assert out[0] == 1 + 1 + 0 + 0 + 32 + 32  # popc, popcll(x << 3), clz, clzll(sign-extended), ffs, ffsll
    assert out[1] == 1 + 0  # brev(x) = 1; brevll(x) = 1 << 32, truncated to int
    assert out[2] == to_int32(0 + 0 + 2**30 + 2**30)  # mul24/umul24 see the low 24 bits: 0
    assert out[3] == to_int32(0x80000000 + 0x78 + 0x78000000)  # byte_perm identity, funnel shifts of 7:x by 4
    assert out[4] == 0x3FC00000 - 2 - 2 + 7  # float_as_int(1.5), rn(-2.5) = -2 (to even), rz = -2, rd(7.75)
    assert f[3] == np.float32(-2147483648.0)  # -0.0 + -0.0 + (float)INT_MIN
    assert out[5] == to_int32(-(2**31) + 4 + 5 + 0x80000000 - 2**31)  # min/max/umax/llmin overloads
    assert f[4] == np.float32(-2.5 + 7.75)
    assert out[6] == to_int32((2**31 + 2 + 1) - 2**30 - (2**30 - 1))  # sad, hadd floors, rhadd rounds up


# ---------------------------------------------------------------------------- warps


def test_shuffles_every_mode():
    i = np.arange(64, dtype=np.int32) * 10
    u = np.arange(32, dtype=np.uint32) + 1000
    f = np.arange(32, dtype=np.float32) / 4
    ll = np.arange(32, dtype=np.int64) * (1 << 40)
    d = np.arange(32, dtype=np.float64) + 0.125
    result = run("shuffle.cu", "shuffles", 1, 32, args=dict(i=i.copy(), u=u.copy(), f=f.copy(), ll=ll.copy(),
                                                             d=d.copy()))
    lanes = np.arange(32)
    seg16 = (lanes // 16) * 16
    down16 = np.where(lanes + 2 < seg16 + 16, lanes + 2, lanes)
    xor8 = (lanes ^ 4)
    src = i[:32]
    expected_i = src[0] + src[np.maximum(lanes - 1, 0) * (lanes >= 1) + lanes * (lanes < 1)] + src[down16] + src[xor8]
    np.testing.assert_array_equal(result.buffers["i"][:32], expected_i)
    np.testing.assert_array_equal(result.buffers["u"], u[np.where(lanes + 1 < 32, lanes + 1, lanes)])
    np.testing.assert_array_equal(result.buffers["f"], f[lanes ^ 1] + f[np.where(lanes >= 3, lanes - 3, lanes)])
    np.testing.assert_array_equal(result.buffers["ll"], ll[np.full(32, 5)])
    np.testing.assert_array_equal(result.buffers["d"], d[np.where(lanes + 16 < 32, lanes + 16, lanes)])
    legacy = expected_i[1] + expected_i[np.where(lanes >= 1, lanes - 1, lanes)] \
        + expected_i[np.where(lanes + 1 < 32, lanes + 1, lanes)] + expected_i[lanes ^ 1]
    np.testing.assert_array_equal(result.buffers["i"][32:], legacy)


def test_votes_ballots_and_matches():
    values = np.array([0, 5, 0, 12, 3, 0, 7, 20] * 4, dtype=np.int32)
    result = run("vote.cu", "votes", 1, 32, args={"in": values, "out": np.zeros(7, np.uint32)})
    out = result.buffers["out"]
    ballot = sum(1 << lane for lane in range(32) if values[lane] > 0)
    assert out[0] == ballot
    assert out[1] == 1 and out[2] == 0 and out[3] == 0  # any > 10, all != 0, uni
    assert out[4] == sum(1 << lane for lane in range(32) if values[lane] & 1) + 1 + 0
    assert out[5] == sum(1 << lane for lane in range(32) if values[lane] == values[31])
    assert out[6] == 0  # not all equal: mask 0 and predicate 0


def test_warp_collectives_wait_for_divergent_lanes():
    """Lanes that reach __shfl_sync on both sides of a branch meet before it executes."""
    source = """
__global__ void split_shuffle(int *out) {
  int lane = threadIdx.x, value;
  if (lane < 16) value = __shfl_xor_sync(0xffffffff, lane * 2, 16);
  else value = __shfl_xor_sync(0xffffffff, lane * 3, 16);
  out[lane] = value;
}
"""
    result = run_source(source, "split_shuffle", 1, 32, out=np.zeros(32, np.int32))
    lanes = np.arange(32)
    mine = np.where(lanes < 16, lanes * 2, lanes * 3)
    np.testing.assert_array_equal(result.buffers["out"], mine[lanes ^ 16])


def test_lanes_missing_from_a_mask_are_recorded():
    source = """
__global__ void lonely(int *out) {
  if (threadIdx.x < 8) out[threadIdx.x] = __shfl_sync(0xffffffff, (int)threadIdx.x, 0);
  else out[threadIdx.x] = -1;
}
"""
    result = run_source(source, "lonely", 1, 32, out=np.zeros(32, np.int32))
    (event,) = result.events.warp_masks
    assert (event.mask, event.arrived, event.warp) == (0xFFFFFFFF, 0xFF, 0)
    np.testing.assert_array_equal(result.buffers["out"][:8], 0)


LAST_WARP = """
__global__ void last_warp(const int *in, int *out) {
  int sum = in[threadIdx.x];
  unsigned active = __ballot_sync(0xffffffff, threadIdx.x < 8);
  if (threadIdx.x < 8)
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(active, sum, offset);
  if (threadIdx.x == 0) *out = sum;
}
"""
LAST_WARP_FIXED = """
__global__ void last_warp(const int *in, int *out) {
  int sum = threadIdx.x < 8 ? in[threadIdx.x] : 0;
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffff, sum, offset);
  if (threadIdx.x == 0) *out = sum;
}
"""


@pytest.mark.parametrize("source, reads_outside", [(LAST_WARP, True), (LAST_WARP_FIXED, False)])
def test_a_shuffle_reading_lanes_its_mask_leaves_out_is_an_error(source, reads_outside):
    """cuda-samples' reduce7 (its issue 398): eight lanes shuffle down by 16 with a mask of
    those eight; the fix shuffles zeros in the whole warp."""
    from simulee.detect.faults import find_faults

    result = run_source(source, "last_warp", 1, 32, **{"in": np.arange(32, dtype=np.int32)},
                        out=np.zeros(1, np.int32))
    found = [f for f in find_faults(result) if f.type == "shuffle-outside-mask"]
    if reads_outside:
        (finding,) = found
        assert "mask 0x000000ff reads lanes 0x00ff0000" in finding.message, finding.message
    else:
        assert found == [] and result.buffers["out"][0] == sum(range(8))


def run_source(source: str, kernel: str, grid, block, check_clean=True, **args):
    """Compile a kernel given as text (in a temporary file) and run it."""
    import hashlib
    import tempfile
    from pathlib import Path

    folder = Path(tempfile.gettempdir()) / "simulee-test-sources"
    folder.mkdir(exist_ok=True)
    path = folder / f"{kernel}-{hashlib.sha256(source.encode()).hexdigest()[:12]}.cu"
    path.write_text(source)
    result = execute(program(path), kernel, Launch(grid, block, args))
    if check_clean:
        assert result.status == "ok", result.message
        assert result.events.faults == []
    return result


# ---------------------------------------------------------------------------- atomics


def test_integer_atomics_see_the_previous_lane():
    """64 lanes, t = 0..63, each running every atomic of atomics_int.cu once, in lane order."""
    i = np.array([0, 100, -5, -50, -50, 0, 0xFF, 0, 0xF0], np.int32)
    u = np.array([0, 0, 3, 10, 0], np.uint32)
    q = np.array([0, 9, 0, 3, 0xFF], np.uint64)
    result = run("atomics_int.cu", "int_atomics", 1, 64, args=dict(i=i, u=u, q=q, l=np.array([10], np.int64),
                                                                    s=np.array([0], np.uint16)))
    total = sum(range(64))
    assert result.buffers["i"].tolist() == [
        total, 100 - total, 63, -50, 63,
        1,  # CAS(0 -> t): lane 0 swaps 0 for 0, lane 1 swaps 0 for 1, later lanes find 1
        0, 63, 0xF0]  # and with 0, or of 0..63, xor of 0..63 is 0
    inc, dec = 0, 3
    for _ in range(64):
        inc = 0 if inc >= 16 else inc + 1
        dec = 16 if dec == 0 or dec > 16 else dec - 1
    assert result.buffers["u"].tolist() == [64, inc, dec, 0, 1]
    assert result.buffers["q"].tolist() == [64, 2, 3, 63, 7]
    assert result.buffers["l"].tolist() == [0] and result.buffers["s"].tolist() == [1]


def test_atomic_cas_loop_float_max():
    values = RNG.random(5000, dtype=np.float32) * 100 - 50
    result = run("atomic_max.cu", "float_max", 20, 256,
                 args=dict(values=values, result=np.full(1, -1e30, np.float32), n=5000))
    assert result.buffers["result"][0] == values.max()


def test_float_atomics_add_in_lane_order():
    result = run("atomics_float.cu", "float_atomics", 1, 32, args=dict(
        f=np.zeros(2, np.float32), d=np.zeros(1, np.float64), i=np.zeros(5, np.int32)))
    assert result.buffers["f"][0] == 48.0 and result.buffers["f"][1] == 31.0
    assert result.buffers["d"][0] == 80.0
    assert result.buffers["i"].tolist() == [32, 32, 3, 1, 31]


# ---------------------------------------------------------------------------- barriers and groups


def test_reduction_barriers_count_and_vote():
    flags = np.array([1, 0, 1, 1] * 16, np.int32)
    result = run("barriers.cu", "barrier_votes", 1, 64, args=dict(flags=flags, out=np.zeros(64, np.int32)))
    np.testing.assert_array_equal(result.buffers["out"], flags.sum() + 0 + 1)


def test_cooperative_groups_block_tiles_and_grid_sync():
    data = np.arange(512, dtype=np.int32)
    result = run("cooperative_groups.cu", "grid_sum", 4, 128, args=dict(data=data.copy(), total=np.zeros(1, np.int32)))
    np.testing.assert_array_equal(result.buffers["data"], data.sum())
    values = np.ones(256, np.int32)
    result = run("cooperative_groups.cu", "block_and_tiles", 1, 256,
                 args={"in": values, "out": np.zeros(16, np.int32)})
    out = result.buffers["out"]
    assert out[0] == 32 + 32 + 256  # warp 0's sum plus its neighbour, plus every active lane counted once


def test_a_grid_barrier_only_reachable_runs_in_waves_past_what_a_gpu_holds(monkeypatch):
    monkeypatch.setattr(simt, "GRID_RESIDENT_THREADS", 1024)
    values = np.arange(64 * 16, dtype=np.int32)
    waves = []
    result = execute(program(KERNELS / "cooperative_groups.cu"), "group_sums",
                     Launch(64, 32, {"in": values, "out": np.zeros(64, np.int32)}, wave_threads=256),
                     progress=lambda done, total: waves.append((done, total)))
    assert result.status == "ok", result.message
    np.testing.assert_array_equal(result.buffers["out"], values.reshape(64, 16).sum(axis=1))
    assert waves == [(8 * (k + 1), 64) for k in range(8)]  # 8 blocks of 32 threads a wave, not the whole grid


def test_waves_hold_the_registers_a_budget_allows(monkeypatch):
    # the registers of 64 threads fill the budget: blocks of 256 threads run one by one
    compiled = program(KERNELS / "cooperative_groups.cu")
    register_bytes = Compiler(compiled, compiled.kernel("block_and_tiles"), None).register_bytes()
    assert register_bytes > 16  # every register of the kernel and of what it calls
    monkeypatch.setattr(simt, "REGISTER_BUDGET", 64 * register_bytes)
    waves = []
    values = np.ones(8 * 256, np.int32)
    result = execute(compiled, "block_and_tiles", Launch(8, 256, {"in": values, "out": np.zeros(64, np.int32)}),
                     progress=lambda done, total: waves.append(done))
    assert result.status == "ok" and waves == list(range(1, 9))  # a block of 256 threads a wave: at least one
    assert result.buffers["out"][0] == 32 + 32 + 256 * 8


def test_a_grid_barrier_reached_in_a_launch_no_gpu_holds_at_once(monkeypatch):
    monkeypatch.setattr(simt, "GRID_RESIDENT_THREADS", 512)
    data = np.arange(1024, dtype=np.int32)
    result = run("cooperative_groups.cu", "grid_sum", 8, 128, check_clean=False,
                 args=dict(data=data.copy(), total=np.zeros(1, np.int32)), wave_threads=256)
    assert result.status == "deadlock"
    assert "a grid barrier in a launch of 8 blocks (1,024 threads), more than a GPU holds at once" in result.message
    result = run("cooperative_groups.cu", "grid_sum", 4, 128, wave_threads=256,  # 512 threads: one wave, as before
                 args=dict(data=data[:512].copy(), total=np.zeros(1, np.int32)))
    np.testing.assert_array_equal(result.buffers["data"], data[:512].sum())


def test_half_precision():
    x = np.array([0.5, 1.25, -3.0, 1000.0], np.float32)
    result = run("half.cu", "half_math", 1, 4, args={"in": x, "h": np.zeros(4, np.float16), "out": np.zeros(4,
                                                                                                         np.float32)})
    a = x.astype(np.float16)
    b = np.float16(2.0)
    c = ((a + b) * b - a / b).astype(np.float16)
    np.testing.assert_array_equal(result.buffers["h"], c[[1, 0, 3, 2]])


# ---------------------------------------------------------------------------- printf, assert, heap


def test_printf_is_captured_in_thread_order():
    result = run("printf_assert.cu", "checked_copy", 2, 32,
                 args={"in": np.arange(40, dtype=np.int32), "out": np.zeros(40, np.int32), "n": 40})
    assert [text for _, _, text in result.events.printf] == ["copied 40 values, first 0\n"]
    np.testing.assert_array_equal(result.buffers["out"], np.arange(40))


def test_failed_assert_stops_the_thread():
    result = run("printf_assert.cu", "checked_copy", 1, 32, check_clean=False,
                 args={"in": np.arange(32, dtype=np.int32), "out": np.full(32, -1, np.int32), "n": 0})
    (assertion,) = result.events.assertions
    assert assertion.kind == "assert" and len(assertion.threads) == 32
    assert "Assertion `n > 0' failed." in assertion.message and "printf_assert.cu" in assertion.message
    np.testing.assert_array_equal(result.buffers["out"], -1)


# ---------------------------------------------------------------------------- faults


def test_out_of_bounds_store_is_a_fault():
    result = run("faults.cu", "out_of_bounds", 1, 8, check_clean=False, args=dict(data=np.zeros(10, np.int32), n=5))
    (fault,) = result.events.faults
    assert fault.kind == "out-of-bounds" and fault.threads.tolist() == [5, 6, 7]
    np.testing.assert_array_equal(result.buffers["data"], [0, 0, 0, 0, 0, 1, 1, 1, 1, 1])


def test_paged_buffers_grow_instead_of_faulting():
    result = run("faults.cu", "out_of_bounds", 1, 8, args=dict(n=1000))
    assert len(result.buffers["data"]) == 1008 and result.buffers["data"][1000:].tolist() == [1] * 8


def test_a_step_limit_stops_a_loop_and_names_its_condition():
    result = run("loops.cu", "count_forever", 1, 32, check_clean=False, step_limit=2000,
                 args=dict(out=np.zeros(32, np.uint32)))
    assert result.status == "step-limit" and result.message == "stopped at its step limit of 2,000 scheduler steps"
    loop = user_location(result.trace.ops[result.events.looping_op].location)
    condition = position_of("loops.cu", "!= 1u", "count_forever")  # while (i != 1u)
    assert (Path(loop.file).name, loop.line, loop.column) == ("loops.cu", *condition)
    assert result.events.in_loop


def test_a_wait_for_a_flag_nobody_sets_is_a_deadlock_found_at_once():
    result = run("faults.cu", "spin_forever", 1, 32, check_clean=False, args=dict(flag=np.zeros(1, np.int32)))
    assert result.status == "deadlock" and result.steps < 50  # two trips round the loop, not the step limit
    assert result.message.startswith("deadlock: 32 threads (thread (0,0,0) of block (0,0,0), ")
    loop = user_location(result.trace.ops[result.events.looping_op].location)
    condition = position_of("faults.cu", "== 0) {", "spin_forever")  # while (flag[0] == 0)
    assert (Path(loop.file).name, loop.line, loop.column) == ("faults.cu", *condition)


def test_null_and_misaligned_pointers_are_faults():
    result = run("faults.cu", "null_store", 1, 4, check_clean=False, args={})
    assert [f.kind for f in result.events.faults] == ["null-pointer"]
    result = run("faults.cu", "misaligned", 1, 4, check_clean=False, args=dict(bytes=np.zeros(32, np.int8)))
    assert [f.kind for f in result.events.faults] == ["misaligned"]


FAULTING_LANE = """
__global__ void around_a_fault(const int *a, int *out, int *sums) {
    int t = threadIdx.x;
    const int *p = t == 1 ? (const int *)0 : a;  // lane 1 loads through NULL
    int *q = t == 2 ? (int *)0 : out;            // lane 2 stores through NULL
    q[t] = p[t] + 100;
    atomicAdd(t == 3 ? (int *)0 : &sums[t % 2], p[t]);  // lane 3's atomic faults
}
"""


def test_the_lanes_beside_a_faulting_one_load_store_and_add_their_own_values(tmp_path):
    loaded, kernel = written(tmp_path, "faulting_lane.cu", FAULTING_LANE, "around_a_fault")
    args = dict(a=np.arange(10, 18, dtype=np.int32), out=np.full(8, -1, np.int32), sums=np.zeros(2, np.int32))
    result = execute(loaded, kernel, Launch(1, 8, args))
    assert {(f.kind, int(f.threads[0])) for f in result.events.faults} == \
        {("null-pointer", 1), ("null-pointer", 2), ("null-pointer", 3)}
    np.testing.assert_array_equal(result.buffers["out"], [110, 100, -1, 113, 114, 115, 116, 117])
    np.testing.assert_array_equal(result.buffers["sums"], [10 + 12 + 14 + 16, 0 + 15 + 17])  # lane 1 adds 0, 3 nothing


# ---------------------------------------------------------------------------- barrier divergence


def test_early_return_before_a_barrier_is_divergence():
    result = run("barrier_divergence.cu", "early_return", 2, 256, check_clean=False,
                 args=dict(data=np.zeros(300, np.float32), n=300))
    (event,) = result.events.barrier_divergence
    assert event.block == 1 and len(event.arrived) == 44 and len(event.missing) == 212
    ops = result.trace.ops
    assert ops[event.op].location.line == line_of("barrier_divergence.cu", "__syncthreads", "early_return")
    assert ops[int(event.missing_ops[0])].opcode == "ret"


def test_barrier_in_a_thread_dependent_loop_is_divergence():
    result = run("barrier_divergence.cu", "loop_barrier", 1, 32, check_clean=False,
                 args=dict(data=np.zeros(32, np.int32)))
    assert result.status == "ok"
    assert len(result.events.barrier_divergence) >= 1
    first = result.events.barrier_divergence[0]
    assert set(first.missing.tolist()) == {t for t in range(32) if t % 3 == 0}


def test_different_barriers_are_divergence_and_the_run_ends():
    result = run("barrier_divergence.cu", "two_barriers", 1, 8, check_clean=False,
                 args=dict(data=np.zeros(8, np.int32)))
    assert result.status == "ok" and len(result.events.barrier_divergence) == 2
    np.testing.assert_array_equal(result.buffers["data"], [2, 1] * 4)


def test_fixed_early_return_is_clean():
    data = np.arange(300, dtype=np.float32)
    result = run("barrier_divergence.cu", "fixed_early_return", 2, 256, args=dict(data=data.copy(), n=300))
    expected = np.concatenate([data, np.zeros(212, np.float32)]).reshape(2, 256)
    expected = np.roll(expected, -1, axis=1).reshape(-1)[:300]
    np.testing.assert_array_equal(result.buffers["data"], expected)


# ---------------------------------------------------------------------------- trace


def test_trace_records_every_access():
    n = 100
    result = run("saxpy.cu", "saxpy", 1, 128, args=dict(n=n, a=np.float32(2), x=np.zeros(n, np.float32),
                                                        y=np.zeros(n, np.float32)))
    trace = result.trace
    assert len(trace) == 3 * n
    kinds = trace["kind"]
    assert (kinds == 0).sum() == 2 * n and (kinds == 1).sum() == n
    writes = trace["kind"] == 1
    np.testing.assert_array_equal(np.sort(trace["offset"][writes]), np.arange(n) * 4)
    np.testing.assert_array_equal(np.sort(trace["thread"][writes]), np.arange(n))
    assert set(trace["size"].tolist()) == {4} and set(trace["space"].tolist()) == {1}
    assert {trace.ops[o].location.line for o in trace["op"]} == {line_of("saxpy.cu", "y[i] = a * x[i] + y[i]")}


def test_trace_epochs_advance_at_barriers():
    result = run("reduction.cu", "reduce_sum", 2, 64,
                 args={"in": np.ones(128, np.float32), "out": np.zeros(2, np.float32), "n": 128})
    trace = result.trace
    shared = trace["space"] == 3
    assert trace["epoch"][shared].max() == 7  # a barrier after the loads, then one per halving (6)
    first_stores = shared & (trace["kind"] == 1) & (trace["epoch"] == 0)
    assert first_stores.sum() == 128


def test_trace_active_masks_and_steps_for_lockstep():
    result = run("reduction.cu", "reduce_sum", 1, 64,
                 args={"in": np.ones(64, np.float32), "out": np.zeros(1, np.float32), "n": 64})
    trace = result.trace
    stride_16 = (trace["space"] == 3) & (trace["epoch"] == 3) & (trace["kind"] == 1)
    assert set(trace["thread"][stride_16].tolist()) == set(range(8))  # stride 8
    assert set(trace["active"][stride_16].tolist()) == {0xFF}
    steps = trace["step"][stride_16]
    assert len(set(steps.tolist())) == 1  # one dynamic instruction


def test_warp_sync_counts_collectives():
    result = run("warp_reduce.cu", "warp_sum", 1, 64,
                 args={"in": np.ones(64, np.float32), "total": np.zeros(1, np.float32), "n": 64})
    atomics = result.trace["kind"] == 2
    assert set(result.trace["warp_sync"][atomics].tolist()) == {5}  # after five shuffles
    assert len(result.events.collectives) == 5


# ---------------------------------------------------------------------------- libraries and memories


def test_float_math_matches_numpy():
    x = np.array([0.25, 0.5, 0.75, 0.9], np.float32)
    result = run("math_float.cu", "float_math", 1, 4, args={"in": x, "out": np.zeros(7, np.float32),
                                                            "flags": np.zeros(1, np.int32)})
    out = result.buffers["out"]
    v = x[3]  # every thread writes the same slots: the last thread's values stay
    np.testing.assert_allclose(out[0], np.sqrt(v) + 1 / np.sqrt(v) + np.cbrt(v) + 2 * np.exp(v) + np.exp2(v)
                               + np.log(v) + np.log2(v) + np.log10(v), rtol=1e-5)
    np.testing.assert_allclose(out[2], abs(v) + np.floor(v) + np.ceil(v) + np.round(v) + np.trunc(v) + np.rint(v)
                               + np.fmod(v, 3), rtol=1e-6)
    import math

    np.testing.assert_allclose(out[4], math.atan2(v, 1) + math.asin(v) + math.acos(v) + math.atan(v) + math.sinh(v)
                               + math.tanh(v) + math.erf(v) + math.erfc(v), rtol=1e-5)
    assert result.buffers["flags"][0] == 0 + 0 + 1 + 0 + 0


def test_double_math_and_integer_arguments():
    x = np.array([2.0], np.float64)
    result = run("math_double.cu", "double_math", 1, 1, args={"in": x, "out": np.zeros(5), "n": 9})
    out = result.buffers["out"]
    assert out[3] == 3.0 + 81.0 + 0 + 0 + 2  # sqrt(9), pow(9, 2), isnan, isinf, llrint(2.0)
    assert out[4] == 4.0
    np.testing.assert_allclose(out[0], np.sqrt(2) + 1 / np.sqrt(2) + np.exp(2) + np.log(2) + np.log1p(2)
                               + np.expm1(2) + 8)


def test_std_math_local_headers_and_constant_memory():
    v = np.array([-4.0, 0.25, 9.0], np.float32)
    result = run("cpp_library.cu", "normalize", 1, 32, args=dict(v=v.copy(), n=3))
    expected = np.sqrt(np.maximum(v, 0)) / np.minimum(1 + np.abs(v), 2)
    np.testing.assert_allclose(result.buffers["v"], expected, rtol=1e-6)
    values = np.arange(10, dtype=np.float32)
    result = run("local_header.cu", "blur", 1, 32, args={"in": values, "out": np.zeros(10, np.float32), "n": 10})
    padded = np.concatenate([[0], values, [9]])
    np.testing.assert_allclose(result.buffers["out"], (padded[:-2] + padded[1:-1] + padded[2:]) / 3, rtol=1e-6)
    result = run("qualifiers.cu", "qualified", 1, 8,
                 args={"in": np.ones(8, np.float32), "out": np.zeros(8, np.float32)})
    np.testing.assert_allclose(result.buffers["out"], np.array([0.5, 0.25, 0.125, 0.0625] * 2) * 0.9 + 1, rtol=1e-6)
    radius = np.array([1.0, -1.0], np.float32)
    result = run("cuda_headers.cu", "circle", 1, 2, args=dict(area=np.zeros(2, np.float32), radius=radius))
    assert result.buffers["area"][0] == np.float32(3.141592654) and np.isnan(result.buffers["area"][1])


def test_texture_reference_and_object():
    lookup = np.arange(16, dtype=np.float32) * 10
    image = np.arange(12, dtype=np.float32).reshape(3, 4)
    result = run("textures.cu", "sample", 1, (4, 3), args=dict(out=np.zeros(12, np.float32), image=image, width=4,
                                                                lookup=lookup))
    x, y = np.meshgrid(np.arange(4), np.arange(3))
    np.testing.assert_array_equal(result.buffers["out"].reshape(3, 4), lookup[x] + 3 * image)


def test_printf_formats():
    source = r"""
#include <cstdio>
__global__ void talk(float f, long long big) {
  printf("%d|%5.2f|%s|%c|%x|%lld|%u|%%\n", (int)threadIdx.x, f, "hi", 'A' + (int)threadIdx.x, 255, big, 4000000000u);
}
"""
    result = run_source(source, "talk", 1, 2, f=np.float32(3.14159), big=-123456789012)
    assert [text for _, _, text in result.events.printf] == [
        "0| 3.14|hi|A|ff|-123456789012|4000000000|%\n", "1| 3.14|hi|B|ff|-123456789012|4000000000|%\n"]


def test_inline_assembly_is_reported_not_executed():
    source = """
__global__ void assembly(int *out) {
  out[0] = 1;
  asm volatile("exit;");
}
"""
    result = run_source(source, "assembly", 1, 1, check_clean=False, out=np.zeros(1, np.int32))
    assert result.status == "unsupported"
    line = next(number for number, text in enumerate(source.splitlines(), 1) if "asm volatile" in text)
    assert 'inline assembly "exit;"' in result.message and f".cu:{line}:" in result.message


def test_waves_share_global_memory():
    n = 40 * 64
    x = RNG.random(n, dtype=np.float32)
    result = run("saxpy.cu", "saxpy", 40, 64, wave_threads=256,
                 args=dict(n=n, a=np.float32(2), x=x, y=np.zeros(n, np.float32)))
    np.testing.assert_array_equal(result.buffers["y"], 2 * x)
    assert result.trace["block"].max() == 39


# ---------------------------------------------------------------------------- the command line


def test_run_writes_buffers_and_summarizes(run_cli, tmp_path):
    out = tmp_path / "out.npz"
    status, stdout, stderr = run_cli("run", KERNELS / "saxpy.cu", "--grid", "4", "--block", "256", "--arg", "n=1000",
                                     "--arg", "a=0.5", "--buffer", "x=float32:1000:iota", "--buffer",
                                     "y=float32:1000:ones", "-o", out)
    assert status == 0, stderr
    assert stdout.startswith("simulee: saxpy: 1,024 threads, ") and " 0 faults, " in stdout
    saved = np.load(out)
    np.testing.assert_array_equal(saved["y"], np.arange(1000, dtype=np.float32) * 0.5 + 1)
    assert sorted(saved.keys()) == ["x", "y"]


def test_run_reports_faults_and_exits_1(run_cli, tmp_path):
    status, stdout, stderr = run_cli("run", KERNELS / "faults.cu", "-k", "out_of_bounds", "--grid", "1", "--block",
                                     "8", "--arg", "n=5", "--buffer", "data=int32:10")
    assert status == 1
    assert f"faults.cu:{at('faults.cu', '= 1; }')}: error: out of bounds in 3 threads\n" in stderr
    assert "witness block (0,0,0) thread (5,0,0)" in stderr
    assert " 3 faults, " in stdout


def test_run_prints_printf_and_paged_buffers(run_cli, tmp_path):
    out = tmp_path / "paged.npz"
    status, stdout, _ = run_cli("run", KERNELS / "printf_assert.cu", "--grid", "1", "--block", "4", "--arg", "n=4",
                                "--printf", "-o", out)
    assert status == 0
    assert stdout.startswith("copied 4 values, first 0\n")
    assert np.load(out)["out"].dtype == np.int32 and len(np.load(out)["out"]) == 4


def test_run_divergence_and_step_limit_are_findings(run_cli):
    status, _, stderr = run_cli("run", KERNELS / "barrier_divergence.cu", "-k", "early_return", "--grid", "2",
                                "--block", "256", "--arg", "n=300")
    barrier, end = at("barrier_divergence.cu", "__syncthreads", "early_return"), at("barrier_divergence.cu", "}",
                                                                                    "early_return")
    assert status == 0 and f"barrier_divergence.cu:{barrier}: warning: barrier divergence: thread (0,0,0) of block " \
        f"(1,0,0) waits here but thread (44,0,0) exited at line {end} (1 block): every live thread of the block " \
        "reaches it, the others exited" in stderr
    status, _, stderr = run_cli("run", KERNELS / "loops.cu", "-k", "count_forever", "--grid", "1", "--block", "4",
                                "--step-limit", "500")  # maybe only longer than the limit: a warning
    assert status == 0 and f"loops.cu:{at('loops.cu', '!= 1u')}: warning: threads were still running this loop " \
        "when the launch stopped at its step limit of 500 scheduler steps; the loop may be endless or only longer " \
        "than the limit (raise it with --step-limit 5000)" in stderr
    status, _, stderr = run_cli("run", KERNELS / "faults.cu", "-k", "spin_forever", "--grid", "1", "--block", "4")
    assert status == 1 and f"faults.cu:{at('faults.cu', '== 0) {')}: error: deadlock: 4 threads (thread (0,0,0) of " \
        "block (0,0,0), thread (1,0,0) of block (0,0,0), thread (2,0,0) of block (0,0,0) and 1 more) spin here " \
        "waiting for a value no thread can still write" in stderr


@pytest.mark.parametrize("extra, message", [
    (["--grid", "0", "--block", "32"], "--grid 0: dimensions must be at least 1"),
    (["--grid", "2x", "--block", "32"], "--grid 2x: expected 1 to 3 positive integers"),
    (["--grid", "1", "--block", "2048"], "--block 2048: x is at most 1,024 in CUDA"),
    (["--grid", "1", "--block", "32,64"], "--block 32,64: a block has at most 1024 threads in CUDA, not 2,048"),
    (["--grid", "1", "--block", "32", "--arg", "a=2"], "no value for scalar parameter n of saxpy"),
    (["--grid", "1", "--block", "32", "--arg", "n=1", "--arg", "a=2", "--arg", "q=3"], "saxpy has no parameter 'q'"),
    (["--grid", "1", "--block", "32", "--arg", "n=x", "--arg", "a=2"], "--arg n=x: not a valid int"),
    (["--grid", "1", "--block", "32", "--arg", "n=1", "--arg", "a=2", "--buffer", "x=float99:4"], "unknown dtype"),
    (["--grid", "1", "--block", "32", "--arg", "n=1", "--arg", "a=2", "--buffer", "x=float32:4:sparkly"],
     "fill must be one of zeros, ones, iota, random"),
    (["--grid", "1", "--block", "32", "--arg", "n=1", "--arg", "a=2", "--buffer", "n=int32:4"], "is not a pointer"),
    (["--grid", "1", "--block", "32", "--arg", "n=1", "--arg", "a=2", "--buffer", "x=@missing.npy"],
     "cannot load missing.npy"),
    (["-k", "nope", "--grid", "1", "--block", "32"], "kernel 'nope' not found"),
    (["--grid", "1", "--block", "32", "--arg", "n=99999999999", "--arg", "a=2"], "out of range for int"),
])
def test_run_rejects_bad_options_in_one_line(run_cli, extra, message):
    status, _, stderr = run_cli("run", KERNELS / "saxpy.cu", *extra)
    assert status == 2 and message in stderr and len(stderr.strip().splitlines()) == 1, stderr


def test_run_needs_a_kernel_name_when_the_file_has_several(run_cli):
    status, _, stderr = run_cli("run", KERNELS / "scan.cu", "--grid", "1", "--block", "32")
    assert status == 2 and "has 2 kernels; choose one with -k (hillis_steele, blelloch)" in stderr


def test_absurd_sizes_are_faults_not_crashes():
    source = """
#include <string.h>
__global__ void absurd(char *out, unsigned long long length, int count) {
  memset(out, 1, length);
  int local[4];
  int *huge = (int *)__builtin_alloca(count * sizeof(int));
  huge[0] = local[0];
  out[0] = (char)huge[0];
}
"""
    result = run_source(source, "absurd", 1, 2, check_clean=False, out=np.zeros(8, np.int8),
                        length=np.uint64(1 << 40), count=1 << 28)
    assert result.status == "ok"
    assert {f.kind for f in result.events.faults} >= {"out-of-bounds", "stack-overflow"}


def test_a_table_of_pointers_fills_the_slots_touched_and_those_past_its_bound_point_past_what_it_gives():
    from interpreter.contents import Fill
    from interpreter.memory import GLOBAL, POINTER_SLOTS, Memory, split

    memory = Memory()
    table = memory.regions[memory.add_pointer_table("rows", 2, Fill("small", 3))]
    table.ensure(16, np.array([0, 8]), 8)  # slots 0 and 1 (and the rest of their chunk)
    first, second = table.data.view("<i8")[:2]
    spaces, regions, offsets = split(np.array([first, second], dtype=np.int64))
    assert list(spaces) == [GLOBAL, GLOBAL] and regions[0] != regions[1] and list(offsets) == [0, 0]
    inner = memory.regions[int(regions[0])]
    assert inner.pointees is not None and inner.name == "rows[0]"  # a second level of pointers
    end = (POINTER_SLOTS + 1) * 8
    table.ensure(end, np.array([POINTER_SLOTS * 8]), 8)
    past = table.data.view("<i8")[POINTER_SLOTS]
    _, faults, _ = memory.locate(np.array([past]), 4, 4, np.zeros(1, np.int64), np.zeros(1, np.int64), False)
    assert faults.kinds == ["buffer-limit"]  # not a null pointer of the kernel's


def test_a_buffer_of_no_given_size_grows_to_its_limit_and_never_starts_later():
    """Past the bytes a paged buffer may grow to is the launch being too large
    (buffer-limit); an index below its start is out of bounds, though the address lands in
    the buffer before it."""
    from interpreter.memory import DEFAULT_GROWTH_LIMIT, GLOBAL, Memory

    memory = Memory()
    memory.add_region("first", GLOBAL)
    start = memory.region_address(memory.add_region("second", GLOBAL))
    lanes = np.zeros(3, np.int64)
    addresses = np.array([start + 64, start + DEFAULT_GROWTH_LIMIT, start - 4], dtype=np.int64)
    _, faults, _ = memory.locate(addresses, 4, 4, lanes, np.arange(3), False)
    assert list(faults.lanes) == [1, 2] and faults.kinds == ["buffer-limit", "out-of-bounds"]


def test_an_access_is_misaligned_for_its_size_not_for_the_alignment_the_ir_claims():
    """CUB's scan loads an int with `align 32` from 16 bytes into its shared storage: clang's
    claim is wrong, the hardware needs 4 (the cuda-samples' lineOfSight faulted on it)."""
    from interpreter.memory import GLOBAL, Memory

    memory = Memory()
    start = memory.region_address(memory.add_region("words", GLOBAL, np.zeros(64, np.uint8)))
    addresses = np.array([start + 16, start + 18, start + 8], dtype=np.int64)
    lanes = np.zeros(3, np.int64)
    _, faults, _ = memory.locate(addresses[:2], 4, 32, lanes[:2], np.arange(2), False)
    assert list(faults.lanes) == [1] and faults.kinds == ["misaligned"]  # 18 is not a multiple of 4
    _, faults, _ = memory.locate(addresses[2:], 16, 16, lanes[:1], np.arange(1), False)
    assert faults.kinds == ["misaligned"]  # a 16-byte vector needs 16


OVERFLOWS = """
__global__ void overflows(const long long *a, const long long *b, const int *c, const int *d, int *flags,
                          long long *products) {
    int i = threadIdx.x;
    long long product;
    unsigned int sum;
    int difference;
    flags[4 * i] = __builtin_mul_overflow(a[i], b[i], &product);
    flags[4 * i + 1] = __builtin_add_overflow((unsigned int)c[i], (unsigned int)d[i], &sum);
    flags[4 * i + 2] = __builtin_sub_overflow(c[i], d[i], &difference);
    unsigned long long unsigned_product;
    flags[4 * i + 3] = __builtin_mul_overflow((unsigned long long)a[i], (unsigned long long)b[i], &unsigned_product);
    products[i] = product;
}
"""


def test_arithmetic_with_overflow_flags_as_cuda_computes_them(tmp_path):
    loaded, kernel = written(tmp_path, "overflows.cu", OVERFLOWS, "overflows")
    big, low = np.iinfo(np.int64).max, np.iinfo(np.int64).min
    a = np.array([3, big, low, -1, 1 << 32, -(1 << 31), 0, 7], dtype=np.int64)
    b = np.array([4, 2, -1, low, 1 << 31, 1 << 32, big, -9], dtype=np.int64)
    c = np.array([1, -1, np.iinfo(np.int32).min, 5, 2**31 - 1, 0, -7, 100], dtype=np.int32)
    d = np.array([2, 1, 1, -2**31, -1, 0, 7, -100], dtype=np.int32)
    result = execute(loaded, kernel, Launch(1, 8, dict(a=a, b=b, c=c, d=d, flags=np.zeros(32, np.int32),
                                                       products=np.zeros(8, np.int64))))
    flags = result.buffers["flags"].reshape(8, 4)
    mask32, mask64 = (1 << 32) - 1, (1 << 64) - 1
    for i in range(8):
        x, y, u, v = int(a[i]), int(b[i]), int(c[i]), int(d[i])
        assert flags[i, 0] == (not low <= x * y <= big)
        assert flags[i, 1] == ((u & mask32) + (v & mask32) > mask32)
        assert flags[i, 2] == (not -2**31 <= u - v < 2**31)
        assert flags[i, 3] == ((x & mask64) * (y & mask64) > mask64)
        assert result.buffers["products"][i] == ((x * y + (1 << 63)) & mask64) - (1 << 63)


def test_a_paged_buffer_grown_far_keeps_its_bytes_their_taint_and_its_fill():
    """A paged, filled buffer touched near its start and then 64 MB on (a sampled grid's far
    blocks) grows to hold it: the bytes written keep their values and taint, the far bytes
    are the fill's, and bytes touched only after the growth hold what its content depends on."""
    from interpreter.contents import Fill
    from interpreter.memory import GLOBAL, RESERVE, Memory

    memory = Memory()
    invented, stored = 1 << 3, 1 << 5
    fill = Fill("small", 7, "int32")
    number = memory.add_region("weights", GLOBAL, fill=fill, taint=invented)
    start = memory.region_address(number)

    def at(offset: int, write: bool = False) -> list:
        _, faults, resolved = memory.locate(np.array([start + offset], np.int64), 4, 4, np.zeros(1, np.int64),
                                            np.arange(1), write)
        assert not faults.kinds
        return resolved

    def value(offset: int) -> int:
        return int(memory.read_bytes(at(offset), 1, 4, 4).view(np.int32)[0, 0])

    near = at(64, write=True)
    memory.write_bytes(near, np.array([[1, 2, 3, 4]], np.uint8), 4, 4)
    memory.write_taint(near, stored, 4)
    far = 4 * RESERVE
    assert value(far) == fill.values(np.array([far // 4]))[0] and value(far + 4096) == fill.values(
        np.array([(far + 4096) // 4]))[0]
    assert len(memory.regions[number].data) > far
    assert value(64) == int(np.array([1, 2, 3, 4], np.uint8).view(np.int32)[0])
    assert memory.read_taint(at(64), 1, 4) == stored
    assert memory.read_taint(at(far + 64), 1, 4) == memory.read_taint(at(128), 1, 4) == invented


@given(st.lists(st.tuples(st.integers(1, 6), st.sampled_from(["array", "int", "negative", "scalar", "0-d"])),
                max_size=12))
@settings(max_examples=150, deadline=None)
def test_a_trace_column_joins_its_chunks_in_order_whatever_each_holds(chunks):
    """Trace columns joined from the recorder's entries (a value per record, or one for
    all: a Python int, a NumPy scalar, a 0-d array, negative ones wrapped as astype wraps)
    are the records in order, in the column's dtype."""
    from interpreter.trace import COLUMNS, Trace

    entries, expected = [], {"offset": [], "taint": [], "kind": []}
    for number, (count, form) in enumerate(chunks):
        value = {"array": np.arange(count) + number, "int": number * 1000, "negative": -number - 1,
                 "scalar": np.int32(number), "0-d": np.asarray(number * 7)}[form]
        entries.append((count, {"offset": value, "taint": value, "kind": value}))
        for name in expected:
            expected[name].append(np.broadcast_to(np.asarray(value).astype(COLUMNS[name]), (count,)))
    trace = Trace(entries, [], sum(count for count, _ in chunks))
    for name, parts in expected.items():
        joined = np.concatenate(parts) if parts else np.zeros(0, COLUMNS[name])
        assert trace[name].dtype == COLUMNS[name] and trace[name].tolist() == joined.tolist()
