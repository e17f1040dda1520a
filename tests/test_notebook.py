"""notebooks/results.ipynb runs headless on fresh benchmark results and saves its plots."""

from __future__ import annotations

import subprocess
import sys

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import ROOT

pytestmark = pytest.mark.xdist_group("table")


def test_the_results_notebook_plots_fresh_results(tmp_path, monkeypatch):
    kernels = ROOT / "benchmarks" / "kernels"
    for command in (["benchmarks.table", kernels / "gklee" / "colonel.cu", kernels / "cudpp" / "yGather.cu",
                     "-o", tmp_path],
                    ["benchmarks.throughput", "--kernels", "reduction,histogram", "--sizes", "4096",
                     "--engines", "native", "-o", tmp_path / "throughput.csv"]):
        done = subprocess.run([sys.executable, "-m", *map(str, command)], cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    monkeypatch.setenv("SIMULEE_RESULTS", str(tmp_path))
    notebook = nbformat.read(ROOT / "notebooks" / "results.ipynb", as_version=4)
    NotebookClient(notebook, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(ROOT / "notebooks")}}).execute()
    text = "\n".join(output.get("text", "") for cell in notebook.cells for output in cell.get("outputs", []))
    assert "Table 2: 4 ✓, 0 ✗, 0 F" in text and "Table 3: 1 ✓, 0 ✗, 0 F" in text
    for plot in ("detection.png", "seconds.png", "throughput.png"):
        assert (tmp_path / plot).read_bytes().startswith(b"\x89PNG"), plot
