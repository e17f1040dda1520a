"""`scan`: a repository's kernels checked in worker processes into a ledger and reports."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from simulee.app.check import compared_with, settings_of
from simulee.errors import SimuleeError


def scan_repository(args):
    """Run the scan the options describe and return its ledger."""
    from simulee.checker.config import config_for
    from simulee.scanner.repository import ScanOptions, default_output, scan
    from simulee.scanner.workers import Limits

    path = Path(args.path)
    if not path.exists():
        raise SimuleeError(f"no such file or folder: {path}")
    name = path.resolve().name if path.is_dir() else path.stem
    if args.scheduler and args.scheduler != "local" and not args.scheduler.startswith(("tcp://", "tls://", "inproc://")):
        raise SimuleeError(f"--scheduler {args.scheduler}: expected tcp://HOST:PORT or local")
    # a kernel's work (and a compiler) stops in time to report before its worker is stopped
    within = lambda seconds: seconds - min(max(2.0, 0.1 * seconds), 0.5 * seconds)  # noqa: E731
    config = config_for(path, args.config)  # read here, so that a mistake in it stops the scan at once
    baseline = compared_with(args)
    checking = within(args.kernel_timeout)
    settings = settings_of(args, max_seconds=min(args.max_seconds or checking, checking),
                           config=str(config.path or ""))
    compiling = replace(args.compile_options(), timeout=within(args.compile_timeout))
    limits = Limits(args.kernel_timeout, args.memory_limit, args.compile_timeout)
    options = ScanOptions(path, Path(args.output) if args.output else default_output(path), args.project or name,
                          compiling, settings, limits, args.jobs,
                          args.scheduler, tuple(args.include), tuple(args.exclude), args.resume, args.quiet,
                          args.all_instances, baseline, args.new_only)
    return scan(options)
