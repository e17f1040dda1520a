"""Reads of uninitialized shared memory.

Shared memory starts every block with whatever the hardware left there: a read (or an
atomic read-modify-write) of a byte no thread of the block wrote before it reads garbage.
A byte counts as written before the read when a write or atomic of the block touched it in
an earlier barrier interval, or earlier in the launch's schedule (a thread's own earlier
write; another thread's in the same interval is a race, the race detector's to report). A
shared histogram whose bins nobody zeroed, a tile read past the part its loaders filled.
One warning per source location (the values read may still be discarded); off unless asked
(--detect uninitialized-shared-read).
"""

from __future__ import annotations

import numpy as np

from interpreter.memory import SHARED
from interpreter.trace import READ, WRITE
from simulee.detect.base import Detector, LaunchRun, Rule
from simulee.model.findings import WARNING, Finding, by_source_location, launch_of, place
from simulee.model.access import KIND_NAMES, MemoryAccessModel

UNINITIALIZED = "uninitialized-shared-read"
NEVER = np.iinfo(np.int64).max


class UninitializedShared(Detector):
    name = UNINITIALIZED
    default = False
    rules = (Rule(UNINITIALIZED, WARNING, "A read of shared memory no thread of the block wrote before it"),)

    def launch(self, run: LaunchRun) -> list[Finding]:
        return find_uninitialized(run.model, (run.earlier or {}).get(WRITTEN))

    def leave(self, run: LaunchRun, summary: dict) -> None:
        """Of a part cut inside its wave (Events.cuts), whose blocks go on in the next part:
        the shared bytes each block of the wave wrote so far. A part ending with its wave
        leaves none (its blocks are done)."""
        if not run.result.events.cuts:
            summary.pop(WRITTEN, None)
            return
        c = run.model.columns
        rows = np.flatnonzero((c["space"] == SHARED) & (c["action"] != READ))
        keys = np.r_[summary.get(WRITTEN, _NONE)[0], _key(c, rows)]
        masks = np.r_[summary.get(WRITTEN, _NONE)[1], c["mask"][rows].astype(np.uint8)]
        keys, first = np.unique(keys, return_inverse=True)
        merged = np.zeros(len(keys), dtype=np.uint8)
        np.bitwise_or.at(merged, first, masks)
        summary[WRITTEN] = (keys, merged)


WRITTEN = "uninitialized-shared-read: written"  # the summary's entry: (block and word keys, sorted; byte masks)
_NONE = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint8))


def _key(c: dict, rows: np.ndarray) -> np.ndarray:
    """Per row, its block's shared word as one number."""
    return (c["owner"][rows].astype(np.int64) << 32) | c["word"][rows].astype(np.int64)


def find_uninitialized(model: MemoryAccessModel, written=None) -> list[Finding]:
    """The uninitialized shared reads of the launch modelled, `written` (keys, masks as
    `leave` keeps them) being the bytes its blocks wrote in the parts before."""
    c = model.columns
    rows = np.flatnonzero(c["space"] == SHARED)
    unread = _unwritten_reads(c, rows, written)
    if len(unread) == 0:
        return []
    result, ops = model.result, model.ops
    findings = []
    for same_place in by_source_location(ops, np.unique(c["op"][unread]).tolist()):
        mine = unread[np.isin(c["op"][unread], same_place)]
        witness = int(mine[np.argmin(c["step"][mine])])
        threads = len(np.unique(c["block"][mine].astype(np.int64) * (1 << 32) + c["thread"][mine]))
        first = place(ops, int(c["op"][witness]), KIND_NAMES[int(c["action"][witness])], result,
                      int(c["block"][witness]), int(c["thread"][witness]))
        message = (f"read of uninitialized shared memory: {threads} thread{'s' if threads > 1 else ''} read "
                   f"bytes no thread of {'their' if threads > 1 else 'its'} block wrote before (thread "
                   f"({','.join(map(str, first.thread))}) of block ({','.join(map(str, first.block))}) reads byte "
                   f"{int(c['word'][witness]) * 4} of the block's shared memory)")
        findings.append(Finding(UNINITIALIZED, WARNING, result.kernel, message, first, space="shared",
                                launch=launch_of(result), instances=threads,
                                addresses=len(np.unique(c["unit"][mine])),
                                ops=tuple(sorted({(ops[op].function, ops[op].index) for op in same_place}))))
    return findings


def _unwritten_reads(c: dict, rows: np.ndarray, written=None) -> np.ndarray:
    """The rows (of shared-memory `rows`) that read a byte of their unit no write or atomic
    touched in an earlier barrier epoch or at an earlier scheduler step (or in `written`)."""
    if len(rows) == 0:
        return rows
    before = np.zeros(len(rows), dtype=np.int64)  # bytes of each row's word written in earlier parts
    if written is not None and len(written[0]):
        keys = _key(c, rows)
        at = np.minimum(np.searchsorted(written[0], keys), len(written[0]) - 1)
        before = np.where(written[0][at] == keys, written[1][at], 0).astype(np.int64)
    unit, mask = c["unit"][rows].astype(np.int64), c["mask"][rows].astype(np.int64)
    step, epoch = c["step"][rows].astype(np.int64), c["epoch"][rows].astype(np.int64)
    writes = c["action"][rows] != READ
    reads = c["action"][rows] != WRITE  # reads and atomics (which read before they write)
    units = int(unit.max()) + 1
    first_step = np.full((units, 4), NEVER, dtype=np.int64)
    first_epoch = np.full((units, 4), NEVER, dtype=np.int64)
    unwritten = np.zeros(len(rows), dtype=bool)
    for byte in range(4):
        touched = (mask >> byte & 1).astype(bool)
        written = touched & writes
        np.minimum.at(first_step[:, byte], unit[written], step[written])
        np.minimum.at(first_epoch[:, byte], unit[written], epoch[written])
        read = touched & reads
        unwritten |= read & (first_step[unit, byte] >= step) & (first_epoch[unit, byte] >= epoch) & \
            ~(before >> byte & 1).astype(bool)
    return rows[unwritten]
