"""Seconds and peak memory of a check of a launch too large to run whole, whose sampled
blocks read far apart in one buffer (benchmarks/workloads/wide_rows.cu: 4,096 blocks of
512 threads, rows of 128 floats, 1 GiB read).

    python -m benchmarks.sampled_launch [--blocks 4096] [--cols 128] [--runs 3]

Each run is a fresh `simulee check` process (IR and native code cached by the first); the
median seconds and the largest peak resident memory of the runs are printed.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

WORKLOAD = Path(__file__).resolve().parent / "workloads" / "wide_rows.cu"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.sampled_launch", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--blocks", type=int, default=4096)
    parser.add_argument("--cols", type=int, default=128)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    command = [sys.executable, "-m", "simulee", "check", str(WORKLOAD), "--grid", str(args.blocks), "--block", "512",
               "--arg", f"cols={args.cols}", "--no-search", "-q"]
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # compiles and caches
    seconds = []
    for _ in range(args.runs):
        start = time.perf_counter()
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        seconds.append(time.perf_counter() - start)
        if done.returncode not in (0, 1):
            raise SystemExit(f"error: the check ended with status {done.returncode}: {done.stderr.strip()}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(f"grid {args.blocks} x 512, rows of {args.cols}: median {statistics.median(seconds):.2f} s "
          f"over {args.runs} runs, peak {peak:.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
