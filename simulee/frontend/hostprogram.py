"""The host program a CUDA source belongs to, as its linker and LTO see it.

A source's own host code often does not fix what it passes a kernel: `main` in another file
passes a layer width to a constructor, which stores it in a struct a launcher in the .cu
reads. The translation units of the source's program (by the compilation database when it
lists the source: its build target's sources and the targets without a main it may link;
else by a CMakeLists.txt of its folder or above whose executable target holds it or links
a library that does, with the libraries it links; else by a Makefile of its folder or
above whose one link rule that builds it links the objects of those sources (make.py);
else the C, C++ and CUDA sources of its
folder, or of the nearest folder above whose tree holds one main, less those another
includes; in a folder of several programs, a source that defines main with the sources
that define none) that link into one program with a
`main` are compiled for the host, each with its own flags (compile_cuda), linked into one
module, everything but `main` made internal, and optimized twice as link-time
optimization at -O2 would (inlining across files, interprocedural constant propagation,
forwarding stored values to loads; the second folds what calls made direct by inlining
pass), the device stubs kept as calls: what `main` passes down becomes the constant a
launch passes. Globals stay external where host code was left out to compile a unit:
what it stores there is unknown. `program_ir` returns that IR, or None where the folder
holds no program (no `main`, or several) or nothing of it compiles and links, with why,
for -v. A source that defines no main, in a folder whose several programs each define one
(a library and its tests, as a Makefile builds them: kaldi's cudamatrix), belongs to the
library the folder's other sources make: they are linked without a main and only its own
launchers (functions that launch a kernel and that another of its functions calls) are made
internal (any program may call the rest), so what a function of one file passes a launcher
in another (a block shape it computes) is what the launch gets.

May import: simulee.errors, simulee.frontend (cmake, compiler, make, passes)."""

from __future__ import annotations

import functools
import json
import os
import re
import time
from dataclasses import replace
from pathlib import Path

from simulee.errors import SimuleeError
from simulee.frontend import cmake, make, passes
from simulee.frontend.compiler import compile_cuda, database_entries, degradation

SUFFIXES = (".cu", ".c", ".cc", ".cpp", ".cxx", ".c++")
MAX_UNITS = 64  # translation units a program links at most
DEVICE_MODEL = Path(__file__).resolve().parent / "host" / "device_model.cpp"  # what the program's GPU answers
MAX_IR = 64 << 20  # characters of host IR linked at most
INLINE_THRESHOLD = 2000  # LLVM's default at -O3 is 250: a launch deep under main is inlined into it
_MAIN = re.compile(r"^\s*(?:int|void|signed\s+int)?\s*\bmain\s*\(", re.M)
_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def program_ir(source: Path, options) -> tuple[str | None, str]:
    """(the optimized host IR of the program `source` belongs to, or None; what to say of
    it: why there is none, or the files left out of it, or '')."""
    source = Path(source).resolve()
    units, main, why = program_units(source, options)
    if not units:
        return None, why
    linked, note, compiled = _program(units, main, options, source)
    if linked is not None and source not in compiled:
        return None, "its host code does not compile"
    return linked, note


def program_units(source: Path, options) -> tuple[frozenset, Path | None, str]:
    """(the translation units of the program the resolved `source` belongs to, none when
    there is none, the one defining main, None for a library, why there is none): those of the compilation database
    (options.compile_commands) when it lists the source and tells its program, else those
    of the source's folder, or where no file of it defines main, of the nearest folder
    above (up to MAX_LEVELS, within the repository) whose files and subfolders hold one
    main (`main.cpp` beside `layers/`). In a folder where several sources define main, a
    source that defines one is its own program, with the folder's sources that define none,
    and one that defines none is of the library those make (with no main)."""
    listed = _database_program(source, options) or _cmake_program(source, options) or _make_program(source, options)
    if listed is not None:
        return listed
    folder = source.parent
    units = translation_units(folder)
    if source not in units:
        return frozenset(), None, "the source is included by another"
    for level in range(MAX_LEVELS + 1):
        if units is None or len(units) > MAX_UNITS:
            return frozenset(), None, f"{'its folder' if level == 0 else folder} has more than {MAX_UNITS} " \
                "translation units"
        mains = [unit for unit in units if _MAIN.search(_text(unit))]
        if len(mains) == 1:
            return (frozenset(units), mains[0], "") if source in units else \
                (frozenset(), None, "the source is included by another")
        if level == 0 and source in mains:  # a folder of programs, one per source (a Makefile's)
            return frozenset(unit for unit in units if unit == source or unit not in mains), source, ""
        library = [unit for unit in units if unit not in mains]
        if level == 0 and len(mains) > 1 and len(library) > 1:  # the library its programs link
            return frozenset(library), None, ""
        if mains:
            return frozenset(), None, f"{len(mains)} files of {'its folder' if level == 0 else folder} define main"
        if not _may_climb(folder, options.confine):
            break
        folder = folder.parent
        units = translation_units(folder, tree=True)
    return frozenset(), None, "no main in its folder or those above it"


MAX_LEVELS = 2  # folders above a source's own where its program's main is looked for


def _may_climb(folder: Path, confine: tuple[str, ...] | None) -> bool:
    """Whether the program may lie in the folder above `folder`: not past a repository's
    root (a .git, or a folder a scan is confined to)."""
    if (folder / ".git").exists() or folder.parent == folder:
        return False
    if confine is None:
        return True
    return any(folder.parent.is_relative_to(Path(root).resolve()) for root in confine)


def _database_program(source: Path, options) -> tuple[frozenset, Path, str] | None:
    """The program of `source` by the compilation database: the sources of the build target
    that holds it and defines main (CMake's; a database that names no targets is one), with
    every target that defines no main (the libraries it may link); None where the database
    does not list `source` or does not tell one main for it. Sources outside the folders a
    scan may read are left out."""
    if not options.compile_commands:
        return None
    entries = {Path(file): entry for file, entry in database_entries(options).items()
               if Path(file).suffix.lower() in SUFFIXES and _readable(Path(file), options.confine)}
    if source not in entries:
        return None
    mains = [unit for unit in entries if _MAIN.search(_text(unit))]
    own = [unit for unit in mains if entries[unit].target == entries[source].target]
    main = own[0] if len(own) == 1 else mains[0] if len(mains) == 1 else None
    if main is None:
        return None
    programs = {entries[unit].target for unit in mains}
    units = [unit for unit, entry in entries.items()
             if entry.target == entries[main].target or entry.target not in programs]
    if source not in units or len(units) > MAX_UNITS:
        return None
    return frozenset(units), main, ""


def _cmake_program(source: Path, options) -> tuple[frozenset, Path, str] | None:
    """The program of `source` by a CMakeLists.txt of its folder or above (cmake.program_of):
    the sources of the executable target that holds it or links a library that does, with
    those of the libraries it links; None where no listing tells one main for it."""
    for folder in cmake.projects(source, options.confine):
        listed = _listed_program(source, cmake.program_of(source, folder), options.confine)
        if listed is not None:
            return listed
    return None


def _make_program(source: Path, options) -> tuple[frozenset, Path, str] | None:
    """The program of `source` by a Makefile of its folder or above (make.program_of): the
    sources of the objects the one link rule that builds it from `source` links; None where
    no rule does, or its program does not define one main."""
    return _listed_program(source, make.program_of(source, options.confine), options.confine)


def _listed_program(source: Path, listed: list[Path] | None, confine) -> tuple[frozenset, Path, str] | None:
    """The program a build file lists for `source` (its sources that Simulee compiles and may
    read), where it holds `source` and exactly one main; else None."""
    units = [unit for unit in listed or () if unit.suffix.lower() in SUFFIXES and _readable(unit, confine)]
    mains = [unit for unit in units if _MAIN.search(_text(unit))]
    if source in units and len(mains) == 1 and len(units) <= MAX_UNITS:
        return frozenset(units), mains[0], ""
    return None


def _readable(path: Path, confine: tuple[str, ...] | None) -> bool:
    """Whether `path` is a file within the folders `confine` allows (any, without it)."""
    folders = [Path(folder).resolve() for folder in confine or ()]
    return path.is_file() and (confine is None or any(path.is_relative_to(folder) for folder in folders))


@functools.lru_cache(maxsize=8)
def _program(units: frozenset, main: Path | None, options, source: Path) -> tuple[str | None, str, frozenset]:
    """(the program's IR or None, the note, the units that compiled), once per program for
    all its sources (a library's when `main` is None). Within `options.timeout` (a scan's
    file), `source` and main compile first, the other units only while UNITS_SHARE of it
    is left (linking needs the rest): those it leaves out are said in the note. A library
    short of some (left out, or not compiling) is no program: its source's own launch
    sites stand, with the parameters a scan reads other files' calls of."""
    compiled, late = {}, []
    deadline = _clock() + options.timeout * UNITS_SHARE if options.timeout else None
    first = [unit for unit in (source, main) if unit in units]
    for unit in [*dict.fromkeys(first), *sorted(units - set(first))]:
        left = deadline - _clock() if deadline is not None else None
        if left is not None and left < 1 and unit not in first:
            late.append(unit)
            continue
        try:
            compiled[unit] = compile_cuda(unit, options if unit in first or left is None else
                                          replace(options, timeout=left), host=True)
        except SimuleeError:
            continue  # a file that does not compile is left out: what the rest passes still counts
    if main is not None and (main not in compiled or not re.search(r"^define [^@\n]*@main\(", compiled[main], re.M)):
        return None, f"{main.name}, which defines main, does not compile", frozenset(compiled)
    try:  # the device the program asks about: its answers fold into what it launches
        own = replace(options, compile_commands=None, confine=None, include_dirs=(), defines=(), clang_args=())
        compiled[DEVICE_MODEL] = compile_cuda(DEVICE_MODEL, own, host=True)
    except SimuleeError:
        pass
    if main is None and len(compiled) < 2:
        return None, "no other file of its library compiles", frozenset(compiled)
    if main is None and len(units & compiled.keys()) < len(units):  # short of units (late, or not compiling): the
        # source's own launches stand, which a scan calls through (the inlined launchers of a part hide the calls)
        return None, _late_note(late, units) if late else "some files of its library do not compile", \
            frozenset(compiled)
    if sum(map(len, compiled.values())) > MAX_IR:
        return None, "the program's host code is too large to link", frozenset(compiled)
    linked, note = _cached_link(compiled, main, whole=not late)
    return linked, "; ".join(filter(None, [note, late and _late_note(late, units)])), frozenset(compiled)


def _late_note(late: list[Path], units: frozenset) -> str:
    return f"{len(late)} of its {len(units)} translation units left out: not compiled in time " \
        f"({', '.join(unit.name for unit in late[:3])}{', ...' if len(late) > 3 else ''})"


UNITS_SHARE = 0.5  # of a file's time (a scan's --compile-timeout) that compiling its program's units may take
_clock = time.monotonic


def _cached_link(compiled: dict[Path, str], main: Path, whole: bool = True) -> tuple[str | None, str]:
    """_linked, kept in the IR cache under the units' IR (a scan's workers link it once)."""
    from simulee.frontend.cache import IRCache, digest, file_digest

    key = digest(json.dumps([file_digest(__file__), str(main), whole, *(f"{unit}:{digest(ir.encode())}"
                                                            for unit, ir in sorted(compiled.items()))]).encode())
    cache = IRCache()
    cached = cache.get(key)
    if cached is not None:
        note, _, text = cached.partition("\n")
        return text, note.removeprefix("; ")
    linked, note = _linked(compiled, main, whole)
    if linked is not None:
        cache.put(key, f"; {note}\n{linked}", [])
    return linked, note


def _called_launchers(text: str) -> set[str]:
    """The functions of a library's IR `text` that launch a kernel (name a device stub) and
    that another of its functions calls: its own launchers (kaldi's `cuda_*` wrappers), which
    launch what their callers compute."""
    launchers, called = set(), set()
    for body in text.split("\ndefine ")[1:]:
        name = _DEFINED.match(body)
        if name is None or "__device_stub__" in name[1]:
            continue
        calls = set(_CALLED.findall(body)) - {name[1]}
        called |= calls
        if "__device_stub__" in body:
            launchers.add(name[1])
    return launchers & called


_DEFINED = re.compile(r'[^@\n]*@"?([^"(\s]+)"?\(')
_CALLED = re.compile(r'\bcall [^@\n]*@"?([^"(\s]+)"?\(')


def translation_units(folder: Path, tree: bool = False) -> list[Path] | None:
    """The sources of `folder` (with `tree`, of its subfolders too, hidden ones left out)
    that are translation units of their own (not included by another of them); None
    when a tree holds more than MAX_UNITS sources or MAX_ENTRIES files."""
    files, seen = [], 0
    for root, folders, names in os.walk(folder) if tree else [(folder, [], [p.name for p in folder.iterdir()])]:
        folders[:] = sorted(name for name in folders if not name.startswith("."))
        seen += len(names)
        files += [(Path(root) / name).resolve() for name in names
                  if Path(name).suffix.lower() in SUFFIXES and (Path(root) / name).is_file()]
        if tree and (len(files) > MAX_UNITS or seen > MAX_ENTRIES):
            return None
    included = {(path.parent / name).resolve() for path in files for name in _INCLUDE.findall(_text(path))}
    return sorted(path for path in files if path not in included)


MAX_ENTRIES = 4000  # files a folder's tree may hold for its sources to be read as one program


def _text(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def _linked(compiled: dict[Path, str], main: Path | None, whole: bool = True) -> tuple[str | None, str]:
    """The units' IR linked (one that clashes with what is linked left out) and optimized:
    a program's with everything but main internal, a library's (no `main`), or a program
    some of whose units are not there (not `whole`), as it is but for the launchers its own
    functions call."""
    llvm = passes.binding()
    first = main or min(unit for unit in compiled if unit != DEVICE_MODEL)
    try:
        module = llvm.parse_assembly(compiled[first])
    except RuntimeError as error:
        return None, f"its {'main' if main else first.name}'s host IR does not parse: {str(error).splitlines()[0]}"
    left_out = []
    for unit, text in compiled.items():
        if unit == first:
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
    private = None if main is not None and whole else _called_launchers(str(module))
    for function in module.functions:
        if function.is_declaration or function.name == "main":
            continue
        if "__device_stub__" in function.name:
            function.add_function_attribute("noinline")  # each launch names its kernel
        if private is None or function.name in private:
            function.linkage = "internal"
    # host code left out to compile a unit (salvage), or any program a library is linked into, may
    # have written any global: none is internal then, so what only that code stores is not folded
    opaque = main is None or not whole or any("host code left out" in degradation(text) for text in compiled.values())
    for variable in module.global_variables:
        if not variable.is_declaration and not opaque:
            variable.linkage = "internal"
    machine = llvm.Target.from_triple(module.triple).create_target_machine()
    tuning = llvm.create_pipeline_tuning_options(speed_level=2)
    tuning.inlining_threshold = INLINE_THRESHOLD
    builder = llvm.create_pass_builder(machine, tuning)
    for _ in range(2):  # again: a call made direct by inlining (a launcher passed by pointer) folds its constants
        builder.getModulePassManager().run(module, builder)
    notes = [f"left out (they clash with the rest): {', '.join(left_out)}" if left_out else "",
             "a library, linked without a main" if main is None else
             "its globals are not folded: host code was left out to compile it" if opaque else ""]
    return str(module), "; ".join(filter(None, notes))
