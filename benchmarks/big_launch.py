"""Seconds and peak memory of `simulee exec` on a launch far larger than a trace holds
(tests/programs/wide_grid.cu: every block sums its elements in shared memory; with
LAST_BLOCK_RACES the last block races in shared memory and with block 0 in global memory).
Every block is checked, a part of the trace at a time (detect.parts).

    python -m benchmarks.big_launch [--blocks 65535] [--threads 128] [--part N]

The program is built once first (its build is kept); the run printed is the second.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROGRAM = Path(__file__).resolve().parent.parent / "tests" / "programs" / "wide_grid.cu"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.big_launch", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--blocks", type=int, default=65535)
    parser.add_argument("--threads", type=int, default=128, help="threads a block (a power of two, at most 1024)")
    parser.add_argument("--part", type=int, default=0, help="accesses a part of the trace holds (SIMULEE_TRACE_PART)")
    args = parser.parse_args(argv)
    environment = dict(os.environ, **({"SIMULEE_TRACE_PART": str(args.part)} if args.part else {}))
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.json"
        command = [sys.executable, "-m", "simulee", "exec", str(PROGRAM), "-D", "LAST_BLOCK_RACES", "-D",
                   f"THREADS={args.threads}", "-q", "--format", "json", "-o", str(report), "--", str(args.blocks)]
        subprocess.run([*command[:-1], "1"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=environment)
        start = time.perf_counter()
        done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=environment)
        seconds = time.perf_counter() - start
        if done.returncode not in (0, 1):
            raise SystemExit(f"error: simulee exec ended with status {done.returncode}: {done.stderr.strip()}")
        (kernel,) = json.loads(report.read_text())["kernels"]
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    found = sorted(f"{f['type']} ({f['space']}, {f['scope']}) lines {f['first']['line']}/{f['second']['line']}"
                   for f in kernel["findings"])
    print(f"{args.blocks:,} blocks of {args.threads} threads: {seconds:.1f} s, peak {peak:,.0f} MB, "
          f"judged in {kernel['launches'][0].get('parts', 1)} parts, {len(found)} errors (3 expected)")
    for line in found:
        print(f"  {line}")
    print(f"  notes: {kernel.get('notes') or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
