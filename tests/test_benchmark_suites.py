"""`python -m benchmarks.suites` runs a verifier's test suite as a user would: each file's
stated launch, defines and warp model, and the search; and compares with its labels."""

from __future__ import annotations

import csv
import subprocess
import sys

from conftest import ROOT

CLEAN = """//pass
//--blockDim=64 --gridDim=2 -DWIDTH=64

__global__ void copy(int *out, const int *in) {
  out[blockIdx.x * WIDTH + threadIdx.x] = in[threadIdx.x];
}
"""
RACY = """//xfail:NOT_ALL_VERIFIED
//--blockDim=[8,8] --gridDim=1 --warp-sync=32

__global__ void last(int *out) {
  __requires(blockDim.x == 8);
  out[threadIdx.y] = threadIdx.x;
}
"""
TOO_BIG = """//pass
//--blockDim=2048 --gridDim=1

__global__ void big(int *out) { out[threadIdx.x] = 1; }
"""


def test_a_suite_is_run_with_what_each_file_states(tmp_path):
    suite = tmp_path / "suite"
    for name, text in (("clean", CLEAN), ("racy", RACY), ("big", TOO_BIG)):
        (suite / name).mkdir(parents=True)
        (suite / name / "kernel.cu").write_text(text)
    (suite / "racy-faial.cu").write_text("__global__ void k(int *a) { a[0] = threadIdx.x; }\n")
    (suite / "racy-contents.cu").write_text(  # a race for some contents of idx: a warning, counted apart
        "__global__ void k(int *a, const int *idx) { a[idx[threadIdx.x]] = threadIdx.x; }\n")
    done = subprocess.run([sys.executable, "-m", "benchmarks.suites", suite, "-o", tmp_path / "rows.csv"],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "rows.csv", newline="") as handle:
        rows = {(row["file"], row["mode"]): row for row in csv.DictReader(handle)}
    assert len(rows) == 10
    clean, racy, big = (rows[name, "stated"] for name in ("clean/kernel.cu", "racy/kernel.cu", "big/kernel.cu"))
    assert (clean["expected"], clean["outcome"], clean["errors"]) == ("clean", "ok", "0")
    assert (racy["expected"], racy["outcome"], racy["types"]) == ("bug", "ok", "data-race")
    assert (big["outcome"], big["reason"]) == ("error", "simulee: error: --block 2048: x is at most 1,024 in CUDA")
    assert rows["racy-faial.cu", "search"]["expected"] == "bug" and rows["racy-faial.cu", "search"]["errors"] != "0"
    assert rows["big/kernel.cu", "search"]["outcome"] == "ok"  # no launch given: the search picks one CUDA allows
    assert rows["racy-contents.cu", "stated"]["errors"] == "0" and rows["racy-contents.cu", "stated"]["contents"] == "1"
    assert "stated: 5 files, 1 errors, 2/3 bugs detected (+1 as warnings for some buffer contents), 0/1 false " \
           "alarms on clean files" in done.stdout
    assert "missed: racy-contents.cu (a warning: for some buffer contents)" in done.stdout


def test_options_given_for_every_check_reach_every_check(tmp_path):
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "racy-faial.cu").write_text("__global__ void k(int *a) { a[0] = threadIdx.x; }\n")
    done = subprocess.run([sys.executable, "-m", "benchmarks.suites", suite, "--mode", "search", "--check-options",
                           "--population 0", "-o", tmp_path / "rows.csv"],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "rows.csv", newline="") as handle:
        (row,) = csv.DictReader(handle)
    assert (row["outcome"], row["exit"]) == ("error", "2")
    assert "--population" in row["reason"]
