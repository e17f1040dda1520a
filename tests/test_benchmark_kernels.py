"""Each reconstructed paper kernel (benchmarks/kernels) shows exactly the findings its
header expects when checked with no launch given, and its fixed twin shows none."""

from __future__ import annotations

import json

import pytest

from benchmarks.table import Reconstruction
from conftest import ROOT

BENCHMARKS = ROOT / "benchmarks" / "kernels"


def expected(path) -> tuple[set, set]:
    """(kernel, type, line, other line or None) a file's header expects, and its fixed twins."""
    reconstruction = Reconstruction.read(path)
    return {(e.kernel, e.type, e.line, e.other) for e in reconstruction.expected}, set(reconstruction.fixed)


@pytest.mark.parametrize("path", sorted(BENCHMARKS.rglob("*.cu")), ids=lambda p: p.relative_to(BENCHMARKS).as_posix())
def test_a_reconstruction_shows_its_bugs_and_its_fixed_twin_none(run_cli, path):
    findings, fixed = expected(path)
    assert findings and fixed
    status, out, err = run_cli("check", path, "-q", "--format", "json")
    assert status in (0, 1), err  # 0 when only warnings are expected
    kernels = json.loads(out)["kernels"]
    assert {k["kernel"] for k in kernels} == {f[0] for f in findings} | fixed
    found = {(f["kernel"], f["type"], f["line"],
              f["second"]["line"] if f["second"] and expected_other(findings, f) else None)
             for k in kernels for f in k["findings"]}
    assert found == findings


def expected_other(findings: set, finding: dict) -> bool:
    """Whether the header names the other line of findings like this one."""
    return any(f[:3] == (finding["kernel"], finding["type"], finding["line"]) and f[3] is not None for f in findings)
