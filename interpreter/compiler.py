"""Turn decoded functions into executable form: one closure per instruction, operating on
the registers of a frame for some of its rows (None: all of them).

Two tables say how: OPCODES maps an instruction to its builder, INTRINSICS maps the callee
of a call to a function the program does not define (by exact name, else by prefix).
Builders live with their concern: arithmetic (values), accesses (memory), flow (control
flow, calls, barriers), collectives (warp collectives) and intrinsics (everything else
called). Adding an instruction is a builder and a line in a table.

Ordinary instructions become PLAIN closures; control flow, calls, barriers, warp
collectives and lane-stopping calls (assert, trap) get a kind the scheduler (simt.py)
handles. Anything the interpreter cannot execute becomes an UNSUPPORTED op that stops the
run with its name and source line when reached.

Compiled code reaches the execution running it only through the Runtime interface, and
reads the launch and its placement at run time: one compiler serves every launch of its
kernel (`start` begins each), so a search compiles a kernel once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

import numpy as np

from interpreter import accesses, arithmetic, collectives, flow, intrinsics, mathlib, registers, taint
from interpreter.decode import DecodedFunction, Op
from interpreter.loader import demangle
from interpreter.loops import innermost_loop, loop_line_pc
from interpreter.memory import LOCAL, Memory, tag
from interpreter.placement import Placement
from interpreter.trace import Events, OpInfo, TraceRecorder
from interpreter.types import ArrayType, FloatType, IntType, PointerType, StructType, Type, VectorType
from interpreter.values import dtype_of, take, write, zeros
from interpreter.vocabulary import CAST_OPCODES, DIVISION, FLOAT_BINARY, SPECIAL_REGISTER, WRAPPING_BINARY, Unsupported

PLAIN, STOP, BRANCH, SWITCH, RETURN, CALL, BARRIER, GRID_BARRIER, COLLECTIVE, UNREACHABLE, UNSUPPORTED = range(11)
DESCRIBED = (BARRIER, COLLECTIVE)  # kinds whose builder returns a description (info) instead of a closure


class Runtime(Protocol):
    """What compiled instructions may use of the execution running them."""

    memory: Memory
    wave: object  # the blocks running now (simt.Wave): thread numbering, epochs, warp state
    events: Events
    recorder: TraceRecorder | None
    steps: int
    grid_epoch: int
    tainting: bool  # whether this launch tracks taint (interpreter.taint)
    taint_here: tuple | None  # (frame, rows, pc, operands' taint) of the plain instruction running

    def fault(self, kind: str, op: int, threads: np.ndarray, addresses=None, detail: str = "",
              depends=None) -> None: ...

    def taint_of_threads(self, threads: np.ndarray): ...

    def context_taint(self, frame, rows): ...

    def exit_threads(self, threads: np.ndarray, op: int, depends=None) -> None: ...

    def stack_overflow(self, frame, rows, op: int, detail: str) -> None: ...

    def call(self, frame, rows, pc: int, callee: CompiledFunction, arguments: list) -> None: ...

    def count_work(self, thread_instructions: int) -> None: ...


def _none(c, function, pc, op):
    return None


OPCODES: dict[str, tuple[int, Callable]] = {
    **{opcode: (PLAIN, arithmetic.integer) for opcode in WRAPPING_BINARY},
    **{opcode: (PLAIN, arithmetic.floating) for opcode in FLOAT_BINARY},
    **{opcode: (PLAIN, arithmetic.division) for opcode in DIVISION},
    **{opcode: (PLAIN, arithmetic.cast) for opcode in CAST_OPCODES},
    **{opcode: (PLAIN, arithmetic.compare) for opcode in ("icmp", "fcmp")},
    **{opcode: (PLAIN, arithmetic.aggregate)
       for opcode in ("extractvalue", "insertvalue", "extractelement", "insertelement", "shufflevector")},
    "fneg": (PLAIN, arithmetic.negate),
    "select": (PLAIN, arithmetic.select),
    "freeze": (PLAIN, arithmetic.freeze),
    "getelementptr": (PLAIN, arithmetic.getelementptr),
    "alloca": (STOP, accesses.alloca),
    "load": (PLAIN, accesses.load),
    "store": (PLAIN, accesses.store),
    "atomicrmw": (PLAIN, accesses.atomicrmw),
    "cmpxchg": (PLAIN, accesses.cmpxchg),
    "fence": (PLAIN, intrinsics.fence),
    "br": (BRANCH, flow.branch),
    "switch": (SWITCH, flow.switch),
    "ret": (RETURN, flow.ret),
    "unreachable": (UNREACHABLE, _none),
}

_TRAP = (STOP, intrinsics.trap)
INTRINSICS: dict[str, tuple[int, Callable]] = {  # callees by exact name
    "llvm.stacksave": (PLAIN, intrinsics.stacksave),
    "__simulee_grid_sync": (GRID_BARRIER, _none),
    "llvm.nvvm.bar.warp.sync": (COLLECTIVE, collectives.compile_call),
    "llvm.nvvm.activemask": (PLAIN, intrinsics.activemask),
    **{name: (PLAIN, accesses.memory_intrinsic) for name in ("memcpy", "memmove", "memset")},
    **{name: (PLAIN, accesses.malloc) for name in ("malloc", "__simulee_malloc")},
    **{name: (PLAIN, accesses.free) for name in ("free", "__simulee_free")},
    **{name: (PLAIN, intrinsics.printf) for name in ("vprintf", "printf")},
    **{name: (STOP, intrinsics.assert_fail) for name in ("__assert_fail", "__assertfail")},
    **{name: _TRAP for name in ("llvm.trap", "llvm.debugtrap", "abort", "__trap", "llvm.ubsantrap")},
    **{name: (PLAIN, intrinsics.assume) for name in ("llvm.assume", "__simulee_assume")},
    "__simulee_axiom": (STOP, intrinsics.axiom),
    **{name: (PLAIN, intrinsics.texture) for name in ("__simulee_texture_fetch", "__simulee_texture_object_fetch")},
    **{name: (PLAIN, intrinsics.out_parameter_math) for name in intrinsics.OUT_PARAMETER_MATH},
    "__cudaCDP2GetParameterBuffer": (PLAIN, intrinsics.parameter_buffer),
    "__cudaCDP2LaunchDevice": (PLAIN, intrinsics.launch_device),
}
INTRINSIC_PREFIXES: tuple[tuple[tuple[str, ...], tuple[int, Callable]], ...] = (  # the first that matches
    (("llvm.nvvm.membar.", "llvm.nvvm.fence.sc.", "llvm.nvvm.fence.acq_rel."), (PLAIN, intrinsics.fence)),
    (("llvm.lifetime.", "llvm.dbg.", "llvm.nvvm.fence.", "llvm.nvvm.nanosleep",
      "llvm.donothing", "llvm.experimental.noalias.scope.decl", "llvm.invariant.", "llvm.var.annotation",
      "llvm.sideeffect", "llvm.stackrestore", "llvm.nvvm.barrier.cta.arrive", "llvm.prefetch", "llvm.pseudoprobe",
      "llvm.nvvm.prefetch."), (PLAIN, intrinsics.no_op)),
    (("llvm.stacksave.",), (PLAIN, intrinsics.stacksave)),
    (("llvm.ptr.annotation", "llvm.launder.invariant.group", "llvm.strip.invariant.group"),
     (PLAIN, intrinsics.pass_through)),
    ((SPECIAL_REGISTER,), (PLAIN, intrinsics.special_register)),
    (("llvm.nvvm.barrier", "llvm.nvvm.bar.sync"), (BARRIER, flow.barrier)),
    (("llvm.nvvm.shfl.", "llvm.nvvm.vote.", "llvm.nvvm.match."), (COLLECTIVE, collectives.compile_call)),
    (("llvm.nvvm.isspacep.",), (PLAIN, intrinsics.isspacep)),
    (tuple(f"llvm.{k}.with.overflow." for k in ("sadd", "uadd", "ssub", "usub", "smul", "umul")),
     (PLAIN, arithmetic.with_overflow)),
    (("llvm.nvvm.atomic.",), (PLAIN, accesses.nvvm_atomic)),
    (("llvm.memcpy", "llvm.memmove", "llvm.memset"), (PLAIN, accesses.memory_intrinsic)),
    (("__cudaCDP2",), (PLAIN, intrinsics.device_runtime)),
)
MATH = (PLAIN, intrinsics.math)  # any other callee: the math library, else unsupported
# builders whose closures keep taint themselves (interpreter.taint); every other plain
# instruction's result takes the union of its operands' taints
TAINT_AWARE = {accesses.load, accesses.store, accesses.atomicrmw, accesses.cmpxchg, accesses.nvvm_atomic,
               accesses.memory_intrinsic, intrinsics.invented_return, intrinsics.activemask}


def invented(callee: str) -> bool:
    """Whether a call of `callee`, a function the program declares and never defines,
    returns a value Simulee makes up (intrinsics.invented_return): one that is neither an
    intrinsic nor of the math library, nor named as CUDA's and LLVM's own are (`__nv_*`,
    `llvm.*`): those stay unsupported."""
    return intrinsic(callee) == MATH and mathlib.find(callee) is None and not callee.startswith(("llvm.", "__"))


def intrinsic(callee: str) -> tuple[int, Callable]:
    """(kind, builder) of a call of `callee`, a function the program does not define."""
    entry = INTRINSICS.get(callee)
    if entry is not None:
        return entry
    return next((entry for prefixes, entry in INTRINSIC_PREFIXES if callee.startswith(prefixes)), MATH)


@dataclass(frozen=True)
class Unexecutable:
    """The info of an UNSUPPORTED op: why it cannot run."""

    reason: str


class Phi:
    """A phi node: for the edge from each predecessor block, how to read its value (and
    which slot holds it, for its taint)."""

    def __init__(self, slot: int, ty: Type, readers: dict, sources: dict, pc: int):
        self.slot, self.ty, self.readers, self.sources, self.pc = slot, ty, readers, sources, pc

    def taint_for_edge(self, frame, rows, block: int):
        source = self.sources.get(block)
        return 0 if source is None else taint.operands(frame, (source,), rows, self.pc)

    def for_edge(self, block: int):
        read = self.readers.get(block)
        if read is None:
            ty = self.ty
            read = lambda frame, rows: zeros(ty, frame.width(rows))  # noqa: E731
        return self.slot, self.ty, read


class CompiledFunction:
    """A function ready to run: per instruction its kind, closure (`runs`), description
    (`info`: flow.BarrierInfo, collectives.Collective or Unexecutable) and op id."""

    def __init__(self, decoded: DecodedFunction):
        self.decoded = decoded
        self.name = decoded.name
        self.slot_count = len(decoded.slot_types)
        self.storage, self.registers = registers.storage(decoded)  # per slot, the register a frame keeps it in
        self.slot_types = decoded.slot_types
        self.params = decoded.params
        self.param_types = [decoded.slot_types[p] for p in decoded.params]
        count = len(decoded.ops)
        self.kinds = [PLAIN] * count
        self.runs: list = [None] * count
        self.taint_runs: list = [None] * count  # the same closures keeping taint (interpreter.taint)
        self.control = taint.control_dependence(decoded)
        self.info: list = [None] * count
        self.op_ids = [0] * count
        self.op_block = [op.block for op in decoded.ops]
        self.constants: dict[int, object] = {}
        self.phis = [[] for _ in decoded.blocks]
        self.block_first = [block.start for block in decoded.blocks]
        self.block_visits = np.zeros(len(decoded.blocks), dtype=np.int64)  # per block: edges into it taken
        position = {block: index for index, block in enumerate(decoded.rpo)}
        unreachable = len(decoded.blocks)
        order = sorted(range(count), key=lambda pc: (position.get(decoded.ops[pc].block, unreachable), pc))
        self.rank = [0] * count
        for rank, pc in enumerate(order):
            self.rank[pc] = rank
        self.uses: dict[int, list[tuple[str, int]]] = {}  # slot -> (opcode, operand position) of each use
        for op in decoded.ops:
            for position, slot in enumerate(op.args):
                self.uses.setdefault(slot, []).append((op.opcode, position))


class Compiler:
    """Compiles the functions of one kernel for the launches of one runtime, each begun by
    `start`. Builders read `program`, `layout`, `accesses` and `rt` when they build, and
    `launch` and `placement` only when their code runs."""

    def __init__(self, program, kernel, runtime: Runtime):
        self.program = program
        self.kernel = kernel
        self.rt = runtime
        self.layout = program.layout
        self.launch = None
        self.placement: Placement | None = None
        self.accesses = accesses.Accesses(self.layout, runtime)
        self.functions: dict[str, CompiledFunction] = {}
        self.op_infos: list[OpInfo] = []
        self._invented: list[str] | None = None
        self.addresses: dict[str, int] | None = None  # of the symbols, as the compiled constants hold them
        reachable = program.reachable_functions(kernel.symbol)
        self.uses_grid_sync = any("__simulee_grid_sync" in f.callees for f in reachable)
        self.shared_segment_bytes = 0

    def start(self, launch) -> bool:
        """Begin `launch`: its arguments and globals placed in the runtime's (new) memory.
        False when the symbols land elsewhere than where the code compiled so far expects
        them; that code must not run this launch."""
        self.launch = launch
        self.placement = Placement(self.program, self.kernel, launch, self.rt.memory)
        self.placement.returned = {callee: self.placement.label(f"what {demangle(callee)} returns")
                                   for callee in self.invented_callees()}
        self.accesses.start(launch)
        self.shared_segment_bytes = self.placement.shared_bytes
        for function in self.functions.values():
            function.block_visits = np.zeros(len(function.block_visits), dtype=np.int64)
        if self.addresses is None:
            self.addresses = dict(self.placement.addresses)
        return self.addresses == self.placement.addresses

    def finish(self) -> None:
        """End the launch: its arguments and placement are not kept."""
        self.launch = self.placement = None
        self.accesses.start(None)

    # ------------------------------------------------------------------ functions

    def function(self, name: str) -> CompiledFunction:
        compiled = self.functions.get(name)
        if compiled is None:
            compiled = self.functions[name] = self._compile_function(self.program.function(name))
        return compiled

    def _compile_function(self, decoded: DecodedFunction) -> CompiledFunction:
        function = CompiledFunction(decoded)
        for slot, value in decoded.constants.items():
            try:
                function.constants[slot] = self.placement.constant_value(value, decoded.slot_types[slot])
            except Unsupported as error:
                function.constants[slot] = _Failing(str(error))
        deciding, seeding = _deciding_reads(decoded), _seeding_reads(decoded)
        first = len(self.op_infos)
        controls = [tuple(first + branch for branch in branches) for branches in function.control.of_block]
        for pc, op in enumerate(decoded.ops):
            function.op_ids[pc] = first + pc
            self.op_infos.append(OpInfo(decoded.name, pc, op.opcode, op.location, op.text, pc in deciding,
                                        pc in seeding, controls[op.block]))
        for pc, op in enumerate(decoded.ops):
            try:
                if op.opcode == "phi":
                    readers = {block: self.reader(function, slot) for block, slot in zip(op.extra["blocks"], op.args)}
                    sources = {block: slot for block, slot in zip(op.extra["blocks"], op.args)
                               if slot not in function.constants}
                    function.phis[op.block].append(Phi(op.result, op.type, readers, sources, pc))
                    function.block_first[op.block] = pc + 1
                    continue
                failing = next((function.constants[a] for a in op.args
                                if isinstance(function.constants.get(a), _Failing)), None)
                if failing is not None:
                    raise Unsupported(failing.reason)
                if op.result >= 0:
                    _check_type(op.type)
                kind, run, info, aware = self._compile_op(function, pc, op)
            except Unsupported as error:
                kind, run, info, aware = UNSUPPORTED, None, Unexecutable(str(error)), True
            function.kinds[pc], function.runs[pc], function.info[pc] = kind, run, info
            function.taint_runs[pc] = run if aware or kind not in (PLAIN, STOP) else \
                taint.propagating(run, op.args, op.result, pc, self.rt)
        return function

    def _compile_op(self, function: CompiledFunction, pc: int, op: Op):
        """(kind, closure, info) of one instruction."""
        if op.opcode == "unsupported":
            raise Unsupported(op.extra.get("reason", "instruction"))
        if op.opcode == "call":
            kind, build = self._callee(op)
        else:
            entry = OPCODES.get(op.opcode)
            if entry is None:
                raise Unsupported(f"instruction '{op.opcode}'")
            kind, build = entry
        built = build(self, function, pc, op)
        aware = build in TAINT_AWARE
        return (kind, None, built, aware) if kind in DESCRIBED else (kind, built, None, aware)

    def _callee(self, op: Op) -> tuple[int, Callable]:
        callee = op.extra.get("callee")
        if callee is None:
            return CALL, flow.indirect_call
        definition = self.program.module.functions.get(callee)
        if definition is not None and not definition.is_declaration:
            return CALL, flow.direct_call
        if definition is not None and invented(callee):
            return PLAIN, intrinsics.invented_return
        return intrinsic(callee)

    def invented_callees(self) -> list[str]:
        """The functions the program declares, never defines and the kernel calls (invented):
        what each returns is made up."""
        if self._invented is None:
            functions = self.program.module.functions
            self._invented = sorted({op.extra["callee"] for decoded in self.program.reachable_functions(
                self.kernel.symbol) for op in decoded.ops if op.opcode == "call"
                and op.extra.get("callee") in functions and functions[op.extra["callee"]].is_declaration
                and invented(op.extra["callee"])})
        return self._invented

    def static_stack_bytes(self) -> int:
        """Local memory per thread that the kernel's fixed-size allocas take at most (each
        function it may call counted once)."""
        total = 0
        for decoded in self.program.reachable_functions(self.kernel.symbol):
            for op in decoded.ops:
                if op.opcode == "alloca":
                    try:
                        total += self.layout.size(op.extra["allocated_type"])
                    except (TypeError, KeyError):
                        continue
        return min(total, accesses.LOCAL_LIMIT)

    def register_bytes(self) -> int:
        """Bytes a thread's registers take at most: every register (interpreter.registers)
        of the kernel and of each function it may call (counted once) held at once."""
        total = 0
        for decoded in self.program.reachable_functions(self.kernel.symbol):
            storage, _ = registers.storage(decoded)
            values = (*decoded.params, *(op.result for op in decoded.ops if op.result >= 0))
            kept = {storage[slot]: decoded.slot_types[slot] for slot in values}
            for ty in kept.values():
                lanes = ty.count if isinstance(ty, VectorType) else 1
                try:
                    total += dtype_of(ty).itemsize * lanes
                except Unsupported:  # an aggregate: it fails where it is used
                    total += 8
        return total

    def unsupported_message(self, function: CompiledFunction, pc: int) -> str:
        op = function.decoded.ops[pc]
        reason = function.info[pc].reason or op.extra.get("reason") or f"instruction '{op.opcode}'"
        where = f" at {op.location}" if op.location else ""
        return f"unsupported {reason}{where}: {op.text}"

    def looping_op(self, function: CompiledFunction) -> tuple[int, bool]:
        """Where threads of `function` were running when a limit stopped the launch: the
        op id naming the loop around the block run most often (its condition, on the
        `for`/`while` line) and True; else the kernel's first instruction with a source
        line and False (the launch ran out before its blocks did, in no loop)."""
        busiest = int(np.argmax(function.block_visits))
        if innermost_loop(function.decoded, busiest) is not None:
            return function.op_ids[loop_line_pc(function.decoded, busiest)], True
        root = self.function(self.kernel.symbol)
        located = [pc for pc, op in enumerate(root.decoded.ops) if op.location is not None and op.location.line > 0]
        return root.op_ids[located[0] if located else 0], False

    # ------------------------------------------------------------------ operands

    def reader(self, function: CompiledFunction, slot: int):
        """A function (frame, rows) -> the operand's value for those rows."""
        if slot in function.constants:
            value = function.constants[slot]
            return lambda frame, rows: value
        ty = function.slot_types[slot]
        register = function.storage[slot]

        def read(frame, rows):
            value = frame.regs[register]
            if value is None:
                value = frame.regs[register] = zeros(ty, frame.count)
            return value if rows is None else take(value, rows)

        return read

    def writer(self, function: CompiledFunction, slot: int, fresh: bool):
        """A function (frame, rows, value) storing an instruction's result. `fresh` results
        (new arrays no register shares) are kept as they are on full-width writes."""
        if slot < 0:
            return lambda frame, rows, value: None
        ty = function.slot_types[slot]
        register = function.storage[slot]
        simple = not isinstance(ty, (StructType, ArrayType))
        dtype = dtype_of(ty) if simple else None

        def store(frame, rows, value):
            if fresh and rows is None and simple and type(value) is np.ndarray and value.dtype == dtype and \
                    value.shape[:1] == (frame.count,):
                frame.regs[register] = value
            else:
                frame.regs[register] = write(frame.regs[register], rows, value, ty, frame.count)

        return store

    def taint_reader(self, function: CompiledFunction, slot: int, pc: int):
        """A function (frame, rows) -> the taint of operand `slot` of the instruction at
        `pc` for those rows (a constant's: 0; taint.operands)."""
        if slot in function.constants:
            return lambda frame, rows: 0
        return lambda frame, rows: taint.operands(frame, (slot,), rows, pc)

    def taint_writer(self, function: CompiledFunction, slot: int):
        """A function (frame, rows, mask) giving an instruction's result that taint."""
        if slot < 0:
            return lambda frame, rows, mask: None
        register = function.storage[slot]
        return lambda frame, rows, mask: taint.assign(frame.taint, register, rows, mask, frame.count)

    def control_reader(self, function: CompiledFunction, pc: int, divergent: bool = False):
        """A function (frame, rows) -> the control taint of those rows at instruction `pc`
        (with `divergent`, of the branches that split their blocks only: taint.control)."""
        branches = function.control.of(pc)
        return lambda frame, rows: taint.control(frame, branches, rows, divergent)

    # ------------------------------------------------------------------ the kernel

    def enter_kernel(self, root) -> None:
        """The kernel's parameters in the root frame of a wave; by-value structs are copied
        to each thread's stack."""
        memory = self.rt.memory
        for slot, ty, argument in zip(root.function.params, root.function.param_types, self.placement.arguments):
            if argument.by_value is not None:
                start = (root.local_top + 15) // 16 * 16
                root.local_top = start + len(argument.by_value)
                memory.grow_local(root.local_top)
                stacks = memory.local.reshape(-1, memory.local_bytes)
                stacks[:, start : root.local_top] = np.frombuffer(argument.by_value, dtype=np.uint8)
                if argument.invented and self.rt.tainting:  # the bytes Simulee made up carry its label
                    memory.taint_local([(start + low, start + high) for low, high in argument.invented],
                                       argument.taint)
                value = np.int64(tag(LOCAL, 0, start))
            else:
                value = argument.value
            root.regs[root.function.storage[slot]] = write(None, None, value, ty, root.count)

    def output_buffers(self):
        return self.placement.output_buffers()


def _deciding_reads(decoded: DecodedFunction) -> set[int]:
    """The pcs of the instructions that read memory (loads, atomics) whose value decides a
    branch or switch of the function, through the values computed from it (not through
    memory or calls)."""
    deciding = _feeding(decoded, [op.args[0] for op in decoded.ops if op.opcode in ("br", "switch") and op.args])
    atomic_call = lambda op: op.opcode == "call" and (op.extra.get("callee") or "").startswith("llvm.nvvm.atomic")
    return {pc for pc, op in enumerate(decoded.ops)
            if op.result in deciding and (op.opcode in ("load", "atomicrmw", "cmpxchg") or atomic_call(op))}


def _seeding_reads(decoded: DecodedFunction) -> set[int]:
    """The pcs of the loads whose value is, or is computed into, what a compare-and-swap of
    the function expects: the first guess of a CAS retry loop."""
    seeding = _feeding(decoded, [op.args[1] for op in decoded.ops if op.opcode == "cmpxchg"])
    return {pc for pc, op in enumerate(decoded.ops) if op.opcode == "load" and op.result in seeding}


def _feeding(decoded: DecodedFunction, slots: list[int]) -> set[int]:
    """`slots` and the slots whose values they are computed from, through values (not
    through memory or calls: a load's, an atomic's or a call's result ends the walk)."""
    defined = {op.result: op for op in decoded.ops if op.result >= 0}
    pending, feeding = list(slots), set(slots)
    while pending:
        op = defined.get(pending.pop())
        if op is None or op.opcode in ("load", "atomicrmw", "cmpxchg", "call", "alloca"):
            continue
        for slot in op.args:
            if slot not in feeding:
                feeding.add(slot)
                pending.append(slot)
    return feeding


class _Failing:
    """A constant that cannot be evaluated; using it makes the instruction unsupported."""

    def __init__(self, reason: str):
        self.reason = reason


def _check_type(ty: Type) -> None:
    """Raise Unsupported for a type values.py cannot represent (i128, fp128, ...)."""
    if isinstance(ty, StructType):
        for member in ty.fields:
            _check_type(member)
    elif isinstance(ty, ArrayType):
        _check_type(ty.element)
    elif isinstance(ty, (IntType, FloatType, PointerType, VectorType)):
        dtype_of(ty)
