"""Memory instructions: loads, stores, stack allocations, atomics, memcpy/memset and the
device heap, and the one path (Accesses) by which every instruction that touches memory
checks its addresses, reports faults and records the access in the trace."""

from __future__ import annotations

import numpy as np

from interpreter import atomics, collectives
from interpreter import taint as taint_module
from interpreter.heap import Heap
from interpreter.launch import Stop
from interpreter.memory import CONSTANT, GLOBAL, LOCAL, SHARED, split, tag
from interpreter.trace import ATOMIC, DOUBLE_FREE, INVALID_FREE, OUT_OF_BOUNDS, READ, WRITE
from interpreter.types import ArrayType, StructType, Type
from interpreter.taint import union
from interpreter.values import dtype_of, from_bytes, per_lane, to_bytes, unsigned
from interpreter.vocabulary import DEVICE_SCOPE, Unsupported, access_sync, call_scope

LOCAL_LIMIT = 512 * 1024  # bytes of local memory a CUDA thread may have
COPY_LIMIT = 1 << 26  # a memcpy/memset longer than this per lane is a fault, not an allocation
NVVM_ATOMICS = {"add": "add", "exch": "xchg", "max": "max", "min": "min", "inc": "uinc_wrap", "dec": "udec_wrap",
                "and": "and", "or": "or", "xor": "xor", "cas": "cmpxchg"}


STACK_STRING_LIMIT = 1024  # bytes of a string in shared or local memory that printf's %s reads


class Accesses:
    """How the instructions of one launch read and write memory: lanes' addresses are
    located (faults reported to the runtime), bytes moved, and each access traced."""

    def __init__(self, layout, runtime):
        self.layout, self.rt = layout, runtime
        self.start(None)

    def start(self, launch) -> None:
        """Begin `launch` (no heap yet, no warp masks kept)."""
        self.launch = launch
        self._heap: Heap | None = None
        self._active_key = None
        self._active = None
        self._active_rows = None

    def access(self, frame, rows, addresses, size, align, op_id, kind, data=None, sync=0, taint=None, stored=None,
               divergent=None):
        """A load (returns the bytes read, shape (lanes, size)) or store (`data`, same shape)
        by rows of frame; faults are reported, accesses traced. While the launch tracks
        taint, `taint` is what each lane's address and reaching the access depend on (an
        int for all lanes, or one per lane), `divergent` what its address and who in its
        block reaches it do (default `taint`), and `stored` what a store's data does (None:
        what the instruction running depends on, Runtime.context_taint); a load leaves
        what the bytes read hold in `loaded`."""
        rt = self.rt
        if rt.tainting and (taint is None or stored is None):
            context = rt.context_taint(frame, rows)
            taint = context if taint is None else taint
            stored = context if stored is None else stored
        wave = rt.wave
        threads = frame.thread_ids(rows)
        count = len(threads)
        addresses = per_lane(addresses, count, np.int64)
        blocks = threads // wave.tpb
        access, faults, resolved = rt.memory.locate(addresses, size, align, blocks, threads, kind != READ)
        if len(faults.lanes):
            self.report_faults(faults, op_id, threads, addresses, taint if rt.tainting else 0)
        result = None
        if kind == READ:
            result = rt.memory.read_bytes(resolved, count, size, align)
            if rt.tainting:
                self.loaded = rt.memory.read_taint(resolved, count, size)
        else:
            rt.memory.write_bytes(resolved, data, size, align)
            if rt.tainting:
                rt.memory.write_taint(resolved, union(taint, stored), size)
        if rt.recorder is not None and len(access.lanes):
            self.record(frame, rows, threads, blocks, access, size, op_id, kind, data, sync,
                        0 if taint is None else taint, divergent)
        return result

    def atomic(self, frame, rows, addresses, operation, operand, ty, align, op_id, expected=None, sync=DEVICE_SCOPE,
               taint=0, stored=0, divergent=None):
        """An atomic read-modify-write by rows of frame, lanes serialized in thread order;
        returns the value each lane saw. Taint as for `access`: what a lane's address and
        reaching it depend on (`taint`) and its operands (`stored`); `loaded` is what the
        value seen depends on (its bytes, and every lane's before it at the address)."""
        rt = self.rt
        wave = rt.wave
        threads = frame.thread_ids(rows)
        count = len(threads)
        dtype = dtype_of(ty)
        size = self.layout.store_size(ty)
        addresses = per_lane(addresses, count, np.int64)
        operand = per_lane(operand, count, dtype)
        blocks = threads // wave.tpb
        access, faults, resolved = rt.memory.locate(addresses, size, align, blocks, threads, True)
        if len(faults.lanes):
            self.report_faults(faults, op_id, threads, addresses, taint)
        if rt.tainting:  # lanes serialized: each sees what the others at its address brought
            held = rt.memory.read_taint(resolved, count, size)
            brought = union(taint, stored)
            self.loaded = union(held, taint_module.reduce(brought))
            rt.memory.write_taint(resolved, union(held, taint_module.reduce(brought)), size)
        seen = np.zeros(count, dtype=dtype)
        lanes = access.lanes
        if len(lanes):
            current = self.decode(rt.memory.read_bytes(resolved, count, size, align), ty)[lanes]
            keys = np.zeros(count, dtype=np.int64)
            for part, (_, positions, flat) in enumerate(resolved):
                keys[positions] = (part << 42) + flat
            order = np.argsort(keys[lanes], kind="stable")
            ordered_keys = keys[lanes][order]
            segment = np.cumsum(np.r_[0, ordered_keys[1:] != ordered_keys[:-1]])
            firsts = np.flatnonzero(np.r_[True, ordered_keys[1:] != ordered_keys[:-1]])
            initial = current[order][firsts].copy()
            values = operand[lanes][order]
            compare = None if expected is None else \
                np.broadcast_to(np.asarray(expected, dtype=dtype), (count,))[lanes][order]
            if operation == "cmpxchg" and dtype.kind == "f":  # compare bit patterns
                initial, values, compare = unsigned(initial), unsigned(values), unsigned(compare)
            old_sorted, final = atomics.serialize(operation, initial, segment, values, compare)
            old = np.empty(len(lanes), dtype=old_sorted.dtype)
            old[order] = old_sorted
            seen[lanes] = old.view(dtype) if old.dtype != dtype else old
            finals = np.empty(len(lanes), dtype=final.dtype)
            finals[order] = final[segment]
            data = np.zeros((count, size), dtype=np.uint8)
            data[lanes] = self.encode(finals.view(dtype) if finals.dtype != dtype else finals, ty, len(lanes))
            if final.tobytes() != initial.tobytes():  # a failed compare-and-swap changes nothing
                rt.memory.write_bytes(resolved, data, size, align)
            if rt.recorder is not None:
                self.record(frame, rows, threads, blocks, access, size, op_id, ATOMIC,
                            self.encode(operand, ty, count), sync, taint, divergent)
        return seen

    def report_faults(self, faults, op_id, threads, addresses, taint=0) -> None:
        kinds = np.array(faults.kinds)
        for kind in np.unique(kinds):
            lanes = faults.lanes[kinds == kind]
            self.rt.fault(str(kind), op_id, threads[lanes], addresses[lanes],
                          depends=taint if type(taint) is int else taint[lanes])

    def record(self, frame, rows, threads, blocks, access, size, op_id, kind, data=None, sync=0, taint=0,
               divergent=None) -> None:
        rt = self.rt
        wave, recorder = rt.wave, rt.recorder
        lanes = access.lanes
        everyone = len(lanes) == len(threads)
        lane_threads = threads if everyone else threads[lanes]
        lane_blocks = blocks if everyone else blocks[lanes]
        active = self.active_masks(frame, rows, threads)
        if recorder.count + len(lanes) > recorder.limit and self.launch.stop_when_traced:
            raise Stop("trace-limit", (op_id, False), f"stopped once its trace held {recorder.count:,} accesses")
        recorder.record(
            space=access.space, kind=kind, region=access.region, offset=access.offset, size=size,
            block=wave.first_block + lane_blocks, thread=lane_threads - blocks[lanes] * wave.tpb if not everyone
            else lane_threads - lane_blocks * wave.tpb, op=op_id,
            epoch=wave.epoch[lane_blocks], grid_epoch=rt.grid_epoch, step=rt.steps,
            active=active if everyone else active[lanes], warp_sync=wave.warp_sync[lane_threads],
            value=_value_bits(data if everyone else data[lanes]) if data is not None else 0, sync=sync,
            taint=_on_lanes(taint, everyone, lanes),
            divergent=_on_lanes(taint if divergent is None else divergent, everyone, lanes),
        )

    def active_masks(self, frame, rows, threads):
        """Per lane, its warp's lanes in the group (the threads executing together); the
        same for every access of one group's run, so kept until the group changes."""
        key = (frame.id, id(rows) if rows is not None else None, len(threads))
        if self._active_key != key:
            wave = self.rt.wave
            if rows is None and frame.caller is None:  # every thread of the wave: each warp's existing lanes
                if getattr(wave, "all_present", None) is None:
                    wave.all_present = wave.existing_bits[wave.warps_of(threads)]
                self._active = wave.all_present
            else:
                self._active = collectives.Warps(wave.warps_of(threads), wave.lanes_of(threads)).present()
            self._active_key = key
            self._active_rows = rows  # keeps `rows` alive so its id stays unique
        return self._active

    def size(self, ty: Type) -> int:
        """Bytes a load or store of `ty` moves."""
        if isinstance(ty, (StructType, ArrayType)):
            return self.layout.size(ty)
        return self.layout.store_size(ty)

    def decode(self, data: np.ndarray, ty: Type):
        """The value of type `ty` in rows of bytes."""
        if isinstance(ty, StructType):
            offsets = self.layout.field_offsets(ty)
            return tuple(self.decode(data[:, o : o + self.size(f)], f) for o, f in zip(offsets, ty.fields))
        if isinstance(ty, ArrayType):
            step = self.layout.size(ty.element)
            return tuple(self.decode(data[:, i * step : i * step + self.size(ty.element)], ty.element)
                         for i in range(ty.count))
        return from_bytes(data, ty)

    def encode(self, value, ty: Type, count: int) -> np.ndarray:
        """Rows of bytes (count, size) holding `value` (a constant is broadcast)."""
        size = self.size(ty)
        if isinstance(ty, (StructType, ArrayType)):
            out = np.zeros((count, size), dtype=np.uint8)
            if isinstance(ty, StructType):
                parts = zip(self.layout.field_offsets(ty), ty.fields, value)
            else:
                step = self.layout.size(ty.element)
                parts = ((i * step, ty.element, v) for i, v in enumerate(value))
            for offset, member, member_value in parts:
                piece = self.encode(member_value, member, count)
                out[:, offset : offset + piece.shape[1]] = piece
            return out
        data = to_bytes(value, ty)[..., :size]
        return np.broadcast_to(data, (count, size)) if data.ndim == 1 else data

    def heap(self) -> Heap:
        """The device heap, made on the first malloc or free; a program's device keeps its
        own across launches (what one kernel allocates, a later one frees)."""
        device = self.launch.device
        if device is not None:
            if getattr(device, "heap", None) is None:
                device.heap = Heap(self.rt.memory, self.launch.heap_bytes)
            return device.heap
        if self._heap is None:
            self._heap = Heap(self.rt.memory, self.launch.heap_bytes)
        return self._heap

    def read_string(self, address: int, limit: int = 4096, block: int = 0, thread: int = 0) -> str:
        """The NUL-terminated string at a device address: in global or constant memory, or
        in the shared memory of `block` or the local memory of `thread` (in the wave)."""
        space, region, offset = (int(v) for v in split(np.int64(address)))
        memory = self.rt.memory
        if space in (SHARED, LOCAL):
            addresses = address + np.arange(STACK_STRING_LIMIT, dtype=np.int64)
            count = len(addresses)
            access, _, resolved = memory.locate(addresses, 1, 1, np.full(count, block), np.full(count, thread), False)
            data = memory.read_bytes(resolved, count, 1, 1).reshape(-1).tobytes()
            gaps = np.flatnonzero(access.lanes != np.arange(len(access.lanes)))  # bytes up to the first unreadable
            readable = int(gaps[0]) if len(gaps) else len(access.lanes)
            return data[:readable].split(b"\0", 1)[0].decode("utf-8", "replace")
        regions = memory.regions
        if space not in (GLOBAL, CONSTANT) or not 0 < region < len(regions):
            return "(null)" if address == 0 else "(bad string pointer)"
        data = regions[region].data[offset : offset + limit].tobytes()
        return data.split(b"\0", 1)[0].decode("utf-8", "replace")


# ---------------------------------------------------------------------- instructions
# Each takes the compiler, the function, the instruction's pc and the instruction, and
# returns the closure (frame, rows) that executes it.

def load(c, function, pc, op):
    """A load; its value depends on its address and on what the bytes read hold."""
    pointer = c.reader(function, op.args[0])
    out = c.writer(function, op.result, True)
    ty = op.type
    accesses = c.accesses
    size, align = accesses.size(ty), op.extra.get("align") or c.layout.align(ty)
    op_id = function.op_ids[pc]
    sync = access_sync("load", op.extra)
    rt, address_taint, control_taint = c.rt, c.taint_reader(function, op.args[0], pc), c.control_reader(function, pc)
    splitting = c.control_reader(function, pc, divergent=True)
    out_taint = c.taint_writer(function, op.result)
    skipped = function.control.skipped.get(pc, ())  # what decides whether its stack object's writes ran

    def run(frame, rows):
        if not rt.tainting:
            data = accesses.access(frame, rows, pointer(frame, rows), size, align, op_id, READ, sync=sync)
            out(frame, rows, accesses.decode(data, ty))
            return
        address = address_taint(frame, rows)
        data = accesses.access(frame, rows, pointer(frame, rows), size, align, op_id, READ, sync=sync,
                               taint=union(address, control_taint(frame, rows)),
                               divergent=union(address, splitting(frame, rows)))
        out(frame, rows, accesses.decode(data, ty))
        loaded = union(address, accesses.loaded)
        if skipped:
            loaded = union(loaded, taint_module.control_branches(frame, skipped, rows))
        out_taint(frame, rows, loaded)

    return run


def store(c, function, pc, op):
    """A store; the bytes written hold what its value, its address and reaching it depend on."""
    value, pointer = (c.reader(function, a) for a in op.args)
    ty = op.arg_types[0]
    accesses = c.accesses
    size, align = accesses.size(ty), op.extra.get("align") or c.layout.align(ty)
    op_id = function.op_ids[pc]
    sync = access_sync("store", op.extra)
    rt, control_taint, splitting = c.rt, c.control_reader(function, pc), c.control_reader(function, pc, True)
    value_taint, address_taint = (c.taint_reader(function, a, pc) for a in op.args)

    def run(frame, rows):
        data = accesses.encode(value(frame, rows), ty, frame.width(rows))
        if not rt.tainting:
            accesses.access(frame, rows, pointer(frame, rows), size, align, op_id, WRITE, data, sync)
            return
        address = address_taint(frame, rows)
        accesses.access(frame, rows, pointer(frame, rows), size, align, op_id, WRITE, data, sync,
                        union(address, control_taint(frame, rows)), value_taint(frame, rows),
                        union(address, splitting(frame, rows)))

    return run


def alloca(c, function, pc, op):
    """Space on each calling thread's local stack: the same offset for all threads of a
    frame, since every thread has its own stack. Past LOCAL_LIMIT bytes the stack
    overflows: a fault that stops the threads, as it ends a kernel on a GPU."""
    element = op.extra["allocated_type"]
    size = c.layout.size(element)
    align = max(op.extra.get("align") or 1, c.layout.align(element), 8)
    count = c.reader(function, op.args[0]) if op.args else None
    out = c.writer(function, op.result, True)
    rt = c.rt
    op_id = function.op_ids[pc]

    def run(frame, rows):
        copies = int(np.max(count(frame, rows))) if count is not None else 1
        start = (frame.local_top + align - 1) // align * align
        end = start + size * max(copies, 1)
        if end > LOCAL_LIMIT:  # more than a thread's local memory
            rt.stack_overflow(frame, rows, op_id, f"{end:,} bytes of local memory per thread, more than "
                                                  f"the {LOCAL_LIMIT:,} a CUDA thread may have")
            return np.zeros(0, dtype=np.int64)
        frame.local_top = end
        rt.memory.grow_local(frame.local_top)
        out(frame, rows, np.int64(tag(LOCAL, 0, start)))
        return rows

    return run


def atomicrmw(c, function, pc, op):
    pointer, value = (c.reader(function, a) for a in op.args)
    out = c.writer(function, op.result, True)
    operation, ty = op.extra["operation"], op.type
    align = op.extra.get("align") or c.layout.align(ty)
    op_id = function.op_ids[pc]
    atomic = c.accesses.atomic
    if operation not in atomics.OPERATIONS:
        raise Unsupported(f"atomicrmw {operation}")
    sync = access_sync("atomicrmw", op.extra)
    taints = _AtomicTaints(c, function, pc, op.args[0], op.args[1:], op.result)

    def run(frame, rows):
        taint, stored, divergent = taints.before(frame, rows)
        out(frame, rows, atomic(frame, rows, pointer(frame, rows), operation, value(frame, rows), ty, align, op_id,
                                sync=sync, taint=taint, stored=stored, divergent=divergent))
        taints.after(frame, rows)

    return run


def cmpxchg(c, function, pc, op):
    pointer, expected, new = (c.reader(function, a) for a in op.args)
    out = c.writer(function, op.result, False)
    ty = op.arg_types[1]
    align = op.extra.get("align") or c.layout.align(ty)
    op_id = function.op_ids[pc]
    atomic = c.accesses.atomic
    sync = access_sync("cmpxchg", op.extra)
    taints = _AtomicTaints(c, function, pc, op.args[0], op.args[1:], op.result)

    def run(frame, rows):
        wanted = expected(frame, rows)
        taint, stored, divergent = taints.before(frame, rows)
        old = atomic(frame, rows, pointer(frame, rows), "cmpxchg", new(frame, rows), ty, align, op_id, wanted, sync,
                     taint, stored, divergent)
        out(frame, rows, (old, unsigned(old) == unsigned(np.asarray(wanted, dtype=old.dtype))))
        taints.after(frame, rows)

    return run


def nvvm_atomic_operation(callee: str):
    """(operation, has_compare) of an NVVM atomic intrinsic such as
    llvm.nvvm.atomic.add.gen.i.cta.i32.p0 or llvm.nvvm.atomic.load.inc.32.p0; None for
    one this interpreter does not know."""
    parts = callee.split(".")
    name = parts[4] if parts[3] == "load" else parts[3]
    operation = NVVM_ATOMICS.get(name)
    if operation is None:
        return None
    kind = parts[5] if len(parts) > 5 and parts[3] != "load" else "i"
    if operation == "add" and kind == "f":
        operation = "fadd"
    if operation in ("max", "min") and kind == "ui":
        operation = "u" + operation
    return operation, operation == "cmpxchg"


def nvvm_atomic(c, function, pc, op):
    callee = op.extra["callee"]
    known = nvvm_atomic_operation(callee)
    if known is None:
        raise Unsupported(f"call of undefined function '{callee}'")
    operation, has_compare = known
    readers = [c.reader(function, a) for a in op.args]
    out = c.writer(function, op.result, True)
    ty = op.type
    op_id = function.op_ids[pc]
    align = c.layout.align(ty)
    atomic = c.accesses.atomic
    sync = call_scope(callee)
    taints = _AtomicTaints(c, function, pc, op.args[0], op.args[1:], op.result)

    def run(frame, rows):
        pointer = readers[0](frame, rows)
        taint, stored, divergent = taints.before(frame, rows)
        if has_compare:
            seen = atomic(frame, rows, pointer, "cmpxchg", readers[2](frame, rows), ty, align, op_id,
                          readers[1](frame, rows), sync, taint, stored, divergent)
        else:
            seen = atomic(frame, rows, pointer, operation, readers[1](frame, rows), ty, align, op_id, sync=sync,
                          taint=taint, stored=stored, divergent=divergent)
        out(frame, rows, seen)
        taints.after(frame, rows)

    return run


class _AtomicTaints:
    """What an atomic's access depends on (its address and reaching it), what it brings
    (its operands), and its result: what the value seen depends on."""

    def __init__(self, c, function, pc, pointer: int, operands: tuple[int, ...], result: int):
        self.rt, self.accesses = c.rt, c.accesses
        self.address = c.taint_reader(function, pointer, pc)
        self.operands = [c.taint_reader(function, slot, pc) for slot in operands]
        self.control = c.control_reader(function, pc)
        self.splitting = c.control_reader(function, pc, divergent=True)
        self.out = c.taint_writer(function, result)

    def before(self, frame, rows):
        """(taint, stored, divergent) of the access, for Accesses.atomic (zeros when not
        tracking)."""
        if not self.rt.tainting:
            return 0, 0, 0
        stored = 0
        for read in self.operands:
            stored = union(stored, read(frame, rows))
        address = self.address(frame, rows)
        return union(address, self.control(frame, rows)), stored, union(address, self.splitting(frame, rows))

    def after(self, frame, rows) -> None:
        if self.rt.tainting:
            self.out(frame, rows, self.accesses.loaded)



def memory_intrinsic(c, function, pc, op):
    """memcpy / memmove / memset (LLVM intrinsics or C calls) by every lane, as one read
    and one write of the whole range per lane."""
    readers = [c.reader(function, a) for a in op.args]
    is_set = "memset" in op.extra["callee"]
    op_id = function.op_ids[pc]
    out = c.writer(function, op.result, False) if op.result >= 0 else None
    attributes = op.extra.get("argument_attributes", ())
    aligns = [next((int(a.split()[1]) for a in attrs if isinstance(a, str) and a.startswith("align ")), 1)
              for attrs in attributes] + [1, 1]
    rt, access, accesses = c.rt, c.accesses.access, c.accesses
    operand_taints = [c.taint_reader(function, a, pc) for a in op.args[:3]]
    control_taint = c.control_reader(function, pc)

    def run(frame, rows):
        count = frame.width(rows)
        destination_taint = source_taint = value_taint = 0
        if rt.tainting:  # each lane's: what its addresses, length and reaching the call depend on
            reached = union(control_taint(frame, rows), operand_taints[2](frame, rows))
            destination_taint = taint_module.as_array(union(reached, operand_taints[0](frame, rows)), count)
            source_taint = taint_module.as_array(union(reached, operand_taints[1](frame, rows)), count)
        destination = np.broadcast_to(np.asarray(readers[0](frame, rows), dtype=np.int64), (count,))
        lengths = np.broadcast_to(np.asarray(readers[2](frame, rows)).astype(np.int64), (count,))
        everyone = frame.row_indices(rows)
        too_long = lengths > COPY_LIMIT
        if too_long.any():
            rt.fault(OUT_OF_BOUNDS, op_id, frame.thread_ids(rows)[too_long])
        rt.count_work(int(np.maximum(lengths[~too_long], 0).sum()) // 4)  # the work: words moved
        for length in np.unique(lengths[~too_long]):
            if length <= 0:
                continue
            chosen = lengths == length
            sub_rows = None if chosen.all() and rows is None else everyone[chosen]
            value_taint = _chosen(source_taint, chosen)  # memset: the byte's
            if is_set:
                byte = np.broadcast_to(np.asarray(readers[1](frame, rows)).astype(np.uint8), (count,))[chosen]
                data = np.repeat(byte[:, None], int(length), axis=1)
            else:
                source = np.broadcast_to(np.asarray(readers[1](frame, rows), dtype=np.int64), (count,))[chosen]
                data = access(frame, sub_rows, source, int(length), aligns[1], op_id, READ, taint=value_taint)
                if rt.tainting:  # memcpy: what the bytes copied hold, all alike
                    value_taint = union(value_taint, accesses.loaded)
            access(frame, sub_rows, destination[chosen], int(length), aligns[0], op_id, WRITE, data,
                   taint=_chosen(destination_taint, chosen), stored=value_taint)
        if out is not None:
            out(frame, rows, destination)

    return run


def _on_lanes(taint, everyone: bool, lanes):
    """The lanes' taint, never a view of a register's (which later rows overwrite in place)."""
    if type(taint) is int:
        return taint
    return np.array(taint, dtype=np.uint64) if everyone else taint[lanes]


def _chosen(taint, chosen):
    return taint if type(taint) is int else taint[chosen]


def malloc(c, function, pc, op):
    size = c.reader(function, op.args[0])
    out = c.writer(function, op.result, True)
    heap = c.accesses.heap

    def run(frame, rows):
        out(frame, rows, heap().malloc(np.broadcast_to(np.asarray(size(frame, rows)).astype(np.int64),
                                                       (frame.width(rows),))))

    return run


def free(c, function, pc, op):
    pointer = c.reader(function, op.args[0])
    op_id = function.op_ids[pc]
    rt, heap = c.rt, c.accesses.heap

    def run(frame, rows):
        addresses = np.broadcast_to(np.asarray(pointer(frame, rows), dtype=np.int64), (frame.width(rows),))
        invalid, double = heap().free(addresses)
        threads = frame.thread_ids(rows)
        for kind, lanes in ((INVALID_FREE, invalid), (DOUBLE_FREE, double)):
            depends = None
            if rt.tainting and len(lanes):  # freeing what Simulee placed: what the host would have put there
                depends = taint_module.union(rt.taint_of_threads(threads[lanes]),
                                             rt.memory.pointee_taint(addresses[lanes]))
            rt.fault(kind, op_id, threads[lanes], addresses[lanes], depends=depends)

    return run


def _value_bits(data: np.ndarray) -> np.ndarray:
    """The written bytes as one uint64 per lane (XOR-folded beyond 8 bytes), an array of
    its own: `data` may view a register that native code later overwrites in place."""
    data = np.ascontiguousarray(data, dtype=np.uint8)
    width = data.shape[1]
    padded_width = (width + 7) // 8 * 8
    if padded_width != width:
        data = np.concatenate([data, np.zeros((len(data), padded_width - width), np.uint8)], axis=1)
    words = data.view(np.uint64)
    return np.bitwise_xor.reduce(words, axis=1) if words.shape[1] > 1 else words[:, 0].copy()
