"""The device a program under `simulee exec` runs its kernels on.

The program (built by hostbuild, linked with simulee/runtime) asks for memory, kernels and
launches over a socket (the requests of runtime/protocol.h). Device memory is an arena file
both processes map: each allocation and each global variable is a region of the
interpreter's memory whose bytes are a slice of the arena, so the program's copies and the
kernels' accesses meet without copying. Device pointers are the interpreter's tagged
addresses; managed and page-locked host memory are reached by the program's own pointers
(Memory.map_host). Each launch runs in the interpreter on that memory, every detector looks
at it, and its findings are kept; the reply carries the error a GPU would report and the
kernel's printf output.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import pickle
import socket
import struct
import tempfile
import time
from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from interpreter.launch import Launch, Result
from interpreter.limits import TRACE_LIMIT
from interpreter.loader import KernelInfo, Program
from interpreter.textures import Texture
from interpreter.memory import CONSTANT, GLOBAL, SHARED, Memory, split
from interpreter.placement import Placement
from interpreter.simt import execute
from interpreter.trace import BUFFER_LIMIT, DIVISION_BY_ZERO, OUT_OF_BOUNDS, TRAP, ChildLaunch
from simulee.detect.streams import Footprint
from simulee.model import findings
from simulee.model.findings import display

ARENA_BYTES = 1 << 34  # the device's memory: a sparse file, only the bytes used take space
ALIGNMENT = 256  # of every allocation, as cudaMalloc's
STEP_LIMIT = 1 << 50  # a program's kernel runs until it ends (or the program's --timeout), not to a budget
# the streams (and events) of launches kernels make: bit 62, the launching launch << 32, its block
CHILD_STREAM, CHILD_EVENT = 1 << 62, 3 << 61
MAX_DEPTH = 24  # of launches from kernels (cudaLimitDevRuntimeSyncDepth's ceiling)
REPEAT_BYTES = 1 << 26  # bytes of launches' effects kept to give again when a launch repeats one


class Request(IntEnum):
    """The requests of runtime/protocol.h."""

    HELLO = 1
    KERNEL = 2
    SYMBOL = 3
    MALLOC = 5
    FREE = 6
    LAUNCH = 7
    TRANSFER = 8
    SYNCHRONIZE = 9
    STREAM_SYNCHRONIZE = 10
    STREAM_WAIT = 11
    EVENT_RECORD = 12
    EVENT_SYNCHRONIZE = 13
    UNSUPPORTED = 14
    TEXTURE = 15
    TEXTURE_DESTROY = 16
    STREAM_CREATE = 17
    TEXTURE_BIND = 18
    FINISH = 19


DEVICE_MEMORY, MANAGED_MEMORY, HOST_MEMORY = 0, 1, 2
# cudaError_t values
SUCCESS, INVALID_VALUE, MEMORY_ALLOCATION, INVALID_SYMBOL = 0, 1, 2, 13
INVALID_DEVICE_POINTER, INVALID_DEVICE_FUNCTION, ILLEGAL_ADDRESS, LAUNCH_TIMEOUT, ASSERT = 17, 98, 700, 702, 710
LAUNCH_FAILURE, NOT_SUPPORTED, MAX_DEPTH_EXCEEDED = 719, 801, 65
HEADER = struct.Struct("<IIQ")  # op, reserved, payload bytes
REPLY = struct.Struct("<iIQ")  # status, reserved, payload bytes


@dataclass
class DeviceLaunch:
    """One launch the program made: its number (from 1), kernel, where in the program,
    dimensions, stream, what the interpreter made of it (result, released once the
    detectors had it) and the CUDA error it gave the program."""

    number: int
    kernel: KernelInfo
    site: tuple[str, int] | None  # file and line of the <<<...>>> (or cudaLaunchKernel call)
    grid: tuple
    block: tuple
    stream: int
    status: str = ""
    message: str = ""
    error: int = SUCCESS
    seconds: float = 0.0
    result: Result | None = None
    repeat_of: int = 0  # the launch this one repeats exactly (same kernel, dimensions, arguments and memory)
    parent: int = 0  # the launch whose kernel made this one (dynamic parallelism)
    reused: str = ""  # the launch of another process this one repeats exactly (its report's name)
    checked: object = None  # what the observer found of it, to give again (runner._Checker.launched)
    footprint: Footprint = field(default_factory=Footprint)  # what its trace's parts read, wrote and updated

    @property
    def where(self) -> str:
        return f"{display(self.site[0])}:{self.site[1]}" if self.site else ""


@dataclass
class Allocation:
    region: int
    offset: int  # in the arena
    size: int
    kind: int
    host: int = 0  # the program's pointer to managed or host memory


@dataclass
class Device:
    """The device of one program: `program` is its device code, `sites(address)` gives the
    (file, line) of a return address in the program's executable, and `observer` hears of
    what the program does: launched(DeviceLaunch) after each launch ran (before the program
    goes on), transferred(destination, source, bytes, stream, blocking) of each copy and
    fill (with its site), and ordered(Request, values) of each synchronization, event record and wait."""

    program: Program
    sites: object = None
    observer: object = None
    before_launch: object = None  # (Launch, DeviceLaunch) -> None, before each launch runs (--save-launches)
    deadline: float = float("inf")  # time.perf_counter() past which a launch stops (the program's --timeout)
    # a launch that read or wrote past a buffer fails as compute-sanitizer makes it (--stop-on-fault); otherwise it
    # succeeds as on a GPU without a checker: what it read there was 0, what it wrote there is dropped
    stop_on_fault: bool = False
    memory: Memory = field(default_factory=Memory)
    addresses: dict | None = None  # of the global variables and functions (Placement reads them)
    allocations: dict[int, Allocation] = field(default_factory=dict)  # by region
    launches: list[DeviceLaunch] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)  # runtime functions the program called in vain
    heap: object = None  # the device heap of in-kernel malloc and new (interpreter.heap.Heap), kept across launches
    textures: dict[int, Texture] = field(default_factory=dict)  # texture objects, by handle
    on_finish: object = None  # () -> the number of errors found, when the program asks FINISH at its exit
    # a folder other processes of the program's test suite share: launches repeating one of theirs reuse it
    # (the program then is runner.program_of's, with its IR's digest)
    shared_launches: object = None

    def __post_init__(self):
        directory = "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
        handle, self.arena_path = tempfile.mkstemp(prefix="simulee-arena-", dir=directory)
        os.ftruncate(handle, ARENA_BYTES)
        self._map = mmap.mmap(handle, ARENA_BYTES)
        os.close(handle)
        self.arena = np.frombuffer(self._map, dtype=np.uint8)
        self.top = 0
        self.base = 0  # the program's address of the arena
        self.kernels: list[KernelInfo] = []
        self.missing: list[str] = []  # kernels the program registers whose device code is not in the program
        self.textures_made = 0
        self.repeats: dict[tuple, tuple] = {}  # launch key -> (its launch, the bytes it changed, its output)
        self.process = str(os.getpid())
        self._repeat_bytes = 0
        self.answering = False  # a request (a launch: run, then checked) is being answered
        self.cut = [float("inf")]  # when every launch stops (Launch.cut_off): lowered by stop_launches
        placement = Placement(self.program, None, Launch((1, 1, 1), (1, 1, 1), device=self), self.memory)
        self.addresses = {name: address for name, address in placement.addresses.items()
                          if int(split(np.int64(address))[0][()]) != SHARED}
        self.symbol_regions = dict(placement.regions)

    def stop_launches(self, at: float) -> None:
        """Stop the launch running at `at` (a time.perf_counter()), and every later one at once;
        from any thread (the program is gone: nothing waits for what they would do)."""
        self.cut[0] = min(self.cut[0], at)

    def close(self) -> None:
        """Unmap and remove the arena."""
        self.arena = None
        try:
            self._map.close()
        except BufferError:  # a view still refers to it: the file goes anyway
            pass
        try:
            os.unlink(self.arena_path)
        except OSError:
            pass

    # ------------------------------------------------------------------ memory

    def place(self, name: str, space: int, data: np.ndarray, size: int) -> int:
        """A region for a global variable holding `data` (Placement asks, once)."""
        region, offset = self._carve(name, space, size, read_only=space == CONSTANT)
        raw = np.frombuffer(np.ascontiguousarray(data).tobytes(), dtype=np.uint8)[:size]
        self.arena[offset : offset + len(raw)] = raw
        return region

    def _carve(self, name: str, space: int, size: int, read_only: bool = False) -> tuple[int, int]:
        """A new region of `size` bytes at the top of the arena: (region, arena offset)."""
        capacity = max(16, (size + 15) // 16 * 16)
        if self.top + capacity > ARENA_BYTES:
            raise MemoryError
        offset = self.top
        self.top = (self.top + capacity + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT
        region = self.memory.add_view(name, space, self.arena[offset : offset + capacity], size, read_only)
        return region, offset

    def allocate(self, size: int, kind: int) -> tuple[int, Allocation | None]:
        if size == 0 and kind == DEVICE_MEMORY:
            return SUCCESS, None
        try:
            region, offset = self._carve(f"allocation {len(self.allocations) + 1}", GLOBAL, size)
        except MemoryError:
            return MEMORY_ALLOCATION, None
        allocation = Allocation(region, offset, size, kind)
        if kind != DEVICE_MEMORY:
            allocation.host = self.base + offset
            self.memory.map_host(allocation.host, region)
        self.allocations[region] = allocation
        return SUCCESS, allocation

    def free(self, address: int, kind: int) -> tuple[int, int]:
        """(error, region) of freeing what starts at `address`."""
        if kind == DEVICE_MEMORY:
            space, region, offset = (int(v[()]) for v in split(np.int64(address)))
            allocation = self.allocations.get(region) if space == GLOBAL and offset == 0 else None
        else:
            allocation = next((a for a in self.allocations.values() if a.host == address), None)
        if allocation is None:
            return INVALID_DEVICE_POINTER if kind == DEVICE_MEMORY else INVALID_VALUE, 0
        del self.allocations[allocation.region]
        if allocation.host:
            self.memory.unmap_host(allocation.host)
        self.memory.regions[allocation.region] = None  # a later access is to no memory
        self.memory.revision += 1
        return SUCCESS, allocation.region

    # ------------------------------------------------------------------ serving

    def serve(self, channel: socket.socket) -> None:
        """Answer the program's requests until it closes its end."""
        while True:
            header = _receive(channel, HEADER.size)
            if header is None:
                return
            op, _, size = HEADER.unpack(header)
            payload = _receive(channel, size) if size else b""
            if payload is None:
                return
            self.answering = True
            try:
                status, answer = self.answer(op, payload)
            finally:
                self.answering = False
            try:
                channel.sendall(REPLY.pack(status, 0, len(answer)) + answer)
            except (BrokenPipeError, ConnectionResetError):  # the program was stopped meanwhile
                return

    def answer(self, op: int, payload: bytes) -> tuple[int, bytes]:
        """(cudaError_t, reply payload) of one request."""
        if op == Request.HELLO:
            (self.base,) = struct.unpack_from("<Q", payload)
            return SUCCESS, b""
        if op == Request.KERNEL:
            return self._kernel(_text(payload))
        if op == Request.SYMBOL:
            return self._symbol(_text(payload, 8))
        if op == Request.MALLOC:
            size, kind = struct.unpack_from("<QI", payload)
            error, allocation = self.allocate(size, kind)
            if allocation is None:
                return error, struct.pack("<QQI", 0, 0, 0)
            address = self.memory.region_address(allocation.region) if kind == DEVICE_MEMORY else allocation.host
            return SUCCESS, struct.pack("<QQI", address & (2**64 - 1), allocation.offset, allocation.region)
        if op == Request.FREE:
            address, kind = struct.unpack_from("<QI", payload)
            error, region = self.free(_signed(address), kind)
            return error, struct.pack("<I", region)
        if op == Request.LAUNCH:
            return self._launch(payload)
        if op == Request.TEXTURE:
            return self._texture(payload)
        if op == Request.TEXTURE_DESTROY:
            (handle,) = struct.unpack_from("<Q", payload)
            return (SUCCESS if self.textures.pop(handle, None) is not None else INVALID_VALUE), b""
        if op == Request.TEXTURE_BIND:  # a texture reference reads a texture object's memory as it says
            address, handle = struct.unpack_from("<2Q", payload)
            if handle and handle not in self.textures:
                return INVALID_VALUE, b""
            self.textures.pop(_signed(address), None)
            if handle:
                self.textures[_signed(address)] = self.textures[handle]
            return SUCCESS, b""
        if op == Request.UNSUPPORTED:
            self.unsupported.append(_text(payload))
            return SUCCESS, b""
        if op == Request.FINISH:  # the program is exiting: its errors so far (standalone.py)
            return SUCCESS, struct.pack("<I", self.on_finish() if self.on_finish is not None else 0)
        if op == Request.TRANSFER:
            site, destination, source, count, stream, blocking = struct.unpack_from("<6Q", payload)
            if self.observer is not None:
                self.observer.transferred(_signed(destination), _signed(source), count, stream, bool(blocking),
                                          self.sites(site) if self.sites else None)
            return SUCCESS, b""
        if op in (Request.SYNCHRONIZE, Request.STREAM_SYNCHRONIZE, Request.STREAM_WAIT, Request.EVENT_RECORD,
                  Request.EVENT_SYNCHRONIZE, Request.STREAM_CREATE):
            if self.observer is not None:
                self.observer.ordered(Request(op), struct.unpack_from("<2Q", payload))
            return SUCCESS, b""
        return NOT_SUPPORTED, b""

    def _texture(self, payload: bytes) -> tuple[int, bytes]:
        """A texture object over device memory (protocol.h, SIMULEE_TEXTURE): its handle."""
        (address, *rest) = struct.unpack_from("<Q4iI5QI3I3I4f", payload)
        bits, kind, (width, height, depth, pitch, slice_), flags = tuple(rest[:4]), rest[4], rest[5:10], rest[10]
        modes, (filter_, read, normalized), border = tuple(rest[11:14]), rest[14:17], tuple(rest[17:21])
        element = sum(bits) // 8
        span = slice_ * (depth - 1) + pitch * (height - 1) + width * element
        found = self.span(_signed(address), span)
        if found is None or element == 0:
            return INVALID_VALUE, b""
        region, offset = found
        data = self.memory.regions[region].data[offset : offset + span]
        self.textures_made += 1
        handle = self.textures_made  # never reused: a launch repeating an earlier one names the same textures
        self.textures[handle] = Texture(data, width, height, depth, pitch, slice_, bits, kind, flags, modes, filter_,
                                        read, bool(normalized), border)
        return SUCCESS, struct.pack("<Q", handle)

    def _kernel(self, name: str) -> tuple[int, bytes]:
        try:
            kernel = self.program.kernel(name)
        except (KeyError, LookupError):
            self.missing.append(name)
            return INVALID_DEVICE_FUNCTION, b""
        self.kernels.append(kernel)
        sizes = [param.size for param in kernel.params]
        return SUCCESS, struct.pack(f"<iI{len(sizes)}I", len(self.kernels) - 1, len(sizes), *sizes)

    def _symbol(self, name: str) -> tuple[int, bytes]:
        region = self.symbol_regions.get(name)
        if region is None:
            return INVALID_SYMBOL, b""
        view = self.memory.regions[region]
        offset = int(view.data.__array_interface__["data"][0] - self.arena.__array_interface__["data"][0])
        address = self.memory.region_address(region)
        return SUCCESS, struct.pack("<QQQII", address & (2**64 - 1), offset, view.size, region,
                                    name in self.program.managed)

    def span(self, address: int, count: int) -> tuple[int, int] | None:
        """(region, offset) of `count` bytes at a device or host address inside one
        allocation or global variable; None when they are not (host memory of its own)."""
        addresses = np.array([address], dtype=np.int64)
        space, region, offset = (v[0] for v in self.memory.from_host(addresses, *split(addresses)))
        target = self.memory.regions[region] if space in (GLOBAL, CONSTANT) and 0 < region < len(
            self.memory.regions) else None
        if target is None or offset + count > target.limit():
            return None
        return int(region), int(offset)

    # ------------------------------------------------------------------ launches

    def _launch(self, payload: bytes) -> tuple[int, bytes]:
        """Run a launch, or, when the same kernel ran with the same dimensions and arguments
        on the same memory before (a benchmark loop), give its effect again: the
        interpreter is deterministic, so it would do the same."""
        header = struct.calcsize("<i6IQQQ")
        kernel_id, gx, gy, gz, bx, by, bz, shared, stream, site = struct.unpack_from("<i6IQQQ", payload)
        kernel = self.kernels[kernel_id]
        record = DeviceLaunch(len(self.launches) + 1, kernel, self.sites(site) if self.sites else None,
                              (gx, gy, gz), (bx, by, bz), stream)
        self.launches.append(record)
        before = self._digests()
        key = (kernel_id, record.grid, record.block, shared, payload[header:], _combined(before))
        repeated = self.repeats.get(key)
        if repeated is not None:
            return self._repeat(record, repeated)
        stored = self._stored(key, kernel)
        if stored is not None:
            return self._reuse(record, stored, key)
        arguments, at = {}, header
        for param in kernel.params:
            arguments[param.name] = _argument(param, payload[at : at + param.size])
            at += param.size
        output = self._run(record, arguments, shared, 0)
        self._remember(key, before, record, output)
        return record.error, output

    def _run(self, record: DeviceLaunch, arguments: dict, shared: int, depth: int) -> bytes:
        """Run a launch and then the launches its kernel made (dynamic parallelism), each
        with its own children before the next, as launches into one stream run; the
        kernel's printf output and theirs. A child's error is its parent's."""
        where = f" at {record.where}" if record.site else ""
        launch = Launch(record.grid, record.block, arguments, shared_bytes=shared, device=self,
                        keep_buffers=False, trace_limit=TRACE_LIMIT, origin=f"launch {record.number}{where}",
                        time_limit=max(self.deadline - time.perf_counter(), 0.0), step_limit=STEP_LIMIT,
                        cut_off=self.cut)
        if self.before_launch is not None:
            self.before_launch(launch, record)
        if self.observer is not None:  # it judges the launch part by part as the trace fills, in bounded memory
            launch.flush = self.observer.starting(record)
        start = time.perf_counter()
        result = execute(self.program, record.kernel, launch)
        record.seconds = time.perf_counter() - start
        record.status, record.message = result.status, result.message
        record.error = _error(result, self.stop_on_fault)
        record.result = result
        if self.observer is not None:
            self.observer.launched(record)
        record.result = None
        output = "".join(text for _, _, text in result.events.printf).encode()
        children = [(child, _site(result.trace.ops, child.op)) for child in result.events.launches]
        del result
        if not children:
            return output
        # Children run after their parent; those of one block in order (its stream), those of
        # different blocks unordered; the parent's stream goes on when they all end.
        done = CHILD_EVENT | record.number << 32
        self._order(Request.EVENT_RECORD, done, record.stream)
        streams = {}
        for child, site in children:
            stream = CHILD_STREAM | record.number << 32 | child.block_index
            if stream not in streams:
                self._order(Request.STREAM_WAIT, stream, done)
            streams[stream] = CHILD_EVENT | len(self.launches) + 1 << 32
            output += self._run_child(record, child, site, depth + 1, stream)
            self._order(Request.EVENT_RECORD, streams[stream], stream)
        for event in streams.values():
            self._order(Request.STREAM_WAIT, record.stream, event)
        return output

    def _order(self, request: Request, first: int, second: int) -> None:
        if self.observer is not None:
            self.observer.ordered(request, (first, second))

    def _run_child(self, parent: DeviceLaunch, child: ChildLaunch, site, depth: int, stream: int) -> bytes:
        """A launch a kernel made, its arguments read from the parameter buffer the
        launching thread filled (then freed, as the device runtime does)."""
        try:
            kernel = self.program.kernel(child.kernel)
        except (KeyError, LookupError):
            parent.error = parent.error or INVALID_DEVICE_FUNCTION
            return b""
        record = DeviceLaunch(len(self.launches) + 1, kernel, site, child.grid, child.block, stream,
                              parent=parent.number)
        self.launches.append(record)
        if depth > MAX_DEPTH or not all(child.grid) or not all(child.block) or \
                int(np.prod(child.block)) > 1024:
            record.status, record.error = "invalid-launch", LAUNCH_FAILURE if depth <= MAX_DEPTH else MAX_DEPTH_EXCEEDED
            parent.error = parent.error or record.error
            return b""
        arguments, at, layout = {}, 0, self.program.layout
        space, region, offset = (int(v[()]) for v in split(np.int64(child.parameters)))
        buffer = self.memory.regions[region].data if 0 < region < len(self.memory.regions) and \
            self.memory.regions[region] is not None else np.zeros(0, dtype=np.uint8)
        for param in kernel.params:
            align = layout.align(param.by_value or param.ir_type)
            at = (at + align - 1) // align * align
            arguments[param.name] = _argument(param, bytes(buffer[offset + at : offset + at + param.size]))
            at += param.size
        if self.heap is not None and child.parameters:
            self.heap.free_containing(child.parameters)
        output = self._run(record, arguments, child.shared, depth)
        parent.error = parent.error or record.error
        return output

    def _digests(self) -> dict[int, bytes]:
        """A digest of the bytes of every allocation and global variable, by region."""
        return {number: hashlib.blake2b(region.data[: region.size], digest_size=16).digest()
                for number, region in enumerate(self.memory.regions)
                if region is not None and region.size is not None}

    def _remember(self, key: tuple, before: dict[int, bytes], record: DeviceLaunch, output: bytes) -> None:
        """Keep what the launch changed, to give it again to a launch that repeats it (copied
        only when it fits what is kept: a launch writing a large buffer is run again)."""
        after = self._digests()
        numbers = [number for number, digest in after.items() if before.get(number) != digest]
        if sum(self.memory.regions[number].size for number in numbers) > REPEAT_BYTES or record.status != "ok":
            return
        changed = {number: self.memory.regions[number].data[: self.memory.regions[number].size].copy()
                   for number in numbers}
        self._share(key, record, changed, output)
        self._keep(key, (record, changed, output))

    def _keep(self, key: tuple, entry: tuple) -> None:
        """Keep a launch's (record, changed bytes, output), letting go of the oldest past REPEAT_BYTES."""
        size = sum(len(data) for data in entry[1].values())
        while self.repeats and self._repeat_bytes + size > REPEAT_BYTES:
            oldest = next(iter(self.repeats))
            self._repeat_bytes -= sum(len(data) for data in self.repeats.pop(oldest)[1].values())
        if size <= REPEAT_BYTES:
            self.repeats[key] = entry
            self._repeat_bytes += size

    def _stored_path(self, key: tuple, kernel: KernelInfo):
        if self.shared_launches is None:
            return None
        # the program's own IR (runner.program_of's digest), the kernel, dimensions, arguments and memory
        digest = hashlib.blake2b(self.program.digest + repr((kernel.symbol, key[1:5])).encode() + key[5],
                                 digest_size=20).hexdigest()
        return self.shared_launches / f"{digest}.pickle"

    def _stored(self, key: tuple, kernel: KernelInfo):
        """What another process of the test suite kept of a launch this one repeats exactly
        (same program, kernel, dimensions, arguments and memory), or None."""
        path = self._stored_path(key, kernel)
        if path is None or not path.is_file():
            return None
        try:
            with path.open("rb") as handle:
                return pickle.load(handle)
        except (OSError, pickle.PickleError, EOFError, AttributeError, ValueError):
            return None

    def _share(self, key: tuple, record: DeviceLaunch, changed: dict, output: bytes) -> None:
        """Keep a launch for the other processes (not one that made launches of its own)."""
        path = self._stored_path(key, record.kernel)
        if path is None or record.checked is None or len(self.launches) != record.number or path.exists():
            return
        stored = dict(changed=changed, output=output, status=record.status, message=record.message,
                      error=record.error, checked=record.checked, origin=self.origin(record))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_suffix(f".{os.getpid()}.part")
            with partial.open("wb") as handle:
                pickle.dump(stored, handle, protocol=pickle.HIGHEST_PROTOCOL)
            partial.replace(path)
        except OSError:  # a full disk costs the reuse, not the run
            pass

    def origin(self, record: DeviceLaunch) -> str:
        """How another process names `record`: this process's launch number."""
        return f"launch {record.number} of process {self.process}"

    def _reuse(self, record: DeviceLaunch, stored: dict, key: tuple) -> tuple[int, bytes]:
        for number, data in stored["changed"].items():
            self.memory.regions[number].data[: len(data)] = data
        record.status, record.message, record.error = stored["status"], stored["message"], stored["error"]
        record.reused, record.checked = stored["origin"], stored["checked"]
        if self.observer is not None:
            self.observer.launched(record)
        self._keep(key, (record, stored["changed"], stored["output"]))  # a repeat here is of this one
        return record.error, stored["output"]

    def _repeat(self, record: DeviceLaunch, repeated: tuple) -> tuple[int, bytes]:
        first, changed, output = repeated
        for number, data in changed.items():
            self.memory.regions[number].data[: len(data)] = data
        record.status, record.message, record.error = first.status, first.message, first.error
        record.repeat_of = first.number
        if self.observer is not None:
            self.observer.launched(record)
        return record.error, output

def _site(ops, op: int) -> tuple[str, int] | None:
    """(file, line) of a kernel's launch of another, at the user's line."""
    place = findings.place(ops, op, "launch")
    return (place.file, place.line) if place.file else None


def _combined(digests: dict[int, bytes]) -> bytes:
    return hashlib.blake2b(b"".join(number.to_bytes(4, "little") + digest for number, digest in digests.items()),
                           digest_size=16).digest()


def _error(result: Result, stop_on_fault: bool = False) -> int:
    """The cudaError_t a GPU reports after a launch that did what `result` says: none for
    reads and writes past a buffer's bounds (a GPU maps memory in pages larger than the
    buffers), unless `stop_on_fault` (what compute-sanitizer makes of them)."""
    if result.status in ("step-limit", "time-limit", "infinite-loop", "deadlock"):
        return LAUNCH_TIMEOUT
    if result.status in ("unsupported", "out-of-memory"):
        return LAUNCH_FAILURE
    if any(assertion.kind == "assert" for assertion in result.events.assertions):
        return ASSERT
    kinds = {fault.kind for fault in result.events.faults} - {BUFFER_LIMIT, DIVISION_BY_ZERO}  # a GPU divides on
    kinds -= set() if stop_on_fault else {OUT_OF_BOUNDS}
    if TRAP in kinds:
        return LAUNCH_FAILURE
    return ILLEGAL_ADDRESS if kinds else SUCCESS


class Pointer(int):
    """A pointer argument: an address on the device, shown in hexadecimal."""

    def __str__(self) -> str:
        return hex(self & (2**64 - 1))


def _argument(param, data: bytes):
    """A kernel argument as the interpreter takes it from the bytes the program passed."""
    if param.kind == "pointer":
        return Pointer(int.from_bytes(data[:8], "little", signed=True))
    if param.kind == "struct":
        return bytes(data)
    if param.kind == "float":
        return np.frombuffer(data, dtype={16: np.float16, 32: np.float32, 64: np.float64}[param.bits])[0]
    if param.kind == "integer":
        width = max(1, (param.bits or 8) // 8)
        value = int.from_bytes(data[:width], "little", signed=bool(param.signed))
        return value if param.bits != 1 else bool(value & 1)
    return bytes(data)


def _text(payload: bytes, start: int = 0) -> str:
    return payload[start:].split(b"\0", 1)[0].decode("utf-8", "replace")


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _receive(channel: socket.socket, size: int) -> bytes | None:
    """Exactly `size` bytes, or None when the program closed its end first."""
    chunks, left = [], size
    while left:
        try:
            chunk = channel.recv(min(left, 1 << 20))
        except (ConnectionResetError, InterruptedError):
            return None
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)

