"""Source-level facts from a module's debug metadata: where an instruction came from
(file, line, column, and the call sites it was inlined through), and the C names and types
of a function's parameters."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

from interpreter.irparse import MetadataIndex


@dataclass(frozen=True)
class SourceLocation:
    """A point in the source. `inlined_at` is the call site this code was inlined into."""

    file: str
    line: int
    column: int
    inlined_at: "SourceLocation | None" = None
    function: str = field(default="", compare=False)  # the source function the point is in
    function_line: int = field(default=0, compare=False)  # the line that function is declared at

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"

    def outermost(self) -> "SourceLocation":
        """The location in the function that was not inlined anywhere (the kernel)."""
        location = self
        while location.inlined_at is not None:
            location = location.inlined_at
        return location

    def chain(self) -> list["SourceLocation"]:
        """This location, then each call site it was inlined through."""
        chain, location = [], self
        while location is not None:
            chain.append(location)
            location = location.inlined_at
        return chain


MEMBER_DEPTH = 4  # nested structs whose members a struct argument exposes
MEMBER_ELEMENTS = 8  # elements of an array member exposed
MEMBER_LIMIT = 64  # members of one struct argument exposed


@dataclass(frozen=True)
class CType:
    """A C type as debug info describes it."""

    spelling: str  # e.g. "const float *"
    kind: str  # "pointer", "integer", "float", "bool", "struct", "array", "enum", "other"
    bits: int | None = None
    signed: bool | None = None
    pointee: "CType | None" = None
    values: tuple[int, ...] = ()  # an enum's enumerator values


class DebugInfo:
    """Queries over one module's metadata, memoized."""

    def __init__(self, metadata: MetadataIndex):
        self.metadata = metadata
        self._locations: dict[int, SourceLocation | None] = {}
        self._files: dict[int, str] = {}
        self._parameters: dict[int, dict[int, str]] | None = None

    def location(self, number: int | None) -> SourceLocation | None:
        """The SourceLocation of a !DILocation node (None when absent or not a location)."""
        if number is None:
            return None
        if number not in self._locations:
            self._locations[number] = self._read_location(number)
        return self._locations[number]

    def _read_location(self, number: int) -> SourceLocation | None:
        try:
            kind, fields = self.metadata.node(number)
        except KeyError:
            return None
        if kind != "DILocation":
            return None
        inlined = fields.get("inlinedAt")
        return SourceLocation(
            self.scope_file(fields.get("scope")),
            fields.get("line", 0) or 0,
            fields.get("column", 0) or 0,
            self.location(inlined[1]) if isinstance(inlined, tuple) else None,
            *self.scope_function(fields.get("scope")),
        )

    def scope_function(self, scope) -> tuple[str, int]:
        """The name of the function (subprogram) a scope lies in and the line it is
        declared at, or ("", 0)."""
        for _, kind, fields in self._scopes(scope):
            if kind == "DISubprogram":
                return fields.get("name", "") or "", fields.get("line", 0) or 0
        return "", 0

    def scope_file(self, scope) -> str:
        """The file of a scope (subprogram, lexical block, ...), following enclosing scopes."""
        for number, kind, fields in self._scopes(scope):
            if kind == "DIFile":
                return self.file(number)
            file = fields.get("file")
            if isinstance(file, tuple):
                return self.file(file[1])
        return ""

    def _scopes(self, scope):
        """(number, kind, fields) of a scope and of each scope around it, innermost first."""
        for _ in range(100):
            if not isinstance(scope, tuple):
                return
            kind, fields = self.metadata.node(scope[1])
            yield scope[1], kind, fields
            scope = fields.get("scope")

    def file(self, number: int) -> str:
        """The path of a !DIFile node, joined with its directory."""
        if number not in self._files:
            _, fields = self.metadata.node(number)
            name, directory = fields.get("filename", ""), fields.get("directory", "")
            self._files[number] = os.path.normpath(os.path.join(directory, name)) if name else ""
        return self._files[number]

    def subprogram(self, number: int | None) -> dict:
        """The fields of a !DISubprogram node, or {}."""
        if number is None:
            return {}
        kind, fields = self.metadata.node(number)
        return fields if kind == "DISubprogram" else {}

    def parameter_names(self, subprogram: int | None) -> dict[int, str]:
        """Argument number (1-based) -> name, from the DILocalVariables of a subprogram."""
        if subprogram is None:
            return {}
        if self._parameters is None:
            self._parameters = {}
            for number, text in self.metadata.texts.items():
                if "DILocalVariable(" in text and " arg: " in text:
                    _, fields = self.metadata.node(number)
                    scope = fields.get("scope")
                    if isinstance(scope, tuple) and "arg" in fields:
                        self._parameters.setdefault(scope[1], {})[fields["arg"]] = fields.get("name", "")
        return self._parameters.get(subprogram, {})

    def parameter_types(self, subprogram: int | None) -> list[CType | None]:
        """The C types of a subprogram's parameters, in order."""
        return [self.c_type(reference) for reference in self._parameter_type_references(subprogram)]

    def parameter_members(self, subprogram: int | None) -> list[list[tuple[str, CType, int]]]:
        """Per parameter of a subprogram, the scalar members of a struct passed by value
        (see members); [] for any other parameter."""
        return [self.members(reference) for reference in self._parameter_type_references(subprogram)]

    def _parameter_type_references(self, subprogram: int | None) -> list:
        """The type references of a subprogram's parameters, in order (its signature less
        the return type)."""
        signature = self.subprogram(subprogram).get("type")
        if not isinstance(signature, tuple):
            return []
        types = self.metadata.node(signature[1])[1].get("types")
        if not isinstance(types, tuple):
            return []
        kind, elements = self.metadata.node(types[1])
        return list(elements[1:]) if kind == "tuple" else []

    def members(self, reference, prefix: str = "", offset: int = 0, depth: int = 0) -> list[tuple[str, CType, int]]:
        """The scalar and pointer members of a struct type at any depth, flattened in order:
        (path such as "dim.rows", "box.lo.x" or "taps[2]", C type, byte offset). Bit fields
        and static members are left out; arrays give their first MEMBER_ELEMENTS elements."""
        node = self._resolved(reference)
        if node is None or depth > MEMBER_DEPTH:
            return []
        kind, fields = node
        if kind != "DICompositeType" or fields.get("tag") not in ("DW_TAG_structure_type", "DW_TAG_class_type"):
            return []
        elements = fields.get("elements")
        if not isinstance(elements, tuple) or self.metadata.node(elements[1])[0] != "tuple":
            return []
        found = []
        for element in self.metadata.node(elements[1])[1]:
            member_kind, member = self.metadata.node(element[1]) if isinstance(element, tuple) else (None, {})
            flags = str(member.get("flags", "")) if member_kind == "DIDerivedType" else ""
            if member_kind != "DIDerivedType" or member.get("tag") not in ("DW_TAG_member", "DW_TAG_inheritance") \
                    or "DIFlagStaticMember" in flags or "DIFlagBitField" in flags:
                continue
            at = offset + (member.get("offset") or 0) // 8
            name = f"{prefix}{member.get('name')}" if member.get("tag") == "DW_TAG_member" else prefix.rstrip(".")
            found += self._member(member.get("baseType"), name, at, depth)
        return found[:MEMBER_LIMIT]

    def _member(self, reference, name: str, offset: int, depth: int) -> list[tuple[str, CType, int]]:
        c_type = self.c_type(reference)
        if c_type is None:
            return []
        if c_type.kind in ("integer", "float", "bool", "enum", "pointer"):
            return [(name, c_type, offset)]
        if c_type.kind == "struct":
            return self.members(reference, f"{name}." if name else "", offset, depth + 1)
        if c_type.kind == "array" and c_type.pointee is not None and c_type.pointee.bits:
            node = self._resolved(reference)
            element = node[1].get("baseType") if node else None
            step = c_type.pointee.bits // 8
            count = (c_type.bits or 0) // c_type.pointee.bits
            return [item for index in range(min(count, MEMBER_ELEMENTS))
                    for item in self._member(element, f"{name}[{index}]", offset + index * step, depth + 1)]
        return []

    def _resolved(self, reference):
        """The node a type reference names, through typedefs and qualifiers."""
        for _ in range(16):
            if not isinstance(reference, tuple) or reference[0] != "ref":
                return None
            kind, fields = self.metadata.node(reference[1])
            if kind == "DIDerivedType" and fields.get("tag") in ("DW_TAG_typedef", "DW_TAG_const_type",
                                                                  "DW_TAG_volatile_type"):
                reference = fields.get("baseType")
                continue
            return kind, fields
        return None

    def c_type(self, reference) -> CType | None:
        """The CType of a DIType reference (("ref", n)); None for unknown or void."""
        if not isinstance(reference, tuple) or reference[0] != "ref":
            return None
        kind, fields = self.metadata.node(reference[1])
        tag = fields.get("tag", "") if isinstance(fields, dict) else ""
        if kind == "DIBasicType":
            encoding = fields.get("encoding", "")
            bits = fields.get("size")
            name = fields.get("name", "?")
            if encoding == "DW_ATE_float":
                return CType(name, "float", bits)
            if encoding == "DW_ATE_boolean":
                return CType(name, "bool", bits, False)
            signed = encoding in ("DW_ATE_signed", "DW_ATE_signed_char")
            return CType(name, "integer", bits, signed)
        if kind == "DIDerivedType":
            base = self.c_type(fields.get("baseType"))
            if tag == "DW_TAG_pointer_type":
                spelling = _pointer_spelling(base)
                return CType(spelling, "pointer", fields.get("size"), None, base)
            if tag in ("DW_TAG_reference_type", "DW_TAG_rvalue_reference_type"):
                mark = "&" if tag == "DW_TAG_reference_type" else "&&"
                return CType(f"{base.spelling if base else 'void'} {mark}", "pointer", fields.get("size"), None, base)
            if tag in ("DW_TAG_const_type", "DW_TAG_volatile_type"):
                qualifier = "const" if tag == "DW_TAG_const_type" else "volatile"
                if base is None:
                    return CType(f"{qualifier} void", "other")
                if base.kind == "pointer":
                    return CType(f"{base.spelling} {qualifier}", base.kind, base.bits, base.signed, base.pointee)
                return replace(base, spelling=f"{qualifier} {base.spelling}")
            if tag == "DW_TAG_restrict_type":
                if base is None:
                    return None
                joiner = "" if base.spelling.endswith("*") else " "
                return CType(f"{base.spelling}{joiner}__restrict__", base.kind, base.bits, base.signed, base.pointee)
            if tag == "DW_TAG_typedef":
                name = fields.get("name", "?")
                if base is None:
                    return CType(name, "other")
                return replace(base, spelling=name)
            return base
        if kind == "DICompositeType":
            name = fields.get("name") or "<anonymous>"
            if tag == "DW_TAG_array_type":
                base = self.c_type(fields.get("baseType"))
                counts = self._array_counts(fields.get("elements"))
                dims = "".join(f"[{count}]" for count in counts)
                return CType(f"{base.spelling if base else '?'} {dims}".strip(), "array", fields.get("size"), None,
                             base)
            if tag == "DW_TAG_enumeration_type":
                return CType(f"enum {name}", "enum", fields.get("size"),
                             values=self._enumerators(fields.get("elements")))
            return CType(name, "struct", fields.get("size"))  # C++ names classes without a keyword
        if kind == "DISubroutineType":
            return CType("function", "other")
        return None

    def _enumerators(self, elements) -> tuple[int, ...]:
        """The distinct values of an enum's enumerators, in order."""
        if not isinstance(elements, tuple) or self.metadata.node(elements[1])[0] != "tuple":
            return ()
        values = [self.metadata.node(item[1])[1].get("value") for item in self.metadata.node(elements[1])[1]
                  if isinstance(item, tuple)]
        return tuple(dict.fromkeys(v for v in values if isinstance(v, int)))

    def _array_counts(self, elements) -> list:
        if not isinstance(elements, tuple):
            return []
        kind, items = self.metadata.node(elements[1])
        counts = []
        for item in items if kind == "tuple" else []:
            if isinstance(item, tuple):
                _, subrange = self.metadata.node(item[1])
                counts.append(subrange.get("count", ""))
        return counts


def _pointer_spelling(base: CType | None) -> str:
    if base is None:
        return "void *"
    if base.kind == "array":
        element, _, dims = base.spelling.partition(" [")
        return f"{element} (*)[{dims}"
    return f"{base.spelling}*" if base.kind == "pointer" else f"{base.spelling} *"
