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
from simulee.frontend import user_location

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

    run = commands.add_parser("run", parents=[compile_options],
                              help="run a kernel with a given launch and save its buffers",
                              description="Run every thread of a kernel launch on the CPU. Prints one summary line "
                                          "(threads, thread-instructions, faults, seconds) and the faults found; "
                                          "with -o, saves every pointer argument's final buffer.")
    run.add_argument("path", metavar="FILE")
    run.add_argument("-k", "--kernel", metavar="NAME", help="the kernel (needed when the file has several)")
    run.add_argument("--grid", required=True, metavar="G", help="grid dimensions: 64, 64,2 or 8x8x1")
    run.add_argument("--block", required=True, metavar="B", help="block dimensions: 256, 16,16 or 8x8x4")
    run.add_argument("--arg", action="append", default=[], metavar="NAME=VALUE", help="a scalar argument")
    run.add_argument("--buffer", action="append", default=[], metavar="NAME=DTYPE:COUNT[:FILL]|NAME=@FILE.npy",
                     help="a pointer argument's buffer; FILL is zeros (default), ones, iota or random. "
                          "Pointers without one get buffers that grow on demand and read as zeros")
    run.add_argument("--shared-bytes", type=_size, default=48 * 1024, metavar="N",
                     help="dynamic (extern __shared__) memory per block, default 49152")
    run.add_argument("--seed", type=int, default=0, help="seed for random buffers")
    run.add_argument("--step-limit", type=_size, default=2_000_000, metavar="N",
                     help="stop after N scheduler steps (an infinite loop becomes a finding)")
    run.add_argument("--printf", action="store_true", help="print what the kernel printed")
    run.add_argument("-o", "--output", metavar="OUT.npz", help="save the final buffers here")
    run.add_argument("--trace", metavar="TRACE.npz",
                     help="record every memory access and save the trace's columns here")
    run.set_defaults(run=run_run)

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


# ---------------------------------------------------------------------------- run


def _size(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"'{text}' must not be negative")
    return value


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


def run_run(args) -> int:
    import numpy as np

    from interpreter.launch import Launch
    from interpreter.simt import execute
    from simulee.launchspec import launch_arguments, parse_dims

    path = Path(args.path)
    grid, block = parse_dims(args.grid, "grid"), parse_dims(args.block, "block")
    if block[0] * block[1] * block[2] > 1024:
        raise SimuleeError(f"--block {args.block}: a block has at most 1024 threads")
    program = load_program(path, compile_options(args))
    kernel = select_kernel(program, args.kernel, path)
    values = launch_arguments(kernel, args.arg, args.buffer, args.seed)
    launch = Launch(grid, block, values, shared_bytes=args.shared_bytes, step_limit=args.step_limit, seed=args.seed,
                    trace=bool(args.trace))
    result = execute(program, kernel, launch)
    if args.printf:
        for _, _, text in result.events.printf:
            sys.stdout.write(text)
        sys.stdout.flush()
    findings = report_events(result, program)
    print(f"simulee: {kernel.name}: {result.threads:,} threads, {result.thread_instructions:,} thread-instructions, "
          f"{result.events.fault_count()} faults, {result.seconds:.2f} s")
    if args.output:
        try:
            np.savez(args.output, **result.buffers)
        except OSError as error:
            raise SimuleeError(f"cannot write {args.output}: {error.strerror}") from None
    if args.trace:
        save_trace(result.trace, args.trace)
    if result.status == "unsupported":
        raise SimuleeError(result.message)
    return EXIT_FINDINGS if findings else EXIT_OK


def save_trace(trace, path: str) -> None:
    """The trace's columns, plus the static instructions they name (op_*), as .npz."""
    import numpy as np

    locations = [user_location(op.location) for op in trace.ops]
    try:
        np.savez(path, **trace.columns,
                 op_file=np.array([l.file if l else "" for l in locations]),
                 op_line=np.array([l.line if l else 0 for l in locations], dtype=np.int32),
                 op_column=np.array([l.column if l else 0 for l in locations], dtype=np.int32),
                 op_opcode=np.array([op.opcode for op in trace.ops]))
    except OSError as error:
        raise SimuleeError(f"cannot write {path}: {error.strerror}") from None


def report_events(result, program) -> int:
    """Print what went wrong in a launch, compiler-style; returns how many findings."""
    from interpreter.trace import coordinates

    launch = result.launch
    ops = result.trace.ops

    def where(op: int) -> str:
        location = user_location(ops[op].location) if 0 <= op < len(ops) else None
        return f"{_display(Path(location.file))}:{location.line}:{location.column}" if location else "<unknown>"

    def who(block: int, thread: int) -> str:
        b = tuple(int(v) for v in coordinates([block], launch.grid)[0])
        t = tuple(int(v) for v in coordinates([thread], launch.block)[0])
        return f"block ({b[0]},{b[1]},{b[2]}) thread ({t[0]},{t[1]},{t[2]})"

    findings = 0
    grouped: dict[tuple[str, int], list] = {}
    for fault in result.events.faults:
        grouped.setdefault((fault.kind, fault.op), []).append(fault)
    for (kind, op), faults in grouped.items():
        threads = sum(len(f.threads) for f in faults)
        first = faults[0]
        print(f"{where(op)}: error: {kind.replace('-', ' ')} in {threads} thread{'s' if threads > 1 else ''} "
              f"(first: {who(int(first.blocks[0]), int(first.threads[0]))})", file=sys.stderr)
        findings += 1
    for assertion in result.events.assertions:
        count = len(assertion.threads)
        first = who(int(assertion.blocks[0]), int(assertion.threads[0]))
        if assertion.kind == "assert":
            print(f"{where(assertion.op)}: error: assertion failed in {count} thread{'s' if count > 1 else ''} "
                  f"(first: {first}): {assertion.message}", file=sys.stderr)
            findings += 1
        else:
            print(f"{where(assertion.op)}: warning: the launch breaks the kernel's assumption in {count} "
                  f"thread{'s' if count > 1 else ''} (first: {first})", file=sys.stderr)
    divergent: dict[int, list] = {}
    for event in result.events.barrier_divergence:
        divergent.setdefault(event.op, []).append(event)
    for op, events in divergent.items():
        event = events[0]
        went = ops[int(event.missing_ops[0])] if len(event.missing_ops) and event.missing_ops[0] >= 0 else None
        fate = f"{'exited' if went is not None and went.opcode in ('ret', 'unreachable', 'call') else 'waited'} at " \
               f"{where(int(event.missing_ops[0]))}" if went is not None else "did not arrive"
        print(f"{where(op)}: error: barrier divergence in {len(events)} block{'s' if len(events) > 1 else ''} "
              f"({who(event.block, int(event.arrived[0]))} arrived; thread {_thread(int(event.missing[0]), launch)} "
              f"{fate})", file=sys.stderr)
        findings += 1
    for event in result.events.warp_masks:
        print(f"{where(event.op)}: warning: warp {event.warp} of block {event.block}: mask {event.mask:#010x} names "
              f"lanes that never joined (arrived {event.arrived:#010x})", file=sys.stderr)
    if result.status == "step-limit":
        print(f"simulee: error: {result.message}", file=sys.stderr)
        findings += 1
    return findings


def _thread(linear: int, launch) -> str:
    from interpreter.trace import coordinates

    x, y, z = (int(v) for v in coordinates([linear], launch.block)[0])
    return f"({x},{y},{z})"


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
