"""Happens-before through memory (DESIGN.md, "Bug semantics"): which accesses of different
threads a release and an acquire order, beyond barriers.

A *strong* access (the model's `strong` column) is an atomic, or a volatile or atomic
load or store of global memory (PTX: relaxed at its scope): what may release or acquire.
A *release* is a strong write that its thread preceded by a fence (__threadfence, its block
and system forms), or a store that releases by itself (st.release); it covers what its
thread did before the fence, what its block did in earlier barrier epochs and what its
warp did before a __syncwarp that preceded the fence (one lane releases for its warp). An
*acquire* is a strong read (a read-modify-write, an atomic load, or a volatile load whose
value decides a branch: a spin's or a check's read of a flag) that reads from a release's
sequence (the release's write, then only read-modify-writes, in the order the
interpreter executed them); it covers what its thread does after it, what its block does
in later epochs and what its warp does after a later __syncwarp (one lane acquires for its
warp). Program and barrier order within a block are one rule (_precedes). The acquiring
side needs no fence after the read: NVIDIA's own threadFenceReduction sample has none, and
every GPU orders it. Two atomics never race; volatile accesses are exempt only at a *flag*
(`flags`: a unit a strong read whose value decides a branch reads); elsewhere volatile data
races as plain data does (as the scoped-race benchmarks take it: volatile is not atomic).

A release synchronizes with an acquire only when the scope of each (a fence and a write:
the narrower of the two) includes both threads: a block scope orders only threads of
one block. Synchronization joins program and barrier order within each block into a
graph over these events; its transitive closure (a boolean matrix product, at most
MAX_EVENTS events per side) says which releases reach which acquires. Access a happens
before access x when a release covering a reaches an acquire covering x. Every question
is answered for arrays of access pairs at once (prefix counts over the acquires, no loop
over threads or pairs)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from interpreter.vocabulary import BLOCK_SCOPE, RELEASE, SCOPE_BITS
from interpreter.trace import ATOMIC, READ, WRITE
from simulee.model.sort import columns_order, stable_order

MAX_EVENTS = 2048  # releases and acquires each followed (the earliest that synchronize); later ones order nothing


@dataclass
class Events:
    """Releases or acquires: each one's block, thread, the epoch, step and warp collectives
    completed that bound what it covers, its scope, the model row of its access, and its
    instruction."""

    block: np.ndarray
    thread: np.ndarray
    epoch: np.ndarray
    step: np.ndarray
    warp_sync: np.ndarray
    scope: np.ndarray
    row: np.ndarray
    op: np.ndarray  # the fence of a fenced release, else the access's instruction

    def __len__(self) -> int:
        return len(self.row)

    def take(self, index) -> "Events":
        return Events(*(getattr(self, name)[index] for name in self.__dataclass_fields__))

    @property
    def warp(self) -> np.ndarray:
        return self.thread // 32

    @property
    def columns(self) -> tuple:
        """(block, thread, epoch, step, warp syncs): what _precedes compares."""
        return self.block, self.thread, self.epoch, self.step, self.warp_sync


class Ordering:
    """The happens-before of one launch's accesses; `ordered(a, x)` for arrays of rows."""

    def __init__(self, c: dict[str, np.ndarray], fences):
        """`c`: a memory-access model's columns; `fences`: its launch's fence events."""
        self.c = c
        self.releases, self.acquires = _releases(c, fences), _acquires(c, fences)  # all: to explain
        self.active = self.truncated = False
        self.flags = np.unique(c["unit"][self.acquires.row[c["decides"][self.acquires.row]]])  # spun on, checked
        if not len(self.releases) or not len(self.acquires):
            return
        self.r, self.a, together, anyway, self.truncated = _synchronizing(c, self.releases, self.acquires)
        if not anyway.any():
            return
        self.active = True
        program_order = _program_order(self.a, self.r)
        self.reach = _closure(together, program_order)
        self.reach_any_scope = _closure(anyway, program_order)
        self._counts = {}
        self._orders = [columns_order(columns) for columns in _acquire_orders(self.a)]

    def ordered(self, first: np.ndarray, second: np.ndarray, any_scope: bool = False) -> np.ndarray:
        """Whether access row `first[i]` happens before or after `second[i]` through memory
        (with `any_scope`, were every scope wide enough)."""
        if not self.active or len(first) == 0:
            return np.zeros(len(first), dtype=bool)
        return self._before(first, second, any_scope) | self._before(second, first, any_scope)

    def _before(self, a_rows, x_rows, any_scope: bool) -> np.ndarray:
        c, r, a = self.c, self.r, self.a
        # releases covering a: its thread's after it, and those of later epochs of its block
        block, thread, epoch, step, synced = _columns(c, a_rows)
        after_in_thread = _first_after((r.block, r.thread, r.step), (block, thread, step))
        after_in_block = _first_after((r.block, r.epoch), (block, epoch))
        after_in_warp = _first_after((r.block, r.warp, r.epoch, r.warp_sync), (block, thread // 32, epoch, synced))
        itself = _index_of(r.row, a_rows)  # a release's own write: before what it synchronizes with
        after_in_thread = np.where(itself >= 0, itself, after_in_thread)
        sources = [np.where(after >= 0, 1 + k * len(r) + after, 0)
                   for k, after in enumerate((after_in_thread, after_in_block, after_in_warp))]
        # acquires covering x: its thread's earlier ones, its block's in earlier epochs, its warp's before a sync
        block, thread, epoch, step, synced = _columns(c, x_rows)
        ranges = [_range_before(columns, query) for columns, query in zip(_acquire_orders(a), (
            (block, thread, step), (block, epoch), (block, thread // 32, epoch, synced)))]
        found = np.zeros(len(a_rows), dtype=np.int64)
        needed = np.unique(np.concatenate(sources))  # prefix counts only for the sources asked about
        table = self._sources(any_scope)[needed]
        for order, (low, high) in zip(self._orders, ranges):
            counts = np.concatenate([np.zeros((len(needed), 1), dtype=np.int32),
                                     np.cumsum(table[:, order], axis=1, dtype=np.int32)], axis=1)
            for source in sources:
                at = np.searchsorted(needed, source)
                found += counts[at, high] - counts[at, low]
        return found > 0

    def _sources(self, any_scope: bool) -> np.ndarray:
        """Per source, the acquires it reaches. Source 0 reaches nothing; 1 + i what release i
        and its thread's later releases reach; 1 + R + i what release i and the releases of
        its block's later epochs reach; 1 + 2R + i what release i and its warp's releases
        after later syncs reach."""
        if any_scope not in self._counts:
            r = self.r
            reach = self.reach_any_scope if any_scope else self.reach
            in_thread = _suffix_or(reach, (r.block, r.thread, r.step))
            in_block = _suffix_or(reach, (r.block, r.epoch))
            in_warp = _suffix_or(reach, (r.block, r.warp, r.epoch, r.warp_sync))
            self._counts[any_scope] = np.vstack([np.zeros((1, reach.shape[1]), dtype=bool), in_thread, in_block,
                                                 in_warp])
        return self._counts[any_scope]

    def explain(self, a: int, b: int) -> tuple[str, int, int]:
        """Why racing rows a and b are not ordered through memory, taking the earlier one as
        the side that should release: (reason, op, op). Reasons: "none" (neither side
        synchronizes), "no release" (its thread's later strong write, the first op, has no
        fence before it; or the flag the other side read, the first op, was written after it
        with none), "no acquire" (a release covers it, the first op, and the other access's
        block reads that flag before it, but not in a way that covers it), "older value" (the acquire before the other
        access, the second op, read what was there before the release, the first op)."""
        c, r, q = self.c, self.releases, self.acquires
        a, b = (a, b) if c["step"][a] <= c["step"][b] else (b, a)
        covering = np.flatnonzero(_precedes(_columns(c, a), r.columns) | (r.row == a))
        if not len(covering):  # a flag written after it without a fence, that the other thread reads first?
            later = np.flatnonzero(c["strong"] & (c["action"] != READ) & (c["block"] == c["block"][a])
                                   & (c["thread"] == c["thread"][a]) & (c["step"] > c["step"][a]))
            read = q.row[(q.block == c["block"][b]) & (q.thread == c["thread"][b]) & (q.step < c["step"][b])]
            seen = (c["unit"][later][:, None] == c["unit"][read][None, :]) \
                & (c["step"][later][:, None] < c["step"][read][None, :])  # read after it was written
            flags = later[seen.any(axis=1)]
            return ("no release", int(c["op"][flags[0]]), -1) if len(flags) else ("none", -1, -1)
        release = int(r.op[covering[0]])
        before = np.flatnonzero(_precedes(q.columns, _columns(c, b)))
        if not len(before):  # its block reads the released flag before it, but not so as to cover it?
            flags = c["unit"][r.row[covering]]
            tried = (q.block == c["block"][b]) & (q.step < c["step"][b]) & np.isin(c["unit"][q.row], flags)
            return ("no acquire", release, -1) if tried.any() else ("none", -1, -1)
        acquire = q.row[before[-1]]
        seen = self._seen(acquire)
        if seen >= 0 and c["block"][seen] == c["block"][a] and seen not in r.row and c["step"][seen] > c["step"][a]:
            return "no release", int(c["op"][seen]), -1  # it read a flag written after the access, unfenced
        return "older value", release, int(q.op[before[-1]])

    def _seen(self, row: int) -> int:
        """The row of the write whose value the read at `row` saw (the last write to its unit
        executed before it), -1 if none."""
        c = self.c
        earlier = np.flatnonzero((c["unit"] == c["unit"][row]) & (c["action"] != READ) & (c["step"] < c["step"][row]))
        return int(earlier[np.argmax(c["step"][earlier])]) if len(earlier) else -1

    def narrow_operation(self, first: np.ndarray, second: np.ndarray) -> int:
        """The instruction of a block-scoped release or acquire in the two rows' blocks: what
        a scoped race names (-1 if none)."""
        blocks = np.union1d(self.c["block"][first], self.c["block"][second])
        for events in (self.releases, self.acquires):
            narrow = np.flatnonzero((events.scope == BLOCK_SCOPE) & np.isin(events.block, blocks))
            if len(narrow):
                return int(events.op[narrow[0]])
        return -1


def _acquire_orders(a: Events):
    """The orders acquires are counted in: by thread and step, by block and epoch, by warp,
    epoch and warp syncs."""
    return (a.block, a.thread, a.step), (a.block, a.epoch), (a.block, a.warp, a.epoch, a.warp_sync)


def _columns(c, rows):
    """Block, thread, epoch, step and warp syncs of model rows, as int64."""
    return tuple(c[k][rows].astype(np.int64) for k in ("block", "thread", "epoch", "step", "warp_sync"))


def _releases(c, fences) -> Events:
    """Strong writes that release: after a fence of their thread (covering what came
    before the fence), or releasing by themselves."""
    writes = np.flatnonzero(c["strong"] & (c["action"] != READ))
    sync = c["sync"][writes]
    own = (sync & RELEASE) != 0
    cover_step = np.where(own, c["step"][writes], -1).astype(np.int64)
    cover_epoch = c["epoch"][writes].astype(np.int64)
    scope = np.where(own, sync & SCOPE_BITS, 0).astype(np.int64)
    synced = c["warp_sync"][writes].astype(np.int64)
    via = c["op"][writes].astype(np.int64)
    if fences:
        f_step, f_scope, f_op = (np.concatenate([np.full(len(f[1]), f[k], dtype=np.int64) for f in fences])
                                 for k in (0, 5, 6))
        f_block, f_thread, f_epoch, f_synced = (np.concatenate([f[k] for f in fences]).astype(np.int64)
                                                for k in (1, 2, 3, 4))
        last = _last_before((f_block, f_thread, f_step), (c["block"][writes].astype(np.int64),
                                                          c["thread"][writes].astype(np.int64),
                                                          c["step"][writes].astype(np.int64)))
        fenced = (last >= 0) & ~own
        cover_step[fenced] = f_step[last[fenced]]
        cover_epoch[fenced] = f_epoch[last[fenced]]
        synced[fenced] = f_synced[last[fenced]]
        scope[fenced] = np.minimum(f_scope[last[fenced]], sync[fenced] & SCOPE_BITS)
        narrower = fenced & (f_scope[last] < (sync & SCOPE_BITS))  # the fence, not the write, limits the scope
        via[narrower] = f_op[last[narrower]]
    keep = np.flatnonzero(cover_step >= 0)
    rows = writes[keep]
    return Events(c["block"][rows].astype(np.int64), c["thread"][rows].astype(np.int64), cover_epoch[keep],
                  cover_step[keep], synced[keep], scope[keep], rows, via[keep])


def _acquires(c, fences) -> Events:
    """Strong reads (read-modify-writes included), covering what follows them; a volatile
    read only when its value decides a branch (a spin's or a check's read of a flag: the
    read of volatile data acquires nothing). No fence after the read is needed (every GPU
    honours the dependency), but one there, before the thread's next access, bounds its
    scope: a lock taken with atomicCAS and then a __threadfence_block() acquires for its
    block only (a fence after the accesses the read orders is the next release's)."""
    rows = np.flatnonzero(c["strong"] & (c["action"] != WRITE) & (~c["volatile"] | c["decides"]))
    block, thread, epoch, step, synced = _columns(c, rows)
    scope = (c["sync"][rows] & SCOPE_BITS).astype(np.int64)
    op = c["op"][rows].astype(np.int64)
    if fences and len(rows):
        f_step, f_scope, f_op = (np.concatenate([np.full(len(f[1]), f[k], dtype=np.int64) for f in fences])
                                 for k in (0, 5, 6))
        f_block, f_thread = (np.concatenate([f[k] for f in fences]).astype(np.int64) for k in (1, 2))
        after = _first_after((f_block, f_thread, f_step), (block, thread, step))
        every = tuple(c[k].astype(np.int64) for k in ("block", "thread", "step"))
        following = _first_after(every, (block, thread, step))  # the thread's next access
        before_next = (following < 0) | (f_step[np.maximum(after, 0)] < every[2][np.maximum(following, 0)])
        narrower = (after >= 0) & before_next & (f_scope[np.maximum(after, 0)] < scope)
        scope[narrower] = f_scope[after[narrower]]
        op[narrower] = f_op[after[narrower]]  # the fence, not the read, limits it
    return Events(block, thread, epoch, step, synced, scope, rows, op)


def _synchronizing(c, releases: Events, acquires: Events):
    """(releases, acquires, together, anyway, truncated): the releases and acquires that
    synchronize with some other, and [i, j] release i synchronizes with acquire j as scopes
    allow (together) or were every scope wide (anyway). An acquire that only reads what an
    earlier acquire of its thread already read from (a spin's reads) adds nothing and is
    left out. At most MAX_EVENTS of each, the earliest (truncated: some were left)."""
    releases = releases.take(stable_order(_write_positions(c, releases.row, acquires.row)[0]))
    low, high = _read_intervals(c, releases, acquires)
    kept = np.flatnonzero(_adds_releases(acquires, c["unit"][acquires.row], low, high))
    truncated = len(kept) > MAX_EVENTS
    kept = kept[stable_order(acquires.step[kept])[:MAX_EVENTS]]
    kept.sort()
    acquires, low, high = acquires.take(kept), low[kept], high[kept]
    covered = np.zeros(len(releases) + 1, dtype=np.int64)
    np.add.at(covered, low, 1)
    np.add.at(covered, high, -1)
    used = np.flatnonzero(np.cumsum(covered)[:-1] > 0)
    truncated |= len(used) > MAX_EVENTS
    used = np.sort(used[stable_order(releases.step[used])[:MAX_EVENTS]])
    releases = releases.take(used)
    low, high = np.searchsorted(used, low), np.searchsorted(used, high)  # in the kept releases
    index = np.arange(len(releases))[:, None]
    anyway = (index >= low[None, :]) & (index < high[None, :])
    wide = (np.minimum(releases.scope[:, None], acquires.scope[None, :]) > BLOCK_SCOPE) \
        | (releases.block[:, None] == acquires.block[None, :])
    return releases, acquires, anyway & wide, anyway, truncated


def _write_positions(c, release_rows, acquire_rows):
    """(positions of the releases, of the acquires' reads, the writes) in the order the
    interpreter executed the writes to the acquires' units (an acquire's position: the
    write it read, the last one before it; an atomic reads the write before its own)."""
    unit = c["unit"]
    writes = np.flatnonzero(np.isin(unit, unit[acquire_rows]) & (c["action"] != READ))
    columns = lambda rows: (unit[rows], c["step"][rows], c["block"][rows], c["thread"][rows])  # noqa: E731
    write_key, (release_key, acquire_key) = _keys(columns(writes), columns(release_rows), columns(acquire_rows))
    order = stable_order(write_key)
    write_key, writes = write_key[order], writes[order]
    return (np.searchsorted(write_key, release_key, side="left"),
            np.searchsorted(write_key, acquire_key, side="left") - 1, writes)


def _read_intervals(c, releases: Events, acquires: Events) -> tuple[np.ndarray, np.ndarray]:
    """Per acquire, [low, high): the releases (sorted by their writes' order) it synchronizes
    with: it reads, at their unit, a value of their release sequence (their write, then only
    read-modify-writes). Empty when it reads none."""
    unit = c["unit"]
    r_position, read_from, writes = _write_positions(c, releases.row, acquires.row)
    first_of_unit = np.searchsorted(unit[writes], unit[writes], side="left")
    plain_store = np.where(c["action"][writes] != ATOMIC, np.arange(len(writes)), -1)
    head_of = np.maximum(np.maximum.accumulate(plain_store) if len(writes) else plain_store, first_of_unit)
    valid = (read_from >= 0) & (unit[writes[np.maximum(read_from, 0)]] == unit[acquires.row])
    head = head_of[np.maximum(read_from, 0)]
    low = np.searchsorted(r_position, head, side="left")
    high = np.searchsorted(r_position, read_from, side="right")
    return np.where(valid, low, 0), np.where(valid, np.maximum(high, low), 0)


def _adds_releases(acquires: Events, unit: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Per acquire, whether it synchronizes with a release no earlier acquire of its thread
    at its unit did (later reads of one thread only ever see later writes)."""
    order = columns_order((acquires.block, acquires.thread, unit.astype(np.int64), acquires.step))
    group = _keys((acquires.block[order], acquires.thread[order], unit[order].astype(np.int64)))[0]
    span = np.int64(high.max(initial=0) + 1)
    running = np.maximum.accumulate(high[order] + group * span)
    before = np.r_[np.int64(-1), running[:-1]] - group * span  # negative when from another group
    adds = np.empty(len(order), dtype=bool)
    adds[order] = (high[order] > np.maximum(before, low[order])) & (low[order] < high[order])
    return adds


def _program_order(acquires: Events, releases: Events) -> np.ndarray:
    """[j, i]: acquire j comes before release i's cover point in its block."""
    return _precedes(tuple(v[:, None] for v in acquires.columns), tuple(v[None, :] for v in releases.columns))


def _precedes(x, y) -> np.ndarray:
    """Whether program and barrier order put x before y, each (block, thread, epoch, step,
    warp syncs) arrays that broadcast: one block, and an earlier epoch, or earlier in the same
    thread, or in the same warp and epoch before a __syncwarp."""
    (x_block, x_thread, x_epoch, x_step, x_synced), (y_block, y_thread, y_epoch, y_step, y_synced) = x, y
    in_thread = (x_thread == y_thread) & (x_step < y_step)
    in_warp = (x_thread // 32 == y_thread // 32) & (x_epoch == y_epoch) & (x_synced < y_synced)
    return (x_block == y_block) & ((x_epoch < y_epoch) | in_thread | in_warp)


def _closure(sync: np.ndarray, program_order: np.ndarray) -> np.ndarray:
    """[i, j]: release i reaches acquire j through synchronizes-with and program order
    (release -> acquire -> a later release of its block -> ...), by squaring the hops
    between releases: as many matrix products as the log of the longest chain."""
    to_release = (sync.astype(np.float32) @ program_order.astype(np.float32)) > 0  # [i, k]: one hop
    if not to_release.any():
        return sync
    hops = to_release | np.eye(len(to_release), dtype=bool)
    while True:
        grown = (hops.astype(np.float32) @ hops.astype(np.float32)) > 0
        if (grown == hops).all():
            return (hops.astype(np.float32) @ sync.astype(np.float32)) > 0
        hops = grown


def _suffix_or(rows: np.ndarray, columns) -> np.ndarray:
    """Per event, the OR of `rows` over the events with its leading column values (all but
    the last) and a last value at least its own."""
    order = columns_order(columns)
    leading = _keys(tuple(col[order] for col in columns[:-1]))[0]
    counts = np.cumsum(rows[order][::-1].astype(np.int32), axis=0)[::-1]  # from each position to the end
    group_end = np.searchsorted(leading, leading, side="right")  # one past the last of its group
    after = np.vstack([counts, np.zeros((1, rows.shape[1]), dtype=np.int32)])[group_end]
    out = np.empty_like(rows)
    out[order] = (counts - after) > 0
    return out


def _first_after(columns, query) -> np.ndarray:
    """Per query, the event with the same leading values and the smallest last value
    greater than the query's (-1 if none)."""
    event_key, (at_most,) = _keys(columns, query)
    leading_key, (same_leading,) = _keys(columns[:-1], query[:-1])
    order = stable_order(event_key)
    position = np.searchsorted(event_key[order], at_most, side="right")
    found = position < len(order)
    index = order[np.minimum(position, len(order) - 1)]
    return np.where(found & (leading_key[index] == same_leading), index, -1)


def _last_before(columns, query) -> np.ndarray:
    """Per query, the event with the same leading values and the largest last value
    smaller than the query's (-1 if none)."""
    event_key, (query_key,) = _keys(columns, query)
    leading_key, (same_leading,) = _keys(columns[:-1], query[:-1])
    order = stable_order(event_key)
    position = np.searchsorted(event_key[order], query_key, side="left") - 1
    index = order[np.maximum(position, 0)]
    return np.where((position >= 0) & (leading_key[index] == same_leading), index, -1)


def _range_before(columns, query) -> tuple[np.ndarray, np.ndarray]:
    """Per query, [low, high): the positions, in the events' sorted order, of the events
    with the query's leading values and a smaller last value."""
    lowest = np.full(len(query[0]), np.iinfo(np.int64).min)
    event_key, (low_key, high_key) = _keys(columns, (*query[:-1], lowest), query)
    event_key = np.sort(event_key)
    return np.searchsorted(event_key, low_key, side="left"), np.searchsorted(event_key, high_key, side="left")


def _index_of(events: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Per row, the index of the event made by that row (-1 if none)."""
    if len(events) == 0:
        return np.full(len(rows), -1)
    order = stable_order(events)
    found = order[np.minimum(np.searchsorted(events[order], rows), len(events) - 1)]
    return np.where(events[found] == rows, found, -1)


def _keys(columns, *queries):
    """Dense ranks of the rows of `columns` and of each query (tuples of columns alike),
    ordered as the tuples are, equal for equal tuples: one sortable int64 per row."""
    sizes = [len(columns[0])] + [len(q[0]) for q in queries]
    joined = [np.concatenate([np.asarray(c, dtype=np.int64) for c in parts])
              for parts in zip(columns, *queries)]
    if not joined:  # no leading columns: every row alike
        return np.zeros(sizes[0], dtype=np.int64), [np.zeros(n, dtype=np.int64) for n in sizes[1:]]
    order = columns_order(joined)
    sorted_columns = [c[order] for c in joined]
    new = np.zeros(len(order), dtype=bool)
    if len(order):
        new[0] = True
        for column in sorted_columns:
            new[1:] |= column[1:] != column[:-1]
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.cumsum(new)
    bounds = np.cumsum([0] + sizes)
    return rank[:sizes[0]], [rank[bounds[i]:bounds[i + 1]] for i in range(1, len(sizes))]
