"""The units of work of a repository scan, run in worker processes: compile a source and
list its kernels; check one kernel on the launches the input search finds. Each returns a
record, a JSON-ready dict for the scan's ledger, naming files relative to the repository."""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import os
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from simulee.errors import CompileError, SimuleeError
from simulee.frontend.compiler import CompileOptions, load_program, own_kernels

if TYPE_CHECKING:
    from simulee.checker.kernel import Settings


@dataclass(frozen=True)
class FileTask:
    """Compile `file` (relative to the repository `root`, whose content hash is `sha256`)
    and list its kernels. `fingerprint` tells the scan settings its records hold for."""

    root: str
    file: str
    sha256: str
    fingerprint: str
    options: CompileOptions
    refused: str = ""  # why the file is not compiled at all (a link out of the repository)
    part_of: str = ""  # the source that includes this one: it is checked as part of that one
    siblings: tuple[str, ...] = ()  # the repository's other sources, where undefined device functions are looked for
    launch_sites: bool = True  # read the launch sites of its host code too
    compiles = True  # its time is bounded by the scan's --compile-timeout (workers.Limits)

    def record(self, status: str, error: str = "", kernels: list | None = None, sites: list | None = None,
               host: str = "", written: dict | None = None, seconds: float = 0.0, library: int = 0) -> dict:
        return {"record": "file", "root": self.root, "file": self.file, "sha256": self.sha256,
                "fingerprint": self.fingerprint,
                "status": status, "error": error, "kernels": kernels or [], "sites": sites or [], "host": host,
                "written": written or {}, "seconds": round(seconds, 3), "library_kernels": library}

    def failed(self, status: str, message: str, seconds: float = 0.0) -> dict:
        return self.record(status, message, seconds=seconds)


@dataclass(frozen=True)
class CallsTask:
    """Read the calls that `source`'s host code makes of `callees` (symbols of host
    functions whose launches read their parameters)."""

    source: FileTask
    callees: tuple[str, ...]
    named: tuple[str, ...] = ()  # those of `callees` its text can call (discover.mentioning)
    compiles = True

    def record(self, status: str, calls: list, error: str = "") -> dict:
        return {"record": "calls", "root": self.source.root, "file": self.source.file, "sha256": self.source.sha256,
                "fingerprint": self.source.fingerprint, "callees": list(self.callees), "named": list(self.named),
                "status": status, "calls": calls, "error": error}

    def failed(self, status: str, message: str, seconds: float = 0.0) -> dict:
        return self.record(status, [], message)


@dataclass(frozen=True)
class KernelTask:
    """Check the kernel `kernel` (defined at `line`) of a listed file."""

    source: FileTask
    kernel: str
    line: int
    settings: Settings
    sites: tuple[dict, ...] = ()  # the kernel's launch sites in the repository's host code (Site.to_json)
    # the device variables its file's host code writes, each with what it states it writes there or None
    # (Program.host_writes)
    written: tuple[tuple[str, tuple | None], ...] = ()
    unlaunched: bool = False  # the host code of its file launches other kernels; none of the repository this one
    spool: str = ""  # where the worker keeps what the check found so far, for a worker stopped before its end

    def record(self, check: dict) -> dict:
        return {"record": "kernel", "root": self.source.root, "file": self.source.file, "sha256": self.source.sha256,
                "fingerprint": self.source.fingerprint, "kernel": self.kernel, "check": check}

    def failed(self, status: str, message: str, seconds: float = 0.0) -> dict:
        """The record of a check that did not end: what its spool holds of the launches it
        checked (their findings, which keep their severity), else nothing, with `status`."""
        from simulee.checker.kernel import KernelCheck

        partial = self.spooled()
        if partial is None:
            check = KernelCheck(self.kernel, "", str(Path(self.source.root, self.source.file)), self.line,
                                status=status, error=message, seconds=seconds)
            return self.record(_relative(check.to_json(), self.source.root))
        kept = len(partial["findings"])
        partial.update(status=status, seconds=seconds, error=f"{message}; kept: the {kept} finding"
                       f"{'s' if kept != 1 else ''} of the {len(partial['launches'])} launches checked before")
        return self.record(partial)

    def spooled(self) -> dict | None:
        """What the spool held (a check's JSON; the spool is removed), None when nothing or
        something unreadable."""
        try:
            return json.loads(Path(self.spool).read_text()) if self.spool else None
        except (OSError, ValueError):
            return None
        finally:
            self.unspool()

    def unspool(self) -> None:
        if self.spool:
            with contextlib.suppress(OSError):
                Path(self.spool).unlink(missing_ok=True)


def list_kernels(task: FileTask) -> dict:
    """The file's record: ok with its kernels' names and lines, or compile-error with the
    compiler's first error; and the launch sites its host code holds (of any kernel of
    the repository) with `host`, why there are none when its host code fails; and the
    seconds that took. Kernels of the CUDA toolkit's headers (CUB's, thrust's) are only
    counted (frontend.own_kernels)."""
    if task.refused:
        return task.record("error", task.refused)
    if task.part_of:
        return task.record("included", f"checked as part of {task.part_of}, which includes it")
    start = time.perf_counter()
    try:
        program, failure = _program(task), None
    except SimuleeError as error:
        program, failure = None, error
    sites, written, host = _host_code(task, start)
    seconds = time.perf_counter() - start
    if failure is not None:
        return task.record("compile-error" if isinstance(failure, CompileError) else "error",
                           _relative(str(failure), task.root), sites=sites, host=host, seconds=seconds)
    kernels = [[kernel.name, kernel.line, kernel.symbol] for kernel in own_kernels(program)]
    library = len(program.kernels) - len(kernels)
    if program.degraded:
        return task.record("degraded", _relative(program.degraded, task.root), kernels, sites, host, written,
                           seconds, library)
    return task.record("ok", kernels=kernels, sites=sites, host=host, written=written, seconds=seconds,
                       library=library)


def _host_code(task: FileTask, start: float) -> tuple[list[dict], dict, str]:
    """The launch sites of the file's host code as JSON, the device variables it writes
    (sites.read_host), and why there are none, or how they were read (sites.program_note);
    its compiler gets what is left of the file's time (options.timeout) after the device side."""
    from simulee.checker.sites import host_code, program_note

    if not task.launch_sites:
        return [], {}, ""
    options = task.options
    if options.timeout is not None:
        left = options.timeout - (time.perf_counter() - start)
        if left < 1:
            return [], {}, "host code not compiled: no time left after the device code"
        options = replace(options, timeout=left)
    sites, written, _, host = host_code(Path(task.root, task.file), options)
    if not host and Path(task.file).suffix.lower() == ".cu":
        host = program_note(Path(task.root, task.file), options)
    return _relative([site.to_json() for site in sites], task.root), dict(sorted(written.items())), \
        _relative(host, task.root)


def list_calls(task: CallsTask) -> dict:
    """The calls record: what each call of the callees passes, as JSON (Call.to_json)."""
    from simulee.checker.sites import host_calls

    calls, problem = host_calls(Path(task.source.root, task.source.file), task.source.options, set(task.callees))
    return task.record("error" if problem else "ok", _relative([call.to_json() for call in calls], task.source.root),
                       _relative(problem, task.source.root))


def check_kernel(task: KernelTask) -> dict:
    """The kernel's record: its check (KernelCheck.to_json) over the launches the input
    search finds from the default launch and the kernel's launch sites, within what the
    scan's simulee.toml states of it (and with its suppressions)."""
    from evolve.launchsite import Site
    from simulee.checker.kernel import Given, conditional
    from simulee.prover.verdicts import check_given
    from simulee.model.findings import synthetic

    settings = task.settings
    try:
        program = _program(task.source)
        program.host_writes((name, writes) for name, writes in task.written)
        kernel = program.kernel(task.kernel)
        config = _config(settings.config)
        contract = config.for_kernel(Path(task.source.root, task.source.file), kernel)
        given = contract.given(kernel, settings.seed) if contract else Given()
    except (SimuleeError, KeyError) as error:
        return task.failed("error", str(error))
    sites = tuple(Site.from_json(site) for site in task.sites)

    def finished(check):
        """The check as the scan reports it: synthetic launches of an unlaunched kernel
        doubted, suppressions applied, files relative to the repository."""
        if task.unlaunched:
            for finding in check.findings:
                if synthetic(finding.launch):
                    conditional(finding, UNLAUNCHED)
        check.suppress(config.reason)
        return _relative(check.to_json(), task.source.root)

    def checkpoint(partial):
        spool = Path(task.spool)
        with contextlib.suppress(OSError):  # a spool out of reach (another machine's folder) salvages nothing
            spool.parent.mkdir(parents=True, exist_ok=True)
            spool.with_suffix(".tmp").write_text(json.dumps(finished(partial)))
            os.replace(spool.with_suffix(".tmp"), spool)  # a worker stopped while writing leaves the last one whole

    saving = checkpoint if task.spool else None
    try:
        check = check_given(program, kernel, given, settings, contract, sites, checkpoint=saving)
    except MemoryError:  # a check keeping less of each launch's trace beats none
        gc.collect()
        smaller = replace(settings, trace_limit=settings.trace_limit // RETRY_TRACE_DIVISOR)
        check = check_given(program, kernel, given, smaller, contract, sites, checkpoint=saving)
        check.notes.append(f"out of memory keeping {settings.trace_limit:,} accesses of each launch's trace: "
                           f"checked again keeping {smaller.trace_limit:,}")
    task.unspool()  # the check ended: its record says all
    return task.record(finished(check))


RETRY_TRACE_DIVISOR = 8  # a kernel out of memory is checked again keeping this much less of each trace
UNLAUNCHED = ("its file's host code launches other kernels, but no host code of the repository launches this "
              "one: the launch is synthetic")


@functools.lru_cache(maxsize=2)
def _config(path: str):
    from simulee.checker.config import Config, load_config

    return load_config(Path(path)) if path else Config()


@functools.lru_cache(maxsize=4)
def _program(task: FileTask):
    """The loaded program of a file (kept for the next kernels of the same file)."""
    return load_program(Path(task.root, task.file), task.options,
                        tuple(Path(task.root, sibling) for sibling in task.siblings))


def _relative(value, root: str):
    """`value` (JSON) with every "file" made relative to `root` when it lies under it, and
    the root's path dropped from messages."""
    if isinstance(value, list):
        return [_relative(item, root) for item in value]
    if isinstance(value, str):
        return value.replace(str(Path(root)) + os.sep, "")
    if not isinstance(value, dict):
        return value
    result = {}
    for key, item in value.items():
        if key == "file" and isinstance(item, str) and item:
            path = Path(os.path.abspath(item))  # a link keeps its own name in the repository
            result[key] = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        else:
            result[key] = _relative(item, root)
    return result
