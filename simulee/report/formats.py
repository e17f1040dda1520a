"""Findings as text (like a compiler), JSON, a flat CSV bug table, or SARIF 2.1.0."""

from __future__ import annotations

import csv
import io
import json
import os
from collections import Counter
from pathlib import Path

from simulee import __version__, detect
from simulee.report.baseline import SARIF_FINGERPRINT
from simulee.model.findings import ERROR, WARNING, Finding, source_lines, synthetic
from simulee.report.rootcause import Bugs

FINDING_COLUMNS = ("project", "file", "kernel", "type", "severity", "space", "hazard", "scope", "benign", "line",
                   "column", "first_line", "second_line", "grid", "block", "args", "fill", "origin", "instances",
                   "addresses", "seconds", "message", "root_cause", *detect.columns())
# a bug table row is a root cause: its witness finding, how many kernels and findings show it, new or not
CSV_COLUMNS = (*FINDING_COLUMNS, "kernels", "findings", "baseline")
RELATED_INSTANCES = 100  # other kernels' occurrences a SARIF result names as related locations
# a progress bar (tqdm) while its total still grows: no time left, it would mean nothing
WITHOUT_TIME_LEFT = "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]"
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


# ---------------------------------------------------------------------------- text


def report(form: str, bugs: Bugs, project: str, seconds: float, verbose: bool, barriers: bool = False,
           unreadable: list | None = None, new_only: bool = False, verdicts: bool = False) -> str:
    """The report of `bugs` as --format `form` asks: text, json, csv or sarif (in text, with
    `verdicts`, a line per kernel saying what was decided of it)."""
    unreadable = unreadable or []
    if form == "text":
        return text(bugs, barriers, seconds, verbose, len(unreadable), new_only, verdicts)
    if form == "json":
        return json_text(bugs, unreadable)
    if form == "csv":
        return csv_text(bugs, project, new_only)
    return sarif_text(bugs, unreadable)


def text(bugs: Bugs, show_barriers: bool = False, seconds: float | None = None, verbose: bool = False,
         uncompiled: int = 0, new_only: bool = False, verdicts: bool = False) -> str:
    """The report like a compiler's output: what each kernel could not check, then one
    entry per root cause, worst first (a bug several kernels or template instances share
    is shown once, with one line naming them), then a summary line that counts root
    causes and the `uncompiled` files too (their errors are reported where they happen).
    With `new_only`, only the root causes new since the baseline; with `verdicts`, a line
    per kernel before the summary says what was decided of it (proved, race, possible
    race, not proved)."""
    out = io.StringIO()
    for check in bugs.records:
        if check["status"] != "ok":
            level = "warning" if check["status"] == "not-checked" else "error"
            out.write(f"{check['file']}:{check['line']}: {level}: {check['kernel']}: {check['error']}\n")
        if contradicted(check):
            out.write(f"{check['file']}:{check['line']}: error: {check['kernel']}: {check['proof']['reason']}\n")
        if verbose and check.get("search"):
            _text_search(out, check)
        if verbose and check.get("engine"):
            out.write(f"{check['kernel']}: {engine_text(check['engine'])}\n")
        for note in check["notes"]:
            out.write(f"{check['file']}:{check['line']}: note: {check['kernel']}: {note}\n")
        for assumption in check["assumptions"]:
            reason = f" (beyond it, line {assumption['line']} indexes past a fixed-size array)" \
                if assumption["line"] else ""
            out.write(f"{check['file']}:{check['line']}: note: {check['kernel']} assumes {assumption['bound']}"
                      f"{reason}; launches beyond it were not checked\n")
    shown = bugs.shown(new_only)
    for cause in shown:
        _text_finding(out, cause["witness"], bugs.root, cause.get("baseline") if bugs.baseline else None)
        if len(cause["findings"]) > 1:
            out.write(f"{'':8}{_instances_text(cause)}\n")
    if show_barriers:
        for check in bugs.records:
            if check["barriers"]:
                out.write(f"barriers of {check['kernel']}:\n")
            for verdict in check["barriers"]:
                at = f"{verdict['file']}:{verdict['line']}:{verdict['column']}"
                note = f" (removing it: {_race_between(verdict['race'], verdict)})" if verdict["race"] and \
                    verdict["verdict"] == "needed" else ""
                flag = ", reached divergently" if verdict["divergent"] else ""
                flag += f" ({verdict['reason']})" if verdict["reason"] and verdict["passes"] else ""
                own = verdict.get("kernel_verdict", verdict["verdict"])
                flag += f" (in this kernel: {own})" if own != verdict["verdict"] else ""
                times = "time" if verdict["passes"] == 1 else "times"
                out.write(f"  {at}: {verdict['verdict']}, passed {verdict['passes']} {times}{flag}{note}\n")
    for check in bugs.records if verdicts else ():
        if check.get("verdict"):
            out.write(f"{check['file']}:{check['line']}: note: {check['kernel']}: {verdict_text(check)}\n")
    out.write(_summary(bugs, shown, seconds, uncompiled, new_only) + "\n")
    return out.getvalue()


def _summary(bugs: Bugs, shown: list[dict], seconds: float | None, uncompiled: int, new_only: bool) -> str:
    """The last line of the text report: kernels, files, root causes by severity."""
    checks = bugs.records
    errors = sum(1 for c in shown if c["witness"]["severity"] == ERROR)
    warnings = sum(1 for c in shown if c["witness"]["severity"] == WARNING)
    findings = sum(len(c["findings"]) for c in shown)
    failed = sum(1 for c in checks if c["status"] != "ok")
    files = len({c["file"] for c in checks})
    summary = (f"simulee: checked {plural(len(checks), 'kernel')} in {plural(files, 'file')}: "
               f"{plural(errors, 'error')}, {plural(warnings, 'warning')}" + (" new" if new_only else ""))
    if findings > len(shown):
        kernels = len({(f["file"], f["kernel"]) for c in shown for f in c["findings"]})
        summary += f" ({plural(findings, 'finding')} in {plural(kernels, 'kernel')})"
    if bugs.baseline:
        states = Counter(c["baseline"] for c in bugs.causes)
        summary += (f"; against the baseline: {states['new']} new, {states['unchanged']} unchanged"
                    + (" (not shown)" if new_only and states["unchanged"] else "") + f", {len(bugs.absent)} absent")
    suppressed = sum(len(c.get("suppressed", [])) for c in checks)
    if suppressed:
        summary += f", {suppressed} suppressed"
    proved = sum(1 for c in checks if c.get("verdict") == "proved")
    if proved:
        summary += f", {proved} proved race-free"
    if failed:
        summary += f", {failed} not checked"
    wrong = sum(1 for c in checks if contradicted(c))
    if wrong:
        summary += f", {plural(wrong, 'proof')} contradicted by a run (internal error)"
    if uncompiled:
        summary += f"; {plural(uncompiled, 'file')} not compiled"
    if seconds is not None:
        summary += f" ({seconds:.2f} s)"
    return summary


def contradicted(check: dict) -> bool:
    """Whether a run contradicted the kernel's proof (an internal error; prover.verdicts)."""
    return (check.get("proof") or {}).get("verdict") == "contradicted"


VERDICT_WORDS = {"proved": "proved", "race": "race", "possible-race": "possible race", "not-proved": "not proved"}


def verdict_text(check: dict) -> str:
    """What was decided of a kernel, in a phrase: its verdict and why."""
    proof = check.get("proof") or {}
    assumed = len(proof.get("assumptions", ())) if check["verdict"] == "proved" else 0
    return (f"{VERDICT_WORDS.get(check['verdict'], check['verdict'])}: {check['verdict_reason']}"
            + (f" ({plural(assumed, 'assumption')}: --format json lists them)" if assumed else ""))


def plural(number: int, noun: str) -> str:
    """`number noun`, the noun in the plural unless the number is 1."""
    return f"{number} {noun}{'' if number == 1 else 's'}"


def kernel_names(kernels: list[str], shown: int) -> str:
    """The first `shown` kernel names, each cut to NAME_WIDTH characters, and how many more."""
    names = [name if len(name) <= NAME_WIDTH else name[:NAME_WIDTH - 1] + "…" for name in kernels[:shown]]
    return ", ".join(names) + (f" and {len(kernels) - shown} more" if len(kernels) > shown else "")


NAME_WIDTH = 80  # characters of a kernel's name a list of kernels shows (a template instance's can run to thousands)


def _instances_text(cause: dict) -> str:
    """One line for the findings a root cause covers: the kernels (or template instances)
    it shows in, and the accesses counted."""
    kernels = cause["kernels"]
    names = kernel_names(kernels, 4)
    return (f"the same bug in {plural(len(kernels), 'kernel')}: {names} "
            f"({plural(len(cause['findings']), 'finding')}, {plural(cause['instances'], 'instance')})")


def engine_text(engine: dict) -> str:
    """What the native engine ran of a kernel's launches, and what it left to NumPy."""
    work, native = engine["thread_instructions"], engine["native"]
    share = f"{native / work:.0%}" if work else "none"
    text = f"native code ran {share} of {work:,} thread-instructions"
    why = []
    if engine.get("small_launches"):
        count = engine["small_launches"]
        why.append(f"{count:,} launch{'es' if count > 1 else ''} ran on NumPy before the kernel had done enough "
                   "to be worth compiling")
    if engine.get("tracking_launches"):
        count = engine["tracking_launches"]
        why.append(f"{count:,} launch{'es' if count > 1 else ''} tracking what Simulee invented made "
                   f"{'their' if count > 1 else 'its'} memory accesses on NumPy")
    if why:
        text += f" ({'; '.join(why)})"
    if engine["left_to_numpy"]:
        text += "; left to the NumPy interpreter: " + ", ".join(engine["left_to_numpy"][:8]) + \
            (f" and {len(engine['left_to_numpy']) - 8} more" if len(engine["left_to_numpy"]) > 8 else "")
    return text


def _text_search(out, check: dict) -> None:
    """The search's generations and the launches checked in full."""
    search = check["search"]
    varied = ", ".join(search["genes"])
    out.write(f"{check['kernel']}: searched {varied} (seed {search['seed']}): {search['evaluations']} launches in "
              f"{search['generations']} generations, {search['seconds']:.2f} s, stopped: {search['stopped']}\n")
    for site in search.get("host", ()):
        given = ", ".join(f"{name}={value}" for name, value in site["given"].items()) or "nothing"
        out.write(f"  launch at {site['site']}: from the host: {given}; "
                  f"not fixed by it: {', '.join(site['open']) or 'nothing'}\n")
    for record in search["history"]:
        best = record["best"]
        fitness = _fitness_text(best) if best else "no valid launch"
        launch = record["launch"]  # the best genome's, or why it makes none
        shown = launch_text(launch) if "invalid" not in launch else launch["invalid"]
        out.write(f"  generation {record['generation']:2}: {fitness}  {shown}\n")
    for launch in check["launches"]:
        fitness = _fitness_text(launch["fitness"]) if launch["fitness"] else "default launch"
        out.write(f"  checked: {launch_text(launch)} ({fitness}; {launch['status']})\n")


def _fitness_text(fitness: dict) -> str:
    if fitness.get("unmeasured"):
        return "unmeasured: more work than a fitness run does"
    return f"F={fitness['F']:.4f} R={fitness['R']}"


def launch_text(launch: dict) -> str:
    arguments = " ".join(f"{k}={v}" for k, v in launch["args"].items())
    return (f"grid ({','.join(map(str, launch['grid']))}) block ({','.join(map(str, launch['block']))})"
            + (f" {arguments}" if arguments else "") + _fill_text(launch))


def _fill_text(launch: dict) -> str:
    """What the launch's buffers held, unless zeros (`--fill MODE --seed S` reproduces it)."""
    fill = launch.get("fill", "zeros")
    return f" buffers {fill} (seed {launch.get('seed', 0)})" if fill != "zeros" else ""


def origin_text(launch: dict) -> str:
    """Where a finding's launch comes from; a synthetic one says so."""
    if synthetic(launch):
        return "synthetic launch: no launch site or user gives it"
    return {"given": "launch as given"}.get(launch.get("origin"), launch.get("origin", ""))


def findings_text(findings: list[Finding]) -> str:
    """Findings compiler-style, without a summary."""
    out = io.StringIO()
    for finding in findings:
        _text_finding(out, finding.to_json())
    return out.getvalue()


def _race_between(race: dict, barrier: dict) -> str:
    return (f"data race ({race['hazard']}, {race['space']}, {race['scope']}) between the "
            f"{race['first']['access']} at {_where(race['first'], barrier)} and the {race['second']['access']} at "
            f"{_where(race['second'], barrier)}")


def place_text(finding: dict) -> str:
    """file:line of a finding (Finding.to_json), and its other line when there is one."""
    other = (finding.get("second") or {}).get("line")
    return f"{finding['file']}:{finding['line']}" + (f" / {other}" if other and other != finding["line"] else "")


def _where(other: dict, here: dict) -> str:
    """How a message names place `other` seen from `here`: line:column in the same file,
    else file:line:column."""
    if other["file"] == here["file"]:
        return f"line {other['line']}:{other['column']}"
    return f"{other['file']}:{other['line']}:{other['column']}"


def _text_finding(out, finding: dict, root: Path | None = None, state: str | None = None) -> None:
    """A finding (Finding.to_json) compiler-style: where and what (and, against a baseline,
    whether it is new), the source line with a caret, the witness and the launch."""
    first = finding["first"]
    column = f":{first['column']}" if first and first["column"] else ""  # a line of host code has none
    at = f"{first['file']}:{first['line']}{column}" if first and first["file"] else finding["kernel"]
    out.write(f"{at}: {finding['severity']}: {finding['message']}" + (f" [{state}]" if state else "") + "\n")
    if first and first["file"] and first["line"]:
        lines = source_lines(str((root or Path()) / first["file"]))
        if 0 < first["line"] <= len(lines):
            source = lines[first["line"] - 1].rstrip("\n").expandtabs(4)
            out.write(f"{first['line']:6} | {source}\n")
            if first["column"]:
                out.write(f"{'':6} | {' ' * (first['column'] - 1)}^\n")
    witnesses = [f"block ({','.join(map(str, side['block']))}) thread ({','.join(map(str, side['thread']))})"
                 for side in (finding["first"], finding["second"]) if side is not None and side["thread"] is not None]
    launch = finding["launch"]
    details = []
    if witnesses:
        details.append("witness " + " and ".join(witnesses))
    if finding["instances"] > 1:
        details.append(f"{finding['instances']} instances" + (f" at {finding['addresses']} addresses"
                                                              if finding["addresses"] > 1 else ""))
    if launch:
        details.append("launch " + launch_text(launch) + f" ({origin_text(launch)})")
    if details:
        out.write(f"{'':8}{'; '.join(details)}\n")


# ---------------------------------------------------------------------------- JSON


def json_document(bugs: Bugs, uncompiled: list[dict] = ()) -> dict:
    """The report as JSON: every kernel's check (each finding with its root cause), the
    root causes worst first with the findings they cover, and the files that did not
    compile ({file, error})."""
    document = {"tool": "simulee", "version": __version__, "kernels": bugs.records,
                "root_causes": [_cause_json(cause) for cause in bugs.causes], "errors": list(uncompiled)}
    if bugs.baseline:
        document["absent"] = [entry.to_json() for entry in bugs.absent]
    return document


def _cause_json(cause: dict) -> dict:
    witness = cause["witness"]
    return {"root_cause": cause["fingerprint"], "type": witness["type"], "severity": witness["severity"],
            "file": witness["file"], "line": witness["line"], "message": witness["message"],
            "kernels": cause["kernels"], "findings": len(cause["findings"]), "instances": cause["instances"],
            **({"baseline": cause["baseline"]} if "baseline" in cause else {}),
            "witness": {"kernel": witness["kernel"], "launch": witness["launch"]},
            "occurrences": [{"kernel": f["kernel"], "type": f["type"], "file": f["file"], "line": f["line"],
                             "second_line": (f["second"] or {}).get("line"), "instances": f["instances"],
                             "launch": f["launch"]} for f in cause["findings"]]}


def json_text(bugs: Bugs, uncompiled: list[dict] = ()) -> str:
    return json.dumps(json_document(bugs, uncompiled), indent=2) + "\n"


# ---------------------------------------------------------------------------- CSV


def finding_rows(records: list[dict], project: str = "") -> list[dict]:
    """One row per finding of the kernel records (KernelCheck.to_json, with root causes:
    rootcause.bugs), flat columns (FINDING_COLUMNS)."""
    return [_finding_row(finding, record["seconds"], project) for record in records for finding in record["findings"]]


def _finding_row(finding: dict, seconds: float, project: str) -> dict:
    launch = finding["launch"] or {}
    first, second = finding["first"] or {}, finding["second"] or {}
    return {
        "project": project, "file": finding["file"], "kernel": finding["kernel"],
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
        "seconds": seconds, "message": finding["message"], "root_cause": finding.get("root_cause", ""),
        **{column: finding.get("details", {}).get(column, "") for column in detect.columns()},
    }


def bug_rows(bugs: Bugs, project: str = "", new_only: bool = False) -> list[dict]:
    """The bug table: one row per root cause (CSV_COLUMNS), worst first; its witness
    finding's columns, with `instances` added up over the findings it covers."""
    seconds = {(r["file"], r["kernel"]): r["seconds"] for r in bugs.records}
    rows = []
    for cause in bugs.shown(new_only):
        witness = cause["witness"]
        rows.append({**_finding_row(witness, seconds.get((witness["file"], witness["kernel"]), ""), project),
                     "instances": cause["instances"], "kernels": len(cause["kernels"]),
                     "findings": len(cause["findings"]), "baseline": cause.get("baseline", "")})
    return rows


def csv_text(bugs: Bugs, project: str = "", new_only: bool = False) -> str:
    return table_text(bug_rows(bugs, project, new_only), CSV_COLUMNS)


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


def sarif_document(bugs: Bugs, uncompiled: list[dict] = ()) -> dict:
    """SARIF 2.1.0: one result per root cause, its witness's place as the location, the
    other access (or the thread that missed the barrier) and the occurrences in other
    kernels as related locations, the root cause as a fingerprint (SARIF_FINGERPRINT).
    Root causes only suppressed findings show carry `suppressions`; against a baseline,
    each result has its `baselineState`, and the baseline's root causes no longer found
    are results `absent`. Files that did not compile ({file, error}) are the invocation's
    error notifications. Relative file names are relative to `bugs.root` (default: the
    current folder)."""
    causes = bugs.causes + bugs.suppressed
    used = sorted({c["witness"]["type"] for c in causes} | {"data-race"})
    known = detect.rules()
    rules = [{"id": rule, "shortDescription": {"text": known[rule].description if rule in known
                                               else rule.replace("-", " ")},
              "defaultConfiguration": {"level": known[rule].severity if rule in known else "warning"}}
             for rule in used]
    results = [_sarif_result(cause, used.index(cause["witness"]["type"]), bugs.baseline) for cause in causes]
    results += [_absent_result(entry) for entry in bugs.absent]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "simulee", "version": __version__, "rules": rules}},
            "originalUriBaseIds": {"SRCROOT": {"uri": (bugs.root or Path.cwd()).resolve().as_uri() + "/"}},
            "invocations": [{
                "executionSuccessful": not uncompiled,
                "toolExecutionNotifications": [
                    {"level": "error", "message": {"text": entry["error"]},
                     "locations": [{"physicalLocation": _sarif_location(
                         {"file": entry["file"], "line": 1, "column": 0}, "")["physicalLocation"]}]}
                    for entry in uncompiled] + [
                    {"level": "error", "message": {"text": f"{check['kernel']}: {check['proof']['reason']}"},
                     "locations": [{"physicalLocation": _sarif_location(
                         {"file": check["file"], "line": check["line"], "column": 0}, "")["physicalLocation"]}]}
                    for check in bugs.records if contradicted(check)],
            }],
            "results": results,
            # what was decided of each kernel: proved race-free, race, possible race or not proved (a property
            # bag: a kernel without a bug is no result, and code-scanning services read only failures)
            "properties": {"verdicts": [{"kernel": check["kernel"], "file": check["file"], "line": check["line"],
                                         "verdict": check["verdict"], "reason": check.get("verdict_reason", "")}
                                        for check in bugs.records if check.get("verdict")]},
        }],
    }


def _sarif_result(cause: dict, rule_index: int, baseline: bool) -> dict:
    finding = cause["witness"]
    others = [f for f in cause["findings"] if f is not finding]
    result = {
        "ruleId": finding["type"],
        "ruleIndex": rule_index,
        "level": finding["severity"] if finding["severity"] in ("error", "warning", "note") else "warning",
        "message": {"text": finding["message"] + (" (on a synthetic launch: no launch site or user gives it)"
                                                  if synthetic(finding["launch"]) else "")
                    + (f"; {_instances_text(cause)}" if others else "")},
        "locations": [_sarif_location(finding["first"], finding["kernel"])],
        "fingerprints": {SARIF_FINGERPRINT: cause["fingerprint"]},
        "properties": {**{key: finding[key] for key in ("kernel", "space", "hazard", "scope", "benign", "addresses",
                                                        "launch") if finding[key] is not None},
                       **finding.get("details", {}), "synthetic": synthetic(finding["launch"]),
                       "instances": cause["instances"], "findings": len(cause["findings"]),
                       "kernels": cause["kernels"]},
    }
    if "reason" in finding:  # suppressed, in the source or in simulee.toml
        kind = (finding.get("details") or {}).get("suppression", "external")
        result["suppressions"] = [{"kind": kind, "justification": finding["reason"]}]
    if baseline:
        result["baselineState"] = cause["baseline"]
    related = []
    if finding["second"] is not None:
        related.append({**_sarif_location(finding["second"], finding["kernel"]),
                        "message": {"text": f"the other {finding['second']['access']}"}})
    for other in others[:RELATED_INSTANCES]:
        related.append({**_sarif_location(other["first"], other["kernel"]),
                        "message": {"text": f"also in {other['kernel']} ({plural(other['instances'], 'instance')})"}})
    if related:
        result["relatedLocations"] = [{**location, "id": number} for number, location in enumerate(related, 1)]
    return result


def _absent_result(entry) -> dict:
    """The SARIF result of a root cause of the baseline (baseline.Entry) no longer found."""
    result = {"ruleId": entry.rule, "level": entry.level, "message": {"text": entry.message},
              "fingerprints": {SARIF_FINGERPRINT: entry.fingerprint}, "baselineState": "absent"}
    if entry.file:  # its URI as the baseline wrote it
        result["locations"] = [{"physicalLocation": {"artifactLocation": {"uri": entry.file, "uriBaseId": "SRCROOT"},
                                                     "region": {"startLine": max(entry.line, 1)}}}]
    return result


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


def sarif_text(bugs: Bugs, uncompiled: list[dict] = ()) -> str:
    return json.dumps(sarif_document(bugs, uncompiled), indent=2) + "\n"
