"""The memory of one launch: global, constant, shared, local.

A pointer is an int64 tagged address: bits 56-63 hold the space (the NVPTX address space
numbers: 1 global, 3 shared, 4 constant, 5 local; 7 marks code for function pointers),
bits 40-55 a region (one per buffer or global variable) and bits 0-39 a byte offset in it.
Address-space casts therefore change nothing, pointer arithmetic is integer arithmetic on
the offset, and 0 is the null pointer. Shared addresses are offsets in the shared segment of
the accessing thread's block, local addresses offsets in the accessing thread's own stack.

Loads and stores are vectorized over the accessing threads. A lane that touches memory it
may not (null, out of bounds, misaligned, a write to constant memory) is reported back as a
fault and skipped: its load yields 0, its store is dropped.

Shadow memory (interpreter.taint) holds, per byte, which invented values its content
depends on: an index into a table of at most SHADOW_ENTRIES masks (the last stands for
every label, once the table is full). A region whose content Simulee invented starts with
its label in every byte (Region.taint); everything else starts with none. A region or
segment has no shadow array until something tainted is stored in it.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

import numpy as np

from interpreter.contents import Fill
from interpreter.taint import ALL
from interpreter.trace import (BAD_ADDRESS, BUFFER_LIMIT, CONSTANT_WRITE, MISALIGNED, NULL_POINTER, OUT_OF_BOUNDS,
                               USE_AFTER_FREE)

GLOBAL, SHARED, CONSTANT, LOCAL, CODE = 1, 3, 4, 5, 7
SPACE_NAMES = {GLOBAL: "global", SHARED: "shared", CONSTANT: "constant", LOCAL: "local", CODE: "code"}
SPACE_SHIFT, REGION_SHIFT = 56, 40
OFFSET_MASK = (1 << REGION_SHIFT) - 1
REGION_MASK = (1 << (SPACE_SHIFT - REGION_SHIFT)) - 1
NEGATIVE_OFFSETS = 1 << (REGION_SHIFT - 1)  # an offset from here on is a negative index into the next region
PAGE = 1 << 16
DEFAULT_GROWTH_LIMIT = 1 << 30  # a paged buffer grows to at most this many bytes
# bytes past which a paged buffer that grows is given all it may grow to: zeros the system maps
# on first touch, where doubling copied it again at each step (a sampled grid's far blocks)
RESERVE = 1 << 24
SHADOW_ENTRIES = 256  # masks a shadow byte can name (uint8)



def tag(space: int, region: int, offset: int) -> int:
    """The int64 address of byte `offset` of `region` in `space`."""
    value = (space << SPACE_SHIFT) | (region << REGION_SHIFT) | (offset & OFFSET_MASK)
    return value - (1 << 64) if value >= 1 << 63 else value


def split(addresses) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(space, region, offset) of tagged addresses."""
    bits = np.asarray(addresses, dtype=np.int64).view(np.uint64)
    space = (bits >> np.uint64(SPACE_SHIFT)).astype(np.int64)
    region = ((bits >> np.uint64(REGION_SHIFT)) & np.uint64(REGION_MASK)).astype(np.int64)
    offset = (bits & np.uint64(OFFSET_MASK)).astype(np.int64)
    return space, region, offset


@dataclass
class Region:
    """A buffer of global or constant memory. `size` is enforced when given; a paged region
    (size None) grows on first touch, filled with zeros or, given `fill`, that content."""

    name: str
    space: int
    data: np.ndarray
    size: int | None
    read_only: bool = False
    fill: Fill | None = None
    touched: int = 0  # one past the highest byte accessed
    growth_limit: int = DEFAULT_GROWTH_LIMIT
    filled: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))  # per FILL_CHUNK: has its content
    prefix: int = 0  # chunks from the start that all have their content (native code may touch them)
    guard: object = None  # (offsets, size) -> per access 0 or a FAULT_CODES code (the heap's allocations)
    pointees: object = None  # (slot indices) -> the addresses a table of pointers holds there (pointer_table)
    taint: int = 0  # the shadow index of what bytes never written hold (a label when Simulee invented them)
    placed: int = 0  # the shadow index of what its address depends on (a table's slot Simulee filled: its label)
    shadow: np.ndarray | None = None  # per byte, its shadow index (None: every byte `taint`)
    shadowed: int = 0  # bytes from the start the shadow covers (a paged buffer's later ones get `taint` when touched)
    allocated: bool = False  # paged up to a size the host allocates (growth_limit): past it is out of bounds

    @property
    def paged(self) -> bool:
        return self.size is None

    def limit(self) -> int:
        return self.size if self.size is not None else self.growth_limit

    def ensure(self, end: int, offsets: np.ndarray | None = None, size: int = 1) -> None:
        """Make a paged region hold at least `end` bytes. A randomly filled region fills a
        chunk when an access first touches it (`offsets`, `size`), so that a sparse walk
        over a large range costs only the chunks it touches."""
        if end > len(self.data):
            capacity = _pages(max(end, 2 * len(self.data), PAGE))
            grown = None
            if capacity > RESERVE and self.limit() > capacity:  # all of it at once, not copied at each doubling
                with contextlib.suppress(MemoryError):  # past what the machine commits: doubling it is
                    grown = np.zeros(_pages(self.limit()), dtype=np.uint8)
            grown = np.zeros(capacity, dtype=np.uint8) if grown is None else grown
            capacity = len(grown)
            grown[: len(self.data)] = self.data
            if self.shadow is not None:
                shadow = np.zeros(capacity, dtype=np.uint8)
                shadow[: len(self.shadow)] = self.shadow
                self.shadow = shadow
            self.data = grown
        if self.shadow is not None and end > self.shadowed:  # bytes first touched: what they hold is `taint`'s
            self.shadow[self.shadowed:end] = self.taint
            self.shadowed = end
        if (self.fill is not None or self.pointees is not None) and offsets is not None:
            if len(self.filled) < len(self.data) // FILL_CHUNK:
                missing = len(self.data) // FILL_CHUNK - len(self.filled)
                self.filled = np.concatenate([self.filled, np.zeros(missing, bool)])
            # the chunks each lane's first and last byte lie in, looked up per lane: lanes of a sampled grid's
            # far blocks span most of the buffer, of which they touch a few chunks
            chunks = np.concatenate([offsets // FILL_CHUNK, (offsets + size - 1) // FILL_CHUNK])
            unfilled = ~self.filled[chunks]
            if not unfilled.any():  # the usual case: every chunk touched has its content
                return
            fresh = np.unique(chunks[unfilled])
            if self.pointees is not None:
                slots = (fresh[:, None] * (FILL_CHUNK // 8) + np.arange(FILL_CHUNK // 8)).ravel()
                self.data.view("<i8")[slots] = self.pointees(slots)
            else:
                per_chunk = FILL_CHUNK // np.dtype(self.fill.dtype).itemsize
                elements = (fresh[:, None] * per_chunk + np.arange(per_chunk)).ravel()
                self.data.view(self.fill.dtype)[elements] = self.fill.values(elements)
            self.filled[fresh] = True
            if fresh[0] == self.prefix:  # the first chunk without its content got it
                self.prefix = _first_false(self.filled, self.prefix)


def _pages(size: int) -> int:
    """`size` rounded up to whole pages."""
    return (size + PAGE - 1) // PAGE * PAGE


def _first_false(flags: np.ndarray, start: int) -> int:
    """The index of the first False of `flags` from `start` (len(flags) when none), looked
    for in doubling windows: a large buffer's flags are not all read for each fill."""
    step = FILL_CHUNK
    while start < len(flags):
        window = flags[start:start + step]
        if not window.all():
            return start + int(window.argmin())
        start, step = start + len(window), step * 2
    return len(flags)


FILL_CHUNK = 256  # bytes of a random region (or a table of pointers) filled at once
POINTER_SLOTS = 1 << 14  # pointers of a table of pointers that point to buffers
REGION_RESERVE = 1024  # regions tables of pointers leave for everything else


@dataclass
class Access:
    """Where the non-faulting lanes of one access went: per lane its space, region (0 for
    shared and local) and offset, and the flat index of its first byte in its memory."""

    lanes: np.ndarray  # indices into the accessing lanes that did not fault
    space: np.ndarray
    region: np.ndarray
    offset: np.ndarray


@dataclass
class Faults:
    lanes: np.ndarray
    kinds: list[str] = field(default_factory=list)  # one kind per faulting lane


class Memory:
    """Regions of global and constant memory plus the shared and local segments of the
    blocks and threads currently executing."""

    def __init__(self, growth_limit: int = DEFAULT_GROWTH_LIMIT):
        self.regions: list[Region | None] = [None]  # region 0 is never used
        self.growth_limit = growth_limit
        self.shared = np.zeros(0, dtype=np.uint8)
        self.shared_bytes = 0
        self.local = np.zeros(0, dtype=np.uint8)
        self.local_bytes = 0
        self.local_threads = 0
        self.version = 0  # counts the stores (a loop that stores nothing sees the same memory)
        self.reads = 0  # counts the loads (a loop that loads nothing waits on no one)
        self.revision = 0  # changes whenever a region's bytes move or its limit changes (interpreter.native)
        self.beyond: int | None = None  # where pointers past a table's end point (_beyond)
        self.host_ranges: dict[int, int] = {}  # host address -> the region that starts there (map_host)
        self._host_table: tuple[np.ndarray, np.ndarray] | None = None  # sorted bases and their regions
        self.masks = np.zeros(SHADOW_ENTRIES, dtype=np.uint64)  # shadow index -> taint mask
        self.masks[-1] = ALL
        self.mask_index = {0: 0, ALL: SHADOW_ENTRIES - 1}
        self.shared_shadow: np.ndarray | None = None
        self.local_shadow: np.ndarray | None = None

    # -- setting up

    def add_region(self, name: str, space: int, data: np.ndarray | None = None, size: int | None = None,
                   read_only: bool = False, fill: Fill | None = None, taint: int = 0) -> int:
        """A new region; returns its number. With `data`, its bytes start as those (and its
        size is enforced unless `size` is None and `data` is None). `taint` is what its
        initial bytes depend on (a mask of labels: Simulee invented them)."""
        if data is not None:
            raw = np.frombuffer(np.ascontiguousarray(data).tobytes(), dtype=np.uint8)
            size = len(raw) if size is None else size
            capacity = max(16, (size + 15) // 16 * 16)
            buffer = np.zeros(capacity, dtype=np.uint8)
            buffer[: len(raw)] = raw
        elif fill is not None:
            buffer = np.zeros(0, dtype=np.uint8)  # every byte comes from the fill
        else:
            buffer = np.zeros(max(16, ((size or 0) + 15) // 16 * 16), dtype=np.uint8)
        region = Region(name, space, buffer, size, read_only, fill, growth_limit=self.growth_limit,
                        taint=self.label_index(taint))
        self.regions.append(region)
        if len(self.regions) > REGION_MASK:
            raise MemoryError("too many memory regions")
        return len(self.regions) - 1

    def add_view(self, name: str, space: int, view: np.ndarray, size: int, read_only: bool = False) -> int:
        """A new region of `size` bytes whose bytes are those of `view` (memory shared with
        something else: a program's device); returns its number."""
        self.regions.append(Region(name, space, view, size, read_only))
        if len(self.regions) > REGION_MASK:
            raise MemoryError("too many memory regions")
        return len(self.regions) - 1

    def map_host(self, base: int, number: int) -> None:
        """Let addresses from `base` (untagged: a host pointer) reach region `number`."""
        self.host_ranges[base] = number
        self._host_table = None

    def unmap_host(self, base: int) -> None:
        self.host_ranges.pop(base, None)
        self._host_table = None

    def add_pointer_table(self, name: str, levels: int, fill: Fill | None = None, taint: int = 0) -> int:
        """A paged region of pointers (a `T**` argument), each to a paged region of its own
        made when its slot is first touched: with `levels` > 1 those hold pointers too, and
        the last level holds data (zeros, or `fill`'s content). Slots past
        POINTER_SLOTS, or past the regions left (REGION_RESERVE kept), point to a buffer
        that cannot grow: an access there is past what Simulee gives (BUFFER_LIMIT), not a
        fault of the kernel's. `taint` is what the buffers hold depends on (the slots point to
        buffers of their own whatever the host would put there: an access through one
        slot meets another through it whatever it holds)."""
        number = self.add_region(name, GLOBAL)

        def pointees(slots: np.ndarray) -> np.ndarray:
            addresses = np.zeros(len(slots), dtype=np.int64)
            for index, slot in enumerate(slots.tolist()):
                if slot >= POINTER_SLOTS or len(self.regions) >= REGION_MASK - REGION_RESERVE:
                    addresses[index] = self._beyond()
                    continue
                inner_fill = None if fill is None else fill.inner(slot)
                inner = (self.add_pointer_table(f"{name}[{slot}]", levels - 1, inner_fill, taint) if levels > 1
                         else self.add_region(f"{name}[{slot}]", GLOBAL, fill=inner_fill, taint=taint))
                self.regions[inner].placed = self.label_index(taint)
                addresses[index] = self.region_address(inner)
            return addresses

        table = self.regions[number]
        table.data, table.pointees = np.zeros(0, dtype=np.uint8), pointees  # every slot comes from pointees
        return number

    def _beyond(self) -> int:
        """The address of the one buffer of no bytes that pointers past a table's end hold."""
        if self.beyond is None:
            number = self.add_region("(past the pointers Simulee gives a table)", GLOBAL)
            self.regions[number].growth_limit = 0
            self.revision += 1
            self.beyond = self.region_address(number)
        return self.beyond

    def release(self, regions: bool = True) -> None:
        """Free the bytes of every segment and (unless they outlive the launch) region: the
        launch is over."""
        for region in self.regions[1:] if regions else ():
            if region is not None:
                region.data = np.zeros(0, dtype=np.uint8)
                region.shadow, region.shadowed = None, 0
        self.revision += 1
        self.shared = self.local = np.zeros(0, dtype=np.uint8)
        self.shared_shadow = self.local_shadow = None

    def region_address(self, number: int) -> int:
        return tag(self.regions[number].space, number, 0)

    def start_wave(self, blocks: int, shared_bytes: int, threads: int, local_bytes: int) -> None:
        """Fresh shared segments for `blocks` blocks and local stacks for `threads` threads."""
        self.shared_bytes = (shared_bytes + 15) // 16 * 16
        self.shared = np.zeros(blocks * self.shared_bytes, dtype=np.uint8)
        self.local_threads = threads
        self.local_bytes = (local_bytes + 15) // 16 * 16
        self.local = np.zeros(threads * self.local_bytes, dtype=np.uint8)
        self.shared_shadow = self.local_shadow = None

    def grow_local(self, bytes_per_thread: int) -> None:
        """Make every thread's local stack hold at least `bytes_per_thread` bytes."""
        if bytes_per_thread <= self.local_bytes:
            return
        new_bytes = max((bytes_per_thread + 15) // 16 * 16, 2 * self.local_bytes)
        grown = np.zeros((self.local_threads, new_bytes), dtype=np.uint8)
        if self.local_bytes:
            grown[:, : self.local_bytes] = self.local.reshape(self.local_threads, self.local_bytes)
        self.local = grown.reshape(-1)
        if self.local_shadow is not None:
            shadow = np.zeros((self.local_threads, new_bytes), dtype=np.uint8)
            if self.local_bytes:
                shadow[:, : self.local_bytes] = self.local_shadow.reshape(self.local_threads, self.local_bytes)
            self.local_shadow = shadow.reshape(-1)
        self.local_bytes = new_bytes

    # -- access

    def locate(self, addresses, size: int, align: int, blocks, threads, write: bool) -> tuple[Access, Faults, list]:
        """Resolve an access of `size` bytes at `addresses` by lanes whose block (in the wave)
        and thread (in the wave) are `blocks` and `threads`. Returns the access of the lanes
        that may proceed, the faults of the others, and per memory touched a triple
        (memory array, the lanes that proceed there, flat byte indices)."""
        addresses = np.asarray(addresses, dtype=np.int64)
        count = len(addresses)
        high = addresses >> REGION_SHIFT
        if count and high.min() == high.max():  # one space and region: the usual case
            bits = int(addresses[0]) & ((1 << 64) - 1)
            space = np.full(count, bits >> SPACE_SHIFT, dtype=np.int64)
            region = np.full(count, (bits >> REGION_SHIFT) & REGION_MASK, dtype=np.int64)
            offset = addresses & OFFSET_MASK
        else:
            space, region, offset = split(addresses)
        if self.host_ranges and space.min() == 0:
            space, region, offset = self.from_host(addresses, space, region, offset)
        bad = np.zeros(count, dtype=bool)
        kinds = np.zeros(count, dtype=np.int8)  # index into _KINDS
        align = min(align, size & -size) if size > 0 else align  # the hardware's need, whatever the IR claims
        if align > 1:
            misaligned = (offset & (align - 1)) != 0 if align & (align - 1) == 0 else (offset % align) != 0
            if misaligned.any():
                kinds[misaligned] = 3
                bad |= misaligned
        parts = []
        uniform = count and space.min() == space.max()
        spaces = [int(space[0])] if uniform else np.unique(space).tolist()
        for space_value in spaces:
            mask = None if uniform else space == space_value
            lanes = np.arange(count) if mask is None else np.flatnonzero(mask)
            if space_value in (GLOBAL, CONSTANT):
                self._locate_regions(region, offset, size, lanes, write, bad, kinds, parts)
            elif space_value == SHARED:
                self._locate_segment(self.shared, self.shared_bytes, blocks, offset, size, lanes, bad, kinds, parts)
            elif space_value == LOCAL:
                self._locate_segment(self.local, self.local_bytes, threads, offset, size, lanes, bad, kinds, parts)
            else:  # no space tag: a null (or null-based) pointer; code or garbage otherwise
                kinds[lanes] = 1 if space_value == 0 else 5
                bad[lanes] = True
        if not bad.any():  # no faults: every lane proceeds, in order
            everyone = np.arange(count)
            return Access(everyone, space, region, offset), Faults(np.zeros(0, dtype=np.int64)), parts
        good = np.flatnonzero(~bad)
        faulty = np.flatnonzero(bad)
        access = Access(good, space[good], region[good], offset[good])
        faults = Faults(faulty, [_KINDS[k] for k in kinds[faulty]])
        resolved = []
        for memory, lanes, flat in parts:
            keep = ~bad[lanes]
            if keep.all():
                resolved.append((memory, lanes, flat))
            elif keep.any():
                resolved.append((memory, lanes[keep], flat[keep]))
        return access, faults, resolved

    def from_host(self, addresses, space, region, offset):
        """Space, region and offset with untagged addresses inside a mapped host range
        (map_host) made global addresses of its region."""
        if self._host_table is None:
            bases = np.array(sorted(self.host_ranges), dtype=np.int64)
            self._host_table = bases, np.array([self.host_ranges[b] for b in bases.tolist()], dtype=np.int64)
        bases, numbers = self._host_table
        untagged = np.flatnonzero(space == 0)
        at = np.searchsorted(bases, addresses[untagged], side="right") - 1
        inside = at >= 0
        untagged, at = untagged[inside], at[inside]
        if len(untagged):
            space, region, offset = space.copy(), np.array(region, copy=True), np.array(offset, copy=True)
            space[untagged] = GLOBAL
            region[untagged] = numbers[at]
            offset[untagged] = addresses[untagged] - bases[at]
        return space, region, offset

    def _locate_regions(self, region, offset, size, lanes, write, bad, kinds, parts) -> None:
        lane_regions = region[lanes]
        numbers = [int(lane_regions[0])] if lane_regions.min() == lane_regions.max() else \
            np.unique(lane_regions).tolist()
        for number in numbers:
            selected = lanes if len(numbers) == 1 else lanes[lane_regions == number]
            target = self.regions[number] if 0 < number < len(self.regions) else None
            if target is None:
                kinds[selected] = 5
                bad[selected] = True
                continue
            if write and target.read_only:
                kinds[selected] = 4
                bad[selected] = True
                continue
            ends = offset[selected] + size
            outside = ends > target.limit()
            if outside.any():
                # a paged buffer is as large as the kernel needs, but never starts later: an offset in the
                # top half is an index below the start of the next region
                too_large = (target.paged and not target.allocated) & (offset[selected[outside]] < NEGATIVE_OFFSETS)
                kinds[selected[outside]] = np.where(too_large, 7, 2)
                bad[selected[outside]] = True
                selected, ends = selected[~outside], ends[~outside]
            if target.guard is not None and len(selected):
                codes = target.guard(offset[selected], size)
                refused = codes > 0
                kinds[selected[refused]] = codes[refused]
                bad[selected[refused]] = True
                selected, ends = selected[~refused], ends[~refused]
            if len(selected):
                end = int(ends.max())
                if target.paged:
                    before, prefix = target.data, target.prefix
                    target.ensure(end, offset[selected], size)
                    self.revision += target.data is not before or target.prefix != prefix
                target.touched = max(target.touched, end)
                parts.append((target, selected, offset[selected]))

    def _locate_segment(self, data, segment_bytes, owners, offset, size, lanes, bad, kinds, parts) -> None:
        lane_offsets = offset[lanes]
        outside = lane_offsets + size > segment_bytes
        if outside.any():
            kinds[lanes[outside]] = 2
            bad[lanes[outside]] = True
            lanes, lane_offsets = lanes[~outside], lane_offsets[~outside]
        if len(lanes):
            parts.append((_Segment(self, data is self.shared), lanes, owners[lanes] * segment_bytes + lane_offsets))

    def read_bytes(self, resolved, count: int, size: int, align: int) -> np.ndarray:
        """The bytes (count, size) the resolved lanes read (rows of faulting lanes stay 0)."""
        out = np.zeros((count, size), dtype=np.uint8)
        word, words = _word(size, align)
        self.reads += 1
        for memory, positions, flat in resolved:
            gathered = memory.data.view(word)[(flat // word.itemsize)[:, None] + np.arange(words)]
            out[positions] = gathered.view(np.uint8).reshape(len(flat), size)
        return out

    def write_bytes(self, resolved, data_rows: np.ndarray, size: int, align: int) -> None:
        """Store `data_rows` (count, size) for the resolved lanes; the last lane wins where
        several write the same bytes."""
        word, words = _word(size, align)
        self.version += 1
        for memory, positions, flat in resolved:
            rows = np.ascontiguousarray(data_rows[positions]).view(word).reshape(len(flat), words)
            memory.data.view(word)[(flat // word.itemsize)[:, None] + np.arange(words)] = rows


    # -- shadow memory

    def taint_local(self, ranges: list[tuple[int, int]], mask: int) -> None:
        """Every thread's local bytes in `ranges` ([start, end) of its stack) now hold `mask`."""
        if self.local_shadow is None:
            self.local_shadow = np.zeros(len(self.local), dtype=np.uint8)
        shadows, index = self.local_shadow.reshape(-1, self.local_bytes), self.label_index(mask)
        for low, high in ranges:
            shadows[:, low:high] = index

    def label_index(self, mask: int) -> int:
        """The shadow index of taint `mask` (the last index, every label, once the table is
        full)."""
        found = self.mask_index.get(mask)
        if found is None:
            found = len(self.mask_index) - 1
            if found >= SHADOW_ENTRIES - 1:
                return SHADOW_ENTRIES - 1
            self.masks[found] = mask
            self.mask_index[mask] = found
        return found

    def pointee_taint(self, addresses: np.ndarray) -> np.ndarray:
        """Per address, what where the region it points into lies depends on (Region.placed;
        0 outside global and constant memory): a pointer Simulee put in a table's slot
        stands for whatever the host would have put there."""
        space, region, _ = split(np.asarray(addresses, dtype=np.int64))
        inside = ((space == GLOBAL) | (space == CONSTANT)) & (region > 0) & (region < len(self.regions))
        placed = np.array([r.placed if r is not None else 0 for r in self.regions], dtype=np.int64)
        return self.masks[np.where(inside, placed[np.where(inside, region, 0)], 0)]

    def read_taint(self, resolved, count: int, size: int):
        """The taint each resolved lane's `size` bytes hold together (faulting lanes: none):
        an int when every lane's is the same, else one mask per lane."""
        found = 0
        for memory, positions, flat in resolved:
            shadow, base = _shadow(self, memory)
            if shadow is None:
                if base:
                    found = _merged(found, int(self.masks[base]), positions, count)
                continue
            found = _merged(found, self._lane_taint(shadow, flat, size), positions, count)
        return found

    def _lane_taint(self, shadow: np.ndarray, flat: np.ndarray, size: int):
        """What the `size` bytes at each of `flat` hold by `shadow`: an int when it is the
        same for every lane (as it usually is), else one mask per lane."""
        if size in (1, 2, 4, 8) and len(shadow) % size == 0 and not (flat % size).any():
            words = shadow.view(f"u{size}")[flat // size]  # each lane's shadow bytes as one word
            first = words[0] if len(words) else 0
            if (words == first).all():
                return self._word_mask(int(first), size)
            distinct, inverse = np.unique(words, return_inverse=True)
            return np.array([self._word_mask(int(w), size) for w in distinct], dtype=np.uint64)[inverse.reshape(-1)]
        indices = shadow[flat[:, None] + np.arange(size)]
        if not indices.any():
            return 0
        return np.bitwise_or.reduce(self.masks[indices], axis=1)

    def _word_mask(self, word: int, size: int) -> int:
        """The union of the masks the shadow bytes packed in `word` name."""
        mask = 0
        for _ in range(size):
            mask |= int(self.masks[word & 0xFF])
            word >>= 8
        return mask

    def write_taint(self, resolved, taint, size: int) -> None:
        """The resolved lanes' `size` bytes now hold `taint` (an int for all lanes, or one
        mask per lane of the access)."""
        for memory, positions, flat in resolved:
            shadow, base = _shadow(self, memory)
            if type(taint) is int:
                if shadow is None and base == 0 and not taint:
                    continue
                indices = self.label_index(taint)
            else:
                lane_masks = taint[positions]
                if shadow is None and base == 0 and not lane_masks.any():
                    continue
                distinct, inverse = np.unique(lane_masks, return_inverse=True)
                indices = np.array([self.label_index(int(m)) for m in distinct], dtype=np.uint8)[inverse][:, None]
            if shadow is None:
                shadow = _make_shadow(self, memory, base)
            shadow[flat[:, None] + np.arange(size)] = indices


def _shadow(memory: Memory, target) -> tuple[np.ndarray | None, int]:
    """(shadow array or None, shadow index of bytes without one) of a memory target."""
    if isinstance(target, Region):
        return target.shadow, target.taint
    return (memory.shared_shadow if target.shared else memory.local_shadow), 0


def _make_shadow(memory: Memory, target, base: int) -> np.ndarray:
    if isinstance(target, Region):  # a paged buffer's as far as it was touched, the rest when it is (ensure)
        target.shadowed = min(target.touched, len(target.data)) if target.paged else len(target.data)
        target.shadow = np.zeros(len(target.data), dtype=np.uint8)
        target.shadow[:target.shadowed] = base
        return target.shadow
    shadow = np.zeros(len(target.data), dtype=np.uint8)
    if target.shared:
        memory.shared_shadow = shadow
    else:
        memory.local_shadow = shadow
    return shadow


def _merged(found, masks, positions: np.ndarray, count: int):
    """`found` (an int, or one mask per lane of `count`) with lanes `positions` also
    carrying `masks` (an int, or one per position)."""
    if type(found) is int and type(masks) is int and len(positions) == count:
        return found | masks
    if type(found) is int:
        found = np.full(count, found, dtype=np.uint64)
    found[positions] |= np.uint64(masks) if type(masks) is int else masks
    return found


def _word(size: int, align: int) -> tuple[np.dtype, int]:
    """The widest unsigned word that divides both the access size and its alignment (so
    the access is whole words), and how many words the access takes."""
    for width in (8, 4, 2, 1):
        if size % width == 0 and align % width == 0:
            return np.dtype(f"u{width}"), size // width
    return np.dtype(np.uint8), size


_KINDS = (None, NULL_POINTER, OUT_OF_BOUNDS, MISALIGNED, CONSTANT_WRITE, BAD_ADDRESS, USE_AFTER_FREE, BUFFER_LIMIT)
FAULT_CODES = {kind: code for code, kind in enumerate(_KINDS) if kind}


class _Segment:
    """The shared or local segment as a memory target (its array changes when it grows)."""

    def __init__(self, memory: Memory, shared: bool):
        self.memory, self.shared = memory, shared

    @property
    def data(self) -> np.ndarray:
        return self.memory.shared if self.shared else self.memory.local
