"""Public verifier test suites run as a user would, with what each file states.

    python -m benchmarks.suites SUITE_DIR [--mode stated|search|both|prove] [--jobs N] [--timeout S]
                                [-o OUT.csv] [--check-options "OPTIONS"]

For every .cu file under SUITE_DIR, runs `simulee check FILE --format json` in a process
of its own:

- stated: the launch and options the file states. A GPUVerify-format file (line 1
  `//pass` or `//xfail:REASON`, line 2 `//--blockDim=B --gridDim=G [-DNAME=V ...]`) gets
  `--grid G --block B`, its defines, `--gpuverify-annotations`, and with `--warp-sync`
  `--warp-model lockstep` (else lanes of a warp run apart, as the verifiers and every current
  GPU take them: a warp-synchronous race is a bug). A file stating no launch is checked as in search. Any file
  using GPUVerify's annotations (`__requires`, `__invariant`, ...) gets
  `--gpuverify-annotations`, as its author would pass.
- search: no launch given (the input search), same defines, annotations and warp options.

- prove: `simulee prove FILE --format json` with the launch and options the file states
  (its kernels' verdicts: proved, race, unknown). A file expected to have a bug whose
  every kernel is proved is a wrong proof (there must be none).

--check-options adds options to every check (say "--population 20 --generations 20", to
measure what a bigger search finds).

What a file is expected to show: `//xfail:NOT_ALL_VERIFIED` (GPUVerify could not prove it
race- and divergence-free) and Faial's `racy-*` a bug; `//pass` and Faial's `drf-*` none;
files under a `Bugged*` or `MicroBenchmarks` folder (GPURepair's injected bugs) a bug;
other `xfail` reasons (a verifier's own failure) nothing known. A GPURepair file marked
`//pass` that is GPUVerify's file with another first line takes GPUVerify's verdict when
--reference names GPUVerify's suite.

Prints per mode: files, errors (grouped by reason), detections (a bug expected and an
error finding reported), misses (those with a warning that holds only for some contents of
the kernel's buffers said apart: the verifiers take every content as possible, Simulee
names the contents such a race needs), false alarms (no bug expected, an error finding
reported) and the seconds; for prove: files with a bug proved (wrong proofs), clean files
proved, and why the others are not, with the median seconds per kernel. Writes one row per
file and mode to OUT.csv (default: none).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import shlex
import signal
import statistics
import subprocess
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

COLUMNS = ("file", "mode", "expected", "outcome", "exit", "errors", "warnings", "contents", "types", "seconds",
           "reason", "verdicts", "kernel_seconds")
CONTENTS = "only for some contents of"  # a finding that needs what Simulee invented for buffers
ANNOTATIONS = re.compile(r"\b__(?:requires|ensures|invariant|global_invariant|uniform_int|uniform_bool|distinct_int|"
                         r"axiom|assert|global_assert|implies|enabled|read_implies|write_implies|no_read|no_write)\b")


@dataclass(frozen=True)
class Stated:
    """What a suite file says about itself."""

    grid: str | None
    block: str | None
    defines: tuple[str, ...]
    lockstep: bool
    gpuverify: bool
    expected: str  # bug, clean or unknown

    @classmethod
    def read(cls, path: Path, suite: Path, reference: dict[str, str]) -> Stated:
        text = path.read_text(errors="replace")
        lines = text.splitlines()
        head = lines[0].strip().lower() if lines else ""
        gpuverify = head.startswith(("//pass", "//xfail")) or bool(ANNOTATIONS.search(text))
        options = " ".join(line.lstrip("/ ") for line in lines[:3] if line.lstrip().startswith("//") and "--" in line)
        grid = re.search(r"--gridDim=(\S+)", options)
        block = re.search(r"--blockDim=(\S+)", options)
        return cls(_dims(grid[1]) if grid else None, _dims(block[1]) if block else None,
                   tuple(re.findall(r"-D(\S+)", options)), "--warp-sync" in options, gpuverify,
                   _expected(path, suite, head, reference))


def _dims(text: str) -> str:
    """GPUVerify's `64`, `[64,64]` or `{64,64,1}` as Simulee's `64,64,1`."""
    return text.strip("[]{}()")


def _expected(path: Path, suite: Path, head: str, reference: dict[str, str]) -> str:
    parts = path.relative_to(suite).parts
    if path.name.startswith("racy-"):
        return "bug"
    if path.name.startswith("drf-") or path.parent.name == "drf":
        return "clean"
    if any(part.startswith("Bugged") or part == "MicroBenchmarks" for part in parts):
        return "bug"
    if head.startswith("//xfail:not_all_verified"):
        return "bug"
    if head.startswith("//xfail"):
        return "unknown"
    body = "\n".join(path.read_text(errors="replace").splitlines()[1:])
    return reference.get(body, "clean" if head.startswith("//pass") else "unknown")


def reference_verdicts(suite: Path | None) -> dict[str, str]:
    """GPUVerify's verdict per file body (every line after the first)."""
    if suite is None:
        return {}
    verdicts = {}
    for path in suite.rglob("*.cu"):
        lines = path.read_text(errors="replace").splitlines()
        head = lines[0].strip().lower() if lines else ""
        verdict = "bug" if head.startswith("//xfail:not_all_verified") else "clean" if head.startswith("//pass") \
            else "unknown"
        verdicts["\n".join(lines[1:])] = verdict
    return verdicts


def command(path: Path, stated: Stated, mode: str, extra: tuple[str, ...] = ()) -> list[str]:
    verb = ["prove", str(path), "--format", "json"] if mode == "prove" else \
        ["check", str(path), "--format", "json", "-q"]
    arguments = [sys.executable, "-m", "simulee", *verb, *extra]
    arguments += [f"-D{define}" for define in stated.defines]
    if stated.gpuverify:
        arguments.append("--gpuverify-annotations")
    if stated.lockstep:  # the verifiers take a warp's lanes to run apart unless told --warp-sync
        arguments += ["--warp-model", "lockstep"]
    if mode in ("stated", "prove") and stated.grid:
        arguments += ["--grid", stated.grid]
    if mode in ("stated", "prove") and stated.block:
        arguments += ["--block", stated.block]
    return arguments


def run(path: Path, suite: Path, mode: str, timeout: float, reference: dict[str, str],
        extra: tuple[str, ...] = ()) -> dict:
    """One file in one mode (`extra`: options added to the check): its row."""
    stated = Stated.read(path, suite, reference)
    start = time.perf_counter()
    process = subprocess.Popen(command(path, stated, mode, extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return _row(path, suite, mode, stated, "timeout", -1, [], time.perf_counter() - start,
                    f"no result after {timeout:g} s")
    seconds = time.perf_counter() - start
    try:
        kernels = json.loads(out)["kernels"]
    except (json.JSONDecodeError, KeyError, TypeError):
        return _row(path, suite, mode, stated, "error", process.returncode, [], seconds,
                    (err.strip().splitlines() or ["no output"])[-1])
    if mode == "prove":
        return _proof_row(path, suite, stated, process.returncode, kernels, seconds)
    findings = [f for kernel in kernels for f in kernel["findings"]]
    failed = [kernel for kernel in kernels if kernel["status"] != "ok"]
    if failed and not any(f["severity"] == "error" for f in findings):
        return _row(path, suite, mode, stated, "error", process.returncode, findings, seconds,
                    f"{failed[0]['kernel']}: {failed[0]['error']}")
    return _row(path, suite, mode, stated, "ok", process.returncode, findings, seconds, "")


def _row(path, suite, mode, stated, outcome, status, findings, seconds, reason) -> dict:
    errors = [f for f in findings if f["severity"] == "error"]
    contents = [f for f in findings if f["severity"] != "error" and CONTENTS in f.get("message", "")]
    return {"file": path.relative_to(suite).as_posix(), "mode": mode, "expected": stated.expected,
            "outcome": outcome, "exit": status, "errors": len(errors), "warnings": len(findings) - len(errors),
            "contents": len(contents),
            "types": " ".join(sorted({f["type"] for f in errors})), "seconds": round(seconds, 2), "reason": reason,
            "verdicts": "", "kernel_seconds": ""}


def _proof_row(path, suite, stated, status, kernels, seconds) -> dict:
    """A file's row of `simulee prove`: the verdict of each kernel (proved, confirmed-race,
    possible-race, unknown), and why the first that is not proved is not."""
    verdicts = [("confirmed-" if kernel["confirmed"] else "possible-") + "race" if kernel["verdict"] == "race"
                else kernel["verdict"] for kernel in kernels]
    reasons = [kernel["reason"] or kernel["verdict"] for kernel in kernels if kernel["verdict"] != "proved"]
    return {"file": path.relative_to(suite).as_posix(), "mode": "prove", "expected": stated.expected,
            "outcome": "ok" if kernels else "error", "exit": status, "errors": 0, "warnings": 0, "contents": 0,
            "types": "", "seconds": round(seconds, 2), "reason": reasons[0] if reasons else "",
            "verdicts": " ".join(verdicts),
            "kernel_seconds": " ".join(str(kernel["seconds"]) for kernel in kernels)}


def _proof_summary(rows: list[dict]) -> list[str]:
    """Files with a bug proved (wrong proofs: none may be), clean files proved, the reasons
    of the others, and the seconds per kernel."""
    ran = [row for row in rows if row["outcome"] == "ok"]
    proved = lambda row: set(row["verdicts"].split()) == {"proved"}  # noqa: E731
    racy = lambda row: "confirmed-race" in row["verdicts"].split()  # noqa: E731
    bugs = [row for row in ran if row["expected"] == "bug"]
    clean = [row for row in ran if row["expected"] == "clean"]
    undecided = [row for row in clean if not proved(row) and not racy(row)]
    per_kernel = [float(s) for row in ran for s in row["kernel_seconds"].split()]
    lines = [f"prove: {len(rows)} files, {len(rows) - len(ran)} errors, "
             f"{sum(map(proved, bugs))}/{len(bugs)} files with a bug proved (wrong proofs), "
             f"{sum(map(racy, bugs))} of them a race confirmed; clean files: {sum(map(proved, clean))} proved, "
             f"{sum(map(racy, clean))} racy on a launch they do not state (a race confirmed), {len(undecided)} "
             f"undecided (proved: {sum(map(proved, clean))}/{len(clean) - sum(map(racy, clean))} of those not "
             f"shown racy); {sum(map(proved, (r for r in ran if r['expected'] == 'unknown')))} of "
             f"{sum(1 for r in ran if r['expected'] == 'unknown')} unknown proved; seconds per kernel median "
             f"{statistics.median(per_kernel) if per_kernel else 0:.2f}, max {max(per_kernel, default=0):.2f}"]
    for row in bugs:
        if proved(row):
            lines.append(f"  WRONG PROOF: {row['file']}")
    for reason, count in Counter(_cause(row["reason"]) for row in undecided).most_common():
        lines.append(f"  {count:4d} clean, undecided: {reason}")
    for row in clean:
        if racy(row):
            lines.append(f"  clean, a race confirmed: {row['file']}")
    for row in rows:
        if row["outcome"] != "ok":
            lines.append(f"       {row['file']}: {row['reason']}")
    return lines


def summary(rows: list[dict]) -> str:
    """Counts per mode: files, errors by reason, detections, misses, false alarms."""
    lines = []
    for mode in dict.fromkeys(row["mode"] for row in rows):
        chosen = [row for row in rows if row["mode"] == mode]
        if mode == "prove":
            lines += _proof_summary(chosen)
            continue
        failed = [row for row in chosen if row["outcome"] != "ok"]
        ran = [row for row in chosen if row["outcome"] == "ok"]
        found = lambda row: row["errors"] > 0  # noqa: E731
        bugs = [row for row in ran if row["expected"] == "bug"]
        clean = [row for row in ran if row["expected"] == "clean"]
        seconds = [row["seconds"] for row in chosen]
        conditional = [row for row in bugs if not found(row) and int(row.get("contents") or 0)]
        lines.append(f"{mode}: {len(chosen)} files, {len(failed)} errors, "
                     f"{sum(map(found, bugs))}/{len(bugs)} bugs detected "
                     f"(+{len(conditional)} as warnings for some buffer contents), "
                     f"{sum(map(found, clean))}/{len(clean)} false alarms on clean files, "
                     f"{sum(map(found, (r for r in ran if r['expected'] == 'unknown')))} with findings of "
                     f"{sum(1 for r in ran if r['expected'] == 'unknown')} unknown; seconds median "
                     f"{statistics.median(seconds):.2f}, max {max(seconds):.2f}")
        for reason, count in Counter(_cause(row["reason"]) for row in failed).most_common():
            lines.append(f"  {count:4d} error: {reason}")
        for row in failed:
            lines.append(f"       {row['file']}: {row['reason']}")
        for row in bugs:
            if not found(row):
                lines.append(f"  missed: {row['file']}" + (" (a warning: for some buffer contents)"
                                                          if row in conditional else ""))
        for row in clean:
            if found(row):
                lines.append(f"  false alarm?: {row['file']} ({row['types']})")
    return "\n".join(lines)


def _cause(reason: str) -> str:
    reason = re.sub(r"^\S+:\d+:\d+: ", "", reason)
    return re.sub(r"'[^']*'", "'…'", reason)[:120]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("suite", type=Path)
    parser.add_argument("--mode", choices=("stated", "search", "both", "prove"), default="both")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per file and mode, default 300")
    parser.add_argument("--reference", type=Path, help="GPUVerify's testsuite/CUDA, for GPURepair's copies of it")
    parser.add_argument("-o", "--output", type=Path, help="write one row per file and mode here (CSV)")
    parser.add_argument("--check-options", default="", metavar="OPTIONS",
                        help="options added to every `simulee check`, in one quoted argument")
    args = parser.parse_args(argv)
    extra = tuple(shlex.split(args.check_options))
    files = sorted(args.suite.rglob("*.cu"))
    if not files:
        print(f"benchmarks.suites: error: no .cu files under {args.suite}", file=sys.stderr)
        return 2
    reference = reference_verdicts(args.reference)
    modes = ("stated", "search") if args.mode == "both" else (args.mode,)
    jobs = [(path, mode) for mode in modes for path in files]
    with ThreadPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(lambda job: run(job[0], args.suite, job[1], args.timeout, reference, extra), jobs))
    if args.output:
        with open(args.output, "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
    print(summary(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
