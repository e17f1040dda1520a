"""Symbolic accesses of one thread of a kernel, from the decoded IR the interpreter runs.

A walk follows every path of one thread from a start — the kernel's entry or a barrier —
to the next barrier or the kernel's end (an *interval*), or, for threads of different
blocks, from the entry or a grid's barrier (grid.sync()) through every block barrier to
the next grid barrier or the end. Values are z3 bit-vectors of the
IR's widths, so machine arithmetic (wrapping, signedness) is exact; pointers are a base
object (a pointer parameter, a global or __shared__ variable, a thread's own stack) and a
64-bit byte offset. What the model cannot express is a fresh unconstrained value: a value
loaded from memory, a float, a call's result, a loop variable that is not affine.

Loops without a barrier are summarized: an affine induction variable is `init + step * k`
for a fresh iteration number k, one that only shrinks (`s >>= 1`) lies between 0 and its
first value, any other is fresh; their bodies are walked once for that arbitrary
iteration. A loop with a barrier is cut at its barriers: a walk from a barrier inside it
starts in an arbitrary iteration k that both threads share (they passed the same barrier
the same number of times), and goes on around the back edge into iteration k + 1 as
symbolic execution does. Values computed before a walk's start are recomputed from what
they are made of where that is pure arithmetic, else fresh: shared by the two threads when
the static divergence analysis finds them uniform, else one per thread.

Everything here over-approximates what a thread can do; nothing may under-approximate.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field, replace

import z3

from interpreter import irparse as ir
from interpreter.decode import Address, DecodedFunction
from interpreter.loader import Program
from interpreter.loops import Loop, natural_loops
from interpreter.types import ArrayType, FloatType, FunctionType, IntType, PointerType, StructType, VectorType
from interpreter.vocabulary import (ACQUIRE, RELEASE, SCOPE_BITS, SPECIAL_REGISTER, access_sync, barrier_kind,
                                    call_scope, index_register, unknown_syncscope)
from simulee.frontend.compiler import user_location
from simulee.prover.proof import Access

AXES = "xyz"
COUNTERS_DO_NOT_WRAP = "a loop counter compared as a signed (unsigned) number does not wrap past that range"
MAX_BLOCK_VISITS = 20000  # per walk: past it the walk is cut and the verdict unknown
SPACES = {0: "global", 1: "global", 3: "shared", 4: "constant", 5: "local"}
_VARYING = {"phi", "load", "atomicrmw", "cmpxchg", "alloca", "unsupported", "call", "extractvalue", "insertvalue"}
_FENCES = ("llvm.nvvm.fence", "llvm.nvvm.membar")  # they order through memory: nothing the model follows
_NO_EFFECT = ("llvm.lifetime.", "llvm.dbg.", "llvm.experimental.noalias", "llvm.nvvm.bar.warp.sync",
              "llvm.nvvm.barrier.cta.arrive", "llvm.prefetch",
              "llvm.nvvm.prefetch", "llvm.invariant.", "llvm.var.annotation", "llvm.ptr.annotation",
              "llvm.nvvm.isspacep", "llvm.sideeffect", "llvm.donothing")
_NO_MEMORY = ("llvm.", "__simulee_texture")  # calls that write no memory a thread of the kernel reads
PRECONDITIONS = "the kernel's preconditions hold (__assume, GPUVerify's __requires and __axiom)"
FUNCTION_POINTERS = "a function pointer names one of the program's functions of the call's type"
MAX_CALL_DEPTH = 4  # calls through function pointers followed within each other
MEMBERS_DO_NOT_OVERLAP = ("pointers in structs passed by value point to buffers that overlap neither each other nor "
                          "the pointer parameters' buffers")
# the compiler's promises, the kernel's preconditions, and GPUVerify's axioms (a thread breaking one is none)
_ASSUMES = ("llvm.assume", "__simulee_assume", "__simulee_axiom")
z3.set_param("ctrl_c", False)  # ^C interrupts Simulee (KeyboardInterrupt), not just the question z3 is on
_ENDS_THREAD = ("__assertfail", "llvm.trap", "__trap", "llvm.nvvm.trap", "abort", "__simulee_exit")


@dataclass(frozen=True)
class Pointer:
    """A pointer: its base object (("param", i), ("member", i, byte) of a struct parameter
    i passed by value, ("global", name), ("local", pc); None when it is not known, a pointer
    read from memory) and the byte offset from it (64 bits)."""

    base: tuple | None
    offset: z3.BitVecRef
    inbounds: tuple = ()  # what an access through it implies: its getelementptrs' offsets did not wrap (inbounds)


@dataclass(frozen=True)
class Induction:
    """A loop counter that does not wrap, as exact 64-bit values: `value` = `start` +
    `step` * `k` (what solve's lemmas speak of)."""

    slot: int
    start: z3.BitVecRef
    step: z3.BitVecRef
    k: z3.BitVecRef
    value: z3.BitVecRef


@dataclass
class Walk:
    """What one thread may do from one start: its accesses, where its paths end (a barrier's
    pc, or "exit") under which condition, what holds at the start, why the walk is not
    exact enough to prove anything (empty when it is), and what it does that orders
    accesses through memory (fences, releases, acquires: the model orders by barriers only,
    so it may find races these order)."""

    accesses: list[Access] = field(default_factory=list)
    ends: dict = field(default_factory=dict)  # end -> [condition, ...]
    facts: list = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    ordering: list[str] = field(default_factory=list)
    assumed: list[str] = field(default_factory=list)  # assumptions the walk made beyond the launch's
    inductions: list[Induction] = field(default_factory=list)


@dataclass
class Launch:
    """The symbolic launch both threads share: dimensions and scalar parameters."""

    ntid: tuple
    nctaid: tuple
    params: dict  # slot -> value (scalars; byval structs are read through "byval" bases)

    @classmethod
    def of(cls, function: DecodedFunction) -> "Launch":
        params = {}
        for index, slot in enumerate(function.params):
            ty = function.slot_types[slot]
            if isinstance(ty, (IntType, FloatType)):  # a float as its bits: the model does no float arithmetic
                params[slot] = z3.BitVec(f"arg{index}", ty.bits)
            elif isinstance(ty, PointerType):
                params[slot] = Pointer(("param", index), z3.BitVecVal(0, 64))
        return cls(tuple(z3.BitVec(f"ntid.{a}", 32) for a in AXES), tuple(z3.BitVec(f"nctaid.{a}", 32) for a in AXES),
                   params)

    def limits(self) -> list:
        """CUDA's launch limits."""
        facts = [z3.UGE(d, 1) for d in self.ntid + self.nctaid]
        facts += [z3.ULE(self.ntid[0], 1024), z3.ULE(self.ntid[1], 1024), z3.ULE(self.ntid[2], 64),
                  z3.ULE(self.ntid[0] * self.ntid[1] * self.ntid[2], 1024)]  # each bounded: no wrap in 32 bits
        facts += [z3.ULE(self.nctaid[0], 2 ** 31 - 1), z3.ULE(self.nctaid[1], 65535), z3.ULE(self.nctaid[2], 65535)]
        # a grid's global thread index along each axis fits 32 bits (solve.ASSUMPTIONS): at most 2^(31-k) blocks
        # of 2^k threads or more (fewer than 2^32 threads in all; a multiplication would cost the solver more)
        facts += [z3.Implies(z3.UGE(b, 1 << k), z3.ULE(g, 1 << (31 - k))) for g, b in zip(self.nctaid, self.ntid)
                  for k in range(11)]
        return facts


class Thread:
    """One of the two symbolic threads: its indices, within the launch's limits."""

    def __init__(self, number: int, launch: Launch):
        self.number = number
        self.tid = tuple(z3.BitVec(f"tid.{a}#{number}", 32) for a in AXES)
        self.ctaid = tuple(z3.BitVec(f"ctaid.{a}#{number}", 32) for a in AXES)
        self.facts = [z3.ULT(i, d) for i, d in zip(self.tid, launch.ntid)] + \
            [z3.ULT(i, d) for i, d in zip(self.ctaid, launch.nctaid)]


class Kernel:
    """A kernel's decoded function with what every walk of it needs: its loops, which of
    them hold a barrier, and which values are uniform across a block."""

    def __init__(self, program: Program, symbol: str):
        self.program = program
        self.function = program.function(symbol)
        self.symbol = symbol
        self.layout = program.layout
        self.loops = natural_loops(self.function)
        self.loop_of = {loop.header: loop for loop in self.loops}
        self.definer = {op.result: pc for pc, op in enumerate(self.function.ops) if op.result >= 0}
        self.barriers = [pc for pc, op in enumerate(self.function.ops) if _is_barrier(op) or _is_grid_sync(op)]
        self.grid_syncs = [pc for pc in self.barriers if _is_grid_sync(self.function.ops[pc])]
        self.barrier_loops = self._loops_holding(self.barriers)
        self.grid_loops = self._loops_holding(self.grid_syncs)
        self.uniform = _uniform_slots(self)
        self._invariant: dict[tuple[int, int], bool] = {}
        self._converged: set[int] | None = None
        self.byval = {index: program.module.functions[symbol].params[index].typed_attribute("byval")
                      for index in range(len(self.function.params))}

    def _loops_holding(self, pcs: list[int]) -> set[int]:
        return {loop.header for loop in self.loops if any(self.function.ops[pc].block in loop.blocks for pc in pcs)}

    def invariant(self, slot: int, loop: Loop) -> bool:
        """Whether `slot` has one value in every iteration of `loop`: defined outside it, or
        pure arithmetic inside it on such values and on index registers."""
        key = (slot, loop.header)
        if key not in self._invariant:
            self._invariant[key] = False  # a cycle (through a phi) is not invariant
            pc = self.definer.get(slot)
            op = self.function.ops[pc] if pc is not None else None
            if op is None or op.block not in loop.blocks:
                found = True
            elif op.opcode == "call":
                found = index_register(op.extra.get("callee") or "") is not None
            elif op.opcode in _VARYING:
                found = False
            else:
                found = all(self.invariant(a, loop) for a in op.args)
            self._invariant[key] = found
        return self._invariant[key]

    def converged(self) -> set[int]:
        """Blocks that two lanes of a lockstep warp run together whenever both run them:
        outside every loop (a block runs once an interval), and reached from one side only
        of each branch whose reconvergence point lies past them (lanes that split there run
        the sides one after the other; a block both sides reach would run twice)."""
        if self._converged is None:
            function = self.function
            apart = set()
            for number, block in enumerate(function.blocks):
                sides = set(block.successors)
                if len(sides) < 2:
                    continue
                reached = [_reach(function, side, function.ipdom[number]) for side in sides]
                apart |= {b for i, one in enumerate(reached) for other in reached[i + 1:] for b in one & other}
            in_loops = {b for loop in self.loops for b in loop.blocks}
            self._converged = set(range(len(function.blocks))) - apart - in_loops
        return self._converged

    def loops_around(self, block: int) -> list[Loop]:
        return [loop for loop in self.loops if block in loop.blocks]

    def line(self, pc: int) -> int | None:
        location = user_location(self.function.ops[pc].location)
        return location.line if location else None

    def file(self, pc: int) -> str:
        location = user_location(self.function.ops[pc].location)
        return location.file if location else ""


def _is_barrier(op) -> bool:
    return op.opcode == "call" and barrier_kind(op.extra.get("callee") or "") is not None


def _is_grid_sync(op) -> bool:
    """A cooperative grid's barrier (grid.sync()): every thread of the grid waits at it."""
    return op.opcode == "call" and op.extra.get("callee") == "__simulee_grid_sync"


class _State:
    """One path of a walk: where it is, its values, its condition and loop context."""

    __slots__ = ("block", "position", "previous", "values", "condition", "entered", "summarized")

    def __init__(self, block, position, previous, values, condition, entered, summarized):
        self.block, self.position, self.previous = block, position, previous
        self.values, self.condition, self.entered, self.summarized = values, condition, entered, summarized

    def fork(self, **changes) -> "_State":
        state = _State(self.block, self.position, self.previous, dict(self.values), self.condition, self.entered,
                       self.summarized)
        for name, value in changes.items():
            setattr(state, name, value)
        return state


class Walker:
    """The walks of one thread. `start`: None for the kernel's entry, else a barrier's pc;
    `through_barriers`: walk on past block barriers to the next grid barrier (threads of
    different blocks)."""

    def __init__(self, kernel: Kernel, launch: Launch, thread: Thread, start: int | None,
                 through_barriers: bool = False, shared: dict | None = None, deadline: float = float("inf")):
        self.kernel, self.launch, self.thread = kernel, launch, thread
        self.deadline = deadline  # a time.perf_counter() past which the walk stops (unknown)
        self.function = kernel.function
        self.start, self.through = start, through_barriers
        self.shared = {} if shared is None else shared  # uniform fresh values both threads share, by name
        self.before: dict[int, object] = {}  # values computed before the start
        self.fresh_count = itertools.count()
        self.walk = Walk()
        self.start_loops = [] if start is None else kernel.loops_around(self.function.ops[start].block)
        self.iteration: dict[int, z3.BitVecRef] = {}  # loop header -> the shared iteration at the start
        self.sides: list = []  # what the ops just evaluated promise (no signed wrap: nsw)
        self.conjunctions: dict[tuple, z3.BoolRef] = {(): z3.BoolVal(True)}  # see conjunction
        self.keys: dict[int, tuple] = {}  # id of a path's conditions -> (them, their key): see conjunction
        self.calls: list[str] = []  # the functions called through pointers this walk is within

    # --- values -------------------------------------------------------------------------
    def fresh(self, width: int, what: str, slot: int | None = None) -> z3.BitVecRef:
        """A fresh value; one both threads share when it stands for a uniform slot."""
        if slot is not None and slot in self.kernel.uniform and not self.through:
            name = f"u{slot}@{self.start}:{what}"
            if name not in self.shared:
                self.shared[name] = z3.BitVec(name, width)
            return self.shared[name]
        return z3.BitVec(f"{what}#{self.thread.number}@{self.start}.{next(self.fresh_count)}", width)

    def value(self, state: _State, slot: int):
        if slot in state.values:
            return state.values[slot]
        return self.prior(slot)

    def prior(self, slot: int):
        """The value of a slot defined before the walk's start (or a constant, a parameter)."""
        if slot in self.before:
            return self.before[slot]
        function = self.function
        if slot in function.constants:
            value = self.constant(function.constants[slot], function.slot_types[slot])
        elif slot in self.launch.params:
            value = self.launch.params[slot]
        elif slot in function.params:
            value = self.opaque(function.slot_types[slot], "param", slot)
        else:
            pc = self.kernel.definer.get(slot)
            op = function.ops[pc] if pc is not None else None
            if op is None:
                value = self.opaque(function.slot_types[slot], "undefined", slot)
            elif op.opcode == "phi":
                value = self.prior_phi(pc, op)
            elif op.opcode == "call" and (op.extra.get("callee") or "").startswith(SPECIAL_REGISTER):
                value = self.register(op.extra["callee"], op)
            else:
                self.before[slot] = None  # a cycle through non-phi ops cannot happen in SSA; guard anyway
                saved, self.sides = self.sides, []
                value = self.evaluate(None, pc, op)
                self.walk.facts += self.sides  # it was computed before the start: what it promises held
                self.sides = saved
                if value is _UNSET:
                    value = self.opaque(op.type, op.opcode, slot)
        self.before[slot] = value
        return value

    def prior_phi(self, pc: int, op):
        """A phi's value at the start: a header phi of a loop around the start is its value
        in the shared iteration, any other phi a fresh value."""
        loop = next((loop for loop in self.start_loops if loop.header == op.block), None)
        if loop is None:
            return self.opaque(op.type, "phi", op.result)
        inside = [(value, block) for value, block in zip(op.args, op.extra["blocks"]) if block in loop.blocks]
        outside = [(value, block) for value, block in zip(op.args, op.extra["blocks"]) if block not in loop.blocks]
        if len(outside) != 1:
            return self.opaque(op.type, "phi", op.result)
        if loop.header not in self.iteration:
            self.iteration[loop.header] = z3.BitVec(f"k{loop.header}@{self.start}", 64)
            self.shared.setdefault(f"k{loop.header}@{self.start}", self.iteration[loop.header])
        return self.induction(op, outside[0][0], inside, loop, self.iteration[loop.header],
                              lambda s: self.prior(s), shared=True)

    def induction(self, op, initial_slot: int, inside, loop: Loop, k, read, shared: bool):
        """A header phi's value in iteration k: affine, shrinking within its first value,
        else fresh."""
        initial = read(initial_slot)
        if len(inside) == 1:
            step, flags = self.step(op.result, inside[0][0], loop, read)
            if step is not None and not ({"nsw", "nuw"} & set(flags)):
                compared = self.compared(op.result, inside[0][0], loop)
                if compared:  # the counter is compared as a signed (unsigned) number: assumed not to wrap as one
                    flags = ("nsw",) if compared == "signed" else ("nuw",)
                    self.walk.assumed.append(COUNTERS_DO_NOT_WRAP)
            if step is not None and isinstance(initial, Pointer):
                return Pointer(initial.base, initial.offset + step * k)
            if step is not None and z3.is_bv(initial):
                width = initial.size()
                if width >= 64:
                    return self.wide_counter(op.result, initial, step, k, flags)
                if "nsw" in flags or "nuw" in flags:  # the sequence never wraps: fewer than 2^32 distinct steps
                    extend = z3.SignExt if "nsw" in flags else z3.ZeroExt
                    # an unsigned counter goes down by a negative constant step (r--), else up by its step
                    down = z3.is_bv_value(z3.simplify(step)) and z3.simplify(step).as_signed_long() < 0
                    distance = step if "nsw" in flags or down else \
                        z3.ZeroExt(64 - width, z3.Extract(width - 1, 0, step))
                    start = extend(64 - width, initial)
                    wide = start + distance * k
                    low, high = (-(1 << (width - 1)), 1 << (width - 1)) if "nsw" in flags else (0, 1 << width)
                    self.walk.facts += [z3.ULT(k, 1 << 32), wide >= low, wide < high] if "nsw" in flags else \
                        [z3.ULT(k, 1 << 32), z3.ULT(wide, high)]
                    self.walk.inductions.append(Induction(op.result, start, distance, k, wide))
                    return z3.Extract(width - 1, 0, wide)
                return initial + z3.Extract(width - 1, 0, step) * z3.Extract(width - 1, 0, k)
            if z3.is_bv(initial) and self.shrinks(op.result, inside[0][0]):
                value = self.fresh(initial.size(), "shrinking", op.result if shared else None)
                self.walk.facts.append(z3.ULE(value, initial))
                return value
        if isinstance(initial, Pointer):
            return Pointer(None, self.fresh(64, "pointer"))
        return self.opaque(op.type, "loop", op.result if shared else None)

    def wide_counter(self, slot: int, initial, step, k, flags) -> z3.BitVecRef:
        """A 64-bit counter `initial + step * k`; one that does not wrap (`flags`) is an
        Induction: unsigned, no term overflows; signed, none does when it starts at 0 or
        above and counts up (its iterations all lie between its start and 2^63)."""
        value = initial + step * k
        if "nuw" in flags:
            self.walk.facts += [z3.BVMulNoOverflow(step, k, False), z3.BVAddNoOverflow(initial, step * k, False)]
        elif "nsw" in flags:
            self.walk.facts.append(z3.Implies(z3.And(initial >= 0, step > 0), z3.And(
                k >= 0, z3.BVMulNoOverflow(step, k, True), z3.BVAddNoOverflow(initial, step * k, True))))
        else:
            return value
        self.walk.inductions.append(Induction(slot, initial, step, k, value))
        return value

    def step(self, phi: int, update: int, loop: Loop, read):
        """The 64-bit step of `phi` when `update` is phi + c, phi - c or a getelementptr of
        phi by c, c invariant in the loop (None otherwise), and the update's no-wrap flags."""
        pc = self.kernel.definer.get(update)
        if pc is None:
            return None, ()
        op = self.function.ops[pc]
        flags = op.extra.get("flags", ())

        def invariant(slot):
            return self.kernel.invariant(slot, loop)

        if op.opcode in ("add", "sub") and phi in op.args:
            other = op.args[1] if op.args[0] == phi else op.args[0]
            if not invariant(other) or (op.opcode == "sub" and op.args[0] != phi):
                return None, ()
            c = read(other)
            if not z3.is_bv(c):
                return None, ()
            c = z3.SignExt(64 - c.size(), c) if c.size() < 64 else c
            return (-c if op.opcode == "sub" else c), (() if op.opcode == "sub" else flags)
        if op.opcode == "getelementptr" and op.args[0] == phi and len(op.args) == 2 and invariant(op.args[1]):
            c = read(op.args[1])
            if not z3.is_bv(c):
                return None, ()
            c = z3.SignExt(64 - c.size(), c) if c.size() < 64 else c
            return c * self.kernel.layout.size(op.extra["source_type"]), ()
        return None, ()

    def compared(self, phi: int, update: int, loop: Loop) -> str | None:
        """"signed" or "unsigned": how the loop's exits compare its counter `phi` (or its
        update); None when they do not compare it by order."""
        kinds = set()
        for block in loop.blocks:
            terminator = self.function.ops[self.function.blocks[block].end - 1]
            if terminator.opcode != "br" or not terminator.args:
                continue
            pc = self.kernel.definer.get(terminator.args[0])
            op = self.function.ops[pc] if pc is not None else None
            if op is not None and op.opcode == "icmp" and {phi, update} & set(op.args):
                predicate = op.extra["predicate"]
                kinds.add("signed" if predicate.startswith("s") else "unsigned" if predicate[0] == "u" else "equality")
        return kinds.pop() if len(kinds) == 1 and "equality" not in kinds else None

    def shrinks(self, phi: int, update: int) -> bool:
        """Whether `update` is phi >> c or phi / c (unsigned, c a positive constant)."""
        pc = self.kernel.definer.get(update)
        if pc is None:
            return False
        op = self.function.ops[pc]
        constant = self.function.constants.get(op.args[1]) if len(op.args) == 2 else None
        return op.opcode in ("lshr", "udiv") and op.args[0] == phi and isinstance(constant, ir.ConstInt) \
            and constant.value > 0

    def opaque(self, ty, what: str, slot: int | None = None):
        if isinstance(ty, PointerType):
            return Pointer(None, self.fresh(64, what))
        width = _width(ty)
        return self.fresh(width, what, slot) if width else None

    def constant(self, constant, ty):
        if isinstance(constant, ir.ConstInt):
            return z3.BitVecVal(constant.value % (1 << ty.bits), ty.bits) if isinstance(ty, IntType) else None
        if isinstance(constant, Address):
            return Pointer(("global", constant.name), z3.BitVecVal(constant.offset, 64))
        if isinstance(constant, ir.ConstSpecial) and constant.kind in ("null", "zeroinitializer") and \
                isinstance(ty, PointerType):
            return Pointer(("null",), z3.BitVecVal(0, 64))
        if isinstance(constant, ir.ConstSpecial) and isinstance(ty, IntType):
            return z3.BitVecVal(0, ty.bits) if constant.kind == "zeroinitializer" else \
                self.fresh(ty.bits, constant.kind)
        if isinstance(constant, ir.ConstFloat):
            return self.fresh(_width(ty) or 32, "float")
        return self.opaque(ty, "constant")

    def conjunction(self, conditions: tuple) -> z3.BoolRef:
        """And of a path's conditions, built on the conjunction of the path's shorter prefix
        where that was built (a path's accesses would each build it again in full)."""
        known = self.keys.get(id(conditions))  # a state's accesses share its tuple: its key is made once
        if known is None or known[0] is not conditions:
            known = self.keys[id(conditions)] = (conditions, tuple(c.get_id() for c in conditions))
        key = known[1]
        if key not in self.conjunctions:
            shorter = len(key) - 1
            while shorter > 0 and key[:shorter] not in self.conjunctions:
                shorter -= 1
            built = self.conjunctions[key[:shorter]] if shorter else z3.BoolVal(True)
            for end in range(shorter, len(key)):
                built = conjoined((built, conditions[end])) if end else conditions[0]
                self.conjunctions[key[:end + 1]] = built
        return self.conjunctions[key]

    # --- walking ------------------------------------------------------------------------
    def run(self) -> Walk:
        function = self.function
        if self.start is None:
            state = _State(0, function.blocks[0].start, None, {}, (), frozenset(), frozenset())
        else:
            op = function.ops[self.start]
            state = _State(op.block, self.start + 1, None, {}, (), frozenset(), frozenset())
            for loop in self.start_loops:  # the loop's own condition held in this iteration
                self.header_fact(loop)
            self.entry_assumptions()
        stack, visits = [state], 0
        while stack:
            state = stack.pop()
            visits += 1
            if visits > MAX_BLOCK_VISITS:
                self.walk.unknown.append("too many paths")
                break
            if visits % 64 == 0 and time.perf_counter() > self.deadline:
                self.walk.unknown.append("the walk ran out of time")
                break
            stack.extend(self.step_block(state))
        self.walk.accesses = _merged(self.walk.accesses)
        return self.walk

    def entry_assumptions(self) -> None:
        """What the kernel assumes on every path (its preconditions, __assume/__requires in
        the blocks that post-dominate its entry) holds for this thread in a valid launch,
        whether the thread has reached them yet or not: facts of a walk from a barrier."""
        function = self.function
        block, chain = 0, []
        while 0 <= block < len(function.blocks) and block not in chain:
            chain.append(block)
            block = function.ipdom[block]
        for op in (function.ops[pc] for block in chain for pc in range(function.blocks[block].start,
                                                                       function.blocks[block].end)):
            callee = op.extra.get("callee") if op.opcode == "call" else None
            if (callee or "").startswith(_ENDS_THREAD):
                return
            if callee in _ASSUMES:
                self.walk.facts += self.assumption(callee, self.prior(op.args[0]))

    def assumption(self, callee: str, condition) -> list:
        """What an assume call (one of _ASSUMES) of `condition` makes hold, noting a
        kernel's own precondition among the walk's assumptions."""
        if not z3.is_bv(condition):
            return []
        if callee != "llvm.assume":
            self.walk.assumed.append(PRECONDITIONS)
        return [condition != 0]

    def header_fact(self, loop: Loop) -> None:
        terminator = self.function.ops[self.function.blocks[loop.header].end - 1]
        if terminator.opcode != "br" or len(terminator.args) != 1:
            return
        inside = [target in loop.blocks for target in terminator.extra["targets"]]
        if inside.count(True) != 1:
            return
        condition = self.prior(terminator.args[0])
        if z3.is_bv(condition):
            self.walk.facts.append(condition == (1 if inside[0] else 0))

    def step_block(self, state: _State) -> list[_State]:
        """Run `state`'s block from its position; the states it continues in."""
        function = self.function
        block = function.blocks[state.block]
        position = state.position
        if position == block.start:  # entered: its phis take their values from the edge
            phis = []
            while position < block.end and function.ops[position].opcode == "phi":
                op = function.ops[position]
                incoming = dict(zip(op.extra["blocks"], op.args))
                slot = incoming.get(state.previous)
                phis.append((op.result, self.value(state, slot) if slot is not None else
                             self.opaque(op.type, "phi")))
                position += 1
            for slot, value in phis:
                state.values[slot] = value
        for pc in range(position, block.end):
            op = function.ops[pc]
            if _is_grid_sync(op) or (_is_barrier(op) and not self.through):
                self.end(state, pc)
                return []
            outcome = self.execute(state, pc, op)
            if outcome is _STOP:
                return []
            if isinstance(outcome, list):
                return outcome
        return []

    def end(self, state: _State, where) -> None:
        self.walk.ends.setdefault(where, []).append(self.conjunction(state.condition))

    def execute(self, state: _State, pc: int, op):
        """Run one op: None to go on, _STOP to end the path, or the successor states."""
        opcode = op.opcode
        if opcode in ("br", "switch"):
            return self.branch(state, op)
        if opcode == "ret":
            self.end(state, "exit")
            return _STOP
        if opcode == "unreachable":
            return _STOP
        if opcode in ("load", "store", "atomicrmw", "cmpxchg"):
            self.memory(state, pc, op)
            return None
        if opcode == "fence":
            self.orders(pc, "a fence")
            return None
        if opcode == "unsupported":  # it may touch memory the model does not see
            self.walk.unknown.append(f"an instruction the model does not know ({op.extra.get('reason', op.text)[:80]})")
        if opcode == "call":
            return self.call(state, pc, op)
        if opcode == "select" and isinstance(self.value(state, op.args[1]), Pointer):
            return self.pointer_select(state, pc, op)
        self.sides = []
        value = self.evaluate(state, pc, op)
        if self.sides:
            state.condition = state.condition + tuple(self.sides)
        if op.result >= 0:
            state.values[op.result] = self.opaque(op.type, opcode, op.result) if value is _UNSET else value
        return None

    def branch(self, state: _State, op) -> list[_State]:
        targets = op.extra.get("targets", ())
        if op.opcode == "br" and len(op.args) == 0:
            return self.go(state, targets[0], None)
        if op.opcode == "br":
            condition = self.value(state, op.args[0])
            if not z3.is_bv(condition):
                return self.go(state, targets[0], None) + self.go(state, targets[1], None)
            return self.go(state, targets[0], condition == 1) + self.go(state, targets[1], condition == 0)
        selector = self.value(state, op.args[0])
        cases = op.extra["cases"]
        if not z3.is_bv(selector):
            return [s for _, target in cases for s in self.go(state, target, None)] + \
                self.go(state, op.extra["default"], None)
        values = [z3.BitVecVal(int(getattr(v, "value", v)) % (1 << selector.size()), selector.size())
                  for v, _ in cases]
        found = [s for value, (_, target) in zip(values, cases) for s in self.go(state, target, selector == value)]
        return found + self.go(state, op.extra["default"], z3.And([selector != v for v in values]))

    def go(self, state: _State, target: int, condition) -> list[_State]:
        """The state entering `target` from `state`'s block under `condition` (none when
        the path ends there: a back edge of a loop walked once)."""
        if condition is not None:  # simplified only to tell a decided branch: rewriting loses the terms' sharing
            simplified = z3.simplify(condition)
            if z3.is_false(simplified):
                return []
            condition = None if z3.is_true(simplified) else condition
        conditions = state.condition + ((condition,) if condition is not None else ())
        loop = self.kernel.loop_of.get(target)
        entered, summarized = state.entered, state.summarized
        if loop is not None and state.block in loop.blocks:  # a back edge
            if target in summarized:
                return []  # the summarized iteration is any iteration: the next one is walked as it
            if target in entered:
                line = self.kernel.line(self.function.blocks[target].start) or "?"
                self.walk.unknown.append(f"a path around the loop at line {line} passes no barrier")
                return []
            entered = entered | {target}
        elif loop is not None:  # entering a loop
            if target not in (self.kernel.grid_loops if self.through else self.kernel.barrier_loops):
                new = state.fork(block=target, position=self.function.blocks[target].start, previous=state.block,
                                 condition=conditions, summarized=summarized | {target})
                return [self.summarize(new, loop)]
        # loops left are no longer summarized or entered on this path
        summarized = frozenset(h for h in summarized if target in self.kernel.loop_of[h].blocks)
        entered = frozenset(h for h in entered if target in self.kernel.loop_of[h].blocks)
        block = self.function.blocks[target]
        return [state.fork(block=target, position=block.start, previous=state.block, condition=conditions,
                           entered=entered, summarized=summarized)]

    def summarize(self, state: _State, loop: Loop) -> _State:
        """Enter a loop walked once for an arbitrary iteration: its header's phis take their
        values in iteration k (a fresh iteration number of this thread)."""
        function = self.function
        k = z3.BitVec(f"k{loop.header}#{self.thread.number}@{self.start}.{next(self.fresh_count)}", 64)
        position = function.blocks[loop.header].start
        phis = []
        while function.ops[position].opcode == "phi":
            op = function.ops[position]
            pairs = list(zip(op.args, op.extra["blocks"]))
            inside = [(v, b) for v, b in pairs if b in loop.blocks]
            initial = next((v for v, b in pairs if b == state.previous), None)
            if initial is None:
                phis.append((op.result, self.opaque(op.type, "loop")))
            else:
                phis.append((op.result, self.induction(op, initial, inside, loop, k,
                                                       lambda s: self.value(state, s), shared=False)))
            position += 1
        for slot, value in phis:
            state.values[slot] = value
        state.values[("iteration", loop.header)] = k  # this path's iteration number of the loop
        state.position = position
        return state

    def pointer_select(self, state: _State, pc: int, op) -> list[_State]:
        """A select between pointers: each way its own path (their bases may differ)."""
        condition = self.value(state, op.args[0])
        forks = []
        for chosen, holds in ((op.args[1], 1), (op.args[2], 0)):
            extra = (condition == holds,) if z3.is_bv(condition) else ()
            new = state.fork(position=pc + 1, condition=state.condition + extra)
            new.values[op.result] = self.value(state, chosen)
            forks.append(new)
        return forks

    # --- memory -------------------------------------------------------------------------
    def memory(self, state: _State, pc: int, op) -> None:
        opcode = op.opcode
        scope = self.scope(pc, op) if opcode in ("atomicrmw", "cmpxchg") or op.extra.get("atomic") else 0
        if opcode == "load":
            pointer = self.value(state, op.args[0])
            self.record(state, pc, "read", pointer, self.size(op.type), scope)
            state.values[op.result] = self.loaded(pointer, op)
        elif opcode == "store":
            pointer = self.value(state, op.args[1])
            self.record(state, pc, "write", pointer, self.size(op.arg_types[0]), scope)
        else:
            pointer = self.value(state, op.args[0])
            self.record(state, pc, "atomic", pointer, self.size(op.arg_types[1]), scope)
            if op.result >= 0:
                state.values[op.result] = self.opaque(op.type, opcode)

    def scope(self, pc: int, op) -> int:
        """The scope of an atomic load, store or read-modify-write (none named: the device's,
        as CUDA's atomicAdd); one the model does not know makes the walk inexact (it could
        order less than the model would take). An acquire or a release is noted (ordering)."""
        unknown = unknown_syncscope(op.extra)
        if unknown is not None:
            line = self.kernel.line(pc)
            self.walk.unknown.append(f'an atomic of scope "{unknown}"{f" at line {line}" if line else ""}, a scope '
                                     "the model does not know")
        sync = access_sync(op.opcode, op.extra)
        if sync & (ACQUIRE | RELEASE):
            self.orders(pc, "an acquire" if sync & ACQUIRE else "a release")
        return sync & SCOPE_BITS

    def orders(self, pc: int, what: str) -> None:
        """Note that the instruction at `pc` (`what` it is) may order accesses through memory."""
        line = self.kernel.line(pc)
        noted = f"{what} at line {line}" if line else what
        if noted not in self.walk.ordering:
            self.walk.ordering.append(noted)

    def loaded(self, pointer, op):
        """A loaded value: a member of a struct passed by value is the launch's (uniform; a
        pointer member a base object of its own); anything else fresh for this thread."""
        if isinstance(pointer, Pointer) and pointer.base and pointer.base[0] == "param" and \
                self.kernel.byval.get(pointer.base[1]) is not None:
            offset = z3.simplify(pointer.offset)
            width = _width(op.type)
            if z3.is_bv_value(offset) and isinstance(op.type, PointerType):
                self.walk.assumed.append(MEMBERS_DO_NOT_OVERLAP)
                return Pointer(("member", pointer.base[1], offset.as_long()), z3.BitVecVal(0, 64))
            if z3.is_bv_value(offset) and width:
                name = f"arg{pointer.base[1]}+{offset.as_long()}:{width}"
                return self.shared.setdefault(name, z3.BitVec(name, width))
        return self.opaque(op.type, "load")

    def size(self, ty) -> z3.BitVecRef:
        return z3.BitVecVal(self.kernel.layout.store_size(ty), 64)

    def record(self, state: _State, pc: int, kind: str, pointer, size, scope: int = 0) -> None:
        if not isinstance(pointer, Pointer):
            pointer = Pointer(None, self.fresh(64, "address"))
        space = self.space(pointer.base)
        if space in ("local", "constant", "null", "param"):
            return
        condition = self.conjunction(state.condition)
        if pointer.inbounds:  # an offset that wrapped is in no buffer: out of bounds, check's question
            condition = conjoined((condition, *pointer.inbounds))
        self.walk.accesses.append(Access(kind, pointer.base, space, pointer.offset, size, condition, pc,
                                         self.kernel.line(pc), self.kernel.file(pc), scope=scope))

    def space(self, base) -> str:
        if base is None:
            return "any"
        if base[0] == "member":  # what the host put in a struct: device memory
            return "global"
        if base[0] == "param":
            return "param" if self.kernel.byval.get(base[1]) is not None else "global"
        if base[0] == "global":
            variable = self.kernel.program.module.globals.get(base[1])
            if variable is None:
                return "global"
            return "constant" if variable.constant else SPACES.get(variable.addrspace, "global")
        return base[0]  # local, null

    # --- calls --------------------------------------------------------------------------
    def call(self, state: _State, pc: int, op):
        callee = op.extra.get("callee") or ""
        if callee.startswith(SPECIAL_REGISTER):
            state.values[op.result] = self.register(callee, op)
            return None
        if barrier_kind(callee) is not None:  # walked through (threads of different blocks)
            if op.result >= 0:
                state.values[op.result] = self.opaque(op.type, "barrier")
            return None
        if callee.startswith(_FENCES):
            self.orders(pc, "a fence")
            return None
        if callee.startswith("llvm.nvvm.isspacep."):  # which space a pointer of a known base is in
            state.values[op.result] = self.in_space(callee.removeprefix("llvm.nvvm.isspacep."),
                                                    self.value(state, op.args[0]), op)
            return None
        if callee.startswith(_NO_EFFECT):
            if op.result >= 0:
                state.values[op.result] = self.opaque(op.type, "call")
            return None
        if callee.startswith(_ENDS_THREAD):
            return _STOP
        if callee in _ASSUMES:  # a launch where it fails is invalid, as check says
            state.condition = state.condition + tuple(self.assumption(callee, self.value(state, op.args[0])))
            return None
        if callee.startswith(("llvm.memset", "llvm.memcpy", "llvm.memmove")) or callee in ("memset", "memcpy",
                                                                                               "memmove"):
            length = self.value(state, op.args[2])
            length = z3.ZeroExt(64 - length.size(), length) if z3.is_bv(length) and length.size() < 64 else length
            if not z3.is_bv(length):
                length = self.fresh(64, "length")
            self.record(state, pc, "write", self.value(state, op.args[0]), length)
            if not callee.startswith(("llvm.memset", "memset")):
                self.record(state, pc, "read", self.value(state, op.args[1]), length)
            if op.result >= 0:  # the C functions return their destination
                state.values[op.result] = self.value(state, op.args[0])
            return None
        if callee.startswith(("llvm.umin", "llvm.umax", "llvm.smin", "llvm.smax", "llvm.abs")):
            state.values[op.result] = self.minmax(callee, [self.value(state, a) for a in op.args], op)
            return None
        if callee in _INTEGER_INTRINSICS:
            args = [self.value(state, a) for a in op.args]
            exact = all(z3.is_bv(a) for a in args)
            state.values[op.result] = _INTEGER_INTRINSICS[callee](*args) if exact else self.opaque(op.type, "call")
            return None
        if callee.startswith(("llvm.nvvm.atomic", "llvm.nvvm.atom")):
            self.record(state, pc, "atomic", self.value(state, op.args[0]), self.size(op.type), call_scope(callee))
            state.values[op.result] = self.opaque(op.type, "atomic")
            return None
        if not callee and "function_type" in op.extra:
            return self.indirect(state, op)
        declared = self.kernel.program.module.functions.get(callee)
        if declared is not None and not declared.is_declaration:
            self.walk.unknown.append(f"a call to {callee} that is not inlined")
            return _STOP
        if not callee.startswith(_NO_MEMORY) and callee not in ("vprintf", "malloc", "free") and any(
                isinstance(self.value(state, a), Pointer) and self.space(self.value(state, a).base) in
                ("global", "shared", "any") for a in op.args):
            self.walk.unknown.append(f"a call to {callee or 'a function pointer'} with a pointer to memory")
        if op.result >= 0:
            state.values[op.result] = self.opaque(op.type, "call")
        return None

    def in_space(self, space: str, pointer, op):
        """__isGlobal, __isShared, __isLocal, __isConstant of a pointer: known for a base
        object's space, else any value."""
        where = self.space(pointer.base) if isinstance(pointer, Pointer) and pointer.base else None
        if where in ("global", "shared", "local", "constant"):
            return z3.BitVecVal(int(where == {"const": "constant"}.get(space, space)), _width(op.type) or 1)
        return self.opaque(op.type, "call")

    def indirect(self, state: _State, op):
        """A call through a function pointer: what each function it may name does (the
        one it names when known, else every function of the program of the call's type),
        walked with the call's arguments under the call's path; its result any value."""
        module = self.kernel.program.module
        target = self.value(state, op.args[-1])
        if isinstance(target, Pointer) and target.base and target.base[0] == "global" and \
                target.base[1] in module.functions and z3.is_bv_value(z3.simplify(target.offset)):
            names = [target.base[1]]
        else:
            kernels = {k.symbol for k in self.kernel.program.kernels}
            names = [name for name, f in module.functions.items() if not f.is_declaration and name not in kernels
                     and FunctionType(f.result, tuple(p.type for p in f.params), f.vararg) == op.extra["function_type"]]
            self.walk.assumed.append(FUNCTION_POINTERS)
        if len(self.calls) >= MAX_CALL_DEPTH or set(names) & set(self.calls) or not names:
            self.walk.unknown.append("a call through a function pointer the model does not follow")
            return _STOP
        arguments = [self.value(state, a) for a in op.args[:-1]]
        condition = self.conjunction(state.condition)
        for name in names:
            walk = self.callee(name, arguments)
            if set(walk.ends) - {"exit"}:
                self.walk.unknown.append(f"a barrier in {name}, called through a function pointer")
            self.walk.unknown += walk.unknown
            self.walk.ordering += walk.ordering
            self.walk.assumed += walk.assumed
            self.walk.inductions += walk.inductions
            self.walk.facts += walk.facts
            self.walk.accesses += [replace(a, condition=z3.And(condition, a.condition), function=a.function or name)
                                   for a in walk.accesses]
        if op.result >= 0:
            state.values[op.result] = self.opaque(op.type, "call")
        return None

    def callee(self, name: str, arguments: list) -> Walk:
        """The walk of this thread through function `name` from its entry to its returns,
        its parameters bound to `arguments`: its own values fresh where the kernel's would be
        (none shared as uniform, its slots being another function's), named apart from them."""
        function = Kernel(self.kernel.program, name)
        function.uniform = set()
        function.byval = self.kernel.byval  # a ("param", i) base is the kernel's parameter i
        walker = Walker(function, Launch(self.launch.ntid, self.launch.nctaid, {}), self.thread, None, self.through,
                        deadline=self.deadline)
        walker.fresh_count, walker.calls = self.fresh_count, [*self.calls, name]
        walker.before.update(zip(function.function.params, arguments))
        return walker.run()

    def register(self, callee: str, op):
        name = index_register(callee)
        if name is None:
            register = callee.removeprefix(SPECIAL_REGISTER)
            if register == "warpsize":
                return z3.BitVecVal(32, 32)
            return self.fresh(_width(op.type) or 32, register.replace(".", "_"))
        register, axis = name.split(".")
        index = AXES.index(axis)
        return {"tid": self.thread.tid, "ctaid": self.thread.ctaid, "ntid": self.launch.ntid,
                "nctaid": self.launch.nctaid}[register][index]

    def minmax(self, callee: str, args, op):
        if not all(z3.is_bv(a) for a in args[:2]) and not callee.startswith("llvm.abs"):
            return self.opaque(op.type, "minmax")
        a = args[0]
        if callee.startswith("llvm.abs"):
            return z3.If(a < 0, -a, a) if z3.is_bv(a) else self.opaque(op.type, "abs")
        b = args[1]
        return {"llvm.umin": z3.If(z3.ULT(a, b), a, b), "llvm.umax": z3.If(z3.UGT(a, b), a, b),
                "llvm.smin": z3.If(a < b, a, b), "llvm.smax": z3.If(a > b, a, b)}[callee.rsplit(".", 1)[0]]

    # --- pure operations ----------------------------------------------------------------
    def evaluate(self, state: _State | None, pc: int, op):
        """The value of a pure op (state None: from values before the start); _UNSET when
        the model has none (it is then fresh)."""
        read = (lambda s: self.prior(s)) if state is None else (lambda s: self.value(state, s))
        opcode = op.opcode
        if opcode in _BINARY:
            a, b = read(op.args[0]), read(op.args[1])
            if not (z3.is_bv(a) and z3.is_bv(b)) or a.size() != b.size():
                return _UNSET
            flags = op.extra.get("flags", ())
            if ("nsw" in flags or "nuw" in flags) and opcode in _NO_WRAP:
                self.sides.append(_NO_WRAP[opcode](a, b, "nsw" in flags))
            return _BINARY[opcode](a, b, self, op)
        if opcode == "icmp":
            a, b = read(op.args[0]), read(op.args[1])
            if isinstance(a, Pointer) and isinstance(b, Pointer):
                if a.base is not None and a.base == b.base:
                    a, b = a.offset, b.offset
                else:
                    return _UNSET
            if not (z3.is_bv(a) and z3.is_bv(b)) or a.size() != b.size():
                return _UNSET
            holds = COMPARE[op.extra["predicate"]](a, b)
            return z3.If(holds, z3.BitVecVal(1, 1), z3.BitVecVal(0, 1))
        if opcode in ("zext", "sext", "trunc"):
            a = read(op.args[0])
            if not z3.is_bv(a) or not isinstance(op.type, IntType):
                return _UNSET
            bits = op.type.bits
            if opcode == "trunc":
                return z3.Extract(bits - 1, 0, a)
            return (z3.ZeroExt if opcode == "zext" else z3.SignExt)(bits - a.size(), a)
        if opcode in ("addrspacecast", "bitcast", "freeze"):
            a = read(op.args[0])
            if isinstance(a, Pointer) and isinstance(op.type, PointerType):
                return a
            if z3.is_bv(a) and _width(op.type) == a.size():
                return a if opcode == "freeze" or isinstance(op.type, IntType) == isinstance(
                    op.arg_types[0], IntType) else _UNSET
            return _UNSET
        if opcode == "getelementptr":
            return self.getelementptr(read, op)
        if opcode == "inttoptr":  # a pointer made an integer and back (libcu++'s atomics) is that pointer
            source = self.kernel.definer.get(op.args[0])
            if source is not None and self.function.ops[source].opcode == "ptrtoint":
                pointer = read(self.function.ops[source].args[0])
                return pointer if isinstance(pointer, Pointer) else _UNSET
            return _UNSET
        if opcode == "select":
            condition, a, b = (read(s) for s in op.args)
            if z3.is_bv(condition) and z3.is_bv(a) and z3.is_bv(b) and a.size() == b.size():
                return z3.If(condition == 1, a, b)
            return _UNSET
        if opcode == "alloca":
            return Pointer(("local", pc), z3.BitVecVal(0, 64))
        return _UNSET

    def getelementptr(self, read, op):
        base = read(op.args[0])
        if not isinstance(base, Pointer):
            return _UNSET
        layout = self.kernel.layout
        offset, inbounds = base.offset, base.inbounds
        wraps = not {"inbounds", "nusw"} & set(op.extra.get("flags", ()))
        current = op.extra["source_type"]
        for position, slot in enumerate(op.args[1:]):
            index = read(slot)
            if position == 0:
                scale = layout.size(current)
            elif isinstance(current, StructType):
                constant = self.function.constants.get(slot)
                field_number = int(getattr(constant, "value", 0))
                offset = offset + layout.field_offsets(current)[field_number]
                current = current.fields[field_number]
                continue
            elif isinstance(current, (ArrayType, VectorType)):
                current = current.element
                scale = layout.size(current)
            else:
                return Pointer(base.base, self.fresh(64, "offset"))
            if not z3.is_bv(index):
                return Pointer(base.base, self.fresh(64, "offset"))
            index = z3.SignExt(64 - index.size(), index) if index.size() < 64 else index
            step = index * scale
            if not wraps:  # LLVM: inbounds offsets do not wrap as signed numbers (else the pointer is poison)
                scale = z3.BitVecVal(scale, 64)
                inbounds += (z3.BVMulNoOverflow(index, scale, True), z3.BVMulNoUnderflow(index, scale),
                             z3.BVAddNoOverflow(offset, step, True), z3.BVAddNoUnderflow(offset, step))
            offset = offset + step
        return Pointer(base.base, offset, inbounds)


_UNSET = object()
_STOP = object()


def conjoined(conditions: tuple) -> z3.BoolRef:
    """And of z3 Booleans of one context, made by z3's C API: z3.And checks and coerces each
    argument in Python, which cost a walk most of its time (record's conditions)."""
    if len(conditions) == 1:
        return conditions[0]
    context = conditions[0].ctx
    arguments = (z3.Ast * len(conditions))(*(condition.as_ast() for condition in conditions))
    return z3.BoolRef(z3.Z3_mk_and(context.ref(), len(conditions), arguments), context)


# each integer operation on two bit-vectors, as z3 computes it (a division by zero or a shift past the width gives
# z3's value: the walker's _BINARY makes those any value)
OPERATIONS = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b, "and": lambda a, b: a & b,
    "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b, "udiv": z3.UDiv, "sdiv": lambda a, b: a / b,
    "urem": z3.URem, "srem": z3.SRem, "shl": lambda a, b: a << b, "lshr": z3.LShR, "ashr": lambda a, b: a >> b,
}


def _division(kind: str):
    def divide(a, b, walker: Walker, op):
        # division by zero: whatever the hardware gives
        return z3.If(b == 0, walker.fresh(a.size(), "quotient"), OPERATIONS[kind](a, b))
    return divide


def _shift(kind: str):
    def shift(a, b, walker: Walker, op):
        # a shift by the width or more is poison: anything
        return z3.If(z3.UGE(b, a.size()), walker.fresh(a.size(), "shifted"), OPERATIONS[kind](a, b))
    return shift


_BINARY = {
    **{kind: (lambda operation: lambda a, b, w, op: operation(a, b))(OPERATIONS[kind])
       for kind in ("add", "sub", "mul", "and", "or", "xor")},
    **{kind: _division(kind) for kind in ("udiv", "sdiv", "urem", "srem")},
    **{kind: _shift(kind) for kind in ("shl", "lshr", "ashr")},
}


def _no_wrap(operation):
    def holds(a, b, signed: bool):
        extend = z3.SignExt if signed else z3.ZeroExt
        width = a.size() if operation == "mul" else 1
        exact = {"add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y}[operation]
        return exact(extend(width, a), extend(width, b)) == extend(width, exact(a, b))
    return holds


# what `nsw` / `nuw` promise: the operation does not wrap (else its value is poison)
_NO_WRAP = {"add": _no_wrap("add"), "sub": _no_wrap("sub"), "mul": _no_wrap("mul")}
COMPARE = {  # each icmp predicate on two bit-vectors
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "ugt": z3.UGT, "uge": z3.UGE, "ult": z3.ULT,
    "ule": z3.ULE, "sgt": lambda a, b: a > b, "sge": lambda a, b: a >= b, "slt": lambda a, b: a < b,
    "sle": lambda a, b: a <= b,
}


def _mul24(signed: bool):
    """__mul24/__umul24: the low 32 bits of the product of the operands' low 24 bits, each
    extended as the sign says."""
    extend = z3.SignExt if signed else z3.ZeroExt
    return lambda a, b: extend(8, z3.Extract(23, 0, a)) * extend(8, z3.Extract(23, 0, b))


def _mulhi(signed: bool):
    """__mulhi/__umulhi (and the 64-bit ones): the high half of the full product."""
    extend = z3.SignExt if signed else z3.ZeroExt
    return lambda a, b: z3.Extract(2 * a.size() - 1, a.size(), extend(a.size(), a) * extend(b.size(), b))


_INTEGER_INTRINSICS = {"llvm.nvvm.mul24.i": _mul24(True), "llvm.nvvm.mul24.ui": _mul24(False),
                       "llvm.nvvm.mulhi.i": _mulhi(True), "llvm.nvvm.mulhi.ui": _mulhi(False),
                       "llvm.nvvm.mulhi.ll": _mulhi(True), "llvm.nvvm.mulhi.ull": _mulhi(False)}


def _merged(accesses: list[Access]) -> list[Access]:
    """One access for each site and address the paths reach it with, under the disjunction
    of their conditions (paths after branches that rejoin repeat the same accesses)."""
    groups: dict[tuple, list[Access]] = {}
    for access in accesses:
        key = (access.function, access.pc, access.kind, access.base, access.space, access.offset.get_id(),
               access.size.get_id())
        groups.setdefault(key, []).append(access)
    return [group[0] if len(group) == 1 else
            replace(group[0], condition=z3.Or([a.condition for a in group]))
            for group in groups.values()]


def _width(ty) -> int | None:
    """The bits of a value the model keeps as a bit-vector (integers, floats, pointers' offsets)."""
    if isinstance(ty, (IntType, FloatType)):
        return ty.bits
    return 64 if isinstance(ty, PointerType) else None


def _uniform_slots(kernel: Kernel) -> set[int]:
    """The slots whose value is the same for every thread of a block that computes it at the
    same point of the same iteration: computed from block indices, launch dimensions,
    parameters and constants alone, and (phis) not chosen by a branch the threads of a
    block may take apart. Loads, atomics, calls and thread indices are not. Divergence only
    grows until nothing changes."""
    function = kernel.function
    divergent: set[int] = set()
    divergent_blocks: set[int] = set()
    changed = True
    while changed:
        changed = False
        for op in function.ops:
            if op.result < 0 or op.result in divergent:
                continue
            if op.opcode == "call":
                name = index_register(op.extra.get("callee") or "")
                varies = name is None or name.startswith("tid")
            elif op.opcode in ("load", "atomicrmw", "cmpxchg", "alloca", "unsupported"):
                varies = True
            else:
                varies = any(a in divergent for a in op.args) or (op.opcode == "phi" and op.block in divergent_blocks)
            if varies:
                divergent.add(op.result)
                changed = True
        for number, block in enumerate(function.blocks):
            terminator = function.ops[block.end - 1] if block.end > block.start else None
            if terminator is not None and terminator.opcode in ("br", "switch") and terminator.args and \
                    terminator.args[0] in divergent and number not in divergent_blocks:
                region = _region(function, number)
                if not region <= divergent_blocks:
                    divergent_blocks |= region
                    changed = True
    return set(range(len(function.slot_types))) - divergent


def _reach(function: DecodedFunction, start: int, stop: int) -> set[int]:
    """The blocks reached from `start` before `stop` (neither `stop` nor beyond it)."""
    seen, pending = set(), [start]
    while pending:
        block = pending.pop()
        if block in seen or block == stop or block >= len(function.blocks):
            continue
        seen.add(block)
        pending.extend(function.blocks[block].successors)
    return seen


def _region(function: DecodedFunction, branch_block: int) -> set[int]:
    """The blocks a divergent branch at `branch_block` decides between: those reached from
    its successors before their reconvergence point, and that point."""
    stop = function.ipdom[branch_block]
    seen, pending = set(), list(function.blocks[branch_block].successors)
    while pending:
        block = pending.pop()
        if block in seen or block >= len(function.blocks):
            continue
        seen.add(block)
        if block != stop:
            pending.extend(function.blocks[block].successors)
    return seen
