"""Two versions of a kernel equal for every launch: PUG_para's parameterized check on the
prover's model.

Both kernels are first proved race-free (solve.prove_kernel): their outputs are then
determined, and every byte a kernel leaves in a buffer is the one its last writer put
there. One thread of each version is walked from the entry to the end (model.Walker
through its barriers) keeping what the race proof drops: the value every store writes,
as a bit-vector over the thread's indices, the launch, the scalar arguments and what it
loaded. A load is a placeholder resolved when a thread is instantiated: from memory the
version does not write before it, what the memory held (a z3 array per pointer
parameter, shared by the versions; any value in shared memory); else the last write
before it that covers it (by the thread itself earlier in its barrier interval, or by a
thread of its block in an earlier one). Floating-point operations are uninterpreted
functions of their operands' bits (addition and multiplication commute; nothing else is
assumed of them).

A loop is walked once for an arbitrary iteration k of each thread, as the race proof walks
it, and k is made exact (_exact_iterations): it runs when the thread stayed in the loop
after every earlier iteration. A thread instance is then one thread in one iteration of
each loop; what it computes after a loop is the loop's last iteration's. A loop may store
to a buffer once, not read in its interval what it stores, and carry nothing but its
counters: the last write of a byte a loop leaves is then one of the (thread, iteration)
instances the solver may pick, with the value it stored. A loop holding a barrier is run
by a block as one (the race proof found no divergence): what it reads of memory it stores
to must be what one store of the same iteration, earlier in it, wrote (the writer is then
instantiated in the reader's iteration); what an earlier iteration left is not followed.

A writer is a chosen thread: either it does the write, or no thread does (a quantified
fact over the indices, solved by z3's UFBV engine; a loop's iteration is instantiated at
the iterations whose store starts nearest the byte instead). Where one store writes what
a load reads, a question of its own first asks whether every reader's bytes are written
(then the writer is simply the one that wrote them); where each version stores to a
buffer once, whether one writes a byte the other does not (first of the thread that
wrote it in the other version, without a quantifier), then whether the bytes both write
differ. Any launch, arguments and inputs the solver finds is a `differ` candidate for the
interpreter to replay (`replay`); none is `proved`.
"""

from __future__ import annotations

import itertools
import os
import re
import struct
import time
from dataclasses import dataclass, field, replace

import z3

from interpreter import irparse as ir
from interpreter.loops import Loop
from interpreter.types import FloatType, PointerType
from interpreter.vocabulary import barrier_kind
from simulee.prover.model import AXES, Kernel, Launch, Pointer, Thread, Walker, _UNSET, _width
from simulee.prover.proof import Fixed
from simulee.prover.solve import (ASSUMPTIONS, Effort, _fresh_context, _small, _small_arguments, prove_kernel,
                                  prover_failure, unread_axes)
from simulee.prover.solve import facts as solve_facts

QUERY_MILLISECONDS = 90000  # per question about an output buffer: past it, not proved (one takes 48 s on 2 cores)
OUT_OF_EFFORT = "the proof ran out of its effort (z3's units)"
MAX_INSTANCES = 400  # threads the encoding may instantiate (each read of written memory chooses its writers)
MAX_CHAIN = 24  # reads resolved within each other: a writer's value read from a writer's ... (else not modeled)
SAME_FLOATS = "a floating-point operation gives the same result on the same operands"
RACE_FREE = "both versions are race-free (proved for every launch)"
NO_OVERFLOW = ("no signed integer operation marked nsw overflows (nor nuw wraps) in either version: a launch where "
               "one does is undefined behaviour")
_UNDEFINED = ("quotient#", "shifted#")  # a division by zero's, an oversized shift's: undefined behaviour
_FLOAT_BINARY = ("fadd", "fsub", "fmul", "fdiv", "frem")
_FLOAT_CASTS = ("fptosi", "fptoui", "sitofp", "uitofp", "fptrunc", "fpext")


class NotModeled(Exception):
    """What the equivalence model cannot express of a kernel."""


@dataclass
class EquivalenceProof:
    """proved (no launch, arguments or inputs tell the versions apart), differ (the solver's
    launch and arguments, to replay), or unknown (reason)."""

    verdict: str
    reason: str = ""
    assumptions: list[str] = field(default_factory=list)
    grid: tuple = ()
    block: tuple = ()
    args: dict = field(default_factory=dict)  # old parameter name -> integer (scalars)
    buffer: str = ""  # the old kernel's name of the output buffer that differs
    offset: int = 0  # its differing byte
    seconds: float = 0.0


@dataclass
class _Read:
    pc: int
    base: tuple
    space: str
    offset: z3.BitVecRef
    size: int
    condition: z3.BoolRef
    iterations: dict = field(default_factory=dict)  # loop header -> its iteration number k on the read's path


@dataclass
class _Iteration:
    """A loop summarized on one path: its iteration number k, the serial numbers from
    which the walker's fresh values and reads are made inside it, and the conditions on
    which the thread stays in the loop after iteration k (its exiting block's branch)."""

    k: z3.BitVecRef
    loop: Loop
    fresh: int
    reads: int
    stays: list = field(default_factory=list)


@dataclass
class _Write:
    pc: int
    base: tuple
    space: str
    offset: z3.BitVecRef
    size: int
    value: z3.BitVecRef
    condition: z3.BoolRef
    iterations: dict = field(default_factory=dict)  # loop header -> the iteration numbers k of its paths


class ValueWalker(Walker):
    """A walk of one thread through the whole kernel that keeps what it stores and names
    what it loads (`reads`: placeholder name -> _Read); `problems` says what of the kernel
    it cannot model."""

    def __init__(self, kernel: Kernel, launch: Launch, thread: Thread, tag: str):
        super().__init__(kernel, launch, thread, None, through_barriers=True)
        self.tag = tag
        self.reads: dict[str, _Read] = {}
        self.writes: list[_Write] = []
        self.problems: list[str] = []
        self.promises: list = []  # what no-wrap flags promise, where the op runs (the race walk's path conditions)
        self.iterations: dict[str, _Iteration] = {}  # by the name of k

    def execute(self, state, pc: int, op):
        self.sides = []
        outcome = super().execute(state, pc, op)
        sides = self.sides
        if sides and state.condition[-len(sides):] == tuple(sides):
            state.condition = state.condition[:-len(sides)]
            self.promises.append(z3.Implies(self.conjunction(state.condition), z3.And(sides)))
            self.sides = []
        return outcome

    def summarize(self, state, loop: Loop):
        state = super().summarize(state, loop)
        k = state.values[("iteration", loop.header)]
        self.iterations[k.decl().name()] = _Iteration(k, loop, _serial(k.decl().name()), len(self.reads))
        return state

    def branch(self, state, op):
        targets = op.extra.get("targets", ())
        for header in state.summarized:
            loop = self.kernel.loop_of[header]
            inside = [target in loop.blocks for target in targets]
            if state.block not in loop.blocks or (op.opcode == "br" and all(inside)):
                continue
            condition = self.value(state, op.args[0]) if op.opcode == "br" and op.args else None
            if op.opcode == "br" and not op.args:
                stay = z3.BoolVal(False)
            else:  # a switch, or a branch on what the model does not know: None, not modeled
                stay = condition == (1 if inside[0] else 0) if op.opcode == "br" and z3.is_bv(condition) else None
            self.iterations[state.values[("iteration", header)].decl().name()].stays.append(stay)
        return super().branch(state, op)

    def where(self, pc: int) -> str:
        return f"line {self.kernel.line(pc) or '?'}"

    def memory(self, state, pc: int, op) -> None:
        super().memory(state, pc, op)
        if op.opcode in ("atomicrmw", "cmpxchg") or op.extra.get("atomic"):
            self.problems.append(f"an atomic at {self.where(pc)}")
        elif op.opcode == "load":
            self.load(state, pc, op)
        else:
            self.store(state, pc, op)

    def load(self, state, pc: int, op) -> None:
        pointer = self.value(state, op.args[0])
        space = self.space(pointer.base) if isinstance(pointer, Pointer) else "any"
        if space == "param":  # a member of a struct passed by value: the launch's, as the walker made it
            return
        width = _width(op.type)
        if isinstance(op.type, PointerType) or not width or width > 64:
            self.problems.append(f"a load of a pointer or an aggregate at {self.where(pc)}")
        elif space in ("any", "local", "null") or pointer.base is None:
            self.problems.append(f"a load from memory the model does not place at {self.where(pc)}")
        else:
            name = f"read.{self.tag}.{len(self.reads)}"
            condition = self.conjunction(state.condition)
            self.reads[name] = _Read(pc, pointer.base, space, pointer.offset, width // 8, condition,
                                     {h: state.values[("iteration", h)] for h in state.summarized})
            state.values[op.result] = z3.BitVec(name, width)

    def store(self, state, pc: int, op) -> None:
        pointer, value = self.value(state, op.args[1]), self.value(state, op.args[0])
        space = self.space(pointer.base) if isinstance(pointer, Pointer) else "any"
        if not z3.is_bv(value) or value.size() > 64 or value.size() % 8:
            self.problems.append(f"a store of a pointer or an aggregate at {self.where(pc)}")
        elif space not in ("global", "shared") or pointer.base is None or pointer.base[0] == "global" and \
                space == "global":
            self.problems.append(f"a store to memory the model does not place at {self.where(pc)}")
        else:
            condition = self.conjunction(state.condition)
            if pointer.inbounds:
                condition = z3.And(condition, *pointer.inbounds)
            self.writes.append(_Write(pc, pointer.base, space, pointer.offset, value.size() // 8, value, condition,
                                      {h: (state.values[("iteration", h)],) for h in state.summarized}))

    def call(self, state, pc: int, op):
        callee = op.extra.get("callee") or ""
        kind = barrier_kind(callee)
        if callee.startswith(("llvm.memset", "llvm.memcpy", "llvm.memmove")) or callee in ("memset", "memcpy",
                                                                                               "memmove"):
            self.problems.append(f"a memory copy at {self.where(pc)}")
        elif callee.startswith(("llvm.nvvm.atomic", "llvm.nvvm.atom")):
            self.problems.append(f"an atomic at {self.where(pc)}")
        elif kind:
            self.problems.append(f"a barrier that reduces a value (__syncthreads_{kind}) at {self.where(pc)}")
        elif callee.startswith(("__assertfail", "llvm.trap", "__trap", "llvm.nvvm.trap", "abort", "__simulee_exit")):
            self.problems.append(f"a thread may stop (assert, trap, exit) at {self.where(pc)}")
        outcome = super().call(state, pc, op)
        args = [self.value(state, a) for a in op.args]
        width = _width(op.type) if op.result >= 0 and not isinstance(op.type, PointerType) else None
        if width and callee.startswith("llvm.") and args and all(z3.is_bv(a) for a in args) and \
                _fresh_call(state.values.get(op.result)):
            state.values[op.result] = _function(callee, args, width)(*args)  # a pure intrinsic: its operands decide it
        return outcome

    def evaluate(self, state, pc: int, op):
        value = super().evaluate(state, pc, op)
        if value is not _UNSET:
            return value
        read = (lambda s: self.prior(s)) if state is None else (lambda s: self.value(state, s))
        args = [read(a) for a in op.args]
        width = _width(op.type)
        if not width or isinstance(op.type, PointerType) or not args or not all(z3.is_bv(a) for a in args):
            return _UNSET
        opcode = op.opcode
        if opcode == "fneg":
            return args[0] ^ (1 << (width - 1))
        if opcode == "bitcast" and args[0].size() == width:
            return args[0]  # the model keeps a float as its bits
        if opcode in ("fadd", "fmul"):  # commutative: the operands in an order of their own
            a, b = args
            args = [z3.If(z3.ULE(a, b), a, b), z3.If(z3.ULE(a, b), b, a)]
        if opcode in _FLOAT_BINARY or opcode in _FLOAT_CASTS:
            return _function(f"{opcode}.{width}", args, width)(*args)
        if opcode == "fcmp":
            return _function(f"fcmp.{op.extra.get('predicate')}", args, 1)(*args)
        return _UNSET

    def constant(self, constant, ty):
        if isinstance(constant, ir.ConstFloat) and isinstance(ty, FloatType) and ty.bits in _PACK:
            bits = int.from_bytes(struct.pack(_PACK[ty.bits], constant.value), "little")
            return z3.BitVecVal(bits, ty.bits)
        return super().constant(constant, ty)


_PACK = {16: "<e", 32: "<f", 64: "<d"}


def _fresh_call(value) -> bool:
    """Whether `value` is the fresh value the walker gives a call's result."""
    return z3.is_bv(value) and z3.is_const(value) and value.decl().kind() == z3.Z3_OP_UNINTERPRETED and \
        "call" in value.decl().name()


def _function(name: str, args: list, width: int):
    return z3.Function(name, *[z3.BitVecSort(a.size()) for a in args], z3.BitVecSort(width))


@dataclass
class _Version:
    """One kernel walked once as a template thread: its reads and writes, and where each
    pc lies (barrier interval, then position in a topological order of the blocks)."""

    name: str
    kernel: Kernel
    walker: ValueWalker
    thread: Thread
    order: dict
    live: list  # the writes whose bytes may be left after the launch (_live)
    loops: dict  # pc -> the headers of the loops around it
    steps: dict = field(default_factory=dict)  # (write pc, k) -> its constant step in bytes, or None

    def position(self, pc: int) -> tuple:
        return self.order[pc]


@dataclass(frozen=True)
class _Instance:
    """One thread of one version in the encoding: its indices and its tag (the names of
    its own fresh values); `bound` when quantified (it may choose no writer); `same`: the
    iterations of loops holding a barrier it runs with the thread it was made for."""

    version: str
    tid: tuple
    ctaid: tuple
    tag: int
    bound: bool = False
    same: tuple = ()  # (name, term): the template's iteration numbers this instance shares with another's


class _Encoding:
    """The facts and terms of threads instantiated from the versions' templates, over
    `common` facts (the launch's); `ask` puts a question to the solver."""

    def __init__(self, versions: dict[str, _Version], launch: Launch, common: list, deadline: float,
                 milliseconds: int, covered: dict | None = None, effort: Effort | None = None):
        self.versions, self.launch, self.common = versions, launch, common
        self.deadline, self.milliseconds, self.effort = deadline, milliseconds, effort
        self.arrays: dict = {}
        self.facts: list = []
        self.tags = itertools.count()
        self.memo: dict = {}
        self.garbage = itertools.count()
        self.covered = {} if covered is None else covered  # (version, read, write pc) -> every read covered by it
        self.resolving = 0  # reads being resolved within each other (each writer's value may read in turn)

    def ask(self, *question):
        """The solver's model when the facts and `question` can hold, None when they cannot;
        NotModeled when it cannot tell."""
        left = self.deadline - time.perf_counter()
        if left <= 0:
            raise NotModeled("the proof ran out of time")
        if self.effort is not None and self.effort.left <= 0:
            raise NotModeled(OUT_OF_EFFORT)
        solver = self.solver(left, *question)
        outcome = self._check(solver)
        if outcome == z3.unknown:
            if self.effort is not None and solver.reason_unknown() in ("canceled", "max. resource limit exceeded"):
                raise NotModeled(OUT_OF_EFFORT)
            raise NotModeled(f"the solver could not decide it ({solver.reason_unknown()})")
        if outcome == z3.unsat:
            return None
        for bounds in (_small(self.launch), _small_arguments(self.launch)):  # a launch small enough to replay
            small = self.solver(self.deadline - time.perf_counter(), *question, *bounds)
            if self._check(small) == z3.sat:
                return small.model()
        return solver.model()

    def solver(self, left: float, *question):
        solver = z3.SolverFor("UFBV")  # its quantifier engine decides "no thread writes it"; the default's does not
        solver.set("timeout", int(max(1, min(self.milliseconds, left * 1000))))
        if self.effort is not None:
            solver.set("rlimit", max(1, min(self.effort.per_question, self.effort.left)))
        solver.add(*self.common, *self.facts, *question)
        return solver

    def _check(self, solver) -> z3.CheckSatResult:
        outcome = solver.check()
        if self.effort is not None:
            self.effort.spend(solver)
        return outcome

    def thread(self, version: str, ctaid: tuple | None = None, bound: bool = False, same: tuple = ()) -> _Instance:
        tag = next(self.tags)
        if tag > MAX_INSTANCES:
            raise NotModeled("too many threads to instantiate (reads of written memory choose among many writes)")
        tid = tuple(z3.BitVec(f"tid.{a}~{tag}", 32) for a in AXES)
        if ctaid is None:
            ctaid = tuple(z3.BitVec(f"ctaid.{a}~{tag}", 32) for a in AXES)
        return _Instance(version, tid, ctaid, tag, bound, same)

    def thread_facts(self, instance: _Instance) -> list:
        """Its indices within the launch, and what its walk promises; for a writer chosen
        while a read is resolved, only what does not rest on its own reads (fewer facts admit
        more, never less: resolving them would choose writers of its reads in turn, without
        end)."""
        facts = [z3.ULT(i, d) for i, d in zip(instance.tid, self.launch.ntid)] + \
            [z3.ULT(i, d) for i, d in zip(instance.ctaid, self.launch.nctaid)]
        walker = self.versions[instance.version].walker
        promised = walker.walk.facts + walker.promises
        if self.resolving:
            promised = [f for f in promised if not any(c.decl().name() in walker.reads for c in _constants(f))]
        return facts + [self.term(instance, f) for f in promised]

    def instantiate(self, version: str, ctaid: tuple | None = None, same: tuple = ()) -> _Instance:
        instance = self.thread(version, ctaid, same=same)
        self.facts += self.thread_facts(instance)
        return instance

    def term(self, instance: _Instance, expression):
        """`expression` of the template thread, for `instance`: its indices, its own fresh
        values, its loads resolved."""
        version = self.versions[instance.version]
        pairs = list(zip(version.thread.tid + version.thread.ctaid, instance.tid + instance.ctaid))
        same = dict(instance.same)
        for constant in _constants(expression):
            name = constant.decl().name()
            if name in version.walker.reads:
                pairs.append((constant, self.resolved(instance, name)))
            elif name in same:
                pairs.append((constant, same[name]))
            elif not _launch_wide(name) and not any(constant.eq(t) for t, _ in pairs[:6]):
                pairs.append((constant, z3.Const(f"{name}~{instance.tag}", constant.sort())))
        return z3.substitute(expression, *pairs) if pairs else expression

    def overlap(self, instance: _Instance, write: _Write, offset, size: int) -> z3.BoolRef:
        """Whether `instance` does `write` over one of bytes [offset, offset + size)."""
        return z3.And(self.term(instance, write.condition),
                      _overlaps(self.term(instance, write.offset), write.size, offset, size))

    def resolved(self, instance: _Instance, name: str):
        """The value the template's load `name` reads in `instance`: what the last write
        before it left there (its own earlier in its interval, a thread of its block's in
        an earlier one), else what memory held before the launch."""
        key = (instance.tag, name)
        if key in self.memo:
            return self.memo[key]
        if self.resolving >= MAX_CHAIN:
            raise NotModeled(f"a read of memory written before it chains through more than {MAX_CHAIN} writers "
                             "whose values are read in turn")
        self.resolving += 1
        try:
            self.memo[key] = self._resolved(instance, name)
        finally:
            self.resolving -= 1
        return self.memo[key]

    def _resolved(self, instance: _Instance, name: str):
        version = self.versions[instance.version]
        read = version.walker.reads[name]
        at = version.position(read.pc)
        offset = self.term(instance, read.offset)
        writes = sorted((w for w in version.walker.writes if w.base == read.base and version.position(w.pc) < at),
                        key=lambda w: version.position(w.pc))
        value = self.initial(instance, read.base, read.space, offset, read.size)
        earlier = [w for w in writes if version.position(w.pc)[0] < at[0]]
        if instance.bound and earlier:
            raise NotModeled("a store's address or condition depends on memory the kernel wrote before it")
        staged = self.staged(version, read)
        one = len(writes) == 1 and earlier and staged <= version.loops[earlier[0].pc]
        if staged and not (one and self.covers(instance.version, name, earlier[0])):
            line = _loop_line(version.kernel, version.kernel.loop_of[min(staged)])
            raise NotModeled(f"the {version.name} kernel reads at line {version.kernel.line(read.pc) or '?'} what an "
                             f"earlier iteration of its loop at line {line} may have stored")
        if len(writes) == 1 and earlier and self.covers(instance.version, name, earlier[0]):
            write = earlier[0]  # its one writer: the thread of the block that wrote exactly these bytes
            writer = self.instantiate(version.name, instance.ctaid, self.shared_iterations(instance, read, write))
            self.facts.append(z3.Implies(self.term(instance, read.condition), z3.And(
                self.term(writer, write.condition), self.term(writer, write.offset) == offset)))
            value = self.term(writer, write.value)
        else:
            for write in writes:
                # in its own interval only the thread itself wrote what it reads (race-free)
                writer = self.chosen(version, write, instance.ctaid, offset, read.size) if write in earlier else \
                    instance
                start = self.term(writer, write.offset)
                exact = self.term(writer, write.value) if write.size == read.size else self.fresh(read.size * 8)
                value = z3.If(self.overlap(writer, write, offset, read.size),
                              z3.If(start == offset, exact, self.fresh(read.size * 8)), value)
        return value

    @staticmethod
    def staged(version: _Version, read: _Read) -> frozenset:
        """The loops holding a barrier around `read` that store to what it reads: an earlier
        iteration may have left what it reads (the proof follows only the current one's)."""
        around = version.loops[read.pc] & version.kernel.barrier_loops
        return frozenset(h for h in around if any(w.base == read.base and h in version.loops[w.pc]
                                                  for w in version.walker.writes))

    def shared_iterations(self, instance: _Instance, read: _Read, write: _Write) -> tuple:
        """The iteration numbers of `write`'s template for the loops holding a barrier around
        both it and `read`, as `instance` (the reader) has them: a writer in the reader's
        iteration of each (a block runs a loop holding a barrier as one: its threads pass
        the same barriers)."""
        version = self.versions[instance.version]
        shared = version.loops[read.pc] & version.loops[write.pc] & version.kernel.barrier_loops
        return tuple((k.decl().name(), self.term(instance, read.iterations[h]))
                     for h in sorted(shared) if h in read.iterations for k in write.iterations.get(h, ()))

    def covers(self, version: str, name: str, write: _Write) -> bool:
        """Whether every thread that does the load `name` reads bytes a thread of its block
        wrote by `write` (in the same iteration of the loops holding a barrier around both),
        all of them and only them (its own question to the solver)."""
        key = (version, name, write.pc)
        if key not in self.covered:
            read = self.versions[version].walker.reads[name]
            self.covered[key] = False
            if write.size == read.size:
                question = _Encoding(self.versions, self.launch, self.common, self.deadline, self.milliseconds,
                                     self.covered, self.effort)
                reader = question.instantiate(version)
                offset = question.term(reader, read.offset)
                bound = question.thread(version, reader.ctaid, bound=True,
                                        same=question.shared_iterations(reader, read, write))
                written = z3.And(question.term(bound, write.condition), question.term(bound, write.offset) == offset)
                try:
                    self.covered[key] = question.ask(question.term(reader, read.condition), question.none(
                        bound, list(bound.tid), written, write, offset)) is None
                except NotModeled:
                    pass
        return self.covered[key]

    def chosen(self, version: _Version, write: _Write, ctaid: tuple | None, offset, size: int) -> _Instance:
        """A thread that does `write` over a byte of [offset, offset + size) if any thread
        of the block (of the launch: ctaid None) does."""
        writer = self.instantiate(version.name, ctaid)
        self.facts.append(z3.Or(self.overlap(writer, write, offset, size), self.nobody(version, write, ctaid,
                                                                                      offset, size)))
        return writer

    def nobody(self, version: _Version, write: _Write, ctaid: tuple | None, offset, size: int,
               hint: _Instance | None = None) -> z3.BoolRef:
        """No thread of the block (of the launch: ctaid None) does `write` over a byte of
        [offset, offset + size); with a `hint`, only that the thread with the hint's indices
        does not (a weaker fact, quantifier-free: where it already refutes, it is enough)."""
        bound = self.thread(version.name, ctaid, bound=True)
        variables = list(bound.tid) + (list(bound.ctaid) if ctaid is None else [])
        if hint is not None:
            self.facts += [a == b for a, b in zip(bound.tid + bound.ctaid, hint.tid + hint.ctaid)]
            variables = []
        return self.none(bound, variables, self.overlap(bound, write, offset, size), write, offset)

    def none(self, bound: _Instance, variables: list, does, write: _Write, target) -> z3.BoolRef:
        """For every `bound` thread (its indices `variables`), in every iteration of its loops,
        `does` (of its `write`) fails to hold. An iteration number the write's start depends
        on is not quantified but instantiated at the two iterations whose store starts
        nearest `target` (start = base + step * k: k = (target - base) / step, or one more): a
        weaker fact, and the same when the loop's iterations store apart (the solver's
        quantifier engine finds no such term by itself)."""
        version = self.versions[bound.version]
        iterations = self.iterations(bound)
        self.followed(does, list(bound.tid) + list(bound.ctaid) + iterations, target)
        body = z3.Implies(z3.And(self.thread_facts(bound)), z3.Not(does))
        start = self.term(bound, write.offset)
        same = dict(bound.same)
        for name, k in zip(version.walker.iterations, iterations):
            if name in same:
                continue  # the iteration of the thread it was made for: not quantified
            if not any(c.eq(k) for c in _constants(start)):
                variables = variables + [k]
                continue
            base = z3.substitute(start, (k, z3.BitVecVal(0, 64)))
            step = self.step(version, write, name)
            if step is None:
                step = z3.substitute(start, (k, z3.BitVecVal(1, 64))) - base
            nearest = (target - base) / step  # signed division
            body = z3.And(z3.substitute(body, (k, nearest)), z3.substitute(body, (k, nearest + 1)))
        return z3.ForAll(variables, body) if variables else body

    def step(self, version: _Version, write: _Write, name: str):
        """The bytes `write`'s start moves from iteration 0 to 1 of loop iteration `name`
        where that is one constant for every thread and launch that does the write in
        iteration 1 (two solver questions), else None."""
        key = (write.pc, name)
        if key not in version.steps:
            version.steps[key] = None
            k = version.walker.iterations[name].k
            one = [z3.substitute(f, (k, z3.BitVecVal(1, 64))) for f in version.walker.walk.facts + [write.condition]]
            step = z3.simplify(z3.substitute(write.offset, (k, z3.BitVecVal(1, 64))) -
                               z3.substitute(write.offset, (k, z3.BitVecVal(0, 64))))
            solver = z3.SolverFor("QF_BV")
            solver.set("timeout", 5000)
            solver.add(*self.common, *version.thread.facts, *one)
            if solver.check() == z3.sat:
                value = solver.model().eval(step, model_completion=True)
                solver.add(step != value)
                if solver.check() == z3.unsat:
                    version.steps[key] = value
        return version.steps[key]

    def iterations(self, instance: _Instance) -> list:
        """The iteration numbers of `instance`'s loops."""
        same = dict(instance.same)
        return [same.get(name, z3.BitVec(f"{name}~{instance.tag}", 64))
                for name in self.versions[instance.version].walker.iterations]

    @staticmethod
    def followed(expression, variables: list, offset) -> None:
        """NotModeled when whether a quantified thread writes (`expression`) depends on a
        value of its own other than its indices and iterations (`variables`): one constant
        would stand for a value each thread has its own of."""
        known = {v.get_id() for v in variables} | {c.get_id() for c in _constants(offset)}
        for constant in _constants(expression):
            name = constant.decl().name()
            if constant.get_id() not in known and not _launch_wide(name) and not name.startswith(_UNDEFINED) and \
                    constant.sort().kind() != z3.Z3_ARRAY_SORT:
                raise NotModeled("a store's address or condition depends on a value the proof does not follow")

    def initial(self, instance: _Instance, base: tuple, space: str, offset, size: int):
        """What memory held before the launch: a buffer's contents (shared by the versions),
        any value in shared memory."""
        if space == "shared":
            return self.fresh(size * 8)
        return _bytes(self.array(base if base[0] != "global" else (instance.version, *base)), offset, size)

    def array(self, key: tuple):
        if key not in self.arrays:
            self.arrays[key] = z3.Array(f"memory.{'.'.join(map(str, key))}", z3.BitVecSort(64), z3.BitVecSort(8))
        return self.arrays[key]

    def fresh(self, width: int):
        return z3.BitVec(f"garbage!{next(self.garbage)}", width)

    def byte(self, writer: _Instance, write: _Write, address):
        """The byte `writer`'s `write` puts at `address` (when it covers it)."""
        value = self.term(writer, write.value)
        wide = z3.ZeroExt(64 - value.size(), value) if value.size() < 64 else value
        return z3.Extract(7, 0, z3.LShR(wide, (address - self.term(writer, write.offset)) * 8))

    def final(self, version: str, base: tuple, address):
        """The byte at `address` of buffer `base` after the launch of `version`: what its
        last write there put, else what it held."""
        byte = _bytes(self.array(base), address, 1)
        template = self.versions[version]
        for write in sorted((w for w in template.live if w.base == base),
                            key=lambda w: template.position(w.pc)):
            writer = self.chosen(template, write, None, address, 1)
            byte = z3.If(self.overlap(writer, write, address, 1), self.byte(writer, write, address), byte)
        return byte


def _overlaps(start, size: int, offset, length: int) -> z3.BoolRef:
    """Bytes [start, start + size) and [offset, offset + length) share one (64-bit offsets)."""
    return z3.Or(z3.ULT(offset - start, size), z3.ULT(start - offset, length))


def _bytes(array, offset, size: int):
    """`size` bytes of `array` from `offset`, little-endian."""
    values = [z3.Select(array, offset + i) for i in range(size)]
    return values[0] if size == 1 else z3.Concat(*reversed(values))


def _launch_wide(name: str) -> bool:
    """A name every thread of the launch shares: its dimensions, a scalar argument (or a
    member of a struct one)."""
    return name.startswith(("ntid.", "nctaid.", "arg"))


def _constants(expression) -> list:
    """The uninterpreted constants `expression` is made of."""
    seen, found, pending = set(), {}, [expression]
    while pending:
        term = pending.pop()
        if term.get_id() in seen:
            continue
        seen.add(term.get_id())
        if z3.is_const(term) and term.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            found[term.get_id()] = term
        elif z3.is_quantifier(term):
            pending.append(term.body())
        elif z3.is_app(term):
            pending.extend(term.children())
    return list(found.values())


# ---------------------------------------------------------------------------- the question


def prove_equivalent(pair, given: Fixed | None = None, deadline: float = float("inf"),
                     milliseconds: int = QUERY_MILLISECONDS, race_free: tuple[str, ...] = (),
                     effort: Effort | None = None) -> EquivalenceProof:
    """Whether `pair`'s versions (checker.equivalence.Pair) leave the same bytes in every
    buffer for every launch (with what `given` fixes of it, by the old kernel's names),
    every argument and every buffer content. `race_free`: the versions ("old", "new")
    already proved race-free under `given` (not proved again). `effort`: z3's resource
    units the questions about the outputs may take (unknown past them, on any machine)."""
    start = time.perf_counter()
    proof = EquivalenceProof("unknown", assumptions=[*ASSUMPTIONS, RACE_FREE, SAME_FLOATS])
    try:
        _prove(pair, given or Fixed(), deadline, milliseconds, proof, race_free, effort)
    except NotModeled as reason:
        proof.verdict, proof.reason = "unknown", str(reason)
    except Exception as error:  # the prover's own failure: no verdict, and nothing else lost
        if os.environ.get("SIMULEE_DEBUG"):
            raise
        proof.verdict, proof.reason = "unknown", prover_failure(error)
    proof.assumptions = list(dict.fromkeys(proof.assumptions))
    proof.seconds = time.perf_counter() - start
    return proof


def _prove(pair, given: Fixed, deadline: float, milliseconds: int, proof: EquivalenceProof,
           race_free: tuple[str, ...], effort: Effort | None) -> None:
    kernels = {"old": Kernel(pair.old_program, pair.old.symbol), "new": Kernel(pair.new_program, pair.new.symbol)}
    for label, kernel in kernels.items():
        _structure(label, kernel)
    for label, program, info in (("old", pair.old_program, pair.old), ("new", pair.new_program, pair.new)):
        if label in race_free:
            continue
        race = prove_kernel(program, info, given=_given(pair, given, label), deadline=deadline, races=1)
        if race.verdict != "proved":
            raise NotModeled(f"the {label} kernel is not proved race-free ({race.reason or race.verdict})")
        proof.assumptions += race.assumptions
    _fresh_context()  # the kernels hold no z3 terms: they outlive it
    if effort is not None:
        effort.start()
    old_kernel, new_kernel = kernels["old"], kernels["new"]
    launch = Launch.of(old_kernel.function)
    new_params = _renamed(pair, new_kernel)
    versions = {"old": _template("old", old_kernel, launch),
                "new": _template("new", new_kernel, Launch(launch.ntid, launch.nctaid, new_params))}
    facts, stated = solve_facts(given, pair.old, launch, old_kernel.function)
    # the axes neither version reads are one long
    shape, unread = unread_axes(set(pair.old.builtins) | set(pair.new.builtins), launch, given)
    proof.assumptions += unread + stated + [a for v in versions.values() for a in v.walker.walk.assumed]
    if any(v.walker.promises for v in versions.values()):
        proof.assumptions.append(NO_OVERFLOW)
    common = [*launch.limits(), *shape, *facts]
    for label, version in versions.items():
        _exact_iterations(label, version, common + version.thread.facts, deadline)
    covered: dict = {}
    for base in sorted({w.base for v in versions.values() for w in v.walker.writes if w.space == "global"}, key=str):
        def encoding():
            question = _Encoding(versions, launch, common, deadline, milliseconds, covered, effort)
            for label in versions:  # what any thread of either promises holds (a launch where it fails is undefined)
                question.instantiate(label)
            return question

        try:
            model, address = _differs(encoding, versions, base)
        except NotModeled as reason:
            raise NotModeled(f"{_name(pair, base)}: {reason}") from None
        if model is not None:
            _difference(pair, launch, model, base, address, proof)
            return
    proof.verdict = "proved"


def _differs(encoding, versions: dict, base: tuple):
    """(a model, the address) of a byte of buffer `base` the versions leave different, or
    (None, None). With at most one store to it in each version: first whether one writes a
    byte the other does not, then whether the bytes both write differ; else one question
    of the last writers."""
    address = z3.BitVec("address", 64)
    sites = {label: [w for w in v.live if w.base == base] for label, v in versions.items()}
    if any(len(found) > 1 for found in sites.values()):
        question = encoding()
        return question.ask(question.final("old", base, address) != question.final("new", base, address)), address
    for first, second in (("old", "new"), ("new", "old")):
        if not sites[first]:
            continue
        # first of the writer's own thread in the other version (no quantifier), then of every thread
        for hint in (True, False) if sites[second] else (False,):
            question = encoding()
            writer = question.instantiate(first)
            only = [question.nobody(versions[second], sites[second][0], None, address, 1, writer if hint else None)] \
                if sites[second] else []
            model = question.ask(question.overlap(writer, sites[first][0], address, 1), *only)
            if model is None:
                break
        if model is not None:
            return model, address
    if not all(sites.values()):
        return None, None
    question = encoding()
    old, new = question.instantiate("old"), question.instantiate("new")
    return question.ask(question.overlap(old, sites["old"][0], address, 1),
                        question.overlap(new, sites["new"][0], address, 1),
                        question.byte(old, sites["old"][0], address) != question.byte(new, sites["new"][0],
                                                                                        address)), address


def _given(pair, given: Fixed, label: str) -> Fixed:
    """`given` for one version: the new kernel's by its own parameter names."""
    if label == "old":
        return given
    return Fixed(given.grid, given.block, pair.new_args(given.args))


def _structure(label: str, kernel: Kernel) -> None:
    """NotModeled unless each of `kernel`'s loops leaves from one place (its header or its
    one latch) and none returns, and it has no grid barrier. (A block barrier
    some threads skip is fine: the race proof found no block whose threads disagree on it,
    and the order of _order's intervals errs only towards writes of other threads.)"""
    function = kernel.function
    for loop in kernel.loops:
        line = _loop_line(kernel, loop)
        exits = {b for b in loop.blocks if any(s not in loop.blocks for s in function.blocks[b].successors)}
        returns = any(function.ops[function.blocks[b].end - 1].opcode == "ret" for b in loop.blocks)
        if returns or len(exits) != 1 or exits != {loop.header} and exits != set(loop.latches):
            raise NotModeled(f"the {label} kernel's loop at line {line} leaves from more than one place")
    if kernel.grid_syncs:
        raise NotModeled(f"the {label} kernel synchronizes its grid")


def _loop_line(kernel: Kernel, loop: Loop) -> int | str:
    """A source line of `loop`'s body."""
    function = kernel.function
    lines = (kernel.line(pc) for block in sorted(loop.blocks)
             for pc in range(function.blocks[block].start, function.blocks[block].end))
    return next((line for line in lines if line), "?")


def _exact_iterations(label: str, version: "_Version", common: list, deadline: float) -> None:
    """Make each summarized loop's iteration number k exact, a fact of every thread: k runs
    when the thread stayed in the loop after every earlier iteration, which the stay
    condition tells when it depends on k and on nothing the loop computes otherwise
    (NotModeled where it does not). Where staying after k implies staying after every
    earlier one (a solver's question), the fact is the quantifier-free k = 0 or stayed
    after k - 1."""
    walker = version.walker
    for name, iteration in walker.iterations.items():
        line = _loop_line(version.kernel, iteration.loop)
        stays = {s.get_id(): s for s in iteration.stays if s is not None}
        if len(stays) != 1 or None in iteration.stays:
            raise NotModeled(f"the {label} kernel's loop at line {line} goes on by a condition the proof does not "
                             "follow")
        stay, k = next(iter(stays.values())), iteration.k
        if any(c.decl().name() != name and _made_inside(c.decl().name(), iteration) for c in _constants(stay)):
            raise NotModeled(f"the {label} kernel's loop at line {line} stops on a value it computes")
        earlier = z3.BitVec(f"{name}'", 64)
        facts = [f for f in walker.walk.facts if any(c.eq(k) for c in _constants(f))]
        solver = z3.SolverFor("QF_BV")
        solver.set("timeout", int(max(1, min(QUERY_MILLISECONDS, (deadline - time.perf_counter()) * 1000))))
        solver.add(*common, *walker.walk.facts, *(z3.substitute(f, (k, earlier)) for f in facts),
                   z3.ULT(earlier, k), stay, z3.Not(z3.substitute(stay, (k, earlier))))
        if solver.check() == z3.unsat:
            walker.walk.facts.append(z3.Or(k == 0, z3.substitute(stay, (k, k - 1))))
        else:  # it stayed after every earlier iteration: a quantified fact
            walker.walk.facts.append(z3.ForAll([earlier], z3.Implies(z3.ULT(earlier, k),
                                                                     z3.substitute(stay, (k, earlier)))))


def _made_inside(name: str, iteration: _Iteration) -> bool:
    """Whether the walker's value `name` was made inside the iteration's loop (after its k)."""
    if name.startswith("read."):
        return int(name.rsplit(".", 1)[1]) >= iteration.reads
    serial = _serial(name)
    return serial is not None and serial > iteration.fresh


def _serial(name: str) -> int | None:
    """The serial number of a fresh value the walker named (`what#thread@start.n`)."""
    match = re.search(r"#\d+@[^.]*\.(\d+)$", name)
    return int(match.group(1)) if match else None


def _template(label: str, kernel: Kernel, launch: Launch) -> _Version:
    """`kernel` walked once, from entry to end, by a template thread."""
    thread = Thread(10 if label == "old" else 20, launch)
    walker = ValueWalker(kernel, launch, thread, label)
    walk = walker.run()
    walker.writes = _one_per_store(walker.writes)
    problems = walker.problems + walk.unknown
    if problems:
        raise NotModeled(f"the {label} kernel: {problems[0]}")
    if any(a.base is None for a in walk.accesses):
        raise NotModeled(f"the {label} kernel accesses memory through a pointer the model does not follow")
    carried = next((w for w in walker.writes if any(c.decl().name().startswith(("loop#", "shrinking#"))
                                                    for c in _constants(w.value))), None)
    if carried is not None:
        raise NotModeled(f"the {label} kernel stores at line {kernel.line(carried.pc) or '?'} a value a loop carries "
                         "from one iteration to the next; the proof does not follow such values")
    order = _order(kernel)
    loops = {pc: frozenset(loop.header for loop in kernel.loops_around(op.block))
             for pc, op in enumerate(kernel.function.ops)}
    walker.writes = _overwritten(walker.writes, walker.reads.values(), order, loops)
    _loop_accesses(label, kernel, walker, order, loops)
    return _Version(label, kernel, walker, thread, order, _live(walker.writes, order, loops), loops)


def _loop_accesses(label: str, kernel: Kernel, walker: ValueWalker, order: dict, loops: dict) -> None:
    """NotModeled where a loop's store is read in its barrier interval inside the loop or
    after it, or a loop stores to one buffer twice: which iteration's store a thread reads
    (leaves) last is not modeled."""
    for write in (w for w in walker.writes if loops[w.pc]):
        line = _loop_line(kernel, kernel.loop_of[min(loops[write.pc])])
        for read in walker.reads.values():
            if read.base == write.base and order[read.pc][0] == order[write.pc][0] and \
                    (order[read.pc] > order[write.pc] or loops[read.pc] & loops[write.pc]):
                raise NotModeled(f"the {label} kernel reads at line {kernel.line(read.pc) or '?'} what its loop at "
                                 f"line {line} stores before a barrier passes")
        if any(w is not write and w.base == write.base and loops[w.pc] & loops[write.pc] for w in walker.writes):
            raise NotModeled(f"the {label} kernel's loop at line {line} stores to one buffer twice")


def _live(writes: list[_Write], order: dict, loops: dict) -> list[_Write]:
    """The writes whose bytes may be left after the launch: not those the same thread
    always writes again later, at the same address, in the same iteration of the loops
    around (a solver's question each)."""
    live = []
    for write in writes:
        later = [w for w in writes if order[w.pc] > order[write.pc] and w.base == write.base and
                 w.size >= write.size and w.offset.eq(write.offset) and loops[w.pc] == loops[write.pc]]
        if not any(_implies(write.condition, w.condition) for w in later):
            live.append(write)
    return live


def _implies(first, second) -> bool:
    solver = z3.SolverFor("QF_BV")
    solver.set("timeout", 2000)
    solver.add(first, z3.Not(second))
    return solver.check() == z3.unsat


def _overwritten(writes: list[_Write], reads, order: dict, loops: dict) -> list[_Write]:
    """Writes of one thread to the same address in one barrier interval and one iteration
    of the loops around, with no load of that memory between, as one: the later one's
    value where it happens, else the earlier one's (no other thread reads the address in
    between without a race)."""
    kept: list[_Write] = []
    for write in sorted(writes, key=lambda w: order[w.pc]):
        last = kept[-1] if kept else None
        if last is not None and last.base == write.base and last.size == write.size and \
                last.offset.eq(write.offset) and order[last.pc][0] == order[write.pc][0] and \
                loops[last.pc] == loops[write.pc] and \
                not any(r.base == write.base and order[last.pc] < order[r.pc] < order[write.pc] for r in reads):
            kept[-1] = _Write(write.pc, write.base, write.space, write.offset, write.size,
                              z3.If(write.condition, write.value, last.value), z3.Or(last.condition, write.condition),
                              _iterations_of([last, write]))
        else:
            kept.append(write)
    return kept


def _one_per_store(writes: list[_Write]) -> list[_Write]:
    """One write for each store instruction: the paths a thread may reach it on exclude
    each other, so its address and value are those of the path whose condition holds."""
    by_pc: dict[int, list[_Write]] = {}
    for write in writes:
        by_pc.setdefault(write.pc, []).append(write)
    merged = []
    for group in by_pc.values():
        first = group[0]
        if len(group) == 1 or any(w.base != first.base or w.size != first.size for w in group):
            merged += group
            continue
        offset, value = group[-1].offset, group[-1].value
        for write in reversed(group[:-1]):
            offset = offset if write.offset.eq(offset) else z3.If(write.condition, write.offset, offset)
            value = value if write.value.eq(value) else z3.If(write.condition, write.value, value)
        merged.append(_Write(first.pc, first.base, first.space, offset, first.size, value,
                             z3.Or([w.condition for w in group]), _iterations_of(group)))
    return merged


def _iterations_of(writes: list[_Write]) -> dict:
    """The iteration numbers of the loops around `writes`, merged into one write."""
    merged: dict = {}
    for write in writes:
        for header, ks in write.iterations.items():
            merged[header] = merged.get(header, ()) + tuple(k for k in ks if not any(k.eq(m) for m in
                                                                                    merged.get(header, ())))
    return merged


def _order(kernel: Kernel) -> dict:
    """pc -> (barrier interval, position): the barriers passed before it, and its place in a
    topological order of the blocks, back edges left out (within one iteration of a loop
    holding a barrier, the order of its intervals)."""
    function = kernel.function
    seen, postorder = set(), []

    def visit(block: int) -> None:
        stack = [(block, iter(function.blocks[block].successors))]
        seen.add(block)
        while stack:
            current, successors = stack[-1]
            following = next((s for s in successors if s not in seen and s < len(function.blocks)), None)
            if following is None:
                postorder.append(current)
                stack.pop()
            else:
                seen.add(following)
                stack.append((following, iter(function.blocks[following].successors)))

    visit(0)
    rank = {block: index for index, block in enumerate(reversed(postorder))}
    position = {pc: (rank.get(op.block, -1), pc) for pc, op in enumerate(function.ops)}
    barriers = sorted(position[pc] for pc in kernel.barriers)
    return {pc: (sum(1 for b in barriers if b < where), *where) for pc, where in position.items()}


def _renamed(pair, kernel: Kernel) -> dict:
    """The new kernel's parameters' values (slot -> value), numbered as the old kernel's
    they answer (its byval table renumbered alike): its scalar arguments and buffers are
    then the old one's terms."""
    new_index = {p.name: i for i, p in enumerate(pair.new.params)}
    old_of = {new_index[new]: i for i, (old, new) in enumerate(pair.names.items())}
    function = kernel.function
    params = {}
    for index, slot in enumerate(function.params):
        ty = function.slot_types[slot]
        old = old_of.get(index, index)
        if isinstance(ty, PointerType):
            params[slot] = Pointer(("param", old), z3.BitVecVal(0, 64))
        elif _width(ty):
            params[slot] = z3.BitVec(f"arg{old}", _width(ty))
    kernel.byval = {old_of.get(index, index): byval for index, byval in kernel.byval.items()}
    return params


def _name(pair, base: tuple) -> str:
    if base[0] in ("param", "member"):
        name = pair.old.params[base[1]].name
        return name if base[0] == "param" else f"{name} (+{base[2]})"
    return str(base[-1])


def _difference(pair, launch: Launch, model, base: tuple, address, proof: EquivalenceProof) -> None:
    def number(expression, default=0):
        value = model.eval(expression, model_completion=True)
        return value.as_long() if z3.is_bv_value(value) else default

    proof.verdict = "differ"
    proof.grid = tuple(number(d, 1) for d in launch.nctaid)
    proof.block = tuple(number(d, 1) for d in launch.ntid)
    names = [p.name for p in pair.old.params]
    proof.args = {names[int(str(v).removeprefix("arg"))]: number(v) for v in launch.params.values()
                  if z3.is_bv(v) and str(v).removeprefix("arg").isdigit()}
    proof.buffer, proof.offset = _name(pair, base), number(address)


def replay(pair, proof: EquivalenceProof, rtol: float = 0.0, atol: float = 0.0, warp_model: str = "independent",
           seed: int = 0):
    """The solver's launch and arguments run by both versions in the interpreter, buffers
    filled distinct, then small: the comparison (checker.equivalence.Comparison) that
    shows a difference, or None."""
    from simulee.checker.equivalence import EQUIVALENCE_WORK_LIMIT, compare
    from simulee.checker.kernel import default_launch, indices_read

    reads = indices_read(pair.old_program, pair.old)
    for fill in ("distinct", "small"):
        launch = default_launch(pair.old, dict(proof.args), proof.grid, proof.block, reads, fill=fill, seed=seed)
        launch = replace(launch, work_limit=EQUIVALENCE_WORK_LIMIT)  # a huge launch stops: it shows nothing
        comparison = compare(pair, launch, rtol, atol, warp_model)
        if comparison.differs:
            return comparison
    return None
