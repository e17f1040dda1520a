"""Findings as bugs: one root cause per bug across kernels and template instances, barriers
of shared device functions judged over every kernel that reaches them, and baselines
(new, unchanged and absent root causes) in every report format."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from conftest import KERNELS, TESTS, line_of

SHARED_BARRIER = KERNELS / "shared_barrier.cu"
SARIF_SCHEMA = json.loads((TESTS / "data" / "sarif-schema-2.1.0.json").read_text())
FAST = ("--jobs", "2", "--step-limit", "20000", "-q")


def check(run_cli, *args):
    return run_cli("check", "--no-search", *args)


def only_own_slots(folder: Path) -> Path:
    """shared_barrier.cu without the kernel that needs the barrier."""
    source = SHARED_BARRIER.read_text()
    source = source[:source.index("__global__ void neighbour_slot")] + \
        "void run(const float *in, float *out) {\n  own_slot<<<1, 64>>>(in, out);\n" \
        "  own_slot_again<<<1, 64>>>(in, out);\n}\n"
    file = folder / "own_slots.cu"
    file.write_text(source)
    return file


# ---------------------------------------------------------------------------- barriers over kernels


def test_a_shared_barrier_one_kernel_needs_is_needed_in_every_kernel(run_cli):
    status, out, _ = check(run_cli, SHARED_BARRIER, "--format", "json")
    assert status == 0
    document = json.loads(out)
    assert document["root_causes"] == []  # redundant in two kernels, needed in the third: not redundant
    barrier = line_of(SHARED_BARRIER, "__syncthreads();")
    verdicts = {kernel["kernel"]: [(b["line"], b["verdict"], b["kernel_verdict"]) for b in kernel["barriers"]]
                for kernel in document["kernels"]}
    assert verdicts == {"own_slot": [(barrier, "needed", "redundant")],
                        "own_slot_again": [(barrier, "needed", "redundant")],
                        "neighbour_slot": [(barrier, "needed", "needed")]}
    # each kernel's barriers name the race the needing kernel shows
    race = document["kernels"][0]["barriers"][0]["race"]
    assert (race["first"]["line"], race["second"]["line"]) == \
        (line_of(SHARED_BARRIER, "tile[threadIdx.x] = in"), line_of(SHARED_BARRIER, "out[threadIdx.x] = tile"))
    # alone, a kernel judges it by itself
    status, out, _ = check(run_cli, SHARED_BARRIER, "-k", "own_slot", "--format", "json")
    assert [c["type"] for c in json.loads(out)["root_causes"]] == ["redundant-barrier"]


def test_a_barrier_redundant_in_every_kernel_is_one_finding_saying_what_it_was_checked_over(run_cli, tmp_path):
    file = only_own_slots(tmp_path)
    status, out, _ = check(run_cli, file)
    assert status == 0
    barrier = line_of(file, "__syncthreads();")
    assert out.count("warning: redundant barrier") == 1
    assert f"own_slots.cu:{barrier}:3: warning: redundant barrier: removing it creates no data race (checked over " \
           "2 block passes in 2 launches of 2 kernels: own_slot, own_slot_again)" in out
    assert "the same bug in 2 kernels: own_slot, own_slot_again (2 findings, 2 instances)" in out
    assert out.splitlines()[-1].startswith("simulee: checked 2 kernels in 1 file: 0 errors, 1 warning "
                                           "(2 findings in 2 kernels)")
    status, out, _ = check(run_cli, file, "--format", "sarif")
    (result,) = json.loads(out)["runs"][0]["results"]
    assert result["ruleId"] == "redundant-barrier" and result["properties"]["kernels"] == ["own_slot",
                                                                                          "own_slot_again"]
    assert result["relatedLocations"][0]["message"]["text"] == "also in own_slot_again (1 instance)"


# ---------------------------------------------------------------------------- one root cause, every format


def test_json_and_csv_report_root_causes_with_every_occurrence(run_cli, tmp_path):
    from test_scan import SHARED_RACE

    source = tmp_path / "shared.cu"
    source.write_text(SHARED_RACE)
    status, out, _ = check(run_cli, source, "--format", "json")
    document = json.loads(out)
    causes = document["root_causes"]
    assert [(c["line"], c["kernels"], c["findings"]) for c in causes] == \
        [(line_of(source, "out[threadIdx.x % 16]"), ["spread<float>", "spread<double>"], 2),
         (line_of(source, "counts[threadIdx.x / 2]"), ["first", "second"], 2)]
    assert [o["kernel"] for o in causes[1]["occurrences"]] == ["first", "second"]
    # every kernel keeps its findings, each naming its root cause
    assert {f["root_cause"] for k in document["kernels"] for f in k["findings"]} == {c["root_cause"] for c in causes}
    status, out, _ = check(run_cli, source, "--format", "csv")
    rows = list(csv.DictReader(out.splitlines()))
    assert [(row["kernel"], row["kernels"], row["findings"]) for row in rows] == \
        [("spread<float>", "2", "2"), ("first", "2", "2")]
    assert int(rows[1]["instances"]) == sum(o["instances"] for o in causes[1]["occurrences"])


# ---------------------------------------------------------------------------- baselines


CLEAN_AND_RACY = """\
__global__ void clean(int *out) { out[threadIdx.x] = threadIdx.x; }

__global__ void racy(int *out) { out[0] = threadIdx.x; }

void launch(int *out) {
  clean<<<1, 64>>>(out);
  racy<<<1, 64>>>(out);
}
"""
ANOTHER_RACE = """
__global__ void racy_too(int *out) { out[threadIdx.x / 2] += 1; }

void launch_too(int *out) { racy_too<<<1, 64>>>(out); }
"""


def scan(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "simulee", "scan", *map(str, args)], capture_output=True,
                          text=True, timeout=600)


def results(folder: Path) -> list[dict]:
    document = json.loads((folder / "report.sarif").read_text())
    jsonschema.validate(document, SARIF_SCHEMA)
    return document["runs"][0]["results"]


def test_a_baseline_scan_after_an_unrelated_edit_finds_nothing_new_then_a_new_bug_and_a_fixed_one(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    source = repo / "kernels.cu"
    source.write_text(CLEAN_AND_RACY)
    assert scan(repo, "-o", tmp_path / "old", *FAST).returncode == 1
    (old,) = results(tmp_path / "old")
    assert "baselineState" not in old

    # an edit that moves every line, and nothing else: the race is unchanged, nothing is new
    source.write_text("// Kernels to scan.\n#include <cuda_runtime.h>\n\n" + CLEAN_AND_RACY)
    moved = scan(repo, "-o", tmp_path / "moved", "--baseline", tmp_path / "old" / "report.sarif", "--new-only", *FAST)
    assert moved.returncode == 0, moved.stderr  # nothing new: the new-only run passes
    (result,) = results(tmp_path / "moved")
    assert result["baselineState"] == "unchanged"
    assert result["fingerprints"] == old["fingerprints"]
    assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == \
        old["locations"][0]["physicalLocation"]["region"]["startLine"] + 3
    assert "0 root causes new since the baseline (0 errors, 0 warnings)" in moved.stdout
    assert "1 new" not in moved.stdout and "0 new, 1 unchanged, 0 absent" in moved.stdout

    # a new race, and the old one fixed; the baseline given as the old scan's folder
    source.write_text(CLEAN_AND_RACY.replace("out[0] = threadIdx.x", "out[threadIdx.x] = 0") + ANOTHER_RACE)
    later = scan(repo, "-o", tmp_path / "later", "--baseline", tmp_path / "old", "--new-only", *FAST)
    assert later.returncode == 1, later.stderr
    states = {r["baselineState"]: r for r in results(tmp_path / "later")}
    assert set(states) == {"new", "absent"}
    assert states["new"]["properties"]["kernel"] == "racy_too"
    assert states["absent"]["fingerprints"] == old["fingerprints"]
    assert "1 new, 0 unchanged, 1 absent" in later.stdout
    with open(tmp_path / "later" / "bugs.csv", newline="") as table:
        assert [(row["kernel"], row["baseline"]) for row in csv.DictReader(table)] == [("racy_too", "new")]
    page = (tmp_path / "later" / "report.html").read_text()
    assert "racy_too" in page and ">new<" in page


def test_check_compares_with_a_json_report_as_baseline(run_cli, tmp_path):
    from test_scan import SHARED_RACE

    source = tmp_path / "shared.cu"
    source.write_text(SHARED_RACE)
    status, out, _ = check(run_cli, source, "--format", "json", "-o", tmp_path / "old.json")
    assert status == 1
    status, out, _ = check(run_cli, source, "--baseline", tmp_path / "old.json")
    assert status == 1  # without --new-only, every error counts
    assert out.count("[unchanged]") == 2 and "against the baseline: 0 new, 2 unchanged, 0 absent" in out
    status, out, _ = check(run_cli, source, "--baseline", tmp_path / "old.json", "--new-only")
    assert status == 0 and "[unchanged]" not in out and "error:" not in out
    assert "0 errors, 0 warnings new; against the baseline: 0 new, 2 unchanged (not shown), 0 absent" in out
    # only the templates' race left: the other is absent
    source.write_text(SHARED_RACE.replace("counts[threadIdx.x / 2] += 1", "counts[threadIdx.x] += 1"))
    status, out, _ = check(run_cli, source, "--baseline", tmp_path / "old.json", "--format", "json")
    document = json.loads(out)
    assert [c["baseline"] for c in document["root_causes"]] == ["unchanged"]
    assert [a["line"] for a in document["absent"]] == [line_of(source, "counts[threadIdx.x] += 1")]


@pytest.mark.parametrize("args, message", [
    (["--new-only"], "--new-only needs --baseline REPORT: new since what?"),
    (["--baseline", "no/such.sarif"], "--baseline no/such.sarif: no such file"),
    (["--baseline", str(SHARED_BARRIER)], f"--baseline {SHARED_BARRIER}: not JSON (line 1: Expecting value)"),
    (["--baseline", str(TESTS / "data" / "sarif-schema-2.1.0.json")],
     f"--baseline {TESTS / 'data' / 'sarif-schema-2.1.0.json'}: neither a SARIF report nor a JSON report of "
     "Simulee's"),
])
def test_a_bad_baseline_is_one_line_and_exit_2(run_cli, args, message):
    status, out, err = check(run_cli, SHARED_BARRIER, *args)
    assert (status, out, err) == (2, "", f"simulee: error: {message}\n")


def test_a_race_is_one_root_cause_whichever_of_its_lines_is_reported_first(tmp_path):
    from simulee.report.rootcause import fingerprint

    (tmp_path / "pair.cu").write_text("__device__ void f(int *s) {\n  s[0] = 1;\n  int x = s[0];\n}\n")
    write = {"access": "write", "file": "pair.cu", "line": 2, "function": "f"}
    read = {"access": "read", "file": "pair.cu", "line": 3, "function": "f"}
    one = {"type": "data-race", "file": "pair.cu", "first": write, "second": read}
    other = {"type": "warp-synchronous-race", "file": "pair.cu", "first": read, "second": write}
    assert fingerprint(one, tmp_path) == fingerprint(other, tmp_path)
    assert fingerprint(one, tmp_path) != fingerprint({**one, "type": "barrier-divergence"}, tmp_path)
    assert fingerprint(one, tmp_path) != fingerprint({**one, "second": {**read, "function": "g"}}, tmp_path)


SCAN_STEP = """// One step of a warp-synchronous scan in a device function two kernels call.
__device__ void add_next(volatile int *s) {
  int t = threadIdx.x;
  s[t] += s[t + 1];  // the step
}
"""
ONE_WARP = """__global__ void one_warp(int *out) {
  __shared__ int s[33];
  s[threadIdx.x] = threadIdx.x;
  if (threadIdx.x == 0) s[32] = 0;
  __syncthreads();
  add_next(s);
  __syncthreads();
  out[threadIdx.x] = s[threadIdx.x];
}
"""
TWO_WARPS = ONE_WARP.replace("one_warp", "two_warps").replace("33", "65").replace("s[32]", "s[64]")
LAUNCHES = "void run(int *out) {\n  one_warp<<<1, 32>>>(out);\n  two_warps<<<1, 64>>>(out);\n}\n"


@pytest.mark.parametrize("first", ["one_warp", "two_warps"])
def test_one_race_is_one_class_in_every_kernel_it_shows_in(run_cli, tmp_path, first):
    """A scan step in a device function: in one warp's block only lanes of a warp race (a
    warp-synchronous race, for that kernel alone), in two warps' the last lane of the first
    races the second warp's first in lockstep too (a data race). The root cause is the data
    race, whichever kernel comes first in the file."""
    kernels = [ONE_WARP, TWO_WARPS] if first == "one_warp" else [TWO_WARPS, ONE_WARP]
    source = tmp_path / "step.cu"
    source.write_text(SCAN_STEP + "".join(kernels) + LAUNCHES)
    status, out, _ = run_cli("check", source, "--format", "json", "-q")
    per_kernel = {(k["kernel"], f["type"]) for k in json.loads(out)["kernels"] for f in k["findings"]
                  if f["line"] == 4}
    assert per_kernel == {("one_warp", "warp-synchronous-race"), ("two_warps", "data-race")}
    status, out, _ = run_cli("check", source, "--format", "csv", "-q")
    causes = [row for row in csv.DictReader(out.splitlines()) if row["line"] == "4"]
    assert status == 1 and [(row["kernel"], row["type"]) for row in causes] == [("two_warps", "data-race")]


def test_the_faults_of_one_access_are_one_root_cause(tmp_path):
    from simulee.report.rootcause import bugs, fingerprint

    (tmp_path / "index.cu").write_text("__global__ void k(int *p) {\n  p[threadIdx.x * 3] = 1;\n}\n")
    place = {"access": "write", "file": "index.cu", "line": 2, "column": 25, "function": "k", "block": None,
             "thread": None}

    def fault(kind: str, kernel: str) -> dict:
        return {"type": kind, "severity": "error", "kernel": kernel, "file": "index.cu", "line": 2, "column": 25,
                "first": place, "second": None, "message": kind.replace("-", " "), "instances": 1, "launch": None}

    assert fingerprint(fault("out-of-bounds", "k"), tmp_path) == fingerprint(fault("misaligned", "k"), tmp_path)
    assert fingerprint(fault("out-of-bounds", "k"), tmp_path) != fingerprint(fault("division-by-zero", "k"),
                                                                            tmp_path)
    record = {"kernel": "k", "file": "index.cu", "line": 1, "barriers": [], "seconds": 0.1,
              "findings": [fault("out-of-bounds", "k"), fault("misaligned", "k")]}
    (cause,) = bugs([record], tmp_path).causes
    assert [f["type"] for f in cause["findings"]] == ["out-of-bounds", "misaligned"]
    assert cause["witness"]["type"] == "out-of-bounds"


def test_a_barrier_a_kernel_reaches_through_two_call_sites_is_one_barrier_of_that_kernel():
    from simulee.detect.redundant import across_kernels

    def barrier(verdict: str, divergent: bool = False) -> dict:
        return {"kernel": "k", "file": "f.cu", "line": 5, "column": 3, "verdict": verdict, "passes": 2,
                "divergent": divergent, "race": None, "reason": None, "launches": 3}

    (record,) = across_kernels([{"kernel": "k", "findings": [], "barriers": [barrier("redundant"), barrier("needed")]}])
    (merged,) = record["barriers"]
    assert (merged["verdict"], merged["kernel_verdict"], merged["passes"], merged["launches"]) == \
        ("needed", "needed", 4, 3)
    (record,) = across_kernels([{"kernel": "k", "findings": [], "barriers": [barrier("redundant", True)]}])
    assert (record["barriers"][0]["verdict"], record["barriers"][0]["kernel_verdict"]) == ("redundant", "divergent")
