"""The evolutionary search for conflict-dense launches (the paper's Algorithm 1), on DEAP.

A population of genomes (launches) starts from the base launch and random ones. Every
generation each parent makes a Gaussian and a Cauchy child, and one that takes a constant
the kernel compares against (mutation.py); parents and children compete and the best
`population` survive ((mu + lambda) selection), ranked by fitness (F, then R). The search
stops after `generations` generations or once the best F is acceptable, or once the best
F has not improved for STAGNATION generations. Fitness runs execute a sample of blocks
(the first two and the last) on buffers of seeded random content within small limits.
When the block is fixed (by a launch site or the user), one that runs out of scheduler
steps runs again within ten times as many (one thread's serial loop over a size large
enough for two blocks of data needs them), up to SEARCH_LONG_RUNS times a search, and
ranks after launches of equal F that did not need them. A launch is invalid, and ranks
last, when it breaks the kernel's stated assumptions, faults or stops otherwise, or breaks
the launch contract learned from its faults (contract.py: a block too large for a
fixed-size array, or arguments that take an index the same in every thread past one). One
that ran out of steps or work, or would be too much work to check in full, is unmeasured:
it is checked only when no launch could be measured (a kernel whose every launch is a long
loop, as one whose assumption fixes a size)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np
from deap import base, creator, tools

from evolve.contract import Contract, content_buffers
from evolve.fitness import ACCEPTABLE, UNMEASURED, WEIGHTS, WORST, Fitness, measure
from evolve.mutation import cauchy_child, dictionary_child, gaussian_child, initial_steps
from evolve.space import SITE_GENE, InvalidGenome, SearchSpace
from evolve.taint import address_sources
from interpreter.launch import MAX_THREADS_PER_BLOCK, Alias, Launch, Result
from interpreter.limits import DETECTION_THREADS
from interpreter.loader import Program
from interpreter.simt import execute
from interpreter.vocabulary import Unsupported

SEARCH_STEP_LIMIT = 3_000  # scheduler steps per fitness run; most kernels need far fewer
SEARCH_LONG_STEP_LIMIT = 30_000  # a run that needs more is run again within this (a serial loop over n > 200)
SEARCH_LONG_RUNS = 16  # at most this many per search
PROBE_SIZE = 1024  # integer arguments of a contract probe are at least this
SEARCH_GROWTH_LIMIT = 1 << 24  # bytes a buffer may grow to in a fitness run
SEARCH_WORK_LIMIT = 500_000  # thread-instructions per fitness run
DETECTION_WORK_LIMIT = 5_000_000  # launches whose detection run would take more are not chosen
STAGNATION = 3  # generations without a better F: the search has converged

if not hasattr(creator, "LaunchFitness"):
    creator.create("LaunchFitness", base.Fitness, weights=WEIGHTS)
    creator.create("Genome", list, fitness=creator.LaunchFitness, steps=list)


@dataclass
class Candidate:
    """A launch the search ran, and its fitness."""

    launch: Launch
    fitness: Fitness


@dataclass
class SearchResult:
    """`best`: the launches to check in full (_Runs.choose). `history`: per generation the
    evaluations so far and the best genome. `stopped`: acceptable (F < 0.3), converged (no
    better F for STAGNATION generations), generations (all ran), time (the deadline
    passed) or unsupported (the kernel cannot be run: `message` says why)."""

    best: list[Candidate]
    contract: Contract
    history: list[dict] = field(default_factory=list)
    evaluations: int = 0
    seconds: float = 0.0
    stopped: str = "generations"
    message: str = ""


def search(program: Program, space: SearchSpace, population: int = 10, generations: int = 10, keep: int = 3,
           seed: int = 0, progress=None, deadline: float = float("inf"),
           seeds: tuple[Launch, ...] = ()) -> SearchResult:
    """Search `space` for launches of its kernel, starting from its sites' (or base)
    launch, `seeds` (launches a program made) and random ones; `progress(text)` is told
    each generation. The same seed gives the same result (unless the search runs out of
    time: it stops at `deadline`, a time.perf_counter())."""
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    runs = _Runs(program, space, seed, deadline)
    toolbox = base.Toolbox()
    toolbox.register("evaluate", runs.evaluate)
    toolbox.register("gaussian", gaussian_child, space.genes, rng=rng)
    toolbox.register("cauchy", cauchy_child, space.genes, rng=rng)
    toolbox.register("dictionary", dictionary_child, space.genes, dictionary=space.dictionary, rng=rng)
    toolbox.register("select", tools.selBest)

    starts = [space.initial(site) for site in range(max(len(space.plans), 1))]
    witnesses = []  # the genomes of the prover's races (seeds from the solver)
    programs = [launch for launch in seeds if launch.origin != "solver"]  # launches a program made
    for launch in seeds:
        try:
            starts.append(space.genome(launch))
        except (InvalidGenome, KeyError, ValueError):
            continue  # outside what the search may vary
        if launch.origin == "solver":
            witnesses.append(tuple(starts[-1]))
    genomes = starts + [space.random_genome(rng) for _ in range(max(population - len(starts), 0))]
    people = [_individual(values, initial_steps(space.genes, values)) for values in genomes]
    result = SearchResult([], runs.contract)
    try:
        _assess(toolbox, people)
        best, since = toolbox.select(people, 1)[0].fitness.values[0], 0  # the best F so far
        for generation in range(1, generations + 1):
            if best < ACCEPTABLE:
                result.stopped = "acceptable"
                break
            if since >= STAGNATION:
                result.stopped = "converged"
                break
            if time.perf_counter() >= deadline:
                result.stopped = "time"
                break
            children = []
            for parent in people:
                for make in (toolbox.gaussian, toolbox.cauchy, toolbox.dictionary):
                    made = make(list(parent), parent.steps)
                    if made is not None:
                        children.append(_individual(runs.within(space.repair(made[0])), made[1]))
            _assess(toolbox, children)
            _assess(toolbox, people)  # parents judged before the contract last tightened
            people = toolbox.select(people + children, population)
            result.history.append(_record(space, generation, len(runs.scores), people[0]))
            best, since = (people[0].fitness.values[0], 0) if people[0].fitness.values[0] < best else (best, since + 1)
            if progress:
                progress(f"generation {generation}/{generations}")
    except Unsupported as error:
        result.stopped, result.message = "unsupported", str(error)
    result.evaluations = len(runs.scores)
    result.best = [_made(candidate, programs) for candidate in runs.choose(keep, witnesses)]
    result.seconds = time.perf_counter() - start
    return result


class _Runs:
    """The launches the search ran: fitness and branch coverage per genome, and the
    launch contract learned from them."""

    def __init__(self, program: Program, space: SearchSpace, seed: int, deadline: float = float("inf")):
        self.program, self.space, self.seed, self.deadline = program, space, seed, deadline
        self.contract = Contract(sources=address_sources(program, space.kernel), open=frozenset(space.open_scalars()),
                                 buffers=content_buffers(space.kernel))
        # a block a launch site fixes is the block the code runs with: its faults are bugs, not a contract
        self.learns = not space.plans or any(e[0] != "const" for plan in space.plans for e in plan.site.block)
        self.settled: set[tuple[str, int]] = set()  # bounds a probe at the bound itself confirmed
        # fitness runs run again within SEARCH_LONG_STEP_LIMIT: only with a fixed block (only sizes
        # past it make a second block of data; a searched block makes one with fewer threads)
        self.long_runs = 0 if not any(g.name.startswith("block.") for g in space.genes) else SEARCH_LONG_RUNS
        self.scores: dict[tuple, Fitness] = {}
        self.behaviour: dict[tuple, frozenset] = {}

    def allows(self, values: list) -> bool:
        try:
            return self.contract.allows(self.space.launch(values).block)
        except InvalidGenome:
            return False

    def within(self, values: list) -> list:
        """`values` with each block axis a learned bound limits cut to that bound: a child
        past a fixed-size tile the search already knows of would only score worst."""
        limits = {bound.axis: bound.limit for bound in self.contract.bounds.values()}
        return [min(value, limits[gene.name[-1]]) if gene.name.startswith("block.") and gene.name[-1] in limits
                else value for gene, value in zip(self.space.genes, values)]

    def evaluate(self, values: list) -> tuple[float, float, float]:
        """DEAP's fitness values of a genome (WORST once the contract excludes it)."""
        key = tuple(values)
        if key not in self.scores:
            self.scores[key], self.behaviour[key] = self.run(values)
        if not self.allows(values):
            self.scores[key] = WORST
        return self.scores[key].values()

    def run(self, values: list) -> tuple[Fitness, frozenset]:
        """Fitness and coverage of a sampled run on random content."""
        if not self.allows(values):
            return WORST, frozenset()
        launch = self.fitness_run(values)
        result = self.execute(launch, values)
        long = result.status == "step-limit" and result.steps > result.step_limit < SEARCH_LONG_STEP_LIMIT and \
            self.long_runs < SEARCH_LONG_RUNS
        if long:
            self.long_runs += 1
            launch = self.fitness_run(values, SEARCH_LONG_STEP_LIMIT)  # a size the short budget cannot finish
            result = self.execute(launch, values)
        if not self.allows(values) or result.status not in ("ok", "step-limit") or \
                any(a.kind == "assume" for a in result.events.assertions) or self.contract.breaks(result):
            return WORST, frozenset()
        ran = len(set(launch.sample)) if launch.sample else launch.blocks
        checked = min(launch.blocks, max(1, DETECTION_THREADS // launch.threads_per_block))
        if result.status != "ok" or result.thread_instructions * checked / ran > DETECTION_WORK_LIMIT:
            return UNMEASURED, frozenset(result.events.coverage)  # too big to measure, or to check
        return replace(measure(result.trace), long=long), frozenset(result.events.coverage)

    def execute(self, launch: Launch, values: list) -> Result:
        """Run `launch` (of genome `values`), learn the contract from it, and settle any
        bound it changed."""
        result = execute(self.program, self.space.kernel, launch)
        if result.status == "unsupported":
            raise Unsupported(result.message)
        if self.learns and self.contract.learn(result):
            self.settle(values)
        return result

    def settle(self, values: list) -> None:
        """Check each new bound with a probe at the bound itself (the genome with that
        block axis at the limit and raised sizes, as probe): a fault there tightens it
        further. One launch's faults bound an axis by the loosest of them (contract.py),
        which a launch at that size confirms or refutes."""
        while True:
            pending = [b for b in self.contract.bounds.values() if (b.axis, b.limit) not in self.settled]
            if not pending:
                return
            bound = pending[0]
            self.settled.add((bound.axis, bound.limit))
            at_bound = self.at_limit(values, bound.axis)
            if at_bound is not None:
                self.contract.learn(execute(self.program, self.space.kernel, self.fitness_run(self.raised(at_bound))))

    def at_limit(self, values: list, axis: str) -> list | None:
        """`values` with block axis `axis` at its bound and the other block axes within
        theirs (and the block within 1,024 threads); None when the axis is not searched."""
        genes = self.space.genes
        names = [g.name for g in genes]
        if f"block.{axis}" not in names:
            return None
        probe = list(values)
        for index, gene in enumerate(genes):
            if gene.name.startswith("block.") and gene.name[-1] in self.contract.bounds:
                probe[index] = self.contract.bounds[gene.name[-1]].limit if gene.name[-1] == axis else \
                    min(probe[index], self.contract.bounds[gene.name[-1]].limit)
        if np.prod(self.space.launch(probe).block) > MAX_THREADS_PER_BLOCK:
            probe = [1 if g.name.startswith("block.") and g.name != f"block.{axis}" else v
                     for g, v in zip(genes, probe)]
        return probe

    def raised(self, values: list) -> list:
        """Every searched integer argument raised to at least PROBE_SIZE, so that size
        guards (i < n) let every thread reach its accesses."""
        return [max(v, PROBE_SIZE) if g.integer and not g.dimension and g.high >= PROBE_SIZE else v
                for g, v in zip(self.space.genes, values)]

    def probe(self, values: list) -> bool:
        """Run the genome with raised sizes and learn from its faults; True when it still
        keeps the contract. (A guard can hide an index past a fixed-size array for the
        small sizes the search favours.)"""
        raised = self.raised(values)
        if self.allows(raised):
            self.execute(self.fitness_run(raised), raised)
        return self.allows(values)

    def fitness_run(self, values: list, step_limit: int = SEARCH_STEP_LIMIT) -> Launch:
        """The genome's launch as the search runs it: the first two blocks and the last, on
        seeded random content, within the search's limits of steps, work and buffer growth."""
        launch = self.space.launch(values)
        steps = step_limit if launch.step_limit is None else min(launch.step_limit, step_limit)
        return self.space.launch(values, sample=(0, 1, launch.blocks - 1) if launch.blocks > 3 else None,
                                 step_limit=steps, work_limit=SEARCH_WORK_LIMIT, growth_limit=SEARCH_GROWTH_LIMIT,
                                 seed=self.seed, coverage=True, keep_buffers=False,
                                 time_limit=max(self.deadline - time.perf_counter(), 0.0))

    def choose(self, keep: int, witnesses: list = ()) -> list[Candidate]:
        """The launches to check in full: the `keep` best valid ones, the valid `witnesses`
        (genomes of the launches the prover found races on: a race the best launches show
        only within a warp may be one between warps there),
        then up to `keep` more that reach branch behaviour the chosen ones do not (an edge
        taken, a block or warp split), the most new behaviour first. Each is first
        confirmed by a probe."""
        ranked = sorted(((fitness, key) for key, fitness in self.scores.items() if fitness not in (WORST, UNMEASURED)),
                        key=lambda item: (item[0].rank(), item[1]))
        if not ranked:  # none could be measured: of those too big for it, the one reaching the most branches, alone
            widest = sorted((key for key, fitness in self.scores.items() if fitness == UNMEASURED),
                            key=lambda key: (-len(self.behaviour[key]), key))[:1]
            ranked, keep = [(UNMEASURED, key) for key in widest], 1
        chosen: list[tuple[Fitness, tuple]] = []

        def admit(fitness: Fitness, key: tuple) -> bool:
            if self.allows(list(key)) and self.probe(list(key)):
                chosen.append((fitness, key))
                return True
            self.behaviour[key] = frozenset()  # breaks the contract: never offered again
            return False

        for fitness, key in ranked:
            if len(chosen) == keep:
                break
            admit(fitness, key)
        for key in dict.fromkeys(witnesses):
            fitness = self.scores.get(key, WORST)
            if fitness != WORST and key not in {k for _, k in chosen}:
                admit(fitness, key)
        added = 0
        while added < keep:
            covered = frozenset().union(*(self.behaviour[key] for _, key in chosen))
            novel = [(len(self.behaviour[key] - covered), -order, fitness, key)
                     for order, (fitness, key) in enumerate(ranked) if self.behaviour[key] - covered]
            if not novel:
                break
            *_, fitness, key = max(novel, key=lambda item: item[:2])
            added += admit(fitness, key)
        return [Candidate(self.space.launch(list(key), seed=self.seed), fitness)
                for fitness, key in chosen if self.allows(list(key))]  # a later probe may have tightened it


def _made(candidate: Candidate, made: list[Launch]) -> Candidate:
    """`candidate`, marked as the launch a program made when it is one: its dimensions and
    numbers are then the program's, not values Simulee chose."""
    launch = candidate.launch
    if not any(seed.grid == launch.grid and seed.block == launch.block
               and all(launch.args.get(name) == value for name, value in seed.args.items()) for seed in made):
        return candidate
    return replace(candidate, launch=replace(launch, origin="a launch the program made", guessed=(), unread=()))


def _individual(values: list, steps: list[float]):
    person = creator.Genome(values)
    person.steps = steps
    return person


def _assess(toolbox, people: list) -> None:
    for person in people:
        person.fitness.values = toolbox.evaluate(list(person))


def _record(space: SearchSpace, generation: int, evaluations: int, best) -> dict:
    F, long, R = best.fitness.values
    return {"generation": generation, "evaluations": evaluations,
            "best": Fitness(F, R, bool(long)).to_json() if np.isfinite(F) else None,
            "launch": describe(space, list(best))}


def describe(space: SearchSpace, values: list) -> dict:
    """A genome as grid, block, the searched arguments (and site), and what the buffers
    hold."""
    try:
        launch = space.launch(values)
    except InvalidGenome as error:
        return {"invalid": str(error)}
    aliases = {name: value.target for name, value in launch.args.items() if isinstance(value, Alias)}
    return {"grid": list(launch.grid), "block": list(launch.block),
            "args": {g.name: v for g, v in zip(space.genes, values) if g.argument or g.name == SITE_GENE},
            "fill": launch.fill, **({"aliases": aliases} if aliases else {})}
