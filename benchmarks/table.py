"""The Simulee paper's bug tables, measured on our reconstructions (benchmarks/kernels).

    python -m benchmarks.table [FILE ...] [-o DIR | --update-results] [--jobs N]

Runs `simulee check FILE --format json` (no launch given: the input search picks them) on
every reconstruction, or on the FILEs given, and compares the findings with each file's
header (`// expect:` lines for the buggy kernel, `// fixed:` for its twin). One row per
kernel and bug type:

    project, kernel, bug_type, expected_bugs, detected_bugs, false_findings, seconds

`detected_bugs` counts expected findings reported (same kernel, type and line, and the
other line when the header names one); `false_findings` counts findings of that type on
the kernel that the header does not expect plus every one on its fixed twin; `seconds` is
the check of the buggy kernel and its twin, search included. Writes tableN.csv per paper
table to the output folder (results/local/, or with --update-results the committed
results/) and prints Markdown tables with totals beside the paper's own.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "benchmarks" / "kernels"
COLUMNS = ["project", "kernel", "bug_type", "expected_bugs", "detected_bugs", "false_findings", "seconds"]
# the paper's totals (ICSE 2020, Tables 2 and 3): detected, missed, false findings
PAPER = {"2": "21 ✓, 3 ✗, 0 F", "3": "24 ✓, 0 ✗ (at most 3 F over both tables)"}
TITLES = {"2": "Table 2: known bugs", "3": "Table 3: previously unknown bugs"}


@dataclass(frozen=True)
class Expected:
    kernel: str
    type: str
    line: int
    other: int | None  # the race's other line or the barrier the others waited at, if named


@dataclass
class Reconstruction:
    """A benchmark file's header: the paper table it belongs to and what a check must find."""

    path: Path
    project: str
    table: str
    expected: list[Expected]
    fixed: list[str]

    @classmethod
    def read(cls, path: Path) -> Reconstruction:
        text = path.read_text()
        origin = re.search(r"^// project: (.+) \(table (\d+)\)$", text, re.M)
        if origin is None:
            fail(f"{path}: no '// project: NAME (table N)' header")
        expected = [Expected(kernel, kind, int(line), int(other) if other else None)
                    for kernel, kind, line, other
                                           in re.findall(r"^// expect: (\S+) (\S+) (\d+)(?:/(\d+))?$", text, re.M)]
        return cls(path, origin[1], origin[2], expected, re.findall(r"^// fixed: (\S+)$", text, re.M))


def check(path: Path) -> dict:
    """`simulee check PATH` as JSON: {kernel name: kernel record}; exits on bad input."""
    done = subprocess.run([sys.executable, "-m", "simulee", "check", str(path), "-q", "--format", "json"],
                          capture_output=True, text=True, cwd=ROOT)
    if done.returncode not in (0, 1):
        fail(f"{path}: simulee check failed: {done.stderr.strip()}")
    return {kernel["kernel"]: kernel for kernel in json.loads(done.stdout)["kernels"]}


def rows(reconstruction: Reconstruction, kernels: dict) -> list[dict]:
    """The table rows of one file: per buggy kernel, one row per bug type expected or found."""
    out = []
    for kernel in dict.fromkeys(e.kernel for e in reconstruction.expected):
        twin = f"{kernel}_fixed" if f"{kernel}_fixed" in reconstruction.fixed else None
        found = kernels.get(kernel, {}).get("findings", [])
        on_twin = kernels.get(twin, {}).get("findings", []) if twin else []
        expected = [e for e in reconstruction.expected if e.kernel == kernel]
        seconds = sum(kernels.get(name, {}).get("seconds", 0.0) for name in (kernel, twin) if name)
        for kind in dict.fromkeys([e.type for e in expected] + [f["type"] for f in found + on_twin]):
            wanted = [e for e in expected if e.type == kind]
            unmatched = [f for f in found if f["type"] == kind]
            detected = 0
            for want in wanted:
                hit = next((f for f in unmatched if matches(want, f)), None)
                if hit is not None:
                    unmatched.remove(hit)
                    detected += 1
            out.append({"project": reconstruction.project, "kernel": kernel, "bug_type": kind,
                        "expected_bugs": len(wanted), "detected_bugs": detected,
                        "false_findings": len(unmatched) + sum(f["type"] == kind for f in on_twin),
                        "seconds": round(seconds, 2)})
    return out


def fail(message: str):
    """Bad input: one line on stderr, exit status 2."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)


def matches(want: Expected, finding: dict) -> bool:
    if (finding["line"], finding["type"]) != (want.line, want.type):
        return False
    return want.other is None or (finding.get("second") or {}).get("line") == want.other


def totals(table: list[dict]) -> tuple[int, int, int]:
    """(detected, missed, false findings) over a table's rows."""
    detected = sum(r["detected_bugs"] for r in table)
    return detected, sum(r["expected_bugs"] for r in table) - detected, sum(r["false_findings"] for r in table)


def markdown(number: str, table: list[dict]) -> str:
    lines = [f"### {TITLES.get(number, f'Table {number}')}", "",
             "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(str(row[c]) for c in COLUMNS) + " |" for row in table]
    detected, missed, false = totals(table)
    seconds = sum({r["kernel"]: r["seconds"] for r in table}.values())
    lines += [f"| **total** | {len({r['kernel'] for r in table})} kernels | | "
              f"{sum(r['expected_bugs'] for r in table)} | {detected} | {false} | {seconds:.1f} |", "",
              f"Simulee (this tool): {detected} ✓, {missed} ✗, {false} F — the paper's Simulee: "
              f"{PAPER.get(number, 'not reported')}", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.table", description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="reconstructions to check (default: all)")
    parser.add_argument("-o", "--output", type=Path, help="folder for tableN.csv (default results/local/)")
    parser.add_argument("--update-results", action="store_true",
                        help="write the committed results/table2.csv and table3.csv (run on all the kernels)")
    parser.add_argument("--jobs", type=int, default=2, help="checks run at once (default 2)")
    args = parser.parse_args(argv)
    if args.update_results and (args.files or args.output):
        fail("--update-results writes results/ from every reconstruction: give neither FILEs nor -o")
    output = args.output or ROOT / "results" / ("" if args.update_results else "local")
    files = args.files or sorted(KERNELS.rglob("*.cu"))
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        fail(f"no such file: {missing[0]}")
    reconstructions = [Reconstruction.read(f.resolve()) for f in files]
    from tqdm import tqdm

    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        results = list(tqdm(pool.map(check, [r.path for r in reconstructions]), total=len(files),
                            desc="checking", unit="file", disable=None, leave=False))
    tables: dict[str, list[dict]] = {}
    for reconstruction, kernels in zip(reconstructions, results):
        tables.setdefault(reconstruction.table, []).extend(rows(reconstruction, kernels))
    output.mkdir(parents=True, exist_ok=True)
    for number, table in sorted(tables.items()):
        with open(output / f"table{number}.csv", "w", newline="") as handle:
            writer = csv.DictWriter(handle, COLUMNS)
            writer.writeheader()
            writer.writerows(table)
        print(markdown(number, table))
    print(f"tables in {output}/", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
