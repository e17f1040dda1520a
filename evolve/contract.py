"""The launch contract a kernel implies without stating it. A fixed-size array indexed by
the thread index (`__shared__ float s[256]; s[threadIdx.x]`) only works for blocks that
are small enough: a launch whose threads index past such an array is one the kernel was
never meant for, not a bug in it. The contract is learned from launches: an out-of-bounds
fault whose faulting threads all lie at index m or beyond along a block axis bounds that
axis (blockDim.x <= m), because without those threads the fault would not happen. A
fault in thread 0 of every axis bounds nothing: it stays a finding.

Likewise for the scalar arguments the search chooses: an index that is the same in every
thread and depends only on such arguments (`d_count[2 * octave + 1]` into a 17-element
array; evolve.taint.address_sources) going out of bounds says the arguments are outside
what the kernel was written for: such launches are outside the contract, not bugs in the
kernel. (What buffers hold is judged by simulee.check: a fault at an address computed from
content Simulee made up is the made-up content's, not the kernel's.)"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from evolve.taint import AddressSource
from interpreter.debuginfo import SourceLocation
from interpreter.launch import Alias, Result
from interpreter.memory import BAD_ADDRESS, LOCAL, MISALIGNED, NULL_POINTER, OUT_OF_BOUNDS, SHARED, split
from interpreter.trace import coordinates

AXES = "xyz"
MEMORY_FAULTS = (OUT_OF_BOUNDS, NULL_POINTER, MISALIGNED, BAD_ADDRESS)


@dataclass(frozen=True)
class Bound:
    """blockDim.<axis> <= limit, learned from the fault at `location`."""

    axis: str
    limit: int
    location: SourceLocation | None

    def text(self) -> str:
        return f"blockDim.{self.axis} <= {self.limit}"


@dataclass(frozen=True)
class Outside:
    """A launch outside the contract because of the fault at `location`: `why` says what
    of the launch caused it."""

    why: str
    location: SourceLocation | None


UNIFORM_INDEX = "the same index in every thread goes past a fixed-size array when {}"


@dataclass
class Contract:
    """Bounds on block dimensions, the tightest one per axis; what each instruction's
    address depends on (`sources`, evolve.taint.address_sources), the scalar arguments
    the search chooses (`open`) and the pointer parameters whose content may be made up
    (`buffers`); and the launches found outside the contract (`outside`, one per place)."""

    bounds: dict[str, Bound] = field(default_factory=dict)
    sources: dict = field(default_factory=dict)
    open: frozenset[str] = frozenset()
    buffers: frozenset[str] = frozenset()
    outside: list[Outside] = field(default_factory=list)

    def allows(self, block: tuple[int, int, int]) -> bool:
        return all(block[AXES.index(axis)] <= bound.limit for axis, bound in self.bounds.items())

    def learn(self, result: Result) -> bool:
        """Add what `result`'s faults imply; True when its launch breaks the contract.
        Each fault bounds the axis its faulting threads start furthest out on; of several
        faults bounding one axis, the loosest bound counts (s[t] and s[t + stride] both
        fault in a block too large for s, but only s[t] tells how large it may be)."""
        block = result.launch.block
        found: dict[str, Bound] = {}
        made_up = made_up_buffers(result.launch, self.buffers)
        for fault in result.events.faults:
            if not _fixed_size(fault) or self._source(result, fault).contents & made_up:
                continue  # an index read from made-up content says nothing about the block
            lowest = coordinates(fault.threads, block).min(axis=0)
            axis = int(np.argmax(lowest))
            if lowest[axis] > 0 and (AXES[axis] not in found or lowest[axis] > found[AXES[axis]].limit):
                ops = result.trace.ops
                location = ops[fault.op].location if 0 <= fault.op < len(ops) else None
                found[AXES[axis]] = Bound(AXES[axis], int(lowest[axis]), location)
        for bound in found.values():
            self.tighten(bound)
        return not self.allows(block)

    def breaks(self, result: Result) -> Outside | None:
        """Why `result`'s launch is outside the contract through its arguments (None: it
        is not): an out-of-bounds fault at an index only searched arguments decide."""
        for fault in result.events.faults:
            source = self._source(result, fault)
            uniform = source.uniform_in(self.open) if fault.kind == OUT_OF_BOUNDS else frozenset()
            if not uniform:
                continue
            why = UNIFORM_INDEX.format(", ".join(f"{n}={result.launch.args.get(n)}" for n in sorted(uniform)))
            found = Outside(why, result.trace.ops[fault.op].location)
            if all(known.location != found.location for known in self.outside):
                self.outside.append(found)  # the first launch that breaks it there
            return found
        return None

    def made_up_reads(self, launch, ops) -> list[str]:
        """The buffers of `launch` whose content Simulee made up that the addresses of
        instructions `ops` ((function, index)) are computed from."""
        sources = [self.sources[op].contents for op in ops if op in self.sources]
        return sorted(set().union(*sources) & made_up_buffers(launch, self.buffers))

    def _source(self, result: Result, fault) -> AddressSource:
        ops = result.trace.ops
        if not 0 <= fault.op < len(ops):
            return NO_SOURCE
        return self.sources.get((ops[fault.op].function, ops[fault.op].index), NO_SOURCE)

    def tighten(self, bound: Bound) -> None:
        current = self.bounds.get(bound.axis)
        if current is None or bound.limit < current.limit:
            self.bounds[bound.axis] = bound

    def texts(self) -> list[str]:
        return [self.bounds[axis].text() for axis in AXES if axis in self.bounds]


NO_SOURCE = AddressSource(frozenset(), frozenset(), True)


def content_buffers(kernel) -> frozenset[str]:
    """The pointer parameters whose content may be made up: all but tables of pointers,
    which Simulee fills with buffers of its own."""
    return frozenset(p.name for p in kernel.params if p.kind == "pointer" and p.pointee_kind != "pointer")


def made_up_buffers(launch, pointers: frozenset[str]) -> frozenset[str]:
    """The pointer parameters among `pointers` whose buffer content Simulee makes up in
    `launch`: every one not given as an array (an alias is what its target is)."""
    given = {name for name in pointers if isinstance(launch.args.get(name), np.ndarray)}
    given |= {name for name in pointers if isinstance(launch.args.get(name), Alias)
              and isinstance(launch.args.get(launch.args[name].target), np.ndarray)}
    return frozenset(pointers - given)


def _fixed_size(fault) -> bool:
    """An index past an array dimension (no address), or an access past shared or local
    memory: never a buffer the host sized, which would say nothing about the block."""
    if fault.kind != "out-of-bounds":
        return False
    if fault.addresses is None:
        return True
    space, _, _ = split(fault.addresses)
    return bool(np.isin(space, (SHARED, LOCAL)).all())
