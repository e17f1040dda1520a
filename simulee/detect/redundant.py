"""Redundant barriers (the paper's Algorithm 5).

A barrier instruction is redundant when, in every launch explored, merging the epochs it
separates (in every block, every time it was passed) creates no race: no two accesses that
it kept apart race once it is gone, and, for a barrier in a loop, some block of two
threads or more passed it twice in a launch that wrote around it (else no launch ran the
iteration after it that it orders: it is not covered, as one tile of a tiled loop leaves
the barrier closing the tile untested, and so do two tiles of a block of one thread). Barriers are
judged launch by launch in program order, with those before them that no launch needed so
far gone too, so all the redundant ones can be removed together (of two barriers back to
back, the first is redundant and the second needed). It is needed when some launch shows
such a race (named in the verdict), and not covered when no launch passed it. Verdicts are
per barrier instruction; only redundant ones are findings. A barrier that computes a value
(__syncthreads_count/and/or) is never a candidate: it cannot simply be removed.

Over several kernels (a scan, or a check of a file), a barrier of a device function they
share, or of a template, is judged over all of them (`across_kernels`): redundant only
where no kernel that reaches it needs it or left it unjudged (an instance no launch could
be made of may be the one that needs it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from interpreter.loops import innermost_loop
from interpreter.trace import READ
from interpreter.vocabulary import barrier_kind
from simulee.detect.base import Detector, KernelRuns, Rule
from simulee.detect.divergence import divergent_barriers
from simulee.detect.race import Pairs, racing_pairs, summarize
from simulee.model.findings import WARNING, Finding, Place, display, place, place_at

REDUNDANT_BARRIER = "redundant-barrier"
NOT_EXERCISED = "in a loop that ran at most one iteration in every launch: the next iteration's accesses never met it"
NOTHING_ACROSS = ("no launch had blocks of two threads or more write anything around it: it was never put to the "
                  "test")
CUT = ("a launch too large to trace at once was judged in parts cut inside its blocks, at their barriers: the "
       "accesses two barriers removed together separate may lie in different parts, so no barrier of it was judged "
       "redundant")
NEVER_BOTH = ("in a loop: no one launch both ran two iterations across it and had blocks of two threads or more "
              "write around it (each did one of the two)")


@dataclass
class BarrierVerdict:
    kernel: str
    place: Place
    verdict: str  # needed, redundant, not-covered
    passes: int  # times a block passed it, over all launches
    divergent: bool  # some launch saw it reached by part of a block only
    race: Finding | None = None  # for needed: the race its removal would cause
    reason: str = ""  # for not-covered: why the launches say nothing about it; for needed without a race, why
    launches: int = 0  # launches it was judged over
    site: tuple = ()  # (function, instruction index) of the barrier call
    removal: int = 0  # launches on which the kernel without it gave the same outputs (checker.equivalence)
    removal_proved: bool = False  # and for every launch (prover.equivalence)

    def to_json(self) -> dict:
        return {"kernel": self.kernel, "file": display(self.place.file), "line": self.place.line,
                "column": self.place.column, "verdict": self.verdict, "passes": self.passes,
                "divergent": self.divergent, "race": self.race.to_json() if self.race else None,
                "reason": self.reason or None, "launches": self.launches,
                **({"removal_checked": self.removal} if self.removal else {}),
                **({"removal_proved": True} if self.removal_proved else {})}


def barrier_sites(program, kernel_symbol: str) -> list[tuple[str, int]]:
    """(function, instruction index) of every block barrier the kernel can reach."""
    sites = []
    for function in program.reachable_functions(kernel_symbol):
        for index, op in enumerate(function.ops):
            # a plain block barrier: a __syncthreads_count/and/or computes a value, it can never be removed
            if op.opcode == "call" and barrier_kind(op.extra.get("callee") or "") == "":
                sites.append((function.name, index))
    return sites


@dataclass
class _Evidence:
    """What the launches judged so far say of one barrier."""

    location: Place | None = None
    passes: int = 0  # times a block passed it
    divergent: bool = False  # some launch saw it reached by part of a block only
    race: Finding | None = None  # the first race its removal caused: it is needed
    repeated: bool = False  # some block passed it twice
    exercised: bool = False  # some pass could have shown a race
    both: bool = False  # in one launch: some block passed it twice, and some pass could have shown a race
    cut: bool = False  # some launch was judged in parts cut inside its blocks (Events.cuts): not judged redundant


class BarrierJudge:
    """Judges every barrier of a kernel one launch at a time (`add`), so that no launch
    needs to be kept after it: in each launch the barriers are removed in program order,
    each together with those before it that no launch so far has needed, and one whose
    removal then shows a race is needed. Those are never fewer than the barriers finally
    found redundant, and removing more barriers only adds races, so the redundant ones
    can still be removed together in every launch (a barrier may be called needed that
    a later launch would have left redundant: the judgment errs only that way)."""

    def __init__(self, program, kernel, warp_model: str = "independent"):
        self.program, self.kernel, self.warp_model = program, kernel, warp_model
        self.sites = barrier_sites(program, kernel.symbol)
        self.evidence = [_Evidence() for _ in self.sites]
        self.launches = 0

    def add(self, result, model) -> None:
        """Judge the barriers over one more launch (its result and memory-access model)."""
        self.launches += 1
        if result.events.cuts:  # a part of a launch that goes on past a cut (detect.parts)
            for evidence in self.evidence:
                evidence.cut = True
        removed: list[tuple[np.ndarray, np.ndarray]] = []  # passes of the barriers no launch needed yet
        divergent = divergent_barriers(result)
        for site, evidence in zip(self.sites, self.evidence):
            op_ids = [i for i, op in enumerate(result.trace.ops) if (op.function, op.index) == site]
            if not op_ids:
                continue
            op = op_ids[0]
            evidence.location = evidence.location or place(result.trace.ops, op, "barrier")
            evidence.divergent |= op in divergent
            blocks, epochs = _passes(result, op)
            evidence.passes += len(blocks)
            repeated, exercised = _repeated(blocks), _exercised(model, blocks, epochs)
            evidence.repeated |= repeated
            evidence.exercised |= exercised
            evidence.both |= repeated and exercised
            if len(blocks) and evidence.race is None:
                gone = removed + [(blocks, epochs)]
                evidence.race = _race_without(model, np.concatenate([b for b, _ in gone]),
                                              np.concatenate([e for _, e in gone]), self.warp_model)
                if evidence.race is None:
                    removed.append((blocks, epochs))

    def absorb(self, other: "BarrierJudge") -> None:
        """Add what `other`, a judge of the same kernel over other launches, saw: one more launch."""
        self.launches += 1
        for mine, theirs in zip(self.evidence, other.evidence):
            mine.location = mine.location or theirs.location
            mine.passes += theirs.passes
            mine.race = mine.race or theirs.race
            for name in ("divergent", "repeated", "exercised", "both", "cut"):
                setattr(mine, name, getattr(mine, name) or getattr(theirs, name))

    def verdicts(self) -> list[BarrierVerdict]:
        """A verdict for every barrier over the launches added."""
        verdicts = []
        for site, evidence in zip(self.sites, self.evidence):
            function = self.program.function(site[0])
            in_loop = innermost_loop(function, function.ops[site[1]].block) is not None
            reason = ""
            if evidence.passes == 0:
                verdict, reason = "not-covered", "no launch reached it"
            elif evidence.race is not None:
                verdict = "needed"
            elif evidence.cut:
                verdict, reason = "not-covered", CUT
            elif in_loop and not evidence.repeated:
                verdict, reason = "not-covered", NOT_EXERCISED
            elif not evidence.exercised:
                verdict, reason = "not-covered", NOTHING_ACROSS
            elif in_loop and not evidence.both:
                verdict, reason = "not-covered", NEVER_BOTH
            else:
                verdict = "redundant"
            verdicts.append(BarrierVerdict(self.kernel.name, evidence.location or _static_place(self.program, site),
                                           verdict, evidence.passes, evidence.divergent, evidence.race, reason,
                                           self.launches, tuple(site)))
        return verdicts


class RedundantBarriers(Detector):
    """Judges every barrier over all the launches (its verdicts go to the check), and
    reports the redundant ones."""

    name = REDUNDANT_BARRIER
    rules = (Rule(REDUNDANT_BARRIER, WARNING, "A barrier whose removal creates no data race in any launch explored"),)

    def keep(self, run, runs: KernelRuns) -> None:
        if self.name not in runs.state:
            runs.state[self.name] = BarrierJudge(runs.program, runs.kernel, runs.warp_model)
        runs.state[self.name].add(run.result, run.model)

    def absorb(self, runs: KernelRuns, staged: KernelRuns) -> None:
        """The parts were judged apart from the launches before, each barrier removed with
        more of the others than `runs` would remove: a race it shows may be another's, so
        the judgment still errs only towards needed."""
        if self.name not in staged.state:
            return
        if self.name not in runs.state:
            runs.state[self.name] = BarrierJudge(runs.program, runs.kernel, runs.warp_model)
        runs.state[self.name].absorb(staged.state[self.name])

    def kernel(self, runs: KernelRuns) -> list[Finding]:
        if self.name not in runs.state:
            return []
        runs.verdicts = runs.state[self.name].verdicts()
        return redundant_findings(runs.verdicts, runs.launches[0])


def redundant_findings(verdicts: list[BarrierVerdict], launch: dict | None) -> list[Finding]:
    return [Finding(REDUNDANT_BARRIER, WARNING, v.kernel, redundant_message(v.passes, v.launches, [v.kernel]),
                    v.place, launch=launch, instances=v.passes, ops=(v.site,) if v.site else ())
            for v in verdicts if v.verdict == "redundant"]


def redundant_message(passes: int, launches: int, kernels: list[str], removal: int = 0, proved: bool = False) -> str:
    """What a redundant barrier was judged over: block passes, launches, and the kernels
    (or template instances) when more than one reaches it; and on how many launches the
    kernel without it computed the same outputs (`removal`), and whether for every launch
    (`proved`)."""
    over = f"{passes} block pass{'es' if passes != 1 else ''} in {launches} launch{'es' if launches != 1 else ''}"
    if len(kernels) > 1:
        names = ", ".join(kernels[:3]) + (f" and {len(kernels) - 3} more" if len(kernels) > 3 else "")
        over += f" of {len(kernels)} kernels: {names}"
    checked = f"; removal checked: same outputs on {removal} launch{'es' if removal != 1 else ''}" if removal else ""
    checked += " and proved for every launch" if removal and proved else ""
    return f"redundant barrier: removing it creates no data race (checked over {over}){checked}"


JOINT_ORDER = ("needed", "not-covered", "redundant")  # the first some kernel gives is the barrier's verdict


def across_kernels(records: list[dict]) -> list[dict]:
    """Kernel records (KernelCheck.to_json) with every barrier judged over all the kernels
    that reach it (a barrier of a device function several kernels call, or of a template,
    is one barrier; so is one a kernel reaches through several call sites): needed if some
    kernel needs it, else not-covered if some kernel did not judge it (removing the one
    source line would go unchecked there; the reason names that kernel), else redundant;
    divergent if some kernel reached it divergently. Each barrier keeps its kernel's own
    verdict as `kernel_verdict` (divergent, needed, redundant or not-covered). A
    redundant-barrier finding stays only where the barrier is redundant overall, and says
    what it was judged over. In every kernel, the barriers left redundant are among those
    its own judgment removed together, so they can all be removed together."""
    records = [{**record, "barriers": _one_per_place(record["barriers"])} for record in records]
    joint = {}
    for record in records:
        for barrier in record["barriers"]:
            key = (barrier["file"], barrier["line"], barrier["column"])
            joint[key] = _joined(joint.get(key), barrier, record["kernel"])
    settled = []
    for record in records:
        barriers = []
        for barrier in record["barriers"]:
            seen = joint[(barrier["file"], barrier["line"], barrier["column"])]
            own = "divergent" if barrier["divergent"] else barrier["verdict"]
            reason = barrier["reason"]
            if seen["verdict"] == "not-covered" and barrier["verdict"] != "not-covered":
                reason = f"not judged in {seen['uncovered'][0]}: {seen['uncovered'][1]}"
            barriers.append({**barrier, "kernel_verdict": barrier.get("kernel_verdict", own),
                             "verdict": seen["verdict"], "divergent": seen["divergent"],
                             "race": barrier["race"] or seen["race"], "reason": reason})
        findings = []
        for finding in record["findings"]:
            if finding["type"] == "redundant-barrier":
                seen = joint.get((finding["file"], finding["line"], finding["column"]))
                if seen is not None and seen["verdict"] != "redundant":
                    continue
                if seen is not None:
                    finding = {**finding, "message": redundant_message(seen["passes"], seen["launches"],
                                                                       seen["kernels"], seen["removal"],
                                                                       seen["proved"])}
            findings.append(finding)
        settled.append({**record, "barriers": barriers, "findings": findings})
    return settled


def _one_per_place(barriers: list[dict]) -> list[dict]:
    """A kernel's barrier verdicts with those of one source place (a device function
    inlined at several call sites) made one, judged as across kernels."""
    merged: dict[tuple, dict] = {}
    for barrier in barriers:
        key = (barrier["file"], barrier["line"], barrier["column"])
        seen = merged.get(key)
        if seen is None:
            merged[key] = dict(barrier)
            continue
        seen["verdict"] = _first_verdict({seen["verdict"], barrier["verdict"]})
        seen["passes"] += barrier["passes"]
        seen["launches"] = max(seen.get("launches", 0), barrier.get("launches", 0))
        seen["removal_checked"] = max(seen.get("removal_checked", 0), barrier.get("removal_checked", 0))
        seen["divergent"] |= barrier["divergent"]
        seen["race"] = seen["race"] or barrier["race"]
        seen["reason"] = seen["reason"] if seen["verdict"] == "not-covered" and seen["reason"] else barrier["reason"]
    return list(merged.values())


def _joined(seen: dict | None, barrier: dict, kernel: str) -> dict:
    """What the kernels so far (`seen`) and one more kernel's verdict say of one barrier."""
    seen = seen or {"verdicts": set(), "passes": 0, "launches": 0, "divergent": False, "race": None, "kernels": [],
                    "removal": 0, "proved": True, "uncovered": None}
    seen["verdicts"].add(barrier["verdict"])
    if barrier["verdict"] == "not-covered" and seen["uncovered"] is None:
        seen["uncovered"] = (kernel, barrier["reason"] or "no launch reached it")
    seen["verdict"] = _first_verdict(seen["verdicts"])
    seen["divergent"] |= barrier["divergent"]
    if barrier["verdict"] != "not-covered":
        seen["passes"] += barrier["passes"]
        seen["launches"] += barrier.get("launches", 0)
        seen["removal"] += barrier.get("removal_checked", 0)
        seen["proved"] &= barrier.get("removal_proved", False)  # by every kernel that reaches it
        if kernel not in seen["kernels"]:
            seen["kernels"].append(kernel)
    seen["race"] = seen["race"] or barrier["race"]
    return seen


def _first_verdict(verdicts: set[str]) -> str:
    """needed over not-covered over redundant."""
    return next((v for v in JOINT_ORDER if v in verdicts), "not-covered")


def _passes(result, op: int) -> tuple[np.ndarray, np.ndarray]:
    """Blocks that passed barrier `op`, and the epoch each left, over one launch."""
    blocks = [b for passed_op, b, _ in result.events.barrier_passes if passed_op == op]
    epochs = [e for passed_op, _, e in result.events.barrier_passes if passed_op == op]
    if not blocks:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return np.concatenate(blocks).astype(np.int64), np.concatenate(epochs).astype(np.int64)


def _exercised(model, blocks: np.ndarray, epochs: np.ndarray) -> bool:
    """Whether some pass of the barrier could have shown a race: its block has two threads
    or more, and something was written in the epochs it separated. A block of one thread,
    or a barrier with nothing written around it, puts it to no test."""
    if len(model) == 0 or len(blocks) == 0 or model.result.launch.threads_per_block < 2:
        return False
    epoch = model["epoch"].astype(np.int64)
    stride = int(max(epochs.max(), epoch.max())) + 2
    passes = np.unique(blocks.astype(np.int64) * stride + epochs)
    written = model["action"] != READ
    key = model["block"][written].astype(np.int64) * stride + epoch[written]
    return bool((np.isin(key, passes) | np.isin(key - 1, passes)).any())


def _repeated(blocks: np.ndarray) -> bool:
    """Whether some block passed the barrier more than once (two iterations across it)."""
    return len(blocks) > len(np.unique(blocks))


def _race_without(model, blocks: np.ndarray, epochs: np.ndarray, warp_model: str) -> Finding | None:
    """The first race that appears when the barrier's passes no longer separate epochs: a
    racing pair whose accesses it kept apart (one in the epoch a block left through it, one
    in the epoch after, or further along a chain of such passes), or None."""
    if len(model) == 0:
        return None
    epoch = model["epoch"].astype(np.int64)
    stride = int(max(epochs.max(), epoch.max())) + 2
    passes = np.unique(blocks * stride + epochs)
    key = model["block"].astype(np.int64) * stride + epoch
    # only the rows in an epoch just before or just after a pass can meet anew
    rows = np.flatnonzero(np.isin(key, passes) | np.isin(key - 1, passes))
    if len(rows) == 0:
        return None
    # a row's epoch drops by the passes its block made before it
    block_start = model["block"][rows].astype(np.int64) * stride
    merged = epoch[rows] - (np.searchsorted(passes, key[rows], side="left")
                            - np.searchsorted(passes, block_start, side="left"))
    # such races stay within a block: look at one block first, where a needed barrier
    # usually shows, and at the others only if it shows nothing
    in_first = model["block"][rows] == model["block"][rows].min()
    for part in (in_first, ~in_first):
        pairs = racing_pairs(model, warp_model, rows[part], epoch=merged[part], origin=epoch[rows[part]])
        apart = epoch[pairs.first] != epoch[pairs.second]
        if apart.any():
            fresh = Pairs(pairs.first[apart], pairs.second[apart], pairs.scope[apart], pairs.partition[apart],
                          pairs.benign[apart])
            return summarize(model, fresh)[0]
    return None


def _static_place(program, site) -> Place:
    function, index = site
    return place_at(program.function(function).ops[index].location, "barrier")
