"""Seconds a repository scan spends, per kernel and per file, and where the slowest
kernels spend theirs.

    python -m benchmarks.scan_speed REPO [--jobs 2] [-o DIR] [--results OUT.csv]
    python -m benchmarks.scan_speed --from DIR     (a scan's output folder, already made)

Scans REPO with `simulee scan` (no other flags: as a user would) into DIR (default
results/local/scan-NAME), then prints from its tables: the scan's wall time; per kernel
the median, 90th percentile and largest seconds; per file the seconds to compile it and
read its host code; and the ten slowest kernels with their time split into the input
search, the executions of the launches checked in full, and the rest (detection, the
model, loading). A summary row is appended to OUT.csv (default
results/local/scan_speed.csv).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COLUMNS = ("repository", "jobs", "wall_seconds", "files", "kernels", "kernel_median", "kernel_p90", "kernel_max",
           "kernels_over_30s", "compile_median", "compile_max", "machine")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.scan_speed", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("repository", nargs="?", type=Path)
    parser.add_argument("--from", dest="folder", type=Path, help="read this scan's output folder instead of scanning")
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("-o", "--output", type=Path, help="the scan's output folder")
    parser.add_argument("--results", type=Path, default=ROOT / "results" / "local" / "scan_speed.csv")
    args = parser.parse_args(argv)
    if (args.repository is None) == (args.folder is None):
        parser.error("give a repository to scan, or --from a scan's output folder")
    wall = None
    folder = args.folder
    if args.repository is not None:
        name = args.repository.resolve().name
        folder = args.output or ROOT / "results" / "local" / f"scan-{name}"
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "simulee", "scan", str(args.repository), "-o", str(folder),
                               "--jobs", str(args.jobs), "-q"], stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        if done.returncode not in (0, 1):
            raise SystemExit(f"error: the scan ended with status {done.returncode}")
    row = summarize(folder, wall, args.jobs)
    args.results.parent.mkdir(parents=True, exist_ok=True)
    new = not args.results.exists()
    with open(args.results, "a", newline="") as handle:
        writer = csv.DictWriter(handle, COLUMNS)
        if new:
            writer.writeheader()
        writer.writerow(row)
    print(f"row appended to {args.results}", file=sys.stderr)
    return 0


def summarize(folder: Path, wall: float | None, jobs: int) -> dict:
    """Print the scan's times and return its summary row."""
    records = [json.loads(line) for line in (folder / "scan.jsonl").read_text().splitlines() if line.strip()]
    files = [r for r in records if r["record"] == "file"]
    checks = [r["check"] for r in records if r["record"] == "kernel"]
    seconds = sorted(c["seconds"] for c in checks)
    compiled = sorted(r.get("seconds", 0.0) for r in files)
    name = Path(records[0]["root"]).name if records else folder.name
    row = {"repository": name, "jobs": jobs, "wall_seconds": round(wall, 1) if wall is not None else "",
           "files": len(files), "kernels": len(checks),
           "kernel_median": round(statistics.median(seconds), 3) if seconds else "",
           "kernel_p90": round(_percentile(seconds, 0.9), 3) if seconds else "",
           "kernel_max": round(seconds[-1], 3) if seconds else "",
           "kernels_over_30s": sum(1 for s in seconds if s > 30),
           "compile_median": round(statistics.median(compiled), 3) if compiled else "",
           "compile_max": round(compiled[-1], 3) if compiled else "", "machine": _machine()}
    print(f"{name}: {len(files)} files, {len(checks)} kernels" + (f", {wall:.1f} s wall with --jobs {jobs}"
                                                                  if wall is not None else ""))
    print(f"  seconds per kernel: median {row['kernel_median']}, p90 {row['kernel_p90']}, max {row['kernel_max']}, "
          f"{row['kernels_over_30s']} over 30 s, {sum(seconds):.1f} in all")
    print(f"  seconds per file (compile, host code): median {row['compile_median']}, max {row['compile_max']}, "
          f"{sum(compiled):.1f} in all")
    print("  slowest kernels:            seconds   search  launches  rest   launches checked")
    for check in sorted(checks, key=lambda c: -c["seconds"])[:10]:
        search = (check.get("search") or {}).get("seconds", 0.0)
        launches = sum(launch.get("seconds", 0.0) for launch in check["launches"])
        rest = check["seconds"] - search - launches
        print(f"  {_short(check['kernel'], 26):<26} {check['seconds']:8.2f} {search:8.2f} {launches:9.2f} "
              f"{rest:6.2f}   {len(check['launches'])} ({check['file']})")
    return row


def _percentile(values: list[float], fraction: float) -> float:
    return values[min(len(values) - 1, int(fraction * len(values)))]


def _short(text: str, width: int) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def _machine() -> str:
    cores = len(os.sched_getaffinity(0))
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), "unknown CPU") if Path("/proc/cpuinfo").exists() else "unknown CPU"
    return f"{cores} cores, {model}"


if __name__ == "__main__":
    raise SystemExit(main())
