"""The `simulee` command line.

Exit status: 0 when nothing was found, 1 when findings were reported, 2 for bad input
(missing file, compile error, unknown kernel, malformed option) or an analysis error.
Every error is one line on stderr; SIMULEE_DEBUG=1 adds the traceback of internal errors.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from simulee import __version__
from simulee.errors import SimuleeError

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
BUILTIN_NAMES = {"tid": "threadIdx", "ctaid": "blockIdx", "ntid": "blockDim", "nctaid": "gridDim"}


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit status 2."""

    def error(self, message: str):
        self.exit(EXIT_ERROR, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    compile_options = argparse.ArgumentParser(add_help=False)
    group = compile_options.add_argument_group("compilation")
    group.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                       help="add DIR to the include search path (repeatable)")
    group.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                       help="define a preprocessor macro (repeatable)")
    group.add_argument("--clang", metavar="PATH",
                       help="compile with this clang instead of ziglang's (also $SIMULEE_CLANG)")
    group.add_argument("--gpuverify-annotations", action="store_true",
                       help="accept GPUVerify's annotations (__requires, __invariant, ...)")

    parser = _Parser(prog="simulee", description="Find CUDA synchronization bugs without a GPU.")
    parser.add_argument("--version", action="version", version=f"simulee {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=_Parser)

    kernels = commands.add_parser("kernels", parents=[compile_options],
                                  help="list the kernels of a CUDA file (or of every .cu file under a folder)",
                                  description="List every kernel: name, parameters, source line, which index "
                                              "variables it reads and its shared memory.")
    kernels.add_argument("path", metavar="FILE|DIR")
    kernels.add_argument("--format", choices=("text", "json"), default="text")
    kernels.set_defaults(run=run_kernels)

    compile_ = commands.add_parser("compile", parents=[compile_options],
                                   help="print the LLVM IR the interpreter runs for a CUDA file",
                                   description="Compile a CUDA file to the LLVM IR that Simulee interprets.")
    compile_.add_argument("path", metavar="FILE")
    compile_.add_argument("-o", "--output", metavar="OUT", help="write the IR here instead of stdout")
    compile_.set_defaults(run=run_compile)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except SimuleeError as error:
        return _fail(str(error))
    except KeyboardInterrupt:
        return _fail("interrupted")
    except BrokenPipeError:
        return EXIT_OK
    except Exception as error:  # an internal error: one line, the traceback on request
        if os.environ.get("SIMULEE_DEBUG"):
            raise
        return _fail(f"internal error: {type(error).__name__}: {error} (set SIMULEE_DEBUG=1 for a traceback)")


def _fail(message: str) -> int:
    print(f"simulee: error: {message}", file=sys.stderr)
    return EXIT_ERROR


def compile_options(args):
    from simulee.frontend import CompileOptions

    for define in args.defines:
        if not define or define.startswith("=") or " " in define.partition("=")[0]:
            raise SimuleeError(f"malformed -D option: '{define}' (expected NAME or NAME=VALUE)")
    for directory in args.include_dirs:
        if not Path(directory).is_dir():
            raise SimuleeError(f"-I {directory}: no such folder")
    return CompileOptions(tuple(args.include_dirs), tuple(args.defines), args.clang, args.gpuverify_annotations)


def load_program(path: Path, options):
    """Compile (or read) and load one file; SimuleeError on any problem with it."""
    from interpreter.loader import LoadError, load_module
    from simulee.frontend import load_ir

    text = load_ir(path, options)
    try:
        return load_module(text, str(path))
    except LoadError as error:
        raise SimuleeError(str(error)) from None


def source_files(path: Path) -> list[Path]:
    """`path` itself, or every .cu file under the folder `path`, in sorted order."""
    if path.is_dir():
        return sorted(p for p in path.rglob("*.cu") if p.is_file())
    return [path]


# ---------------------------------------------------------------------------- kernels


def run_kernels(args) -> int:
    options = compile_options(args)
    path = Path(args.path)
    if not path.exists():
        raise SimuleeError(f"no such file or folder: {path}")
    files = source_files(path)
    if not files:
        raise SimuleeError(f"no .cu files under {path}")
    listing, errors = [], []
    for file in files:
        try:
            program = load_program(file, options)
        except SimuleeError as error:
            if not path.is_dir():
                raise
            errors.append({"file": _display(file), "error": str(error)})
            continue
        if not program.kernels and not path.is_dir():
            raise SimuleeError(f"{file}: no __global__ kernel found")
        listing += [(file, kernel) for kernel in program.kernels]
    if args.format == "json":
        document = {
            "tool": "simulee",
            "version": __version__,
            "kernels": [dict(kernel.to_json(), file=_display(Path(kernel.file))) for _, kernel in listing],
            "errors": errors,
        }
        print(json.dumps(document, indent=2))
    else:
        for file, kernel in listing:
            print(_kernel_line(file, kernel))
        for error in errors:
            print(f"simulee: error: {error['error']}", file=sys.stderr)
        if path.is_dir():
            print(f"{len(listing)} kernels in {len(files) - len(errors)} files"
                  + (f"; {len(errors)} files failed" if errors else ""), file=sys.stderr)
    return EXIT_ERROR if errors else EXIT_OK


def _kernel_line(file: Path, kernel) -> str:
    location = f"{_display(Path(kernel.file)) if kernel.file else _display(file)}:{kernel.line}"
    details = []
    if kernel.builtins:
        details.append("reads " + " ".join(
            f"{BUILTIN_NAMES[register]}.{axis}" for register, _, axis in (b.partition(".") for b in kernel.builtins)))
    if kernel.shared_bytes or kernel.dynamic_shared:
        shared = f"shared {kernel.shared_bytes} B" if kernel.shared_bytes else "shared"
        details.append(shared + (" + dynamic" if kernel.dynamic_shared and kernel.shared_bytes else
                                 " dynamic" if kernel.dynamic_shared else ""))
    return f"{location}: {kernel.declaration()}" + (f"\n    {'; '.join(details)}" if details else "")


def _display(path: Path) -> str:
    """`path` relative to the current folder when it lies under it."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


# ---------------------------------------------------------------------------- compile


def run_compile(args) -> int:
    from simulee.frontend import load_ir

    text = load_ir(Path(args.path), compile_options(args))
    if args.output:
        try:
            Path(args.output).write_text(text)
        except OSError as error:
            raise SimuleeError(f"cannot write {args.output}: {error.strerror}") from None
    else:
        sys.stdout.write(text)
    return EXIT_OK
