"""Check one kernel on one or more launches: run each, build its memory-access model, let
every detector look at it, merge what they find across launches, and judge every barrier
over all the launches together."""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import dataclass, field, replace

import numpy as np

from evolve.contract import MEMORY_FAULTS, Contract, stated_values
from evolve.space import ALIGNED, HALFWAY, STRIDE_NAME
from interpreter.limits import DEFAULT_HEAP_BYTES, DETECTION_THREADS, TRACE_LIMIT
from interpreter.launch import Alias, Launch, Result
from interpreter.loader import KernelInfo, Program
from interpreter.memory import POINTER_SLOTS
from interpreter.simt import execute
from interpreter.types import ArrayType, FloatType, IntType
from interpreter.trace import BUFFER_LIMIT
from interpreter.vocabulary import index_register
from simulee.detect import enabled
from simulee.detect.base import KernelRuns, LaunchRun
from simulee.detect.faults import invalid_launch
from simulee.detect.parts import PartedLaunch
from simulee.detect.parts import gravity as _gravity
from simulee.detect.parts import merge as _merge
from simulee.detect.race import RACES, WARP_SYNCHRONOUS
from simulee.detect.redundant import REDUNDANT_BARRIER, BarrierJudge, BarrierVerdict, redundant_message
from simulee.detect.vacuous import VACUOUS
from simulee.model.findings import ERROR, SYNTHETIC, WARNING, Finding, display, launch_of
from simulee.frontend.compiler import BUILTIN_VARIABLES, library_file, user_location

DEFAULT_THREADS_PER_BLOCK = 64
DEFAULT_BLOCKS_PER_AXIS = 2
FULL_CHECK_THREADS = DETECTION_THREADS  # larger launches are checked on sampled runs of blocks
SAMPLED_RUNS = 4  # runs of consecutive blocks a sampled launch checks: its start, its end and between
INDEPENDENT_SCHEDULING = 70  # sm_70 (Volta): lanes of a warp may run apart


@dataclass
class KernelCheck:
    """What checking one kernel found. `status` is ok, not-checked (no launch ran to its
    end: `error` says why), unsupported (the interpreter met something it cannot
    execute: `error` names it) or error."""

    kernel: str
    symbol: str
    file: str
    line: int
    status: str = "ok"
    error: str = ""
    launches: list[dict] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    verdicts: list[BarrierVerdict] = field(default_factory=list)
    assumptions: list[dict] = field(default_factory=list)  # the launch contract inferred: bound, file, line
    search: dict | None = None  # what the input search did (search_summary)
    engine: dict | None = None  # what ran natively (interpreter.native.Native.summary), when a launch ran
    notes: list[str] = field(default_factory=list)  # what was not checked as asked, and why
    seconds: float = 0.0
    suppressed: list[tuple[Finding, str]] = field(default_factory=list)  # findings a suppression hides, and why
    proof: dict | None = None  # what the prover decided (simulee.prover.verdicts), if it ran

    def suppress(self, reason_of) -> None:
        """Move the findings an annotation in the source (simulee.checker.annotations) or
        `reason_of(finding)` gives a reason for (else None) to `suppressed`."""
        from simulee.checker import annotations

        kept = []
        for finding in self.findings:
            in_source = annotations.reason(finding, self.file, self.line)
            if in_source is not None:
                finding.details["suppression"] = "inSource"
            reason = in_source if in_source is not None else reason_of(finding)
            if reason is None:
                kept.append(finding)
            else:
                self.suppressed.append((finding, reason))
        self.findings = kept

    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == ERROR)

    def to_json(self) -> dict:
        record = {"kernel": self.kernel, "file": display(self.file), "line": self.line, "status": self.status,
                "error": self.error or None, "launches": self.launches,
                "findings": [f.to_json() for f in self.findings],
                "barriers": [v.to_json() for v in self.verdicts], "assumptions": self.assumptions,
                "notes": self.notes, "seconds": round(self.seconds, 3),
                **({"search": self.search} if self.search is not None else {}),
                **({"engine": self.engine} if self.engine is not None else {}),
                **({"proof": self.proof} if self.proof is not None else {}),
                **({"suppressed": [dict(finding.to_json(), reason=reason) for finding, reason in self.suppressed]}
                   if self.suppressed else {})}
        record["verdict"], record["verdict_reason"] = kernel_verdict(record)
        return record


DECIDED = (*RACES, "barrier-divergence")  # the finding types a proof rules out


def kernel_verdict(check: dict) -> tuple[str, str]:
    """(proved | race | possible-race | not-proved, why) of a check's record (to_json):
    a race a run shows as an error; proved by the prover (simulee.prover.verdicts) with no race
    shown; a possible race (the solver's that no run showed, a run's resting on a guess of
    Simulee's, or only benign ones); else not proved, with the prover's reason."""
    races = [f for f in check["findings"] if f["type"] in DECIDED]
    proof = check.get("proof") or {}
    launches = sum(1 for launch in check["launches"] if launch.get("status") != "invalid")
    runs = f"{launches} launch{'es' if launches != 1 else ''}"
    if any(f["severity"] == ERROR for f in races):
        solver = any(race["shown"] for race in proof.get("races", ()))
        wrong = "; the prover proved the opposite, an internal error" if proof.get("verdict") == "contradicted" else ""
        return "race", "a run shows it" + (" on a launch the solver found" if solver else "") + wrong
    if proof.get("verdict") == "proved" and not races:
        return "proved", "race-free and barrier-divergence-free for every launch"
    if races and all(f.get("benign") for f in races):
        return "possible-race", "a run shows only benign races (its warnings say why they are harmless)"
    if races:
        return "possible-race", "a run shows one on a launch resting on a guess of Simulee's (its warning says which)"
    if proof.get("verdict") == "race":
        race = proof["races"][0]
        lines = " and ".join(map(str, race["lines"])) or "?"
        return "possible-race", (f"the solver finds a {race['type']} at line {lines} ({race['launch']}) that no run of "
                                 f"{runs} showed")
    prover = "was not run" if proof.get("verdict") in (None, "off") else "could not decide"
    reason = f" ({proof['reason']})" if proof.get("reason") else ""
    return "not-proved", f"no race found on {runs}; the prover {prover}{reason}"


def indices_read(program: Program, kernel: KernelInfo) -> tuple[str, ...]:
    """The index registers (tid.x, ctaid.y, ...) the kernel's own code reads. Reads inside
    Simulee's headers (cuRAND, cooperative groups linearizing the thread index) do not
    say how the kernel is meant to be launched."""
    variables = str(BUILTIN_VARIABLES)
    read = set()
    for function in program.reachable_functions(kernel.symbol):
        for op in function.ops:
            register = op.opcode == "call" and index_register(op.extra.get("callee") or "")
            if not register:
                continue
            # where threadIdx (a variable of builtin_vars.h) was read: the user's code or a header
            reader = next((place for place in op.location.chain() if place.file != variables), None) \
                if op.location else None
            if reader is None or not library_file(reader.file):
                read.add(register)
    return tuple(b for b in kernel.builtins if b in read)


def default_launch(kernel: KernelInfo, args: dict | None = None, grid=None, block=None, reads=None,
                   **options) -> Launch:
    """A launch with defaults for whatever is not given. Grid: two blocks along each axis
    the kernel reads blockIdx or gridDim of (one block if it reads neither: more would only
    repeat it). Block: 64 threads (two warps) shaped by the thread-index axes it reads
    (64x1x1, 16x4x1 or 16x4x2). Every integer scalar is the number of threads along x (a
    size n covers every thread of a 1-D launch; a width, height or depth spans the x
    extent; at most the largest value of its type), twice that for a row stride, pitch or
    leading dimension (named so: rows padded apart, as allocations make them), every enum
    its first enumerator, every float 1.0, and so is every member of a struct passed by
    value. Pointers get buffers that grow on demand and read as zeros.
    `args` overrides any of these. `reads` (default: every index register the kernel
    reads) are the index registers that shape the launch."""
    reads = set(kernel.builtins if reads is None else reads)
    if block is None:
        if "tid.z" in reads:
            block = (16, 4, 2)
        elif "tid.y" in reads:
            block = (16, 4, 1)
        else:
            block = (DEFAULT_THREADS_PER_BLOCK, 1, 1)
    if grid is None:
        grid = tuple(DEFAULT_BLOCKS_PER_AXIS if {f"ctaid.{axis}", f"nctaid.{axis}"} & reads else 1 for axis in "xyz")
    values: dict[str, object] = {}
    for scalar in kernel.scalars():
        if (args or {}).get(scalar.name.partition(".")[0]) is not None:
            continue  # a member of a struct given whole
        if scalar.choices:  # an enum: its first enumerator
            values[scalar.name] = scalar.choices[0]
        elif scalar.kind == "integer":
            size = grid[0] * block[0] * (2 if STRIDE_NAME.search(scalar.name.rpartition(".")[2]) else 1)
            values[scalar.name] = min(size, integer_maximum(scalar))
        else:
            values[scalar.name] = 1.0
    values.update(args or {})
    return Launch(tuple(grid), tuple(block), values, **options)


@dataclass
class Given:
    """What a check is given about a kernel's launches, on the command line or in a
    simulee.toml: grid and block (None: not given), argument values (numbers, NumPy
    buffers, Alias), what buffers hold, and exact launches ((grid, block, args) each)."""

    grid: tuple | None = None
    block: tuple | None = None
    args: dict = field(default_factory=dict)
    fill: str | None = None
    launches: tuple = ()
    origin: str = "given"  # what findings on these launches say they come from

    def over(self, other: "Given") -> "Given":
        """These values, and `other`'s where these give none (the command line over a
        simulee.toml)."""
        launches = self.launches or tuple((grid, block, {k: v for k, v in args.items() if k not in self.args})
                                          for grid, block, args in other.launches)
        gives_launch = lambda given: bool(given.grid or given.block or given.launches)
        origin = other.origin if gives_launch(other) and not gives_launch(self) else self.origin
        return Given(self.grid or other.grid, self.block or other.block, {**other.args, **self.args},
                     self.fill or other.fill, launches, origin)

    def fixed(self) -> set[str]:
        """What the search must keep: "grid", "block", "fill" and argument names."""
        return {name for name in ("grid", "block", "fill") if getattr(self, name)} | set(self.args)

    def launches_of(self, kernel: KernelInfo, reads=None, **options) -> list[Launch]:
        """The exact launches given; else one launch with the grid and block given (and
        the rest default), or the default launch with the arguments given."""
        options = dict(options, fill=self.fill or "zeros")
        if self.launches:
            return [default_launch(kernel, {**self.args, **args}, grid, block, reads, origin=self.origin, **options)
                    for grid, block, args in self.launches]
        if self.grid or self.block:
            return [default_launch(kernel, self.args, self.grid, self.block, reads, origin=self.origin, **options)]
        return [default_launch(kernel, self.args, reads=reads, **options)]


def integer_maximum(param) -> int:
    """The largest value of an integer parameter's C type (1 for bool)."""
    bits = param.bits or 32
    if bits == 1 or param.c_type == "bool":
        return 1
    return (1 << (bits - 1)) - 1 if param.signed is not False else (1 << bits) - 1


def check_kernel(program: Program, kernel: KernelInfo, launches: list[Launch], warp_model: str = "independent",
                 contract: Contract | None = None, fitness: list | None = None,
                 deadline: float = float("inf"), progress=None, detect: tuple[str, ...] = (),
                 space=None, checkpoint=None) -> KernelCheck:
    """Run every launch and report everything found. A launch that breaks an assumption the
    kernel states (__assume, __requires) reports only that: the kernel promises nothing
    there. A launch outside the kernel's contract is skipped as invalid: with a `contract`
    inferred by the search, one whose own faults past a fixed-size array bound its block
    (evolve.contract) or that takes a uniform index past one through searched arguments. A
    fault at an address computed from buffer content Simulee made up is that content's, not the kernel's: a note, not a
    finding. A finding that only launches resting on Simulee's guesses show (an alias the
    search tried, addresses that meet through made-up content and not on buffers of
    distinct, of sorted values or of the identity; scalars and dimensions a launch site
    computes from host values Simulee could not evaluate, unless other values of them show
    it too: _Replays, over the search `space` the launches were made in) is a warning that
    says so (`conditional`), unless a launch shows the same bug in another scope without
    resting on a guess (lanes of a warp at the host's block size, where the guessed block
    made blocks meet): that launch's witness is the error.
    `fitness` gives each launch's search fitness. Launches of more than
    FULL_CHECK_THREADS threads run on sampled blocks; none runs past `deadline`
    (time.perf_counter()); `progress(text)` follows the waves of each launch, and after
    each launch `checkpoint(check)` is given what a check stopped there would report. Every
    default detector looks at each launch, and those `detect` names too (detect.enabled)."""
    from evolve.contract import content_buffers
    from evolve.taint import address_sources

    start = time.perf_counter()
    check = KernelCheck(kernel.name, kernel.symbol, kernel.file, kernel.line)
    rules = contract or Contract(sources=address_sources(program, kernel), buffers=content_buffers(kernel))
    detectors = enabled(detect)
    kept = KernelRuns(program, kernel, warp_model)
    merged: dict[tuple, Finding] = {}
    # findings (each as _shown_as, with its scope) some launch shows without resting on a guess; some
    # launch shows with every host value it varied (_Replays); some launch does not show with one varied
    trusted: set[tuple] = set()
    cleared: set[tuple] = set()
    refuted: set[tuple] = set()
    doubts: dict[tuple, str] = {}  # the others: what guess the first launch showing them rests on
    sure: dict[tuple, Finding] = {}  # per key, the gravest witness that rested on no guess
    # per finding: how many launches' host values were varied to see whether it needs them, and the last doubt
    replayed: dict[tuple, tuple[int, str]] = {}
    aliased: set[tuple] = set()  # findings whose witness is a launch the search made in place (y==x)
    blocks: list[tuple] = []  # the block of every launch kept
    judged: list[Launch] = []  # the launches kept, for the removal of a redundant barrier
    ran = 0
    for number, launch in enumerate(launches):
        if time.perf_counter() >= deadline:
            check.notes.append(f"{len(launches) - number} of {len(launches)} launches not checked: out of time")
            kept.out_of_time = True
            break
        launched = time.perf_counter()
        launch, note = detection_launch(launch, deadline)
        if note:
            _note_once(check.notes, note)  # the same launch on other content says the same
        shown_progress = progress and (
            lambda done, total, n=number: progress(f"launch {n + 1}/{len(launches)}: {done:,}/{total:,} blocks"))
        result = execute(program, kernel, launch, shown_progress)
        result, parted, sample = _in_parts(program, kernel, result, detectors, warp_model, deadline, shown_progress)
        if sample is not None:
            _note_once(check.notes, f"launch {_launch_text(launch)} made more accesses than a check keeps: "
                       f"checked on {len(sample):,} of its {launch.blocks:,} blocks (linear block indices "
                       f"{_runs(sample)}), each to its end in parts")
        fewer = _fitting(result) if parted is None else None
        while fewer is not None and time.perf_counter() < deadline:  # fewer blocks whose trace fits: checked whole
            again = execute(program, kernel, fewer)
            if again.status != "trace-limit":
                _note_once(check.notes, f"launch {_launch_text(launch)} made more accesses than a check keeps: "
                           f"checked on {len(fewer.sample):,} of its {launch.blocks:,} blocks (linear block "
                           f"indices {_runs(fewer.sample)})")
                result = again
                break
            fewer = _fitting(again)
        score = fitness[number] if fitness else None
        ran_as = launch_of(result)
        entry = dict(ran_as, fitness=score.to_json() if score else None, status=result.status,
                     seconds=round(result.seconds, 4))
        check.launches.append(entry)
        if any(fault.kind == BUFFER_LIMIT for fault in result.events.faults):
            _note_once(check.notes, _past_limit_note(result))
        if result.status == "trace-limit":
            _note_once(check.notes, f"launch {_launch_text(launch)} was stopped at {result.launch.trace_limit:,} "
                       "accesses, the most a check keeps: what it did after is not checked")
        if result.status == "out-of-memory" and (ran or number + 1 < len(launches)):
            check.notes.append(f"launch {_launch_text(launch)} not checked: {result.message}")  # the others still are
            continue
        if result.status in ("unsupported", "out-of-memory"):
            check.status, check.error = result.status, result.message
            break
        ran += 1
        outside = contract.learn(result) if contract is not None else False  # by its own faults
        if outside or rules.breaks(result):
            entry["status"] = "invalid"
            continue
        broken = invalid_launch(result)
        if broken:  # outside the kernel's preconditions: nothing it does there is a bug
            for finding in broken:
                _merge(merged, finding)
            continue
        # each launch is looked at as soon as it ran, then released: only one trace is held at a time
        run = LaunchRun(program, kernel, result, warp_model)
        found = parted.finish(result) if parted is not None else \
            [finding for detector in detectors for finding in detector.launch(run)]
        for note in parted.notes if parted is not None else ():
            _note_once(check.notes, note)
        if parted is not None and parted.parts > 1:  # its trace was judged a part at a time (detect.parts)
            entry["parts"] = parted.parts
        # a variant of the launch costs about what the launch did: none starts without that much time left
        within = deadline - (time.perf_counter() - launched)
        again = _again(run, found, detectors, within)
        flat, replays = _Flat(run, detectors, within), _Replays(run, detectors, within, space, refuted, rules)
        rows, widths = _Rows(run, detectors, within, rules), _Widths(run, detectors, within)
        for finding in found:
            made_up = [] if finding.key() in again else invented(finding, result)
            if made_up and finding.type in MEMORY_FAULTS:  # the made-up content's fault, not the kernel's
                _note_once(check.notes, _made_up_fault_note(finding, made_up))
                continue
            key, alias = finding.key(), searched_alias(result.launch)
            unaliased = key in aliased and not alias  # shown without the in-place call it was first shown by
            shown = _merge(merged, finding, unaliased)
            if shown:
                (aliased.add if alias else aliased.discard)(key)
            # a benign instance's replays clear no other; lanes of a block and blocks meeting at one place are
            # replayed apart: what one rests on (a grid's rows) need not be what the other does (a block's width)
            scoped = (_shown_as(finding), finding.scope)
            opened = [] if scoped in trusted | cleared else _opened(finding, result.launch, rules, program, kernel)
            count, guessed = replayed.get(scoped, (0, ""))
            if opened and count < MAX_REPLAYS:
                guessed = replays.doubt(finding, opened)
                replayed[scoped] = (count + 1, guessed)
            guessed = guessed if opened else ""
            doubt = _doubt(finding, result.launch, made_up, guessed, flat.needs(finding), rows.needs(finding),
                           widths.needs(finding))
            if not doubt:
                (cleared if opened else trusted).add(scoped)
                if key not in sure or _gravity(finding) > _gravity(sure[key]):
                    sure[key] = finding
            elif key not in doubts or (unaliased and shown):
                doubts[key] = doubt
        if parted is not None:
            parted.keep(kept)
        else:
            for detector in detectors:
                detector.keep(run, kept)
        kept.launches.append(ran_as)
        judged.append(result.launch)
        blocks.append(result.launch.block)
        del run, result
        if checkpoint is not None:
            checkpoint(replace(check, findings=_ordered(_settled(merged, doubts, sure, trusted, cleared, refuted)),
                               notes=[*check.notes, STOPPED], launches=list(check.launches), suppressed=[]))
    merged = _settled(merged, doubts, sure, trusted, cleared, refuted)
    kept.status, kept.notes = check.status, check.notes
    for detector in detectors:
        kept.found = len(merged)
        for finding in detector.kernel(kept):
            _merge(merged, finding)
    _removals(program, kernel, merged, kept.verdicts, judged, warp_model, deadline)
    check.verdicts = kept.verdicts
    check.assumptions = [_assumption(bound) for bound in rules.bounds.values()  # none a checked launch refutes
                         if all(bound.extent(block) <= bound.limit for block in blocks)]
    outside = [_outside_note(outside) for outside in rules.outside]
    check.notes += outside
    if check.status == "ok" and not any(entry["status"] not in UNFINISHED for entry in check.launches):
        bounds = [f"it assumes {_assumption(bound)['bound']} (line {_assumption(bound)['line']} indexes past a "
                  "fixed-size array beyond it)" for bound in rules.bounds.values()]
        check.status, check.error = NOT_CHECKED, _not_checked(check, kept.out_of_time, outside + bounds)
        if not check.verdicts and any(detector.name == REDUNDANT_BARRIER for detector in detectors):
            # its barriers are unjudged, and stay so across kernels: another instance's verdict is not theirs
            check.verdicts = [replace(v, reason=check.error) for v in BarrierJudge(program, kernel).verdicts()]
    check.findings = _ordered(merged)
    execution = program.executions.get(kernel.symbol)
    check.engine = execution.native.summary() if execution is not None else None
    check.seconds = time.perf_counter() - start
    return check


STOPPED = ("stopped before its end: the findings are those of the launches checked until then, without the "
           "verdicts on its barriers")


def _settled(merged: dict[tuple, Finding], doubts: dict[tuple, str], sure: dict[tuple, Finding], trusted: set,
             cleared: set, refuted: set) -> dict[tuple, Finding]:
    """The findings as they stand after the launches so far (copies: `merged` is left as
    it is): one resting on a guess is a warning that names it, unless some launch showed it
    without the guess (trusted), or its replays cleared it (cleared) and none refuted it
    (refuted, by key and scope); a witness resting on a guess gives way to an error that
    holds in another scope (lanes of a warp at the host's block size, where the guessed
    block showed blocks meeting)."""
    def holds(found: Finding) -> bool:
        scoped = (_shown_as(found), found.scope)
        return scoped in trusted or scoped in cleared and (found.key(), found.scope) not in refuted

    settled = {}
    for key, finding in merged.items():
        if key not in doubts or holds(finding):
            settled[key] = replace(finding, details=dict(finding.details))
        elif key in sure and holds(sure[key]) and sure[key].severity == ERROR:
            settled[key] = replace(sure[key], instances=finding.instances,
                                   addresses=max(finding.addresses, sure[key].addresses))
        else:
            settled[key] = replace(finding, details=dict(finding.details))
            conditional(settled[key], doubts[key])
    return settled


def _ordered(found: dict[tuple, Finding]) -> list[Finding]:
    return sorted(found.values(), key=lambda f: (f.file, f.line, f.column, f.type, f.message))


def _removals(program: Program, kernel: KernelInfo, merged: dict, verdicts: list, launches: list[Launch],
              warp_model: str, deadline: float) -> None:
    """Check every redundant barrier by removing it: run the kernel without it beside the
    kernel as written on the launches judged. Same outputs: the finding says on how many;
    an output that changes: the barrier is needed after all (no finding; its verdict says
    what changes)."""
    for key, finding in list(merged.items()):
        if finding.type != REDUNDANT_BARRIER or not finding.ops:
            continue
        from simulee.checker.equivalence import removal  # only for a kernel with a redundant barrier

        checked = removal(program, kernel, finding.ops[0], launches, warp_model, deadline)
        verdict = next((v for v in verdicts if v.site == finding.ops[0]), None)
        if checked.difference:
            del merged[key]
            if verdict is not None:
                verdict.verdict, verdict.reason = "needed", checked.difference
        elif checked.launches and verdict is not None:
            verdict.removal = checked.launches
            finding.message = redundant_message(verdict.passes, verdict.launches, [kernel.name], checked.launches)


NOT_CHECKED = "not-checked"  # the status of a kernel no launch of which ran to its end
UNFINISHED = ("invalid", "trace-limit")  # launches that do not check a kernel: outside its contract, cut short


def _not_checked(check: KernelCheck, out_of_time: bool, outside: list[str]) -> str:
    """Why no launch of a check ran to its end: none could be made, each was `outside`
    what the kernel is written for (the first reason said), or stopped at the trace limit."""
    statuses = {entry["status"] for entry in check.launches}
    if not statuses and out_of_time:
        return "not checked: time ran out before a launch was checked (--max-seconds, or a scan's --kernel-timeout)"
    if not statuses:
        why = "no launch could be made" + (f": {check.notes[0]}" if check.notes else "")
    elif statuses == {"trace-limit"}:
        why = "every launch was stopped once its trace was full, the most a check keeps (what came after is " \
              "unchecked; fewer blocks or smaller arguments fit)"
    else:
        why = "every launch was outside what the kernel is written for" + \
            (" or stopped at the trace limit" if "trace-limit" in statuses else "") + \
            (f": {outside[0]}" if outside else "")
    return f"not checked: {why}"


def _opened(finding: Finding, launch: Launch, rules: Contract, program: Program, kernel: KernelInfo) -> list[str]:
    """The scalars and dimensions of a launch site whose values Simulee chose
    (launch.guessed: the host computes them from what Simulee could not evaluate, or the
    site does not pass them) that `finding` depends on: those any branch depends on (a loop
    whose barrier a count of 0 skips), and for a race or a fault those its addresses are
    computed from (a dimension when they range over its index)."""
    from evolve.taint import relevant_parameters

    if not launch.guessed or finding.type != "assertion" and finding.type not in RACES + MEMORY_FAULTS:
        return []
    used = {name for name, uses in relevant_parameters(program, kernel).items() if "branch" in uses}
    if finding.type != "assertion":
        sources = [rules.sources[op] for op in finding.ops if op in rules.sources]
        used |= set().union(*(source.scalars | source.contents | source.dims for source in sources))
    return [name for name, _ in launch.guessed if name in DIMENSIONS and name in used or
            name not in DIMENSIONS and name.partition(".")[0] in used]


DIMENSIONS = {f"{what}.{axis}" for what in ("gridDim", "blockDim") for axis in "xyz"}
MAX_REPLAYS = 2  # launches per finding whose host values are varied (_Replays) before its doubt stands
REPLAY_WORK = 1 << 22  # the least work (thread-instructions) a variant of a launch gets
ALIGNED_WORK = 1 << 25  # and its variant with every guessed value aligned (a tile's rows and columns: more work)


class _Replays:
    """Whether a finding of a launch made at a launch site needs the values Simulee chose
    for what the site computes from host values it could not evaluate: the same launch
    with each such host value changed (SearchSpace.variants) that does not show it, or
    that could not be run far enough to tell (its trace full, its work past four times the
    witness's, before it shows it: then one about halfway, 2v + 33, is tried instead). A
    finding every variant shows holds whatever the host passes there (two threads per
    element whatever the size); one some variant does not is the guess's (a hidden width
    searched as 1; a grid and a count from two host values; rows that overlap only off the
    multiples of 128 hosts pass, SearchSpace.variants)."""

    def __init__(self, run: LaunchRun, detectors, deadline: float, space, refuted: set, rules: Contract):
        self.run, self.detectors, self.deadline, self.space, self.rules = run, detectors, deadline, space, rules
        self.refuted = refuted  # the keys of findings some variant does not show, added to
        self.shown: dict[tuple, list] = {}  # (names varied, changes, joint, alone) -> [(what changed, keys shown)]

    def doubt(self, finding: Finding, names: list[str]) -> str:
        """'' when every variant that ran shows `finding`, else what it rests on."""
        launch = self.run.result.launch
        # every guessed value aligned at once (tiles that divide the rows) is the launch a host most likely
        # makes: given more work to show the finding
        shown = self.replayed(names) + self.replayed(names, joint=ALIGNED, alone=False, work=ALIGNED_WORK)
        known = [(what, keys) for what, keys in shown if _tells(keys, finding)]
        if len(known) < len(shown):  # a value that could not be run far enough to tell: one halfway instead
            shown = known + self.replayed(names, HALFWAY)
        if shown and all(_shows(keys, finding) for _, keys in shown):
            return ""
        missing = [what for what, keys in shown if _tells(keys, finding) and not _shows(keys, finding)]
        if missing:
            self.refuted.add((finding.key(), finding.scope))
        chosen = ", ".join(f"{name}={_guessed_value(launch, name)}" for name in names[:6]) + \
            (", ..." if len(names) > 6 else "")
        written = self.space.host_expressions(launch, names[:3]) if self.space is not None else {}
        passed = [f"{name} from {expression}" for name, expression in written.items()]
        unknown = [what for what, keys in shown if what not in missing and not _shows(keys, finding)]
        other = f", not with {missing[0]}" if missing else f", not known with {unknown[0]}" if unknown else \
            "" if shown else ", the only values of them Simulee could launch with"  # every change made no launch
        return (f"only for values Simulee chose ({chosen})" + other +
                (f": the host passes {'; '.join(passed)}, which Simulee could not evaluate" if passed else
                 ": the host code computes them from what Simulee cannot see") +
                "; state the values in simulee.toml, or run the program with simulee exec")


    def replayed(self, names: list[str], changes: tuple = (), joint: tuple = (), alone: bool = True,
                 work: int = REPLAY_WORK) -> list[tuple[str, set | None]]:
        """Each variant of the run's launch with the host values of `names` changed (with
        `alone`, one at a time by `changes`, or as SearchSpace.variants does; all together by
        `joint`), and the keys of what it shows, each run to at least `work`. A variant outside
        the kernel's contract (an index only the changed values decide past a fixed-size
        array) is no value the host would pass: left out."""
        key = (tuple(names), changes, joint, alone)
        if key not in self.shown:
            variants = self.space.variants(self.run.result.launch, names, changes, joint, alone) \
                if self.space is not None else []
            # a variant doing far more work than its witness is cut there: what it showed by then counts
            limit = max(work, 4 * self.run.result.thread_instructions)
            shown = [(what, _shown(self.run, replace(variant, work_limit=limit), self.detectors, self.deadline, True,
                                   self.rules)) for what, variant in variants]
            self.shown[key] = [(what, keys) for what, keys in shown if keys is not OUTSIDE]
        return self.shown[key]


def _shown(run: LaunchRun, launch: Launch, detectors, deadline: float, partial: bool = False,
           rules: Contract | None = None) -> set[tuple] | None:
    """The keys (_shown_as) of the findings that `launch`, a variant of the run's (another
    grid, other host values), shows, run as a check runs it (detection_launch: a large
    grid on a sample of its blocks, fewer when their trace does not fit); None when it
    cannot run, its trace fills up even so (with `partial`: what the part traced, or a sample
    of its blocks, shows, marked PartialKeys: what it lacks is unknown), or no time is left;
    OUTSIDE when it breaks `rules`."""
    if time.perf_counter() >= deadline:
        return None
    checked, sampled = detection_launch(replace(launch, sample=None), deadline)
    other = execute(run.program, run.kernel, checked)
    executed = []  # the instructions each part made accesses at
    other, parted, sample = _in_parts(run.program, run.kernel, other, detectors, run.warp_model, deadline,
                                      each=lambda part: executed.append(np.unique(part.trace["op"])))
    sampled = sampled or sample is not None
    fewer = _fitting(other) if parted is None else None
    while fewer is not None and time.perf_counter() < deadline:  # fewer blocks whose trace fits, as a check runs
        other = execute(run.program, run.kernel, fewer)
        fewer = _fitting(other)
    stopped = other.status == "trace-limit" or other.status == "step-limit" and \
        other.thread_instructions > launch.work_limit  # stopped at its work
    cut = stopped or partial and bool(sampled)
    if other.status in ("unsupported", "out-of-memory", "time-limit") or cut and not partial:  # not seen whole
        return None
    if rules is not None and rules.breaks(other, note=False):
        return OUTSIDE
    again = replace(run, result=other)
    found = parted.finish(other) if parted is not None else [f for detector in detectors
                                                             for f in detector.launch(again)]
    keys = (PartialKeys if cut else ShownKeys)(_shown_as(f) for f in found)
    keys.whole = not stopped  # every block it ran (all, or its sample's) ran whole
    ops = other.trace.ops
    executed = np.unique(np.concatenate(executed)) if parted is not None else np.unique(other.trace["op"])
    keys.reached = frozenset((ops[op].function, ops[op].index) for op in executed.tolist())
    keys.scoped = frozenset((_shown_as(f), f.scope) for f in found)
    if not cut:  # what a run cut short did not reach, it may have later
        keys.kept_away = _kept_away(ops, other.invented_branches, keys.reached)
    return keys


def _kept_away(ops: list, invented: dict[int, bool], reached: frozenset) -> frozenset:
    """The instructions (function, index) a run did not reach for what Simulee invented
    alone: of the branches each is control dependent on, some were evaluated, and each on
    a condition carrying a label every time (`invented`: Result.invented_branches)."""
    if not any(invented.values()):
        return frozenset()
    kept = set()
    for info in ops:
        if (info.function, info.index) in reached:
            continue
        evaluated = [invented[branch] for branch in info.controls if branch in invented]
        if evaluated and all(evaluated):
            kept.add((info.function, info.index))
    return frozenset(kept)


def _tells(keys: set | None, finding: Finding) -> bool:
    """Whether a variant that showed `keys` (_shown) tells whether it shows `finding`: it
    ran whole (every block it ran: all, or a large grid's sample), or showed it, and, for a
    race, made accesses at both its instructions (a variant whose threads never got there
    for another reason than the memory Simulee made up, _shows, says nothing of it: a value
    that ends the work before it)."""
    if keys is None or _shows(keys, finding):
        return keys is not None
    return keys.whole and (finding.type not in RACES or set(finding.ops) <= keys.reached)


def _shows(keys: set | None, finding: Finding) -> bool:
    """Whether a variant that showed `keys` (_shown) shows `finding`: it is among them, or it
    is a race whose instructions the variant's threads did not reach only because of what
    Simulee made up (_kept_away: a loop over as many points as a made-up count says, which
    holds none at the changed value's place). As a witness's threads only had to get there
    (simulee.detect.race), such a variant leaves the race as the witness showed it."""
    if keys is None:
        return False
    if _shown_as(finding) in keys:  # a race between blocks by one between blocks, not lanes meeting in a block
        return finding.scope != "inter-block" or (_shown_as(finding), "inter-block") in keys.scoped
    unreached = set(finding.ops) - keys.reached
    return finding.type in RACES and bool(unreached) and unreached <= keys.kept_away


def _shown_as(finding: Finding) -> tuple:
    """What a variant launch shows of a finding: its key, marked when it is benign (a race
    whose threads all stored one value, as full warps store a warp's reduced sum, does not
    show the race a partial warp's lane-dependent sums make)."""
    return (*finding.key(), "benign") if finding.benign else finding.key()


class ShownKeys(set):
    """The keys of the findings a variant launch shows, the instructions it made accesses
    at (`reached`: (function, index) of each), and each key with its finding's scope
    (`scoped`: (key, "inter-block"), ...)."""

    whole: bool = True  # every block it ran ran to its end (not stopped at its trace or work)
    reached: frozenset = frozenset()
    scoped: frozenset = frozenset()
    kept_away: frozenset = frozenset()  # instructions not reached for what Simulee invented alone (_kept_away)


class PartialKeys(ShownKeys):
    """The keys of the findings of a launch stopped at its trace limit, or run on a sample of
    its blocks: each is shown; one not among them is not known, unless every block of the
    sample ran whole (`whole`: runs of blocks at its start, its end and between, as the
    witness of a large grid is found on)."""


OUTSIDE = ShownKeys()  # a variant outside the kernel's contract (_shown)


class _Flat:
    """Of a launch whose grid is taken along y or z from callers Simulee could not read
    (Launch.unread, a wrapper's `dim3 Gr` passed on as it is), which findings need those
    axes: the same launch with one block along them does not show them. Several blocks
    along x are what any launch of a kernel has; rows of blocks are the host's choice,
    which code Simulee could not read makes (kaldi's LSTM kernels race between rows of
    blocks, which its host never launches). A block's second axis is left as it is: 2-D
    blocks are common, and kaldi's reductions race in the 2-D blocks their hosts launch."""

    def __init__(self, run: LaunchRun, detectors, deadline: float):
        launch = run.result.launch
        self.run, self.detectors, self.deadline = run, detectors, deadline
        self.axes = {name: files for name, files in launch.unread if name in ("gridDim.y", "gridDim.z")
                     and _guessed_value(launch, name) > 1}
        self.shown: set[tuple] | None = None

    def needs(self, finding: Finding) -> dict[str, tuple[str, ...]]:
        """The unread axes `finding` needs (with their callers' files); {} when none."""
        if not self.axes:
            return {}
        if self.shown is None:
            launch = self.run.result.launch
            grid = tuple(1 if f"gridDim.{axis}" in self.axes else size for axis, size in zip("xyz", launch.grid))
            self.shown = _shown(self.run, replace(launch, grid=grid), self.detectors, self.deadline) or ShownKeys()
        return {} if _shows(self.shown, finding) else self.axes


class _Rows:
    """Of a launch Simulee made up (no launch site or user gave it: SYNTHETIC), which
    races need threads or blocks that differ only along y or z where no address of the
    kernel depends on that axis (blockDim.y > 1 while no address reads threadIdx.y or
    blockDim.y): the same launch with one thread (block) along those axes does not show
    them. A kernel that indexes its memory by x alone is written for one row: more rows
    would redo its work at the same places, which no host code shows it is launched for."""

    def __init__(self, run: LaunchRun, detectors, deadline: float, rules: Contract):
        launch = run.result.launch
        self.run, self.detectors, self.deadline = run, detectors, deadline
        read = set().union(*(source.dims for source in rules.sources.values()))
        self.axes = tuple(f"{what}.{axis}" for what, sizes in (("blockDim", launch.block), ("gridDim", launch.grid))
                          for axis, size in zip("yz", sizes[1:]) if size > 1 and f"{what}.{axis}" not in read) \
            if (launch.origin or "default") in SYNTHETIC else ()
        self.shown: set | None = None

    def needs(self, finding: Finding) -> list[str]:
        """The axes (blockDim.y, gridDim.z, ...) `finding` needs more than one of; [] when none."""
        if not self.axes or finding.type not in RACES:
            return []
        if self.shown is None:
            launch = self.run.result.launch
            flat = lambda what, sizes: tuple(1 if f"{what}.{axis}" in self.axes else n for axis, n in zip("xyz", sizes))
            self.shown = _shown(self.run, replace(launch, grid=flat("gridDim", launch.grid),
                                block=flat("blockDim", launch.block)), self.detectors, self.deadline) or set()
        return [] if _shown_as(finding) in self.shown else list(self.axes)


class _Widths:
    """Of a launch Simulee made up (SYNTHETIC), which races need a launch wider along x
    than the kernel's code is written for: the same launch within that width does not show
    them. No host code says it is launched wider. The widths its code implies:
    - a constant stride of the race's addresses (evolve.taint.thread_strides:
      `a[blockIdx.x * 256 + threadIdx.x]` with blocks of 1,024 threads, the thread past 255
      of one row at the next row's first place): at most that many threads along x (over
      the grid, where the thread's x index counts blockIdx.x too);
    - blocks as columns of a block-wide row (evolve.taint.block_strides: `a[threadIdx.x *
      blockDim.x + blockIdx.x]`): at most blockDim.x blocks along x;
    - a kernel that synchronizes with `__syncwarp` and never with a block's barrier (nor the
      grid's): one warp per block, for a race between the warps of a block."""

    def __init__(self, run: LaunchRun, detectors, deadline: float):
        from evolve.taint import block_strides, thread_strides

        launch = run.result.launch
        self.run, self.detectors, self.deadline = run, detectors, deadline
        synthetic = (launch.origin or "default") in SYNTHETIC
        self.strides = thread_strides(run.program, run.kernel) if synthetic else {}
        self.columns = block_strides(run.program, run.kernel) if synthetic else {}
        self.warp_only = synthetic and _warp_synchronized_only(run.program, run.kernel)
        self.shown: dict[tuple, set] = {}  # (grid, block) -> the keys that launch shows

    def needs(self, finding: Finding) -> str:
        """What width `finding` needs more than (the doubt it rests on); "" when none."""
        if finding.type not in RACES:
            return ""
        launch = self.run.result.launch
        strides = [self.strides[op] for op in finding.ops if op in self.strides]
        if strides:
            stride = min(strides, key=lambda found: found.size)
            global_x = any(found.global_x for found in strides)
            block_x = min(launch.block[0], stride.size)
            grid_x = max(1, min(launch.grid[0], stride.size // block_x)) if global_x else launch.grid[0]
            extent = "gridDim.x·blockDim.x" if global_x else "blockDim.x"
            if self._gone(finding, (grid_x, *launch.grid[1:]), (block_x, *launch.block[1:])):
                return (f"only when {extent} > {stride.size}, on a launch Simulee chose: the addresses step by "
                        f"{stride.size} at line {stride.line} (a row stride), so the kernel is written for at most "
                        f"{stride.size} threads along x{UNLAUNCHED}")
        columns = [self.columns[op] for op in finding.ops if op in self.columns]
        if columns and self._gone(finding, (min(launch.grid[0], launch.block[0]), *launch.grid[1:]), launch.block):
            return (f"only when gridDim.x > blockDim.x, on a launch Simulee chose: the addresses step by blockDim.x "
                    f"with threadIdx.x at line {columns[0]} and add blockIdx.x, so the kernel is written for at most "
                    f"blockDim.x blocks along x{UNLAUNCHED}")
        if self.warp_only and finding.scope == "inter-warp" and int(np.prod(launch.block)) > WARP:
            x = min(launch.block[0], WARP)
            y = min(launch.block[1], WARP // x)
            if self._gone(finding, launch.grid, (x, y, min(launch.block[2], WARP // (x * y)))):
                return (f"only when a block has more than {WARP} threads, on a launch Simulee chose: the kernel "
                        f"synchronizes with __syncwarp alone, never with __syncthreads, so it is written for one warp "
                        f"per block{UNLAUNCHED}")
        return ""

    def _gone(self, finding: Finding, grid: tuple, block: tuple) -> bool:
        """Whether the launch narrowed to `grid` and `block` does not show `finding`."""
        launch = self.run.result.launch
        if (tuple(grid), tuple(block)) == (tuple(launch.grid), tuple(launch.block)):
            return False
        if (grid, block) not in self.shown:
            within = replace(launch, grid=tuple(grid), block=tuple(block))
            self.shown[(grid, block)] = _shown(self.run, within, self.detectors, self.deadline) or set()
        return _shown_as(finding) not in self.shown[(grid, block)]


UNLAUNCHED = "; no host code launches it: state its launch (--block, --grid or simulee.toml) if it runs with more"
WARP = 32


def _warp_synchronized_only(program: Program, kernel: KernelInfo) -> bool:
    """Whether the kernel (with what it calls) waits at `__syncwarp` and at no barrier of
    its block or grid."""
    callees = {op.extra.get("callee") or "" for function in program.reachable_functions(kernel.symbol)
               for op in function.ops if op.opcode == "call"}
    block = any(callee.startswith(("llvm.nvvm.barrier", "llvm.nvvm.bar.sync", "__simulee_grid_sync"))
                and not callee.startswith("llvm.nvvm.barrier.cta.arrive") for callee in callees)
    return "llvm.nvvm.bar.warp.sync" in callees and not block


def invented(finding: Finding, result: Result) -> list[str]:
    """What Simulee invented for the launch (Result.labels) that `finding` depends on: the
    content of buffers, tables of pointers and device variables its addresses, branches or
    loop bounds were computed from (interpreter.taint). Empty when it holds whatever they
    hold."""
    labels = result.labels
    return [labels[bit] for bit in range(len(labels)) if finding.taint >> bit & 1]


def _doubt(finding: Finding, launch: Launch, made_up: list[str], guessed: str = "",
           hidden: dict[str, tuple[str, ...]] | None = None, rows: list[str] = (), narrower: str = "") -> str:
    """What guess of Simulee's the launch showing `finding` rests on for it ('' when none):
    two pointers made one buffer by the search; a grid along y or z that callers Simulee
    could not read pass (`hidden`, _Flat); values Simulee chose for what a launch site
    computes from host values it cannot evaluate (`guessed`: _Replays' doubt); or memory content Simulee made
    up (`made_up`, invented): the program's own data has invariants Simulee does not see
    (an index array that is a permutation, offsets that are a scan, counts never 0); or,
    on a launch no host code or user gave, more than one thread or block along an axis
    the race's addresses ignore (`rows`, _Rows), or a launch wider than its code is written
    for (`narrower`, _Widths)."""
    if searched_alias(launch):
        pairs = ", ".join(f"{name}=={value.target}" for name, value in launch.args.items() if isinstance(value, Alias))
        return (f"only when {pairs}: an in-place call, which no launch site or user makes; mark the pointers "
                "__restrict__ if the kernel never gets one")
    if hidden:
        shown = ", ".join(f"{name}={_guessed_value(launch, name)}" for name in hidden)
        files = sorted({file for found in hidden.values() for file in found})
        return (f"only for a launch shape Simulee chose ({shown}): the host code that launches the kernel "
                f"({', '.join(files[:3])}{', ...' if len(files) > 3 else ''}) could not be read; make it compile "
                "(-I its include folders) or state the launch in simulee.toml")
    if guessed:
        return guessed
    if rows:
        shown = " and ".join(f"{name} > 1" for name in rows)
        index = ", ".join(("threadIdx." if name.startswith("block") else "blockIdx.") + name[-1] for name in rows)
        return (f"only when {shown}, on a launch Simulee chose: no address of the kernel depends on {index}, so it is "
                "written for one row there (threads that differ only in it do the same work); no host code launches "
                "it: state its launch (--block, --grid or simulee.toml) if it runs with more")
    if narrower:
        return narrower
    returned = [label for label in made_up if label.startswith("what ") and label.endswith(" returns")]
    if returned and len(returned) == len(made_up):  # calls of functions declared and never defined
        names = ", ".join(label.removeprefix("what ").removesuffix(" returns") for label in returned[:6])
        return (f"only for some values of {', '.join(returned[:6])}: the program declares {names} and never "
                "defines it, and Simulee made up what it returns; compile the file that defines it with this one")
    unfilled = [label for label in made_up if label.startswith(("the members of ", "the pointers in "))]
    if unfilled and len(unfilled) == len(made_up):  # of a struct passed by value
        return (f"only for some values of {', '.join(unfilled[:6])}: a struct passed by value whose members Simulee "
                "could not fill in (a function pointer, a union: it left them zero, or pointing at a buffer of its "
                "own); run the program with simulee exec")
    if made_up:
        what = ", ".join(made_up[:6]) + (", ..." if len(made_up) > 6 else "")
        one = len(made_up) == 1
        return (f"only for some contents of {what}: Simulee made up what {'it holds' if one else 'they hold'} "
                f"({CONTENTS.get(launch.fill, launch.fill)}); state {'it' if one else 'them'} in simulee.toml, "
                "or run the program with simulee exec")
    return ""


def _guessed_value(launch: Launch, name: str):
    """The value a launch gives a guessed scalar or dimension (gridDim.x, blockDim.y)."""
    what, _, axis = name.partition(".")
    if what in ("gridDim", "blockDim") and axis in ("x", "y", "z"):
        return (launch.grid if what == "gridDim" else launch.block)["xyz".index(axis)]
    return launch.args.get(name, "?")


CONTENTS = {"zeros": "zeros", "small": "small random integers", "wide": "random values of the whole range",
            "distinct": "distinct values", "sorted": "sorted values", "identity": "each element its index"}


def _again(run: LaunchRun, found: list[Finding], detectors, deadline: float) -> set[tuple]:
    """The keys of the findings among `found` that depend on what Simulee invented but show
    the same instance (the same threads at the same places) again on other contents: then
    they hold whatever it is, as `out[atomicAdd(count, t)] = t` makes threads 0 and 1 meet
    whatever `count` holds. The other contents are two that make no two threads meet by
    chance (_other_contents): a content that makes many meet (small values, zeros) would
    show again many instances that need it. Only buffers and device variables of numbers
    get them: a permutation of structs or pointers means nothing (a struct's identity fill
    repeats what its members' meanings forbid)."""
    arrays = {param.name for param in run.kernel.params if param.kind == "pointer" and param.pointee_kind in ELEMENTS}
    arrays |= {name for name in run.program.host_written if _of_numbers(run.program.global_variable(name).type)}
    pending = {finding.key() for finding in found
               if finding.taint and finding.pairs and set(invented(finding, run.result)) <= arrays}
    launch = run.result.launch
    for fill, seed in _other_contents(launch) if pending else ():
        if not pending or time.perf_counter() >= deadline:
            return set()
        other = execute(run.program, run.kernel, replace(launch, fill=fill, seed=seed))
        if other.status in ("unsupported", "out-of-memory"):
            return set()
        again = replace(run, result=other)
        pending &= {key for detector in detectors
                    for key in detector.again(again, [f for f in found if f.key() in pending
                                                      and any(rule.id == f.type for rule in detector.rules)])}
    return pending


ELEMENTS = ("integer", "float", "enum", "bool")  # what a buffer the other contents are meant for holds: numbers


def _of_numbers(ty) -> bool:
    """Whether a device variable of type `ty` holds numbers only (a number, or an array of them)."""
    while isinstance(ty, ArrayType):
        ty = ty.element
    return isinstance(ty, (IntType, FloatType))


def _other_contents(launch: Launch) -> list[tuple[str, int]]:
    """(fill, seed) of two contents other than `launch`'s that put no two threads on one
    index by chance: a permutation (distinct values) and the identity, or two permutations."""
    other_seed = launch.seed + 7919
    if launch.fill == "identity":
        return [("distinct", other_seed), ("distinct", other_seed + 7919)]
    if launch.fill == "distinct":
        return [("distinct", other_seed), ("identity", launch.seed)]
    return [("distinct", launch.seed), ("identity", launch.seed)]


def _made_up_fault_note(finding: Finding, made_up: list[str]) -> str:
    what = {"null-pointer": "null", "bad-address": "no address of any buffer"}.get(finding.type,
                                                                                  finding.type.replace("-", " "))
    contents = [label for label in made_up if not label.startswith("what ")]
    sources = [f"what {', '.join(contents)} hold{'s' if len(contents) == 1 else ''}"] if contents else []
    sources += [label for label in made_up if label.startswith("what ")]  # what a function never defined returns
    return (f"at line {finding.line} an address computed from {' and '.join(sources)} "
            f"(content Simulee made up) is {what}: not reported, since a kernel trusts the indices and pointers its "
            "data holds")


def _past_limit_note(result: Result) -> str:
    """What a launch that reached past the bytes a buffer of no given size may grow to
    left unchecked."""
    ops = result.trace.ops
    lines = sorted({location.line for fault in result.events.faults if fault.kind == BUFFER_LIMIT
                    for location in [user_location(ops[fault.op].location) if 0 <= fault.op < len(ops) else None]
                    if location})
    where = f" (line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))})" if lines else ""
    return (f"launch {_launch_text(result.launch)} reaches past what Simulee gives a buffer of no given size "
            f"({result.launch.growth_limit >> 20:,} MiB, {POINTER_SLOTS:,} pointers in a table of them){where}: "
            "those accesses are not checked; state the arguments it is used with (--arg, simulee.toml)")


def _note_once(notes: list[str], note: str) -> None:
    if note not in notes:
        notes.append(note)


def conditional(finding: Finding, why: str) -> None:
    """Make `finding` a warning that rests on a guess, and say which."""
    if finding.severity == ERROR:
        finding.severity = WARNING
    finding.message += f" ({why})"
    finding.details["conditional"] = why


SEARCH_SHARE = 0.75  # of a kernel's time the search may take: a search of large launches that ran to the end
# left its findings' replays none (llm.c's softmax backward: a true race a warning, "not known" at another T)


def detection_launch(launch: Launch, deadline: float = float("inf")) -> tuple[Launch, str]:
    """`launch` as a check runs it (tracking what Simulee invented, interpreter.taint), and
    a note when that is not all of it: at most FULL_CHECK_THREADS threads (else
    SAMPLED_RUNS runs of consecutive blocks from its start to its end), stopped once its
    trace holds TRACE_LIMIT accesses, no time past `deadline`, keeping no copy of its
    buffers (detectors read the trace)."""
    options = dict(trace_limit=min(launch.trace_limit, TRACE_LIMIT), stop_when_traced=True, keep_buffers=False,
                   taint=True)
    if deadline < float("inf"):
        options["time_limit"] = min(launch.time_limit, max(deadline - time.perf_counter(), 0.0))
    if launch.threads <= FULL_CHECK_THREADS or launch.sample is not None:
        return replace(launch, **options), ""
    per_run = max(1, FULL_CHECK_THREADS // launch.threads_per_block // SAMPLED_RUNS)
    firsts = sorted({min(launch.blocks - per_run, (launch.blocks - per_run) * k // (SAMPLED_RUNS - 1))
                     for k in range(SAMPLED_RUNS)})
    sample = tuple(block for first in firsts for block in range(first, first + per_run))
    runs = ", ".join(f"{first:,}-{first + per_run - 1:,}" for first in firsts)
    note = (f"launch {_launch_text(launch)} has {launch.threads:,} threads, too many to check in full: checked "
            f"{len(sample):,} of its {launch.blocks:,} blocks (linear block indices {runs})")
    return replace(launch, sample=sample, **options), note


def _in_parts(program, kernel, result: Result, detectors, warp_model: str, deadline: float,
              progress=None, each=None) -> tuple[Result, PartedLaunch | None, tuple[int, ...] | None]:
    """A launch stopped once its trace was full, run again judged in parts (detect.parts)
    so that every access is checked: (its result, the PartedLaunch to finish, which calls
    `each` with every part, and None), when what a block of its finished waves (its
    started ones, if none finished) recorded says it makes at most CHECK_ACCESSES accesses.
    Past that, fewer blocks: when fewer of them fit a trace, (`result`, None, None) and the
    caller runs those whole (_fitting); when a block or two alone fill it, blocks making
    about CHECK_ACCESSES (one block at least, to its end) in parts, and the third item the
    blocks run. When the time runs out, (`result`, None, None). The result's launch is the
    one asked for: variants made of it are judged as a check judges them."""
    launch = result.launch
    if result.status != "trace-limit":
        return result, None, None
    fits = _recorded_per_block(result) * result.blocks_total <= CHECK_ACCESSES and \
        _measured_block(program, kernel, result) * result.blocks_total <= CHECK_ACCESSES
    per_block = _recorded_per_block(result)
    if fits:
        whole, parted = _run_in_parts(program, kernel, launch, detectors, warp_model, deadline, progress, each)
        if whole.status != "trace-limit":
            return (whole, parted, None) if whole.status != "time-limit" else (result, None, None)
        per_block = max(per_block, CHECK_ACCESSES / max(whole.blocks_run, 1))  # the blocks it started made that
    if _fitting(result) is not None:
        return result, None, None
    sample = _blocks_in_parts(launch, per_block)
    whole, parted = _run_in_parts(program, kernel, replace(launch, sample=sample), detectors, warp_model, deadline,
                                  progress, each, limited=len(sample) > 1)
    if whole.status == "trace-limit":  # its blocks made more than they seemed: the first alone, to its end
        sample = sample[:1]
        whole, parted = _run_in_parts(program, kernel, replace(launch, sample=sample), detectors, warp_model,
                                      deadline, progress, each, limited=False)
    if whole.status in ("trace-limit", "time-limit"):
        return result, None, None
    return whole, parted, sample


def _run_in_parts(program, kernel, launch: Launch, detectors, warp_model: str, deadline: float, progress, each,
                  limited: bool = True) -> tuple[Result, PartedLaunch]:
    """`launch` run with its trace judged part by part, stopped past CHECK_ACCESSES accesses
    when `limited` (else only by the time), and the detection to finish; the result's
    launch is `launch`."""
    parted = PartedLaunch(program, kernel, detectors, warp_model, each)
    left = max(deadline - time.perf_counter(), 0.0)
    flush_at = int(min(launch.flush_at, launch.trace_limit // 4))
    whole = execute(program, kernel, replace(launch, flush=parted.part, time_limit=min(launch.time_limit, left),
                                             flush_at=flush_at, split_at=2 * flush_at, stop_when_traced=False,
                                             access_limit=CHECK_ACCESSES if limited else float("inf")), progress)
    whole.launch = launch
    return whole, parted


def _blocks_in_parts(launch: Launch, per_block: float) -> tuple[int, ...]:
    """Of a launch whose blocks each make `per_block` accesses or more (about a trace), blocks
    that make about half CHECK_ACCESSES by that (one at least; half, since it may be more):
    up to SAMPLED_RUNS runs of them from its first to its last."""
    blocks = _blocks_of(launch)
    return _spread(blocks, min(len(blocks), max(1, int(CHECK_ACCESSES // max(per_block, 1.0)) // 2)))


def _blocks_of(launch: Launch) -> list[int]:
    """The blocks a launch runs: its sample's, or all."""
    return sorted(set(launch.sample)) if launch.sample is not None else list(range(launch.blocks))


def _spread(blocks: list[int], fit: int) -> tuple[int, ...]:
    """`fit` (or a few fewer) of `blocks`, in up to SAMPLED_RUNS runs of consecutive ones
    from the first to the last."""
    runs = min(SAMPLED_RUNS, fit)
    per_run = fit // runs
    starts = sorted({(len(blocks) - per_run) * k // max(runs - 1, 1) for k in range(runs)})
    return tuple(blocks[i] for start in starts for i in range(start, start + per_run))


CHECK_ACCESSES = 1 << 23  # accesses a check judges a launch on in parts (twice a trace); beyond, fewer blocks


def _measured_block(program, kernel, result: Result) -> float:
    """Accesses a block of a launch stopped once its trace was full records: as a block of
    its finished waves did; when none finished, as its first block does run alone, or what
    its started blocks recorded if that is more (they stopped part way: at least that),
    kept in `result.traced_per_block`. Else its first wave filling the trace would make a
    launch seem to fit the parts a check judges, and run up to their limit in vain."""
    if not result.traced_per_block and result.blocks_run > 1:
        launch = result.launch
        alone = execute(program, kernel, replace(launch, sample=(launch.sample[0] if launch.sample else 0,),
                                                 stop_when_traced=True))
        result.traced_per_block = max(_recorded_per_block(result), float(len(alone.trace)))
    return _recorded_per_block(result)


def _recorded_per_block(result: Result) -> float:
    """Accesses a block of a launch stopped once its trace was full records, as far as it
    tells: as a block of its finished waves did, else (none finished) at least what its
    started blocks recorded on average."""
    return result.traced_per_block or len(result.trace) / max(result.blocks_run, 1)


def _fitting(result: Result) -> Launch | None:
    """A launch stopped once its trace was full, on fewer blocks, up to SAMPLED_RUNS runs of
    them from its start to its end, whose trace fits by what a block of its finished waves
    recorded (by what its started blocks recorded if none finished: then a lower bound, so
    the launch it gives may be stopped again); None when that is not fewer blocks than it
    ran or one block alone fills the trace."""
    launch = result.launch
    if result.status != "trace-limit" or result.blocks_run == 0:
        return None
    fit = int(launch.trace_limit // max(_recorded_per_block(result), 1.0)) // 2
    blocks = _blocks_of(launch)
    if fit < 2 or fit >= len(blocks):
        return None
    return replace(launch, sample=_spread(blocks, fit))


def _runs(sample: tuple[int, ...]) -> str:
    """Runs of consecutive block indices, as 0-3, 60-63."""
    runs, first = [], None
    for index, block in enumerate(sample):
        if first is None:
            first = block
        if index + 1 == len(sample) or sample[index + 1] != block + 1:
            runs.append(f"{first:,}-{block:,}" if block != first else f"{block:,}")
            first = None
    return ", ".join(runs)


def _launch_text(launch: Launch) -> str:
    return f"grid ({','.join(map(str, launch.grid))}) block ({','.join(map(str, launch.block))})"


@dataclass(frozen=True)
class Settings:
    """How a kernel is checked, alike by `simulee check` and by a scan's workers: the input
    search (evolve.search), the options of every launch, the warp model and detectors."""

    population: int = 10
    generations: int = 10
    launches: int = 3  # the best distinct launches checked in full
    max_blocks: int = 32
    seed: int = 0
    warp_model: str = "independent"
    step_limit: int | None = None  # None: as the kernel's loops need (interpreter.loops)
    shared_bytes: int = 48 * 1024
    max_seconds: float = float("inf")  # for a kernel's search and checks together
    heap_bytes: int = DEFAULT_HEAP_BYTES
    launch_sites: bool = True  # check kernels under the launches the host code makes
    config: str = ""  # the simulee.toml that states contracts and suppressions (absolute path), if any
    detect: tuple[str, ...] = ()  # detectors run beside the default ones
    search: bool = True  # False: check the launch given, nothing else (--no-search)
    trace_limit: int = TRACE_LIMIT  # accesses a checked launch keeps in its trace
    target: int = 0  # the sm_XX the code must be right on (0: every GPU current toolkits support, sm_70 and up)
    seed_launches: dict = field(default_factory=dict)  # kernel symbol -> launches a program made (replay.seeds)
    prove: bool = True  # decide race freedom for every launch first (simulee.prover.verdicts; off: --no-prove)

    def launch_options(self) -> dict:
        """The Launch fields these settings give every launch."""
        return dict(shared_bytes=self.shared_bytes, step_limit=self.step_limit, seed=self.seed,
                    heap_bytes=self.heap_bytes, trace_limit=self.trace_limit)


def explore(program: Program, kernel: KernelInfo, base: Launch, fixed: set[str], options: Settings,
            progress=None, reads: tuple[str, ...] | None = None, sites: tuple = (), stated=None,
            searching: bool = True, checkpoint=None) -> KernelCheck:
    """Search launches of `kernel` around `base` (changing what `fixed` does not name:
    "grid", "block", parameter names), then check the best ones the search found and
    `base` itself in full. Without anything to search, check `base` alone. With launch
    `sites` (evolve.launchsite) of the kernel, and neither grid nor block fixed, the
    search varies only what the sites leave open, and each site's own launch (its inputs
    at their defaults) is checked first, instead of `base`. `reads` are the index
    registers the kernel's own code reads (default: indices_read). With `stated` (what a
    simulee.toml states, SearchSpace.stating), every launch keeps it: `base` too, or it
    is not checked. Without `searching` (a kernel proved race-free for launches on distinct
    buffers), the sites' launches or `base` are checked alone, unless a site passes one
    buffer as two pointers, or they find a barrier redundant (which the launches the
    search finds may need) or access nothing (a vacuous check). The check's seconds count
    the search too; both together stop at options.max_seconds, the search at SEARCH_SHARE
    of it (checking what it found, and the replays that judge each finding, need the
    rest). `progress(text)` is told what is being done, `checkpoint` what a check stopped
    now would report (check_kernel)."""
    from evolve.constants import compared_constants
    from evolve.space import FILL, SEARCHED_FILLS, SearchSpace, alias_pairs
    from evolve.taint import pointer_accesses, relevant_parameters, row_span, stride_parameters

    start = time.perf_counter()
    deadline = start + options.max_seconds
    warp_model, detect = options.warp_model, options.detect
    reads = indices_read(program, kernel) if reads is None else reads
    relevant, constants = relevant_parameters(program, kernel), compared_constants(program, kernel)
    if sites and not {"grid", "block"} & fixed:
        space = SearchSpace.of_sites(kernel, base, relevant, fixed, list(sites), reads, constants)
    else:
        space = SearchSpace.of(kernel, base, relevant, fixed, options.max_blocks, reads, constants,
                               alias_pairs(kernel, pointer_accesses(program, kernel)))
    strides = stride_parameters(program, kernel)
    space = replace(space, strides=frozenset(strides), row_span=row_span(program, kernel, strides))
    host_written = "fill" not in fixed and program.reads_host_written(kernel.symbol)
    if host_written and FILL not in space.genes:
        space = replace(space, genes=(*space.genes, FILL))  # what the host wrote to device variables is made up
    base = space.padded(base)
    if stated is not None:
        space = space.stating(stated)
        base = _within(space, base)
    at_sites = space.site_launches(options.seed)
    if host_written:  # counts and limits the host wrote: each kind of content Simulee makes up
        at_sites = [replace(launch, fill=fill) for launch in at_sites for fill in SEARCHED_FILLS]
    searching = searching or any(isinstance(value, Alias) for launch in at_sites for value in launch.args.values())
    if not space.genes or not searching:
        check = check_kernel(program, kernel, at_sites if space.plans else [b for b in [base] if b], warp_model,
                             deadline=deadline, progress=progress, detect=detect, space=space, checkpoint=checkpoint)
        # what a proved kernel's few launches judge from too little (a barrier none needed, nothing accessed; a
        # fault of a launch Simulee chose, which may lie outside the kernel's contract) is judged, as any
        # kernel's, over the search's
        judged = (REDUNDANT_BARRIER, VACUOUS) + (() if space.plans else MEMORY_FAULTS)
        if not space.genes or not any(finding.type in judged for finding in check.findings):
            return check
    from evolve.search import search  # DEAP: only for a search

    found = search(program, space, options.population, options.generations, options.launches, options.seed,
                   progress, start + SEARCH_SHARE * options.max_seconds,
                   tuple(options.seed_launches.get(kernel.symbol, ())))
    searched = [replace(c.launch, origin=c.launch.origin if c.launch.origin and not _aliased(c.launch, fixed, space)
                        else "search") for c in found.best]  # an in-place call the search tried: its own
    fitness = [candidate.fitness for candidate in found.best]
    if host_written:  # and each launch found under every other kind of content too
        kinds = {_identity(launch) for launch in searched}
        for launch in list(searched):
            for fill in SEARCHED_FILLS:
                if _identity(replace(launch, fill=fill)) not in kinds:
                    kinds.add(_identity(replace(launch, fill=fill)))
                    searched.append(replace(launch, fill=fill))
                    fitness.append(None)
    for launch in list(searched):  # each aliased launch beside its twin on separate buffers
        twin = replace(launch, args={n: v for n, v in launch.args.items() if not isinstance(v, Alias)})
        if searched_alias(launch) and _identity(twin) not in map(_identity, searched):
            searched.append(twin)
            fitness.append(None)
    # with launch sites every launch checked is one of theirs: the default launch may contradict them
    launches, fitness = (at_sites + searched, [None] * len(at_sites) + fitness) if space.plans or base is None \
        else (searched + [base], fitness + [None])
    check = check_kernel(program, kernel, launches, warp_model, found.contract, fitness, deadline, progress, detect,
                         space, checkpoint)
    best = found.history[-1]["launch"] if found.history else {}
    if not launches and check.status == NOT_CHECKED and "invalid" in best:  # why the best genome made none
        check.error = f"not checked: no launch could be made: {best['invalid']}"
    check.search = search_summary(space, found, options)
    check.seconds = time.perf_counter() - start
    return check


def check_given(program: Program, kernel: KernelInfo, given: Given, settings: Settings, contract=None,
                sites: tuple = (), progress=None, search: bool = True, checkpoint=None) -> KernelCheck:
    """Check a kernel as `simulee check` and a scan's workers do: on the exact launches
    `given` (or, with settings.search off, the one launch it describes), else by the input
    search around what it gives and within what `contract` (simulee.checker.config.KernelContract,
    less what `given` gives) states, under the launch `sites` unless a grid or block is
    given. `progress(text)` is told what is being done, `checkpoint` what a check stopped
    now would report (check_kernel). With settings.target a GPU before sm_70, whose warps
    run in lockstep, a warp-synchronous race is a warning. Without `search` (a kernel
    proved race-free), the launches the sites make, or the default one, are checked alone
    (explore)."""
    targeted = checkpoint and (lambda partial: checkpoint(_for_target(partial, settings.target)))
    return _for_target(_checked_given(program, kernel, given, settings, contract, sites, progress, search, targeted),
                       settings.target)


def _for_target(check: KernelCheck, target: int) -> KernelCheck:
    """The check, its warp-synchronous races warnings when `target` is a GPU before sm_70."""
    if 0 < target < INDEPENDENT_SCHEDULING:
        for finding in check.findings:
            if finding.type == WARP_SYNCHRONOUS:
                finding.severity = WARNING
    return check


def _checked_given(program: Program, kernel: KernelInfo, given: Given, settings: Settings, contract,
                   sites: tuple, progress, search: bool, checkpoint) -> KernelCheck:
    reads = indices_read(program, kernel)
    deadline = time.perf_counter() + settings.max_seconds
    options = settings.launch_options()
    if given.fill == "wide":
        from evolve.constants import compared_constants

        options["dictionary"] = compared_constants(program, kernel)
    given = given.over(Given(args=stated_values(program.function(kernel.symbol), kernel.params)))
    launches = given.launches_of(kernel, reads, **options)
    if given.launches or not settings.search:
        if contract:
            launches = [contract.with_buffers(launch, kernel.params) for launch in launches]
        return check_kernel(program, kernel, launches, settings.warp_model, deadline=deadline, progress=progress,
                            detect=settings.detect, checkpoint=checkpoint)
    fixed = given.fixed() | ({b.name for b in contract.buffers} if contract else set())
    return explore(program, kernel, launches[0], fixed, settings, progress, reads, sites, stated=contract or None,
                   searching=search, checkpoint=checkpoint)


def _within(space, base: Launch) -> Launch | None:
    """`base` with the buffers the user states; None when it breaks what the user states."""
    from evolve.space import InvalidGenome

    try:
        return space.within_statement(base)
    except InvalidGenome:
        return None


def search_summary(space, found, options: Settings) -> dict:
    """The search as JSON: its settings, the parameters it varied (and where they flow),
    those it kept fixed, and each generation's best."""
    searched = {gene.name for gene in space.genes}
    return {"seed": options.seed, "population": options.population, "generations": len(found.history),
            "evaluations": found.evaluations, "stopped": found.stopped, "seconds": round(found.seconds, 3),
            "genes": [gene.name for gene in space.genes],
            "relevant": dict(space.relevant),
            "fixed": {p.name: space.base.args[p.name] for p in space.kernel.scalars()
                      if p.name in space.base.args and p.name not in searched},
            "host": host_values(space), "history": found.history}


def host_values(space) -> list[dict]:
    """Per launch site of the search, the kernel's scalars and the launch's dimensions its
    host code fixes (`given`: their constants, or "32|64" for the values of a constant table
    it indexes) and those it computes from what Simulee cannot see (`open`: searched within
    what the site computes of them)."""
    from evolve.launchsite import kernel_arguments

    scalars = {p.name for p in space.kernel.scalars()}
    sites = []
    for plan in space.plans:
        site, given, open_ = plan.site, {}, []
        expressions = [(f"{what}Dim.{axis}", e) for what in ("grid", "block")
                       for axis, e in zip("xyz", getattr(site, what))]
        expressions += [(name, e) for name, e in (kernel_arguments(space.kernel.params, site) or {}).items()
                        if name.partition(".")[0] in scalars]
        for name, expression in expressions:
            values = [v for v in _tabled(site, expression) if v >= 1 or "Dim." not in name]  # no launch has 0
            if expression[0] == "const":
                given[name] = expression[1]
            elif values:
                given[name] = "|".join(map(str, values))
            else:
                open_.append(name)
        sites.append({"site": site.label, "given": given, "open": open_})
    return sites


def _tabled(site, expression: list) -> list:
    """The values of a site's expression over the host tables its inputs are elements of
    (each combination of them, up to 64), or [] when some input is not one."""
    from evolve.launchsite import Unknown, evaluate, inputs_of

    used = sorted(inputs_of(expression))
    if not used or any(not site.inputs[i].choices for i in used) or \
            math.prod(len(site.inputs[i].choices) for i in used) > 64:
        return []
    inputs = [0] * len(site.inputs)
    values = set()
    for combination in itertools.product(*(site.inputs[i].choices for i in used)):
        for index, value in zip(used, combination):
            inputs[index] = value
        try:
            values.add(evaluate(expression, inputs))
        except (Unknown, TypeError, ValueError):
            return []
    return sorted(values)


def _assumption(bound) -> dict:
    location = user_location(bound.location)
    return {"bound": bound.text(), "file": display(location.file) if location else None,
            "line": location.line if location else None}


def searched_alias(launch: Launch) -> bool:
    """Whether a launch makes two pointer parameters one buffer because the search tried
    it, not because a launch site or the user says so."""
    return launch.origin == "search" and any(isinstance(v, Alias) for v in launch.args.values())


def _aliased(launch: Launch, fixed: set[str], space) -> bool:
    """Whether a launch makes two pointer parameters one buffer that `fixed` leaves open and
    that its launch site does not pass as one (`reduce<<<b, t>>>(d_out, d_out, n)`)."""
    passed = dict(space.plans[launch.site_inputs[0]].aliases) if launch.site_inputs and space.plans else {}
    return any(isinstance(value, Alias) and name not in fixed and passed.get(name) != value.target
               for name, value in launch.args.items())


def _identity(launch: Launch) -> tuple:
    return launch.grid, launch.block, launch.fill, tuple(sorted((name, repr(v)) for name, v in launch.args.items()))


def _outside_note(outside) -> str:
    location = user_location(outside.location)
    where = f"at line {location.line}" if location else "somewhere"
    return f"{where} {outside.why}: the kernel is not written for that, and such launches were not checked"
