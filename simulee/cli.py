"""The `simulee` command line.

Exit status: 0 when nothing was found, 1 when error findings were reported, 2 for bad
input (missing file, compile error, unknown kernel, malformed option) or an analysis
error, 130 when interrupted. Every error is one line on stderr, `simulee: error: ...`;
-v adds every compiler diagnostic, SIMULEE_DEBUG=1 the traceback of an internal error.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

from interpreter.limits import DEFAULT_HEAP_BYTES, DEFAULT_STEP_LIMIT, FILLS, MAX_SHARED_BYTES
from simulee import __version__
from simulee.errors import CompileError, SimuleeError
from simulee.model.findings import display
from simulee.frontend.compiler import DEFAULT_ARCH, load_program, own_kernels, user_location, uses_annotations

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130
BUILTIN_NAMES = {"tid": "threadIdx", "ctaid": "blockIdx", "ntid": "blockDim", "nctaid": "gridDim"}


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line and exit status 2."""

    def error(self, message: str):
        self.exit(EXIT_ERROR, f"simulee: error: {message} (see {self.prog} --help)\n")


class RaisingParser(_Parser):
    """argparse for the Python API: a usage error is a SimuleeError."""

    def error(self, message: str):
        raise SimuleeError(message)


ENGINE_HELP = ("how kernels run: native (machine code through LLVM's JIT, the default) or numpy (the reference "
               "interpreter); also $SIMULEE_ENGINE")


def build_parser(parser_class: type = _Parser) -> argparse.ArgumentParser:
    """The command line: shared option groups, and one function per subcommand."""
    parser = parser_class(prog="simulee", description="Find CUDA synchronization bugs without a GPU.")
    parser.add_argument("--version", action="version", version=f"simulee {__version__}")
    parser.add_argument("--engine", choices=("native", "numpy"), default=argparse.SUPPRESS, help=ENGINE_HELP)
    parser.add_argument("--no-server", action="store_true", default=argparse.SUPPRESS,
                        help="run in this process even when a server runs (also $SIMULEE_NO_SERVER=1)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=parser_class)
    compiling, execution, search, scanning = (_compile_options(), _execution_options(), _search_options(),
                                              _scan_options())
    _kernels_command(commands, compiling)
    _run_command(commands, compiling, _launch_options(True), execution)
    _check_command(commands, compiling, _launch_options(False), execution, search)
    _scan_command(commands, compiling, execution, search, scanning)
    _audit_command(commands, compiling, execution, search, scanning)
    _trace_command(commands, compiling, _launch_options(False), execution)
    _compile_command(commands, compiling)
    _exec_command(commands, compiling)
    _prove_command(commands, compiling)
    _equiv_command(commands, compiling, execution)
    _fix_command(commands, compiling)
    _test_command(commands)
    _server_command(commands)
    return parser


def _compile_options() -> argparse.ArgumentParser:
    compile_options = argparse.ArgumentParser(add_help=False)
    compile_options.add_argument("--engine", choices=("native", "numpy"), default=argparse.SUPPRESS,
                                 help=ENGINE_HELP)
    group = compile_options.add_argument_group("compilation")
    group.add_argument("-I", dest="include_dirs", action="append", default=[], metavar="DIR",
                       help="add DIR to the include search path (repeatable)")
    group.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]",
                       help="define a preprocessor macro (repeatable)")
    group.add_argument("--clang", metavar="PATH",
                       help="compile with this clang instead of ziglang's (also $SIMULEE_CLANG)")
    group.add_argument("--clang-arg", dest="clang_args", action="append", default=[], metavar="ARG",
                       help="pass ARG to clang as it is (repeatable); write it with =, as in --clang-arg=-std=c++17")
    group.add_argument("--arch", default=DEFAULT_ARCH, metavar="sm_XX",
                       help=f"the GPU architecture to compile for (__CUDA_ARCH__), default {DEFAULT_ARCH}")
    group.add_argument("--compile-commands", metavar="FILE",
                       help="take each source's -I, -D and -std from this compile_commands.json (a scan finds "
                            "REPO/compile_commands.json or REPO/build*/compile_commands.json by itself)")
    group.add_argument("--gpuverify-annotations", action="store_true",
                       help="accept GPUVerify's annotations (__requires, __invariant, ...)")
    group.add_argument("-v", "--verbose", action="store_true",
                       help="print every compiler diagnostic of a file that does not compile (check: also each "
                            "search generation's best launch and the launches checked)")
    return compile_options


def _launch_options(required: bool) -> argparse.ArgumentParser:
    options = argparse.ArgumentParser(add_help=False)
    group = options.add_argument_group("launch")
    group.add_argument("-k", "--kernel", metavar="NAME",
                       help="the kernel (check: only this one; run, trace: needed when the file has several)")
    group.add_argument("--grid", metavar="G", required=required,
                       help="grid dimensions: 64, 64,2 or 8x8x1 (x up to 2147483647, y and z up to 65535)")
    group.add_argument("--block", metavar="B", required=required,
                       help="block dimensions: 256, 16,16 or 8x8x4 (x and y up to 1024, z up to 64, 1024 threads "
                            "in all)")
    group.add_argument("--arg", action="append", default=[], metavar="NAME=VALUE",
                       help="a scalar argument (once per parameter), or a member of a struct by value (dim.rows=64)")
    group.add_argument("--buffer", action="append", default=[], metavar="NAME=DTYPE:COUNT[:FILL]|NAME=@FILE.npy",
                       help="a pointer argument's buffer; FILL is zeros (default), ones, iota or random. Pointers "
                            "without one get buffers that grow on demand and read as zeros")
    group.add_argument("--alias", action="append", default=[], metavar="NAME=OTHER",
                       help="pointer NAME points to the same buffer as pointer OTHER (e.g. out=in)")
    group.add_argument("--fill", choices=FILLS, metavar="MODE",
                       help="what buffers without --buffer hold before they are written: zeros (default for "
                            "run), small (random integers 0-63), wide (the type's whole range: negatives, "
                            "extremes, constants the kernel compares against), distinct (no two alike) or "
                            "sorted (non-decreasing, each value twice); random ones drawn from --seed. check "
                            "searches it unless given")
    group.add_argument("--buffer-cast", action="store_true",
                       help="convert --buffer data to the type the parameter points to (else a mismatch is an "
                            "error)")
    return options


def _execution_options() -> argparse.ArgumentParser:
    execution_options = argparse.ArgumentParser(add_help=False)
    group = execution_options.add_argument_group("execution")
    group.add_argument("--shared-bytes", type=_shared_bytes, default=48 * 1024, metavar="N",
                       help="dynamic (extern __shared__) memory per block, default 49152, at most 232448 (227 KiB, "
                            "the most a CUDA block may have)")
    group.add_argument("--seed", type=_size, default=0,
                       help="seed for random buffers (and the input search), 0 or more")
    group.add_argument("--step-limit", type=_positive, metavar="N",
                       help=f"stop a launch after N scheduler steps; default {DEFAULT_STEP_LIMIT:,} per wave of "
                            "blocks plus what the kernel's loop bounds need")
    group.add_argument("--max-seconds", type=_seconds, metavar="S",
                       help="stop a launch (check: a kernel's search and checks) after S seconds; default no limit "
                            "(scan: the kernel timeout)")
    group.add_argument("--heap-bytes", type=_heap_bytes, default=DEFAULT_HEAP_BYTES, metavar="SIZE",
                       help="the device heap in-kernel malloc allocates from, default 8M as on CUDA")
    return execution_options


def _search_options() -> argparse.ArgumentParser:
    search_options = argparse.ArgumentParser(add_help=False)
    search_options.add_argument("--warp-model", choices=("independent", "lockstep"), default="independent",
                                help="independent (Volta and later, default) or lockstep (pre-Volta) warps")
    search_options.add_argument("--target", type=_target, default=0, metavar="sm_XX",
                                help="the GPU architecture the code must be right on (default: every one current "
                                     "toolkits support, sm_70 and later); before sm_70 warps run in lockstep and "
                                     "warp-synchronous races are warnings, not errors")
    search_options.add_argument("--seed-launches", type=Path, metavar="DIR",
                                help="start the input search also from the launches simulee exec --save-launches "
                                     "saved in DIR (their dimensions and numbers)")
    search_options.add_argument("--no-prove", action="store_true",
                                help="do not run the prover first (by default each kernel is proved race-free for "
                                     "every launch where the prover can, and then its race search is skipped)")
    search_options.add_argument("--fail-on", type=_finding_types, default=None, metavar="TYPE[,TYPE]",
                                help="exit with status 1 when a finding of these types is reported, whatever its "
                                     "severity (default: when any error is), e.g. data-race,barrier-divergence")
    search_options.add_argument("--baseline", type=Path, metavar="REPORT",
                                help="an earlier report to compare with: a scan's report.sarif (or its folder) or a "
                                     "JSON report; each root cause is marked new or unchanged, and those no longer "
                                     "found absent (SARIF baselineState)")
    search_options.add_argument("--new-only", action="store_true",
                                help="with --baseline: report, and set the exit status by, only the new root causes")
    search_options.add_argument("--detect", type=_detectors, default=(), metavar="NAME[,NAME]",
                                help="also run these detectors, off by default: uninitialized-shared-read (a read of "
                                     "shared memory no thread of the block wrote before), bank-conflict (shared-memory "
                                     "bank conflicts, a performance warning), or all")
    group = search_options.add_argument_group("input search (when no launch is given)")
    group.add_argument("--population", type=_positive, default=10, metavar="P",
                       help="launches per generation, default 10")
    group.add_argument("--generations", type=_size, default=10, metavar="N", help="generations at most, default 10")
    group.add_argument("--launches", type=_positive, default=3, metavar="K",
                       help="how many of the best distinct launches found are checked in full, default 3")
    group.add_argument("--max-blocks", type=_positive, default=32, metavar="N",
                       help="the most blocks a searched grid may have, default 32")
    group.add_argument("--config", metavar="FILE",
                       help="the simulee.toml stating launches, arguments, relations, buffers and suppressions "
                            "(default: the one in the checked folder or the nearest folder above it, within its "
                            "repository)")
    group.add_argument("--host", action="append", default=[], metavar="FILE",
                       help="a C++ or CUDA source whose calls of the checked files' functions make their launches "
                            "(a launcher `run(dim3 grid, dim3 block, ...)` called from main.cpp); repeatable. A "
                            "folder checked reads its own .cc/.cpp/.cxx files")
    group.add_argument("--no-launch-sites", dest="launch_sites", action="store_false",
                       help="ignore the launches the host code makes (by default a kernel with launch sites is "
                            "checked under them, and the search varies only what they leave open)")
    return search_options


def _scan_options() -> argparse.ArgumentParser:
    scan_options = argparse.ArgumentParser(add_help=False)
    group = scan_options.add_argument_group("scan")
    group.add_argument("-o", "--output", metavar="DIR", help="the output folder, default results/NAME/ (NAME: the "
                                                              "repository's folder name, or the file's name)")
    group.add_argument("--jobs", type=_positive, default=len(os.sched_getaffinity(0)), metavar="N",
                       help="worker processes (Dask: LocalCluster workers), default all cores")
    group.add_argument("--scheduler", metavar="tcp://HOST:PORT|local",
                       help="run the kernels on a Dask cluster: its scheduler's address, or local for a LocalCluster")
    group.add_argument("--resume", action="store_true",
                       help="keep the results already in the output folder and check only the rest")
    group.add_argument("--kernel-timeout", type=_seconds, default=120.0, metavar="SECONDS",
                       help="give up on a kernel's check after this long, default 120")
    group.add_argument("--compile-timeout", type=_seconds, default=300.0, metavar="SECONDS",
                       help="give up on compiling a file (and reading its host code) after this long, default 300")
    group.add_argument("--memory-limit", type=_bytes, default=8 << 30, metavar="SIZE",
                       help="address space per worker process, e.g. 8G (default) or 512M; 0 for no cap")
    group.add_argument("--include", action="append", default=[], metavar="GLOB",
                       help="scan only .cu files matching GLOB (a relative path or a folder name; repeatable)")
    group.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                       help="skip files and folders matching GLOB, besides build*/, third_party/, vendor/, .git/ "
                            "(repeatable)")
    group.add_argument("--all-instances", action="store_true",
                       help="check every instance of a kernel template (default: at most 8 of each, those the host "
                            "code launches first; the others are listed as represented)")
    group.add_argument("--project", metavar="NAME", help="the project column of the tables, default NAME")
    group.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    return scan_options


def _kernels_command(commands, compile_options) -> None:
    kernels = commands.add_parser("kernels", parents=[compile_options],
                                  help="list the kernels of a CUDA file (or of every .cu file under a folder)",
                                  description="List every kernel: name, parameters, source line, which index "
                                              "variables it reads and its shared memory.")
    kernels.add_argument("path", metavar="FILE|DIR")
    kernels.add_argument("--format", choices=("text", "json"), default="text")
    kernels.set_defaults(run=run_kernels)


def _run_command(commands, compile_options, launch_options, execution_options) -> None:
    run = commands.add_parser("run", parents=[compile_options, launch_options, execution_options],
                              help="run a kernel with a given launch and save its buffers",
                              description="Run every thread of a kernel launch on the CPU. Prints one summary line "
                                          "(threads, thread-instructions, faults, seconds) and the faults found; "
                                          "with -o, saves every pointer argument's final buffer.")
    run.add_argument("path", metavar="FILE")
    run.add_argument("--printf", action="store_true", help="print what the kernel printed")
    run.add_argument("-o", "--output", metavar="OUT.npz", help="save the final buffers here")
    run.add_argument("--trace", metavar="TRACE.npz",
                     help="record every memory access and save the trace's columns here")
    run.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    run.set_defaults(run=run_run)


def _check_command(commands, compile_options, launch_options, execution_options, search_options) -> None:
    check = commands.add_parser(
        "check", parents=[compile_options, launch_options, execution_options, search_options],
        help="find data races, barrier divergence, redundant barriers and faults",
        description="Run kernels on launches and report data races, barrier divergence, redundant barriers and "
                    "faults. Launches: --grid/--block/--arg, one or more --launch, or the default launch: two "
                    "blocks along each grid axis the kernel reads blockIdx or gridDim of (else one), 64-thread "
                    "blocks, every integer argument the number of threads along x, every float 1.0, pointers to "
                    "buffers of zeros that grow on demand. Exit status 0: no errors; 1: errors found; 2: usage, "
                    "compile or analysis error.")
    check.add_argument("paths", metavar="FILE|DIR", nargs="*",
                       help="what to check (several: each checked, one report; pre-commit passes the changed files)")
    check.add_argument("--replay", metavar="DIR/NNNN", type=Path,
                       help="check one launch simulee exec --save-launches saved, on the memory it had (no FILE)")
    check.add_argument("--launch", action="append", default=[], metavar="GRID/BLOCK[/NAME=VALUE...]",
                       help="a launch to check (repeatable), e.g. 4/256/n=1000")
    check.add_argument("--format", choices=("text", "json", "csv", "sarif"), default="text")
    check.add_argument("-o", "--output", metavar="OUT", help="write the report here instead of stdout")
    check.add_argument("--barriers", action="store_true", help="print every barrier's verdict")
    check.add_argument("--no-search", action="store_true",
                       help="check only the default launch (with whatever --grid/--block/--arg give)")
    check.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    check.set_defaults(run=run_check)


def _scan_command(commands, compile_options, execution_options, search_options, scan_options) -> None:
    scan = commands.add_parser(
        "scan", parents=[compile_options, execution_options, search_options, scan_options],
        help="check every kernel of a repository into CSV bug tables",
        description="Check every kernel of every .cu file under REPO with the input search, each in a worker "
                    "process with a timeout and a memory cap, and write summary.md, report.html, report.sarif, "
                    "bugs.csv (a row per root cause), findings.csv, kernels.csv, files.csv and barriers.csv to the "
                    "output folder as kernels finish. Include "
                    "paths: -I, each file's folder, the repository's include/ and src/ folders and the folders of "
                    "the headers its files include. Exit status 0: no errors found; 1: errors found; 2: usage error.")
    scan.add_argument("path", metavar="REPO")
    scan.set_defaults(run=run_scan)


def _audit_command(commands, compile_options, execution_options, search_options, scan_options) -> None:
    audit = commands.add_parser(
        "audit-barriers", parents=[compile_options, execution_options, search_options, scan_options],
        help="every __syncthreads() of a file or repository: needed, redundant, not-covered or divergent",
        description="Scan a file or repository like `simulee scan` and print every barrier's verdict over the "
                    "launches explored: needed (with the race its removal would cause), redundant, not-covered "
                    "(no launch reached it, or a loop around it never ran twice) or divergent (reached by part of a "
                    "block). Also writes barriers.csv. "
                    "Exit status 1 when a barrier is divergent.")
    audit.add_argument("path", metavar="FILE|REPO")
    audit.set_defaults(run=run_audit)


def _trace_command(commands, compile_options, launch_options, execution_options) -> None:
    trace = commands.add_parser("trace", parents=[compile_options, launch_options, execution_options],
                                help="export the memory-access model of one launch",
                                description="Run one launch and export its memory-access model: one row per memory "
                                            "unit tuple (visit order, thread, action, location).")
    trace.add_argument("path", metavar="FILE")
    trace.add_argument("-o", "--output", metavar="OUT.csv|OUT.parquet", help="write here instead of CSV on stdout")
    trace.set_defaults(run=run_trace)


def _compile_command(commands, compile_options) -> None:
    compile_ = commands.add_parser("compile", parents=[compile_options],
                                   help="print the LLVM IR the interpreter runs for a CUDA file",
                                   description="Compile a CUDA file to the LLVM IR that Simulee interprets.")
    compile_.add_argument("path", metavar="FILE")
    compile_.add_argument("-o", "--output", metavar="OUT", help="write the IR here instead of stdout")
    compile_.set_defaults(run=run_compile)


def _exec_command(commands, compile_options) -> None:
    run = commands.add_parser(
        "exec", parents=[compile_options],
        help="run a whole CUDA program, every kernel launch checked on its real data",
        description="Build the program of these sources (.cu, and C/C++ host files) with the bundled clang against "
                    "Simulee's CUDA runtime, run it with ARGS (after --), and check every kernel launch it makes "
                    "on its own data. The program's output passes through; findings go to stderr (or -o). Exit "
                    "status: 1 when errors are found, else the program's own (128 + N when signal N killed it, "
                    "124 when it ran out of time); 2: the program does not build.")
    run.add_argument("sources", nargs="+", metavar="SOURCE")
    run.add_argument("--warp-model", choices=("independent", "lockstep"), default="independent",
                     help="independent (Volta and later, default) or lockstep (pre-Volta) warps")
    run.add_argument("--timeout", type=_seconds, metavar="S", help="stop the program after S seconds")
    run.add_argument("--format", choices=("text", "json", "csv", "sarif"), default="text")
    run.add_argument("-o", "--output", metavar="OUT", help="write the report here instead of stderr")
    run.add_argument("-q", "--quiet", action="store_true", help="no progress")
    run.add_argument("--stop-on-fault", action="store_true",
                     help="a launch that reads or writes past a buffer fails with cudaErrorIllegalAddress, which "
                          "every later call then returns (as under compute-sanitizer); by default it succeeds as on "
                          "a GPU without a checker (such reads give 0, such writes are dropped) and the program goes "
                          "on, its later launches checked")
    run.add_argument("--save-launches", metavar="DIR", type=Path,
                     help="write each launch run (kernel, dimensions, arguments, device memory) to DIR/NNNN, for "
                          "simulee check --replay DIR/NNNN")
    run.set_defaults(run=run_exec, program_args=[])


def _test_command(commands) -> None:
    test = commands.add_parser(
        "test", help="run a project's tests (after --), every program simulee-nvcc built checking its launches",
        description="Run COMMAND (after --: ctest, make check, any command) with every program simulee-nvcc built "
                    "reporting to one folder, then merge the reports of all its processes into one: each launch "
                    "ran on the program's own data; kernels no test launched are listed. Without a COMMAND, "
                    "merge the reports already in --reports. With --format json or sarif the command's output goes "
                    "to stderr, the report alone to stdout. Exit status: 1 when errors are found, else the "
                    "command's own.")
    test.add_argument("--reports", metavar="DIR", type=Path,
                      help="the folder the processes report into (SIMULEE_REPORT; default: a temporary one)")
    test.add_argument("-o", "--output", metavar="DIR", type=Path,
                      help="write report.html, report.sarif, summary.txt, bugs.csv, findings.csv, kernels.csv and "
                           "barriers.csv to DIR")
    test.add_argument("--format", choices=("text", "json", "sarif"), default="text",
                      help="how the merged findings are printed (default text)")
    test.add_argument("--error-exitcode", metavar="N",
                      help="the exit status of a process that found errors (SIMULEE_EXIT_ON_ERROR; default 1, so "
                           "the test fails); 0 keeps each program's own")
    test.add_argument("--scan-untested", action="store_true",
                      help="check the kernels no test launched too, on launches and data Simulee searches (their "
                           "findings are warnings marked as on invented data)")
    test.add_argument("--compile-commands", metavar="FILE",
                      help="the compile_commands.json those checks take -I and -D from (default: ./compile_commands"
                           ".json when there is one, as CMake writes with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)")
    test.set_defaults(run=run_test, program_args=[], verbose=False)
    merge = commands.add_parser(
        "report", help="merge the reports programs simulee-nvcc built wrote into DIR (SIMULEE_REPORT)",
        description="Merge the reports each process of a program simulee-nvcc built wrote into DIR (with "
                    "SIMULEE_REPORT=DIR set) into one, as simulee test does. Exit status: 1 when errors are found.")
    merge.add_argument("reports", metavar="DIR", type=Path)
    merge.add_argument("-o", "--output", metavar="DIR", type=Path,
                       help="write report.html, report.sarif, summary.txt, bugs.csv, findings.csv, kernels.csv and "
                           "barriers.csv to DIR")
    merge.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    merge.set_defaults(run=run_test, program_args=[], verbose=False, error_exitcode=None, scan_untested=False)


def run_test(args) -> int:
    import shutil

    from simulee.exec import collect
    from simulee.report import rootcause

    if args.program_args:
        status, folder, temporary = collect.run_tests(args.program_args, args.reports, args.error_exitcode,
                                                      output_to_stderr=args.format != "text")
    elif args.reports is None:
        raise SimuleeError("give a command after -- (simulee test -- ctest), or --reports DIR to merge")
    else:
        status, folder, temporary = 0, args.reports, False
    try:
        merged = collect.merge(folder)
        if args.scan_untested and merged.untested:
            database = args.compile_commands or ("compile_commands.json" if Path("compile_commands.json").is_file()
                                                 else None)
            collect.check_untested(merged, database, lambda text: print(f"simulee: {text}", file=sys.stderr))
        bugs = rootcause.bugs(merged.checks)
        if args.output:
            collect.write(merged, bugs, args.output, Path.cwd().name)
        if merged.checks or args.format != "text":
            sys.stdout.write(report_text(args.format, bugs, Path.cwd().name, merged.seconds, False))
        sys.stderr.write(collect.summary(merged, bugs))
    finally:
        if temporary:
            shutil.rmtree(folder, ignore_errors=True)
    if fails(found(bugs, False), None):
        return EXIT_FINDINGS
    return status


def _prove_command(commands, compile_options) -> None:
    prove = commands.add_parser(
        "prove", parents=[compile_options],
        help="decide whether kernels are race-free for every launch (two symbolic threads, an SMT solver)",
        description="For every launch within CUDA's limits and the assumptions each verdict lists, decide whether "
                    "two threads of a kernel can race or disagree on a barrier: proved (they cannot), race (the "
                    "solver's launch and threads; confirmed when the interpreter's run of that launch shows it, "
                    "possible when not) or unknown (why). Exit status: 1 when a race is confirmed.")
    prove.add_argument("path", metavar="FILE|DIR")
    prove.add_argument("-k", "--kernel", action="append", default=[], metavar="NAME",
                       help="prove this kernel (repeatable; default: every kernel)")
    prove.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    prove.add_argument("--query-seconds", type=_seconds, default=5.0, metavar="S",
                       help="give each question to the solver S seconds (default 5); past them the verdict is unknown")
    prove.add_argument("--kernel-seconds", type=_seconds, default=60.0, metavar="S",
                       help="give each kernel at most S seconds (default 60), its proof and the runs that confirm "
                            "its races; past them no question is asked (unknown: out of time) and no run started")
    prove.add_argument("--warp-model", choices=("independent", "lockstep"), default="independent",
                       help="independent (Volta and later, default) or lockstep (pre-Volta) warps, in the proof and in "
                            "the run that confirms a race")
    prove.add_argument("--grid", metavar="G", help="prove for this grid only: 64, 64,2 or 8x8x1")
    prove.add_argument("--block", metavar="B", help="prove for this block only: 256, 16,16 or 8x8x4")
    prove.add_argument("--arg", action="append", default=[], metavar="NAME=VALUE",
                       help="prove for this value of an integer argument only (repeatable)")
    prove.add_argument("--host", action="append", default=[], metavar="FILE",
                       help="a C++ or CUDA source whose calls of the proved files' functions make their launches "
                            "(repeatable); a folder proved reads its own .cc/.cpp/.cxx files")
    prove.add_argument("--no-launch-sites", dest="launch_sites", action="store_false",
                       help="prove for every launch (by default a kernel the host code launches is proved for the "
                            "launches its launch sites can make)")
    prove.add_argument("--config", metavar="FILE",
                       help="the simulee.toml whose grid, block, integer arguments, their ranges and choices and "
                            "its relations the proof assumes (default: the one check would use)")
    prove.set_defaults(run=run_prove)


def _equiv_command(commands, compile_options, execution_options) -> None:
    equiv = commands.add_parser(
        "equiv", parents=[compile_options, execution_options],
        help="do two versions of a kernel compute the same? (same launch, same inputs, outputs compared)",
        description="Run two versions of a kernel (a naive one and its optimization) on the same launches and "
                    "byte-identical input buffers, compare every buffer either writes, and search launches and "
                    "arguments for one that tells them apart. A launch on which either version races or faults "
                    "proves nothing and is reported so. Exit status: 0 equivalent on the launches compared, 1 "
                    "differ, 2 error.")
    equiv.add_argument("old", metavar="OLD[:KERNEL]", help="the original: a file, and the kernel when it has several")
    equiv.add_argument("new", metavar="NEW[:KERNEL]", help="the new version (may be the same file, another kernel)")
    equiv.add_argument("--map", action="append", default=[], metavar="OLD=NEW",
                       help="parameter OLD of the original is NEW of the new version (default: by position)")
    equiv.add_argument("--grid", metavar="G", help="compare on this grid only: 64, 64,2 or 8x8x1")
    equiv.add_argument("--block", metavar="B", help="compare on this block only: 256, 16,16 or 8x8x4")
    equiv.add_argument("--arg", action="append", default=[], metavar="NAME=VALUE",
                       help="a scalar argument by the original's parameter name (repeatable); what is not given "
                            "is searched")
    equiv.add_argument("--buffer", action="append", default=[], metavar="NAME=DTYPE:COUNT[:FILL]|NAME=@FILE.npy",
                       help="the contents of a buffer, as check takes them (both versions get a copy)")
    equiv.add_argument("--fill", choices=FILLS, metavar="MODE",
                       help="what input buffers hold (default: small, and others as the search tries them)")
    equiv.add_argument("--rtol", type=float, default=0.0, metavar="R",
                       help="floats within R relative (and --atol absolute) are equal: versions that reassociate "
                            "sums (default: bit-exact)")
    equiv.add_argument("--atol", type=float, default=0.0, metavar="A", help="absolute tolerance for floats")
    equiv.add_argument("--no-search", action="store_true", help="compare on the given (or default) launch only")
    equiv.add_argument("--no-launch-sites", dest="launch_sites", action="store_false",
                       help="ignore the launches the old kernel's host code makes (by default they are compared "
                            "first, and the search varies only what they leave open)")
    equiv.add_argument("--no-prove", action="store_true",
                       help="do not try to prove the versions equal for every launch (the launches given fixed)")
    equiv.add_argument("--population", type=_positive, default=8, metavar="N", help="the search's population")
    equiv.add_argument("--generations", type=_positive, default=6, metavar="N", help="the search's generations")
    equiv.add_argument("--warp-model", choices=("independent", "lockstep"), default="independent",
                       help="independent (Volta and later, default) or lockstep (pre-Volta) warps")
    equiv.add_argument("--format", choices=("text", "json"), default="text")
    equiv.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    equiv.set_defaults(run=run_equiv)


def _fix_command(commands, compile_options) -> None:
    fix = commands.add_parser(
        "fix", parents=[compile_options],
        help="a patch that removes redundant barriers and adds the barriers races lack, each one checked",
        description="Write a unified diff (git apply) that deletes every redundant barrier whose removal was checked "
                    "and inserts __syncthreads() (__syncwarp() within a warp) between the two accesses of a race "
                    "within a block. Every edit is proven before it is offered: the edited source is compiled and "
                    "checked again (the finding gone, no new error) and compared with the original (simulee equiv) "
                    "on the launches where the original does not race. What cannot be fixed so is listed with why. "
                    "Exit status: 0 nothing left unfixed, 1 something is, 2 error.")
    fix.add_argument("path", metavar="FILE")
    fix.add_argument("-k", "--kernel", metavar="NAME", help="fix this kernel only")
    fix.add_argument("-o", "--output", metavar="PATCH", help="write the patch here instead of stdout")
    fix.add_argument("--apply", action="store_true", help="edit FILE in place (the fixed source checked clean)")
    fix.add_argument("--warp-model", choices=("independent", "lockstep"), default="independent",
                     help="independent (Volta and later, default) or lockstep (pre-Volta) warps")
    fix.add_argument("--seed", type=_size, default=0, help="seed of the launches searched, 0 or more")
    fix.add_argument("--grid", metavar="G", help="check and compare on this grid: 64, 64,2 or 8x8x1")
    fix.add_argument("--block", metavar="B", help="check and compare on this block: 256, 16,16 or 8x8x4")
    fix.add_argument("--arg", action="append", default=[], metavar="NAME=VALUE",
                     help="a scalar argument (repeatable); what is not given is searched")
    fix.set_defaults(run=run_fix)


def _server_command(commands) -> None:
    server = commands.add_parser(
        "server", help="keep Simulee warm in a background process that runs every simulee command",
        description="start, stop or ask about the server: one process per user (a socket in the cache folder) that "
                    "keeps Simulee's modules imported. While it runs, every simulee command is sent to it and prints "
                    "exactly what it prints without it, in a fresh process forked from the server; --no-server or "
                    "SIMULEE_NO_SERVER=1 runs a command here. A server that is gone or does not answer is bypassed "
                    "with a one-line note; one whose Simulee changed on disk stops. status exits 0 when a server "
                    "runs, 1 when none does.")
    server.add_argument("action", choices=("start", "stop", "status"))
    server.set_defaults(run=run_server, verbose=False)


def run_server(args) -> int:
    from simulee.server import client

    return {"start": client.start, "stop": client.stop, "status": client.status}[args.action]()


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    program_args = []
    for command in ("exec", "test"):  # what follows -- is the program's arguments, or the test command
        if command in argv and "--" in argv[argv.index(command):]:
            split = argv.index("--", argv.index(command))
            argv, program_args = argv[:split], argv[split + 1:]
            break
    args = parser.parse_args(argv)
    if getattr(args, "engine", None):  # worker processes inherit it
        os.environ["SIMULEE_ENGINE"] = args.engine
    if args.command in ("exec", "test"):
        args.program_args = program_args
    try:
        return args.run(args)
    except CompileError as error:
        if args.verbose:
            sys.stderr.write(error.diagnostics)
        return _fail(str(error))
    except SimuleeError as error:
        return _fail(str(error))
    except KeyboardInterrupt as interrupt:
        print("simulee: interrupted" + (f"; {interrupt}" if str(interrupt) else ""), file=sys.stderr)
        return EXIT_INTERRUPTED
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
    from simulee.frontend.compiler import CompileOptions

    for define in args.defines:
        if not define or define.startswith("=") or " " in define.partition("=")[0]:
            raise SimuleeError(f"malformed -D option: '{define}' (expected NAME or NAME=VALUE)")
    for directory in args.include_dirs:
        if not Path(directory).is_dir():
            raise SimuleeError(f"-I {directory}: no such folder")
    if not re.fullmatch(r"sm_\d{2,3}[af]?", args.arch) or not 50 <= int(re.sub(r"\D", "", args.arch)) <= 121:
        raise SimuleeError(f"--arch {args.arch}: expected a GPU architecture from sm_50 to sm_121, such as sm_70")
    if args.compile_commands and not Path(args.compile_commands).is_file():
        raise SimuleeError(f"--compile-commands {args.compile_commands}: no such file")
    return CompileOptions(tuple(args.include_dirs), tuple(args.defines), args.clang, args.gpuverify_annotations,
                          clang_args=tuple(args.clang_args), arch=args.arch,
                          compile_commands=args.compile_commands and os.path.abspath(args.compile_commands))


def write_output(text: str, output: str | None) -> None:
    """`text` to the file `output`, or to stdout."""
    if not output:
        sys.stdout.write(text)
        return
    with open_output(output, "w") as handle:
        handle.write(text)


def open_output(output: str, mode: str):
    """The file `output` opened for writing, exactly under that name; a one-line error
    naming the folder that is missing, or why it cannot be written."""
    folder = Path(output).parent
    if not folder.is_dir():
        raise SimuleeError(f"cannot write {output}: no such folder {folder}")
    try:
        return open(output, mode)
    except OSError as error:
        raise SimuleeError(f"cannot write {output}: {error.strerror}") from None


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


# ---------------------------------------------------------------------------- prove


def run_prove(args) -> int:
    from simulee.prover import report

    proofs, errors = prove_sources(args, (lambda proof: print(report.text(proof), flush=True))
                                   if args.format == "text" else None)
    if args.format == "json":
        print(json.dumps({"tool": "simulee", "version": __version__, "kernels": [report.to_json(p) for p in proofs],
                          "errors": errors}, indent=2))
    elif args.format == "sarif":
        print(json.dumps(report.to_sarif(proofs), indent=2))
        for error in errors:
            print(f"simulee: error: {error['error']}", file=sys.stderr)
    else:
        assumptions = list(dict.fromkeys(a for proof in proofs for a in proof.assumptions))
        if assumptions:
            print("assumed: " + "; ".join(assumptions))
        for error in errors:
            print(f"simulee: error: {error['error']}", file=sys.stderr)
    if any(report.confirmed(proof) for proof in proofs):
        return EXIT_FINDINGS
    return EXIT_ERROR if errors else EXIT_OK


def prove_sources(args, proved=None) -> tuple[list, list[dict]]:
    """The proofs (prove.solve.Proof, races confirmed or not by a run) of args.path's
    kernels, each passed to `proved` as it is made, and the files that did not compile."""
    from simulee.checker.config import config_for
    from simulee.checker.launchspec import parse_block, parse_dims
    from simulee.prover.proof import Fixed
    from simulee.prover.solve import prove_kernel
    from simulee.prover.verdicts import confirm

    given = Fixed(parse_dims(args.grid, "grid") if args.grid else None,
                  parse_block(args.block, "block") if args.block else None, _integer_args(args.arg))
    path = Path(args.path)
    files, options = source_files(path, compile_options(args))
    sites, _ = _launch_sites(args, files, options)
    config = config_for(path, args.config)
    proofs, errors = [], []
    for file, program, error in each_program(path, files, options, args.verbose):
        if error:
            errors.append({"file": display(str(file)), "error": error})
            continue
        if args.kernel and path.is_dir():  # the folder's files that have them
            kernels = [kernel for name in args.kernel for kernel in _named(program, name, file)]
        else:
            kernels = [program.kernel(name) for name in args.kernel] if args.kernel else own_kernels(program)
        if not kernels and not path.is_dir():
            raise SimuleeError(f"{file}: no __global__ kernel found")
        for kernel in kernels:
            contract = config.for_kernel(kernel.file or args.path, kernel).without(set(given.args))
            stated = {name: value for name, value in contract.args.items() if type(value) is int}
            fixed = replace(given, args={**stated, **given.args}, sites=sites.get((file, kernel.symbol), ()),
                            ranges=dict(contract.ranges), choices=dict(contract.choices),
                            relations=tuple(contract.relations))
            if not (given.grid or given.block or contract.launches):  # the simulee.toml's launch, else the sites'
                fixed = replace(fixed, grid=parse_dims(contract.grid, "grid") if contract.grid else None,
                                block=parse_block(contract.block, "block") if contract.block else None,
                                sites=() if contract.grid or contract.block else fixed.sites)
            deadline = time.perf_counter() + args.kernel_seconds
            proof = prove_kernel(program, kernel, int(args.query_seconds * 1000), fixed, deadline,
                                 warp_model=args.warp_model)
            confirm(program, kernel, proof, args.warp_model, deadline)
            proofs.append(proof)
            if proved is not None:
                proved(proof)
    if args.kernel and path.is_dir() and not proofs and not errors:
        raise SimuleeError(f"{path}: no file has a kernel named {', '.join(args.kernel)} ({len(files)} files)")
    return proofs, errors


def run_equiv(args) -> int:
    pair, verdict = compare_versions(args)
    if args.format == "json":
        print(json.dumps(equiv_json(pair, verdict), indent=2))
    else:
        sys.stdout.write(equiv_text(pair, verdict))
    return {"differ": EXIT_FINDINGS, "equivalent": EXIT_OK, "proved-equivalent": EXIT_OK}.get(verdict.verdict,
                                                                                              EXIT_ERROR)


def compare_versions(args):
    """(checker.equivalence.Pair, Verdict) of `simulee equiv`'s options: the launches
    compared and searched, then the proof."""
    from simulee.checker.equivalence import equivalence

    pair, launches, space, fixed = equiv_setup(args)
    deadline = time.perf_counter() + (args.max_seconds or 600)
    with _Progress(args.quiet, "comparing", "launch") as bar:
        verdict = equivalence(pair, launches, args.rtol, args.atol, args.warp_model, space, args.population,
                              args.generations, args.seed, deadline, bar.status)
        if verdict.verdict == "equivalent" and not args.no_prove:
            bar.status("proving")
            equiv_proof(pair, verdict, fixed, args, deadline)
    return pair, verdict


def equiv_proof(pair, verdict, fixed, args, deadline: float) -> None:
    """Prove the versions equal for every launch (what is given fixed): verdict
    proved-equivalent; or differ, when the interpreter shows the solver's difference."""
    from simulee.prover.equivalence import prove_equivalent, replay

    proof = verdict.proof = prove_equivalent(pair, fixed, deadline)
    if proof.verdict == "proved":
        verdict.verdict = "proved-equivalent"
    elif proof.verdict == "differ":
        shown = replay(pair, proof, args.rtol, args.atol, args.warp_model, args.seed)
        if shown is not None:
            verdict.comparisons.append(shown)
            verdict.verdict = "differ"
        else:
            proof.verdict, proof.reason = "unknown", (
                f"the solver's difference ({proof.buffer} byte {proof.offset} on grid {proof.grid}, block "
                f"{proof.block}{', ' if proof.args else ''}"
                f"{', '.join(f'{k}={v}' for k, v in proof.args.items())}) did not show in the interpreter")


def equiv_setup(args):
    """The pair of kernels, the launches given (or the default one), unless the launch is
    all given or --no-search the old kernel's search space, and what a proof takes as
    fixed (prover.solve.Fixed)."""
    from simulee.prover.proof import Fixed

    from simulee.checker.equivalence import Pair
    from simulee.checker.launchspec import launch_arguments, parse_block, parse_dims, parse_assignment

    options = compile_options(args)
    (old_program, old), (new_program, new) = (_version(text, options) for text in (args.old, args.new))
    mapping = dict(parse_assignment(text, "--map") for text in args.map)
    pair = Pair.of(old_program, old, new_program, new, mapping)
    grid = parse_dims(args.grid, "grid") if args.grid else None
    block = parse_block(args.block, "block") if args.block else None
    given = launch_arguments(old, args.arg, args.buffer, args.seed, require_scalars=False, cast=True)
    file = Path(old.file) if old.file else None
    sites, written = _launch_sites(argparse.Namespace(**{**vars(args), "path": str(file), "host": []}), [file],
                                   options) if file else ({}, {})
    old_program.host_writes(written.get(file, {}))
    launches, space = _equivalence_space(old_program, old, args.seed, given, grid, block, args.fill,
                                         sites=sites.get((file, old.symbol), ()), shared_bytes=args.shared_bytes,
                                         step_limit=args.step_limit, heap_bytes=args.heap_bytes)
    fixed = Fixed(grid, block, {k: v for k, v in given.items() if isinstance(v, int)})
    return pair, launches, None if args.no_search else space, fixed


def _version(text: str, options):
    """(program, kernel) of FILE[:KERNEL]."""
    path, _, name = text.rpartition(":") if ":" in text and not Path(text).exists() else (text, "", "")
    path = Path(path)
    program = load_degraded(path, options)
    return program, select_kernel(program, name or None, path)


def equiv_json(pair, verdict) -> dict:
    difference = verdict.difference
    return {"tool": "simulee", "version": __version__, "verdict": verdict.verdict,
            "old": {"kernel": pair.old.name, "file": display(pair.old.file), "line": pair.old.line},
            "new": {"kernel": pair.new.name, "file": display(pair.new.file), "line": pair.new.line},
            "parameters": pair.names,
            "launches": verdict.compared,
            "inconclusive": [{"launch": _launch_json(c.launch), "reason": c.problem}
                             for c in verdict.comparisons if c.problem],
            "difference": dict(difference.difference.to_json() if difference.difference else
                               {"behaviour": difference.behaviour}, launch=_launch_json(difference.launch))
            if difference else None,
            "proof": _equiv_proof_json(verdict.proof),
            "seconds": round(verdict.seconds, 3)}


def _equiv_proof_json(proof) -> dict | None:
    if proof is None:
        return None
    found = {"buffer": proof.buffer, "byte": proof.offset, "grid": list(proof.grid), "block": list(proof.block),
             "args": proof.args} if proof.verdict == "differ" else None
    return {"verdict": proof.verdict, "reason": proof.reason, "difference": found, "assumptions": proof.assumptions,
            "seconds": round(proof.seconds, 3)}


def _launch_json(launch) -> dict:
    args = {k: (v.item() if hasattr(v, "item") else v) for k, v in launch.args.items()
            if (not hasattr(v, "shape") or getattr(v, "shape", ()) == ()) and type(v).__name__ != "Allocated"}
    return {"grid": list(launch.grid), "block": list(launch.block), "args": args, "fill": launch.fill,
            "seed": launch.seed}


NOT_COMPARED_SHOWN = 3  # launches not compared, each with its reason, before a count of the rest


def equiv_text(pair, verdict) -> str:
    from simulee.report.formats import launch_text

    old, new = f"{pair.old.name} ({display(pair.old.file)}:{pair.old.line})", \
        f"{pair.new.name} ({display(pair.new.file)}:{pair.new.line})"
    compared = verdict.compared
    lines = []
    problems = [comparison for comparison in verdict.comparisons if comparison.problem]
    for comparison in problems[:NOT_COMPARED_SHOWN]:
        lines.append(f"simulee: note: not compared on {launch_text(_launch_json(comparison.launch))}: "
                     f"{comparison.problem}")
    if len(problems) > NOT_COMPARED_SHOWN:
        more = len(problems) - NOT_COMPARED_SHOWN
        lines.append(f"simulee: note: {more} more launch{'es' if more > 1 else ''} not compared (--format json lists "
                     "each)")
    found = verdict.difference
    if found and verdict.proof is not None and verdict.proof.verdict == "differ":
        lines.append("simulee: note: the prover found this launch; none the search tried showed a difference")
    if found and found.behaviour:
        lines.append(f"simulee: {old} and {new} differ on {launch_text(_launch_json(found.launch))}: "
                     f"{found.behaviour}")
    elif found:
        d = found.difference
        lines += [f"simulee: {old} and {new} differ on {launch_text(_launch_json(found.launch))}",
                  f"    {d.buffer}[{d.index}]: {_plain_value(d.old_value)} (old) vs {_plain_value(d.new_value)} "
                  f"(new); {d.count} of {d.elements} elements differ"
                  + (f", and {d.buffers - 1} more buffer{'s' if d.buffers > 2 else ''}" if d.buffers > 1 else ""),
                  f"    old: last written by {d.writers[0]}" if not d.writers[0].startswith("not") else
                  f"    old: {d.writers[0]}",
                  f"    new: last written by {d.writers[1]}" if not d.writers[1].startswith("not") else
                  f"    new: {d.writers[1]}"]
    elif verdict.verdict == "proved-equivalent":
        lines += [f"simulee: {old} and {new}: proved equivalent for every launch (and equal on {compared} "
                  f"launch{'es' if compared != 1 else ''}; {verdict.seconds + verdict.proof.seconds:.2f} s)",
                  "    assumed: " + "; ".join(verdict.proof.assumptions)]
    elif verdict.verdict == "equivalent":
        lines.append(f"simulee: {old} and {new}: equivalent on {compared} launch{'es' if compared != 1 else ''} "
                     f"({verdict.seconds:.2f} s)")
        if verdict.proof is not None:
            lines.append(f"    not proved for every launch: {verdict.proof.reason}")
    else:
        lines.append(f"simulee: {old} and {new}: not compared: on every launch tried both versions race, fault or "
                     "do not finish")
    return "\n".join(lines) + "\n"


def _plain_value(value) -> str:
    value = value.item() if hasattr(value, "item") else value
    return repr(value) if isinstance(value, float) else str(value)


def run_fix(args) -> int:
    from simulee.checker.repair import forget_scratch, patch, repair

    path = Path(args.path)
    if not path.is_file():
        raise SimuleeError(f"no such file: {path}")
    options = compile_options(args)
    options = replace(options, include_dirs=(*options.include_dirs, str(path.resolve().parent)))
    try:
        outcome = repair(path, args.kernel, lambda source: _fix_check(source, args, options),
                         lambda old, new: _fix_compare(old, new, args, options))
    finally:
        forget_scratch()
    for line in outcome.fixed:
        print(f"simulee: fixed {line}", file=sys.stderr)
    for line in outcome.left:
        print(f"simulee: not fixed: {line}", file=sys.stderr)
    if outcome.text is not None:
        if args.apply and outcome.left:  # only a source that checks clean replaces the file
            print(f"simulee: {display(str(path))} not edited: {len(outcome.left)} finding"
                  f"{'s' if len(outcome.left) != 1 else ''} left (the patch of the fixes made is below)",
                  file=sys.stderr)
            write_output(patch(path, display(str(path)), outcome.text), args.output)
        elif args.apply:
            path.write_text(outcome.text)
            print(f"simulee: {display(str(path))} edited ({len(outcome.fixed)} fixes)", file=sys.stderr)
        else:
            write_output(patch(path, display(str(path)), outcome.text), args.output)
    elif not outcome.left:
        print(f"simulee: {display(str(path))}: nothing to fix", file=sys.stderr)
    return EXIT_FINDINGS if outcome.left else EXIT_OK


def _fix_check(source: Path, args, options) -> list[dict]:
    """The kernel records `check` gives `source` (fix's own options)."""
    from simulee.checker.kernel import Given, check_given

    from simulee.checker.launchspec import launch_arguments

    program = load_program(source, options)
    kernels = [select_kernel(program, args.kernel, source)] if args.kernel else own_kernels(program)
    settings = settings_of(build_parser(RaisingParser).parse_args(
        ["check", str(source), "--seed", str(args.seed), "--warp-model", args.warp_model]))
    grid, block = _fix_dims(args)
    records = []
    for kernel in kernels:
        given = Given(grid, block, launch_arguments(kernel, args.arg, [], args.seed, require_scalars=False))
        check = check_given(program, kernel, given, settings)
        record = check.to_json()
        record["file"] = display(str(Path(args.path))) if record["file"] == display(str(source)) else record["file"]
        for finding in record["findings"]:
            for part in (finding, finding.get("first") or {}, finding.get("second") or {}):
                if part.get("file") == display(str(source)):
                    part["file"] = display(str(Path(args.path)))
        records.append(record)
    return records


def _fix_compare(old: Path, new: Path, args, options) -> str:
    """'' when the edited source's kernels compute what the original's do wherever the
    original does not race (launches searched as equiv searches them), else how not."""
    from simulee.checker.equivalence import Pair, equivalence
    from simulee.checker.launchspec import launch_arguments

    old_program, new_program = load_program(old, options), load_program(new, options)
    kernels = [select_kernel(old_program, args.kernel, old)] if args.kernel else own_kernels(old_program)
    grid, block = _fix_dims(args)
    for kernel in kernels:
        pair = Pair.of(old_program, kernel, new_program, new_program.kernel(kernel.symbol))
        given = launch_arguments(kernel, args.arg, [], args.seed, require_scalars=False)
        launches, space = _equivalence_space(old_program, kernel, args.seed, given, grid, block)
        verdict = equivalence(pair, launches, warp_model=args.warp_model, search_space=space, seed=args.seed,
                              deadline=time.perf_counter() + 60, old_may_fail=True)
        if verdict.verdict == "differ":
            found = verdict.difference
            return found.behaviour or f"{found.difference.buffer}[{found.difference.index}] differs"
    return ""


def _fix_dims(args) -> tuple:
    from simulee.checker.launchspec import parse_block, parse_dims

    return (parse_dims(args.grid, "grid") if args.grid else None, parse_block(args.block, "block") if args.block
            else None)


def _equivalence_space(program, kernel, seed: int, given: dict | None = None, grid=None, block=None,
                       fill: str | None = None, sites: tuple = (), **options):
    """The launches compared first and the search space around them (None when nothing is
    left to search), as equiv and fix search launches: with launch `sites` (and no grid or
    block given) the launches they make and what they leave open, else the default launch
    (what is given kept) and the space around it."""
    from evolve.constants import compared_constants
    from evolve.space import SearchSpace
    from evolve.taint import relevant_parameters
    from simulee.checker.kernel import default_launch, indices_read

    given = given or {}
    reads = indices_read(program, kernel)
    base = default_launch(kernel, given, grid, block, reads, fill=fill or "small", seed=seed, **options)
    fixed = set(given) | ({"grid"} if grid else set()) | ({"block"} if block else set()) | \
        ({"fill"} if fill else set())
    relevant, constants = relevant_parameters(program, kernel), compared_constants(program, kernel)
    if sites and not (grid or block):
        space = SearchSpace.of_sites(kernel, base, relevant, fixed, list(sites), reads, constants)
        launches = space.site_launches(seed)
        if launches:
            return launches, space if space.genes else None
    space = SearchSpace.of(kernel, base, relevant, fixed, 32, reads, constants)
    return [base], space if space.genes else None


def _integer_args(texts: list[str]) -> dict:
    values = {}
    for text in texts:
        name, equals, value = text.partition("=")
        try:
            values[name.strip()] = int(value, 0)
        except ValueError:
            raise SimuleeError(f"--arg {text}: expected NAME=INTEGER") from None
        if not equals or not name.strip():
            raise SimuleeError(f"--arg {text}: expected NAME=INTEGER")
    return values


# ---------------------------------------------------------------------------- kernels


def run_kernels(args) -> int:
    path = Path(args.path)
    listing, errors, files = list_kernels(args)
    if args.format == "json":
        document = {
            "tool": "simulee",
            "version": __version__,
            "kernels": [dict(kernel.to_json(), file=display(kernel.file)) for _, kernel in listing],
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


def list_kernels(args) -> tuple[list, list[dict], list[Path]]:
    """(file, KernelInfo) of every kernel of args.path, the files that did not compile
    ({file, error}) and the files compiled."""
    path = Path(args.path)
    files, options = source_files(path, compile_options(args))
    listing, errors = [], []
    for file, program, error in each_program(path, files, options, args.verbose):
        if error:
            errors.append({"file": display(str(file)), "error": error})
            continue
        if not program.kernels and not path.is_dir():
            raise SimuleeError(f"{file}: no __global__ kernel found")
        listing += [(file, kernel) for kernel in program.kernels]
    return listing, errors, files


def _kernel_line(file: Path, kernel) -> str:
    location = f"{display(kernel.file) if kernel.file else display(str(file))}:{kernel.line}"
    details = []
    if kernel.builtins:
        details.append("reads " + " ".join(
            f"{BUILTIN_NAMES[register]}.{axis}" for register, _, axis in (b.partition(".") for b in kernel.builtins)))
    if kernel.shared_bytes or kernel.dynamic_shared:
        shared = f"shared {kernel.shared_bytes} B" if kernel.shared_bytes else "shared"
        details.append(shared + (" + dynamic" if kernel.dynamic_shared and kernel.shared_bytes else
                                 " dynamic" if kernel.dynamic_shared else ""))
    return f"{location}: {kernel.declaration()}" + (f"\n    {'; '.join(details)}" if details else "")


# ---------------------------------------------------------------------------- run


def _size(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"'{text}' must not be negative")
    return value


def _positive(text: str) -> int:
    value = _size(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"'{text}' must be at least 1")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"'{text}' must be more than 0")
    return value


def _bytes(text: str) -> int:
    """A size in bytes: 4096, 512K, 64M, 4G (binary multiples)."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    number, unit = (text[:-1], units[text[-1].upper()]) if text and text[-1].upper() in units else (text, 1)
    try:
        value = float(number) * unit
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a size (e.g. 4G, 512M)") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"'{text}' must not be negative")
    return int(value)


def _shared_bytes(text: str) -> int:
    value = _size(text)
    if value > MAX_SHARED_BYTES:
        raise argparse.ArgumentTypeError(f"'{text}' is more than the {MAX_SHARED_BYTES} bytes a CUDA block may have")
    return value


def _detectors(text: str) -> tuple[str, ...]:
    from simulee import detect

    asked = tuple(name.strip() for name in text.split(",") if name.strip())
    unknown = [name for name in asked if name not in (*detect.names(), "all")]
    if unknown or not asked:
        raise argparse.ArgumentTypeError(f"'{text}': expected detector names among "
                                         f"{', '.join(detect.names())}, or all")
    return asked


def _target(text: str) -> int:
    match = re.fullmatch(r"(?:sm_|compute_)?(\d+)", text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"'{text}': expected an architecture such as sm_70")
    return int(match.group(1))


def _finding_types(text: str) -> frozenset[str]:
    from simulee import detect

    asked = {name.strip() for name in text.split(",") if name.strip()}
    unknown = sorted(asked - set(detect.rules()))
    if unknown or not asked:
        raise argparse.ArgumentTypeError(f"'{text}': expected finding types among {', '.join(detect.rules())}")
    return frozenset(asked)


def compared_with(args):
    """The baseline --baseline names (baseline.Baseline), or None; --new-only needs one."""
    from simulee.report.baseline import load

    if args.new_only and args.baseline is None:
        raise SimuleeError("--new-only needs --baseline REPORT: new since what?")
    return load(args.baseline) if args.baseline is not None else None


def found(bugs, new_only: bool):
    """(type, severity) of every finding reported: of the new root causes only, if asked."""
    return ((f["type"], f["severity"]) for cause in bugs.shown(new_only) for f in cause["findings"])


def fails(findings, fail_on: frozenset[str] | None) -> bool:
    """Whether these findings ((type, severity) pairs) make the exit status 1: one of a type
    in `fail_on`, else any error."""
    return any(kind in fail_on if fail_on is not None else severity == "error" for kind, severity in findings)


def _heap_bytes(text: str) -> int:
    from simulee.checker.launchspec import available_memory

    value = _bytes(text)
    if not 0 < value <= available_memory():
        raise argparse.ArgumentTypeError(f"'{text}' must be more than 0 and at most the memory available")
    return value


def _named(program, name: str, path: Path) -> list:
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


def run_run(args) -> int:
    import numpy as np

    from simulee.model.findings import ERROR
    from simulee.report import formats

    kernel, result = run_kernel(args)
    if args.printf:
        for _, _, text in result.events.printf:
            sys.stdout.write(text)
        sys.stdout.flush()
    findings = launch_findings(result)
    sys.stderr.write(formats.findings_text(findings))
    print(f"simulee: {kernel.name}: {result.threads:,} threads, {result.thread_instructions:,} thread-instructions, "
          f"{result.events.fault_count():,} faults, {result.seconds:.2f} s")
    if args.output:
        with open_output(args.output, "wb") as handle:
            np.savez(handle, **result.buffers)
    if args.trace:
        save_trace(result.trace, args.trace)
        if result.trace.dropped:
            print(f"simulee: note: the trace holds the first {len(result.trace):,} accesses only "
                  f"({result.trace.dropped:,} more were not kept)", file=sys.stderr)
    if result.status in ("unsupported", "out-of-memory"):
        raise SimuleeError(result.message)
    return EXIT_FINDINGS if any(finding.severity == ERROR for finding in findings) else EXIT_OK


def run_kernel(args):
    """(kernel, interpreter.launch.Result) of the one launch `run` makes of args.path's kernel."""
    from interpreter.simt import execute

    path = Path(args.path)
    program = load_degraded(path, compile_options(args))
    kernel = select_kernel(program, args.kernel, path)
    (launch,) = launches_for(program, kernel, args, require_scalars=True, trace=bool(args.trace))
    launch.trace_limit = RUN_TRACE_LIMIT
    with _Progress(args.quiet, "running", "block") as bar:
        return kernel, execute(program, kernel, launch, bar.blocks)


RUN_TRACE_LIMIT = 1 << 25  # accesses `run --trace` keeps (about 2 GB)


def save_trace(trace, path: str) -> None:
    """The trace's columns, plus the static instructions they name (op_*), as .npz."""
    import numpy as np

    locations = [user_location(op.location) for op in trace.ops]
    with open_output(path, "wb") as handle:
        np.savez(handle, **trace.columns,
                 op_file=np.array([place.file if place else "" for place in locations]),
                 op_line=np.array([place.line if place else 0 for place in locations], dtype=np.int32),
                 op_column=np.array([place.column if place else 0 for place in locations], dtype=np.int32),
                 op_opcode=np.array([op.opcode for op in trace.ops]))


def launch_findings(result) -> list:
    """What went wrong in a launch (faults, failed asserts, barrier divergence, a loop that
    did not end): the findings of the detectors that need no trace."""
    from simulee.detect import enabled
    from simulee.detect.base import LaunchRun
    from simulee.detect.faults import invalid_launch

    run = LaunchRun(None, None, result)  # no trace: only the detectors of events
    return [f for detector in enabled() if not detector.needs_trace for f in detector.launch(run)] + \
        invalid_launch(result)


# ---------------------------------------------------------------------------- check


def given_on_command_line(kernel, args, require_scalars: bool = False, contract=None):
    """What the options give (simulee.checker.kernel.Given): --grid/--block/--arg/--buffer/--alias/
    --fill and the --launch options, over what `contract` (a simulee.toml's) gives. With
    `require_scalars`, every scalar must then have a value."""
    from simulee.checker.kernel import Given
    from simulee.checker.launchspec import launch_arguments, parse_block, parse_dims, require_values

    grid = args.grid and parse_dims(args.grid, "grid")
    block = args.block and parse_block(args.block, "block")
    given = launch_arguments(kernel, args.arg, args.buffer, args.seed, False, args.buffer_cast, args.alias)
    launches = []
    for text in getattr(args, "launch", []):
        parts = text.split("/")
        if len(parts) < 2:
            raise SimuleeError(f"--launch {text}: expected GRID/BLOCK[/NAME=VALUE...]")
        extra = launch_arguments(kernel, parts[2:], [], args.seed, require_scalars=False)
        overlap = sorted(set(extra) & set(given))
        if overlap:
            raise SimuleeError(f"--launch {text}: {overlap[0]} is also given by --arg")
        launches.append((parse_dims(parts[0], "launch grid"), parse_block(parts[1], "launch block"), extra))
    result = Given(grid, block, given, args.fill, tuple(launches))
    if contract:
        result = result.over(contract.given(kernel, args.seed))
    if require_scalars:
        require_values(kernel, result.args)
    return result


def launch_options(args, trace: bool = True) -> dict:
    """The Launch fields the execution options set (run and trace: a launch stops after
    --max-seconds)."""
    options = dict(shared_bytes=args.shared_bytes, step_limit=args.step_limit, seed=args.seed,
                   heap_bytes=args.heap_bytes, trace=trace)
    if args.max_seconds is not None:
        options["time_limit"] = args.max_seconds
    return options


def launches_for(program, kernel, args, require_scalars: bool = False, trace: bool = True) -> list:
    """The launches `run` and `trace` run: --grid/--block/--arg, the --launch options, or
    the default launch; whatever they leave out takes its default (default_launch). A
    wide --fill draws from the constants the kernel compares against, as the search's
    does."""
    from evolve.constants import compared_constants

    given = given_on_command_line(kernel, args, require_scalars)
    options = launch_options(args, trace=trace)
    if given.fill == "wide":
        options["dictionary"] = compared_constants(program, kernel)
    return given.launches_of(kernel, **options)


def run_check(args) -> int:
    args.path = args.paths[0] if len(args.paths) == 1 else None
    if args.replay is not None:
        return run_replay(args)
    if not args.paths:
        raise SimuleeError("check needs a FILE or DIR (or --replay DIR/NNNN)")
    return _run_check(args)


def report_text(form: str, bugs, project: str, seconds: float, verbose: bool, barriers: bool = False,
                unreadable: list | None = None, new_only: bool = False, verdicts: bool = False) -> str:
    """The report of `bugs` (rootcause.bugs) as --format `form` asks (in text, with
    `verdicts`, a line per kernel saying what was decided of it)."""
    from simulee.report import formats

    unreadable = unreadable or []
    if form == "text":
        return formats.text(bugs, barriers, seconds, verbose, len(unreadable), new_only, verdicts)
    if form == "json":
        return formats.json_text(bugs, unreadable)
    if form == "csv":
        return formats.csv_text(bugs, project, new_only)
    return formats.sarif_text(bugs, unreadable)


def run_replay(args) -> int:
    """check --replay: one saved launch of a whole program, on the memory it had."""
    import time

    from simulee.report import rootcause
    from simulee.checker.kernel import check_kernel
    from simulee.exec.replay import load
    from simulee.exec.runner import device_program

    if args.paths:
        raise SimuleeError("--replay checks a saved launch: give no FILE")
    start = time.perf_counter()
    saved = load(args.replay)
    program = device_program(saved.sources, saved.options)
    try:
        kernel = program.kernel(saved.kernel)
    except (KeyError, LookupError):
        raise SimuleeError(f"{args.replay}: the sources no longer define kernel {saved.kernel}") from None
    check = check_kernel(program, kernel, [saved.launch], warp_model=args.warp_model)
    bugs = rootcause.bugs([check.to_json()])
    write_output(report_text(args.format, bugs, saved.sources[0].parent.name, time.perf_counter() - start,
                             args.verbose, args.barriers), args.output)
    if check.status != "ok":
        print(f"simulee: error: {display(check.file)}:{check.line}: {check.kernel}: {check.error}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_FINDINGS if fails(found(bugs, False), args.fail_on) else EXIT_OK


def _run_check(args) -> int:
    from simulee.report import rootcause

    baseline = compared_with(args)  # a wrong baseline stops the check before it starts
    checked = check_sources(args) if args.path else _check_each(args)
    bugs = rootcause.bugs([check.to_json() for check in checked.checks], baseline=baseline)
    write_output(report_text(args.format, bugs, checked.project, checked.seconds, args.verbose, args.barriers,
                             checked.unreadable, args.new_only, verdicts=True), args.output)
    if args.format != "text":  # the text report says it among the findings; the others only hold it
        for check in checked.checks:
            if check.status != "ok":
                print(f"simulee: error: {display(check.file)}:{check.line}: {check.kernel}: {check.error}",
                      file=sys.stderr)
    if fails(found(bugs, args.new_only), args.fail_on):
        return EXIT_FINDINGS
    failed = sum(1 for check in checked.checks if check.status != "ok")
    return EXIT_ERROR if failed or checked.unreadable else EXIT_OK


def _check_each(args) -> Checked:
    """Several paths checked one after the other, as one check (named for their common folder)."""
    parts = [check_sources(replace_namespace(args, path=path)) for path in args.paths]
    common = Path(os.path.commonpath([os.path.abspath(path) for path in args.paths]))
    return Checked([check for part in parts for check in part.checks],
                   [entry for part in parts for entry in part.unreadable],
                   (common if common.is_dir() else common.parent).name, sum(part.seconds for part in parts))


def replace_namespace(args, **changes) -> argparse.Namespace:
    return argparse.Namespace(**{**vars(args), **changes})


@dataclass
class Checked:
    """What `check` did: a KernelCheck per kernel, the files that did not compile
    ({file, error}), the project's name and the seconds it took."""

    checks: list
    unreadable: list[dict]
    project: str
    seconds: float


def check_sources(args) -> Checked:
    """Check the kernels of args.path (a file, or a folder's files) as `check` does."""
    from simulee.checker.config import config_for

    start = time.perf_counter()
    path = Path(args.path)
    files, options = source_files(path, compile_options(args))
    checks, unreadable = [], []
    sites, written = _launch_sites(args, files, options)
    config = config_for(path, args.config)
    if config.path and args.verbose:
        print(f"simulee: note: using {display(str(config.path))}", file=sys.stderr)
    with _Progress(args.quiet, "checking", "kernel") as bar:
        loading = each_program(path, files, options, args.verbose, lambda file: bar.start(f"compiling {file.name}"))
        for number, (file, program, error) in enumerate(loading):
            bar.final = number == len(files) - 1
            if error:
                unreadable.append({"file": display(str(file)), "error": error})
                print(f"simulee: error: {error}", file=sys.stderr)
                continue
            program.host_writes(written.get(file, {}))
            if args.kernel and path.is_dir():  # the files of a folder that have it
                kernels = _named(program, args.kernel, file)
            else:
                kernels = [select_kernel(program, args.kernel, file)] if args.kernel or not path.is_dir() and \
                    len(program.kernels) == 1 else own_kernels(program)
            if args.kernel is None and not kernels and not path.is_dir():
                raise SimuleeError(f"{file}: no __global__ kernel found")
            bar.grow(len(kernels))
            for kernel in kernels:
                bar.start(kernel.name)
                launched = sites.get((file, kernel.symbol), ())
                checks.append(_check_one(program, kernel, args, bar.status, launched, config))
                checks[-1].suppress(config.reason)
                bar.update(1)
    if args.kernel and path.is_dir() and not checks and not unreadable:
        raise SimuleeError(f"{path}: no file has a kernel '{args.kernel}' ({len(files)} files)")
    project = (path if path.is_dir() else path.parent).resolve().name
    return Checked(checks, unreadable, project, time.perf_counter() - start)


def _launch_sites(args, files: list[Path], options) -> tuple[dict, dict[Path, dict]]:
    """The launch sites of every kernel in the host code of `files` (as the calls of
    launchers in --host files and, for a folder, its C++ files make them), by the file
    of the kernel they launch (sites.launching) and kernel symbol, and the device
    variables each file's host code writes (none when launches are given or
    --no-launch-sites); a file whose host code does not compile is said once."""
    from simulee.scanner.discover import host_sources, mentioning, wrappers_of
    from simulee.checker.sites import host_calls, host_code, identifier, launching, program_note, through_callers

    if not args.launch_sites or getattr(args, "launch", None) or getattr(args, "no_search", False) or args.grid \
            or args.block:
        return {}, {}
    read: dict[Path, list] = {}
    written: dict[Path, dict] = {}
    defining: dict[str, set] = {}  # kernel symbol -> the files that define a kernel of that symbol
    for file in files:
        read[file], written[file], defined, problem = host_code(file, options)
        if problem and args.verbose:
            print(f"simulee: note: {display(str(file))}: no launch sites read: {problem}", file=sys.stderr)
        elif args.verbose and read[file]:
            print(f"simulee: note: {display(str(file))}: launch sites read from {program_note(file, options)}",
                  file=sys.stderr)
        for kernel in defined:
            defining.setdefault(kernel, set()).add(file)
    callees = set().union(*(site.open_functions() for sites in read.values() for site in sites))
    path = Path(args.path)
    hosts = [Path(host) for host in args.host] + (host_sources(path) if path.is_dir() else []) + files
    calls = []
    unread: dict[str, tuple] = {}  # function -> the files whose host code names it but could not be read
    for file, names in mentioning(hosts, {identifier(callee) for callee in callees}, options.include_dirs).items():
        found, problem = host_calls(file, options, callees)
        if problem and args.verbose:
            print(f"simulee: note: {display(str(file))}: no calls read: {problem}", file=sys.stderr)
        for callee in callees if problem else ():
            if identifier(callee) in names:
                unread[callee] = (*unread.get(callee, ()), display(str(file)))
        calls += found
    by_kernel: dict[str, dict] = {}  # kernel symbol -> the file whose host code holds them -> sites by key
    wrappers = wrappers_of([site for sites in read.values() for site in sites], {str(file): file for file in files})
    for file, sites in read.items():
        for site in through_callers(sites, calls, unread, wrappers=wrappers):
            by_kernel.setdefault(site.kernel, {}).setdefault(file, {}).setdefault(site.key(), site)
    launched: dict = {}
    for kernel, by_file in by_kernel.items():
        for file in files:  # a launcher in a header two files include is one site
            found = launching({other: list(by_key.items()) for other, by_key in by_file.items()}, file,
                              defining.get(kernel, set()))
            launched[file, kernel] = tuple(dict(found).values())
    return launched, written


def _check_one(program, kernel, args, progress=None, sites: tuple = (), config=None):
    """Check one kernel on the --launch launches, on the default launch (--no-search), or
    on the launches the input search finds around what --grid/--block/--arg/--buffer fix
    and the kernel's launch `sites` leave open, within what the simulee.toml (`config`)
    states of it and the options do not override.
    An internal error is recorded against the kernel (so that one kernel cannot stop a
    folder's check) unless SIMULEE_DEBUG asks for the traceback."""
    from simulee.checker.kernel import KernelCheck
    from simulee.prover.verdicts import check_given

    try:
        contract = config.for_kernel(kernel.file or args.path, kernel) if config else None
        if contract:
            contract = contract.without(_named_on_command_line(args), bool(args.launch or args.grid or args.block))
        given = given_on_command_line(kernel, args, contract=contract)
        return check_given(program, kernel, given, settings_of(args), contract, sites, progress)
    except SimuleeError:
        raise
    except Exception as error:
        if os.environ.get("SIMULEE_DEBUG"):
            raise
        return KernelCheck(kernel.name, kernel.symbol, kernel.file, kernel.line, status="error",
                           error=f"internal error: {type(error).__name__}: {error}")


def settings_of(args, **overrides):
    """The check.Settings the search and execution options give (a scan's and a check's
    alike), with `overrides`."""
    from simulee.checker.kernel import Settings

    settings = Settings(args.population, args.generations, args.launches, args.max_blocks, args.seed,
                        args.warp_model, args.step_limit, args.shared_bytes,
                        args.max_seconds if args.max_seconds is not None else float("inf"), args.heap_bytes,
                        args.launch_sites, "", args.detect, not getattr(args, "no_search", False),
                        target=args.target, prove=not getattr(args, "no_prove", False))
    if getattr(args, "seed_launches", None) is not None:
        from simulee.exec.replay import seeds

        settings = replace(settings, seed_launches=seeds(args.seed_launches))
    return replace(settings, **overrides)


def _named_on_command_line(args) -> set[str]:
    """The names --arg, --buffer, --alias (and --fill) give values."""
    names = {text.partition("=")[0].strip() for text in args.arg + args.buffer + args.alias}
    return names | ({"fill"} if args.fill else set())


class _Progress:
    """A progress bar on stderr, drawn only on a terminal and when not quiet (otherwise
    every call on it does nothing). Its total grows as work is found; the remaining time
    is shown once the total is final (`final`) and some of the work is done."""

    def __init__(self, quiet: bool, what: str, unit: str, total: int = 0):
        self.final = False
        self.bar = _Undrawn(total) if quiet or not sys.stderr.isatty() else _bar(what, unit, total)
        self.what = what

    def __enter__(self) -> "_Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.bar.close()

    def grow(self, count: int) -> None:
        self.bar.total += count
        self.bar.refresh()

    def start(self, name: str) -> None:
        """Work on `name` begins."""
        self.bar.set_description_str(name[:60] if name.startswith("compiling ") else f"{self.what} {name[:40]}",
                                     refresh=False)
        self.status("")

    def status(self, text: str) -> None:
        self.bar.set_postfix_str(text)

    def update(self, count: int) -> None:
        if self.final and self.bar.n + count > 0:
            self.bar.bar_format = None
        self.bar.update(count)

    def blocks(self, done: int, total: int) -> None:
        """A launch's progress over its blocks (only drawn when it has several waves), drawn
        after every wave: waves are few, and tqdm's rate limit would hide fast ones."""
        if done < total or self.bar.total:
            self.bar.total = total
            self.final = True
            self.update(done - self.bar.n)
            self.bar.refresh()


def _bar(what: str, unit: str, total: int):
    from tqdm import tqdm  # only for a bar that is drawn

    from simulee.report.formats import WITHOUT_TIME_LEFT

    return tqdm(total=total, desc=what, unit=unit, leave=False, bar_format=WITHOUT_TIME_LEFT)


class _Undrawn:
    """What _Progress asks of a tqdm bar, for a bar that is not drawn: counts, no output."""

    def __init__(self, total: int):
        self.total, self.n, self.bar_format = total, 0, None

    def __getattr__(self, name: str):  # close, refresh, update, set_description_str, set_postfix_str
        return lambda *args, **kwargs: None


# ---------------------------------------------------------------------------- scan


def run_scan(args) -> int:
    ledger = scan_repository(args)
    bugs = ledger.bugs()
    sys.stdout.write(ledger.summary(bugs))
    print(f"simulee: reports in {display(str(ledger.folder))}/ (summary.md, report.html, report.sarif, bugs.csv, "
          "findings.csv, kernels.csv, files.csv, barriers.csv)", file=sys.stderr)
    return EXIT_FINDINGS if fails(found(bugs, args.new_only), args.fail_on) else _scan_status(ledger)


def _scan_status(ledger) -> int:
    """EXIT_ERROR, with a one-line reason, when no file compiled or no kernel was checked."""
    files, checks = list(ledger.files.values()), ledger.checks()
    from simulee.scanner.repository import compiled as listed

    compiled = sum(1 for record in files if listed(record))
    checked = sum(1 for check in checks if check["status"] == "ok")
    if files and not compiled:
        return _fail(f"none of the {len(files)} files compiled (files.csv says why)")
    if not checked:
        return _fail(f"no kernel could be checked: {len(checks)} kernels in {compiled} compiled files"
                     + (" (kernels.csv says why)" if checks else ""))
    return EXIT_OK


def run_audit(args) -> int:
    from simulee.scanner.repository import VERDICTS
    from simulee.scanner.repository import compiled as listed

    ledger = scan_repository(args)
    rows = _audit_rows(ledger.bugs().records)
    header = ("barrier", "kernels", "verdict", "passes", "removing it")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(4)]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[4])
    counts = {name: sum(1 for row in rows if row[2] == name) for name in VERDICTS}
    unchecked = sum(1 for check in ledger.checks() if check["status"] not in ("ok", "represented"))
    uncompiled = [record for record in ledger.files.values() if not listed(record)]
    for record in uncompiled:
        print(f"simulee: error: {record['error']}", file=sys.stderr)
    print(f"simulee: {len(rows)} barriers: " + ", ".join(f"{n} {name}" for name, n in counts.items())
          + (f"; {unchecked} kernels not checked (see kernels.csv)" if unchecked else "")
          + (f"; {len(uncompiled)} files not compiled" if uncompiled else "")
          + f"; barriers.csv in {display(str(ledger.folder))}/", file=sys.stderr)
    return EXIT_FINDINGS if counts["divergent"] else _scan_status(ledger)


def _audit_rows(records: list[dict]) -> list[tuple[str, ...]]:
    """One row per barrier (a barrier several kernels reach, in a device function or a
    template, is one): where, the kernels, the verdict over them all, block passes, and
    the race removing it would cause."""
    from simulee.scanner.repository import verdict

    barriers: dict[tuple, dict] = {}
    for check in records:
        for barrier in check["barriers"]:
            seen = barriers.setdefault((barrier["file"], barrier["line"], barrier["column"]),
                                       {**barrier, "kernels": [], "passes": 0})
            seen["kernels"].append(barrier["kernel"])
            seen["passes"] += barrier["passes"]
    return [(f"{file}:{line}:{column}", ", ".join(seen["kernels"][:3]) + (
             f" and {len(seen['kernels']) - 3} more" if len(seen["kernels"]) > 3 else ""), verdict(seen),
             str(seen["passes"]), ((seen["race"] or {}).get("message", "") or seen.get("reason") or "")
             if seen["verdict"] == "needed" else "")
            for (file, line, column), seen in barriers.items()]


def scan_repository(args):
    """Run the scan the options describe and return its ledger."""
    from simulee.checker.config import config_for
    from simulee.scanner.repository import ScanOptions, default_output, scan
    from simulee.scanner.workers import Limits

    path = Path(args.path)
    if not path.exists():
        raise SimuleeError(f"no such file or folder: {path}")
    name = path.resolve().name if path.is_dir() else path.stem
    if args.scheduler and args.scheduler != "local" and not args.scheduler.startswith(("tcp://", "tls://", "inproc://")):
        raise SimuleeError(f"--scheduler {args.scheduler}: expected tcp://HOST:PORT or local")
    # a kernel's work (and a compiler) stops in time to report before its worker is stopped
    within = lambda seconds: seconds - min(max(2.0, 0.1 * seconds), 0.5 * seconds)  # noqa: E731
    config = config_for(path, args.config)  # read here, so that a mistake in it stops the scan at once
    baseline = compared_with(args)
    checking = within(args.kernel_timeout)
    settings = settings_of(args, max_seconds=min(args.max_seconds or checking, checking),
                           config=str(config.path or ""))
    compiling = replace(compile_options(args), timeout=within(args.compile_timeout))
    limits = Limits(args.kernel_timeout, args.memory_limit, args.compile_timeout)
    options = ScanOptions(path, Path(args.output) if args.output else default_output(path), args.project or name,
                          compiling, settings, limits, args.jobs,
                          args.scheduler, tuple(args.include), tuple(args.exclude), args.resume, args.quiet,
                          args.all_instances, baseline, args.new_only)
    return scan(options)


# ---------------------------------------------------------------------------- trace


def run_trace(args) -> int:
    from interpreter.simt import execute
    from simulee.checker.kernel import detection_launch
    from simulee.model.access import build_model

    path = Path(args.path)
    program = load_degraded(path, compile_options(args))
    kernel = select_kernel(program, args.kernel, path)
    (launch,) = launches_for(program, kernel, args)
    launch, note = detection_launch(launch)
    if note:
        print(f"simulee: note: {note}", file=sys.stderr)
    result = execute(program, kernel, launch)
    if result.status in ("unsupported", "out-of-memory"):
        raise SimuleeError(result.message)
    if result.status == "trace-limit":
        print(f"simulee: note: the launch {result.message}: the model holds only those", file=sys.stderr)
    frame = build_model(result).to_frame()
    if not args.output:
        frame.to_csv(sys.stdout, index=False)
        return EXIT_OK
    with open_output(args.output, "wb") as handle:
        try:
            if args.output.endswith(".parquet"):
                frame.to_parquet(handle, index=False)
            else:
                frame.to_csv(handle, index=False)
        except ImportError as error:
            raise SimuleeError(f"cannot write Parquet: {error}") from None
    print(f"simulee: {len(frame):,} unit tuples of {kernel.name} written to {args.output}", file=sys.stderr)
    return EXIT_OK


# ---------------------------------------------------------------------------- compile


def run_exec(args) -> int:
    from simulee.report import rootcause
    from simulee.exec.runner import run_program

    sources = [Path(source) for source in args.sources]
    def say(text: str) -> None:
        print(f"simulee: {text}", file=sys.stderr, flush=True)

    progress = None if args.quiet or not sys.stderr.isatty() else say
    outcome = run_program(sources, compile_options(args), args.program_args,
                          args.timeout if args.timeout is not None else float("inf"), args.warp_model,
                          progress=progress, save_launches=args.save_launches, say=None if args.quiet else say,
                          stop_on_fault=args.stop_on_fault)
    for degraded in outcome.degraded:
        source, _, what = degraded.partition(": ")
        print(f"simulee: warning: {display(source)}: built without what it needs: {what}", file=sys.stderr)
    bugs = rootcause.bugs([check.to_json() for check in outcome.checks])
    text = report_text(args.format, bugs, sources[0].resolve().parent.name, outcome.seconds, args.verbose)
    repeats = sum(1 for launch in outcome.launches if launch.repeat_of)
    again = f" ({repeats} repeating an earlier one exactly)" if repeats else ""
    summary = f"simulee: {len(outcome.launches)} launch{'es' if len(outcome.launches) != 1 else ''} checked{again}; " \
              f"{outcome.ending_text()}"
    if args.output:
        write_output(text, args.output)
    else:
        sys.stderr.write(text if text.endswith("\n") else text + "\n")
    print(summary, file=sys.stderr)
    for check in outcome.checks:
        if check.status != "ok":
            print(f"simulee: error: {display(check.file)}:{check.line}: {check.kernel}: {check.error}",
                  file=sys.stderr)
    if fails(found(bugs, False), None):
        return EXIT_FINDINGS
    if outcome.ending == "timed out":
        return 124
    return 128 - outcome.exit_status if outcome.exit_status < 0 else outcome.exit_status


def run_compile(args) -> int:
    from simulee.frontend.compiler import load_ir

    write_output(load_ir(Path(args.path), compile_options(args)), args.output)
    return EXIT_OK
