"""Where a launch's data lives before the first instruction runs.

Module globals become regions (constant ones read-only) with their initializers, including
the addresses stored in them; __shared__ variables get offsets in each block's shared
segment, extern __shared__ ones all the same offset after the static ones; functions get
code addresses (for function pointers). Kernel arguments become buffers (sized when the
caller gave an array, paged when not), numbers, or by-value structs that each thread gets a
copy of. After the run, the pointer arguments' buffers are read back.

What Simulee invents here (the content of a buffer no caller gave, of the buffers a table
of pointers or a struct passed by value points to, of a device variable the host writes,
the bytes of a by-value struct that are neither a pointer nor a member the launch gives: a
union, padding) gets a label (`labels`, bit i of a taint mask; interpreter.taint): its
bytes start tainted with it. The pointers Simulee puts in tables and structs do not: each
points to a buffer of its own, and an access through one meets another through it wherever
it points; what the region they point into is (Region.placed: a call through a pointer in
a struct) carries a label of its own.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from interpreter import irparse as ir
from interpreter.contents import Fill
from interpreter.decode import Address
from interpreter.launch import Alias, Allocated, Launch
from interpreter.loader import KernelInfo, ParamInfo, Program
from interpreter.memory import CODE, CONSTANT, GLOBAL, SHARED, Memory, tag
from interpreter.textures import Texture
from interpreter.types import ArrayType, FloatType, IntType, PointerType, StructType, Type, VectorType
from interpreter.values import cast, constant, dtype_of, integer_binary
from interpreter.vocabulary import Unsupported

# C types of paged buffers, for reading them back as arrays
C_DTYPES = {
    "float": np.float32, "double": np.float64, "half": np.float16, "__half": np.float16,
    "int": np.int32, "unsigned int": np.uint32, "short": np.int16, "unsigned short": np.uint16,
    "char": np.int8, "signed char": np.int8, "unsigned char": np.uint8, "bool": np.bool_,
    "long": np.int64, "unsigned long": np.uint64, "long long": np.int64, "unsigned long long": np.uint64,
    "int8_t": np.int8, "uint8_t": np.uint8, "int16_t": np.int16, "uint16_t": np.uint16, "int32_t": np.int32,
    "uint32_t": np.uint32, "int64_t": np.int64, "uint64_t": np.uint64, "size_t": np.uint64,
}


SHARED_ARRAY_ALIGN = 16  # bytes: the alignment of a kernel's shared arrays
LABEL_BITS = 64  # labels a taint mask holds; the last stands for every later one too


class LaunchError(ValueError):
    """Arguments that do not fit the kernel (missing scalar, wrong kind of value)."""


@dataclass
class Argument:
    """A kernel argument as the kernel sees it: a value, or bytes to copy per thread."""

    param: ParamInfo
    value: object = None  # scalar or tagged address
    region: int | None = None
    by_value: bytes | None = None  # struct bytes each thread gets a copy of
    array: np.ndarray | None = None  # the caller's buffer (its dtype and shape are kept)
    invented: tuple[tuple[int, int], ...] = ()  # byte ranges [start, end) of by_value Simulee invented
    taint: int = 0  # their label


class Placement:
    def __init__(self, program: Program, kernel: KernelInfo, launch: Launch, memory: Memory):
        self.program = program
        self.layout = program.layout
        self.memory = memory
        self.launch = launch
        self.addresses: dict[str, int] = {}
        self.regions: dict[str, int] = {}  # global variable -> its region
        self.textures: dict[int, Texture] = {}  # texture variable's address or object's handle -> its texture
        self.labels: list[str] = []  # what Simulee invented for this launch, by taint bit
        self.returned: dict[str, int] = {}  # function declared and never defined -> the label of what it returns
        self.calls: dict[int, int] = {}  # call site of such a function -> how often it ran (what it returns varies)
        self.function_names = list(program.module.functions)
        for index, name in enumerate(self.function_names):
            self.addresses[name] = tag(CODE, index + 1, 0)
        self.shared_bytes = self._place_globals(launch, kernel.shared_variables if kernel else ())
        params = kernel.params if kernel else []
        self.arguments = [None if isinstance(launch.args.get(param.name), Alias)
                          else self._argument(index, param, launch)
                          for index, param in enumerate(params)]
        for index, param in enumerate(params):  # aliases point where their targets do
            if self.arguments[index] is None:
                self.arguments[index] = self._alias(param, launch.args[param.name].target)

    # -- globals

    def _place_globals(self, launch: Launch, own_shared: tuple[str, ...]) -> int:
        """Regions for global and constant variables, shared offsets; returns the size of a
        block's shared segment (static variables, then the dynamic part if any). The
        kernel's own shared variables (`own_shared`) come first, as its compiler lays them
        out alone, arrays aligned to 16 bytes (vector loads of a float array are); those of
        other kernels of the module after them."""
        module = self.program.module
        static_end, dynamic = 0, []
        images = {}
        device = launch.device
        placed = device is not None and device.addresses is not None  # a program's device places them once
        if placed:
            self.addresses.update(device.addresses)
        names = [n for n in own_shared if n in module.globals] + [n for n in module.globals if n not in own_shared]
        for name in names:
            variable = module.globals[name]
            if name.startswith("llvm."):
                continue
            image = self.program.global_variable(name)
            images[name] = image
            if variable.addrspace == SHARED:
                if image.data is None:
                    dynamic.append(name)
                    continue
                align = max(image.align, SHARED_ARRAY_ALIGN if image.size >= SHARED_ARRAY_ALIGN else 1)
                static_end = (static_end + align - 1) // align * align
                self.addresses[name] = tag(SHARED, 0, static_end)
                static_end += image.size
            elif placed:
                continue
            else:
                space = CONSTANT if variable.addrspace == CONSTANT else GLOBAL
                bound = launch.args.get(name)  # an array the caller binds to a global (a texture, say)
                data = image.data if image.data is not None else np.zeros(image.size, dtype=np.uint8)
                if device is not None:  # as the program's image holds it
                    self.regions[name] = device.place(name, space, data, image.size)
                    self.addresses[name] = self.memory.region_address(self.regions[name])
                    continue
                taint = 0
                if name in launch.symbols:  # what the user states it holds
                    data = _written(data, [[0, np.ascontiguousarray(launch.symbols[name]).tobytes().hex()]])
                elif name in self.program.host_values:  # what the host code states it copies there
                    data = _written(data, self.program.host_values[name])
                elif name in self.program.host_written and not image.relocations:
                    fill = _fill(launch, launch.seed * 1000 + zlib.crc32(name.encode()), None)
                    data = _made_up(image.type, data, fill, self.layout)
                    taint = self.label(name)
                elif space == GLOBAL and not image.relocations and not any(data):
                    data = self._fresh_pointers(name, image.type, data, launch)
                region = self.memory.add_region(name, space, data, read_only=space == CONSTANT, taint=taint)
                self.regions[name] = region
                self.addresses[name] = self.memory.region_address(region)
                if isinstance(bound, np.ndarray):
                    self.textures[self.addresses[name]] = Texture.of_array(bound)
        dynamic_start = (static_end + 15) // 16 * 16
        for name in dynamic:
            self.addresses[name] = tag(SHARED, 0, dynamic_start)
        segment = dynamic_start + launch.shared_bytes if dynamic else static_end
        for name, image in images.items() if not placed else ():  # pointers stored in initializers
            for offset, target in image.relocations:
                value = np.int64(self.constant_value(target, PointerType(0)))
                if name in self.regions:
                    data = self.memory.regions[self.regions[name]].data
                    data[offset : offset + 8] = np.frombuffer(value.tobytes(), dtype=np.uint8)
        return segment

    def texture(self, handle: int) -> Texture | None:
        """The texture of a texture variable's address or a texture object's handle (the
        program's, on a program's device)."""
        found = self.textures.get(handle)
        if found is None and self.launch.device is not None:
            found = self.launch.device.textures.get(handle)
        return found

    def address_of(self, name: str) -> int:
        if name not in self.addresses:
            raise Unsupported(f"address of unknown symbol @{name}")
        return self.addresses[name]

    # -- arguments

    def _alias(self, param: ParamInfo, target: str) -> Argument:
        other = next((a for a in self.arguments if a is not None and a.param.name == target), None)
        if param.kind != "pointer" or other is None or other.param.kind != "pointer":
            raise LaunchError(f"argument {param.name}: an alias names another pointer parameter, not '{target}'")
        return Argument(param, other.value, other.region, array=other.array)

    def _argument(self, index: int, param: ParamInfo, launch: Launch) -> Argument:
        given = launch.args.get(param.name, launch.args.get(index))
        if param.kind == "struct":
            size = param.size
            if given is not None:
                data = bytes(given)
                if len(data) != size:
                    raise LaunchError(f"argument {param.name}: {len(data)} bytes given for a {size}-byte struct")
                return Argument(param, by_value=_with_members(data, param.fields, launch.args))
            # zeros, but every pointer in it gets a buffer of its own; the bytes of neither a pointer nor a
            # member the launch gives (a function pointer, a member of an array or union) are invented
            data = self._fresh_pointers(param.name, param.by_value, bytes(size), launch, index * 64)
            covered = [(offset, offset + 8) for offset in self._pointer_offsets(param.by_value, 0)] + \
                [(f.offset, f.offset + max(f.bits, 8) // 8) for f in param.fields if f.name in launch.args]
            invented = _uncovered(size, covered)
            return Argument(param, by_value=_with_members(data, param.fields, launch.args), invented=invented,
                            taint=self.label(f"the members of {param.name}") if invented else 0)
        if param.kind == "pointer":
            if given is None or isinstance(given, Allocated):
                fill = _fill(launch, launch.seed * 1000 + index, param)
                if param.pointee_kind == "pointer":  # T**: a table of pointers to buffers
                    levels = (param.pointee or "*").count("*")
                    taint = self.label(f"the buffers {param.name} points to")
                    region = self.memory.add_pointer_table(param.name, levels, fill, taint)
                else:
                    region = self.memory.add_region(param.name, GLOBAL, fill=fill, taint=self.label(param.name))
                    if isinstance(given, Allocated):  # as large as the host makes it
                        self.memory.regions[region].growth_limit = given.size
                        self.memory.regions[region].allocated = True
                return Argument(param, self.memory.region_address(region), region)
            if isinstance(given, np.ndarray):
                region = self.memory.add_region(param.name, GLOBAL, given, size=given.nbytes)
                return Argument(param, self.memory.region_address(region), region, array=given)
            if isinstance(given, (int, np.integer)) and not isinstance(given, bool) and \
                    (given == 0 or launch.device is not None):
                return Argument(param, np.int64(given))  # NULL, or an address on a program's device
            raise LaunchError(f"argument {param.name}: give a NumPy array, 0 (NULL) or nothing for a pointer")
        if given is None:
            if param.kind == "other":
                return Argument(param, constant(param.ir_type, None))
            raise LaunchError(f"no value given for parameter '{param.name}' ({param.c_type or param.ir_type})")
        if isinstance(given, np.ndarray) and param.kind == "integer" and param.bits == 64:
            # a texture object: its handle is the address of the array behind it
            region = self.memory.add_region(param.name, GLOBAL, given, size=given.nbytes, read_only=True)
            handle = self.memory.region_address(region)
            self.textures[handle] = Texture.of_array(given)
            return Argument(param, np.int64(handle))
        try:
            return Argument(param, constant(param.ir_type, given))
        except (TypeError, ValueError, OverflowError) as error:
            raise LaunchError(f"argument {param.name}: {error}") from None

    def _fresh_pointers(self, name: str, ty: Type, data, launch: Launch, seed_base: int = 0) -> bytes:
        """`data` (zeros, of type `ty`) with every pointer in it (at any depth, in arrays
        too) pointing to a buffer of its own that grows on demand, as if the host had set
        it: name.0, name.1, ... in field order. What those buffers hold is invented (one
        label for all of them); where they lie is not (an access through one meets another
        through it wherever it points), but what a pointer is (a call through it: a function
        the host would have put there) carries a label of its own (Region.placed)."""
        data = bytearray(data)
        taint = placed = 0
        for number, offset in enumerate(self._pointer_offsets(ty, 0)):
            taint = taint or self.label(f"the buffers {name} points to")
            placed = placed or self.label(f"the pointers in {name}")
            fill = _fill(launch, launch.seed * 1000 + seed_base + number)
            region = self.memory.add_region(f"{name}.{number}", GLOBAL, fill=fill, taint=taint)
            self.memory.regions[region].placed = self.memory.label_index(placed)  # the host's pointer there
            data[offset : offset + 8] = np.int64(self.memory.region_address(region)).tobytes()
        return bytes(data)

    def label(self, what: str) -> int:
        """The taint mask of a new label naming `what` Simulee invented (LABEL_BITS at
        most: the last stands for it and every later one)."""
        if len(self.labels) < LABEL_BITS:
            self.labels.append(what)
        elif not self.labels[-1].startswith("and "):
            self.labels[-1] = "and other values Simulee made up"
        return 1 << (len(self.labels) - 1)

    def _pointer_offsets(self, ty: Type, base: int):
        if isinstance(ty, PointerType):
            yield base
        elif isinstance(ty, StructType):
            for field, offset in zip(ty.fields, self.layout.field_offsets(ty)):
                yield from self._pointer_offsets(field, base + offset)
        elif isinstance(ty, ArrayType) and ty.count <= 1024:
            stride = self.layout.size(ty.element)
            for element in range(ty.count):
                yield from self._pointer_offsets(ty.element, base + element * stride)

    def output_buffers(self) -> dict[str, np.ndarray]:
        """The final contents of every pointer argument's buffer, keyed by parameter name:
        the caller's arrays with their dtype and shape; paged buffers up to the last byte
        touched, typed by the parameter's pointee when it is a plain C type."""
        buffers = {}
        for argument in self.arguments:
            if argument.region is None or argument.param.kind != "pointer":
                continue
            region = self.memory.regions[argument.region]
            if argument.array is not None:
                raw = region.data[: argument.array.nbytes].copy()
                buffers[argument.param.name] = raw.view(argument.array.dtype).reshape(argument.array.shape)
            else:
                dtype = element_dtype(argument.param) or np.dtype(np.uint8)
                count = region.touched // dtype.itemsize
                buffers[argument.param.name] = region.data[: count * dtype.itemsize].copy().view(dtype)
        return buffers

    # -- constants

    def constant_value(self, value, ty: Type):
        """A decoded constant as a runtime value (addresses resolved)."""
        if isinstance(value, Address):
            return np.int64(self.address_of(value.name) + value.offset)
        if isinstance(value, (ir.ConstInt, ir.ConstFloat)):
            return constant(ty, value.value)
        if isinstance(value, ir.ConstSpecial):
            return constant(ty, None)
        if isinstance(value, ir.ConstAggregate):
            if isinstance(ty, StructType):
                return tuple(self.constant_value(e, f) for e, f in zip(value.elements, ty.fields))
            if isinstance(ty, VectorType):
                return np.array([self.constant_value(e, ty.element) for e in value.elements], dtype=dtype_of(ty))
            return tuple(self.constant_value(e, ty.element) for e in value.elements)
        if isinstance(value, ir.ConstBytes):
            return tuple(constant(ty.element, b) for b in value.data)
        if isinstance(value, ir.ConstSplat):
            element = self.constant_value(value.element, ty.element)
            return np.full(ty.count, element, dtype=dtype_of(ty))
        if isinstance(value, ir.Global):
            return np.int64(self.address_of(value.name))
        if isinstance(value, ir.ConstExpr):
            return self._expression(value, ty)
        raise Unsupported(f"constant {value}")

    def _expression(self, expression: ir.ConstExpr, ty: Type):
        operands = [self.constant_value(o, o.type if hasattr(o, "type") else ty) for o in expression.operands]
        opcode = expression.opcode
        if opcode in ("bitcast", "addrspacecast", "ptrtoint", "inttoptr", "trunc", "zext", "sext"):
            return cast(opcode, operands[0], expression.operands[0].type, expression.type)[()]
        if opcode in ("add", "sub", "mul", "and", "or", "xor", "shl"):
            return np.asarray(integer_binary(opcode, operands[0], operands[1], ty))[()]
        if opcode == "getelementptr":
            offset = 0
            current = expression.source_type
            indices = [int(v) for v in operands[1:]]
            if indices:
                offset += self.layout.size(current) * indices[0]
            for index in indices[1:]:
                if isinstance(current, StructType):
                    offset += self.layout.field_offsets(current)[index]
                    current = current.fields[index]
                else:
                    current = current.element
                    offset += self.layout.size(current) * index
            return np.int64(int(operands[0]) + offset)
        raise Unsupported(f"constant expression '{opcode}'")


def element_dtype(param: ParamInfo) -> np.dtype | None:
    """The dtype of the numbers a pointer parameter points to (at the last level of a
    `T **`): its C type's (unsigned ones too), else by kind and width; None for structs,
    void and unknown types."""
    name = (param.pointee or "").replace("const ", "").replace("volatile ", "").replace("*", "").strip()
    if name in C_DTYPES:
        return np.dtype(C_DTYPES[name])
    bits = param.pointee_bits
    if param.pointee_kind == "float" and bits in (16, 32, 64):
        return np.dtype(f"<f{bits // 8}")
    if param.pointee_kind in ("integer", "enum") and bits in (8, 16, 32, 64):
        return np.dtype(f"<i{bits // 8}")
    if param.pointee_kind == "bool":
        return np.dtype(np.bool_)
    return None


def _fill(launch: Launch, seed: int, param: ParamInfo | None = None) -> Fill | None:
    """The content of a paged buffer of the launch, drawn as the type `param` points to
    (None: zeros)."""
    if launch.fill == "zeros":
        return None
    dtype = element_dtype(param) if param is not None else None
    dtype = dtype if dtype is not None and dtype.kind in "iuf" and dtype.itemsize in (1, 2, 4, 8) else np.dtype("<u4")
    return Fill(launch.fill, seed, dtype.str, launch.dictionary)


def _made_up(type_: Type, data: np.ndarray, fill: Fill | None, layout) -> np.ndarray:
    """A global's bytes as the host code might have written them: elements of its
    (innermost array) type drawn from `fill` (None: as they are)."""
    if fill is None:
        return data
    element = type_
    while isinstance(element, ArrayType):
        element = element.element
    scalar = isinstance(element, (IntType, FloatType)) and element.bits in (8, 16, 32, 64)
    dtype = dtype_of(element) if scalar else np.dtype("<u4")  # a struct's members as words
    count = len(data) // dtype.itemsize
    made = np.frombuffer(bytes(data), dtype=np.uint8).copy()
    drawn = Fill(fill.mode, fill.seed, dtype.str, fill.dictionary).values(np.arange(count, dtype=np.int64))
    made[:count * dtype.itemsize] = np.frombuffer(drawn.astype(dtype).tobytes(), dtype=np.uint8)
    return made


def _written(data: np.ndarray, writes: list) -> np.ndarray:
    """A global's bytes after the host's writes ([offset, hex bytes] each) in order."""
    image = np.frombuffer(bytes(data), dtype=np.uint8).copy()
    for offset, hexed in writes:
        raw = np.frombuffer(bytes.fromhex(hexed), dtype=np.uint8)[: max(0, len(image) - offset)]
        image[offset : offset + len(raw)] = raw
    return image


def _uncovered(size: int, covered: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """The byte ranges [start, end) of [0, size) that no range of `covered` holds."""
    free = np.ones(size, dtype=bool)
    for start, end in covered:
        free[start:end] = False
    edges = np.flatnonzero(np.diff(np.concatenate([[0], free.astype(np.int8), [0]])))
    return tuple((int(a), int(b)) for a, b in zip(edges[::2], edges[1::2]))


def _with_members(data: bytes, fields, args: dict) -> bytes:
    """A struct's bytes with the members `args` gives ("param.member": value) written in."""
    given = [(field, args[field.name]) for field in fields if field.kind != "pointer" and field.name in args]
    if not given:
        return data
    buffer = bytearray(data)
    for field, value in given:
        if field.kind == "float":
            dtype = {16: np.float16, 32: np.float32, 64: np.float64}[field.bits]
            raw = np.asarray(value, dtype=np.float64).astype(dtype).tobytes()
        else:
            width = max(field.bits, 8) // 8
            raw = (int(value) & ((1 << (8 * width)) - 1)).to_bytes(width, "little")
        buffer[field.offset : field.offset + len(raw)] = raw
    return bytes(buffer)
