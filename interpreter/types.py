"""LLVM IR types with their byte sizes, alignments and struct layouts under a data layout.

Sizes follow LLVM's rules: the store size of iN is ceil(N/8) bytes, the alloc size is the
store size rounded up to the ABI alignment, struct fields sit at their ABI alignment
(packed structs at 1), an array is `count` alloc sizes. Alignments come from the module's
data layout string, with LLVM's defaults where it is silent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Type:
    """Base of every IR type."""

    def __str__(self) -> str:
        return self.spelling()

    def spelling(self) -> str:
        raise NotImplementedError


@dataclass(frozen=True)
class VoidType(Type):
    def spelling(self) -> str:
        return "void"


@dataclass(frozen=True)
class LabelType(Type):
    def spelling(self) -> str:
        return "label"


@dataclass(frozen=True)
class MetadataType(Type):
    def spelling(self) -> str:
        return "metadata"


@dataclass(frozen=True)
class TokenType(Type):
    def spelling(self) -> str:
        return "token"


@dataclass(frozen=True)
class IntType(Type):
    bits: int

    def spelling(self) -> str:
        return f"i{self.bits}"


FLOAT_BITS = {"half": 16, "bfloat": 16, "float": 32, "double": 64, "x86_fp80": 80, "fp128": 128, "ppc_fp128": 128}


@dataclass(frozen=True)
class FloatType(Type):
    name: str

    @property
    def bits(self) -> int:
        return FLOAT_BITS[self.name]

    def spelling(self) -> str:
        return self.name


@dataclass(frozen=True)
class PointerType(Type):
    addrspace: int = 0

    def spelling(self) -> str:
        return f"ptr addrspace({self.addrspace})" if self.addrspace else "ptr"


@dataclass(frozen=True)
class ArrayType(Type):
    count: int
    element: Type

    def spelling(self) -> str:
        return f"[{self.count} x {self.element}]"


@dataclass(frozen=True)
class VectorType(Type):
    count: int
    element: Type

    def spelling(self) -> str:
        return f"<{self.count} x {self.element}>"


@dataclass(frozen=True)
class StructType(Type):
    """A literal struct (name None) or the body of a named one."""

    fields: tuple[Type, ...]
    packed: bool = False
    name: str | None = field(default=None, compare=False)

    def spelling(self) -> str:
        if self.name:
            return self.name
        body = ", ".join(map(str, self.fields))
        return f"<{{ {body} }}>" if self.packed else f"{{ {body} }}" if body else "{}"


@dataclass(frozen=True)
class OpaqueStructType(Type):
    name: str

    def spelling(self) -> str:
        return self.name


@dataclass(frozen=True)
class FunctionType(Type):
    result: Type
    params: tuple[Type, ...]
    vararg: bool = False

    def spelling(self) -> str:
        params = [str(p) for p in self.params] + (["..."] if self.vararg else [])
        return f"{self.result} ({', '.join(params)})"


VOID = VoidType()
LABEL = LabelType()
I1, I8, I16, I32, I64 = (IntType(b) for b in (1, 8, 16, 32, 64))
FLOAT, DOUBLE, HALF = FloatType("float"), FloatType("double"), FloatType("half")
PTR = PointerType(0)


class DataLayout:
    """Sizes and alignments of types under an LLVM data layout string."""

    # LLVM's defaults (bit widths -> ABI alignment in bits) where a layout says nothing.
    _INT_DEFAULTS = {1: 8, 8: 8, 16: 16, 32: 32, 64: 32}
    _FLOAT_DEFAULTS = {16: 16, 32: 32, 64: 64, 80: 128, 128: 128}

    def __init__(self, spec: str = ""):
        self.int_align = dict(self._INT_DEFAULTS)
        self.float_align = dict(self._FLOAT_DEFAULTS)
        self.vector_align: dict[int, int] = {64: 64, 128: 128}
        self.pointer: dict[int, tuple[int, int]] = {0: (64, 64)}
        self.aggregate_align = 8
        self.big_endian = False
        for item in spec.split("-") if spec else ():
            self._read(item)
        self._cache: dict[Type, tuple[int, int]] = {}

    def _read(self, item: str) -> None:
        kind = item[0]
        numbers = [int(n) for n in re.findall(r"\d+", item[1:])]
        if kind == "E":
            self.big_endian = True
        elif kind == "p":
            addrspace = int(re.match(r"p(\d*)", item).group(1) or 0)
            parts = [int(n) for n in item.split(":")[1:3]]
            self.pointer[addrspace] = (parts[0], parts[1] if len(parts) > 1 else parts[0])
        elif kind == "i" and numbers:
            self.int_align[numbers[0]] = numbers[1] if len(numbers) > 1 else numbers[0]
        elif kind == "f" and numbers:
            self.float_align[numbers[0]] = numbers[1] if len(numbers) > 1 else numbers[0]
        elif kind == "v" and numbers:
            self.vector_align[numbers[0]] = numbers[1] if len(numbers) > 1 else numbers[0]
        elif kind == "a" and numbers:
            self.aggregate_align = max(numbers[0], 8)

    def size(self, ty: Type) -> int:
        """Alloc size in bytes: the distance between consecutive array elements."""
        return self._layout(ty)[0]

    def align(self, ty: Type) -> int:
        """ABI alignment in bytes."""
        return self._layout(ty)[1]

    def store_size(self, ty: Type) -> int:
        """Bytes a load or store of `ty` touches."""
        if isinstance(ty, IntType):
            return (ty.bits + 7) // 8
        if isinstance(ty, FloatType):
            return (ty.bits + 7) // 8
        if isinstance(ty, VectorType):
            return (self._bits(ty.element) * ty.count + 7) // 8
        return self.size(ty)

    def field_offsets(self, ty: StructType) -> tuple[int, ...]:
        """Byte offset of every field of a struct."""
        offsets, offset = [], 0
        for member in ty.fields:
            align = 1 if ty.packed else self.align(member)
            offset = _round_up(offset, align)
            offsets.append(offset)
            offset += self.size(member)
        return tuple(offsets)

    def _bits(self, ty: Type) -> int:
        if isinstance(ty, IntType):
            return ty.bits
        if isinstance(ty, FloatType):
            return ty.bits
        if isinstance(ty, PointerType):
            return self.pointer.get(ty.addrspace, self.pointer[0])[0]
        raise TypeError(f"no bit width for {ty}")

    def _layout(self, ty: Type) -> tuple[int, int]:
        cached = self._cache.get(ty)
        if cached is None:
            cached = self._cache[ty] = self._compute(ty)
        return cached

    def _compute(self, ty: Type) -> tuple[int, int]:
        if isinstance(ty, IntType):
            align = self._int_alignment(ty.bits) // 8
            return _round_up((ty.bits + 7) // 8, align), align
        if isinstance(ty, FloatType):
            align = self.float_align.get(ty.bits, ty.bits) // 8
            return _round_up((ty.bits + 7) // 8, align), align
        if isinstance(ty, PointerType):
            size, align = self.pointer.get(ty.addrspace, self.pointer[0])
            return size // 8, align // 8
        if isinstance(ty, ArrayType):
            size, align = self._layout(ty.element)
            return size * ty.count, align
        if isinstance(ty, VectorType):
            bits = self._bits(ty.element) * ty.count
            align = self.vector_align[bits] // 8 if bits in self.vector_align else \
                _next_power_of_two((bits + 7) // 8)
            return _round_up((bits + 7) // 8, align), align
        if isinstance(ty, StructType):
            align = 1 if ty.packed else max([self.aggregate_align // 8] + [self.align(f) for f in ty.fields])
            end = 0
            for member, offset in zip(ty.fields, self.field_offsets(ty)):
                end = offset + self.size(member)
            return _round_up(end, align), align
        raise TypeError(f"type {ty} has no size")

    def _int_alignment(self, bits: int) -> int:
        """The ABI alignment (bits) of iN: its own entry, else the next wider one, else the
        widest, as LLVM does."""
        if bits in self.int_align:
            return self.int_align[bits]
        wider = [width for width in self.int_align if width > bits]
        return self.int_align[min(wider)] if wider else self.int_align[max(self.int_align)]


def _round_up(value: int, align: int) -> int:
    return (value + align - 1) // align * align if align > 1 else value


def _next_power_of_two(value: int) -> int:
    power = 1
    while power < value:
        power *= 2
    return power
