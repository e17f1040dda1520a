"""The Python API: kernels from source text or files, the same findings as the command
line, output buffers as NumPy arrays, options by their command-line names."""

from __future__ import annotations

import json

import numpy as np
import pytest

import simulee
from conftest import ROOT
from simulee.cli import main

# a thread reads its right neighbour's tile entry before any barrier: a shared-memory race
SHIFT = """
__global__ void shift(int *data, int n) {
    __shared__ int tile[256];
    tile[threadIdx.x] = data[threadIdx.x];
    if (threadIdx.x + 1 < n) data[threadIdx.x] = tile[threadIdx.x + 1];
}
"""
SHIFT_FIXED = SHIFT.replace("data[threadIdx.x];\n", "data[threadIdx.x];\n    __syncthreads();\n", 1)
SCALE = """
__global__ void scale(float *x, float factor, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= factor;
    if (i == 0) printf("scaled %d\\n", n);
}
"""


def test_check_finds_the_race_in_source_text_and_names_the_file_as_given():
    report = simulee.check(SHIFT, grid=1, block=64, args={"n": 64}, name="shift.cu")
    (race,) = report.errors
    assert (race.type, race.hazard, race.space) == ("data-race", "read-write", "shared")
    assert (race.file, race.first.line, race.second.line) == ("shift.cu", 4, 5)
    assert report.kernels[0].verdict == "race"
    assert report.text().startswith("shift.cu:4:")
    sarif = report.sarif()
    assert sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] \
        .endswith("shift.cu")


def test_the_fixed_kernel_is_clean_and_proved():
    report = simulee.check(SHIFT_FIXED, grid=1, block=64, args={"n": 64})
    assert report.errors == [] and report.kernels[0].verdict == "proved"
    (proof,) = simulee.prove(SHIFT_FIXED, grid=1)
    assert proof.verdict == "proved"
    (racy,) = simulee.prove(SHIFT, grid=1)
    assert racy.verdict == "race"


def test_check_of_a_file_agrees_with_the_command_line(tmp_path, capsys):
    source = tmp_path / "shift.cu"
    source.write_text(SHIFT)
    report = simulee.check(source, block=64, args={"n": 64}, no_search=True)
    assert main(["check", str(source), "--block", "64", "--arg", "n=64", "--no-search", "--format", "json",
                 "-q"]) == 1
    printed = json.loads(capsys.readouterr().out)
    assert [(f["type"], f["line"], f["root_cause"]) for k in printed["kernels"] for f in k["findings"]] == \
        [(f.type, f.line, f.root_cause) for f in report.findings]


def test_run_returns_the_buffers_and_what_the_kernel_printed():
    data = np.arange(100, dtype=np.float32)
    result = simulee.run(SCALE, grid=(2, 1, 1), block=64, args={"x": data, "factor": 2.5, "n": 100})
    assert np.array_equal(result.buffers["x"], data * np.float32(2.5))
    assert result.printed == "scaled 100\n" and result.findings == [] and result.threads == 128
    assert np.array_equal(data, np.arange(100, dtype=np.float32))  # the caller's array is not written


def test_run_reports_a_fault_as_a_finding():
    overrun = SCALE.replace("if (i < n) ", "")
    result = simulee.run(overrun, grid=2, block=64, args={"x": np.zeros(100, dtype=np.float32), "factor": 1.0,
                                                          "n": 100})
    assert {finding.type for finding in result.findings} == {"out-of-bounds"}


def test_kernels_lists_names_and_parameters():
    (kernel,) = simulee.kernels(SCALE)
    assert kernel.kernel == "scale" and kernel.file == "kernel.cu"
    assert [(p.name, p.kind) for p in kernel.params] == [("x", "pointer"), ("factor", "float"), ("n", "integer")]


def test_options_are_the_command_lines():
    with pytest.raises(TypeError, match="no option 'bogus'"):
        simulee.check(SHIFT, bogus=1)
    with pytest.raises(simulee.SimuleeError, match="--warp-model"):
        simulee.check(SHIFT, warp_model="sideways")
    with pytest.raises(simulee.SimuleeError, match="no parameter 'm'"):
        simulee.run(SCALE, grid=1, block=1, args={"m": 3})
    with pytest.raises(simulee.SimuleeError, match="no such file"):
        simulee.check("missing.cu")


def test_defines_reach_the_compiler():
    source = "__global__ void k(int *a) { a[threadIdx.x] = WIDTH; }"
    result = simulee.run(source, grid=1, block=4, args={"a": np.zeros(4, dtype=np.int32)}, defines=["WIDTH=7"])
    assert result.buffers["a"].tolist() == [7, 7, 7, 7]


def test_scan_returns_its_folder_and_records(tmp_path):
    repository = tmp_path / "project"
    repository.mkdir()
    (repository / "shift.cu").write_text(SHIFT)
    result = simulee.scan(repository, tmp_path / "out", jobs=1, generations=2, population=4)
    assert result.folder == tmp_path / "out" and (result.folder / "report.sarif").is_file()
    assert result.summary.startswith("# Simulee scan: project")
    assert [k.kernel for k in result.report.kernels] == ["shift"]
    assert "data-race" in {f.type for f in result.report.findings}


def test_equiv_returns_the_report_of_the_command_line_and_a_difference_by_its_launch():
    equiv_dir = ROOT / "tests" / "equiv"
    edge = simulee.equiv(f"{equiv_dir}/transpose.cu:transpose_naive", f"{equiv_dir}/transpose.cu:transpose_tiled_edge",
                         block=(16, 16), args={"width": 40, "height": 24}, no_search=True, no_prove=True)
    assert edge.verdict == "differ" and edge.difference.buffer == "out" and edge.proof is None
    assert dict(edge.difference.launch.args) == {"width": 40, "height": 24}
    with pytest.raises(simulee.SimuleeError, match="takes 3 parameters and scale_offset 4"):
        simulee.equiv(f"{equiv_dir}/padding.cu:scale", f"{equiv_dir}/padding.cu:scale_offset")


def test_a_proved_kernels_fault_on_a_launch_simulee_chose_is_judged_by_its_contract():
    """A proved kernel is checked on the default launch alone, 64 threads: one indexing a
    shared array of 10 by threadIdx.x faults there, but its code fixes blocks of at most 10
    threads, so the search learns that bound and reports no error; an index past the array
    for every block of more than one thread stays an error."""
    within = simulee.check("__global__ void k(int *out) {\n  __shared__ int A[10];\n"
                           "  A[threadIdx.x] = 1;\n  out[threadIdx.x] = A[threadIdx.x];\n}\n")
    assert within.errors == [] and within.records[0]["proof"]["verdict"] == "proved"
    assert [a["bound"] for a in within.records[0]["assumptions"]] == ["blockDim.x <= 10"]
    past = simulee.check("__global__ void k(int *out, int n) {\n  __shared__ int A[10];\n"
                         "  A[threadIdx.x] = 1;\n  if (n > 0) out[threadIdx.x] = A[threadIdx.x + 10];\n}\n")
    assert [(f.type, f.line) for f in past.errors] == [("out-of-bounds", 4)]
