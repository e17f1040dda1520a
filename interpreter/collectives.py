"""Warp collectives over the lanes that execute them together: shuffles, votes, matches and
the active mask. Pure functions of per-lane arrays; the scheduler decides which lanes meet.

Lanes come with their warp (any integer id, lanes of one warp contiguous and in lane order)
and their lane number 0..31. A lane's mask names the lanes it exchanges with; lanes named
but absent do not contribute (a shuffle from an absent lane yields the lane's own value).
"""

from __future__ import annotations

import numpy as np

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


def shuffle(mode: str, warps: Warps, values: np.ndarray, operand, clamp) -> tuple[np.ndarray, np.ndarray]:
    """shfl.sync in mode idx, up, down or bfly (PTX semantics): `operand` is the source lane,
    delta or lane mask; `clamp` packs the segment mask (bits 8-12) and the clamp lane (bits
    0-4). Returns (value, whether the source lane was in range)."""
    lanes = warps.lanes
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
    source = np.where(valid, source, lanes) & 0x1F
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
