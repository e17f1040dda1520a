"""Which register a frame keeps each SSA value of a function in (`storage`).

A frame holds a register (an array with a row per thread) for every value it keeps, so a
launch's memory grows with the wave's threads times its registers: a cooperative launch of
163,840 threads through a kernel of 2,000 values would hold gigabytes. Values never live
at the same point of the function share a register, chosen greedily in dominance order
from the liveness of each value (SSA interference: two values interfere when one is live
where the other is defined), so a frame holds about as many registers as values are live
at once. Each thread reads only its own row, and a thread never needs a value past the
point its liveness ends, so sharing changes no thread's values.

Kept apart, each in a register of its own: parameters, phis (a loop's spin test compares
a phi's value of the trip before with the next: simt.spins), an atomicrmw's operands and
result (the native engine reads them after the run they are in: native._changed), values
defined in blocks the entry does not reach, and an instruction's result from its operands
(lanes of one warp read each other's operands: a shuffle). And a register a value left
is taken again only past the next store (or atomicrmw) or in another block: native code
runs the instructions between two stores thread by thread (a stage, native.Run.stages),
and where one thread faults, every thread goes on from that instruction, those that had
gone past it doing again what they did, which must find the values they read unchanged.
Constants have no register (one shared index nothing writes). Static analyses keep naming
values by their SSA slot.
"""

from __future__ import annotations

from interpreter.decode import DecodedFunction

STAGE_ENDS = ("store", "atomicrmw")  # instructions native code runs as a stage of their own (native._WRITING)


def storage(decoded: DecodedFunction) -> tuple[list[int], int]:
    """(the register of each slot of `decoded`, how many registers a frame needs), computed
    once a function."""
    if "storage" not in decoded.analyses:
        decoded.analyses["storage"] = _storage(decoded)
    return decoded.analyses["storage"]


def _storage(decoded: DecodedFunction) -> tuple[list[int], int]:
    count = len(decoded.slot_types)
    constants = decoded.constants
    defined = [False] * count
    for slot in decoded.params:
        defined[slot] = True
    for op in decoded.ops:
        if op.result >= 0:
            defined[op.result] = True
    live_in, live_out = _liveness(decoded, constants)
    register = [-1] * count
    own = [slot for slot in range(count) if defined[slot] and slot not in constants]
    apart = {slot for op in decoded.ops if op.opcode == "atomicrmw" for slot in (*op.args, op.result)}
    colored = _colors(decoded, live_in, live_out, constants, register, apart)
    for slot in own:  # the values kept apart: each a register of its own, after the shared ones
        if register[slot] < 0:
            register[slot] = colored
            colored += 1
    nothing = colored  # constants and slots no instruction defines: a register never written
    return [nothing if slot < 0 else slot for slot in register], colored + 1


def _liveness(decoded: DecodedFunction, constants: dict) -> tuple[list[int], list[int]]:
    """Per block, the values live on entry (phis defined there included) and on exit (the
    phi operands of its successors for its edge included), as bit sets of slots."""
    blocks = decoded.blocks
    uses, defs, phi_defs = [0] * len(blocks), [0] * len(blocks), [0] * len(blocks)
    phi_uses = [dict() for _ in blocks]  # per block: per predecessor, the phi operands of that edge
    for number, block in enumerate(blocks):
        for op in decoded.ops[block.start:block.end]:
            if op.opcode == "phi":
                phi_defs[number] |= 1 << op.result
                for slot, source in zip(op.args, op.extra["blocks"]):
                    if slot not in constants:
                        phi_uses[number][source] = phi_uses[number].get(source, 0) | 1 << slot
                continue
            for slot in op.args:
                if slot not in constants and not defs[number] >> slot & 1:
                    uses[number] |= 1 << slot
            if op.result >= 0:
                defs[number] |= 1 << op.result
    live_in, live_out = [0] * len(blocks), [0] * len(blocks)
    order = list(reversed(decoded.rpo)) + [n for n in range(len(blocks)) if n not in set(decoded.rpo)]
    changed = True
    while changed:
        changed = False
        for number in order:
            out = 0
            for successor in blocks[number].successors:
                out |= (live_in[successor] & ~phi_defs[successor]) | phi_uses[successor].get(number, 0)
            entry = uses[number] | (out & ~defs[number]) | phi_defs[number]
            if out != live_out[number] or entry != live_in[number]:
                live_out[number], live_in[number], changed = out, entry, True
    return live_in, live_out


def _colors(decoded: DecodedFunction, live_in: list[int], live_out: list[int], constants: dict,
            register: list[int], apart: set[int]) -> int:
    """Give the values defined by instructions of reachable blocks (phis and `apart` left
    out) shared registers in `register`, a type's values only that type's registers:
    greedily, in reverse post-order, each the first register of its type no value live
    there holds and none left since its block's last store. How many registers that made."""
    kinds: dict[str, int] = {}  # per type, its registers as a bit set
    made = 0
    for number in decoded.rpo:
        block = decoded.blocks[number]
        ops = decoded.ops[block.start:block.end]
        dying = _last_uses(ops, live_out[number], constants)
        busy = 0  # registers of the values live here
        left = 0  # registers values left since the block's last store: not taken again before the next
        for slot in _bits(live_in[number]):
            if register[slot] >= 0:
                busy |= 1 << register[slot]
        for op, ends in zip(ops, dying):
            if op.opcode == "phi":
                continue
            result = op.result if op.result not in apart else -1
            if result >= 0:
                kind = repr(op.type)
                free = kinds.get(kind, 0) & ~busy & ~left
                if free:
                    chosen = (free & -free).bit_length() - 1
                else:
                    chosen, made = made, made + 1
                    kinds[kind] = kinds.get(kind, 0) | 1 << chosen
                register[result] = chosen
            for slot in ends:
                if register[slot] >= 0:
                    busy &= ~(1 << register[slot])
                    left |= 1 << register[slot]
            if result >= 0 and result not in ends:
                busy |= 1 << register[result]
            if op.opcode in STAGE_ENDS:
                left = 0
    return made


def _last_uses(ops: list, live_out: int, constants: dict) -> list[tuple[int, ...]]:
    """Per instruction of a block, the values whose last use it is (a result never used
    counted too): what is not live after it."""
    live = live_out
    dying: list[tuple[int, ...]] = [()] * len(ops)
    for index in range(len(ops) - 1, -1, -1):
        op = ops[index]
        if op.opcode == "phi":
            continue
        ends = [] if op.result < 0 or live >> op.result & 1 else [op.result]
        if op.result >= 0:
            live &= ~(1 << op.result)
        for slot in dict.fromkeys(op.args):
            if slot not in constants and not live >> slot & 1:
                ends.append(slot)
                live |= 1 << slot
        dying[index] = tuple(ends)
    return dying


def _bits(mask: int):
    """The positions of the set bits of `mask`."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low
