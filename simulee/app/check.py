"""`check`: the kernels of a file or a folder checked, each under the launches its host
code makes and what its arguments and a simulee.toml give, proved first."""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

from simulee.app.launches import given_of
from simulee.app.progress import Progress
from simulee.app.sources import each_program, named, select_kernel, source_files
from simulee.errors import SimuleeError
from simulee.frontend.compiler import own_kernels
from simulee.model.findings import display


@dataclass
class Checked:
    """What `check` did: a KernelCheck per kernel, the files that did not compile
    ({file, error}), the project's name and the seconds it took."""

    checks: list
    unreadable: list[dict]
    project: str
    seconds: float


def check_sources(args) -> Checked:
    """Check the kernels of args.path (a file, or a folder's files) as `check` does."""
    from simulee.checker.config import config_for

    start = time.perf_counter()
    path = Path(args.path)
    files, options = source_files(path, args.compile_options())
    checks, unreadable = [], []
    sites, written = launch_sites(args, files, options)
    config = config_for(path, args.config)
    if config.path and args.verbose:
        print(f"simulee: note: using {display(str(config.path))}", file=sys.stderr)
    with Progress(args.quiet, "checking", "kernel") as bar:
        loading = each_program(path, files, options, args.verbose, lambda file: bar.start(f"compiling {file.name}"))
        for number, (file, program, error) in enumerate(loading):
            bar.final = number == len(files) - 1
            if error:
                unreadable.append({"file": display(str(file)), "error": error})
                print(f"simulee: error: {error}", file=sys.stderr)
                continue
            program.host_writes(written.get(file, {}))
            if args.kernel and path.is_dir():  # the files of a folder that have it
                kernels = named(program, args.kernel, file)
            else:
                kernels = [select_kernel(program, args.kernel, file)] if args.kernel or not path.is_dir() and \
                    len(program.kernels) == 1 else own_kernels(program)
            if args.kernel is None and not kernels and not path.is_dir():
                raise SimuleeError(f"{file}: no __global__ kernel found")
            bar.grow(len(kernels))
            for kernel in kernels:
                bar.start(kernel.name)
                launched = sites.get((file, kernel.symbol), ())
                checks.append(check_one(program, kernel, args, bar.status, launched, config))
                checks[-1].suppress(config.reason)
                bar.update(1)
    if args.kernel and path.is_dir() and not checks and not unreadable:
        raise SimuleeError(f"{path}: no file has a kernel '{args.kernel}' ({len(files)} files)")
    project = (path if path.is_dir() else path.parent).resolve().name
    return Checked(checks, unreadable, project, time.perf_counter() - start)


def check_each(args, paths: list[str]) -> Checked:
    """Several paths checked one after the other, as one check (named for their common folder)."""
    parts = [check_sources(args.but(path=path)) for path in paths]
    common = Path(os.path.commonpath([os.path.abspath(path) for path in paths]))
    return Checked([check for part in parts for check in part.checks],
                   [entry for part in parts for entry in part.unreadable],
                   (common if common.is_dir() else common.parent).name, sum(part.seconds for part in parts))


def launch_sites(args, files: list[Path], options, path: str | None = None,
                 host: tuple | None = None) -> tuple[dict, dict[Path, dict]]:
    """The launch sites of every kernel in the host code of `files` (as the calls of
    launchers in the `host` files, else args.host, and, for a folder (`path`, else
    args.path), its C++ files make them), by the file
    of the kernel they launch (sites.launching) and kernel symbol, and the device
    variables each file's host code writes (none when launches are given or
    --no-launch-sites); a file whose host code does not compile is said once."""
    from simulee.scanner.discover import host_sources, mentioning, wrappers_of
    from simulee.checker.sites import host_calls, host_code, identifier, launching, program_note, through_callers

    if not args.launch_sites or getattr(args, "launch", None) or getattr(args, "no_search", False) or args.grid \
            or args.block:
        return {}, {}
    read: dict[Path, list] = {}
    written: dict[Path, dict] = {}
    defining: dict[str, set] = {}  # kernel symbol -> the files that define a kernel of that symbol
    for file in files:
        read[file], written[file], defined, problem = host_code(file, options)
        if problem and args.verbose:
            print(f"simulee: note: {display(str(file))}: no launch sites read: {problem}", file=sys.stderr)
        elif args.verbose and read[file]:
            print(f"simulee: note: {display(str(file))}: launch sites read from {program_note(file, options)}",
                  file=sys.stderr)
        for kernel in defined:
            defining.setdefault(kernel, set()).add(file)
    callees = set().union(*(site.open_functions() for sites in read.values() for site in sites))
    path = Path(args.path if path is None else path)
    hosts = [Path(file) for file in (args.host if host is None else host)] + \
        (host_sources(path) if path.is_dir() else []) + files
    calls = []
    unread: dict[str, tuple] = {}  # function -> the files whose host code names it but could not be read
    for file, names in mentioning(hosts, {identifier(callee) for callee in callees}, options.include_dirs).items():
        found, problem = host_calls(file, options, callees)
        if problem and args.verbose:
            print(f"simulee: note: {display(str(file))}: no calls read: {problem}", file=sys.stderr)
        for callee in callees if problem else ():
            if identifier(callee) in names:
                unread[callee] = (*unread.get(callee, ()), display(str(file)))
        calls += found
    by_kernel: dict[str, dict] = {}  # kernel symbol -> the file whose host code holds them -> sites by key
    wrappers = wrappers_of([site for sites in read.values() for site in sites], {str(file): file for file in files})
    for file, sites in read.items():
        for site in through_callers(sites, calls, unread, wrappers=wrappers):
            by_kernel.setdefault(site.kernel, {}).setdefault(file, {}).setdefault(site.key(), site)
    launched: dict = {}
    for kernel, by_file in by_kernel.items():
        for file in files:  # a launcher in a header two files include is one site
            found = launching({other: list(by_key.items()) for other, by_key in by_file.items()}, file,
                              defining.get(kernel, set()))
            launched[file, kernel] = tuple(dict(found).values())
    return launched, written


def check_one(program, kernel, args, progress=None, sites: tuple = (), config=None):
    """Check one kernel on the --launch launches, on the default launch (--no-search), or
    on the launches the input search finds around what --grid/--block/--arg/--buffer fix
    and the kernel's launch `sites` leave open, within what the simulee.toml (`config`)
    states of it and the options do not override.
    An internal error is recorded against the kernel (so that one kernel cannot stop a
    folder's check) unless SIMULEE_DEBUG asks for the traceback."""
    from simulee.checker.kernel import KernelCheck
    from simulee.prover.verdicts import check_given

    try:
        contract = config.for_kernel(kernel.file or args.path, kernel) if config else None
        if contract:
            contract = contract.without(_named_by_args(args), bool(args.launch or args.grid or args.block))
        given = given_of(kernel, args, contract=contract)
        return check_given(program, kernel, given, settings_of(args), contract, sites, progress)
    except SimuleeError:
        raise
    except Exception as error:
        if os.environ.get("SIMULEE_DEBUG"):
            raise
        return KernelCheck(kernel.name, kernel.symbol, kernel.file, kernel.line, status="error",
                           error=f"internal error: {type(error).__name__}: {error}")


def settings_of(args, **overrides):
    """The check.Settings the search and execution options give (a scan's and a check's
    alike), with `overrides`."""
    from simulee.checker.kernel import Settings

    settings = Settings(args.population, args.generations, args.launches, args.max_blocks, args.seed,
                        args.warp_model, args.step_limit, args.shared_bytes,
                        args.max_seconds if args.max_seconds is not None else float("inf"), args.heap_bytes,
                        args.launch_sites, "", args.detect, not getattr(args, "no_search", False),
                        target=args.target, prove=not getattr(args, "no_prove", False))
    if getattr(args, "seed_launches", None) is not None:
        from simulee.exec.replay import seeds

        settings = replace(settings, seed_launches=seeds(args.seed_launches))
    return replace(settings, **overrides)


def _named_by_args(args) -> set[str]:
    """The names --arg, --buffer, --alias (and --fill) give values."""
    names = {text.partition("=")[0].strip() for text in args.arg + args.buffer + args.alias}
    return names | ({"fill"} if args.fill else set())


def compared_with(args):
    """The baseline --baseline names (baseline.Baseline), or None; --new-only needs one."""
    from simulee.report.baseline import load

    if args.new_only and args.baseline is None:
        raise SimuleeError("--new-only needs --baseline REPORT: new since what?")
    return load(args.baseline) if args.baseline is not None else None
