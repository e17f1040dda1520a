"""`equiv`: two versions of a kernel compared on the launches given and searched, then
proved equal for every launch where the prover can; the verdict as JSON."""

from __future__ import annotations

import time
from pathlib import Path

from simulee import __version__
from simulee.app.check import launch_sites
from simulee.app.progress import Progress
from simulee.app.sources import load_degraded, select_kernel
from simulee.model.findings import display


def compare_versions(args):
    """(checker.equivalence.Pair, Verdict) of `simulee equiv`'s options: the launches
    compared and searched, then the proof."""
    from simulee.checker.equivalence import equivalence

    pair, launches, space, fixed = equiv_setup(args)
    deadline = time.perf_counter() + (args.max_seconds or 600)
    with Progress(args.quiet, "comparing", "launch") as bar:
        verdict = equivalence(pair, launches, args.rtol, args.atol, args.warp_model, space, args.population,
                              args.generations, args.seed, deadline, bar.status)
        if verdict.verdict == "equivalent" and not args.no_prove:
            bar.status("proving")
            equiv_proof(pair, verdict, fixed, args, deadline)
    return pair, verdict


def equiv_proof(pair, verdict, fixed, args, deadline: float) -> None:
    """Prove the versions equal for every launch (what is given fixed): verdict
    proved-equivalent; or differ, when the interpreter shows the solver's difference."""
    from simulee.prover.equivalence import prove_equivalent, replay

    proof = verdict.proof = prove_equivalent(pair, fixed, deadline)
    if proof.verdict == "proved":
        verdict.verdict = "proved-equivalent"
    elif proof.verdict == "differ":
        shown = replay(pair, proof, args.rtol, args.atol, args.warp_model, args.seed)
        if shown is not None:
            verdict.comparisons.append(shown)
            verdict.verdict = "differ"
        else:
            proof.verdict, proof.reason = "unknown", (
                f"the solver's difference ({proof.buffer} byte {proof.offset} on grid {proof.grid}, block "
                f"{proof.block}{', ' if proof.args else ''}"
                f"{', '.join(f'{k}={v}' for k, v in proof.args.items())}) did not show in the interpreter")


def equiv_setup(args):
    """The pair of kernels, the launches given (or the default one), unless the launch is
    all given or --no-search the old kernel's search space, and what a proof takes as
    fixed (prover.solve.Fixed)."""
    from simulee.prover.proof import Fixed

    from simulee.checker.equivalence import Pair
    from simulee.checker.launchspec import launch_arguments, parse_block, parse_dims, parse_assignment

    options = args.compile_options()
    (old_program, old), (new_program, new) = (version_of(text, options) for text in (args.old, args.new))
    mapping = dict(parse_assignment(text, "--map") for text in args.map)
    pair = Pair.of(old_program, old, new_program, new, mapping)
    grid = parse_dims(args.grid, "grid") if args.grid else None
    block = parse_block(args.block, "block") if args.block else None
    given = launch_arguments(old, args.arg, args.buffer, args.seed, require_scalars=False, cast=True)
    file = Path(old.file) if old.file else None
    sites, written = launch_sites(args, [file], options, str(file), ()) if file else ({}, {})
    old_program.host_writes(written.get(file, {}))
    launches, space = equivalence_space(old_program, old, args.seed, given, grid, block, args.fill,
                                         sites=sites.get((file, old.symbol), ()), shared_bytes=args.shared_bytes,
                                         step_limit=args.step_limit, heap_bytes=args.heap_bytes)
    fixed = Fixed(grid, block, {k: v for k, v in given.items() if isinstance(v, int)})
    return pair, launches, None if args.no_search else space, fixed


def version_of(text: str, options):
    """(program, kernel) of FILE[:KERNEL]."""
    path, _, name = text.rpartition(":") if ":" in text and not Path(text).exists() else (text, "", "")
    path = Path(path)
    program = load_degraded(path, options)
    return program, select_kernel(program, name or None, path)


def equiv_json(pair, verdict) -> dict:
    difference = verdict.difference
    return {"tool": "simulee", "version": __version__, "verdict": verdict.verdict,
            "old": {"kernel": pair.old.name, "file": display(pair.old.file), "line": pair.old.line},
            "new": {"kernel": pair.new.name, "file": display(pair.new.file), "line": pair.new.line},
            "parameters": pair.names,
            "launches": verdict.compared,
            "inconclusive": [{"launch": launch_json(c.launch), "reason": c.problem}
                             for c in verdict.comparisons if c.problem],
            "difference": dict(difference.difference.to_json() if difference.difference else
                               {"behaviour": difference.behaviour}, launch=launch_json(difference.launch))
            if difference else None,
            "proof": _equiv_proof_json(verdict.proof),
            "seconds": round(verdict.seconds, 3)}


def _equiv_proof_json(proof) -> dict | None:
    if proof is None:
        return None
    found = {"buffer": proof.buffer, "byte": proof.offset, "grid": list(proof.grid), "block": list(proof.block),
             "args": proof.args} if proof.verdict == "differ" else None
    return {"verdict": proof.verdict, "reason": proof.reason, "difference": found, "assumptions": proof.assumptions,
            "seconds": round(proof.seconds, 3)}


def launch_json(launch) -> dict:
    args = {k: (v.item() if hasattr(v, "item") else v) for k, v in launch.args.items()
            if (not hasattr(v, "shape") or getattr(v, "shape", ()) == ()) and type(v).__name__ != "Allocated"}
    return {"grid": list(launch.grid), "block": list(launch.block), "args": args, "fill": launch.fill,
            "seed": launch.seed}


def equivalence_space(program, kernel, seed: int, given: dict | None = None, grid=None, block=None,
                       fill: str | None = None, sites: tuple = (), **options):
    """The launches compared first and the search space around them (None when nothing is
    left to search), as equiv and fix search launches: with launch `sites` (and no grid or
    block given) the launches they make and what they leave open, else the default launch
    (what is given kept) and the space around it."""
    from evolve.constants import compared_constants
    from evolve.space import SearchSpace
    from evolve.taint import relevant_parameters
    from simulee.checker.kernel import default_launch, indices_read

    given = given or {}
    reads = indices_read(program, kernel)
    base = default_launch(kernel, given, grid, block, reads, fill=fill or "small", seed=seed, **options)
    fixed = set(given) | ({"grid"} if grid else set()) | ({"block"} if block else set()) | \
        ({"fill"} if fill else set())
    relevant, constants = relevant_parameters(program, kernel), compared_constants(program, kernel)
    if sites and not (grid or block):
        space = SearchSpace.of_sites(kernel, base, relevant, fixed, list(sites), reads, constants)
        launches = space.site_launches(seed)
        if launches:
            return launches, space if space.genes else None
    space = SearchSpace.of(kernel, base, relevant, fixed, 32, reads, constants)
    return [base], space if space.genes else None
