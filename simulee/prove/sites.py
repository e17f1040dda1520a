"""The launches the host code makes, as constraints on the symbolic launch.

A launch site (evolve.launchsite.Site) gives the grid, the block, each argument and the
conditions the host tests on the way to the launch as expressions over values the host
code does not fix (its inputs). Each becomes a bit-vector term over fresh variables (one
per input of each site); an expression the solver cannot follow (floating point, a pitch,
a bit count) constrains nothing, so the launches allowed are at least those the host code
makes (over-approximating them keeps a proof sound).
"""

from __future__ import annotations

import z3

from evolve.launchsite import Site
from interpreter.vocabulary import INT_BINARY
from simulee.prove.model import COMPARE, OPERATIONS


class _Unexpressed(Exception):
    """An expression the translation does not follow."""


def site_facts(sites: tuple[Site, ...], launch, slots: list) -> tuple[list, list[str]]:
    """One fact, that the launch is one of `sites`' (each a conjunction of what it fixes),
    and the assumption as the user reads it; `slots` are the kernel's parameters' symbolic
    values by position (None for what the model keeps no value of)."""
    if not sites:
        return [], []
    each = []
    for number, site in enumerate(sites):
        inputs = [z3.BitVec(f"site{number}.in{index}", max(value.bits, 1)) if value.kind == "integer" else None
                  for index, value in enumerate(site.inputs)]
        fixed = []
        for dims, expressions in ((launch.nctaid, site.grid), (launch.ntid, site.block)):
            fixed += [_equal(dim, expression, inputs) for dim, expression in zip(dims, expressions)]
        for slot, expression in zip(slots, site.args or ()):
            if slot is not None and z3.is_bv(slot):
                fixed.append(_equal(slot, expression, inputs))
        for condition in site.conditions:
            fixed.append(_holds(condition, inputs))
        each.append(z3.And([fact for fact in fixed if fact is not None]))
    places = ", ".join(site.label for site in sites[:3]) + (f" and {len(sites) - 3} more" if len(sites) > 3 else "")
    return [z3.Or(each)], [f"the kernel is launched as its launch sites launch it ({places})"]


def _equal(value, expression, inputs):
    try:
        return value == _term(expression, value.size(), inputs)
    except _Unexpressed:
        return None


def _holds(expression, inputs):
    try:
        return _term(expression, 1, inputs) != 0
    except _Unexpressed:
        return None


def _term(expression, width: int, inputs: list):
    """`expression` as a bit-vector of `width` bits."""
    kind = expression[0]
    if kind == "const":
        if not isinstance(expression[1], int):
            raise _Unexpressed
        return z3.BitVecVal(expression[1] & ((1 << width) - 1), width)
    if kind == "input":
        value = inputs[expression[1]]
        if value is None:
            raise _Unexpressed
        return _resized(value, width)
    bits = expression[1]
    if kind in INT_BINARY:
        a, b = (_term(e, bits, inputs) for e in expression[2:4])
        return _resized(OPERATIONS[kind](a, b), width)
    if kind in ("zext", "sext", "trunc", "freeze"):
        source = _term(expression[3], expression[2], inputs)
        if kind == "sext" and bits > source.size():
            return _resized(z3.SignExt(bits - source.size(), source), width)
        return _resized(_resized(source, bits), width)
    if kind == "icmp":
        a, b = (_term(e, bits, inputs) for e in expression[3:5])
        return _resized(z3.If(COMPARE[expression[2]](a, b), z3.BitVecVal(1, 1), z3.BitVecVal(0, 1)), width)
    if kind == "select":
        condition = _term(expression[2], 1, inputs) != 0
        return _resized(z3.If(condition, _term(expression[3], bits, inputs), _term(expression[4], bits, inputs)),
                        width)
    if kind in ("smin", "smax", "umin", "umax"):
        a, b = (_term(e, bits, inputs) for e in expression[2:4])
        less = a < b if kind[0] == "s" else z3.ULT(a, b)
        return _resized(z3.If(less, a, b) if kind.endswith("min") else z3.If(less, b, a), width)
    raise _Unexpressed


def _resized(value, width: int):
    """`value` truncated or zero-extended to `width` bits (as the evaluator masks it)."""
    if value.size() > width:
        return z3.Extract(width - 1, 0, value)
    if value.size() < width:
        return z3.ZeroExt(width - value.size(), value)
    return value
