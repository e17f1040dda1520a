"""Which parameters of a kernel matter to the search (after SESA): a static taint over the
decoded IR from each scalar parameter, and from the content of each pointer parameter's
buffer, to the places where a value decides what threads do to memory, namely addresses
(of loads, stores, atomics, memcpy/memset) and branch conditions (which include loop
bounds). A scalar that reaches neither cannot make threads collide, so the search keeps it
fixed; a buffer whose content reaches neither needs no content searched.

Taint is a bit set of parameters per SSA value. It flows through every computation (an
instruction's result carries the taint of all its operands, a load also that of its
address), through memory (a store taints the object its pointer is based on: an alloca, a
global or a parameter's buffer; a load from that object is tainted), and through calls
(arguments to the callee's parameters, its returns back to the result). It is a may
analysis: conservative, so a relevant parameter is never kept fixed by mistake."""

from __future__ import annotations

from dataclasses import dataclass

from interpreter import irparse as ir
from interpreter.decode import DecodedFunction
from interpreter.loader import KernelInfo, Program
from interpreter.types import ArrayType, StructType
from interpreter.vocabulary import SPECIAL_REGISTER

ADDRESS, BRANCH, DIVISOR = "address", "branch", "divisor"
INTEGER_DIVISION = {"udiv", "sdiv", "urem", "srem"}  # operand 1 is the divisor
MEMORY_ADDRESS = {"load": 0, "store": 1, "atomicrmw": 0, "cmpxchg": 0}  # opcode -> pointer operand
POINTER_STEPS = {"getelementptr", "bitcast", "addrspacecast"}  # results based on operand 0
MEMORY_INTRINSICS = ("llvm.memcpy", "llvm.memmove", "llvm.memset")


def relevant_parameters(program: Program, kernel: KernelInfo) -> dict[str, list[str]]:
    """Parameter name -> where it flows: "address", "branch" (both when both), for scalar
    (integer and float) parameters, for pointer parameters, whose buffer's content is what
    flows (a value loaded from it), and for structs passed by value (any member of them,
    named by the struct: `d` for `d.cols`); parameters that reach neither are left out. A
    relevant parameter that also flows into an integer divisor has "divisor" too. Computed
    once per kernel: callers must not change it."""
    root = program.function(kernel.symbol)
    if "relevant_parameters" in root.analyses:
        return root.analyses["relevant_parameters"]
    sources = [(index, param) for index, param in enumerate(kernel.params)
               if param.kind in ("integer", "float", "pointer", "struct")]
    taint = _solved(program, kernel, sources)
    found = {param.name: [use for use in (ADDRESS, BRANCH, DIVISOR) if taint.sinks[use] >> bit & 1]
             for bit, (_, param) in enumerate(sources)
             if taint.sinks[ADDRESS] >> bit & 1 or taint.sinks[BRANCH] >> bit & 1}
    root.analyses["relevant_parameters"] = found
    return found


@dataclass(frozen=True)
class AddressSource:
    """What the index or address of one instruction depends on: scalar parameters (a struct
    passed by value by its name, for any member of it), the content of pointer parameters'
    buffers (a value loaded from them), the launch's dimensions (`dims`: gridDim.x for a
    read of blockIdx.x or gridDim.x, blockDim.x for one of threadIdx.x or blockDim.x, ...),
    and whether it depends on anything that differs between threads (a thread or block
    index or other special register, any value loaded from memory)."""

    scalars: frozenset[str]
    contents: frozenset[str]
    varying: bool
    dims: frozenset[str] = frozenset()

    def uniform_in(self, names: set[str]) -> frozenset[str]:
        """The parameters of `names` this index depends on when it depends on nothing
        else that varies (the same index in every thread): empty otherwise."""
        return self.scalars & names if not self.varying and not self.contents else frozenset()


def address_sources(program: Program, kernel: KernelInfo) -> dict[tuple[str, int], AddressSource]:
    """(function, op index) -> what its index or address depends on, for every
    getelementptr (its variable indices), load, store, atomic and memcpy/memset (its
    addresses) that depends on a parameter or on what varies. The content of a table of pointers (`T **`)
    is no source: Simulee fills it with buffers of its own."""
    root = program.function(kernel.symbol)
    if "address_sources" in root.analyses:
        return root.analyses["address_sources"]
    sources = [(index, param) for index, param in enumerate(kernel.params)
               if param.kind in ("integer", "float", "struct")
               or param.kind == "pointer" and param.pointee_kind != "pointer"]
    varying = 1 << len(sources)
    dims = {register: varying << (1 + position) for position, register in enumerate(DIMENSION_REGISTERS)}
    taint = _solved(program, kernel, sources, varying, dims)
    found = {}
    for function in taint.functions.values():
        for position, op in enumerate(function.ops):
            if op.opcode == "getelementptr":
                slots = [slot for slot in op.args[1:] if slot not in function.constants]
            elif op.opcode in MEMORY_ADDRESS:
                slots = [op.args[MEMORY_ADDRESS[op.opcode]]]
            elif op.opcode == "call" and (op.extra.get("callee") or "").startswith(MEMORY_INTRINSICS):
                slots = op.args[:1 if op.extra["callee"].startswith("llvm.memset") else 2]  # its destination, source
            else:
                continue
            bits = 0
            for slot in slots:
                bits |= taint.get(function.name, slot)
            if bits:
                named = [(p.name, p.kind == "pointer") for bit, (_, p) in enumerate(sources) if bits >> bit & 1]
                found[(function.name, position)] = AddressSource(
                    frozenset(n for n, pointer in named if not pointer),
                    frozenset(n for n, pointer in named if pointer),
                    bool(bits & varying),
                    frozenset(DIMENSION_REGISTERS[register] for register, bit in dims.items() if bits & bit))
    root.analyses["address_sources"] = found
    return found


def stride_parameters(program: Program, kernel: KernelInfo) -> set[str]:
    """The integer parameters that multiply a thread-dependent index (`row * pitch`,
    `channel * area`) and decide no branch: row strides, by how they are used."""
    sources = [(index, param) for index, param in enumerate(kernel.params) if param.kind == "integer"]
    varying = 1 << len(sources)
    taint = _solved(program, kernel, sources, varying)
    multipliers = 0
    for function in taint.functions.values():
        for op in function.ops:
            if op.opcode == "mul" and len(op.args) == 2:
                a, b = (taint.get(function.name, slot) for slot in op.args)
                for scalar, index in ((a, b), (b, a)):
                    if index & varying and not scalar & varying:
                        multipliers |= scalar
    branching = taint.sinks[BRANCH]
    return {param.name for bit, (_, param) in enumerate(sources) if multipliers >> bit & 1 and not branching >> bit & 1}


ROW_SPAN_LIMIT = 8  # a row stride is padded to fewer times a size than this (bounds the memory a launch takes)


def row_span(program: Program, kernel: KernelInfo, strides: set[str]) -> int:
    """How many times a size argument the rows of the kernel's matrices span, as its code
    indexes them: 1 + the largest constant below ROW_SPAN_LIMIT that an integer parameter
    other than a stride (in a value the same in every thread) is multiplied by, or shifted
    left by as a power of two (`row[j + cell_dim * 4]` in a row of five LSTM gates: 5);
    at least 2. Larger constants (`octave * 192`) index tables or planes, not a row."""
    sources = [(index, param) for index, param in enumerate(kernel.params)
               if param.kind == "integer" and param.name not in strides]
    varying = 1 << len(sources)
    taint = _solved(program, kernel, sources, varying)
    largest = 1
    for function in taint.functions.values():
        for op in function.ops:
            if op.opcode not in ("mul", "shl") or len(op.args) != 2:
                continue
            constants = [function.constants.get(slot) for slot in op.args]
            for position, constant in enumerate(constants):
                other = taint.get(function.name, op.args[1 - position])
                if not isinstance(constant, ir.ConstInt) or not other or other & varying:
                    continue
                factor = constant.value if op.opcode == "mul" else 1 << constant.value if position == 1 else 0
                if factor < ROW_SPAN_LIMIT:  # larger ones index tables or planes, not the gates of a row
                    largest = max(largest, factor)
    return max(largest + 1, 2)


@dataclass(frozen=True)
class Stride:
    """A constant that bounds threadIdx.x in an address: the address steps by `size` along
    something else (a row index times 256, a loop's chunk times 256, an outer index of a
    `float s[8][32]` array) and adds the thread's x index, so the code is written for at
    most `size` threads along x (`global`: x over the grid, when the thread's x index
    counts blockIdx.x too and no stride multiplies it). `line` is where it steps."""

    size: int
    line: int | None
    global_x: bool


THREAD_X, BLOCK_X, VARIES = 1, 2, 4  # taint bits: threadIdx.x, blockIdx.x, what differs between threads or trips


def thread_strides(program: Program, kernel: KernelInfo) -> dict[tuple[str, int], Stride]:
    """(function, op index) -> the smallest Stride bounding threadIdx.x in the address of
    that load, store or atomic, for those whose address depends on threadIdx.x and on such
    a stride: a product (mul, or shl by a constant) of a constant of 2 or more and a value
    that varies (between threads, blocks or a loop's trips) but not with threadIdx.x, or
    the extent of an array dimension the thread's index indexes within a larger array
    (`s[row][threadIdx.x]`)."""
    root = program.function(kernel.symbol)
    if "thread_strides" in root.analyses:
        return root.analyses["thread_strides"]
    functions = {f.name: f for f in program.reachable_functions(kernel.symbol)}
    base = _Taint(functions, varying=VARIES, dims={"tid.x": THREAD_X, "ctaid.x": BLOCK_X})
    for function in functions.values():
        for op in function.ops:
            if op.opcode == "phi":  # a loop's counter: what a stride multiplies may step with it
                base.add(function.name, op.result, VARIES)
    base.solve()
    strides: list[tuple[int, int | None, bool]] = []  # (size, line, whether blockIdx.x is what it multiplies)
    marked = _Taint(base.functions, addresses=False)  # a stride is arithmetic on an index, not what it indexes
    for function in base.functions.values():
        for result, stride in _strides_in(function, base).items():
            if stride not in strides:
                strides.append(stride)
            if strides.index(stride) < 60:
                marked.add(function.name, result, 1 << strides.index(stride))
    marked.solve()
    found = {}
    for function in base.functions.values():
        for position, op in enumerate(function.ops):
            if op.opcode not in MEMORY_ADDRESS:
                continue
            pointer = op.args[MEMORY_ADDRESS[op.opcode]]
            bits, through = marked.get(function.name, pointer), base.get(function.name, pointer)
            if not bits or not through & THREAD_X:
                continue
            reaching = [strides[bit] for bit in range(len(strides)) if bits >> bit & 1]
            size, line, _ = min(reaching)
            rows_of_blocks = any(by_block for _, _, by_block in reaching)  # blockIdx.x is a row, not part of x
            found[(function.name, position)] = Stride(size, line, bool(through & BLOCK_X) and not rows_of_blocks)
    root.analyses["thread_strides"] = found
    return found


BLOCK_WIDTH = 8  # taint bit: blockDim.x


def block_strides(program: Program, kernel: KernelInfo) -> dict[tuple[str, int], int | None]:
    """(function, op index) -> line of the product, for each load, store or atomic whose
    address adds blockIdx.x to threadIdx.x times blockDim.x (`a[threadIdx.x * blockDim.x +
    blockIdx.x]`, blocks as the columns of a block-wide row): written for at most blockDim.x
    blocks along x, as `a[blockIdx.x * blockDim.x + threadIdx.x]` is for threads of at most
    blockDim.x."""
    root = program.function(kernel.symbol)
    if "block_strides" in root.analyses:
        return root.analyses["block_strides"]
    functions = {f.name: f for f in program.reachable_functions(kernel.symbol)}
    base = _Taint(functions, dims={"tid.x": THREAD_X, "ctaid.x": BLOCK_X, "ntid.x": BLOCK_WIDTH})
    base.solve()
    marked, lines = _Taint(base.functions, addresses=False), {}
    for function in base.functions.values():
        for op in function.ops:
            if op.opcode != "mul" or len(op.args) != 2 or op.result < 0:
                continue
            first, second = (base.get(function.name, slot) for slot in op.args)
            if {first, second} == {BLOCK_WIDTH, THREAD_X}:
                marked.add(function.name, op.result, 1)
                lines[(function.name, op.result)] = op.location and op.location.line
    marked.solve()
    found = {}
    for function in base.functions.values():
        for position, op in enumerate(function.ops):
            if op.opcode in MEMORY_ADDRESS:
                pointer = op.args[MEMORY_ADDRESS[op.opcode]]
                if marked.get(function.name, pointer) and base.get(function.name, pointer) & BLOCK_X:
                    found[(function.name, position)] = next(
                        (line for (name, _), line in lines.items() if name == function.name), None)
    root.analyses["block_strides"] = found
    return found


def _strides_in(function: DecodedFunction, base: "_Taint") -> dict[int, tuple[int, int | None, bool]]:
    """Result slot -> (size, line, whether what it multiplies depends on blockIdx.x) of each
    stride `function` makes: a scaling by constants (`row * 4 * 128` is one stride of 512)
    whose result no further constant scales, or an array index within a larger array."""
    scaled = {}  # result -> (constant factor, what it scales) of each multiplication by a constant
    for op in function.ops:
        if op.opcode in ("mul", "shl") and len(op.args) == 2 and op.result >= 0:
            for position, slot in enumerate(op.args):
                constant = function.constants.get(slot)
                if isinstance(constant, ir.ConstInt) and op.args[1 - position] not in function.constants:
                    factor = constant.value if op.opcode == "mul" else \
                        1 << constant.value if position == 1 and 0 < constant.value < 31 else 0
                    scaled[op.result] = (factor, op.args[1 - position], op)
    inner = {what for _, what, _ in scaled.values()}
    found = {}
    for result, (size, what, op) in scaled.items():
        if result in inner:
            continue  # scaled again: the outer product is the stride
        while what in scaled:
            size, what = size * scaled[what][0], scaled[what][1]
        if size >= 2 and base.get(function.name, what) & (THREAD_X | VARIES) == VARIES:  # varies, not by x
            found[result] = (size, op.location and op.location.line, bool(base.get(function.name, what) & BLOCK_X))
    for op in function.ops:
        if op.opcode == "getelementptr" and op.result >= 0:
            size = _thread_extent(function, op, base)
            if size is not None:
                found[op.result] = (size, op.location and op.location.line, False)
    return found


def _thread_extent(function: DecodedFunction, op, base: "_Taint") -> int | None:
    """The length of the array dimension a getelementptr indexes by threadIdx.x, when the
    array lies within a larger one (`s[row][threadIdx.x]`: the row's length), else None."""
    indexed = op.extra.get("source_type")
    for slot in op.args[2:]:
        constant = function.constants.get(slot)
        if isinstance(indexed, ArrayType):
            if constant is None and base.get(function.name, slot) & THREAD_X and indexed.count >= 2:
                return indexed.count
            indexed = indexed.element
        elif isinstance(indexed, StructType) and isinstance(constant, ir.ConstInt) and \
                0 <= constant.value < len(indexed.fields):
            indexed = indexed.fields[constant.value]
        else:
            return None
    return None


def pointer_accesses(program: Program, kernel: KernelInfo) -> dict[str, set[str]]:
    """Pointer parameter name -> "read" and/or "write": whether the kernel (or a device
    function it passes the pointer to) loads or stores through it (an atomic writes: it
    accumulates into an output).
    Accesses through pointers of other origin (a phi, a pointer loaded from memory) are
    not seen."""
    functions = {f.name: f for f in program.reachable_functions(kernel.symbol)}
    bases = {name: _pointer_bases(function) for name, function in functions.items()}
    origin: dict[tuple, set[int]] = {("param", kernel.symbol, index): {index}
                                     for index, param in enumerate(kernel.params) if param.kind == "pointer"}
    changed = True
    while changed:  # a pointer passed to a device function is its parameter there
        changed = False
        for name, function in functions.items():
            for op in function.ops:
                target = functions.get(op.extra.get("callee") or "") if op.opcode == "call" else None
                for position, slot in enumerate(op.args if target is not None else ()):
                    found = origin.get(bases[name].get(slot), set())
                    key = ("param", target.name, position)
                    if found - origin.get(key, set()):
                        origin.setdefault(key, set()).update(found)
                        changed = True
    uses: dict[str, set[str]] = {}
    for name, function in functions.items():
        for op in function.ops:
            if op.opcode in MEMORY_ADDRESS:
                kinds = ("read",) if op.opcode == "load" else ("write",)
                pointers = [(op.args[MEMORY_ADDRESS[op.opcode]], kinds)]
            elif op.opcode == "call" and (op.extra.get("callee") or "").startswith(MEMORY_INTRINSICS):
                pointers = [(op.args[0], ("write",))] + [(slot, ("read",)) for slot in op.args[1:2]]
            else:
                continue
            for slot, kinds in pointers:
                for index in origin.get(bases[name].get(slot), ()):
                    uses.setdefault(kernel.params[index].name, set()).update(kinds)
    return uses


# the special registers that range over a launch dimension, and that dimension
DIMENSION_REGISTERS = {f"{register}.{axis}": f"{dimension}.{axis}" for axis in "xyz"
                       for register, dimension in (("ctaid", "gridDim"), ("nctaid", "gridDim"), ("tid", "blockDim"),
                                                   ("ntid", "blockDim"))}


def _solved(program: Program, kernel: KernelInfo, sources: list[tuple[int, object]], varying: int = 0,
            dims: dict[str, int] | None = None) -> "_Taint":
    """The taint fixpoint with bit i for the i-th of `sources` ((index, parameter)): on a
    scalar's value, on what a pointer's buffer holds; and `dims`' bit on a read of each
    special register it names."""
    functions = {f.name: f for f in program.reachable_functions(kernel.symbol)}
    root = functions[kernel.symbol]
    taint = _Taint(functions, varying=varying, dims=dims or {})
    for bit, (index, param) in enumerate(sources):
        if param.kind in ("pointer", "struct"):  # a struct passed by value is the memory its pointer points to
            taint.objects[("param", root.name, index)] = 1 << bit
        else:
            taint.add(root.name, root.params[index], 1 << bit)
    taint.solve()
    return taint


class _Taint:
    """The fixpoint: taint bits per (function, slot), per memory object and per function
    return, and the bits that reached each kind of sink. With a `varying` bit, the result
    of every special-register read, load and atomic carries it too (it differs between
    threads). Without `addresses`, a value loaded carries what the memory it is loaded from
    holds, not what its address was computed from (an index stays an index through
    arithmetic only)."""

    def __init__(self, functions: dict[str, DecodedFunction], varying: int = 0, dims: dict[str, int] | None = None,
                 addresses: bool = True):
        self.functions = functions
        self.varying = varying
        self.addresses = addresses
        self.dims = dims or {}
        self.values: dict[tuple[str, int], int] = {}
        self.objects: dict[object, int] = {}
        self.returns: dict[str, int] = {}
        self.sinks = {ADDRESS: 0, BRANCH: 0, DIVISOR: 0}
        self.bases = {name: _pointer_bases(function) for name, function in functions.items()}

    def add(self, function: str, slot: int, bits: int) -> bool:
        old = self.values.get((function, slot), 0)
        if bits & ~old:
            self.values[(function, slot)] = old | bits
            return True
        return False

    def get(self, function: str, slot: int) -> int:
        return self.values.get((function, slot), 0)

    def solve(self) -> None:
        changed = True
        while changed:
            changed = False
            for function in self.functions.values():
                for op in function.ops:
                    changed |= self.visit(function, op)

    def visit(self, function: DecodedFunction, op) -> bool:
        """Propagate through one instruction; True when anything gained bits."""
        name = function.name
        bits = 0
        for slot in op.args:
            bits |= self.get(name, slot)
        opcode = op.opcode
        changed = False
        if opcode in MEMORY_ADDRESS:
            pointer = op.args[MEMORY_ADDRESS[opcode]]
            self.sinks[ADDRESS] |= self.get(name, pointer)
            base = self.bases[name].get(pointer)
            if not self.addresses:  # what is stored, and what was there, not where
                bits = 0
                for position, slot in enumerate(op.args):
                    bits |= self.get(name, slot) if position != MEMORY_ADDRESS[opcode] else 0
            if opcode != "load":  # the stored value taints the object written
                changed |= self._taint_object(base, bits)
            bits |= self.objects.get(None, 0) | self.objects.get(base, 0) if base is not None else self._any_object()
            bits |= self.varying
        elif opcode in INTEGER_DIVISION:
            self.sinks[DIVISOR] |= self.get(name, op.args[1])
        elif opcode in ("br", "switch"):
            self.sinks[BRANCH] |= bits
            return False
        elif opcode == "call":
            callee = op.extra.get("callee") or ""
            if callee.startswith(MEMORY_INTRINSICS):
                self.sinks[ADDRESS] |= bits
            if callee.startswith(SPECIAL_REGISTER):
                bits |= self.varying | self.dims.get(callee[len(SPECIAL_REGISTER):], 0)
            target = self.functions.get(callee)
            if target is not None:
                for slot, parameter in zip(op.args, target.params):
                    changed |= self.add(target.name, parameter, self.get(name, slot))
                bits = self.returns.get(callee, 0)
        elif opcode == "ret":
            old = self.returns.get(name, 0)
            self.returns[name] = old | bits
            return bool(bits & ~old)
        if op.result >= 0:
            changed |= self.add(name, op.result, bits)
        return changed

    def _taint_object(self, base, bits: int) -> bool:
        old = self.objects.get(base, 0)
        if bits & ~old:
            self.objects[base] = old | bits
            return True
        return False

    def _any_object(self) -> int:
        """A load through a pointer of unknown origin may read any object."""
        bits = 0
        for value in self.objects.values():
            bits |= value
        return bits


def _in_device_memory(base) -> bool:
    """Whether an object is a buffer a parameter or device variable gives (or one its
    pointers point to): not a thread's own stack, where a kernel keeps its own pointers."""
    while base is not None and base[0] == "pointee":
        base = base[1]
    return base is not None and base[0] in ("param", "global")


def _pointer_bases(function: DecodedFunction) -> dict[int, object]:
    """Slot -> the object a pointer is based on: ("alloca", function, slot), ("param",
    function, index) or ("global", name), following getelementptr and casts, or
    ("pointee", object) for a pointer loaded from a parameter's or device variable's
    memory (the buffers a table of pointers points to, as Simulee fills tables: not the
    table itself); pointers of other origin (phis, selects, a thread's stack) are left out
    (unknown)."""
    bases: dict[int, object] = {}
    for index, slot in enumerate(function.params):
        bases[slot] = ("param", function.name, index)
    for slot, constant in function.constants.items():
        name = getattr(constant, "name", None)
        if name is not None:
            bases[slot] = ("global", name)
    for op in function.ops:
        if op.opcode == "alloca":
            bases[op.result] = ("alloca", function.name, op.result)
    changed = True
    while changed:
        changed = False
        for op in function.ops:
            if op.opcode in POINTER_STEPS and op.result >= 0 and op.result not in bases and op.args[0] in bases:
                bases[op.result] = bases[op.args[0]]
                changed = True
            elif op.opcode == "load" and op.result >= 0 and op.result not in bases and \
                    _in_device_memory(bases.get(op.args[0])):
                bases[op.result] = ("pointee", bases[op.args[0]])
                changed = True
    return bases
