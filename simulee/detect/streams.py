"""Races between the operations of different streams of a whole program (`simulee exec`).

Kernel launches, copies and fills go to streams; work in one stream runs in order, work in
different streams may overlap unless the program orders it. What orders it is CUDA's: the
legacy default stream (stream 0) waits for the work of every stream before it and makes
every stream's later work wait for it; cudaDeviceSynchronize, cudaStreamSynchronize and
cudaEventSynchronize make the host wait, so what it issues afterwards comes after;
cudaStreamWaitEvent makes a stream's later work wait for what its event's stream had
issued when the event was recorded; a copy that is not Async also makes the host wait.
Streams made with cudaStreamNonBlocking take no part in stream 0's waits: neither waits
for the other.

Each operation carries a vector clock; A happened before B when B's clock has seen A's
tick. Two operations of different streams that neither orders, one writing bytes the
other reads or writes (atomics only racing with plain accesses), are a stream race.
Each operation's bytes are kept as merged intervals per memory region. The detector
reports nothing of single launches: `simulee exec` (runner.py) feeds StreamOrder the
program's operations and turns the races into findings of its rule.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from interpreter.trace import ATOMIC, READ, WRITE
from simulee.detect.base import Detector, Rule
from simulee.model.findings import ERROR

Intervals = dict[int, tuple[np.ndarray, np.ndarray]]  # region -> (sorted starts, ends), disjoint


class StreamRaces(Detector):
    name = "stream-races"
    rules = (Rule("stream-race", ERROR, "Two kernels, copies or fills in different streams touch the same bytes, "
                                        "one writing, and no event or synchronization orders them"),)


@dataclass
class Operation:
    """A launch, copy or fill: what it is (for messages), its stream, where the program
    issued it (file, line), the bytes it read, wrote and updated atomically, and the
    kernel it ran (None for a copy or fill)."""

    what: str
    stream: int
    site: tuple[str, int]
    reads: Intervals = field(default_factory=dict)
    writes: Intervals = field(default_factory=dict)
    atomics: Intervals = field(default_factory=dict)
    kernel: object = None
    launch: dict | None = None  # a launch's, as findings.launch_of gives it
    clock: dict[int, int] = field(default_factory=dict)


@dataclass
class StreamRace:
    """`later` and `earlier` run in different streams, unordered, and touch `region` at
    `offset` (the first byte both touch) with `hazard` (write-write, read-write, ...)."""

    later: Operation
    earlier: Operation
    region: int
    offset: int
    hazard: str


class StreamOrder:
    """The order the program's streams and synchronizations give its operations, and the
    races it leaves (operation() returns them as each operation is issued)."""

    def __init__(self):
        self.host: dict[int, int] = {}
        self.streams: dict[int, dict[int, int]] = {}
        self.events: dict[int, dict[int, int]] = {}
        self.pending: list[Operation] = []  # operations later ones may still race with
        self.non_blocking: set[int] = set()  # streams made with cudaStreamNonBlocking

    def operation(self, op: Operation, blocking: bool = False) -> list[StreamRace]:
        """Issue `op` (made to wait for the host when `blocking`, as a copy that is not
        Async); the races it has with earlier operations of other streams."""
        clock = _join(self.streams.get(op.stream, {}), self.host)
        if op.stream == 0:  # the legacy default stream waits for every blocking stream
            clock = self._blocking(clock)
        elif op.stream not in self.non_blocking:
            clock = _join(clock, self.streams.get(0, {}))
        clock[op.stream] = clock.get(op.stream, 0) + 1
        op.clock = clock
        self.streams[op.stream] = dict(clock)
        races = [race for earlier in self.pending if earlier.stream != op.stream and not _before(earlier, op)
                 for race in _conflict(op, earlier)]
        self.pending.append(op)
        if blocking:
            self.host = _join(self.host, clock)
            self._prune()
        return races

    def synchronize(self) -> None:
        """cudaDeviceSynchronize: the host waits for every stream."""
        for clock in self.streams.values():
            self.host = _join(self.host, clock)
        self._prune()

    def stream_synchronize(self, stream: int) -> None:
        self.host = _join(self.host, self.streams.get(stream, {}))
        if stream == 0:
            self.synchronize()
        self._prune()

    def record(self, event: int, stream: int) -> None:
        clock = dict(self.streams.get(stream, {}))
        self.events[event] = self._blocking(clock) if stream == 0 else clock

    def _blocking(self, clock: dict[int, int]) -> dict[int, int]:
        """`clock` joined with every blocking stream's (what stream 0's work waits for)."""
        for stream, other in self.streams.items():
            if stream not in self.non_blocking:
                clock = _join(clock, other)
        return clock

    def wait(self, stream: int, event: int) -> None:
        self.streams[stream] = _join(self.streams.get(stream, {}), self.events.get(event, {}))

    def event_synchronize(self, event: int) -> None:
        self.host = _join(self.host, self.events.get(event, {}))
        self._prune()

    def _prune(self) -> None:
        """Forget operations the host has waited for: everything issued later follows them."""
        self.pending = [op for op in self.pending if op.clock[op.stream] > self.host.get(op.stream, 0)]


def _join(a: dict[int, int], b: dict[int, int]) -> dict[int, int]:
    joined = dict(a)
    for stream, tick in b.items():
        if tick > joined.get(stream, 0):
            joined[stream] = tick
    return joined


def _before(a: Operation, b: Operation) -> bool:
    return a.clock[a.stream] <= b.clock.get(a.stream, 0)


def _conflict(later: Operation, earlier: Operation) -> list[StreamRace]:
    """The first conflicting byte of each hazard between the two, if any."""
    pairs = (("write-write", later.writes, earlier.writes), ("write-read", later.writes, earlier.reads),
             ("read-write", later.reads, earlier.writes), ("write-atomic", later.writes, earlier.atomics),
             ("atomic-write", later.atomics, earlier.writes), ("read-atomic", later.reads, earlier.atomics),
             ("atomic-read", later.atomics, earlier.reads))
    for hazard, mine, theirs in pairs:
        for region in mine.keys() & theirs.keys():
            offset = _overlap(mine[region], theirs[region])
            if offset is not None:
                return [StreamRace(later, earlier, region, offset, hazard)]
    return []


def _overlap(a: tuple[np.ndarray, np.ndarray], b: tuple[np.ndarray, np.ndarray]) -> int | None:
    """The first byte in both interval sets, or None."""
    starts_a, ends_a = a
    starts_b, ends_b = b
    at = np.searchsorted(ends_a, starts_b, side="right")  # the first interval of `a` ending after each start
    valid = at < len(starts_a)
    hits = np.flatnonzero(valid)
    overlapping = starts_a[at[hits]] < ends_b[hits]
    if not overlapping.any():
        return None
    first = hits[np.argmax(overlapping)]
    return int(max(starts_b[first], starts_a[at[first]]))


def intervals(regions: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> Intervals:
    """The byte ranges [starts, ends) of each region, merged."""
    out: Intervals = {}
    if len(regions) == 0:
        return out
    order = np.lexsort((starts, regions))
    regions, starts, ends = regions[order], starts[order], ends[order]
    bounds = np.flatnonzero(np.diff(regions)) + 1
    for chunk in np.split(np.arange(len(regions)), bounds):
        s, e = starts[chunk], ends[chunk]
        reach = np.maximum.accumulate(e)
        fresh = np.ones(len(s), dtype=bool)
        fresh[1:] = s[1:] > reach[:-1]
        first = np.flatnonzero(fresh)
        out[int(regions[chunk[0]])] = (s[first], np.maximum.reduceat(e, first))
    return out


def footprint(trace, space: int) -> tuple[Intervals, Intervals, Intervals]:
    """(reads, writes, atomics) of a launch's trace in memory `space`, as intervals."""
    if len(trace) == 0:
        return {}, {}, {}
    chosen = trace["space"] == space
    kinds, regions = trace["kind"][chosen], trace["region"][chosen].astype(np.int64)
    starts = trace["offset"][chosen].astype(np.int64)
    ends = starts + trace["size"][chosen]
    return tuple(intervals(regions[kinds == kind], starts[kinds == kind], ends[kinds == kind])
                 for kind in (READ, WRITE, ATOMIC))


class Footprint:
    """What a launch traced in parts read, wrote and updated atomically, joined as parts come
    (`add`): the parts not yet joined are merged into the whole whenever they hold as many
    intervals as it does, so memory stays within about twice the launch's own intervals and
    the time is linear in the parts' (amortized)."""

    def __init__(self):
        self.whole: tuple[Intervals, Intervals, Intervals] = ({}, {}, {})
        self.pending: list[tuple[Intervals, Intervals, Intervals]] = []
        self.size = self.pending_size = 0

    def add(self, part: tuple[Intervals, Intervals, Intervals]) -> None:
        self.pending.append(part)
        self.pending_size += _count(part)
        if self.pending_size > max(self.size, 1 << 16):
            self._join()

    def joined(self) -> tuple[Intervals, Intervals, Intervals]:
        """(reads, writes, atomics), each region's intervals merged."""
        if self.pending:
            self._join()
        return self.whole

    def _join(self) -> None:
        self.whole = joined_footprint([self.whole, *self.pending])
        self.pending, self.pending_size, self.size = [], 0, _count(self.whole)


def _count(footprint_: tuple[Intervals, Intervals, Intervals]) -> int:
    return sum(len(starts) for kind in footprint_ for starts, _ in kind.values())


def joined_footprint(footprints: list[tuple[Intervals, Intervals, Intervals]]) -> tuple[Intervals, Intervals,
                                                                                        Intervals]:
    """The (reads, writes, atomics) of several footprints (a launch's parts), merged."""
    if len(footprints) == 1:
        return footprints[0]
    joined = []
    for kind in range(3):
        parts = [(region, starts, ends) for footprint_ in footprints for region, (starts, ends) in
                 footprint_[kind].items()]
        if not parts:
            joined.append({})
            continue
        joined.append(intervals(np.concatenate([np.full(len(s), r, dtype=np.int64) for r, s, _ in parts]),
                                np.concatenate([s for _, s, _ in parts]), np.concatenate([e for _, _, e in parts])))
    return tuple(joined)
