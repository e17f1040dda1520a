"""A launch site as the search uses it: where the host code launches a kernel, each
dimension, the dynamic shared memory and each argument as an expression over the host
values the code does not fix (its *inputs*), and how to evaluate them. simulee.checker.sites reads
sites from host code.

An expression is a JSON-ready nested list: ["const", v], ["input", i], or
[opcode, bits, operand, ...]: LLVM's integer and float operations (`bits` the result's
width), casts [cast, bits, source bits, operand], ["icmp", bits, predicate, a, b],
["select", bits, condition, a, b], s/u min/max, bit counts, float rounding
(ceil, floor, trunc, round, rint, fabs, sqrt), ["pitch", 64, width]: the pitch
cudaMallocPitch gives for a row of `width` bytes, and ["first", bits, test, value, ...]: a
host loop's exit value, the first of the values its counter takes that `test` (reading it
as ["counter"]) accepts."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path

from interpreter.vocabulary import FLOAT_BINARY, INT_BINARY

PITCH_ALIGNMENT = 512  # bytes: the pitch cudaMallocPitch gives on current GPUs is a multiple of this
FLOAT_OPS = FLOAT_BINARY - {"frem"}  # what a launch-site expression may compute
CASTS = {  # the conversions it may apply
    "zext", "sext", "trunc", "sitofp", "uitofp", "fptosi", "fptoui", "fpext", "fptrunc", "freeze"}


@dataclass(frozen=True)
class Input:
    """A value the host code does not fix: `kind` is integer, float or pointer; `what`
    says where it comes from (a parameter of a host function, a load, a call)."""

    kind: str
    bits: int
    what: str
    parameter: tuple = ()  # (host function, parameter index, "", "x" or "y" of a packed dim3) when it is one
    unread: tuple[str, ...] = ()  # a parameter's: the files whose calls pass it, which Simulee could not read
    choices: tuple = ()  # an element of a constant table the host indexes (a loop over block_sizes[]): its values
    start: int | None = None  # what a loop that carries it starts it at (`while (n > 1) n = reduce(n)`): its first
    # launch's; or the parameter (host function, index) it starts at, whose value a caller passes (through)
    entered: tuple = ()

    def to_json(self) -> list:
        optional = [list(self.parameter), list(self.unread), list(self.choices), self.start, list(self.entered)]
        while optional and optional[-1] in ([], None):
            optional.pop()
        return [self.kind, self.bits, self.what, *optional]

    @classmethod
    def from_json(cls, data: list) -> "Input":
        return cls(data[0], data[1], data[2], *(tuple(data[i]) if len(data) > i else () for i in (3, 4, 5)),
                   data[6] if len(data) > 6 else None, tuple(data[7]) if len(data) > 7 else ())


@dataclass(frozen=True)
class Site:
    """One launch of `kernel` (its mangled symbol) at `file`:`line`. `grid` and `block`
    hold an expression per axis, `shared` the dynamic shared memory in bytes, `args` one
    expression per kernel parameter (None when the host code's arguments could not be
    matched to the kernel's parameters), all over `inputs`; `conditions` hold whenever the
    host code makes the launch (`if (Bl.x == 32)` around it)."""

    kernel: str
    file: str
    line: int
    grid: tuple
    block: tuple
    shared: list
    args: tuple | None
    inputs: tuple[Input, ...] = ()
    cooperative: bool = False
    conditions: tuple = ()  # what the host code tests on every path to the launch: expressions that are 1
    callers: tuple[str, ...] = ()  # file:line of the calls that reach the launch's function, outermost first
    sizes: tuple | None = None  # per argument, the bytes the host allocates for what it points to (or None)

    @property
    def label(self) -> str:
        return " -> ".join((*self.callers, f"{Path(self.file).name}:{self.line}"))

    def to_json(self) -> dict:
        return {"kernel": self.kernel, "file": self.file, "line": self.line, "grid": list(self.grid),
                "block": list(self.block), "shared": self.shared,
                "args": None if self.args is None else list(self.args),
                "inputs": [i.to_json() for i in self.inputs], "cooperative": self.cooperative,
                "conditions": list(self.conditions), "callers": list(self.callers),
                "sizes": None if self.sizes is None else list(self.sizes)}

    @classmethod
    def from_json(cls, data: dict) -> "Site":
        return cls(data["kernel"], data["file"], data["line"], tuple(data["grid"]), tuple(data["block"]),
                   data["shared"], None if data["args"] is None else tuple(data["args"]),
                   tuple(Input.from_json(i) for i in data["inputs"]), data.get("cooperative", False),
                   tuple(data.get("conditions", ())), tuple(data.get("callers", ())),
                   None if data.get("sizes") is None else tuple(data["sizes"]))

    def written(self) -> tuple[list[str], list[str]] | None:
        """What the source says at the launch: the `<<<...>>>` configuration's and the
        call's arguments as written (`(n + 63) / 64`, `net->hidden_n`); None when the
        file has no `<<<` launch from the site's line on (cudaLaunchKernel, a macro)."""
        try:
            lines = Path(self.file).read_text(errors="replace").splitlines()
        except OSError:
            return None
        text = "\n".join(lines[self.line - 1:self.line + 20])
        start = text.find("<<<")
        end = text.find(">>>", start)
        if start < 0 or end < 0 or not text[end + 3:].lstrip().startswith("("):
            return None
        call = text[end + 3:].lstrip()
        return arguments_written(text[start + 3:end]), arguments_written(call[1:], ")")

    def open_functions(self) -> set[str]:
        """The host functions whose parameters the launch reads: a caller of one fixes them."""
        return {i.parameter[0] for i in self.inputs if i.parameter}

    def unread_by(self, unread: dict[str, tuple[str, ...]]) -> "Site":
        """The site with each parameter of a function in `unread` (function -> the files
        whose host code calls it but could not be read) marked with those files."""
        inputs = tuple(replace(i, unread=unread[i.parameter[0]]) if i.parameter and i.parameter[0] in unread else i
                       for i in self.inputs)
        return replace(self, inputs=inputs)

    def unread_axes(self) -> dict[str, tuple[str, ...]]:
        """The dimensions (gridDim.x, blockDim.y, ...) that callers Simulee could not read
        pass as they are (a wrapper's `dim3 Gr, dim3 Bl` launched as `<<<Gr, Bl>>>`), each
        with those callers' files."""
        return {f"{what}.{axis}": self.inputs[e[1]].unread
                for what, dims in (("gridDim", self.grid), ("blockDim", self.block))
                for axis, e in zip("xyz", dims) if e[0] == "input" and self.inputs[e[1]].unread}

    def key(self) -> str:
        """Its shape and the calls that reach it: two sites with one key are one launch
        (a launcher in a header two files include)."""
        return self.shape() + repr(self.callers)

    def shape(self) -> str:
        """What tells two sites apart, other than where they are (the same launch in a
        function and inlined into its caller is one site)."""
        return repr((self.kernel, self.file, self.line, self.grid, self.block, self.shared, self.args,
                     tuple((i.kind, i.bits) for i in self.inputs), self.conditions, self.sizes))


def arguments_written(text: str, closing: str = "") -> list[str]:
    """The comma-separated expressions of `text` at bracket depth 0, up to the
    unmatched `closing` bracket (or the end), each stripped and on one line."""
    parts, depth, current = [], 0, []
    for char in text:
        if depth == 0 and char == closing:
            break
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        if depth == 0 and char == ",":
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return [" ".join(part.split()) for part in parts]


@dataclass(frozen=True)
class Call:
    """A call of the host function `callee` (its symbol) at `file`:`line`: each argument
    (in the callee's LLVM parameters) an expression over `inputs`, under `conditions`."""

    callee: str
    file: str
    line: int
    args: tuple
    inputs: tuple[Input, ...] = ()
    conditions: tuple = ()

    @property
    def label(self) -> str:
        return f"{Path(self.file).name}:{self.line}"

    def to_json(self) -> dict:
        return {"callee": self.callee, "file": self.file, "line": self.line, "args": list(self.args),
                "inputs": [i.to_json() for i in self.inputs], "conditions": list(self.conditions)}

    @classmethod
    def from_json(cls, data: dict) -> "Call":
        return cls(data["callee"], data["file"], data["line"], tuple(data["args"]),
                   tuple(Input.from_json(i) for i in data["inputs"]), tuple(data.get("conditions", ())))


# ---------------------------------------------------------------------------- evaluating


class Unknown(Exception):
    """An expression with no value for these inputs (a division by zero, say)."""


def evaluate(expression: list, inputs: list):
    """The value of `expression` when input i is inputs[i] (integers as unsigned values of
    their width, floats as Python floats). Raises Unknown when it has none."""
    kind = expression[0]
    if kind == "const":
        return expression[1]
    if kind == "input":
        return inputs[expression[1]]
    if kind == "counter":
        raise Unknown("a loop's counter outside its loop")
    if kind == "first":  # a host loop's exit value: the first of its values its exit test accepts
        for value in expression[3:]:
            if evaluate(_counted(expression[2], value), inputs) & 1:
                return value[1]
        raise Unknown("the host's loop would not end")
    bits = expression[1]
    mask = (1 << bits) - 1
    if kind in INT_BINARY:
        a, b = (int(evaluate(e, inputs)) & mask for e in expression[2:4])
        return _integer(kind, a, b, bits) & mask
    if kind in FLOAT_OPS:
        a, b = (float(evaluate(e, inputs)) for e in expression[2:4])
        if kind == "fdiv" and b == 0:
            raise Unknown("division by zero")
        return {"fadd": a + b, "fsub": a - b, "fmul": a * b, "fdiv": a / b if b else 0.0}[kind]
    if kind in CASTS:
        return _cast(kind, bits, expression[2], evaluate(expression[3], inputs))
    if kind == "icmp":
        a, b = (int(evaluate(e, inputs)) & mask for e in expression[3:5])
        predicate = expression[2]
        if predicate.startswith("s"):
            a, b = _signed(a, bits), _signed(b, bits)
        return int({"eq": a == b, "ne": a != b}.get(predicate, None) if predicate in ("eq", "ne") else
                   {"gt": a > b, "ge": a >= b, "lt": a < b, "le": a <= b}[predicate[1:]])
    if kind == "select":
        return evaluate(expression[3] if evaluate(expression[2], inputs) & 1 else expression[4], inputs)
    if kind in ("smin", "smax", "umin", "umax"):
        a, b = (int(evaluate(e, inputs)) & mask for e in expression[2:4])
        if kind[0] == "s":
            a, b = _signed(a, bits), _signed(b, bits)
        return (min(a, b) if kind.endswith("min") else max(a, b)) & mask
    if kind == "pitch":
        width = int(evaluate(expression[2], inputs)) & mask
        return max(1, math.ceil(width / PITCH_ALIGNMENT)) * PITCH_ALIGNMENT
    if kind in BIT_COUNTS:
        value = int(evaluate(expression[2], inputs)) & mask
        return BIT_COUNTS[kind](value, bits) & mask
    if kind in ROUNDING:
        value = float(evaluate(expression[2], inputs))
        if not math.isfinite(value) or kind == "sqrt" and value < 0:
            raise Unknown(f"no {kind} of {value}")
        return float(ROUNDING[kind](value))
    raise Unknown(f"no value for {kind}")


def _counted(expression: list, value: list) -> list:
    """`expression` with a loop's ["counter"] replaced by `value`."""
    if expression[0] == "counter":
        return value
    return [_counted(e, value) if isinstance(e, list) else e for e in expression]


BIT_COUNTS = {  # llvm.ctpop, ctlz, cttz, abs of an integer of `bits` (given unsigned)
    "ctpop": lambda value, bits: bin(value).count("1"),
    "ctlz": lambda value, bits: bits - value.bit_length(),
    "cttz": lambda value, bits: (value & -value).bit_length() - 1 if value else bits,
    "abs": lambda value, bits: abs(_signed(value, bits)),
}


ROUNDING = {  # llvm.ceil, floor, ... of a float (half-way cases: round away from zero, rint to even)
    "ceil": math.ceil, "floor": math.floor, "trunc": math.trunc, "fabs": abs, "sqrt": math.sqrt,
    "round": lambda v: math.copysign(math.floor(abs(v) + 0.5), v), "rint": round, "nearbyint": round,
}


def _integer(op: str, a: int, b: int, bits: int) -> int:
    if op in ("udiv", "sdiv", "urem", "srem") and b == 0:
        raise Unknown("division by zero")
    if op in ("sdiv", "srem"):
        sa, sb = _signed(a, bits), _signed(b, bits)
        quotient = abs(sa) // abs(sb) * (1 if (sa < 0) == (sb < 0) else -1)
        return quotient if op == "sdiv" else sa - quotient * sb
    if op in ("shl", "lshr", "ashr") and b >= bits:
        raise Unknown("shift past the width")
    return {"add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b, "udiv": lambda: a // b,
            "urem": lambda: a % b, "shl": lambda: a << b, "lshr": lambda: a >> b,
            "ashr": lambda: _signed(a, bits) >> b, "and": lambda: a & b, "or": lambda: a | b,
            "xor": lambda: a ^ b}[op]()


def _cast(kind: str, bits: int, source_bits: int, value):
    if kind == "freeze" or kind in ("fpext", "fptrunc"):
        return value
    if kind in ("sitofp", "uitofp"):
        value = int(value) & ((1 << source_bits) - 1)
        return float(_signed(value, source_bits) if kind == "sitofp" else value)
    if kind in ("fptosi", "fptoui"):
        if not math.isfinite(value):
            raise Unknown("not a finite number")
        return int(value) & ((1 << bits) - 1)
    value = int(value) & ((1 << source_bits) - 1)
    if kind == "sext":
        value = _signed(value, source_bits)
    return value & ((1 << bits) - 1)


def _signed(value: int, bits: int) -> int:
    return value - (1 << bits) if value >> (bits - 1) & 1 else value


def input_bounds(condition: list) -> tuple[int, int | None, int | None] | None:
    """(input, lowest, highest) when `condition` bounds a bare input by a constant
    (`n <= 4096`, `Bl.x == 32`, and their negations), else None. Bounds are of the
    input read as its comparison's signedness."""
    negated = False
    while condition[0] == "xor" and condition[3] == ["const", 1]:
        condition, negated = condition[2], not negated
    if condition[0] != "icmp":
        return None
    predicate, a, b = condition[2], condition[3], condition[4]
    if a[0] == "const" and b[0] == "input":
        a, b = b, a
        predicate = _SWAPPED.get(predicate, predicate)
    if a[0] != "input" or b[0] != "const":
        return None
    if negated:
        predicate = _NEGATED[predicate]
    value = _signed(int(b[1]) & ((1 << condition[1]) - 1), condition[1]) if predicate[0] == "s" else int(b[1])
    return {"eq": (a[1], value, value), "ne": None, "sgt": (a[1], value + 1, None), "ugt": (a[1], value + 1, None),
            "sge": (a[1], value, None), "uge": (a[1], value, None), "slt": (a[1], None, value - 1),
            "ult": (a[1], None, value - 1), "sle": (a[1], None, value), "ule": (a[1], None, value)}[predicate]


_SWAPPED = {"sgt": "slt", "slt": "sgt", "sge": "sle", "sle": "sge", "ugt": "ult", "ult": "ugt", "uge": "ule",
            "ule": "uge"}
_NEGATED = {"eq": "ne", "ne": "eq", "sgt": "sle", "sle": "sgt", "sge": "slt", "slt": "sge", "ugt": "ule",
            "ule": "ugt", "uge": "ult", "ult": "uge"}


def packed_inputs(site: Site, arguments: dict[str, list]) -> frozenset[int]:
    """The 64-bit inputs a site, or the kernel `arguments` it passes (kernel_arguments),
    read the upper half of (`lshr 32`): two 32-bit values packed in one, as the x86-64
    ABI passes a struct of two ints (kaldi's MatrixDim rows and cols) by value."""
    found: set[int] = set()

    def visit(expression) -> None:
        if not isinstance(expression, list) or expression[0] in ("const", "input"):
            return
        if expression[:2] == ["lshr", 64] and expression[2][0] == "input" and expression[3] == ["const", 32]:
            found.add(expression[2][1])
        for operand in expression[2:]:
            visit(operand)

    for expression in (*site.grid, *site.block, site.shared, *(site.args or ()), *site.conditions,
                       *arguments.values()):
        visit(expression)
    return frozenset(found)


def inputs_of(expression: list) -> set[int]:
    """The inputs an expression reads."""
    if expression[0] == "input":
        return {expression[1]}
    if expression[0] == "const":
        return set()
    return set().union(*(inputs_of(e) for e in expression[2:] if isinstance(e, list)))


# ---------------------------------------------------------------------------- kernel arguments


def host_pieces(param) -> int | None:
    """How many host arguments the x86-64 ABI passes a kernel parameter in: one for a
    scalar or pointer, a struct of up to 16 bytes in eightbytes, a larger one by address;
    none for an empty class (a tag, std::bool_constant), which the ABI ignores; None for
    what this does not know."""
    if param.kind in ("pointer", "integer", "float"):
        return 1
    if param.kind == "struct" and param.size == 1 and not param.fields:
        return 0
    if param.kind == "struct" and param.size:
        return -(-param.size // 8) if param.size <= 16 else 1
    return None


def argument_sizes(params, site: Site) -> dict[str, list]:
    """The bytes the host allocates for what each pointer parameter points to, where the
    site knows (Site.sizes), by parameter name."""
    pieces = [host_pieces(p) for p in params]
    if site.sizes is None or None in pieces or sum(pieces) != len(site.sizes):
        return {}
    starts = [sum(pieces[:i]) for i in range(len(params))]
    return {param.name: site.sizes[start] for param, start in zip(params, starts)
            if param.kind == "pointer" and site.sizes[start] is not None}


def kernel_arguments(params, site: Site) -> dict[str, list] | None:
    """The expression of each kernel parameter a site passes (scalars and pointers by
    name, members of small structs as "param.member" when their eightbyte is computed, or
    passed through from an input the site also computes a dimension or the shared size
    from: `<<<(d.cols + 31) / 32, 32>>>(d)` ties d.cols to the grid); None when the
    site's arguments do not match the parameters."""
    pieces = [host_pieces(p) for p in params]
    if site.args is None or None in pieces or sum(pieces) != len(site.args):
        return None
    tied = set().union(*(inputs_of(e) for e in (*site.grid, *site.block, site.shared)))
    values, index = {}, 0
    for param, count in zip(params, pieces):
        given = site.args[index:index + count]
        index += count
        if param.kind != "struct":
            values[param.name] = given[0]
        elif param.size <= 16:
            for member in param.fields:
                piece = given[member.offset // 8]
                if member.kind == "integer" and (piece[0] != "input" or piece[1] in tied) and member.bits:
                    shift = ["lshr", 64, piece, ["const", member.offset % 8 * 8]]
                    values[member.name] = ["trunc", member.bits, 64, shift]
    return values
