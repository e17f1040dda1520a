"""The values a kernel compares its data against (`n == 1337`, `switch (mode)`, loop
bounds): the search's dictionary, as a coverage-guided fuzzer logs comparison operands.
A random launch almost never hits an equality; trying these (and their neighbours) does."""

from __future__ import annotations

from interpreter.irparse import ConstInt
from interpreter.loader import KernelInfo, Program

DICTIONARY_SIZE = 64  # values kept, the first compared first
EDGES = (0, -1, 1)  # tried whatever the kernel compares against: an empty size, a negative one


def compared_constants(program: Program, kernel: KernelInfo) -> tuple[int, ...]:
    """The integer constants the kernel's code compares against (icmp operands and switch
    cases, in any function it calls), each with its neighbours c - 1 and c + 1, then the
    differences of two of them (`threadIdx.x == 15` and `== 200` make an offset of 185
    meet them), and the edge values 0, -1 and 1."""
    compared = _compared(program, kernel)
    found = dict.fromkeys(value for number in compared for value in (number, number - 1, number + 1))
    found.update(dict.fromkeys(abs(a - b) for a in compared for b in compared if a != b))
    edges = [value for value in EDGES if value not in found]
    return (tuple(found)[:DICTIONARY_SIZE - len(edges)] + tuple(edges))


def _compared(program: Program, kernel: KernelInfo) -> list[int]:
    found: dict[int, None] = {}
    for function in program.reachable_functions(kernel.symbol):
        for op in function.ops:
            if op.opcode == "icmp":
                values = [function.constants.get(slot) for slot in op.args]
            elif op.opcode == "switch":
                values = [value for value, _ in op.extra.get("cases", ())]
            else:
                continue
            for value in values:
                number = value.value if isinstance(value, ConstInt) else value if isinstance(value, int) else None
                if number is not None and not isinstance(number, bool):
                    found[number] = None
    return list(found)
