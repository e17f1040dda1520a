"""What users hand to `run` and `check` (buffers, output paths, options) and what they get
back (exit status, one-line errors): bad input is refused clearly, never a traceback."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from conftest import ERRORS, KERNELS, ROOT, after, at, lines_of, position_of

SAXPY = KERNELS / "saxpy.cu"
HEAP = KERNELS / "heap.cu"
ONE_LAUNCH = ("--grid", "1", "--block", "8", "--arg", "n=8", "--arg", "a=2")


@pytest.fixture(autouse=True)
def _relative_paths(monkeypatch):
    monkeypatch.chdir(ROOT)


def run_saxpy(run_cli, *options):
    return run_cli("run", SAXPY, *ONE_LAUNCH, *options)


# ---------------------------------------------------------------------------- buffers


@pytest.mark.parametrize("spec, message", [
    ("x=str:4", "--buffer x=str:4: dtype <U0 is not numeric"),
    ("x=object:4", "--buffer x=object:4: dtype object is not numeric"),
    ("x=datetime64[s]:4", "--buffer x=datetime64[s]:4: dtype datetime64[s] is not numeric"),
    ("x=V8:4", "--buffer x=V8:4: dtype |V8 is not numeric"),
    ("x=float32:99999999999999", "--buffer x=float32:99999999999999: 363.8 TiB is more than the memory available"),
    ("x=float32:0", "--buffer x=float32:0: COUNT must be a positive integer"),
    ("x=float32:-4", "--buffer x=float32:-4: COUNT must be a positive integer"),
    ("x=float64:8", "--buffer x=float64:8: float64 data for a pointer to const float (float32); give float32 data "
                    "or add --buffer-cast to convert it"),
    ("x=int32:8", "--buffer x=int32:8: int32 data for a pointer to const float (float32)"),
])
def test_a_buffer_that_cannot_be_device_memory_is_refused(run_cli, spec, message):
    status, out, err = run_saxpy(run_cli, "--buffer", spec)
    assert status == 2 and out == ""
    assert err.startswith(f"simulee: error: {message}") and len(err.splitlines()) == 1, err


def test_a_big_endian_array_is_converted_not_reinterpreted(run_cli, tmp_path):
    values = np.arange(8, dtype=">f4")
    np.save(tmp_path / "x.npy", values)
    status, _, err = run_saxpy(run_cli, "--buffer", f"x=@{tmp_path / 'x.npy'}", "--buffer", "y=float32:8",
                               "-o", tmp_path / "out.npz")
    assert status == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "out.npz")["y"], 2 * np.arange(8, dtype=np.float32))


def test_buffer_cast_converts_as_c_does_and_refuses_what_does_not_fit(run_cli, tmp_path):
    np.save(tmp_path / "x.npy", np.arange(8, dtype=np.float64) / 2)
    status, _, err = run_saxpy(run_cli, "--buffer", f"x=@{tmp_path / 'x.npy'}", "--buffer-cast",
                               "-o", tmp_path / "out.npz")
    assert status == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "out.npz")["y"], np.arange(8, dtype=np.float32))
    oob = ("run", KERNELS / "faults.cu", "-k", "out_of_bounds", "--grid", "1", "--block", "4", "--arg", "n=0")
    status, _, err = run_cli(*oob, "--buffer", "data=float64:4:iota")
    assert status == 2 and "float64 data for a pointer to int (int32)" in err
    np.save(tmp_path / "halves.npy", np.array([-1.5, 0.5, 2.0, 3.75]))
    status, _, err = run_cli(*oob, "--buffer", f"data=@{tmp_path / 'halves.npy'}", "--buffer-cast",
                             "-o", tmp_path / "out.npz")
    assert status == 0 and np.load(tmp_path / "out.npz")["data"].tolist() == [1, 1, 1, 1]  # all overwritten
    np.save(tmp_path / "huge.npy", np.array([1.0, 1e20]))
    status, _, err = run_cli(*oob, "--buffer", f"data=@{tmp_path / 'huge.npy'}", "--buffer-cast")
    assert status == 2 and err.endswith("--buffer-cast cannot convert 1e+20 to int32\n")


def test_an_npz_or_unreadable_file_is_refused(run_cli, tmp_path):
    np.savez(tmp_path / "two.npz", x=np.zeros(4, np.float32), y=np.zeros(4, np.float32))
    status, _, err = run_saxpy(run_cli, "--buffer", f"x=@{tmp_path / 'two.npz'}")
    assert status == 2 and "holds several arrays (.npz); give one .npy file" in err
    (tmp_path / "garbage.npy").write_bytes(b"\x93NUMPY garbage")
    status, _, err = run_saxpy(run_cli, "--buffer", f"x=@{tmp_path / 'garbage.npy'}")
    assert status == 2 and "cannot load" in err and len(err.splitlines()) == 1


def test_each_parameter_takes_one_value(run_cli):
    status, _, err = run_saxpy(run_cli, "--arg", "n=16")
    assert (status, err) == (2, "simulee: error: --arg n: n is given twice (each parameter takes one value)\n")
    status, _, err = run_saxpy(run_cli, "--buffer", "x=float32:8", "--buffer", "x=float32:16")
    assert (status, err) == (2, "simulee: error: --buffer x: x is given twice (each parameter takes one value)\n")


# ---------------------------------------------------------------------------- outputs


def test_run_writes_its_buffers_under_exactly_the_name_given(run_cli, tmp_path):
    out = tmp_path / "out.txt"
    status, _, _ = run_saxpy(run_cli, "-o", out)
    assert status == 0 and out.exists() and not (tmp_path / "out.txt.npz").exists()
    assert sorted(np.load(out)) == ["x", "y"]


@pytest.mark.parametrize("command, option", [
    (("trace", SAXPY, "--grid", "1", "--block", "8"), "-o"),
    (("check", SAXPY), "-o"),
    (("compile", SAXPY), "-o"),
    (("run", SAXPY, *ONE_LAUNCH), "-o"),
    (("run", SAXPY, *ONE_LAUNCH), "--trace"),
])
def test_an_output_in_a_missing_folder_names_the_folder(run_cli, tmp_path, command, option):
    target = tmp_path / "no" / "such" / "out.csv"
    status, _, err = run_cli(*command, option, target)
    assert status == 2
    assert err == f"simulee: error: cannot write {target}: no such folder {target.parent}\n"


# ---------------------------------------------------------------------------- the device heap


def test_malloc_gives_null_past_the_heap(run_cli, tmp_path):
    out = tmp_path / "out.npz"
    status, _, err = run_cli("run", HEAP, "-k", "too_much", "--grid", "1", "--block", "128", "--arg", "bytes=1000",
                             "--heap-bytes", "64K", "-o", out)
    assert status == 0, err
    got = np.load(out)["got"]
    assert got.sum() == 65536 // 1008 and got[: 65536 // 1008].all()  # the first ones fit, the rest get NULL
    status, _, _ = run_cli("run", HEAP, "-k", "too_much", "--grid", "1", "--block", "8", "--arg",
                           "bytes=9000000", "-o", out)  # more than the 8 MiB CUDA gives by default
    assert status == 0 and np.load(out)["got"].tolist() == [0] * 8


def test_freed_memory_is_reused_and_sums_come_out_right(run_cli, tmp_path):
    out = tmp_path / "out.npz"
    status, _, err = run_cli("run", HEAP, "-k", "churn", "--grid", "1", "--block", "128", "--arg", "rounds=100",
                             "-o", out)  # 51 MiB allocated in all, never more than 1 MiB at once
    assert status == 0, err
    assert np.load(out)["out"].tolist() == [sum(range(100))] * 128
    status, _, err = run_cli("run", HEAP, "-k", "scratch", "--grid", "1", "--block", "64", "--arg", "n=10",
                             "-o", out)
    assert status == 0 and np.load(out)["out"].tolist() == [45 + 10 * t for t in range(64)]


def second_free() -> str:
    """'LINE:COLUMN' of free_twice's second free(p)."""
    first, column = position_of(HEAP, "free(p);", "free_twice")
    return f"{next(line for line in lines_of(HEAP, 'free(p);') if line > first)}:{column}"


@pytest.mark.parametrize("kernel, position, message", [
    ("free_twice", second_free, "double free in 128 threads"),
    ("use_after_free", lambda: at(HEAP, "p[0];", "use_after_free"), "use after free in 128 threads"),
    ("free_inside", lambda: at(HEAP, "free(p + 4)"), "invalid free in 128 threads"),
])
def test_heap_misuse_is_a_finding(run_cli, kernel, position, message):
    status, _, err = run_cli("run", HEAP, "-k", kernel, "--grid", "2", "--block", "64")
    assert status == 1
    assert err.splitlines()[0] == f"tests/kernels/heap.cu:{position()}: error: {message}"
    status, out, _ = run_cli("check", HEAP, "-k", kernel, "--format", "json")
    types = {f["type"] for f in json.loads(out)["kernels"][0]["findings"]}
    assert status == 1 and message.split(" in ")[0].replace(" ", "-") in types


def test_the_heap_is_bounded_by_the_option(run_cli):
    status, _, err = run_cli("run", HEAP, "-k", "scratch", "--grid", "1", "--block", "8", "--arg", "n=4",
                             "--heap-bytes", "lots")
    assert status == 2 and "--heap-bytes: 'lots' is not a size" in err


# ---------------------------------------------------------------------------- exit status and errors


def test_compiling_invalid_ir_writes_nothing_and_exits_2(run_cli, tmp_path):
    out = tmp_path / "out.ll"
    status, stdout, err = run_cli("compile", ERRORS / "broken.ll", "-o", out)
    assert status == 2 and stdout == "" and not out.exists()
    assert err.startswith("simulee: error: ") and "broken.ll: invalid LLVM IR:" in err and len(err.splitlines()) == 1


def test_a_compile_error_has_one_prefix_and_verbose_shows_every_diagnostic(run_cli):
    status, _, err = run_cli("check", "tests/errors/syntax_error.cu")
    assert status == 2 and err.count("error:") == 1
    missing = after(ERRORS / "syntax_error.cu", "doubled = data[i]")  # the semicolon
    assert err == f"simulee: error: tests/errors/syntax_error.cu:{missing}: expected ';' at end of declaration " \
                  "(and 1 more error)\n"
    status, _, err = run_cli("check", "tests/errors/syntax_error.cu", "-v")
    assert status == 2 and "use of undeclared identifier 'undefined_name'" in err  # the second error too
    assert err.rstrip().splitlines()[-1].startswith(f"simulee: error: tests/errors/syntax_error.cu:{missing}:")


def test_run_shows_its_required_options_and_asks_for_them(run_cli):
    from simulee.cli import build_parser

    usage = build_parser()._subparsers._group_actions[0].choices["run"].format_usage()
    assert "--grid G --block B" in usage and "[--grid G]" not in usage
    status, _, err = run_cli("run", SAXPY)
    assert status == 2
    assert err == "simulee: error: the following arguments are required: --grid, --block (see simulee run --help)\n"


@pytest.mark.parametrize("name", ["fill<int,4>", "fill<int, 4>", "fill< int , 4 >", "fill"])
def test_template_kernels_are_named_with_or_without_spaces(run_cli, name):
    status, out, err = run_cli("run", KERNELS / "template_kernel.cu", "-k", name, "--grid", "1", "--block", "4",
                               "--arg", "value=3")
    assert status == 0 and out.startswith("simulee: fill<int, 4>: 4 threads"), err


def _start(*arguments) -> subprocess.Popen:
    """Simulee as a foreground process: Ctrl-C reaches it even when the tests run as a
    shell's background job (which inherits SIGINT ignored)."""
    return subprocess.Popen([sys.executable, "-m", "simulee", *map(str, arguments)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def test_ctrl_c_stops_a_run_with_status_130():
    process = _start("run", KERNELS / "loops.cu", "-k", "count_forever", "--grid", "1", "--block", "64",
                     "--step-limit", "1000000000")
    time.sleep(3)  # well into the loop
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 130 and err == "simulee: interrupted\n" and "Traceback" not in err


def test_ctrl_c_stops_a_scan_with_status_130_and_readable_reports(tmp_path):
    repository = tmp_path / "repository"
    repository.mkdir()
    (repository / "forever.cu").write_text((KERNELS / "loops.cu").read_text())
    folder = tmp_path / "out"
    process = _start("scan", repository, "-o", folder, "--jobs", "1", "--step-limit", "1000000000", "-q")
    deadline = time.time() + 120
    while not (folder / "summary.md").exists() and time.time() < deadline:
        time.sleep(0.2)
    time.sleep(1)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert err.startswith("simulee: interrupted; what finished is in ") and "(go on with --resume)" in err
    assert "# Simulee scan: repository" in (folder / "summary.md").read_text()
    assert json.loads((folder / "report.sarif").read_text())["version"] == "2.1.0"


def test_a_hung_pool_task_is_recorded_as_a_timeout():
    """The worker pool's own timeout, behind the kernel's time limit: a task that never
    returns is stopped and recorded."""
    from simulee.scanner.workers import Limits, Pool

    with Pool(1, Limits(seconds=1.0, memory=0)) as pool:
        record = pool.submit(_hang, _Task()).result(timeout=60)
    assert record == {"status": "timeout", "message": "no result after 1 s (--kernel-timeout)", "seconds": 1.0}


class _Task:
    def failed(self, status: str, message: str, seconds: float = 0.0) -> dict:
        return {"status": status, "message": message, "seconds": seconds}


def _hang(task) -> dict:
    time.sleep(600)
    return {}


# ---------------------------------------------------------------------------- aliases


def test_an_alias_makes_two_pointers_one_buffer(run_cli, tmp_path):
    status, _, err = run_saxpy(run_cli, "--buffer", "y=float32:8:iota", "--alias", "x=y", "-o", tmp_path / "out.npz")
    assert status == 0, err
    np.testing.assert_array_equal(np.load(tmp_path / "out.npz")["y"], 3 * np.arange(8, dtype=np.float32))  # 2y + y
    kernel = KERNELS / "aliasing.cu"
    assert run_cli("check", kernel, "--format", "json")[0] == 0  # separate buffers: clean
    status, out, _ = run_cli("check", kernel, "--alias", "out=in", "--format", "json")
    (finding,) = json.loads(out)["kernels"][0]["findings"]
    assert status == 1 and finding["type"] == "data-race" and finding["launch"]["args"]["out"] == "=in"


@pytest.mark.parametrize("alias, message", [
    ("x=n", "--alias x=n: names two different pointer parameters"),
    ("x=x", "--alias x=x: names two different pointer parameters"),
    ("x=z", "--alias z: saxpy has no parameter 'z'"),
    ("y=x", "--alias y=x: y is given already"),
])
def test_a_wrong_alias_is_a_one_line_error(run_cli, alias, message):
    status, out, err = run_saxpy(run_cli, "--buffer", "y=float32:8", "--alias", alias)
    assert status == 2 and err.startswith(f"simulee: error: {message}") and len(err.splitlines()) == 1, err
