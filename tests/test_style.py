"""The code keeps the project's lint rules (pyproject.toml [tool.ruff]): no unused names or
imports, no undefined names, lines of at most 120 characters."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_finds_nothing():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    assert ruff, "ruff is a test dependency (setup.cfg [options.extras_require] test)"
    result = subprocess.run([ruff, "check", "--no-cache", "simulee", "interpreter", "evolve", "benchmarks", "tests"],
                            cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
