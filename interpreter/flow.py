"""Control flow: branches and switches (which split a group's rows by target), returns,
calls of defined functions (direct or through a pointer) and block barriers. The scheduler
(simt.py) moves the threads; these closures only say where to."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from interpreter import taint
from interpreter.memory import CODE, split
from interpreter.trace import BAD_FUNCTION_POINTER
from interpreter.values import dtype_of, write, zeros
from interpreter.vocabulary import Unsupported, barrier_kind


def branch(c, function, pc, op):
    """(frame, rows) -> the (target block, rows) pairs the rows go to."""
    targets = op.extra["targets"]
    if not op.args:
        target = targets[0]
        return lambda frame, rows: ((target, rows),)
    condition = c.reader(function, op.args[0])
    if_true, if_false = targets

    def run(frame, rows):
        value = condition(frame, rows)
        if np.ndim(value) == 0:
            return ((if_true if value else if_false, rows),)
        if value.all():
            return ((if_true, rows),)
        if not value.any():
            return ((if_false, rows),)
        everyone = frame.row_indices(rows)
        return (if_true, everyone[value]), (if_false, everyone[~value])

    return run


def switch(c, function, pc, op):
    """(frame, rows) -> the (target block, rows) pairs the rows go to."""
    read = c.reader(function, op.args[0])
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
        everyone = frame.row_indices(rows)
        return tuple((int(target), everyone[destination == target] if len(np.unique(destination)) > 1 else rows)
                     for target in np.unique(destination))

    return run


def ret(c, function, pc, op):
    """(frame, rows) -> the returned value for those rows (None for void)."""
    if not op.args:
        return lambda frame, rows: None
    read = c.reader(function, op.args[0])
    return lambda frame, rows: read(frame, rows)


def direct_call(c, function, pc, op):
    """(frame, rows, pc): the rows enter the callee's new frame."""
    arguments = [c.reader(function, a) for a in op.args]
    name, rt = op.extra["callee"], c.rt

    def run(frame, rows, call_pc):
        rt.call(frame, rows, call_pc, c.function(name), [read(frame, rows) for read in arguments])

    return run


def indirect_call(c, function, pc, op):
    """A call through a function pointer: the lanes are split by the function called; a
    pointer to no function is a fault."""
    pointer = c.reader(function, op.args[-1])
    arguments = [c.reader(function, a) for a in op.args[:-1]]
    names = c.placement.function_names
    defined = c.program.module.functions
    rt = c.rt
    # a bad pointer's fault depends on the pointer and on reaching the call, not on the arguments
    pointer_taint, control_taint = c.taint_reader(function, op.args[-1], pc), c.control_reader(function, pc)

    def run(frame, rows, call_pc):
        targets = np.broadcast_to(np.asarray(pointer(frame, rows), dtype=np.int64), (frame.width(rows),))
        space, region, _ = split(targets)
        everyone = frame.row_indices(rows)
        valid = (space == CODE) & (region >= 1) & (region <= len(names))
        if not valid.all():
            depends = None
            if rt.tainting:  # and on what Simulee placed there: a buffer where the host puts a function
                depends = taint.union(pointer_taint(frame, rows), control_taint(frame, rows))
                depends = taint.union(taint.rows_of(depends, ~valid), rt.memory.pointee_taint(targets[~valid]))
            stopped = frame.thread_ids(everyone[~valid])
            rt.fault(BAD_FUNCTION_POINTER, function.op_ids[call_pc], stopped, depends=depends)
            rt.exit_threads(stopped, function.op_ids[call_pc], depends)  # a GPU stops them too
        for number in np.unique(region[valid]):
            name = names[int(number) - 1]
            chosen = everyone[valid & (region == number)]
            chosen_rows = None if len(chosen) == frame.count else chosen
            if defined[name].is_declaration:
                raise Unsupported(f"call through a pointer to undefined function '{name}'")
            rt.call(frame, chosen_rows, call_pc, c.function(name), [read(frame, chosen_rows) for read in arguments])

    return run


def write_call_result(frame, rows, pc, value) -> None:
    """A call at `pc` of `frame` returns `value` to `rows` (zeros when the callee returned
    none but the call has a result)."""
    op = frame.function.decoded.ops[pc]
    if op.result < 0:
        return
    ty = frame.function.slot_types[op.result]
    if value is None:
        value = zeros(ty, frame.width(rows))
    register = frame.function.storage[op.result]
    frame.regs[register] = write(frame.regs[register], rows, value, ty, frame.count)


@dataclass(frozen=True)
class BarrierInfo:
    """A block barrier; a reducing one (__syncthreads_count/and/or) also has the predicate
    each thread brings and where the block's result goes."""

    reduction: str | None = None  # popc, and, or
    predicate: Callable | None = None
    out: Callable | None = None

    def note_value(self, frame, rows, threads, wave) -> None:
        """Threads arriving at the barrier leave their predicate's value."""
        if self.reduction is not None:
            values = np.asarray(self.predicate(frame, rows))
            wave.barrier_value[threads] = np.broadcast_to(values != 0, threads.shape)

    def write_result(self, frame, rows, pc, threads, wave) -> None:
        """Write a reducing barrier's result (popc/and/or over the block) for rows."""
        if self.reduction is None or self.out is None:
            return
        blocks = wave.blocks_of(threads)
        flags = wave.barrier_value[threads] != 0
        true_count = np.bincount(blocks, weights=flags, minlength=wave.blocks)[blocks]
        total = np.bincount(blocks, minlength=wave.blocks)[blocks]
        result = {"popc": true_count, "and": true_count == total, "or": true_count > 0}[self.reduction]
        slot = frame.function.decoded.ops[pc].result
        ty = frame.function.slot_types[slot]
        register = frame.function.storage[slot]
        frame.regs[register] = write(frame.regs[register], rows, np.asarray(result).astype(dtype_of(ty)), ty,
                                     frame.count)
        if wave.barrier_taint:  # what any predicate brought
            taint.assign(frame.taint, register, rows, wave.barrier_taint, frame.count)


def barrier(c, function, pc, op) -> BarrierInfo:
    """A block barrier's description (vocabulary.barrier_kind says which calls are)."""
    callee = op.extra["callee"]
    reduction = barrier_kind(callee)
    if reduction is None:
        raise Unsupported(f"call of undefined function '{callee}'")
    if not reduction:
        return BarrierInfo()
    predicate = c.reader(function, op.args[-1])
    return BarrierInfo(reduction, predicate, c.writer(function, op.result, False) if op.result >= 0 else None)
