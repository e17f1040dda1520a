"""Findings as text (like a compiler), JSON, a flat CSV bug table, or SARIF 2.1.0."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

from simulee import __version__, detect
from simulee.findings import ERROR, WARNING, Finding, display, source_lines, synthetic, where

CSV_COLUMNS = ("project", "file", "kernel", "type", "severity", "space", "hazard", "scope", "benign", "line",
               "column", "first_line", "second_line", "grid", "block", "args", "fill", "origin", "instances",
               "addresses", "seconds", "message", "root_cause", *detect.columns())
# a progress bar (tqdm) while its total still grows: no time left, it would mean nothing
WITHOUT_TIME_LEFT = "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


# ---------------------------------------------------------------------------- text


def text(checks, show_barriers: bool = False, seconds: float | None = None, verbose: bool = False,
         uncompiled: int = 0) -> str:
    """The report of `checks` like a compiler's output, with a summary line that counts
    the `uncompiled` files too (their errors are reported where they happen). A finding
    of a root cause already shown (the same bug in another kernel or template instance)
    is one line that says where it was shown."""
    from simulee.rootcause import fingerprint

    out = io.StringIO()
    sources: dict[str, list[str]] = {}
    shown: dict[str, str] = {}  # root cause: the kernel whose finding showed it
    for check in checks:
        if check.status != "ok":
            out.write(f"{display(check.file)}:{check.line}: error: {check.kernel}: {check.error}\n")
        if verbose and check.search:
            _text_search(out, check)
        for note in check.notes:
            out.write(f"{display(check.file)}:{check.line}: note: {check.kernel}: {note}\n")
        for assumption in check.assumptions:
            reason = f" (beyond it, line {assumption['line']} indexes past a fixed-size array)" \
                if assumption["line"] else ""
            out.write(f"{display(check.file)}:{check.line}: note: {check.kernel} assumes {assumption['bound']}"
                      f"{reason}; launches beyond it were not checked\n")
        for finding in check.findings:
            cause = fingerprint(finding.to_json())
            if cause in shown:
                first = finding.first
                at = f"{display(first.file)}:{first.line}:{first.column}" if first and first.file else finding.kernel
                out.write(f"{at}: {finding.severity}: {finding.message} [in {finding.kernel}: the same bug as in "
                          f"{shown[cause]}, above; {finding.instances} instances]\n")
                continue
            shown[cause] = finding.kernel
            _text_finding(out, finding, sources)
        if show_barriers and check.verdicts:
            out.write(f"barriers of {check.kernel}:\n")
            for verdict in check.verdicts:
                at = f"{display(verdict.place.file)}:{verdict.place.line}:{verdict.place.column}"
                note = f" (removing it: {_race_between(verdict.race, verdict.place)})" if verdict.race else ""
                flag = ", reached divergently" if verdict.divergent else ""
                flag += f" ({verdict.reason})" if verdict.reason and verdict.passes else ""
                times = "time" if verdict.passes == 1 else "times"
                out.write(f"  {at}: {verdict.verdict}, passed {verdict.passes} {times}{flag}{note}\n")
    errors = sum(1 for c in checks for f in c.findings if f.severity == ERROR)
    warnings = sum(1 for c in checks for f in c.findings if f.severity == WARNING)
    failed = sum(1 for c in checks if c.status != "ok")
    files = len({c.file for c in checks})
    summary = (f"simulee: checked {len(checks)} kernel{'s' if len(checks) != 1 else ''} in {files} "
               f"file{'s' if files != 1 else ''}: {errors} error{'s' if errors != 1 else ''}, "
               f"{warnings} warning{'s' if warnings != 1 else ''}")
    suppressed = sum(len(c.suppressed) for c in checks)
    if len(shown) < errors + warnings:
        summary += f" from {len(shown)} root cause{'s' if len(shown) != 1 else ''}"
    if suppressed:
        summary += f", {suppressed} suppressed"
    if failed:
        summary += f", {failed} not checked"
    if uncompiled:
        summary += f"; {uncompiled} file{'s' if uncompiled != 1 else ''} not compiled"
    if seconds is not None:
        summary += f" ({seconds:.2f} s)"
    out.write(summary + "\n")
    return out.getvalue()


def _text_search(out, check) -> None:
    """The search's generations and the launches checked in full."""
    search = check.search
    varied = ", ".join(search["genes"])
    out.write(f"{check.kernel}: searched {varied} (seed {search['seed']}): {search['evaluations']} launches in "
              f"{search['generations']} generations, {search['seconds']:.2f} s, stopped: {search['stopped']}\n")
    for record in search["history"]:
        best = record["best"]
        fitness = f"F={best['F']:.4f} R={best['R']}" if best else "no valid launch"
        out.write(f"  generation {record['generation']:2}: {fitness}  {_launch_text(record['launch'])}\n")
    for launch in check.launches:
        fitness = f"F={launch['fitness']['F']:.4f} R={launch['fitness']['R']}" if launch["fitness"] else \
            "default launch"
        out.write(f"  checked: {_launch_text(launch)} ({fitness}; {launch['status']})\n")


def _launch_text(launch: dict) -> str:
    arguments = " ".join(f"{k}={v}" for k, v in launch["args"].items())
    return (f"grid ({','.join(map(str, launch['grid']))}) block ({','.join(map(str, launch['block']))})"
            + (f" {arguments}" if arguments else "") + _fill_text(launch))


def _fill_text(launch: dict) -> str:
    """What the launch's buffers held, unless zeros (`--fill MODE --seed S` reproduces it)."""
    fill = launch.get("fill", "zeros")
    return f" buffers {fill} (seed {launch.get('seed', 0)})" if fill != "zeros" else ""


def _origin_text(launch: dict) -> str:
    """Where a finding's launch comes from; a synthetic one says so."""
    if synthetic(launch):
        return "synthetic launch: no launch site or user gives it"
    return {"given": "launch as given"}.get(launch.get("origin"), launch.get("origin", ""))


def findings_text(findings: list[Finding]) -> str:
    """Findings compiler-style, without a summary."""
    out = io.StringIO()
    sources: dict[str, list[str]] = {}
    for finding in findings:
        _text_finding(out, finding, sources)
    return out.getvalue()


def _race_between(race: Finding, barrier) -> str:
    return (f"data race ({race.hazard}, {race.space}, {race.scope}) between the {race.first.access} at "
            f"{where(race.first, barrier)} and the {race.second.access} at {where(race.second, barrier)}")


def _text_finding(out, finding: Finding, sources: dict[str, list[str]]) -> None:
    first = finding.first
    at = f"{display(first.file)}:{first.line}:{first.column}" if first and first.file else finding.kernel
    out.write(f"{at}: {finding.severity}: {finding.message}\n")
    if first and first.file and first.line:
        lines = sources.setdefault(first.file, source_lines(first.file))
        if 0 < first.line <= len(lines):
            source = lines[first.line - 1].rstrip("\n").expandtabs(4)
            out.write(f"{first.line:6} | {source}\n")
            out.write(f"{'':6} | {' ' * max(first.column - 1, 0)}^\n")
    witnesses = []
    for side in (finding.first, finding.second):
        if side is not None and side.thread is not None:
            witnesses.append(f"block ({','.join(map(str, side.block))}) thread ({','.join(map(str, side.thread))})")
    launch = finding.launch
    details = []
    if witnesses:
        details.append("witness " + " and ".join(witnesses))
    if finding.instances > 1:
        details.append(f"{finding.instances} instances" + (f" at {finding.addresses} addresses"
                                                           if finding.addresses > 1 else ""))
    if launch:
        details.append("launch " + _launch_text(launch) + f" ({_origin_text(launch)})")
    if details:
        out.write(f"{'':8}{'; '.join(details)}\n")


# ---------------------------------------------------------------------------- JSON


def json_document(checks, uncompiled: list[dict] = ()) -> dict:
    """The report as JSON; `uncompiled` lists the files that did not compile ({file, error})."""
    return {"tool": "simulee", "version": __version__, "kernels": [check.to_json() for check in checks],
            "errors": list(uncompiled)}


def json_text(checks, uncompiled: list[dict] = ()) -> str:
    return json.dumps(json_document(checks, uncompiled), indent=2) + "\n"


# ---------------------------------------------------------------------------- CSV


def csv_rows(records: list[dict], project: str = "", root: Path | None = None) -> list[dict]:
    """One row per finding of the kernel records (KernelCheck.to_json, file paths relative
    to `root`, default the current folder), flat columns (CSV_COLUMNS); `root_cause` is
    the finding's rootcause.fingerprint."""
    from simulee.rootcause import fingerprint

    rows = []
    for record in records:
        for finding in record["findings"]:
            launch = finding["launch"] or {}
            first, second = finding["first"] or {}, finding["second"] or {}
            rows.append({
                "project": project, "file": finding["file"] or record["file"], "kernel": finding["kernel"],
                "type": finding["type"], "severity": finding["severity"], "space": finding["space"] or "",
                "hazard": finding["hazard"] or "", "scope": finding["scope"] or "",
                "benign": "" if finding["benign"] is None else str(finding["benign"]).lower(),
                "line": finding["line"], "column": finding["column"],
                "first_line": first.get("line", ""), "second_line": second.get("line", ""),
                "grid": "x".join(map(str, launch.get("grid", []))),
                "block": "x".join(map(str, launch.get("block", []))),
                "args": " ".join(f"{k}={v}" for k, v in launch.get("args", {}).items()),
                "fill": _fill_text(launch).replace(" buffers ", "", 1),
                "origin": "synthetic" if synthetic(launch) else launch.get("origin", ""),
                "instances": finding["instances"], "addresses": finding["addresses"],
                "seconds": record["seconds"], "message": finding["message"],
                "root_cause": fingerprint(finding, root),
                **{column: finding.get("details", {}).get(column, "") for column in detect.columns()},
            })
    return rows


def csv_text(checks, project: str = "") -> str:
    return table_text(csv_rows([check.to_json() for check in checks], project), CSV_COLUMNS)


def table_text(rows: list[dict], columns, header: bool = True) -> str:
    """Rows as CSV text, after a header line unless told otherwise (to append to a table).
    Text cells that a spreadsheet would take for a formula are escaped (cell_text)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    if header:
        writer.writeheader()
    writer.writerows({key: cell_text(value) for key, value in row.items()} for row in rows)
    return out.getvalue()


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def cell_text(value):
    """A CSV cell as spreadsheets should read it: text starting with =, +, -, @, a tab or
    a carriage return gets a leading apostrophe (OWASP's advice against CSV injection), so
    that it stays text; numbers stay numbers."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


# ---------------------------------------------------------------------------- SARIF


def sarif_document(records: list[dict], root: Path | None = None, uncompiled: list[dict] = ()) -> dict:
    """SARIF 2.1.0 of the kernel records (KernelCheck.to_json): one result per finding,
    suppressed ones with their `suppressions`; the other access (or the thread that missed
    the barrier) is a related location.
    Files that did not compile ({file, error}) are the invocation's error notifications.
    Relative file names are relative to `root` (default: the current folder)."""
    findings = [finding for record in records for finding in record["findings"] + record.get("suppressed", [])]
    used = sorted({f["type"] for f in findings} | {"data-race"})
    known = detect.rules()
    rules = [{"id": rule, "shortDescription": {"text": known[rule].description if rule in known
                                               else rule.replace("-", " ")},
              "defaultConfiguration": {"level": known[rule].severity if rule in known else "warning"}}
             for rule in used]
    results = []
    for finding in findings:
        result = {
            "ruleId": finding["type"],
            "ruleIndex": used.index(finding["type"]),
            "level": finding["severity"] if finding["severity"] in ("error", "warning", "note") else "warning",
            "message": {"text": finding["message"] + (" (on a synthetic launch: no launch site or user gives it)"
                                                      if synthetic(finding["launch"]) else "")},
            "locations": [_sarif_location(finding["first"], finding["kernel"])],
            "properties": {**{key: finding[key] for key in ("kernel", "space", "hazard", "scope", "benign", "instances",
                                                            "addresses", "launch") if finding[key] is not None},
                           **finding.get("details", {}), "synthetic": synthetic(finding["launch"])},
        }
        if "reason" in finding:  # suppressed, in simulee.toml
            kind = (finding.get("details") or {}).get("suppression", "external")
            result["suppressions"] = [{"kind": kind, "justification": finding["reason"]}]
        if finding["second"] is not None:
            related = _sarif_location(finding["second"], finding["kernel"])
            related["id"] = 1
            related["message"] = {"text": f"the other {finding['second']['access']}"}
            result["relatedLocations"] = [related]
        results.append(result)
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "simulee", "version": __version__, "rules": rules}},
            "originalUriBaseIds": {"SRCROOT": {"uri": (root or Path.cwd()).resolve().as_uri() + "/"}},
            "invocations": [{
                "executionSuccessful": not uncompiled,
                "toolExecutionNotifications": [
                    {"level": "error", "message": {"text": entry["error"]},
                     "locations": [{"physicalLocation": _sarif_location(
                         {"file": entry["file"], "line": 1, "column": 0}, "")["physicalLocation"]}]}
                    for entry in uncompiled],
            }],
            "results": results,
        }],
    }


def _sarif_location(place: dict | None, kernel: str) -> dict:
    if not place or not place["file"]:
        return {"message": {"text": kernel}}
    path = place["file"]
    if os.path.isabs(path):  # outside the root folder
        artifact = {"uri": Path(path).as_uri()}
    else:
        artifact = {"uri": Path(path).as_posix(), "uriBaseId": "SRCROOT"}
    region = {"startLine": max(place["line"], 1)}
    if place["column"] > 0:
        region["startColumn"] = place["column"]
    return {"physicalLocation": {"artifactLocation": artifact, "region": region},
            "logicalLocations": [{"name": kernel, "kind": "function"}]}


def sarif_text(checks, uncompiled: list[dict] = ()) -> str:
    return json.dumps(sarif_document([check.to_json() for check in checks], uncompiled=uncompiled), indent=2) + "\n"
