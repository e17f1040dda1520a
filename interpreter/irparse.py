"""Read the textual LLVM IR that LLVM itself prints into syntax objects.

The text is LLVM's canonical form (llvmlite parsed, verified and printed it), so one
instruction is one line (a `switch` spans lines up to its closing bracket) and every
operand is spelled the same way each time. Metadata nodes are indexed by number and parsed
only when asked for. An instruction this parser cannot read becomes an `unsupported`
instruction carrying its text, so the interpreter reports it instead of the decoder failing.
"""

from __future__ import annotations

import functools
import math
import re
import struct
from dataclasses import dataclass, field

from interpreter.types import (
    FLOAT_BITS,
    I1,
    LABEL,
    VOID,
    ArrayType,
    DataLayout,
    FloatType,
    FunctionType,
    IntType,
    MetadataType,
    OpaqueStructType,
    PointerType,
    StructType,
    TokenType,
    Type,
    VectorType,
)
from interpreter.vocabulary import CAST_OPCODES, FLOAT_BINARY, INT_BINARY, Unsupported


class IRSyntaxError(ValueError):
    """Text that is not LLVM IR this parser understands."""


# ---------------------------------------------------------------------------- values


@dataclass(frozen=True)
class Local:
    """An SSA value or argument of the enclosing function: %name."""

    name: str
    type: Type


@dataclass(frozen=True)
class Global:
    """The address of a global variable or function: @name."""

    name: str
    type: Type


@dataclass(frozen=True)
class ConstInt:
    type: Type
    value: int


@dataclass(frozen=True)
class ConstFloat:
    type: Type
    value: float


@dataclass(frozen=True)
class ConstSpecial:
    """null, undef, poison or zeroinitializer of a type."""

    type: Type
    kind: str


@dataclass(frozen=True)
class ConstAggregate:
    """An array, struct or vector constant, element by element."""

    type: Type
    elements: tuple


@dataclass(frozen=True)
class ConstBytes:
    """A c"..." array of i8."""

    type: Type
    data: bytes


@dataclass(frozen=True)
class ConstSplat:
    """A vector whose elements all equal `element`."""

    type: Type
    element: object


@dataclass(frozen=True)
class ConstExpr:
    """A constant expression: a cast, getelementptr, or integer operation of constants.
    `source_type` is the getelementptr source element type; `flags` its keywords."""

    opcode: str
    type: Type
    operands: tuple
    source_type: Type | None = None
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Opaque:
    """An operand this parser keeps as text: metadata arguments, inline asm, blockaddress."""

    type: Type
    text: str


Value = (Local | Global | ConstInt | ConstFloat | ConstSpecial | ConstAggregate | ConstBytes | ConstSplat | ConstExpr
         | Opaque)


# ---------------------------------------------------------------------------- syntax


@dataclass
class Instruction:
    """One instruction: `opcode`, the SSA name it defines (or None), its result type, its
    value operands, opcode-specific details in `extra`, the metadata number of its !dbg
    location (or None) and its source text."""

    opcode: str
    result: str | None
    type: Type
    operands: tuple
    extra: dict = field(default_factory=dict)
    dbg: int | None = None
    text: str = ""


@dataclass
class Block:
    name: str
    instructions: list[Instruction]


@dataclass
class Param:
    name: str | None
    type: Type
    attributes: tuple = ()

    def typed_attribute(self, name: str) -> Type | None:
        """The type of attribute `name` (byval, sret, ...) when present."""
        return next((a[1] for a in self.attributes if isinstance(a, tuple) and a[0] == name), None)


@dataclass(eq=False)
class Function:
    """A function; its body's lines are parsed into blocks when first read (a check reads
    the few functions its kernel calls of a module that may define hundreds)."""

    name: str
    result: Type
    params: list[Param]
    vararg: bool
    calling_convention: str | None
    linkage: str | None
    attribute_groups: tuple[int, ...]
    attributes: tuple[str, ...]
    dbg: int | None
    body: list[str] | None = field(repr=False)  # None for a declaration
    types: "NamedTypes | None" = field(default=None, repr=False)

    @functools.cached_property
    def blocks(self) -> list[Block] | None:
        """The body's blocks, None for a declaration."""
        return None if self.body is None else _parse_body(self.body, self.types, self.params)

    @property
    def is_declaration(self) -> bool:
        return self.body is None


@dataclass
class GlobalVariable:
    name: str
    type: Type
    addrspace: int
    constant: bool
    linkage: str | None
    initializer: Value | None  # None when defined elsewhere (external)
    align: int | None
    dbg: tuple[int, ...] = ()


@dataclass
class Module:
    source_filename: str
    datalayout: DataLayout
    triple: str
    globals: dict[str, GlobalVariable]
    functions: dict[str, Function]
    named_metadata: dict[str, tuple[int, ...]]
    metadata: "MetadataIndex"
    attribute_groups: dict[int, tuple[str, ...]]


# ---------------------------------------------------------------------------- tokens

_TOKEN = re.compile(
    r"""
    (?P<ws>\s+)
  | (?P<comment>;.*)
  | (?P<dbgrecord>\#dbg_\w+)
  | (?P<attrgroup>\#\d+)
  | (?P<local>%(?:[-a-zA-Z$._0-9]+|"[^"]*"))
  | (?P<global>@(?:[-a-zA-Z$._0-9]+|"[^"]*"))
  | (?P<meta>!(?:[-a-zA-Z$._0-9]+|"[^"]*")?)
  | (?P<comdat>\$(?:[-a-zA-Z$._0-9]+|"[^"]*"))
  | (?P<cstring>c"[^"]*")
  | (?P<string>"[^"]*")
  | (?P<hex>[su]?0x[KLMHR]?[0-9A-Fa-f]+)
  | (?P<float>[-+]?\d+\.\d*(?:[eE][-+]?\d+)?)
  | (?P<int>[-+]?\d+)
  | (?P<word>[a-zA-Z_][a-zA-Z0-9_.]*)
  | (?P<punct>\.\.\.|[=,()\[\]{}<>*:|])
    """,
    re.VERBOSE,
)
_LABEL_LINE = re.compile(r'^\s*([-a-zA-Z$._0-9]+|"[^"]*"):')

EOF = ("eof", "")


def tokenize(text: str) -> list[tuple[str, str]]:
    """(kind, text) pairs of a line of IR, without spaces and comments."""
    tokens, position = [], 0
    for match in _TOKEN.finditer(text):
        if match.start() != position:
            raise IRSyntaxError(f"unexpected character {text[position]!r} in: {text.strip()}")
        position = match.end()
        kind = match.lastgroup
        if kind not in ("ws", "comment"):
            tokens.append((kind, match.group()))
    if position != len(text):
        raise IRSyntaxError(f"unexpected character {text[position]!r} in: {text.strip()}")
    return tokens


def unquote(name: str) -> str:
    """A %name or @name without its sigil; quoted names have their \\XX escapes decoded."""
    body = name[1:]
    if body.startswith('"'):
        return decode_string(body)
    return body


def decode_string(literal: str) -> str:
    """The text of "..." (or c"...") with LLVM's \\XX byte escapes decoded."""
    return decode_bytes(literal).decode("utf-8", "replace")


def decode_bytes(literal: str) -> bytes:
    body = literal[literal.index('"') + 1 : -1]
    out, i = bytearray(), 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 2 < len(body) + 1 and re.fullmatch(r"[0-9A-Fa-f]{2}", body[i + 1 : i + 3]):
            out.append(int(body[i + 1 : i + 3], 16))
            i += 3
        elif char == "\\" and body[i + 1 : i + 2] == "\\":
            out.append(0x5C)
            i += 2
        else:
            out += char.encode()
            i += 1
    return bytes(out)


# ---------------------------------------------------------------------------- keywords

LINKAGES = {
    "private", "internal", "available_externally", "linkonce", "weak", "common", "appending",
    "extern_weak", "linkonce_odr", "weak_odr", "external",
}
DEFINITION_PREFIX = LINKAGES | {
    "dso_local", "dso_preemptable", "default", "hidden", "protected", "dllimport", "dllexport",
    "unnamed_addr", "local_unnamed_addr", "externally_initialized", "thread_local",
    "ccc", "fastcc", "coldcc", "ptx_kernel", "ptx_device", "cc", "tail", "musttail", "notail",
}
CALLING_CONVENTIONS = {"ccc", "fastcc", "coldcc", "ptx_kernel", "ptx_device"}
FAST_MATH = {"fast", "nnan", "ninf", "nsz", "arcp", "contract", "afn", "reassoc"}
INT_FLAGS = {"nuw", "nsw", "exact", "disjoint", "nneg", "samesign"}
GEP_FLAGS = {"inbounds", "nuw", "nusw"}
ORDERINGS = {"unordered", "monotonic", "acquire", "release", "acq_rel", "seq_cst"}
CONSTANT_WORDS = {"true", "false", "null", "undef", "poison", "zeroinitializer", "none", "splat"}
CONSTEXPR_WORDS = CAST_OPCODES | INT_BINARY | {
    "getelementptr", "extractelement", "insertelement", "shufflevector", "icmp", "fcmp", "select",
    "blockaddress", "dso_local_equivalent", "no_cfi", "ptrauth",
}
VALUE_WORDS = CONSTANT_WORDS | CONSTEXPR_WORDS
TYPED_ATTRIBUTES = {"byval", "byref", "sret", "inalloca", "preallocated", "elementtype"}


# ---------------------------------------------------------------------------- parser


class Parser:
    """Recursive descent over the tokens of one line (or one switch statement)."""

    def __init__(self, tokens: list[tuple[str, str]], types: "NamedTypes"):
        self.tokens = tokens
        self.i = 0
        self.types = types

    # -- cursor

    def peek(self, ahead: int = 0) -> tuple[str, str]:
        index = self.i + ahead
        return self.tokens[index] if index < len(self.tokens) else EOF

    def next(self) -> tuple[str, str]:
        token = self.peek()
        self.i += 1
        return token

    def at(self, text: str) -> bool:
        return self.peek()[1] == text

    def accept(self, text: str) -> bool:
        if self.at(text):
            self.i += 1
            return True
        return False

    def expect(self, text: str) -> None:
        kind, found = self.next()
        if found != text:
            raise IRSyntaxError(f"expected {text!r}, found {found!r}")

    def words(self, allowed: set[str]) -> list[str]:
        """Consume a run of keywords from `allowed`."""
        found = []
        while self.peek()[0] == "word" and self.peek()[1] in allowed:
            found.append(self.next()[1])
        return found

    def integer(self) -> int:
        kind, text = self.next()
        if kind != "int":
            raise IRSyntaxError(f"expected an integer, found {text!r}")
        return int(text)

    def skip_balanced(self) -> str:
        """Consume one parenthesized/bracketed group (or one token) and return its text."""
        start = self.i
        depth = 0
        while True:
            kind, text = self.next()
            if kind == "eof":
                break
            if text in "([{<" and kind == "punct":
                depth += 1
            elif text in ")]}>" and kind == "punct":
                depth -= 1
            if depth <= 0:
                break
        return " ".join(t for _, t in self.tokens[start : self.i])

    # -- types

    def type(self) -> Type:
        kind, text = self.next()
        if kind == "word":
            if text == "void":
                return VOID
            if text[0] == "i" and text[1:].isdigit():
                return IntType(int(text[1:]))
            if text in FLOAT_BITS:
                return FloatType(text)
            if text == "ptr":
                if self.accept("addrspace"):
                    self.expect("(")
                    space = self.integer()
                    self.expect(")")
                    return PointerType(space)
                return PointerType(0)
            if text == "label":
                return LABEL
            if text == "metadata":
                return MetadataType()
            if text == "token":
                return TokenType()
            if text == "target":
                return OpaqueStructType("target" + self.skip_balanced())
        elif kind == "local":
            return self.types.get(text)
        elif text == "[":
            count = self.integer()
            self.expect("x")
            element = self.type()
            self.expect("]")
            return ArrayType(count, element)
        elif text == "<":
            if self.accept("{"):
                fields = self.type_list("}")
                self.expect(">")
                return StructType(tuple(fields), packed=True)
            if self.accept("vscale"):
                raise IRSyntaxError("scalable vectors are not supported")
            count = self.integer()
            self.expect("x")
            element = self.type()
            self.expect(">")
            return VectorType(count, element)
        elif text == "{":
            return StructType(tuple(self.type_list("}")))
        raise IRSyntaxError(f"expected a type, found {text!r}")

    def type_list(self, close: str) -> list[Type]:
        types = []
        while not self.accept(close):
            types.append(self.type())
            self.accept(",")
        return types

    # -- values

    def typed_value(self) -> Value:
        ty = self.type()
        self.parameter_attributes()
        return self.value(ty)

    def parameter_attributes(self) -> tuple:
        """The attributes between an argument's type and its value: words ("noundef"),
        "align N", (name, Type) for the typed ones (byval(%T), sret(%T), ...), and other
        parenthesized ones as text."""
        found: list = []
        while True:
            kind, text = self.peek()
            if kind == "string":  # "nvvm.grid_constant", "key"="value"
                self.next()
                if self.accept("="):
                    text += "=" + self.next()[1]
                found.append(text)
                continue
            if kind != "word" or text in VALUE_WORDS:
                return tuple(found)
            self.next()
            if text == "align" and self.peek()[0] == "int":
                found.append(f"align {self.next()[1]}")
            elif text in TYPED_ATTRIBUTES and self.accept("("):
                found.append((text, self.type()))
                self.expect(")")
            elif self.at("("):
                found.append(text + self.skip_balanced())
            else:
                found.append(text)

    def value(self, ty: Type) -> Value:
        kind, text = self.next()
        if kind == "local":
            return Local(unquote(text), ty)
        if kind == "global":
            return Global(unquote(text), ty)
        if kind == "int":
            if isinstance(ty, FloatType):
                return ConstFloat(ty, float(text))
            return ConstInt(ty, int(text))
        if kind == "float":
            return ConstFloat(ty, float(text))
        if kind == "hex":
            return _hex_constant(ty, text)
        if kind == "cstring":
            return ConstBytes(ty, decode_bytes(text))
        if kind == "meta":
            self.i -= 1
            return Opaque(ty, self.metadata_operand())
        if kind == "word":
            if text in ("true", "false"):
                return ConstInt(ty, 1 if text == "true" else 0)
            if text in ("null", "undef", "poison", "zeroinitializer", "none"):
                return ConstSpecial(ty, "zeroinitializer" if text == "none" else text)
            if text == "splat":
                self.expect("(")
                element = self.typed_value()
                self.expect(")")
                return ConstSplat(ty, element)
            if text in ("dso_local_equivalent", "no_cfi"):
                return self.value(ty)
            if text in CONSTEXPR_WORDS:
                return self.constant_expression(text, ty)
        if text == "[":
            return ConstAggregate(ty, tuple(self.aggregate_elements("]")))
        if text == "{":
            return ConstAggregate(ty, tuple(self.aggregate_elements("}")))
        if text == "<":
            if self.accept("{"):
                elements = self.aggregate_elements("}")
                self.expect(">")
                return ConstAggregate(ty, tuple(elements))
            return ConstAggregate(ty, tuple(self.aggregate_elements(">")))
        raise IRSyntaxError(f"expected a value of type {ty}, found {text!r}")

    def aggregate_elements(self, close: str) -> list[Value]:
        elements = []
        while not self.accept(close):
            elements.append(self.typed_value())
            self.accept(",")
        return elements

    def metadata_operand(self) -> str:
        """A metadata argument (!12, !"x", !{...}, !DIExpression(...)) kept as text."""
        kind, text = self.next()
        if text == "!" and self.at("{") or self.at("("):
            return text + self.skip_balanced()
        return text

    def constant_expression(self, opcode: str, ty: Type) -> Value:
        if opcode == "getelementptr":
            flags = []
            while self.peek()[0] == "word" and self.peek()[1] in GEP_FLAGS | {"inrange"}:
                word = self.next()[1]
                if word == "inrange":
                    self.skip_balanced()
                else:
                    flags.append(word)
            self.expect("(")
            source = self.type()
            operands = []
            while self.accept(","):
                operands.append(self.typed_value())
            self.expect(")")
            return ConstExpr("getelementptr", ty, tuple(operands), source, tuple(flags))
        if opcode in CAST_OPCODES:
            self.expect("(")
            operand = self.typed_value()
            self.expect("to")
            target = self.type()
            self.expect(")")
            return ConstExpr(opcode, target, (operand,))
        if opcode in INT_BINARY:
            flags = tuple(self.words(INT_FLAGS))
            self.expect("(")
            left = self.typed_value()
            self.expect(",")
            right = self.typed_value()
            self.expect(")")
            return ConstExpr(opcode, ty, (left, right), flags=flags)
        if opcode in ("extractelement", "insertelement", "shufflevector", "select"):
            self.expect("(")
            operands = [self.typed_value()]
            while self.accept(","):
                operands.append(self.typed_value())
            self.expect(")")
            return ConstExpr(opcode, ty, tuple(operands))
        return Opaque(ty, opcode + " " + self.skip_balanced())


def _hex_constant(ty: Type, text: str) -> Value:
    """A hexadecimal constant: float bits (0x for double-format, 0xH half, 0xR bfloat,
    0xK x86_fp80, 0xL fp128) or a big integer (s0x/u0x)."""
    if text[0] in "su":
        value = int(text[3:], 16)
        if text[0] == "s" and isinstance(ty, IntType) and value >= 1 << (ty.bits - 1):
            value -= 1 << ty.bits
        return ConstInt(ty, value)
    kind = text[2] if text[2] in "KLMHR" else ""
    digits = int(text[2 + len(kind) :], 16)
    if isinstance(ty, IntType):
        return ConstInt(ty, digits)
    if kind == "":
        value = struct.unpack("<d", struct.pack("<Q", digits))[0]
    elif kind == "H":
        value = struct.unpack("<e", struct.pack("<H", digits))[0]
    elif kind == "R":
        value = struct.unpack("<f", struct.pack("<I", digits << 16))[0]
    elif kind == "K":
        value = _extended_to_float(digits, exponent_bits=15, mantissa_bits=64, explicit_one=True)
    else:
        value = _extended_to_float(digits, exponent_bits=15, mantissa_bits=112, explicit_one=False)
    return ConstFloat(ty, value)


def _extended_to_float(bits: int, exponent_bits: int, mantissa_bits: int, explicit_one: bool) -> float:
    """The nearest double to an x86 80-bit or IEEE quad bit pattern."""
    sign = -1.0 if bits >> (exponent_bits + mantissa_bits) & 1 else 1.0
    exponent = bits >> mantissa_bits & ((1 << exponent_bits) - 1)
    mantissa = bits & ((1 << mantissa_bits) - 1)
    bias = (1 << (exponent_bits - 1)) - 1
    if exponent == (1 << exponent_bits) - 1:
        infinite = mantissa << (1 if explicit_one else 0) & ((1 << mantissa_bits) - 1) == 0
        return sign * (math.inf if infinite else math.nan)
    fraction = mantissa / (1 << (mantissa_bits - (1 if explicit_one else 0)))
    if not explicit_one:
        fraction += 1.0 if exponent else 0.0
    try:
        return sign * math.ldexp(fraction, (exponent or 1) - bias)
    except OverflowError:
        return sign * math.inf


# ---------------------------------------------------------------------------- named types


class NamedTypes:
    """Named struct types (%struct.S = type {...}), parsed when first used."""

    def __init__(self):
        self.texts: dict[str, str] = {}
        self.parsed: dict[str, Type] = {}

    def get(self, name: str) -> Type:
        if name in self.parsed:
            return self.parsed[name]
        if name not in self.texts:
            raise IRSyntaxError(f"unknown type {name}")
        text = self.texts[name]
        if text.strip() == "opaque":
            ty: Type = OpaqueStructType(name)
        else:
            body = Parser(tokenize(text), self).type()
            ty = StructType(body.fields, body.packed, name) if isinstance(body, StructType) else body
        self.parsed[name] = ty
        return ty


# ---------------------------------------------------------------------------- metadata


class MetadataIndex:
    """Numbered metadata nodes as text, parsed into (kind, fields) on request.

    `node(n)` gives the kind ("DILocation", "tuple", ...) and a dict of fields; field values
    are ints, strings, metadata numbers (as ("ref", n)), tuples of those, or raw text."""

    def __init__(self, texts: dict[int, str]):
        self.texts = texts
        self._nodes: dict[int, tuple[str, dict | list]] = {}

    def node(self, number: int) -> tuple[str, dict | list]:
        found = self._nodes.get(number)
        if found is None:
            text = self.texts.get(number)
            if text is None:
                raise KeyError(f"no metadata node !{number}")
            found = self._nodes[number] = parse_metadata(text)
        return found


_META_KIND = re.compile(r"^(?:distinct\s+)?!(\w+)\(")


def parse_metadata(text: str) -> tuple[str, dict | list]:
    """A metadata node: ("tuple", [elements]) for !{...}, else (kind, {field: value})."""
    text = text.strip()
    if text.startswith("distinct "):
        text = text[len("distinct ") :]
    if text.startswith("!{"):
        return "tuple", [_metadata_value(part) for part in split_top_level(text[2:-1])]
    match = _META_KIND.match(text)
    if not match:
        return "other", {"text": text}
    body = text[match.end() : text.rindex(")")]
    if "(" not in body and "{" not in body:  # the common case: flat fields
        return match.group(1), {key: _metadata_value(value) for key, value in _PLAIN_FIELDS.findall(body)}
    fields = {}
    for part in split_top_level(body):
        key, _, value = part.partition(":")
        fields[key.strip()] = _metadata_value(value.strip())
    return match.group(1), fields


_PLAIN_FIELDS = re.compile(r'(\w+): ("[^"]*"|[^,]*)(?:, |$)')


def split_top_level(text: str, opening: str = "({[", closing: str = ")}]") -> list[str]:
    """Split at commas outside the `opening`/`closing` brackets and quotes; the parts
    stripped, empty ones left out."""
    if not any(char in text for char in opening) and '"' not in text:
        return [part.strip() for part in text.split(",") if part.strip()]
    parts, depth, quoted, start = [], 0, False, 0
    for index, char in enumerate(text):
        if char == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif char in opening:
            depth += 1
        elif char in closing:
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


def _metadata_value(text: str):
    first = text[:1]
    if first == "!":
        if text[1:].isdigit():
            return ("ref", int(text[1:]))
        if text.startswith('!"'):
            return decode_string(text[1:])
        return text
    if first == '"':
        return decode_string(text)
    if first.isdigit() or first == "-" and text[1:].isdigit():
        return int(text) if text.lstrip("-").isdigit() else text
    if text == "null":
        return None
    typed = re.fullmatch(r"(i\d+|ptr(?: addrspace\(\d+\))?) (.+)", text)
    if typed:
        inner = typed.group(2)
        if re.fullmatch(r"-?[0-9]+", inner):
            return int(inner)
        if inner.startswith("@"):
            return ("global", unquote(inner))
        return inner
    return text


# ---------------------------------------------------------------------------- module


def parse_module(text: str) -> Module:
    """Parse a whole module printed by LLVM."""
    types = NamedTypes()
    metadata: dict[int, str] = {}
    named_metadata: dict[str, tuple[int, ...]] = {}
    attribute_groups: dict[int, tuple[str, ...]] = {}
    source_filename, layout, triple = "", "", ""
    global_lines: list[str] = []
    function_texts: list[tuple[str, list[str] | None]] = []

    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line or line[0] in " ;\t":
            continue
        if line.startswith("define "):
            body = []
            while index < len(lines) and lines[index] != "}":
                body.append(lines[index])
                index += 1
            index += 1
            function_texts.append((line, body))
        elif line.startswith("declare "):
            function_texts.append((line, None))
        elif line.startswith("@"):
            global_lines.append(line)
        elif line.startswith("%"):
            name, _, definition = line.partition(" = type ")
            types.texts[name.strip()] = definition
        elif line.startswith("!"):
            name, _, value = line.partition(" = ")
            if name[1:].isdigit():
                metadata[int(name[1:])] = value
            else:
                named_metadata[name[1:]] = tuple(int(n) for n in re.findall(r"!(\d+)", value))
        elif line.startswith("attributes #"):
            number, _, body = line[len("attributes #") :].partition(" = ")
            attribute_groups[int(number)] = tuple(body.strip("{} ").split())
        elif line.startswith("source_filename"):
            source_filename = decode_string(line.partition("=")[2].strip())
        elif line.startswith("target datalayout"):
            layout = decode_string(line.partition("=")[2].strip())
        elif line.startswith("target triple"):
            triple = decode_string(line.partition("=")[2].strip())

    globals_ = {}
    for line in global_lines:
        variable = _parse_global(line, types)
        if variable is not None:
            globals_[variable.name] = variable
    functions = {}
    for header, body in function_texts:
        function = _parse_function(header, body, types)
        functions[function.name] = function
    return Module(
        source_filename, DataLayout(layout), triple, globals_, functions, named_metadata,
        MetadataIndex(metadata), attribute_groups,
    )


def _parse_global(line: str, types: NamedTypes) -> GlobalVariable | None:
    """@name = [linkage ...] [addrspace(N)] global|constant TYPE [INIT] [, align N] ..."""
    tokens = tokenize(line)
    parser = Parser(tokens, types)
    name = unquote(parser.next()[1])
    parser.expect("=")
    linkage, addrspace = None, 0
    while True:
        kind, text = parser.peek()
        if text in ("global", "constant", "alias", "ifunc"):
            break
        parser.next()
        if text in LINKAGES:
            linkage = text
        elif text == "addrspace":
            parser.expect("(")
            addrspace = parser.integer()
            parser.expect(")")
        elif parser.at("("):
            parser.skip_balanced()
    keyword = parser.next()[1]
    if keyword in ("alias", "ifunc"):
        return None
    ty = parser.type()
    initializer = None
    if linkage not in ("external", "extern_weak") and not parser.at(",") and parser.peek() != EOF:
        initializer = parser.value(ty)
    align, dbg = None, []
    while parser.accept(","):
        kind, text = parser.next()
        if text == "align":
            align = parser.integer()
        elif text == "!dbg":
            dbg.append(int(parser.next()[1][1:]))
        elif text in ("section", "partition"):
            parser.next()
        elif text == "comdat" and parser.at("("):
            parser.skip_balanced()
    return GlobalVariable(name, ty, addrspace, keyword == "constant", linkage, initializer, align, tuple(dbg))


def _parse_function(header: str, body: list[str] | None, types: NamedTypes) -> Function:
    parser = Parser(tokenize(header.rstrip(" {")), types)
    parser.next()  # define / declare
    linkage, convention = None, None
    while True:
        kind, text = parser.peek()
        if kind == "meta":  # a declaration's metadata attachment (declare !dbg !7 i32 @f(...))
            parser.next()
            parser.next()
            continue
        if kind != "word" or text not in DEFINITION_PREFIX and text not in _RETURN_ATTRIBUTES:
            break
        parser.next()
        if text in LINKAGES:
            linkage = text
        elif text in CALLING_CONVENTIONS:
            convention = text
        elif text == "cc":
            convention = f"cc {parser.integer()}"
        elif text == "align" and parser.peek()[0] == "int":
            parser.next()
        elif parser.at("("):
            parser.skip_balanced()
    result = parser.type()
    name = unquote(parser.next()[1])
    parser.expect("(")
    params, vararg = [], False
    while not parser.accept(")"):
        if parser.accept("..."):
            vararg = True
            continue
        ty = parser.type()
        attributes = parser.parameter_attributes()
        param_name = unquote(parser.next()[1]) if parser.peek()[0] == "local" else None
        params.append(Param(param_name, ty, attributes))
        parser.accept(",")
    groups, attributes, dbg = [], [], None
    while parser.peek() != EOF:
        kind, text = parser.next()
        if kind == "attrgroup":
            groups.append(int(text[1:]))
        elif text == "!dbg":
            dbg = int(parser.next()[1][1:])
        elif kind == "word":
            attributes.append(text)
    return Function(name, result, params, vararg, convention, linkage, tuple(groups), tuple(attributes), dbg, body,
                    types)


_RETURN_ATTRIBUTES = {
    "noundef", "zeroext", "signext", "inreg", "noalias", "nonnull", "dereferenceable",
    "dereferenceable_or_null", "align", "range", "nofpclass", "noext",
}


def _parse_body(lines: list[str], types: NamedTypes, params: list[Param]) -> list[Block]:
    """Blocks of a function body. The entry block has no label line; LLVM numbers it after
    the unnamed arguments."""
    unnamed = sum(1 for p in params if p.name is None or p.name.isdigit())
    blocks = [Block(str(unnamed), [])]
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        stripped = line.strip()
        if not stripped or stripped.startswith(";") or stripped.startswith("#dbg_"):
            continue
        label = _LABEL_LINE.match(line)
        if label and not line.startswith("  "):
            name = label.group(1)
            blocks.append(Block(decode_string(name) if name.startswith('"') else name, []))
            continue
        text = stripped
        if text.endswith("["):  # a switch: its cases follow, one per line, up to "]"
            while index < len(lines):
                case = lines[index].strip()
                index += 1
                text += " " + case
                if case.startswith("]"):
                    break
        blocks[-1].instructions.append(parse_instruction(text, types))
    if not blocks[0].instructions and len(blocks) > 1:
        blocks.pop(0)
    return blocks


# ---------------------------------------------------------------------------- instructions


def parse_instruction(text: str, types: NamedTypes) -> Instruction:
    """One instruction; what cannot be read becomes an `unsupported` instruction that keeps
    its text, its result name and its !dbg location."""
    try:
        tokens = tokenize(text)
    except IRSyntaxError as error:
        return Instruction("unsupported", None, VOID, (), {"reason": str(error)}, None, text)
    result = None
    if len(tokens) > 1 and tokens[0][0] == "local" and tokens[1][1] == "=":
        result = unquote(tokens[0][1])
        tokens = tokens[2:]
    body, dbg = _split_attachments(tokens)
    parser = Parser(body, types)
    opcode = parser.next()[1]
    if opcode in ("tail", "musttail", "notail"):
        opcode = parser.next()[1]
    reader = _READERS.get(opcode)
    try:
        if reader is None:
            raise Unsupported(f"instruction '{opcode}'")
        ty, operands, extra = reader(parser, opcode)
    except Unsupported as error:
        return Instruction("unsupported", result, VOID, (), {"reason": str(error)}, dbg, text)
    except (IRSyntaxError, IndexError, ValueError, KeyError, AttributeError) as error:
        return Instruction("unsupported", result, VOID, (), {"reason": f"cannot decode '{opcode}': {error}"}, dbg, text)
    return Instruction(opcode, result, ty, tuple(operands), extra, dbg, text)


def _split_attachments(tokens: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], int | None]:
    """Cut trailing ", !name !N" metadata attachments off an instruction; return the !dbg."""
    dbg = None
    end = len(tokens)
    while end >= 3 and tokens[end - 3][1] == "," and tokens[end - 2][0] == "meta" and tokens[end - 1][0] == "meta":
        if tokens[end - 2][1] == "!dbg":
            dbg = int(tokens[end - 1][1][1:])
        end -= 3
    return tokens[:end], dbg


def _read_binary(parser: Parser, opcode: str):
    flags = parser.words(INT_FLAGS | FAST_MATH)
    ty = parser.type()
    left = parser.value(ty)
    parser.expect(",")
    right = parser.value(ty)
    return ty, [left, right], {"flags": tuple(flags)}


def _read_fneg(parser: Parser, opcode: str):
    flags = parser.words(FAST_MATH)
    ty = parser.type()
    return ty, [parser.value(ty)], {"flags": tuple(flags)}


def _read_cast(parser: Parser, opcode: str):
    flags = parser.words(INT_FLAGS | FAST_MATH)
    operand = parser.typed_value()
    parser.expect("to")
    return parser.type(), [operand], {"flags": tuple(flags)}


def _read_compare(parser: Parser, opcode: str):
    flags = parser.words(FAST_MATH | {"samesign"})
    predicate = parser.next()[1]
    ty = parser.type()
    left = parser.value(ty)
    parser.expect(",")
    right = parser.value(ty)
    result = VectorType(ty.count, I1) if isinstance(ty, VectorType) else I1
    return result, [left, right], {"predicate": predicate, "flags": tuple(flags)}


def _read_select(parser: Parser, opcode: str):
    parser.words(FAST_MATH)
    condition = parser.typed_value()
    parser.expect(",")
    if_true = parser.typed_value()
    parser.expect(",")
    if_false = parser.typed_value()
    return if_true.type, [condition, if_true, if_false], {}


def _read_phi(parser: Parser, opcode: str):
    parser.words(FAST_MATH)
    ty = parser.type()
    values, blocks = [], []
    while parser.accept("["):
        values.append(parser.value(ty))
        parser.expect(",")
        blocks.append(unquote(parser.next()[1]))
        parser.expect("]")
        parser.accept(",")
    return ty, values, {"blocks": tuple(blocks)}


def _read_getelementptr(parser: Parser, opcode: str):
    flags = []
    while parser.peek()[0] == "word" and parser.peek()[1] in GEP_FLAGS | {"inrange"}:
        word = parser.next()[1]
        if word == "inrange":
            parser.skip_balanced()
        else:
            flags.append(word)
    source = parser.type()
    parser.expect(",")
    operands = [parser.typed_value()]
    while parser.accept(","):
        operands.append(parser.typed_value())
    result = operands[0].type
    for index in operands[1:]:
        if isinstance(index.type, VectorType):
            result = VectorType(index.type.count, operands[0].type)
    return result, operands, {"source_type": source, "flags": tuple(flags)}


def _read_alloca(parser: Parser, opcode: str):
    parser.words({"inalloca"})
    allocated = parser.type()
    operands, align, addrspace = [], None, 0
    while parser.accept(","):
        if parser.accept("align"):
            align = parser.integer()
        elif parser.accept("addrspace"):
            parser.expect("(")
            addrspace = parser.integer()
            parser.expect(")")
        else:
            operands.append(parser.typed_value())
    return PointerType(addrspace), operands, {"allocated_type": allocated, "align": align}


def _memory_suffix(parser: Parser, extra: dict) -> dict:
    """[syncscope("x")] [ordering...] [, align N] after a memory instruction."""
    while parser.peek() != EOF:
        kind, text = parser.next()
        if text == "syncscope":
            parser.expect("(")
            extra["syncscope"] = decode_string(parser.next()[1])
            parser.expect(")")
        elif text in ORDERINGS:
            extra.setdefault("orderings", []).append(text)
        elif text == "align":
            extra["align"] = parser.integer()
    return extra


def _read_load(parser: Parser, opcode: str):
    flags = parser.words({"atomic", "volatile"})
    ty = parser.type()
    parser.expect(",")
    pointer = parser.typed_value()
    extra = _memory_suffix(parser, {"volatile": "volatile" in flags, "atomic": "atomic" in flags})
    return ty, [pointer], extra


def _read_store(parser: Parser, opcode: str):
    flags = parser.words({"atomic", "volatile"})
    value = parser.typed_value()
    parser.expect(",")
    pointer = parser.typed_value()
    extra = _memory_suffix(parser, {"volatile": "volatile" in flags, "atomic": "atomic" in flags})
    return VOID, [value, pointer], extra


def _read_atomicrmw(parser: Parser, opcode: str):
    volatile = bool(parser.words({"volatile"}))
    operation = parser.next()[1]
    pointer = parser.typed_value()
    parser.expect(",")
    value = parser.typed_value()
    extra = _memory_suffix(parser, {"operation": operation, "volatile": volatile})
    return value.type, [pointer, value], extra


def _read_cmpxchg(parser: Parser, opcode: str):
    flags = parser.words({"weak", "volatile"})
    pointer = parser.typed_value()
    parser.expect(",")
    expected = parser.typed_value()
    parser.expect(",")
    new = parser.typed_value()
    extra = _memory_suffix(parser, {"weak": "weak" in flags, "volatile": "volatile" in flags})
    return StructType((expected.type, I1)), [pointer, expected, new], extra


def _read_fence(parser: Parser, opcode: str):
    return VOID, [], _memory_suffix(parser, {})


def _read_extractvalue(parser: Parser, opcode: str):
    aggregate = parser.typed_value()
    indices = []
    while parser.accept(","):
        indices.append(parser.integer())
    ty = aggregate.type
    for index in indices:
        ty = ty.fields[index] if isinstance(ty, StructType) else ty.element
    return ty, [aggregate], {"indices": tuple(indices)}


def _read_insertvalue(parser: Parser, opcode: str):
    aggregate = parser.typed_value()
    parser.expect(",")
    element = parser.typed_value()
    indices = []
    while parser.accept(","):
        indices.append(parser.integer())
    return aggregate.type, [aggregate, element], {"indices": tuple(indices)}


def _read_extractelement(parser: Parser, opcode: str):
    vector = parser.typed_value()
    parser.expect(",")
    index = parser.typed_value()
    return vector.type.element, [vector, index], {}


def _read_insertelement(parser: Parser, opcode: str):
    vector = parser.typed_value()
    parser.expect(",")
    element = parser.typed_value()
    parser.expect(",")
    index = parser.typed_value()
    return vector.type, [vector, element, index], {}


def _read_shufflevector(parser: Parser, opcode: str):
    first = parser.typed_value()
    parser.expect(",")
    second = parser.typed_value()
    parser.expect(",")
    mask = parser.typed_value()
    return VectorType(mask.type.count, first.type.element), [first, second], {"mask": _shuffle_mask(mask)}


def _shuffle_mask(mask: Value) -> tuple[int, ...]:
    """Lane indices of a shuffle mask; -1 for an undefined lane."""
    count = mask.type.count
    if isinstance(mask, ConstSpecial):
        return (0,) * count if mask.kind == "zeroinitializer" else (-1,) * count
    if isinstance(mask, ConstSplat):
        return (mask.element.value,) * count
    return tuple(e.value if isinstance(e, ConstInt) else -1 for e in mask.elements)


def _read_freeze(parser: Parser, opcode: str):
    operand = parser.typed_value()
    return operand.type, [operand], {}


def _read_br(parser: Parser, opcode: str):
    if parser.accept("label"):
        return VOID, [], {"targets": (unquote(parser.next()[1]),)}
    condition = parser.typed_value()
    parser.expect(",")
    parser.expect("label")
    if_true = unquote(parser.next()[1])
    parser.expect(",")
    parser.expect("label")
    if_false = unquote(parser.next()[1])
    return VOID, [condition], {"targets": (if_true, if_false)}


def _read_switch(parser: Parser, opcode: str):
    value = parser.typed_value()
    parser.expect(",")
    parser.expect("label")
    default = unquote(parser.next()[1])
    parser.expect("[")
    cases = []
    while not parser.accept("]"):
        case = parser.typed_value()
        parser.expect(",")
        parser.expect("label")
        cases.append((case.value, unquote(parser.next()[1])))
    return VOID, [value], {"default": default, "cases": tuple(cases)}


def _read_ret(parser: Parser, opcode: str):
    if parser.accept("void"):
        return VOID, [], {}
    return VOID, [parser.typed_value()], {}


def _read_unreachable(parser: Parser, opcode: str):
    return VOID, [], {}


def _read_call(parser: Parser, opcode: str):
    """call [fast-math] [cc] [return attrs] [addrspace(N)] TYPE CALLEE(ARGS) [fn attrs]
    [operand bundles]. `extra` has the callee name (None when indirect), the function
    type, and the attributes of every argument."""
    parser.words(FAST_MATH)
    while True:
        kind, text = parser.peek()
        if kind != "word" or text not in _RETURN_ATTRIBUTES | CALLING_CONVENTIONS | {"cc", "addrspace"}:
            break
        parser.next()
        if text == "cc" or text == "align" and parser.peek()[0] == "int":
            parser.next()
        elif parser.at("("):
            parser.skip_balanced()
    result = parser.type()
    function_type = None
    if parser.at("("):
        parser.next()
        params, vararg = [], False
        while not parser.accept(")"):
            if parser.accept("..."):
                vararg = True
            else:
                params.append(parser.type())
            parser.accept(",")
        function_type = FunctionType(result, tuple(params), vararg)
    if parser.accept("asm"):
        parser.words({"sideeffect", "alignstack", "inteldialect", "unwind"})
        raise Unsupported(f"inline assembly {parser.next()[1]}")
    callee = parser.value(PointerType(0))
    parser.expect("(")
    arguments, attributes = [], []
    while not parser.accept(")"):
        ty = parser.type()
        attributes.append(parser.parameter_attributes())
        arguments.append(Opaque(ty, parser.metadata_operand()) if isinstance(ty, MetadataType) else parser.value(ty))
        parser.accept(",")
    if function_type is None:
        function_type = FunctionType(result, tuple(a.type for a in arguments))
    extra = {
        "callee": callee.name if isinstance(callee, Global) else None,
        "function_type": function_type,
        "argument_attributes": tuple(attributes),
    }
    operands = arguments if isinstance(callee, Global) else [*arguments, callee]
    return result, operands, extra


_READERS = {
    **{op: _read_binary for op in INT_BINARY | FLOAT_BINARY},
    **{op: _read_cast for op in CAST_OPCODES},
    "fneg": _read_fneg,
    "icmp": _read_compare,
    "fcmp": _read_compare,
    "select": _read_select,
    "phi": _read_phi,
    "getelementptr": _read_getelementptr,
    "alloca": _read_alloca,
    "load": _read_load,
    "store": _read_store,
    "atomicrmw": _read_atomicrmw,
    "cmpxchg": _read_cmpxchg,
    "fence": _read_fence,
    "extractvalue": _read_extractvalue,
    "insertvalue": _read_insertvalue,
    "extractelement": _read_extractelement,
    "insertelement": _read_insertelement,
    "shufflevector": _read_shufflevector,
    "freeze": _read_freeze,
    "br": _read_br,
    "switch": _read_switch,
    "ret": _read_ret,
    "unreachable": _read_unreachable,
    "call": _read_call,
}
