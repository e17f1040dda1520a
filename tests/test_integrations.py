"""The conventions of code-scanning tools: the pre-commit hooks (.pre-commit-hooks.yaml)
run by pre-commit itself against a temporary git repository, and the GitHub Action's
scan step (action.yml) run as the runner runs it, on a racy project and its fixed twin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import ROOT

RACY = """__global__ void shift(int *data) {
    __shared__ int tile[64];
    tile[threadIdx.x] = data[threadIdx.x];
    data[threadIdx.x] = tile[(threadIdx.x + 1) % 64];
}
"""
FIXED = RACY.replace("data[threadIdx.x];\n", "data[threadIdx.x];\n    __syncthreads();\n", 1)
BIN = Path(sys.executable).parent


def environment(tmp_path: Path) -> dict:
    return dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ['PATH']}", PRE_COMMIT_HOME=str(tmp_path / "cache"),
                GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")


def git(folder: Path, env: dict, *arguments: str) -> None:
    subprocess.run(["git", *arguments], cwd=folder, env=env, check=True, capture_output=True)


@pytest.mark.parametrize("hook", [hook["id"] for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())])
def test_pre_commit_hook_fails_on_the_race_and_passes_the_fix(hook, tmp_path):
    # the hook as this repository declares it, run from the environment that has Simulee
    # (language: system) rather than one pre-commit would install from the registry
    declared = next(h for h in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text()) if h["id"] == hook)
    local = {**declared, "language": "system"}
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    env = environment(tmp_path)
    git(project, env, "init", "-q")
    (project / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [{"repo": "local", "hooks": [local]}]}))
    (project / "src" / "shift.cu").write_text(RACY)
    (project / "src" / "staged.cu").write_text(FIXED.replace("shift", "staged"))  # two files: one check
    (project / "README.md").write_text("not CUDA: the hook leaves it alone\n")
    git(project, env, "add", ".")
    run = lambda: subprocess.run([sys.executable, "-m", "pre_commit", "run", "--all-files"], cwd=project,  # noqa: E731
                                 env=env, capture_output=True, text=True, timeout=600)
    failed = run()
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "src/shift.cu:3:" in failed.stdout and "data race" in failed.stdout, failed.stdout
    assert "checked 2 kernels in 2 files: 1 error" in failed.stdout
    (project / "src" / "shift.cu").write_text(FIXED)
    git(project, env, "add", ".")
    passed = run()
    assert passed.returncode == 0, passed.stdout + passed.stderr


def scan_step(tmp_path: Path, **inputs: str) -> tuple[int, dict]:
    """Run action.yml's scan step as a runner does (its inputs in the environment, bash),
    then its last step; returns that step's exit status and what the scan step output."""
    steps = {step.get("name"): step for step in yaml.safe_load((ROOT / "action.yml").read_text())["runs"]["steps"]}
    outputs = tmp_path / "github_output"
    outputs.write_text("")
    env = dict(environment(tmp_path), GITHUB_OUTPUT=str(outputs), SIMULEE_OUTPUT="out",
               **{f"SIMULEE_{name.upper().replace('-', '_')}": value for name, value in inputs.items()})
    subprocess.run(["bash", "-e", "-c", steps["Scan"]["run"]], cwd=tmp_path, env=env, check=True, timeout=600)
    said = dict(line.split("=", 1) for line in outputs.read_text().splitlines())
    final = subprocess.run(["bash", "-e", "-c", steps["Fail on bugs"]["run"]],
                           env=dict(env, SIMULEE_STATUS=said["status"]))
    return final.returncode, said


def test_action_fails_on_a_bug_and_only_on_new_ones_against_a_baseline(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "shift.cu").write_text(RACY)
    status, said = scan_step(tmp_path, path="project", baseline="", fail_on="")
    assert status == 1 and said["sarif"] == "out/report.sarif"
    sarif = json.loads((tmp_path / "out" / "report.sarif").read_text())
    assert {result["ruleId"] for result in sarif["runs"][0]["results"]} == {"data-race"}
    (tmp_path / "out" / "report.sarif").rename(tmp_path / "baseline.sarif")
    status, _ = scan_step(tmp_path, path="project", baseline="baseline.sarif", fail_on="")
    assert status == 0  # the race is known: nothing new
    status, _ = scan_step(tmp_path, path="project", baseline="", fail_on="barrier-divergence")
    assert status == 0  # a race is not what fails this job
    (project / "shift.cu").write_text(FIXED)
    status, _ = scan_step(tmp_path, path="project", baseline="", fail_on="")
    assert status == 0
