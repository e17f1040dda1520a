"""What the benchmarks of random kernels (soundness, differential) share: their command line
(--kernels, --batch, --seed, --keep) and the loop that makes and runs the kernels a file at a
time, with progress on stderr."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path


def arguments(name: str, description: str, batch: int, argv: list[str] | None):
    """The parsed command line of benchmark `name`; None (after a one-line error) where a
    count is below 1."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kernels", type=int, default=1000)
    parser.add_argument("--batch", type=int, default=batch, help=f"kernels compiled together in one file "
                                                                  f"(default {batch})")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, help="write the generated files to this folder")
    args = parser.parse_args(argv)
    if args.kernels < 1 or args.batch < 1:
        print(f"benchmarks.{name}: error: --kernels and --batch must be at least 1", file=sys.stderr)
        return None
    return args


def in_batches(args, run, verb: str) -> list:
    """run(number, kernel numbers, folder) for each file's kernels, in --keep's folder or a
    scratch one: every result, in order."""
    start, results = time.perf_counter(), []
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        for number, first in enumerate(range(0, args.kernels, args.batch)):
            results += run(number, range(first, min(first + args.batch, args.kernels)), folder)
            print(f"{len(results)} kernels {verb} ({time.perf_counter() - start:.0f} s)", file=sys.stderr)
    return results
