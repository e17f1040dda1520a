"""The `simulee` command line.

Exit status: 0 when nothing was found, 1 when error findings were reported, 2 for bad
input (missing file, compile error, unknown kernel, malformed option) or an analysis
error, 130 when interrupted. Every error is one line on stderr, `simulee: error: ...`;
-v adds every compiler diagnostic, SIMULEE_DEBUG=1 the traceback of an internal error.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

from interpreter.limits import DEFAULT_HEAP_BYTES, DEFAULT_STEP_LIMIT, FILLS
from simulee import __version__
from simulee.errors import CompileError, SimuleeError
from simulee.model.findings import display
from simulee.frontend.compiler import DEFAULT_ARCH, load_program, own_kernels, user_location
from simulee.app.args import (Args, CheckArgs, EquivArgs, KernelsArgs, ProveArgs, RunArgs, ScanArgs, detectors,
                              finding_types, heap_bytes, number_of_bytes, positive, seconds, shared_bytes, size, target)
from simulee.app.check import check_each, check_sources, compared_with, settings_of
from simulee.app.equiv import equivalence_space, launch_json
from simulee.app.launches import launch_findings, launches_for, run_kernel
from simulee.app.scan import scan_repository
from simulee.app.sources import list_kernels, load_degraded, select_kernel

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
    group.add_argument("--shared-bytes", type=shared_bytes, default=48 * 1024, metavar="N",
                       help="dynamic (extern __shared__) memory per block, default 49152, at most 232448 (227 KiB, "
                            "the most a CUDA block may have)")
    group.add_argument("--seed", type=size, default=0,
                       help="seed for random buffers (and the input search), 0 or more")
    group.add_argument("--step-limit", type=positive, metavar="N",
                       help=f"stop a launch after N scheduler steps; default {DEFAULT_STEP_LIMIT:,} per wave of "
                            "blocks plus what the kernel's loop bounds need")
    group.add_argument("--max-seconds", type=seconds, metavar="S",
                       help="stop a launch (check: a kernel's search and checks) after S seconds; default no limit "
                            "(scan: the kernel timeout)")
    group.add_argument("--heap-bytes", type=heap_bytes, default=DEFAULT_HEAP_BYTES, metavar="SIZE",
                       help="the device heap in-kernel malloc allocates from, default 8M as on CUDA")
    return execution_options


def _search_options() -> argparse.ArgumentParser:
    search_options = argparse.ArgumentParser(add_help=False)
    search_options.add_argument("--warp-model", choices=("independent", "lockstep"), default="independent",
                                help="independent (Volta and later, default) or lockstep (pre-Volta) warps")
    search_options.add_argument("--target", type=target, default=0, metavar="sm_XX",
                                help="the GPU architecture the code must be right on (default: every one current "
                                     "toolkits support, sm_70 and later); before sm_70 warps run in lockstep and "
                                     "warp-synchronous races are warnings, not errors")
    search_options.add_argument("--seed-launches", type=Path, metavar="DIR",
                                help="start the input search also from the launches simulee exec --save-launches "
                                     "saved in DIR (their dimensions and numbers)")
    search_options.add_argument("--no-prove", action="store_true",
                                help="do not run the prover first (by default each kernel is proved race-free for "
                                     "every launch where the prover can, and then its race search is skipped)")
    search_options.add_argument("--fail-on", type=finding_types, default=None, metavar="TYPE[,TYPE]",
                                help="exit with status 1 when a finding of these types is reported, whatever its "
                                     "severity (default: when any error is), e.g. data-race,barrier-divergence")
    search_options.add_argument("--baseline", type=Path, metavar="REPORT",
                                help="an earlier report to compare with: a scan's report.sarif (or its folder) or a "
                                     "JSON report; each root cause is marked new or unchanged, and those no longer "
                                     "found absent (SARIF baselineState)")
    search_options.add_argument("--new-only", action="store_true",
                                help="with --baseline: report, and set the exit status by, only the new root causes")
    search_options.add_argument("--detect", type=detectors, default=(), metavar="NAME[,NAME]",
                                help="also run these detectors, off by default: uninitialized-shared-read (a read of "
                                     "shared memory no thread of the block wrote before), bank-conflict (shared-memory "
                                     "bank conflicts, a performance warning), or all")
    group = search_options.add_argument_group("input search (when no launch is given)")
    group.add_argument("--population", type=positive, default=10, metavar="P",
                       help="launches per generation, default 10")
    group.add_argument("--generations", type=size, default=10, metavar="N", help="generations at most, default 10")
    group.add_argument("--launches", type=positive, default=3, metavar="K",
                       help="how many of the best distinct launches found are checked in full, default 3")
    group.add_argument("--max-blocks", type=positive, default=32, metavar="N",
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
    group.add_argument("--jobs", type=positive, default=len(os.sched_getaffinity(0)), metavar="N",
                       help="worker processes (Dask: LocalCluster workers), default all cores")
    group.add_argument("--scheduler", metavar="tcp://HOST:PORT|local",
                       help="run the kernels on a Dask cluster: its scheduler's address, or local for a LocalCluster")
    group.add_argument("--resume", action="store_true",
                       help="keep the results already in the output folder and check only the rest")
    group.add_argument("--kernel-timeout", type=seconds, default=120.0, metavar="SECONDS",
                       help="give up on a kernel's check after this long, default 120")
    group.add_argument("--compile-timeout", type=seconds, default=300.0, metavar="SECONDS",
                       help="give up on compiling a file (and reading its host code) after this long, default 300")
    group.add_argument("--memory-limit", type=number_of_bytes, default=8 << 30, metavar="SIZE",
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
    run.add_argument("--timeout", type=seconds, metavar="S", help="stop the program after S seconds")
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
    from simulee.report import formats, rootcause

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
            sys.stdout.write(formats.report(args.format, bugs, Path.cwd().name, merged.seconds, False))
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
    prove.add_argument("--query-seconds", type=seconds, default=5.0, metavar="S",
                       help="give each question to the solver S seconds (default 5); past them the verdict is unknown")
    prove.add_argument("--kernel-seconds", type=seconds, default=60.0, metavar="S",
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
    equiv.add_argument("--population", type=positive, default=8, metavar="N", help="the search's population")
    equiv.add_argument("--generations", type=positive, default=6, metavar="N", help="the search's generations")
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
    fix.add_argument("--seed", type=size, default=0, help="seed of the launches searched, 0 or more")
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


@functools.cache
def _parser() -> argparse.ArgumentParser:
    """The command line's parser, built once per process (a server's children share it)."""
    return build_parser()


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
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


# ---------------------------------------------------------------------------- prove


def run_prove(args) -> int:
    from simulee.prover import report

    from simulee.app.prove import prove_sources

    proofs, errors = prove_sources(ProveArgs.of(args), (lambda proof: print(report.text(proof), flush=True))
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


def run_equiv(args) -> int:
    from simulee.app.equiv import compare_versions, equiv_json

    pair, verdict = compare_versions(EquivArgs.of(args))
    if args.format == "json":
        print(json.dumps(equiv_json(pair, verdict), indent=2))
    else:
        sys.stdout.write(equiv_text(pair, verdict))
    return {"differ": EXIT_FINDINGS, "equivalent": EXIT_OK, "proved-equivalent": EXIT_OK}.get(verdict.verdict,
                                                                                              EXIT_ERROR)


NOT_COMPARED_SHOWN = 3  # launches not compared, each with its reason, before a count of the rest


def equiv_text(pair, verdict) -> str:
    from simulee.report.formats import launch_text

    old, new = f"{pair.old.name} ({display(pair.old.file)}:{pair.old.line})", \
        f"{pair.new.name} ({display(pair.new.file)}:{pair.new.line})"
    compared = verdict.compared
    lines = []
    problems = [comparison for comparison in verdict.comparisons if comparison.problem]
    for comparison in problems[:NOT_COMPARED_SHOWN]:
        lines.append(f"simulee: note: not compared on {launch_text(launch_json(comparison.launch))}: "
                     f"{comparison.problem}")
    if len(problems) > NOT_COMPARED_SHOWN:
        more = len(problems) - NOT_COMPARED_SHOWN
        lines.append(f"simulee: note: {more} more launch{'es' if more > 1 else ''} not compared (--format json lists "
                     "each)")
    found = verdict.difference
    if found and verdict.proof is not None and verdict.proof.verdict == "differ":
        lines.append("simulee: note: the prover found this launch; none the search tried showed a difference")
    if found and found.behaviour:
        lines.append(f"simulee: {old} and {new} differ on {launch_text(launch_json(found.launch))}: "
                     f"{found.behaviour}")
    elif found:
        d = found.difference
        lines += [f"simulee: {old} and {new} differ on {launch_text(launch_json(found.launch))}",
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
    options = Args.of(args).compile_options()
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
    settings = settings_of(CheckArgs(path=str(source), seed=args.seed, warp_model=args.warp_model))
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
        launches, space = equivalence_space(old_program, kernel, args.seed, given, grid, block)
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


# ---------------------------------------------------------------------------- kernels


def run_kernels(args) -> int:
    path = Path(args.path)
    listing, errors, files = list_kernels(KernelsArgs.of(args))
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


def found(bugs, new_only: bool):
    """(type, severity) of every finding reported: of the new root causes only, if asked."""
    return ((f["type"], f["severity"]) for cause in bugs.shown(new_only) for f in cause["findings"])


def fails(findings, fail_on: frozenset[str] | None) -> bool:
    """Whether these findings ((type, severity) pairs) make the exit status 1: one of a type
    in `fail_on`, else any error."""
    return any(kind in fail_on if fail_on is not None else severity == "error" for kind, severity in findings)


def run_run(args) -> int:
    import numpy as np

    from simulee.model.findings import ERROR
    from simulee.report import formats

    kernel, result = run_kernel(RunArgs.of(args))
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


# ---------------------------------------------------------------------------- check


def run_check(args) -> int:
    if args.replay is not None:
        return run_replay(args)
    if not args.paths:
        raise SimuleeError("check needs a FILE or DIR (or --replay DIR/NNNN)")
    return _run_check(args)


def run_replay(args) -> int:
    """check --replay: one saved launch of a whole program, on the memory it had."""
    import time

    from simulee.report import formats, rootcause
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
    write_output(formats.report(args.format, bugs, saved.sources[0].parent.name, time.perf_counter() - start,
                             args.verbose, args.barriers), args.output)
    if check.status != "ok":
        print(f"simulee: error: {display(check.file)}:{check.line}: {check.kernel}: {check.error}", file=sys.stderr)
        return EXIT_ERROR
    return EXIT_FINDINGS if fails(found(bugs, False), args.fail_on) else EXIT_OK


def _run_check(args) -> int:
    from simulee.report import formats, rootcause

    asked = CheckArgs.of(args, path=args.paths[0])
    baseline = compared_with(asked)  # a wrong baseline stops the check before it starts
    checked = check_sources(asked) if len(args.paths) == 1 else check_each(asked, args.paths)
    bugs = rootcause.bugs([check.to_json() for check in checked.checks], baseline=baseline)
    write_output(formats.report(args.format, bugs, checked.project, checked.seconds, args.verbose, args.barriers,
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


def replace_namespace(args, **changes) -> argparse.Namespace:
    return argparse.Namespace(**{**vars(args), **changes})


# ---------------------------------------------------------------------------- scan


def run_scan(args) -> int:
    ledger = scan_repository(ScanArgs.of(args))
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

    ledger = scan_repository(ScanArgs.of(args))
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


# ---------------------------------------------------------------------------- trace


def run_trace(args) -> int:
    from interpreter.simt import execute
    from simulee.checker.kernel import detection_launch
    from simulee.model.access import build_model

    asked = RunArgs.of(args)
    path = Path(asked.path)
    program = load_degraded(path, asked.compile_options())
    kernel = select_kernel(program, asked.kernel, path)
    (launch,) = launches_for(program, kernel, asked)
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
    from simulee.report import formats, rootcause
    from simulee.exec.runner import run_program

    sources = [Path(source) for source in args.sources]
    def say(text: str) -> None:
        print(f"simulee: {text}", file=sys.stderr, flush=True)

    progress = None if args.quiet or not sys.stderr.isatty() else say
    outcome = run_program(sources, Args.of(args).compile_options(), args.program_args,
                          args.timeout if args.timeout is not None else float("inf"), args.warp_model,
                          progress=progress, save_launches=args.save_launches, say=None if args.quiet else say,
                          stop_on_fault=args.stop_on_fault)
    for degraded in outcome.degraded:
        source, _, what = degraded.partition(": ")
        print(f"simulee: warning: {display(source)}: built without what it needs: {what}", file=sys.stderr)
    bugs = rootcause.bugs([check.to_json() for check in outcome.checks])
    text = formats.report(args.format, bugs, sources[0].resolve().parent.name, outcome.seconds, args.verbose)
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

    write_output(load_ir(Path(args.path), Args.of(args).compile_options()), args.output)
    return EXIT_OK
