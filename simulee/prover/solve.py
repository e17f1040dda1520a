"""Two arbitrary threads, one solver: is there a launch and two distinct threads whose
accesses conflict in the same barrier interval (same block), or anywhere in the kernel
(different blocks, global memory), or that disagree on the next barrier?

A kernel is `proved` when every such question is unsatisfiable and every walk was exact
enough (model.Walk.unknown empty); `race` when one is satisfiable (with the solver's
launch and threads: `Candidate`); `unknown` when a question timed out or the model could
not follow the kernel. Assumptions every verdict rests on are listed in it.
"""

from __future__ import annotations

import itertools
import os
import time
from dataclasses import dataclass

import z3

from interpreter.loader import KernelInfo, Program
from interpreter.vocabulary import BLOCK_SCOPE
from simulee.prover.model import AXES, Kernel, Launch, Thread, Walk, Walker
from simulee.prover.proof import INTERNAL_ERROR, Access, Candidate, End, Fixed, Proof
from simulee.prover.sites import one_buffer as sites_one_buffer
from simulee.prover.sites import relation_facts, site_facts

QUERY_MILLISECONDS = 5000  # per question to the solver: past it, unknown
MAX_RACES = 8  # races a proof lists at most
MAX_SINGLE = 8  # pairs asked one by one when the question of them all ran out of time
ASSUMPTIONS = ("CUDA's launch limits (at most 1024 threads a block; 1024 x 1024 x 64 per axis; grid within "
               "2^31-1 x 65535 x 65535)",
               "at most 2^(31-k) blocks of 2^k threads or more along each axis of the grid (fewer than 2^32 threads: "
               "blockIdx * blockDim + threadIdx fits 32 bits)",
               "distinct pointer parameters point to buffers that do not overlap",
               "buffers are large enough for every access (out-of-bounds is check's question)")
LOCKSTEP = ("warps run in lockstep (--warp-model lockstep, before Volta): lanes of a warp that run an instruction "
            "together are ordered with what either does at another (reconverging where branches rejoin)")


@dataclass
class Effort:
    """What a proof may ask of the solver in z3's resource units (its rlimit: the same
    count on any machine under any load, so the same kernel gets the same verdict): per
    question, and what is left of its total."""

    per_question: int
    left: int
    spent: int = 0  # z3's count of units its context spent so far (it counts on; a limit is on top of it)

    def start(self) -> None:
        """Count from here (z3's default context as it now is)."""
        self.spent = self._count(z3.SolverFor("QF_BV"))

    def spend(self, solver) -> None:
        count = self._count(solver)
        self.left -= count - self.spent
        self.spent = count

    @staticmethod
    def _count(solver) -> int:
        if not solver.statistics().keys():
            solver.check()  # a solver that checked nothing reports nothing
        statistics = solver.statistics()
        return int(statistics.get_key_value("rlimit count")) if "rlimit count" in statistics.keys() else 0


def facts(fixed: Fixed, info: KernelInfo, launch: Launch, function) -> tuple[list, list[str]]:
    """What `fixed` states of `launch` of kernel `info` (its function decoded) as the
    solver's facts, and each as the assumption a proof lists."""
    slots = dict(zip((p.name for p in info.params), (launch.params.get(slot) for slot in function.params)))
    slots.update(_members(info))
    facts, stated = site_facts(fixed.sites, launch, info.params, slots)
    if fixed.launches:
        facts.append(z3.Or([_exactly(launch, slots, *given) for given in fixed.launches]))
        stated.append("the launches given: " + ", ".join(f"grid {grid} block {block}"
                                                         for grid, block, _ in fixed.launches))
    if fixed.grid:
        facts += [d == v for d, v in zip(launch.nctaid, fixed.grid)]
        stated.append(f"the grid given: {fixed.grid}")
    if fixed.block:
        facts += [d == v for d, v in zip(launch.ntid, fixed.block)]
        stated.append(f"the block given: {fixed.block}")
    signed = {p.name: p.signed is not False for p in info.params}
    signed.update({f.name: f.signed is not False for p in info.params for f in p.fields})
    for name, value in fixed.args.items():
        symbol = slots.get(name)
        if symbol is not None and z3.is_bv(symbol) and isinstance(value, int):
            facts.append(symbol == value % (1 << symbol.size()))
            stated.append(f"{name} = {value}")
    for name, (low, high) in fixed.ranges.items():
        symbol = slots.get(name)
        if symbol is not None and z3.is_bv(symbol) and float(low).is_integer() and float(high).is_integer():
            at_least, at_most = (symbol >= int(low), symbol <= int(high)) if signed[name] else \
                (z3.UGE(symbol, max(int(low), 0)), z3.ULE(symbol, int(high)))
            facts += [at_least, at_most]
            stated.append(f"{int(low)} <= {name} <= {int(high)} (simulee.toml)")
    integers = {name: slot for name, slot in slots.items() if slot is not None and z3.is_bv(slot)}
    held, said = relation_facts(fixed.relations, launch, integers, signed)
    facts += held
    stated += said
    for name, values in fixed.choices.items():
        symbol = slots.get(name)
        if symbol is not None and z3.is_bv(symbol) and all(isinstance(v, int) for v in values):
            facts.append(z3.Or([symbol == v % (1 << symbol.size()) for v in values]))
            stated.append(f"{name} in {{{', '.join(map(str, values))}}} (simulee.toml)")
    return facts, stated


def _exactly(launch: Launch, slots: dict, grid, block, args: dict) -> z3.BoolRef:
    """That the launch is this one: its dimensions (those it gives) and its integer arguments."""
    dims = [*(tuple(grid or (None,) * 3) + (1, 1))[:3], *(tuple(block or (None,) * 3) + (1, 1))[:3]]
    facts = [d == v for d, v in zip(launch.nctaid + launch.ntid, dims) if isinstance(v, int)]
    facts += [slots[name] == value % (1 << slots[name].size()) for name, value in args.items()
              if isinstance(value, int) and not isinstance(value, bool) and slots.get(name) is not None
              and z3.is_bv(slots[name])]
    return z3.And(facts)


def _members(info: KernelInfo) -> dict:
    """The integer members of structs passed by value, by name ("param.member"), as the
    model names what a thread loads of them (model.Walker.loaded)."""
    return {member.name: z3.BitVec(f"arg{index}+{member.offset}:{member.bits}", member.bits)
            for index, param in enumerate(info.params) for member in param.fields
            if member.kind == "integer" and member.bits}


def prove_kernel(program: Program, info: KernelInfo, milliseconds: int = QUERY_MILLISECONDS,
                 given: "Fixed | None" = None, deadline: float = float("inf"), effort: Effort | None = None,
                 races: int = MAX_RACES, quick: bool = False, warp_model: str = "independent") -> Proof:
    """Decide `info`'s kernel for every launch (with what `given` fixes of it); past
    `deadline` (a time.perf_counter()), or once `effort` is spent, no question is asked
    and the verdict is unknown. At most `races` races are looked for. `quick`: the first
    walk the model cannot follow exactly ends the proof (unknown: no proof can come of it,
    only the races it could still find are lost), and site pairs are not asked one by one
    when the question of them all ran out of time. `warp_model` as check's: lockstep warps
    order what their lanes do at different instructions (DESIGN.md, "Bug semantics").
    Whatever the prover raises makes the verdict unknown, with the error as its reason
    (SIMULEE_DEBUG raises it): a failed proof costs the check nothing else."""
    start = time.perf_counter()
    try:
        return _prove_kernel(program, info, milliseconds, given, deadline, effort, races, quick, warp_model)
    except Exception as error:
        if os.environ.get("SIMULEE_DEBUG"):
            raise
        return Proof(info.name, info.file, info.line, "unknown", reason=prover_failure(error),
                     assumptions=list(ASSUMPTIONS), seconds=time.perf_counter() - start,
                     params=tuple(p.name for p in info.params))


def prover_failure(error: Exception) -> str:
    """The reason a proof is unknown when the prover raised `error` (an internal error)."""
    return f"{INTERNAL_ERROR}: {type(error).__name__}: {error}"


def _prove_kernel(program: Program, info: KernelInfo, milliseconds: int, given: "Fixed | None", deadline: float,
                  effort: Effort | None, races: int, quick: bool, warp_model: str) -> Proof:
    start = time.perf_counter()
    _fresh_context()
    if effort is not None:
        effort.start()
    proof = Proof(info.name, info.file, info.line, "proved", assumptions=list(ASSUMPTIONS),
                  params=tuple(p.name for p in info.params))
    kernel = Kernel(program, info.symbol)
    launch = Launch.of(kernel.function)
    given = given or Fixed()
    in_place = _one_buffer(info, launch, kernel.function, given.sites)
    fixed, stated = facts(given, info, launch, kernel.function)
    stated += in_place
    shape, unread = unread_axes(set(info.builtins), launch, given)
    common = launch.limits() + shape + fixed
    proof.assumptions += unread + stated + ([LOCKSTEP] if warp_model == "lockstep" else [])
    if fixed and _Questions(common, milliseconds, deadline, effort).ask() != z3.sat:  # nothing is proved of no launch
        proof.verdict, proof.reason = "unknown", "no launch satisfies the assumptions (the launch given?)"
        proof.seconds = time.perf_counter() - start
        return proof
    unknown: list[str] = []
    assumed: list[str] = []
    timed_out = False
    # threads of one block, one barrier interval at a time; then of two blocks, global memory, from one grid
    # barrier to the next (the whole kernel when it has none)
    intervals = [(True, where) for where in [None, *kernel.barriers]] + \
        [(False, where) for where in [None, *kernel.grid_syncs]]
    for same_block, where in intervals:
        if len(proof.candidates) >= races:
            break
        if time.perf_counter() >= deadline:
            timed_out = True
            break
        one, two = Thread(1, launch), Thread(2, launch)
        first = Walker(kernel, launch, one, where, through_barriers=not same_block, deadline=deadline).run()
        second = Walker(kernel, launch, two, where, through_barriers=not same_block, deadline=deadline).run()
        unknown += first.unknown + second.unknown
        assumed += first.assumed + second.assumed
        proof.ordering += [what for what in first.ordering if what not in proof.ordering]
        if unknown and quick:
            break
        distinct = [z3.And([a == b for a, b in zip(one.ctaid, two.ctaid)]),
                    z3.Or([a != b for a, b in zip(one.tid, two.tid)])] if same_block else \
            [z3.Or([a != b for a, b in zip(one.ctaid, two.ctaid)])]
        solver = _Questions(common + one.facts + two.facts + first.facts + second.facts + distinct
                            + _index_lemmas(launch, one, two, first, second), milliseconds, deadline, effort)
        solver.singles = not quick
        if same_block:
            unordered = _lockstep(kernel, launch, one, two, first, second) if warp_model == "lockstep" else None
            timed_out |= _take(proof, _conflicts(solver, first, second, ("shared", "global", "any"), "same block",
                                                 launch, one, two, unordered), races)
            timed_out |= _take(proof, _divergence(solver, first, second, "same block", launch, one, two, kernel),
                               races)
        else:
            timed_out |= _take(proof, _conflicts(solver, first, second, ("global", "any"), "different blocks",
                                                 launch, one, two), races)
            if kernel.grid_syncs:  # threads of a cooperative grid that reach different grid barriers
                timed_out |= _take(proof, _divergence(solver, first, second, "different blocks", launch, one, two,
                                                      kernel), races)
    proof.assumptions += list(dict.fromkeys(assumed))
    if proof.candidates:
        proof.verdict = "race"
    elif unknown or timed_out:
        proof.verdict, proof.spent = "unknown", timed_out and not unknown
        proof.reason = "; ".join(dict.fromkeys(unknown + (["the solver ran out of time"] if timed_out else [])))
    proof.seconds = time.perf_counter() - start
    return proof


def _one_buffer(info: KernelInfo, launch: Launch, function, sites: tuple) -> list[str]:
    """Make each pointer parameter a launch site passes the same buffer as an earlier one
    that buffer (the base object of the earlier one), so that their accesses may conflict;
    the assumptions as the user reads them."""
    slot_of = {p.name: slot for p, slot in zip(info.params, function.params)}
    stated = []
    for name, target, label in sites_one_buffer(sites, info):
        launch.params[slot_of[name]] = launch.params[slot_of[target]]
        stated.append(f"{name} and {target} may be one buffer (the launch at {label} passes the same one as both)")
    return list(dict.fromkeys(stated))


def _fresh_context() -> None:
    """Make z3's default context a new one: the terms an earlier proof of the process made
    change the order the solver meets the variables in, and so the model it gives (the
    launch a check's search starts from), which must not depend on the kernels before."""
    z3.z3._main_ctx = None


def _take(proof: Proof, found, races: int) -> bool:
    """Add the candidates `found` yields to `proof`, up to `races` in all (the verdict needs
    one; a few show where); whether a question ran out of time."""
    timed_out = False
    for candidate in found:
        if len(proof.candidates) >= races:
            break
        if candidate == "unknown":
            timed_out = True
        elif candidate not in proof.candidates:
            proof.candidates.append(candidate)
    return timed_out


def unread_axes(reads: set[str], launch: Launch, given) -> tuple[list, list[str]]:
    """A block or grid axis the kernel reads no index or size of (`reads`: the index
    registers it reads) is 1 long (a 1-D kernel launched with 2-D blocks would run each of
    its threads' work several times; a kernel that reads no block index does a block's
    work, once, as check launches it), unless what is `given` says the dimension (a launch
    site that passes more: the host's launch is what it is): the constraints, and the
    assumptions as the user reads them."""
    facts, stated = [], []
    if given.launches:  # they say every dimension
        return facts, stated
    for number, axis in enumerate(AXES):
        # a grid of one row along x only where nothing else gives the grid (a launch site's may have more)
        if axis == "x" and (given.grid or given.sites):
            continue
        if axis != "x" and not given.block and not _passed(given.sites, "block", number) and \
                not {f"tid.{axis}", f"ntid.{axis}"} & reads:
            facts.append(launch.ntid[number] == 1)
            stated.append(f"blockDim.{axis} = 1 (the kernel reads neither threadIdx.{axis} nor blockDim.{axis})")
        if not given.grid and not _passed(given.sites, "grid", number) and \
                not {f"ctaid.{axis}", f"nctaid.{axis}"} & reads:
            facts.append(launch.nctaid[number] == 1)
            stated.append(f"gridDim.{axis} = 1 (the kernel reads neither blockIdx.{axis} nor gridDim.{axis})")
    return facts, stated


def _passed(sites: tuple, what: str, number: int) -> bool:
    """Whether a launch site passes a constant other than 1 along axis `number` of its
    `what` (grid or block)."""
    return any(getattr(site, what)[number][0] == "const" and getattr(site, what)[number][1] != 1 for site in sites)


def _index_lemmas(launch: Launch, one: Thread, two: Thread, *walks: Walk) -> list:
    """What a bit-blasting solver cannot see for itself about global thread indices:
    blockIdx * blockDim + threadIdx of two threads is equal only when both indices are
    (threadIdx < blockDim, and the launch limits keep the sum from wrapping). Stated for
    the products the walks compute, in the operand orders they compute them."""
    present = _subterms(access.offset for walk in walks for access in walk.accesses)  # where equal indices matter
    lemmas = []
    for axis in range(3):
        n = launch.ntid[axis]
        c1, c2, t1, t2 = one.ctaid[axis], two.ctaid[axis], one.tid[axis], two.tid[axis]
        for p1, p2 in ((c1 * n, c2 * n), (n * c1, n * c2)):
            if p1.get_id() not in present and p2.get_id() not in present:
                continue
            for s1, s2 in ((p1 + t1, p2 + t2), (t1 + p1, t2 + p2)):
                lemmas.append(z3.Implies(s1 == s2, z3.And(c1 == c2, t1 == t2)))
    # a counter that starts below its step (a grid-stride loop: blockIdx * blockDim + threadIdx, step the
    # grid's thread count) takes one thread's values only: equal values mean equal starts and iterations
    first, second = walks
    for a in first.inductions:
        for b in second.inductions:
            if a.slot == b.slot:
                below = z3.And(a.start >= 0, a.start < a.step, b.start >= 0, b.start < b.step, a.step == b.step)
                lemmas.append(z3.Implies(z3.And(below, a.value == b.value), z3.And(a.start == b.start, a.k == b.k)))
    return lemmas


def _subterms(expressions) -> set[int]:
    seen, pending = set(), list(expressions)
    while pending:
        expression = pending.pop()
        if expression.get_id() in seen:
            continue
        seen.add(expression.get_id())
        pending.extend(expression.children())
    return seen


def _new_solver():
    """z3's SMT core after simplification: it bit-blasts lazily, about four times faster on
    these questions than the eager bit-blasting of its QF_BV solver."""
    return z3.Then("simplify", "solve-eqs", "smt").solver()


class _Questions:
    """Questions asked on top of common facts, each to a solver of its own: z3's solver
    after a push is its incremental one, which bit-vector multiplication defeats."""

    def __init__(self, facts: list, milliseconds: int, deadline: float = float("inf"), effort: Effort | None = None):
        self.facts, self.milliseconds, self.deadline, self.effort = facts, milliseconds, deadline, effort
        self.model = None
        self.singles = True  # whether what the question of all pairs could not decide is asked pair by pair

    def ask(self, *question, small: list = (), apart: list = ()) -> z3.CheckSatResult:
        """Whether the facts and `question` can hold (the model kept); when they can, a
        model within `small` too is preferred (a witness launch small enough to run), and
        within `apart` as well before it (threads of different warps: a race on any GPU)."""
        outcome = self._check(*question)
        if outcome == z3.sat and small:
            model = self.model
            for preferred in ([*small, *apart], small) if apart else (small,):
                if self._check(*question, *preferred) == z3.sat:
                    return outcome
            self.model = model
        return outcome

    def _check(self, *question) -> z3.CheckSatResult:
        self.model = None
        left = self.deadline - time.perf_counter()
        if left <= 0 or (self.effort is not None and self.effort.left <= 0):
            return z3.unknown
        solver = _new_solver()
        solver.set("timeout", int(min(self.milliseconds, left * 1000)))
        if self.effort is not None:
            solver.set("rlimit", min(self.effort.per_question, self.effort.left))
        solver.add(*self.facts, *question)
        outcome = solver.check()
        if self.effort is not None:
            self.effort.spend(solver)
        self.model = solver.model() if outcome == z3.sat else None
        return outcome


def _conflicts(solver: _Questions, first: Walk, second: Walk, spaces: tuple, scope: str, launch: Launch,
               one: Thread, two: Thread, unordered=None):
    """A Candidate per pair of access sites that can conflict (one per site pair), or
    "unknown" for a question the solver could not answer in time. All pairs are asked at
    once (one question proves them all); a model names the pairs it satisfies, which are
    reported and left out of the next question. `unordered(a, b)`: when two accesses are
    not ordered by the warp they run in (always, when None)."""
    pairs = {}  # (pc, pc) of the two sites -> [(a, b, conflict), ...]
    apart = _apart(launch, one, two, scope)
    for number, (a, b) in enumerate(itertools.product(first.accesses, second.accesses)):
        if number % 1024 == 1023 and time.perf_counter() > solver.deadline:  # more pairs than there is time for
            yield "unknown"
            return
        if a.space in spaces and b.space in spaces and _may_conflict(a, b, scope):
            key = (a.pc, b.pc) if (b.pc, a.pc) not in pairs else (b.pc, a.pc)
            unordered_here = unordered(a, b) if unordered else z3.BoolVal(True)
            pairs.setdefault(key, []).append((a, b, z3.And(a.condition, b.condition, _overlap(a, b),
                                                           unordered_here)))
    while pairs:
        outcome = solver.ask(z3.Or([c for group in pairs.values() for _, _, c in group]))
        if outcome == z3.unsat:
            return
        if outcome == z3.unknown:  # one question each, so that what can be decided is
            yield from _one_by_one(solver, pairs, scope, launch, one, two) if solver.singles else ["unknown"]
            return
        met = [(key, a, b, c) for key, group in pairs.items() for a, b, c in group
               if z3.is_true(solver.model.eval(c, model_completion=True))]
        if not met:  # cannot happen with a model of the disjunction; never loop on it
            yield from _one_by_one(solver, pairs, scope, launch, one, two)
            return
        key, a, b, conflict = met[0]
        model = solver.model
        if solver.ask(conflict, small=_small(launch), apart=apart) == z3.sat:  # a small launch shows this pair
            model = solver.model
        yield _candidate(_race_kind(a, b, scope), a, b, scope, model, launch, one, two)
        del pairs[key]


def _one_by_one(solver: _Questions, pairs: dict, scope: str, launch: Launch, one: Thread, two: Thread):
    """The site pairs asked one at a time (at most MAX_SINGLE questions: what the question of
    them all could not decide in time, its parts seldom do)."""
    asked = 0
    for group in pairs.values():
        for a, b, conflict in group:
            asked += 1
            if asked > MAX_SINGLE:
                yield "unknown"
                return
            outcome = solver.ask(conflict, small=_small(launch), apart=_apart(launch, one, two, scope))
            if outcome == z3.sat:
                yield _candidate(_race_kind(a, b, scope), a, b, scope, solver.model, launch, one, two)
                break
            if outcome == z3.unknown:
                yield "unknown"
                break


def _race_kind(a: Access, b: Access, scope: str) -> str:
    return "scoped-race" if _scoped(a, b, scope) else "data-race"


def _warp(launch: Launch, thread: Thread) -> z3.BitVecRef:
    """The warp of `thread` within its block (at most 1024 threads a block: no wrap)."""
    x, y, z = thread.tid
    return z3.UDiv(x + launch.ntid[0] * (y + launch.ntid[1] * z), 32)


def _apart(launch: Launch, one: Thread, two: Thread, scope: str) -> list:
    """Threads of a block in different warps (threads of different blocks always are)."""
    return [_warp(launch, one) != _warp(launch, two)] if scope == "same block" else []


def _lockstep(kernel: Kernel, launch: Launch, one: Thread, two: Thread, first: Walk, second: Walk):
    """When two accesses of a block's threads are unordered in lockstep warps: always for
    threads of different warps, for an atomic beside a plain access, and for two writes of
    one store; else only when neither thread ran the other's access together with it (they
    were on different sides of a branch). Together is known only at blocks the warp runs
    once with both lanes (Kernel.converged): elsewhere the pair stays unordered."""
    same_warp = _warp(launch, one) == _warp(launch, two)
    converged = kernel.converged()
    ran = [{}, {}]  # pc -> whether the thread ran it
    for runs, walk in zip(ran, (first, second)):
        for access in walk.accesses:
            runs.setdefault(access.pc, []).append(access.condition)

    def unordered(a: Access, b: Access) -> z3.BoolRef:
        if a.function or b.function:  # in a function called through a pointer: its blocks are not the kernel's
            return z3.BoolVal(True)
        blocks = [kernel.function.ops[x.pc].block for x in (a, b)]
        if a.pc == b.pc or bool(a.scope) != bool(b.scope) or not set(blocks) <= converged:
            return z3.BoolVal(True)
        together = z3.Or(*ran[1].get(a.pc, [z3.BoolVal(False)]), *ran[0].get(b.pc, [z3.BoolVal(False)]))
        return z3.Or(z3.Not(same_warp), z3.Not(together))
    return unordered


def _overlap(a: Access, b: Access) -> z3.BoolRef:
    """Whether the bytes of two accesses to one base overlap (any, when a base is unknown)."""
    if a.base is None or b.base is None:
        return z3.BoolVal(True)
    return z3.Or(z3.ULT(b.offset - a.offset, a.size), z3.ULT(a.offset - b.offset, b.size))


def _may_conflict(a: Access, b: Access, scope: str) -> bool:
    """Whether two accesses may conflict, as the dynamic detectors take it: two reads never;
    two atomics only between blocks, where an atomic of block scope orders nothing (a
    scoped race); an atomic and a plain access always."""
    if a.kind == "read" and b.kind == "read":
        return False
    if a.scope and b.scope and not _scoped(a, b, scope):
        return False
    if a.base is None or b.base is None:  # a pointer the model does not know: any memory
        return {a.space, b.space} <= {"global", "any"} or "any" in (a.space, b.space)
    return a.base == b.base


def _scoped(a: Access, b: Access, scope: str) -> bool:
    """Two atomics of threads of different blocks, one of block scope: nothing orders them."""
    return bool(a.scope and b.scope) and scope == "different blocks" and BLOCK_SCOPE in (a.scope, b.scope)


def _divergence(solver: _Questions, first: Walk, second: Walk, scope: str, launch: Launch, one: Thread, two: Thread,
                kernel: Kernel):
    """Two threads (of a block, or of a cooperative grid: `scope`) that reach different
    barriers (or one exits) next."""
    for end_a, conditions_a in first.ends.items():
        for end_b, conditions_b in second.ends.items():
            if end_a == end_b or (end_a == "exit" and end_b == "exit"):
                continue
            if str(end_b) < str(end_a):
                continue  # the same question with the threads named the other way
            outcome = solver.ask(z3.Or(conditions_a), z3.Or(conditions_b), small=_small(launch))
            if outcome == z3.sat:
                ends = [End("exit") if end == "exit" else End("barrier", kernel.line(end)) for end in (end_a, end_b)]
                yield _candidate("barrier-divergence", *ends, scope, solver.model, launch, one, two)
            elif outcome == z3.unknown:
                yield "unknown"


def _small(launch: Launch) -> list:
    """A launch small enough to run: at most 8 blocks along each axis and 256 threads a
    block along x, integer arguments below 2^16."""
    return [z3.ULE(d, 8) for d in launch.nctaid] + [z3.ULE(launch.ntid[0], 256)] + _small_arguments(launch)


def _small_arguments(launch: Launch) -> list:
    """Integer arguments below 2^16."""
    return [z3.ULT(v, 1 << 16) for v in launch.params.values() if z3.is_bv(v) and v.size() > 16
            and str(v).startswith("arg")]


def _candidate(kind, first, second, scope, model, launch: Launch, one: Thread, two: Thread) -> Candidate:
    def number(expression, default=0):
        value = model.eval(expression, model_completion=True)
        return value.as_long() if z3.is_bv_value(value) else default

    grid = tuple(number(d, 1) for d in launch.nctaid)
    block = tuple(number(d, 1) for d in launch.ntid)
    threads = tuple((tuple(number(i) for i in t.ctaid), tuple(number(i) for i in t.tid)) for t in (one, two))
    args = {}
    for slot, value in launch.params.items():
        if z3.is_bv(value):
            args[int(str(value).removeprefix("arg"))] = number(value)
    return Candidate(kind, first, second, scope, grid, block, threads, args)
