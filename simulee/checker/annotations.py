"""Suppressions written in the source, beside the code they are about:

    // simulee: ignore[data-race] the host never passes overlapping rows
    // simulee: ignore-kernel[warp-synchronous-race,redundant-barrier] written for sm_60

    // simulee: ignore-function[data-race] a benign race on a flag every thread sets to 1

`ignore` on either line of a finding (the line reported, or the other access's or
barrier's) suppresses it; `ignore-kernel`, on the kernel's first line or the line above
it, suppresses its findings anywhere, in the functions it calls too; `ignore-function`,
on a function's first line or the line above it (a device function, or a kernel),
suppresses the findings on its own lines, in whichever kernel calls it. Without a [list]
every type is meant; the rest of the comment is the reason.
"""

from __future__ import annotations

import re

from simulee.model.findings import source_lines

ANNOTATION = re.compile(r"//\s*simulee:\s*(ignore-kernel|ignore-function|ignore)\b(?:\[([\w\s,*-]*)\])?\s*(.*)$")


def reason(finding, kernel_file: str, kernel_line: int) -> str | None:
    """Why an annotation in the source suppresses `finding` of the kernel declared at
    kernel_file:kernel_line; None when none does."""
    places = [(place.file, place.line) for place in (finding.first, finding.second) if place is not None]
    for file, line in places:
        found = _annotation(file, line, "ignore", finding.type)
        if found is not None:
            return found
    for line in (kernel_line, kernel_line - 1):
        found = _annotation(kernel_file, line, "ignore-kernel", finding.type)
        if found is not None:
            return found
    functions = {(place.file, place.function_line) for place in (finding.first, finding.second)
                 if place is not None and place.function_line}
    for file, first in sorted(functions):
        for line in (first, first - 1):
            found = _annotation(file, line, "ignore-function", finding.type)
            if found is not None:
                return found
    return None


def _annotation(file: str, line: int, kind: str, finding_type: str) -> str | None:
    """The reason of a `kind` annotation at file:line naming `finding_type` (or every type)."""
    lines = source_lines(file)
    if not 0 < line <= len(lines):
        return None
    match = ANNOTATION.search(lines[line - 1])
    if match is None or match[1] != kind:
        return None
    types = {name.strip() for name in (match[2] or "*").split(",") if name.strip()}
    if not types & {finding_type, "*"}:
        return None
    return match[3].strip() or f"// simulee: {kind} at line {line}"
