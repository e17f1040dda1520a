"""Interpreter throughput on a shared-memory tree reduction (tests/kernels/reduction.cu).

    python -m benchmarks.throughput [--sizes 4096,262144,1048576]

For each launch size (blocks of 256 threads) a fresh process compiles, loads and runs the
kernel with tracing on and reports thread-instructions per second, trace records and its
peak memory. Then the whole `simulee check` process (race detection and barrier verdicts) is
timed on 1,024 x 256 threads; when `oclgrind-kernel` is on PATH (Debian package oclgrind),
so is Oclgrind (`--data-races --num-threads 1`) on the OpenCL twin in
benchmarks/opencl/reduction.cl, and the ratio is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNEL = ROOT / "tests" / "kernels" / "reduction.cu"
OPENCL = ROOT / "benchmarks" / "opencl" / "reduction.cl"
BLOCK = 256


def measure(threads: int) -> dict:
    """Run the reduction on `threads` threads in this process; report what it cost."""
    import numpy as np

    from interpreter.launch import Launch
    from interpreter.loader import load_module
    from interpreter.simt import execute
    from simulee.frontend import load_ir

    program = load_module(load_ir(KERNEL))
    blocks = threads // BLOCK
    values = np.ones(threads, dtype=np.float32)
    launch = Launch(blocks, BLOCK, {"in": values, "out": np.zeros(blocks, np.float32), "n": threads})
    result = execute(program, "reduce_sum", launch)
    assert result.status == "ok" and (result.buffers["out"] == BLOCK).all(), result.message
    return {
        "threads": threads,
        "thread_instructions": result.thread_instructions,
        "seconds": result.seconds,
        "trace_records": len(result.trace),
        "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def whole_process(threads: int) -> float:
    """Seconds for the whole `simulee check` process (IR cache warm)."""
    command = [sys.executable, "-m", "simulee", "check", str(KERNEL), "--grid", str(threads // BLOCK), "--block",
               str(BLOCK), "--arg", f"n={threads}", "--buffer", f"in=float32:{threads}:ones"]
    timed(command)  # fills the IR cache
    return min(timed(command) for _ in range(3))


def oclgrind(threads: int) -> float | None:
    if shutil.which("oclgrind-kernel") is None:
        return None
    with tempfile.TemporaryDirectory() as folder:
        sim = Path(folder) / "reduction.sim"
        sim.write_text(f"{OPENCL}\nreduce_sum\n{threads} 1 1\n{BLOCK} 1 1\n"
                       f"<size={4 * threads} fill=1 float>\n<size={4 * threads // BLOCK} fill=0 float>\n"
                       f"<size=4 int>\n{threads}\n")
        return min(timed(["oclgrind-kernel", "--data-races", "--num-threads", "1", str(sim)]) for _ in range(2))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="4096,262144,1048576")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # internal: measure one size here
    args = parser.parse_args(argv)
    if args.one:
        print(json.dumps(measure(args.one)))
        return 0
    print(f"{'threads':>10} {'thread-instr':>14} {'seconds':>8} {'M thread-instr/s':>17} {'trace records':>14} "
          f"{'peak MB':>8}")
    for size in (int(s) for s in args.sizes.split(",")):
        output = subprocess.run([sys.executable, "-m", "benchmarks.throughput", "--one", str(size)], cwd=ROOT,
                                capture_output=True, text=True, env=dict(os.environ), check=True).stdout
        row = json.loads(output)
        print(f"{row['threads']:>10,} {row['thread_instructions']:>14,} {row['seconds']:>8.2f} "
              f"{row['thread_instructions'] / row['seconds'] / 1e6:>17.1f} {row['trace_records']:>14,} "
              f"{row['peak_mb']:>8.0f}")
    threads = 1024 * BLOCK
    ours = whole_process(threads)
    print(f"whole process, simulee check (races and barrier verdicts), 1,024 x 256 threads: {ours:.2f} s")
    theirs = oclgrind(threads)
    if theirs is None:
        print("oclgrind-kernel not found: no comparison (Debian package oclgrind)")
    else:
        print(f"oclgrind-kernel --data-races --num-threads 1, same launch: {theirs:.2f} s; "
              f"simulee is {theirs / ours:.1f}x faster")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
