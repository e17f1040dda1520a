"""The launch contract a kernel implies without stating it. A fixed-size array indexed by
the thread index (`__shared__ float s[256]; s[threadIdx.x]`) only works for blocks that
are small enough: a launch whose threads index past such an array is one the kernel was
never meant for, not a bug in it. The contract is learned from launches: an out-of-bounds
fault whose faulting threads all lie at index m or beyond along a block axis bounds that
axis (blockDim.x <= m), because without those threads the fault would not happen. A
fault in thread 0 of every axis bounds nothing: it stays a finding."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from interpreter.debuginfo import SourceLocation
from interpreter.launch import Result
from interpreter.memory import LOCAL, SHARED, split
from interpreter.trace import coordinates

AXES = "xyz"


@dataclass(frozen=True)
class Bound:
    """blockDim.<axis> <= limit, learned from the fault at `location`."""

    axis: str
    limit: int
    location: SourceLocation | None

    def text(self) -> str:
        return f"blockDim.{self.axis} <= {self.limit}"


@dataclass
class Contract:
    """Bounds on block dimensions; the tightest one per axis."""

    bounds: dict[str, Bound] = field(default_factory=dict)

    def allows(self, block: tuple[int, int, int]) -> bool:
        return all(block[AXES.index(axis)] <= bound.limit for axis, bound in self.bounds.items())

    def learn(self, result: Result) -> bool:
        """Add what `result`'s faults imply; True when its launch breaks the contract.
        Each fault bounds the axis its faulting threads start furthest out on; of several
        faults bounding one axis, the loosest bound counts (s[t] and s[t + stride] both
        fault in a block too large for s, but only s[t] tells how large it may be)."""
        block = result.launch.block
        found: dict[str, Bound] = {}
        for fault in result.events.faults:
            if not _fixed_size(fault):
                continue
            lowest = coordinates(fault.threads, block).min(axis=0)
            axis = int(np.argmax(lowest))
            if lowest[axis] > 0 and (AXES[axis] not in found or lowest[axis] > found[AXES[axis]].limit):
                ops = result.trace.ops
                location = ops[fault.op].location if 0 <= fault.op < len(ops) else None
                found[AXES[axis]] = Bound(AXES[axis], int(lowest[axis]), location)
        for bound in found.values():
            self.tighten(bound)
        return not self.allows(block)

    def tighten(self, bound: Bound) -> None:
        current = self.bounds.get(bound.axis)
        if current is None or bound.limit < current.limit:
            self.bounds[bound.axis] = bound

    def texts(self) -> list[str]:
        return [self.bounds[axis].text() for axis in AXES if axis in self.bounds]


def _fixed_size(fault) -> bool:
    """An index past an array dimension (no address), or an access past shared or local
    memory: never a buffer the host sized, which would say nothing about the block."""
    if fault.kind != "out-of-bounds":
        return False
    if fault.addresses is None:
        return True
    space, _, _ = split(fault.addresses)
    return bool(np.isin(space, (SHARED, LOCAL)).all())
