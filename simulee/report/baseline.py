"""Baselines: the root causes of an earlier report, so that a report can say which of its
findings are new, which unchanged and which are gone (SARIF's baselineState). Root
causes are matched by fingerprint (rootcause.fingerprint: rule, file and the text of the
lines involved), which survives edits that only move those lines."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from simulee.errors import SimuleeError

REPORT = "report.sarif"  # what a scan's output folder holds to compare with
SARIF_FINGERPRINT = "simulee/rootCause/v1"  # the key of a result's root cause among its SARIF fingerprints


@dataclass
class Entry:
    """A root cause of the baseline: its fingerprint and where and what it was."""

    fingerprint: str
    rule: str
    level: str
    message: str
    file: str
    line: int

    def to_json(self) -> dict:
        return {"root_cause": self.fingerprint, "type": self.rule, "severity": self.level, "file": self.file,
                "line": self.line, "message": self.message, "baseline": "absent"}


@dataclass
class Baseline:
    path: Path
    entries: dict[str, Entry]  # by fingerprint


def load(path: Path) -> Baseline:
    """The baseline in `path`: a SARIF report of Simulee's (a scan folder stands for its
    report.sarif) or a JSON report (`check --format json`). One-line errors for anything
    else."""
    if path.is_dir():
        path = path / REPORT
    try:
        document = json.loads(path.read_text())
    except FileNotFoundError:
        raise SimuleeError(f"--baseline {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise SimuleeError(f"--baseline {path}: cannot read it ({error})") from None
    except json.JSONDecodeError as error:
        raise SimuleeError(f"--baseline {path}: not JSON (line {error.lineno}: {error.msg})") from None
    if isinstance(document, dict) and "runs" in document:
        entries = _from_sarif(document, path)
    elif isinstance(document, dict) and "root_causes" in document:
        entries = [_from_json(cause, path) for cause in document["root_causes"]]
    else:
        raise SimuleeError(f"--baseline {path}: neither a SARIF report nor a JSON report of Simulee's")
    return Baseline(path, {entry.fingerprint: entry for entry in entries})


def _from_sarif(document: dict, path: Path) -> list[Entry]:
    entries, unmarked = [], 0
    try:
        for run in document["runs"]:
            for result in run.get("results", []):
                if result.get("baselineState") == "absent":  # gone already then
                    continue
                key = (result.get("fingerprints") or {}).get(SARIF_FINGERPRINT)
                if key is None:
                    unmarked += 1
                    continue
                location = ((result.get("locations") or [{}])[0].get("physicalLocation") or {})
                entries.append(Entry(key, result["ruleId"], result.get("level", "warning"),
                                     result["message"]["text"], location.get("artifactLocation", {}).get("uri", ""),
                                     location.get("region", {}).get("startLine", 0)))
    except (KeyError, TypeError, AttributeError) as error:
        raise SimuleeError(f"--baseline {path}: not a valid SARIF report (no {error})") from None
    if unmarked and not entries:
        raise SimuleeError(f"--baseline {path}: its results have no Simulee root-cause fingerprints (written by "
                           f"another tool or an older Simulee: make the baseline again)")
    return entries


def _from_json(cause: dict, path: Path) -> Entry:
    try:
        return Entry(cause["root_cause"], cause["type"], cause["severity"], cause["message"], cause.get("file") or "",
                     cause.get("line") or 0)
    except (KeyError, TypeError) as error:
        raise SimuleeError(f"--baseline {path}: a root cause without {error}") from None
