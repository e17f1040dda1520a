"""Suppressions written in the source, beside the code they are about:

    // simulee: ignore[data-race] the host never passes overlapping rows
    // simulee: ignore-kernel[warp-synchronous-race,redundant-barrier] written for sm_60

`ignore` on either line of a finding (the line reported, or the other access's or
barrier's) suppresses it; `ignore-kernel`, on the kernel's first line or the line above
it, suppresses its findings anywhere. Without a [list] every type is meant; the rest of
the comment is the reason.
"""

from __future__ import annotations

import re

from simulee.findings import source_lines

ANNOTATION = re.compile(r"//\s*simulee:\s*(ignore-kernel|ignore)\b(?:\[([\w\s,*-]*)\])?\s*(.*)$")


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
