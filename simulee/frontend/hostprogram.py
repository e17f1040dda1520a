"""The host program a CUDA source belongs to, as its linker and LTO see it.

A source's own host code often does not fix what it passes a kernel: `main` in another file
passes a layer width to a constructor, which stores it in a struct a launcher in the .cu
reads. The translation units of the source's folder (C, C++ and CUDA sources, less those
another includes) that link into one program with a `main` are compiled for the host
(compile_cuda), linked into one module, everything but `main` made internal, and optimized
as link-time optimization at -O2 would (inlining across files, interprocedural constant
propagation, forwarding stored values to loads), the device stubs kept as calls: what
`main` passes down becomes the constant a launch passes. `program_ir` returns that IR, or
None where the folder holds no program (no `main`, or several) or nothing of it compiles and
links, with why, for -v.

May import: simulee.errors, simulee.frontend (compiler, passes)."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from simulee.errors import SimuleeError
from simulee.frontend import passes
from simulee.frontend.compiler import compile_cuda

SUFFIXES = (".cu", ".c", ".cc", ".cpp", ".cxx", ".c++")
MAX_UNITS = 64  # translation units a program links at most
MAX_IR = 64 << 20  # characters of host IR linked at most
INLINE_THRESHOLD = 2000  # LLVM's default at -O3 is 250: a launch deep under main is inlined into it
_MAIN = re.compile(r"^\s*(?:int|void|signed\s+int)?\s*\bmain\s*\(", re.M)
_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def program_ir(source: Path, options) -> tuple[str | None, str]:
    """(the optimized host IR of the program `source` belongs to, or None; what to say of
    it: why there is none, or the files left out of it, or '')."""
    source = Path(source).resolve()
    linked, note, units, compiled = _folder_program(source.parent, options)
    if source not in units:
        return None, "the source is included by another"
    if linked is not None and source not in compiled:
        return None, "its host code does not compile"
    return linked, note


@functools.lru_cache(maxsize=8)
def _folder_program(folder: Path, options) -> tuple[str | None, str, frozenset, frozenset]:
    """(the program's IR or None, the note, the folder's translation units, those that
    compiled), once per folder for all its sources."""
    units = translation_units(folder)
    if len(units) > MAX_UNITS:
        return None, f"its folder has more than {MAX_UNITS} translation units", frozenset(units), frozenset()
    mains = [unit for unit in units if _MAIN.search(_text(unit))]
    if len(mains) != 1:
        why = f"{len(mains)} files of its folder define main" if mains else "no main in its folder"
        return None, why, frozenset(units), frozenset()
    compiled = {}
    for unit in units:
        try:
            compiled[unit] = compile_cuda(unit, options, host=True)
        except SimuleeError:
            continue  # a file that does not compile is left out: what the rest passes still counts
    if mains[0] not in compiled or not re.search(r"^define [^@\n]*@main\(", compiled[mains[0]], re.M):
        return None, f"{mains[0].name}, which defines main, does not compile", frozenset(units), frozenset(compiled)
    if sum(map(len, compiled.values())) > MAX_IR:
        return None, "the program's host code is too large to link", frozenset(units), frozenset(compiled)
    return (*_cached_link(compiled, mains[0]), frozenset(units), frozenset(compiled))


def _cached_link(compiled: dict[Path, str], main: Path) -> tuple[str | None, str]:
    """_linked, kept in the IR cache under the units' IR (a scan's workers link it once)."""
    from simulee.frontend.cache import IRCache, digest, file_digest

    key = digest(json.dumps([file_digest(__file__), str(main), *(f"{unit}:{digest(ir.encode())}"
                                                            for unit, ir in sorted(compiled.items()))]).encode())
    cache = IRCache()
    cached = cache.get(key)
    if cached is not None:
        note, _, text = cached.partition("\n")
        return text, note.removeprefix("; ")
    linked, note = _linked(compiled, main)
    if linked is not None:
        cache.put(key, f"; {note}\n{linked}", [])
    return linked, note


def translation_units(folder: Path) -> list[Path]:
    """The sources of `folder` that are translation units of their own (not included by
    another of them)."""
    files = sorted(path.resolve() for path in folder.iterdir() if path.suffix.lower() in SUFFIXES and path.is_file())
    included = {(folder / name).resolve() for path in files for name in _INCLUDE.findall(_text(path))}
    units = [path for path in files if path not in included]
    return units


def _text(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def _linked(compiled: dict[Path, str], main: Path) -> tuple[str | None, str]:
    """The units' IR linked (one that clashes with what is linked left out) and optimized."""
    llvm = passes.binding()
    try:
        module = llvm.parse_assembly(compiled[main])
    except RuntimeError as error:
        return None, f"its main's host IR does not parse: {str(error).splitlines()[0]}"
    left_out = []
    for unit, text in compiled.items():
        if unit == main:
            continue
        try:
            other = llvm.parse_assembly(text)
            other.triple, other.data_layout = module.triple, module.data_layout
            trial = module.clone()
            trial.link_in(other)
        except RuntimeError:
            left_out.append(unit.name)
            continue
        module = trial
    for function in module.functions:
        if function.is_declaration or function.name == "main":
            continue
        if "__device_stub__" in function.name:
            function.add_function_attribute("noinline")  # each launch names its kernel
        function.linkage = "internal"
    for variable in module.global_variables:
        if not variable.is_declaration:
            variable.linkage = "internal"
    machine = llvm.Target.from_triple(module.triple).create_target_machine()
    tuning = llvm.create_pipeline_tuning_options(speed_level=2)
    tuning.inlining_threshold = INLINE_THRESHOLD
    builder = llvm.create_pass_builder(machine, tuning)
    builder.getModulePassManager().run(module, builder)
    return str(module), (f"left out (they clash with the rest): {', '.join(left_out)}" if left_out else "")
