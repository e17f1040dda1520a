"""Load LLVM IR text: verify it with llvmlite, parse it, find its kernels, and decode
functions on demand.

A kernel is a function with the NVPTX kernel calling convention (ptx_kernel) or one named
by `!nvvm.annotations` kernel metadata. For each, `KernelInfo` gives its demangled name,
its parameters as C sees them (names and types from debug info when present), which
components of threadIdx/blockIdx/blockDim/gridDim it reads, its static shared memory size
and whether it uses dynamic (extern) shared memory.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import re
from collections import Counter
from dataclasses import dataclass, field, replace

from interpreter import irparse as ir
from interpreter.debuginfo import CType, DebugInfo
from interpreter.decode import Address, DecodedFunction, DecodedGlobal, decode_function, decode_global
from interpreter.types import FloatType, IntType, PointerType, Type
from interpreter.vocabulary import INDEX_REGISTERS, index_register

ADDRESS_SPACES = {0: "generic", 1: "global", 3: "shared", 4: "constant", 5: "local"}
SHARED = 3
# The special registers behind threadIdx, blockIdx, blockDim and gridDim.


class NoSuchKernel(KeyError):
    """No kernel of the program has the name asked for (not: several have)."""


class LoadError(ValueError):
    """IR that does not parse or verify."""


@dataclass(frozen=True)
class FieldInfo:
    """A scalar or pointer member of a struct passed by value, named by its path from the
    parameter ("dim.rows", "box.lo.x", "taps[2]"); `offset` is its byte offset in the struct.
    Its kind is "integer" (bools and enums too), "float" or "pointer"."""

    name: str
    kind: str
    bits: int | None
    signed: bool | None
    offset: int
    c_type: str
    choices: tuple[int, ...] = ()  # an enum's enumerator values


@dataclass(frozen=True)
class ParamInfo:
    """A kernel parameter. `kind` is "pointer", "integer", "float", "struct" (passed by
    value) or "other"; `address_space` names where a pointer points (CUDA kernel pointers,
    generic in the IR, point to global memory)."""

    name: str
    ir_type: Type
    c_type: str | None
    kind: str
    bits: int | None
    signed: bool | None
    address_space: str | None
    pointee: str | None
    size: int
    by_value: Type | None = None  # the type of a struct passed by value
    pointee_kind: str | None = None  # what a pointer points to, as C sees it: integer, float, bool, struct, ...
    pointee_bits: int | None = None
    fields: tuple[FieldInfo, ...] = ()  # a struct by value: its members, named "param.member"
    choices: tuple[int, ...] = ()  # an enum: its enumerator values

    def to_json(self) -> dict:
        data = {"name": self.name, "type": self.c_type or str(self.ir_type), "kind": self.kind,
                "ir_type": str(self.ir_type)}
        if self.kind in ("integer", "float"):
            data["bits"] = self.bits
        if self.kind == "integer" and self.signed is not None:
            data["signed"] = self.signed
        if self.kind == "pointer":
            data["address_space"] = self.address_space
            if self.pointee:
                data["pointee"] = self.pointee
        if self.choices:
            data["choices"] = list(self.choices)
        if self.kind == "struct":
            data["size"] = self.size
            data["members"] = [{"name": f.name, "type": f.c_type, "kind": f.kind,
                                "offset": f.offset} for f in self.fields]
        return data


class KernelCode:
    """What a kernel's code uses (Program.code_facts), computed when first asked for."""

    def __init__(self, program: "Program", symbol: str):
        self.program, self.symbol = program, symbol

    @functools.cached_property
    def facts(self) -> tuple:
        return self.program.code_facts(self.symbol)


@dataclass(frozen=True)
class KernelInfo:
    symbol: str  # the IR name (mangled)
    name: str  # qualified name with template arguments, e.g. "ns::scale<float>"; overloads: with parameter types
    signature: str  # the demangled symbol, e.g. "void ns::scale<float>(float*, float, int)"
    file: str
    line: int
    params: tuple[ParamInfo, ...]
    # what its code and its callees' use, found by decoding them when first asked for (a module may
    # define hundreds of kernels, of which a check runs one): KernelCode
    code: "KernelCode" = field(compare=False, repr=False)

    @property
    def builtins(self) -> tuple[str, ...]:
        """The index registers it reads, e.g. ("ctaid.x", "ntid.x", "tid.x")."""
        return self.code.facts[0]

    @property
    def shared_bytes(self) -> int:
        """The bytes of the static __shared__ variables its code refers to."""
        return self.code.facts[1]

    @property
    def dynamic_shared(self) -> bool:
        """Whether its code refers to extern (dynamically sized) shared memory."""
        return self.code.facts[2]

    @property
    def shared_variables(self) -> tuple[str, ...]:
        """The __shared__ variables its code refers to, in module order."""
        return self.code.facts[3]

    @property
    def base_name(self) -> str:
        """The name without namespaces, template arguments and parameter types."""
        return _strip_templates(qualified_name(self.signature)).rpartition("::")[2]

    def scalars(self) -> list:
        """The numbers a launch gives: integer and float parameters (ParamInfo) and the
        integer and float members of structs passed by value (FieldInfo, "param.member")."""
        return [item for param in self.params
                for item in ([param] if param.kind in ("integer", "float") else param.fields)
                if item.kind in ("integer", "float")]

    @property
    def overload(self) -> str:
        """The signature without its return type, e.g. "ns::scale<float>(float*, float, int)":
        what tells overloaded kernels apart."""
        return self.signature.removeprefix("void ")

    def declaration(self) -> str:
        """The kernel as C: name(type name, ...)."""
        params = ", ".join(f"{_spaced(p.c_type or str(p.ir_type))}{p.name}" for p in self.params)
        return f"{self.name}({params})"

    def to_json(self) -> dict:
        return {
            "kernel": self.name,
            "symbol": self.symbol,
            "signature": self.signature,
            "file": self.file,
            "line": self.line,
            "params": [p.to_json() for p in self.params],
            "builtins": list(self.builtins),
            "shared_bytes": self.shared_bytes,
            "dynamic_shared": self.dynamic_shared,
        }


class Program:
    """A loaded module: its kernels, and its functions decoded on first use."""

    def __init__(self, module: ir.Module):
        self.module = module
        self.layout = module.datalayout
        self.debug = DebugInfo(module.metadata)
        self._functions: dict[str, DecodedFunction] = {}
        self._globals: dict[str, DecodedGlobal] = {}
        self.kernels = _overloads_named(self._kernel_info(name) for name in _kernel_symbols(module))
        # globals the host code writes (cudaMemcpyToSymbol): a launch finds in them what the host code
        # states it writes (`host_values`: [offset, hex bytes] each), else what its fill makes up
        self.host_written: frozenset[str] = frozenset()
        self.host_values: dict[str, list] = {}
        self.executions: dict[str, object] = {}  # kernel symbol -> its simt.Execution, kept to run its next launch
        self.managed: frozenset[str] = frozenset()  # __managed__ variables (the host's copy is the device's)
        self.digest = ""  # the SHA-256 of the IR text it was loaded from ('' when made in memory)

    def function(self, name: str) -> DecodedFunction:
        """The decoded definition of function `name` (decoded once)."""
        if name not in self._functions:
            self._functions[name] = decode_function(self.module.functions[name], self.layout, self.debug)
        return self._functions[name]

    def global_variable(self, name: str) -> DecodedGlobal:
        """The memory image of global variable `name` (decoded once)."""
        if name not in self._globals:
            self._globals[name] = decode_global(self.module.globals[name], self.layout)
        return self._globals[name]

    def kernel(self, name: str) -> KernelInfo:
        """The kernel called `name`: its symbol, qualified name, name without template
        arguments, signature, or signature without `void` (to tell overloads apart), spaced
        as the user likes (`f<float,2>` is `f<float, 2>`) and with or without the casts
        clang writes in template arguments (`f<128, true>` is `f<(unsigned int)128, true>`).
        Raises KeyError naming at most MAX_CHOICES of the kernels it could mean when it is
        not unique, NoSuchKernel naming at most MAX_CHOICES close names when none is."""
        for attribute in ("symbol", "name", "signature", "overload"):
            found = [k for k in self.kernels if getattr(k, attribute) == name]
            if len(found) == 1:
                return found[0]
        for spelling in (_unspaced, _uncast):
            for attribute in ("name", "signature", "overload"):
                found = [k for k in self.kernels if spelling(getattr(k, attribute)) == spelling(name)]
                if len(found) == 1:
                    return found[0]
        found = [k for k in self.kernels if k.base_name == name or _strip_templates(k.name) == name]
        if len(found) == 1:
            return found[0]
        if found:
            names = [k.name for k in found]
            names = names if len(set(names)) == len(names) else [k.signature for k in found]  # overloads
            raise KeyError(f"kernel '{name}' is ambiguous: it names {_some(names)}")
        names = [k.name for k in self.kernels]
        close = difflib.get_close_matches(name, names, MAX_CHOICES, 0.5) or \
            [n for n in names if name in n or _strip_templates(n) in name][:MAX_CHOICES]
        known = f"{len(names)} kernel{'s' if len(names) != 1 else ''}" if names else "no kernels"
        raise NoSuchKernel(f"kernel '{name}' not found" + (f"; close: {_some(close)}" if close else "") +
                           f" ({known}: `simulee kernels FILE` lists them)")

    def host_writes(self, written) -> None:
        """The device variables the host code writes: name -> what it writes ([offset, hex
        bytes] each) when the host code states it, else None (sites.read_host)."""
        written = dict(written)
        self.host_written = frozenset(written)
        self.host_values = {name: list(writes) for name, writes in written.items() if writes is not None}

    def reads_host_written(self, name: str) -> bool:
        """Whether function `name` or one it calls names a variable the host code writes
        with content it does not state (Simulee invents it)."""
        invented = self.host_written - set(self.host_values)
        names = {f"@{variable}" for variable in invented} | {f'@"{v}"' for v in invented}
        return bool(names) and any(
            any(word in instruction.text for word in names)
            for function in self.reachable_functions(name)
            for block in self.module.functions[function.name].blocks for instruction in block.instructions)

    def reachable_functions(self, name: str) -> list[DecodedFunction]:
        """Function `name` and every defined function it can call."""
        order, pending = [], [name]
        seen = {name}
        while pending:
            decoded = self.function(pending.pop())
            order.append(decoded)
            for callee in decoded.callees:
                definition = self.module.functions.get(callee)
                if callee not in seen and definition is not None and not definition.is_declaration:
                    seen.add(callee)
                    pending.append(callee)
        return order

    def _kernel_info(self, symbol: str) -> KernelInfo:
        function = self.module.functions[symbol]
        subprogram = self.debug.subprogram(function.dbg)
        file = self.debug.file(subprogram["file"][1]) if isinstance(subprogram.get("file"), tuple) else ""
        signature = demangle(symbol)
        return KernelInfo(
            symbol,
            qualified_name(signature),
            signature,
            file or self.module.source_filename,
            subprogram.get("line", 0) or 0,
            tuple(self._params(function)),
            KernelCode(self, symbol),
        )

    def code_facts(self, symbol: str) -> tuple:
        """What kernel `symbol`'s code and callees use (KernelInfo's builtins, shared_bytes,
        dynamic_shared, shared_variables)."""
        reachable = self.reachable_functions(symbol)
        builtins = sorted(
            {
                register
                for decoded in reachable
                for callee in decoded.callees
                if (register := index_register(callee))
            },
            key=lambda b: (INDEX_REGISTERS.index(b.partition(".")[0]), b),
        )
        referenced = _referenced_globals(reachable)
        shared = [variable for name, variable in self.module.globals.items()
                  if name in referenced and variable.addrspace == SHARED]
        return (
            tuple(builtins),
            _static_size([g for g in shared if g.initializer is not None], self.layout),
            any(g.initializer is None for g in shared),
            tuple(name for name in self.module.globals if name in referenced
                  and self.module.globals[name].addrspace == SHARED),
        )

    def _params(self, function: ir.Function):
        names = self.debug.parameter_names(function.dbg)
        c_types = self.debug.parameter_types(function.dbg)
        members = self.debug.parameter_members(function.dbg)
        for index, param in enumerate(function.params):
            c_type = c_types[index] if index < len(c_types) else None
            name = names.get(index + 1) or (param.name if param.name and not param.name.isdigit() else f"arg{index}")
            info = _param_info(name, param, c_type, self.layout)
            if info.kind == "struct" and index < len(members):
                info = replace(info, fields=_fields(name, members[index], info.size))
            yield info


def load_module(text: str, origin: str = "<ir>", printed: bool = False) -> Program:
    """Verify `text` with llvmlite and print it as LLVM does, then parse and index it; when
    `printed`, `text` is a valid module as llvmlite's LLVM prints it (the front end's output)
    and is parsed as it is."""
    if not printed:
        import llvmlite.binding as llvm

        try:
            module = llvm.parse_assembly(text)
            module.verify()
        except RuntimeError as error:
            message = " ".join(str(error).split())
            raise LoadError(f"{origin}: invalid LLVM IR: {message}") from None
    try:
        program = Program(ir.parse_module(text if printed else str(module)))
    except ir.IRSyntaxError as error:
        raise LoadError(f"{origin}: IR Simulee cannot read: {error}") from None
    program.digest = hashlib.sha256(text.encode()).hexdigest()
    return program


def _kernel_symbols(module: ir.Module) -> list[str]:
    kernels = [name for name, f in module.functions.items() if f.calling_convention == "ptx_kernel" and f.body]
    for number in module.named_metadata.get("nvvm.annotations", ()):
        kind, elements = module.metadata.node(number)
        if kind == "tuple" and len(elements) >= 3 and elements[1] == "kernel" and elements[2] == 1:
            target = elements[0]
            if isinstance(target, tuple) and target[0] == "global" and target[1] not in kernels:
                if target[1] in module.functions and not module.functions[target[1]].is_declaration:
                    kernels.append(target[1])
    return kernels


def _fields(param: str, members, size: int) -> tuple[FieldInfo, ...]:
    """The FieldInfo of each member debug info lists that lies within the struct's bytes."""
    fields = []
    for path, c_type, offset in members:
        kind = {"bool": "integer", "enum": "integer"}.get(c_type.kind, c_type.kind)
        bits = c_type.bits or (64 if kind == "pointer" else 32)
        if offset + bits // 8 <= size and bits in ((1, 8, 16, 32, 64) if kind == "integer" else (16, 32, 64)):
            signed = False if c_type.kind == "bool" else c_type.signed
            fields.append(FieldInfo(f"{param}.{path}", kind, 1 if c_type.kind == "bool" else bits, signed, offset,
                                    c_type.spelling, c_type.values))
    return tuple(fields)


def _param_info(name: str, param: ir.Param, c_type: CType | None, layout) -> ParamInfo:
    ty = param.type
    by_value = param.typed_attribute("byval")
    if by_value is not None:
        return ParamInfo(name, ty, c_type.spelling if c_type else str(by_value), "struct", None, None, None, None,
                         layout.size(by_value), by_value)
    try:
        size = layout.size(ty)
    except TypeError:  # opaque or target types have no size
        size = 0
    if isinstance(ty, PointerType):
        space = "global" if ty.addrspace == 0 else ADDRESS_SPACES.get(ty.addrspace, str(ty.addrspace))
        target = c_type.pointee if c_type else None
        return ParamInfo(name, ty, c_type.spelling if c_type else None, "pointer", layout.size(ty) * 8, None, space,
                         target.spelling if target else None, size, pointee_kind=target.kind if target else None,
                         pointee_bits=target.bits if target else None)
    if isinstance(ty, IntType):
        signed = c_type.signed if c_type and c_type.kind in ("integer", "bool", "enum") else None
        return ParamInfo(name, ty, c_type.spelling if c_type else None, "integer", ty.bits, signed, None, None, size,
                         choices=c_type.values if c_type else ())
    if isinstance(ty, FloatType):
        return ParamInfo(name, ty, c_type.spelling if c_type else None, "float", ty.bits, None, None, None, size)
    return ParamInfo(name, ty, c_type.spelling if c_type else None, "other", None, None, None, None, size)


def _referenced_globals(functions: list[DecodedFunction]) -> set[str]:
    """Globals whose address appears in a constant operand of these functions."""
    names: set[str] = set()

    def visit(constant) -> None:
        if isinstance(constant, Address):
            names.add(constant.name)
        elif isinstance(constant, ir.ConstAggregate):
            for element in constant.elements:
                visit(element)
        elif isinstance(constant, ir.ConstExpr):
            for operand in constant.operands:
                visit(operand)

    for function in functions:
        for constant in function.constants.values():
            visit(constant)
    return names


def _static_size(variables, layout) -> int:
    """Bytes of shared memory the variables take, laid out one after another aligned."""
    offset = 0
    for variable in variables:
        align = max(variable.align or 1, layout.align(variable.type))
        offset = (offset + align - 1) // align * align + layout.size(variable.type)
    return offset


def demangle(symbol: str) -> str:
    """The demangled C++ name of `symbol`, or `symbol` itself when it is not mangled."""
    if not symbol.startswith("_Z"):
        return symbol
    import cpp_demangle

    try:  # clang's relocatable device code renames a static kernel <symbol>__intern__<id>: its name is the symbol's
        return cpp_demangle.demangle(re.sub(r"__intern__[0-9a-f]+$", "", symbol))
    except Exception:  # the binding raises a bare ValueError/RuntimeError per version
        return symbol


def _overloads_named(kernels) -> list[KernelInfo]:
    """The kernels, each overloaded one named with its parameter types ("add(float*, int)")
    so that every name is unique."""
    kernels = list(kernels)
    names = Counter(kernel.name for kernel in kernels)
    return [kernel if names[kernel.name] == 1 else replace(kernel, name=kernel.overload) for kernel in kernels]


def qualified_name(signature: str) -> str:
    """The function name of a demangled signature: no return type, no parameter list.
    "void ns::f<int>(int*)" -> "ns::f<int>"; "(anonymous namespace)::k(int)" keeps its
    namespace."""
    depth, cut = 0, len(signature)
    for index, char in enumerate(signature):
        if char in "<(":
            if char == "(" and depth == 0:
                cut = index  # the last top-level parenthesis opens the parameter list
            depth += 1
        elif char in ">)":
            depth -= 1
    head = signature[:cut]
    depth, start = 0, 0
    for index, char in enumerate(head):
        if char in "<(":
            depth += 1
        elif char in ">)":
            depth -= 1
        elif char == " " and depth == 0:
            start = index + 1
    return head[start:]


def _unspaced(name: str) -> str:
    """`name` without the spaces C++ does not need (those between two words stay)."""
    return re.sub(r"\s+", lambda m: " " if _word(name, m.start() - 1) and _word(name, m.end()) else "", name.strip())


def _uncast(name: str) -> str:
    """`name` unspaced, without the C casts clang writes before template arguments."""
    return re.sub(r"\([A-Za-z_][\w: ]*\)(?=[-\d])", "", _unspaced(name))


def _some(names: list[str]) -> str:
    """At most MAX_CHOICES of `names`, and how many more there are."""
    more = len(names) - MAX_CHOICES
    return ", ".join(names[:MAX_CHOICES]) + (f" and {more} more" if more > 0 else "")


MAX_CHOICES = 10  # kernels an error names at most


def _word(text: str, index: int) -> bool:
    return 0 <= index < len(text) and (text[index].isalnum() or text[index] == "_")


def _strip_templates(name: str) -> str:
    out, depth = [], 0
    for char in name:
        if char == "<":
            depth += 1
        elif char == ">":
            depth -= 1
        elif depth == 0:
            out.append(char)
    return "".join(out)


def _spaced(c_type: str) -> str:
    return c_type if c_type.endswith(("*", "&")) else c_type + " "
