"""The CUDA front end: what our headers compile to, what the passes keep, errors, caching."""

import shutil

import pytest

from conftest import ANNOTATED, ERRORS, KERNELS, calls, kernel_ops, program
from interpreter.decode import Address
from interpreter.irparse import ConstInt


INTEGER_OPS = {"add": int.__add__, "sub": int.__sub__, "shl": int.__lshift__, "or": int.__or__, "and": int.__and__}


def constant_args(path, op):
    """The values of an op's operands that are integer constants or integer arithmetic on
    constants (no pass folds those: the inlined header code computes them), else None."""
    loaded = program(path)
    function = loaded.function(loaded.kernels[0].symbol)
    definitions = {o.result: o for o in function.ops if o.result >= 0}

    def evaluate(slot):
        constant = function.constants.get(slot)
        if isinstance(constant, ConstInt):
            return constant.value
        definition = definitions.get(slot)
        if definition is None or definition.opcode not in INTEGER_OPS:
            return None
        left, right = (evaluate(a) for a in definition.args)
        return None if left is None or right is None else INTEGER_OPS[definition.opcode](left, right)

    return [evaluate(a) for a in op.args]


# ---------------------------------------------------------------------------- passes


def test_dead_and_overwritten_stores_survive():
    ops = kernel_ops(KERNELS / "dead_stores.cu")
    function = program(KERNELS / "dead_stores.cu").function("_Z11dead_storesPi")
    stores = [op for op in ops if op.opcode == "store"]
    assert [op.location.line for op in stores] == [9, 10, 11]
    # the first goes to the shared array nobody reads (through a getelementptr of it)
    shared_geps = [op for op in ops if op.opcode == "getelementptr"
                   and isinstance(function.constants.get(op.args[0]), Address)
                   and function.constants[op.args[0]].name.endswith("never_read")]
    assert shared_geps and stores[0].args[1] == shared_geps[0].result
    # both stores to out[0] remain, the overwritten one included
    assert stores[1].args[0] != stores[2].args[0]


def test_device_functions_are_inlined_except_recursive_ones():
    names = calls(kernel_ops(KERNELS / "device_functions.cu"))
    assert "_Z9fibonaccii" in names
    assert not any("square" in name for name in names)
    fibonacci = program(KERNELS / "device_functions.cu").function("_Z9fibonaccii")
    assert "_Z9fibonaccii" in fibonacci.callees


def test_header_helpers_leave_no_calls_behind():
    """Everything our headers define is inlined: kernels call only intrinsics."""
    for path in KERNELS.glob("*.cu"):
        for kernel in program(path).kernels:
            for name in calls(program(path).function(kernel.symbol).ops):
                assert name.startswith(("llvm.", "__nv_", "__simulee_", "_Z9fibonaccii", "_Z4dampf", "vprintf",
                                        "malloc", "free", "memcpy", "memset", "__assert_fail")), (path.name, name)


# ---------------------------------------------------------------------------- headers


def test_shuffles_encode_mode_and_width():
    path = KERNELS / "shuffle.cu"
    ops = kernel_ops(path)
    shuffles = [(op.extra["callee"], constant_args(path, op)[3]) for op in ops
                if op.opcode == "call" and op.extra["callee"].startswith("llvm.nvvm.shfl.sync")]
    # clamp operand: (32 - width) << 8, | 0x1f except for shfl.up
    assert ("llvm.nvvm.shfl.sync.idx.i32", 0x1F) in shuffles
    assert ("llvm.nvvm.shfl.sync.up.i32", 0) in shuffles
    assert ("llvm.nvvm.shfl.sync.down.i32", (16 << 8) | 0x1F) in shuffles
    assert ("llvm.nvvm.shfl.sync.bfly.i32", (24 << 8) | 0x1F) in shuffles
    assert ("llvm.nvvm.shfl.sync.bfly.f32", 0x1F) in shuffles
    assert ("llvm.nvvm.shfl.sync.up.f32", 0) in shuffles
    # 64-bit values go as two 32-bit halves; legacy forms take the active mask
    names = calls(ops)
    assert names.count("llvm.nvvm.shfl.sync.idx.i32") >= 1 + 2 + 1
    assert names.count("llvm.nvvm.activemask") == 4


def test_votes_and_matches():
    names = set(calls(kernel_ops(KERNELS / "vote.cu")))
    assert {"llvm.nvvm.activemask", "llvm.nvvm.vote.ballot.sync", "llvm.nvvm.vote.any.sync",
            "llvm.nvvm.vote.all.sync", "llvm.nvvm.vote.uni.sync", "llvm.nvvm.match.any.sync.i32",
            "llvm.nvvm.match.all.sync.i32p", "llvm.nvvm.bar.warp.sync"} <= names


def test_integer_atomics_are_read_modify_writes():
    ops = kernel_ops(KERNELS / "atomics_int.cu")
    rmw = {(op.extra["operation"], str(op.type)) for op in ops if op.opcode == "atomicrmw"}
    assert {("add", "i32"), ("xchg", "i32"), ("min", "i32"), ("max", "i32"), ("and", "i32"), ("or", "i32"),
            ("xor", "i32"), ("uinc_wrap", "i32"), ("udec_wrap", "i32"), ("umin", "i32"), ("add", "i64"),
            ("xchg", "i64"), ("umax", "i64"), ("and", "i64"), ("min", "i64")} <= rmw
    cas = sorted(str(op.arg_types[1]) for op in ops if op.opcode == "cmpxchg")
    assert cas == ["i16", "i32", "i32", "i64"]
    assert all(op.extra["orderings"] == ["seq_cst"] for op in ops if op.opcode == "atomicrmw")


def test_float_and_scoped_atomics():
    ops = kernel_ops(KERNELS / "atomics_float.cu")
    rmw = {(op.extra["operation"], str(op.type)) for op in ops if op.opcode == "atomicrmw"}
    assert {("fadd", "float"), ("fadd", "double"), ("xchg", "i32")} <= rmw
    names = calls(ops)
    assert "llvm.nvvm.atomic.add.gen.i.cta.i32.p0" in names
    assert "llvm.nvvm.atomic.add.gen.i.sys.i32.p0" in names
    assert "llvm.nvvm.atomic.exch.gen.i.cta.i32.p0" in names
    assert "llvm.nvvm.atomic.cas.gen.i.sys.i32.p0" in names
    assert "llvm.nvvm.atomic.max.gen.i.cta.i32.p0" in names


def test_barriers_and_fences():
    names = calls(kernel_ops(KERNELS / "barriers.cu"))
    assert names.count("llvm.nvvm.barrier.cta.sync.aligned.all") == 1
    for name in ("llvm.nvvm.barrier.cta.red.popc.aligned.all", "llvm.nvvm.barrier.cta.red.and.aligned.all",
                 "llvm.nvvm.barrier.cta.red.or.aligned.all", "llvm.nvvm.membar.cta", "llvm.nvvm.membar.gl",
                 "llvm.nvvm.membar.sys"):
        assert name in names


def test_math_goes_to_libdevice_names():
    names = set(calls(kernel_ops(KERNELS / "math_float.cu")))
    assert {"__nv_sqrtf", "__nv_rsqrtf", "__nv_expf", "__nv_logf", "__nv_powf", "__nv_sinf", "__nv_cosf",
            "__nv_fabsf", "__nv_floorf", "__nv_fminf", "__nv_fmaf", "__nv_atan2f", "__nv_erff", "__nv_sincosf",
            "__nv_isnanf", "__nv_isinff", "__nv_finitef", "__nv_signbitf", "llvm.nvvm.saturate.f"} <= names
    double_names = set(calls(kernel_ops(KERNELS / "math_double.cu")))
    assert {"__nv_sqrt", "__nv_rsqrt", "__nv_pow", "__nv_fma", "__nv_isnand", "__nv_llrint"} <= double_names
    assert not any(name.endswith("f") and name.startswith("__nv_") for name in double_names - {"__nv_erf"})


def test_std_math_in_device_code_uses_device_overloads():
    names = set(calls(kernel_ops(KERNELS / "cpp_library.cu")))
    assert {"__nv_sqrtf", "__nv_fabsf"} <= names


def test_half_precision_is_real_half_arithmetic():
    ops = kernel_ops(KERNELS / "half.cu")
    assert any(op.opcode == "fptrunc" and str(op.type) == "half" for op in ops)
    assert any(op.opcode == "fpext" and str(op.arg_types[0]) == "half" for op in ops)
    # NVIDIA's cuda_fp16.h adds, multiplies and subtracts in half; __hdiv divides in float
    assert {"fadd", "fmul", "fsub"} <= {op.opcode for op in ops if str(op.type) == "half"}
    assert any(op.opcode == "fdiv" and str(op.type) == "float" for op in ops)


def test_printf_assert_and_device_heap():
    names = calls(kernel_ops(KERNELS / "printf_assert.cu"))
    assert {"vprintf", "__assert_fail", "malloc", "free", "memcpy", "memset"} <= set(names)


def test_cooperative_groups():
    path = KERNELS / "cooperative_groups.cu"
    block_names = calls(kernel_ops(path, "block_and_tiles"))
    assert block_names.count("llvm.nvvm.barrier.cta.sync.aligned.all") == 2  # block.sync() and cg::sync(block)
    assert "llvm.nvvm.bar.warp.sync" in block_names  # quad.sync()
    assert "llvm.nvvm.shfl.sync.bfly.i32" in block_names  # reduce over the tile
    assert "llvm.nvvm.shfl.sync.down.i32" in block_names
    assert "llvm.nvvm.activemask" in block_names  # coalesced_threads()
    assert "__simulee_grid_sync" in calls(kernel_ops(path, "grid_sum"))


def test_textures_name_their_texture():
    path = KERNELS / "textures.cu"
    loaded = program(path)
    function = loaded.function(loaded.kernels[0].symbol)
    fetches = [op for op in function.ops if op.opcode == "call" and op.extra["callee"] == "__simulee_texture_fetch"]
    assert len(fetches) == 1
    texture = function.constants[fetches[0].args[0]]
    assert isinstance(texture, Address) and texture.name == "lookup"
    assert "__simulee_texture_object_fetch" in calls(function.ops)


def test_index_variables_read_special_registers():
    names = calls(kernel_ops(KERNELS / "index_3d.cu"))
    for register in ("tid.x", "tid.y", "tid.z", "ctaid.z", "ntid.z", "nctaid.z"):
        assert f"llvm.nvvm.read.ptx.sreg.{register}" in names


def test_constant_and_managed_variables():
    loaded = program(KERNELS / "qualifiers.cu")
    coefficients = loaded.global_variable("coefficients")
    assert coefficients.addrspace == 4 and coefficients.constant
    import struct

    assert struct.unpack("<4f", coefficients.data) == (0.5, 0.25, 0.125, 0.0625)
    assert loaded.global_variable("device_counter").addrspace == 1
    assert loaded.global_variable("managed_total").addrspace == 1


# ---------------------------------------------------------------------------- annotations


def test_gpuverify_annotations_are_opt_in(run_cli):
    status, _, err = run_cli("kernels", ANNOTATED / "requires.cu")
    assert status == 2 and "use of undeclared identifier '__requires'" in err
    status, out, err = run_cli("kernels", ANNOTATED / "requires.cu", "--gpuverify-annotations")
    assert status == 0, err
    assert "scaled_copy(float *out, const float *in, int n, int scale)" in out


def test_gpuverify_preconditions_become_assumptions():
    loaded = program(ANNOTATED / "requires.cu", gpuverify_annotations=True)
    ops = loaded.function(loaded.kernels[0].symbol).ops
    assumptions = [op for op in ops if op.opcode == "call" and op.extra["callee"] == "__simulee_assume"]
    assert [op.location.line for op in assumptions] == [7, 8, 9]
    # invariants and asserts are proof obligations: no code at all
    assert not any("assert" in name or "invariant" in name for name in calls(ops))


def test_faial_assume_needs_no_flag():
    loaded = program(ANNOTATED / "assume.cu")
    assert "__simulee_assume" in calls(loaded.function(loaded.kernels[0].symbol).ops)


# ---------------------------------------------------------------------------- inputs and errors


def test_syntax_error_shows_clangs_diagnostic(run_cli, monkeypatch):
    monkeypatch.chdir(ERRORS.parent.parent)
    status, out, err = run_cli("kernels", "tests/errors/syntax_error.cu")
    assert status == 2 and out == ""
    assert err == ("simulee: error: tests/errors/syntax_error.cu:6:24: expected ';' at end of declaration "
                   "(and 1 more error)\n")
    # the full diagnostics stay available to callers
    from simulee.errors import CompileError
    from simulee.frontend import load_ir

    with pytest.raises(CompileError) as raised:
        load_ir(ERRORS / "syntax_error.cu")
    assert "use of undeclared identifier 'undefined_name'" in raised.value.diagnostics


def test_a_missing_header_is_stood_in_for_with_one_warning(run_cli):
    status, out, err = run_cli("kernels", ERRORS / "missing_header.cu")
    assert status == 0 and "k(int *p)" in out
    assert err.startswith("simulee: warning: ") and len(err.strip().splitlines()) == 1
    assert err.strip().endswith("missing_header.cu: compiled without what it needs: missing: helpers/none.cuh")


@pytest.mark.parametrize(
    "args, message",
    [
        (["kernels", "no/such/file.cu"], "no such file or folder: no/such/file.cu"),
        (["compile", "no/such/file.cu"], "no such file: no/such/file.cu"),
        (["kernels", ERRORS / "not_cuda.txt"], "not a CUDA source (.cu, .cuh) or LLVM IR file (.ll, .bc)"),
        (["kernels", ERRORS / "no_kernels.cu"], "no_kernels.cu: no __global__ kernel found"),
        (["kernels", ERRORS / "broken.ll"], "broken.ll: invalid LLVM IR:"),
        (["kernels", KERNELS / "saxpy.cu", "-D", "=1"], "malformed -D option: '=1'"),
        (["kernels", KERNELS / "saxpy.cu", "-I", "no/such/folder"], "-I no/such/folder: no such folder"),
        (["kernels", KERNELS / "saxpy.cu", "--clang", "/no/such/clang"], "clang not found: /no/such/clang"),
        (["kernels", KERNELS / "saxpy.cu", "--format", "xml"], "invalid choice: 'xml'"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
    ],
)
def test_bad_input_is_one_line_and_status_2(run_cli, args, message):
    status, out, err = run_cli(*args)
    assert status == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err


def test_a_folder_with_a_broken_file_lists_the_rest(run_cli, tmp_path):
    (tmp_path / "good.cu").write_text((KERNELS / "saxpy.cu").read_text())
    (tmp_path / "bad.cu").write_text((ERRORS / "syntax_error.cu").read_text())
    status, out, err = run_cli("kernels", tmp_path)
    assert status == 2
    assert "saxpy(int n" in out
    assert "bad.cu:6:24: expected ';'" in err and "1 kernels in 1 files; 1 files failed" in err


def test_ll_and_bc_inputs_are_used_as_they_are(run_cli, tmp_path):
    import llvmlite.binding as llvm

    from conftest import IR_FILES

    source = IR_FILES / "annotated_kernel.ll"
    bitcode = tmp_path / "annotated_kernel.bc"
    bitcode.write_bytes(llvm.parse_assembly(source.read_text()).as_bitcode())
    for path in (source, bitcode):
        status, out, err = run_cli("kernels", path)
        assert status == 0, err
        assert "scale_rows(ptr matrix, float factor, i32 width)" in out
        assert "reads threadIdx.x blockIdx.y; shared 512 B" in out


def test_compile_writes_the_interpreted_ir(run_cli, tmp_path):
    out_file = tmp_path / "saxpy.ll"
    status, _, err = run_cli("compile", KERNELS / "saxpy.cu", "-o", out_file)
    assert status == 0, err
    text = out_file.read_text()
    assert "define dso_local ptx_kernel void @_Z5saxpyifPKfPf(" in text
    assert "alloca" not in text  # SROA promoted the locals
    status, out, _ = run_cli("kernels", out_file)
    assert status == 0 and "saxpy(int n, float a, const float *x, float *y)" in out


def test_defines_and_include_folders(run_cli, tmp_path):
    headers = tmp_path / "headers"
    headers.mkdir()
    (headers / "width.h").write_text("#define WIDTH 48\n")
    source = tmp_path / "sized.cu"
    source.write_text('#include "width.h"\n'
                      "__global__ void sized(float *x) { __shared__ float tile[WIDTH * FACTOR]; "
                      "tile[threadIdx.x] = 1; x[0] = tile[0]; }\n")
    status, out, err = run_cli("kernels", source, "-I", headers, "-D", "FACTOR=2")
    assert status == 0, err
    assert "shared 384 B" in out
    status, _, err = run_cli("kernels", source, "-I", headers)
    assert status == 2 and "use of undeclared identifier 'FACTOR'" in err


def test_cuh_files_compile_directly(run_cli, tmp_path):
    header = tmp_path / "kernel.cuh"
    header.write_text("#pragma once\n__global__ void from_header(int *p) { p[threadIdx.x] = 1; }\n")
    status, out, err = run_cli("kernels", header)
    assert status == 0, err
    assert "from_header(int *p)" in out


# ---------------------------------------------------------------------------- cache


def test_cache_reuses_rebuilds_and_distrusts(tmp_path, monkeypatch):
    from simulee import frontend
    from simulee.cache import IRCache

    source = tmp_path / "k.cu"
    header = tmp_path / "k.cuh"
    header.write_text("#define VALUE 1\n")
    source.write_text('#include "k.cuh"\n__global__ void k(int *p) { p[0] = VALUE; }\n')
    cache = IRCache(tmp_path / "cache")
    compiles = []
    real_run = frontend.run_compiler

    def counting_run(command, *args, **kwargs):
        compiles.append(command)
        return real_run(command, *args, **kwargs)

    monkeypatch.setattr(frontend, "run_compiler", counting_run)
    first = frontend.compile_cuda(source, frontend.CompileOptions(), cache)
    assert frontend.compile_cuda(source, frontend.CompileOptions(), cache) == first
    assert len(compiles) == 1  # the second compile was a cache hit

    header.write_text("#define VALUE 2\n")  # an included header changed: recompile
    second = frontend.compile_cuda(source, frontend.CompileOptions(), cache)
    assert len(compiles) == 2 and "store i32 2" in second

    frontend.compile_cuda(source, frontend.CompileOptions(defines=("X=1",)), cache)
    assert len(compiles) == 3  # different flags, different entry

    for stored in (tmp_path / "cache").rglob("*.ll"):  # corrupt every stored IR
        stored.write_text("garbage")
    assert frontend.compile_cuda(source, frontend.CompileOptions(), cache) == second
    assert len(compiles) == 4
    for manifest in (tmp_path / "cache").rglob("*.json"):
        manifest.write_text("{not json")
    assert frontend.compile_cuda(source, frontend.CompileOptions(), cache) == second
    assert len(compiles) == 5


def test_unwritable_cache_is_not_an_error(tmp_path):
    from simulee import frontend
    from simulee.cache import IRCache

    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    ir = frontend.compile_cuda(KERNELS / "saxpy.cu", frontend.CompileOptions(), IRCache(blocker))
    assert "@_Z5saxpyifPKfPf" in ir


def test_ziglang_clang_is_used_with_bundled_libraries():
    from simulee.frontend import CompileOptions, clang_arguments, find_clang

    clang = find_clang()
    assert clang.bundled and clang.command[-1] == "clang" and clang.version.startswith("ziglang ")
    arguments = clang_arguments(clang, KERNELS / "saxpy.cu", CompileOptions())
    assert "-nostdinc" in arguments and "--cuda-gpu-arch=sm_70" in arguments
    assert not any(a.startswith("/usr") for a in arguments)


@pytest.mark.skipif(shutil.which("clang-19") is None, reason="needs a distribution clang-19 (apt install clang-19)")
def test_a_distribution_clang_lists_the_same_kernels(run_cli):
    """Our headers work with another clang too: same kernels, parameters, reads, shared sizes."""
    status, bundled, _ = run_cli("kernels", KERNELS, "--format", "json")
    assert status == 0
    status, distribution, err = run_cli("kernels", KERNELS, "--format", "json", "--clang", "clang-19")
    assert status == 0, err
    assert distribution == bundled
