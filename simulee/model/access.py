"""The memory-access model (the paper's Algorithm 4, vectorized): every access to global or
shared memory recorded in a launch's trace, grouped by memory unit and ordered by visit.

A memory unit is one aligned 4-byte word: of a buffer (global memory), or of one block's
shared memory. An access covers one or more units; for each it records which of the word's
bytes it touches (`mask`), so neighbouring `char` elements are different bytes of one unit
and never conflict. A unit tuple is ⟨visit order (barrier epoch), thread, action⟩, plus the
block, warp, lane, instruction, step, active lanes, warp collectives passed and value
written that the detectors need. Local (private) and constant (read-only) memory are left
out: they cannot race.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from interpreter.launch import Result
from interpreter.memory import GLOBAL, SHARED
from interpreter.trace import ATOMIC, KIND_NAMES, READ, WRITE, coordinates
from interpreter.vocabulary import SCOPE_BITS, VOLATILE
from simulee.model.ordering import Ordering
from simulee.model.sort import combined_key, ranges, stable_order

UNIT_BYTES = 4
_KEY_SHARED_BIT = 62
_KEY_OWNER_SHIFT = 38  # owner (region or block) above the word index


@dataclass
class MemoryAccessModel:
    """Columns, one row per (access, unit touched), sorted by unit then visit order (the
    scheduler step):

        unit       dense unit number (0..units-1)
        space      1 global, 3 shared
        owner      the region (global) or block (shared) the unit belongs to
        word       the unit's byte offset in its region or shared segment, divided by 4
        mask       which of the word's 4 bytes the access touches (bit per byte)
        epoch      visit order: the block's barrier epoch
        grid_epoch grid-wide barrier epoch (cooperative launches)
        block      linear block of the accessing thread
        thread     linear thread in its block
        warp, lane
        action     0 read, 1 write, 2 atomic
        op         static instruction (index into `ops`)
        step       scheduler step (one dynamic instruction)
        active     lanes of the warp executing that step together
        warp_sync  warp collectives the thread had completed
        value      bits written (0 for reads)
        sync       0 plain; an atomic or volatile access's scope and ordering (trace.py)
        taint      the invented values its address and reaching it depend on (trace.py)
        divergent  those its address and who in its block reaches it depend on (trace.py)
        strong     an atomic, or a volatile or atomic global access: what may release or
                   acquire (simulee.model.ordering)
        atomic     an atomic read-modify-write, load or store (two never race)
        volatile   a volatile access that is no atomic (synchronization only as a flag)
        decides    a read whose value decides a branch (a spin's or a check's: OpInfo.decides)
        seeds      a load whose value a compare-and-swap expects (OpInfo.seeds)
        swaps      a compare-and-swap
        access     index of the access in the trace
    """

    columns: dict[str, np.ndarray]
    result: Result

    def __len__(self) -> int:
        return len(self.columns["unit"])

    def __getitem__(self, name: str) -> np.ndarray:
        return self.columns[name]

    @property
    def ops(self):
        return self.result.trace.ops

    @functools.cached_property
    def ordering(self):
        """What fences, atomics and volatile flags order (simulee.model.ordering)."""
        return Ordering(self.columns, self.result.events.fences)

    def to_frame(self):
        """The model as a pandas DataFrame, one row per unit tuple, for inspection (file
        paths relative to the current folder where they lie under it)."""
        import pandas as pd

        from simulee.model.findings import display
        from simulee.frontend.compiler import user_location

        launch = self.result.launch
        c = self.columns
        shared = c["space"] == SHARED
        threads = coordinates(c["thread"], launch.block)
        blocks = coordinates(c["block"], launch.grid)
        locations = [user_location(op.location) for op in self.ops]  # as findings name them
        files = np.array([display(place.file) if place else "" for place in locations], dtype=object)
        lines = np.array([place.line if place else 0 for place in locations], dtype=np.int64)
        columns = np.array([place.column if place else 0 for place in locations], dtype=np.int64)
        names = np.array(self.result.regions, dtype=object)
        actions = np.array([KIND_NAMES[k] for k in sorted(KIND_NAMES)], dtype=object)
        return pd.DataFrame({
            "unit": c["unit"],
            "space": np.where(shared, "shared", "global"),
            "memory": np.where(shared, "shared", names[np.where(shared, 0, c["owner"])]),
            "offset": c["word"] * UNIT_BYTES + _lowest_byte(c["mask"]),
            "visit_order": c["epoch"],
            "block_x": blocks[:, 0], "block_y": blocks[:, 1], "block_z": blocks[:, 2],
            "thread_x": threads[:, 0], "thread_y": threads[:, 1], "thread_z": threads[:, 2],
            "warp": c["warp"], "lane": c["lane"],
            "action": actions[c["action"]],
            "file": files[c["op"]], "line": lines[c["op"]], "column": columns[c["op"]],
            "value": c["value"],
        })


def build_model(result: Result) -> MemoryAccessModel:
    """The model of a launch's trace."""
    trace = result.trace
    space = trace["space"]
    keep = np.flatnonzero((space == GLOBAL) | (space == SHARED))
    offset = trace["offset"][keep]
    size = trace["size"][keep].astype(np.int64)
    first_word = offset // UNIT_BYTES
    words = (offset + size - 1) // UNIT_BYTES - first_word + 1
    if (words == 1).all():
        access, word = keep, first_word
        mask = (((1 << size) - 1) << (offset - word * UNIT_BYTES)).astype(np.uint8)
    else:  # an access spanning several words becomes one tuple per word
        row = np.repeat(np.arange(len(keep)), words)
        word = ranges(first_word, words)
        access = keep[row]
        low = np.maximum(offset[row], word * UNIT_BYTES) - word * UNIT_BYTES
        high = np.minimum(offset[row] + size[row], (word + 1) * UNIT_BYTES) - word * UNIT_BYTES
        mask = (((1 << high) - 1) & ~((1 << low) - 1)).astype(np.uint8)
        del row, low, high
    del keep, offset, size, first_word, words  # a launch's trace has millions of rows: free what is done with
    space = trace["space"][access]
    shared = space == SHARED
    owner = np.where(shared, trace["block"][access], trace["region"][access]).astype(np.int64)
    key = _unit_keys(shared, owner, word)
    del shared
    order = stable_order(key)  # the trace is in step order: visits stay in order
    key = key[order]
    unit = np.cumsum(np.r_[0, key[1:] != key[:-1]]) if len(key) else np.zeros(0, dtype=np.int64)
    del key
    access = access[order]
    columns = {"unit": unit, "space": space[order]}
    del space
    columns["owner"] = owner[order]
    del owner
    columns["word"] = word[order]
    del word
    columns["mask"] = mask[order]
    del mask, order
    thread = trace["thread"][access]
    columns |= {
        "epoch": trace["epoch"][access],
        "grid_epoch": trace["grid_epoch"][access],
        "block": trace["block"][access],
        "thread": thread,
        "warp": thread // 32,
        "lane": thread % 32,
        "action": trace["kind"][access],
        "op": trace["op"][access],
        "step": trace["step"][access],
        "active": trace["active"][access],
        "warp_sync": trace["warp_sync"][access],
        "value": trace["value"][access],
        "sync": trace["sync"][access],
        "taint": trace["taint"][access],
        "divergent": trace["divergent"][access],
        "access": access,
    }
    scoped = (columns["sync"] & SCOPE_BITS) != 0  # volatile or atomic
    columns["volatile"] = (columns["sync"] & VOLATILE) != 0
    columns["atomic"] = (columns["action"] == ATOMIC) | (scoped & ~columns["volatile"])
    columns["strong"] = (columns["action"] == ATOMIC) | (scoped & (columns["space"] == GLOBAL))
    for column, of in (("decides", lambda op: op.decides), ("seeds", lambda op: op.seeds),
                       ("swaps", lambda op: op.opcode == "cmpxchg")):
        columns[column] = np.array([of(op) for op in trace.ops], dtype=bool)[columns["op"]] if len(trace.ops) \
            else np.zeros(len(columns["op"]), dtype=bool)
    return MemoryAccessModel(columns, result)


def _unit_keys(shared: np.ndarray, owner: np.ndarray, word: np.ndarray) -> np.ndarray:
    """One int64 per access of a unit, ordered as (shared, owner, word) are: as narrow as
    their ranges allow, so that it sorts with the row packed beside it (model.sort)."""
    key = combined_key([shared, owner, word])
    if key is None:
        return (shared.astype(np.int64) << _KEY_SHARED_BIT) | (owner << _KEY_OWNER_SHIFT) | word
    return key


def _lowest_byte(mask: np.ndarray) -> np.ndarray:
    """Index of the lowest set bit of a 4-bit mask."""
    lowest = np.zeros(len(mask), dtype=np.int64)
    for bit in (3, 2, 1, 0):
        lowest = np.where((mask >> bit) & 1, bit, lowest)
    return lowest


__all__ = ["MemoryAccessModel", "build_model", "READ", "WRITE", "ATOMIC", "KIND_NAMES", "UNIT_BYTES"]
