"""The README and the docs cannot drift from the tool: every example that shows what a
command prints (a ```console block: `$ command` lines, each followed by its output) is run,
and its output compared with the one shown; a ```pycon block (a Python session) runs as a
doctest; the MkDocs site builds with no warning.

In an example's output, a line `...` stands for any number of lines, and seconds
(`2.7 s`, `(0.66 s)`) may differ, and what a command says only the first time on a machine
(building the runtime, the first link) is left out. Each block runs in a
scratch copy of tests/ and benchmarks/kernels/, so that what it writes stays out of the
checkout; `$ cd DIR` changes the folder for the block's next commands."""

from __future__ import annotations

import doctest
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
SECONDS = re.compile(r"\d+(?:\.\d+)? ?s\b")
# what a command says once per machine (the first build of the runtime, the first link)
FIRST_TIME = re.compile(r"^simulee: (building Simulee's CUDA runtime|linking: the first link)")
BLOCK = re.compile(r"^```console\n(.*?)^```", re.M | re.S)
SESSION = re.compile(r"^```pycon\n(.*?)^```", re.M | re.S)  # a Python session: run as a doctest
# a block another test runs, using what the block writes (<!-- run by tests/FILE.py --> on the line before)
RUN_BY = re.compile(r"<!-- run by (tests/\S+\.py) -->\n$")


def examples(pattern: re.Pattern = BLOCK, run_by: str | None = None) -> list:
    """The blocks of every page, or those the test file `run_by` runs (left out otherwise)."""
    found = []
    for page in PAGES:
        text = page.read_text()
        for match in pattern.finditer(text):
            marked = RUN_BY.search(text[:match.start()])
            if (marked.group(1) if marked else None) == run_by:
                line = text[:match.start()].count("\n") + 1
                found.append(pytest.param(match.group(1), id=f"{page.relative_to(ROOT)}:{line}"))
    return found


def commands(block: str) -> list[tuple[str, list[str]]]:
    """(command, the output lines shown after it) for each `$ ` line of a block; a line
    ending in a backslash goes on."""
    steps: list[tuple[str, list[str]]] = []
    lines = block.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("$ "):
            command = line[2:]
            while command.endswith("\\") and index + 1 < len(lines):
                index += 1
                command = command[:-1] + " " + lines[index].strip()
            steps.append((command, []))
        elif steps:
            steps[-1][1].append(line)
        index += 1
    return steps


def matches(shown: list[str], printed: list[str]) -> bool:
    """Whether the printed lines are the shown ones, `...` standing for any lines."""
    shown = [SECONDS.sub("N s", line.rstrip()) for line in shown]
    printed = [SECONDS.sub("N s", line.rstrip()) for line in printed]

    def match(i: int, j: int) -> bool:
        if i == len(shown):
            return j == len(printed)
        if shown[i].strip() == "...":
            return any(match(i + 1, k) for k in range(j, len(printed) + 1))
        return j < len(printed) and shown[i] == printed[j] and match(i + 1, j + 1)

    return match(0, 0)


def test_the_matcher():
    assert matches(["a", "...", "d (1.2 s)"], ["a", "b", "c", "d (3.45 s)"])
    assert matches(["a", "  ...", "b"], ["a", "b"])
    assert not matches(["a", "b"], ["a", "c"])
    assert not matches(["a"], ["a", "b"])


def scratch_copy(folder: Path) -> None:
    """What the examples read (tests/, benchmarks/kernels/) copied to `folder`, and results/."""
    for part in ("tests", "benchmarks/kernels"):
        shutil.copytree(ROOT / part, folder / part, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "results").mkdir()


@pytest.mark.xdist_group("docs")
@pytest.mark.parametrize("block", examples())
def test_example_prints_what_it_shows(block, tmp_path):
    run_example(block, tmp_path)


def run_example(block: str, tmp_path: Path) -> None:
    """Run `block`'s commands in a scratch copy in `tmp_path`; each must print what it shows."""
    scratch_copy(tmp_path)
    environment = dict(os.environ, PYTHONUNBUFFERED="1", COLUMNS="200",
                       PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    for name in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS"):  # a reader's shell, not `make test`'s
        environment.pop(name, None)
    folder = tmp_path
    steps = commands(block)
    assert steps, "a console block without a command"
    for command, shown in steps:
        command = re.sub(r"\s+#.*$", "", command)  # a comment after the command
        if command.startswith("cd "):
            folder = folder / command[3:].strip()
            continue
        done = subprocess.run(command, shell=True, cwd=folder, env=environment, capture_output=False,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
        printed = [line for line in done.stdout.splitlines() if not FIRST_TIME.match(line)]
        assert matches(shown, printed), f"$ {command}\n--- shown\n" + "\n".join(shown) + \
            "\n--- printed\n" + "\n".join(printed)


@pytest.mark.xdist_group("docs")
@pytest.mark.parametrize("session", examples(SESSION))
def test_python_session_prints_what_it_shows(session, tmp_path, monkeypatch, capsys):
    scratch_copy(tmp_path)
    monkeypatch.chdir(tmp_path)
    test = doctest.DocTestParser().get_doctest(session, {}, "session", None, 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test, out=sys.stderr.write)
    assert runner.failures == 0 and runner.tries > 0, capsys.readouterr().err


def test_a_block_left_to_another_test_is_run_by_it():
    for page in PAGES:
        for path in re.findall(r"<!-- run by (tests/\S+\.py) -->", page.read_text()):
            assert f'run_by="{path}"' in (ROOT / path).read_text(), f"{page.name} leaves a block to {path}"


def test_the_site_builds_with_no_warning(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "site" / "api" / "index.html").read_text().count("simulee.api.check") > 0


def test_the_readme_is_short():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 200
