"""`python -m benchmarks.table` counts detected, missed and false findings per kernel and
bug type against the reconstructions' headers, writes one CSV per paper table and prints
Markdown totals beside the paper's."""

from __future__ import annotations

import csv
import subprocess
import sys

import pytest

from conftest import ROOT

pytestmark = pytest.mark.xdist_group("table")


def table(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "benchmarks.table", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT)


def read(path) -> list[tuple]:
    with open(path, newline="") as handle:
        return [tuple(row[c] for c in ("project", "kernel", "bug_type", "expected_bugs", "detected_bugs",
                                       "false_findings")) for row in csv.DictReader(handle)]


def test_two_reconstructions_fill_both_tables(tmp_path):
    kernels = ROOT / "benchmarks" / "kernels"
    done = table(kernels / "arrayfire" / "warp_reduce.cu", kernels / "kaldi" / "_div_rows_vec.cu", "-o", tmp_path)
    assert done.returncode == 0, done.stderr
    assert read(tmp_path / "table2.csv") == [("arrayfire", "warp_reduce", "warp-synchronous-race", "1", "1", "0"),
                                             ("arrayfire", "warp_reduce", "barrier-divergence", "1", "1", "0")]
    assert read(tmp_path / "table3.csv") == [("kaldi", "_div_rows_vec", "redundant-barrier", "1", "1", "0")]
    assert "Simulee (this tool): 2 ✓, 0 ✗, 0 F — the paper's Simulee: 21 ✓, 3 ✗, 0 F" in done.stdout
    assert "Simulee (this tool): 1 ✓, 0 ✗, 0 F — the paper's Simulee: 24 ✓" in done.stdout
    assert "| **total** | 1 kernels | | 2 | 2 | 0 |" in done.stdout


def test_a_missed_bug_and_a_finding_on_the_fixed_twin_are_counted(tmp_path):
    source = tmp_path / "wrong.cu"
    source.write_text(
        "// project: demo (table 9)\n"
        "// bug: the header expects a race the kernel does not have; the twin has a redundant barrier\n"
        "// expect: clean data-race 8/8\n"
        "// fixed: clean_fixed\n"
        "__global__ void clean(int *out) { out[blockIdx.x * blockDim.x + threadIdx.x] = 1; }\n"
        "\n"
        "__global__ void clean_fixed(int *out) {\n"
        "  __shared__ int mine[256];\n"
        "  if (blockDim.x > 256) return;\n"
        "  mine[threadIdx.x] = 1;\n"
        "  __syncthreads();\n"
        "  out[blockIdx.x * blockDim.x + threadIdx.x] = mine[threadIdx.x];\n"
        "}\n")
    done = table(source, "-o", tmp_path)
    assert done.returncode == 0, done.stderr
    assert read(tmp_path / "table9.csv") == [("demo", "clean", "data-race", "1", "0", "0"),
                                             ("demo", "clean", "redundant-barrier", "0", "0", "1")]
    assert "Simulee (this tool): 0 ✓, 1 ✗, 1 F — the paper's Simulee: not reported" in done.stdout


def test_a_missing_file_is_a_one_line_error(tmp_path):
    done = table(tmp_path / "nowhere.cu")
    assert done.returncode == 2 and done.stderr.strip().count("\n") == 0 and "no such file" in done.stderr


def test_a_subset_never_overwrites_the_committed_tables():
    committed = (ROOT / "results" / "table3.csv").read_bytes()
    kernels = ROOT / "benchmarks" / "kernels"
    done = table(kernels / "kaldi" / "_div_rows_vec.cu")
    assert done.returncode == 0, done.stderr
    assert (ROOT / "results" / "table3.csv").read_bytes() == committed
    assert read(ROOT / "results" / "local" / "table3.csv") == \
        [("kaldi", "_div_rows_vec", "redundant-barrier", "1", "1", "0")]
    refused = table(kernels / "kaldi" / "_div_rows_vec.cu", "--update-results")
    assert refused.returncode == 2 and "give neither FILEs nor -o" in refused.stderr
