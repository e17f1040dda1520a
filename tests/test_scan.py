"""`simulee scan` and `simulee audit-barriers` on the small repository tests/repo: what a
scan records, resuming (after a finished scan and after a killed one), the Dask path, the
limits on a worker, and which files and include paths a scan finds."""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import TESTS, at, line_of, lines_of

REPO = TESTS / "repo"
FAST = ("--jobs", "2", "--step-limit", "20000", "-q")  # an endless loop stops early
pytestmark = pytest.mark.xdist_group("scan")  # one worker runs them all, sharing the full scan

# the barriers of phases.cu, one of each verdict: needed, redundant, not covered, divergent
NEEDED, REDUNDANT, NOT_COVERED, DIVERGENT = lines_of(REPO / "src/barriers/phases.cu", "__syncthreads();")
# (file, kernel, type, line): everything a scan of tests/repo must find, and nothing else
EXPECTED_FINDINGS = {
    ("src/barriers/phases.cu", "phases", "redundant-barrier", REDUNDANT),
    ("src/barriers/phases.cu", "phases", "barrier-divergence", DIVERGENT),
    ("src/barriers/phases.cu", "phases", "redundant-barrier", DIVERGENT),  # removing it also ends the divergence
    ("src/faults/divide.cu", "divide", "division-by-zero", line_of(REPO / "src/faults/divide.cu", "1000 / d")),
    ("src/global/neighbours.cu", "add_right", "data-race", line_of(REPO / "src/global/neighbours.cu", "data[i] = ")),
    ("src/loops/spin.cu", "spin", "deadlock", line_of(REPO / "src/loops/spin.cu", "while (flag == 0)")),
    ("src/stencil/smooth.cu", "smooth", "data-race", line_of(REPO / "src/stencil/smooth.cu", "tile[threadIdx.x] = in")),
    ("src/templates/pairs.cu", "pairs<float>", "data-race", line_of(REPO / "src/templates/pairs.cu", "out[i / 2]")),
    ("src/templates/pairs.cu", "pairs<int>", "data-race", line_of(REPO / "src/templates/pairs.cu", "out[i / 2]")),
}
KERNELS = {("src/barriers/phases.cu", "phases"), ("src/faults/divide.cu", "divide"),
           ("src/global/neighbours.cu", "add_right"), ("src/loops/spin.cu", "spin"),
           ("src/stencil/smooth.cu", "smooth"), ("src/stencil/smooth.cu", "smooth_fixed"),
           ("src/templates/pairs.cu", "pairs<float>"), ("src/templates/pairs.cu", "pairs<int>")}


def scan(*args, check: bool = True) -> subprocess.CompletedProcess:
    """`simulee scan` in a process of its own, as a user runs it."""
    result = subprocess.run([sys.executable, "-m", "simulee", "scan", *map(str, args)], capture_output=True,
                            text=True, timeout=600)
    if check:
        assert result.returncode in (0, 1), result.stderr
    return result


def rows(folder: Path, table: str, ignore=("seconds",)) -> list[dict]:
    """A table's rows without the columns that differ between runs of the same scan."""
    with open(folder / table, newline="") as stream:
        return [{k: v for k, v in row.items() if k not in ignore} for row in csv.DictReader(stream)]


@pytest.fixture(scope="module")
def full(tmp_path_factory) -> Path:
    """The output folder of one uninterrupted scan of tests/repo."""
    folder = tmp_path_factory.mktemp("scan") / "full"
    result = scan(REPO, "-o", folder, *FAST)
    assert result.returncode == 1  # errors were found
    assert "# Simulee scan: repo" in result.stdout
    return folder


def test_a_scan_records_every_file_kernel_and_finding(full):
    files = {row["file"]: row for row in rows(full, "files.csv")}
    assert set(files) == {"src/barriers/phases.cu", "src/broken.cu", "src/faults/divide.cu",
                          "src/global/neighbours.cu", "src/loops/spin.cu", "src/stencil/smooth.cu",
                          "src/templates/pairs.cu"}  # build/ and third_party/ skipped
    assert files["src/broken.cu"]["status"] == "compile-error"
    missing = at(REPO / "src/broken.cu", "missing_value")
    assert files["src/broken.cu"]["error"] == f"src/broken.cu:{missing}: use of undeclared identifier 'missing_value'"
    assert files["src/templates/pairs.cu"]["kernels"] == "2"
    assert files["src/stencil/smooth.cu"]["status"] == "ok"  # its header came from include/
    assert not (full / ".spools").exists()  # what checks found as they went: gone once they ended

    kernels = rows(full, "kernels.csv")
    assert {(row["file"], row["kernel"]) for row in kernels} == KERNELS
    assert all(row["status"] == "ok" for row in kernels)
    # pairs' launch sites fix everything (<<<4, 128>>>): that launch alone; divide and spin are proved race-free for
    # every launch (spin, which reads no block index, for one block, as check launches it), and run their default
    # launch alone (for the fault, the deadlock); the rest are searched
    assert all(int(row["launches"]) == 1 if row["kernel"].startswith("pairs") or row["kernel"] in ("divide", "spin")
               else int(row["launches"]) > 1 for row in kernels)
    verdicts = {row["kernel"]: row["verdict"] for row in kernels}
    assert verdicts["divide"] == "proved" and verdicts["spin"] == "proved"
    assert {verdicts[name] for name in ("add_right", "smooth", "pairs<float>", "pairs<int>")} == {"race"}
    assert verdicts["phases"] == "possible-race"  # its divergence is a barrier the other threads exit past: a warning
    assert "What was decided of the kernels: 2 proved, 4 race, 2 possible race" in (full / "summary.md").read_text()
    findings = {(row["file"], row["kernel"]): int(row["findings"]) for row in kernels}
    assert findings[("src/stencil/smooth.cu", "smooth_fixed")] == 0

    findings = rows(full, "findings.csv")
    assert {(row["file"], row["kernel"], row["type"], int(row["line"])) for row in findings} == EXPECTED_FINDINGS
    race = next(row for row in findings if row["kernel"] == "smooth")
    left = line_of(REPO / "src/stencil/smooth.cu", "float left = tile")
    assert (race["project"], race["space"], race["hazard"], int(race["second_line"])) == \
        ("repo", "shared", "read-write", left)
    assert all(row["grid"] and row["block"] for row in findings)  # every finding names its launch

    # bugs.csv: one row per root cause; pairs<float> and pairs<int> share theirs
    bugs = rows(full, "bugs.csv")
    assert {(row["file"], row["kernel"], row["type"], int(row["line"])) for row in bugs} == \
        EXPECTED_FINDINGS - {next(f for f in EXPECTED_FINDINGS if f[1] == "pairs<int>")}
    assert len({row["root_cause"] for row in bugs}) == len(bugs) == 8
    pairs = next(row for row in bugs if row["kernel"] == "pairs<float>")
    assert (pairs["kernels"], pairs["findings"], pairs["baseline"]) == ("2", "2", "")
    assert [row["severity"] for row in bugs] == ["error"] * 5 + ["warning"] * 3  # worst first

    summary = (full / "summary.md").read_text()
    assert "7 files (1 not compiled), 8 kernels (8 ok), 8 root causes (5 errors, 3 warnings) from 9 findings in " \
           "7 kernels" in summary
    assert "| data-race | error | 3 | 4 | 4 | 3 |" in summary  # pairs<float> and pairs<int>: one root cause
    assert "| src/broken.cu | compile-error |" in summary


def test_the_sarif_report_holds_every_finding_relative_to_the_repository(full):
    jsonschema = pytest.importorskip("jsonschema")
    document = json.loads((full / "report.sarif").read_text())
    jsonschema.validate(document, json.loads((TESTS / "data" / "sarif-schema-2.1.0.json").read_text()))
    run = document["runs"][0]
    assert run["originalUriBaseIds"]["SRCROOT"]["uri"] == REPO.as_uri() + "/"
    assert {(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], r["ruleId"],
             r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in run["results"]} == \
        {(file, kind, line) for file, _, kind, line in EXPECTED_FINDINGS}
    # one result per root cause: the template's two instances are one, the other a related location
    assert len(run["results"]) == 8
    pairs = next(r for r in run["results"] if r["properties"]["kernels"] == ["pairs<float>", "pairs<int>"])
    assert [location["message"]["text"] for location in pairs["relatedLocations"]] == \
        ["the other write", "also in pairs<int> (256 instances)"]
    assert pairs["fingerprints"]["simulee/rootCause/v1"] == \
        next(row["root_cause"] for row in rows(full, "bugs.csv") if row["kernel"] == "pairs<float>")


def test_a_resumed_scan_of_a_finished_one_checks_nothing(full, tmp_path):
    folder = tmp_path / "again"
    shutil.copytree(full, folder)
    result = scan(REPO, "-o", folder, "--resume", *FAST)
    assert "8 kernels from an earlier run" in result.stdout
    # the very records of the first scan, seconds included: no kernel was checked again
    assert rows(folder, "kernels.csv", ignore=()) == rows(full, "kernels.csv", ignore=())
    assert (folder / "bugs.csv").read_text() == (full / "bugs.csv").read_text()


def test_a_killed_scan_resumes_to_the_same_bug_table(full, tmp_path):
    folder = tmp_path / "killed"
    process = subprocess.Popen([sys.executable, "-m", "simulee", "scan", REPO, "-o", folder, *FAST[2:],
                                "--jobs", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    deadline = time.monotonic() + 300
    while _kernel_records(folder) < 2 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert process.poll() is None, "the scan ended before it could be killed"
    os.killpg(process.pid, signal.SIGKILL)  # the scan and its workers
    process.wait()
    done = _kernel_records(folder)
    assert 2 <= done < len(KERNELS)

    result = scan(REPO, "-o", folder, "--resume", *FAST)
    assert f"{done} kernels from an earlier run" in result.stdout
    assert rows(folder, "bugs.csv") == rows(full, "bugs.csv")
    assert rows(folder, "kernels.csv") == rows(full, "kernels.csv")
    assert rows(folder, "files.csv") == rows(full, "files.csv")


def _kernel_records(folder: Path) -> int:
    try:
        lines = (folder / "scan.jsonl").read_text().splitlines(keepends=True)
    except OSError:
        return 0
    return sum(1 for line in lines if line.endswith("\n") and '"record": "kernel"' in line)


def test_a_dask_cluster_gives_the_same_rows_as_the_process_pool(full, tmp_path):
    pytest.importorskip("distributed")
    folder = tmp_path / "dask"
    result = scan(REPO, "-o", folder, "--scheduler", "local", *FAST)
    assert result.returncode == 1
    for table in ("bugs.csv", "kernels.csv", "files.csv", "barriers.csv"):
        assert rows(folder, table) == rows(full, table), table


COUNT_UP = """\
// Counts up without end: its state changes every iteration, so only a limit of steps or
// of time stops it.
__global__ void count_up(unsigned *out, unsigned stride) {
  unsigned seen = 0;
  unsigned i = threadIdx.x;
  while (i != 0xFFFFFFFFu || stride == 0) {
    i += 2 * stride + 2;
    seen += i;
  }
  out[threadIdx.x] = seen;
}
"""


def test_a_kernel_out_of_time_reports_what_it_found_and_the_scan_goes_on(tmp_path):
    repository = tmp_path / "repository"
    shutil.copytree(REPO / "src" / "loops", repository / "loops")
    shutil.copytree(REPO / "src" / "faults", repository / "faults")
    (repository / "loops" / "count.cu").write_text(COUNT_UP)
    folder = tmp_path / "timeout"
    result = scan(repository, "-o", folder, "--step-limit", "1000000000", "--kernel-timeout", "15", "--jobs", "2",
                  "-q")
    kernels = {row["kernel"]: row for row in rows(folder, "kernels.csv")}
    assert kernels["count_up"]["status"] == "ok"  # stopped in time to keep what it found
    late = [row for row in rows(folder, "bugs.csv") if row["kernel"] == "count_up"]
    loop = line_of(repository / "loops" / "count.cu", "while (i != 0xFFFFFFFFu")
    assert [(row["type"], row["severity"], row["line"]) for row in late] == [("time-limit", "warning", str(loop))]
    assert kernels["spin"]["status"] == "ok" and kernels["spin"]["errors"] == "1"  # its deadlock
    assert kernels["divide"]["status"] == "ok" and kernels["divide"]["errors"] == "1"
    assert result.returncode == 1  # the division by zero


def test_audit_barriers_gives_each_barrier_its_verdict(tmp_path):
    folder = tmp_path / "audit"
    result = subprocess.run([sys.executable, "-m", "simulee", "audit-barriers", REPO / "src" / "barriers" / "phases.cu",
                             "-o", folder, *FAST], capture_output=True, text=True, timeout=600)
    assert result.returncode == 1, result.stderr  # a divergent barrier
    verdicts = {int(row["line"]): row for row in rows(folder, "barriers.csv")}
    assert {line: row["verdict"] for line, row in verdicts.items()} == \
        {NEEDED: "needed", REDUNDANT: "redundant", NOT_COVERED: "not-covered", DIVERGENT: "divergent"}
    phases = REPO / "src/barriers/phases.cu"
    assert (int(verdicts[NEEDED]["race_first_line"]), int(verdicts[NEEDED]["race_second_line"])) == \
        (line_of(phases, "shared_by_all[t] = value"), line_of(phases, "mine[t] = shared_by_all"))
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["barrier", "kernels", "verdict", "passes", "removing", "it"]
    needed = f"phases.cu:{at(phases, '__syncthreads();')}"  # the first barrier
    assert any(line.startswith(needed) and " needed " in line and "data race (read-write, shared" in line
               for line in lines)
    assert "4 barriers: 1 needed, 1 redundant, 1 not-covered, 1 divergent" in result.stderr


def test_the_fixed_kernel_needs_its_barrier(tmp_path):
    result = subprocess.run([sys.executable, "-m", "simulee", "audit-barriers", REPO, "--include", "stencil",
                             "-o", tmp_path / "smooth", *FAST], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    (row,) = rows(tmp_path / "smooth", "barriers.csv")
    assert (row["kernel"], int(row["line"]), row["verdict"]) == \
        ("smooth_fixed", line_of(REPO / "src/stencil/smooth.cu", "__syncthreads"), "needed")


def test_an_audit_names_the_files_it_could_not_compile(tmp_path):
    # alone, the stencil folder lacks the repository's include/ folder
    result = subprocess.run([sys.executable, "-m", "simulee", "audit-barriers", REPO / "src" / "stencil",
                             "-o", tmp_path / "alone", *FAST], capture_output=True, text=True, timeout=600)
    assert result.returncode == 2  # nothing could be audited
    header = at(REPO / "src/stencil/smooth.cu", '"fakelib/tile.cuh"')
    assert f"simulee: error: smooth.cu:{header}: 'fakelib/tile.cuh' file not found" in result.stderr
    assert "0 barriers: 0 needed, 0 redundant, 0 not-covered, 0 divergent; 1 files not compiled" in result.stderr
    assert "simulee: error: none of the 1 files compiled (files.csv says why)" in result.stderr


# ---------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("args, message", [
    (["scan", "no/such/repo"], "no such file or folder: no/such/repo"),
    (["scan", str(TESTS / "data")], "no .cu files to scan under"),
    (["scan", str(REPO), "--scheduler", "somewhere:8786"], "expected tcp://HOST:PORT or local"),
    (["scan", str(REPO), "--memory-limit", "lots"], "'lots' is not a size"),
    (["scan", str(REPO), "--kernel-timeout", "0"], "must be more than 0"),
])
def test_bad_scan_options_are_one_line_errors(run_cli, args, message):
    status, out, err = run_cli(*args)
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1


# ---------------------------------------------------------------------------- discovery


def test_discovery_skips_build_and_vendored_folders_and_follows_globs():
    from simulee.scanner.discover import sources

    every = {p.relative_to(REPO).as_posix() for p in sources(REPO)}
    assert "src/broken.cu" in every and not any(p.startswith(("build/", "third_party/")) for p in every)
    assert {p.relative_to(REPO).as_posix() for p in sources(REPO, include=("src/templates/*", "divide.cu"))} == \
        {"src/templates/pairs.cu", "src/faults/divide.cu"}
    assert not any("stencil" in p.as_posix() or p.name == "broken.cu"
                   for p in sources(REPO, exclude=("stencil", "src/broken.cu")))


def test_include_paths_are_the_folders_sources_include_from(tmp_path):
    from simulee.scanner.discover import include_dirs

    (tmp_path / "third" / "lib" / "nested").mkdir(parents=True)
    (tmp_path / "third" / "lib" / "nested" / "util.cuh").write_text('#include "nested/more.cuh"\n')
    (tmp_path / "third" / "lib" / "nested" / "more.cuh").write_text("")
    (tmp_path / "app").mkdir()
    source = tmp_path / "app" / "main.cu"
    source.write_text('#include "nested/util.cuh"\n#include <cstdio>\n')
    assert include_dirs(tmp_path, [source]) == (str(tmp_path / "third" / "lib"),)
    assert include_dirs(REPO, [REPO / "src" / "stencil" / "smooth.cu"]) == (str(REPO / "include"), str(REPO / "src"))


# ---------------------------------------------------------------------------- workers


class Job:
    """A task for the worker pool: `function(job)` returns {"ok": value}."""

    def __init__(self, value=0):
        self.value = value

    def failed(self, status: str, message: str, seconds: float = 0.0) -> dict:
        return {"status": status, "message": message, **({"seconds": seconds} if seconds else {})}


def echo(job: Job) -> dict:
    return {"ok": job.value}


def die(job: Job) -> dict:
    os._exit(3)


def hog(job: Job) -> dict:
    return {"ok": len(bytearray(job.value))}


def sleep(job: Job) -> dict:
    time.sleep(job.value)
    return {"ok": True}


def test_a_worker_that_dies_times_out_or_runs_out_of_memory_ends_in_a_record():
    from simulee.scanner.workers import Limits, Pool

    with Pool(2, Limits(seconds=2, memory=1 << 30)) as pool:
        futures = [pool.submit(die, Job()), pool.submit(hog, Job(2 << 30)), pool.submit(sleep, Job(60)),
                   pool.submit(echo, Job(7))]
        died, hogged, slept, echoed = [future.result(timeout=120) for future in futures]
    assert died == {"status": "crashed", "message": "the worker process died (exit code 3)"}
    assert hogged == {"status": "out-of-memory", "message": "more than 1024 MiB (--memory-limit)"}
    assert slept == {"status": "timeout", "message": "no result after 2 s (--kernel-timeout)", "seconds": 2}
    assert echoed == {"ok": 7}  # the pool goes on after all that


def check_then_die(task) -> dict:
    """A worker that dies in its kernel's check, right after the first launch that showed something."""
    from simulee.prover import verdicts
    from simulee.scanner.tasks import check_kernel

    real = verdicts.check_given

    def dying(*args, checkpoint=None):
        def kept(partial):
            checkpoint and checkpoint(partial)
            if partial.findings:
                os._exit(3)
        return real(*args, checkpoint=kept)

    verdicts.check_given = dying
    return check_kernel(task)


def test_a_worker_stopped_before_its_end_still_reports_what_its_launches_showed(tmp_path):
    from simulee.checker.kernel import Settings
    from simulee.frontend.compiler import CompileOptions
    from simulee.scanner.tasks import FileTask, KernelTask
    from simulee.scanner.workers import Limits, Pool

    source = FileTask(str(REPO), "src/global/neighbours.cu", "", "", CompileOptions())
    spooled = KernelTask(source, "add_right", 1, Settings(generations=2), spool=str(tmp_path / "spool.json"))
    unspooled = KernelTask(source, "add_right", 1, Settings(generations=2))
    with Pool(1, Limits(seconds=300, memory=0)) as pool:
        kept, lost = [pool.submit(check_then_die, task).result(timeout=600) for task in (spooled, unspooled)]
    check = kept["check"]
    assert check["status"] == "crashed" and check["kernel"] == "add_right"
    assert [(f["type"], f["severity"], f["file"]) for f in check["findings"]] == \
        [("data-race", "error", "src/global/neighbours.cu")]
    assert check["error"].startswith("the worker process died (exit code 3); kept: the 1 finding of the ")
    assert any(note.startswith("stopped before its end") for note in check["notes"])
    assert lost["check"]["status"] == "crashed" and lost["check"]["findings"] == []  # no spool: nothing to keep
    assert not (tmp_path / "spool.json").exists()  # read once


def test_a_check_tells_after_each_launch_what_it_would_report_if_stopped_there():
    from interpreter.launch import Launch
    from simulee.checker.kernel import check_kernel
    from simulee.frontend.compiler import CompileOptions, load_program

    program = load_program(REPO / "src/global/neighbours.cu", CompileOptions())
    kernel = program.kernel("add_right")
    launches = [Launch(grid=(1, 1, 1), block=(32, 1, 1), args={"n": 1}),  # one element: nobody races
                Launch(grid=(2, 1, 1), block=(32, 1, 1), args={"n": 64})]
    partials = []
    check = check_kernel(program, kernel, launches, checkpoint=partials.append)
    assert [[f.type for f in partial.findings] for partial in partials] == [[], ["data-race"]]
    assert [f.to_json() for f in partials[-1].findings] == [f.to_json() for f in check.findings]
    assert not any(note.startswith("stopped before its end") for note in check.notes)


OVERLOADS = """\
// Two kernels of one name: the float** one adds through each row's pointer, the float* one
// reads its right neighbour's element while that neighbour writes it.
__global__ void add(float **rows, int n) {
  if (threadIdx.x < n) rows[0][threadIdx.x] += 1.0f;
}
__global__ void add(float *v, int n) {
  if (threadIdx.x + 1 < n) v[threadIdx.x] += v[threadIdx.x + 1];
}
"""


def test_overloaded_kernels_are_told_apart_by_their_parameters(tmp_path):
    repository = tmp_path / "repository"
    repository.mkdir()
    (repository / "overloads.cu").write_text(OVERLOADS)
    folder = tmp_path / "out"
    result = scan(repository, "-o", folder, *FAST, "-q")
    kernels = {row["kernel"]: row for row in rows(folder, "kernels.csv")}
    assert set(kernels) == {"add(float**, int)", "add(float*, int)"}
    assert {row["status"] for row in kernels.values()} == {"ok"}
    races = {row["kernel"] for row in rows(folder, "bugs.csv") if row["type"] == "data-race"}
    assert races == {"add(float*, int)"} and result.returncode == 1


def test_check_and_scan_of_a_folder_compile_the_same_files(run_cli, tmp_path):
    """Both discover sources alike (discover.repository): a .cu another .cu includes is part
    of its includer, build folders are skipped, a kernel header no source includes is a
    translation unit of its own."""
    kernel = "__global__ void {name}(int *a) {{ a[threadIdx.x] = threadIdx.x; }}\n"
    (tmp_path / "main.cu").write_text('#include "part.cu"\n' + kernel.format(name="in_main"))
    (tmp_path / "part.cu").write_text(kernel.format(name="in_part"))
    (tmp_path / "jit.cuh").write_text(kernel.format(name="in_header"))
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "generated.cu").write_text(kernel.format(name="in_build"))
    status, out, _ = run_cli("kernels", tmp_path, "--format", "json")
    listed = {(Path(k["file"]).name, k["kernel"]) for k in json.loads(out)["kernels"]}
    assert status == 0 and listed == {("main.cu", "in_main"), ("part.cu", "in_part"), ("jit.cuh", "in_header")}
    status, out, _ = run_cli("check", tmp_path, "--format", "json", "--no-search", "-q")
    checked = {(Path(k["file"]).name, k["kernel"]) for k in json.loads(out)["kernels"]}
    assert status == 0 and checked == listed
    status, _, _ = run_cli("scan", tmp_path, "-o", tmp_path / "out", "--jobs", "1", "-q")
    with open(tmp_path / "out" / "kernels.csv") as table:
        scanned = {row["kernel"] for row in csv.DictReader(table)}
    assert status == 0 and scanned == {name for _, name in listed}


def test_a_kernel_out_of_memory_is_checked_again_keeping_less_of_each_trace(monkeypatch):
    """A scan worker whose check runs out of memory (its address space is capped) checks the
    kernel again keeping an eighth of each launch's trace, instead of losing it."""
    from simulee.prover import verdicts as checking
    from simulee.checker.kernel import TRACE_LIMIT, Settings
    from simulee.frontend.compiler import CompileOptions
    from simulee.scanner.tasks import FileTask, KernelTask, check_kernel

    real, limits = checking.check_given, []

    def short_of_memory(program, kernel, given, settings, *rest, **named):
        limits.append(settings.trace_limit)
        if len(limits) == 1:
            raise MemoryError
        return real(program, kernel, given, settings, *rest, **named)

    monkeypatch.setattr(checking, "check_given", short_of_memory)
    source = FileTask(str(REPO), "src/global/neighbours.cu", "", "", CompileOptions())
    record = check_kernel(KernelTask(source, "add_right", 1, Settings(generations=2)))
    assert limits == [TRACE_LIMIT, TRACE_LIMIT // 8]
    check = record["check"]
    assert check["status"] == "ok" and [f["type"] for f in check["findings"]] == ["data-race"]
    assert f"out of memory keeping {TRACE_LIMIT:,} accesses of each launch's trace: checked again keeping " \
           f"{TRACE_LIMIT // 8:,}" in check["notes"]


SHARED_RACE = """\
__device__ void bump(int *counts) {
  counts[threadIdx.x / 2] += 1;  // two threads on one count
}

__global__ void first(int *counts) { bump(counts); }

__global__ void second(int *counts, int n) { if (n > 0) bump(counts); }

template <typename T> __global__ void spread(T *out) {
  out[threadIdx.x % 16] = threadIdx.x;  // many threads on 16 slots
}

void launch(int *counts, float *f, double *d) {
  first<<<1, 64>>>(counts);
  second<<<1, 64>>>(counts, 1);
  spread<float><<<1, 64>>>(f);
  spread<double><<<1, 64>>>(d);
}
"""


def test_a_race_in_a_shared_function_or_template_is_one_root_cause_that_survives_moved_lines(tmp_path):
    """Four kernels, four findings, two bugs; an edit above them moves their lines but
    not their root causes."""
    source = tmp_path / "repo" / "shared.cu"
    source.parent.mkdir()
    source.write_text(SHARED_RACE)
    scan(source.parent, "-o", tmp_path / "before", *FAST)
    before = rows(tmp_path / "before", "findings.csv")
    assert len(before) == 4 and len({row["root_cause"] for row in before}) == 2
    assert len(rows(tmp_path / "before", "bugs.csv")) == 2
    summary = (tmp_path / "before" / "summary.md").read_text()
    assert "2 root causes (2 errors, 0 warnings) from 4 findings in 4 kernels" in summary
    assert "| error | data-race | shared.cu:2 | first, second | 2 |" in summary
    source.write_text("// Counts and spreads.\n#include <cuda_runtime.h>\n\n" + SHARED_RACE)
    scan(source.parent, "-o", tmp_path / "after", *FAST)
    after = rows(tmp_path / "after", "findings.csv")
    assert {row["line"] for row in after} != {row["line"] for row in before}
    assert {row["root_cause"] for row in after} == {row["root_cause"] for row in before}


def test_code_copied_into_two_kernels_is_two_root_causes(tmp_path):
    from simulee.report.rootcause import fingerprint

    def race(line: int) -> dict:
        return {"type": "data-race", "file": "copied.cu", "first": {"file": "copied.cu", "line": line},
                "second": None}

    (tmp_path / "copied.cu").write_text("__global__ void b(int *s) {\n  s[0] = threadIdx.x;\n}\n"
                                        "__global__ void c(int *s) {\n  s[0] = threadIdx.x;\n}\n")
    assert fingerprint(race(2), tmp_path) != fingerprint(race(5), tmp_path)
    assert fingerprint(race(2), tmp_path) == fingerprint(race(2), tmp_path)


STRIDES = "template <int N> __global__ void stride(int *out) { out[(threadIdx.x * N) % 16] = threadIdx.x; }\n" + \
    "".join(f"template __global__ void stride<{n}>(int *);\n" for n in range(1, 13)) + \
    "void launch(int *out) { stride<7><<<1, 64>>>(out); }\n"


def test_a_template_with_many_instances_is_checked_on_a_bounded_representative_set(tmp_path):
    """Twelve instances: eight checked (the one the host launches among them, the rest
    spread over the others), four represented; --all-instances --resume checks those."""
    from simulee.scanner.repository import TEMPLATE_INSTANCES

    source = tmp_path / "repo" / "strides.cu"
    source.parent.mkdir()
    source.write_text(STRIDES)
    scan(source.parent, "-o", tmp_path / "out", *FAST)
    kernels = {row["kernel"]: row for row in rows(tmp_path / "out", "kernels.csv")}
    assert len(kernels) == 12
    checked = sorted(name for name, row in kernels.items() if row["status"] == "ok")
    assert len(checked) == TEMPLATE_INSTANCES == 8 and "stride<7>" in checked
    assert {"stride<1>", "stride<12>"} <= set(checked)  # the range's ends
    represented = [row for row in kernels.values() if row["status"] == "represented"]
    assert len(represented) == 4
    assert represented[0]["error"].startswith("not checked: 12 instances of template stride, of which 8 were checked")
    (bug,) = rows(tmp_path / "out", "bugs.csv")
    assert (bug["type"], bug["kernels"]) == ("data-race", "8")
    summary = (tmp_path / "out" / "summary.md").read_text()
    assert "| strides.cu | stride | 4 |" in summary and "Kernels not checked" not in summary
    scan(source.parent, "-o", tmp_path / "out", "--all-instances", "--resume", *FAST)
    assert {row["status"] for row in rows(tmp_path / "out", "kernels.csv")} == {"ok"}
    (bug,) = rows(tmp_path / "out", "bugs.csv")
    assert bug["kernels"] == "12"


def test_a_repository_header_named_like_a_system_header_does_not_stand_in_for_it_elsewhere(tmp_path):
    """compat/unistd.h is a Windows build's stand-in: only the file beside it gets it."""
    from simulee.scanner.discover import include_dirs

    (tmp_path / "compat").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "compat" / "unistd.h").write_text('#error "the stand-in"\n')
    (tmp_path / "compat" / "beside.cu").write_text('#include "unistd.h"\n__global__ void a(int *x) { x[0] = 1; }\n')
    (tmp_path / "src" / "quoted.cu").write_text('#include "unistd.h"\n__global__ void b(int *x) { x[0] = 2; }\n')
    (tmp_path / "src" / "angled.cu").write_text("#include <unistd.h>\n"
                                                "__global__ void c(int *x) { x[0] = sizeof(pid_t); }\n")
    files = sorted(tmp_path.rglob("*.cu"))
    assert str(tmp_path / "compat") not in include_dirs(tmp_path, files)
    scan(tmp_path, "-o", tmp_path / "out", *FAST)
    status = {row["file"]: row["status"] for row in rows(tmp_path / "out", "files.csv")}
    assert status == {"compat/beside.cu": "compile-error", "src/quoted.cu": "ok", "src/angled.cu": "ok"}


def test_the_host_code_a_scan_reads_for_calls_leaves_out_files_only_included_by_another(tmp_path):
    """main.cpp includes more_calls.cpp (a unity build): that one is read as part of it."""
    import shutil

    shutil.copy(TESTS / "sites" / "callers" / "colsum.cu", tmp_path)
    shutil.copy(TESTS / "sites" / "callers" / "main.cpp", tmp_path)
    (tmp_path / "main.cpp").write_text((tmp_path / "main.cpp").read_text() + '#include "more_calls.cpp"\n')
    (tmp_path / "more_calls.cpp").write_text(
        "void rows_sums(float *sums, const float *m, int rows, int cols) {\n"
        "  launch_colsum(dim3((cols + 127) / 128), dim3(128), sums, m, rows, cols);\n}\n")
    scan(tmp_path, "-o", tmp_path / "out", *FAST)
    table = (tmp_path / "out" / "summary.md").read_text().split("Host code read")[1]
    assert "| main.cpp |" in table and "more_calls.cpp" not in table


def test_the_instances_checked_of_a_template_cover_every_value_of_every_parameter():
    """60 instances of type x operator x flag x size: eight checked cover the three types,
    both operators, both flags and the five sizes, where instances in name order would
    differ in the last one only."""
    from simulee.scanner.repository import representatives, template_arguments

    names = [f"reduce<{t}, {op}, {flag}, (unsigned int){n}>" for t in ("float", "double", "int")
             for op in ("Sum", "Max") for flag in ("true", "false") for n in (32, 64, 128, 256, 512)]
    chosen = representatives(names, set())
    assert len(chosen) == 8
    for position in range(4):
        assert {template_arguments(name)[position] for name in chosen} == \
            {template_arguments(name)[position] for name in names}
    assert template_arguments("f<Op<int, 3>, (unsigned int)2>") == ("Op<int, 3>", "(unsigned int)2")


CUB_CALLER = """\
#include <cub/device/device_reduce.cuh>

__global__ void mine(int *x) { x[threadIdx.x] = 1; }

void run(int *in, int *out, int n) {
  void *scratch = nullptr;
  size_t bytes = 0;
  cub::DeviceReduce::Sum(scratch, bytes, in, out, n);
}
"""


def test_kernels_of_the_toolkits_headers_are_left_out(tmp_path, run_cli):
    """CUB's kernels, instantiated by a call of cub::DeviceReduce, are NVIDIA's code
    launched by library code: counted, not checked."""
    source = tmp_path / "repo" / "reduce.cu"
    source.parent.mkdir()
    source.write_text(CUB_CALLER)
    result = scan(source.parent, "-o", tmp_path / "out", *FAST)
    assert [row["kernel"] for row in rows(tmp_path / "out", "kernels.csv")] == ["mine"]
    assert "1 kernel (1 ok; 4 of the CUDA toolkit's headers, CUB's and thrust's, left out)" in result.stdout
    status, out, _ = run_cli("check", source, "--no-search")
    assert status == 0 and "checked 1 kernel in 1 file" in out


def test_a_clean_scan_of_files_compiled_degraded_passes(tmp_path):
    """A file compiled with a missing header stood in is compiled: nothing found is exit 0."""
    source = tmp_path / "repo" / "fine.cu"
    source.parent.mkdir()
    source.write_text('#include "missing/config.h"\n__global__ void fine(int *x) { x[threadIdx.x] = 1; }\n')
    result = scan(source.parent, "-o", tmp_path / "out", *FAST)
    assert result.returncode == 0, result.stderr
    assert "1 file (0 not compiled, 1 degraded), 1 kernel (1 ok)" in result.stdout
