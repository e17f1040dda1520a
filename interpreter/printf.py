"""Device printf: clang lowers printf(format, ...) to vprintf(format, buffer), where the
buffer holds the arguments after C's default promotions (float -> double, char/short ->
int), each aligned to its own size. This module lays out and formats such calls.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass

_CONVERSION = re.compile(r"%(?P<flags>[-+ #0]*)(?P<width>\*|\d+)?(?:\.(?P<precision>\*|\d+))?"
                         r"(?P<length>hh|h|ll|l|j|z|t|L)?(?P<type>[diouxXeEfFgGaAcspn%])")


@dataclass(frozen=True)
class Argument:
    kind: str  # "int", "uint", "double", "char", "string", "pointer"
    size: int
    offset: int


def layout(format_string: str) -> tuple[list[tuple[re.Match, list[Argument]]], int]:
    """For each conversion of `format_string`, the arguments it consumes (a * width or
    precision takes an int first); and the total size of the argument buffer."""
    conversions, offset = [], 0

    def take(kind: str, size: int) -> Argument:
        nonlocal offset
        offset = (offset + size - 1) // size * size
        argument = Argument(kind, size, offset)
        offset += size
        return argument

    for match in _CONVERSION.finditer(format_string):
        kind = match.group("type")
        if kind == "%":
            conversions.append((match, []))
            continue
        arguments = []
        if match.group("width") == "*":
            arguments.append(take("int", 4))
        if match.group("precision") == "*":
            arguments.append(take("int", 4))
        wide = match.group("length") in ("l", "ll", "j", "z", "t")
        if kind in "di":
            arguments.append(take("int", 8 if wide else 4))
        elif kind in "ouxX":
            arguments.append(take("uint", 8 if wide else 4))
        elif kind in "eEfFgGaA":
            arguments.append(take("double", 8))
        elif kind == "c":
            arguments.append(take("char", 4))
        elif kind == "s":
            arguments.append(take("string", 8))
        else:  # p, n
            arguments.append(take("pointer", 8))
        conversions.append((match, arguments))
    return conversions, offset


def format_call(format_string: str, conversions, buffer: bytes, read_string) -> str:
    """The text printf prints for one thread, given its argument bytes; `read_string`
    turns a device pointer into the string it points to."""
    out, position = [], 0
    for match, arguments in conversions:
        out.append(format_string[position : match.start()])
        position = match.end()
        kind = match.group("type")
        if kind == "%":
            out.append("%")
            continue
        values = [_value(argument, buffer, read_string) for argument in arguments]
        spec = "%" + match.group("flags")
        if match.group("width"):
            spec += str(values.pop(0)) if match.group("width") == "*" else match.group("width")
        if match.group("precision"):
            spec += "." + (str(values.pop(0)) if match.group("precision") == "*" else match.group("precision"))
        (value,) = values
        if kind == "u":
            kind = "d"
        elif kind == "p":
            spec, kind, value = "%#", "x", value
        elif kind == "c":
            value = chr(value & 0xFF)
        elif kind == "n":
            continue
        elif kind in "aA":
            out.append(float(value).hex())
            continue
        try:
            out.append((spec + kind) % value)
        except (TypeError, ValueError, OverflowError):
            out.append(match.group())
    out.append(format_string[position:])
    return "".join(out)


def _value(argument: Argument, buffer: bytes, read_string):
    raw = buffer[argument.offset : argument.offset + argument.size].ljust(argument.size, b"\0")
    if argument.kind == "double":
        return struct.unpack("<d", raw)[0]
    if argument.kind == "string":
        return read_string(struct.unpack("<q", raw)[0])
    if argument.kind in ("uint", "pointer"):
        return int.from_bytes(raw, "little", signed=False)
    return int.from_bytes(raw, "little", signed=True)
