"""Measure a scan against judgements of its findings, read one by one against the host code.

    simulee scan REPO -o OUT
    python benchmarks/judged.py OUT/bugs.csv benchmarks/judgements/REPO.csv

A judgement file (benchmarks/judgements/*.csv: repo, file, line, kernel, type, severity,
judgement, reason) holds one row per root cause a scan reported: `true` (a bug for the
launches and data the program makes), `benign` (real, harmless by design) or `false` (needs
a launch, argument or content the program never makes), and the warnings judged on the way.
Printed: the scan's error root causes by judgement, those not judged yet (read them and add
rows), the share of false errors (goal: under one in ten), and the root causes judged true
that the scan no longer reports, or reports as a warning where the judged scan made it an
error (a detection lost or demoted)."""

import csv
import sys
from collections import Counter
from pathlib import Path


def root_causes(scan: Path) -> dict[tuple, str]:
    """(file name, line, type) -> severity of each root cause in a scan's CSV report (an
    error when any of its findings is)."""
    found: dict[tuple, str] = {}
    with scan.open(newline="") as handle:
        for row in csv.DictReader(handle):
            key = (Path(row["file"]).name, int(row["line"]), row["type"])
            found[key] = "error" if row["severity"] == "error" or found.get(key) == "error" else row["severity"]
    return found


def judgements(path: Path) -> dict[tuple, dict]:
    with path.open(newline="") as handle:
        return {(Path(row["file"]).name, int(row["line"]), row["type"]): row for row in csv.DictReader(handle)}


def main(scan: str, judged: str) -> int:
    found, known = root_causes(Path(scan)), judgements(Path(judged))
    errors = [key for key, severity in found.items() if severity == "error"]
    verdicts = Counter(known[key]["judgement"] if key in known else "unjudged" for key in errors)
    print(f"{Path(scan).name}: {len(errors)} error root causes: " +
          ", ".join(f"{count} {verdict}" for verdict, count in sorted(verdicts.items())))
    judged_errors = len(errors) - verdicts["unjudged"]
    if judged_errors:
        print(f"false errors: {verdicts['false']}/{judged_errors} = {verdicts['false'] / judged_errors:.0%}")
    for key in errors:
        if key not in known:
            print(f"  unjudged: {key[0]}:{key[1]} {key[2]}")
    lost = [key for key, row in known.items() if row["judgement"] == "true" and
            (key not in found or row["severity"] == "error" and found[key] != "error")]
    for key in lost:
        print(f"  judged true, now {found.get(key, 'not reported')}: {key[0]}:{key[1]} {key[2]}")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python benchmarks/judged.py OUT/bugs.csv JUDGEMENTS.csv")
    sys.exit(main(sys.argv[1], sys.argv[2]))
