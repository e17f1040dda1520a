"""Real repositories compile: missing headers stood in for, failing host code left out,
nvcc's dialect accepted, .cu files included by others checked through them, a build's
compile_commands.json and the user's clang options and architecture applied; and what
cannot be salvaged (an error in device code) still fails, with its reason."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import TESTS, at, line_of
from simulee.errors import CompileError
from simulee.frontend.compiler import CompileOptions, degradation, load_ir, load_program
from simulee.frontend.salvage import host_functions
from simulee.scanner.repository import ScanOptions, failure_cause, file_tasks
from simulee.scanner.tasks import list_kernels

pytestmark = pytest.mark.xdist_group("salvage")  # one worker computes the module's fixtures

REPO = TESTS / "buildrepo"
GPU = REPO / "gpu"


def listed(root: Path, only: str = "", **options) -> dict[str, dict]:
    """The file records a scan of `root` makes, by file (of file `only` alone when named)."""
    scan = ScanOptions(root, Path("/nonexistent"), root.name, CompileOptions(timeout=300, **options))
    return {task.file: list_kernels(task) for task in file_tasks(scan) if task.file == (only or task.file)}


@pytest.fixture(scope="module")
def records():
    return listed(REPO)


def simulee(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "simulee", *map(str, args)], capture_output=True, text=True,
                          timeout=600)


def test_missing_headers_are_stood_in_for_and_failing_host_code_left_out(records):
    record = records["gpu/generated_config.cu"]
    assert record["status"] == "degraded"
    assert [name for name, *_ in record["kernels"]] == ["scale"]
    assert "missing: project_config.h, fancylib/matrix.hpp" in record["error"]
    assert "functions taken to do nothing: fancy_synchronize" in record["error"]  # launch_scale stays
    source = GPU / "generated_config.cu"
    assert f"host code left out: rows_of (gpu/generated_config.cu:{line_of(source, 'int rows_of(')})" in record["error"]
    assert [site["line"] for site in record["sites"]] == [line_of(source, "scale<<<")]


def test_degraded_kernels_are_still_checked_and_the_user_is_told():
    result = simulee("check", GPU / "generated_config.cu", "--launch", "4/256/n=1000")
    assert result.returncode == 0, result.stderr
    assert "warning" in result.stderr and "missing: project_config.h" in result.stderr


def test_an_error_in_device_code_is_not_salvaged(records):
    record = records["gpu/device_error.cu"]
    assert record["status"] == "compile-error"
    # the cause first, then what failed without it
    source = GPU / "device_error.cu"
    header, use = at(source, "<fancylib/matrix.hpp>"), line_of(source, "fancy_device_norm(")
    assert record["error"].startswith(f"gpu/device_error.cu:{header}: 'fancylib/matrix.hpp' file not found; "
                                      f"with empty stand-ins for fancylib/matrix.hpp: gpu/device_error.cu:{use}:")
    assert "use of undeclared identifier 'fancy_device_norm'" in record["error"]
    assert failure_cause(record["error"]) == "use of undeclared identifier '…' (with missing headers stood in)"


def test_a_source_included_by_another_is_checked_through_it(records):
    assert records["gpu/parts/reduce_part.cu"]["status"] == "included"
    assert "gpu/unity.cu" in records["gpu/parts/reduce_part.cu"]["error"]
    assert records["gpu/unity.cu"]["status"] == "ok"
    assert [name for name, *_ in records["gpu/unity.cu"]["kernels"]] == ["block_sum"]


def test_nvcc_dialect_sized_extern_shared_register_escapes_and_pre_sm60_atomics(records):
    for file, kernel in (("gpu/extern_shared.cu", "transpose_tile"), ("gpu/timer_asm.cu", "stamp")):
        assert records[file]["status"] == "ok", records[file]["error"]
        assert [name for name, *_ in records[file]["kernels"]] == [kernel]
    # its own atomicAdd(double *) needs a GPU before sm_60: compiled for one, and it says so
    assert records["gpu/old_atomics.cu"]["status"] == "degraded"
    assert records["gpu/old_atomics.cu"]["error"] == "compiled for sm_52, not sm_70"
    assert [name for name, *_ in records["gpu/old_atomics.cu"]["kernels"]] == ["total"]
    result = simulee("check", GPU / "extern_shared.cu", "--launch", "1/32,32", "--shared-bytes", "8192")
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_typedef_of_a_c_library_name_and_a_prototype_of_a_cuda_math_function_compile(records):
    """GPUVerify's samples typedef clock_t as unsigned int and declare max(float, float):
    the source's clock_t is its own (4-byte) type, and max is CUDA's."""
    assert records["gpu/own_typedefs.cu"]["status"] == "ok", records["gpu/own_typedefs.cu"]["error"]
    listing = simulee("kernels", GPU / "own_typedefs.cu").stdout
    assert "latest(const unsigned int *stamps, float *out)" in listing and "shared 256 B" in listing
    result = simulee("check", GPU / "own_typedefs.cu", "--launch", "1/64", "--format", "json", "-q")
    found = [(k["kernel"], f["type"]) for k in json.loads(result.stdout)["kernels"] for f in k["findings"]]
    assert found == [("latest_unsynced", "data-race")]


def test_a_fetched_librarys_namespaces_declare_and_a_constructor_using_them_is_left_out(records):
    """cxxopts and nlohmann json, which CMake would fetch, are missing: `cxxopts::Options` as a
    member and `nlohmann::json *` as a parameter declare, the constructor (with its member
    initializers) and the function that use them are left out, and main's launch stays."""
    record = records["gpu/fetched_options.cu"]
    assert record["status"] == "degraded"
    assert record["error"] == ("missing: cxxopts.hpp, nlohmann/json.hpp; host code left out: "
                               "settings_t (gpu/fetched_options.cu:11), report (gpu/fetched_options.cu:15)")
    result = simulee("check", GPU / "fetched_options.cu", "--format", "json", "-q")
    kernel = json.loads(result.stdout)["kernels"][0]
    assert [(launch["grid"], launch["block"], launch["origin"]) for launch in kernel["launches"]] == \
        [([4096, 1, 1], [256, 1, 1], f"site fetched_options.cu:{line_of(GPU / 'fetched_options.cu', 'scale<<<')}")]
    assert kernel["findings"] == []


def test_a_missing_librarys_macros_at_namespace_scope_and_its_namespace_alias(records):
    record = records["gpu/registered_bench.cu"]
    source = GPU / "registered_bench.cu"
    assert record["status"] == "degraded"
    assert record["error"] == (
        "missing: benchlib/bench.h, testlib/test.h; host code left out: "
        f"scale_bench (gpu/registered_bench.cu:{line_of(source, 'void scale_bench(')}), "
        f"BENCH_REGISTER(...) (gpu/registered_bench.cu:{line_of(source, 'BENCH_REGISTER(')}), "
        f"TEST(...) (gpu/registered_bench.cu:{line_of(source, 'TEST(')})")
    assert [name for name, *_ in record["kernels"]] == ["scale"]


def test_host_code_a_library_template_fails_for_is_left_out_where_it_asked_for_it(records):
    record = records["gpu/abstract_factory.cu"]
    source = GPU / "abstract_factory.cu"
    assert record["status"] == "degraded"
    line = line_of(source, "print_area() {")
    assert record["error"] == f"host code left out: print_area (gpu/abstract_factory.cu:{line})"
    assert [name for name, *_ in record["kernels"]] == ["fill"]
    assert [site["line"] for site in record["sites"]] == [line_of(source, "fill<<<")]
    result = simulee("check", source, "--format", "json", "-q")
    kernel = json.loads(result.stdout)["kernels"][0]
    assert kernel["launches"][0]["grid"] == [4, 1, 1] and kernel["findings"] == [], result.stderr


def test_a_macro_whose_body_is_a_pragma_is_the_pragma_as_nvcc_expands_it(records):
    record = records["gpu/pragma_macro.cu"]  # moderngpu's PRAGMA_UNROLL: its device code stays
    assert record["status"] == "ok", record["error"]
    assert [name for name, *_ in record["kernels"]] == ["sum_rows"]


def test_headers_included_through_the_scanned_folders_own_name(records):
    assert records["gpu/prefixed.cu"]["status"] == "ok"
    assert listed(GPU, "prefixed.cu")["prefixed.cu"]["status"] == "ok"  # the scan of gpu/ alone: "gpu/common.cuh"


def test_compile_commands_give_each_source_its_build_flags(tmp_path):
    root = tmp_path / "project"
    shutil.copytree(REPO, root)
    assert listed(root, "gpu/needs_define.cu")["gpu/needs_define.cu"]["status"] == "compile-error"
    build = root / "build-release"
    build.mkdir()
    command = f"nvcc -gencode arch=compute_70,code=sm_70 -DUSE_FAST_PATH -DWIDTH=64 -I/usr/local/cuda/include " \
              f"-Xcompiler -fPIC --expt-relaxed-constexpr -c {root}/gpu/needs_define.cu -o needs_define.o"
    (build / "compile_commands.json").write_text(json.dumps([{"directory": str(build), "command": command,
                                                              "file": str(root / "gpu/needs_define.cu")}]))
    record = listed(root, "gpu/needs_define.cu")["gpu/needs_define.cu"]  # found in build*/ by itself
    assert record["status"] == "ok", record["error"]
    result = simulee("kernels", root / "gpu/needs_define.cu", "--compile-commands", build / "compile_commands.json")
    assert result.returncode == 0 and "fast_path" in result.stdout, result.stderr


def test_clang_arguments_and_architecture(tmp_path):
    result = simulee("kernels", GPU / "needs_define.cu", "--clang-arg=-DUSE_FAST_PATH", "--clang-arg=-DWIDTH=8")
    assert result.returncode == 0 and "fast_path" in result.stdout, result.stderr
    source = tmp_path / "arch.cu"
    source.write_text("#if __CUDA_ARCH__ >= 800\n__global__ void ampere_only(int *x) { x[0] = 1; }\n#endif\n"
                      "__global__ void everywhere(int *x) { x[0] = __CUDA_ARCH__; }\n")
    default, ampere = simulee("kernels", source), simulee("kernels", source, "--arch", "sm_80")
    assert "everywhere" in default.stdout and "ampere_only" not in default.stdout
    assert "everywhere" in ampere.stdout and "ampere_only" in ampere.stdout


@pytest.mark.parametrize("args, message", [
    (("--arch", "sm_9"), "--arch sm_9: expected a GPU architecture"),
    (("--arch", "compute_70"), "--arch compute_70: expected a GPU architecture"),
    (("--compile-commands", "/nonexistent/compile_commands.json"), "no such file"),
])
def test_bad_compile_options_are_one_line_errors(args, message):
    result = simulee("kernels", GPU / "unity.cu", *args)
    assert result.returncode == 2 and message in result.stderr and len(result.stderr.splitlines()) == 1


def test_a_malformed_compilation_database_is_a_one_line_error(tmp_path):
    database = tmp_path / "compile_commands.json"
    database.write_text("[{\"file\": 1")
    result = simulee("kernels", GPU / "unity.cu", "--compile-commands", database)
    assert result.returncode == 2 and "not a compilation database" in result.stderr
    assert len(result.stderr.splitlines()) == 1


def test_every_diagnostic_is_kept_for_the_user():
    with pytest.raises(CompileError) as raised:
        load_program(GPU / "needs_define.cu")
    assert "(and 1 more error)" in str(raised.value)
    assert raised.value.diagnostics.count("error:") == 2
    result = simulee("kernels", GPU / "needs_define.cu", "-v")
    assert result.returncode == 2 and result.stderr.count("error:") >= 2


def test_host_functions_are_found_at_namespace_and_class_level_and_device_code_is_not():
    text = ('namespace a {\nextern "C" {\nint f(int x) { return x; }\n}\nstruct S : public B {\n public:\n'
            '  void m() const { g(); }\n  __device__ int d() { return 1; }\n};\n}\n'
            '__global__ void k(int *p) { p[0] = 1; }\n__host__ __device__ int hd() { return 2; }\n'
            'int table[] = {1, 2};\nstatic void host(float *p) {\n  if (p) { p[0] = 1; }\n}\n')
    lines = text.splitlines()
    f, m, host = (next(number for number, line in enumerate(lines, 1) if start in line)
                  for start in ("int f(", "void m()", "static void host("))
    assert [(found.name, found.first, found.last) for found in host_functions(text)] == \
        [("f", f, f), ("m", m, m), ("host", host, len(lines))]  # host's closing brace ends the text


def test_a_void_host_function_left_out_does_nothing_and_its_callers_launches_stay(tmp_path):
    from simulee.frontend.compiler import CompileOptions
    from simulee.checker.sites import host_code

    assert [(f.name, f.returns) for f in host_functions("void v() { }\nint i() { return 1; }\nstruct S { S() { }\n"
                                                        "  ~S() { } };\n")] == \
        [("v", False), ("i", True), ("S", False), ("~S", False)]
    source = tmp_path / "bench.cu"
    source.write_text("__global__ void k(float *p) { p[threadIdx.x] = 1.0f; }\n"
                      "void reference(float *p) { undeclared_simd_call(p); }  // does not compile here\n"
                      "int main() {\n  float *p;\n  cudaMalloc(&p, 512);\n  reference(p);\n"
                      "  k<<<1, 128>>>(p);\n  return 0;\n}\n")
    sites, _, _, problem = host_code(source, CompileOptions())
    assert problem == "" and [site.line for site in sites] == [line_of(source, "k<<<1, 128>>>(p);")]


def test_degradation_is_recorded_in_the_ir():
    ir = load_ir(GPU / "generated_config.cu")
    assert degradation(ir).startswith("missing: project_config.h")
    assert degradation(load_ir(GPU / "unity.cu")) == ""


def test_device_functions_defined_in_another_source_are_linked():
    import numpy as np

    from interpreter.launch import Launch
    from interpreter.simt import execute
    from simulee.scanner.tasks import _program

    scan = ScanOptions(REPO, Path("/nonexistent"), "buildrepo", CompileOptions(timeout=300))
    task = next(task for task in file_tasks(scan) if task.file == "gpu/rdc_kernel.cu")
    program = _program(task)
    assert [kernel.name for kernel in program.kernels] == ["apply_smooth_step"]  # not the helper file's kernels
    x = np.linspace(-0.5, 1.5, 64, dtype=np.float32)
    result = execute(program, "apply_smooth_step", Launch(1, 64, {"x": x.copy()}))
    assert result.status == "ok", result.message
    t = np.clip(x, 0, 1)
    np.testing.assert_allclose(result.buffers["x"], t * t * (3 - 2 * t), rtol=1e-6)
    alone = load_program(GPU / "rdc_kernel.cu")  # without its sibling: what smooth_step returns is made up
    result = execute(alone, "apply_smooth_step", Launch(1, 64, {"x": x.copy()}, fill="small", taint=True))
    assert result.status == "ok" and any("smooth_step" in label and label.endswith(" returns")
                                         for label in result.labels), result.labels


def test_kernel_headers_no_source_includes_are_compiled_with_their_templates_instantiated(records):
    assert "gpu/common.cuh" not in records  # included by prefixed.cu; and it has no kernel
    record = records["gpu/jit_kernels.cuh"]
    assert record["status"] == "ok", record["error"]
    assert sorted(name for name, *_ in record["kernels"]) == ["axpy<double>", "axpy<float>", "axpy<int>", "fill"]


def test_a_missing_helper_math_gets_simulees_vector_arithmetic(records):
    import numpy as np

    from interpreter.launch import Launch
    from interpreter.simt import execute

    assert records["gpu/particles.cu"]["status"] == "degraded"
    assert records["gpu/particles.cu"]["error"] == "missing: helper_math.h"
    rng = np.random.default_rng(3)
    position, velocity = rng.random((32, 4), dtype=np.float32) + 0.1, rng.random((32, 4), dtype=np.float32)
    result = execute(load_program(GPU / "particles.cu"), "step",
                     Launch(1, 32, {"position": position.copy(), "velocity": velocity, "dt": np.float32(0.5)}))
    assert result.status == "ok", result.message
    moved = position + velocity * np.float32(0.5)
    direction = moved[:, :3] / np.linalg.norm(moved[:, :3], axis=1, keepdims=True)
    np.testing.assert_allclose(result.buffers["position"][:, :3], direction, rtol=1e-5)
    np.testing.assert_allclose(result.buffers["position"][:, 3], np.clip(moved[:, 3], 0, 1), rtol=1e-6)


def test_kernel_templates_nothing_instantiates_get_instances(tmp_path):
    source = tmp_path / "templated.cu"
    source.write_text("template <typename T>\n__global__ void shift(T *y) { y[threadIdx.x] = y[threadIdx.x + 1]; }\n"
                      "template <typename T>\n__global__ void used(T *y) { y[threadIdx.x] = 0; }\n"
                      "void launch(float *y) { used<float><<<1, 32>>>(y); }\n")
    names = [kernel.name for kernel in load_program(source).kernels]
    assert sorted(names) == ["shift<double>", "shift<float>", "shift<int>", "used<float>"]


def test_a_missing_librarys_namespace_and_vector_types_are_taken_as_their_names_say(records):
    import numpy as np

    from interpreter.launch import Launch
    from interpreter.simt import execute

    assert records["gpu/vertices.cu"]["status"] == "degraded"
    assert records["gpu/vertices.cu"]["error"] == "missing: DirectXMath.h"
    vertices = np.zeros((32, 7), np.float32)  # XMFLOAT3 position, XMFLOAT4 color, as float3 and float4
    vertices[:, 0] = np.arange(32)
    result = execute(load_program(GPU / "vertices.cu"), "wave",
                     Launch(1, 32, {"vertices": vertices.reshape(-1), "time": np.float32(0.5)}))
    assert result.status == "ok", result.message
    out = result.buffers["vertices"].reshape(32, 7)
    np.testing.assert_array_equal(out[:, 1], np.arange(32) * np.float32(0.5))
    np.testing.assert_array_equal(out[:, 6], 1)


def test_functions_of_a_missing_header_do_nothing_so_host_code_and_its_launches_stay(records):
    record = records["gpu/checked_launch.cu"]
    assert record["status"] == "degraded" and "host code left out" not in record["error"]
    assert "functions taken to do nothing: checkCudaErrors, getLastCudaError" in record["error"]
    (site,) = record["sites"]
    assert site["line"] == line_of(GPU / "checked_launch.cu", "halve<<<")
    assert site["block"] == [["const", 128], ["const", 1], ["const", 1]]


def test_what_a_missing_headers_functions_return_and_its_constants_hold_is_unknown(tmp_path):
    """A launcher that sizes its grid with a missing library's function and returns early
    unless a status equals the library's constant: the constants are values of any type and
    the launcher stays whole (no host code left out); the grid is what the function
    returned, unknown, not the 0 a stub's body would let the optimizer fold into it."""
    (tmp_path / "gpu").mkdir()
    (tmp_path / "gpu" / "rows.cu").write_text(
        "#include <profiler_library.h>\n"
        "__global__ void scale(float *data, int n) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n) data[i] *= 2.0f;\n"
        "}\n"
        "void scale_rows(float *data) {\n"
        "  profiler_handle handle = profiler_open(PROFILER_DEFAULT_FLAGS);\n"
        "  int rows = profiler_rows(handle);\n"
        "  if (profiler_status(handle) != PROFILER_OK)\n"
        "    return;\n"
        "  scale<<<rows, 128>>>(data, rows * 128);\n"
        "}\n")
    record = listed(tmp_path)["gpu/rows.cu"]
    assert "constants taken to be unknown: PROFILER_DEFAULT_FLAGS, PROFILER_OK" in record["error"]
    assert "host code left out" not in record["error"]
    (site,) = record["sites"]
    assert site["block"] == [["const", 128], ["const", 1], ["const", 1]]
    assert site["grid"][0][0] != "const" and "input" in json.dumps(site["grid"][0])


def test_a_missing_projects_float_and_index_types_are_taken_as_their_names_say(tmp_path):
    """BaseFloat (kaldi), Real, MatrixIndexT, index_t: a float and ints, so arithmetic on
    them compiles and runs; a type named like neither stays an opaque pointer."""
    import numpy as np

    from interpreter.launch import Launch
    from interpreter.simt import execute

    source = tmp_path / "scaled.cu"
    source.write_text('#include "base/kaldi-types.h"  // not in the checkout\n'
                      "__global__ void scale(const BaseFloat *in, Real *out, BaseFloat factor, MatrixIndexT n,\n"
                      "                      index_t offset, Handle unused) {\n"
                      "  MatrixIndexT i = threadIdx.x + offset;\n"
                      "  if (i < n) out[i] = in[i] * factor;\n"
                      "}\n")
    program = load_program(source)
    assert "missing: base/kaldi-types.h" in program.degraded
    (kernel,) = program.kernels
    assert [(p.name, p.c_type) for p in kernel.params] == [
        ("in", "const BaseFloat *"), ("out", "Real *"), ("factor", "BaseFloat"), ("n", "MatrixIndexT"),
        ("offset", "index_t"), ("unused", "Handle")]
    assert [p.kind for p in kernel.params] == ["pointer", "pointer", "float", "integer", "integer", "pointer"]
    data = np.arange(32, dtype=np.float32)
    result = execute(program, "scale", Launch(1, 32, {"in": data, "out": np.zeros(32, np.float32),
                                                      "factor": np.float32(1.5), "n": 30, "offset": 0}))
    assert result.status == "ok", result.message
    np.testing.assert_array_equal(result.buffers["out"], np.where(np.arange(32) < 30, data * 1.5, 0))
