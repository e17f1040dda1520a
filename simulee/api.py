"""Simulee from Python: what the commands do, returned as objects instead of printed.

    import simulee
    report = simulee.check("reduce.cu", block=256)
    for finding in report.findings:
        print(finding.type, finding.file, finding.line, finding.second.line)

A source is a path (a file, or a folder for `check`, `kernels` and `scan`) or CUDA source
text: a string that holds a kernel and names no existing file is compiled as `kernel.cu`
in a temporary folder (`name=` chooses another file name), and the reports name it so.
Every other keyword is a long option of the command, spelled with underscores
(`warp_model="lockstep"`, `defines=["N=64"]`, `include_dirs=["include"]`, `no_search=True`,
`seed=3`): the same names, values and defaults as `simulee COMMAND --help` lists; a value
the command line would reject raises SimuleeError with the command line's message.
Progress bars are off unless `quiet=False`.

May import: anything of simulee (it is a face of every subsystem, as cli is).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simulee.errors import SimuleeError

__all__ = ["Record", "Report", "Run", "Scan", "check", "equiv", "kernels", "prove", "run", "scan", "SimuleeError"]


class Record(Mapping):
    """A JSON object of Simulee's reports (a finding, a kernel's record, a proof) whose keys
    are attributes too: `finding.type`, `finding.first.line`; nested objects are Records."""

    def __init__(self, data: dict):
        self._data = data

    def __getitem__(self, key):
        return _wrapped(self._data[key])

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __iter__(self):
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"Record({self._data!r})"

    def to_json(self) -> dict:
        return self._data


def _wrapped(value):
    if isinstance(value, dict):
        return Record(value)
    if isinstance(value, list):
        return [_wrapped(item) for item in value]
    return value


@dataclass
class Report:
    """What `check` found: one record per kernel checked (KernelCheck.to_json: kernel,
    file, line, status, verdict, findings, barriers, launches, ...), and the files that
    did not compile. text(), json(), csv() and sarif() are the command's reports."""

    records: list[dict]
    unreadable: list[dict]
    project: str
    seconds: float
    _bugs: object = field(default=None, repr=False)

    @property
    def kernels(self) -> list[Record]:
        return [Record(record) for record in self.bugs.records]

    @property
    def findings(self) -> list[Record]:
        """Every finding of every kernel, each with its `root_cause` fingerprint."""
        return [Record(finding) for record in self.bugs.records for finding in record["findings"]]

    @property
    def errors(self) -> list[Record]:
        """The findings of severity error (a check exits with status 1 when there is one)."""
        return [finding for finding in self.findings if finding.severity == "error"]

    @property
    def bugs(self):
        """The findings grouped into root causes (report.rootcause.Bugs)."""
        from simulee.report import rootcause

        if self._bugs is None:
            self._bugs = rootcause.bugs(self.records)
        return self._bugs

    def text(self, verbose: bool = False) -> str:
        from simulee.report.formats import report

        return report("text", self.bugs, self.project, self.seconds, verbose, False, self.unreadable,
                           verdicts=True)

    def json(self) -> dict:
        return json.loads(self._form("json"))

    def csv(self) -> str:
        return self._form("csv")

    def sarif(self) -> dict:
        return json.loads(self._form("sarif"))

    def _form(self, form: str) -> str:
        from simulee.report.formats import report

        return report(form, self.bugs, self.project, self.seconds, False, False, self.unreadable)


@dataclass
class Run:
    """One launch `run` made: the final contents of every pointer argument's buffer (by
    parameter name), what the kernel printed, the findings of the launch's events
    (faults, failed asserts, barrier divergence), and its counts."""

    buffers: dict[str, np.ndarray]
    printed: str
    findings: list[Record]
    threads: int
    thread_instructions: int
    status: str


@dataclass
class Scan:
    """A finished scan: its output folder (summary.md, report.html, report.sarif, the CSV
    tables), the summary it printed, and its kernel records."""

    folder: Path
    summary: str
    report: Report


def kernels(source, *, name: str = "kernel.cu", **options) -> list[Record]:
    """The kernels of a file, a folder's files or source text: name, symbol, file, line,
    parameters and what they read, as `simulee kernels --format json` lists them."""
    from simulee.app.args import KernelsArgs
    from simulee.app.sources import list_kernels
    from simulee.model.findings import display

    with _Source(source, name) as path:
        listing, errors, _ = list_kernels(KernelsArgs.given("kernels", **options, path=str(path)))
        if errors:
            raise SimuleeError(errors[0]["error"])
        return [Record(path.rename(dict(kernel.to_json(), file=display(kernel.file)))) for _, kernel in listing]


def check(source, kernel: str | None = None, *, grid=None, block=None, args: dict | None = None,
          name: str = "kernel.cu", **options) -> Report:
    """Check a kernel (or every kernel of a file or folder) as `simulee check` does:
    `grid` and `block` as ints, tuples or "X,Y,Z" texts, `args` by parameter name (a
    number for a scalar, a NumPy array for a buffer); what they leave open is searched."""
    from simulee.app.args import CheckArgs
    from simulee.app.check import check_sources

    with _Source(source, name) as path:
        checked = check_sources(CheckArgs.given("check", **_with(options, args, quiet=True), path=str(path),
                                                kernel=kernel, grid=grid, block=block))
        records = [path.rename(check.to_json()) for check in checked.checks]
        return Report(records, [path.rename(entry) for entry in checked.unreadable], checked.project,
                      checked.seconds)


def run(source, kernel: str | None = None, *, grid, block, args: dict | None = None, name: str = "kernel.cu",
        **options) -> Run:
    """Run one launch of a kernel as `simulee run` does and return its buffers."""
    from simulee.app.args import RunArgs
    from simulee.app.launches import launch_findings, run_kernel

    with _Source(source, name) as path:
        _, result = run_kernel(RunArgs.given("run", **_with(options, args, quiet=True), path=str(path), kernel=kernel,
                                             grid=grid, block=block))
        if result.status in ("unsupported", "out-of-memory"):
            raise SimuleeError(result.message)
        return Run({key: np.asarray(value) for key, value in result.buffers.items()},
                   "".join(text for _, _, text in result.events.printf),
                   [Record(path.rename(finding.to_json())) for finding in launch_findings(result)],
                   result.threads, result.thread_instructions, result.status)


def prove(source, kernel: str | list[str] | None = None, *, name: str = "kernel.cu", **options) -> list[Record]:
    """Prove kernels race-free for every launch as `simulee prove` does: one record per
    kernel (verdict proved | race | unknown, the races found, whether a run confirmed
    them, the assumptions made), as `--format json` writes them."""
    from simulee.app.args import ProveArgs
    from simulee.app.prove import prove_sources
    from simulee.prover import report

    kernel = [kernel] if isinstance(kernel, str) else kernel
    with _Source(source, name) as path:
        proofs, errors = prove_sources(ProveArgs.given("prove", **options, path=str(path), kernel=kernel))
        if errors and not proofs:
            raise SimuleeError(errors[0]["error"])
        return [Record(path.rename(report.to_json(proof))) for proof in proofs]


def equiv(old, new, *, args: dict | None = None, **options) -> Record:
    """Compare two versions of a kernel as `simulee equiv` does (each "FILE" or
    "FILE:KERNEL"; `args` fixes integer arguments by the old kernel's names): its report
    as `--format json` writes it (verdict differ | equivalent | proved-equivalent |
    not-compared, the difference, the proof)."""
    from simulee.app.args import EquivArgs
    from simulee.app.equiv import compare_versions, equiv_json

    asked = EquivArgs.given("equiv", **_with(options, args, quiet=True), old=str(old), new=str(new))
    return Record(equiv_json(*compare_versions(asked)))


def scan(repo, out=None, **options) -> Scan:
    """Scan a repository as `simulee scan` does, into `out` (default: what the command
    chooses); returns the output folder, the summary and the kernels' records."""
    from simulee.app.args import ScanArgs
    from simulee.app.scan import scan_repository
    from simulee.scanner.repository import compiled

    asked = ScanArgs.given("scan", **_with(options, None, quiet=True), path=str(repo), output=out and str(out))
    ledger = scan_repository(asked)
    bugs = ledger.bugs()
    uncompiled = [{"file": record["file"], "error": record["error"]} for record in ledger.files.values()
                  if not compiled(record)]
    report = Report(bugs.records, uncompiled, asked.project or Path(repo).resolve().name, ledger.seconds, bugs)
    return Scan(ledger.folder, ledger.summary(bugs), report)


# ---------------------------------------------------------------------------- options


def _with(options: dict, kernel_args: dict | None, **defaults) -> dict:
    """The keywords of a command: `defaults` (progress bars off) under `options`, and the
    kernel's arguments by name added to its --arg texts (numbers, booleans) and --buffer
    buffers (NumPy arrays, attached as they are)."""
    options = {**defaults, **options}
    for key, value in (kernel_args or {}).items():
        if isinstance(value, np.ndarray):
            options["buffer"] = [*options.get("buffer", ()), (key, value)]
        else:
            text = str(value).lower() if isinstance(value, bool) else value
            options["arg"] = [*options.get("arg", ()), f"{key}={text}"]
    return options


class _Source:
    """A source given as a path, or as text written to a temporary folder for the call;
    `rename` replaces that folder's path in a report with the file's name."""

    def __init__(self, source, name: str):
        self.source, self.name, self.folder = source, name, None

    def __enter__(self) -> _Source:
        source = self.source
        if isinstance(source, str) and not os.path.exists(source) and ("\n" in source or "__global__" in source):
            self.folder = Path(tempfile.mkdtemp(prefix="simulee-source-"))
            (self.folder / self.name).write_text(source)
            self.path = self.folder / self.name
        else:
            self.path = Path(source)
        return self

    def __exit__(self, *exc) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __fspath__(self) -> str:
        return str(self.path)

    def __str__(self) -> str:
        return str(self.path)

    def rename(self, data):
        """`data` (JSON) with the temporary folder left out of every path in it."""
        if self.folder is None:
            return data
        # the folder's name is unique: whatever path leads to it (absolute, or relative to here) goes
        text = re.sub(r'[^"\s]*' + re.escape(self.folder.name + os.sep), "", json.dumps(data))
        return json.loads(text)
