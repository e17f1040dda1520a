"""simulee-nvcc as a project's own CUDA compiler: nvcc's command line read, a CMake project
and a Makefile project built and their tests run with every launch checked (a race found
through ctest and make, its clean twin passing), and `simulee test` / `simulee report`."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import line_of
from simulee.exec.nvcc import Nvcc, parse

pytestmark = pytest.mark.xdist_group("nvcc")  # one toolkit folder and runtime build for the module

HERE = Path(__file__).parent / "nvcc"
BIN = Path(sys.executable).parent
TOOLS = {"NVCC": str(BIN / "simulee-nvcc"), "CXX": str(BIN / "simulee-c++"), "CC": str(BIN / "simulee-cc")}


def simulee(*arguments, cwd, env=None):
    return subprocess.run([str(BIN / "simulee"), *arguments], cwd=cwd, capture_output=True, text=True, timeout=900,
                          env=env)


def test_nvcc_options_read_as_build_files_write_them(tmp_path):
    (tmp_path / "flags.rsp").write_text("-DFROM_FILE=1 -I include\n")
    command = parse(["-c", "-o", "k.o", "-Iinc", "-I", "other", "-DA=1,B", "--define-macro=C", "-x", "cu",
                     "k.cpp", "-Xcompiler", "-fPIC,-Wall", "--compiler-options=-O3", "-gencode",
                     "arch=compute_80,code=sm_80", "-rdc=true", "-std=c++17", "--expt-relaxed-constexpr",
                     "-MD", "-MF", "k.d", "-lcurand", "-L/opt/lib", "--frobnicate"])
    assert command.values["include"] == ["inc", "other"] and command.values["define"] == ["A=1", "B", "C"]
    assert command.inputs == [("k.cpp", "cuda")] and {"compile", "deps_compile"} <= command.flags
    assert command.values["xcompiler"] == ["-fPIC", "-Wall", "-O3"] and command.value("depfile") == "k.d"
    assert command.values["library"] == ["curand"] and command.unknown == ["--frobnicate"]
    nvcc = Nvcc(["-c", f"@{tmp_path / 'flags.rsp'}", "-gencode", "arch=compute_80,code=sm_80", "-rdc=true",
                 "k.cu"])
    options = nvcc.options(Path("k.cu"))
    assert options.arch == "sm_80" and "FROM_FILE=1" in options.defines and "include" in options.include_dirs
    assert "-fgpu-rdc" in options.clang_args
    assert Nvcc(["-c", "-arch", "sm_13", "k.cu"]).options(Path("k.cu")).arch == "sm_50"  # an old Makefile's GPU


def test_bad_input_is_one_line_and_status_2(tmp_path):
    done = subprocess.run([TOOLS["NVCC"], "-c", str(tmp_path / "missing.cu")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "no such file" in done.stderr
    done = subprocess.run([TOOLS["NVCC"], "-o"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "needs a value" in done.stderr
    version = subprocess.run([TOOLS["NVCC"], "--version"], capture_output=True, text=True, timeout=120)
    assert version.returncode == 0 and "Cuda compilation tools, release 12." in version.stdout


@pytest.fixture(scope="module")
def cmake_build(tmp_path_factory):
    """tests/nvcc/cmake configured and built by CMake with simulee-nvcc."""
    build = tmp_path_factory.mktemp("cmake-build")
    configure = subprocess.run(
        [str(BIN / "cmake"), "-S", str(HERE / "cmake"), "-B", str(build), f"-DCMAKE_CUDA_COMPILER={TOOLS['NVCC']}",
         f"-DCMAKE_CXX_COMPILER={TOOLS['CXX']}", f"-DCMAKE_C_COMPILER={TOOLS['CC']}"],
        capture_output=True, text=True, timeout=900)
    assert configure.returncode == 0, configure.stdout + configure.stderr
    assert "The CUDA compiler identification is NVIDIA 12." in configure.stdout
    made = subprocess.run([str(BIN / "cmake"), "--build", str(build)], capture_output=True, text=True, timeout=900)
    assert made.returncode == 0, made.stdout + made.stderr
    return build


def test_a_cmake_project_builds_and_ctest_fails_the_racy_test_only(cmake_build):
    env = dict(os.environ, SIMULEE_EXIT_ON_ERROR="7")
    racy = subprocess.run([str(cmake_build / "shift_racy"), "64"], capture_output=True, text=True, env=env,
                          timeout=600)
    assert racy.returncode == 7 and "x[63] = " in racy.stdout
    assert f"shift.cu:{line_of(HERE / 'cmake' / 'shift.cu', 'x[i + 1] = x[i]')}:" in racy.stderr
    assert "error: data race" in racy.stderr and "2 launches checked" in racy.stderr
    staged = subprocess.run([str(cmake_build / "shift_staged"), "64"], capture_output=True, text=True, env=env,
                            timeout=600)
    assert staged.returncode == 0 and "x[63] = 62" in staged.stdout and "error:" not in staged.stderr
    run = simulee("test", "-o", str(cmake_build / "report"), "--", str(BIN / "ctest"), cwd=cmake_build)
    assert run.returncode == 1, run.stderr
    assert "1 - shift_racy (Failed)" in run.stdout and "shift_staged" not in run.stdout.split("FAILED")[-1]
    assert "2 processes of 2 programs; 4 launches checked, all on the programs' own data" in run.stderr
    assert "never launched by the tests: rotate_scaled" in run.stderr
    kernels = (cmake_build / "report" / "kernels.csv").read_text()
    assert ",shift," in kernels and ",identity," in kernels and (cmake_build / "report" / "barriers.csv").is_file()
    sarif = json.loads((cmake_build / "report" / "report.sarif").read_text())
    assert [result["ruleId"] for result in sarif["runs"][0]["results"]] == ["data-race"]
    scanned = simulee("test", "--scan-untested", "--format", "json", "--", str(BIN / "ctest"), cwd=cmake_build)
    assert scanned.returncode == 1 and "never launched" not in scanned.stderr
    causes = {(c["type"], c["severity"], c["line"]): c for c in json.loads(scanned.stdout)["root_causes"]}
    invented = causes[("data-race", "warning", line_of(HERE / "cmake" / "shift.cu", "racy (a neighbour's read)") + 2)]
    racy_line = line_of(HERE / "cmake" / "shift.cu", "x[i + 1] = x[i]")
    assert "on data Simulee invented" in invented["message"] and ("data-race", "error", racy_line) in causes


def test_a_makefile_project_builds_with_nvcc_and_cxx_given_and_make_check_shows_the_race(tmp_path):
    project = tmp_path / "make"
    shutil.copytree(HERE / "make", project)
    made = subprocess.run(["make", f"NVCC={TOOLS['NVCC']}", f"CXX={TOOLS['CXX']}"], cwd=project,
                          capture_output=True, text=True, timeout=900)
    assert made.returncode == 0, made.stdout + made.stderr
    clean = subprocess.run(["./histogram"], cwd=project, capture_output=True, text=True, timeout=600)
    assert clean.returncode == 0 and "counted 4096 of 4096 bytes" in clean.stdout
    reports = tmp_path / "reports"
    run = simulee("test", "--reports", str(reports), "--", "make", "check", cwd=project)
    assert run.returncode == 1 and "histogram.cu:11:" in run.stdout and "shared" in run.stdout
    assert len(list(reports.glob("histogram*.json"))) == 2
    merged = simulee("report", str(reports), "--format", "json", cwd=project)
    assert merged.returncode == 1
    causes = json.loads(merged.stdout)
    assert "data-race" in json.dumps(causes) and "histogram.cu" in json.dumps(causes)


def test_a_library_the_runtime_does_not_implement_links_and_says_not_supported(tmp_path):
    source = tmp_path / "generate.cu"
    source.write_text(
        "#include <cstdio>\n#include <curand.h>\n"
        "int main() {\n  curandGenerator_t generator;\n"
        "  curandStatus_t status = curandCreateGenerator(&generator, CURAND_RNG_PSEUDO_DEFAULT);\n"
        "  printf(\"status %d\\n\", (int)status);\n  return 0;\n}\n")
    built = subprocess.run([TOOLS["NVCC"], str(source), "-o", str(tmp_path / "generate"), "-lcurand"],
                           capture_output=True, text=True, timeout=900)
    assert built.returncode == 0, built.stderr
    ran = subprocess.run([str(tmp_path / "generate")], capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0 and "status 1" in ran.stdout, ran.stderr
    assert "curandCreateGenerator" in ran.stderr and "not supported" in ran.stderr


def test_relocatable_device_code_links_across_sources_as_nvcc_dc_and_dlink_do(tmp_path):
    (tmp_path / "apply.cu").write_text(  # a static kernel: clang renames it apart from other sources' in -rdc
        "#include <cstdio>\nextern __device__ int twice(int v);\n__device__ int counter;\n"
        "static __global__ void apply(int *x) {\n  x[threadIdx.x] = twice(threadIdx.x);\n"
        "  if (threadIdx.x < 2) counter = threadIdx.x;\n}\n"
        "int main() {\n  int *x, c;\n  cudaMallocManaged(&x, 32 * sizeof(int));\n  apply<<<1, 32>>>(x);\n"
        "  cudaMemcpyFromSymbol(&c, counter, sizeof c);\n  printf(\"%d %d\\n\", x[31], c);\n  return 0;\n}\n")
    (tmp_path / "twice.h").write_text("#define FACTOR 2\n")
    (tmp_path / "twice.cu").write_text("#include \"twice.h\"\n__device__ int twice(int v) { return FACTOR * v; }\n")
    steps = [["-dc", "apply.cu", "-o", "apply.o"], ["-dc", "twice.cu", "-o", "twice.o", "-MD", "-MF", "twice.o.d"],
             ["-dlink", "apply.o", "twice.o", "-o", "link.o"], ["apply.o", "twice.o", "link.o", "-o", "apply"],
             ["-M", "apply.cu", "-MT", "apply.o"]]
    for step in steps:
        done = subprocess.run([TOOLS["NVCC"], *step], cwd=tmp_path, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, (step, done.stderr)
    assert done.stdout.startswith("apply.o: ") and "apply.cu" in done.stdout
    depfile = (tmp_path / "twice.o.d").read_text()  # its own header, though the project lies under /tmp
    assert depfile.startswith("twice.o: twice.cu") and str(tmp_path / "twice.h") in depfile
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix in (".d", ".salvage")) == ["twice.o.d"]
    ran = subprocess.run(["./apply"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0 and ran.stdout.startswith("62 ") and "1 launch checked" in ran.stderr
    assert "apply.cu:6:" in ran.stderr and "data race" in ran.stderr  # the kernel named as written, not renamed
    assert "__intern__" not in ran.stderr


def test_an_object_compiled_before_from_the_same_files_and_options_is_reused(tmp_path):
    """simulee-nvcc -c of a source compiled before with the same options, whose files
    (itself, its headers) are unchanged, reuses that object (the same bytes, its depfile
    as nvcc writes it); an edited header or other options compile it again."""
    (tmp_path / "scale.h").write_text("#define FACTOR 2\n")
    (tmp_path / "scale.cu").write_text("#include \"scale.h\"\n"
                                       "__global__ void scale(int *x) { x[threadIdx.x] *= FACTOR; }\n"
                                       "int main() { return 0; }\n")

    def compile(output: str, *more: str) -> str:
        done = subprocess.run([TOOLS["NVCC"], "-v", "-c", "scale.cu", "-o", output, "-MD", *more], cwd=tmp_path,
                              capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stderr
        return done.stderr

    compile("first.o")
    said = compile("second.o")
    assert "its object reused" in said and "cicc" not in said
    assert (tmp_path / "first.o").read_bytes() == (tmp_path / "second.o").read_bytes()
    depfile = (tmp_path / "second.d").read_text()
    assert depfile.startswith("second.o: scale.cu") and str(tmp_path / "scale.h") in depfile
    assert "its object reused" not in compile("third.o", "-DEXTRA=1")
    (tmp_path / "scale.h").write_text("#define FACTOR 3\n")
    assert "its object reused" not in compile("fourth.o")
    assert (tmp_path / "fourth.o").read_bytes() != (tmp_path / "first.o").read_bytes()


def test_a_launch_another_process_of_the_tests_ran_is_reused_with_its_findings(tmp_path):
    (tmp_path / "twice.cu").write_text(
        "#include <cstdio>\n__global__ void fill(int *x, int v) { x[blockIdx.x * blockDim.x + threadIdx.x] = v; }\n"
        "__global__ void shift(int *x) { int i = threadIdx.x; if (i + 1 < 64) x[i + 1] = x[i]; }\n"
        "int main() {\n  int *d, h[4];\n  cudaMalloc(&d, 256 * sizeof(int));\n  cudaMemset(d, 0, 256 * sizeof(int));\n"
        "  fill<<<4, 64>>>(d, 7);\n  shift<<<1, 64>>>(d);\n"
        "  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);\n  printf(\"%d\\n\", h[3]);\n  return 0;\n}\n")
    built = subprocess.run([TOOLS["NVCC"], "twice.cu", "-o", "twice.out"], cwd=tmp_path, capture_output=True,
                           text=True, timeout=900)  # a name with a dot: each process's report is its own still
    assert built.returncode == 0, built.stderr
    run = simulee("test", "--error-exitcode", "0", "--", "sh", "-c", "./twice.out && ./twice.out", cwd=tmp_path)
    assert run.returncode == 1 and run.stdout.count("error: data race") == 1, run.stderr
    assert run.stdout.count("7\n") == 2 and "2 launches checked on the program's own data; 1 error" in run.stderr
    assert "2 launches checked on the program's own data (2 repeating one of another process); 1 error" in run.stderr
    assert "4 launches checked, all on the programs' own data (2 repeating an earlier one exactly, run once)" \
        in run.stderr


def test_a_barrier_one_process_needs_is_not_redundant_in_the_merged_report(tmp_path):
    (tmp_path / "rotate.cu").write_text(
        "#include <cstdlib>\n"
        "__global__ void rotate(int *x, int by) {\n  __shared__ int s[64];\n  s[threadIdx.x] = threadIdx.x;\n"
        "  __syncthreads();\n  x[threadIdx.x] = s[(threadIdx.x + by) % 64];\n}\n"
        "int main(int argc, char **argv) {\n  int *x;\n  cudaMalloc(&x, 64 * sizeof(int));\n"
        "  rotate<<<1, 64>>>(x, atoi(argv[1]));\n  cudaDeviceSynchronize();\n  return 0;\n}\n")
    built = subprocess.run([TOOLS["NVCC"], "rotate.cu", "-o", "rotate"], cwd=tmp_path, capture_output=True,
                           text=True, timeout=900)
    assert built.returncode == 0, built.stderr
    alone = simulee("test", "--", "./rotate", "0", cwd=tmp_path)  # each thread reads what it wrote
    assert alone.returncode == 0 and "redundant barrier" in alone.stdout, alone.stderr
    both = simulee("test", "--", "sh", "-c", "./rotate 0 && ./rotate 1", cwd=tmp_path)
    assert both.returncode == 0 and "redundant barrier" in both.stderr  # the first process's own report
    assert "redundant barrier" not in both.stdout and "0 root causes" in both.stderr


def test_a_shared_library_of_kernels_links_into_the_program_that_uses_it(tmp_path):
    (tmp_path / "fill.cu").write_text("__global__ void fill(int *x, int v) { x[threadIdx.x] = v; }\n"
                                      "void fill_on_device(int *x, int v) { fill<<<1, 32>>>(x, v); }\n")
    (tmp_path / "main.cu").write_text(
        "#include <cstdio>\nvoid fill_on_device(int *x, int v);\n"
        "int main() {\n  int *x;\n  cudaMallocManaged(&x, 32 * sizeof(int));\n  fill_on_device(x, 9);\n"
        "  cudaDeviceSynchronize();\n  printf(\"%d\\n\", x[31]);\n  return 0;\n}\n")
    (tmp_path / "librt.so.1").write_text("glibc's, as CMake finds it on the system: left out of the link\n")
    for step in (["-shared", "-Xcompiler", "-fPIC", "fill.cu", "-o", "libfill.so"],
                 ["main.cu", "-L.", "-lfill", str(tmp_path / "librt.so.1"), "-o", "main"]):
        done = subprocess.run([TOOLS["NVCC"], *step], cwd=tmp_path, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, (step, done.stderr)
    ran = subprocess.run(["./main"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert ran.returncode == 0 and ran.stdout == "9\n" and "1 launch checked" in ran.stderr


def test_the_c_and_cxx_stand_ins_build_what_gcc_and_g_plus_plus_build(tmp_path):
    """simulee-cc compiles C with libc's headers into a static program and links CUDA objects
    (with the C++ library, as nvcc's link has it); simulee-c++ takes a string literal before a
    macro (g++: a warning); a real CUDA's lib64 given with -L shadows none of the runtime."""
    def run(*command):
        done = subprocess.run(list(command), cwd=tmp_path, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, (command, done.stderr)
        return done
    (tmp_path / "host.c").write_text('#include <stdio.h>\n#include <string.h>\n'
                                     'int main(void) { printf("%zu\\n", strlen("four")); return 0; }\n')
    run(TOOLS["CC"], "host.c", "-o", "host")
    assert run("./host").stdout == "4\n"
    (tmp_path / "k.cu").write_text("__global__ void k(int *x) { x[threadIdx.x] = threadIdx.x; }\n"
                                   "extern \"C\" int on_device(void) {\n  int *x, y;\n  cudaMalloc(&x, 128);\n"
                                   "  k<<<1, 32>>>(x);\n  cudaMemcpy(&y, x + 31, 4, cudaMemcpyDeviceToHost);\n"
                                   "  return y;\n}\n")
    (tmp_path / "main.c").write_text('#include <stdio.h>\nint on_device(void);\n'
                                     'int main(void) { printf("%d\\n", on_device()); return 0; }\n')
    fake = tmp_path / "cuda" / "lib64"
    fake.mkdir(parents=True)
    (fake / "bogus.c").write_text("void missing_from_everywhere(void); int cudaMalloc(void) "
                                  "{ missing_from_everywhere(); return 0; }\n")
    run(TOOLS["CC"], "-c", str(fake / "bogus.c"), "-o", str(fake / "bogus.o"))
    run(sys.executable, "-m", "ziglang", "ar", "rcs", str(fake / "libcudart_static.a"), str(fake / "bogus.o"))
    run(TOOLS["NVCC"], "-c", "k.cu", "-o", "k.o")
    run(TOOLS["CC"], "-c", "main.c", "-o", "main.o")
    run(TOOLS["CC"], "main.o", "k.o", f"-L{fake}", "-lcudart", "-o", "main")
    ran = run("./main")
    assert ran.stdout == "31\n" and "1 launch checked" in ran.stderr
    (tmp_path / "format.cpp").write_text('#include <cinttypes>\n#include <cstdio>\n'
                                         'int main() { std::printf("%"PRId64"\\n", (int64_t)7); return 0; }\n')
    run(TOOLS["CXX"], "format.cpp", "-o", "format")
    assert run("./format").stdout == "7\n"


def test_what_gcc_builds_on_glibc_builds_openmp_on_one_thread_and_unoptimized_objects_link(tmp_path):
    """What gcc's Makefiles rely on: struct timeval and fd_set from <stdlib.h> alone (glibc
    declares them through it, musl does not), -fopenmp and -lgomp (the program runs on one
    thread: the result is the same), an object compiled without -O in a library an -O3 link
    uses (gcc adds no sanitizer whose runtime that link would lack), an object named
    `main.c_o`, and -lGL -lGLU for a display the program does not use."""
    def run(*command):
        done = subprocess.run(list(command), cwd=tmp_path, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, (command, done.stderr)
        return done
    (tmp_path / "timer.c").write_text(
        "#include <stdlib.h>\nlong elapsed(void) { struct timeval tv; fd_set set; FD_ZERO(&set);\n"
        "  tv.tv_sec = 2; tv.tv_usec = 5; return tv.tv_sec * 1000000L + tv.tv_usec + FD_ISSET(0, &set); }\n"
        "int shift(int x) { int y = x << 2; return y; }\n")
    (tmp_path / "main.c").write_text(
        "#include <omp.h>\n#include <stdio.h>\nlong elapsed(void); int shift(int);\n"
        "int main(void) { long sum = 0;\n#pragma omp parallel for reduction(+ : sum)\n"
        "  for (int i = 0; i < 100; ++i) sum += i;\n"
        "  printf(\"%ld %ld %d %d\\n\", sum, elapsed(), shift(3), omp_get_max_threads()); return 0; }\n")
    run(TOOLS["CC"], "-O", "-c", "timer.c", "-o", "timer.o")
    run(sys.executable, "-m", "ziglang", "ar", "rcs", str(tmp_path / "libtimer.a"), str(tmp_path / "timer.o"))
    run(TOOLS["CC"], "-O3", "-fopenmp", "-c", "main.c", "-o", "main.c_o")  # an object named as a Makefile may
    run(TOOLS["CC"], "-O3", "-fopenmp", "main.c_o", "-L.", "-ltimer", "-lgomp", "-lGL", "-lGLU", "-o", "main")
    assert run("./main").stdout == "4950 2000005 12 1\n"


def test_a_release_build_with_ndebug_compiles_cccl_and_keeps_asserts_off(tmp_path):
    (tmp_path / "checked.cu").write_text(
        "#include <cassert>\n#include <cstdio>\n#include <cuda/std/atomic>\n"
        "__global__ void k(int *x) { assert(x == nullptr); x[threadIdx.x] = threadIdx.x; }\n"
        "int main() {\n  int *x;\n  cudaMallocManaged(&x, 64);\n  k<<<1, 16>>>(x);\n  cudaDeviceSynchronize();\n"
        "  assert(x[3] == 4);\n  printf(\"%d\\n\", x[15]);\n  return 0;\n}\n")
    for defines, status in ((["-DNDEBUG"], 0), ([], None)):  # CMake's Release flags; then asserts on
        built = subprocess.run([TOOLS["NVCC"], "-O3", *defines, "checked.cu", "-o", "checked"], cwd=tmp_path,
                               capture_output=True, text=True, timeout=900)
        assert built.returncode == 0, built.stderr
        ran = subprocess.run(["./checked"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
        if status == 0:
            assert ran.returncode == 0 and ran.stdout == "15\n", ran.stderr
        else:
            assert ran.returncode != 0 and "assert" in ran.stderr.lower(), ran.stderr


def test_a_program_killed_by_a_time_out_still_reports_what_was_checked(tmp_path):
    (tmp_path / "slow.cu").write_text(
        "__global__ void shift(int *x) { int i = threadIdx.x; if (i + 1 < 64) x[i + 1] = x[i]; }\n"
        "__global__ void spin(int *x, long n) { long s = 0; for (long k = 0; k < n; ++k) s += k; x[0] = (int)s; }\n"
        "int main() {\n  int *d;\n  cudaMalloc(&d, 256 * sizeof(int));\n  shift<<<1, 64>>>(d);\n"
        "  cudaDeviceSynchronize();\n  spin<<<1, 32>>>(d, 1L << 40);\n  cudaDeviceSynchronize();\n  return 0;\n}\n")
    built = subprocess.run([TOOLS["NVCC"], "slow.cu", "-o", "slow"], cwd=tmp_path, capture_output=True, text=True,
                           timeout=900)
    assert built.returncode == 0, built.stderr
    reports = tmp_path / "reports"
    killed = subprocess.run(["timeout", "10", "./slow"], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                            env=dict(os.environ, SIMULEE_REPORT=str(reports)))
    assert killed.returncode == 124  # the time-out's
    for _ in range(120):  # the device reports once it sees the program gone
        if list(reports.glob("slow-*.json")):
            break
        time.sleep(0.5)
    (record,) = [json.loads(path.read_text()) for path in reports.glob("slow-*.json")]
    # the launch running when the program was killed is stopped there, and what it did is checked too
    assert [launch["kernel"] for launch in record["launches"]] == ["shift", "spin"] and record["cut"] == []
    assert sorted(f["type"] for check in record["checks"] for f in check["findings"]) == ["data-race", "time-limit"]


@pytest.fixture(scope="module")
def ended_program(tmp_path_factory):
    """tests/nvcc/ended built by simulee-nvcc."""
    folder = tmp_path_factory.mktemp("ended")
    done = subprocess.run([TOOLS["NVCC"], "-o", str(folder / "ended"), str(HERE / "ended" / "ended.cu")],
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    return folder / "ended"


def _devices(executable: Path) -> list[int]:
    """The process ids of the devices serving `executable` (python -m simulee.server.device FD EXECUTABLE)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            arguments = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"simulee.server.device" in arguments and str(executable).encode() in arguments:
            found.append(int(entry.name))
    return found


@pytest.mark.parametrize("how", ["exit", "abort", "SIGTERM", "SIGKILL", "group"])
def test_a_device_reports_and_ends_however_its_program_ends(ended_program, tmp_path, how):
    """A program exits, crashes, is killed, or its process group is (a time-out's way): its
    device reports what it checked and is gone within its grace and cut-off (2 s and 10 s),
    however long the launch it was running would have taken (a second kernel's worth here)."""
    from simulee.exec.standalone import CUT_SECONDS, GRACE_SECONDS

    report = tmp_path / "report"
    program = subprocess.Popen([str(ended_program), how if how in ("exit", "abort") else "wait"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                               env={**os.environ, "SIMULEE_REPORT": str(report)})
    assert program.stdout.readline() == "launching\n"
    time.sleep(1.5)  # the long launch runs
    if how in ("SIGTERM", "SIGKILL"):
        program.send_signal(getattr(signal, how))
    elif how == "group":
        os.killpg(program.pid, signal.SIGTERM)
    program.wait(timeout=120)
    ended = time.monotonic()
    while _devices(ended_program) and time.monotonic() - ended < GRACE_SECONDS + CUT_SECONDS + 20:
        time.sleep(0.2)
    assert not _devices(ended_program), f"the device outlived its program ({how})"
    (record,) = [json.loads(path.read_text()) for path in report.glob("ended-*.json")]
    (launch,) = record["launches"]
    assert launch["kernel"] == "spin" and record["pid"] == program.pid
    (check,) = record["checks"]
    if how == "exit":
        assert program.returncode == 0 and check["findings"] == []
    else:
        (stopped,) = check["findings"]
        assert stopped["type"] == "time-limit" and "the program it ran for ended" in stopped["message"]
