"""Dynamic taint: which of the values Simulee invented for a launch each value, address,
branch and fault of the run depends on.

A launch names the memory contents Simulee invented for it (a buffer's no one gave, those
of the buffers a table of pointers or a struct passed by value points to, a device
variable's the host writes without stating it) as *labels*, bit i of a mask
(Placement.labels). Beside its value every register holds a taint: a Python int, the mask
all its rows share (0: none), or a uint64 array, one mask per row of its frame. (Scalars
and dimensions Simulee chose have rules of their own: simulee.checker.kernel._Replays.)

- A value takes the union of its operands' taints; a load also what the bytes it reads
  hold in shadow memory (memory.py), a select its condition's.
- A store gives the bytes it writes its value's, its address's and its control taint: the
  union of the taints of the conditions of the branches it is control dependent on (by
  Ferrante, Ottenstein and Warren's post-dominator definition, closed transitively), as each
  thread last evaluated them, and of its frame's call. An access is recorded with its
  address's and its control taint; a fault with its operands' and its control taint.
- A phi takes, beside its incoming value's, the taint of the branches that decide by which
  edge its block is entered; and an instruction using a value defined under a branch it is
  not itself under (a loop's counter after the loop) takes that branch's taint too.
- A load from a thread's own stack object (an array in local memory) takes the taint of
  the branches that decide whether each write of that object runs, as the thread last
  evaluated them: a store a branch skipped leaves the value before it (`index[i] = -1`
  kept because no made-up score beat 0), which depends on that branch as a phi would.
- A thread that leaves the kernel keeps what made it leave (Wave.place_taint: the branches
  to its `ret`, or what the fault that stopped it depends on); a warp collective, its
  events and `__activemask()` depend on that of every lane of their warps that left.

So a value depends on a label whenever changing what the label names could change it, as
far as data and control flow carry it: an over-approximation, never less. A finding all of
whose instances carry some label holds only for some of the invented values; one with an
instance that carries none holds whatever they are. This module owns the representation,
the static control dependence, and the propagation through pure instructions; memory.py
owns shadow memory, the builders of memory instructions their own rules."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from interpreter.decode import DecodedFunction

ALL = (1 << 64) - 1  # every label: what a saturated shadow table stands for


def rows_of(mask, rows):
    """The taint of rows `rows` (None: all) of a register's taint."""
    if rows is None or type(mask) is int:
        return mask
    return mask[rows]


def union(a, b):
    """The union of two taints of the same rows."""
    if type(a) is int:
        if type(b) is int:
            return a | b
        return b | np.uint64(a) if a else b
    if type(b) is int:
        return a | np.uint64(b) if b else a
    return a | b


def assign(registers: list, slot: int, rows, mask, count: int) -> None:
    """Give rows `rows` (None: all `count`) of register `slot` the taint `mask`."""
    if rows is None:
        registers[slot] = mask if type(mask) is int else np.array(mask, dtype=np.uint64)
        return
    old = registers[slot]
    if type(old) is int:
        if type(mask) is int and mask == old:
            return
        old = registers[slot] = np.full(count, old, dtype=np.uint64)
    old[rows] = mask


def reduce(mask) -> int:
    """The union of every row's taint."""
    if type(mask) is int:
        return mask
    return int(np.bitwise_or.reduce(mask)) if len(mask) else 0


def as_array(mask, count: int) -> np.ndarray:
    """One mask per row."""
    if type(mask) is int:
        return np.full(count, mask, dtype=np.uint64)
    return np.asarray(mask, dtype=np.uint64)


def bits(mask: int) -> list[int]:
    """The labels of a mask, lowest first."""
    return [bit for bit in range(64) if mask >> bit & 1]


# ---------------------------------------------------------------------------- control dependence


class ControlDependence:
    """For one function: per instruction, the branches (their pcs) it is control dependent
    on, transitively, and those its operands were defined under that it is not (`escaped`:
    how many times a loop ran decides the value its counter leaves it with); per block, the
    branches that decide by which edge it is entered (its phis depend on them)."""

    def __init__(self, decoded: DecodedFunction):
        blocks = decoded.blocks
        exit_block = decoded.exit
        ipdom = decoded.ipdom
        direct: list[set[int]] = [set() for _ in blocks]  # block -> branch blocks it depends on
        for branch, info in enumerate(blocks):
            if len(set(info.successors)) < 2:
                continue
            stop = ipdom[branch]
            for successor in set(info.successors):
                node, seen = successor, set()
                while node != stop and node != exit_block and node not in seen:
                    seen.add(node)
                    direct[node].add(branch)
                    node = ipdom[node]
        closed: list[frozenset[int] | None] = [None] * len(blocks)

        def closure(block: int) -> frozenset[int]:
            pending, found = [block], set()
            while pending:
                for branch in direct[pending.pop()]:
                    if branch not in found:
                        found.add(branch)
                        pending.append(branch)
            return frozenset(found)

        for block in range(len(blocks)):
            closed[block] = closure(block)
        terminator = [info.end - 1 for info in blocks]
        self.of_block = [tuple(sorted(terminator[b] for b in closed[block])) for block in range(len(blocks))]
        self.deciding = []
        for block, info in enumerate(blocks):
            decided = set()
            for predecessor in info.predecessors:
                decided |= closed[predecessor]
                if len(set(blocks[predecessor].successors)) > 1:
                    decided.add(predecessor)
            decided -= closed[block]  # what decides whether the block runs is its uses' control (or escape)
            self.deciding.append(tuple(sorted(terminator[b] for b in decided)))
        self.op_block = [op.block for op in decoded.ops]
        defined_in = {op.result: op.block for op in decoded.ops if op.result >= 0}
        self.escaped: list[dict[int, tuple[int, ...]]] = []  # per instruction: operand slot -> branches
        for op in decoded.ops:
            outside = {}
            for slot in op.args:
                if slot in defined_in and closed[defined_in[slot]] - closed[op.block]:
                    outside[slot] = tuple(sorted(terminator[b] for b in closed[defined_in[slot]] - closed[op.block]))
            self.escaped.append(outside)

        self.skipped = _skipped_writes(decoded, self.of_block)

    def of(self, pc: int) -> tuple[int, ...]:
        return self.of_block[self.op_block[pc]]


def _skipped_writes(decoded: DecodedFunction, of_block: list[tuple[int, ...]]) -> dict[int, tuple[int, ...]]:
    """Per load from a stack object of the function (through getelementptr and casts from
    its alloca), the branches that decide whether the writes of that object run: its
    stores, the copies into it, and calls it is passed to."""
    defined = {op.result: op for op in decoded.ops if op.result >= 0}

    def root(slot: int) -> int | None:
        for _ in range(64):
            op = defined.get(slot)
            if op is None or op.opcode not in ("getelementptr", "bitcast", "addrspacecast"):
                return slot if op is not None and op.opcode == "alloca" else None
            slot = op.args[0]
        return None

    deciding: dict[int, set[int]] = {}
    for op in decoded.ops:
        marker = op.opcode == "call" and (op.extra.get("callee") or "").startswith(("llvm.lifetime", "llvm.dbg"))
        pointers = op.args[1:2] if op.opcode == "store" else op.args if op.opcode == "call" and not marker else ()
        for slot in pointers:
            alloca = root(slot)
            if alloca is not None:
                deciding.setdefault(alloca, set()).update(of_block[op.block])
    skipped = {}
    for pc, op in enumerate(decoded.ops):
        alloca = root(op.args[0]) if op.opcode == "load" else None
        if alloca is not None and deciding.get(alloca):
            skipped[pc] = tuple(sorted(deciding[alloca]))
    return skipped


def control_dependence(decoded: DecodedFunction) -> ControlDependence:
    found = decoded.analyses.get("control_dependence")
    if found is None:
        found = decoded.analyses["control_dependence"] = ControlDependence(decoded)
    return found


def control(frame, branches: tuple[int, ...], rows, divergent: bool = False):
    """The control taint of rows of `frame` at an instruction dependent on `branches`: the
    frame's call's and each branch's condition as the rows last evaluated it. With
    `divergent`, only of the branches that split the rows' block as they last took them
    (who in a block takes part, not whether the block gets there)."""
    call = frame.control_divergent if divergent else frame.control
    return union(rows_of(call, rows), control_branches(frame, branches, rows, divergent))


def control_branches(frame, branches: tuple[int, ...], rows, divergent: bool = False):
    """The union of the conditions of `branches` as rows of `frame` last evaluated them
    (with `divergent`, where the branch split their block)."""
    mask = 0
    taken = frame.divergent if divergent else frame.branches
    if taken:
        for branch in branches:
            found = taken.get(branch)
            if found is not None:
                mask = union(mask, rows_of(found, rows))
    return mask


def note_branch(frame, pc: int, condition, rows, split=None) -> None:
    """Rows of `frame` evaluated the branch at `pc` on a condition of taint `condition`;
    `split` says per row whether the threads of its block went different ways there (None:
    none did)."""
    _note(frame.branches, frame, pc, condition, rows)
    if split is None or (type(condition) is int and not condition):
        _note(frame.divergent, frame, pc, 0, rows)
    else:
        _note(frame.divergent, frame, pc, np.where(split, as_array(condition, len(split)), np.uint64(0)), rows)


def _note(taken: dict, frame, pc: int, condition, rows) -> None:
    old = taken.get(pc)
    if old is None:
        if type(condition) is int and not condition:
            return
        old = 0
    if rows is None:
        taken[pc] = condition if type(condition) is int else np.array(condition, dtype=np.uint64)
        return
    if type(old) is int:
        if type(condition) is int and condition == old:
            return
        old = taken[pc] = np.full(frame.count, old, dtype=np.uint64)
    old[rows] = condition


# ---------------------------------------------------------------------------- pure instructions


def operands(frame, slots: tuple[int, ...], rows, pc: int = -1):
    """The union of the taints of operand registers `slots` for rows, as the instruction
    at `pc` (if given) uses them: with the branches they escaped (ControlDependence)."""
    registers = frame.taint
    mask = 0
    if pc >= 0:
        escaped = frame.function.control.escaped[pc]
        for slot in slots if escaped else ():
            if slot in escaped:
                mask = union(mask, control_branches(frame, escaped[slot], rows))
    storage = frame.function.storage
    for slot in slots:
        found = registers[storage[slot]]
        if type(found) is int:
            if found:
                mask = union(mask, found)
        else:
            mask = union(mask, found if rows is None else found[rows])
    return mask


def propagating(run, slots: tuple[int, ...], result: int, pc: int, rt):
    """`run` (the closure of the instruction at `pc`) that also gives its result the union
    of its operands' taints, and tells the runtime what a fault there depends on."""
    if result < 0:
        def run_noting(frame, rows):
            rt.taint_here = (frame, rows, pc, operands(frame, slots, rows, pc))
            return run(frame, rows)
        return run_noting

    def run_tainted(frame, rows):
        mask = operands(frame, slots, rows, pc)
        rt.taint_here = (frame, rows, pc, mask)
        outcome = run(frame, rows)
        assign(frame.taint, frame.function.storage[result], rows, mask, frame.count)
        return outcome

    return run_tainted
