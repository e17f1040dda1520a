"""The launches `run` and `trace` make of what their arguments give, one launch run, and
what its events show."""

from __future__ import annotations

from pathlib import Path

from simulee.app.progress import Progress
from simulee.app.sources import load_degraded, select_kernel
from simulee.errors import SimuleeError


def given_of(kernel, args, require_scalars: bool = False, contract=None):
    """What the options give (simulee.checker.kernel.Given): --grid/--block/--arg/--buffer/--alias/
    --fill and the --launch options, over what `contract` (a simulee.toml's) gives. With
    `require_scalars`, every scalar must then have a value."""
    from simulee.checker.kernel import Given
    from simulee.checker.launchspec import launch_arguments, parse_block, parse_dims, require_values

    grid = args.grid and parse_dims(args.grid, "grid")
    block = args.block and parse_block(args.block, "block")
    given = launch_arguments(kernel, args.arg, args.buffer, args.seed, False, args.buffer_cast, args.alias)
    launches = []
    for text in getattr(args, "launch", []):
        parts = text.split("/")
        if len(parts) < 2:
            raise SimuleeError(f"--launch {text}: expected GRID/BLOCK[/NAME=VALUE...]")
        extra = launch_arguments(kernel, parts[2:], [], args.seed, require_scalars=False)
        overlap = sorted(set(extra) & set(given))
        if overlap:
            raise SimuleeError(f"--launch {text}: {overlap[0]} is also given by --arg")
        launches.append((parse_dims(parts[0], "launch grid"), parse_block(parts[1], "launch block"), extra))
    result = Given(grid, block, given, args.fill, tuple(launches))
    if contract:
        result = result.over(contract.given(kernel, args.seed))
    if require_scalars:
        require_values(kernel, result.args)
    return result


def launch_options(args, trace: bool = True) -> dict:
    """The Launch fields the execution options set (run and trace: a launch stops after
    --max-seconds)."""
    options = dict(shared_bytes=args.shared_bytes, step_limit=args.step_limit, seed=args.seed,
                   heap_bytes=args.heap_bytes, trace=trace)
    if args.max_seconds is not None:
        options["time_limit"] = args.max_seconds
    return options


def launches_for(program, kernel, args, require_scalars: bool = False, trace: bool = True) -> list:
    """The launches `run` and `trace` run: --grid/--block/--arg, the --launch options, or
    the default launch; whatever they leave out takes its default (default_launch). A
    wide --fill draws from the constants the kernel compares against, as the search's
    does."""
    from evolve.constants import compared_constants

    given = given_of(kernel, args, require_scalars)
    options = launch_options(args, trace=trace)
    if given.fill == "wide":
        options["dictionary"] = compared_constants(program, kernel)
    return given.launches_of(kernel, **options)


def run_kernel(args):
    """(kernel, interpreter.launch.Result) of the one launch `run` makes of args.path's kernel."""
    from interpreter.simt import execute

    path = Path(args.path)
    program = load_degraded(path, args.compile_options())
    kernel = select_kernel(program, args.kernel, path)
    (launch,) = launches_for(program, kernel, args, require_scalars=True, trace=bool(args.trace))
    launch.trace_limit = RUN_TRACE_LIMIT
    with Progress(args.quiet, "running", "block") as bar:
        return kernel, execute(program, kernel, launch, bar.blocks)


RUN_TRACE_LIMIT = 1 << 25  # accesses `run --trace` keeps (about 2 GB)


def launch_findings(result) -> list:
    """What went wrong in a launch (faults, failed asserts, barrier divergence, a loop that
    did not end): the findings of the detectors that need no trace."""
    from simulee.detect import enabled
    from simulee.detect.base import LaunchRun
    from simulee.detect.faults import invalid_launch

    run = LaunchRun(None, None, result)  # no trace: only the detectors of events
    return [f for detector in enabled() if not detector.needs_trace for f in detector.launch(run)] + \
        invalid_launch(result)
