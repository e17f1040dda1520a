"""Decode a parsed function into flat tables the interpreter executes without parsing.

Every SSA value gets a slot number: parameters first, then instruction results, then one
slot per distinct constant. An `Op` names its operands by slot, its branch targets by block
index and its source location by SourceLocation. Constants that address globals through
casts and constant getelementptrs are folded to `Address(global, byte offset)`. Per
function the decoder also computes block successors, reverse post-order and immediate
post-dominators (the reconvergence points of divergent branches; EXIT when the paths only
meet on leaving the function).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from interpreter import irparse as ir
from interpreter.debuginfo import DebugInfo, SourceLocation
from interpreter.types import ArrayType, DataLayout, IntType, StructType, Type, VectorType


@dataclass(frozen=True)
class Address:
    """A constant pointer: the address of global `name` plus `offset` bytes, of pointer
    type `type` (whose address space may differ from the global's after a cast)."""

    name: str
    offset: int
    type: Type


@dataclass(slots=True)
class Op:
    """One decoded instruction.

    `result` is the slot it defines (-1 for none); `args` the operand slots, in the order
    irparse gives them; `extra` the opcode's details with block names replaced by block
    indices (`targets`, `default`, `cases`, `blocks` of a phi)."""

    opcode: str
    result: int
    type: Type
    args: tuple[int, ...]
    arg_types: tuple[Type, ...]
    extra: dict
    location: SourceLocation | None
    block: int
    text: str


@dataclass
class BlockInfo:
    name: str
    start: int  # index of its first op
    end: int  # one past its terminator
    successors: tuple[int, ...]
    predecessors: tuple[int, ...] = ()


@dataclass
class DecodedFunction:
    """A function as flat tables. Blocks are numbered in source order; block 0 is entry."""

    name: str
    params: tuple[int, ...]
    slot_types: list[Type]
    slot_names: list[str]
    constants: dict[int, object]
    ops: list[Op]
    blocks: list[BlockInfo]
    rpo: tuple[int, ...]
    ipdom: tuple[int, ...]
    callees: frozenset[str] = field(default_factory=frozenset)
    analyses: dict = field(default_factory=dict, compare=False, repr=False)  # what analyses of it computed once

    @property
    def exit(self) -> int:
        """The virtual exit block that ipdom uses for 'reconverge when leaving'."""
        return len(self.blocks)


def decode_function(function: ir.Function, layout: DataLayout, debug: DebugInfo) -> DecodedFunction:
    """Flatten `function` (a definition) into slots, ops and CFG tables."""
    slots: dict[str, int] = {}
    slot_types: list[Type] = []
    slot_names: list[str] = []

    def new_slot(name: str, ty: Type) -> int:
        slots[name] = len(slot_types)
        slot_types.append(ty)
        slot_names.append(name)
        return slots[name]

    params = tuple(new_slot(p.name or f"arg{i}", p.type) for i, p in enumerate(function.params))
    for block in function.blocks:
        for instruction in block.instructions:
            if instruction.result is not None:
                new_slot(instruction.result, instruction.type)

    constant_slots: dict[object, int] = {}
    constants: dict[int, object] = {}

    def slot_of(value) -> int:
        if isinstance(value, ir.Local):
            if value.name not in slots:
                raise ir.IRSyntaxError(f"use of undefined value %{value.name}")
            return slots[value.name]
        constant = fold_constant(value, layout)
        key = (repr(constant), constant.type)  # not the value: -0.0 == 0.0, and one slot would hold both
        found = constant_slots.get(key)
        if found is None:
            found = constant_slots[key] = len(slot_types)
            slot_types.append(constant.type)
            slot_names.append(_constant_name(constant))
            constants[found] = constant
        return found

    block_index = {block.name: i for i, block in enumerate(function.blocks)}
    ops: list[Op] = []
    infos: list[BlockInfo] = []
    callees = set()
    for number, block in enumerate(function.blocks):
        start = len(ops)
        for instruction in block.instructions:
            op = _decode_instruction(instruction, number, slots, slot_of, block_index, debug)
            ops.append(op)
            if op.opcode == "call" and op.extra.get("callee"):
                callees.add(op.extra["callee"])
        terminator = ops[-1] if len(ops) > start else None
        infos.append(BlockInfo(block.name, start, len(ops), _successors(terminator)))
    _locate_allocas(ops)
    predecessors: list[list[int]] = [[] for _ in infos]
    for number, info in enumerate(infos):
        for successor in info.successors:
            if number not in predecessors[successor]:
                predecessors[successor].append(number)
    for info, preds in zip(infos, predecessors):
        info.predecessors = tuple(preds)
    return DecodedFunction(
        function.name, params, slot_types, slot_names, constants, ops, infos,
        reverse_post_order([info.successors for info in infos]),
        # Blocks without successors leave the function (ret, unreachable).
        immediate_post_dominators([info.successors for info in infos],
                                  [n for n, i in enumerate(infos) if not i.successors]),
        frozenset(callees),
    )


def _decode_instruction(instruction, block, slots, slot_of, block_index, debug) -> Op:
    extra = dict(instruction.extra)
    try:
        if "targets" in extra:
            extra["targets"] = tuple(block_index[name] for name in extra["targets"])
        if "default" in extra:
            extra["default"] = block_index[extra["default"]]
            extra["cases"] = tuple((value, block_index[name]) for value, name in extra["cases"])
        if instruction.opcode == "phi":
            extra["blocks"] = tuple(block_index[name] for name in extra["blocks"])
        args = tuple(slot_of(operand) for operand in instruction.operands)
    except (KeyError, ir.IRSyntaxError) as error:
        return Op("unsupported", slots.get(instruction.result, -1), instruction.type, (), (),
                  {"reason": f"cannot decode: {error}"}, debug.location(instruction.dbg), block, instruction.text)
    return Op(
        instruction.opcode,
        slots[instruction.result] if instruction.result is not None else -1,
        instruction.type,
        args,
        tuple(operand.type for operand in instruction.operands),
        extra,
        debug.location(instruction.dbg),
        block,
        instruction.text,
    )


def _locate_allocas(ops: list[Op]) -> None:
    """An alloca that inlining moved to the entry block has no source location: it takes
    the location of the variable's lifetime start (its declaration in the source)."""
    missing = {op.result: pc for pc, op in enumerate(ops) if op.opcode == "alloca" and op.location is None}
    for op in ops:
        if missing and op.opcode == "call" and (op.extra.get("callee") or "").startswith("llvm.lifetime.start") \
                and op.location is not None:
            pc = missing.pop(op.args[-1], None)
            if pc is not None:
                ops[pc].location = op.location


def _successors(terminator: Op | None) -> tuple[int, ...]:
    if terminator is None:
        return ()
    if terminator.opcode == "br":
        return tuple(dict.fromkeys(terminator.extra["targets"]))
    if terminator.opcode == "switch":
        targets = [terminator.extra["default"]] + [target for _, target in terminator.extra["cases"]]
        return tuple(dict.fromkeys(targets))
    return ()


def _constant_name(constant) -> str:
    if isinstance(constant, Address):
        return f"@{constant.name}+{constant.offset}" if constant.offset else f"@{constant.name}"
    if isinstance(constant, (ir.ConstInt, ir.ConstFloat)):
        return repr(constant.value)
    return type(constant).__name__


# ---------------------------------------------------------------------------- globals


@dataclass(frozen=True)
class DecodedGlobal:
    """A global variable's memory image. `data` is None for a variable defined elsewhere
    (extern __shared__, say); `relocations` lists (byte offset, pointer constant) for the
    pointers in the initializer, whose bytes in `data` are zero until addresses exist."""

    name: str
    type: Type
    addrspace: int
    size: int
    align: int
    constant: bool
    data: bytes | None
    relocations: tuple[tuple[int, object], ...]


def decode_global(variable: ir.GlobalVariable, layout: DataLayout) -> DecodedGlobal:
    size = layout.size(variable.type)
    align = max(variable.align or 1, layout.align(variable.type))
    if variable.initializer is None:
        return DecodedGlobal(variable.name, variable.type, variable.addrspace, size, align, variable.constant, None, ())
    image = bytearray(size)
    relocations: list[tuple[int, object]] = []
    _write_constant(image, 0, fold_constant(variable.initializer, layout), variable.type, layout, relocations)
    return DecodedGlobal(variable.name, variable.type, variable.addrspace, size, align, variable.constant, bytes(image),
                         tuple(relocations))


def constant_bytes(value, ty: Type, layout: DataLayout) -> bytes | None:
    """The bytes of a constant of type `ty` (None when it holds an address)."""
    image = bytearray(layout.size(ty))
    relocations: list = []
    _write_constant(image, 0, fold_constant(value, layout), ty, layout, relocations)
    return None if relocations else bytes(image)


_FLOAT_FORMATS = {16: "<e", 32: "<f", 64: "<d"}


def _write_constant(image: bytearray, offset: int, value, ty: Type, layout: DataLayout, relocations: list) -> None:
    """Store the bytes of constant `value` of type `ty` at `offset` (little endian)."""
    if isinstance(value, ir.ConstSpecial):
        return  # zero, null, undef and poison all start as zero bytes
    if isinstance(value, ir.ConstInt):
        width = layout.store_size(ty)
        image[offset : offset + width] = (value.value & ((1 << (8 * width)) - 1)).to_bytes(width, "little")
    elif isinstance(value, ir.ConstFloat):
        if ty.bits in _FLOAT_FORMATS and ty.name != "bfloat":
            image[offset : offset + ty.bits // 8] = struct.pack(_FLOAT_FORMATS[ty.bits], value.value)
        elif ty.name == "bfloat":
            bits = struct.unpack("<I", struct.pack("<f", value.value))[0]
            image[offset : offset + 2] = (bits >> 16).to_bytes(2, "little")
    elif isinstance(value, ir.ConstBytes):
        image[offset : offset + len(value.data)] = value.data
    elif isinstance(value, ir.ConstAggregate):
        if isinstance(ty, StructType):
            positions = layout.field_offsets(ty)
            types = ty.fields
        else:
            step = layout.size(ty.element)
            positions = [i * step for i in range(ty.count)]
            types = [ty.element] * ty.count
        for element, position, element_type in zip(value.elements, positions, types):
            _write_constant(image, offset + position, element, element_type, layout, relocations)
    elif isinstance(value, ir.ConstSplat):
        step = layout.size(ty.element)
        for i in range(ty.count):
            _write_constant(image, offset + i * step, value.element, ty.element, layout, relocations)
    else:  # an address or a constant expression over addresses: resolved at load time
        relocations.append((offset, value))


# ---------------------------------------------------------------------------- constants


def fold_constant(value, layout: DataLayout):
    """A constant with globals' addresses folded: @g, getelementptr with constant indices
    of @g, and pointer casts of those become Address; aggregates fold element by element.
    What cannot be folded (ptrtoint of a global, say) stays a ConstExpr."""
    if isinstance(value, ir.Global):
        return Address(value.name, 0, value.type)
    if isinstance(value, ir.ConstAggregate):
        return ir.ConstAggregate(value.type, tuple(fold_constant(e, layout) for e in value.elements))
    if isinstance(value, ir.ConstExpr):
        operands = tuple(fold_constant(o, layout) for o in value.operands)
        if value.opcode in ("addrspacecast", "bitcast") and isinstance(operands[0], Address):
            return Address(operands[0].name, operands[0].offset, value.type)
        if value.opcode == "getelementptr" and isinstance(operands[0], Address):
            offset = gep_constant_offset(value.source_type, operands[1:], layout)
            if offset is not None:
                return Address(operands[0].name, operands[0].offset + offset, value.type)
        if value.opcode in ("add", "sub", "mul", "shl", "and", "or", "xor") and all(
            isinstance(o, ir.ConstInt) for o in operands
        ):
            return ir.ConstInt(value.type, _wrap(_integer_op(value.opcode, operands[0].value, operands[1].value),
                                                 value.type))
        if value.opcode in ("trunc", "zext", "sext") and isinstance(operands[0], ir.ConstInt):
            return ir.ConstInt(value.type, _convert_integer(value.opcode, operands[0], value.type))
        return ir.ConstExpr(value.opcode, value.type, operands, value.source_type, value.flags)
    return value


def gep_constant_offset(source: Type, indices, layout: DataLayout) -> int | None:
    """The byte offset of a getelementptr whose indices are all constant integers."""
    if not all(isinstance(i, ir.ConstInt) for i in indices):
        return None
    offset = layout.size(source) * indices[0].value if indices else 0
    ty = source
    for index in indices[1:]:
        if isinstance(ty, StructType):
            offset += layout.field_offsets(ty)[index.value]
            ty = ty.fields[index.value]
        elif isinstance(ty, (ArrayType, VectorType)):
            ty = ty.element
            offset += layout.size(ty) * index.value
        else:
            return None
    return offset


def _integer_op(opcode: str, a: int, b: int) -> int:
    return {"add": a + b, "sub": a - b, "mul": a * b, "shl": a << b, "and": a & b, "or": a | b, "xor": a ^ b}[opcode]


def _wrap(value: int, ty: Type) -> int:
    """`value` as the signed integer of type `ty` (two's complement)."""
    bits = ty.bits if isinstance(ty, IntType) else 64
    value &= (1 << bits) - 1
    return value - (1 << bits) if bits > 1 and value >> (bits - 1) else value


def _convert_integer(opcode: str, operand: ir.ConstInt, ty: Type) -> int:
    bits = operand.type.bits
    value = operand.value & ((1 << bits) - 1)
    if opcode == "sext" and value >> (bits - 1):
        value -= 1 << bits
    return _wrap(value, ty)


# ---------------------------------------------------------------------------- CFG


def reverse_post_order(successors: list[tuple[int, ...]]) -> tuple[int, ...]:
    """Blocks reachable from block 0, in reverse post-order of a depth-first search."""
    return tuple(reversed(_post_order(successors, 0))) if successors else ()


def immediate_post_dominators(successors: list[tuple[int, ...]], exits: list[int]) -> tuple[int, ...]:
    """For each block, its immediate post-dominator; len(successors) (the virtual exit
    that every exit block flows to) when only leaving the function joins its paths, and
    for blocks that cannot reach an exit (infinite loops).

    Cooper, Harvey and Kennedy's iterative dominator algorithm on the reversed CFG."""
    count = len(successors)
    exit_node = count
    # Reverse graph: the exit node reaches the exit blocks; block b reaches its predecessors.
    reverse_successors: list[list[int]] = [[] for _ in range(count + 1)]
    reverse_predecessors: list[list[int]] = [[] for _ in range(count + 1)]
    for block, targets in enumerate(successors):
        for target in targets:
            reverse_successors[target].append(block)
            reverse_predecessors[block].append(target)
    for block in exits:
        reverse_successors[exit_node].append(block)
        reverse_predecessors[block].append(exit_node)

    order = _post_order(reverse_successors, exit_node)
    position = {node: index for index, node in enumerate(order)}
    idom: dict[int, int] = {exit_node: exit_node}
    changed = True
    while changed:
        changed = False
        for node in reversed(order):
            if node == exit_node:
                continue
            processed = [p for p in reverse_predecessors[node] if p in idom]
            if not processed:
                continue
            new = processed[0]
            for other in processed[1:]:
                new = _intersect(new, other, idom, position)
            if idom.get(node) != new:
                idom[node] = new
                changed = True
    return tuple(idom.get(block, exit_node) for block in range(count))


def _post_order(successors, root: int) -> list[int]:
    """Nodes reachable from `root` in depth-first post-order."""
    order, visited = [], {root}
    stack = [(root, iter(successors[root]))]
    while stack:
        node, children = stack[-1]
        for child in children:
            if child not in visited:
                visited.add(child)
                stack.append((child, iter(successors[child])))
                break
        else:
            stack.pop()
            order.append(node)
    return order


def _intersect(a: int, b: int, idom: dict[int, int], position: dict[int, int]) -> int:
    while a != b:
        while position[a] < position[b]:
            a = idom[a]
        while position[b] < position[a]:
            b = idom[b]
    return a
