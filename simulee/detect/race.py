"""Data races (DESIGN.md, "Bug semantics").

Two accesses conflict when they touch a common byte of one memory unit, come from different
threads, at least one writes, and not both are atomic (or volatile accesses of a flag a
release and an acquire synchronize through: simulee.model.ordering). A conflict is a race
when nothing orders the two accesses:
  inter-block  different blocks, same grid epoch (global memory): never ordered;
  inter-warp   same block and barrier epoch, different warps: never ordered;
  intra-warp   same warp and epoch: under the independent model (Volta and later) ordered
               only by a warp collective both lanes took part in between them; under the
               lockstep model (pre-Volta) a converged warp runs one instruction for all its
               lanes, loads before stores, so only two writes by one store, accesses on the
               two sides of a divergent branch, or a plain access and another lane's atomic
               (atomics go lane by lane), race.

The first two scopes need no pairwise search: within a partition (unit and epoch), the
accesses of each instruction are summarized by their lowest and highest agent (block or
warp), and two instructions race exactly when some agents differ. Intra-warp partitions are
small and are checked pair by pair. Races are reported once per pair of source locations.
"""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from interpreter.memory import GLOBAL, SHARED
from simulee.detect.base import Detector, LaunchRun, Rule, check_time
from simulee.model.ordering import MAX_EVENTS, Ordering
from interpreter.vocabulary import BLOCK_SCOPE, RELEASE, SCOPE_BITS
from simulee.model.findings import ERROR, WARNING, Finding, launch_of, place, where
from simulee.model.access import KIND_NAMES, READ, WRITE, MemoryAccessModel
from simulee.model.sort import columns_order, ranges, stable_order

INTER_BLOCK, INTER_WARP, INTRA_WARP = 0, 1, 2
SCOPE_NAMES = ("inter-block", "inter-warp", "intra-warp")
WARP_MODELS = ("independent", "lockstep")
INTRA_WARP_LIMIT = 512  # accesses kept per intra-warp partition (earliest first)
PAIRS_PER_CHUNK = 1 << 20  # candidate pairs enumerated at once
WARP_SYNCHRONOUS = "warp-synchronous-race"
RACES = ("data-race", "scoped-race", WARP_SYNCHRONOUS)  # every class of race
RACE_WORDS = {"data-race": "data race", "scoped-race": "scoped race", WARP_SYNCHRONOUS: "warp-synchronous race"}
WARP_SYNCHRONOUS_FIX = (": correct only while the warp runs in lockstep (before Volta); with independent thread "
                        "scheduling (sm_70 and later) put __syncwarp() between them, or make the memory volatile "
                        "and __syncwarp() after each step")


class Pairs:
    """Racing access pairs (rows of the model): first and second access, the scope, the
    partition they met in, and whether both wrote the same value."""

    def __init__(self, first, second, scope, partition, benign):
        self.first, self.second, self.scope, self.partition, self.benign = first, second, scope, partition, benign
        self.scoped = np.zeros(len(first), dtype=bool)  # ordered, were a block scope wide enough
        self.warp_synchronous = np.zeros(len(first), dtype=bool)  # ordered, were the warp in lockstep

    def without(self, drop: np.ndarray) -> "Pairs":
        keep = ~drop
        return Pairs(self.first[keep], self.second[keep], self.scope[keep], self.partition[keep], self.benign[keep])

    @staticmethod
    def empty():
        nothing = np.zeros(0, dtype=np.int64)
        return Pairs(nothing, nothing, nothing, nothing, np.zeros(0, dtype=bool))

    @staticmethod
    def join(parts: list["Pairs"]) -> "Pairs":
        return Pairs(*(np.concatenate([getattr(p, name) for p in parts])
                       for name in ("first", "second", "scope", "partition", "benign")))


class Races(Detector):
    name = "data-race"
    columns = ("synchronization",)  # none, no release, no acquire, older value, scope too narrow
    rules = (Rule("data-race", ERROR,
                  "Two threads access the same memory without synchronization, at least one writing"),
             Rule("scoped-race", ERROR,
                  "Two threads of different blocks synchronize through a block-scoped fence or atomic, which "
                  "cannot order them"),
             Rule(WARP_SYNCHRONOUS, ERROR,
                  "Two lanes of one warp race only under independent thread scheduling (sm_70 and later): "
                  "warp-synchronous code that relied on lockstep execution (a warning with --target of a GPU "
                  "before sm_70)"))

    def launch(self, run: LaunchRun) -> list[Finding]:
        found = find_races(run.model, run.warp_model)
        carried = (run.earlier or {}).get(OPEN)
        return found + _across_split(run, carried, run.earlier[OPEN_EVENTS]) if carried is not None else found

    def leave(self, run: LaunchRun, summary: dict) -> None:
        """The part's global-memory rows that races between blocks are found from (as
        `_representatives` keeps them), added to those of the parts before; from the first
        fence or release on, every access of the units atomics touch whole, with the
        fences, which order the others (_keep_synchronization); none past SYNC_ROWS. Of a
        part that ends inside barrier intervals (Events.open), the rows that races between
        warps of those intervals are found from, with those carried from the parts before
        that the intervals still hold."""
        _carry_open(run, summary)
        model = run.model
        if summary.get(ORDERED) or summary.get(FULL):
            return
        c = model.columns
        exempt(model)
        rows = np.flatnonzero(c["space"] == GLOBAL)
        synchronizing = _keep_synchronization(run, summary, rows)
        if synchronizing is None:  # more than the summary keeps: nothing is judged between parts
            summary[ORDERED] = True
            summary.pop(SUMMARY, None)
            summary.pop(SYNC, None)
            summary.setdefault("notes", []).append(ORDERED_NOTE)
            return
        rows = rows[~synchronizing]  # those kept whole are not summarized again
        rows = rows[_representatives(c, rows)]
        # rows and runs held (a run costs about two rows, and its values 8 bytes each, a row about 60), the rows
        # at the last compaction
        kept = summary.setdefault(SUMMARY, {"parts": [], "runs": [], "values": [], "rows": 0, "held_runs": 0,
                                            "compacted": 0, "growth": 2, "blocks": 0, "parts_kept": 0})
        columns = {name: c[name][rows] for name in SUMMARY_COLUMNS}
        starts, lengths, per, alone, members = _runs(columns)
        held = 2 * len(starts) + len(members) // 8
        if kept["rows"] + len(alone) + kept["held_runs"] + held > SUMMARY_ROWS:
            summary[FULL] = True  # memory bounded: the later parts left out
            note = FULL_NOTE.format(blocks=kept["blocks"]) if kept["blocks"] else \
                FULL_PARTS_NOTE.format(parts=kept["parts_kept"])
            summary.setdefault("notes", []).append(note)
            return
        kept["blocks"] = run.result.blocks_run
        kept["parts_kept"] += 1
        kept["runs"].append(_packed(dict({name: column[starts] for name, column in columns.items()}, length=lengths,
                                         per=per)))
        kept["values"].append(columns["value"][members])
        kept["parts"].append(_packed({name: column[alone] for name, column in columns.items()}))
        kept["rows"] += len(alone)
        kept["held_runs"] += held
        # compacted when it grew `growth` times (linear time); less often while that keeps most rows (every part
        # touching units of its own)
        if kept["rows"] > kept["growth"] * kept["compacted"] + COMPACT_ROWS:
            parts, before = kept.pop("parts"), kept["rows"]
            chosen = _representatives(_unpacked(parts, GROUPED), np.arange(before))
            kept["parts"] = [_packed({name: _unpacked(parts, (name,))[name][chosen] for name in SUMMARY_COLUMNS})]
            kept["rows"] = kept["compacted"] = len(chosen)
            kept["growth"] *= 2 if 4 * len(chosen) > 3 * before else 1

    def across(self, run: LaunchRun, summary: dict) -> list[Finding]:
        """Races between blocks in global memory, among the rows every part left."""
        kept = summary.get(SUMMARY)
        if not kept:
            return []
        synchronization = summary.get(SYNC)
        parts = [_packed(_overlapping(kept["parts"] + (synchronization["rows"] if synchronization else []),
                                      kept["runs"], np.concatenate(kept["values"])))]
        if not parts[0][0]:
            return []
        # first the units where a conflict is possible, from the few columns that say so
        c = _unpacked(parts, ("owner", "word", "step", "action", "exempt", "sync", "strong"))
        key = (c["owner"].astype(np.int64) << _OWNER_SHIFT) | c["word"]
        order = columns_order([key, c["step"]])  # by unit, each in the order its accesses were made
        c = {name: column[order] for name, column in c.items()}
        _units(c, key[order])
        candidates = _conflicting_units(c, np.arange(len(key)))
        kept = candidates
        if synchronization is not None:  # and the units atomics touch, whole: their releases and acquires order
            kept = np.union1d(candidates, np.flatnonzero(np.isin(c["unit"], c["unit"][c["strong"]])))
        order = order[kept]
        c = {name: _unpacked(parts, (name,))[name][order] for name in SUMMARY_COLUMNS}
        _units(c, key[order])
        c["origin"] = np.zeros(len(order), dtype=np.int64)
        model = MemoryAccessModel(c, run.result)
        rows, keys = np.searchsorted(kept, candidates), ("unit", "grid_epoch")
        if synchronization is not None:
            model.ordering = Ordering(c, synchronization["fences"])  # of every part's releases and acquires
            _units(c, key[order], model)
        if synchronization is None or not model.ordering.active:
            return summarize(model, _summarized(c, rows, keys, "block", INTER_BLOCK))
        ordering = model.ordering
        pairs = _pairwise(c, rows, keys, "block", INTER_BLOCK)
        pairs = pairs.without(ordering.ordered(pairs.first, pairs.second))
        pairs.scoped = ordering.ordered(pairs.first, pairs.second, any_scope=True)
        return summarize(model, pairs)

    def again(self, run: LaunchRun, findings: list[Finding]) -> set[tuple]:
        """Races of which `run` shows a sampled instance (Finding.pairs) again, between
        the same lines, whatever its type there."""
        wanted = {finding.key()[1:]: finding for finding in findings if finding.pairs}
        if not wanted:
            return set()
        shown: dict[tuple, set] = {}
        for finding in summarize(run.model, racing_pairs(run.model, run.warp_model), PAIRS_SEEN):
            shown.setdefault(finding.key()[1:], set()).update(finding.pairs)
        return {finding.key() for key, finding in wanted.items() if finding.pairs & shown.get(key, set())}


def find_races(model: MemoryAccessModel, warp_model: str = "independent") -> list[Finding]:
    """Every data race of the modelled launch, one finding per pair of source locations."""
    return summarize(model, racing_pairs(model, warp_model))


def racing_pairs(model: MemoryAccessModel, warp_model: str = "independent", rows=None, epoch=None,
                 origin=None) -> Pairs:
    """All racing pairs among `rows` of the model (default: every row). To ask what removing
    a barrier would do, `epoch` replaces the rows' barrier epochs and `origin` (their epochs
    before) keeps accesses of different origins apart in the summaries, so that every pair
    of instructions racing across two origins is found; inter-block races, which no barrier
    orders, are then left out."""
    if warp_model not in WARP_MODELS:
        raise ValueError(f"unknown warp model {warp_model}")
    check_time()
    c = dict(model.columns)
    rows = np.arange(len(model)) if rows is None else rows
    # two atomics (or flag accesses) never race, but between blocks only at a wide scope:
    c["exempt"] = exempt(model)
    c["wide"] = c["exempt"] & ((c["sync"] & SCOPE_BITS) != BLOCK_SCOPE)
    if epoch is not None:
        c["epoch"] = np.zeros(len(model), dtype=epoch.dtype)
        c["epoch"][rows] = epoch
    c["origin"] = np.zeros(len(model), dtype=np.int64)
    if origin is not None:
        c["origin"][rows] = origin
    if len(rows) == 0:
        return Pairs.empty()
    rows = _conflicting_units(c, rows)
    ordering = model.ordering
    # through memory (fences, flags, locks) some pairs are ordered: then every pair is looked at
    find = _pairwise if ordering.active else _summarized
    parts = [
        find(c, rows, ("unit", "block", "grid_epoch", "epoch"), "warp", INTER_WARP),
        _intra_warp(c, rows, warp_model, model),
    ]
    if origin is None:
        in_global = rows[c["space"][rows] == GLOBAL]
        parts.insert(0, find(c, in_global, ("unit", "grid_epoch"), "block", INTER_BLOCK))
    pairs = Pairs.join(parts)
    check_time()
    if ordering.active:
        pairs = pairs.without(ordering.ordered(pairs.first, pairs.second))
        pairs.scoped = ordering.ordered(pairs.first, pairs.second, any_scope=True)
    if warp_model == "independent":
        intra = np.flatnonzero(pairs.scope == INTRA_WARP)
        pairs.warp_synchronous[intra] = ~_lockstep_race(c, pairs.first[intra], pairs.second[intra])
    return pairs


SUMMARY, ORDERED, FULL = "data-race", "data-race: ordered", "data-race: full"  # entries of a summary (detect.parts)
SUMMARY_ROWS = 1 << 22  # rows (about 60 bytes each) the summary of a launch's parts holds at most
COMPACT_ROWS = 1 << 20  # rows the summary holds before it is first compacted
SYNC = "data-race: synchronization"  # what orders accesses between parts (_keep_synchronization)
SYNC_ROWS = 1 << 20  # rows on units strong accesses touch, and fence events, a launch's summary keeps at most
FULL_NOTE = ("races in global memory between blocks of different waves were judged among the first {blocks:,} "
             "blocks only: a summary of the words they touched filled what a check keeps (every block was checked "
             "for the rest)")
FULL_PARTS_NOTE = ("races in global memory between blocks were judged among the accesses of the first {parts:,} of "
                   "the parts its blocks ran in at once only: a summary of the words they touched filled what a check "
                   "keeps (each part was checked for the rest, its blocks' races included)")
ORDERED_NOTE = ("races between blocks of different waves of a launch too large to trace at once were not checked: "
                "its fences and the accesses of the flags and counters that order them passed what a check keeps "
                f"({SYNC_ROWS:,})")


OPEN = "data-race: open"  # the summary's rows of the barrier intervals a part ended inside (Events.open)
OPEN_EVENTS = "data-race: open events"  # the warp collectives and fences of those intervals' blocks
SPLIT_ORDERED = "data-race: split ordered"  # a part ending inside intervals ordered accesses through memory
SPLIT_ORDERED_NOTE = ("a barrier interval of a block made more accesses than a part of the trace holds, and its fences "
                      "and the accesses of the flags and counters that order its accesses passed what a check keeps "
                      f"({SYNC_ROWS:,}): races across the parts it was judged in were not judged")


def _keep_synchronization(run: LaunchRun, summary: dict, rows: np.ndarray) -> np.ndarray | None:
    """Of the part's global-memory `rows`, those kept whole in summary[SYNC] (whether each
    is), with the part's fences: from the first part with a fence or a release on, every
    access of a unit an atomic or volatile access touches, which the releases and acquires
    between blocks of different parts are found from (model.ordering) and what breaks a
    release sequence; the other accesses are summarized as before. None past SYNC_ROWS."""
    c = run.model.columns
    fences = run.result.events.fences
    synchronization = summary.get(SYNC)
    if synchronization is None:
        if not fences and not (c["sync"][rows] & RELEASE).any():  # nothing released yet: nothing to order
            return np.zeros(len(rows), dtype=bool)
        synchronization = summary[SYNC] = {"rows": [], "fences": [], "count": 0}
    units = c["unit"][rows]
    whole = np.isin(units, units[c["strong"][rows]])
    synchronization["count"] += int(whole.sum()) + sum(len(fence[1]) for fence in fences)
    if synchronization["count"] > SYNC_ROWS:
        return None
    synchronization["rows"].append(_packed({name: c[name][rows[whole]] for name in SUMMARY_COLUMNS}))
    synchronization["fences"] += fences
    return whole


def _carry_open(run: LaunchRun, summary: dict) -> None:
    """Keep in summary[OPEN] the representatives (per word, instruction and interval, the
    lowest and highest warp and value; and per warp, its lowest and highest lane and value)
    of the rows of the barrier intervals this part ended inside, those carried before among
    them, and in summary[OPEN_EVENTS] the warp collectives of their blocks (what orders
    lanes of one warp) and their fences; from the first fence or release on, every row of
    a unit an atomic or volatile access touches, whole (what releases and acquires are found
    from). None when it ended between intervals, or past SYNC_ROWS of those (a note).
    Representatives are chosen within a unit, so only the units this part touched are
    chosen again (OpenRows)."""
    opened = run.result.events.open
    carried = summary.pop(OPEN, None)
    collectives, fences = summary.pop(OPEN_EVENTS, ([], []))
    if opened is None or summary.get(SPLIT_ORDERED):
        return
    model = run.model
    exempt(model)
    c = model.columns
    carried = carried or OpenRows()
    carried.close(opened)
    mine = np.flatnonzero(_in_intervals(c, opened))
    mine_key = _open_key({name: c[name][mine] for name in ("space", "owner", "word")})
    taken = carried.take(_distinct(mine_key))
    rows = _Joined(taken, c, mine)  # the rows carried before on the units this part touched, then its own
    key = np.concatenate([_open_key(taken), mine_key]) if taken else mine_key
    del taken, mine_key
    open_blocks = opened[0]
    collectives = _of_blocks(collectives + run.result.events.collectives, open_blocks)
    fences = _of_blocks(fences + run.result.events.fences, open_blocks)
    on_strong = np.isin(key, key[rows.column("strong")])
    whole = np.zeros(len(key), dtype=bool)
    if fences or carried.releases or (rows.column("sync") & RELEASE).any():
        whole = on_strong
        if carried.strong_rows + whole.sum() + sum(len(fence[1]) for fence in fences) > SYNC_ROWS:
            summary[SPLIT_ORDERED] = True
            summary.setdefault("notes", []).append(SPLIT_ORDERED_NOTE)
            return
    chosen = whole | _alone_on_unit(key)  # a row alone on its unit is its groups' every representative
    for piece in _by_units(key, np.flatnonzero(~chosen)):  # representatives are of one unit: a piece at a time
        some = {name: rows.column(name, piece) for name in REPRESENTED}
        at = np.arange(len(piece))
        chosen[piece[_representatives(some, at, OPEN_KEYS, "warp")]] = True
        chosen[piece[_representatives(some, at, (*OPEN_KEYS, "warp"), "thread")]] = True
        del some, at
    chosen = np.flatnonzero(chosen)
    carried.add({name: rows.column(name, chosen) for name in OPEN_COLUMNS}, np.arange(len(chosen)), key[chosen],
                on_strong[chosen])
    summary[OPEN] = carried
    summary[OPEN_EVENTS] = (collectives, fences)


class _Joined:
    """Rows `taken` (columns) followed by rows `mine` of model columns `c`, each column
    gathered when asked for, at the positions asked for alone: a part's open rows are
    millions, its representatives few."""

    def __init__(self, taken: dict, c: dict, mine: np.ndarray):
        self.taken, self.c, self.mine = taken, c, mine
        self.before = len(taken["op"]) if taken else 0

    def column(self, name: str, at: np.ndarray | None = None) -> np.ndarray:
        """Column `name` of the rows, at positions `at` (sorted) or all."""
        if at is None:
            own = self.c[name][self.mine]
            return np.concatenate([self.taken[name], own]) if self.taken else own
        split = np.searchsorted(at, self.before)
        own = self.c[name][self.mine[at[split:] - self.before]]
        return np.concatenate([self.taken[name][at[:split]], own]) if self.taken else own


CHOOSE_ROWS = 1 << 20  # rows whose representatives are chosen at once (_by_units)


def _by_units(key: np.ndarray, rows: np.ndarray):
    """`rows` (sorted) in pieces of about CHOOSE_ROWS, each sorted and holding every row of
    its units (`key`)."""
    size = CHOOSE_ROWS
    grouped = rows[np.argsort(key[rows], kind="stable")] if len(rows) > size else rows
    ordered = key[grouped]
    cuts = np.flatnonzero(ordered[1:] != ordered[:-1]) + 1 if len(rows) > size else []  # where a unit begins
    if len(cuts) == 0:
        yield rows
        return
    ends = np.unique(cuts[np.minimum(np.searchsorted(cuts, np.arange(size, len(rows), size)), len(cuts) - 1)])
    for low, high in zip(np.r_[0, ends], np.r_[ends, len(rows)]):
        yield np.sort(grouped[low:high])


def _alone_on_unit(key: np.ndarray) -> np.ndarray:
    """Per row, whether no other row has its `key`."""
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    shared = np.zeros(len(key), dtype=bool)
    if len(key) > 1:
        same = ordered[1:] == ordered[:-1]
        shared[1:] |= same
        shared[:-1] |= same
    alone = np.empty(len(key), dtype=bool)
    alone[order] = ~shared
    return alone


class OpenRows:
    """The rows carried across the parts of barrier intervals (summary[OPEN]), in chunks:
    the rows of one unit are in one chunk, that of the last part that touched it, so that a
    part costs what its own units hold, not all carried. A chunk holds its rows alone
    (CARRIED with "key", the unit, and "on_strong", whether a strong access touches
    it; sorted by key) and its runs (_runs: a warp's lanes on consecutive words, as the
    first row with "length", "per" (_runs) and "value_at", where its values start in the chunk's
    "values"; sorted by key), so that coalesced accesses cost a row a warp and their values."""

    def __init__(self):
        self.chunks: list[dict] = []

    @property
    def strong_rows(self) -> int:
        """Rows on units an atomic or volatile access touches."""
        return sum(chunk["strong_rows"] for chunk in self.chunks)

    @property
    def releases(self) -> bool:
        return any(chunk["releases"] for chunk in self.chunks)

    def __len__(self) -> int:
        """Rows carried, a run's counted once."""
        return sum(len(chunk["rows"]["key"]) + len(chunk["runs"]["key"]) for chunk in self.chunks)

    def add(self, columns: dict, chosen: np.ndarray, key: np.ndarray, on_strong: np.ndarray) -> None:
        """Carry the `chosen` rows of `columns` (OPEN_COLUMNS), of units `key`."""
        if len(chosen) == 0:
            return
        weak = chosen[~on_strong[chosen]]  # rows on units strong accesses touch stay rows: they order the others
        starts, lengths, per, alone, members = _runs(columns, OPEN_COLUMNS, counting=("word", "thread", "lane"),
                                                     free=(), rows=weak)
        alone = np.sort(np.r_[weak[alone], chosen[on_strong[chosen]]])
        starts, members = weak[starts], weak[members]
        rows, runs = np.argsort(key[alone], kind="stable"), np.argsort(key[starts], kind="stable")
        members = members[ranges((np.cumsum(lengths) - lengths)[runs], lengths[runs])]
        alone, starts, lengths, per = alone[rows], starts[runs], lengths[runs], per[runs]
        self.chunks.append(_described({
            "rows": dict({name: columns[name][alone] for name in CARRIED}, key=key[alone], on_strong=on_strong[alone]),
            "runs": dict({name: columns[name][starts] for name in CARRIED}, key=key[starts], length=lengths, per=per,
                         value_at=np.cumsum(lengths) - lengths),
            "values": columns["value"][members]}))

    def intervals(self) -> tuple[np.ndarray, np.ndarray]:
        """(blocks, the epoch of each) of the intervals rows are carried of."""
        if not self.chunks:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int32)
        interval = _distinct(np.concatenate([chunk["intervals"] for chunk in self.chunks]))
        return interval >> 32, interval & 0xFFFFFFFF

    def close(self, opened: tuple[np.ndarray, np.ndarray]) -> None:
        """Let go of the rows of intervals that are no longer open."""
        kept = []
        for chunk in self.chunks:
            interval = chunk["intervals"]
            still = _in_intervals({"block": interval >> 32, "epoch": interval & 0xFFFFFFFF}, opened)
            if still.all():
                kept.append(chunk)
            elif still.any():
                self._keep(chunk, ~_in_intervals(chunk["rows"], opened), ~_in_intervals(chunk["runs"], opened), kept)
        self.chunks = kept

    def take(self, keys: np.ndarray) -> dict:
        """Remove and return (as columns) the rows of units `keys` (sorted): those of runs
        that touch one of them, every row of the run."""
        taken, kept = [], []
        for chunk in self.chunks:
            rows, runs = _rows_of(chunk["rows"]["key"], keys), _runs_of(chunk["runs"], keys)
            if len(rows) == 0 and len(runs) == 0:
                kept.append(chunk)
                continue
            taken += [{name: chunk["rows"][name][rows] for name in CARRIED}, _expanded(chunk, runs)]
            self._keep(chunk, rows, runs, kept)
        self.chunks = kept
        return _joined(taken)

    def rows_for(self, keys: np.ndarray) -> dict:
        """The rows (as columns) of units `keys` (sorted), those of runs that touch one of
        them, and of every unit a strong access touches (what orders the others)."""
        found = []
        for chunk in self.chunks:
            table = chunk["rows"]
            rows = _rows_of(table["key"], keys)
            if chunk["strong_rows"]:
                wanted = table["on_strong"].copy()
                wanted[rows] = True
                rows = np.flatnonzero(wanted)
            found += [{name: table[name][rows] for name in CARRIED},
                      _expanded(chunk, _runs_of(chunk["runs"], keys))]
        return _joined(found)

    @staticmethod
    def _keep(chunk: dict, rows: np.ndarray, runs: np.ndarray, kept: list) -> None:
        """Keep `chunk` but its `rows` and `runs` (positions, or masks of them), if any is
        left, in `kept`."""
        tables = {}
        for name, gone in (("rows", rows), ("runs", runs)):
            left = np.ones(len(chunk[name]["key"]), dtype=bool)
            left[gone] = False
            count = int(left.sum())
            tables[name] = {column: np.broadcast_to(values[:1], count) if values.strides == (0,) else values[left]
                            for column, values in chunk[name].items()}
        runs = tables["runs"]  # the values of the runs left, and where each run's start now
        tables["values"] = chunk["values"][ranges(runs["value_at"], runs["length"])]
        runs["value_at"] = np.cumsum(runs["length"]) - runs["length"]
        if len(tables["rows"]["key"]) or len(runs["key"]):
            kept.append(_described(tables))


def _described(chunk: dict) -> dict:
    """`chunk` (OpenRows) stored narrow (_narrow), with what is asked of it as a whole: its
    rows on units a strong access touches, whether it releases, and its intervals (block <<
    32 | epoch)."""
    rows, runs = chunk["rows"], chunk["runs"] = _narrow(chunk["rows"]), _narrow(chunk["runs"])
    chunk.update(strong_rows=int(rows["on_strong"].sum()),
                 releases=bool((rows["sync"] & RELEASE).any() or (runs["sync"] & RELEASE).any()),
                 intervals=_distinct(np.r_[(rows["block"].astype(np.int64) << 32) | rows["epoch"],
                                           (runs["block"].astype(np.int64) << 32) | runs["epoch"]]))
    return chunk


NARROWED = ("owner", "word", "epoch", "grid_epoch", "block", "thread", "op", "step", "warp_sync")  # signed: _narrow
SIGNED = (np.int8, np.int16, np.int32)


def _narrow(table: dict) -> dict:
    """The columns of `table` (a chunk's rows or runs), each that holds one value throughout
    as a read-only view of that value alone, and each of NARROWED in the narrowest signed
    type that holds its values: a chunk's rows mostly share their memory, epochs,
    synchronization and taint, and what varies (block, thread, instruction) is small. Their
    types are the model's again where they are joined with a part's rows (np.concatenate)."""
    count = len(table["key"])
    if count == 0:
        return table
    narrow = {}
    for name, column in table.items():
        if column.strides != (0,) and (column == column[0]).all():
            column = np.broadcast_to(column[:1].copy(), count)
        elif name in NARROWED and column.strides != (0,):
            low, high = int(column.min()), int(column.max())
            fits = [kind for kind in SIGNED if np.iinfo(kind).min <= low and high <= np.iinfo(kind).max]
            if fits and np.dtype(fits[0]).itemsize < column.dtype.itemsize:
                column = column.astype(fits[0])
        narrow[name] = column
    return narrow


def _runs_of(runs: dict, keys: np.ndarray) -> np.ndarray:
    """The positions of `runs` (OpenRows, sorted by key) that touch one of `keys` (sorted)."""
    if len(runs["key"]) == 0 or len(keys) == 0:
        return np.zeros(0, dtype=np.int64)
    lowest = keys - (int(runs["length"].max()) - 1)  # a run that touches a key starts at most this far before
    lowest[lowest > keys] = np.iinfo(np.int64).min  # wrapped around
    low, high = np.searchsorted(runs["key"], lowest, "left"), np.searchsorted(runs["key"], keys, "right")
    count = high - low
    candidate = ranges(low, count)
    touched = np.repeat(keys, count) - runs["key"][candidate] < runs["length"][candidate]
    return _distinct(candidate[touched])


def _expanded(chunk: dict, positions: np.ndarray) -> dict:
    """The rows (CARRIED) of a chunk's runs at `positions`: each step on in word, and in
    thread at each access's first word (_runs' per), with its value."""
    runs = chunk["runs"]
    lengths = runs["length"][positions]
    each = np.repeat(positions, lengths)
    step = ranges(0, lengths)
    rows = {name: runs[name][each] for name in CARRIED}
    first = rows["word"].astype(np.int64)
    rows["word"] = first + step
    rows["thread"] = rows["thread"] + _advance(rows["word"], first, runs["per"][each])
    rows["value"] = chunk["values"][ranges(runs["value_at"][positions], lengths)]
    return rows


def _distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values, sorted (by sorting: NumPy's hashing np.unique is slower on millions)."""
    values = np.sort(values)
    return values[np.r_[True, values[1:] != values[:-1]]] if len(values) else values


def _rows_of(sorted_keys: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """The positions in `sorted_keys` that hold one of `keys` (sorted, distinct)."""
    low, high = np.searchsorted(sorted_keys, keys, "left"), np.searchsorted(sorted_keys, keys, "right")
    return ranges(low, high - low)


def _joined(parts: list[dict]) -> dict:
    """Columns OPEN_COLUMNS of `parts` (CARRIED; the first is never empty of names), joined."""
    parts = [part for part in parts if part] or parts[:1]
    if not parts:
        return {}
    joined = {name: np.concatenate([part[name] for part in parts]) for name in CARRIED}
    return dict(joined, warp=joined["thread"] // 32, lane=joined["thread"] % 32)


def _of_blocks(events: list[tuple], blocks: np.ndarray) -> list[tuple]:
    """Of warp collectives or fences (tuples of a step, then arrays of one entry per warp or
    thread, the first the block's, then scalars), their entries of `blocks`."""
    kept = []
    for event in events:
        mine = np.isin(event[1], blocks)
        if mine.any():
            kept.append(tuple(item[mine] if isinstance(item, np.ndarray) else item for item in event))
    return kept


def _open_key(columns: dict) -> np.ndarray:
    """Per row of summary columns, its unit: the memory, the owner and the word."""
    return ((columns["space"].astype(np.int64) << 62) | (columns["owner"].astype(np.int64) << _OWNER_SHIFT)
            | columns["word"])


def _across_split(run: LaunchRun, carried: OpenRows, events: tuple[list, list]) -> list[Finding]:
    """Races within one barrier interval, one access in the parts before (the
    representatives `carried`), the other in this part: between warps, and between lanes
    of one warp under the warp model, ordered by the interval's warp collectives, fences,
    releases and acquires so far as on a whole trace."""
    c = run.model.columns
    mine = np.flatnonzero(_in_intervals(c, carried.intervals()))
    if len(mine) == 0:
        return []
    exempt(run.model)
    mine_key = _open_key({name: c[name][mine] for name in ("space", "owner", "word")})
    carried = carried.rows_for(_distinct(mine_key))
    # of this part, only the units carried rows touch can race across, and those strong accesses touch order
    carried_key = _distinct(_open_key(carried))
    at = np.minimum(np.searchsorted(carried_key, mine_key), max(len(carried_key) - 1, 0))
    across = carried_key[at] == mine_key if len(carried_key) else np.zeros(len(mine), dtype=bool)
    mine = mine[across | np.isin(mine_key, mine_key[c["strong"][mine]])]
    del mine_key
    if len(mine) == 0 or not carried:
        return []
    carried, mine = _on_units_that_may_race(carried, c, mine)
    if len(mine) == 0 or len(carried["op"]) == 0:
        return []
    joined = _Joined(carried, c, mine).column

    key = _open_key({name: joined(name) for name in ("space", "owner", "word")})
    order = columns_order([key, joined("step")])
    columns = {name: joined(name)[order] for name in OPEN_COLUMNS}  # one column at a time: the memory of one more
    columns["origin"] = np.r_[np.zeros(len(carried["op"]), np.int64), np.ones(len(mine), np.int64)][order]
    result, (collectives, fences) = run.result, events
    model = MemoryAccessModel(columns, replace(result, events=replace(
        result.events, collectives=collectives + result.events.collectives, fences=fences + result.events.fences)))
    _units(columns, key[order], model)
    rows = _conflicting_units(columns, np.arange(len(order)))
    ordering = model.ordering
    find = _pairwise if ordering.active else _summarized
    pairs = Pairs.join([find(columns, rows, ("unit", "block", "grid_epoch", "epoch"), "warp", INTER_WARP),
                        _intra_warp(columns, rows, run.warp_model, model)])
    pairs = pairs.without(columns["origin"][pairs.first] == columns["origin"][pairs.second])
    if ordering.active:
        pairs = pairs.without(ordering.ordered(pairs.first, pairs.second))
        pairs.scoped = ordering.ordered(pairs.first, pairs.second, any_scope=True)
    if run.warp_model == "independent":
        intra = np.flatnonzero(pairs.scope == INTRA_WARP)
        pairs.warp_synchronous[intra] = ~_lockstep_race(columns, pairs.first[intra], pairs.second[intra])
    return summarize(model, pairs)


def _on_units_that_may_race(carried: dict, c: dict, mine: np.ndarray) -> tuple[dict, np.ndarray]:
    """The `carried` rows and this part's rows `mine` (of columns `c`) on units where two
    of them may race, or that an atomic or volatile access touches (what orders the
    others): units two threads touch, one of them not reading. A unit one thread alone
    touches (its own shared slot, written each trip round a loop) or every thread only
    reads (gathered data) costs nothing more. Both are never empty."""
    both = _Joined(carried, c, mine).column
    key = _open_key({name: both(name) for name in ("space", "owner", "word")})
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    agent = ((both("block").astype(np.int64) << 32) | both("thread"))[order]
    several = np.minimum.reduceat(agent, starts) != np.maximum.reduceat(agent, starts)
    del agent
    writing = np.maximum.reduceat((both("action") != READ)[order], starts)
    strong = np.maximum.reduceat(both("strong")[order], starts)
    unit_kept = strong | (several & writing)
    kept = np.empty(len(key), dtype=bool)
    kept[order] = np.repeat(unit_kept, np.diff(np.r_[starts, len(key)]))
    before = len(carried["op"])
    return {name: column[kept[:before]] for name, column in carried.items()}, mine[kept[before:]]


def _in_intervals(c: dict, intervals: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Per row, whether its block is in the barrier interval `intervals` gives it (blocks,
    the epoch of each)."""
    blocks, epochs = intervals
    span = int(max(epochs.max(initial=0), c["epoch"].max(initial=0))) + 1
    return np.isin(c["block"].astype(np.int64) * span + c["epoch"],
                   blocks.astype(np.int64) * span + epochs.astype(np.int64))


# what races between blocks are found and explained from (_summarized, summarize, Ordering)
SUMMARY_COLUMNS = ("space", "owner", "word", "mask", "epoch", "grid_epoch", "block", "thread", "action", "op", "step",
                   "value", "sync", "taint", "divergent", "volatile", "atomic", "strong", "decides", "seeds", "swaps",
                   "exempt", "warp_sync")


def _packed(columns: dict[str, np.ndarray]) -> dict:
    """Summary columns, each that holds one value throughout as that value alone (taint,
    synchronization and epochs mostly do): (count, {name: array or 0-d array})."""
    count = len(columns["op"])
    return count, {name: column[:1].reshape(()) if count and (column == column[0]).all() else column
                   for name, column in columns.items()}


def _unpacked(parts: list, names=SUMMARY_COLUMNS) -> dict[str, np.ndarray]:
    """The columns `names` of packed parts, joined."""
    return {name: np.concatenate([np.full(count, part[name]) if part[name].ndim == 0 else part[name]
                                  for count, part in parts]) for name in names}


GROUP_KEYS = ("owner", "word", "grid_epoch", "op", "mask", "action", "sync", "exempt")  # and taint, any or none
GROUPED = (*GROUP_KEYS, "taint", "block", "value")  # what _representatives reads
OPEN_KEYS = ("space", *GROUP_KEYS, "block", "epoch")  # of the rows of intervals a part ended inside
REPRESENTED = (*OPEN_KEYS, "warp", "thread", "value", "taint")  # what _representatives reads of them
OPEN_COLUMNS = (*SUMMARY_COLUMNS, "warp", "lane", "active")
CARRIED = (*SUMMARY_COLUMNS, "active")  # what OpenRows keeps of OPEN_COLUMNS: warp and lane follow from thread


RUN = 8  # rows a run of consecutive words takes at least to be kept as one (_runs)


def _runs(c: dict[str, np.ndarray], names=SUMMARY_COLUMNS, counting=("word", "thread"), free=("step",),
          rows: np.ndarray | None = None, aside=("value",)) -> tuple[np.ndarray, ...]:
    """Runs among summary rows (of `rows` of them, positions in `rows`): RUN or more rows
    alike in all `names` but their `counting` ones, the first (the word) each the last's
    plus one and the others one more at each access's first word (an access spans `per`
    words, the same for the whole run: 1, or 2 or 4 for 8- and 16-byte accesses, aligned),
    and their `free` ones (one instruction and block, and one value: reads, a constant
    stored): what threads do to consecutive elements, kept as its first row, its length
    and its `per`; their `aside` ones may differ (the values a warp stores), kept per row
    of each run. (rows starting runs, their lengths, their pers, the rows in none, the rows
    of each run in order, run after run)."""
    def column(name: str) -> np.ndarray:
        return c[name] if rows is None else c[name][rows]

    count = len(c["op"]) if rows is None else len(rows)
    if count == 0:
        return (np.zeros(0, dtype=np.int64),) * 5
    varying = {}  # of the columns that must be alike, those not alike throughout
    for name in names:
        values = column(name) if name not in (*counting, *free, *aside) else None
        if values is not None and not (values == values[0]).all():
            varying[name] = values
    alike = list(varying)
    counted = {name: column(name).astype(np.int64) for name in counting}
    left = np.lexsort((counted["word"], *(varying[name] for name in reversed(alike))))
    found = []
    for per in WIDTHS:  # each width among the rows no narrower one ran through
        starts, lengths, members, left = _runs_of_width(counted, varying, left, per)
        found.append((starts, lengths, np.full(len(starts), per), members))
        if len(left) < RUN:
            break
    starts, lengths, pers, members = (np.concatenate(parts) for parts in zip(*found))
    return starts, lengths, pers, np.sort(left), members


WIDTHS = (1, 2, 4)  # words an access of a run spans: a 4-byte one, then 8 bytes (double, int2), then 16 (float4)


def _runs_of_width(counted: dict, varying: dict, order: np.ndarray, per: int) -> tuple[np.ndarray, ...]:
    """_runs of accesses spanning `per` words among rows `order` (sorted by the columns
    `varying`, then by word): (rows starting runs, their lengths, the rows of each run, the
    rows in none, in `order`'s order)."""
    count = len(order)
    follows = np.zeros(count, dtype=bool)  # each row in order continues the run of the one before
    follows[1:] = True
    word = counted["word"][order]
    follows[1:] &= np.diff(word) == 1
    first = word[1:] % per == 0  # the row is the first word of its thread's access
    for name, values in counted.items():
        if name != "word":
            follows[1:] &= np.diff(values[order]) == first
    for values in varying.values():
        values = values[order]
        follows[1:] &= values[1:] == values[:-1]
    starts = np.flatnonzero(~follows)
    lengths = np.diff(np.r_[starts, count])
    long = lengths >= RUN
    in_run = np.repeat(long, lengths)
    return order[starts[long]], lengths[long], order[ranges(starts[long], lengths[long])], order[~in_run]


def _advance(word: np.ndarray, first_word: np.ndarray, per: np.ndarray) -> np.ndarray:
    """How many accesses (threads, lanes) a run of `per` words an access, starting at
    `first_word`, is past its first at `word`."""
    return word // per - first_word // per


def _overlapping(rows: list, runs: list, values: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Of the summary's rows and runs (packed, _packed), the rows (runs' expanded) of every
    unit that rows or runs of two or more blocks touch: what one block alone touches races
    with no other block (what it does within itself its parts judged), and a launch whose
    blocks each touch their own elements expands nothing. Found on intervals, each the words
    of a row (one) or a run; the other columns are read only for the rows kept, one at a
    time. `values`: the runs' values, each run's in order, run after run (_runs' aside);
    None: each run's value is its first row's."""
    row_at = _unpacked(rows, ("owner", "word", "block"))
    run_at = _unpacked(runs, ("owner", "word", "block", "length", "per"))
    owner = np.r_[row_at["owner"], run_at["owner"]].astype(np.int64)
    if len(owner) == 0:
        return _unpacked(rows)
    start = np.r_[row_at["word"], run_at["word"]].astype(np.int64) + (owner << _OWNER_SHIFT)
    end = start + np.r_[np.ones(len(row_at["word"]), dtype=np.int64), run_at["length"]]
    low, high = _touched_by_several(np.r_[row_at["block"], run_at["block"]].astype(np.int64), start, end)
    # each interval's pieces inside those spans, then each piece's words
    first, last = np.searchsorted(high, start, side="right"), np.searchsorted(low, end, side="left")
    count = np.maximum(last - first, 0)
    interval = np.repeat(np.arange(len(start)), count)
    span = ranges(first, count)
    piece_low, piece_high = np.maximum(start[interval], low[span]), np.minimum(end[interval], high[span])
    count = piece_high - piece_low
    word = ranges(piece_low, count)
    interval = np.repeat(interval, count)
    word -= owner[interval] << _OWNER_SHIFT
    singles = len(row_at["word"])
    from_run = interval >= singles
    run, single = interval[from_run] - singles, interval[~from_run]
    result = {}
    for name in SUMMARY_COLUMNS:
        of_rows, of_runs = _unpacked(rows, (name,))[name], _unpacked(runs, (name,))[name]
        column = np.empty(len(interval), dtype=of_rows.dtype)
        column[~from_run] = of_rows[single]
        column[from_run] = of_runs[run]
        result[name] = column
    result["word"] = word.astype(result["word"].dtype)
    first = run_at["word"][run].astype(np.int64)
    step = word[from_run] - first
    advance = _advance(word[from_run], first, run_at["per"][run])
    result["thread"][from_run] = (result["thread"][from_run] + advance).astype(result["thread"].dtype)
    if values is not None:
        lengths = run_at["length"].astype(np.int64)
        result["value"][from_run] = values[(np.cumsum(lengths) - lengths)[run] + step]
    return result


_OWNER_SHIFT = 38  # a word's place in all of global memory: its region above its index


def _touched_by_several(block: np.ndarray, start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The places [low, high) that intervals [start, end) of two or more blocks cover: sorted,
    disjoint spans. Each block's intervals are joined first, so that one block's accesses
    alone never make a span."""
    places = _distinct(np.r_[start, end])
    # ranks: small, in order (_running_max); found by searching, lighter than np.unique's inverse
    start, end = np.searchsorted(places, start), np.searchsorted(places, end)
    order = np.lexsort((start, block))
    block, start, end = block[order], start[order], end[order]
    new_block = np.r_[True, block[1:] != block[:-1]]
    reach = _running_max(end, new_block)
    begins = new_block | np.r_[True, start[1:] > reach[:-1]]
    union_start = start[begins]
    union_end = reach[np.r_[np.flatnonzero(begins)[1:] - 1, len(start) - 1]]
    # coverage by the unions, event by event (an end before a start at one place: half-open)
    at = np.r_[union_end, union_start]
    change = np.r_[np.full(len(union_end), -1), np.ones(len(union_start), dtype=np.int64)]
    order = np.lexsort((change, at))
    at, covered = at[order], np.cumsum(change[order])
    several = np.flatnonzero((covered[:-1] >= 2) & (at[1:] > at[:-1]))
    return places[at[several]], places[at[several + 1]]


def _running_max(values: np.ndarray, restart: np.ndarray) -> np.ndarray:
    """The running maximum of `values`, starting again where `restart` is set."""
    segment = np.cumsum(restart) - 1
    shift = (segment * (int(values.max()) - int(values.min()) + 1)) if len(values) else segment
    return np.maximum.accumulate(values - values.min() + shift) - shift + values.min() if len(values) else values


def _units(c: dict, key: np.ndarray, model: MemoryAccessModel | None = None) -> None:
    """Number the rows of summary columns `c`, sorted by unit `key`, by unit, and add the
    column of the accesses that cannot race between blocks (with `model`, of `c`, exempt
    again by its flags)."""
    c["unit"] = np.cumsum(np.r_[0, key[1:] != key[:-1]]) if len(key) else np.zeros(0, dtype=np.int64)
    if model is not None:
        c.pop("exempt")
        exempt(model)
    c["wide"] = c["exempt"] & ((c["sync"] & SCOPE_BITS) != BLOCK_SCOPE)


def _representatives(c, rows, group_keys=GROUP_KEYS, agent: str = "block") -> np.ndarray:
    """Of global-memory `rows`, those (positions in `rows`) that keep what `_summarized`
    reads of races between blocks: per group of one unit, grid epoch, instruction, mask,
    action, synchronization, exemption and taint (any or none), the rows of its lowest and
    highest block and of its lowest and highest value. (Of other `group_keys`, the rows
    of the lowest and highest `agent`.)"""
    if len(rows) == 0:
        return np.zeros(0, dtype=np.int64)
    keys = [c[name][rows] for name in group_keys]
    keys.append(c["taint"][rows] != 0)
    order = columns_order(keys)  # by group, then by position
    change = np.zeros(len(rows), dtype=bool)
    change[0] = True
    for column in keys:
        values = column[order]
        change[1:] |= values[1:] != values[:-1]
    starts = np.flatnonzero(change)
    group = np.cumsum(change) - 1  # of each row in `order`
    kept = np.zeros(len(rows), dtype=bool)
    for name in (agent, "value"):
        values = c[name][rows][order]
        for extreme, first in ((np.minimum, True), (np.maximum, False)):
            # the first row holding the group's least value, the last holding its greatest
            at = np.flatnonzero(values == extreme.reduceat(values, starts)[group])
            at_group = group[at]
            edge = np.r_[True, at_group[1:] != at_group[:-1]] if first else np.r_[at_group[1:] != at_group[:-1], True]
            kept[order[at[edge]]] = True
    return np.flatnonzero(kept)


def exempt(model: MemoryAccessModel) -> np.ndarray:
    """Per row, whether it is an access that races with no other such one: an atomic, or a
    volatile access of a flag (a unit a release synchronizes with an acquire through)."""
    c = model.columns
    if "exempt" not in c:
        flags = model.ordering.flags
        c["exempt"] = c["atomic"] | (c["volatile"] & np.isin(c["unit"], flags) if len(flags) else c["atomic"])
    return c["exempt"]


def _conflicting_units(c, rows) -> np.ndarray:
    """The rows (of `rows`, sorted) on units where a conflict is possible: a plain write, or
    an atomic beside a plain access. (Read-only data and atomic-only counters cannot race.)"""
    unit = c["unit"][rows]
    starts = np.r_[0, np.flatnonzero(unit[1:] != unit[:-1]) + 1]
    possible = _conflict_possible(c, rows, starts, "wide")
    return rows[np.repeat(possible, np.diff(np.r_[starts, len(rows)]))]


def _conflict_possible(c, rows, starts: np.ndarray, column: str) -> np.ndarray:
    """Per run of `rows` starting at `starts`: a plain write, or a strong (atomic or
    volatile; `column` says which count) write beside a plain access."""
    writes, strong_ = c["action"][rows] != READ, c[column][rows]
    plain_write = np.logical_or.reduceat(writes & ~strong_, starts)
    strong_write = np.logical_or.reduceat(writes & strong_, starts)
    plain = np.logical_or.reduceat(~strong_, starts)
    return plain_write | (strong_write & plain)


def _partition(c, rows, keys, of=None) -> tuple[np.ndarray, np.ndarray]:
    """Rows sorted by the partition keys, and each row's partition number. `of` maps
    `rows` to the model's rows whose keys they take (default: they are the model's rows)."""
    model_rows = rows if of is None else of[rows]
    order = columns_order([c[k][model_rows] for k in keys])
    rows, model_rows = rows[order], model_rows[order]
    change = np.zeros(len(rows), dtype=bool)
    for k in keys:
        values = c[k][model_rows]
        change[1:] |= values[1:] != values[:-1]
    return rows, np.cumsum(change)


def _strength(agent: str) -> str:
    """The column of accesses that cannot race with each other between two `agent`s."""
    return "wide" if agent == "block" else "exempt"


def _keep_partitions(c, rows, part, agent) -> np.ndarray:
    """Rows of the partitions with two or more agents where a conflict is possible."""
    starts = np.r_[0, np.flatnonzero(part[1:] != part[:-1]) + 1]
    agents = c[agent][rows]
    several = np.minimum.reduceat(agents, starts) != np.maximum.reduceat(agents, starts)
    possible = _conflict_possible(c, rows, starts, _strength(agent))
    return (several & possible)[part]  # partitions are numbered 0, 1, ... in row order


def _summarized(c, rows, keys, agent, scope) -> Pairs:
    """Races between different agents of one partition, found from per-instruction
    summaries (lowest and highest agent) rather than from every pair of accesses."""
    if len(rows) == 0:
        return Pairs.empty()
    rows, part = _partition(c, rows, keys)
    keep = _keep_partitions(c, rows, part, agent)
    rows, part = rows[keep], part[keep]
    if len(rows) == 0:
        return Pairs.empty()
    # groups: accesses of one instruction with one mask, action and origin, sorted by agent
    group_keys = ("op", "mask", "action", "origin")
    order = columns_order([part] + [c[k][rows] for k in group_keys] + [c[agent][rows]])
    rows, part = rows[order], part[order]
    group_change = np.r_[True, part[1:] != part[:-1]]
    for k in group_keys:
        values = c[k][rows]
        group_change[1:] |= values[1:] != values[:-1]
    starts = np.flatnonzero(group_change)
    ends = np.r_[starts[1:], len(rows)] - 1
    low_row, high_row = rows[starts], rows[ends]
    low, high = c[agent][low_row], c[agent][high_row]
    values = c["value"][rows]
    same_value = (np.minimum.reduceat(values, starts) == np.maximum.reduceat(values, starts))
    group_part = part[starts]
    # pairs of groups (i <= j) within a partition
    part_end = np.r_[np.flatnonzero(group_part[1:] != group_part[:-1]) + 1, len(starts)]
    end_of = np.repeat(part_end, np.diff(np.r_[0, part_end]))
    lengths = end_of - np.arange(len(starts))
    i = np.repeat(np.arange(len(starts)), lengths)
    j = ranges(np.arange(len(starts)), lengths)
    action_i, action_j = c["action"][low_row[i]], c["action"][low_row[j]]
    writes = (action_i != READ) | (action_j != READ)
    strong_ = c[_strength(agent)]
    not_both_atomic = ~(strong_[low_row[i]] & strong_[low_row[j]])
    overlap = (c["mask"][low_row[i]] & c["mask"][low_row[j]]) != 0
    differ = np.where(i == j, low[i] != high[i], np.minimum(low[i], low[j]) != np.maximum(high[i], high[j]))
    race = writes & not_both_atomic & overlap & differ
    i, j = i[race], j[race]
    same = i == j
    use_low_high = same | (low[i] != high[j])
    first = np.where(use_low_high, low_row[i], high_row[i])
    second = np.where(use_low_high, high_row[j], low_row[j])
    both_store = (c["action"][first] == WRITE) & (c["action"][second] == WRITE)
    benign = both_store & same_value[i] & same_value[j] & (c["value"][low_row[i]] == c["value"][low_row[j]])
    partition = group_part[i] + (scope << 48)
    return Pairs(first, second, np.full(len(first), scope), partition, benign)


def _pairwise(c, rows, keys, agent, scope) -> Pairs:
    """Races between different agents of one partition, pair by pair (the earliest
    INTRA_WARP_LIMIT accesses of each partition)."""
    return _racing(c, *_conflicting_pairs(c, rows, keys, agent), scope)


def _intra_warp(c, rows, warp_model: str, model: MemoryAccessModel) -> Pairs:
    """Races between lanes of one warp in one epoch, pair by pair, under the warp model."""
    a, b, pair_part = _conflicting_pairs(c, rows, ("unit", "block", "grid_epoch", "epoch", "warp"), "thread")
    check_time()
    race = _lockstep_race(c, a, b) if warp_model == "lockstep" else ~_collective_between(c, a, b, model)
    return _racing(c, a[race], b[race], pair_part[race], INTRA_WARP)


def _lockstep_race(c, a, b) -> np.ndarray:
    """Whether lanes' accesses a[i], b[i] of one warp race when it runs in lockstep: two
    writes of one store (unless both lanes read the word again to check whose write won, as
    tagged-write histograms retry), accesses on the two sides of a divergent branch, or a
    plain access and an atomic (whatever the model: an atomic of a warp runs lane by lane)."""
    both_write = (c["action"][a] != READ) & (c["action"][b] != READ)
    same_step = c["step"][a] == c["step"][b]
    checked = _checked_later(c, np.r_[a, b])
    both_write &= ~(checked[: len(a)] & checked[len(a):])
    lane_a, lane_b = c["lane"][a].astype(np.uint32), c["lane"][b].astype(np.uint32)
    apart = (((c["active"][a] >> lane_b) & 1) == 0) & (((c["active"][b] >> lane_a) & 1) == 0)
    return np.where(same_step, both_write, apart) | (c["atomic"][a] != c["atomic"][b])


def _checked_later(c, rows) -> np.ndarray:
    """Whether the thread of each of `rows` reads its unit again later in the same epoch, to
    decide a branch (OpInfo.decides): it checks what its write left there."""
    return _followed_by(c, rows, np.flatnonzero(c["decides"] & (c["action"] == READ)))


def _seeding(c, rows) -> np.ndarray:
    """Whether each of `rows` is a plain read that only seeds a compare-and-swap: its value
    is what a CAS of its thread expects (OpInfo.seeds), and the thread compares-and-swaps
    the unit later in the same epoch. A stale value makes that CAS fail and the loop retry."""
    seeds = c["seeds"][rows] & (c["action"][rows] == READ) & ~c["atomic"][rows]
    if not seeds.any():
        return seeds
    return seeds & _followed_by(c, rows, np.flatnonzero(c["swaps"]))


def _rereads(c, first, second) -> np.ndarray:
    """Whether each pair (first[i], second[i]) is a plain read and a plain write of the value
    the reading thread itself last stored to that unit, earlier in the same epoch: whichever
    store lands last, the read returns that value (every thread storing one pointer in a
    `__shared__` variable and reading it back)."""
    read_first = c["action"][first] == READ
    reads, writes = np.where(read_first, first, second), np.where(read_first, second, first)
    plain = ~c["atomic"][reads] & ~c["atomic"][writes]
    candidate = np.flatnonzero(plain & (c["action"][reads] == READ) & (c["action"][writes] == WRITE))
    result = np.zeros(len(first), dtype=bool)
    if len(candidate):
        own = _last_own_write(c, reads[candidate])
        stored = own >= 0
        result[candidate[stored]] = c["value"][own[stored]] == c["value"][writes[candidate[stored]]]
    return result


def _last_own_write(c, reads) -> np.ndarray:
    """Per row of `reads`, the last plain write its thread made to its unit before it in the
    same epoch (a row of the model; -1 when none)."""
    writes = np.flatnonzero((c["action"] == WRITE) & ~c["atomic"])
    writes = writes[np.isin(c["unit"][writes], c["unit"][reads])]  # only where a read is
    if len(writes) == 0:
        return np.full(len(reads), -1, dtype=np.int64)
    both = np.r_[writes, reads]
    order, place = _partition(c, np.arange(len(both)), ("unit", "block", "thread", "epoch"), both)
    group = np.empty(len(both), dtype=np.int64)
    group[order] = place
    timed = columns_order([group, c["step"][both].astype(np.int64)])  # each group's accesses in the order made
    is_write = timed < len(writes)
    latest = np.maximum.accumulate(np.where(is_write, np.arange(len(both)), -1))  # the last write up to each
    sorted_group = group[timed]
    starts = np.r_[0, np.flatnonzero(np.diff(sorted_group)) + 1]
    first_of_group = np.repeat(starts, np.diff(np.r_[starts, len(both)]))
    found = np.where(latest >= first_of_group, both[timed[np.maximum(latest, 0)]], -1)
    result = np.empty(len(both), dtype=np.int64)
    result[timed] = found
    return result[len(writes):]


def _followed_by(c, rows, checks) -> np.ndarray:
    """Whether the thread of each of `rows` makes one of the accesses `checks` (rows) to its
    unit later in the same epoch."""
    if len(checks) == 0 or len(rows) == 0:
        return np.zeros(len(rows), dtype=bool)
    wanted = np.zeros(len(c["step"]), dtype=bool)  # each row once, however many pairs it is in
    wanted[rows] = True
    distinct = np.flatnonzero(wanted)
    both = np.r_[checks, distinct]
    order, place = _partition(c, np.arange(len(both)), ("unit", "block", "thread", "epoch"), both)
    at = np.empty(len(both), dtype=np.int64)
    at[order] = place
    latest = np.full(int(place.max()) + 1, -1, dtype=np.int64)  # per (unit, thread, epoch): its last check
    np.maximum.at(latest, at[: len(checks)], c["step"][checks].astype(np.int64))
    later = np.zeros(len(c["step"]), dtype=bool)
    later[distinct] = latest[at[len(checks):]] > c["step"][distinct]
    return later[rows]


def _racing(c, a, b, pair_part, scope) -> Pairs:
    """Pairs of rows a[i], b[i] that race in `scope`, benign where both stored one value (a
    read-modify-write's value is its operand, not what it leaves: never benign)."""
    benign = (c["action"][a] == WRITE) & (c["action"][b] == WRITE) & (c["value"][a] == c["value"][b])
    return Pairs(a, b, np.full(len(a), scope), pair_part + (scope << 48), benign)


def _conflicting_pairs(c, rows, keys, agent) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(first rows, second rows, partition) of every conflicting pair of accesses of
    different agents within a partition by `keys`, of the earliest INTRA_WARP_LIMIT
    accesses of each partition."""
    nothing = np.zeros(0, dtype=np.int64)
    if len(rows) == 0:
        return nothing, nothing, nothing
    rows, part = _partition(c, rows, keys)
    keep = _keep_partitions(c, rows, part, agent)
    rows, part = rows[keep], part[keep]
    if len(rows) == 0:
        return nothing, nothing, nothing
    starts = np.r_[0, np.flatnonzero(part[1:] != part[:-1]) + 1]
    sizes = np.minimum(np.diff(np.r_[starts, len(rows)]), INTRA_WARP_LIMIT)
    index = ranges(starts, sizes)
    rows, part = rows[index], part[index]
    agents, strong_ = c[agent][rows], c[_strength(agent)]
    found, low = [], 0
    # partitions in chunks of at most PAIRS_PER_CHUNK candidate pairs: the enumeration's memory stays bounded,
    # and the time is checked between
    chunk = (np.cumsum(sizes * (sizes - 1) // 2) - 1) // PAIRS_PER_CHUNK
    for high in np.cumsum(sizes)[np.r_[np.flatnonzero(chunk[1:] != chunk[:-1]), len(sizes) - 1]].tolist():
        i, j = _pairs_of_agents(part[low:high], agents[low:high])
        a, b = rows[low + i], rows[low + j]
        conflict = ((c["action"][a] != READ) | (c["action"][b] != READ)) & ~(strong_[a] & strong_[b]) \
            & ((c["mask"][a] & c["mask"][b]) != 0)
        found.append((a[conflict], b[conflict], part[low + i[conflict]]))
        low = high
        check_time()
    return tuple(np.concatenate(column) for column in zip(*found))


def _pairs_of_agents(part: np.ndarray, agents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of positions i < j of one partition (`part`, ascending) whose agents
    differ, ordered by (i, j). Enumerated between agents' groups, so that a partition one
    agent fills costs its pairs with the others, not its size squared."""
    count = len(part)
    if count < 2:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    order = columns_order([part, agents])  # by partition, then agent, then position (stable)
    sorted_part, sorted_agent = part[order], agents[order]
    new_part = np.r_[True, sorted_part[1:] != sorted_part[:-1]]
    new_group = new_part | np.r_[True, sorted_agent[1:] != sorted_agent[:-1]]
    positions = np.arange(count)
    group_end = np.r_[np.flatnonzero(new_group)[1:], count][np.cumsum(new_group) - 1]
    part_end = np.r_[np.flatnonzero(new_part)[1:], count][np.cumsum(new_part) - 1]
    lengths = part_end - group_end  # each sorted position pairs with the later agents' groups of its partition
    k = np.repeat(positions, lengths)
    m = ranges(group_end, lengths)
    first, second = order[k], order[m]
    i, j = np.minimum(first, second), np.maximum(first, second)
    ranked = stable_order(i * count + j)
    return i[ranked], j[ranked]


def _collective_between(c, a, b, model: MemoryAccessModel) -> np.ndarray:
    """Whether a warp collective that both lanes took part in lies between the accesses."""
    ordered = np.zeros(len(a), dtype=bool)
    log = model.result.events.collectives
    if not log or len(a) == 0:
        return ordered
    warps_per_block = (model.result.launch.threads_per_block + 31) // 32
    steps = np.concatenate([np.full(len(blocks), step) for step, blocks, _, _ in log])
    warp_ids = np.concatenate([blocks.astype(np.int64) * warps_per_block + warps for _, blocks, warps, _ in log])
    bits = np.concatenate([lanes for _, _, _, lanes in log]).astype(np.uint32)
    keys = (warp_ids << 40) | steps
    order = np.argsort(keys)
    keys, bits = keys[order], bits[order]
    warp = c["block"][a].astype(np.int64) * warps_per_block + c["warp"][a]
    low = np.minimum(c["step"][a], c["step"][b])
    high = np.maximum(c["step"][a], c["step"][b])
    left = np.searchsorted(keys, (warp << 40) | low, side="right")
    right = np.searchsorted(keys, (warp << 40) | high, side="left")
    lane_a, lane_b = c["lane"][a].astype(np.uint32), c["lane"][b].astype(np.uint32)
    pending = np.flatnonzero(right > left)
    position = left[pending]
    while len(pending):  # the k-th collective of every range at once; usually the first settles it
        masks = bits[position]
        both = (((masks >> lane_a[pending]) & 1) & ((masks >> lane_b[pending]) & 1)) != 0
        ordered[pending[both]] = True
        position = position + 1
        going = ~both & (position < right[pending])
        pending, position = pending[going], position[going]
    return ordered


def summarize(model: MemoryAccessModel, pairs: Pairs, sample: int = 0) -> list[Finding]:
    """One finding per pair of source locations: its widest scope, a witness pair from that
    scope, how many times (partitions) and at how many units it happened, whether every
    instance was two writes of the same value, and up to `sample` (default PAIR_SAMPLE) of
    its instances (Finding.pairs)."""
    check_time()
    if len(pairs.first) == 0:
        return []
    c = model.columns
    ops = model.ops
    result = model.result
    first, second = pairs.first.copy(), pairs.second.copy()
    swap = c["action"][first] == READ  # the writing access comes first
    first[swap], second[swap] = second[swap], first[swap]
    # number the source locations of the instructions involved (several ops may share one)
    op_first, op_second = c["op"][first], c["op"][second]
    used = np.zeros(len(ops), dtype=bool)
    used[op_first], used[op_second] = True, True
    location_ids: dict[tuple, int] = {}
    location_of = np.zeros(len(ops), dtype=np.int64)
    for op in np.flatnonzero(used).tolist():
        p = place(ops, op, "")
        location_of[op] = location_ids.setdefault((p.file, p.line, p.column), len(location_ids))
    loc_first, loc_second = location_of[op_first], location_of[op_second]
    both_write = (c["action"][first] != READ) & (c["action"][second] != READ)
    flip = both_write & (loc_second < loc_first)  # write-write: one order for both directions
    first[flip], second[flip] = second[flip], first[flip]
    loc_first[flip], loc_second[flip] = loc_second[flip], loc_first[flip]
    pair_key = loc_first.astype(np.int64) * (len(location_ids) + 1) + loc_second
    present = np.bincount(pair_key) > 0
    key = (np.cumsum(present) - 1)[pair_key]  # findings numbered 0, 1, ... by location pair
    findings_count = int(present.sum())
    instances = _distinct_per_group(key, pairs.partition, findings_count)
    units = _distinct_per_group(np.r_[key, key], c["unit"][np.r_[first, second]], findings_count)
    taint = c["taint"][first] | c["taint"][second]
    # a pair whose addresses, and who in each block reaches them, hold whatever Simulee invented: its blocks
    # only had to get there (a loop over as many points as a made-up count says): the program's bug
    taint[(c["divergent"][first] | c["divergent"][second]) == 0] = 0
    # per finding, a pair that holds whatever Simulee invented first (interpreter.taint), then the widest scope,
    # then the lowest blocks (a witness that needs the fewest blocks)
    highest_block = np.maximum(c["block"][first], c["block"][second])
    widest = columns_order([key, taint != 0, pairs.scope, highest_block])
    starts = np.r_[0, np.flatnonzero(np.diff(key[widest])) + 1]
    witnesses = widest[starts]
    seeds = _seeding(c, np.r_[first, second])
    atomic = c["atomic"][np.r_[second, first]]
    # a plain read racing an atomic that only seeds its thread's compare-and-swap: benign (a CAS retry loop)
    seeded = (seeds & atomic).reshape(2, -1).any(axis=0)
    # a read of what its own thread stored there before, racing a store of that same value: benign
    reread = _rereads(c, first, second)
    benign = np.logical_and.reduceat(pairs.benign[widest] | seeded[widest] | reread[widest], starts)
    all_seeded = np.logical_and.reduceat(seeded[widest], starts)
    all_reread = np.logical_and.reduceat(reread[widest], starts)
    lockstep_safe = np.logical_and.reduceat(pairs.warp_synchronous[widest], starts)
    findings = []
    launch = launch_of(result)
    samples = _sampled_pairs(c, first, second, widest, starts, sample or PAIR_SAMPLE)
    for index, witness in enumerate(witnesses.tolist()):
        a, b = int(first[witness]), int(second[witness])
        scope = SCOPE_NAMES[int(pairs.scope[witness])]
        hazard = "write-write" if both_write[witness] else "read-write"
        space = "shared" if c["space"][a] == SHARED else "global"
        all_benign = bool(benign[index])
        first_place = place(ops, int(c["op"][a]), KIND_NAMES[int(c["action"][a])], result, int(c["block"][a]),
                            int(c["thread"][a]))
        second_place = place(ops, int(c["op"][b]), KIND_NAMES[int(c["action"][b])], result, int(c["block"][b]),
                             int(c["thread"][b]))
        both = exempt(model)
        scoped = bool(pairs.scoped[witness]) or bool(both[a] and both[b])  # only a narrow scope
        reason, why = ("scope too narrow", _narrow_scope(model, a, b)) if scoped else _unordered(model, a, b)
        kind = "scoped-race" if scoped else WARP_SYNCHRONOUS if lockstep_safe[index] else "data-race"
        if kind == WARP_SYNCHRONOUS:
            why += WARP_SYNCHRONOUS_FIX
        message = (f"{RACE_WORDS[kind]} ({hazard}, {space}, {scope}) between this "
                   f"{first_place.access} and the {second_place.access} at {where(second_place, first_place)}"
                   + (" (the read only seeds a compare-and-swap of its thread, which retries until the word "
                      "still holds what it read)" if all_seeded[index] else " (the read's thread stored that same "
                      "value there before it: it reads it whichever store lands last)" if all_reread[index] else
                      " (both wrote the same value)" if all_benign else "") + why)
        uncertain = not scoped and model.ordering.truncated  # an event not followed may order it
        findings.append(Finding(kind, WARNING if all_benign or uncertain else ERROR,
                                result.kernel, message,
                                first_place, second_place, space, hazard, scope, all_benign, launch,
                                int(instances[index]), int(units[index]), details={"synchronization": reason},
                                ops=tuple((ops[int(c["op"][x])].function, ops[int(c["op"][x])].index) for x in (a, b)),
                                taint=int(taint[witness]), pairs=samples[index]))
    return findings


PAIR_SAMPLE = 64  # instances a race finding keeps, to see whether another run shows them again
PAIRS_SEEN = 1 << 16  # instances of another run looked among for them


def _sampled_pairs(c, first, second, order, starts, sample: int) -> list[frozenset]:
    """Per finding (pairs `order`ed by finding, each starting at `starts`), up to `sample`
    of its instances as (block, thread, block, thread) of its two accesses, the one
    reported first first."""
    ends = np.r_[starts[1:], len(order)]
    found = []
    for start, end in zip(starts.tolist(), ends.tolist()):
        chosen = order[start : min(end, start + sample)]
        a, b = first[chosen], second[chosen]
        found.append(frozenset(zip(c["block"][a].tolist(), c["thread"][a].tolist(),
                                   c["block"][b].tolist(), c["thread"][b].tolist())))
    return found


def _unordered(model: MemoryAccessModel, a: int, b: int) -> tuple[str, str]:
    """(reason, words) why the fences, flags and atomics present do not order rows a and b."""
    reason, release, acquire = model.ordering.explain(a, b)
    line = lambda op: place(model.ops, op, "").line  # noqa: E731
    if model.ordering.truncated:  # unordered as far as the events followed go
        return reason, f": only the first {MAX_EVENTS:,} releases and acquires were followed, and a later one " \
                       f"may order this"
    if reason == "no release":
        return reason, f": no release: the flag write at line {line(release)} has no __threadfence() before it"
    if reason == "no acquire":
        return reason, f": no acquire: the release at line {line(release)} publishes it, but the other thread " \
                       f"reads no flag it wrote before this access"
    if reason == "older value":
        return reason, f": the flag read at line {line(acquire)} saw a value from before the release at line " \
                       f"{line(release)}"
    return reason, ""


def _narrow_scope(model: MemoryAccessModel, a: int, b: int) -> str:
    """Why the synchronization between rows a and b orders nothing: the block-scoped
    operation and the scope it needs."""
    c = model.columns
    narrow = [row for row in (a, b) if c["sync"][row] & SCOPE_BITS == BLOCK_SCOPE]
    op = int(c["op"][narrow[0]]) if narrow else model.ordering.narrow_operation(np.array([a]), np.array([b]))
    blocks = f"block {int(c['block'][a])} with block {int(c['block'][b])}"
    if op < 0:
        return f": the synchronization has block scope and cannot order {blocks}"
    line = place(model.ops, op, "").line
    return f": {_cuda_name(model.ops[op].text)} at line {line} has block scope and cannot order {blocks}; " \
           f"use a device-scope one"


def _cuda_name(text: str) -> str:
    """The CUDA function an NVVM fence or atomic instruction comes from: llvm.nvvm.membar.cta
    is __threadfence_block, llvm.nvvm.atomic.add.gen.i.cta.i32.p0 is atomicAdd_block."""
    match = re.search(r"llvm\.nvvm\.(membar|atomic)\.(?:load\.)?(\w+)", text)
    if match is None:
        kind = text.split()[0] if text.split() else ""
        return {"fence": "the block-scoped fence", "atomicrmw": "the block-scoped atomic",
                "cmpxchg": "the block-scoped compare-and-swap", "load": "the block-scoped load",
                "store": "the block-scoped store"}.get(kind, "the block-scoped operation")
    if match.group(1) == "membar":
        return "__threadfence_block()"
    return f"atomic{match.group(2).capitalize() if match.group(2) != 'cas' else 'CAS'}_block"


def _distinct_per_group(group: np.ndarray, values: np.ndarray, groups: int) -> np.ndarray:
    """How many distinct values each group (numbered 0..groups-1) has."""
    order = columns_order([group, values])
    group, values = group[order], values[order]
    new = np.r_[True, (group[1:] != group[:-1]) | (values[1:] != values[:-1])]
    return np.bincount(group[new], minlength=groups)

