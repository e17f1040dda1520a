"""Value instructions: integer and float arithmetic, comparisons, casts, select, address
arithmetic (getelementptr) and aggregates (struct, array and vector elements). Each takes
the compiler, the function, the instruction's pc and the instruction, and returns the
closure (frame, rows) that executes it on those rows' registers."""

from __future__ import annotations

import numpy as np

from interpreter import taint
from interpreter.trace import DIVISION_BY_ZERO, OUT_OF_BOUNDS
from interpreter.types import ArrayType, StructType, VectorType
from interpreter.values import (cast as cast_value, divide, dtype_of, float_binary, float_compare, integer_binary,
                                integer_compare)
from interpreter.vocabulary import Unsupported


def integer(c, function, pc, op):
    return _binary(c, function, op, integer_binary)


def floating(c, function, pc, op):
    return _binary(c, function, op, float_binary)


def _binary(c, function, op, semantics):
    ra, rb = (c.reader(function, a) for a in op.args)
    out = c.writer(function, op.result, True)
    opcode, ty = op.opcode, op.type
    return lambda frame, rows: out(frame, rows, semantics(opcode, ra(frame, rows), rb(frame, rows), ty))


def division(c, function, pc, op):
    """Integer division and remainder: a lane dividing by zero faults."""
    ra, rb = (c.reader(function, a) for a in op.args)
    out = c.writer(function, op.result, True)
    opcode, ty, op_id = op.opcode, op.type, function.op_ids[pc]
    rt = c.rt
    # dividing by zero depends on the divisor and on reaching the division, not on the dividend
    divisor_taint, control_taint = c.taint_reader(function, op.args[1], pc), c.control_reader(function, pc)

    def run(frame, rows):
        result, zero = divide(opcode, ra(frame, rows), rb(frame, rows), ty)
        if zero is not None and np.any(zero):
            lanes = np.flatnonzero(np.broadcast_to(zero, (frame.width(rows),)))
            depends = taint.rows_of(taint.union(divisor_taint(frame, rows), control_taint(frame, rows)), lanes) \
                if rt.tainting else None
            rt.fault(DIVISION_BY_ZERO, op_id, frame.thread_ids(rows)[lanes], depends=depends)
        out(frame, rows, result)

    return run


def negate(c, function, pc, op):
    read, out = c.reader(function, op.args[0]), c.writer(function, op.result, True)
    return lambda frame, rows: out(frame, rows, np.negative(read(frame, rows)))


def freeze(c, function, pc, op):
    read, out = c.reader(function, op.args[0]), c.writer(function, op.result, False)
    return lambda frame, rows: out(frame, rows, read(frame, rows))


def compare(c, function, pc, op):
    ra, rb = (c.reader(function, a) for a in op.args)
    out = c.writer(function, op.result, True)
    predicate, ty = op.extra["predicate"], op.arg_types[0]
    if op.opcode == "icmp":
        return lambda frame, rows: out(frame, rows, integer_compare(predicate, ra(frame, rows), rb(frame, rows), ty))
    return lambda frame, rows: out(frame, rows, float_compare(predicate, ra(frame, rows), rb(frame, rows)))


def cast(c, function, pc, op):
    read = c.reader(function, op.args[0])
    out = c.writer(function, op.result, True)
    opcode, source, target = op.opcode, op.arg_types[0], op.type
    return lambda frame, rows: out(frame, rows, cast_value(opcode, read(frame, rows), source, target))


def select(c, function, pc, op):
    rc, ra, rb = (c.reader(function, a) for a in op.args)
    out = c.writer(function, op.result, True)
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


def getelementptr(c, function, pc, op):
    """Pointer plus the byte offset of the indexed element; constant parts folded. A
    variable index into an array dimension outside [0, count) is an out-of-bounds fault
    (C forbids s[i][j] with j past its row even when the address stays inside s); the
    index may equal count when the pointer is not dereferenced (one past the end)."""
    base = c.reader(function, op.args[0])
    out = c.writer(function, op.result, True)
    constant_offset, indices = gep_plan(function, op, c.layout)
    variable = [(c.reader(function, slot), scale, bound) for slot, scale, bound in indices]
    if isinstance(op.type, VectorType):
        raise Unsupported("getelementptr producing a vector of pointers")
    offset = np.int64(constant_offset)
    op_id = function.op_ids[pc]
    rt = c.rt

    def run(frame, rows):
        address = np.add(base(frame, rows), offset, dtype=np.int64)
        for read, scale, bound in variable:
            index = np.asarray(read(frame, rows)).astype(np.int64)
            if bound >= 0:
                outside = (index < 0) | (index > bound)
                if outside.any():
                    lanes = np.flatnonzero(np.broadcast_to(outside, (frame.width(rows),)))
                    rt.fault(OUT_OF_BOUNDS, op_id, frame.thread_ids(rows)[lanes])
            address = address + index * np.int64(scale)
        out(frame, rows, address)

    return run


def gep_plan(function, op, layout) -> tuple[int, list[tuple[int, int, int]]]:
    """(constant byte offset, [(index slot, scale, highest valid index or -1 for none)])
    of a getelementptr: its constant indices folded, the variable ones in order."""
    source = op.extra["source_type"]
    constant_offset, variable = 0, []
    current = source
    past_end = 0 if _dereferenced(function, op.result) else 1
    for position, slot in enumerate(op.args[1:]):
        index_constant = function.constants.get(slot)
        bound = -1
        if position == 0:
            scale = layout.size(source)
        elif isinstance(current, StructType):
            field = int(np.asarray(index_constant))
            constant_offset += layout.field_offsets(current)[field]
            current = current.fields[field]
            continue
        else:
            if current.count > 1:  # [0 x T] and [1 x T] are flexible trailing arrays
                bound = current.count - 1 + past_end
            current = current.element
            scale = layout.size(current)
        if index_constant is not None and not isinstance(index_constant, tuple):
            constant_offset += int(np.asarray(index_constant)) * scale
        else:
            variable.append((slot, scale, bound))
    return constant_offset, variable


def _dereferenced(function, slot: int) -> bool:
    """Whether every use of pointer `slot` is the address of a load, store or atomic, or
    the base of another getelementptr."""
    uses = function.uses.get(slot)
    return bool(uses) and all(opcode in ("load", "getelementptr") and position == 0
                              or opcode == "store" and position == 1
                              or opcode in ("atomicrmw", "cmpxchg") and position == 0
                              for opcode, position in uses)


def aggregate(c, function, pc, op):
    """extractvalue / insertvalue (structs and arrays: tuples of per-lane values) and
    extractelement / insertelement / shufflevector (vectors: (lanes, count) arrays)."""
    readers = [c.reader(function, a) for a in op.args]
    out = c.writer(function, op.result, op.opcode in ("insertelement", "shufflevector"))
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
            count = frame.width(rows)
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
        count = frame.width(rows)
        first = np.broadcast_to(readers[0](frame, rows), (count, vector_type.count))
        second = np.broadcast_to(readers[1](frame, rows), (count, vector_type.count))
        both = np.concatenate([first, second], axis=1)
        picked = both[:, [m if m >= 0 else 0 for m in mask]].copy()
        picked[:, [i for i, m in enumerate(mask) if m < 0]] = 0
        out(frame, rows, picked)

    return run


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


def with_overflow(c, function, pc, op):
    """llvm.{s,u}{add,sub,mul}.with.overflow.iN: the result wrapped at the width, and
    whether the exact one does not fit (signed or unsigned as the name says)."""
    ra, rb = (c.reader(function, a) for a in op.args[:2])
    out = c.writer(function, op.result, False)
    kind = op.extra["callee"].split(".")[1]  # sadd, uadd, ssub, usub, smul, umul
    ty = op.type.fields[0]
    bits = ty.bits

    def run(frame, rows):
        count = frame.width(rows)
        a = np.broadcast_to(np.asarray(ra(frame, rows)), (count,))
        b = np.broadcast_to(np.asarray(rb(frame, rows)), (count,))
        result = np.broadcast_to(np.asarray(integer_binary(kind[1:], a, b, ty)), (count,))
        out(frame, rows, (result, _overflowed(kind, a, b, bits)))

    return run


def _overflowed(kind: str, a: np.ndarray, b: np.ndarray, bits: int) -> np.ndarray:
    """Per lane, whether the exact result of `kind` on `bits`-bit operands leaves their range."""
    signed, operation = kind[0] == "s", kind[1:]
    if bits <= 32:  # exact in 64 bits
        mask = (1 << bits) - 1
        x, y = a.astype(np.int64), b.astype(np.int64)
        if not signed:
            x, y = (x & mask).astype(np.uint64), (y & mask).astype(np.uint64)
        exact = x + y if operation == "add" else x * y if operation == "mul" else \
            x.astype(np.int64) - y.astype(np.int64)
        low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, mask)
        return (exact < low) | (exact > high)
    if bits != 64:
        raise Unsupported(f"llvm.{kind}.with.overflow on i{bits}")
    sa, sb = a.astype(np.int64), b.astype(np.int64)
    ua, ub = sa.view(np.uint64), sb.view(np.uint64)
    if operation == "add":
        r = sa + sb
        return ((sa ^ r) & (sb ^ r)) < 0 if signed else r.view(np.uint64) < ua
    if operation == "sub":
        r = sa - sb
        return ((sa ^ sb) & (sa ^ r)) < 0 if signed else ua < ub
    nonzero = sa != 0
    if signed:  # the wrapped product divided back gives the other factor only if it did not wrap
        with np.errstate(over="ignore"):
            r = sa * sb
            back = r // np.where(nonzero, sa, 1)
        return nonzero & ((back != sb) | ((sa == -1) & (sb == np.iinfo(np.int64).min)))
    r = ua * ub
    return nonzero & (r // np.where(nonzero, ua, np.uint64(1)) != ub)
