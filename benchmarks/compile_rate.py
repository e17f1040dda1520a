"""How many CUDA files of repositories (or suites) Simulee's front end compiles and lists
kernels for, as `simulee scan` compiles them.

    python -m benchmarks.compile_rate REPO [REPO ...] [-D NAME[=VALUE]] [--gpuverify-annotations] [--jobs N]

Each REPO is compiled as a scan of it would be (its include folders, a compile_commands.json
it holds, .cu files included by others checked through their includer, missing headers
stood in for and failing host code left out), with the -D options given (what a build
defines, as a scan is given them). A file of a GPUVerify-style suite is given the -D
options its second line states. Prints, per repository and in all, the files
compiled cleanly, degraded, included, and failed, the kernels found, the time per file, and
the failures grouped by cause.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path


def suite_defines(path: Path) -> tuple[str, ...]:
    """The -D options of a GPUVerify-style test header (`//--blockDim=... -DWIDTH=256`)."""
    lines = path.read_text(errors="replace").splitlines()[:3]
    return tuple(re.findall(r"-D(\S+)", " ".join(line for line in lines if line.startswith("//"))))


def list_one(task) -> tuple[str, str, int, str, float]:
    """(file, status, kernels, error, seconds) of one scan task."""
    from simulee.scanner.tasks import list_kernels

    start = time.perf_counter()
    record = list_kernels(task)
    return task.file, record["status"], len(record["kernels"]), record["error"], time.perf_counter() - start


def tasks_of(repository: Path, annotations: bool, defines: tuple[str, ...] = ()):
    from simulee.frontend.compiler import CompileOptions
    from simulee.scanner.repository import ScanOptions, file_tasks

    options = ScanOptions(repository, Path("/nonexistent"), repository.name,
                          CompileOptions(gpuverify_annotations=annotations, defines=defines, timeout=120))
    tasks = file_tasks(options)
    return [replace(task, options=replace(task.options, defines=task.options.defines
                                          + suite_defines(Path(task.root, task.file)))) for task in tasks]


def main(argv: list[str] | None = None) -> int:
    from simulee.errors import SimuleeError
    from simulee.scanner.repository import failure_cause

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("repositories", type=Path, nargs="+", metavar="REPO")
    parser.add_argument("-D", dest="defines", action="append", default=[], metavar="NAME[=VALUE]")
    parser.add_argument("--gpuverify-annotations", action="store_true")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--list", action="store_true", help="also print every failing and degraded file")
    args = parser.parse_args(argv)
    totals: Counter = Counter()
    all_failures: Counter = Counter()
    for repository in args.repositories:
        try:
            tasks = tasks_of(repository, args.gpuverify_annotations, tuple(args.defines))
        except SimuleeError as error:
            print(f"{repository}: {error}", file=sys.stderr)
            return 2
        started = time.perf_counter()
        with ProcessPoolExecutor(args.jobs) as pool:
            results = list(pool.map(list_one, tasks))
        wall = time.perf_counter() - started
        statuses = Counter(status for _, status, _, _, _ in results)
        good = statuses["ok"] + statuses["degraded"] + statuses["included"]
        kernels = sum(count for _, _, count, _, _ in results)
        seconds = [s for *_, s in results]
        failures = Counter(failure_cause(error) for _, status, _, error, _ in results
                           if status not in ("ok", "degraded", "included"))
        print(f"== {repository}")
        print(f"files {len(results)}: compiled {good} ({100 * good / len(results):.1f} %) = {statuses['ok']} clean + "
              f"{statuses['degraded']} degraded + {statuses['included']} included by another; failed "
              f"{len(results) - good}; kernels {kernels}")
        print(f"seconds per file: median {statistics.median(seconds):.2f}, max {max(seconds):.2f}; "
              f"wall {wall:.1f} s with {args.jobs} jobs")
        for message, count in failures.most_common():
            print(f"  {count:3d}  {message}")
        if args.list:
            for file, status, _, error, _ in results:
                if status not in ("ok", "included"):
                    print(f"    {status}: {file}: {error}")
        totals.update({"files": len(results), "compiled": good, "kernels": kernels, **statuses})
        all_failures.update(failures)
    if len(args.repositories) > 1:
        print(f"== all: files {totals['files']}, compiled {totals['compiled']} "
              f"({100 * totals['compiled'] / max(1, totals['files']):.1f} %) = {totals['ok']} clean + "
              f"{totals['degraded']} degraded + {totals['included']} included; kernels {totals['kernels']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
