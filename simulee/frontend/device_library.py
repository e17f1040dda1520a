"""NVIDIA's device code made interpretable: the steps between clang's IR and inlining.

- inline PTX (half precision, cooperative groups, CUB, user `asm`) is lifted to IR (ptx.py);
- cooperative groups' grid barrier, which NVIDIA builds from an atomic counter in a driver
  workspace that blocks spin on, becomes the interpreter's grid barrier (all blocks in one
  wave, and an epoch boundary the race detector orders by, not a spin to follow);
- libdevice, CUDA's math library in bitcode, is linked for the `__nv_*` functions the
  interpreter does not implement natively (interpreter/mathlib.py computes the others with
  NumPy, vectorized)."""

from __future__ import annotations

import functools
import itertools
import re

from simulee.frontend import passes, ptx, toolkit

# cooperative groups' grid barrier: arrive (returns a token) and wait
_GRID_ARRIVE = re.compile(r"^define [^@\n]*@(_ZN18cooperative_groups\w*sync_grids_arrive\w*)\(", re.M)
_GRID_WAIT = re.compile(r"^define [^@\n]*@(_ZN18cooperative_groups\w*sync_grids_wait\w*)\(", re.M)


# GPUVerify's axioms (simulee/frontend/include/gpuverify_annotations.h), and where a kernel's body starts
_AXIOM = re.compile(r"^define [^@\n]*@(\w*__simulee_axiom_\d+\w*)\(", re.M)
_KERNEL_ENTRY = re.compile(r"^define [^@\n]*\bptx_kernel [^\n]*?(?:!dbg !(\d+) )?\{\n(?:[-\w.$]+:[^\n]*\n)?", re.M)


def adapt(ir: str) -> str:
    """`ir` with libdevice linked, inline PTX (its and the program's) lifted, grid
    barriers the interpreter's, and GPUVerify's axioms called where each kernel starts."""
    ir = ptx.lift_inline_asm(link_libdevice(with_axioms(ir)))
    ir = _replace_bodies(ir, _GRID_ARRIVE, "call void @__simulee_grid_sync()\n  ret i32 0")
    ir = _replace_bodies(ir, _GRID_WAIT, "ret void")
    if "@__simulee_grid_sync(" in ir and not re.search(r"^declare [^\n]*@__simulee_grid_sync\(", ir, re.M):
        ir += "\ndeclare void @__simulee_grid_sync()\n"
    return ir


def with_axioms(ir: str) -> str:
    """`ir` with each kernel passing what each of GPUVerify's axioms (`__axiom(condition)` at
    namespace scope) computes to the interpreter's `__simulee_axiom` first thing: the threads
    for which one is false leave there (GPUVerify considers no such thread). Named values
    are added, so the numbering of the unnamed ones stays as it was."""
    axioms = _AXIOM.findall(ir)
    if not axioms:
        return ir
    locations = []  # a call in a function with debug information needs a place: line 0 of the kernel
    numbers = itertools.count(max((int(n) for n in re.findall(r"^!(\d+) = ", ir, re.M)), default=0) + 1)

    def called(entry: re.Match) -> str:
        place = ""
        if entry.group(1):
            locations.append(f"!{next(numbers)} = !DILocation(line: 0, scope: !{entry.group(1)})")
            place = f", !dbg {locations[-1].partition(' ')[0]}"
        return entry.group(0) + "".join(f"  %simulee.axiom.{number} = call i32 @{name}(){place}\n"
                                        f"  call void @__simulee_axiom(i32 %simulee.axiom.{number}){place}\n"
                                        for number, name in enumerate(axioms))

    ir = _KERNEL_ENTRY.sub(called, ir)
    return ir + "\ndeclare void @__simulee_axiom(i32)\n" + "".join(f"{location}\n" for location in locations)


def link_libdevice(ir: str) -> str:
    """`ir` with libdevice's definitions of the `__nv_*` functions it declares that the
    interpreter does not implement (and of everything those use)."""
    from interpreter.intrinsics import OUT_PARAMETER_MATH
    from interpreter.mathlib import find

    declared = re.findall(r"^declare [^@\n]*@(__nv_\w+)\(", ir, re.M)
    wanted = [name for name in declared if find(name) is None and name not in OUT_PARAMETER_MATH]
    library = _libdevice()
    wanted = [name for name in wanted if name in library.definitions]
    if not wanted:
        return ir
    functions, globals_, intrinsics, types = library.closure(wanted)
    present = set(re.findall(r"^(?:declare|define)[^@\n]*@([-\w.$]+)\(", ir, re.M))
    ir = re.sub(r"^declare [^@\n]*@(%s)\(.*\n" % "|".join(map(re.escape, functions)), "", ir, flags=re.M)
    added = types + [library.globals[name] for name in globals_]
    added += [library.definitions[name] for name in functions]
    added += [library.declarations[name] for name in intrinsics if name not in present]
    return ir + "\n" + "\n".join(added) + "\n"


class _Library:
    """libdevice's text split into its functions, declarations and globals."""

    # what __nvvm_reflect answers for libdevice's questions: no flush to zero, IEEE sqrt
    REFLECT = {"__CUDA_FTZ": 0, "__CUDA_PREC_SQRT": 1, "__CUDA_ARCH": 700}

    def __init__(self, text: str):
        strings = {name: value for name, value in
                   re.findall(r'^@([\w.$]+) = [^\n]*c"(\w+)\\00"', text, re.M)}
        text = re.sub(r"call i32 @__nvvm_reflect\(ptr @([\w.$]+)\)(?: #\d+)?",
                      lambda m: f"add i32 0, {self.REFLECT.get(strings.get(m.group(1)), 0)}", text)
        self.globals = {name: self._renamed(line, name) for name, line in
                        ((m.group(1), m.group(0)) for m in re.finditer(r"^@([\w.$]+) = .*$", text, re.M))}
        self.definitions, self.declarations = {}, {}
        for match in re.finditer(r"^define [^@\n]*@([\w.$]+)\(.*?\n}\n", text, re.M | re.S):
            body = re.sub(r"\) #\d+", ")", match.group(0))
            body = re.sub(r", ![\w.]+ !\d+", "", body)  # metadata (loop hints): its nodes stay behind
            body = re.sub(r"^define (?:linkonce_odr |weak |internal )?", "define internal ", body)
            self.definitions[match.group(1)] = body
        for match in re.finditer(r"^declare [^@\n]*@([\w.$]+)\(.*$", text, re.M):
            self.declarations[match.group(1)] = re.sub(r"\) #\d+", ")", match.group(0))
        # named types (a struct that trigonometric reduction returns), renamed like the globals
        self.types = {name: self._retyped(line, name) for name, line in
                      ((m.group(1), m.group(0)) for m in re.finditer(r"^%([\w.$]+) = type .*$", text, re.M))}
        for name, body in list(self.definitions.items()):
            self.definitions[name] = self._retyped(self._renamed(body, *self.globals), *self.types)

    @staticmethod
    def _renamed(text: str, *names: str) -> str:
        """`text` with the globals `names` prefixed, so they cannot clash with the user's."""
        for name in names:
            text = re.sub(r"@%s\b(?![\w.$])" % re.escape(name), f"@__libdevice_{name}", text)
        return text

    @staticmethod
    def _retyped(text: str, *names: str) -> str:
        for name in names:
            text = re.sub(r"%%%s(?![\w.$])" % re.escape(name), f"%__libdevice.{name}", text)
        return text

    def closure(self, names: list[str]):
        """(functions, globals, intrinsic declarations, named types) `names` need,
        transitively."""
        functions, globals_, intrinsics, stack = [], [], [], list(names)
        while stack:
            name = stack.pop()
            if name in functions:
                continue
            functions.append(name)
            for used in re.findall(r"@([\w.$]+)", self.definitions[name]):
                if used in self.definitions:
                    stack.append(used)
                elif used.startswith("__libdevice_") and used[12:] in self.globals and used[12:] not in globals_:
                    globals_.append(used[12:])
                elif used in self.declarations and used not in intrinsics:
                    intrinsics.append(used)
        used_types = {name for name in self.types for function in functions
                      if f"%__libdevice.{name}" in self.definitions[function]}
        return functions, globals_, intrinsics, [self.types[name] for name in sorted(used_types)]


@functools.cache
def _libdevice() -> _Library:
    return _Library(str(passes.binding().parse_bitcode(toolkit.libdevice().read_bytes())))


def _replace_bodies(ir: str, pattern: re.Pattern, body: str) -> str:
    """`ir` with the body of every function defined on a line `pattern` matches replaced."""
    position = 0
    while match := pattern.search(ir, position):
        open_brace = ir.index("{\n", match.end())
        close = ir.index("\n}\n", open_brace)
        # without its subprogram, the inliner gives the new body the call site's location
        header = re.sub(r" !dbg !\d+", "", ir[match.start():open_brace])
        ir = ir[:match.start()] + header + "{\n  " + body + ir[close:]
        position = match.start() + len(header) + len(body)
    return ir
