"""Launch sites: where the host code launches each kernel, and with what.

The host side of a source is compiled with LLVM's -O1 pipeline (frontend.optimize_host),
which folds `dim3` constructors and small functions, and keeps every device stub as a
call. A launch is a `__cudaPushCallConfiguration(grid, block, shared, stream)` followed by
a call of the kernel's stub with its arguments, or a `cudaLaunchKernel` /
`cudaLaunchCooperativeKernel` of the stub with an array of argument addresses.

Each dimension, the dynamic shared memory size and each argument becomes an expression
(evolve.launchsite) over the values the host code does not fix (its *inputs*: a host
function's parameter, a value read from memory or returned by a call). Constants stay
constants; `(n + 255) / 256` stays that expression over the same input `n` that is passed
as the kernel's argument; a pitch from `cudaMallocPitch` is the width it was asked for
rounded up; what `cudaDeviceGetAttribute` answers is a V100's (DEVICE_ATTRIBUTES: a warp of
32; a whole program links frontend/host/device_model.cpp, which answers both it and
`cudaGetDeviceProperties` so); an element of a constant table the host indexes, or of host
memory it fills with constants (a std::vector of sizes from a braced list), and a global it
only ever sets to constants, is an input with the values it may hold (Input.choices); a
loop's counter that starts at a constant and is only halved or doubled (`while (threads * 3
/ 2 >= n) threads >>= 1;`) is what the loop leaves, the first of 256, 128, ... its exit
test accepts (or, in a loop of several blocks, an input with those values); two pointer
arguments that are the same buffer are the same input. The search then varies only the
inputs, so every launch it tries is one the host code could make."""

from __future__ import annotations

import functools
import os
import re
from dataclasses import replace
from pathlib import Path

from evolve.launchsite import CASTS, FLOAT_OPS, Call, Input, Site, Unknown, evaluate, inputs_of
from interpreter import irparse as ir
from interpreter.debuginfo import DebugInfo
from interpreter.decode import constant_bytes
from interpreter.types import FloatType, IntType, PointerType
from interpreter.vocabulary import INT_BINARY
from simulee.errors import SimuleeError

LAUNCHERS = ("cudaLaunchKernel", "cudaLaunchCooperativeKernel")
ALLOCATORS = ("cudaMalloc", "cudaMallocManaged")  # (where, bytes, ...): a buffer of that size
# what cudaDeviceGetAttribute answers for the GPU compiled for (a V100, sm_70): warp size, block and
# grid limits, shared memory per block, multiprocessors
DEVICE_ATTRIBUTES = {1: 1024, 2: 1024, 3: 1024, 4: 64, 5: 2**31 - 1, 6: 65535, 7: 65535, 8: 49152, 10: 32, 16: 80}
_STUB = re.compile(r"(\d+)__device_stub__")
EXPRESSION_LIMIT = 1000  # nodes of a host value's expression past which it is an input
_MINMAX = re.compile(r"llvm\.([su](?:min|max))\.i\d+$")
_BIT_COUNTS = re.compile(r"llvm\.(ctpop|ctlz|cttz|abs)\.i\d+$")  # isPow2(n) is ctpop(n) < 2 at -O1
# ceil((double) n / 512) and the other roundings of a float
_ROUNDING = re.compile(r"llvm\.(ceil|floor|trunc|round|rint|nearbyint|fabs|sqrt)\.f(?:32|64)$")


def kernel_of_stub(stub: str) -> str:
    """The kernel symbol a device stub launches: `_Z18__device_stub__addPfi` -> `_Z3addPfi`."""
    if stub.startswith("__device_stub__"):
        return stub[len("__device_stub__"):]
    return _STUB.sub(lambda m: str(int(m.group(1)) - len("__device_stub__")), stub, count=1)


# ---------------------------------------------------------------------------- reading sites


def read_host(host_ir: str) -> tuple[list[Site], dict[str, list | None], set[str]]:
    """The launches in host IR, the same launch once; the device variables it writes
    (SYMBOL_WRITERS), by name (as the host's shadow variables are named): what it writes
    there when every write copies what the host code states (constants, an array
    initializer: [offset, hex bytes] each), else None (what it writes is Simulee's to
    invent); and the symbols of the kernels its program defines (their stubs are defined)."""
    module = ir.parse_module(host_ir)
    return _host_of(module, _readers(module))


def _host_of(module: ir.Module, readers) -> tuple[list[Site], dict[str, list | None], set[str]]:
    """read_host of a parsed module, through its functions' `readers` (_readers)."""
    found: dict[str, Site] = {}
    written: dict[str, list | None] = {}
    for reader in readers:
        for site in reader.sites():
            found.setdefault(site.shape(), site)
        for name, write in reader.symbol_writes():
            known = written.setdefault(name, [])
            written[name] = None if write is None or known is None else known + [write]
    defined = {kernel_of_stub(name) for name, function in module.functions.items()
               if "__device_stub__" in name and not function.is_declaration}
    return list(found.values()), written, defined


# what hands the host a device variable to write: a copy to it, or its address (for cudaMemcpy, cudaMemset)
SYMBOL_WRITERS = ("cudaMemcpyToSymbol", "cudaMemcpyToSymbolAsync", "cudaGetSymbolAddress")
HOST_ALLOCATORS = ("malloc", "_Znwm", "_Znam")  # (bytes): host memory of that size
DEALLOCATORS = ("free", "_ZdlPv", "_ZdlPvm", "_ZdaPv", "_ZdaPvm")  # release host memory: write nothing there


def calls_in(host_ir: str, callees: set[str]) -> list[Call]:
    """Every call in host IR of a function among `callees` (symbols), the same call once."""
    if not any(callee in host_ir for callee in callees):
        return []
    return _calls_of(_readers(ir.parse_module(host_ir)), callees)


def _calls_of(readers, callees: set[str]) -> list[Call]:
    """calls_in of a parsed module, through its functions' `readers` (_readers)."""
    found: dict[str, Call] = {}
    for reader in readers:
        for call in reader.calls(callees):
            found.setdefault(repr(call), call)
    return list(found.values())


def _readers(module: ir.Module) -> list:
    """A reader (_Reader) of each host function the module defines (kernel stubs aside)."""
    debug, settings, allocated = DebugInfo(module.metadata), _settings(module), _allocated_globals(module)
    return [_Reader(module, function, debug, settings, allocated) for function in module.functions.values()
            if not function.is_declaration and "__device_stub__" not in function.name]


def _allocated_globals(module: ir.Module) -> dict[str, int]:
    """Each global pointer that one cudaMalloc of a constant size sets, and nothing else
    (`cudaMalloc(&dbias_buffer, OC * 32 * sizeof(float))` in main): its size in bytes."""
    sizes: dict[str, list] = {}
    for function in module.functions.values():
        for block in function.blocks or ():
            for instruction in block.instructions:
                operands = instruction.operands
                if instruction.opcode == "call" and instruction.extra.get("callee") in ALLOCATORS and \
                        len(operands) >= 2 and isinstance(operands[0], ir.Global):
                    sizes.setdefault(operands[0].name, []).append(operands[1])
                elif instruction.opcode == "store" and len(operands) >= 2 and isinstance(operands[1], ir.Global):
                    sizes.setdefault(operands[1].name, []).append(None)  # set otherwise: not known
    return {name: found[0].value for name, found in sizes.items()
            if len(found) == 1 and isinstance(found[0], ir.ConstInt) and found[0].value > 0}


def _settings(module: ir.Module) -> dict[str, tuple]:
    """Each integer global of the program (internal: no other code sees it) whose every
    store stores a constant, and whose address goes nowhere else: the values it may hold,
    its initializer and those stores (a device property set at start-up: what the
    optimizer keeps of `num_SMs = prop.multiProcessorCount` is a flag that it was set)."""
    found: dict[str, set | None] = {
        name: {_constant_value(variable.initializer)} for name, variable in module.globals.items()
        if variable.linkage in ("internal", "private") and not variable.constant and isinstance(variable.type, IntType)
        and _constant_value(variable.initializer) is not None}
    for function in module.functions.values():
        for block in function.blocks or ():
            for instruction in block.instructions:
                for position, operand in enumerate(instruction.operands):
                    if not isinstance(operand, ir.Global) or found.get(operand.name) is None:
                        continue
                    if instruction.opcode == "load" and position == 0:
                        continue
                    stored = _constant_value(instruction.operands[0]) if instruction.opcode == "store" and \
                        position == 1 else None
                    if stored is None:
                        found[operand.name] = None  # written otherwise, or its address taken
                    else:
                        found[operand.name].add(stored)
    return {name: tuple(sorted(values)) for name, values in found.items() if values and 1 < len(values) <= 16}


def _constant_value(value) -> int | None:
    if isinstance(value, ir.ConstInt):
        return value.value
    if isinstance(value, ir.ConstSpecial) and value.kind in ("zeroinitializer", "null"):
        return 0
    return None


def through_callers(sites: list[Site], calls: list[Call], unread: dict[str, tuple[str, ...]] | None = None,
                    depth: int = 3, wrappers: dict[str, set[str]] | None = None) -> list[Site]:
    """`sites` as the repository's calls make them: a launch that reads parameters of the
    host function it lies in (a wrapper `launch(dim3 grid, dim3 block, ...)`) becomes one
    launch per call of that function, its parameters what the call passes; up to `depth`
    callers out. A launch whose function nobody calls stays as it is, its parameters
    marked with the files in `unread` (function -> files whose host code names it but
    could not be read) that may call it. A wrapper several files define (`wrappers`,
    wrappers_of: the book's folders each define their own `reduction`, with other
    parameters) is the one a call reaches from the nearest folder."""
    by_callee: dict[str, list[Call]] = {}
    for call in calls:
        by_callee.setdefault(call.callee, []).append(call)
    wrappers = {function: {os.path.abspath(file) for file in files} for function, files in (wrappers or {}).items()}
    result = []
    for site in sites:
        pending = [site]
        for _ in range(depth):
            reached = []
            for open_site in pending:
                callers = [c for function in sorted(open_site.open_functions()) for c in by_callee.get(function, ())
                           if _nearest(site.file, wrappers.get(function, set()), c.file)]
                reached += [through(open_site, call) for call in callers] or [open_site]
            if reached == pending:
                break
            pending = reached
        found = {s.key(): s.unread_by(unread) if unread else s for s in pending}
        result += found.values()
    return result


def _nearest(file: str, defining: set[str], caller: str) -> bool:
    """Whether, of the files `defining` a function (absolute paths), `file` is one nearest
    the `caller`'s folder (any, when it is not among them or alone); `file` and `caller` as
    given (relative to one root) or absolute."""
    if len(defining) < 2 or os.path.abspath(file) not in defining:
        return True

    def shared(other: str) -> int:
        return len(os.path.commonprefix([Path(other).parent.parts, Path(os.path.abspath(caller)).parent.parts]))

    return shared(os.path.abspath(file)) == max(map(shared, defining))


def through(site: Site, call: Call) -> Site:
    """`site` as `call` makes it: the parameters of the called function replaced by what
    the call passes (a packed dim3's x and y by its halves), the call's inputs and
    conditions added."""
    inputs = list(call.inputs)
    replaced: dict[int, list] = {}
    halves: dict[tuple, list] = {}  # (input of the call, part) -> a 32-bit input: a dim3 passed on as it came

    def half(passed: list, part: str) -> list:
        if passed[0] != "input":
            return _halves(passed)[part == "y"]
        outer = inputs[passed[1]]
        if (passed[1], part) not in halves:
            halves[passed[1], part] = ["input", len(inputs)]
            parameter = outer.parameter and (*outer.parameter[:2], part)
            inputs.append(Input("integer", 32, f"{part} of {outer.what}", parameter))
        return halves[passed[1], part]

    for index, value in enumerate(site.inputs):
        function, position, part = value.parameter if value.parameter else ("", -1, "")
        if function == call.callee and 0 <= position < len(call.args):
            passed = call.args[position]
            replaced[index] = half(passed, part) if part else passed
        else:
            replaced[index] = ["input", len(inputs)]
            inputs.append(_entered_through(value, call))

    def substitute(expression):
        if not isinstance(expression, list):  # None too: a size not known
            return expression
        if expression[0] == "input":
            return replaced[expression[1]]
        if expression[0] == "const":
            return expression
        return _folded(expression[:2] + [substitute(e) for e in expression[2:]])

    return Site(site.kernel, site.file, site.line, tuple(substitute(e) for e in site.grid),
                tuple(substitute(e) for e in site.block), substitute(site.shared),
                None if site.args is None else tuple(substitute(e) for e in site.args), tuple(inputs),
                site.cooperative, tuple(call.conditions) + tuple(substitute(c) for c in site.conditions),
                (call.label, *site.callers), None if site.sizes is None else tuple(substitute(e) for e in site.sizes))


def _entered_through(value: Input, call: Call) -> Input:
    """A loop-carried input that enters its loop with a parameter of the function `call`
    calls, as the call makes it: starting at the constant the call passes, or entering with
    the caller's own parameter that the call passes on."""
    function, position = value.entered or ("", -1)
    if function != call.callee or not 0 <= position < len(call.args):
        return value
    passed = _folded(call.args[position])
    while passed[0] in CASTS and passed[3][0] == "input":  # an int the call widens or narrows
        passed = passed[3]
    if passed[0] == "const" and isinstance(passed[1], int):
        return replace(value, start=passed[1] & ((1 << value.bits) - 1), entered=())
    outer = call.inputs[passed[1]] if passed[0] == "input" else None
    return replace(value, entered=outer.parameter[:2] if outer is not None and outer.parameter else ())


class _Reader:
    """The launches of one host function, their expressions built over its values."""

    def __init__(self, module: ir.Module, function: ir.Function, debug: DebugInfo, settings: dict | None = None,
                 allocated: dict | None = None):
        self.module, self.function, self.debug = module, function, debug
        self.settings = settings or {}  # a global only ever set to constants -> the values it may hold
        self.allocated = allocated or {}  # a global pointer set only by one cudaMalloc of a constant size -> it
        self.defined = {i.result: i for block in function.blocks for i in block.instructions if i.result}
        self.block_of = {i.result: block for block in function.blocks for i in block.instructions if i.result}
        self.incoming: dict[str, list[tuple[str, tuple]]] = {}  # block -> (predecessor, the edge's condition)
        for block in function.blocks:
            last = block.instructions[-1] if block.instructions else None
            if last is not None and last.opcode == "br" and len(last.extra["targets"]) == 2:
                for target, taken in zip(last.extra["targets"], (True, False)):
                    self.incoming.setdefault(_label(target), []).append((block.name, ("br", last.operands[0], taken)))
            elif last is not None and last.opcode == "br":
                self.incoming.setdefault(_label(last.extra["targets"][0]), []).append((block.name, ("always",)))
            elif last is not None and last.opcode == "switch":
                values = tuple(value for value, _ in last.extra["cases"])
                for value, target in last.extra["cases"]:
                    self.incoming.setdefault(_label(target), []).append((block.name, ("case", last.operands[0], value)))
                self.incoming.setdefault(_label(last.extra["default"]), []).append(
                    (block.name, ("default", last.operands[0], values)))
        self.stores: dict[str, list] = {}  # local pointer -> the values stored to it
        self.allocations: dict[str, list] = {}  # local pointer -> the sizes cudaMalloc is asked for there
        self.written: set[str] = set()  # local pointers passed to a call (which may write them)
        self.pitches: dict[str, object] = {}  # pitch output pointer -> the width asked for (bytes)
        self.attributes: dict[str, int] = {}  # cudaDeviceGetAttribute output pointer -> the value it gets
        for block in function.blocks:
            for instruction in block.instructions:
                if instruction.opcode == "store":
                    value, pointer = instruction.operands[:2]
                    if isinstance(pointer, ir.Local):
                        self.stores.setdefault(pointer.name, []).append(value)
                elif instruction.opcode == "call":
                    arguments = instruction.operands
                    if not (instruction.extra.get("callee") or "").startswith("llvm."):
                        self.written.update(a.name for a in arguments if isinstance(a, ir.Local))
                    if instruction.extra.get("callee") in ALLOCATORS and len(arguments) >= 2 and \
                            isinstance(arguments[0], ir.Local):
                        self.allocations.setdefault(arguments[0].name, []).append(arguments[1])
                    if instruction.extra.get("callee") == "cudaMallocPitch" and \
                            len(arguments) >= 3 and isinstance(arguments[1], ir.Local):
                        self.pitches[arguments[1].name] = arguments[2]
                    if instruction.extra.get("callee") == "cudaDeviceGetAttribute" and len(arguments) >= 2 and \
                            isinstance(arguments[0], ir.Local) and isinstance(arguments[1], ir.ConstInt) and \
                            arguments[1].value in DEVICE_ATTRIBUTES:
                        self.attributes[arguments[0].name] = DEVICE_ATTRIBUTES[arguments[1].value]

    def symbol_writes(self):
        """(device variable, [offset, hex bytes] or None) of each of the function's writes of
        one: None unless a cudaMemcpyToSymbol copies bytes its code states."""
        for block in self.function.blocks:
            for instruction in block.instructions:
                callee = instruction.extra.get("callee")
                if instruction.opcode != "call" or callee not in SYMBOL_WRITERS:
                    continue
                symbol = next((o for o in instruction.operands if isinstance(o, ir.Global)), None)
                if symbol is None:
                    continue
                args = instruction.operands
                count, offset = (args[i] if len(args) > i else ir.ConstInt(None, 0) for i in (2, 3))
                copied = callee != "cudaGetSymbolAddress" and isinstance(count, ir.ConstInt) and \
                    isinstance(offset, ir.ConstInt) and self.bytes_at(args[1], count.value)
                yield symbol.name, [offset.value, copied.hex()] if copied else None

    def bytes_at(self, pointer, count: int) -> bytes | None:
        """The `count` bytes host memory at `pointer` holds as the code states them: a
        constant's initializer, or a local every byte of which one store of a constant or
        one copy of a constant's initializer wrote (and no call may change); else None."""
        layout = self.module.datalayout
        if isinstance(pointer, ir.Global):
            variable = self.module.globals.get(pointer.name)
            if variable is None or not variable.constant or variable.initializer is None:
                return None
            data = constant_bytes(variable.initializer, variable.type, layout)
            return data[:count] if data is not None and len(data) >= count else None
        if not isinstance(pointer, ir.Local):
            return None
        base, start = self.offset_of(pointer.name)
        if start is None or count <= 0 or count > 1 << 20:
            return None
        image, written = bytearray(start + count), [0] * (start + count)
        for block in self.function.blocks:
            for instruction in block.instructions:
                piece = self.written_bytes(instruction, base, layout)
                if piece is None:
                    return None
                for at, data in piece:
                    for i, byte in enumerate(data):
                        if at + i < len(image):
                            image[at + i] = byte
                            written[at + i] += 1
        return bytes(image[start:]) if all(n == 1 for n in written[start:]) else None

    def written_bytes(self, instruction: ir.Instruction, base: str, layout) -> list | None:
        """[(offset, bytes)] the instruction writes into the local `base` (None: what it
        writes there is not stated; a call of anything but a copy to a symbol that is
        passed it)."""
        operands = instruction.operands
        if instruction.opcode == "store" and isinstance(operands[1], ir.Local):
            at_base, at = self.offset_of(operands[1].name)
            if at_base != base:
                return []
            data = constant_bytes(operands[0], operands[0].type, layout) if at is not None and isinstance(
                operands[0], (ir.ConstInt, ir.ConstFloat, ir.ConstAggregate, ir.ConstSpecial)) else None
            return [(at, data)] if data is not None else None
        if instruction.opcode != "call":
            return []
        callee = instruction.extra.get("callee") or ""
        targets = [self.offset_of(o.name) for o in operands if isinstance(o, ir.Local)]
        if all(target != base for target, _ in targets):
            return []
        if callee in SYMBOL_WRITERS or callee in DEALLOCATORS or callee.startswith(("llvm.lifetime", "llvm.dbg")):
            return []  # reads it, or frees it
        if callee.startswith("llvm.memcpy") and isinstance(operands[0], ir.Local) and \
                self.offset_of(operands[0].name)[0] == base and isinstance(operands[2], ir.ConstInt):
            data = self.bytes_at(operands[1], operands[2].value)
            at = self.offset_of(operands[0].name)[1]
            return [(at, data)] if data is not None and at is not None else None
        return None

    def sites(self) -> list[Site]:
        sites, configuration = [], None
        for block in self.function.blocks:
            self.block = block.name
            for instruction in block.instructions:
                callee, arguments = instruction.extra.get("callee"), instruction.operands
                if instruction.opcode != "call" or not callee:
                    continue
                if callee == "__cudaPushCallConfiguration" and len(arguments) >= 4:
                    configuration = arguments
                elif "__device_stub__" in callee and configuration is not None:
                    # the last configuration pushed: -O1 hoists one pushed by both arms of an if/else
                    sites.append(self.site(instruction, callee, configuration, list(arguments), False))
                elif callee in LAUNCHERS and len(arguments) >= 7 and isinstance(arguments[0], ir.Global) and \
                        "__device_stub__" in arguments[0].name:
                    stub = self.module.functions.get(arguments[0].name)
                    passed = self.array_arguments(arguments[5], len(stub.params) if stub else 0)
                    sites.append(self.site(instruction, arguments[0].name, (*arguments[1:5], arguments[6]), passed,
                                           callee == "cudaLaunchCooperativeKernel"))
        return sites

    def calls(self, callees: set[str]) -> list[Call]:
        """The function's calls of `callees`; a call through a constant table of functions
        (a switch over functions the optimizer made a lookup table) is a call of each."""
        found = []
        for block in self.function.blocks:
            self.block = block.name
            for instruction in block.instructions:
                if instruction.opcode != "call":
                    continue
                named = instruction.extra.get("callee")
                targets = [named] if named else self.table_targets(instruction.operands[-1])
                for callee in (target for target in targets if target in callees):
                    expressions = _Expressions(self)
                    args = tuple(expressions.of(a) for a in instruction.operands[:None if named else -1])
                    conditions = tuple(expressions.condition(edge) for edge in self.path(self.block))
                    location = _user_place(self.debug.location(instruction.dbg))
                    found.append(Call(callee, location.file if location else "", location.line if location else 0,
                                      args, tuple(expressions.inputs), tuple(c for c in conditions if c is not None)))
        return found

    def table_targets(self, callee) -> list[str]:
        """The functions a called pointer loaded from a constant table of them may be."""
        load = self.defined.get(callee.name) if isinstance(callee, ir.Local) else None
        found = self.constant_table(load.operands[0]) if load is not None and load.opcode == "load" else None
        return [e.name for e in found[0].initializer.elements if isinstance(e, ir.Global)] if found else []

    def constant_table(self, pointer) -> tuple | None:
        """(the constant global with an aggregate initializer that `pointer` is or indexes,
        the getelementptr that indexes it or None), else None."""
        element = self.defined.get(pointer.name) if isinstance(pointer, ir.Local) else None
        indexed = element is not None and element.opcode == "getelementptr"
        table = element.operands[0] if indexed else pointer
        variable = self.module.globals.get(table.name) if isinstance(table, ir.Global) else None
        if variable is None or not variable.constant or not isinstance(variable.initializer, ir.ConstAggregate):
            return None
        return variable, element if indexed else None

    def site(self, call: ir.Instruction, stub: str, configuration, arguments: list | None, cooperative: bool) -> Site:
        expressions = _Expressions(self)
        grid = expressions.dims(configuration[0], configuration[1])
        block = expressions.dims(configuration[2], configuration[3])
        shared = expressions.of(configuration[4]) if len(configuration) > 4 else ["const", 0]
        args = None if arguments is None else tuple(expressions.of(a) for a in arguments)
        sizes = None if arguments is None else tuple(self.allocation(a, expressions) for a in arguments)
        conditions = tuple(expressions.condition(edge) for edge in self.path(self.block))
        location = _user_place(self.debug.location(call.dbg))

        def halved(expression):  # a dim3's x read before its halves were known: the grid from `block.x`
            return _through_halves(expression, expressions.halves) if isinstance(expression, list) else expression

        grid, shared = tuple(map(halved, grid)), halved(shared)
        args, sizes = None if args is None else tuple(map(halved, args)), sizes and tuple(map(halved, sizes))
        return Site(kernel_of_stub(stub), location.file if location else "", location.line if location else 0,
                    grid, block, shared, args, tuple(expressions.inputs), cooperative,
                    tuple(c for c in conditions if c is not None), (),
                    sizes if sizes and any(size is not None for size in sizes) else None)

    def allocation(self, value, expressions) -> list | None:
        """The bytes the host allocates for the buffer a pointer argument points to: the one
        cudaMalloc of the local or global it is loaded from; None when not known."""
        if isinstance(value, tuple):  # a cudaLaunchKernel argument slot: the value stored there
            stores = self.stores.get(value[1].name, []) if isinstance(value[1], ir.Local) else []
            if len(stores) != 1:
                return None
            value = stores[0]
        load = self.defined.get(value.name) if isinstance(value, ir.Local) else None
        if load is None or load.opcode != "load":
            return None
        pointer = load.operands[0]
        if isinstance(pointer, ir.Global):
            return ["const", self.allocated[pointer.name]] if pointer.name in self.allocated else None
        sizes = self.allocations.get(pointer.name, []) if isinstance(pointer, ir.Local) else []
        if len(sizes) != 1 or self.stores.get(pointer.name):
            return None
        size = expressions.of(sizes[0])
        return size if size[0] != "input" or expressions.inputs[size[1]].kind != "pointer" else None

    def path(self, block: str) -> list[tuple]:
        """The conditions of the branches every path to `block` takes: up its chain of
        blocks with a single predecessor (a merge ends it: what holds above it need not
        hold on each way in)."""
        edges, seen = [], {block}
        while len(self.incoming.get(block, [])) == 1:
            block, edge = self.incoming[block][0]
            if block in seen:
                break
            seen.add(block)
            edges.append(edge)
        return edges

    def array_arguments(self, array, count: int) -> list | None:
        """The values whose addresses `cudaLaunchKernel`'s argument array holds, loaded
        (None unless every slot's address was stored once)."""
        if not isinstance(array, ir.Local) or count == 0:
            return None
        slots: dict[int, object] = {}
        for pointer, values in self.stores.items():
            base, offset = self.offset_of(pointer)
            if base == array.name and offset is not None and len(values) == 1:
                slots[offset // 8] = values[0]
        if sorted(slots) != list(range(count)):
            return None
        return [("load-of", slots[index]) for index in range(count)]

    def table_values(self, pointer: ir.Local, type_) -> tuple:
        """(the table's name, each value it holds) when the local `pointer` indexes a
        constant table of `type_` values (`block_sizes[j]` in a loop over a constant array,
        as the optimizer reads the array's initializer), else ()."""
        variable, element = self.constant_table(pointer) or (None, None)
        table = variable.initializer if element is not None else None
        if table is None or not table.elements or \
                element.extra.get("source_type") not in (table.type, table.elements[0].type):
            return ()
        if not all(isinstance(e, (ir.ConstInt, ir.ConstFloat)) and e.type == type_ for e in table.elements):
            return ()
        return (variable.name.rpartition(".")[2], *sorted({e.value for e in table.elements}))

    def listed_values(self, pointer: ir.Local, type_) -> tuple:
        """(what, each value) when the local `pointer` indexes host memory of a constant size
        (new, malloc) whose every byte one store of a constant or one copy of a constant's
        initializer wrote, and nothing else may write (a std::vector built from a braced
        list of sizes, read by `for (int size : sizes)`), else ()."""
        element = self.defined.get(pointer.name)
        if element is None or element.opcode != "getelementptr" or not isinstance(element.operands[0], ir.Local) or \
                not isinstance(type_, IntType) or type_.bits % 8:
            return ()
        base = element.operands[0]
        allocation = self.defined.get(base.name)
        size = allocation.operands[0] if allocation is not None and allocation.opcode == "call" and \
            allocation.extra.get("callee") in HOST_ALLOCATORS and allocation.operands else None
        data = self.bytes_at(base, size.value) if isinstance(size, ir.ConstInt) else None
        width = type_.bits // 8
        if not data or len(data) % width:
            return ()
        values = {int.from_bytes(data[at:at + width], "little", signed=True) for at in range(0, len(data), width)}
        return ("a list the host fills", *sorted(values))

    def offset_of(self, name: str) -> tuple[str, int | None]:
        """A local pointer as (base, constant byte offset) through getelementptr i8."""
        instruction = self.defined.get(name)
        if instruction is not None and instruction.opcode == "getelementptr" and len(instruction.operands) == 2 and \
                isinstance(instruction.operands[0], ir.Local) and isinstance(instruction.operands[1], ir.ConstInt) and \
                getattr(instruction.extra.get("source_type"), "bits", None) == 8:
            return instruction.operands[0].name, instruction.operands[1].value
        return name, 0


class _Expressions:
    """Expressions of one site; equal host values become the same input."""

    def __init__(self, reader: _Reader):
        self.reader = reader
        self.inputs: list[Input] = []
        self.keys: dict = {}
        self.halves: dict[int, tuple[list, list]] = {}  # a packed dim3 input -> its x and y inputs
        self.counting: str | None = None  # the loop counter an exit test is being read of
        self.made: dict[str, list] = {}  # each host value's expression, read once: the same list wherever it is used

    def dims(self, xy, z) -> tuple:
        """x and y packed in an i64 (low and high half), z an i32. A dim3 the host code
        does not fix (a parameter dim3 grid) is two inputs, x and y."""
        packed = self.of(xy)
        if packed[0] == "input":
            what, parameter = self.inputs[packed[1]].what, self.inputs[packed[1]].parameter
            halves = tuple(self.input((part, what), IntType(32), f"{part} of {what}",
                                      parameter and (*parameter[:2], part)) for part in ("x", "y"))
            self.halves[packed[1]] = halves
            return (*halves, self.of(z))
        return (*_halves(packed), self.of(z))

    def condition(self, edge: tuple) -> list | None:
        """The condition a branch edge takes, as an expression that is 1 when it holds
        (several, for a switch's default: all of its cases fail); None when it reads
        anything the launch itself does not (a call's result, memory): it says nothing
        about the launch. Of a conjunction (`fused < 2 && pre`), the parts that read only
        what the launch does are kept: the launch needs each of them."""
        known = len(self.inputs)
        kind = edge[0]
        if kind == "always":
            return None
        value = _through_halves(self.of(edge[1]), self.halves)
        bits = _bits(edge[1].type)
        if kind == "br":
            parts = _conjuncts(value, edge[2])
        elif kind == "case":
            parts = [["icmp", bits, "eq", value, ["const", edge[2]]]]
        else:  # a switch's default: none of its cases
            parts = [["icmp", bits, "ne", value, ["const", v]] for v in edge[2]] or [["const", 1]]
        kept = [part for part in parts if inputs_of(part) and max(inputs_of(part)) < known]
        if len(self.inputs) > known:  # what only the parts left out read
            del self.inputs[known:]
            self.keys = {key: index for key, index in self.keys.items() if index < known}
            self.made = {}  # some may read the inputs just dropped
        return _folded(_all(kept)) if kept else None

    def of(self, value, depth: int = 0) -> list:
        """The expression of a host value, constants folded; an input where it would have
        more than EXPRESSION_LIMIT nodes (a hash whose every step reads the last one twice
        doubles at each step)."""
        local = isinstance(value, ir.Local)
        key = value.name if local and self.counting is None else None
        if key in self.made:
            return self.made[key]
        expression = _folded(self.unfolded(value, depth))
        if local and _size(expression) > EXPRESSION_LIMIT:
            expression = self.input(("value", value.name), value.type, f"%{value.name}, too large an expression")
        if key is not None:
            self.made[key] = expression
        return expression

    def unfolded(self, value, depth: int) -> list:
        if isinstance(value, tuple) and value[0] == "load-of":  # a cudaLaunchKernel argument slot
            return self.loaded(value[1], None, depth)
        if isinstance(value, ir.ConstInt):
            return ["const", value.value]
        if isinstance(value, ir.ConstFloat):
            return ["const", value.value]
        if isinstance(value, ir.ConstSpecial) and value.kind in ("null", "zeroinitializer"):
            return ["const", 0]
        if depth > 64 or not isinstance(value, ir.Local):
            return self.input(("value", repr(value)), value.type, "a constant expression")
        if value.name == self.counting:
            return ["counter"]
        instruction = self.reader.defined.get(value.name)
        if instruction is None:
            function = self.reader.function
            position = next((i for i, p in enumerate(function.params) if p.name == value.name), -1)
            return self.input(("param", value.name), value.type, f"parameter %{value.name} of {function.name}",
                              (function.name, position, "") if position >= 0 else ())
        return self.instruction(instruction, depth + 1)

    def instruction(self, instruction: ir.Instruction, depth: int) -> list:
        opcode, operands, result = instruction.opcode, instruction.operands, instruction.type
        bits = _bits(result)
        if opcode in INT_BINARY or opcode in FLOAT_OPS:
            return [opcode, bits, self.of(operands[0], depth), self.of(operands[1], depth)]
        if opcode in CASTS:
            return [opcode, bits, _bits(operands[0].type), self.of(operands[0], depth)]
        if opcode == "icmp":
            return ["icmp", _bits(operands[0].type), instruction.extra.get("predicate"), self.of(operands[0], depth),
                    self.of(operands[1], depth)]
        if opcode == "select":
            return ["select", bits, *(self.of(o, depth) for o in operands[:3])]
        if opcode == "load" and isinstance(operands[0], (ir.Local, ir.Global)):
            return self.loaded(operands[0], result, depth)
        minmax = opcode == "call" and _MINMAX.match(instruction.extra.get("callee") or "")
        if minmax:
            return [minmax.group(1), bits, self.of(operands[0], depth),
                    self.of(operands[1], depth)]
        if opcode == "phi":
            return self.counter(instruction, depth)
        counted = opcode == "call" and (_BIT_COUNTS.match(instruction.extra.get("callee") or "") or
                                        _ROUNDING.match(instruction.extra.get("callee") or ""))
        if counted:
            return [counted.group(1), bits, self.of(operands[0], depth)]
        return self.input(("value", instruction.result), result, f"{opcode} %{instruction.result}")

    def counter(self, phi: ir.Instruction, depth: int) -> list:
        """A loop counter that starts at a constant and is only halved or doubled: in a loop of
        one block that nothing but it changes, the first of its values the loop's exit test
        accepts (["first", bits, test, values...], the test reading it as ["counter"]); in
        another loop, an input with the values it can take; else an input. Either input
        starts at the one constant the loop is entered with, if any: the host's first launch
        is of that (`while (n > 1) n = reduce(n)` after `n = 1 << 24`, of 1 << 24; a stride
        doubling from 1, of stride 1)."""
        starts, steps = _steps(phi, self.reader.defined)
        values = _orbit(starts, steps, _bits(phi.type))
        block = self.reader.block_of[phi.result]
        last = block.instructions[-1]
        targets = [_label(target) for target in last.extra.get("targets", ())]
        pure = sum(i.opcode == "phi" for i in block.instructions) == 1 and \
            not any(i.opcode in ("store", "call", "load") for i in block.instructions)
        looped = last.opcode == "br" and len(targets) == 2 and targets.count(block.name) == 1
        if values and pure and looped and len(starts) == 1 and len(steps) == 1 and \
                phi.extra["blocks"][phi.operands.index(next(v for v in phi.operands if isinstance(v, ir.Local)))] \
                == block.name:  # one start from outside, one step around the loop's own block
            self.counting = phi.result
            try:
                test = self.of(last.operands[0], depth)
            finally:
                self.counting = None
            if targets[0] == block.name:  # the loop goes on while the test holds
                test = ["xor", 1, test, ["const", 1]]
            return ["first", _bits(phi.type), test, *(["const", v] for v in values)]
        entered = {v.value for v in phi.operands if isinstance(v, ir.ConstInt)}  # the constant it enters the loop with
        heads = _heads_loop(block.name, self.reader.incoming)
        start = entered.pop() if len(entered) == 1 and heads else None
        params = [p.name for p in self.reader.function.params]
        passed = {params.index(v.name) for v in phi.operands if isinstance(v, ir.Local) and v.name in params}
        # or the parameter it enters with, which a caller may pass as a constant (through)
        parameter = (self.reader.function.name, passed.pop()) if heads and not entered and len(passed) == 1 else ()
        return self.input(("value", phi.result), phi.type, f"phi %{phi.result}", choices=tuple(sorted(values)),
                          start=start, entered=parameter)

    def loaded(self, pointer, type_, depth: int) -> list:
        """A value read from memory: the one value ever stored there (a local written
        once), a cudaMallocPitch pitch, or an input named by the address."""
        reader = self.reader
        if isinstance(pointer, ir.Local):
            stores = reader.stores.get(pointer.name, [])
            if pointer.name in reader.pitches:
                return ["pitch", 64, self.of(reader.pitches[pointer.name], depth)]
            if pointer.name in reader.attributes:
                return ["const", reader.attributes[pointer.name]]
            if len(stores) == 1 and pointer.name not in reader.written:
                return self.of(stores[0], depth)
            table = reader.table_values(pointer, type_) or reader.listed_values(pointer, type_)
            what = f"an element of {table[0]}" if table else f"memory at %{pointer.name}"
            return self.input(("memory", pointer.name), type_ or pointer.type, what, choices=table[1:])
        if isinstance(pointer, ir.Global) and pointer.name in reader.settings:  # its initializer, or what is set
            return self.input(("memory", pointer.name), type_ or pointer.type, f"the global {pointer.name}",
                              choices=reader.settings[pointer.name])
        return self.input(("memory", repr(pointer)), type_ or pointer.type, "memory")

    def input(self, key, type_, what: str, parameter: tuple = (), choices: tuple = (), start: int | None = None,
              entered: tuple = ()) -> list:
        if key not in self.keys:
            kind = "float" if isinstance(type_, FloatType) else "pointer" if isinstance(type_, PointerType) or \
                type_ is None else "integer"
            self.keys[key] = len(self.inputs)
            self.inputs.append(Input(kind, _bits(type_), what, parameter, choices=choices, start=start,
                                     entered=entered))
        return ["input", self.keys[key]]


def _size(expression: list) -> int:
    """The nodes of an expression, as a tree."""
    return 1 + sum(_size(e) for e in expression[2:] if isinstance(e, list))


def _heads_loop(block: str, incoming: dict[str, list]) -> bool:
    """Whether `block` reaches one of its own predecessors (a loop's header, not the merge
    of an if: `argc > 1 ? atoi(argv[1]) : 7777` is a value the host may pass, not a start)."""
    seen, pending = set(), [predecessor for predecessor, _ in incoming.get(block, [])]
    while pending:
        current = pending.pop()
        if current == block:
            return True
        if current not in seen:
            seen.add(current)
            pending += [predecessor for predecessor, _ in incoming.get(current, [])]
    return False


def _steps(phi: ir.Instruction, defined: dict) -> tuple[list[int], list[tuple[str, int]]]:
    """The constants a loop's counter `phi` starts at and the steps (opcode, constant) an
    iteration applies to it — shifts, divisions and multiplications by a constant — when
    those are all its incoming values; else nothing."""
    starts, steps = [], []
    for value in phi.operands:
        step = defined.get(value.name) if isinstance(value, ir.Local) else None
        if isinstance(value, ir.ConstInt):
            starts.append(value.value)
        elif step is not None and step.opcode in _STEPS and len(step.operands) == 2 and \
                isinstance(step.operands[0], ir.Local) and step.operands[0].name == phi.result and \
                isinstance(step.operands[1], ir.ConstInt) and 0 < step.operands[1].value < _bits(phi.type):
            steps.append((step.opcode, step.operands[1].value))
        else:
            return [], []
    return (starts, steps) if steps else ([], [])


def _orbit(starts: list[int], steps: list[tuple[str, int]], bits: int) -> list[int]:
    """The values of `bits` bits reached from `starts` by `steps`, each once, in the order
    reached (from one start by one step: the order a loop takes them); none past 2 * bits."""
    values, pending = [], [start & ((1 << bits) - 1) for start in starts]
    while pending:
        value = pending.pop(0)
        if value not in values:
            if len(values) == 2 * bits:
                return []
            values.append(value)
            pending += [evaluate([opcode, bits, ["const", value], ["const", by]], []) for opcode, by in steps]
    return values


_STEPS = ("lshr", "ashr", "shl", "udiv", "sdiv", "mul")  # what a halving or doubling loop does to its counter


def _label(target: str) -> str:
    return target.lstrip("%")


def _all(conditions: list[list]) -> list:
    """The conjunction of 1-bit conditions."""
    result = conditions[0]
    for condition in conditions[1:]:
        result = ["and", 1, result, condition]
    return result


def _conjuncts(expression: list, holds: bool) -> list[list]:
    """1-bit conditions whose conjunction is `expression` being 1 (`holds`) or 0: `a && b`
    (LLVM's `and`, or `select a, b, false`) holding, or `a || b` (`or`, `select a, true, b`)
    failing, is each part's."""
    kind, parts = expression[0], expression[2:]
    if expression[1:2] == [1] and kind in ("and", "or", "select"):
        if holds and (kind == "and" or kind == "select" and parts[2] == ["const", 0]):
            return _conjuncts(parts[0], True) + _conjuncts(parts[1], True)
        if not holds and kind == "or":
            return _conjuncts(parts[0], False) + _conjuncts(parts[1], False)
        if not holds and kind == "select" and parts[1] == ["const", 1]:
            return _conjuncts(parts[0], False) + _conjuncts(parts[2], False)
    return [expression if holds else ["xor", 1, expression, ["const", 1]]]


def _through_halves(expression: list, halves: dict[int, tuple[list, list]]) -> list:
    """`expression` with the low and high halves of a packed dim3 input (`trunc` of it, of
    it shifted right by 32) read as its x and y inputs."""
    if expression[0] == "trunc" and expression[1] == 32:
        inner = expression[3]
        if inner[0] == "input" and inner[1] in halves:
            return halves[inner[1]][0]
        if inner[0] == "lshr" and inner[3] == ["const", 32] and inner[2][0] == "input" and inner[2][1] in halves:
            return halves[inner[2][1]][1]
    if expression[0] in ("const", "input"):
        return expression
    return expression[:2] + [_through_halves(e, halves) if isinstance(e, list) else e for e in expression[2:]]


def _halves(packed: list) -> tuple[list, list]:
    """The low and high 32 bits of an i64 that packs x and y, read off `zext(x) | y << 32`
    (as -O1 builds a dim3's first half) where possible."""
    low, high = ["trunc", 32, 64, packed], ["trunc", 32, 64, ["lshr", 64, packed, ["const", 32]]]
    if packed[0] == "or":
        parts = packed[2:4]
        lows = [p for p in parts if p[0] == "zext" and p[2] <= 32 or p[0] == "const" and p[1] < 1 << 32]
        highs = [p for p in parts
                 if p[0] == "shl" and p[3] == ["const", 32] or p[0] == "const" and p[1] % (1 << 32) == 0]
        if len(lows) == 1 and len(highs) == 1 and lows[0] is not highs[0]:
            low = ["trunc", 32, 64, lows[0]]
            high = ["trunc", 32, 64, highs[0][2] if highs[0][0] == "shl" else ["const", highs[0][1] >> 32]]
    return _folded(low), _folded(high)


def _folded(expression: list) -> list:
    """An expression of constants as its value."""
    if expression[0] not in ("const", "input") and not inputs_of(expression):
        try:
            return ["const", evaluate(expression, [])]
        except Unknown:
            pass
    return expression


def _bits(type_) -> int:
    if isinstance(type_, IntType):
        return type_.bits
    if isinstance(type_, FloatType):
        return type_.bits
    return 64


def _user_place(location):
    from simulee.frontend.compiler import user_location

    return user_location(location)


# ---------------------------------------------------------------------------- compiling


def host_calls(path: Path, options, callees: set[str]) -> tuple[list[Call], str]:
    """The calls of `callees` (symbols) in a source's host code (.cu or C++, compiled as
    CUDA's host side), and '' or why some may be missing: its first compile error, or the
    host functions whose bodies were left out to compile it (salvage)."""
    from simulee.frontend.compiler import degradation

    def read(host_ir: str) -> tuple[list[Call], str]:
        left_out = [part for part in degradation(host_ir).split("; ") if part.startswith("host code left out")]
        return calls_in(host_ir, callees), "; ".join(left_out)

    (calls, left_out), problem = _reading_host(path, options, read, ([], ""))
    return calls, problem or left_out


def identifier(symbol: str) -> str:
    """The name a function's symbol is called by in source: `_ZN2ns6launchEPfi` -> launch."""
    from interpreter.loader import _strip_templates, demangle, qualified_name

    return _strip_templates(qualified_name(demangle(symbol))).rpartition("::")[2]


def host_code(path: Path, options) -> tuple[list[Site], dict[str, list | None], set[str], str]:
    """What a CUDA source's host code says: its launch sites, the device variables it
    writes, the kernels it defines (read_host), and '' or why there are none (the
    compiler's first error)."""
    if Path(path).suffix.lower() not in (".cu",):
        return [], {}, set(), ""
    (sites, written, defined), problem = _reading_host(path, options, read_host, ([], {}, set()))
    return with_program(path, options, sites), written, defined, problem


def with_program(path: Path, options, sites: list[Site]) -> list[Site]:
    """`sites` of the launches in `path`, those of a kernel the source's whole host program
    launches (frontend.hostprogram: every file of it linked and optimized, what `main`
    passes folded in) replaced by the program's: the same launches, with what the host
    fixes of them as constants."""
    from simulee.frontend.hostprogram import program_ir

    linked, _ = program_ir(Path(path), options)
    program_sites = _program_sites(linked) if linked is not None else None
    if program_sites is None:
        return sites
    here = os.path.realpath(path)
    program_sites = [site for site in program_sites if os.path.realpath(site.file) == here]
    launched = {site.kernel for site in program_sites}
    return [site for site in sites if site.kernel not in launched] + program_sites


def program_note(path: Path, options) -> str:
    """How the launch sites of a source's host code were read (with_program): with its whole
    host program, and what of it was left out, or from its own host code alone, and why."""
    from simulee.frontend.hostprogram import program_ir

    linked, note = program_ir(Path(path), options)
    if linked is None:
        return "its own host code only" + (f": {note}" if note else "")
    return "its host program" + (f" ({note})" if note else "")


@functools.lru_cache(maxsize=4)
def _program_sites(linked: str) -> tuple[Site, ...] | None:
    """The launch sites of a whole program's host IR (read once for all its sources), through
    the program's own calls of the functions they lie in; None when it cannot be read. A
    parameter the program's calls leave open is an unknown no other file's call fixes (LTO
    may have changed the function's parameters)."""
    try:
        module = ir.parse_module(linked)
        readers = _readers(module)  # read once for both
        sites = _host_of(module, readers)[0]
        calls = _calls_of(readers, set().union(*(site.open_functions() for site in sites)))
    except (ir.IRSyntaxError, ValueError, KeyError, IndexError):
        return None
    return tuple(replace(site, inputs=tuple(replace(i, parameter=()) for i in site.inputs))
                 for site in through_callers(sites, calls))


def launching(sites: dict[str, list], file: str, defining: set[str]) -> list:
    """Of the launch sites of a kernel of `file`, by the program (source file) whose host
    code holds them, those that launch it: a program that defines a kernel of the same
    symbol launches its own (two programs of a repository with a kernel of one name), not
    this one, unless it includes `file` and none other launches it."""
    own = [site for program, found in sites.items() if program == file or program not in defining
           for site in found]
    return own or [site for program, found in sites.items() if _includes(program, file) for site in found]


def _includes(source: str, file: str) -> bool:
    """Whether `source` #includes a file named as `file` is (`#include "kernels.cu"`)."""
    try:
        text = Path(source).read_text(errors="replace")
    except OSError:
        return False
    return Path(file).name in {Path(name).name for name in _INCLUDED.findall(text)}


_INCLUDED = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.M)


def _reading_host(path: Path, options, read, nothing):
    """(read(the source's host IR), '') or, when its host side does not compile or parse,
    (`nothing`, why: the compiler's first error)."""
    from simulee.frontend.compiler import compile_cuda

    try:
        return read(compile_cuda(Path(path), options, host=True)), ""
    except SimuleeError as error:
        return nothing, f"host code not compiled: {str(error).splitlines()[0]}"
    except (ir.IRSyntaxError, ValueError, KeyError, IndexError) as error:
        return nothing, f"host code not read: {type(error).__name__}: {error}"
