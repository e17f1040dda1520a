"""The native engine: straight runs of plain instructions compiled to machine code through
llvmlite's JIT, executed for a group's threads in one call instead of one NumPy
operation per instruction.

A run is a stretch of consecutive plain instructions of one basic block whose every
instruction is native: integer and float arithmetic, comparisons, casts, select,
getelementptr, thread and block indices, a few math intrinsics, scalar loads and stores
that are neither volatile nor atomic, and integer and float atomic read-modify-writes.
Its machine code keeps the interpreter's semantics exactly: what instruction after
instruction, each for every thread of the group in row order, computes (lockstep reads
and writes, the last writer wins, atomics lane after lane), registers read from and
written to the frame's NumPy arrays, every access traced into preallocated columns with
the same values the NumPy path records.

Whatever the native code cannot do exactly it leaves to the NumPy interpreter: a run
returns the index of the first instruction it did not complete, before that
instruction had any effect on memory, and the scheduler runs it with its NumPy closure.
That is the case for every access that would fault (null, out of bounds, misaligned,
a write to constant memory) or needs the memory to act (a paged buffer that must grow or
be filled, the heap's guarded allocations, host pointers), a getelementptr index out of
its array's bounds, and a trace about to reach its limit. While a launch tracks taint
(interpreter.taint), accesses are left to the NumPy path, which keeps taint in shadow
memory, and each call gives its results the taint the NumPy path would.

May import: interpreter modules (nothing of simulee or evolve).
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import os

import numpy as np

from interpreter import taint
from interpreter.mathlib import base_name
from interpreter.native_ir import (
    BITS_OF_FLOAT, COLUMNS, COLUMN_PLACES, CONTEXT_WORDS, C_ACTIVE, C_ACTIVE_COL, C_BASES, C_BLOCK, C_BX, C_CHANGED,
    C_CTAID_X, C_CTAID_Y, C_CTAID_Z, C_EPOCH, C_EPOCH_COL, C_FIRST_BLOCK, C_GX, C_LIMITS, C_LOCAL, C_LOCAL_BYTES,
    C_OFFSET, C_REGION, C_REGIONS, C_SHARED, C_SHARED_BYTES, C_SPACE, C_THREAD, C_THREADS, C_TID, C_TID_X, C_TID_Y,
    C_TID_Z, C_TOUCHED, C_TPB, C_VALUE, C_WARP_SYNC, C_WARP_SYNC_COL, C_WAVE_BLOCK, C_WRITABLE, DTYPES, FLOATS, SIZES,
    Writer, literal, llvm_type, storage,
)
from interpreter.native_flow import (
    FLOW_SIGNATURE, IO_BOUND, IO_BUDGET, IO_COLUMNS, IO_LOG, IO_LOG_ROOM, IO_LOGGING, IO_ROOM, IO_STEPS, IO_TAKEN,
    IO_TRIPS, IO_VISITS, IO_WORDS, Flow,
)
from interpreter.memory import (
    CONSTANT, FILL_CHUNK, GLOBAL, LOCAL, OFFSET_MASK, REGION_MASK, REGION_SHIFT, SHARED, SPACE_SHIFT,
)
from interpreter.registers import STAGE_ENDS
from interpreter.trace import ATOMIC, READ, WRITE
from interpreter.types import FloatType, IntType
from interpreter.values import WINDOWED_SPACES
from interpreter.vocabulary import CAST_OPCODES, DIVISION, FLOAT_BINARY, SPECIAL_REGISTER, WRAPPING_BINARY, access_sync

ENGINES = ("native", "numpy")
# thread-instructions a kernel's launches run on NumPy before native code is compiled for it: a
# kernel that does little costs less to interpret than to compile
WARMUP = 1 << 20
# or scheduler steps (each some microseconds of Python: a serial loop of one thread costs them, not work)
WARMUP_STEPS = 1 << 14
# thread-instructions a function's quick (unoptimized) code runs before it is compiled again, optimized
# (0.1-0.7 s, once per machine: the object is cached): optimized code runs 1.3-3x faster, and quick code's
# speed varies from run to run (transpose at 262,144 threads: 134-331 M/s quick, 421-428 M/s optimized)
OPTIMIZE_AFTER = 1 << 24
# a call costs some microseconds: one lone arithmetic instruction is worth it only for this many threads
LONE_THREADS = 2048
SPLIT_ENTRIES = 1024  # threads from which a call's accesses go to the trace as one entry each
FLOW_RECORDS = 1 << 16  # trace records a flow call may write (more when its first run needs more)
# groups up to this many threads go on through branches in native code; a larger one's branch costs the
# scheduler little beside its work, and NumPy takes its phis by reference where native code copies them
FLOW_THREADS = 8192

# per thread of the wave, precomputed once a wave (no division in the generated code): its block in
# the wave, its linear index in the block, and its thread and block coordinates
_WAVE_ARRAYS = ((C_WAVE_BLOCK, np.int64), (C_TID, np.int64), (C_TID_X, np.int32), (C_TID_Y, np.int32),
                (C_TID_Z, np.int32), (C_CTAID_X, np.int32), (C_CTAID_Y, np.int32), (C_CTAID_Z, np.int32))


def warmup() -> tuple[int, int]:
    """(thread-instructions, scheduler steps) a kernel's launches run on NumPy before native
    code runs, whichever comes first: $SIMULEE_NATIVE_WARMUP for both (0 runs every run
    natively, as the differential test does), else WARMUP and WARMUP_STEPS."""
    value = os.environ.get("SIMULEE_NATIVE_WARMUP", "")
    return (int(value), int(value)) if value.isdigit() else (WARMUP, WARMUP_STEPS)


def default_engine() -> str:
    """The engine launches use unless they name one: $SIMULEE_ENGINE, else native."""
    engine = os.environ.get("SIMULEE_ENGINE", "native")
    return engine if engine in ENGINES else "native"


# ---------------------------------------------------------------------------- types

# ---------------------------------------------------------------------------- which instructions

_MATH = {"llvm.smax": "smax", "llvm.smin": "smin", "llvm.umax": "umax", "llvm.umin": "umin", "llvm.abs": "abs",
         "llvm.fmuladd": "fma", "llvm.fma": "fma", "__nv_fmaf": "fma", "llvm.ctpop": "ctpop"}
# atomicrmw operations run lane after lane as LLVM instructions: each lane's new value from the old
_INTEGER_ATOMICS = {"add": "add", "sub": "sub", "and": "and", "or": "or", "xor": "xor", "xchg": None,
                    "max": "smax", "min": "smin", "umax": "umax", "umin": "umin"}
_SPECIAL = {"tid", "ctaid", "ntid", "nctaid", "laneid", "warpid", "nwarpid", "warpsize"}


def _no_op(callee: str) -> bool:
    """Whether the interpreter does nothing for a call of `callee` (lifetimes, debug values)."""
    from interpreter import intrinsics
    from interpreter.compiler import intrinsic

    return intrinsic(callee)[1] is intrinsics.no_op


def native_op(function, op, layout) -> bool:
    """Whether the native engine runs this plain instruction with the NumPy path's semantics."""
    if op.result >= 0 and llvm_type(op.type) is None:
        return False
    constants = function.constants
    for slot in op.args:
        value = constants.get(slot)
        if value is not None and not np.isscalar(value) and not (isinstance(value, np.ndarray) and value.ndim == 0):
            return False
        if llvm_type(function.slot_types[slot]) is None and op.opcode != "getelementptr":
            return False
    opcode = op.opcode
    if opcode in WRAPPING_BINARY:
        return not (op.type.bits == 1 and opcode in ("shl", "lshr", "ashr")) if isinstance(op.type, IntType) else False
    if opcode in DIVISION:  # a lane dividing by zero faults: left to the NumPy path
        return isinstance(op.type, IntType) and op.type.bits > 1
    if opcode in FLOAT_BINARY or opcode == "fneg":
        return op.type.name in FLOATS if isinstance(op.type, FloatType) else False
    if opcode in ("icmp", "fcmp", "select", "freeze"):
        return all(llvm_type(function.slot_types[a]) is not None for a in op.args)
    if opcode in CAST_OPCODES:
        if opcode in ("fptosi", "fptoui") and op.type.bits == 1:
            return False
        return opcode != "bitcast" or SIZES.get(llvm_type(op.arg_types[0]), 0) == SIZES.get(llvm_type(op.type))
    if opcode == "getelementptr":
        return _gep_plan(function, op, layout) is not None
    if opcode in ("load", "store"):
        ty = op.type if opcode == "load" else op.arg_types[0]
        return llvm_type(ty) is not None and access_sync(opcode, op.extra) == 0
    if opcode == "atomicrmw":
        operation, ty = op.extra.get("operation"), llvm_type(op.type)
        return ty in ("i32", "i64") and operation in _INTEGER_ATOMICS or \
            ty in ("float", "double") and operation == "fadd"
    if opcode == "call":
        callee = op.extra.get("callee") or ""
        if callee.startswith(SPECIAL_REGISTER):
            return callee.removeprefix(SPECIAL_REGISTER).partition(".")[0] in _SPECIAL
        if _no_op(callee):
            return op.result < 0
        kind = _MATH.get(base_name(callee))
        if kind == "fma":
            return llvm_type(op.type) == "float"
        return kind is not None and isinstance(op.type, IntType) and op.type.bits > 1
    return False


def _gep_plan(function, op, layout):
    """arithmetic.gep_plan of a scalar getelementptr, each variable index with whether it
    is zero-extended (an i1); None if not native."""
    from interpreter.arithmetic import gep_plan
    from interpreter.types import VectorType

    if isinstance(op.type, VectorType):
        return None
    constant_offset, indices = gep_plan(function, op, layout)
    variable = []
    for slot, scale, bound in indices:
        index_type = llvm_type(function.slot_types[slot])
        if index_type is None or not index_type.startswith("i"):
            return None
        variable.append((slot, scale, bound, index_type == "i1"))
    return constant_offset, variable


# ---------------------------------------------------------------------------- code generation


_WRITING = STAGE_ENDS  # instructions that run as a stage of their own (what registers.py lets reuse registers)


class Run:
    """The native code of one run: instructions `pcs` of a function, and how each uses the
    frame's registers."""

    def __init__(self, function, pcs: list[int], layout, op_ids, position: dict[int, int]):
        self.function, self.pcs = function, pcs
        self.layout = layout
        self.slots: list[int] = []  # registers the code reaches
        self.position = position  # slot -> its place in the function's table of register addresses
        self.outputs: list[int] = []  # per instruction, its result slot (-1: none)
        self.memory = [False] * len(pcs)  # per instruction: whether it records one access per thread
        self.kinds, self.sizes, self.op_ids, self.syncs = ([0] * len(pcs) for _ in range(4))
        seen = set()
        for index, pc in enumerate(pcs):
            op = function.decoded.ops[pc]
            self.outputs.append(op.result)
            for slot in (*op.args, op.result):
                if slot >= 0 and slot not in function.constants and slot not in seen:
                    position.setdefault(slot, len(position))
                    seen.add(slot)
                    self.slots.append(slot)
            if op.opcode in ("load", "store", "atomicrmw"):
                self.memory[index] = True
                self.kinds[index] = {"load": READ, "store": WRITE, "atomicrmw": ATOMIC}[op.opcode]
                self.sizes[index] = SIZES[llvm_type(op.arg_types[0] if op.opcode == "store" else op.type)]
                self.op_ids[index] = op_ids[pc]
                self.syncs[index] = access_sync(op.opcode, op.extra)
        self.name = f"RUN_{pcs[0]}"
        self.atomic = ATOMIC in self.kinds
        # per access instruction, its place among the run's accesses (its records' part of the columns)
        self.ordinal = {index: place for place, index in enumerate(i for i in range(len(pcs)) if self.memory[i])}
        self.types = [llvm_type(function.slot_types[s]) or "i64" for s in self.slots]
        self.dtypes = {slot: DTYPES[ty] for slot, ty in zip(self.slots, self.types)}
        self.table = None  # per call: the registers' addresses (the function's table, shared by its runs)
        self._inputs: dict[int, list] = {}
        self._results: dict[tuple[int, int], list] = {}
        self._accesses: dict[tuple[int, int], list] = {}

    def inputs(self, start: int) -> list[tuple[int, int, np.dtype]]:
        """(slot, place in the table, dtype) of the registers the instructions from `start`
        read without having written them."""
        found = self._inputs.get(start)
        if found is None:
            written = {self.outputs[i] for i in range(start, len(self.pcs))}
            found = [(s, self.position[s], self.dtypes[s]) for s in self.slots if s not in written]
            self._inputs[start] = found
        return found

    def results(self, start: int, stop: int) -> list[tuple[int, int, np.dtype]]:
        """(slot, place in the table, dtype) of the results of instructions start to stop."""
        found = self._results.get((start, stop))
        if found is None:
            found = self._results[(start, stop)] = [
                (self.outputs[i], self.position[self.outputs[i]], self.dtypes[self.outputs[i]])
                for i in range(start, stop) if self.outputs[i] >= 0]
        return found

    def accesses_from(self, start: int, stop: int) -> list[int]:
        """The access instructions from `start` to `stop`."""
        found = self._accesses.get((start, stop))
        if found is None:
            found = self._accesses[(start, stop)] = [i for i in range(start, stop) if self.memory[i]]
        return found

    # -- the function text
    #
    # Instructions are grouped into stages: a store alone, or a stretch of instructions
    # that write no memory. A stage of the second kind runs thread after thread, all its
    # instructions for one thread before the next: since nothing in it stores, that
    # computes what instruction-after-instruction lockstep computes. Each instruction
    # runs only from `start` and below `limit` (at first the stage's end, or `stop`);
    # when one cannot run natively for a thread, `limit` drops to it, so the threads
    # after complete only the instructions before it, and the call returns there.

    def stages(self) -> list[tuple[int, int]]:
        bounds, first = [], 0
        for index, pc in enumerate(self.pcs):
            if self.function.decoded.ops[pc].opcode in _WRITING:
                if first < index:
                    bounds.append((first, index))
                bounds.append((index, index + 1))
                first = index + 1
        if first < len(self.pcs):
            bounds.append((first, len(self.pcs)))
        return bounds

    def ir(self) -> str:
        w = self.w = Writer()
        count = len(self.pcs)
        w.lines.append(f"define i64 @{self.name}(i64 %start, i64 %stop, i64 %n, ptr noalias %rows, ptr noalias %regs, "
                       f"ptr noalias %ctx) {{")
        w.label("entry")
        self.base = {}
        for slot in self.slots:
            cell = w(f"getelementptr ptr, ptr %regs, i64 {self.position[slot]}")
            self.base[slot] = w(f"load ptr, ptr {cell}")
        self.context = {}
        for word in range(CONTEXT_WORDS):
            cell = w(f"getelementptr i64, ptr %ctx, i64 {word}")
            self.context[word] = w(f"load i64, ptr {cell}")
        self.pointers = {word: w(f"inttoptr i64 {self.context[word]} to ptr") for word in range(CONTEXT_WORDS)}
        stages = self.stages()
        entries = " ".join(f"i64 {i}, label %S{next(s for s, (a, b) in enumerate(stages) if a <= i < b)}"
                           for i in range(count))
        w.do(f"switch i64 %start, label %done [ {entries} ]")
        for number, (first, end) in enumerate(stages):
            w.label(f"S{number}")
            op = self.function.decoded.ops[self.pcs[first]]
            if op.opcode in _WRITING:
                self._store(first, op, f"S{number}")
            else:
                self._stage(first, end, f"S{number}")
            w.do(f"br label %{'S' + str(number + 1) if number + 1 < len(stages) else 'done'}")
        w.label("done")
        w.do(f"ret i64 {count}")
        w.lines.append("}")
        return "\n".join(w.lines)

    def _stage(self, first: int, end: int, label: str) -> None:
        w = self.w
        limit0 = w(f"select i1 {w(f'icmp slt i64 %stop, {end}')}, i64 %stop, i64 {end}")
        self.aborts = []  # (block, instruction) of every way out of a thread's iteration
        i, row = self._loop(label, limit0)
        limit = f"%{label}.limit"
        self.abort_label = f"{label}.out"
        for index in range(first, end):
            self._guarded(index, self.function.decoded.ops[self.pcs[index]], row, i, limit, f"{label}.o{index}")
        w.do(f"br label %{label}.latch")
        self.aborts.append((f"{label}.o{end - 1}.after", limit))
        for block, instruction in self.aborts[:-1]:
            w.label(block)
            w.do(f"br label %{label}.latch")
        w.label(f"{label}.latch")
        incoming = ", ".join(f"[ {value}, %{block} ]" for block, value in self.aborts)
        w.lines.append(f"  %{label}.limit.next = phi i64 {incoming}")
        w.lines.append(f"  %{label}.next = add i64 {i}, 1")
        w.do(f"br label %{label}.head")
        w.label(f"{label}.exit")
        short = w(f"icmp slt i64 {limit}, {end}")
        w.do(f"br i1 {short}, label %{label}.short, label %{label}.full")
        w.label(f"{label}.short")
        w.do(f"ret i64 {limit}")
        w.label(f"{label}.full")

    def _guarded(self, index: int, op, row: str, i: str, limit: str, label: str) -> None:
        """Instruction `index` for one thread, if start <= index < limit."""
        w = self.w
        begun = w(f"icmp sle i64 %start, {index}")
        below = w(f"icmp slt i64 {index}, {limit}")
        w.do(f"br i1 {w(f'and i1 {begun}, {below}')}, label %{label}.do, label %{label}.skip")
        w.label(f"{label}.skip")
        previous = None
        if op.result >= 0:  # run before the call (or never used): the register holds it
            ty = llvm_type(op.type)
            previous = self._load_register(op.result, row, ty)
        w.do(f"br label %{label}.after")
        w.label(f"{label}.do")
        self.current = index
        value = self._compute(index, op, row, i)
        if op.result >= 0:
            self._write(op.result, row, value, llvm_type(op.type))
        done_block = f"{label}.done"
        w.do(f"br label %{done_block}")
        w.label(done_block)
        w.do(f"br label %{label}.after")
        w.label(f"{label}.after")
        if op.result >= 0:
            ty = llvm_type(op.type)
            self.values[op.result] = w(f"phi {ty} [ {previous}, %{label}.skip ], [ {value}, %{done_block} ]")

    def _load_register(self, slot: int, row: str, ty: str) -> str:
        w = self.w
        cell = w(f"getelementptr {storage(ty)}, ptr {self.base[slot]}, i64 {row}")
        value = w(f"load {storage(ty)}, ptr {cell}")
        return w(f"trunc i8 {value} to i1") if ty == "i1" else value

    def _loop(self, label: str, limit0: str | None = None):
        """Open a loop over the group's rows; returns (i, row). With `limit0`, a stage's:
        its `%label.limit` starts there and takes `%label.limit.next` round the loop."""
        w = self.w
        w.do(f"br label %{label}.enter")
        w.label(f"{label}.enter")
        w.do(f"br label %{label}.head")
        w.label(f"{label}.head")
        i = f"%{label}.i"
        w.lines.append(f"  {i} = phi i64 [ 0, %{label}.enter ], [ %{label}.next, %{label}.latch ]")
        if limit0 is not None:
            w.lines.append(f"  %{label}.limit = phi i64 [ {limit0}, %{label}.enter ], "
                           f"[ %{label}.limit.next, %{label}.latch ]")
        more = w(f"icmp slt i64 {i}, %n")
        w.do(f"br i1 {more}, label %{label}.body, label %{label}.exit")
        w.label(f"{label}.body")
        cell = w(f"getelementptr i64, ptr %rows, i64 {i}")
        row = w(f"load i64, ptr {cell}")
        self.values = {}  # slot -> its SSA value in this thread's iteration
        return i, row

    def _close(self, label: str) -> None:
        w = self.w
        w.do(f"br label %{label}.latch")
        w.label(f"{label}.latch")
        w.lines.append(f"  %{label}.next = add i64 %{label}.i, 1")
        w.do(f"br label %{label}.head")
        w.label(f"{label}.exit")

    def _read(self, slot: int, row: str) -> tuple[str, str]:
        """(value, LLVM type) of operand `slot` at `row`."""
        ty = llvm_type(self.function.slot_types[slot]) or "i64"
        constant = self.function.constants.get(slot)
        if constant is not None:
            return literal(constant, ty), ty
        known = self.values.get(slot)
        if known is not None:
            return known, ty
        value = self._load_register(slot, row, ty)
        return value, ty

    def _write(self, slot: int, row: str, value: str, ty: str) -> None:
        w = self.w
        if ty == "i1":
            value = w(f"zext i1 {value} to i8")
        cell = w(f"getelementptr {storage(ty)}, ptr {self.base[slot]}, i64 {row}")
        w.do(f"store {storage(ty)} {value}, ptr {cell}")

    def _abort(self, index: int, condition: str, label: str) -> None:
        """Stop instruction `index` for this thread when `condition` holds: in a stage the
        limit drops to it; in a store's checking pass the call returns there."""
        w = self.w
        w.do(f"br i1 {condition}, label %abort{index}.{label}, label %{label}.ok")
        if self.abort_label is None:
            w.label(f"abort{index}.{label}")
            w.do(f"ret i64 {index}")
        else:
            self.aborts.append((f"abort{index}.{label}", str(index)))
        w.label(f"{label}.ok")

    # -- values

    def _compute(self, index: int, op, row: str, i: str) -> str:
        w = self.w
        opcode = op.opcode
        if opcode in WRAPPING_BINARY:
            (a, ty), (b, _) = self._read(op.args[0], row), self._read(op.args[1], row)
            if opcode in ("shl", "lshr", "ashr"):
                bits = int(ty[1:])
                far = w(f"icmp uge {ty} {b}, {bits}")
                safe = w(f"select i1 {far}, {ty} 0, {ty} {b}")
                shifted = w(f"{opcode} {ty} {a}, {safe}")
                if opcode == "ashr":
                    negative = w(f"icmp slt {ty} {a}, 0")
                    fill = w(f"select i1 {negative}, {ty} -1, {ty} 0")
                else:
                    fill = "0"
                return w(f"select i1 {far}, {ty} {fill}, {ty} {shifted}")
            return w(f"{opcode} {ty} {a}, {b}")
        if opcode in DIVISION:
            (a, ty), (b, _) = self._read(op.args[0], row), self._read(op.args[1], row)
            self._abort(index, w(f"icmp eq {ty} {b}, 0"), f"L{index}.z")
            if opcode in ("udiv", "urem"):
                return w(f"{opcode} {ty} {a}, {b}")
            minus = w(f"icmp eq {ty} {b}, -1")  # INT_MIN / -1 wraps to INT_MIN, as on the GPU
            quotient = w(f"{opcode} {ty} {a}, {w(f'select i1 {minus}, {ty} 1, {ty} {b}')}")
            wrapped = w(f"sub {ty} 0, {a}") if opcode == "sdiv" else "0"
            return w(f"select i1 {minus}, {ty} {wrapped}, {ty} {quotient}")
        if opcode in FLOAT_BINARY:
            (a, ty), (b, _) = self._read(op.args[0], row), self._read(op.args[1], row)
            return w(f"{opcode} {ty} {a}, {b}")
        if opcode == "fneg":
            a, ty = self._read(op.args[0], row)
            return w(f"fneg {ty} {a}")
        if opcode == "freeze":
            return self._read(op.args[0], row)[0]
        if opcode == "icmp":
            (a, ty), (b, _) = self._read(op.args[0], row), self._read(op.args[1], row)
            return w(f"icmp {op.extra['predicate']} {ty} {a}, {b}")
        if opcode == "fcmp":
            (a, ty), (b, _) = self._read(op.args[0], row), self._read(op.args[1], row)
            return w(f"fcmp {op.extra['predicate']} {ty} {a}, {b}")
        if opcode == "select":
            (c, _), (a, ty), (b, _) = (self._read(s, row) for s in op.args)
            return w(f"select i1 {c}, {ty} {a}, {ty} {b}")
        if opcode in CAST_OPCODES:
            return self._cast(op, row)
        if opcode == "getelementptr":
            return self._gep(index, op, row)
        if opcode == "load":
            return self._load(index, op, row, i)
        if opcode == "call":
            return self._call(op, row)
        raise AssertionError(opcode)

    def _cast(self, op, row: str) -> str:
        w = self.w
        value, source = self._read(op.args[0], row)
        target = llvm_type(op.type)
        opcode = op.opcode
        if opcode == "bitcast":
            return value if source == target else w(f"bitcast {source} {value} to {target}")
        if opcode == "addrspacecast":
            return value
        if opcode == "inttoptr" and source == "i64":
            return self._tag_window(op, value)
        if opcode == "ptrtoint":
            if getattr(op.arg_types[0], "addrspace", 0) in WINDOWED_SPACES:
                value = w(f"and i64 {value}, {OFFSET_MASK}")
            return value if target == "i64" else w(f"trunc i64 {value} to {target}")
        if opcode == "inttoptr":
            return self._tag_window(op, w(f"zext {source} {value} to i64"))
        if opcode in ("fptosi", "fptoui"):
            kind = "fptosi" if opcode == "fptosi" else "fptoui"
            suffix = "f32" if source == "float" else "f64"
            return w(f"call {target} @llvm.{kind}.sat.{target}.{suffix}({source} {value})")
        return w(f"{opcode} {source} {value} to {target}")

    def _tag_window(self, op, value: str) -> str:
        w = self.w
        space = getattr(op.type, "addrspace", 0)
        if space not in WINDOWED_SPACES:
            return value
        high = w(f"lshr i64 {value}, {SPACE_SHIFT}")
        untagged = w(f"icmp eq i64 {high}, 0")
        tagged = w(f"or i64 {value}, {space << SPACE_SHIFT}")
        return w(f"select i1 {untagged}, i64 {tagged}, i64 {value}")

    def _gep(self, index: int, op, row: str) -> str:
        w = self.w
        constant_offset, variable = _gep_plan(self.function, op, self.layout)
        base, _ = self._read(op.args[0], row)
        address = w(f"add i64 {base}, {constant_offset}")
        for number, (slot, scale, bound, zero_extend) in enumerate(variable):
            value, ty = self._read(slot, row)
            if ty != "i64":
                value = w(f"{'zext' if zero_extend else 'sext'} {ty} {value} to i64")
            if bound >= 0:
                outside = w(f"icmp ugt i64 {value}, {bound}")  # negative indices are huge unsigned
                self._abort(index, outside, f"L{index}.g{number}")
            scaled = w(f"mul i64 {value}, {scale}")
            address = w(f"add i64 {address}, {scaled}")
        return address

    def _call(self, op, row: str) -> str:
        w = self.w
        callee = op.extra["callee"]
        if callee.startswith(SPECIAL_REGISTER):
            return self._special(callee.removeprefix(SPECIAL_REGISTER), row)
        if _no_op(callee):  # lifetimes, debug values, hints: nothing to do, as for the NumPy path
            return ""
        kind = _MATH[base_name(callee)]
        ty = llvm_type(op.type)
        args = [self._read(slot, row) for slot in op.args]
        if kind == "fma":  # rounded once: the host's fused multiply-add (or its libm's fmaf)
            return w(f"call float @llvm.fma.f32({', '.join(f'float {v}' for v, _ in args[:3])})")
        if kind == "abs":
            return w(f"call {ty} @llvm.abs.{ty}({ty} {args[0][0]}, i1 false)")
        if kind == "ctpop":
            return w(f"call {ty} @llvm.ctpop.{ty}({ty} {args[0][0]})")
        return w(f"call {ty} @llvm.{kind}.{ty}({ty} {args[0][0]}, {ty} {args[1][0]})")

    def _thread(self, row: str) -> str:
        """The wave index of the thread at `row`."""
        w = self.w
        cell = w(f"getelementptr i64, ptr {self.pointers[C_THREADS]}, i64 {row}")
        return w(f"load i64, ptr {cell}")

    def _element(self, ty: str, word: int, index: str) -> str:
        """Element `index` of the array of `ty` whose address context word `word` holds."""
        cell = self.w(f"getelementptr {ty}, ptr {self.pointers[word]}, i64 {index}")
        return self.w(f"load {ty}, ptr {cell}")


    def _special(self, register: str, row: str) -> str:
        w = self.w
        name, _, axis = register.partition(".")
        index = "xyz".index(axis) if axis in ("x", "y", "z") else 0
        if name in ("ntid", "nctaid"):
            word = (C_BX if name == "ntid" else C_GX) + index
            return w(f"trunc i64 {self.context[word]} to i32")
        if name == "warpsize":
            return "32"
        if name == "nwarpid":
            total = w(f"add i64 {self.context[C_TPB]}, 31")
            warps = w(f"udiv i64 {total}, 32")
            return w(f"trunc i64 {warps} to i32")
        thread = self._thread(row)
        if name in ("tid", "ctaid"):
            word = (C_TID_X if name == "tid" else C_CTAID_X) + index
            return self._element("i32", word, thread)
        within = self._element("i64", C_TID, thread)
        part = w(f"{'urem' if name == 'laneid' else 'udiv'} i64 {within}, 32")
        return w(f"trunc i64 {part} to i32")

    # -- memory

    def _locate(self, index: int, address: str, size: int, align: int, write: bool, row: str, label: str):
        """(pointer, space, region, offset, thread) of an access, leaving the run where the
        NumPy path must act."""
        w = self.w
        space = w(f"lshr i64 {address}, {SPACE_SHIFT}")
        shifted = w(f"lshr i64 {address}, {REGION_SHIFT}")
        region = w(f"and i64 {shifted}, {REGION_MASK}")
        offset = w(f"and i64 {address}, {OFFSET_MASK}")
        end = w(f"add i64 {offset}, {size}")
        align = min(align, size & -size) if size > 0 else align
        if align > 1:
            low = w(f"and i64 {offset}, {align - 1}")
            misaligned = w(f"icmp ne i64 {low}, 0")
            self._abort(index, misaligned, f"{label}.al")
        thread = self._thread(row)
        spaces = [w(f"icmp eq i64 {space}, {number}") for number in (SHARED, LOCAL, GLOBAL, CONSTANT)]
        known = w(f"or i1 {w(f'or i1 {spaces[0]}, {spaces[1]}')}, {w(f'or i1 {spaces[2]}, {spaces[3]}')}")
        self._abort(index, w(f"xor i1 {known}, true"), f"{label}.sp")
        w.do(f"switch i64 {space}, label %{label}.gl "
             f"[ i64 {SHARED}, label %{label}.sh i64 {LOCAL}, label %{label}.lo ]")
        pointers = []
        for tag, base_word, bytes_word in (("sh", C_SHARED, C_SHARED_BYTES), ("lo", C_LOCAL, C_LOCAL_BYTES)):
            w.label(f"{label}.{tag}")
            segment = self.context[bytes_word]
            outside = w(f"icmp ugt i64 {end}, {segment}")
            self._abort(index, outside, f"{label}.{tag}b")
            owner = self._element("i64", C_WAVE_BLOCK, thread) if tag == "sh" else thread
            first = w(f"mul i64 {owner}, {segment}")
            start = w(f"add i64 {first}, {offset}")
            pointer = w(f"getelementptr i8, ptr {self.pointers[base_word]}, i64 {start}")
            pointers.append((pointer, f"{label}.{tag}b.ok"))
            w.do(f"br label %{label}.at")
        w.label(f"{label}.gl")
        known = w(f"icmp ult i64 {region}, {self.context[C_REGIONS]}")
        self._abort(index, w(f"xor i1 {known}, true"), f"{label}.gr")
        limit = self._element("i64", C_LIMITS, region)
        self._abort(index, w(f"icmp ugt i64 {end}, {limit}"), f"{label}.gb")
        if write:
            writable = self._element("i64", C_WRITABLE, region)
            self._abort(index, w(f"icmp eq i64 {writable}, 0"), f"{label}.gw")
        mark = w(f"getelementptr i64, ptr {self.pointers[C_TOUCHED]}, i64 {region}")
        now = w(f"load i64, ptr {mark}")
        higher = w(f"icmp ugt i64 {end}, {now}")
        w.do(f"store i64 {w(f'select i1 {higher}, i64 {end}, i64 {now}')}, ptr {mark}")
        base = self._element("ptr", C_BASES, region)
        pointer = w(f"getelementptr i8, ptr {base}, i64 {offset}")
        pointers.append((pointer, f"{label}.{'gw' if write else 'gb'}.ok"))
        w.do(f"br label %{label}.at")
        w.label(f"{label}.at")
        phi = ", ".join(f"[ {p}, %{b} ]" for p, b in pointers)
        return w(f"phi ptr {phi}"), space, region, offset, end, thread

    def _trace(self, index: int, i: str, located, bits: str | None) -> None:
        """Write this thread's record of access instruction `index`: at i of its part
        (the run's accesses, each n records, from the column addresses the caller gives)."""
        w = self.w
        _, space, region, offset, end, thread = located
        recording = w(f"icmp ne i64 {self.context[C_SPACE]}, 0")
        label = f"T{index}.{i[1:]}"
        w.do(f"br i1 {recording}, label %{label}.w, label %{label}.x")
        w.label(f"{label}.w")
        first = w(f"mul i64 %n, {self.ordinal[index]}")
        at = w(f"add i64 {first}, {i}")
        block = self._element("i64", C_WAVE_BLOCK, thread)
        tid = self._element("i64", C_TID, thread)
        columns = [
            (C_SPACE, "i8", w(f"trunc i64 {space} to i8")),
            (C_REGION, "i32", w(f"trunc i64 {region} to i32")),
            (C_OFFSET, "i64", offset),
            (C_BLOCK, "i64", w(f"add i64 {block}, {self.context[C_FIRST_BLOCK]}")),
            (C_THREAD, "i32", w(f"trunc i64 {tid} to i32")),
            (C_EPOCH_COL, "i32", self._element("i32", C_EPOCH, block)),
            (C_ACTIVE_COL, "i32", self._element("i32", C_ACTIVE, i)),
            (C_WARP_SYNC_COL, "i32", self._element("i32", C_WARP_SYNC, thread)),
            (C_VALUE, "i64", bits or "0"),
        ]
        for word, ty, value in columns:
            cell = w(f"getelementptr {ty}, ptr {self.pointers[word]}, i64 {at}")
            w.do(f"store {ty} {value}, ptr {cell}")
        w.do(f"br label %{label}.x")
        w.label(f"{label}.x")

    def _load(self, index: int, op, row: str, i: str) -> str:
        w = self.w
        ty = llvm_type(op.type)
        address, _ = self._read(op.args[0], row)
        size = SIZES[ty]
        align = op.extra.get("align") or self.layout.align(op.type)
        located = self._locate(index, address, size, align, False, row, f"L{index}.m")
        self._trace(index, i, located, None)
        value = w(f"load {storage(ty)}, ptr {located[0]}, align 1")
        return w(f"icmp ne i8 {value}, 0") if ty == "i1" else value

    def _store(self, index: int, op, label: str) -> None:
        """A store or atomic: every thread's access checked first (so one that must leave
        the run has changed nothing), then thread after thread its bytes written and
        traced; an atomic's lane reads the value the lanes before it left."""
        w = self.w
        self.abort_label = None
        stopped = w(f"icmp sle i64 %stop, {index}")
        w.do(f"br i1 {stopped}, label %{label}.stop, label %{label}.go")
        w.label(f"{label}.stop")
        w.do(f"ret i64 {index}")
        w.label(f"{label}.go")
        atomic = op.opcode == "atomicrmw"
        pointer_slot, value_slot = (op.args[0], op.args[1]) if atomic else (op.args[1], op.args[0])
        ty = llvm_type(op.type if atomic else op.arg_types[0])
        size = SIZES[ty]
        align = op.extra.get("align") or self.layout.align(op.type if atomic else op.arg_types[0])
        check = f"{label}.c"
        i, row = self._loop(check)
        address, _ = self._read(pointer_slot, row)
        self._locate(index, address, size, align, True, row, f"{check}.m")
        self._close(check)
        write = f"{label}.s"
        i, row = self._loop(write)
        value, _ = self._read(value_slot, row)
        address, _ = self._read(pointer_slot, row)
        located = self._locate(index, address, size, align, True, row, f"{write}.m")
        stored = w(f"zext i1 {value} to i8") if ty == "i1" else value
        bits = self._bits(value, ty)
        self._trace(index, i, located, bits)
        if atomic:
            old = w(f"load {ty}, ptr {located[0]}, align 1")
            stored = self._combine(op.extra["operation"], ty, old, value)
            self._write(op.result, row, old, ty)
            changed = w(f"icmp ne i64 {self._bits(old, ty)}, {self._bits(stored, ty)}")
            flag = w(f"getelementptr i64, ptr {self.pointers[C_CHANGED]}, i64 {self.ordinal[index]}")
            before = w(f"load i64, ptr {flag}")
            w.do(f"store i64 {w(f'select i1 {changed}, i64 1, i64 {before}')}, ptr {flag}")
        w.do(f"store {storage(ty)} {stored}, ptr {located[0]}, align 1")
        self._close(write)

    def _bits(self, value: str, ty: str) -> str:
        """The bytes of a value as the trace keeps them: zero-extended to 64 bits."""
        w = self.w
        if ty == "i1":
            return w(f"zext i1 {value} to i64")
        bits = w(f"bitcast {ty} {value} to {BITS_OF_FLOAT[ty]}") if ty in BITS_OF_FLOAT else value
        width = BITS_OF_FLOAT.get(ty, ty)
        return bits if width == "i64" else w(f"zext {width} {bits} to i64")

    def _combine(self, operation: str, ty: str, old: str, value: str) -> str:
        """The value an atomic `operation` leaves, from the `old` one and the lane's operand."""
        w = self.w
        if operation == "fadd":
            return w(f"fadd {ty} {old}, {value}")
        instruction = _INTEGER_ATOMICS[operation]
        if instruction is None:  # xchg
            return value
        if instruction in ("smax", "smin", "umax", "umin"):
            return w(f"call {ty} @llvm.{instruction}.{ty}({ty} {old}, {ty} {value})")
        return w(f"{instruction} {ty} {old}, {value}")


_DECLARATIONS = "\n".join(
    [f"declare {t} @llvm.{k}.sat.{t}.{f}({s})" for k in ("fptosi", "fptoui") for t in ("i8", "i16", "i32", "i64")
     for f, s in (("f32", "float"), ("f64", "double"))]
    + [f"declare {t} @llvm.{k}.{t}({t}, {t})" for k in ("smax", "smin", "umax", "umin")
       for t in ("i8", "i16", "i32", "i64")]
    + [f"declare {t} @llvm.abs.{t}({t}, i1)" for t in ("i8", "i16", "i32", "i64")]
    + [f"declare {t} @llvm.ctpop.{t}({t})" for t in ("i8", "i16", "i32", "i64")]
    + ["declare float @llvm.fma.f32(float, float, float)"])


# ---------------------------------------------------------------------------- compiling


@functools.cache
def _engine():
    """llvmlite, a target machine per optimization level (0 and 2), and the JIT engine."""
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target = llvm.Target.from_default_triple()
    machines = {level: target.create_target_machine(cpu=llvm.get_host_cpu_name(),
                                                    features=llvm.get_host_cpu_features().flatten(), opt=level,
                                                    jit=True) for level in (0, 2)}
    return llvm, machines, llvm.create_mcjit_compiler(llvm.parse_assembly(""), machines[2])


def _cache_folder():
    """Where compiled runs are kept between processes: $SIMULEE_CACHE/native, else the
    user's cache folder for simulee; None when it cannot be made."""
    from pathlib import Path

    if os.environ.get("SIMULEE_CACHE"):
        root = Path(os.environ["SIMULEE_CACHE"])
    else:
        import platformdirs

        root = Path(platformdirs.user_cache_dir("simulee"))
    folder = root / "native"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder


_COMPILED: set[str] = set()  # digests of the code loaded into this process's engine


def _digest(text: str, level: int) -> str:
    """What names `text` compiled at optimization `level` on this processor and LLVM."""
    llvm = _engine()[0]
    key = f"{text}\n{level} {llvm.get_host_cpu_name()} {llvm.get_host_cpu_features().flatten()} " \
          f"{llvm.llvm_version_info}"
    return hashlib.sha256(key.encode()).hexdigest()


def _compiled(text: str, level: int) -> bool:
    """Whether `text` at `level` is loaded in this process or kept on disk."""
    digest = _digest(text, level)
    folder = _cache_folder()
    return digest in _COMPILED or folder is not None and (folder / f"{digest}.o").exists()


def _compile(text: str, level: int) -> tuple[str, object]:
    """`text` (whose functions are named @RUN_...) compiled to an object file at
    optimization `level` (0: quick to make; 2: quick to run) once per machine, kept in
    the cache folder, and loaded once per process: (the prefix its functions got, the
    engine holding them)."""
    llvm, machines, engine = _engine()
    digest = _digest(text, level)
    prefix = f"simulee_{digest[:20]}_"
    if digest in _COMPILED:
        return prefix, engine
    folder = _cache_folder()
    path = folder / f"{digest}.o" if folder is not None else None
    try:
        code = path.read_bytes() if path is not None and path.exists() else None
    except OSError:
        code = None
    if code is None:
        module = llvm.parse_assembly(f"{_DECLARATIONS}\n{text.replace('@RUN_', '@' + prefix)}")
        module.verify()
        if level:
            tuning = llvm.create_pipeline_tuning_options(speed_level=level)
            builder = llvm.create_pass_builder(machines[level], tuning)
            builder.getModulePassManager().run(module, builder)
        code = machines[level].emit_object(module)
        if path is not None:
            part = path.with_name(f"{digest}.{os.getpid()}.part")
            try:
                part.write_bytes(code)
                part.replace(path)
            except OSError:
                part.unlink(missing_ok=True)
    _load(code, digest)
    return prefix, engine


def _load(code: bytes, digest: str) -> None:
    llvm, _, engine = _engine()
    engine.add_object_file(llvm.ObjectFileRef.from_data(code))
    engine.finalize_object()
    _COMPILED.add(digest)


def loaded_code() -> set[str]:
    """The digests of the compiled runs loaded in this process."""
    return set(_COMPILED)


def load_kept(digests) -> None:
    """Load the compiled runs of `digests` kept in the cache folder (those not kept are
    passed over), so that this process and those it forks run them without loading them."""
    folder = _cache_folder()
    for digest in digests:
        if digest in _COMPILED or folder is None:
            continue
        try:
            code = (folder / f"{digest}.o").read_bytes()
        except OSError:
            continue
        _load(code, digest)


_SIGNATURE = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p,
                              ctypes.c_void_p, ctypes.c_void_p)


# ---------------------------------------------------------------------------- running


class Native:
    """The native code of one execution's functions, and the calls that run it on a
    frame's registers and the launch's memory."""

    def __init__(self, execution):
        self.ex = execution
        self.tables: dict[int, list] = {}  # id of a compiled function -> per pc (run, index, entry) or None
        self.flows: dict[int, Flow | None] = {}  # id of a compiled function -> its native loops
        self.io = np.zeros(IO_WORDS, dtype=np.int64)
        self._io_address = _address(self.io)
        self._flow_columns: list[np.ndarray] = []
        self._column_addresses: list[int] = []
        self._flow_log = np.zeros(0, dtype=np.int64)
        self._log_address = [0]
        self._range_addresses: dict[int, int] = {}
        self._visits = (None, 0)  # the block visits array native code counts into, and its address
        self.levels: dict[int, int] = {}  # id of a compiled function -> the optimization its code has
        self.unoptimized_work: dict[int, int] = {}  # id of a function -> thread-instructions its quick code ran
        self.context = np.zeros(CONTEXT_WORDS, dtype=np.int64)
        self._context_address = self.context.ctypes.data
        self._ranges: dict[int, np.ndarray] = {}
        self._regions_key = None
        self._region_tables = None
        self._wave = self._wave_data = None
        self._spare = None
        self._segments = None
        self._addresses: dict[int, dict] = {}  # frame id -> slot -> (its array, the array's address)
        self.runs = self.instructions = 0  # native calls, and the instructions they completed
        self.edges = 0  # branches native code took (native_flow)
        self.native_work = self.work = 0  # thread-instructions run natively, and by every launch
        self.steps = 0  # scheduler steps of every launch
        self.tracking = self.small = 0  # launches that tracked taint, and that ended before native code ran

    def table(self, function, optimized: bool = False) -> list:
        """Per pc of `function`, the run starting there (None where none does); compiled on
        first use, quick to make unless `optimized` (or optimized code is kept), once per
        function text and level in this process."""
        table = self.tables.get(id(function))
        if table is not None:
            return table
        layout = self.ex.program.layout
        table = [None] * len(function.kinds)
        runs, current = [], []
        ops = function.decoded.ops
        from interpreter.compiler import BRANCH, PLAIN
        for pc, op in enumerate(ops):
            ok = function.kinds[pc] == PLAIN and native_op(function, op, layout)
            if ok and current and ops[current[-1]].block == op.block and current[-1] == pc - 1:
                current.append(pc)
                continue
            if current:
                runs.append(current)
            current = [pc] if ok else []
        if current:
            runs.append(current)
        position: dict[int, int] = {}
        compiled = [Run(function, pcs, layout, function.op_ids, position) for pcs in runs]
        flow = Flow(function, compiled, position, BRANCH) if compiled else None
        flow = flow if flow is not None and flow.body else None
        if compiled:
            text = "\n\n".join([run.ir() for run in compiled] + ([flow.ir()] if flow is not None else []))
            # quick to make first; optimized once the function has done much work, or when kept from before
            level = 2 if optimized or _compiled(text, 2) else 0
            self.levels[id(function)] = level
            prefix, engine = _compile(text, level)
            shared = np.zeros(len(position), dtype=np.uint64)
            for run in compiled:
                run.entry = _SIGNATURE(engine.get_function_address(prefix + run.name.removeprefix("RUN_")))
                run.table = shared
                for index, pc in enumerate(run.pcs):
                    table[pc] = (run, index)
            if flow is not None:
                flow.entry = FLOW_SIGNATURE(engine.get_function_address(prefix + "FLOW"))
                flow.table, flow.table_address = shared, _address(shared)
                flow.taken_address, flow.trips_address = _address(flow.taken), _address(flow.trips)
        self.tables[id(function)] = table
        self.flows[id(function)] = flow
        return table

    def _range(self, count: int) -> np.ndarray:
        found = self._ranges.get(count)
        if found is None:
            found = self._ranges[count] = np.arange(count, dtype=np.int64)
        return found

    def _scratch(self, count: int) -> np.ndarray:
        """Room for any register of `count` rows, for registers no instruction of a call writes."""
        if self._spare is None or len(self._spare) < count:
            self._spare = np.zeros(count, dtype=np.int64)
        return self._spare

    def run(self, frame, rows, pc: int, budget: int, bound: int = -1) -> tuple[int, int]:
        """Run at most `budget` instructions from `pc` for rows of `frame`: (how many
        completed, the pc of the next, left to the NumPy path or the scheduler). Where
        the run ends in a flowing block (native_flow), the group goes on through branches
        to blocks ranked at most `bound`."""
        run, start = self.tables[id(frame.function)][pc]
        ex = self.ex
        count = frame.count
        n = count if rows is None else len(rows)
        flow = self.flows[id(frame.function)]
        if flow is not None and n <= FLOW_THREADS and not ex.tainting and flow.entry_block(run) is not None:
            done = self._flow(flow, run, start, frame, rows, n, budget, bound)
            if done is not None:
                return done
        if start == len(run.pcs) - 1 and not run.memory[start] and n < LONE_THREADS:
            return 0, pc
        stop = min(len(run.pcs), start + budget)
        if ex.tainting:  # accesses keep taint in shadow memory, which the NumPy path tends
            stop = next((index for index in range(start, stop) if run.memory[index]), stop)
            if stop == start or stop == start + 1 and n < LONE_THREADS:
                return 0, pc
        recorder = ex.recorder
        accesses = run.accesses_from(start, stop)
        if recorder is not None and accesses and recorder.room() != float("inf"):
            room = int(recorder.room() // n)
            if room < len(accesses):  # the NumPy path records (or stops at) the access that fills the trace
                stop, accesses = accesses[room], accesses[:room]
        regs, storage = frame.regs, frame.function.storage
        table = run.table
        known = self._known(frame)
        # results are written in place, as the NumPy path writes some rows: no other register shares the array
        for slot, place, dtype in (*run.inputs(start), *run.results(start, stop)):
            register = storage[slot]
            value = regs[register]
            cached = known.get(register)
            if cached is None or cached[0] is not value:
                value = _register(regs, register, dtype, count)
                cached = known[register] = (value, _address(value))
            table[place] = cached[1]
        if stop < len(run.pcs):  # instructions past `stop` only read their registers, and drop what they read
            scratch = _address(self._scratch(count))
            for _, place, _ in run.results(stop, len(run.pcs)):
                table[place] = scratch
        context = self.context
        self._enter(frame)
        row_array = self._range(count) if rows is None else np.ascontiguousarray(rows, dtype=np.int64)
        columns = None
        if recorder is not None and accesses:
            size = n * len(accesses)
            shift = run.ordinal[accesses[0]] * n  # the first access's records start each column
            columns = [np.empty(size, dtype=dtype) for _, dtype in COLUMNS]
            for (word, itemsize), column in zip(COLUMN_PLACES, columns):
                context[word] = _address(column) - shift * itemsize
            active = np.ascontiguousarray(
                ex.compiler.accesses.active_masks(frame, rows, frame.thread_ids(rows)), dtype=np.uint32)
            context[C_ACTIVE] = _address(active)
        else:
            context[C_SPACE] = 0
        changed = None
        if run.atomic:  # per access, whether an atomic changed a value (only then memory counts as written)
            changed = np.zeros(len(run.ordinal), dtype=np.int64)
            context[C_CHANGED] = _address(changed)
        reached = run.entry(start, stop, n, _address(row_array), _address(table), self._context_address)
        done = run.accesses_from(start, reached)
        if done:
            if columns is not None:
                self._record(run, start, done, n, columns, recorder)
            memory = ex.memory
            for index in done:
                kind = run.kinds[index]
                memory.reads += kind != WRITE
                memory.version += kind == WRITE or kind == ATOMIC and bool(changed[run.ordinal[index]]) and \
                    self._changed(frame, rows, run, index)
            self._touched(memory)
        if ex.tainting:  # each result depends on what its operands do, as taint.propagating gives it
            ops = frame.function.decoded.ops
            for index in range(start, reached):
                at = run.pcs[index]
                taint.assign(frame.taint, frame.function.storage[run.outputs[index]], rows,
                             taint.operands(frame, ops[at].args, rows, at), count)
        self._count(frame.function, reached - start, n)
        return reached - start, pc + reached - start

    def _flow(self, flow, run, start: int, frame, rows, n: int, budget: int, bound: int):
        """Run from `start` of `run` through the branches of its component (native_flow):
        (instructions completed, the next pc), or None when the run does not fit whole in
        the budget or the trace's room (the run alone then does what fits)."""
        ex, function = self.ex, frame.function
        block = function.op_block[run.pcs[0]]
        accesses = len(run.accesses_from(start, len(run.pcs)))
        recorder = ex.recorder
        room = 0 if recorder is None else min(recorder.room(), max(FLOW_RECORDS, n * accesses))
        if budget < len(run.pcs) - start or recorder is not None and n * accesses > room:
            return None
        regs, count, storage = frame.regs, frame.count, frame.function.storage
        table = flow.table
        known = self._known(frame)
        component = flow.component[block]
        dtypes = flow.dtypes
        for slot, place in zip(flow.slots[component], flow.places[component].tolist()):
            register = storage[slot]
            value = regs[register]
            cached = known.get(register)
            if cached is None or cached[0] is not value:
                value = _register(regs, register, dtypes[slot], count)
                cached = known[register] = (value, _address(value))
            table[place] = cached[1]
        self._enter(frame)
        context, io = self.context, self.io
        rows_address = self._range_address(count) if rows is None else \
            _address(np.ascontiguousarray(rows, dtype=np.int64))
        io[IO_BUDGET], io[IO_BOUND] = budget, bound
        io[IO_LOGGING] = recorder is not None
        if recorder is not None:
            room = int(room)
            columns, log = self._flow_buffers(room, room // n + 1)
            io[IO_ROOM], io[IO_LOG_ROOM] = room, len(log) // 2
            io[IO_LOG:IO_LOG + 1] = self._log_address
            io[IO_COLUMNS:IO_COLUMNS + len(columns)] = self._column_addresses
            active = np.ascontiguousarray(
                ex.compiler.accesses.active_masks(frame, rows, frame.thread_ids(rows)), dtype=np.uint32)
            context[C_ACTIVE] = _address(active)
        else:
            context[C_SPACE] = 0
        visits = function.block_visits
        if visits is not self._visits[0]:
            self._visits = (visits, _address(visits))
        io[IO_VISITS], io[IO_TAKEN], io[IO_TRIPS] = self._visits[1], flow.taken_address, flow.trips_address
        memory = ex.memory
        version, reads = memory.version, memory.reads
        flow.entry(block, start, n, rows_address, flow.table_address, self._context_address, self._io_address)
        done, records, logged, reached, written, read, edges = io[IO_STEPS:IO_WORDS].tolist()  # native_flow order
        if done == 0:
            return 0, run.pcs[start]
        if logged:
            self._record_flow(flow, columns, log, logged, records, n, recorder)
        if read or written:
            self._touched(memory)
        memory.reads, memory.version = reads + read, version + written
        if edges:
            self._after_edges(flow, frame, rows, n, version, reads)
            self.edges += edges
        self._count(frame.function, done, n)
        return done, reached

    def _after_edges(self, flow, frame, rows, n: int, version: int, reads: int) -> None:
        """What the branches a flow call took leave for the scheduler: each loop's last trip
        (Execution.spins), and the edges taken when the launch records coverage."""
        ex, function = self.ex, frame.function
        trips = flow.trips
        for target in flow.back_targets:
            if trips[3 * target]:
                threads = (None, None) if rows is None else (int(rows[0]), int(rows[-1]))
                ex.trips[(function.name, target)] = (
                    (version + int(trips[3 * target + 1]), ex.clock_reads, frame.id, n, threads),
                    reads + int(trips[3 * target + 2]))
        taken = flow.taken
        branches = np.flatnonzero(taken)
        if ex.launch.coverage:  # the edges the call took, as Execution.cover records them
            for pc in branches.tolist():
                for bit, target in enumerate(function.decoded.ops[pc].extra["targets"][:2]):
                    if taken[pc] >> bit & 1:
                        ex.events.coverage.add((function.name, pc, target))
        taken[branches] = 0

    def _flow_buffers(self, records: int, entries: int):
        """The columns (`records` each) and the access log (`entries` pairs) a flow call
        writes, kept from call to call (their addresses too)."""
        if not self._flow_columns or len(self._flow_columns[0]) < records:
            self._flow_columns = [np.empty(records, dtype=dtype) for _, dtype in COLUMNS]
            self._column_addresses = [_address(column) for column in self._flow_columns]
        if len(self._flow_log) < 2 * entries:
            self._flow_log = np.empty(2 * entries, dtype=np.int64)
            self._log_address = [_address(self._flow_log)]
        return self._flow_columns, self._flow_log

    def _range_address(self, count: int) -> int:
        found = self._range_addresses.get(count)
        if found is None:
            found = self._range_addresses[count] = _address(self._range(count))
        return found

    def _record_flow(self, flow, columns, log, logged: int, records: int, n: int, recorder) -> None:
        """Hand the records of a flow call's `logged` accesses (log: pc, step after the
        call's first) to the trace recorder: one entry for all of them, or for many threads
        one entry per access (its constant columns one value), as `_record` does."""
        ex = self.ex
        names = ("space", "region", "offset", "block", "thread", "epoch", "active", "warp_sync", "value")
        pcs, steps = log[0:2 * logged:2], log[1:2 * logged:2] + ex.steps
        kept = 2 * records >= len(columns[0])  # mostly full: the columns go to the trace, new ones next call
        if kept:
            self._flow_columns = []
        parts = [column[:records] if kept else column[:records].copy() for column in columns]
        if logged == 1 or n >= SPLIT_ENTRIES:
            for place, (pc, step) in enumerate(zip(pcs.tolist(), steps.tolist())):
                entry = {name: part[place * n:(place + 1) * n] for name, part in zip(names, parts)}
                entry.update(kind=flow.kind_of[pc], size=flow.size_of[pc], op=flow.op_of[pc], step=step,
                             sync=flow.sync_of[pc], grid_epoch=ex.grid_epoch)
                recorder.append(n, entry)
            return
        entry = dict(zip(names, parts))
        entry.update(kind=np.repeat(flow.kind_of[pcs], n), size=np.repeat(flow.size_of[pcs], n),
                     op=np.repeat(flow.op_of[pcs], n), step=np.repeat(steps, n),
                     sync=np.repeat(flow.sync_of[pcs], n), grid_epoch=ex.grid_epoch)
        recorder.append(records, entry)

    def _touched(self, memory) -> None:
        """Carry the code's touched marks into the regions."""
        touched = self._region_tables[3]
        marked = np.flatnonzero(touched)
        for number in marked.tolist():
            region = memory.regions[number]
            region.touched = max(region.touched, int(touched[number]))
        touched[marked] = 0

    def _count(self, function, done: int, n: int) -> None:
        """Count a call's work; enough of it on quick code has the function optimized."""
        self.runs += 1
        self.instructions += done
        self.native_work += done * n
        key = id(function)
        if not self.levels[key]:
            self.unoptimized_work[key] = self.unoptimized_work.get(key, 0) + done * n
            if self.unoptimized_work[key] > OPTIMIZE_AFTER:
                del self.tables[key]
                self.table(function, optimized=True)

    def finished(self, work: int, steps: int, tracking: bool, native_after: tuple[float, float]) -> None:
        """A launch of `work` thread-instructions in `steps` ended (`tracking`: it tracked
        taint; `native_after`: the work and steps it was to run on NumPy first)."""
        self._addresses.clear()  # the launch's registers and thread numbers go with its frames
        self._wave = self._wave_data = None
        self.work += work
        self.steps += steps
        self.tracking += tracking
        self.small += native_after[0] != float("inf") and work <= native_after[0] and steps <= native_after[1]

    def summary(self) -> dict:
        """What ran natively over the launches so far: thread-instructions native and in
        all, launches that tracked taint and launches that ended before the warm-up, and the
        plain instructions of the functions that ran that are left to the NumPy
        interpreter ("opcode at line N")."""
        layout = self.ex.program.layout
        left = []
        for function in self.ex.compiler.functions.values():
            if id(function) not in self.tables:
                continue
            from interpreter.compiler import PLAIN
            for pc, op in enumerate(function.decoded.ops):
                if function.kinds[pc] == PLAIN and not native_op(function, op, layout) and \
                        op.opcode not in ("phi", "alloca"):
                    what = op.extra.get("callee") or op.opcode
                    what = f"{op.opcode} {op.extra['operation']}" if op.opcode == "atomicrmw" else what
                    where = f" at line {op.location.line}" if op.location is not None and op.location.line else ""
                    if f"{what}{where}" not in left:
                        left.append(f"{what}{where}")
        return {"native": self.native_work, "thread_instructions": self.work, "tracking_launches": self.tracking,
                "small_launches": self.small, "left_to_numpy": left}

    def _changed(self, frame, rows, run, index: int) -> bool:
        """Whether atomic `index`, some lane of which changed a value, left some address
        other than it found it (lanes may undo each other: +1 then -1): the NumPy path's
        test, by which only then memory counts as written. Monotone operations cannot undo."""
        op = frame.function.decoded.ops[run.pcs[index]]
        operation = op.extra["operation"]
        if operation in ("max", "min", "umax", "umin", "and", "or"):
            return True
        take = slice(None) if rows is None else rows
        if operation in ("add", "sub", "fadd") and _one_way(frame, op.args[1], take, frame.width(rows),
                                                             run.sizes[index]):
            return True
        constant = frame.function.constants.get(op.args[0])  # a variable's own address, not a register
        addresses = np.full(frame.width(rows), constant, np.int64) if constant is not None else \
            frame.regs[frame.function.storage[op.args[0]]][take]
        unique, first = np.unique(addresses, return_index=True)
        dtype = run.dtypes[op.result]
        initial = frame.regs[frame.function.storage[op.result]][take][first]
        threads = frame.thread_ids(rows)[first]
        memory = self.ex.memory
        _, _, resolved = memory.locate(unique, run.sizes[index], 1, threads // self.ex.wave.tpb, threads, False)
        reads = memory.reads
        final = memory.read_bytes(resolved, len(unique), run.sizes[index], 1).view(dtype).reshape(len(unique))
        memory.reads = reads
        return final.tobytes() != initial.tobytes()

    def _known(self, frame) -> dict:
        """The arrays of `frame`'s registers and their addresses (slot -> (array, address)),
        kept while unchanged; those of an earlier wave's frames are let go first, so that a
        wave's registers are not allocated while the last one's are still held."""
        if self._wave is not self.ex.wave:
            self._addresses.clear()
        return self._addresses.setdefault(frame.id, {})

    def _enter(self, frame) -> None:
        """The context words of the memory, the wave and the frame the next call runs on."""
        ex, context = self.ex, self.context
        memory, wave = ex.memory, ex.wave
        context[C_THREADS] = _address(frame.threads)
        segments = self._segments
        if self._wave is not wave or segments is None or segments[0] is not memory.shared or \
                segments[1] is not memory.local:
            launch = ex.launch
            context[C_SHARED] = _address(memory.shared)
            context[C_SHARED_BYTES] = memory.shared_bytes
            context[C_LOCAL] = _address(memory.local)
            context[C_LOCAL_BYTES] = memory.local_bytes
            context[C_TPB] = wave.tpb
            context[C_FIRST_BLOCK] = wave.first_block
            context[C_BX:C_BX + 3] = launch.block
            context[C_GX:C_GX + 3] = launch.grid
            context[C_EPOCH] = _address(wave.epoch)
            context[C_WARP_SYNC] = _address(wave.warp_sync)
            for word, array in self._wave_arrays(wave, launch):
                context[word] = _address(array)
            self._segments = (memory.shared, memory.local)
        key = (len(memory.regions), memory.revision)
        if self._regions_key is None or self._regions_key[0] is not memory or self._regions_key[1] != key:
            bases, limits, writable, touched = self._regions(memory)
            context[C_REGIONS] = len(limits)
            context[C_BASES], context[C_LIMITS] = _address(bases), _address(limits)
            context[C_WRITABLE], context[C_TOUCHED] = _address(writable), _address(touched)
            self._regions_key = (memory, key)

    def _wave_arrays(self, wave, launch) -> list:
        """(context word, array) of the per-thread arrays of `wave` (_WAVE_ARRAYS)."""
        if self._wave is not wave:
            threads = np.arange(wave.count, dtype=np.int64)
            blocks, tid = threads // wave.tpb, threads % wave.tpb
            linear_block = blocks + wave.first_block
            block, grid = launch.block, launch.grid
            values = (blocks, tid, tid % block[0], tid // block[0] % block[1], tid // (block[0] * block[1]),
                      linear_block % grid[0], linear_block // grid[0] % grid[1], linear_block // (grid[0] * grid[1]))
            self._wave_data = [(word, np.ascontiguousarray(value, dtype=dtype))
                               for (word, dtype), value in zip(_WAVE_ARRAYS, values)]
            self._wave = wave
        return self._wave_data

    def _record(self, run, start, done, n, columns, recorder) -> None:
        """Hand the records of the accesses the call from `start` completed (`done`, whose
        records lead the columns, n each) to the trace recorder: one entry for all of them
        (its constant columns repeated), or for many threads one entry per access."""
        ex = self.ex
        names = ("space", "region", "offset", "block", "thread", "epoch", "active", "warp_sync", "value")
        if len(done) == 1 or n >= SPLIT_ENTRIES:
            for place, index in enumerate(done):
                part = {name: column[place * n:(place + 1) * n] for name, column in zip(names, columns)}
                part.update(kind=run.kinds[index], size=run.sizes[index], op=run.op_ids[index],
                            step=ex.steps + index - start, sync=run.syncs[index], grid_epoch=ex.grid_epoch)
                recorder.append(n, part)
            return
        size = n * len(done)
        entry = {name: column[:size] for name, column in zip(names, columns)}
        entry.update(kind=np.repeat(np.array([run.kinds[i] for i in done], np.uint8), n),
                     size=np.repeat(np.array([run.sizes[i] for i in done], np.int32), n),
                     op=np.repeat(np.array([run.op_ids[i] for i in done], np.int32), n),
                     step=np.repeat(np.array([ex.steps + i - start for i in done], np.int64), n),
                     sync=np.repeat(np.array([run.syncs[i] for i in done], np.uint8), n), grid_epoch=ex.grid_epoch)
        recorder.append(size, entry)

    def _regions(self, memory):
        """Per region: base address, the bytes native code may touch (0: none, the NumPy
        path acts; of a filled region, the chunks from its start that have their content),
        whether it may be written, and its touched marks (filled by the code)."""
        count = len(memory.regions)
        bases, limits = np.zeros(count, dtype=np.int64), np.zeros(count, dtype=np.int64)
        writable, touched = np.zeros(count, dtype=np.int64), np.zeros(count, dtype=np.int64)
        for number, region in enumerate(memory.regions):
            if region is None or region.guard is not None or region.pointees is not None or \
                    not region.data.flags.c_contiguous or len(region.data) == 0:
                continue
            bases[number] = region.data.ctypes.data
            limits[number] = min(len(region.data), region.limit(),
                                 region.prefix * FILL_CHUNK if region.fill is not None else len(region.data))
            writable[number] = not region.read_only
        self._region_tables = bases, limits, writable, touched
        return self._region_tables


def _one_way(frame, slot: int, take, lanes: int, size: int) -> bool:
    """Whether the operands `slot` of an atomic add (or sub) of `lanes` lanes (rows `take`)
    all move a value the same way, by less than its width can wrap in all: then the lanes
    cannot undo each other, and a value some lane changed ends changed (float rounding is
    monotone too)."""
    constant = frame.function.constants.get(slot)
    values = np.asarray(constant if constant is not None else frame.regs[frame.function.storage[slot]][take])
    if values.dtype.kind == "f":
        return not np.isnan(values).any() and bool((values >= 0).all() or (values <= 0).all())
    if not ((values >= 0).all() or (values <= 0).all()):
        return False
    return float(np.abs(values.astype(np.float64)).max(initial=0.0)) * lanes < 2.0 ** (8 * size - 1)


def _register(regs, slot: int, dtype, count: int) -> np.ndarray:
    """The register `slot` as a contiguous array of `count` elements of `dtype` (made so,
    and kept, when it is not yet: never written, or a constant of every row)."""
    value = regs[slot]
    if type(value) is np.ndarray and value.dtype == dtype and value.shape == (count,) and value.flags.c_contiguous:
        return value
    array = np.zeros(count, dtype=dtype) if value is None else \
        np.ascontiguousarray(np.broadcast_to(np.asarray(value, dtype=dtype), (count,))).copy()
    regs[slot] = array
    return array


def _address(array: np.ndarray) -> int:
    """Where `array`'s first element lies (the quick way for writable arrays)."""
    try:
        return ctypes.addressof(ctypes.c_char.from_buffer(array))
    except (TypeError, ValueError, BufferError):
        return array.ctypes.data
