"""Fixes for what a check found, each proven before it is offered (`simulee fix`).

Two kinds of edit to the source:
- a redundant barrier whose removal was checked (the kernel without it computed the same
  outputs) is deleted;
- a data race between threads of one block whose two accesses lie on different lines of
  one function gets a barrier (`__syncthreads()`, or `__syncwarp()` between lanes of one
  warp) on a line between them, the line just before the later access first, then further
  up, then (a loop holding both: a race from one iteration into the next) after the later
  one up to the loop's end.

An edit is kept only when the edited source, compiled and checked again, no longer shows
what it fixes and shows no error the original did not (a barrier some threads skip would
be barrier divergence), and computes what the original did on every launch tried where
the original did not race (checker.equivalence). A finding no edit fixed is tried again
once another edit changed the source. Only the file given is edited; messages give its
original line numbers. Everything else is left, with why.
"""

from __future__ import annotations

import difflib
import itertools
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from simulee.errors import SimuleeError

RACES = ("data-race", "warp-synchronous-race")
ARRIVALS = ("barrier-divergence", "warp-mask")  # a barrier some threads or lanes do not arrive at, any severity
MAX_FIXES = 8  # edits applied one after the other, each checked on the source the last one left
MAX_ATTEMPTS = 3 * MAX_FIXES  # findings tried; one no edit fixed is tried again once another edit changed the source
STATEMENT = re.compile(r"__syncthreads\s*\(\s*\)\s*;|__syncwarp\s*\([^;]*\)\s*;")


@dataclass
class Edit:
    """Insert `text` as a line before line `line` (a barrier between the racing lines
    `between`), or (text None) delete the barrier statement at `line`:`column` (`whole`:
    and its line, which holds nothing else)."""

    line: int
    text: str | None = None
    column: int = 0
    whole: bool = False
    race: str = ""  # the finding type an inserted barrier fixes
    between: tuple = ()

    def told(self, edits: list[Edit]) -> str:
        """What this edit, made on the source `edits` left, does (the original's line numbers)."""
        if self.text is None:
            return "removed a redundant barrier (its removal checked)"
        low, high = (_original(line, edits) for line in self.between)
        return f"inserted {self.text} before line {_original(self.line, edits)} (a {self.race} between lines {low} " \
               f"and {high})"

    def apply(self, lines: list[str]) -> list[str]:
        lines = list(lines)
        if self.text is not None:
            return lines[:self.line - 1] + [_indent(lines, self.line) + self.text] + lines[self.line - 1:]
        rest = _without_barrier(lines[self.line - 1], self.column)
        return lines[:self.line - 1] + ([] if self.whole else [rest.rstrip()]) + lines[self.line:]

    def shift(self, line: int) -> int:
        """Where line `line` of the source before this edit is after it."""
        if self.text is not None:
            return line + 1 if line >= self.line else line
        return line - 1 if self.whole and line > self.line else line

    def unshift(self, line: int) -> int:
        """Where line `line` of the source after this edit was before it (an inserted line:
        the line it was put before)."""
        if self.text is not None:
            return line - 1 if line > self.line else line
        return line + 1 if self.whole and line >= self.line else line


def _without_barrier(source: str, column: int) -> str:
    """Line `source` without the barrier statement at `column`."""
    match = STATEMENT.match(source, column - 1)
    if match is None:
        raise ValueError("no barrier statement there")
    return source[:column - 1] + source[match.end():]


def _indent(lines: list[str], line: int) -> str:
    """The indentation of the statement at or after line `line` (of the one before it when
    a closing brace or the end comes first)."""
    after = next((text for text in lines[line - 1:] if text.strip()), "}")
    if after.strip().startswith("}"):
        after = next((text for text in reversed(lines[:line - 1]) if text.strip()), "")
    return re.match(r"\s*", after).group(0)


@dataclass
class Outcome:
    """The fixed source (None when nothing could be fixed), the edits made, and what was
    left unfixed with why."""

    text: str | None
    fixed: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)


def repair(path: Path, kernel: str | None, check, compare) -> Outcome:
    """Fix what `check(path) -> list of kernel records (KernelCheck.to_json)` finds in
    the kernels of `path` (or kernel `kernel`), each edit proven by `check` on the edited
    source and by `compare(original, edited) -> str` ('' when they compute the same where
    the original does not race, else the difference)."""
    original = path.read_text()
    lines = original.splitlines()
    current, records = path, check(path)  # the source as the edits so far left it, and what its check found
    outcome = Outcome(None)
    edits: list[Edit] = []  # made, in order: lines are told by the original's numbers
    tried: set[tuple] = set()  # since the last edit
    for _ in range(MAX_ATTEMPTS):
        todo = [(record, finding) for record in records for finding in record["findings"]
                if (kernel is None or record["kernel"] == kernel) and _fixable(finding, path.name)
                and _key(finding) not in tried]
        if not todo or len(edits) == MAX_FIXES:
            break
        record, finding = todo[0]
        tried.add(_key(finding))
        for edit in candidates(finding, lines):
            after = edit.apply(lines)
            edited = _written(path, after)
            problem, again = _validated(current, edited, edit, finding, records, check, compare)
            if not problem:
                outcome.fixed.append(f"{_where(finding, edits)}: {edit.told(edits)}")
                lines, current, records = after, edited, again
                edits.append(edit)
                tried = set()  # the source changed: what no edit fixed before may be fixable now
                break
    for record in records:
        for finding in record["findings"]:
            if kernel is not None and record["kernel"] != kernel:
                continue
            where = f"{_where(finding, edits)}: {finding['type']} in {record['kernel']}"
            if _fixable(finding, path.name):
                why = "no edit removes it without changing what the kernel computes or adding a finding" \
                    if _key(finding) in tried else f"not tried: fix makes at most {MAX_FIXES} edits"
                outcome.left.append(f"{where}{_between(finding, edits)}: {why}")
            elif finding["severity"] == "error":
                outcome.left.append(f"{where}: {_unfixable(finding, path.name)}")
    if lines != original.splitlines():
        outcome.text = "\n".join(lines) + ("\n" if original.endswith("\n") else "")
    return outcome


def candidates(finding: dict, lines: list[str]) -> list[Edit]:
    """The edits that may fix `finding`, the likeliest first. A __syncthreads() never goes
    in a branch (a block-uniform one would do, but which are is not known here); a
    __syncwarp() may (a warp-uniform branch is common: `if (t < 32)`), and the check of the
    edit rejects one whose lanes do not all arrive."""
    if finding["type"] == "redundant-barrier":
        whole = not _without_barrier(lines[finding["line"] - 1], finding["column"]).strip()
        return [Edit(finding["line"], None, finding["column"], whole)]
    first, second = finding["first"], finding["second"]
    barrier = "__syncwarp();" if finding["scope"] == "intra-warp" or finding["type"] == "warp-synchronous-race" \
        else "__syncthreads();"
    low, high = sorted((first["line"], second["line"]))
    scopes = _Scopes(lines)
    # between them; then, in a loop around both, after the later (the race from one iteration to the next)
    end = scopes.loop_end(low, high)
    places = [*range(min(high, len(lines) + 1), low, -1), *(range(high + 1, end + 1) if end else ())]
    return [Edit(line, barrier, race=finding["type"], between=(low, high))
            for line in places
            if _code(lines[line - 2]).rstrip().endswith((";", "}", "{"))
            and (barrier == "__syncwarp();" or scopes.outside_branches(line))]


BRANCH = re.compile(r"\b(if|else|switch|case|default)\b|\?")
LOOP = re.compile(r"\b(for|while|do)\b")


class _Scopes:
    """The braces of a source, matched over its text: a brace opens a branch (if, else,
    switch, ?), else a loop (for, while, do), else a block; a for header's semicolons end no
    statement."""

    def __init__(self, lines: list[str]):
        stack: list[tuple[str, int]] = []  # (kind, number) of the braces open
        head, numbers = "", itertools.count()  # head: the text since the last statement, brace or label
        self.open_at: dict[int, tuple] = {}  # line -> (the braces open where it starts, the head there)
        self.closed_at: dict[int, int] = {}  # brace number -> the line that closes it
        for line, text in enumerate([*lines, ""], 1):
            self.open_at[line] = (tuple(stack), head)
            for part in re.split(r"([{};])", _code(text)):
                if part == "{":
                    kind = "branch" if BRANCH.search(head) else "loop" if LOOP.search(head) else "block"
                    stack.append((kind, next(numbers)))
                elif part == "}" and stack:
                    self.closed_at[stack.pop()[1]] = line
                if part == ";" and head.count("(") > head.count(")"):
                    head += ";"  # inside a for header
                elif part in ("{", "}", ";"):
                    head = ""
                else:
                    head += " " + part

    def outside_branches(self, line: int) -> bool:
        """Whether a statement put before line `line` is inside a function but in no branch:
        one every thread of the block reaches, unless it returned. A loop's body is no branch
        (its trip count may be uniform; the check of the edit tells)."""
        stack, head = self.open_at[line]
        return bool(stack) and all(kind != "branch" for kind, _ in stack) and not BRANCH.search(head)

    def loop_end(self, low: int, high: int) -> int | None:
        """The line of the closing brace of the innermost loop body that holds lines `low`
        and `high`, None when no loop body holds both."""
        around = [a for a, b in zip(self.open_at[low][0], self.open_at[high][0]) if a == b and a[0] == "loop"]
        return self.closed_at.get(around[-1][1]) if around else None


def _code(text: str) -> str:
    """A source line without its // comment and the contents of its string and character literals."""
    text = re.sub(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'', '""', text)
    return re.sub(r"//.*|/\*.*?\*/", "", text)


def _fixable(finding: dict, name: str) -> bool:
    """A redundant barrier whose removal was checked, or a race within a block between two
    lines of one function, in the file named `name` (the one being fixed)."""
    if Path(finding["file"]).name != name:
        return False
    if finding["type"] == "redundant-barrier":
        return "removal checked" in finding["message"]
    if finding["type"] not in RACES or finding["severity"] != "error" or finding["scope"] == "inter-block":
        return False
    first, second = finding.get("first") or {}, finding.get("second") or {}
    return bool(first and second) and Path(first["file"]).name == Path(second["file"]).name == name and \
        first.get("function") == second.get("function") and first["line"] != second["line"]


def _unfixable(finding: dict, name: str) -> str:
    first, second = finding.get("first") or {}, finding.get("second") or {}
    if any(Path(f.get("file") or finding["file"]).name != name for f in (finding, first, second) if f):
        return f"it lies in another file than {name} (fix edits only the file it is given)"
    if finding["type"] not in RACES:
        return "fix repairs races within a block and redundant barriers, not this"
    if finding["scope"] == "inter-block":
        return "threads of different blocks: no barrier orders them (a second kernel launch, or atomics, would)"
    if first.get("line") == second.get("line"):
        return "both accesses are in one statement: a barrier cannot go between them (split the statement)"
    return "the accesses are in different functions: a barrier between them is not a local edit"


def _validated(before: Path, edited: Path, edit: Edit, finding: dict, records: list[dict], check,
               compare) -> tuple[str, list[dict]]:
    """('', the edited source's check) when it no longer shows `finding`, shows no error the
    source `before` it did not (`records`, its check), and computes the same; else (why not,
    [])."""
    try:
        again = check(edited)
    except SimuleeError as error:
        return f"does not compile: {error}", []
    before_errors = {_moved(_key(f), edit) for r in records for f in r["findings"]
                     if f["severity"] == "error" or f["type"] in ARRIVALS}
    for record in again:
        for other in record["findings"]:
            key = _key(other)
            if key == _moved(_key(finding), edit) and finding["type"] != "redundant-barrier":
                return "still there", []
            if (other["severity"] == "error" or other["type"] in ARRIVALS) and key not in before_errors:
                return f"adds {other['type']} at line {other['line']}", []
    return compare(before, edited), again


def _key(finding: dict) -> tuple:
    second = finding.get("second") or {}
    return (finding["type"], finding["kernel"], finding["line"], second.get("line"))


def _moved(key: tuple, edit: Edit) -> tuple:
    kind, kernel, line, other = key
    return (kind, kernel, edit.shift(line), edit.shift(other) if other is not None else None)


def _between(finding: dict, edits: list[Edit]) -> str:
    second = finding.get("second") or {}
    if not second.get("line") or second["line"] == finding["line"]:
        return ""
    return f" (with line {_original(second['line'], edits)})"


def _where(finding: dict, edits: list[Edit]) -> str:
    return f"{finding['file']}:{_original(finding['line'], edits)}"


def _original(line: int, edits: list[Edit]) -> int:
    """The line of the original source that line `line` of the source `edits` made was."""
    for edit in reversed(edits):
        line = edit.unshift(line)
    return line



_SCRATCH: list[Path] = []


def _written(path: Path, lines: list[str]) -> Path:
    """`lines` as a file of `path`'s name in a scratch folder (its includes resolve through
    -I of path's folder, which the caller's check passes)."""
    folder = Path(tempfile.mkdtemp(prefix="simulee-fix-"))
    _SCRATCH.append(folder)
    target = folder / path.name
    target.write_text("\n".join(lines) + "\n")
    return target


def forget_scratch() -> None:
    while _SCRATCH:
        shutil.rmtree(_SCRATCH.pop(), ignore_errors=True)


def patch(path: Path, shown: str, text: str) -> str:
    """A unified diff (git apply-able) from `path`'s text to `text`, named `shown`."""
    lines = difflib.unified_diff(path.read_text().splitlines(keepends=True), text.splitlines(keepends=True),
                                 f"a/{shown}", f"b/{shown}")
    # a last line without its newline is marked so, as git apply expects
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
