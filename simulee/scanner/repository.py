"""Scan a repository: check every kernel of every CUDA source in isolated worker processes
and keep the results in an output folder, one row as each file or kernel finishes.

The output folder holds:
  scan.jsonl     the ledger: one JSON record per file listed and per kernel checked
  files.csv      per file: status, how many kernels, the compiler's first error, how its host
                 code was read (its host program, or its own alone and why)
  kernels.csv    per kernel: status, launches tried, best fitness, seconds, findings
  findings.csv   per finding of a kernel (formats.FINDING_COLUMNS)
  bugs.csv       per root cause: a bug shared by kernels, template instances and launches is
                 one row (formats.CSV_COLUMNS)
  barriers.csv   per __syncthreads() and kernel: its verdict over the launches explored in
                 every kernel that reaches it
  report.sarif, report.html, summary.md
  .lock          held while a scan writes to the folder: a second scan refuses it
  .spools/       while a kernel is checked, what its launches showed so far: the findings a
                 worker stopped at --kernel-timeout (or killed) still reports
files.csv, kernels.csv and findings.csv grow as records come; the others are rewritten
every REPORT_SECONDS while the scan runs, and at its end.
A resumed scan keeps the records whose file content, kernel and settings are unchanged
and does only the rest; the tables are rebuilt from the ledger, so a scan killed at any
point loses nothing it finished.

A scan reads nothing outside the repository but what -I names: a source that is a link
to a file outside, or that includes one, is a file error ("include outside the
repository"), and folders that are links are not entered.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import asdict, dataclass, replace
from pathlib import Path


from evolve.launchsite import Call, Site
from interpreter.irparse import split_top_level
from simulee import __version__
from simulee.frontend import compile_commands
from simulee.report import formats, html, rootcause
from simulee.frontend.cache import digest, file_digest
from simulee.scanner.discover import host_sources, included_sources, inside, mentioning, repository, wrappers_of
from simulee.errors import SimuleeError
from simulee.model.findings import display
from simulee.frontend.compiler import CompileOptions
from simulee.checker.sites import identifier, launching, through_callers
from simulee.checker.kernel import Settings
from simulee.scanner.tasks import CallsTask, FileTask, KernelTask, check_kernel, list_calls, list_kernels
from simulee.scanner.workers import Limits, Pool

LEDGER = "scan.jsonl"
SPOOLS = ".spools"  # a kernel's check keeps what it found so far here, for a worker stopped before its end
LOCK = ".lock"
REPORT_SECONDS = 5.0  # the reports (bugs.csv, report.sarif, ...) are rewritten at most this often while a scan runs
FILES_COLUMNS = ("project", "file", "status", "kernels", "seconds", "error", "host", "sha256")
KERNELS_COLUMNS = ("project", "file", "kernel", "line", "status", "launches", "best_fitness", "seconds", "findings",
                   "errors", "error", "verdict", "verdict_reason", "sha256")
BARRIERS_COLUMNS = ("project", "file", "kernel", "line", "column", "verdict", "kernel_verdict", "passes",
                    "launches", "race_first_line", "race_second_line", "race", "reason")
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
    all_instances: bool = False  # check every instance of a template, not TEMPLATE_INSTANCES of each
    baseline: object = None  # a baseline.Baseline to compare the findings with
    new_only: bool = False  # report only the root causes new since the baseline

    @property
    def root(self) -> Path:
        """The folder files are named relative to: the target, or the target file's folder."""
        target = self.target.resolve()
        return target if target.is_dir() else target.parent


def default_output(target: Path) -> Path:
    """results/NAME, NAME the target's path relative to the current folder with its
    parts joined by '-' (tests/kernels: results/tests-kernels), or its own name when it
    lies elsewhere; a file's name without its suffix."""
    target = Path(os.path.abspath(target))
    if target.is_file():
        target = target.with_suffix("")
    try:
        parts = target.relative_to(Path.cwd()).parts
    except ValueError:
        parts = (target.name,)
    return Path("results") / ("-".join(parts) or target.name or "root")


def scan(options: ScanOptions) -> Ledger:
    """Check every kernel of options.target; the ledger holds every record."""
    start = time.perf_counter()
    layout = Layout.of(options)
    tasks = file_tasks(options, layout)
    with Pool(options.jobs, options.limits, options.scheduler) as pool:  # first: a scheduler may be unreachable
        ledger = Ledger(options.output, options.project, options.root, tasks, options.resume, options.baseline,
                        options.new_only)
        try:
            _run(pool, ledger, tasks, options.settings, options.quiet,
                 lambda callees: host_tasks(options, layout, callees), options.all_instances)
        except KeyboardInterrupt:
            ledger.finish(time.perf_counter() - start)
            raise KeyboardInterrupt(f"what finished is in {options.output} (go on with --resume)") from None
        finally:
            ledger.release()
    ledger.finish(time.perf_counter() - start)
    return ledger


def file_tasks(options: ScanOptions, layout: "Layout | None" = None) -> list[FileTask]:
    """A task per source to scan, compiled with the user's options, the file's folder and
    the repository's include folders, reading nothing outside the repository and -I."""
    layout = layout or Layout.of(options)
    parts = layout.parts
    names = tuple(file.relative_to(layout.root).as_posix() for file in layout.files
                  if file not in parts and inside(file, layout.root))
    return [layout.task(file, parts[file].relative_to(layout.root).as_posix() if file in parts else "",
                        tuple(other for other in names if other != file.relative_to(layout.root).as_posix()),
                        options.settings.launch_sites)
            for file in layout.files]


def host_tasks(options: ScanOptions, layout: "Layout", callees: set[str]) -> list[CallsTask]:
    """A task per source whose host code can call one of `callees` (symbols of functions
    whose launches read their parameters): the repository's C++ sources and CUDA sources
    whose text, or a header they include, names one (simulee.scanner.discover.mentioning), but
    those another source includes (their code is read with it)."""
    if not options.target.is_dir() or not callees:
        return []
    candidates = host_sources(layout.root, options.include, options.exclude) + layout.files
    parts = included_sources(layout.root, candidates, layout.shared)
    candidates = [file for file in candidates if file not in parts]
    symbols: dict[str, set] = {}  # identifier -> the callees' symbols it names
    for callee in callees:
        symbols.setdefault(identifier(callee), set()).add(callee)
    found = mentioning(candidates, set(symbols), layout.shared)
    return [CallsTask(layout.task(file, "", (), False), tuple(sorted(callees)),
                      tuple(sorted(set().union(*(symbols[name] for name in names)))))
            for file, names in found.items() if inside(file, layout.root)]


@dataclass(frozen=True)
class Layout:
    """What every source of a scan is compiled with."""

    root: Path
    files: list
    parts: dict  # sources another source includes -> that source
    options: CompileOptions
    shared: tuple[str, ...]  # the repository's include folders
    fingerprint: str

    @classmethod
    def of(cls, options: ScanOptions) -> "Layout":
        root = options.root
        sources = repository(root, options.include, options.exclude, None if options.target.is_dir() else
                             [Path(os.path.abspath(options.target))])
        if not sources.files:
            raise SimuleeError(f"no .cu files to scan under {options.target}")
        compile_options = options.compile
        if compile_options.compile_commands is None and options.target.is_dir():
            found = compile_commands.find(root)
            compile_options = replace(compile_options, compile_commands=found and str(found))
        config = options.settings.config
        stated = file_digest(Path(config)) if config else ""  # a changed simulee.toml checks every kernel again
        fingerprint = digest(json.dumps([__version__, asdict(options.settings), asdict(compile_options),
                                         stated]).encode())[:16]
        confine = (str(root),) + compile_options.include_dirs
        return cls(root, sources.files, sources.parts, replace(compile_options, confine=confine), sources.shared,
                   fingerprint)

    def task(self, file: Path, part_of: str, siblings: tuple[str, ...], launch_sites: bool) -> FileTask:
        name = file.relative_to(self.root).as_posix()
        within = inside(file, self.root)
        refused = "" if within else f"{name}: include outside the repository: a link to {os.path.realpath(file)}"
        options = replace(self.options, include_dirs=self.options.include_dirs + (str(file.parent),) + self.shared)
        return FileTask(str(self.root), name, file_digest(file) or "" if within else "", self.fingerprint, options,
                        refused, part_of, siblings, launch_sites)


def _run(pool: Pool, ledger: Ledger, tasks: list[FileTask], settings: Settings, quiet: bool, callers,
         all_instances: bool = False) -> None:
    """List the files the ledger has not, read the calls that fix the launches of the
    wrappers they hold (`callers(callees)`: the tasks that do), check the kernels the
    ledger has not, and keep every record as it comes."""
    by_file = {task.file: task for task in tasks}
    bar = _progress(ledger, quiet, pool)
    pending = set()
    listed: list[dict] = []
    read: list[dict] = []  # calls records

    def submit(function, task) -> None:
        pending.add(pool.submit(function, task))
        bar.total += 1

    def submit_missing(function, tasks, recorded, kept: list) -> int:
        """Submit `function` for each task the ledger holds no record of (`recorded(task)`),
        keep the records it holds; how many were submitted."""
        submitted = 0
        for task in tasks:
            record = recorded(task)
            if record is None:
                submit(function, task)
                submitted += 1
            else:
                kept.append(record)
        return submitted

    def submit_calls() -> int:
        """Every file listed: read the calls of the functions whose launches are open; how many to read."""
        callees = {function for record in listed for site in record.get("sites", [])
                   for function in Site.from_json(site).open_functions()} if settings.launch_sites else set()
        return submit_missing(list_calls, callers(callees), ledger.calls, read)

    def submit_kernels() -> None:
        """Every file listed and every call read: check their kernels, each with its launch sites from any file."""
        calls = [Call.from_json(call) for record in read for call in record["calls"]]
        unread: dict[str, tuple] = {}  # function -> the files whose host code names it but could not be read
        for record in read:
            for function in record.get("named", ()) if record["status"] != "ok" else ():
                unread[function] = (*unread.get(function, ()), record["file"])
        sites: dict[str, dict] = {}  # kernel symbol -> the program whose host code holds them -> sites by key
        defining: dict[str, set] = {}  # kernel symbol -> the programs that define a kernel of that symbol
        own = {record["file"]: [Site.from_json(site) for site in record.get("sites", [])] for record in listed}
        wrappers = wrappers_of([site for found in own.values() for site in found],
                               {file: Path(by_file[file].root) / file for file in own})
        for record in listed:
            for site in through_callers(own[record["file"]], calls, unread, wrappers=wrappers):
                sites.setdefault(site.kernel, {}).setdefault(record["file"], {}).setdefault(site.key(), site.to_json())
            for _, _, *symbol in record.get("kernels") or []:
                defining.setdefault(symbol[0] if symbol else "", set()).add(record["file"])
        for record in listed:
            task = by_file[record["file"]]
            launched = {name for name, _, *symbol in record["kernels"] if symbol and sites.get(symbol[0])}
            checked = set(representatives([name for name, *_ in record["kernels"]], launched, all_instances))
            for name, line, *symbol in record["kernels"]:
                if ledger.has_kernel(task, name) and (name not in checked or not ledger.represented(task, name)):
                    continue
                if name not in checked:
                    ledger.add(KernelTask(task, name, line, settings).failed(REPRESENTED, _represented(
                        name, [other for other, *_ in record["kernels"]], checked)))
                    continue
                found = {}  # a ledger from before symbols: no sites
                if symbol:
                    by_program = {program: list(by_key.items()) for program, by_key in sites.get(symbol[0], {}).items()}
                    found = dict(launching(by_program, record["file"], defining[symbol[0]]))
                # its file's host code launches kernels, but no host code of the repository launches this one
                unlaunched = settings.launch_sites and bool(record.get("sites")) and not found
                spool = ledger.folder / SPOOLS / f"{digest(f'{task.file}:{name}'.encode())[:16]}.json"
                submit(check_kernel, KernelTask(task, name, line, settings, tuple(found.values()),
                                                written=_written(record), unlaunched=unlaunched, spool=str(spool)))
        bar.bar_format = None  # the total is final: the time left means something
        bar.refresh()

    def files_listed() -> int:
        """Read the calls the listed files need, or, when none, check their kernels; how many calls tasks."""
        submitted = submit_calls()
        if not submitted:
            submit_kernels()
        return submitted

    calling = 0
    listing = submit_missing(list_kernels, tasks, ledger.file, listed)
    if not listing:
        calling = files_listed()
    while pending:
        done, pending = wait(pending, timeout=REPORT_SECONDS, return_when=FIRST_COMPLETED)
        ledger.refresh()
        for future in done:
            record = future.result()
            ledger.add(record)
            if record["record"] == "file":
                listed.append(record)
                listing -= 1
                if not listing:
                    calling = files_listed()
            elif record["record"] == "calls":
                read.append(record)
                calling -= 1
                if not calling:
                    submit_kernels()
            bar.set_postfix(findings=ledger.finding_count(), refresh=False)
            bar.update(1)
    bar.close()


TEMPLATE_INSTANCES = 8  # instances of one kernel template a scan checks (--all-instances: every one)
REPRESENTED = "represented"  # the status of an instance not checked: others of its template stand for it


def representatives(names: list[str], launched: set[str], everyone: bool = False) -> list[str]:
    """The kernels of a file to check: every kernel that is no template instance, and of
    each template at most TEMPLATE_INSTANCES instances (all of them with `everyone`):
    those the host code launches (`launched`) first, then, one at a time, the instance
    that brings the most template arguments not yet checked in their place (a type, an
    operator, a flag, a size), ties going to the one furthest from those chosen in name
    order (numbers by value): every parameter's values are covered before any is covered
    twice, and a range's ends first. A template's instances usually share their bugs:
    they are one root cause."""
    templates: dict[str, list[str]] = {}
    for name in names:
        templates.setdefault(template_of(name), []).append(name)
    chosen = []
    for template, instances in templates.items():
        if everyone or "<" not in instances[0] or len(instances) <= TEMPLATE_INSTANCES:
            chosen += instances
            continue
        picked = [name for name in instances if name in launched][:TEMPLATE_INSTANCES]
        rest = sorted((name for name in instances if name not in picked), key=_natural)
        covered = {pair for name in picked for pair in enumerate(template_arguments(name))}
        places: list[int] = []
        while len(picked) < TEMPLATE_INSTANCES and rest:
            def gain(index: int) -> tuple[int, int]:
                new = len(set(enumerate(template_arguments(rest[index]))) - covered)
                return new, min((abs(index - p) for p in places), default=len(rest) - index)
            best = max(range(len(rest)), key=gain)
            covered |= set(enumerate(template_arguments(rest[best])))
            places = [p if p < best else p - 1 for p in places] + [best]
            picked.append(rest.pop(best))
        chosen += picked
    return list(dict.fromkeys(chosen))


def _natural(name: str) -> list:
    """A sort key that orders the numbers in a name by value (f<9> before f<10>)."""
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in re.split(r"(\d+)", name)]


def template_arguments(name: str) -> tuple[str, ...]:
    """The template arguments of an instance's name, as written (`f<float, (unsigned
    int)128, true>`: float, (unsigned int)128, true); none for a name without any."""
    start = name.find("<")
    return tuple(split_top_level(name[start + 1 : name.rfind(">")], "<([{", ">)]}")) if start >= 0 else ()


def _written(record: dict) -> tuple:
    """A file record's device variables its host code writes, as KernelTask.written takes
    them (a ledger from before what they hold was read lists names only)."""
    written = record.get("written") or {}
    if isinstance(written, list):
        return tuple((name, None) for name in written)
    return tuple((name, None if writes is None else tuple(map(tuple, writes))) for name, writes in written.items())


def template_of(name: str) -> str:
    """The template a kernel is an instance of (its name before the template arguments)."""
    return name.split("<", 1)[0]


def _represented(name: str, names: list[str], checked: set[str]) -> str:
    template = template_of(name)
    instances = [other for other in names if template_of(other) == template]
    standing = [other for other in instances if other in checked]
    return (f"not checked: {len(instances)} instances of template {template}, of which {len(standing)} were checked "
            f"for all ({', '.join(standing[:3])}{' ...' if len(standing) > 3 else ''}); --all-instances checks "
            f"every one")


def _progress(ledger: Ledger, quiet: bool, pool: Pool):
    """A progress bar on stderr (drawn only on a terminal) over the files to compile and
    the kernels to check, its total growing as files are listed; it shows the time left
    once every file is listed."""
    from tqdm import tqdm

    bar = tqdm(total=0, desc=f"scanning ({pool.describe()})", unit="task", leave=False,
               disable=quiet or not sys.stderr.isatty(), bar_format=formats.WITHOUT_TIME_LEFT)
    bar.set_postfix(findings=ledger.finding_count(), refresh=False)
    return bar


class Ledger:
    """The records of a scan and the tables built from them, in `folder`."""

    def __init__(self, folder: Path, project: str, root: Path, tasks: list[FileTask], resume: bool,
                 baseline=None, new_only: bool = False):
        self.folder, self.project, self.root = folder, project, root
        self.baseline, self.new_only = baseline, new_only
        self.files: dict[tuple, dict] = {}
        self.callers: dict[tuple, dict] = {}  # calls records: what host code passes to functions that launch
        self.kernels: dict[tuple, dict] = {}
        self.seconds = 0.0
        self.started = time.perf_counter()
        self.reported = 0.0
        self.stale = False  # records came since the reports were written
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise SimuleeError(f"cannot create {folder}: {error.strerror}") from None
        self.lock = _lock(folder)
        shutil.rmtree(folder / SPOOLS, ignore_errors=True)  # a killed scan's: of checks no longer running
        try:
            _claim(folder, root, resume)
        except SimuleeError:
            self.release()
            raise
        current = {(task.file, task.sha256, task.fingerprint) for task in tasks}
        fingerprints = {task.fingerprint for task in tasks}
        for record in _read_ledger(folder / LEDGER) if resume else []:
            if _key(record)[:3] in current:
                self._table(record)[_key(record)] = record
            # checked against its file by calls()
            elif record["record"] == "calls" and record["fingerprint"] in fingerprints:
                self.callers[_key(record)] = record
        self.resumed = len(self.kernels)
        self._rewrite()
        self._reports()

    def file(self, task: FileTask) -> dict | None:
        return self.files.get((task.file, task.sha256, task.fingerprint))

    def calls(self, task: CallsTask) -> dict | None:
        """The calls record of an unchanged file for the same callees, if kept."""
        return self.callers.get((task.source.file, task.source.sha256, task.source.fingerprint, task.callees))

    def _table(self, record: dict) -> dict:
        return {"file": self.files, "calls": self.callers}.get(record["record"], self.kernels)

    def has_kernel(self, task: FileTask, kernel: str) -> bool:
        return (task.file, task.sha256, task.fingerprint, kernel) in self.kernels

    def represented(self, task: FileTask, kernel: str) -> bool:
        """Whether the kernel's record says others of its template stood for it."""
        return self.kernels[(task.file, task.sha256, task.fingerprint, kernel)]["check"]["status"] == REPRESENTED

    def add(self, record: dict) -> None:
        """Keep a record: append it to the ledger and its rows to the tables; every
        REPORT_SECONDS, bring the reports up to date."""
        self._table(record)[_key(record)] = record
        with open(self.folder / LEDGER, "a") as ledger:
            ledger.write(json.dumps(record) + "\n")
        for name, rows in self._rows([record]).items():
            with open(self.folder / name, "a", newline="") as table:
                table.write(formats.table_text(rows, _COLUMNS[name], header=False))
        self.stale = True
        self.refresh()

    def refresh(self) -> None:
        """Bring the reports up to date with the records, at most every REPORT_SECONDS."""
        if self.stale and time.perf_counter() - self.reported >= REPORT_SECONDS:
            self.seconds = time.perf_counter() - self.started
            self._reports()

    def release(self) -> None:
        """Let another scan write to the folder."""
        if self.lock is not None:
            self.lock.close()
            self.lock = None

    def finding_count(self) -> int:
        return sum(len(record["check"]["findings"]) for record in self.kernels.values())

    def checks(self) -> list[dict]:
        """Every kernel's check (KernelCheck.to_json), in file and line order."""
        return [record["check"] for record in sorted(self.kernels.values(), key=_order)]

    def bugs(self) -> rootcause.Bugs:
        """The bugs the checks show, compared with the baseline if there is one."""
        return rootcause.bugs(self.checks(), self.root, self.baseline)

    def finish(self, seconds: float) -> None:
        """Sort the tables and write the reports; drop the spools of the kernels checked."""
        self.seconds = seconds
        self._rewrite()
        self._reports()
        shutil.rmtree(self.folder / SPOOLS, ignore_errors=True)  # emptied as checks end; a stopped scan's leftovers

    def _reports(self) -> None:
        """bugs.csv, barriers.csv, report.sarif, report.html and summary.md of the records so
        far, each replaced at once."""
        self.reported = time.perf_counter()
        self.stale = False
        uncompiled = [{"file": r["file"], "error": r["error"]} for r in self.files.values() if not compiled(r)]
        bugs = self.bugs()
        _replace(self.folder / "bugs.csv", formats.table_text(formats.bug_rows(bugs, self.project, self.new_only),
                                                             formats.CSV_COLUMNS))
        barriers = [_barrier_row(barrier, self.project) for check in bugs.records for barrier in check["barriers"]]
        _replace(self.folder / "barriers.csv", formats.table_text(barriers, BARRIERS_COLUMNS))
        _replace(self.folder / "report.sarif", json.dumps(formats.sarif_document(bugs, uncompiled), indent=2) + "\n")
        _replace(self.folder / "summary.md", self.summary(bugs))
        _replace(self.folder / "report.html", html.page(bugs, self.project, self.seconds, self.new_only))

    def _rewrite(self) -> None:
        """The ledger and every table from the records kept, in order."""
        files = sorted(self.files.values(), key=lambda r: r["file"])
        kernels = sorted(self.kernels.values(), key=_order)
        calls = sorted(self.callers.values(), key=lambda r: r["file"])
        (self.folder / LEDGER).write_text("".join(json.dumps(record) + "\n" for record in files + calls + kernels))
        for name, rows in self._rows(files + kernels).items():
            (self.folder / name).write_text(formats.table_text(rows, _COLUMNS[name]))

    def _rows(self, records: list[dict]) -> dict[str, list[dict]]:
        """The rows of every table that `records` add."""
        project = self.project
        files = [r for r in records if r["record"] == "file"]
        checks = rootcause.bugs([r["check"] for r in records if r["record"] == "kernel"], self.root).records
        return {
            "files.csv": [{"project": project, "file": r["file"], "status": r["status"], "kernels": len(r["kernels"]),
                           "seconds": r.get("seconds", ""), "error": r["error"], "host": r.get("host", ""),
                           "sha256": r["sha256"]}
                          for r in files],
            "kernels.csv": [_kernel_row(r, project) for r in records if r["record"] == "kernel"],
            "findings.csv": formats.finding_rows(checks, project),
        }

    def summary(self, bugs: rootcause.Bugs | None = None) -> str:
        """summary.md: what was scanned, root causes by type and worst first, findings by
        file, what was not checked."""
        bugs = bugs or self.bugs()
        checks = bugs.records
        causes = bugs.shown(self.new_only)
        findings = [f for cause in causes for f in cause["findings"]]
        statuses = Counter(check["status"] for check in checks)
        uncompiled = [r for r in self.files.values() if not compiled(r)]
        files = Counter(r["status"] for r in self.files.values())
        errors = sum(1 for c in causes if c["witness"]["severity"] == "error")
        suppressed = sum(len(check.get("suppressed", [])) for check in checks)
        states = Counter(cause.get("baseline") for cause in bugs.causes)
        library = sum(r.get("library_kernels", 0) for r in self.files.values())
        lines = [f"# Simulee scan: {self.project}", "",
                 f"{formats.plural(len(self.files), 'file')} ({len(uncompiled)} not compiled"
                 + (f", {files['degraded']} degraded" if files["degraded"] else "")
                 + (f", {files['included']} checked through the file that includes them" if files["included"] else "")
                 + "), "
                 f"{formats.plural(len(checks), 'kernel')} "
                 f"({', '.join(f'{n} {s}' for s, n in sorted(statuses.items()))}"
                 + (f"; {library} of the CUDA toolkit's headers, CUB's and thrust's, left out" if library else "")
                 + "), "
                 f"{formats.plural(len(causes), 'root cause')}{' new since the baseline' if self.new_only else ''} "
                 f"({formats.plural(errors, 'error')}, {formats.plural(len(causes) - errors, 'warning')}) "
                 f"from {formats.plural(len(findings), 'finding')} in "
                 f"{formats.plural(len({(f['file'], f['kernel']) for f in findings}), 'kernel')}"
                 + (f"; {suppressed} suppressed" if suppressed else "")
                 + (f"; against {display(str(self.baseline.path))}: {states['new']} new, {states['unchanged']} "
                    f"unchanged, {len(bugs.absent)} absent" if bugs.baseline else "")
                 + f"; {self.seconds:.1f} s"
                 + (f", {formats.plural(self.resumed, 'kernel')} from an earlier run" if self.resumed else ""), ""]
        verdicts = Counter(check["verdict"] for check in checks if check.get("verdict"))
        if verdicts:
            lines += ["What was decided of the kernels: " + ", ".join(
                f"{verdicts[name]} {formats.VERDICT_WORDS[name]}" for name in formats.VERDICT_WORDS if verdicts[name])
                + " (proved: race-free for every launch; kernels.csv says why of each)", ""]
        given, open_ = Counter(), Counter()  # per launch site of a searched kernel: what its host code fixes
        for check in checks:
            for site in (check.get("search") or {}).get("host", ()):
                given.update(site["given"].keys())
                open_.update(site["open"])
        if given or open_:
            lines += [f"Launch arguments and dimensions at the host code's launch sites: {sum(given.values())} came "
                      f"from the host, {sum(open_.values())} did not (searched within what the sites compute of them"
                      + (f"; most often {', '.join(name for name, _ in open_.most_common(3))}" if open_ else "")
                      + "; `simulee check -v` names them per launch)", ""]
        wrong = [check for check in checks if formats.contradicted(check)]
        if wrong:  # internal errors: a run shows what the prover excluded (prover.verdicts)
            lines += [f"**Internal error**: {formats.plural(len(wrong), 'proof')} contradicted by a run: " + "; ".join(
                f"{check['file']}:{check['line']}: {check['proof']['reason']}" for check in wrong), ""]
        by_type: dict[tuple, list[dict]] = {}  # (type, severity) of each root cause: the causes
        for cause in causes:
            by_type.setdefault((cause["witness"]["type"], cause["witness"]["severity"]), []).append(cause)
        lines += _markdown(("type", "severity", "root causes", "findings", "kernels", "files"),
                           [(kind, severity, len(those), sum(len(c["findings"]) for c in those),
                             len({(f["file"], f["kernel"]) for c in those for f in c["findings"]}),
                             len({f["file"] for c in those for f in c["findings"]}))
                            for (kind, severity), those in sorted(by_type.items())], "Root causes by type")
        state = ("baseline",) if bugs.baseline else ()
        lines += _markdown(("severity", "type", "where", "kernels", "findings", "instances", *state, "root cause"),
                           [(c["witness"]["severity"], c["witness"]["type"], formats.place_text(c["witness"]),
                             formats.kernel_names(c["kernels"], 3), len(c["findings"]), c["instances"],
                             *((c["baseline"],) if bugs.baseline else ()), c["fingerprint"])
                            for c in causes[:ROOT_CAUSES_SHOWN]],
                           "Root causes (worst first" + (f", the first {ROOT_CAUSES_SHOWN}; bugs.csv has them all"
                                                         if len(causes) > ROOT_CAUSES_SHOWN else "")
                           + "; findings.csv names each finding's)")
        lines += _markdown(("severity", "type", "where", "root cause"),
                           [(e.level, e.rule, f"{e.file}:{e.line}", e.fingerprint) for e in bugs.absent],
                           "Absent: in the baseline, no longer found")
        per_file: dict[str, Counter] = {}
        for check in checks:
            per_file.setdefault(check["file"], Counter())["kernels"] += 1
        for finding in findings:
            per_file.setdefault(finding["file"], Counter())[finding["type"]] += 1
        kinds = sorted({f["type"] for f in findings})
        lines += _markdown(("file", "kernels", *kinds),
                           [(file, counter["kernels"], *(counter[kind] for kind in kinds))
                            for file, counter in sorted(per_file.items()) if any(counter[k] for k in kinds)],
                           "Findings by file")
        lines += _markdown(("file", "kernel", "status", "reason"),
                           [(check["file"], check["kernel"], check["status"], check["error"] or "")
                            for check in checks if check["status"] not in ("ok", REPRESENTED)], "Kernels not checked")
        represented = Counter((check["file"], template_of(check["kernel"])) for check in checks
                              if check["status"] == REPRESENTED)
        lines += _markdown(("file", "template", "instances not checked"),
                           [(file, template, count) for (file, template), count in sorted(represented.items())],
                           f"Template instances not checked: at most {TEMPLATE_INSTANCES} of each template are "
                           "(--all-instances checks every one)")
        causes = Counter(failure_cause(r["error"]) for r in uncompiled)
        lines += _markdown(("cause", "files"), sorted(causes.items(), key=lambda item: (-item[1], item[0])),
                           "Why files did not compile")
        lines += _markdown(("file", "status", "first error"), [(r["file"], r["status"], r["error"]) for r in
                                                                sorted(uncompiled, key=lambda r: r["file"])],
                           "Files not compiled")
        lines += _markdown(("file", "compiled without"), [(r["file"], r["error"]) for r in sorted(
            self.files.values(), key=lambda r: r["file"]) if r["status"] == "degraded"], "Files compiled degraded")
        lines += _markdown(("file", "calls of launchers", "first error"),
                           [(r["file"], len(r["calls"]), r["error"]) for r in sorted(self.callers.values(),
                                                                                      key=lambda r: r["file"])],
                           "Host code read for the launches its calls make (a folder of a larger tree may need -I "
                           "for the rest)")
        return "\n".join(lines)


def compiled(record: dict) -> bool:
    """Whether a file record's kernels were listed (or are, through the file including it)."""
    return record["status"] in ("ok", "degraded", "included")


def failure_cause(error: str) -> str:
    """A compile error without its location, counts and quoted names, to group files by;
    with stand-ins for missing headers, the error that remained with them."""
    message, stood_in = re.subn(r"^.*; with empty stand-ins for [^:]*: ", "", error)
    message = re.sub(r"^.*?:\d+:\d+: ", "", message)
    message = re.sub(r" \(and \d+ more errors?\)| \[after [^\]]*\]", "", message)
    return re.sub(r"'[^']*'", "'…'", message).strip() + (" (with missing headers stood in)" if stood_in else "")


_COLUMNS = {"files.csv": FILES_COLUMNS, "kernels.csv": KERNELS_COLUMNS, "findings.csv": formats.FINDING_COLUMNS}


def _lock(folder: Path):
    """An exclusive lock on folder/.lock for as long as the returned file stays open; a
    one-line error when another scan holds it."""
    import fcntl

    handle = open(folder / LOCK, "a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.seek(0)
        holder = handle.read().strip()
        handle.close()
        raise SimuleeError(f"another scan is writing to {folder}" + (f" (process {holder})" if holder else "")
                           + "; wait for it or choose another folder with -o") from None
    handle.truncate(0)
    handle.write(str(os.getpid()))
    handle.flush()
    return handle


def _claim(folder: Path, root: Path, resume: bool) -> None:
    """Refuse a folder that holds the scan of another repository (found by its ledger)."""
    for record in _read_ledger(folder / LEDGER)[:1]:
        scanned = record.get("root")
        if scanned and scanned != str(root):
            raise SimuleeError(f"{folder} holds the scan of {scanned}; choose another folder with -o"
                               + (" (--resume continues the same repository only)" if resume else ""))


def _replace(path: Path, text: str) -> None:
    """Write `text` to `path` through a temporary file, so a reader never sees half of it."""
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(text)
    os.replace(partial, path)


def _key(record: dict) -> tuple:
    key = (record["file"], record["sha256"], record["fingerprint"])
    if record["record"] == "calls":
        return key + (tuple(record["callees"]),)
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
    scores = [launch["fitness"]["F"] for launch in check["launches"] if "F" in (launch.get("fitness") or {})]
    return {"project": project, "file": record["file"], "kernel": record["kernel"], "line": check["line"],
            "status": check["status"], "launches": search.get("evaluations", 0) + len(check["launches"]),
            "best_fitness": round(min(scores), 4) if scores else "", "seconds": check["seconds"],
            "findings": len(check["findings"]),
            "errors": sum(1 for f in check["findings"] if f["severity"] == "error"),
            "error": check["error"] or "", "verdict": check.get("verdict", ""),
            "verdict_reason": check.get("verdict_reason", ""), "sha256": record["sha256"]}


def _barrier_row(barrier: dict, project: str) -> dict:
    race = barrier["race"] or {}
    return {"project": project, "file": barrier["file"], "kernel": barrier["kernel"], "line": barrier["line"],
            "column": barrier["column"], "verdict": verdict(barrier),
            "kernel_verdict": barrier.get("kernel_verdict", barrier["verdict"]), "passes": barrier["passes"],
            "launches": barrier.get("launches", ""),
            "race_first_line": (race.get("first") or {}).get("line", ""),
            "race_second_line": (race.get("second") or {}).get("line", ""), "race": race.get("message", ""),
            "reason": barrier.get("reason") or ""}


ROOT_CAUSES_SHOWN = 40  # rows of summary.md's root causes


def verdict(barrier: dict) -> str:
    """A barrier's verdict in an audit: divergent when some launch reached it with part
    of a block only, else needed, redundant or not-covered."""
    return "divergent" if barrier["divergent"] else barrier["verdict"]


def _markdown(header: tuple, rows: list[tuple], title: str) -> list[str]:
    if not rows:
        return []
    cell = lambda value: str(value).replace("|", "\\|").replace("\n", " ")  # noqa: E731
    return [f"## {title}", "", "| " + " | ".join(header) + " |", "|" + " --- |" * len(header),
            *("| " + " | ".join(cell(v) for v in row) + " |" for row in rows), ""]
