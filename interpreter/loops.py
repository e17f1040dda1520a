"""Natural loops of decoded functions: where a loop is in the source, and how many
scheduler steps a launch may need before it counts as looping without end.

A loop is found by its back edges (a branch to a block no later in reverse post-order);
its body is every block that reaches the back edge without passing its header. A loop's
trip bound is the largest magnitude among what its exits compare against and its header's
initial values that are known before the launch runs: constants, kernel arguments,
blockDim and gridDim, and arithmetic on them (`i < n`, `i < 300000`, `s = blockDim.x / 2`).
The step budget of a wave is DEFAULT_STEP_LIMIT plus, per loop, its size in instructions
times its trip bound and those of the loops around it, with room for divergent threads
running the same loop apart. A loop whose bound is not known (read from memory, or no
bound at all) adds nothing: an endless loop is stopped after DEFAULT_STEP_LIMIT steps.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from interpreter import irparse as ir
from interpreter.decode import DecodedFunction
from interpreter.launch import Launch
from interpreter.limits import DEFAULT_STEP_LIMIT
from interpreter.vocabulary import WRAPPING_BINARY, index_register

DIVERGENCE_ROOM = 4  # threads of a block may run a loop in up to this many groups apart
BUDGET_CEILING = 1 << 62
_EVALUATED = WRAPPING_BINARY | {"udiv", "sdiv"}  # what a loop bound may compute
_CASTS = ("sext", "zext", "trunc", "bitcast", "fptosi", "fptoui", "sitofp", "uitofp")
_DIMENSIONS = {"ntid": "block", "nctaid": "grid"}


@dataclass(frozen=True)
class Loop:
    """A natural loop: its header block, its blocks, and its back-edge sources."""

    header: int
    blocks: frozenset[int]
    latches: tuple[int, ...]


def natural_loops(function: DecodedFunction) -> list[Loop]:
    """The function's loops, one per header, outermost (largest) first (computed once)."""
    if "loops" not in function.analyses:
        function.analyses["loops"] = _find_loops(function)
    return function.analyses["loops"]


def _find_loops(function: DecodedFunction) -> list[Loop]:
    rank = {block: position for position, block in enumerate(function.rpo)}
    latches: dict[int, list[int]] = {}
    for block in function.rpo:
        for successor in function.blocks[block].successors:
            if successor in rank and rank[successor] <= rank[block]:
                latches.setdefault(successor, []).append(block)
    loops = []
    for header, sources in latches.items():
        body, pending = {header}, list(sources)
        while pending:
            block = pending.pop()
            if block not in body:
                body.add(block)
                pending.extend(p for p in function.blocks[block].predecessors if p in rank)
        loops.append(Loop(header, frozenset(body), tuple(sources)))
    return sorted(loops, key=lambda loop: -len(loop.blocks))


def innermost_loop(function: DecodedFunction, block: int) -> Loop | None:
    """The smallest loop that contains `block`."""
    containing = [loop for loop in natural_loops(function) if block in loop.blocks]
    return containing[-1] if containing else None


def loop_line_pc(function: DecodedFunction, block: int) -> int:
    """The instruction that names the loop around `block` in the source: the comparison
    that decides whether it goes on (on its `for`/`while` line), else its back-edge
    branch (which clang places at the loop's start), else its first instruction with a
    source line. `block`'s first instruction when it is in no loop."""
    ops = function.ops
    loop = innermost_loop(function, block)
    if loop is None:
        return function.blocks[block].start
    rank = {number: position for position, number in enumerate(function.rpo)}
    blocks = sorted(loop.blocks, key=rank.__getitem__)
    defining = defining_ops(function)
    for number in blocks:
        terminator = ops[function.blocks[number].end - 1]
        leaves = any(target not in loop.blocks for target in function.blocks[number].successors)
        condition = defining.get(terminator.args[0]) if terminator.opcode == "br" and terminator.args else None
        if leaves and condition is not None and _has_line(ops[condition]):
            return condition
    for latch in loop.latches:
        if _has_line(ops[function.blocks[latch].end - 1]):
            return function.blocks[latch].end - 1
    located = [pc for number in blocks for pc in range(function.blocks[number].start, function.blocks[number].end)
               if _has_line(ops[pc])]
    return located[0] if located else function.blocks[loop.header].start


def defining_ops(function: DecodedFunction) -> dict[int, int]:
    """The pc of the instruction that defines each slot (computed once)."""
    if "defining" not in function.analyses:
        function.analyses["defining"] = {op.result: pc for pc, op in enumerate(function.ops) if op.result >= 0}
    return function.analyses["defining"]


def _has_line(op) -> bool:
    return op.location is not None and op.location.line > 0


def step_budget(functions: list[DecodedFunction], kernel_params: list[str], launch: Launch) -> int:
    """Scheduler steps one wave of `launch` may take: DEFAULT_STEP_LIMIT plus what the
    loops of `functions` (the kernel first, then what it calls) need at their known trip
    bounds. `kernel_params` names the kernel's parameters in order."""
    arguments = {}
    kernel = functions[0]
    for slot, name in zip(kernel.params, kernel_params):
        value = launch.args.get(name)
        if isinstance(value, (int, float)) or getattr(value, "shape", None) == ():
            arguments[slot] = float(value)
    work = 0
    for function in functions:
        values = _Values(function, arguments if function is kernel else {}, launch)
        loops = natural_loops(function)
        bounds = {loop.header: _trip_bound(function, loop, values) for loop in loops}
        for loop in loops:
            trips = math.prod(bounds[outer.header] for outer in loops if loop.header in outer.blocks)
            size = sum(function.blocks[b].end - function.blocks[b].start for b in loop.blocks)
            work += size * trips
    return int(min(DEFAULT_STEP_LIMIT + DIVERGENCE_ROOM * work, BUDGET_CEILING))


def _trip_bound(function: DecodedFunction, loop: Loop, values: "_Values") -> int:
    """How many times the loop may run at most, as far as its known bounds say (1 when
    nothing is known)."""
    ops = function.ops
    candidates = []
    for number in loop.blocks:
        terminator = ops[function.blocks[number].end - 1]
        if terminator.opcode != "br" or not terminator.args:
            continue
        if all(target in loop.blocks for target in function.blocks[number].successors):
            continue
        compare = values.defining.get(terminator.args[0])
        if compare is not None and ops[compare].opcode in ("icmp", "fcmp"):
            candidates += [values.of(slot) for slot in ops[compare].args]
    header = function.blocks[loop.header]
    for pc in range(header.start, header.end):
        op = ops[pc]
        if op.opcode == "phi":
            candidates += [values.of(slot) for slot, source in zip(op.args, op.extra["blocks"])
                           if source not in loop.blocks]
    known = [abs(value) for value in candidates if value is not None and math.isfinite(value)]
    return max(1, int(min(max(known, default=1), BUDGET_CEILING)))


class _Values:
    """Values known before a launch runs: constants, the kernel's scalar arguments,
    blockDim and gridDim, and arithmetic and casts of them."""

    def __init__(self, function: DecodedFunction, arguments: dict[int, float], launch: Launch):
        self.function, self.arguments, self.launch = function, arguments, launch
        self.defining = defining_ops(function)

    def of(self, slot: int, depth: int = 0) -> float | None:
        if depth > 8:
            return None
        if slot in self.arguments:
            return self.arguments[slot]
        constant = self.function.constants.get(slot)
        if constant is not None:
            return float(constant.value) if isinstance(constant, (ir.ConstInt, ir.ConstFloat)) else None
        pc = self.defining.get(slot)
        if pc is None:
            return None
        op = self.function.ops[pc]
        if op.opcode in _CASTS:
            return self.of(op.args[0], depth + 1)
        if op.opcode == "call":
            callee = op.extra.get("callee") or ""
            register, _, axis = (index_register(callee) or "").partition(".")
            if register in _DIMENSIONS:
                return float(getattr(self.launch, _DIMENSIONS[register])["xyz".index(axis)])
            return None
        if op.opcode in _EVALUATED and len(op.args) == 2:
            a, b = self.of(op.args[0], depth + 1), self.of(op.args[1], depth + 1)
            if a is None or b is None:
                return None
            return _arithmetic(op.opcode, a, b)
        return None


def _arithmetic(opcode: str, a: float, b: float) -> float | None:
    """An upper estimate of the magnitude of `a opcode b` (for trip bounds, not values)."""
    a, b = abs(a), abs(b)
    if opcode in ("add", "or", "xor"):
        return a + b
    if opcode == "sub":
        return max(a, b)
    if opcode == "mul":
        return a * b
    if opcode == "shl":
        return a * 2.0 ** min(b, 64)
    if opcode in ("lshr", "ashr"):
        return a / 2.0 ** min(b, 64)
    if opcode in ("udiv", "sdiv"):
        return a / b if b else a
    return a  # and
