"""How many CUDA files of a suite Simulee's front end compiles and lists kernels for.

    python -m benchmarks.compile_rate SUITE_DIR [--gpuverify-annotations] [--jobs N]

Compiles every .cu file under SUITE_DIR (with the -D options a GPUVerify test states on
its second line), then prints the compile rate, the number of kernels found, the time per
file, and the failures grouped by their first compiler error.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path


def suite_defines(path: Path) -> tuple[str, ...]:
    """The -D options of a GPUVerify-style test header (`//--blockDim=... -DWIDTH=256`)."""
    lines = path.read_text(errors="replace").splitlines()[:3]
    return tuple(re.findall(r"-D(\S+)", " ".join(line for line in lines if line.startswith("//"))))


def compile_one(job: tuple[str, bool]) -> tuple[str, int | None, str | None, float]:
    """(file, kernel count or None, first error or None, seconds)."""
    from interpreter.loader import LoadError, load_module
    from simulee.errors import SimuleeError
    from simulee.frontend import CompileOptions, load_ir

    file, annotations = job
    path = Path(file)
    start = time.perf_counter()
    try:
        options = CompileOptions(defines=suite_defines(path), gpuverify_annotations=annotations)
        program = load_module(load_ir(path, options), file)
        return file, len(program.kernels), None, time.perf_counter() - start
    except (SimuleeError, LoadError) as error:
        return file, None, str(error), time.perf_counter() - start


def cause(error: str) -> str:
    """An error message without its location and quoted names, to group similar ones."""
    message = re.sub(r"^.*?(?:fatal )?error: ", "", error)
    message = re.sub(r"\(and \d+ more errors?\)", "", message)
    return re.sub(r"'[^']*'", "'…'", message).strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("suite", type=Path)
    parser.add_argument("--gpuverify-annotations", action="store_true")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    files = sorted(str(p) for p in args.suite.rglob("*.cu"))
    if not files:
        print(f"no .cu files under {args.suite}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(compile_one, [(f, args.gpuverify_annotations) for f in files]))
    wall = time.perf_counter() - started
    compiled = [r for r in results if r[1] is not None]
    failed = [r for r in results if r[1] is None]
    no_kernels = [r for r in compiled if r[1] == 0]
    seconds = [r[3] for r in results]
    print(f"files: {len(files)}")
    print(f"compiled: {len(compiled)} ({100 * len(compiled) / len(files):.1f} %), kernels found: "
          f"{sum(r[1] for r in compiled)}, files without kernels: {len(no_kernels)}")
    print(f"seconds per file: median {statistics.median(seconds):.2f}, max {max(seconds):.2f}; "
          f"wall {wall:.1f} s with {args.jobs} jobs")
    if failed:
        print("failures by cause:")
        for message, count in Counter(cause(r[2]) for r in failed).most_common():
            print(f"  {count:3d}  {message}")
        for file, _, error, _ in failed:
            print(f"    {Path(file).relative_to(args.suite)}: {error}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
