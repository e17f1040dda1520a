"""A scan stays inside the repository it was given, cleans up after its compiler, keeps
one writer per output folder, keeps its reports readable while it runs, and writes CSV
that spreadsheets read as text."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import KERNELS, ROOT, TESTS

RACY = "__global__ void racy(int *a) { a[0] = threadIdx.x; }\n"
FAST = ("--jobs", "2", "--generations", "2", "--population", "4", "-q")


def scan(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "simulee", "scan", *map(str, args)], capture_output=True, text=True,
                          timeout=600, cwd=ROOT)


def everything_written(folder: Path) -> str:
    return "\n".join(path.read_text(errors="replace") for path in sorted(folder.iterdir()) if path.is_file())


def rows(folder: Path, table: str) -> list[dict]:
    import csv

    with open(folder / table, newline="") as handle:
        return list(csv.DictReader(handle))


# ---------------------------------------------------------------------------- the repository's bounds


@pytest.fixture
def guarded(tmp_path):
    """A repository whose files reach outside it in every way, beside a secret."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.h").write_text("int SECRET_TOKEN_4711 = 1;\nthis is not C at all;\n")
    (outside / "kernel.cu").write_text("// SECRET_TOKEN_4711\n" + RACY)
    (outside / "inside_folder").mkdir()
    (outside / "inside_folder" / "hidden.cu").write_text("// SECRET_TOKEN_4711\n" + RACY)
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "absolute.cu").write_text('#include "/etc/passwd"\n' + RACY)
    (repo / "src" / "climbs.cu").write_text('#include "../../outside/secret.h"\n' + RACY)
    (repo / "src" / "linked_header.cu").write_text('#include "secret.h"\n' + RACY)
    os.symlink(outside / "secret.h", repo / "src" / "secret.h")
    os.symlink(outside / "kernel.cu", repo / "src" / "elsewhere.cu")
    os.symlink(outside / "inside_folder", repo / "linked_folder")
    (repo / "src" / "real").mkdir()
    (repo / "src" / "real" / "racy.cu").write_text(RACY)
    os.symlink(repo / "src" / "real" / "racy.cu", repo / "src" / "alias.cu")
    return repo, outside


def test_a_scan_reads_nothing_outside_the_repository(guarded, tmp_path):
    repo, outside = guarded
    folder = tmp_path / "out"
    result = scan(repo, "-o", folder, *FAST)
    assert result.returncode == 1, result.stderr
    files = {row["file"]: row for row in rows(folder, "files.csv")}
    assert set(files) == {"src/absolute.cu", "src/climbs.cu", "src/linked_header.cu", "src/elsewhere.cu",
                          "src/real/racy.cu", "src/alias.cu"}  # linked_folder/ is not entered
    for name, reason in [("src/absolute.cu", "include outside the repository: /etc/passwd"),
                         ("src/climbs.cu", f"include outside the repository: {outside / 'secret.h'}"),
                         ("src/linked_header.cu", "include outside the repository: "),
                         ("src/elsewhere.cu", f"include outside the repository: a link to {outside / 'kernel.cu'}")]:
        assert files[name]["status"] == "error" and reason in files[name]["error"], files[name]
    written = everything_written(folder) + result.stdout + result.stderr
    assert "SECRET_TOKEN_4711" not in written and "root:x:0:0" not in written
    # a link inside the repository is named by its own path everywhere
    kernels = {(row["file"], row["kernel"]) for row in rows(folder, "kernels.csv")}
    assert kernels == {("src/alias.cu", "racy"), ("src/real/racy.cu", "racy")}
    assert {row["file"] for row in rows(folder, "bugs.csv")} == {"src/alias.cu", "src/real/racy.cu"}
    sarif = json.loads((folder / "report.sarif").read_text())
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]}
    assert uris == {"src/alias.cu", "src/real/racy.cu"}


def test_a_folder_given_with_minus_i_may_be_included(guarded, tmp_path):
    repo, outside = guarded
    folder = tmp_path / "out"
    result = scan(repo, "-o", folder, "-I", outside, "--include", "climbs.cu", *FAST)
    assert result.returncode == 2, result.stderr  # nothing compiled: the header is not C
    (record,) = rows(folder, "files.csv")
    assert record["status"] == "compile-error" and "include outside the repository" not in record["error"]


def test_check_of_a_single_file_may_include_anything(run_cli, tmp_path):
    (tmp_path / "shared.h").write_text("#define VALUE 1\n")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "k.cu").write_text('#include "../shared.h"\n__global__ void k(int *a) { a[0] = VALUE; }\n')
    status, _, err = run_cli("check", tmp_path / "mine" / "k.cu", "--no-search")
    assert status == 0, err


FAKE_CLANG = """\
#!/bin/sh
# A compiler that never finishes, and starts a child (named by this script's path) that
# would outlive it.
if [ "$1" = "--version" ]; then echo "clang version 99.0.0 (a stand-in)"; exit 0; fi
if [ "$1" = "child" ]; then sleep 300; exit 0; fi
"$0" child &
sleep 300
"""


def test_a_compiler_past_its_time_is_killed_with_its_children(tmp_path):
    clang = tmp_path / "slow-clang"
    clang.write_text(FAKE_CLANG)
    clang.chmod(0o755)
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "k.cu").write_text(RACY)
    folder = tmp_path / "out"
    start = time.perf_counter()
    result = scan(repo, "-o", folder, "--clang", clang, "--compile-timeout", "2", "--jobs", "1", "-q")
    assert result.returncode == 2 and time.perf_counter() - start < 60
    (record,) = rows(folder, "files.csv")
    assert record["status"] == "error" and record["error"].endswith(": the compiler did not finish within 1 s")
    time.sleep(0.5)
    left = [pid for pid in os.listdir("/proc") if pid.isdigit() and str(tmp_path).encode() in _cmdline(pid)]
    assert left == []


def _cmdline(pid: str) -> bytes:
    try:
        return Path("/proc", pid, "cmdline").read_bytes()
    except OSError:
        return b""


# ---------------------------------------------------------------------------- the output folder


def test_a_second_scan_into_the_same_folder_is_refused(tmp_path):
    from simulee.scanner.repository import _lock

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "k.cu").write_text(RACY)
    folder = tmp_path / "out"
    folder.mkdir()
    held = _lock(folder)  # as a running scan holds it
    try:
        result = scan(repo, "-o", folder, *FAST)
    finally:
        held.close()
    assert result.returncode == 2
    assert result.stderr == (f"simulee: error: another scan is writing to {folder} (process {os.getpid()}); wait for "
                             "it or choose another folder with -o\n")
    assert scan(repo, "-o", folder, *FAST).returncode == 1  # once it is free


def test_a_folder_holding_another_repository_is_refused(tmp_path):
    for name in ("one", "two"):
        (tmp_path / name / "src").mkdir(parents=True)
        (tmp_path / name / "src" / "k.cu").write_text(RACY)
    folder = tmp_path / "out"
    assert scan(tmp_path / "one" / "src", "-o", folder, *FAST).returncode == 1
    result = scan(tmp_path / "two" / "src", "-o", folder, *FAST)
    assert result.returncode == 2
    assert result.stderr == (f"simulee: error: {folder} holds the scan of {tmp_path / 'one' / 'src'}; choose another "
                             "folder with -o\n")


def test_reports_are_readable_while_the_scan_runs(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "a_racy.cu").write_text(RACY)
    (repo / "forever.cu").write_text(textwrap.dedent("""\
        __global__ void count_forever(unsigned *out) {
          unsigned i = threadIdx.x;
          while (i != 1u) {
            i += 2;
            out[threadIdx.x] = i;
          }
        }
        """))
    folder = tmp_path / "out"
    process = subprocess.Popen([sys.executable, "-m", "simulee", "scan", repo, "-o", folder, "--jobs", "1",
                                "--step-limit", "1000000000", "-q"], cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 120
        while time.time() < deadline and "a_racy.cu" not in _text(folder / "report.sarif"):
            time.sleep(0.2)
        assert process.poll() is None  # still checking count_forever
    finally:
        process.kill()
        process.wait()
    sarif = json.loads((folder / "report.sarif").read_text())
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["data-race"]
    summary = (folder / "summary.md").read_text()
    assert "# Simulee scan: repo" in summary and "| data-race | error | 1 | 1 | 1 |" in summary


def _text(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def test_csv_cells_a_spreadsheet_would_run_are_escaped(tmp_path):
    from simulee.report.formats import table_text

    text = table_text([{"a": "=HYPERLINK(1)", "b": "+1", "c": "-x", "d": "@sum", "e": -3, "f": "plain"}],
                      ("a", "b", "c", "d", "e", "f"))
    assert text.splitlines()[1] == "'=HYPERLINK(1),'+1,'-x,'@sum,-3,plain"
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "=cmd.cu").write_text(RACY)
    folder = tmp_path / "out"
    assert scan(repo, "-o", folder, *FAST).returncode == 1
    for table in ("bugs.csv", "kernels.csv", "files.csv"):
        text = (folder / table).read_text()
        assert "\nrepo,'=cmd.cu," in text and ",=cmd.cu" not in text, table


def test_scan_exits_2_when_nothing_could_be_checked(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "broken.cu").write_text("__global__ void k(int *a) { a[0] = ; }\n")
    result = scan(repo, "-o", tmp_path / "one", *FAST)
    assert result.returncode == 2
    assert result.stderr.endswith("simulee: error: none of the 1 files compiled (files.csv says why)\n")
    (repo / "broken.cu").write_text("__device__ int helper(int x) { return x + 1; }\n")
    result = scan(repo, "-o", tmp_path / "two", *FAST)
    assert result.returncode == 2
    assert result.stderr.endswith("simulee: error: no kernel could be checked: 0 kernels in 1 compiled files\n")


def test_the_default_output_is_named_after_the_folders_path(monkeypatch):
    from simulee.scanner.repository import default_output

    monkeypatch.chdir(ROOT)
    assert default_output(Path("tests/kernels")) == Path("results/tests-kernels")
    assert default_output(Path("benchmarks/kernels")) == Path("results/benchmarks-kernels")
    assert default_output(KERNELS / "saxpy.cu") == Path("results/tests-kernels-saxpy")
    assert default_output(Path("/")) == Path("results/root")
    monkeypatch.chdir(TESTS / "data")
    assert default_output(KERNELS) == Path("results/kernels")  # elsewhere: its own name


def test_a_worker_stopped_by_its_pool_stops_its_compiler_first(tmp_path):
    """A task past the pool's timeout: the worker is stopped, and takes the compiler it
    was running, and that compiler's children, with it."""
    from simulee.scanner.workers import Limits, Pool

    clang = tmp_path / "slow-clang"
    clang.write_text(FAKE_CLANG)
    clang.chmod(0o755)
    with Pool(1, Limits(seconds=600.0, memory=0, compile_seconds=2.0)) as pool:  # compiling: the compile timeout
        record = pool.submit(_compile_forever, _Compile(str(clang))).result(timeout=60)
    assert record["status"] == "timeout" and record["message"] == "no result after 2 s (--compile-timeout)"
    time.sleep(0.5)
    assert [pid for pid in os.listdir("/proc") if pid.isdigit() and str(tmp_path).encode() in _cmdline(pid)] == []


class _Compile:
    compiles = True

    def __init__(self, clang: str):
        self.clang = clang

    def failed(self, status: str, message: str, seconds: float = 0.0) -> dict:
        return {"status": status, "message": message}


def _compile_forever(task: _Compile) -> dict:
    from simulee.frontend.compiler import run_compiler

    run_compiler([task.clang, "-c", "k.cu"], None)
    return {"status": "finished"}
