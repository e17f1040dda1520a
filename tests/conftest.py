"""Shared test helpers: the test kernels, their expected listings, compiled programs."""

from __future__ import annotations

import functools
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
KERNELS = TESTS / "kernels"
IR_FILES = TESTS / "ir"
ERRORS = TESTS / "errors"
ANNOTATED = TESTS / "annotated"

# Subprocesses read and write Python's bytecode cache, as on a user's machine (else each compiles every module)
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
# One IR cache for the whole run (shared by xdist workers); tests of the cache use their own.
os.environ.setdefault("SIMULEE_CACHE", str(ROOT / ".pytest_cache" / "simulee-ir"))
# Every proof a run contradicts, in any process of the run (prover.verdicts.log_contradiction): the controller
# names the file before the workers start, and the run fails if any is logged (pytest_sessionfinish)
if "PYTEST_XDIST_WORKER" not in os.environ:
    os.environ["SIMULEE_CONTRADICTIONS"] = str(ROOT / ".pytest_cache" / f"contradictions-{os.getpid()}.jsonl")


def position_of(file: str | Path, text: str, kernel: str = "") -> tuple[int, int]:
    """(line, column), 1-based, where `text` first appears in `file` (a path, or a name
    under tests/kernels), in `kernel` or after it: tests name source positions by what is
    written there, never by number, so that editing a test kernel breaks no test."""
    path = Path(file) if Path(file).is_absolute() or Path(file).exists() else KERNELS / file
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if f"void {kernel}(" in line) if kernel else 0
    for number, line in enumerate(lines[start:], start + 1):
        if text in line:
            return number, line.index(text) + 1
    raise AssertionError(f"{text!r} not in {path}")


def lines_of(file: str | Path, text: str) -> list[int]:
    """Every line of `file` (see position_of) that holds `text`, in order."""
    path = Path(file) if Path(file).is_absolute() or Path(file).exists() else KERNELS / file
    return [number for number, line in enumerate(path.read_text().splitlines(), 1) if text in line]


def line_of(file: str | Path, text: str, kernel: str = "") -> int:
    """The line where `text` first appears in `file` (see position_of)."""
    return position_of(file, text, kernel)[0]


def at(file: str | Path, text: str, kernel: str = "") -> str:
    """'LINE:COLUMN' of `text` in `file`, as reports print positions."""
    return "%d:%d" % position_of(file, text, kernel)


def after(file: str | Path, text: str) -> str:
    """'LINE:COLUMN' just past `text` in `file` (where clang reports what is missing there)."""
    line, column = position_of(file, text)
    return f"{line}:{column + len(text)}"


@dataclass
class ExpectedKernel:
    declaration: str
    reads: list[str] = field(default_factory=list)
    shared: str = "0"


def expected_kernels(path: Path) -> list[ExpectedKernel]:
    """The listing a kernel file's header comment promises:

        // kernel: name(type param, ...)
        //   reads: tid.x ctaid.x ...
        //   shared: BYTES | BYTES + dynamic | dynamic
    """
    kernels: list[ExpectedKernel] = []
    for line in path.read_text().splitlines():
        match = re.match(r"//\s*kernel:\s*(.+)$", line)
        if match:
            kernels.append(ExpectedKernel(match.group(1).strip()))
            continue
        match = re.match(r"//\s+(reads|shared):\s*(.*)$", line)
        if match and kernels:
            if match.group(1) == "reads":
                kernels[-1].reads = match.group(2).split()
            else:
                kernels[-1].shared = match.group(2).strip()
    return kernels


def kernel_files() -> list[Path]:
    return sorted(KERNELS.glob("*.cu"))


@functools.cache
def program(path: Path, gpuverify_annotations: bool = False):
    """A compiled and loaded test file (cached for the session)."""
    from interpreter.loader import load_module
    from simulee.frontend.compiler import CompileOptions, load_ir

    options = CompileOptions(gpuverify_annotations=gpuverify_annotations)
    return load_module(load_ir(path, options), str(path))


def written(folder: Path, name: str, source: str, kernel: str):
    """(program, kernel info) of CUDA `source` written to folder/name."""
    path = folder / name
    path.write_text(source)
    loaded = program(path)
    return loaded, loaded.kernel(kernel)


def kernel_ops(path: Path, name: str | None = None):
    """The decoded ops of a test file's kernel (its only kernel when `name` is None)."""
    loaded = program(path)
    kernel = loaded.kernel(name) if name else loaded.kernels[0]
    return loaded.function(kernel.symbol).ops


def calls(ops) -> list[str]:
    return [op.extra["callee"] for op in ops if op.opcode == "call" and op.extra.get("callee")]


@pytest.fixture
def run_cli(capsys):
    """Run the simulee CLI in-process: (exit status, stdout, stderr)."""
    from simulee.cli import main

    def run(*args: str) -> tuple[int, str, str]:
        try:
            status = main([str(a) for a in args])
        except SystemExit as exit:  # argparse usage errors
            status = exit.code
        captured = capsys.readouterr()
        return status, captured.out, captured.err

    return run


# ---------------------------------------------------------------------------- a clean checkout
# The last check of a run (in the controller, after every worker): the suite must leave no
# file in the checkout that git does not ignore. Files changed or added before the run
# (a developer's work in progress) are not the suite's.


def _checkout_state() -> set[str] | None:
    """`git status` of the checkout, one entry per changed or untracked file (None when
    this is no git checkout)."""
    import subprocess

    try:
        done = subprocess.run(["git", "status", "--porcelain=v1", "-z", "--untracked-files=all"], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return set(filter(None, done.stdout.split("\0"))) if done.returncode == 0 else None


def left_behind(before: set[str], after: set[str]) -> list[str]:
    """The files the run added to the checkout or changed there."""
    return sorted(entry[3:] for entry in after - before)


def pytest_sessionstart(session):
    if not hasattr(session.config, "workerinput"):
        session.config.stash[_BEFORE] = _checkout_state()


def pytest_sessionfinish(session, exitstatus):
    if not hasattr(session.config, "workerinput"):
        _contradicted(session)
    before = session.config.stash.get(_BEFORE, None)
    after = _checkout_state() if before is not None else None
    left = left_behind(before, after) if after is not None else []
    if left:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        reporter.write_line(f"FAILED: the tests left {len(left)} file(s) in the checkout that git does not ignore: "
                            + ", ".join(left[:10]), red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _contradicted(session) -> None:
    """Fail the run on any proof a check's run contradicted (an internal error of Simulee's)."""
    log = Path(os.environ["SIMULEE_CONTRADICTIONS"])
    if not log.exists():
        return
    lines = log.read_text().splitlines()
    log.unlink()
    if lines:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        reporter.write_line(f"FAILED: {len(lines)} proof(s) contradicted by a run: " + "; ".join(lines[:5]), red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


_BEFORE = pytest.StashKey[set]()
