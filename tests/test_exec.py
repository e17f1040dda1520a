"""`simulee exec`: whole programs built with the bundled clang, run on Simulee's device, every
launch checked on the program's own data."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from conftest import TESTS, line_of

PROGRAMS = Path(__file__).parent / "programs"
pytestmark = pytest.mark.xdist_group("exec")  # one worker builds the runtime, the others wait for nothing


def simulee_exec(*arguments, cwd=PROGRAMS, timeout=900):
    """(exit status, the program's stdout, Simulee's stderr) of `simulee exec ARGUMENTS`;
    `timeout` guards against a hang only (the first exec builds the runtime, slow on a busy
    machine)."""
    done = subprocess.run([sys.executable, "-m", "simulee", "exec", *map(str, arguments)], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout)
    return done.returncode, done.stdout, done.stderr


def test_a_reduction_prints_its_sum_and_is_clean():
    status, out, err = simulee_exec("reduction.cu", "-q")
    assert out == "sum = 12285 (expected 12285): PASS\n"
    assert status == 0, err
    assert "0 errors, 0 warnings" in err and "1 launch checked; the program exited with status 0" in err


def test_a_reduction_without_its_loop_barrier_races_on_the_programs_own_input():
    status, out, err = simulee_exec("reduction.cu", "-D", "MISSING_BARRIER", "--", "1000")
    assert "sum = 2997 (expected 2997)" in out  # the interpreter's order hides it; the race is still there
    assert status == 1
    race = line_of(PROGRAMS / "reduction.cu", "partial[t] += partial[t + stride]")
    launch = line_of(PROGRAMS / "reduction.cu", "block_sum<<<")
    assert f"reduction.cu:{race}:" in err and "data race (read-write, shared" in err
    assert f"n=1000 (launch 1 at reduction.cu:{launch})" in err


def test_a_scatter_races_only_on_an_input_with_duplicate_indices(tmp_path):
    permutation, duplicated = tmp_path / "permutation.txt", tmp_path / "duplicated.txt"
    permutation.write_text(" ".join(str((i * 37) % 128) for i in range(128)))
    duplicated.write_text(" ".join(str(i // 2) for i in range(128)))
    status, out, err = simulee_exec("scatter.cu", "--", permutation)
    assert out == "scattered 128 values, total 8128\n"
    assert status == 0 and "0 errors" in err, err
    status, out, err = simulee_exec("scatter.cu", "--", duplicated)
    assert out.startswith("scattered 128 values")
    assert status == 1
    assert f"scatter.cu:{line_of(PROGRAMS / 'scatter.cu', 'if (i < n) out[index[i]]')}:" in err
    assert "data race (write-write, global" in err


def test_managed_memory_and_variables_are_the_hosts_and_the_kernels():
    status, out, err = simulee_exec("managed.cu")
    assert out == "data[3] = 81, sum = 1950333330, calls = 2\n"
    assert status == 0, err


def test_two_streams_race_unless_an_event_orders_them():
    produce = line_of(PROGRAMS / "streams.cu", "produce<<<")
    consume = line_of(PROGRAMS / "streams.cu", "consume<<<")
    status, out, err = simulee_exec("streams.cu")
    assert out == "out[10] = 20\n"
    assert status == 1
    assert f"streams.cu:{consume}:" in err and "stream race (read-write, global)" in err
    assert f"launch 1 (produce at streams.cu:{produce})" in err
    status, out, err = simulee_exec("streams.cu", "-D", "ORDERED")
    assert status == 0 and "0 errors" in err, err


def test_the_legacy_default_stream_waits_for_blocking_streams_only():
    status, out, err = simulee_exec("streams.cu", "-D", "LEGACY")
    assert out == "out[10] = 20\n" and status == 0 and "0 errors" in err, err
    status, out, err = simulee_exec("streams.cu", "-D", "LEGACY", "-D", "NON_BLOCKING")
    assert status == 1 and "stream race (read-write, global)" in err and "in the default stream" in err, err


def test_errors_are_the_ones_a_gpu_gives():
    status, out, err = simulee_exec("errors.cu", "--stop-on-fault")  # a write past the end fails as it does there
    assert out.splitlines() == [
        "launch with 2048 threads: invalid configuration argument (cudaErrorInvalidConfiguration)",
        "then: no error",
        "64 KiB of shared memory: cudaErrorInvalidConfiguration",
        "after the opt-in: cudaSuccess",
        "cudaIpcGetMemHandle: cudaErrorNotSupported",
        "launch: no error",
        "synchronize: an illegal memory access was encountered",
        "copy after: cudaErrorIllegalAddress",
    ]
    assert "simulee: cudaIpcGetMemHandle is not supported: it returns cudaErrorNotSupported" in err
    fault = line_of(PROGRAMS / "errors.cu", "data[threadIdx.x * 1000] = 1")
    assert f"errors.cu:{fault}:" in err and "out of bounds in 31 threads" in err
    assert status == 1
    status, out, err = simulee_exec("errors.cu")  # as on a GPU without a checker: the writes are dropped
    assert out.splitlines()[6:] == ["synchronize: no error", "copy after: cudaSuccess"]
    assert f"errors.cu:{fault}:" in err and status == 1


def test_constant_memory_symbols_device_properties_and_events():
    status, out, err = simulee_exec("constants.cu")
    x = 99.5
    assert out.splitlines() == [
        f"y[2] = 10, y[199] = {1 + x * (2 + x * (3 + x * 4)):.5g}, evaluated 200",
        "1 device: Simulee virtual GPU, compute capability 7.0, warp 32",
        "elapsed: measured",
    ]
    assert status == 0, err


def test_a_program_of_a_cpp_file_and_a_cu_file():
    status, out, err = simulee_exec("multi/main.cpp", "multi/scale.cu")
    assert out == "host[7] = 21, host[49] = 147\n"
    assert status == 0, err


def test_a_build_is_kept_and_reused_until_a_file_it_read_changes(tmp_path):
    """exec keeps a program's build in the cache folder (builds/): run again unchanged, it
    is not built again (its kept entry is not rewritten) and prints the same; once a header
    it includes changes, it is rebuilt and prints the new value; a damaged entry is rebuilt."""
    from simulee.frontend.cache import cache_root

    source = tmp_path / "main.cu"
    (tmp_path / "value.h").write_text("#define VALUE 7\n")
    source.write_text('#include <cstdio>\n#include "value.h"\n'
                      "__global__ void set(int *p) { *p = VALUE; }\n"
                      "int main() {\n  int *d, h;\n  cudaMalloc(&d, sizeof(int));\n  set<<<1, 1>>>(d);\n"
                      "  cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);\n  printf(\"%d\\n\", h);\n"
                      "  return 0;\n}\n")

    def kept() -> dict:
        return {manifest: manifest.stat().st_mtime_ns for manifest in (cache_root() / "exec" / "builds").glob(
            "*/manifest.json") if str(source) in manifest.read_text()}

    assert simulee_exec(source, "-q", cwd=tmp_path)[:2] == (0, "7\n")
    (first,) = kept().items()
    assert simulee_exec(source, "-q", cwd=tmp_path)[:2] == (0, "7\n")
    assert kept() == dict([first])
    (tmp_path / "value.h").write_text("#define VALUE 9\n")
    assert simulee_exec(source, "-q", cwd=tmp_path)[:2] == (0, "9\n")
    assert kept()[first[0]] != first[1]
    (first[0].parent / "program").write_bytes(b"damaged")
    assert simulee_exec(source, "-q", cwd=tmp_path)[:2] == (0, "9\n")


def test_a_crash_is_reported_with_what_was_checked_before_it():
    status, out, err = simulee_exec("crash.cu")
    assert out == "before the crash\n"
    assert status == 128 + 11
    assert "1 launch checked; the program was killed by signal 11 (SIGSEGV)" in err


def test_a_program_that_never_ends_is_stopped_at_its_timeout():
    status, out, err = simulee_exec("spin.cu", "--timeout", "3")
    assert out == "spinning\n"
    assert status == 124
    assert "1 launch checked; the program ran out of time and was stopped" in err


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_a_program_does_not_outlive_simulee_stopped_by_a_signal(how):
    """A CI job's time-out (SIGTERM) or a kill -9 of Simulee ends the program it runs, which
    would otherwise spin on in a session of its own."""
    simulee = subprocess.Popen([sys.executable, "-m", "simulee", "exec", "spin.cu", "-q"], cwd=PROGRAMS,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert simulee.stdout.readline() == "spinning\n"
    children = Path(f"/proc/{simulee.pid}/task/{simulee.pid}/children").read_text().split()
    assert children
    simulee.send_signal(how)
    assert simulee.wait(timeout=60) in (-how, 128 + how)
    for child in children:
        for _ in range(600):  # the kernel delivers the death signal at once; reaping may lag
            if not Path(f"/proc/{child}").exists() or "Z" in Path(f"/proc/{child}/stat").read_text().split()[2]:
                break
            time.sleep(0.1)
        else:
            pytest.fail(f"the program (pid {child}) still runs")


def test_the_report_as_json_names_each_launch(tmp_path):
    report = tmp_path / "report.json"
    status, _, _ = simulee_exec("reduction.cu", "-D", "MISSING_BARRIER", "--format", "json", "-o", report)
    assert status == 1
    data = json.loads(report.read_text())
    launch = line_of(PROGRAMS / "reduction.cu", "block_sum<<<")
    finding = data["kernels"][0]["findings"][0]
    assert finding["type"] == "data-race"
    assert finding["launch"]["origin"] == f"launch 1 at reduction.cu:{launch}"
    assert finding["launch"]["grid"] == [16, 1, 1] and finding["launch"]["args"]["n"] == 4096


def test_a_program_that_does_not_compile_is_one_line_and_status_2(tmp_path):
    broken = tmp_path / "broken.cu"
    broken.write_text("__global__ void k() { undeclared = 1; }\nint main() { return 0; }\n")
    status, out, err = simulee_exec(broken, cwd=tmp_path)
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("simulee: error: ") and "undeclared" in err


def simulee(*arguments, cwd=PROGRAMS):
    done = subprocess.run([sys.executable, "-m", "simulee", *map(str, arguments)], cwd=cwd, capture_output=True,
                          text=True, timeout=300)
    return done.returncode, done.stdout, done.stderr


def test_a_saved_launch_replays_on_the_memory_it_had(tmp_path):
    """The scatter's race lives in its index buffer: a replay that did not restore the
    program's memory would miss it (and find one on the permutation's)."""
    for name, indices, expected in (("duplicated", [i // 2 for i in range(128)], 1),
                                    ("permutation", [(i * 37) % 128 for i in range(128)], 0)):
        (tmp_path / f"{name}.txt").write_text(" ".join(map(str, indices)))
        saved = tmp_path / name
        status, _, err = simulee_exec("scatter.cu", "--save-launches", saved, "--", tmp_path / f"{name}.txt")
        assert status == expected, err
        assert sorted(p.name for p in (saved / "0001").iterdir()) == ["launch.json", "memory.npz"]
        status, out, err = simulee("check", "--replay", saved / "0001")
        assert status == expected, out + err
        if expected:
            assert "data race (write-write, global" in out and "(replayed)" in out
        else:
            assert "0 errors, 0 warnings" in out


def test_replay_of_a_folder_that_is_not_a_saved_launch_is_one_line(tmp_path):
    status, out, err = simulee("check", "--replay", tmp_path)
    assert status == 2 and err.startswith("simulee: error: ") and "not a saved launch" in err


def test_the_search_starts_from_the_launches_a_program_made(tmp_path):
    saved = tmp_path / "saved"
    status, out, _ = simulee_exec("rare.cu", "--save-launches", saved)
    assert out == "done\n" and status == 1
    status, out, _ = simulee("check", "rare.cu", "--no-prove")
    assert status == 0 and "0 errors" in out  # n = 7777 is not a value the search tries
    status, out, _ = simulee("check", "rare.cu", "--seed-launches", saved, "--no-prove")
    assert status == 1 and "error: data race (write-write, global" in out and "(a launch the program made)" in out
    # the solver computes n = 7777 too, but the host's n comes from argv: a value Simulee chose, a warning
    status, out, _ = simulee("check", "rare.cu")
    assert status == 0 and "warning: data race (write-write, global" in out and \
        "only for values Simulee chose (n=7777)" in out


def test_curand_device_api():
    status, out, err = simulee_exec("random.cu")
    assert out == "mean 0.5, 256 distinct, all in (0, 1]: yes\n"
    assert status == 0, err


def test_an_async_copy_in_another_stream_races_with_the_kernel_it_did_not_wait_for():
    status, out, err = simulee_exec("streams.cu", "-D", "ORDERED", "-D", "COPY_RACE")
    copy = line_of(PROGRAMS / "streams.cu", "cudaMemcpyAsync(early")
    consume = line_of(PROGRAMS / "streams.cu", "consume<<<")
    assert status == 1
    assert f"streams.cu:{copy}: error: stream race (read-write, global) between a copy at streams.cu:{copy}" in err
    assert f"launch 2 (consume at streams.cu:{consume})" in err


def test_a_kernel_of_many_parameters_a_struct_and_a_table_of_device_pointers():
    status, out, err = simulee_exec("arguments.cu")
    assert out == "out[3] = 174.5 (expected 174.5)\n"
    assert status == 0, err


def test_host_threads_call_the_runtime_at_once():
    status, out, err = simulee_exec("threads.cu")
    assert out.splitlines() == [f"worker {w}: {499500 + w * 1000 * 1000} (callback ran)" for w in range(4)]
    assert status == 0, err
    assert "4 launches checked" in err


def test_a_programs_kernel_runs_past_the_step_budget_a_check_gives():
    status, out, err = simulee_exec("long_loop.cu")
    assert out == f"total {150000 * 149999 // 2}: right\n"
    assert status == 0 and "step limit" not in err, err


def test_a_program_without_kernels():
    status, out, err = simulee_exec("query.cpp")
    assert out == "1 device, Simulee virtual GPU, 80 multiprocessors, runtime 12\n"
    assert status == 0 and "0 launches checked" in err, err


def test_a_kernel_that_only_prints_prints_in_order_and_is_no_vacuous_check():
    status, out, err = simulee_exec("hello.cu")
    assert out.splitlines() == ["before", *(f"hello from thread {t}" for t in range(3)), "after"]
    assert status == 0 and "0 errors, 0 warnings" in err, err


def test_texture_objects_sample_arrays_pitched_and_linear_memory_as_cuda_does():
    status, out, err = simulee_exec("textures.cu", "-q")
    parts = ("clamp", "linear", "wrap", "normalized", "layered", "cubemap", "linear memory", "round trip")
    assert out.splitlines() == [f"{part}: ok" for part in parts] + ["PASSED"], out
    assert status == 0, err


def test_graphs_built_captured_conditional_updated_and_nested_run_in_dependency_order():
    status, out, err = simulee_exec("graphs.cu", "-q")
    assert out.splitlines() == ["built: 6 nodes, c[10] = 37, host node ran 2 times", "updated: c[10] = 57",
                                "captured: 3 nodes, c[0] = 42", "conditional: counted to 5",
                                "outer: c[10] = 37, host node ran 4 times, event cudaSuccess"], out
    assert status == 0 and "0 errors" in err, err


def test_graph_nodes_with_no_path_between_them_race():
    status, out, err = simulee_exec("graphs.cu", "-D", "GRAPH_RACE")
    fill = line_of(PROGRAMS / "graphs.cu", "CHECK(cudaGraphAddKernelNode(&filled")
    scale = line_of(PROGRAMS / "graphs.cu", "CHECK(cudaGraphAddKernelNode(&scaled")
    assert status == 1
    assert (f"graphs.cu:{fill}: error: stream race (write-write, global) between launch 2 (fill at graphs.cu:{fill}) "
            f"in a graph node and launch 1 (scale at graphs.cu:{scale}) in a graph node") in err
    assert "captured" in out and err.count("error: stream race") == 2, err


def test_kernels_launch_kernels_allocate_and_print_their_own_strings():
    status, out, err = simulee_exec("dynamic.cu", "-q")
    assert out.splitlines() == ["data[0] = 101, data[1] = 101, data[2] = 1, data[192] = 104",
                                "line 0: 0", "line 1: 1", "line 2: 3", "no error"], out
    assert status == 0 and "0 errors" in err and "11 launches checked" in err, err


def test_child_grids_of_different_blocks_are_unordered():
    status, out, err = simulee_exec("dynamic.cu", "-D", "CHILD_RACE")
    launch = line_of(PROGRAMS / "dynamic.cu", "child<<<SLICE / 32, 32>>>")
    assert status == 1
    assert (f"dynamic.cu:{launch}: error: stream race (write-write, global) between launch 4 (child at "
            f"dynamic.cu:{launch}) in the stream of block 1 of launch 1 and launch 2 (child at dynamic.cu:{launch}) "
            f"in the stream of block 0 of launch 1") in err


def test_a_barrier_a_launch_was_cut_at_is_not_redundant_in_any_instance():
    """staged<32> alone would make the template's barrier redundant; staged<1024> needs it,
    but reads more than a trace holds before it (cuda-samples' reduce7: a false warning once):
    judged in parts cut inside its barrier interval, no instance judges the barrier redundant."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.json"
        status, out, err = simulee_exec("limits.cu", "--format", "json", "-o", report)
        assert out == "4400 2\n" and status == 0, err
        kernels = {kernel["kernel"]: kernel for kernel in json.loads(report.read_text())["kernels"]}
    assert [finding for kernel in kernels.values() for finding in kernel["findings"]] == []  # none redundant
    assert max(launch.get("parts", 1) for launch in kernels["staged<1024>"]["launches"]) > 1  # cut inside


def test_a_program_written_as_older_code_builds_as_nvcc_and_gcc_build_it():
    """oldstyle: `<< <` launches, host C with implicit int and declarations, glibc's error.h
    and execinfo.h and OpenMP's omp.h (stand-ins: one thread, no backtraces, said), "..."MACRO,
    std::unary_function and pow(float, int)."""
    sources = ("oldstyle/main.cu", "oldstyle/helpers.c")
    status, out, err = simulee_exec(*sources)
    assert out == "filled 100 on 1 thread(s)\nv[99] = 594, 0 frames, half of it 297\n"
    assert status == 0, err
    assert "oldstyle/main.cu: built without what it needs: stand-ins for error.h (as glibc's), execinfo.h " \
           "(no backtraces), omp.h (one thread, #pragma omp ignored)" in err
    assert "1 launch checked; the program exited with status 0" in err and "0 errors" in err
    # the spaced launch is checked: a shifted write races, and error() ends the program as glibc's does
    status, out, err = simulee_exec(*sources, "-D", "SHIFTED")
    assert status == 1 and "program: v[99] is 588, not 594" in err
    race = line_of(PROGRAMS / "oldstyle" / "main.cu", "reads the slot the next thread writes")
    launch = line_of(PROGRAMS / "oldstyle" / "main.cu", "doubled << <")
    assert f"main.cu:{race}:" in err and f"(launch 1 at oldstyle/main.cu:{launch})" in err
    assert "the program exited with status 3" in err


def test_a_program_that_only_draws_optionally_builds_without_gl_and_one_that_must_draw_says_why_not(tmp_path):
    status, out, err = simulee_exec("draws.cu")  # GL, GLEW and GLUT are missing: the drawing does nothing
    assert out == "h[31] = 31\n" and status == 0, err
    assert "draws.cu: built without what it needs: missing: GL/glew.h, GL/glut.h; functions taken to do nothing: " \
           "glutSwapBuffers, glutInit, glClear; constants taken to be unknown: GL_COLOR_BUFFER_BIT" in err
    source = tmp_path / "drawn.cu"  # main computes with what GL gives: leaving it out would leave nothing
    source.write_text("// a warning's source line: int error_count = 1.5;\nstatic int error_count = 1.5;\n"
                      "#include <GL/glut.h>\nint main() { GLint width; glGetIntegerv(GL_VIEWPORT, &width); "
                      "return width + error_count; }\n")
    status, _, err = simulee_exec(source)  # the compiler's first error, not a line that mentions one
    assert status == 2 and err.strip().endswith("drawn.cu:3:10: fatal error: 'GL/glut.h' file not found"), err


def test_a_host_error_nothing_can_leave_out_fails_with_it_at_once(tmp_path):
    source = tmp_path / "broken.cu"  # the error is at namespace scope: no function to leave out, no GPU to try
    source.write_text("static int broken = not_declared;\nint main() { return broken; }\n")
    status, _, err = simulee_exec(source, timeout=120)
    assert status == 2 and err.strip().endswith("broken.cu:1:21: use of undeclared identifier 'not_declared'"), err


def test_a_program_goes_on_after_a_read_past_a_buffer_and_its_later_launches_are_checked():
    status, out, err = simulee_exec("past_end.cu")
    assert out == "sum_next: no error\ncopy: no error, out[0] = 3, out[63] = 189\n"  # the read past gave 0
    past = line_of(PROGRAMS / "past_end.cu", "reads one past the end")
    race = line_of(PROGRAMS / "past_end.cu", "every thread adds into one float")
    assert status == 1 and f"past_end.cu:{past}:" in err and "out of bounds in 1 thread" in err
    assert f"past_end.cu:{race}:" in err and "data race" in err
    assert "4 launches checked; the program exited with status 0" in err
    # compute-sanitizer's way: the launch fails, the error sticks, nothing after it runs
    status, out, err = simulee_exec("past_end.cu", "--stop-on-fault")
    assert out.startswith("sum_next: an illegal memory access was encountered\ncopy: an illegal memory access")
    assert f"past_end.cu:{race}:" not in err and "1 launch checked" in err


def test_texture_references_bind_linear_pitched_and_array_memory_as_cuda_before_12_did():
    status, out, err = simulee_exec("texture_refs.cu")
    # tex1Dfetch from linear memory; byte (2, 1) read as a normalized float; a linear filter between two texels
    assert out == "gathered 63 0\nsampled 102.0 50\n"
    assert status == 0 and "2 launches checked" in err, err


def test_checking_that_runs_out_of_the_programs_time_says_so_and_judges_no_barrier_on_it(monkeypatch, tmp_path):
    """Checking a launch stops a quarter of --timeout after the program's deadline (here at
    once): the launch is said to be checked in part, and its barriers are not judged on
    accesses nobody checked."""
    from simulee.cli import main
    from simulee.exec import runner

    monkeypatch.chdir(PROGRAMS)

    def checked():
        status = main(["exec", "reduction.cu", "--timeout", "100", "--format", "json", "-o", str(tmp_path / "r.json"),
                       "-q"])
        assert status == 0
        (kernel,) = json.loads((tmp_path / "r.json").read_text())["kernels"]
        return kernel

    assert checked()["barriers"]
    monkeypatch.setattr(runner._Checker, "checking", lambda self: [float("-inf")])
    kernel = checked()
    assert any("launch 1 was checked only in part: checking ran out of time" in note for note in kernel["notes"])
    assert kernel["barriers"] == [] and kernel["findings"] == []


@pytest.mark.parametrize("calls", [1, 2, 3, 4])
def test_checking_cut_anywhere_by_the_time_limit_reports_what_it_has(monkeypatch, tmp_path, calls):
    """The time runs out at the n-th look at the clock: in the launch's detection, or while
    a barrier is judged without it (keep), or in the kernel's verdicts; the run still
    reports, and says what was cut."""
    from simulee.cli import main
    from simulee.detect import race
    from simulee.detect.base import OutOfTime

    looks = []

    def clock():
        looks.append(1)
        if len(looks) >= calls:
            raise OutOfTime

    monkeypatch.setattr(race, "check_time", clock)
    monkeypatch.chdir(PROGRAMS)
    status = main(["exec", "reduction.cu", "--format", "json", "-o", str(tmp_path / "r.json"), "-q"])
    (kernel,) = json.loads((tmp_path / "r.json").read_text())["kernels"]
    assert status == 0 and len(looks) >= calls
    assert any("checking ran out of time" in note for note in kernel["notes"])
    assert all(b["verdict"] != "redundant" for b in kernel["barriers"])


def test_race_detection_past_its_deadline_stops():
    from interpreter.launch import Launch
    from interpreter.loader import load_module
    from interpreter.simt import execute
    from simulee.detect.base import OutOfTime, within
    from simulee.detect.race import find_races
    from simulee.frontend.compiler import load_ir
    from simulee.model.access import build_model

    program = load_module(load_ir(PROGRAMS / "reduction.cu"))
    kernel = program.kernels[0]
    arguments = {p.name: (np.zeros(4096, np.int32) if p.kind == "pointer" else 1000) for p in kernel.params}
    model = build_model(execute(program, kernel, Launch((4, 1, 1), (256, 1, 1), arguments)))
    assert find_races(model) == []
    with pytest.raises(OutOfTime), within(time.perf_counter() - 1):
        find_races(model)


@pytest.mark.parametrize("arch", ["sm_70", "sm_80", "sm_90"])
def test_what_nvcc_12_builds_computes_what_the_host_computes_on_every_arch(arch):
    """bfloat16 arithmetic takes inline PTX (fma.rn.bf16) from sm_80 on: its 16 bits once
    read as a float32's low half, every product 0; __nv_atomic_* and `register` once did
    not compile."""
    status, out, err = simulee_exec("--arch", arch, "nvcc12.cu", "-q")
    assert out == ("-2.75 -2.5 -1.25 1 4.25 8.5 13.75 20 \nbfloat16: PASS\natomics: 256 255 PASS\n"), err
    assert status == 0 and "0 errors, 0 warnings" in err


def test_a_program_killed_during_a_launch_ends_the_run_soon_with_the_launch_reported():
    """The program dies (killed by another process) while its device runs a launch that would
    take hours: the launch stops at once, what it did is checked, and the run reports."""
    ended = TESTS / "nvcc" / "ended" / "ended.cu"
    run = subprocess.Popen([sys.executable, "-m", "simulee", "exec", str(ended), "--", "wait"], cwd=PROGRAMS,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert run.stdout.readline() == "launching\n"
    time.sleep(1.5)  # the long launch runs
    (program,) = [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()
                  and _command(entry)[:1] and _command(entry)[0].endswith("/program")
                  and "simulee-exec-" in _command(entry)[0] and _parent(entry) == run.pid]
    os.kill(program, signal.SIGKILL)
    killed = time.monotonic()
    _, err = run.communicate(timeout=120)
    assert time.monotonic() - killed < 30, "the run waited for the launch"
    assert run.returncode == 128 + signal.SIGKILL and "the program was killed by signal 9" in err
    assert "when the launch was stopped: the program it ran for ended (what it did until then was checked)" in err


def _command(entry: Path) -> list[str]:
    try:
        return [part.decode() for part in (entry / "cmdline").read_bytes().split(b"\0") if part]
    except OSError:
        return []


def _parent(entry: Path) -> int:
    try:
        return int((entry / "stat").read_text().rpartition(")")[2].split()[1])
    except (OSError, IndexError, ValueError):
        return -1


def test_a_launch_too_large_to_trace_at_once_is_checked_on_every_block(tmp_path):
    """Judged in parts of about 4,000 accesses (SIMULEE_TRACE_PART), the 256-block launch
    of wide_grid.cu comes in dozens of parts: the last block's shared-memory race and its
    races in global memory with block 0, many parts before it, are all found; without
    them the program is clean."""
    environment = dict(os.environ, SIMULEE_TRACE_PART="4000")
    command = [sys.executable, "-m", "simulee", "exec", "wide_grid.cu", "--format", "json", "-o", tmp_path / "r.json"]
    racy = subprocess.run([*command, "-D", "LAST_BLOCK_RACES", "--", "256"], cwd=PROGRAMS, capture_output=True,
                          text=True, timeout=900, env=environment)
    assert racy.stdout == "last block: 128\n" and racy.returncode == 1, racy.stderr
    (kernel,) = json.loads((tmp_path / "r.json").read_text())["kernels"]
    found = sorted((f["type"], f["space"], f["scope"], f["first"]["block"][0], f["second"]["block"][0])
                   for f in kernel["findings"])
    assert found == [("data-race", "global", "inter-block", 0, 255), ("data-race", "global", "inter-block", 0, 255),
                     ("data-race", "shared", "inter-warp", 255, 255)]
    assert not kernel.get("notes"), kernel.get("notes")
    assert kernel["launches"][0]["parts"] > 20
    clean = subprocess.run([*command, "--", "256"], cwd=PROGRAMS, capture_output=True, text=True, timeout=900,
                           env=environment)
    assert clean.returncode == 0, clean.stdout + clean.stderr
