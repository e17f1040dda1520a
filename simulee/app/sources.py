"""The files a path names (a file, or what a scan of a folder compiles), compiled and
loaded, each with what it was compiled without said; a kernel chosen; `kernels`' listing."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from simulee.errors import CompileError, SimuleeError
from simulee.frontend.compiler import load_program, uses_annotations
from simulee.model.findings import display


def load_degraded(file: Path, options):
    """load_program, with a warning when the file compiled only degraded (a missing header
    stood in for, host code left out)."""
    program = load_program(file, options)
    annotation = "" if options.gpuverify_annotations else uses_annotations(file)
    if annotation:
        print(f"simulee: note: {display(str(file))}: uses GPUVerify's annotations ({annotation}): compiled as with "
              "--gpuverify-annotations", file=sys.stderr)
    if program.degraded:
        print(f"simulee: warning: {display(str(file))}: compiled without what it needs: {program.degraded}",
              file=sys.stderr)
    return program


def each_program(path: Path, files: list[Path], options, verbose: bool = False, announce=None):
    """(file, program, None) per file, or (file, None, error) for a file of a folder that
    fails to load (its diagnostics printed when `verbose`), so the folder's check goes
    on; a lone file's error is raised. `announce(file)` is called before each loads."""
    for file in files:
        if announce is not None:
            announce(file)
        try:
            yield file, load_degraded(file, options), None
        except SimuleeError as error:
            if not path.is_dir():
                raise
            if verbose and isinstance(error, CompileError):
                sys.stderr.write(error.diagnostics)
            yield file, None, str(error)


def source_files(path: Path, options):
    """The files to compile and the compile options: `path` itself, or, for a folder, what
    a scan of it compiles (discover.repository: its .cu sources and kernel headers, each
    once, with the repository's include folders added to `options`); an error when there
    is no such file or no .cu file under it."""
    from simulee.scanner.discover import repository

    if not path.exists():
        raise SimuleeError(f"no such file or folder: {path}")
    if not path.is_dir():
        return [path], options
    found = repository(path)
    if not found.files:
        raise SimuleeError(f"no .cu files under {path}")
    return found.units(), replace(options, include_dirs=options.include_dirs + found.shared)


def named(program, name: str, path: Path) -> list:
    """The kernel `name` of a folder's file, [] when the file has none of that name."""
    from interpreter.loader import NoSuchKernel

    try:
        return [program.kernel(name)]
    except NoSuchKernel:
        return []
    except KeyError as error:
        raise SimuleeError(f"{path}: {error.args[0]}") from None


def select_kernel(program, name: str | None, path: Path):
    """The kernel `name`, or the file's only kernel when no name is given."""
    if name is not None:
        try:
            return program.kernel(name)
        except KeyError as error:
            raise SimuleeError(f"{path}: {error.args[0]}") from None
    if len(program.kernels) == 1:
        return program.kernels[0]
    if not program.kernels:
        raise SimuleeError(f"{path}: no __global__ kernel found")
    names = ", ".join(k.name for k in program.kernels)
    raise SimuleeError(f"{path} has {len(program.kernels)} kernels; choose one with -k ({names})")


def list_kernels(args) -> tuple[list, list[dict], list[Path]]:
    """(file, KernelInfo) of every kernel of args.path, the files that did not compile
    ({file, error}) and the files compiled."""
    path = Path(args.path)
    files, options = source_files(path, args.compile_options())
    listing, errors = [], []
    for file, program, error in each_program(path, files, options, args.verbose):
        if error:
            errors.append({"file": display(str(file)), "error": error})
            continue
        if not program.kernels and not path.is_dir():
            raise SimuleeError(f"{file}: no __global__ kernel found")
        listing += [(file, kernel) for kernel in program.kernels]
    return listing, errors, files
