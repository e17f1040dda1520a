"""Turn decoded functions into executable form: one closure per instruction, operating on
the registers of a frame for some of its rows (None: all of them).

Ordinary instructions, memory accesses, atomics and pure intrinsics become PLAIN closures;
control flow, calls, barriers, warp collectives and lane-stopping calls (assert, trap) get a
kind the scheduler (simt.py) handles. Anything the interpreter cannot execute becomes an
UNSUPPORTED op that stops the run with its name and source line when reached.
"""

from __future__ import annotations

import numpy as np

from interpreter import atomics, collectives, mathlib
from interpreter import printf as printf_format
from interpreter.decode import DecodedFunction, Op
from interpreter.heap import Heap
from interpreter.launch import Stop
from interpreter.loops import innermost_loop, loop_line_pc
from interpreter.memory import CODE, CONSTANT, GLOBAL, LOCAL, SHARED, split, tag
from interpreter.placement import Placement
from interpreter.trace import (ATOMIC, BAD_FUNCTION_POINTER, DIVISION_BY_ZERO, DOUBLE_FREE, INVALID_FREE, OUT_OF_BOUNDS,
                               READ, TRAP, WRITE, Assertion, OpInfo)
from interpreter.types import I32, ArrayType, FloatType, IntType, PointerType, StructType, Type, VectorType
from interpreter.values import (
    cast, constant, divide, dtype_of, float_binary, float_compare, from_bytes,
    integer_binary, integer_compare, take, to_bytes, unsigned, write, zeros,
)
from interpreter.vocabulary import DIVISION, FLOAT_BINARY, WRAPPING_BINARY, Unsupported, barrier_kind

PLAIN, STOP, BRANCH, SWITCH, RETURN, CALL, BARRIER, GRID_BARRIER, COLLECTIVE, UNREACHABLE, UNSUPPORTED = range(11)
CASTS = {"trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp", "ptrtoint",
         "ptrtoaddr", "inttoptr", "bitcast", "addrspacecast"}
ADDRESS_SPACES = {"global": GLOBAL, "shared": SHARED, "const": CONSTANT, "local": LOCAL}
GRID_WORKSPACE = 0x1000  # what %envreg1 reads: a non-null grid workspace address
NO_OPS = ("llvm.lifetime.", "llvm.dbg.", "llvm.nvvm.membar.", "llvm.nvvm.fence.", "llvm.nvvm.nanosleep",
          "llvm.donothing", "llvm.experimental.noalias.scope.decl", "llvm.invariant.", "llvm.var.annotation",
          "llvm.sideeffect", "llvm.stackrestore", "llvm.nvvm.barrier.cta.arrive",
          "llvm.prefetch", "llvm.pseudoprobe", "llvm.nvvm.prefetch.")
LOCAL_LIMIT = 512 * 1024  # bytes of local memory a CUDA thread may have
COPY_LIMIT = 1 << 26  # a memcpy/memset longer than this per lane is a fault, not an allocation


class Phi:
    """A phi node: for the edge from each predecessor block, how to read its value."""

    def __init__(self, slot: int, ty: Type, readers: dict):
        self.slot, self.ty, self.readers = slot, ty, readers

    def for_edge(self, block: int):
        read = self.readers.get(block)
        if read is None:
            ty = self.ty
            read = lambda frame, rows: zeros(ty, frame.count if rows is None else len(rows))  # noqa: E731
        return self.slot, self.ty, read


class CompiledFunction:
    def __init__(self, decoded: DecodedFunction):
        self.decoded = decoded
        self.name = decoded.name
        self.slot_count = len(decoded.slot_types)
        self.slot_types = decoded.slot_types
        self.params = decoded.params
        self.param_types = [decoded.slot_types[p] for p in decoded.params]
        count = len(decoded.ops)
        self.kinds = [PLAIN] * count
        self.runs: list = [None] * count
        self.info: list = [None] * count
        self.op_ids = [0] * count
        self.op_block = [op.block for op in decoded.ops]
        self.constants: dict[int, object] = {}
        self.phis = [[] for _ in decoded.blocks]
        self.block_first = [block.start for block in decoded.blocks]
        self.block_visits = [0] * len(decoded.blocks)
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
    """Compiles the functions of one launch, which owns the memory and placement they use."""

    def __init__(self, execution):
        self.ex = execution
        self.program = execution.program
        self.layout = self.program.layout
        self.placement = Placement(self.program, execution.kernel, execution.launch, execution.memory)
        self.functions: dict[str, CompiledFunction] = {}
        self.op_infos: list[OpInfo] = []
        self._heap: Heap | None = None
        reachable = self.program.reachable_functions(execution.kernel.symbol)
        self.uses_grid_sync = any("__simulee_grid_sync" in f.callees for f in reachable)
        self.shared_segment_bytes = self.placement.shared_bytes
        self._active_key = None
        self._active = None
        self._active_rows = None

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
        for pc, op in enumerate(decoded.ops):
            function.op_ids[pc] = len(self.op_infos)
            self.op_infos.append(OpInfo(decoded.name, pc, op.opcode, op.location, op.text))
        for pc, op in enumerate(decoded.ops):
            try:
                if op.opcode == "phi":
                    readers = {block: self.reader(function, slot) for block, slot in zip(op.extra["blocks"], op.args)}
                    function.phis[op.block].append(Phi(op.result, op.type, readers))
                    function.block_first[op.block] = pc + 1
                    continue
                if any(isinstance(function.constants.get(a), _Failing) for a in op.args):
                    failing = next(function.constants[a] for a in op.args if isinstance(function.constants.get(a),
                                                                                         _Failing))
                    raise Unsupported(failing.reason)
                if op.result >= 0:
                    _check_type(op.type)
                kind, run, info = self._compile_op(function, pc, op)
            except Unsupported as error:
                kind, run, info = UNSUPPORTED, None, str(error)
            function.kinds[pc], function.runs[pc], function.info[pc] = kind, run, info
        return function

    def static_stack_bytes(self) -> int:
        """Local memory per thread that the kernel's fixed-size allocas take at most (each
        function it may call counted once)."""
        total = 0
        for decoded in self.program.reachable_functions(self.ex.kernel.symbol):
            for op in decoded.ops:
                if op.opcode == "alloca":
                    try:
                        total += self.layout.size(op.extra["allocated_type"])
                    except (TypeError, KeyError):
                        continue
        return min(total, LOCAL_LIMIT)

    def unsupported_message(self, function: CompiledFunction, pc: int) -> str:
        op = function.decoded.ops[pc]
        reason = function.info[pc] or op.extra.get("reason") or f"instruction '{op.opcode}'"
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
        root = self.ex.root_function
        located = [pc for pc, op in enumerate(root.decoded.ops) if op.location is not None and op.location.line > 0]
        return root.op_ids[located[0] if located else 0], False

    # ------------------------------------------------------------------ operands

    def reader(self, function: CompiledFunction, slot: int):
        """A function (frame, rows) -> the operand's value for those rows."""
        if slot in function.constants:
            value = function.constants[slot]
            return lambda frame, rows: value
        ty = function.slot_types[slot]

        def read(frame, rows):
            value = frame.regs[slot]
            if value is None:
                value = frame.regs[slot] = zeros(ty, frame.count)
            return value if rows is None else take(value, rows)

        return read

    def writer(self, function: CompiledFunction, slot: int, fresh: bool):
        """A function (frame, rows, value) storing an instruction's result. `fresh` results
        (new arrays no register shares) are kept as they are on full-width writes."""
        if slot < 0:
            return lambda frame, rows, value: None
        ty = function.slot_types[slot]
        simple = not isinstance(ty, (StructType, ArrayType))
        dtype = dtype_of(ty) if simple else None

        def store(frame, rows, value):
            if fresh and rows is None and simple and type(value) is np.ndarray and value.dtype == dtype and \
                    value.shape[:1] == (frame.count,):
                frame.regs[slot] = value
            else:
                frame.regs[slot] = write(frame.regs[slot], rows, value, ty, frame.count)

        return store

    # ------------------------------------------------------------------ instructions

    def _compile_op(self, function: CompiledFunction, pc: int, op: Op):
        opcode = op.opcode
        if opcode == "unsupported":
            raise Unsupported(op.extra.get("reason", "instruction"))
        if opcode in WRAPPING_BINARY:
            return PLAIN, self._binary(function, op, integer_binary), None
        if opcode in FLOAT_BINARY:
            return PLAIN, self._binary(function, op, float_binary), None
        if opcode in DIVISION:
            return PLAIN, self._division(function, pc, op), None
        if opcode == "fneg":
            read, out = self.reader(function, op.args[0]), self.writer(function, op.result, True)
            return PLAIN, lambda frame, rows: out(frame, rows, np.negative(read(frame, rows))), None
        if opcode in ("icmp", "fcmp"):
            return PLAIN, self._compare(function, op), None
        if opcode in CASTS:
            return PLAIN, self._cast(function, op), None
        if opcode == "select":
            return PLAIN, self._select(function, op), None
        if opcode == "freeze":
            read, out = self.reader(function, op.args[0]), self.writer(function, op.result, False)
            return PLAIN, lambda frame, rows: out(frame, rows, read(frame, rows)), None
        if opcode == "getelementptr":
            return PLAIN, self._getelementptr(function, pc, op), None
        if opcode == "alloca":
            return STOP, self._alloca(function, pc, op), None
        if opcode == "load":
            return PLAIN, self._load(function, pc, op), None
        if opcode == "store":
            return PLAIN, self._store(function, pc, op), None
        if opcode == "atomicrmw":
            return PLAIN, self._atomicrmw(function, pc, op), None
        if opcode == "cmpxchg":
            return PLAIN, self._cmpxchg(function, pc, op), None
        if opcode == "fence":
            return PLAIN, lambda frame, rows: None, None
        if opcode in ("extractvalue", "insertvalue", "extractelement", "insertelement", "shufflevector"):
            return PLAIN, self._aggregate(function, op), None
        if opcode == "br":
            return BRANCH, self._branch(function, op), None
        if opcode == "switch":
            return SWITCH, self._switch(function, op), None
        if opcode == "ret":
            read = self.reader(function, op.args[0]) if op.args else None
            return RETURN, (lambda frame, rows: read(frame, rows)) if read else (lambda frame, rows: None), None
        if opcode == "unreachable":
            return UNREACHABLE, None, None
        if opcode == "call":
            return self._call(function, pc, op)
        raise Unsupported(f"instruction '{opcode}'")

    def _binary(self, function, op, semantics):
        ra, rb = (self.reader(function, a) for a in op.args)
        out = self.writer(function, op.result, True)
        opcode, ty = op.opcode, op.type
        return lambda frame, rows: out(frame, rows, semantics(opcode, ra(frame, rows), rb(frame, rows), ty))

    def _division(self, function, pc, op):
        ra, rb = (self.reader(function, a) for a in op.args)
        out = self.writer(function, op.result, True)
        opcode, ty, op_id = op.opcode, op.type, function.op_ids[pc]

        def run(frame, rows):
            result, zero = divide(opcode, ra(frame, rows), rb(frame, rows), ty)
            if zero is not None and np.any(zero):
                lanes = np.flatnonzero(np.broadcast_to(zero, (frame.count if rows is None else len(rows),)))
                self.ex.fault(DIVISION_BY_ZERO, op_id, frame.thread_ids(rows)[lanes])
            out(frame, rows, result)

        return run

    def _compare(self, function, op):
        ra, rb = (self.reader(function, a) for a in op.args)
        out = self.writer(function, op.result, True)
        predicate, ty = op.extra["predicate"], op.arg_types[0]
        if op.opcode == "icmp":
            return lambda frame, rows: out(frame, rows, integer_compare(predicate, ra(frame, rows), rb(frame, rows), ty))
        return lambda frame, rows: out(frame, rows, float_compare(predicate, ra(frame, rows), rb(frame, rows)))

    def _cast(self, function, op):
        read = self.reader(function, op.args[0])
        out = self.writer(function, op.result, True)
        opcode, source, target = op.opcode, op.arg_types[0], op.type
        return lambda frame, rows: out(frame, rows, cast(opcode, read(frame, rows), source, target))

    def _select(self, function, op):
        rc, ra, rb = (self.reader(function, a) for a in op.args)
        out = self.writer(function, op.result, True)
        ty = op.type
        vector_of_scalar_condition = isinstance(ty, VectorType) and not isinstance(op.arg_types[0], VectorType)
        if isinstance(ty, (StructType, ArrayType)):
            def run(frame, rows):
                condition = np.asarray(rc(frame, rows))
                out(frame, rows, _select_aggregate(condition, ra(frame, rows), rb(frame, rows)))
            return run

        def run(frame, rows):
            condition = np.asarray(rc(frame, rows))
            if vector_of_scalar_condition and condition.ndim:
                condition = condition[:, None]
            result = np.where(condition, ra(frame, rows), rb(frame, rows))
            out(frame, rows, result.astype(dtype_of(ty), copy=False))

        return run

    def _getelementptr(self, function, pc, op):
        """Pointer plus the byte offset of the indexed element; constant parts folded. A
        variable index into an array dimension outside [0, count) is an out-of-bounds fault
        (C forbids s[i][j] with j past its row even when the address stays inside s); the
        index may equal count when the pointer is not dereferenced (one past the end)."""
        base = self.reader(function, op.args[0])
        out = self.writer(function, op.result, True)
        source = op.extra["source_type"]
        constant_offset = 0
        variable = []  # (reader, scale, highest valid index or -1 for none)
        current = source
        past_end = 0 if self._dereferenced(function, op.result) else 1
        for position, slot in enumerate(op.args[1:]):
            index_constant = function.constants.get(slot)
            bound = -1
            if position == 0:
                scale = self.layout.size(source)
            elif isinstance(current, StructType):
                field = int(np.asarray(index_constant))
                constant_offset += self.layout.field_offsets(current)[field]
                current = current.fields[field]
                continue
            else:
                if current.count > 1:  # [0 x T] and [1 x T] are flexible trailing arrays
                    bound = current.count - 1 + past_end
                current = current.element
                scale = self.layout.size(current)
            if index_constant is not None and not isinstance(index_constant, tuple):
                constant_offset += int(np.asarray(index_constant)) * scale
            else:
                variable.append((self.reader(function, slot), scale, bound))
        if isinstance(op.type, VectorType):
            raise Unsupported("getelementptr producing a vector of pointers")
        offset = np.int64(constant_offset)
        op_id = function.op_ids[pc]

        def run(frame, rows):
            address = np.add(base(frame, rows), offset, dtype=np.int64)
            for read, scale, bound in variable:
                index = np.asarray(read(frame, rows)).astype(np.int64)
                if bound >= 0:
                    outside = (index < 0) | (index > bound)
                    if outside.any():
                        lanes = np.flatnonzero(np.broadcast_to(outside, (frame.count if rows is None else len(rows),)))
                        self.ex.fault(OUT_OF_BOUNDS, op_id, frame.thread_ids(rows)[lanes])
                address = address + index * np.int64(scale)
            out(frame, rows, address)

        return run

    def _dereferenced(self, function, slot: int) -> bool:
        """Whether every use of pointer `slot` is the address of a load, store or atomic, or
        the base of another getelementptr."""
        uses = function.uses.get(slot)
        return bool(uses) and all(opcode in ("load", "getelementptr") and position == 0
                   or opcode == "store" and position == 1
                   or opcode in ("atomicrmw", "cmpxchg") and position == 0
                   for opcode, position in uses)

    def _alloca(self, function, pc, op):
        """Space on each calling thread's local stack: the same offset for all threads of a
        frame, since every thread has its own stack. Past LOCAL_LIMIT bytes the stack
        overflows: a fault that stops the threads, as it ends a kernel on a GPU."""
        element = op.extra["allocated_type"]
        size = self.layout.size(element)
        align = max(op.extra.get("align") or 1, self.layout.align(element), 8)
        count = self.reader(function, op.args[0]) if op.args else None
        out = self.writer(function, op.result, True)
        memory = self.ex.memory

        op_id = function.op_ids[pc]

        def run(frame, rows):
            copies = int(np.max(count(frame, rows))) if count is not None else 1
            start = (frame.local_top + align - 1) // align * align
            end = start + size * max(copies, 1)
            if end > LOCAL_LIMIT:  # more than a thread's local memory
                self.ex.stack_overflow(frame, rows, op_id, f"{end:,} bytes of local memory per thread, more than "
                                                          f"the {LOCAL_LIMIT:,} a CUDA thread may have")
                return np.zeros(0, dtype=np.int64)
            frame.local_top = end
            memory.grow_local(frame.local_top)
            out(frame, rows, np.int64(tag(LOCAL, 0, start)))
            return rows

        return run

    # ------------------------------------------------------------------ memory

    def _load(self, function, pc, op):
        pointer = self.reader(function, op.args[0])
        out = self.writer(function, op.result, True)
        ty = op.type
        size, align = self._access_size(ty), op.extra.get("align") or self.layout.align(ty)
        op_id = function.op_ids[pc]

        def run(frame, rows):
            data = self.access(frame, rows, pointer(frame, rows), size, align, op_id, READ)
            out(frame, rows, self.decode(data, ty))

        return run

    def _store(self, function, pc, op):
        value, pointer = (self.reader(function, a) for a in op.args)
        ty = op.arg_types[0]
        size, align = self._access_size(ty), op.extra.get("align") or self.layout.align(ty)
        op_id = function.op_ids[pc]

        def run(frame, rows):
            count = frame.count if rows is None else len(rows)
            self.access(frame, rows, pointer(frame, rows), size, align, op_id, WRITE,
                        self.encode(value(frame, rows), ty, count))

        return run

    def _access_size(self, ty: Type) -> int:
        if isinstance(ty, (StructType, ArrayType)):
            return self.layout.size(ty)
        return self.layout.store_size(ty)

    def access(self, frame, rows, addresses, size, align, op_id, kind, data=None):
        """A load (returns the bytes read, shape (lanes, size)) or store (`data`, same shape)
        by rows of frame; faults are reported, accesses traced."""
        ex = self.ex
        wave = ex.wave
        threads = frame.thread_ids(rows)
        count = len(threads)
        addresses = np.broadcast_to(np.asarray(addresses, dtype=np.int64), (count,))
        blocks = threads // wave.tpb
        access, faults, resolved = ex.memory.locate(addresses, size, align, blocks, threads, kind != READ)
        if len(faults.lanes):
            self.report_faults(faults, op_id, threads, addresses)
        result = None
        if kind == READ:
            result = ex.memory.read_bytes(resolved, count, size, align)
        else:
            ex.memory.write_bytes(resolved, data, size, align)
        if ex.recorder is not None and len(access.lanes):
            self.record(frame, rows, threads, blocks, access, size, op_id, kind, data)
        return result

    def report_faults(self, faults, op_id, threads, addresses) -> None:
        kinds = np.array(faults.kinds)
        for kind in np.unique(kinds):
            lanes = faults.lanes[kinds == kind]
            self.ex.fault(str(kind), op_id, threads[lanes], addresses[lanes])

    def record(self, frame, rows, threads, blocks, access, size, op_id, kind, data=None) -> None:
        ex, wave = self.ex, self.ex.wave
        lanes = access.lanes
        everyone = len(lanes) == len(threads)
        lane_threads = threads if everyone else threads[lanes]
        lane_blocks = blocks if everyone else blocks[lanes]
        active = self.active_masks(frame, rows, threads)
        if ex.recorder.count + len(lanes) > ex.recorder.limit and ex.launch.stop_when_traced:
            raise Stop("trace-limit", (op_id, False), f"stopped once its trace held {ex.recorder.count:,} accesses")
        ex.recorder.record(
            space=access.space, kind=kind, region=access.region, offset=access.offset, size=size,
            block=wave.first_block + lane_blocks, thread=lane_threads - blocks[lanes] * wave.tpb if not everyone
            else lane_threads - lane_blocks * wave.tpb, op=op_id,
            epoch=wave.epoch[lane_blocks], grid_epoch=ex.grid_epoch, step=ex.steps,
            active=active if everyone else active[lanes], warp_sync=wave.warp_sync[lane_threads],
            value=_value_bits(data if everyone else data[lanes]) if data is not None else 0,
        )

    def active_masks(self, frame, rows, threads):
        """Per lane, its warp's lanes in the group (the threads executing together); the
        same for every access of one group's run, so kept until the group changes."""
        key = (frame.id, id(rows) if rows is not None else None, len(threads))
        if self._active_key != key:
            wave = self.ex.wave
            self._active = collectives.Warps(wave.warps_of(threads), wave.lanes_of(threads)).present()
            self._active_key = key
            self._active_rows = rows  # keeps `rows` alive so its id stays unique
        return self._active

    def decode(self, data: np.ndarray, ty: Type):
        """The value of type `ty` in rows of bytes."""
        if isinstance(ty, StructType):
            offsets = self.layout.field_offsets(ty)
            return tuple(self.decode(data[:, o : o + self._access_size(f)], f) for o, f in zip(offsets, ty.fields))
        if isinstance(ty, ArrayType):
            step = self.layout.size(ty.element)
            return tuple(self.decode(data[:, i * step : i * step + self._access_size(ty.element)], ty.element)
                         for i in range(ty.count))
        return from_bytes(data, ty)

    def encode(self, value, ty: Type, count: int) -> np.ndarray:
        """Rows of bytes (count, size) holding `value` (a constant is broadcast)."""
        size = self._access_size(ty)
        if isinstance(ty, (StructType, ArrayType)):
            out = np.zeros((count, size), dtype=np.uint8)
            if isinstance(ty, StructType):
                parts = zip(self.layout.field_offsets(ty), ty.fields, value)
            else:
                step = self.layout.size(ty.element)
                parts = ((i * step, ty.element, v) for i, v in enumerate(value))
            for offset, member, member_value in parts:
                piece = self.encode(member_value, member, count)
                out[:, offset : offset + piece.shape[1]] = piece
            return out
        data = to_bytes(value, ty)[..., :size]
        return np.broadcast_to(data, (count, size)) if data.ndim == 1 else data

    # ------------------------------------------------------------------ atomics

    def _atomicrmw(self, function, pc, op):
        pointer, value = (self.reader(function, a) for a in op.args)
        out = self.writer(function, op.result, True)
        operation, ty = op.extra["operation"], op.type
        align = op.extra.get("align") or self.layout.align(ty)
        op_id = function.op_ids[pc]
        if operation not in atomics.OPERATIONS:
            raise Unsupported(f"atomicrmw {operation}")

        def run(frame, rows):
            out(frame, rows, self.atomic(frame, rows, pointer(frame, rows), operation, value(frame, rows), ty, align,
                                         op_id))

        return run

    def _cmpxchg(self, function, pc, op):
        pointer, expected, new = (self.reader(function, a) for a in op.args)
        out = self.writer(function, op.result, False)
        ty = op.arg_types[1]
        align = op.extra.get("align") or self.layout.align(ty)
        op_id = function.op_ids[pc]

        def run(frame, rows):
            wanted = expected(frame, rows)
            old = self.atomic(frame, rows, pointer(frame, rows), "cmpxchg", new(frame, rows), ty, align, op_id, wanted)
            out(frame, rows, (old, unsigned(old) == unsigned(np.asarray(wanted, dtype=old.dtype))))

        return run

    def atomic(self, frame, rows, addresses, operation, operand, ty, align, op_id, expected=None):
        """An atomic read-modify-write by rows of frame, lanes serialized in thread order;
        returns the value each lane saw."""
        ex = self.ex
        wave = ex.wave
        threads = frame.thread_ids(rows)
        count = len(threads)
        dtype = dtype_of(ty)
        size = self.layout.store_size(ty)
        addresses = np.broadcast_to(np.asarray(addresses, dtype=np.int64), (count,))
        operand = np.broadcast_to(np.asarray(operand, dtype=dtype), (count,))
        blocks = threads // wave.tpb
        access, faults, resolved = ex.memory.locate(addresses, size, align, blocks, threads, True)
        if len(faults.lanes):
            self.report_faults(faults, op_id, threads, addresses)
        seen = np.zeros(count, dtype=dtype)
        lanes = access.lanes
        if len(lanes):
            current = self.decode(ex.memory.read_bytes(resolved, count, size, align), ty)[lanes]
            keys = np.zeros(count, dtype=np.int64)
            for part, (_, positions, flat) in enumerate(resolved):
                keys[lanes[positions]] = (part << 42) + flat
            order = np.argsort(keys[lanes], kind="stable")
            ordered_keys = keys[lanes][order]
            segment = np.cumsum(np.r_[0, ordered_keys[1:] != ordered_keys[:-1]])
            firsts = np.flatnonzero(np.r_[True, ordered_keys[1:] != ordered_keys[:-1]])
            initial = current[order][firsts].copy()
            values = operand[lanes][order]
            compare = None if expected is None else np.broadcast_to(np.asarray(expected, dtype=dtype), (count,))[lanes][order]
            if operation == "cmpxchg" and dtype.kind == "f":  # compare bit patterns
                initial, values, compare = unsigned(initial), unsigned(values), unsigned(compare)
            old_sorted, final = atomics.serialize(operation, initial, segment, values, compare)
            old = np.empty(len(lanes), dtype=old_sorted.dtype)
            old[order] = old_sorted
            seen[lanes] = old.view(dtype) if old.dtype != dtype else old
            finals = np.empty(len(lanes), dtype=final.dtype)
            finals[order] = final[segment]
            data = np.zeros((count, size), dtype=np.uint8)
            data[lanes] = self.encode(finals.view(dtype) if finals.dtype != dtype else finals, ty, len(lanes))
            if final.tobytes() != initial.tobytes():  # a failed compare-and-swap changes nothing
                ex.memory.write_bytes(resolved, data, size, align)
            if ex.recorder is not None:
                self.record(frame, rows, threads, blocks, access, size, op_id, ATOMIC,
                            self.encode(operand, ty, count))
        return seen

    # ------------------------------------------------------------------ aggregates

    def _aggregate(self, function, op):
        readers = [self.reader(function, a) for a in op.args]
        out = self.writer(function, op.result, op.opcode in ("insertelement", "shufflevector"))
        opcode = op.opcode
        if opcode == "extractvalue":
            indices = op.extra["indices"]
            return lambda frame, rows: out(frame, rows, _walk(readers[0](frame, rows), indices))
        if opcode == "insertvalue":
            indices = op.extra["indices"]
            return lambda frame, rows: out(frame, rows, _replace(readers[0](frame, rows), indices,
                                                                 readers[1](frame, rows)))
        vector_type = op.arg_types[0]
        if opcode == "extractelement":
            def run(frame, rows):
                vector, index = np.asarray(readers[0](frame, rows)), np.asarray(readers[1](frame, rows))
                if index.ndim == 0:
                    out(frame, rows, vector[..., int(index)].copy())
                else:
                    out(frame, rows, np.take_along_axis(vector, index.astype(np.int64)[:, None], axis=-1)[:, 0])
            return run
        if opcode == "insertelement":
            def run(frame, rows):
                count = frame.count if rows is None else len(rows)
                vector = np.array(np.broadcast_to(readers[0](frame, rows), (count, vector_type.count)))
                element, index = readers[1](frame, rows), np.asarray(readers[2](frame, rows))
                if index.ndim == 0:
                    vector[:, int(index)] = element
                else:
                    vector[np.arange(count), index.astype(np.int64)] = element
                out(frame, rows, vector)
            return run
        mask = op.extra["mask"]

        def run(frame, rows):
            count = frame.count if rows is None else len(rows)
            first = np.broadcast_to(readers[0](frame, rows), (count, vector_type.count))
            second = np.broadcast_to(readers[1](frame, rows), (count, vector_type.count))
            both = np.concatenate([first, second], axis=1)
            picked = both[:, [m if m >= 0 else 0 for m in mask]].copy()
            picked[:, [i for i, m in enumerate(mask) if m < 0]] = 0
            out(frame, rows, picked)

        return run

    # ------------------------------------------------------------------ control flow

    def _branch(self, function, op):
        targets = op.extra["targets"]
        if not op.args:
            target = targets[0]
            return lambda frame, rows: ((target, rows),)
        condition = self.reader(function, op.args[0])
        if_true, if_false = targets

        def run(frame, rows):
            value = condition(frame, rows)
            if np.ndim(value) == 0:
                return ((if_true if value else if_false, rows),)
            if value.all():
                return ((if_true, rows),)
            if not value.any():
                return ((if_false, rows),)
            everyone = np.arange(frame.count) if rows is None else rows
            return (if_true, everyone[value]), (if_false, everyone[~value])

        return run

    def _switch(self, function, op):
        read = self.reader(function, op.args[0])
        default, cases = op.extra["default"], op.extra["cases"]
        case_values = np.array([value for value, _ in cases], dtype=np.int64)
        case_targets = np.array([target for _, target in cases], dtype=np.int64)

        def run(frame, rows):
            values = np.asarray(read(frame, rows)).astype(np.int64)
            if values.ndim == 0:
                hits = np.flatnonzero(case_values == values)
                return ((int(case_targets[hits[0]]) if len(hits) else default, rows),)
            destination = np.full(len(values), default, dtype=np.int64)
            for value, target in zip(case_values, case_targets):
                destination[values == value] = target
            everyone = np.arange(frame.count) if rows is None else rows
            return tuple((int(target), everyone[destination == target] if len(np.unique(destination)) > 1 else rows)
                         for target in np.unique(destination))

        return run

    # ------------------------------------------------------------------ calls

    def _call(self, function, pc, op):
        callee = op.extra.get("callee")
        definition = self.program.module.functions.get(callee) if callee else None
        if callee is None:
            return CALL, self._indirect_call(function, pc, op), None
        if definition is not None and not definition.is_declaration:
            return CALL, self._direct_call(function, pc, op, callee), None
        return self._intrinsic(function, pc, op, callee)

    def _direct_call(self, function, pc, op, name):
        arguments = [self.reader(function, a) for a in op.args]

        def run(frame, rows, call_pc):
            self.ex.call(frame, rows, call_pc, self.function(name), [read(frame, rows) for read in arguments])

        return run

    def _indirect_call(self, function, pc, op):
        """A call through a function pointer: the lanes are split by the function called."""
        pointer = self.reader(function, op.args[-1])
        arguments = [self.reader(function, a) for a in op.args[:-1]]
        names = self.placement.function_names

        def run(frame, rows, call_pc):
            targets = np.broadcast_to(np.asarray(pointer(frame, rows), dtype=np.int64),
                                      (frame.count if rows is None else len(rows),))
            space, region, _ = split(targets)
            everyone = np.arange(frame.count) if rows is None else rows
            valid = (space == CODE) & (region >= 1) & (region <= len(names))
            if not valid.all():
                self.ex.fault(BAD_FUNCTION_POINTER, function.op_ids[call_pc], frame.thread_ids(everyone[~valid]))
            for number in np.unique(region[valid]):
                name = names[int(number) - 1]
                chosen = everyone[valid & (region == number)]
                chosen_rows = None if len(chosen) == frame.count else chosen
                definition = self.program.module.functions[name]
                if definition.is_declaration:
                    raise Unsupported(f"call through a pointer to undefined function '{name}'")
                self.ex.call(frame, chosen_rows, call_pc, self.function(name),
                             [read(frame, chosen_rows) for read in arguments])

        return run

    def write_call_result(self, frame, rows, pc, value) -> None:
        op = frame.function.decoded.ops[pc]
        if op.result < 0:
            return
        ty = frame.function.slot_types[op.result]
        if value is None:
            value = zeros(ty, frame.count if rows is None else len(rows))
        frame.regs[op.result] = write(frame.regs[op.result], rows, value, ty, frame.count)

    def enter_kernel(self, root) -> None:
        """The kernel's parameters in the root frame of a wave; by-value structs are copied
        to each thread's stack."""
        memory = self.ex.memory
        for slot, ty, argument in zip(root.function.params, root.function.param_types, self.placement.arguments):
            if argument.by_value is not None:
                start = (root.local_top + 15) // 16 * 16
                root.local_top = start + len(argument.by_value)
                memory.grow_local(root.local_top)
                stacks = memory.local.reshape(-1, memory.local_bytes)
                stacks[:, start : root.local_top] = np.frombuffer(argument.by_value, dtype=np.uint8)
                value = np.int64(tag(LOCAL, 0, start))
            else:
                value = argument.value
            root.regs[slot] = write(None, None, value, ty, root.count)

    def output_buffers(self):
        return self.placement.output_buffers()

    # ------------------------------------------------------------------ intrinsics

    def _intrinsic(self, function, pc, op, callee):
        if callee.startswith(NO_OPS):
            out = self.writer(function, op.result, False) if op.result >= 0 else None
            ty = op.type
            if out is None:
                return PLAIN, lambda frame, rows: None, None
            return PLAIN, lambda frame, rows: out(frame, rows, constant(ty, None)), None
        if callee == "llvm.stacksave" or callee.startswith("llvm.stacksave."):
            out = self.writer(function, op.result, False)
            return PLAIN, lambda frame, rows: out(frame, rows, np.int64(tag(LOCAL, 0, frame.local_top))), None
        if callee.startswith("llvm.ptr.annotation") or callee.startswith("llvm.launder.invariant.group") or \
                callee.startswith("llvm.strip.invariant.group"):
            read, out = self.reader(function, op.args[0]), self.writer(function, op.result, False)
            return PLAIN, lambda frame, rows: out(frame, rows, read(frame, rows)), None
        if callee.startswith("llvm.nvvm.read.ptx.sreg."):
            return PLAIN, self._special_register(function, op, callee[len("llvm.nvvm.read.ptx.sreg."):]), None
        barrier = barrier_kind(callee)
        if barrier is not None:
            return BARRIER, None, self._barrier_info(function, op, barrier)
        if callee == "__simulee_grid_sync":
            return GRID_BARRIER, None, None
        collective = _collective_kind(callee)
        if collective is not None:
            return self._collective_op(function, op, collective)
        if callee.startswith("llvm.nvvm.isspacep."):
            space = ADDRESS_SPACES[callee.rpartition(".")[2]]
            read, out = self.reader(function, op.args[0]), self.writer(function, op.result, True)
            return PLAIN, lambda frame, rows: out(frame, rows, split(read(frame, rows))[0] == space), None
        if callee == "llvm.nvvm.activemask":
            out = self.writer(function, op.result, True)

            def run(frame, rows):
                threads = frame.thread_ids(rows)
                wave = self.ex.wave
                out(frame, rows, collectives.active_mask(collectives.Warps(wave.warps_of(threads),
                                                                           wave.lanes_of(threads))))
            return PLAIN, run, None
        atomic = _nvvm_atomic(callee)
        if atomic is not None:
            return PLAIN, self._nvvm_atomic(function, pc, op, *atomic), None
        if callee.startswith(("llvm.memcpy", "llvm.memmove", "llvm.memset")) or callee in ("memcpy", "memmove",
                                                                                             "memset"):
            return PLAIN, self._memory_intrinsic(function, pc, op, callee), None
        if callee in ("malloc", "__simulee_malloc"):
            return PLAIN, self._malloc(function, op), None
        if callee in ("free", "__simulee_free"):
            return PLAIN, self._free(function, pc, op), None
        if callee in ("vprintf", "printf"):
            return PLAIN, self._printf(function, pc, op, callee), None
        if callee in ("__assert_fail", "__assertfail"):
            return STOP, self._assert(function, pc, op), None
        if callee in ("llvm.trap", "llvm.debugtrap", "abort", "__trap", "llvm.ubsantrap"):
            op_id = function.op_ids[pc]

            def trap(frame, rows):
                threads = frame.thread_ids(rows)
                self.ex.fault(TRAP, op_id, threads)
                self.ex.exit_threads(threads, op_id)
                return np.zeros(0, dtype=np.int64)
            return STOP, trap, None
        if callee in ("llvm.assume", "__simulee_assume"):
            return PLAIN, self._assume(function, pc, op), None
        if callee in ("__simulee_texture_fetch", "__simulee_texture_object_fetch"):
            return PLAIN, self._texture(function, pc, op, callee), None
        if callee in OUT_PARAMETER_MATH:
            return PLAIN, self._out_parameter_math(function, pc, op, callee), None
        implementation = mathlib.find(callee)
        if implementation is not None:
            readers = [self.reader(function, a) for a in op.args]
            types, result_type = op.arg_types, op.type
            dtype_of(result_type)
            out = self.writer(function, op.result, False)
            return PLAIN, lambda frame, rows: out(frame, rows, implementation(
                [read(frame, rows) for read in readers], types, result_type)), None
        raise Unsupported(f"call of undefined function '{callee}'")

    def _special_register(self, function, op, register):
        out = self.writer(function, op.result, True)
        launch = self.ex.launch
        name, _, axis = register.partition(".")
        index = "xyz".index(axis) if axis in ("x", "y", "z") else 0

        def threads_of(frame, rows):
            return frame.thread_ids(rows)

        if name == "tid":
            divisor = [1, launch.block[0], launch.block[0] * launch.block[1]][index]
            extent = launch.block[index]
            return lambda frame, rows: out(frame, rows, ((self.ex.wave.tid_of(threads_of(frame, rows)) // divisor)
                                                         % extent).astype(np.int32))
        if name == "ctaid":
            divisor = [1, launch.grid[0], launch.grid[0] * launch.grid[1]][index]
            extent = launch.grid[index]
            return lambda frame, rows: out(frame, rows, (((self.ex.wave.first_block + self.ex.wave.blocks_of(
                threads_of(frame, rows))) // divisor) % extent).astype(np.int32))
        if name == "ntid":
            value = np.int32(launch.block[index])
            return lambda frame, rows: out(frame, rows, value)
        if name == "nctaid":
            value = np.int32(launch.grid[index])
            return lambda frame, rows: out(frame, rows, value)
        if name == "laneid":
            return lambda frame, rows: out(frame, rows, self.ex.wave.lanes_of(threads_of(frame, rows)).astype(np.int32))
        if name == "warpid":
            return lambda frame, rows: out(frame, rows, (self.ex.wave.tid_of(threads_of(frame, rows)) // 32).astype(
                np.int32))
        if name == "nwarpid":
            value = np.int32((launch.threads_per_block + 31) // 32)
            return lambda frame, rows: out(frame, rows, value)
        if name == "warpsize":
            return lambda frame, rows: out(frame, rows, np.int32(32))
        if name.startswith("lanemask"):
            relation = name.partition("_")[2] or axis

            def lanemask(frame, rows):
                lane = self.ex.wave.lanes_of(threads_of(frame, rows)).astype(np.int64)
                below = (np.int64(1) << lane) - 1
                masks = {"lt": below, "le": (below << 1) | 1, "gt": ~((below << 1) | 1), "ge": ~below}
                out(frame, rows, (masks[relation] & 0xFFFFFFFF).astype(np.uint32).view(np.int32))
            return lanemask
        if name in ("clock", "clock64", "globaltimer"):
            dtype = dtype_of(op.type)
            return lambda frame, rows: out(frame, rows, dtype.type(self.ex.steps * (1000 if name == "globaltimer" else 1)))
        if name.startswith("envreg"):
            # envreg1/2 hold the grid workspace cooperative groups test for; its barrier is
            # never touched (grid syncs are the interpreter's own), so any non-null value does.
            value = np.int32(GRID_WORKSPACE if name == "envreg1" else 0)
            return lambda frame, rows: out(frame, rows, value)
        if name in ("smid", "gridid", "nsmid", "warpid"):
            value = np.int32(1 if name == "nsmid" else 0)
            return lambda frame, rows: out(frame, rows, value)
        raise Unsupported(f"special register {register}")

    # -- barriers

    def _barrier_info(self, function, op, reduction):
        """(reduction or None, predicate reader, result writer)."""
        if reduction is None:
            return None, None, None
        predicate = self.reader(function, op.args[-1])
        return reduction, predicate, self.writer(function, op.result, False) if op.result >= 0 else None

    def note_barrier_value(self, frame, rows, pc, threads) -> None:
        reduction, predicate, _ = frame.function.info[pc]
        if reduction is not None:
            values = np.asarray(predicate(frame, rows))
            self.ex.wave.barrier_value[threads] = np.broadcast_to(values != 0, threads.shape)

    def barrier_result(self, frame, rows, pc, threads) -> None:
        """Write a reduction barrier's result (popc/and/or over the block) for rows."""
        reduction, _, out = frame.function.info[pc]
        if reduction is None or out is None:
            return
        wave = self.ex.wave
        blocks = wave.blocks_of(threads)
        flags = wave.barrier_value[threads] != 0
        true_count = np.bincount(blocks, weights=flags, minlength=wave.blocks)[blocks]
        total = np.bincount(blocks, minlength=wave.blocks)[blocks]
        result = {"popc": true_count, "and": true_count == total, "or": true_count > 0}[reduction]
        ty = frame.function.slot_types[frame.function.decoded.ops[pc].result]
        frame.regs[frame.function.decoded.ops[pc].result] = write(
            frame.regs[frame.function.decoded.ops[pc].result], rows,
            np.asarray(result).astype(dtype_of(ty)), ty, frame.count)

    # -- warp collectives

    def _collective_op(self, function, op, kind):
        """A warp collective: (family, mode, legacy, callee, readers, writer, result type)."""
        family, mode, legacy = kind
        readers = [self.reader(function, a) for a in op.args]
        out = self.writer(function, op.result, False) if op.result >= 0 else None
        return COLLECTIVE, None, (family, mode, legacy, op.extra["callee"], readers, out, op.type)

    def collective_key(self, frame, pc):
        """Collectives that meet each other: the same intrinsic (sm_70 lets lanes meet at
        different instructions)."""
        return frame.function.info[pc][3]

    def collective_masks(self, frame, rows, pc):
        """Each lane's member mask (0 for the legacy forms: whoever is active takes part)."""
        family, mode, legacy, _, readers, _, _ = frame.function.info[pc]
        if legacy:
            return np.uint32(0)
        return np.asarray(readers[0](frame, rows)).astype(np.int64).astype(np.uint32)

    def collective_inputs(self, frame, rows, pc) -> list[np.ndarray]:
        """The operands of a collective for rows, one array per operand (masks first)."""
        family, mode, legacy, _, readers, _, _ = frame.function.info[pc]
        count = frame.count if rows is None else len(rows)
        inputs = [np.broadcast_to(np.asarray(read(frame, rows)), (count,)) for read in readers]
        if legacy:
            inputs = [np.zeros(count, dtype=np.uint32)] + inputs
        return inputs

    def collective_compute(self, frame, pc, threads, inputs) -> tuple:
        """The results of a collective for lanes `threads` (sorted) with their operands."""
        family, mode, legacy, _, _, _, ty = frame.function.info[pc]
        wave = self.ex.wave
        warps = collectives.Warps(wave.warps_of(threads), wave.lanes_of(threads))
        masks = warps.present() if legacy else inputs[0].astype(np.int64).astype(np.uint32)
        arguments = inputs[1:]
        if family == "syncwarp":
            return ()
        if family == "shfl":
            value, operand, clamp = arguments
            bits = value.view(np.int32) if value.dtype == np.float32 else value
            result, valid = collectives.shuffle(mode, warps, bits, operand, clamp)
            result = result.view(np.float32) if value.dtype == np.float32 else result
            return (result, valid) if isinstance(ty, StructType) else (result,)
        if family == "vote":
            return (collectives.vote(mode, warps, masks, arguments[0] != 0),)
        value = arguments[0]
        bits = value.view(np.int64 if value.dtype.itemsize == 8 else np.int32) if value.dtype.kind == "f" else value
        result, same = collectives.match(mode, warps, masks, bits)
        return (result, same) if isinstance(ty, StructType) else (result,)

    def collective_output(self, frame, rows, pc, results) -> None:
        out = frame.function.info[pc][5]
        if out is not None and results:
            out(frame, rows, results if len(results) > 1 else results[0])

    def record_collective(self, threads) -> None:
        """Keep which lanes of which warps met at this step (for warp-level ordering)."""
        wave = self.ex.wave
        warps = wave.warps_of(threads)
        info = collectives.Warps(warps, wave.lanes_of(threads))
        first = warps[info.starts]
        self.ex.events.collectives.append((self.ex.steps, wave.first_block + first // wave.warps_per_block,
                                           first % wave.warps_per_block, info.present_bits.copy()))

    # -- atomics, memory functions, heap, printf, assert, assume, textures

    def _nvvm_atomic(self, function, pc, op, operation, has_compare):
        readers = [self.reader(function, a) for a in op.args]
        out = self.writer(function, op.result, True)
        ty = op.type
        op_id = function.op_ids[pc]
        align = self.layout.align(ty)

        def run(frame, rows):
            pointer = readers[0](frame, rows)
            if has_compare:
                seen = self.atomic(frame, rows, pointer, "cmpxchg", readers[2](frame, rows), ty, align, op_id,
                                   readers[1](frame, rows))
            else:
                seen = self.atomic(frame, rows, pointer, operation, readers[1](frame, rows), ty, align, op_id)
            out(frame, rows, seen)

        return run

    def _memory_intrinsic(self, function, pc, op, callee):
        """memcpy / memmove / memset (LLVM intrinsics or C calls) by every lane, as one read
        and one write of the whole range per lane."""
        readers = [self.reader(function, a) for a in op.args]
        is_set = "memset" in callee
        op_id = function.op_ids[pc]
        out = self.writer(function, op.result, False) if op.result >= 0 else None
        attributes = op.extra.get("argument_attributes", ())
        aligns = [next((int(a.split()[1]) for a in attrs if isinstance(a, str) and a.startswith("align ")), 1)
                  for attrs in attributes] + [1, 1]

        def run(frame, rows):
            count = frame.count if rows is None else len(rows)
            destination = np.broadcast_to(np.asarray(readers[0](frame, rows), dtype=np.int64), (count,))
            lengths = np.broadcast_to(np.asarray(readers[2](frame, rows)).astype(np.int64), (count,))
            everyone = np.arange(frame.count) if rows is None else rows
            too_long = lengths > COPY_LIMIT
            if too_long.any():
                self.ex.fault(OUT_OF_BOUNDS, op_id, frame.thread_ids(rows)[too_long])
            self.ex.thread_instructions += int(np.maximum(lengths[~too_long], 0).sum()) // 4  # the work: words moved
            for length in np.unique(lengths[~too_long]):
                if length <= 0:
                    continue
                chosen = lengths == length
                sub_rows = None if chosen.all() and rows is None else everyone[chosen]
                if is_set:
                    byte = np.broadcast_to(np.asarray(readers[1](frame, rows)).astype(np.uint8), (count,))[chosen]
                    data = np.repeat(byte[:, None], int(length), axis=1)
                else:
                    source = np.broadcast_to(np.asarray(readers[1](frame, rows), dtype=np.int64), (count,))[chosen]
                    data = self.access(frame, sub_rows, source, int(length), aligns[1], op_id, READ)
                self.access(frame, sub_rows, destination[chosen], int(length), aligns[0], op_id, WRITE, data)
            if out is not None:
                out(frame, rows, destination)

        return run

    def _malloc(self, function, op):
        size = self.reader(function, op.args[0])
        out = self.writer(function, op.result, True)

        def run(frame, rows):
            count = frame.count if rows is None else len(rows)
            out(frame, rows, self.heap().malloc(np.broadcast_to(np.asarray(size(frame, rows)).astype(np.int64),
                                                                (count,))))

        return run

    def _free(self, function, pc, op):
        pointer = self.reader(function, op.args[0])
        op_id = function.op_ids[pc]

        def run(frame, rows):
            count = frame.count if rows is None else len(rows)
            addresses = np.broadcast_to(np.asarray(pointer(frame, rows), dtype=np.int64), (count,))
            invalid, double = self.heap().free(addresses)
            threads = frame.thread_ids(rows)
            self.ex.fault(INVALID_FREE, op_id, threads[invalid], addresses[invalid])
            self.ex.fault(DOUBLE_FREE, op_id, threads[double], addresses[double])

        return run

    def heap(self) -> Heap:
        """The device heap, made on the first malloc or free."""
        if self._heap is None:
            self._heap = Heap(self.ex.memory, self.ex.launch.heap_bytes)
        return self._heap

    def read_string(self, address: int, limit: int = 4096) -> str:
        """The NUL-terminated string at a device address (global or constant memory)."""
        space, region, offset = (int(v) for v in split(np.int64(address)))
        if space not in (GLOBAL, 4) or not 0 < region < len(self.ex.memory.regions):
            return "(null)" if address == 0 else "(bad string pointer)"
        data = self.ex.memory.regions[region].data[offset : offset + limit].tobytes()
        return data.split(b"\0", 1)[0].decode("utf-8", "replace")

    def _printf(self, function, pc, op, callee):
        readers = [self.reader(function, a) for a in op.args]
        out = self.writer(function, op.result, True) if op.result >= 0 else None
        if callee == "printf":  # a call left as printf: no argument buffer
            readers = readers[:1]

        def run(frame, rows):
            threads = frame.thread_ids(rows)
            count = len(threads)
            formats = np.broadcast_to(np.asarray(readers[0](frame, rows), dtype=np.int64), (count,))
            buffers = np.broadcast_to(np.asarray(readers[1](frame, rows), dtype=np.int64), (count,)) \
                if len(readers) > 1 else np.zeros(count, dtype=np.int64)
            wave = self.ex.wave
            for address in np.unique(formats):
                text = self.read_string(int(address))
                conversions, size = printf_format.layout(text)
                chosen = formats == address
                data = np.zeros((int(chosen.sum()), 0), np.uint8)
                if size:
                    data = self.ex.memory.read_bytes(self.ex.memory.locate(
                        buffers[chosen], size, 1, wave.blocks_of(threads[chosen]), threads[chosen], False)[2],
                        int(chosen.sum()), size, 1)
                for thread, row in zip(threads[chosen], data):
                    self.ex.events.printf.append((
                        wave.first_block + int(thread // wave.tpb), int(thread % wave.tpb),
                        printf_format.format_call(text, conversions, row.tobytes(), self.read_string)))
            if out is not None:
                out(frame, rows, np.zeros(count, dtype=np.int32))

        return run

    def _assert(self, function, pc, op):
        readers = [self.reader(function, a) for a in op.args]
        op_id = function.op_ids[pc]

        def run(frame, rows):
            threads = frame.thread_ids(rows)
            values = [np.broadcast_to(np.asarray(read(frame, rows)), (len(threads),))[0] for read in readers[:4]]
            message = f"{self.read_string(int(values[1]))}:{int(values[2])}: {self.read_string(int(values[3]))}: " \
                      f"Assertion `{self.read_string(int(values[0]))}' failed."
            wave = self.ex.wave
            self.ex.events.assertions.append(Assertion("assert", op_id, wave.first_block + wave.blocks_of(threads),
                                                       wave.tid_of(threads), message))
            self.ex.exit_threads(threads, op_id)
            return np.zeros(0, dtype=np.int64)

        return run

    def _assume(self, function, pc, op):
        condition = self.reader(function, op.args[0])
        op_id = function.op_ids[pc]

        def run(frame, rows):
            value = np.asarray(condition(frame, rows))
            threads = frame.thread_ids(rows)
            broken = ~np.broadcast_to(value.astype(bool), threads.shape)
            if broken.any():  # the launch is not one the kernel allows: nothing after it counts
                wave = self.ex.wave
                violators = threads[broken]
                self.ex.events.assertions.append(Assertion("assume", op_id, wave.first_block + wave.blocks_of(
                    violators), wave.tid_of(violators)))
                raise Stop("invalid-launch", (op_id, False), "a thread broke an assumption of the kernel")

        return run

    def _texture(self, function, pc, op, callee):
        """__simulee_texture_fetch(texture, dims, x, y, z, out, size): the element at the
        (clamped) coordinates of the array bound to the texture (zeros when none is)."""
        readers = [self.reader(function, a) for a in op.args]
        op_id = function.op_ids[pc]

        def run(frame, rows):
            count = frame.count if rows is None else len(rows)
            handle = np.broadcast_to(np.asarray(readers[0](frame, rows), dtype=np.int64), (count,))
            coordinates = [np.broadcast_to(np.asarray(readers[i](frame, rows), dtype=np.float64), (count,))
                           for i in (2, 3, 4)]
            size = int(np.asarray(readers[6](frame, rows)).reshape(-1)[0])
            result = np.zeros((count, size), dtype=np.uint8)
            for address in np.unique(handle):
                array = self.placement.bound_array(int(address))
                if array is None:
                    continue
                chosen = handle == address
                shape = array.shape[::-1]  # x varies fastest
                index = 0
                stride = 1
                for axis, extent in enumerate(shape[:3]):
                    position = np.clip(np.floor(coordinates[axis][chosen]).astype(np.int64), 0, extent - 1)
                    index = index + position * stride
                    stride *= extent
                flat = np.ascontiguousarray(array).reshape(-1)
                values = flat[np.clip(index, 0, len(flat) - 1)]
                data = values.view(np.uint8).reshape(len(values), -1)[:, :size]
                result[chosen, : data.shape[1]] = data
            target = np.broadcast_to(np.asarray(readers[5](frame, rows), dtype=np.int64), (count,))
            self.access(frame, rows, target, size, 1, op_id, WRITE, result)

        return run

    def _out_parameter_math(self, function, pc, op, callee):
        """Math with results stored through pointers: frexp, modf, remquo, sincos(pi)."""
        readers = [self.reader(function, a) for a in op.args]
        out = self.writer(function, op.result, True) if op.result >= 0 else None
        op_id = function.op_ids[pc]
        single = callee.endswith("f")
        dtype = np.float32 if single else np.float64

        def store(frame, rows, pointer, value, ty):
            count = frame.count if rows is None else len(rows)
            self.access(frame, rows, pointer, self.layout.store_size(ty), self.layout.align(ty), op_id, WRITE,
                        self.encode(value, ty, count))

        float_type = FloatType("float" if single else "double")

        def run(frame, rows):
            x = np.asarray(readers[0](frame, rows), dtype=dtype)
            base = callee.removeprefix("__nv_").removesuffix("f") if single else callee.removeprefix("__nv_")
            if base == "frexp":
                mantissa, exponent = np.frexp(x)
                store(frame, rows, readers[1](frame, rows), exponent.astype(np.int32), I32)
                result = mantissa.astype(dtype)
            elif base == "modf":
                fraction, whole = np.modf(x)
                store(frame, rows, readers[1](frame, rows), whole.astype(dtype), float_type)
                result = fraction.astype(dtype)
            elif base == "remquo":
                y = np.asarray(readers[1](frame, rows), dtype=dtype)
                quotient = np.rint(x / y)
                store(frame, rows, readers[2](frame, rows), quotient.astype(np.int32) & 0x7, I32)
                result = (x - quotient * y).astype(dtype)
            else:  # sincos, sincospi
                angle = x * dtype(np.pi) if base == "sincospi" else x
                store(frame, rows, readers[1](frame, rows), np.sin(angle).astype(dtype), float_type)
                store(frame, rows, readers[2](frame, rows), np.cos(angle).astype(dtype), float_type)
                result = None
            if out is not None and result is not None:
                out(frame, rows, result)

        return run


class _Failing:
    """A constant that cannot be evaluated; using it makes the instruction unsupported."""

    def __init__(self, reason: str):
        self.reason = reason


OUT_PARAMETER_MATH = {f"__nv_{name}{suffix}" for name in ("frexp", "modf", "remquo", "sincos", "sincospi")
                      for suffix in ("", "f")}


def _collective_kind(callee: str):
    """(family, mode, legacy) for warp collectives."""
    if callee == "llvm.nvvm.bar.warp.sync":
        return "syncwarp", None, False
    parts = callee.split(".")
    if callee.startswith("llvm.nvvm.shfl."):
        legacy = parts[3] != "sync"
        mode = parts[3] if legacy else parts[4]
        return "shfl", mode, legacy
    if callee.startswith("llvm.nvvm.vote."):
        return "vote", parts[3], not callee.endswith(".sync")
    if callee.startswith("llvm.nvvm.match."):
        return "match", parts[3], False
    return None


_ATOMIC_NAMES = {"add": "add", "exch": "xchg", "max": "max", "min": "min", "inc": "uinc_wrap", "dec": "udec_wrap",
                 "and": "and", "or": "or", "xor": "xor", "cas": "cmpxchg"}


def _nvvm_atomic(callee: str):
    """(operation, has_compare) of an NVVM atomic intrinsic such as
    llvm.nvvm.atomic.add.gen.i.cta.i32.p0 or llvm.nvvm.atomic.load.inc.32.p0."""
    if not callee.startswith("llvm.nvvm.atomic."):
        return None
    parts = callee.split(".")
    name = parts[4] if parts[3] == "load" else parts[3]
    operation = _ATOMIC_NAMES.get(name)
    if operation is None:
        return None
    kind = parts[5] if len(parts) > 5 and parts[3] != "load" else "i"
    if operation == "add" and kind == "f":
        operation = "fadd"
    if operation in ("max", "min") and kind == "ui":
        operation = "u" + operation
    return operation, operation == "cmpxchg"


def _check_type(ty: Type) -> None:
    """Raise Unsupported for a type values.py cannot represent (i128, fp128, ...)."""
    if isinstance(ty, StructType):
        for member in ty.fields:
            _check_type(member)
    elif isinstance(ty, ArrayType):
        _check_type(ty.element)
    elif isinstance(ty, (IntType, FloatType, PointerType, VectorType)):
        dtype_of(ty)


def _walk(value, indices):
    for index in indices:
        value = value[index] if isinstance(value, tuple) else np.asarray(value)[..., index]
    return value


def _replace(aggregate, indices, element):
    if not indices:
        return element
    items = list(aggregate)
    items[indices[0]] = _replace(items[indices[0]], indices[1:], element)
    return tuple(items)


def _select_aggregate(condition, a, b):
    if isinstance(a, tuple):
        return tuple(_select_aggregate(condition, x, y) for x, y in zip(a, b))
    return np.where(condition, a, b)


def _value_bits(data: np.ndarray) -> np.ndarray:
    """The written bytes as one uint64 per lane (XOR-folded beyond 8 bytes)."""
    data = np.ascontiguousarray(data, dtype=np.uint8)
    width = data.shape[1]
    padded_width = (width + 7) // 8 * 8
    if padded_width != width:
        data = np.concatenate([data, np.zeros((len(data), padded_width - width), np.uint8)], axis=1)
    words = data.view(np.uint64)
    return np.bitwise_xor.reduce(words, axis=1) if words.shape[1] > 1 else words[:, 0]
