"""Interpreter throughput on five kernels, and Simulee against Oclgrind on the same launches.

    python -m benchmarks.throughput [--sizes 4096,65536,262144] [--kernels reduction,scan,...]
                                    [--engines native,numpy] [-o OUT.csv | --update-results]

Kernels: a shared-memory tree reduction, a block-wide scan, a tiled transpose, a histogram
with shared and global atomics (every byte 1: all atomics hit one bin) and a tiled matrix
multiply (k = 64), each with its OpenCL twin in benchmarks/opencl/. For each kernel and
launch size (threads launched):

- under each engine (--engines: native, the default one, and numpy, the reference
  interpreter), a fresh process compiles, loads and runs the kernel with tracing on and
  reports thread-instructions per second, trace records and its peak memory (the results
  are checked against the expected output; native code compiled by an earlier process;
  the median of RUNS processes);
- the whole `simulee check` process (race detection and barrier verdicts) is timed on that
  launch, IR and native caches warm, Python's bytecode cache on as on a user's machine:
  in a process of its own (cold: `check_seconds`), and sent to a running `simulee server`
  (warm: `check_server_seconds`; the benchmark runs its own server, in a cache folder of
  its own, and stops it);
- when `oclgrind-kernel` is on PATH (Debian package oclgrind), so is Oclgrind
  (`--data-races --num-threads 1`) on the OpenCL twin with the same launch, and the ratio.

Rows go to the output CSV (results/local/throughput.csv, or with --update-results the
committed results/throughput.csv) and are printed as they finish. Before them, the
start-up of the command line: the median seconds of 5 whole `simulee --version` and
`simulee kernels` (on a file whose IR is cached) processes, and the scheduler's cost per
step on a small group (64 threads in an endless loop of a load, a store and arithmetic:
benchmarks/workloads/steps.cu, with and without tracing, under each engine), into
startup.csv beside.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
OPENCL = ROOT / "benchmarks" / "opencl"
TESTS = ROOT / "tests" / "kernels"
COLUMNS = ["kernel", "engine", "threads", "thread_instructions", "seconds", "thread_instructions_per_second",
           "trace_records", "peak_mb", "check_seconds", "check_server_seconds", "oclgrind_seconds", "oclgrind_ratio",
           "oclgrind_server_ratio"]
DTYPES = {"float32": "float", "int32": "int", "uint32": "uint", "uint8": "uchar"}


@dataclass(frozen=True)
class Buffer:
    name: str
    dtype: str
    count: int
    fill: str = "zeros"  # zeros or ones


@dataclass(frozen=True)
class Scalar:
    name: str
    value: int


@dataclass(frozen=True)
class Shape:
    """One launch of a workload: dimensions, arguments in parameter order, and a check of
    the output buffers."""

    grid: tuple
    block: tuple
    args: tuple
    expect: Callable


@dataclass(frozen=True)
class Workload:
    name: str
    source: Path
    kernel: str
    opencl: Path
    shape: Callable[[int], Shape]  # threads launched -> the launch


def reduction(threads: int) -> Shape:
    blocks = threads // 256
    return Shape((blocks, 1, 1), (256, 1, 1),
                 (Buffer("in", "float32", threads, "ones"), Buffer("out", "float32", blocks), Scalar("n", threads)),
                 lambda out: (out["out"] == 256).all())


def scan(threads: int) -> Shape:
    import numpy as np

    blocks = threads // 256
    return Shape((blocks, 1, 1), (256, 1, 1),
                 (Buffer("in", "float32", threads, "ones"), Buffer("out", "float32", threads),
                  Buffer("block_sums", "float32", blocks), Scalar("n", threads)),
                 lambda out: (out["out"] == np.arange(threads) % 256 + 1).all())


def transpose(threads: int) -> Shape:
    side = 2 * math.isqrt(threads)  # 32x8 threads move a 32x32 tile
    return Shape((side // 32, side // 32, 1), (32, 8, 1),
                 (Buffer("out", "float32", side * side), Buffer("in", "float32", side * side, "ones"),
                  Scalar("width", side), Scalar("height", side)),
                 lambda out: (out["out"] == 1).all())


def histogram(threads: int) -> Shape:
    n = 4 * threads
    return Shape((threads // 256, 1, 1), (256, 1, 1),
                 (Buffer("data", "uint8", n, "ones"), Buffer("bins", "uint32", 256), Scalar("n", n)),
                 lambda out: out["bins"][1] == n and out["bins"].sum() == n)


def matmul(threads: int) -> Shape:
    side, k = math.isqrt(threads), 64
    return Shape((side // 16, side // 16, 1), (16, 16, 1),
                 (Buffer("a", "float32", side * k, "ones"), Buffer("b", "float32", k * side, "ones"),
                  Buffer("c", "float32", side * side), Scalar("m", side), Scalar("k", k), Scalar("n", side)),
                 lambda out: (out["c"] == k).all())


WORKLOADS = {w.name: w for w in (
    Workload("reduction", TESTS / "reduction.cu", "reduce_sum", OPENCL / "reduction.cl", reduction),
    Workload("scan", ROOT / "benchmarks" / "kernels" / "arrayfire" / "scan_nonfinal_kernel.cu",
             "scan_nonfinal_kernel_fixed", OPENCL / "scan.cl", scan),
    Workload("transpose", TESTS / "transpose.cu", "transpose", OPENCL / "transpose.cl", transpose),
    Workload("histogram", TESTS / "histogram.cu", "histogram256", OPENCL / "histogram.cl", histogram),
    Workload("matmul", TESTS / "matmul.cu", "matmul", OPENCL / "matmul.cl", matmul),
)}


def measure(workload: Workload, threads: int) -> dict:
    """Run one launch in this process with tracing on; report what it cost."""
    import numpy as np

    from interpreter.launch import Launch
    from interpreter.loader import load_module
    from interpreter.simt import execute
    from simulee.frontend.compiler import load_ir

    shape = workload.shape(threads)
    program = load_module(load_ir(workload.source))
    args = {a.name: (np.full(a.count, a.fill == "ones", dtype=a.dtype) if isinstance(a, Buffer) else a.value)
            for a in shape.args}
    result = execute(program, workload.kernel, Launch(shape.grid, shape.block, args))
    assert result.status == "ok" and shape.expect(result.buffers), result.message
    return {"thread_instructions": result.thread_instructions, "seconds": result.seconds,
            "trace_records": len(result.trace), "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}


ENGINES = "native,numpy"


def environment(engine: str | None = None, server: bool = False) -> dict:
    """The environment of a measured process: as on a user's machine, Python's bytecode cache
    on (PYTHONDONTWRITEBYTECODE dropped: a sandbox may set it); the engine, when given;
    a `simulee` command runs in its own process, or with `server` in the benchmark's."""
    env = {name: value for name, value in os.environ.items()
           if name not in ("PYTHONDONTWRITEBYTECODE", "SIMULEE_NO_SERVER")}
    if engine:
        env["SIMULEE_ENGINE"] = engine
    env.update(SERVED if server else {"SIMULEE_NO_SERVER": "1"})
    return env


def timed(command: list[str], engine: str | None = None, server: bool = False) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   env=environment(engine, server))
    return time.perf_counter() - start


def whole_process(workload: Workload, threads: int, engine: str) -> tuple[float, float]:
    """Seconds for the whole `simulee check` process on the launch (IR and native caches
    warm; the median of RUNS) in a process of its own, and sent to the server."""
    shape = workload.shape(threads)
    command = [sys.executable, "-m", "simulee", "check", str(workload.source), "-k", workload.kernel, "-q",
               "--grid", ",".join(map(str, shape.grid)), "--block", ",".join(map(str, shape.block))]
    for a in shape.args:
        command += ["--buffer", f"{a.name}={a.dtype}:{a.count}:{a.fill}"] if isinstance(a, Buffer) \
            else ["--arg", f"{a.name}={a.value}"]
    timed(command, engine)  # fills the IR cache (and the native code's)
    alone = statistics.median(timed(command, engine) for _ in range(RUNS))
    timed(command, engine, server=True)
    time.sleep(SERVER_IDLE)  # the server loads what the command loaded
    return alone, statistics.median(timed(command, engine, server=True) for _ in range(RUNS))


SERVER_IDLE = 1.5  # seconds the server is left to load what a command loaded


SERVED: dict = {}  # the environment of commands sent to the benchmark's server (serving)


@contextlib.contextmanager
def serving():
    """The benchmark's own `simulee server`, in a cache folder of its own (no other command
    reaches it, and it reaches no one's); stopped at the end."""
    simulee = [sys.executable, "-m", "simulee", "server"]
    with tempfile.TemporaryDirectory(prefix="simulee-bench-") as cache:
        SERVED["SIMULEE_CACHE"] = cache
        subprocess.run([*simulee, "start"], check=True, capture_output=True, env=environment(server=True))
        try:
            yield
        finally:
            subprocess.run([*simulee, "stop"], capture_output=True, env=environment(server=True))
            SERVED.clear()


def oclgrind(workload: Workload, threads: int) -> float | None:
    """Seconds for `oclgrind-kernel --data-races` on the OpenCL twin, or None without it."""
    if shutil.which("oclgrind-kernel") is None:
        return None
    shape = workload.shape(threads)
    lines = [str(workload.opencl), workload.kernel,
             " ".join(str(g * b) for g, b in zip(shape.grid, shape.block)), " ".join(map(str, shape.block))]
    for a in shape.args:
        if isinstance(a, Buffer):
            size = a.count * {"uint8": 1}.get(a.dtype, 4)
            lines.append(f"<size={size} fill={int(a.fill == 'ones')} {DTYPES[a.dtype]}>")
        else:
            lines += ["<size=4 int>", str(a.value)]
    with tempfile.TemporaryDirectory() as folder:
        sim = Path(folder) / f"{workload.name}.sim"
        sim.write_text("\n".join(lines) + "\n")
        return timed(["oclgrind-kernel", "--data-races", "--num-threads", "1", str(sim)])


STARTUP_RUNS = 5


def startup() -> list[dict]:
    """Median seconds of whole `simulee --version` and `simulee kernels FILE` processes
    (IR cache warm)."""
    import statistics

    commands = {"simulee --version": ["--version"],
                "simulee kernels (cached)": ["kernels", str(TESTS / "reduction.cu")]}
    rows = []
    for name, args in commands.items():
        command = [sys.executable, "-m", "simulee", *args]
        timed(command)  # fills the IR cache, and Python's bytecode cache
        rows.append({"command": name, "seconds": round(statistics.median(timed(command) for _ in range(STARTUP_RUNS)),
                                                       3)})
    return rows


def scheduler_steps(engine: str = "native") -> list[dict]:
    """Microseconds per scheduler step of 64 threads looping until a step limit, the trace
    recorded or not (the second of two launches: native code compiled by the first)."""
    import numpy as np

    from interpreter.launch import Launch
    from interpreter.loader import load_module
    from interpreter.simt import execute
    from simulee.frontend.compiler import load_ir

    program = load_module(load_ir(ROOT / "benchmarks" / "workloads" / "steps.cu"))
    rows = []
    os.environ["SIMULEE_NATIVE_WARMUP"] = "0"  # native from the first step
    try:
        for traced in (False, True):
            for _ in range(2):
                launch = Launch((1, 1, 1), (64, 1, 1),
                                {"out": np.zeros(64, np.int32), "in": np.ones(64, np.int32), "n": 7},
                                step_limit=20_000, trace=traced, engine=engine)
                result = execute(program, "steps", launch)
            rows.append({"command": f"scheduler step, 64 threads{', traced' if traced else ''}, {engine} (us)",
                         "seconds": round(result.seconds / result.steps * 1e6, 2)})
    finally:
        del os.environ["SIMULEE_NATIVE_WARMUP"]
    return rows


def row(workload: Workload, threads: int, engine: str, theirs: float | None) -> dict:
    runs = []
    for number in range(RUNS + (engine == "native")):  # the first native run compiles into the cache
        output = subprocess.run([sys.executable, "-m", "benchmarks.throughput", "--one", workload.name, str(threads)],
                                cwd=ROOT, capture_output=True, text=True, env=environment(engine))
        if output.returncode != 0:
            raise SystemExit(f"error: {workload.name} at {threads} threads: {output.stderr.strip().splitlines()[-1]}")
        if number or engine != "native":
            runs.append(json.loads(output.stdout))
    measured = sorted(runs, key=lambda run: run["seconds"])[len(runs) // 2]  # the median run
    check, served = whole_process(workload, threads, engine)
    return {"kernel": workload.name, "engine": engine, "threads": threads, **measured,
            "thread_instructions_per_second": round(measured["thread_instructions"] / measured["seconds"]),
            "seconds": round(measured["seconds"], 3), "peak_mb": round(measured["peak_mb"]),
            "check_seconds": round(check, 2), "check_server_seconds": round(served, 2),
            "oclgrind_seconds": None if theirs is None else round(theirs, 2),
            "oclgrind_ratio": None if theirs is None else round(theirs / check, 1),
            "oclgrind_server_ratio": None if theirs is None else round(theirs / served, 1)}


SIZES = "4096,65536,262144"
RUNS = 3  # fresh processes per launch measured: the median (a native run's time varies up to 2x between processes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.throughput", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default=SIZES, help="threads launched, comma-separated")
    parser.add_argument("--kernels", default=",".join(WORKLOADS), help="which of: " + ", ".join(WORKLOADS))
    parser.add_argument("--engines", default=ENGINES, help="which of: native, numpy (comma-separated)")
    parser.add_argument("-o", "--output", type=Path, help="the CSV to write (default results/local/throughput.csv)")
    parser.add_argument("--update-results", action="store_true",
                        help="write the committed results/throughput.csv (every kernel at every default size)")
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)  # internal: measure one launch here
    args = parser.parse_args(argv)
    engines = args.engines.split(",")
    if any(engine not in ("native", "numpy") for engine in engines):
        parser.error(f"--engines {args.engines}: expected native, numpy or both")
    if args.update_results and (args.output or args.sizes != SIZES or args.kernels != ",".join(WORKLOADS)
                                or args.engines != ENGINES):
        parser.error("--update-results measures every kernel at every default size into results/: give no -o, "
                     "--sizes or --kernels")
    output = args.output or ROOT / "results" / ("" if args.update_results else "local") / "throughput.csv"
    if args.one:
        print(json.dumps(measure(WORKLOADS[args.one[0]], int(args.one[1]))))
        return 0
    try:
        sizes = [int(s) for s in args.sizes.split(",")]
    except ValueError:
        parser.error(f"--sizes {args.sizes}: expected comma-separated thread counts")
    unknown = [k for k in args.kernels.split(",") if k not in WORKLOADS]
    if unknown or any(s < 256 or s % 256 or math.isqrt(s) ** 2 != s for s in sizes):
        parser.error(f"unknown kernel {unknown[0]}" if unknown else
                     "--sizes: each a square number of threads and a multiple of 256 (4096, 65536, 262144, ...)")
    if shutil.which("oclgrind-kernel") is None:
        print("oclgrind-kernel not found: no comparison (Debian package oclgrind)", file=sys.stderr)
    output.parent.mkdir(parents=True, exist_ok=True)
    with open(output.with_name("startup.csv"), "w", newline="") as handle:
        writer = csv.DictWriter(handle, ("command", "seconds"))
        writer.writeheader()
        for measured in startup():
            writer.writerow(measured)
            print(f"{measured['command']:<26} {measured['seconds']:.3f} s (median of {STARTUP_RUNS})", flush=True)
        for engine in engines:
            for measured in scheduler_steps(engine):
                writer.writerow(measured)
                print(f"{measured['command']:<26} {measured['seconds']:.2f} us", flush=True)
    print(f"{'kernel':<10} {'engine':<7} {'threads':>9} {'thread-instr':>13} {'seconds':>8} {'M instr/s':>9} "
          f"{'peak MB':>8} {'check s':>8} {'server s':>8} {'oclgrind s':>10} {'ratio':>6}")
    with open(output, "w", newline="") as handle, serving():
        writer = csv.DictWriter(handle, COLUMNS)
        writer.writeheader()
        for name in args.kernels.split(","):
            for threads in sizes:
                theirs = oclgrind(WORKLOADS[name], threads)
                for engine in engines:
                    r = row(WORKLOADS[name], threads, engine, theirs)
                    writer.writerow(r)
                    handle.flush()
                    print(f"{r['kernel']:<10} {r['engine']:<7} {r['threads']:>9,} {r['thread_instructions']:>13,} "
                          f"{r['seconds']:>8.2f} {r['thread_instructions_per_second'] / 1e6:>9.1f} {r['peak_mb']:>8} "
                          f"{r['check_seconds']:>8.2f} {r['check_server_seconds']:>8.2f} "
                          f"{r['oclgrind_seconds'] if r['oclgrind_seconds'] is not None else '-':>10} "
                          f"{r['oclgrind_ratio'] if r['oclgrind_ratio'] is not None else '-':>6}", flush=True)
    print(f"rows in {output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
