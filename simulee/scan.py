"""Scan a repository: check every kernel of every CUDA source in isolated worker processes
and keep the results in an output folder, one row as each file or kernel finishes.

The output folder holds:
  scan.jsonl     the ledger: one JSON record per file listed and per kernel checked
  files.csv      per file: status, how many kernels, the compiler's first error
  kernels.csv    per kernel: status, launches tried, best fitness, seconds, findings
  bugs.csv       per finding (report.CSV_COLUMNS)
  barriers.csv   per __syncthreads(): its verdict over the launches explored
  report.sarif, summary.md   when the scan ends
A resumed scan keeps the records whose file content, kernel and settings are unchanged
and does only the rest; the tables are rebuilt from the ledger, so a scan killed at any
point loses nothing it finished.
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from simulee import __version__, report
from simulee.cache import digest, file_digest
from simulee.discover import include_dirs, sources
from simulee.errors import SimuleeError
from simulee.frontend import CompileOptions
from simulee.tasks import FileTask, KernelTask, Settings, check_kernel, list_kernels
from simulee.workers import Limits, Pool

LEDGER = "scan.jsonl"
FILES_COLUMNS = ("project", "file", "status", "kernels", "error", "sha256")
KERNELS_COLUMNS = ("project", "file", "kernel", "line", "status", "launches", "best_fitness", "seconds", "findings",
                   "errors", "error", "sha256")
BARRIERS_COLUMNS = ("project", "file", "kernel", "line", "column", "verdict", "passes", "race_first_line",
                    "race_second_line", "race")
VERDICTS = ("needed", "redundant", "not-covered", "divergent")


@dataclass
class ScanOptions:
    target: Path  # a repository, or one file of it
    output: Path
    project: str
    compile: CompileOptions = CompileOptions()  # the user's -I, -D, --clang
    settings: Settings = Settings()
    limits: Limits = Limits()
    jobs: int = 1
    scheduler: str | None = None  # a Dask scheduler address, or "local"
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    resume: bool = False
    quiet: bool = False

    @property
    def root(self) -> Path:
        """The folder files are named relative to: the target, or the target file's folder."""
        target = self.target.resolve()
        return target if target.is_dir() else target.parent


def scan(options: ScanOptions) -> Ledger:
    """Check every kernel of options.target; the ledger holds every record."""
    start = time.perf_counter()
    tasks = file_tasks(options)
    with Pool(options.jobs, options.limits, options.scheduler) as pool:  # first: a scheduler may be unreachable
        ledger = Ledger(options.output, options.project, options.root, tasks, options.resume)
        try:
            _run(pool, ledger, tasks, options.settings, options.quiet)
        except KeyboardInterrupt:
            raise SimuleeError(f"interrupted; what finished is in {options.output} (go on with --resume)") from None
    ledger.finish(time.perf_counter() - start)
    return ledger


def file_tasks(options: ScanOptions) -> list[FileTask]:
    """A task per source to scan, compiled with the user's options, the file's folder and
    the repository's include folders."""
    root = options.root
    files = sources(root, options.include, options.exclude) if options.target.is_dir() else [options.target.resolve()]
    if not files:
        raise SimuleeError(f"no .cu files to scan under {options.target}")
    fingerprint = digest(json.dumps([__version__, asdict(options.settings), asdict(options.compile)]).encode())[:16]
    shared = include_dirs(root, files)
    return [FileTask(str(root), file.relative_to(root).as_posix(), file_digest(file) or "", fingerprint,
                     replace(options.compile, include_dirs=options.compile.include_dirs + (str(file.parent),) + shared))
            for file in files]


def _run(pool: Pool, ledger: Ledger, tasks: list[FileTask], settings: Settings, quiet: bool) -> None:
    """List the files the ledger has not, check the kernels it has not, and keep every
    record as it comes."""
    by_file = {task.file: task for task in tasks}
    bar = _progress(ledger, quiet, pool)
    pending = set()

    def submit_kernels(task: FileTask, kernels: list) -> None:
        for name, line in kernels:
            if not ledger.has_kernel(task, name):
                pending.add(pool.submit(check_kernel, KernelTask(task, name, line, settings)))
                bar.total += 1
        bar.refresh()

    for task in tasks:
        listed = ledger.file(task)
        if listed is None:
            pending.add(pool.submit(list_kernels, task))
        else:
            submit_kernels(task, listed["kernels"])
    while pending:
        done, pending = wait(pending, return_when=FIRST_COMPLETED)
        for future in done:
            record = future.result()
            ledger.add(record)
            if record["record"] == "file":
                submit_kernels(by_file[record["file"]], record["kernels"])
            else:
                bar.set_postfix(findings=ledger.finding_count(), refresh=False)
                bar.update(1)
    bar.close()


def _progress(ledger: Ledger, quiet: bool, pool: Pool):
    """A progress bar over kernels on stderr (drawn only on a terminal), its total growing
    as files are listed."""
    from tqdm import tqdm

    bar = tqdm(total=0, desc=f"scanning ({pool.describe()})", unit="kernel", leave=False,
               disable=quiet or not sys.stderr.isatty())
    bar.set_postfix(findings=ledger.finding_count(), refresh=False)
    return bar


class Ledger:
    """The records of a scan and the tables built from them, in `folder`."""

    def __init__(self, folder: Path, project: str, root: Path, tasks: list[FileTask], resume: bool):
        self.folder, self.project, self.root = folder, project, root
        self.files: dict[tuple, dict] = {}
        self.kernels: dict[tuple, dict] = {}
        self.seconds = 0.0
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise SimuleeError(f"cannot create {folder}: {error.strerror}") from None
        current = {(task.file, task.sha256, task.fingerprint) for task in tasks}
        for record in _read_ledger(folder / LEDGER) if resume else []:
            if _key(record)[:3] in current:
                (self.files if record["record"] == "file" else self.kernels)[_key(record)] = record
        self.resumed = len(self.kernels)
        self._rewrite()

    def file(self, task: FileTask) -> dict | None:
        return self.files.get((task.file, task.sha256, task.fingerprint))

    def has_kernel(self, task: FileTask, kernel: str) -> bool:
        return (task.file, task.sha256, task.fingerprint, kernel) in self.kernels

    def add(self, record: dict) -> None:
        """Keep a record: append it to the ledger and its rows to the tables."""
        (self.files if record["record"] == "file" else self.kernels)[_key(record)] = record
        with open(self.folder / LEDGER, "a") as ledger:
            ledger.write(json.dumps(record) + "\n")
        for name, rows in self._rows([record]).items():
            with open(self.folder / name, "a", newline="") as table:
                table.write(report.table_text(rows, _COLUMNS[name], header=False))

    def finding_count(self) -> int:
        return sum(len(record["check"]["findings"]) for record in self.kernels.values())

    def checks(self) -> list[dict]:
        """Every kernel's check (KernelCheck.to_json), in file and line order."""
        return [record["check"] for record in sorted(self.kernels.values(), key=_order)]

    def finish(self, seconds: float) -> None:
        """Sort the tables and write report.sarif and summary.md."""
        self.seconds = seconds
        self._rewrite()
        sarif = report.sarif_document(self.checks(), self.root)
        (self.folder / "report.sarif").write_text(json.dumps(sarif, indent=2) + "\n")
        (self.folder / "summary.md").write_text(self.summary())

    def _rewrite(self) -> None:
        """The ledger and every table from the records kept, in order."""
        files = sorted(self.files.values(), key=lambda r: r["file"])
        kernels = sorted(self.kernels.values(), key=_order)
        (self.folder / LEDGER).write_text("".join(json.dumps(record) + "\n" for record in files + kernels))
        for name, rows in self._rows(files + kernels).items():
            (self.folder / name).write_text(report.table_text(rows, _COLUMNS[name]))

    def _rows(self, records: list[dict]) -> dict[str, list[dict]]:
        """The rows of every table that `records` add."""
        project = self.project
        files = [r for r in records if r["record"] == "file"]
        checks = [r["check"] for r in records if r["record"] == "kernel"]
        return {
            "files.csv": [{"project": project, "file": r["file"], "status": r["status"], "kernels": len(r["kernels"]),
                           "error": r["error"], "sha256": r["sha256"]} for r in files],
            "kernels.csv": [_kernel_row(r, project) for r in records if r["record"] == "kernel"],
            "bugs.csv": report.csv_rows(checks, project),
            "barriers.csv": [_barrier_row(barrier, project) for check in checks for barrier in check["barriers"]],
        }

    def summary(self) -> str:
        """summary.md: what was scanned, findings by type and by file, what was not checked."""
        checks = self.checks()
        findings = [f for check in checks for f in check["findings"]]
        statuses = Counter(check["status"] for check in checks)
        uncompiled = [r for r in self.files.values() if r["status"] != "ok"]
        errors = sum(1 for f in findings if f["severity"] == "error")
        lines = [f"# Simulee scan: {self.project}", "",
                 f"{_count(len(self.files), 'file')} ({len(uncompiled)} not compiled), "
                 f"{_count(len(checks), 'kernel')} ({', '.join(f'{n} {s}' for s, n in sorted(statuses.items()))}), "
                 f"{_count(len(findings), 'finding')} ({_count(errors, 'error')}, "
                 f"{_count(len(findings) - errors, 'warning')}); {self.seconds:.1f} s"
                 + (f", {_count(self.resumed, 'kernel')} from an earlier run" if self.resumed else ""), ""]
        by_type = Counter((f["type"], f["severity"]) for f in findings)
        lines += _markdown(("type", "severity", "findings", "kernels", "files"),
                           [(kind, severity, count,
                             len({(f["file"], f["kernel"]) for f in findings if (f["type"], f["severity"]) == (kind, severity)}),
                             len({f["file"] for f in findings if (f["type"], f["severity"]) == (kind, severity)}))
                            for (kind, severity), count in sorted(by_type.items())], "Findings by type")
        per_file: dict[str, Counter] = {}
        for check in checks:
            counter = per_file.setdefault(check["file"], Counter())
            counter["kernels"] += 1
            for finding in check["findings"]:
                counter[finding["type"]] += 1
        kinds = sorted({f["type"] for f in findings})
        lines += _markdown(("file", "kernels", *kinds),
                           [(file, counter["kernels"], *(counter[kind] for kind in kinds))
                            for file, counter in sorted(per_file.items()) if any(counter[k] for k in kinds)],
                           "Findings by file")
        lines += _markdown(("file", "kernel", "status", "reason"),
                           [(check["file"], check["kernel"], check["status"], check["error"] or "")
                            for check in checks if check["status"] != "ok"], "Kernels not checked")
        lines += _markdown(("file", "status", "first error"), [(r["file"], r["status"], r["error"]) for r in
                                                                sorted(uncompiled, key=lambda r: r["file"])],
                           "Files not compiled")
        return "\n".join(lines)


_COLUMNS = {"files.csv": FILES_COLUMNS, "kernels.csv": KERNELS_COLUMNS, "bugs.csv": report.CSV_COLUMNS,
            "barriers.csv": BARRIERS_COLUMNS}


def _key(record: dict) -> tuple:
    key = (record["file"], record["sha256"], record["fingerprint"])
    return key if record["record"] == "file" else key + (record["kernel"],)


def _order(record: dict) -> tuple:
    return record["file"], record["check"]["line"], record["kernel"]


def _read_ledger(path: Path) -> list[dict]:
    """The records of a ledger; a line cut short by a killed scan is dropped."""
    try:
        text = path.read_text()
    except OSError:
        return []
    records = []
    for line in text.splitlines(keepends=True):
        if not line.endswith("\n"):
            break
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return records


def _kernel_row(record: dict, project: str) -> dict:
    check = record["check"]
    search = check.get("search") or {}
    scores = [launch["fitness"]["F"] for launch in check["launches"] if launch.get("fitness")]
    return {"project": project, "file": record["file"], "kernel": record["kernel"], "line": check["line"],
            "status": check["status"], "launches": search.get("evaluations", 0) + len(check["launches"]),
            "best_fitness": round(min(scores), 4) if scores else "", "seconds": check["seconds"],
            "findings": len(check["findings"]),
            "errors": sum(1 for f in check["findings"] if f["severity"] == "error"),
            "error": check["error"] or "", "sha256": record["sha256"]}


def _barrier_row(barrier: dict, project: str) -> dict:
    race = barrier["race"] or {}
    return {"project": project, "file": barrier["file"], "kernel": barrier["kernel"], "line": barrier["line"],
            "column": barrier["column"], "verdict": verdict(barrier), "passes": barrier["passes"],
            "race_first_line": (race.get("first") or {}).get("line", ""),
            "race_second_line": (race.get("second") or {}).get("line", ""), "race": race.get("message", "")}


def verdict(barrier: dict) -> str:
    """A barrier's verdict in an audit: divergent when some launch reached it with part
    of a block only, else needed, redundant or not-covered."""
    return "divergent" if barrier["divergent"] else barrier["verdict"]


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _markdown(header: tuple, rows: list[tuple], title: str) -> list[str]:
    if not rows:
        return []
    cell = lambda value: str(value).replace("|", "\\|").replace("\n", " ")  # noqa: E731
    return [f"## {title}", "", "| " + " | ".join(header) + " |", "|" + " --- |" * len(header),
            *("| " + " | ".join(cell(v) for v in row) + " |" for row in rows), ""]
