"""The CUDA front end: what the passes keep, annotations, errors, caching. (What our headers
compile to is tested by running it: test_interpreter.)"""

import json
import shutil
import subprocess

import pytest

from conftest import ANNOTATED, ERRORS, KERNELS, after, calls, kernel_ops, line_of, lines_of, program
from interpreter.decode import Address


# ---------------------------------------------------------------------------- passes


def test_dead_and_overwritten_stores_survive():
    ops = kernel_ops(KERNELS / "dead_stores.cu")
    function = program(KERNELS / "dead_stores.cu").function("_Z11dead_storesPi")
    stores = [op for op in ops if op.opcode == "store"]
    source = KERNELS / "dead_stores.cu"
    assert [op.location.line for op in stores] == [line_of(source, text) for text in
                                                   ("never_read[threadIdx.x] = 42", "out[0] = threadIdx", "out[0] = 7")]
    # the first goes to the shared array nobody reads (through a getelementptr of it)
    shared_geps = [op for op in ops if op.opcode == "getelementptr"
                   and isinstance(function.constants.get(op.args[0]), Address)
                   and function.constants[op.args[0]].name.endswith("never_read")]
    assert shared_geps and stores[0].args[1] == shared_geps[0].result
    # both stores to out[0] remain, the overwritten one included
    assert stores[1].args[0] != stores[2].args[0]


# ---------------------------------------------------------------------------- headers


def test_textures_name_their_texture():
    path = KERNELS / "textures.cu"
    loaded = program(path)
    function = loaded.function(loaded.kernels[0].symbol)
    fetches = [op for op in function.ops if op.opcode == "call" and op.extra["callee"] == "__simulee_texture_fetch"]
    assert len(fetches) == 1
    texture = function.constants[fetches[0].args[0]]
    assert isinstance(texture, Address) and texture.name == "lookup"
    assert "__simulee_texture_object_fetch" in calls(function.ops)


def test_constant_and_managed_variables():
    loaded = program(KERNELS / "qualifiers.cu")
    coefficients = loaded.global_variable("coefficients")
    assert coefficients.addrspace == 4 and coefficients.constant
    import struct

    assert struct.unpack("<4f", coefficients.data) == (0.5, 0.25, 0.125, 0.0625)
    assert loaded.global_variable("device_counter").addrspace == 1
    assert loaded.global_variable("managed_total").addrspace == 1


# ---------------------------------------------------------------------------- annotations


def test_a_source_using_gpuverify_annotations_bare_is_compiled_with_them_and_says_so(run_cli, tmp_path):
    for flags in ((), ("--gpuverify-annotations",)):
        status, out, err = run_cli("kernels", ANNOTATED / "requires.cu", *flags)
        assert status == 0, err
        assert "scaled_copy(float *out, const float *in, int n, int scale)" in out
        assert ("uses GPUVerify's annotations (__requires): compiled as with --gpuverify-annotations" in err) \
            == (not flags)
    own = tmp_path / "own.cu"  # a file that defines a macro of that name keeps its own
    own.write_text("#define __assume(x) do { if (!(x)) __builtin_unreachable(); } while (0)\n"
                   "__global__ void k(int *out, int n) { __assume(n > 0); out[threadIdx.x] = n; }\n")
    status, out, err = run_cli("kernels", own)
    assert status == 0 and "annotations" not in err, err


def test_gpuverify_preconditions_become_assumptions():
    loaded = program(ANNOTATED / "requires.cu", gpuverify_annotations=True)
    ops = loaded.function(loaded.kernels[0].symbol).ops
    assumptions = [op for op in ops if op.opcode == "call" and op.extra["callee"] == "__simulee_assume"]
    assert [op.location.line for op in assumptions] == lines_of(ANNOTATED / "requires.cu", "__requires(")
    # invariants and asserts are proof obligations: no code at all
    assert not any("assert" in name or "invariant" in name for name in calls(ops))


@pytest.mark.parametrize("one_thread", [False, True])
def test_a_thread_an_axiom_excludes_takes_no_part_in_the_launch(run_cli, one_thread):
    """annotated/axioms.cu: GPUVerify's `__axiom(blockIdx.x == 1)` leaves block 1 alone; its
    threads' stores to one word race (an error, and no proof), and block 0's store to its own
    word, which the axiom excludes, is not made (no race with it). With `__axiom(threadIdx.x
    == 0)` too, one thread is left: nothing races, and the prover proves it under the axioms."""
    source = ANNOTATED / "axioms.cu"
    flags = ("--launch", "2/64", "--format", "json") + (("-D", "ONE_THREAD") if one_thread else ())
    status, out, err = run_cli("check", source, *flags)
    assert status == (0 if one_thread else 1), err
    kernel = json.loads(out)["kernels"][0]
    races = {(f["type"], f["severity"], f["line"], f["second"]["line"]) for f in kernel["findings"]}
    store = line_of(source, "the store")
    assert races == (set() if one_thread else {("data-race", "error", store, store)})
    assert (kernel["verdict"] == "proved") == one_thread


@pytest.mark.parametrize("file, values", [("pinned_pitch.cu", {"pitch": 3072}), ("requires.cu", {}),
                                          ("assume.cu", {}), ("fixed_width.cu", {"width": 128})])
def test_an_assumption_equating_a_parameter_with_a_constant_states_its_value(file, values):
    """`__requires(pitch == 3072)` fixes pitch; `n > 0`, `__is_pow2(scale)` and a conjunction
    with a launch dimension (`blockDim.x == 256 && n >= 0`) fix no parameter."""
    from evolve.contract import stated_values

    loaded = program(ANNOTATED / file, gpuverify_annotations=True)
    kernel = loaded.kernels[0]
    assert stated_values(loaded.function(kernel.symbol), kernel.params) == values


def test_faial_assume_needs_no_flag():
    loaded = program(ANNOTATED / "assume.cu")
    assert "__simulee_assume" in calls(loaded.function(loaded.kernels[0].symbol).ops)


# ---------------------------------------------------------------------------- inputs and errors


def test_syntax_error_shows_clangs_diagnostic(run_cli, monkeypatch):
    monkeypatch.chdir(ERRORS.parent.parent)
    status, out, err = run_cli("kernels", "tests/errors/syntax_error.cu")
    assert status == 2 and out == ""
    missing = after(ERRORS / "syntax_error.cu", "doubled = data[i]")  # the semicolon
    assert err == (f"simulee: error: tests/errors/syntax_error.cu:{missing}: expected ';' at end of declaration "
                   "(and 1 more error)\n")
    # the full diagnostics stay available to callers
    from simulee.errors import CompileError
    from simulee.frontend.compiler import load_ir

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
    assert f"bad.cu:{after(ERRORS / 'syntax_error.cu', 'doubled = data[i]')}: expected ';'" in err
    assert "1 kernels in 1 files; 1 files failed" in err


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


def _counted_compiles(monkeypatch) -> list:
    """The commands the compiler is run with from now on (it still runs)."""
    from simulee.frontend import compiler as frontend

    compiles, real_run = [], frontend.run_compiler

    def counting_run(command, *args, **kwargs):
        compiles.append(command)
        return real_run(command, *args, **kwargs)

    monkeypatch.setattr(frontend, "run_compiler", counting_run)
    return compiles


def test_cache_reuses_rebuilds_and_distrusts(tmp_path, monkeypatch):
    from simulee.frontend import compiler as frontend
    from simulee.frontend.cache import IRCache

    source = tmp_path / "k.cu"
    header = tmp_path / "k.cuh"
    header.write_text("#define VALUE 1\n")
    source.write_text('#include "k.cuh"\n__global__ void k(int *p) { p[0] = VALUE; }\n')
    cache = IRCache(tmp_path / "cache")
    compiles = _counted_compiles(monkeypatch)
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


def test_a_failed_compile_is_cached_until_a_file_it_read_changes(tmp_path, monkeypatch):
    """A source that does not compile (its header lacks what it uses) fails again from the
    cache, with the same first error, without running the compiler; fixing the header
    compiles it. A compiler that was killed is not a failure kept."""
    from simulee.errors import CompileError
    from simulee.frontend import compiler as frontend
    from simulee.frontend.cache import IRCache

    source, header = tmp_path / "k.cu", tmp_path / "k.cuh"
    header.write_text("#define OTHER 1\n")
    source.write_text('#include "k.cuh"\n__global__ void k(int *p) { p[0] = VALUE; }\n')
    cache = IRCache(tmp_path / "cache")
    compiles = _counted_compiles(monkeypatch)
    with pytest.raises(CompileError) as first:
        frontend.compile_cuda(source, frontend.CompileOptions(), cache)
    ran = len(compiles)
    with pytest.raises(CompileError) as again:
        frontend.compile_cuda(source, frontend.CompileOptions(), cache)
    assert len(compiles) == ran and str(again.value) == str(first.value) and "VALUE" in str(first.value)
    assert again.value.diagnostics == first.value.diagnostics
    header.write_text("#define VALUE 3\n")  # the header it read changed: compiled again, and it compiles
    assert "store i32 3" in frontend.compile_cuda(source, frontend.CompileOptions(), cache)

    killed = tmp_path / "killed.cu"
    killed.write_text("__global__ void k(int *p) { p[0] = 1; }\n")
    real_run_compiler = frontend.run_compiler
    monkeypatch.setattr(frontend, "run_compiler", lambda command, *args, **kwargs: subprocess.CompletedProcess(
        command, -9, "", "killed"))
    with pytest.raises(CompileError):
        frontend.compile_cuda(killed, frontend.CompileOptions(), cache)
    monkeypatch.setattr(frontend, "run_compiler", real_run_compiler)
    assert "@_Z1kPi" in frontend.compile_cuda(killed, frontend.CompileOptions(), cache)


def test_unwritable_cache_is_not_an_error(tmp_path):
    from simulee.frontend import compiler as frontend
    from simulee.frontend.cache import IRCache

    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    ir = frontend.compile_cuda(KERNELS / "saxpy.cu", frontend.CompileOptions(), IRCache(blocker))
    assert "@_Z5saxpyifPKfPf" in ir


def test_ziglang_clang_is_used_with_bundled_libraries():
    from simulee.frontend.compiler import CompileOptions, clang_arguments, find_clang

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


def test_nvidias_device_function_headers_included_by_name_are_simulees(tmp_path):
    """A source that includes NVIDIA's device-function headers by name (<sm_61_intrinsics.h>
    for __dp4a, as the CUDA book's mixed-precision sample does; the atomics and warp
    intrinsics headers) compiles, with Simulee's definitions of what they declare, and they
    compute what CUDA documents: 1*5 + 2*6 + 3*7 + 4*8 + 10 = 80, and 64 atomic adds of 1."""
    import numpy as np
    from interpreter.launch import Launch
    from interpreter.simt import execute

    headers = ("sm_61_intrinsics.h", "sm_20_atomic_functions.h", "sm_32_atomic_functions.h", "sm_30_intrinsics.h",
               "sm_32_intrinsics.h", "device_atomic_functions.h", "sm_20_intrinsics.h", "device_double_functions.h")
    source = tmp_path / "named.cu"
    source.write_text("".join(f"#include <{header}>\n" for header in headers) + """
__global__ void dot(int *out, const char4 *a, const char4 *b) {
  atomicAdd(&out[1], 1);
  if (threadIdx.x == 0) out[0] = __dp4a(a[0], b[0], 10);
}
""")
    loaded = program(source)
    a, b = np.array([1, 2, 3, 4], dtype=np.int8), np.array([5, 6, 7, 8], dtype=np.int8)
    result = execute(loaded, "dot", Launch((1, 1, 1), (64, 1, 1), {"out": np.zeros(2, np.int32), "a": a, "b": b}))
    assert result.status == "ok", result.message
    assert result.buffers["out"].tolist() == [80, 64]
