"""Root causes: the findings that are one bug. A race in a device function shows in every
kernel and template instance that calls it, and in every launch; what makes it one bug is
its kind and the source it is about (a race and its warp-synchronous form are one kind, and
so are the memory faults of one access). Its fingerprint (rule, file, the functions the lines
are in and the text of those lines, whitespace collapsed, with how many identical lines
come before each in the file: code copied into two kernels is two bugs) stays the same
when unrelated edits move those lines, so that a report can be compared with an earlier
one."""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from interpreter.trace import (BAD_ADDRESS, BAD_FUNCTION_POINTER, CONSTANT_WRITE, MISALIGNED, NULL_POINTER,
                               OUT_OF_BOUNDS, USE_AFTER_FREE)
from simulee.model.findings import SAME_BUG, source_lines, version
from simulee.detect.race import WARP_SYNCHRONOUS

# the faults one bad address gives are one bug: an index past the end is often misaligned too, a call through a
# null object's table both a null pointer and a bad function pointer
MEMORY_FAULT = "memory-fault"
FAMILIES = {**SAME_BUG, **{kind: MEMORY_FAULT for kind in (NULL_POINTER, OUT_OF_BOUNDS, MISALIGNED, CONSTANT_WRITE,
                                                            BAD_ADDRESS, USE_AFTER_FREE, BAD_FUNCTION_POINTER)}}


@dataclass
class Bugs:
    """Kernel checks as the bugs they show. `records` are the checks (KernelCheck.to_json)
    with barriers judged across kernels (redundant.across_kernels) and every finding's
    `root_cause`; `causes` their root causes worst first (group), each marked `new` or
    `unchanged` against a baseline when there is one; `suppressed` the root causes only
    suppressed findings show; `absent` the baseline's root causes no longer found."""

    records: list[dict]
    causes: list[dict]
    suppressed: list[dict] = field(default_factory=list)
    absent: list = field(default_factory=list)  # the baseline's entries (baseline.Entry)
    baseline: bool = False  # whether a baseline was compared with
    root: Path | None = None

    def shown(self, new_only: bool = False) -> list[dict]:
        """The root causes to report: all, or only the new ones."""
        return [c for c in self.causes if not new_only or c.get("baseline") == "new"]


def bugs(records: list[dict], root: Path | None = None, baseline=None) -> Bugs:
    """The bugs of kernel records (file paths relative to `root`, default the current
    folder), compared with `baseline` (baseline.Baseline) when given."""
    from simulee.detect.redundant import across_kernels

    records = [{**record, **{part: [{**finding, "root_cause": fingerprint(finding, root)} for finding in record[part]]
                             for part in ("findings", "suppressed") if part in record}}
               for record in across_kernels(records)]
    causes = group([f for record in records for f in record["findings"]], root)
    known = {cause["fingerprint"] for cause in causes}
    suppressed = [cause for cause in group([f for record in records for f in record.get("suppressed", [])], root)
                  if cause["fingerprint"] not in known]
    result = Bugs(records, causes, suppressed, root=root)
    if baseline is not None:
        result.baseline = True
        for cause in causes + suppressed:
            cause["baseline"] = "unchanged" if cause["fingerprint"] in baseline.entries else "new"
        found = {cause["fingerprint"] for cause in causes + suppressed}
        result.absent = [entry for key, entry in baseline.entries.items() if key not in found]
    return result


def fingerprint(finding: dict, root: Path | None = None) -> str:
    """The root cause of a finding (a KernelCheck.to_json finding; its file paths relative
    to `root`, default the current folder) as 16 hex digits."""
    places = [place for place in (finding.get("first"), finding.get("second")) if place] or [{}]
    sides = []
    for place in places:
        file = place.get("file") or finding.get("file") or ""
        # the function without template arguments: every instance is one bug
        function = (place.get("function") or "").split("<")[0]
        sides.append("\x01".join([file, function, _source_line(file, place.get("line", 0), root)]))
    # in either order: one kernel's race of lines a and b is another's of b and a
    key = "\x00".join([FAMILIES.get(finding["type"], finding["type"]), *sorted(sides)])
    return hashlib.sha1(key.encode()).hexdigest()[:16]


def _source_line(file: str, line: int, root: Path | None) -> str:
    """The text of file:line with its whitespace collapsed, and how many identical lines
    come before it (the line number when the file cannot be read)."""
    path = str((root or Path()) / file)
    return _line_text(path, line, version(path))


@functools.lru_cache(maxsize=65536)
def _line_text(path: str, line: int, _version: tuple[int, int]) -> str:
    lines = source_lines(path)
    if not 0 < line <= len(lines):
        return f"line {line}"
    text = " ".join(lines[line - 1].split())
    return f"{text}#{sum(1 for other in lines[:line - 1] if ' '.join(other.split()) == text)}"


def group(findings: list[dict], root: Path | None = None) -> list[dict]:
    """The root causes of `findings`, worst first (errors, then the most instances): each
    with its fingerprint, its gravest finding as its witness (the first of an error, then
    of a race lockstep warps show too, then of one not benign: one bug, one class, in every
    kernel it shows in), the findings it covers, the kernels they are in and their
    instances added up."""
    groups: dict[str, dict] = {}
    for finding in findings:
        key = finding.get("root_cause") or fingerprint(finding, root)
        cause = groups.setdefault(key, {"fingerprint": key, "witness": finding, "findings": [], "kernels": []})
        cause["findings"].append(finding)
        if finding["kernel"] not in cause["kernels"]:
            cause["kernels"].append(finding["kernel"])
        if _gravity(finding) > _gravity(cause["witness"]):
            cause["witness"] = finding
    for cause in groups.values():
        cause["instances"] = sum(f.get("instances") or 0 for f in cause["findings"])
    return sorted(groups.values(), key=lambda c: (c["witness"]["severity"] != "error", -c["instances"],
                                                  c["witness"]["file"] or "", c["witness"]["line"] or 0))


def _gravity(finding: dict) -> tuple[bool, bool, bool]:
    """How bad a finding shows its root cause: an error, then a race in lockstep warps too
    (a data race over the warp-synchronous form of it), then not benign."""
    return finding["severity"] == "error", finding["type"] != WARP_SYNCHRONOUS, finding.get("benign") is not True
