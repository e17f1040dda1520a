"""Shared-memory bank conflicts (a performance warning, off unless asked: --detect bank-conflict).

Shared memory has 32 banks of 4-byte words, word w in bank w % 32. One warp's access (the
lanes of one dynamic instruction) is served in as many passes as the most distinct words
any one bank must deliver: its conflict degree (lanes reading one word share it: a
broadcast). Accesses wider than 4 bytes are served a phase at a time, 16 lanes for 8 bytes
and 8 lanes for 16, as the hardware does. One warning per source location with its worst
degree and, as Nsight Compute counts them, the extra passes ("bank conflicts") over all its
warp accesses.
"""

from __future__ import annotations

import numpy as np

from interpreter.memory import SHARED
from simulee.detect.base import Detector, LaunchRun, Rule
from simulee.model.findings import WARNING, Finding, by_source_location, launch_of, place
from simulee.model.access import KIND_NAMES, MemoryAccessModel

BANK_CONFLICT = "bank-conflict"
BANKS = 32


class BankConflicts(Detector):
    name = BANK_CONFLICT
    default = False
    columns = ("conflict_degree",)
    rules = (Rule(BANK_CONFLICT, WARNING, "A warp's shared-memory access that a bank serves in several passes"),)

    def launch(self, run: LaunchRun) -> list[Finding]:
        return find_bank_conflicts(run.model)


def find_bank_conflicts(model: MemoryAccessModel) -> list[Finding]:
    c = model.columns
    rows = np.flatnonzero(c["space"] == SHARED)
    request, degree = _degrees(c, rows, model.result.trace["size"][c["access"][rows]].astype(np.int64))
    result, ops = model.result, model.ops
    op_of_request = np.zeros(len(degree), dtype=np.int64)
    op_of_request[request] = c["op"][rows]
    findings = []
    for same_place in by_source_location(ops, np.unique(op_of_request[degree > 1]).tolist()):
        mine = np.flatnonzero(np.isin(op_of_request, same_place))
        worst = int(mine[np.argmax(degree[mine])])
        witness = int(rows[np.flatnonzero(request == worst)[0]])
        extra = int((degree[mine] - 1).sum())
        first = place(ops, int(c["op"][witness]), KIND_NAMES[int(c["action"][witness])], result,
                      int(c["block"][witness]), int(c["thread"][witness]))
        message = (f"shared-memory bank conflict: up to {int(degree[worst])}-way (warp {int(c['warp'][witness])} "
                   f"of block ({','.join(map(str, first.block))})); {extra:,} extra pass{'es' if extra != 1 else ''} "
                   f"over {len(mine):,} warp access{'es' if len(mine) != 1 else ''}, "
                   f"{(degree[mine]).mean():.1f}-way on average")
        findings.append(Finding(BANK_CONFLICT, WARNING, result.kernel, message, first, space="shared",
                                launch=launch_of(result), instances=len(mine), details={
                                    "conflict_degree": int(degree[worst]), "extra_passes": extra},
                                ops=tuple(sorted({(ops[op].function, ops[op].index) for op in same_place}))))
    return findings


def _degrees(c: dict, rows: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per shared-memory row its request (one warp's phase of one dynamic instruction,
    numbered 0..n-1), and per request its conflict degree."""
    if len(rows) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    lanes_per_phase = BANKS // np.clip(size // 4, 1, 4)
    phase = c["lane"][rows].astype(np.int64) // lanes_per_phase
    keys = np.stack([c["block"][rows].astype(np.int64), c["warp"][rows].astype(np.int64),
                     c["step"][rows].astype(np.int64), c["op"][rows].astype(np.int64), phase])
    _, request = np.unique(keys, axis=1, return_inverse=True)
    request = request.reshape(-1)
    word = c["word"][rows].astype(np.int64)
    served = np.unique(np.stack([request, word % BANKS, word]), axis=1)  # distinct words per (request, bank)
    banks, per_bank = np.unique(served[:2], axis=1, return_counts=True)
    degree = np.zeros(int(request.max()) + 1, dtype=np.int64)
    np.maximum.at(degree, banks[0], per_bank)
    return request, degree
