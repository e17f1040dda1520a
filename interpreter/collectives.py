"""Warp collectives (__syncwarp, shuffles, votes, matches, the active mask): what they
compute, how a call of one is compiled, and how the lanes waiting at one meet.

What they compute are pure functions of per-lane arrays. Lanes come with their warp (any
integer id, lanes of one warp contiguous and in lane order) and their lane number 0..31. A
lane's mask names the lanes it exchanges with; lanes named but absent do not contribute (a
shuffle from an absent lane yields the lane's own value).

Lanes that reach a collective wait there (the scheduler parks them); `meet` runs it for
every warp whose live lanes named in the masks are all present, or, when nothing else can
run, for whoever came (the missing lanes are recorded as a warp-mask event).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from interpreter import taint
from interpreter.trace import WarpMaskEvent
from interpreter.types import StructType, Type

LANE_BITS = (np.uint32(1) << np.arange(32, dtype=np.uint32)).astype(np.uint32)


class Warps:
    """The warps of a set of lanes: dense (warp, lane) tables for exchanging values."""

    def __init__(self, warp_ids: np.ndarray, lanes: np.ndarray):
        self.lanes = lanes.astype(np.int64)
        starts = np.flatnonzero(np.r_[True, warp_ids[1:] != warp_ids[:-1]])
        self.index = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, len(warp_ids)]))
        self.count = len(starts)
        self.starts = starts
        self.present_bits = np.bitwise_or.reduceat(LANE_BITS[self.lanes], starts) if len(starts) else \
            np.zeros(0, np.uint32)

    def table(self, values: np.ndarray) -> np.ndarray:
        """values laid out as (warp, lane)."""
        table = np.zeros((self.count, 32), dtype=values.dtype)
        table[self.index, self.lanes] = values
        return table

    def per_lane(self, per_warp: np.ndarray) -> np.ndarray:
        return per_warp[self.index]

    def present(self) -> np.ndarray:
        """Each lane's warp's present lanes, as a bit mask."""
        return self.per_lane(self.present_bits)

    def ballot(self, predicate: np.ndarray) -> np.ndarray:
        """Per lane: the bits of the lanes of its warp whose predicate is true."""
        bits = np.where(np.asarray(predicate, dtype=bool), LANE_BITS[self.lanes], np.uint32(0)).astype(np.uint32)
        return self.per_lane(np.bitwise_or.reduceat(bits, self.starts))


def active_mask(warps: Warps) -> np.ndarray:
    return warps.present().view(np.int32)


def shuffle_sources(mode: str, lanes: np.ndarray, operand, clamp) -> tuple[np.ndarray, np.ndarray]:
    """The lane each lane of a shuffle reads (itself when out of range) and whether it was
    in range."""
    operand = np.asarray(operand, dtype=np.int64) & 0x1F
    clamp = np.asarray(clamp, dtype=np.int64)
    segment = (clamp >> 8) & 0x1F
    min_lane = lanes & segment
    max_lane = min_lane | ((clamp & 0x1F) & ~segment)
    if mode == "idx":
        source = min_lane | (operand & ~segment)
        valid = source <= max_lane
    elif mode == "up":
        source = lanes - operand
        valid = source >= max_lane
    elif mode == "down":
        source = lanes + operand
        valid = source <= max_lane
    elif mode == "bfly":
        source = lanes ^ operand
        valid = source <= max_lane
    else:
        raise ValueError(f"unknown shuffle mode {mode}")
    return np.where(valid, source, lanes) & 0x1F, valid


def shuffle(mode: str, warps: Warps, values: np.ndarray, operand, clamp) -> tuple[np.ndarray, np.ndarray]:
    """shfl.sync in mode idx, up, down or bfly (PTX semantics): `operand` is the source lane,
    delta or lane mask; `clamp` packs the segment mask (bits 8-12) and the clamp lane (bits
    0-4). Returns (value, whether the source lane was in range)."""
    lanes = warps.lanes
    source, valid = shuffle_sources(mode, lanes, operand, clamp)
    values = np.asarray(values)
    table = warps.table(np.broadcast_to(values, lanes.shape))
    present = ((warps.present() >> source.astype(np.uint32)) & 1) == 1
    result = np.where(present, table[warps.index, source], values)
    return result.astype(values.dtype), valid


def vote(mode: str, warps: Warps, masks, predicate) -> np.ndarray:
    """vote.sync all / any / uni (bool per lane) or ballot (bits per lane), over the lanes
    of each lane's mask that take part."""
    masks = np.broadcast_to(np.asarray(masks, dtype=np.int64).astype(np.uint32), warps.lanes.shape)
    voters = masks & warps.present()
    bits = warps.ballot(predicate) & voters
    if mode == "ballot":
        return bits.view(np.int32)
    if mode == "any":
        return bits != 0
    if mode == "all":
        return bits == voters
    if mode == "uni":
        return (bits == voters) | (bits == 0)
    raise ValueError(f"unknown vote mode {mode}")


def match(mode: str, warps: Warps, masks, values) -> tuple[np.ndarray, np.ndarray]:
    """match.any.sync (per lane: the lanes of its mask holding its value) and match.all.sync
    (the mask when all those lanes hold the same value, else 0; and whether they did)."""
    lanes = warps.lanes
    masks = np.broadcast_to(np.asarray(masks, dtype=np.int64).astype(np.uint32), lanes.shape)
    values = np.broadcast_to(np.asarray(values), lanes.shape)
    table = warps.table(values)
    members = masks & warps.present()
    in_mask = ((members[:, None] >> np.arange(32, dtype=np.uint32)) & 1) == 1
    equal = (table[warps.index] == values[:, None]) & in_mask
    same_bits = (equal * LANE_BITS).sum(axis=1, dtype=np.uint64).astype(np.uint32)
    if mode == "any":
        return same_bits.view(np.int32), np.ones(len(lanes), dtype=bool)
    all_same = same_bits == members
    return np.where(all_same, members, np.uint32(0)).astype(np.uint32).view(np.int32), all_same


# ---------------------------------------------------------------------- compiled calls

def kind_of(callee: str) -> tuple[str, str | None, bool] | None:
    """(family, mode, legacy) of a warp-collective intrinsic; None for other callees.
    Legacy forms (shfl.idx, vote.any without .sync) take no mask: whoever is active."""
    if callee == "llvm.nvvm.bar.warp.sync":
        return "syncwarp", None, False
    parts = callee.split(".")
    if callee.startswith("llvm.nvvm.shfl."):
        legacy = parts[3] != "sync"
        mode = parts[3] if legacy else parts[4]
        return "shfl", mode, legacy
    if callee.startswith("llvm.nvvm.vote."):
        return "vote", parts[3], not callee.endswith(".sync")
    if callee.startswith("llvm.nvvm.match."):
        return "match", parts[3], False
    return None


@dataclass(frozen=True)
class Collective:
    """One call of a warp collective: its intrinsic, operand readers and result writer."""

    family: str  # syncwarp, shfl, vote, match
    mode: str | None
    legacy: bool
    callee: str  # lanes meet at the same intrinsic (sm_70 lets them meet at different calls)
    readers: list
    out: Callable | None
    type: Type

    def masks(self, frame, rows):
        """Each lane's member mask (0 for the legacy forms: whoever is active takes part)."""
        if self.legacy:
            return np.uint32(0)
        return np.asarray(self.readers[0](frame, rows)).astype(np.int64).astype(np.uint32)

    def inputs(self, frame, rows) -> list[np.ndarray]:
        """The operands for rows, one array per operand (masks first)."""
        count = frame.width(rows)
        inputs = [np.broadcast_to(np.asarray(read(frame, rows)), (count,)) for read in self.readers]
        if self.legacy:
            inputs = [np.zeros(count, dtype=np.uint32)] + inputs
        return inputs

    def compute(self, warps: Warps, inputs) -> tuple:
        """The results for the lanes of `warps` (sorted by thread) with their operands."""
        masks = warps.present() if self.legacy else inputs[0].astype(np.int64).astype(np.uint32)
        arguments = inputs[1:]
        if self.family == "syncwarp":
            return ()
        if self.family == "shfl":
            value, operand, clamp = arguments
            bits = value.view(np.int32) if value.dtype == np.float32 else value
            result, valid = shuffle(self.mode, warps, bits, operand, clamp)
            result = result.view(np.float32) if value.dtype == np.float32 else result
            return (result, valid) if isinstance(self.type, StructType) else (result,)
        if self.family == "vote":
            return (vote(self.mode, warps, masks, arguments[0] != 0),)
        value = arguments[0]
        bits = value.view(np.int64 if value.dtype.itemsize == 8 else np.int32) if value.dtype.kind == "f" else value
        result, same = match(self.mode, warps, masks, bits)
        return (result, same) if isinstance(self.type, StructType) else (result,)

    def output(self, frame, rows, results) -> None:
        if self.out is not None and results:
            self.out(frame, rows, results if len(results) > 1 else results[0])


def compile_call(c, function, pc, op) -> Collective:
    family, mode, legacy = kind_of(op.extra["callee"])
    readers = [c.reader(function, a) for a in op.args]
    out = c.writer(function, op.result, False) if op.result >= 0 else None
    return Collective(family, mode, legacy, op.extra["callee"], readers, out, op.type)


# ---------------------------------------------------------------------- meeting

def meet(ex, callee: str, current, force: bool):
    """Execute the collective `callee` for the complete warps among the lanes waiting at it
    in execution `ex` (all of them when `force`); returns the rows of the group at key
    `current` that did (the other groups that did are made runnable)."""
    wave = ex.wave
    parts = []
    for key, group in ex.collective_waits.items():
        info = group.frame.function.info[group.pc]
        if info.callee != callee:
            continue
        rows = group.frame.row_indices(group.rows)
        threads = group.frame.threads[rows]
        parts.append((key, group, rows, threads, np.broadcast_to(info.masks(group.frame, group.rows), threads.shape)))
    threads = np.concatenate([p[3] for p in parts])
    masks = np.concatenate([p[4] for p in parts])
    order = np.argsort(threads, kind="stable")
    warps = wave.warps_of(threads)
    present = Warps(warps[order], wave.lanes_of(threads[order])).present()
    present_of = np.empty_like(present)
    present_of[order] = present
    if force:
        ready = np.ones(len(threads), dtype=bool)
    else:
        incomplete = np.unique(warps[(masks & wave.live_bits[warps] & ~present_of) != 0])
        ready = ~np.isin(warps, incomplete)
    if not ready.any():
        return np.zeros(0, dtype=np.int64)
    events_before = len(ex.events.warp_masks)
    _record_missing_lanes(ex, parts, threads[ready], masks[ready], present_of[ready])
    inputs, ready_parts, offset = [], [], 0
    for key, group, rows, part_threads, _ in parts:
        part_ready = ready[offset : offset + len(rows)]
        offset += len(rows)
        go = rows[part_ready]
        if len(go) == 0:
            continue
        go_rows = None if len(go) == group.frame.count else go
        ready_parts.append((key, group, go, go_rows, part_threads[part_ready]))
        inputs.append(group.frame.function.info[group.pc].inputs(group.frame, go_rows))
    met = np.concatenate([p[4] for p in ready_parts])
    order = np.argsort(met, kind="stable")
    joined = [np.concatenate([operands[i] for operands in inputs])[order] for i in range(len(inputs[0]))]
    first_group = ready_parts[0][1]
    sorted_met = met[order]
    results = first_group.frame.function.info[first_group.pc].compute(
        Warps(wave.warps_of(sorted_met), wave.lanes_of(sorted_met)), joined)
    unsorted = []
    for result in results:
        back = np.empty_like(result)
        back[order] = result
        unsorted.append(back)
    info = first_group.frame.function.info[first_group.pc]
    if info.family == "shfl" and not info.legacy:
        _record_reads_outside_masks(ex, info.mode, ready_parts, sorted_met, joined)
    _note_met(ex, met)
    brought = _taint(ex, ready_parts) if ex.tainting else 0
    for event in ex.events.warp_masks[events_before:]:
        event.taint |= brought
    returned = np.zeros(0, dtype=np.int64)
    start = 0
    for key, group, go, go_rows, _ in ready_parts:
        piece = tuple(r[start : start + len(go)] for r in unsorted)
        start += len(go)
        group.frame.function.info[group.pc].output(group.frame, go_rows, piece)
        result = group.frame.function.decoded.ops[group.pc].result
        if ex.tainting and result >= 0:  # a lane's result may come from any lane that met
            taint.assign(group.frame.taint, group.frame.function.storage[result], go_rows, brought,
                         group.frame.count)
        stay = np.setdiff1d(group.frame.row_indices(group.rows), go, assume_unique=True)
        if len(stay):
            group.rows = stay
        else:
            del ex.collective_waits[key]
        if key == current:
            returned = go_rows
        else:
            ex.add(group.frame, group.pc + 1, go_rows)
    return returned


def _taint(ex, parts) -> int:
    """What any lane that met brought to a collective: its operands and reaching it; and
    what made lanes of their warps that left the kernel leave (absent_taint)."""
    brought = absent_taint(ex.wave, np.concatenate([p[4] for p in parts]))
    for _, group, _, go_rows, _ in parts:
        frame = group.frame
        brought |= taint.reduce(taint.operands(frame, frame.function.decoded.ops[group.pc].args, go_rows, group.pc))
        brought |= taint.reduce(taint.control(frame, frame.function.control.of(group.pc), go_rows))
    return brought


def _record_reads_outside_masks(ex, mode: str, parts, threads, operands) -> None:
    """A warp-mask event, once per shuffle and warp, when a lane reads (in range) a lane its
    own mask leaves out: PTX leaves the value undefined (a lane outside the mask may be
    elsewhere, or have exited)."""
    wave = ex.wave
    masks, _, operand, clamp = operands
    source, valid = shuffle_sources(mode, wave.lanes_of(threads), operand, clamp)
    masks = masks.astype(np.int64).astype(np.uint32)
    outside = valid & (((masks >> source.astype(np.uint32)) & 1) == 0)
    if not outside.any():
        return
    warps = wave.warps_of(threads)
    present = Warps(warps, wave.lanes_of(threads)).present()
    for warp in np.unique(warps[outside]):
        lanes = outside & (warps == warp)
        first = int(np.flatnonzero(lanes)[0])
        group = next(g for _, g, _, _, t in parts if threads[first] in t)
        op = group.frame.function.op_ids[group.pc]
        key = (op, int(warp), "outside")
        if key in ex.reported_masks:
            continue
        ex.reported_masks.add(key)
        read = int(np.bitwise_or.reduce((np.uint32(1) << source[lanes].astype(np.uint32)).astype(np.uint32)))
        ex.events.warp_masks.append(WarpMaskEvent(
            wave.first_block + int(warp) // wave.warps_per_block, int(warp) % wave.warps_per_block, op,
            int(masks[first]), int(present[first]), read))


def _note_met(ex, threads: np.ndarray) -> None:
    """Lanes completed a warp collective: it orders their accesses before and after; the
    trace keeps which lanes of which warps met at this step."""
    wave = ex.wave
    wave.warp_sync[threads] += 1
    if ex.recorder is None:
        return
    warps = wave.warps_of(threads)
    info = Warps(warps, wave.lanes_of(threads))
    first = warps[info.starts]
    ex.events.collectives.append((ex.steps, wave.first_block + first // wave.warps_per_block,
                                  first % wave.warps_per_block, info.present_bits.copy()))


def _record_missing_lanes(ex, parts, threads, masks, present) -> None:
    """A warp-mask event, once per collective and warp, when a mask names lanes of the
    block that did not take part (they exited, or are elsewhere)."""
    wave = ex.wave
    warps = wave.warps_of(threads)
    missing = masks & wave.existing_bits[warps] & ~present
    for index in np.flatnonzero(missing):
        warp = int(warps[index])
        group = next(g for _, g, _, t, _ in parts if threads[index] in t)
        op = group.frame.function.op_ids[group.pc]
        key = (op, warp)
        if key in ex.reported_masks:
            continue
        ex.reported_masks.add(key)
        stopped = absent_taint(wave, threads[index:index + 1]) if ex.tainting else 0
        ex.events.warp_masks.append(WarpMaskEvent(
            wave.first_block + warp // wave.warps_per_block, warp % wave.warps_per_block, op, int(masks[index]),
            int(present[index]), taint=stopped))


def absent_taint(wave, threads: np.ndarray) -> int:
    """What made the lanes of the warps of `threads` that left the kernel leave it (their
    place_taint: a fault on a made-up value that stopped them, or the branches that led
    them to return): masks, votes and shuffles that would have had them depend on it."""
    warps = np.unique(wave.warps_of(threads))
    gone = wave.existing_bits[warps] & ~wave.live_bits[warps]
    warps, gone = warps[gone != 0], gone[gone != 0]
    if len(warps) == 0:
        return 0
    which, lanes = np.nonzero((gone[:, None].astype(np.int64) >> np.arange(32)) & 1)
    blocks, in_block = np.divmod(warps[which], wave.warps_per_block)
    return int(np.bitwise_or.reduce(wave.place_taint[blocks * wave.tpb + in_block * 32 + lanes]))
