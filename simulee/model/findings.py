"""What the detectors report: a finding, its one or two program points, and the launch
that shows it."""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass, field
from pathlib import Path

from simulee.frontend.compiler import user_location

ERROR, WARNING, NOTE = "error", "warning", "note"


@dataclass
class Place:
    """One side of a finding: what was done where, and by which thread."""

    access: str  # read, write, atomic, barrier, exit, ...
    file: str
    line: int
    column: int
    block: tuple[int, int, int] | None = None
    thread: tuple[int, int, int] | None = None
    function: str = ""  # the source function the line is in (a device function inlined into the kernel: its own)
    function_line: int = 0  # the line that function is declared at

    def to_json(self) -> dict:
        data = {"access": self.access, "line": self.line, "column": self.column}
        data["file"] = display(self.file)
        data["function"] = self.function
        data["block"] = list(self.block) if self.block is not None else None
        data["thread"] = list(self.thread) if self.thread is not None else None
        return data


@dataclass
class Finding:
    """A bug (or a note about a barrier). `first` is where it is reported; `second` is the
    other access of a race, or the thread that did not arrive at a barrier."""

    type: str  # data-race, barrier-divergence, redundant-barrier, out-of-bounds, step-limit, ...
    severity: str
    kernel: str
    message: str
    first: Place | None = None
    second: Place | None = None
    space: str | None = None
    hazard: str | None = None  # read-write, write-write
    scope: str | None = None  # inter-block, inter-warp, intra-warp
    benign: bool | None = None
    launch: dict | None = None
    instances: int = 1
    addresses: int = 0
    details: dict = field(default_factory=dict)
    ops: tuple = field(default=(), compare=False, repr=False)  # (function, index) of the instructions involved
    # the invented values of its launch (Result.labels, a bit each) it depends on: 0 when it holds whatever they are
    taint: int = field(default=0, compare=False, repr=False)
    pairs: frozenset = field(default=frozenset(), compare=False, repr=False)  # a race's instances: threads (block,
    # thread, block, thread) of its two accesses, up to race.PAIR_SAMPLE

    @property
    def file(self) -> str:
        return self.first.file if self.first else ""

    @property
    def line(self) -> int:
        return self.first.line if self.first else 0

    @property
    def column(self) -> int:
        return self.first.column if self.first else 0

    def key(self) -> tuple:
        """Findings with the same key are the same bug (seen in several launches): a race
        one launch shows only between lanes of a warp that runs apart is the race another
        shows in lockstep too."""
        places = tuple((p.file, p.line, p.column) for p in (self.first, self.second) if p is not None)
        return (SAME_BUG.get(self.type, self.type), self.kernel, self.space, places)

    def to_json(self) -> dict:
        return {
            "type": self.type, "severity": self.severity, "kernel": self.kernel, "file": display(self.file),
            "line": self.line, "column": self.column, "space": self.space, "hazard": self.hazard,
            "scope": self.scope, "benign": self.benign,
            "first": self.first.to_json() if self.first else None,
            "second": self.second.to_json() if self.second else None,
            "launch": self.launch, "message": self.message, "instances": self.instances,
            "addresses": self.addresses, **({"details": self.details} if self.details else {}),
        }


def display(path: str) -> str:
    """A path relative to the current folder when it lies under it."""
    if not path:
        return path
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return path


def where(other: Place, here: Place | None) -> str:
    """How a message names `other` seen from `here`: line:column in the same file, else
    file:line:column."""
    if here is not None and other.file == here.file:
        return f"line {other.line}:{other.column}"
    return f"{display(other.file)}:{other.line}:{other.column}"


def place(ops, op: int, access: str, result=None, block: int | None = None, thread: int | None = None) -> Place:
    """The Place of static instruction `op` (at the user's line, not inside our headers),
    with the block and thread (linear indices) turned into coordinates."""
    from interpreter.trace import coordinates  # not at the top: the command line imports this module first

    location = ops[op].location if 0 <= op < len(ops) else None
    block_xyz = thread_xyz = None
    if result is not None and block is not None:
        block_xyz = tuple(int(v) for v in coordinates([block], result.launch.grid)[0])
    if result is not None and thread is not None:
        thread_xyz = tuple(int(v) for v in coordinates([thread], result.launch.block)[0])
    return place_at(location, access, block_xyz, thread_xyz)


def by_source_location(ops, op_ids) -> list[list[int]]:
    """The static instructions `op_ids` grouped by the source location they are reported
    at (several instructions of one line and column are one place), in first-seen order."""
    groups: dict[tuple, list[int]] = {}
    for op in op_ids:
        p = place(ops, op, "")
        groups.setdefault((p.file, p.line, p.column), []).append(op)
    return list(groups.values())


def place_at(location, access: str, block=None, thread=None) -> Place:
    """The Place of a debug location, at the user's line (not inside our headers)."""
    location = user_location(location)
    if location is None:
        return Place(access, "", 0, 0, block, thread)
    return Place(access, location.file, location.line, location.column, block, thread, location.function,
                 location.function_line)


def source_lines(path: str) -> tuple[str, ...]:
    """The lines of a source file as it is now (none when it cannot be read)."""
    return _read_lines(path, version(path))


def version(path: str) -> tuple[int, int]:
    """What tells one content of a file from the next: its modification time and size."""
    try:
        status = os.stat(path)
    except OSError:
        return (0, 0)
    return status.st_mtime_ns, status.st_size


@functools.lru_cache(maxsize=256)
def _read_lines(path: str, _version: tuple[int, int]) -> tuple[str, ...]:
    try:
        with open(path, errors="replace") as handle:
            return tuple(handle.read().splitlines())
    except OSError:
        return ()


SAME_BUG = {"warp-synchronous-race": "data-race"}  # a finding type that is another's milder form


def launch_of(result) -> dict:
    """The launch of a result as JSON: dimensions and the scalar arguments."""
    launch = result.launch
    arguments = {}
    for name, value in launch.args.items():
        if hasattr(value, "shape") and getattr(value, "shape", ()) != ():
            arguments[name] = f"{value.dtype}[{value.size}]"
        elif isinstance(value, (bytes, bytearray)):
            arguments[name] = f"bytes[{len(value)}]"
        elif hasattr(value, "target"):  # an Alias
            arguments[name] = f"={value.target}"
        elif type(value).__name__ == "Allocated":  # a buffer of the size the host allocates
            arguments[name] = f"bytes[{value.size}]"
        elif isinstance(value, int) and type(value) not in (int, bool):  # shows itself: exec's pointers, in hex
            arguments[name] = str(value)
        else:
            arguments[name] = value.item() if hasattr(value, "item") else value
    contents = {"fill": launch.fill, **({"seed": launch.seed} if launch.fill != "zeros" else {})}
    return {"grid": list(launch.grid), "block": list(launch.block), "args": arguments, **contents,
            "origin": launch.origin or "default"}


SYNTHETIC = ("default", "search")  # launch origins no launch site or user gave


def synthetic(launch: dict | None) -> bool:
    """Whether a finding's launch is one only Simulee made up (no launch site, no user)."""
    return bool(launch) and launch.get("origin", "default") in SYNTHETIC
