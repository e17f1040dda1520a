"""Two versions of a kernel on the same inputs: do they compute the same?

Both kernels run on one launch: the same grid and block, the same scalar arguments and
byte-identical input buffers (those given, --buffer, else drawn); then every buffer either
may write is compared. Parameters
are matched by position, or by name through `mapping` (old name -> new name). A buffer's
contents are drawn as a paged buffer of the old kernel's would be (interpreter.contents:
the launch's fill and seed), sized to what either version touches (a first run of each on
paged buffers finds it). Floating-point elements compare bit-exact unless `rtol`/`atol`
allow what reassociation changes. A launch on which either version races (or faults, or
does not finish) proves nothing about equivalence: it is reported as such, never as
equal.

`compare` judges one launch; `search` looks for a launch that shows a difference
(evolve.difference over the old kernel's search space), then `equivalence` is the verdict
over the launches tried.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np

from interpreter.contents import Fill
from interpreter.launch import Launch, Result
from interpreter.limits import TRACE_LIMIT
from interpreter.loader import KernelInfo, Program
from interpreter.placement import element_dtype
from interpreter.simt import execute
from interpreter.trace import ATOMIC, WRITE, coordinates
from simulee.errors import SimuleeError
from simulee.frontend.compiler import user_location
from simulee.model.findings import display

EQUIVALENCE_WORK_LIMIT = 2_000_000  # thread-instructions per run of a searched launch (more: not compared)
SLACK_ELEMENTS = 64  # a buffer holds this many elements past what either version touched


@dataclass
class Pair:
    """The two kernels and how the new one's parameters answer the old one's."""

    old_program: Program
    old: KernelInfo
    new_program: Program
    new: KernelInfo
    names: dict[str, str]  # old parameter name -> new parameter name (every parameter)

    @classmethod
    def of(cls, old_program: Program, old: KernelInfo, new_program: Program, new: KernelInfo,
           mapping: dict[str, str] | None = None) -> Pair:
        """Parameters matched by position, then by `mapping`; an error when their counts or
        kinds differ, or a name is not a parameter."""
        mapping = dict(mapping or {})
        old_names, new_names = [p.name for p in old.params], [p.name for p in new.params]
        for old_name, new_name in mapping.items():
            if old_name not in old_names:
                raise SimuleeError(f"--map {old_name}={new_name}: {old.name} has no parameter '{old_name}'")
            if new_name not in new_names:
                raise SimuleeError(f"--map {old_name}={new_name}: {new.name} has no parameter '{new_name}'")
        if len(old_names) != len(new_names):
            raise SimuleeError(f"{old.name} takes {len(old_names)} parameters and {new.name} {len(new_names)}: "
                               "versions of a kernel take the same arguments")
        rest = [name for name in new_names if name not in mapping.values()]
        names = {name: mapping[name] if name in mapping else rest.pop(0) for name in old_names}
        for old_name, new_name in names.items():
            a, b = _param(old, old_name), _param(new, new_name)
            if a.kind != b.kind or (a.kind in ("integer", "float") and a.bits != b.bits):
                raise SimuleeError(f"parameter {old_name} of {old.name} ({a.c_type or a.ir_type}) and {new_name} of "
                                   f"{new.name} ({b.c_type or b.ir_type}) differ in kind (use --map OLD=NEW)")
        return cls(old_program, old, new_program, new, names)

    def new_args(self, args: dict) -> dict:
        """`args` by the new kernel's names (a struct member "dim.rows" under its parameter's)."""
        renamed = {}
        for name, value in args.items():
            head, dot, member = name.partition(".")
            renamed[self.names.get(head, head) + dot + member] = value
        return renamed


@dataclass
class Version:
    """What one version did on a launch: its run, and why it proves nothing (a race, a
    fault, a run that did not finish), if so."""

    result: Result
    problem: str = ""
    stopped: bool = False  # by a limit (steps, work, time, memory): it says nothing of the kernel


@dataclass
class Difference:
    """The first differing element of the first buffer that differs."""

    buffer: str  # the old kernel's parameter name
    index: int
    old_value: object
    new_value: object
    count: int  # elements of that buffer that differ
    elements: int  # elements compared
    writers: tuple[str, str]  # for each version, who last wrote the element (or that nobody did)
    buffers: int = 1  # buffers that differ

    def to_json(self) -> dict:
        return {"buffer": self.buffer, "index": self.index, "old": _plain(self.old_value),
                "new": _plain(self.new_value), "differing": self.count, "elements": self.elements,
                "buffers": self.buffers, "old_writer": self.writers[0], "new_writer": self.writers[1]}


@dataclass
class Comparison:
    """One launch run by both versions: `difference` (None when every output is equal),
    `behaviour` when one version races or faults and the other does not (they differ), or
    `problem` when both do or either stopped at a limit (the launch proves nothing)."""

    launch: Launch
    difference: Difference | None = None
    problem: str = ""
    behaviour: str = ""  # one version races or faults where the other does not
    differing_bytes: int = 0
    conflict: float = 1.0  # the old run's conflict density (evolve.fitness F: lower is denser)

    @property
    def differs(self) -> bool:
        return self.difference is not None or bool(self.behaviour)


@dataclass
class Verdict:
    """differ (a launch shows it), equivalent (on the launches compared, at least one),
    proved-equivalent (and for every launch: `proof`), or not-compared (every launch made
    both versions race, fault or stop)."""

    verdict: str
    comparisons: list[Comparison] = field(default_factory=list)
    seconds: float = 0.0
    proof: object = None  # prover.equivalence.EquivalenceProof, when one was tried

    @property
    def difference(self) -> Comparison | None:
        return next((c for c in self.comparisons if c.differs), None)

    @property
    def compared(self) -> int:
        return sum(1 for c in self.comparisons if not c.problem)


def compare(pair: Pair, launch: Launch, rtol: float = 0.0, atol: float = 0.0, warp_model: str = "independent",
            races: bool = True, old_may_fail: bool = False) -> Comparison:
    """Run both versions on `launch` (the old kernel's names; its pointers' buffers are made
    here) and compare every buffer. With `old_may_fail` (a fix judged against the racy
    original), a launch the old version races or faults on is not compared."""
    sizes = _sizes(pair, launch)
    given = _given(launch.args, pair.old)
    buffers = {name: given[name].copy() if name in given else _initial(_param(pair.old, name), launch, index,
                                                                       sizes[name])
               for index, name in enumerate(p.name for p in pair.old.params) if name in sizes}
    old_launch = replace(launch, args={**_scalars(launch.args, pair.old), **{k: v.copy() for k, v in buffers.items()}},
                         trace=True, keep_buffers=True)
    new_launch = replace(launch, args={**pair.new_args(_scalars(launch.args, pair.old)),
                                       **{pair.names[k]: v.copy() for k, v in buffers.items()}},
                         trace=True, keep_buffers=True)
    old = _run(pair.old_program, pair.old, old_launch, warp_model, races)
    new = _run(pair.new_program, pair.new, new_launch, warp_model, races)
    conflict = _conflict(old.result)
    said = [f"{kernel.name} ({side}) {version.problem}" for side, kernel, version
            in (("old", pair.old, old), ("new", pair.new, new)) if version.problem]
    if len(said) == 2 or old.stopped or new.stopped or (old_may_fail and old.problem):  # proves nothing
        return Comparison(launch, problem="; ".join(said), conflict=conflict)
    if said:  # one version races or faults where the other does not: they do not compute the same
        return Comparison(launch, behaviour=said[0], differing_bytes=1, conflict=conflict)
    differing, first, bytes_ = [], None, 0
    for name in buffers:
        a, b = old.result.buffers[name], new.result.buffers[pair.names[name]]
        unequal = _unequal(a, b, rtol, atol)
        if unequal.any():
            differing.append(name)
            bytes_ += int(np.count_nonzero(a.view(np.uint8) != b.view(np.uint8))) or int(unequal.sum())
            if first is None:
                index = int(np.flatnonzero(unequal)[0])
                writers = (_last_writer(old.result, name, index * a.itemsize, pair.old_program),
                           _last_writer(new.result, pair.names[name], index * b.itemsize, pair.new_program))
                first = Difference(name, index, a[index], b[index], int(unequal.sum()), a.size, writers)
    if first is not None:
        first.buffers = len(differing)
    return Comparison(launch, first, differing_bytes=bytes_, conflict=conflict)


def _sizes(pair: Pair, launch: Launch) -> dict[str, int]:
    """Elements per pointer parameter (old name): what either version touches of it when it
    runs on paged buffers, and SLACK_ELEMENTS more."""
    scalars = _scalars(launch.args, pair.old)
    given = _given(launch.args, pair.old)
    copies = lambda: {name: value.copy() for name, value in given.items()}  # noqa: E731  (each run writes its own)
    probes = [execute(pair.old_program, pair.old, replace(launch, args={**scalars, **copies()}, trace=False,
                                                          keep_buffers=True)),
              execute(pair.new_program, pair.new, replace(launch, args=pair.new_args({**scalars, **copies()}),
                                                          trace=False, keep_buffers=True))]
    sizes = {}
    for param in pair.old.params:
        if param.kind != "pointer":
            continue
        dtype = element_dtype(param) or np.dtype("<u4")
        touched = [probe.buffers.get(name) for probe, name in zip(probes, (param.name, pair.names[param.name]))]
        nbytes = max((len(b.view(np.uint8)) for b in touched if b is not None), default=0)
        sizes[param.name] = -(-nbytes // dtype.itemsize) + SLACK_ELEMENTS
    return sizes


def _initial(param, launch: Launch, index: int, count: int) -> np.ndarray:
    """What a paged buffer of `param` holds before it is written (interpreter.contents)."""
    dtype = element_dtype(param) or np.dtype("<u4")
    if launch.fill == "zeros":
        return np.zeros(count, dtype=dtype)
    fill = Fill(launch.fill, launch.seed * 1000 + index, dtype.str, launch.dictionary)
    return np.ascontiguousarray(fill.values(np.arange(count, dtype=np.int64))).view(dtype)[:count].copy()


def _param(kernel: KernelInfo, name: str):
    return next(param for param in kernel.params if param.name == name)


def _given(args: dict, kernel: KernelInfo) -> dict:
    """The buffers given (--buffer): NumPy arrays of pointer parameters, by name."""
    pointers = {p.name for p in kernel.params if p.kind == "pointer"}
    return {name: value for name, value in args.items() if name in pointers and isinstance(value, np.ndarray)}


def _scalars(args: dict, kernel: KernelInfo) -> dict:
    """The arguments that are not buffers (pointers get the buffers compare makes)."""
    pointers = {p.name for p in kernel.params if p.kind == "pointer"}
    return {name: value for name, value in args.items() if name.partition(".")[0] not in pointers}


def _run(program: Program, kernel: KernelInfo, launch: Launch, warp_model: str, races: bool) -> Version:
    """A version's run, and what makes it prove nothing: a race, a fault, an early stop."""
    from simulee.detect.base import LaunchRun
    from simulee.detect.faults import Faults
    from simulee.detect.race import Races

    # a trace a check would not hold is not compared either (its race check would not fit in memory)
    result = execute(program, kernel, replace(launch, trace_limit=min(launch.trace_limit, TRACE_LIMIT),
                                              stop_when_traced=True))
    if result.status != "ok":
        return Version(result, f"did not finish ({result.status}: {result.message})", stopped=True)
    run = LaunchRun(program, kernel, result, warp_model)
    faults = [f for f in Faults().launch(run) if f.severity == "error"]
    if faults:
        return Version(result, f"faults: {faults[0].message} at line {faults[0].line}")
    if races:
        found = [f for f in Races().launch(run) if f.severity == "error"]
        if found:
            return Version(result, f"races: {found[0].message} (line {found[0].line}): its outputs depend on the "
                                   "schedule")
    return Version(result)


def _unequal(a: np.ndarray, b: np.ndarray, rtol: float, atol: float) -> np.ndarray:
    """Which elements differ: bit for bit, or beyond rtol/atol for floats."""
    if a.dtype.kind == "f" and (rtol or atol):
        with np.errstate(invalid="ignore", over="ignore"):
            close = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
        return ~close
    return (a.view(np.uint8).reshape(a.size, a.itemsize) != b.view(np.uint8).reshape(b.size, b.itemsize)).any(axis=1)


def _last_writer(result: Result, name: str, offset: int, program: Program) -> str:
    """Who last wrote the byte at `offset` of buffer `name`: the thread and source line."""
    trace = result.trace
    try:
        region = result.regions.index(name)
    except ValueError:
        return "not written"
    rows = np.flatnonzero((trace["region"] == region) & np.isin(trace["kind"], (WRITE, ATOMIC))
                          & (trace["offset"] <= offset) & (offset < trace["offset"] + trace["size"]))
    if not len(rows):
        return "not written (its initial value)"
    row = rows[np.argmax(trace["step"][rows])]
    block = tuple(int(v) for v in coordinates([trace["block"][row]], result.launch.grid)[0])
    thread = tuple(int(v) for v in coordinates([trace["thread"][row]], result.launch.block)[0])
    op = int(trace["op"][row])
    where = user_location(trace.ops[op].location) if 0 <= op < len(trace.ops) else None
    line = f" at {display(where.file)}:{where.line}" if where else ""
    return f"thread ({','.join(map(str, thread))}) of block ({','.join(map(str, block))}){line}"


def _conflict(result: Result) -> float:
    from evolve.fitness import measure

    return measure(result.trace).F if len(result.trace) else 1.0


def _plain(value):
    return value.item() if hasattr(value, "item") else value


def equivalence(pair: Pair, launches: list[Launch], rtol: float = 0.0, atol: float = 0.0,
                warp_model: str = "independent", search_space=None, population: int = 8, generations: int = 6,
                seed: int = 0, deadline: float = float("inf"), progress=None, old_may_fail: bool = False) -> Verdict:
    """Compare the versions on `launches`; then, with a `search_space` (evolve.space.SearchSpace
    of the old kernel), search for a launch that tells them apart. `differ` as soon as one
    does; else `equivalent` over the launches compared (none racing or faulting)."""
    start = time.perf_counter()
    verdict = Verdict("equivalent")
    seen = set()

    def judge(launch: Launch) -> Comparison:
        key = _key(launch)
        if key in seen:
            return next(c for c in verdict.comparisons if _key(c.launch) == key)
        seen.add(key)
        if progress:
            progress(f"launch {len(seen)}")
        comparison = compare(pair, launch, rtol, atol, warp_model, old_may_fail=old_may_fail)
        verdict.comparisons.append(comparison)
        return comparison

    for launch in launches:
        if judge(launch).differs:
            break
    if search_space is not None and verdict.difference is None:
        from evolve.difference import search_difference
        from evolve.space import InvalidGenome

        def score(values: list) -> tuple[float, float]:
            try:
                launch = search_space.launch(values, seed=seed, work_limit=EQUIVALENCE_WORK_LIMIT)
            except (InvalidGenome, ValueError):
                return -1.0, -1.0
            comparison = judge(launch)
            return float(comparison.differing_bytes), -comparison.conflict

        search_difference(search_space, score, population, generations, seed, deadline)
    verdict.verdict = "differ" if verdict.difference is not None else "equivalent" if verdict.compared else \
        "not-compared"
    verdict.seconds = time.perf_counter() - start
    return verdict


def _key(launch: Launch) -> tuple:
    return (launch.grid, launch.block, tuple(sorted((k, str(v)) for k, v in launch.args.items())), launch.fill)


# ---------------------------------------------------------------------------- a barrier removed

REMOVAL_LAUNCHES = 4  # launches a redundant barrier's removal is compared on, at most
REMOVAL_THREADS = 1 << 16  # larger launches are not among them (each runs four times)


def without_barrier(program: Program, site: tuple[str, int]) -> Program:
    """`program` with the barrier call at `site` (function, instruction index) taken out,
    as if its source line were deleted: every path through it goes on without waiting."""
    import copy

    name, index = site
    function = program.function(name)
    ops = list(function.ops)
    ops[index] = replace(ops[index], args=(), arg_types=(), extra={**ops[index].extra, "callee": "llvm.donothing"})
    changed = copy.copy(program)
    changed._functions = {**program._functions, name: replace(function, ops=ops, analyses={})}
    changed.executions = {}
    return changed


@dataclass
class Removal:
    """A redundant barrier's removal compared with the kernel as written: on `launches`
    launches the outputs were the same, or `difference` says how one differs."""

    launches: int
    difference: str = ""


def removal(program: Program, kernel: KernelInfo, site: tuple[str, int], launches: list[Launch],
            warp_model: str = "independent", deadline: float = float("inf")) -> Removal:
    """Run the kernel without the barrier at `site` beside the kernel as written on the
    (small enough) `launches`, and compare every output."""
    pair = Pair(program, kernel, without_barrier(program, site), kernel, {p.name: p.name for p in kernel.params})
    compared = 0
    for launch in [launch for launch in launches if launch.threads <= REMOVAL_THREADS][:REMOVAL_LAUNCHES]:
        if time.perf_counter() >= deadline:
            break
        comparison = compare(pair, replace(launch, work_limit=EQUIVALENCE_WORK_LIMIT), warp_model=warp_model)
        if comparison.behaviour:
            return Removal(compared, comparison.behaviour.replace(f"{kernel.name} (new)", "without it, the kernel"))
        if comparison.difference is not None:
            d = comparison.difference
            return Removal(compared, f"without it, {d.buffer}[{d.index}] is {_plain(d.new_value)} instead of "
                                     f"{_plain(d.old_value)} ({d.count} element{'s' if d.count != 1 else ''} differ)")
        compared += 0 if comparison.problem else 1
    return Removal(compared)
