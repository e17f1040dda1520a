"""Which scalar parameters of a kernel matter to the search (after SESA): a static taint
over the decoded IR from each scalar parameter to the places where a value decides what
threads do to memory, namely addresses (of loads, stores, atomics, memcpy/memset) and
branch conditions (which include loop bounds). A parameter that reaches neither cannot
make threads collide, so the search keeps it fixed.

Taint is a bit set of parameters per SSA value. It flows through every computation (an
instruction's result carries the taint of all its operands, a load also that of its
address), through memory (a store taints the object its pointer is based on: an alloca, a
global or a parameter's buffer; a load from that object is tainted), and through calls
(arguments to the callee's parameters, its returns back to the result). It is a may
analysis: conservative, so a relevant parameter is never kept fixed by mistake."""

from __future__ import annotations

from interpreter.decode import DecodedFunction
from interpreter.loader import KernelInfo, Program

ADDRESS, BRANCH = "address", "branch"
MEMORY_ADDRESS = {"load": 0, "store": 1, "atomicrmw": 0, "cmpxchg": 0}  # opcode -> pointer operand
POINTER_STEPS = {"getelementptr", "bitcast", "addrspacecast"}  # results based on operand 0
MEMORY_INTRINSICS = ("llvm.memcpy", "llvm.memmove", "llvm.memset")


def relevant_parameters(program: Program, kernel: KernelInfo) -> dict[str, list[str]]:
    """Scalar (integer and float) parameter name -> where it flows: "address", "branch"
    (both when both); parameters that reach neither are left out."""
    functions = {f.name: f for f in program.reachable_functions(kernel.symbol)}
    root = functions[kernel.symbol]
    scalars = [(index, param) for index, param in enumerate(kernel.params) if param.kind in ("integer", "float")]
    taint = _Taint(functions)
    for bit, (index, _) in enumerate(scalars):
        taint.add(root.name, root.params[index], 1 << bit)
    taint.solve()
    return {param.name: [use for use in (ADDRESS, BRANCH) if taint.sinks[use] >> bit & 1]
            for bit, (_, param) in enumerate(scalars) if taint.sinks[ADDRESS] >> bit & 1 or taint.sinks[BRANCH] >> bit & 1}


class _Taint:
    """The fixpoint: taint bits per (function, slot), per memory object and per function
    return, and the bits that reached each kind of sink."""

    def __init__(self, functions: dict[str, DecodedFunction]):
        self.functions = functions
        self.values: dict[tuple[str, int], int] = {}
        self.objects: dict[object, int] = {}
        self.returns: dict[str, int] = {}
        self.sinks = {ADDRESS: 0, BRANCH: 0}
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
            if opcode != "load":  # the stored value taints the object written
                changed |= self._taint_object(base, bits)
            bits |= self.objects.get(None, 0) | self.objects.get(base, 0) if base is not None else self._any_object()
        elif opcode in ("br", "switch"):
            self.sinks[BRANCH] |= bits
            return False
        elif opcode == "call":
            callee = op.extra.get("callee") or ""
            if callee.startswith(MEMORY_INTRINSICS):
                self.sinks[ADDRESS] |= bits
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


def _pointer_bases(function: DecodedFunction) -> dict[int, object]:
    """Slot -> the object a pointer is based on: ("alloca", function, slot), ("param",
    function, index) or ("global", name), following getelementptr and casts; pointers of
    other origin (phis, selects, loads) are left out (unknown)."""
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
    return bases
