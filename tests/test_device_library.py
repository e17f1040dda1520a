"""NVIDIA's device code made interpretable: inline PTX lifted to IR (each instruction's
result against NumPy, races and barriers in PTX seen by the checker, what cannot be lifted
reported, not crashed on) and libdevice linked."""

import re

import numpy as np
import pytest

from conftest import KERNELS, program
from interpreter.launch import Launch
from interpreter.simt import execute
from simulee.frontend import ptx
from simulee.checker.kernel import check_kernel, default_launch
from simulee.frontend.compiler import load_ir

RNG = np.random.default_rng(7)
N = 64


def run(kernel: str, block: int = N, **args):
    result = execute(program(KERNELS / "inline_ptx.cu"), kernel, Launch(1, block, args))
    assert result.status == "ok", result.message
    assert result.events.faults == []
    return result


def test_64_bit_carries_without_128_bit_integers():
    """The interpreter has no 128-bit integers: a lifted 64-bit add or sub would stop the launch."""
    a = RNG.integers(0, 2**63, N, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    b = RNG.integers(0, 2**63, N, dtype=np.uint64)
    a[0], b[0] = 2**64 - 1, 1  # a carry out
    a[1], b[1] = 0, 5  # a borrow
    out = run("wide_ops", a=a, b=b, out=np.zeros(N * 4, np.uint64)).buffers["out"].reshape(N, 4)
    for k in range(N):
        x, y = int(a[k]), int(b[k])
        carry, borrow = (x + y) >> 64, int(x < y)
        assert int(out[k, 0]) == (x + y) % 2**64 and int(out[k, 1]) == (x + y + carry) % 2**64
        assert int(out[k, 2]) == (x - y - borrow) % 2**64
        assert int(out[k, 3]) == ((x + y) % 2**64 if x else 0)


def test_integer_instructions():
    a = RNG.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    b = RNG.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    a[0], b[0] = 0xFFFFFFFF, 1  # the carry out of the low half
    b[1] = 0  # bfind of zero
    out = run("int_ops", a=a, b=b, out=np.zeros(N * 16, np.uint32)).buffers["out"].reshape(N, 16)
    x, y, i = a.astype(np.uint64), b.astype(np.uint64), np.arange(N, dtype=np.uint64)
    mask = np.uint64(0xFFFFFFFF)
    np.testing.assert_array_equal(out[:, 0], (x + y) & mask)
    np.testing.assert_array_equal(out[:, 1], (x + y + ((x + y) >> np.uint64(32))) & mask)  # x + y + carry
    product = x * y
    np.testing.assert_array_equal(out[:, 2], product >> np.uint64(32))
    np.testing.assert_array_equal(out[:, 3], product >> np.uint64(32))
    np.testing.assert_array_equal(out[:, 4], (x * y + np.uint64(7)) & mask)
    np.testing.assert_array_equal(out[:, 5], (x >> np.uint64(4)) & np.uint64(0xFF))
    top = (x >> np.uint64(28)).astype(np.int64)
    np.testing.assert_array_equal(out[:, 6].view(np.int32), np.where(top >= 8, top - 16, top))
    np.testing.assert_array_equal(out[:, 7], (x & ~np.uint64(0xF00)) | ((y & np.uint64(0xF)) << np.uint64(8)))
    for row in range(4):
        xb, yb = int(a[row]).to_bytes(4, "little"), int(b[row]).to_bytes(4, "little")
        pool = xb + yb
        want = bytes(pool[(0x5140 >> (4 * k)) & 7] for k in range(4))
        assert int(out[row, 8]) == int.from_bytes(want, "little")
    np.testing.assert_array_equal(out[:, 9], x ^ y ^ i)
    rotated = [((int(a[k]) << 32 | int(b[k])) << (k & 31)) >> 32 & 0xFFFFFFFF for k in range(N)]
    np.testing.assert_array_equal(out[:, 10], rotated)
    np.testing.assert_array_equal(out[:, 11], [bin(int(v)).count("1") for v in a])
    clz = [32 - int(v).bit_length() for v in a]
    np.testing.assert_array_equal(out[:, 12], [int(f"{c:032b}"[::-1], 2) for c in clz])
    np.testing.assert_array_equal(out[:, 13], [int(v).bit_length() - 1 if v else 0xFFFFFFFF for v in b])
    np.testing.assert_array_equal(out[:, 14], [(int(a[k]) << (k + 20)) & 0xFFFFFFFF if k + 20 < 32 else 0
                                               for k in range(N)])
    np.testing.assert_array_equal(out[:, 15], out[:, 11])


def test_float_instructions():
    x = (RNG.standard_normal(N) * 4).astype(np.float32)
    x[:4] = [0.5, 1.5, -2.5, 0.25]
    out = run("float_ops", x=x, out=np.zeros(N * 8, np.float32)).buffers["out"].reshape(N, 8)
    wide = x.astype(np.float64)
    np.testing.assert_array_equal(out[:, 0], (wide * wide + 1).astype(np.float32))  # fused: one rounding
    np.testing.assert_array_equal(out[:, 1], np.rint(x))
    np.testing.assert_array_equal(out[:, 2], np.trunc(x))
    np.testing.assert_array_equal(out[:, 3], np.clip(x, 0, 1))
    np.testing.assert_array_equal(out[:, 4], np.sqrt(np.abs(x)))
    np.testing.assert_array_equal(out[:, 5], np.maximum(x, 2))
    np.testing.assert_array_equal(out[:, 6], -x)
    np.testing.assert_array_equal(out[:, 7], x * 2)


def test_memory_instructions_and_shared_windows():
    data = RNG.integers(-1000, 1000, N + 1).astype(np.int32)
    result = run("memory_ops", **{"in": data, "out": np.zeros(2 * N, np.int32), "counter": np.zeros(2, np.int32)})
    values = data[1:]
    out = result.buffers["out"].reshape(N, 2)
    np.testing.assert_array_equal(out[:, 0], values)
    np.testing.assert_array_equal(out[:, 1], np.roll(values, -1))
    np.testing.assert_array_equal(result.buffers["counter"], [N, max(0, values.max())])


def test_a_race_through_ptx_shared_accesses_is_found_and_bar_sync_orders_it():
    def findings(sync):
        loaded = program(KERNELS / "inline_ptx.cu")
        info = loaded.kernel("shared_race")
        launch = default_launch(info, {"out": np.zeros(N, np.int32), "sync": sync}, (1, 1, 1), (N, 1, 1))
        return [f for f in check_kernel(loaded, info, [launch]).findings if f.severity == "error"]

    racy = findings(0)
    assert racy and all(f.type == "data-race" for f in racy)
    assert findings(1) == []


def test_warp_instructions():
    data = RNG.integers(0, 100, N).astype(np.int32)
    out = run("warp_ops", **{"in": data, "out": np.zeros(3 * N, np.int32)}).buffers["out"].reshape(N, 3)
    np.testing.assert_array_equal(out[:, 0], data[np.arange(N) ^ 1])
    for warp in range(N // 32):
        bits = sum(1 << lane for lane in range(32) if data[warp * 32 + lane] > 50)
        assert set(out[warp * 32:(warp + 1) * 32, 1].view(np.uint32)) == {bits}
    np.testing.assert_array_equal(out[:, 2], np.arange(N) % 32)


def test_asynchronous_copy():
    data = RNG.integers(-50, 50, (N, 4)).astype(np.int32)
    out = run("async_copy", **{"in": data, "out": np.zeros(N, np.int32)}).buffers["out"]
    np.testing.assert_array_equal(out, data[::-1].sum(axis=1))


@pytest.mark.parametrize("text, constraints, types", [
    ("wmma.load.a.sync.aligned.row.m16n16k16.f16 {$0}, [$1];", "=r,l", ["ptr"]),
    ("mov.u32 $0, %dynamic_smem_size;", "=r", []),
    ("exit;", "", []),
    ("cvt.rn.satfinite.e2m1x2.f32 $0, $1, $2;", "=r,f,f", ["float", "float"]),  # FP4: not another type's
    ("cvt.rs.f16x2.f32 $0, $1, $2;", "=r,f,f", ["float", "float"]),  # stochastic rounding
])
def test_what_cannot_be_lifted_stays_inline_asm(text, constraints, types):
    ret = "i32" if constraints.startswith("=") else "void"
    arguments = ", ".join(f"{t} null" for t in types)
    call = f'  %1 = call {ret} asm sideeffect "{text}", "{constraints}"({arguments})' if ret != "void" else \
        f'  call void asm sideeffect "{text}", "{constraints}"()'
    ir = f"define void @f() {{\n{call}\n  ret void\n}}\n"
    assert ptx.lift_inline_asm(ir) == ir


def test_an_unlifted_statement_is_reported_when_reached():
    ir = ('target triple = "nvptx64-nvidia-cuda"\n'
          'define void @k(ptr %out) {\n'
          '  %v = call i32 asm sideeffect "mov.u32 $0, %dynamic_smem_size;", "=r"()\n'
          '  store i32 %v, ptr %out\n  ret void\n}\n'
          '!nvvm.annotations = !{!0}\n!0 = !{ptr @k, !"kernel", i32 1}\n')
    from interpreter.loader import load_module

    result = execute(load_module(ir, "k.ll"), "k", Launch(1, 32, {"out": np.zeros(1, np.int32)}))
    assert result.status == "unsupported" and "asm" in result.message


def test_libdevice_defines_what_the_interpreter_does_not_implement():
    ir = load_ir(KERNELS / "libdevice.cu")
    assert not re.search(r"^declare .*@__nv_bswap(32|64)\(", ir, re.M)
    words = RNG.integers(0, 2**32, N, dtype=np.uint64).astype(np.uint32)
    result = execute(program(KERNELS / "libdevice.cu"), "byte_swaps",
                     Launch(1, N, {"in": words, "out32": np.zeros(N, np.uint32), "out64": np.zeros(N, np.uint64)}))
    assert result.status == "ok", result.message
    np.testing.assert_array_equal(result.buffers["out32"], words.byteswap())
    joined = (words.astype(np.uint64) << np.uint64(32)) | np.arange(N, dtype=np.uint64)
    np.testing.assert_array_equal(result.buffers["out64"], joined.byteswap())


def test_new_and_delete_in_device_code():
    result = execute(program(KERNELS / "device_new.cu"), "construct", Launch(1, N, {"out": np.zeros(N, np.int32)}))
    assert result.status == "ok", result.message
    assert result.events.faults == []
    np.testing.assert_array_equal(result.buffers["out"], 2 * np.arange(N) + 1)
