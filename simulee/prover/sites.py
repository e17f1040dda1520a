"""The launches the host code makes (and a simulee.toml's relations), as constraints on the
symbolic launch.

A launch site (evolve.launchsite.Site) gives the grid, the block, each argument and the
conditions the host tests on the way to the launch as expressions over values the host
code does not fix (its inputs). Each becomes a bit-vector term over fresh variables (one
per input of each site); an expression the solver cannot follow (floating point, a pitch,
a bit count) constrains nothing, so the launches allowed are at least those the host code
makes (over-approximating them keeps a proof sound).
"""

from __future__ import annotations

import ast

import z3

from evolve.launchsite import Site, kernel_arguments
from evolve.space import aliased_pointers
from interpreter.vocabulary import INT_BINARY
from simulee.prover.model import COMPARE, OPERATIONS


class _Unexpressed(Exception):
    """An expression the translation does not follow."""


def site_facts(sites: tuple[Site, ...], launch, params, values: dict) -> tuple[list, list[str]]:
    """One fact, that the launch is one of `sites`' (each a conjunction of what it fixes),
    and the assumption as the user reads it. `params` are the kernel's (ParamInfo), `values`
    their symbolic values by name, and "param.member" of a struct passed by value (what
    the model keeps no value of is left out)."""
    if not sites:
        return [], []
    each = []
    for number, site in enumerate(sites):
        inputs = [z3.BitVec(f"site{number}.in{index}", max(value.bits, 1)) if value.kind == "integer" else None
                  for index, value in enumerate(site.inputs)]
        fixed = []
        for dims, expressions in ((launch.nctaid, site.grid), (launch.ntid, site.block)):
            fixed += [_equal(dim, expression, inputs) for dim, expression in zip(dims, expressions)]
        for name, expression in (kernel_arguments(params, site) or {}).items():
            value = values.get(name)
            if value is not None and z3.is_bv(value):
                fixed.append(_equal(value, expression, inputs))
        for condition in site.conditions:
            fixed.append(_holds(condition, inputs))
        each.append(z3.And([fact for fact in fixed if fact is not None]))
    places = ", ".join(site.label for site in sites[:3]) + (f" and {len(sites) - 3} more" if len(sites) > 3 else "")
    return [z3.Or(each)], [f"the kernel is launched as its launch sites launch it ({places})"]


def one_buffer(sites: tuple[Site, ...], info) -> list[tuple[str, str, str]]:
    """(pointer, earlier pointer, the site's label) for each pointer parameter a launch site
    passes the same buffer as an earlier one (an in-place call)."""
    return [(name, target, site.label) for site in sites
            for name, target in aliased_pointers(info, kernel_arguments(info.params, site) or {})]


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


# ---------------------------------------------------------------------------- simulee.toml relations

RELATION_BITS = 256  # a relation's arithmetic, wide enough that its few products do not wrap (Python's is exact)


def relation_facts(relations: tuple, launch, params: dict, signed: dict) -> tuple[list, list[str]]:
    """A fact for each of a simulee.toml's `relations` (simulee.checker.config.Expression) the
    translation follows, and the assumptions as the user reads them. Names are the
    kernel's integer parameters (`params`: name -> symbolic value, `signed`: name -> how
    its bits read), `blockDim.x` ... and `gridDim.x` ...; the arithmetic is Python's, on
    integers exact in RELATION_BITS bits. A relation with anything else (true division, a
    float, a power, another name) constrains nothing: the launches allowed are at least
    those the relation allows, and a proof over them holds for those."""
    names = {f"{what}.{axis}": z3.ZeroExt(RELATION_BITS - 32, dim) for what, dims in
             (("blockDim", launch.ntid), ("gridDim", launch.nctaid)) for axis, dim in zip("xyz", dims)}
    for name, value in params.items():
        if value is not None and z3.is_bv(value) and value.size() <= 64:
            extend = z3.SignExt if signed.get(name, True) else z3.ZeroExt
            names[name] = extend(RELATION_BITS - value.size(), value)
    facts, stated = [], []
    for relation in relations:
        try:
            fact = _truth(_relation_term(relation.tree.body, names))
        except _Unexpressed:
            continue
        facts.append(fact)
        stated.append(f"{relation.text} (simulee.toml)")
    return facts, stated


def _relation_term(node, names: dict):
    """The z3 term of a relation's syntax tree node (ast), Python's integer semantics."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return z3.BitVecVal(node.value, RELATION_BITS)
    if isinstance(node, (ast.Name, ast.Attribute)):
        name = node.id if isinstance(node, ast.Name) else f"{getattr(node.value, 'id', '')}.{node.attr}"
        if name not in names:
            raise _Unexpressed(name)
        return names[name]
    if isinstance(node, ast.UnaryOp):
        operand = _relation_term(node.operand, names)
        if isinstance(node.op, ast.USub) and z3.is_bv(operand):
            return -operand
        if isinstance(node.op, ast.Not):
            return z3.Not(_truth(operand))
        raise _Unexpressed("unary")
    if isinstance(node, ast.BoolOp):
        terms = [_truth(_relation_term(value, names)) for value in node.values]
        return z3.And(terms) if isinstance(node.op, ast.And) else z3.Or(terms)
    if isinstance(node, ast.Compare):
        terms = [_relation_term(node.left, names)] + [_relation_term(c, names) for c in node.comparators]
        compare = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "slt", ast.LtE: "sle", ast.Gt: "sgt", ast.GtE: "sge"}
        if any(type(op) not in compare for op in node.ops):
            raise _Unexpressed("comparison")
        return z3.And([COMPARE[compare[type(op)]](_number(a), _number(b))
                       for op, a, b in zip(node.ops, terms, terms[1:])])
    if isinstance(node, ast.BinOp):
        a, b = _number(_relation_term(node.left, names)), _number(_relation_term(node.right, names))
        if isinstance(node.op, ast.Mod):  # z3's % on bit-vectors is bvsmod: Python's, the divisor's sign
            return a % b
        if isinstance(node.op, ast.FloorDiv):
            return (a - a % b) / b
        if type(node.op) not in _RELATION_OPERATIONS:
            raise _Unexpressed("operation")
        return OPERATIONS[_RELATION_OPERATIONS[type(node.op)]](a, b)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        args = [_number(_relation_term(a, names)) for a in node.args]
        if node.func.id == "power_of_two" and len(args) == 1:
            return z3.And(args[0] > 0, args[0] & (args[0] - 1) == 0)
        if node.func.id in ("min", "max") and len(args) == 2:
            return z3.If(args[0] < args[1], *args) if node.func.id == "min" else z3.If(args[0] > args[1], *args)
        if node.func.id == "abs" and len(args) == 1:
            return z3.If(args[0] < 0, -args[0], args[0])
    raise _Unexpressed(type(node).__name__)


_RELATION_OPERATIONS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.BitAnd: "and", ast.BitOr: "or",
                        ast.BitXor: "xor"}  # exact on the relation's wide terms, as Python's


def _number(term):
    """A relation's value as a number: a truth is 1 or 0, as in Python."""
    if z3.is_bool(term):
        return z3.If(term, z3.BitVecVal(1, RELATION_BITS), z3.BitVecVal(0, RELATION_BITS))
    return term


def _truth(term) -> z3.BoolRef:
    return term if z3.is_bool(term) else term != 0
