"""Each reconstructed paper kernel (benchmarks/kernels) shows exactly the findings its
header expects when scanned with no launch given, and its fixed twin shows none: one scan,
the one docs/install.md shows (`make run`'s), which must also print what the page shows."""

from __future__ import annotations

import csv

import pytest

from benchmarks.table import Reconstruction
from conftest import ROOT
from test_docs import examples, run_example

pytestmark = pytest.mark.xdist_group("benchmark_kernels")  # one worker runs the scan they all read

BENCHMARKS = ROOT / "benchmarks" / "kernels"


@pytest.fixture(scope="module")
def scanned(tmp_path_factory) -> dict:
    """The rows of the scan's kernels.csv and findings.csv, by file."""
    (block,) = [param.values[0] for param in examples(run_by="tests/test_benchmark_kernels.py")]
    folder = tmp_path_factory.mktemp("make-run")
    run_example(block, folder)
    rows: dict = {}
    for table in ("kernels", "findings"):
        with open(folder / "results" / "kernels" / f"{table}.csv", newline="") as opened:
            for row in csv.DictReader(opened):
                rows.setdefault(row["file"], {"kernels": [], "findings": []})[table].append(row)
    return rows


def expected(path) -> tuple[set, set]:
    """(kernel, type, line, other line or None) a file's header expects, and its fixed twins."""
    reconstruction = Reconstruction.read(path)
    return {(e.kernel, e.type, e.line, e.other) for e in reconstruction.expected}, set(reconstruction.fixed)


@pytest.mark.parametrize("path", sorted(BENCHMARKS.rglob("*.cu")), ids=lambda p: p.relative_to(BENCHMARKS).as_posix())
def test_a_reconstruction_shows_its_bugs_and_its_fixed_twin_none(scanned, path):
    findings, fixed = expected(path)
    assert findings and fixed
    rows = scanned[path.relative_to(BENCHMARKS).as_posix()]
    assert {k["kernel"] for k in rows["kernels"] if k["status"] == "ok"} == {f[0] for f in findings} | fixed
    found = {(f["kernel"], f["type"], int(f["line"]),
              int(f["second_line"]) if f["second_line"] and expected_other(findings, f) else None)
             for f in rows["findings"]}
    assert found == findings


def expected_other(findings: set, finding: dict) -> bool:
    """Whether the header names the other line of findings like this one."""
    return any(f[:3] == (finding["kernel"], finding["type"], int(finding["line"])) and f[3] is not None
               for f in findings)
