"""The halves together: what is decided of a kernel, for every launch or on the launches run.

`check_given` is how `simulee check` and a scan's workers check a kernel. `simulee.prover`
first decides race freedom for every launch within what is given (grid, block, integer
arguments, the launch sites, a simulee.toml's ranges and choices); then the check runs: a
kernel proved race-free still runs for faults on its default and launch-site launches, but
its race search is skipped; a race the solver finds seeds the search with the solver's
launch (the search runs it, and finds the race there or not). Each check then says which
holds (simulee.checker.kernel.kernel_verdict):

- `proved`: race-free and barrier-divergence-free for every launch within the assumptions
  the proof lists;
- `race`: a run showed it (an error finding), found by the search or on the solver's launch;
- `possible-race`: the solver finds one that no run showed (its model rests on a value the
  model leaves unconstrained, or on a launch no site makes), or a run showed one only on a
  launch resting on a guess of Simulee's (a warning);
- `not-proved`: no race found on the launches run, and the prover could not decide (why).

A redundant barrier of a kernel proved race-free, whose removal the check compared on its
launches, is then proved removable for every launch where prover.equivalence can; a
removal the solver shows to change an output makes it needed.

`confirm` runs a proof's races in the interpreter, for `simulee prove`.
"""

from __future__ import annotations

import json
import math
import os
import struct
import time
from dataclasses import replace

from interpreter.launch import Alias
from interpreter.loader import KernelInfo, Program
from simulee.checker.kernel import (DECIDED, NOT_CHECKED, Given, KernelCheck, Settings, check_kernel,
                                   default_launch)
from simulee.checker.kernel import check_given as run_checks
from simulee.detect.race import RACES
from simulee.detect.redundant import REDUNDANT_BARRIER, redundant_message
from simulee.model.findings import ERROR, Finding, display
from simulee.prover.proof import Candidate, Fixed, Proof, describe

# what a check's proof may ask of the solver: z3's resource units, the same on any machine under any load, so that a
# kernel's verdict, and whether its search runs, do not depend on the load (seconds bound only what the units do not:
# SLACK times their nominal time). A first proof gets little (most proofs of simple kernels take less); one that runs
# out of it gets again, after the check, the units of a fifth of the check's time, so that proving costs a check
# about a fifth more
QUESTION_EFFORT = 2_000_000
FIRST_EFFORT = 2_500_000
UNITS_PER_SECOND = 4_000_000  # z3's units a second on these questions, on this project's machine
SLACK = 5
SHARE = 0.2
REMOVAL_EFFORT = 40_000_000  # z3's units a barrier's removal may take to be proved (the hardest proved took 22 M)
RUNNABLE_BLOCKS = 4096  # a witness launch with more blocks is not run (possible, too large to run)
MAX_RUNS = 4  # witness launches `confirm` runs per kernel: the first that shows its race confirms the kernel's
RACES_SEEDED = 1  # races a check's proof looks for: more seeds stop the search before it varies what they fix


def check_given(program: Program, kernel: KernelInfo, given: Given, settings: Settings, contract=None,
                sites: tuple = (), progress=None, checkpoint=None) -> KernelCheck:
    """Prove, then check `kernel` as simulee.checker.kernel.check_given does (the race search
    skipped when proved, seeded with the solver's launches when it finds races), and
    record the proof and the verdict in the check; a proof that ran out of its first
    effort is taken up again after the check, with a fifth of the check's time (at most
    what is left of settings.max_seconds).
    settings.prove off: the check alone. `checkpoint` is given what the check stopped at
    each launch would report (simulee.checker.kernel.check_kernel)."""
    start, budget = time.perf_counter(), settings.max_seconds
    proof, why_not, shown = None, "--no-prove" if not settings.prove else _not_provable(given), None
    if not why_not:
        fixed = _fixed(given, sites, settings, contract)
        proof = _kept(program, kernel, fixed, FIRST_EFFORT, settings)
        shown = _shown_on_the_launch_given(program, kernel, given, settings, contract, sites) if proof is None \
            else None
        why_not = SHOWN_BY_A_RUN if shown is not None else ""
    if not why_not:
        if progress and proof is None:
            progress("proving")
        proof = proof or _prove(program, kernel, fixed, FIRST_EFFORT, settings)
        settings = replace(settings, max_seconds=max(settings.max_seconds - proof.seconds, 0.0))
    proved = proof is not None and proof.verdict == "proved"
    if proof is not None and proof.verdict == "race":
        witnesses = tuple(witness(kernel, candidate, settings) for candidate in proof.candidates
                          if candidate.kind in RACES)
        seeds = dict(settings.seed_launches)
        seeds[kernel.symbol] = (*witnesses, *seeds.get(kernel.symbol, ()))
        settings = replace(settings, seed_launches=seeds)
    if shown is not None and not settings.search and checkpoint is None:
        check = shown  # the run that showed it is the check asked for
    else:
        check = run_checks(program, kernel, given, settings, contract, sites, progress, search=not proved,
                           checkpoint=checkpoint)
    if proved and not contradiction(kernel, check.findings):
        _prove_removals(program, kernel, check, fixed, time.perf_counter() + settings.max_seconds * SHARE)
    more = int(SHARE * check.seconds * UNITS_PER_SECOND)
    left = start + budget - time.perf_counter()  # the check's own limit bounds the proof after it too
    if proof is not None and proof.spent and more > FIRST_EFFORT and left > 1:
        if progress:
            progress("proving")
        proof = _prove(program, kernel, fixed, more, settings, left)
    check.proof = _proof_json(proof, check.findings) if proof is not None else {"verdict": "off", "reason": why_not}
    contradicted = contradiction(kernel, check.findings) if check.proof["verdict"] == "proved" else ""
    if contradicted:
        check.proof["verdict"], check.proof["reason"] = CONTRADICTED, contradicted
        log_contradiction(kernel, contradicted)
    elif check.proof["verdict"] == "proved" and check.status == NOT_CHECKED:  # what the proof leaves to a run
        check.error = ("proved free of races and barrier divergence for every launch; memory faults not checked: "
                       f"{check.error.removeprefix('not checked: ')}")
    check.seconds = time.perf_counter() - start
    return check


SMALL_LAUNCH = 1 << 16  # threads of a launch given that is run before the prover is asked anything
SHOWN_BY_A_RUN = "a run of the launch given shows a race or barrier divergence: nothing left to prove"


def _shown_on_the_launch_given(program: Program, kernel: KernelInfo, given: Given, settings: Settings, contract,
                               sites: tuple) -> KernelCheck | None:
    """The check of a small launch given (grid and block, at most SMALL_LAUNCH threads),
    unsearched, when it shows an error-severity race or barrier divergence: then what the
    prover would decide, race-free for every launch, is already answered, and the check
    need not wait on it (it then runs as for a kernel not proved). Else None."""
    if not (given.grid and given.block) or given.launches or \
            math.prod(given.grid) * math.prod(given.block) > SMALL_LAUNCH:
        return None
    first = run_checks(program, kernel, given, replace(settings, search=False), contract, sites, search=False)
    return first if any(f.type in DECIDED and f.severity == ERROR for f in first.findings) else None


CONTRADICTED = "contradicted"  # a proof a run shows wrong: an internal error (the run's findings stand)


def contradiction(kernel: KernelInfo, findings: list[Finding]) -> str:
    """The internal error that the first error-severity race or barrier divergence among
    `findings` (a run's: it holds for the program's values or every invented one) makes of
    a proof that the kernel has none; '' when there is none."""
    shown = next((f for f in findings if f.type in DECIDED and f.severity == ERROR), None)
    if shown is None:
        return ""
    where = f"{display(shown.file or kernel.file)}:{shown.line}"
    return (f"internal error: the prover proved {kernel.name} race-free and barrier-divergence-free for every launch, "
            f"but a run shows the {shown.type} at {where}; the finding stands (please report this)")


def log_contradiction(kernel: KernelInfo, contradicted: str) -> None:
    """Append the contradiction to the file $SIMULEE_CONTRADICTIONS names (a JSON line), so that
    a test suite or a benchmark fails on any, in whatever process it happened."""
    path = os.environ.get("SIMULEE_CONTRADICTIONS")
    if path:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        with open(path, "a", encoding="utf-8") as log:
            log.write(json.dumps({"file": display(kernel.file), "kernel": kernel.name, "error": contradicted}) + "\n")


def _prove_removals(program: Program, kernel: KernelInfo, check: KernelCheck, fixed: Fixed, deadline: float) -> None:
    """Prove each redundant barrier whose removal was checked removable for every launch
    (prover.equivalence: the kernel without it leaves the same outputs), each within
    REMOVAL_EFFORT of z3's units (the same verdict under any load) and before `deadline`;
    a removal the solver finds a difference of, shown in the interpreter, makes the
    barrier needed."""
    for verdict in check.verdicts:
        finding = next((f for f in check.findings if f.type == REDUNDANT_BARRIER and f.ops and
                        f.ops[0] == verdict.site), None)
        if verdict.verdict != "redundant" or not verdict.removal or finding is None:
            continue
        from simulee.checker.equivalence import Pair, without_barrier  # z3: only for a removal to prove
        from simulee.prover.equivalence import prove_equivalent, replay
        from simulee.prover.solve import Effort

        pair = Pair(program, kernel, without_barrier(program, verdict.site), kernel, {p.name: p.name
                                                                                  for p in kernel.params})
        proof = prove_equivalent(pair, fixed, deadline, race_free=("old",),  # the check's proof proved it
                                 effort=Effort(REMOVAL_EFFORT, REMOVAL_EFFORT))
        shown = replay(pair, proof) if proof.verdict == "differ" else None
        if proof.verdict == "proved":
            verdict.removal_proved = True
            finding.message = redundant_message(verdict.passes, verdict.launches, [kernel.name], verdict.removal, True)
        elif shown is not None:
            check.findings.remove(finding)
            verdict.verdict, verdict.reason = "needed", "without it, the prover found a launch that changes an output"


def _prove(program: Program, kernel: KernelInfo, fixed: Fixed, units: int, settings: Settings,
           left: float = float("inf")) -> Proof:
    """A quick proof (solve.prove_kernel) of at most `units` of z3's effort (and SLACK times
    their nominal seconds, a fifth of the check's limit, and the seconds `left` of it),
    stopped at RACES_SEEDED races: their launches (threads of different warps where they
    can be) seed the search. A proof of the same question kept by an earlier run
    (prover.cache) is taken as it is."""
    from simulee.prover.cache import ProofCache, lasting, proof_key

    cached = _kept(program, kernel, fixed, units, settings)
    if cached is not None:
        return cached
    from simulee.prover.solve import Effort, prove_kernel  # z3, imported only when a proof is made

    cache, key = ProofCache(), proof_key(program.digest, kernel.symbol, fixed, units, settings.warp_model)
    seconds = min(SLACK * units / UNITS_PER_SECOND, settings.max_seconds / 5, left)
    proof = prove_kernel(program, kernel, int(seconds * 1000), fixed, time.perf_counter() + seconds,
                         Effort(min(QUESTION_EFFORT, units), units), races=RACES_SEEDED, quick=True,
                         warp_model=settings.warp_model)
    if key and lasting(proof, seconds):
        cache.put(key, proof)
    return proof


def _kept(program: Program, kernel: KernelInfo, fixed: Fixed, units: int, settings: Settings) -> Proof | None:
    """The proof of the same question an earlier run kept (prover.cache), or None."""
    from simulee.prover.cache import ProofCache, proof_key

    start = time.perf_counter()
    key = proof_key(program.digest, kernel.symbol, fixed, units, settings.warp_model)
    cached = ProofCache().get(key) if key else None
    return replace(cached, seconds=time.perf_counter() - start) if cached is not None else None


def _not_provable(given: Given) -> str:
    """Why a proof would not cover what is given ('' when it would)."""
    if any(isinstance(value, Alias) for value in given.args.values()):
        return "two pointer arguments are given as one buffer, and the proof assumes distinct buffers"
    return ""


def _fixed(given: Given, sites: tuple, settings: Settings, contract) -> Fixed:
    """What a proof may take as fixed of `given`: its grid and block unless several
    exact launches are given, and its integer arguments; the launch `sites`, as the
    check takes them (unless a grid, a block or exact launches are given); the ranges,
    choices of values and relations `contract` (a simulee.toml's) states."""
    numbers = {name: value for name, value in given.args.items() if isinstance(value, int)
               and not isinstance(value, bool)}
    ranges, choices = (dict(contract.ranges), dict(contract.choices)) if contract else ({}, {})
    relations = tuple(contract.relations) if contract else ()
    if given.launches:
        return Fixed(args=numbers, ranges=ranges, choices=choices, relations=relations, launches=tuple(
            (grid, block, args) for grid, block, args in given.launches))
    launched = tuple(sites) if settings.launch_sites and not (given.grid or given.block) else ()
    return Fixed(given.grid, given.block, numbers, launched, ranges, choices, relations)


def witness(kernel: KernelInfo, candidate: Candidate, settings: Settings):
    """The launch the solver found for `candidate` (its dimensions and integer arguments;
    buffers as a default launch makes them)."""
    return default_launch(kernel, arguments(kernel, candidate), grid=candidate.grid, block=candidate.block,
                          origin="solver", **settings.launch_options())


def _proof_json(proof: Proof, findings: list[Finding]) -> dict:
    """The proof as a check records it: its verdict, reason, assumptions and seconds, and
    each race the solver found with whether a run of the check showed it."""
    shown = {_lines(finding) for finding in findings if finding.type in DECIDED}
    races = [dict(type=c.kind, lines=[line for line in c.lines() if line], launch=describe(c),
                  args={proof.params[k] if k < len(proof.params) else str(k): v for k, v in sorted(c.args.items())},
                  shown=frozenset(filter(None, c.lines())) in shown)
             for c in proof.candidates]
    verdict, reason = proof.verdict, proof.reason
    if verdict == "race" and not any(race["shown"] for race in races) and proof.ordering:
        verdict, reason = "unknown", through_memory(proof)
    return {"verdict": verdict, "reason": reason, "assumptions": proof.assumptions,
            "seconds": round(proof.seconds, 3), "races": races}


def through_memory(proof: Proof) -> str:
    """Why a proof whose races no run shows is unknown when the kernel orders accesses
    through memory: the prover orders by barriers only, so a fence, a release or an acquire
    may order what it takes for a race."""
    race = proof.candidates[0]
    lines = " and ".join(str(line) for line in dict.fromkeys(filter(None, race.lines()))) or "?"
    what = ", ".join(proof.ordering[:3]) + (", ..." if len(proof.ordering) > 3 else "")
    return (f"the kernel orders accesses through memory ({what}), which the prover does not follow, and no run "
            f"shows the solver's {race.kind} at line {lines}")


def _lines(finding: Finding) -> frozenset:
    return frozenset(filter(None, (finding.first.line if finding.first else finding.line,
                                   finding.second.line if finding.second else None)))


def confirm(program: Program, info: KernelInfo, proof: Proof, warp_model: str = "independent",
            deadline: float = float("inf")) -> None:
    """Run candidates of `proof` until one shows its race (at most MAX_RUNS, none started
    past `deadline`, a time.perf_counter()) and mark them (Candidate.confirmed, .why);
    those not run stay unconfirmed, saying so."""
    runs = 0
    for candidate in proof.candidates:
        if runs >= MAX_RUNS or any(c.confirmed for c in proof.candidates):
            candidate.confirmed, candidate.why = False, "not run: another race of the kernel was run"
            continue
        if time.perf_counter() >= deadline:
            candidate.confirmed, candidate.why = False, "not run: the kernel's time ran out"
            continue
        runs += 1
        blocks = candidate.grid[0] * candidate.grid[1] * candidate.grid[2]
        if blocks > RUNNABLE_BLOCKS:
            candidate.confirmed, candidate.why = False, f"its launch of {blocks:,} blocks is too large to run"
            continue
        launch = default_launch(info, arguments(info, candidate), grid=candidate.grid, block=candidate.block)
        check = check_kernel(program, info, [launch], warp_model=warp_model, deadline=deadline)
        wanted = frozenset(filter(None, candidate.lines()))
        kinds = RACES if candidate.kind in RACES else (candidate.kind,)  # a warp-synchronous race too
        shown = [f for f in check.findings if f.type in kinds and
                 (candidate.kind not in RACES or _lines(f) == wanted or {f.first.line} == wanted)]
        candidate.confirmed = bool(shown)
        if shown:
            candidate.why = ""
        elif any(entry["status"] == "time-limit" for entry in check.launches) or not check.launches:
            candidate.why = "the interpreter's run of the solver's launch ran out of the kernel's time"
        else:
            candidate.why = "the interpreter's run of the solver's launch does not show it: " + (
                "a fence, release or acquire may order it (the prover does not follow them), or " if proof.ordering
                else "") + "the model rests on a value it leaves unconstrained (read from memory, a float, a call's " \
                "result)"
    if proof.verdict == "race" and not any(c.confirmed for c in proof.candidates) and proof.ordering:
        proof.verdict, proof.reason = "unknown", through_memory(proof)


def arguments(info: KernelInfo, candidate: Candidate) -> dict:
    """The kernel's scalar arguments as the solver chose them (integers as their type
    reads the bits, floats from their bits); pointers are left to the launch."""
    values = {}
    for index, param in enumerate(info.params):
        bits = candidate.args.get(index)
        if bits is None or param.kind not in ("integer", "float"):
            continue
        width = param.bits or 32
        if param.kind == "float":
            values[param.name] = struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0] if width == 32 \
                else struct.unpack("<d", struct.pack("<Q", bits))[0]
        elif param.signed and bits >= 1 << (width - 1):
            values[param.name] = bits - (1 << width)
        else:
            values[param.name] = bits
    return values
