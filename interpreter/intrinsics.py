"""Calls of functions the program declares but does not define, which the interpreter
implements itself: special registers, address-space tests, printf, assert, trap, assume,
texture fetches, the device runtime of dynamic parallelism and the math library. Each
takes the compiler, the function, the call's pc and the call, and returns the closure
(frame, rows) that executes it; compiler.INTRINSICS says which callee goes to which."""

from __future__ import annotations

import numpy as np

from interpreter import collectives, mathlib, taint
from interpreter.contents import Fill, hashed
from interpreter import printf as printf_format
from interpreter.launch import Stop
from interpreter.memory import CONSTANT, GLOBAL, LOCAL, SHARED, split, tag
from interpreter.trace import READ, TRAP, WRITE, Assertion, ChildLaunch
from interpreter.types import I32, FloatType
from interpreter.values import constant, dtype_of
from interpreter.vocabulary import SPECIAL_REGISTER, SYSTEM_SCOPE, Unsupported, call_scope, syncscope

ADDRESS_SPACES = {"global": GLOBAL, "shared": SHARED, "const": CONSTANT, "local": LOCAL}
PARAMETER_BUFFER_ALIGN = 64  # of a child launch's parameter buffer
GRID_WORKSPACE = 0x1000  # what %envreg1 reads: a non-null grid workspace address
OUT_PARAMETER_MATH = {f"__nv_{name}{suffix}" for name in ("frexp", "modf", "remquo", "sincos", "sincospi")
                      for suffix in ("", "f")}


def no_op(c, function, pc, op):
    """Hints and markers (lifetimes, debug values, fences, prefetches): nothing to do; a
    result, if any, is undefined (zero)."""
    if op.result < 0:
        return lambda frame, rows: None
    out, ty = c.writer(function, op.result, False), op.type
    return lambda frame, rows: out(frame, rows, constant(ty, None))


def fence(c, function, pc, op):
    """A memory fence (__threadfence and its block and system forms, an LLVM fence): no
    effect on the interpreter's memory, which every thread sees at once; recorded with
    its scope for the happens-before the detectors build."""
    scope = call_scope(op.extra["callee"]) if op.opcode == "call" else syncscope(op.extra, SYSTEM_SCOPE)
    rt, op_id = c.rt, function.op_ids[pc]

    def run(frame, rows):
        if rt.recorder is not None:
            wave, threads = rt.wave, frame.thread_ids(rows)
            blocks = wave.blocks_of(threads)
            rt.events.fences.append((rt.steps, wave.first_block + blocks, wave.tid_of(threads), wave.epoch[blocks],
                                     wave.warp_sync[threads], scope, op_id))

    return run


def pass_through(c, function, pc, op):
    """Pointer annotations and invariant-group barriers: the pointer itself."""
    read, out = c.reader(function, op.args[0]), c.writer(function, op.result, False)
    return lambda frame, rows: out(frame, rows, read(frame, rows))


def stacksave(c, function, pc, op):
    out = c.writer(function, op.result, False)
    return lambda frame, rows: out(frame, rows, np.int64(tag(LOCAL, 0, frame.local_top)))


def special_register(c, function, pc, op):
    """llvm.nvvm.read.ptx.sreg.*: thread and block indices, dimensions, lane and warp
    numbers, lane masks, clocks."""
    register = op.extra["callee"].removeprefix(SPECIAL_REGISTER)
    out = c.writer(function, op.result, True)
    rt = c.rt
    name, _, axis = register.partition(".")
    index = "xyz".index(axis) if axis in ("x", "y", "z") else 0
    if name == "tid":
        def tid(frame, rows):
            block = c.launch.block
            divisor = (1, block[0], block[0] * block[1])[index]
            out(frame, rows, ((rt.wave.tid_of(frame.thread_ids(rows)) // divisor) % block[index]).astype(np.int32))
        return tid
    if name == "ctaid":
        def ctaid(frame, rows):
            grid = c.launch.grid
            divisor = (1, grid[0], grid[0] * grid[1])[index]
            blocks = rt.wave.first_block + rt.wave.blocks_of(frame.thread_ids(rows))
            out(frame, rows, ((blocks // divisor) % grid[index]).astype(np.int32))
        return ctaid
    if name == "ntid":
        return lambda frame, rows: out(frame, rows, np.int32(c.launch.block[index]))
    if name == "nctaid":
        return lambda frame, rows: out(frame, rows, np.int32(c.launch.grid[index]))
    if name == "laneid":
        return lambda frame, rows: out(frame, rows, rt.wave.lanes_of(frame.thread_ids(rows)).astype(np.int32))
    if name == "warpid":
        return lambda frame, rows: out(frame, rows, (rt.wave.tid_of(frame.thread_ids(rows)) // 32).astype(np.int32))
    if name == "nwarpid":
        return lambda frame, rows: out(frame, rows, np.int32((c.launch.threads_per_block + 31) // 32))
    if name == "warpsize":
        return lambda frame, rows: out(frame, rows, np.int32(32))
    if name.startswith("lanemask"):
        relation = name.partition("_")[2] or axis

        def lanemask(frame, rows):
            lane = rt.wave.lanes_of(frame.thread_ids(rows)).astype(np.int64)
            below = (np.int64(1) << lane) - 1
            masks = {"lt": below, "le": (below << 1) | 1, "gt": ~((below << 1) | 1), "ge": ~below}
            out(frame, rows, (masks[relation] & 0xFFFFFFFF).astype(np.uint32).view(np.int32))
        return lanemask
    if name in ("clock", "clock64", "globaltimer"):
        dtype = dtype_of(op.type)
        scale = 1000 if name == "globaltimer" else 1

        def clock(frame, rows):
            rt.clock_reads += 1  # the time changes: a loop waiting on it does not spin
            out(frame, rows, dtype.type(rt.steps * scale))
        return clock
    if name.startswith("envreg"):
        # envreg1/2 hold the grid workspace cooperative groups test for; its barrier is
        # never touched (grid syncs are the interpreter's own), so any non-null value does.
        value = np.int32(GRID_WORKSPACE if name == "envreg1" else 0)
        return lambda frame, rows: out(frame, rows, value)
    if name in ("smid", "gridid", "nsmid", "warpid"):
        value = np.int32(1 if name == "nsmid" else 0)
        return lambda frame, rows: out(frame, rows, value)
    raise Unsupported(f"special register {register}")


def isspacep(c, function, pc, op):
    """llvm.nvvm.isspacep.<space>: whether the pointer is into that address space."""
    space = ADDRESS_SPACES[op.extra["callee"].rpartition(".")[2]]
    read, out = c.reader(function, op.args[0]), c.writer(function, op.result, True)
    return lambda frame, rows: out(frame, rows, split(read(frame, rows))[0] == space)


def activemask(c, function, pc, op):
    """__activemask(): the lanes of each lane's warp executing with it; it depends on what
    split the warp and on what made lanes of it leave the kernel."""
    out, rt = c.writer(function, op.result, True), c.rt
    out_taint, splitting = c.taint_writer(function, op.result), c.control_reader(function, pc, divergent=True)

    def run(frame, rows):
        threads = frame.thread_ids(rows)
        wave = rt.wave
        out(frame, rows, collectives.active_mask(collectives.Warps(wave.warps_of(threads), wave.lanes_of(threads))))
        if rt.tainting:
            out_taint(frame, rows, taint.union(splitting(frame, rows), collectives.absent_taint(wave, threads)))

    return run


def printf(c, function, pc, op):
    """vprintf(format, argument buffer): one line per thread in the run's events."""
    readers = [c.reader(function, a) for a in op.args]
    out = c.writer(function, op.result, True) if op.result >= 0 else None
    if op.extra["callee"] == "printf":  # a call left as printf: no argument buffer
        readers = readers[:1]
    rt, read_string = c.rt, c.accesses.read_string

    def run(frame, rows):
        threads = frame.thread_ids(rows)
        count = len(threads)
        formats = np.broadcast_to(np.asarray(readers[0](frame, rows), dtype=np.int64), (count,))
        buffers = np.broadcast_to(np.asarray(readers[1](frame, rows), dtype=np.int64), (count,)) \
            if len(readers) > 1 else np.zeros(count, dtype=np.int64)
        wave = rt.wave
        for address in np.unique(formats):
            text = read_string(int(address))
            conversions, size = printf_format.layout(text)
            chosen = formats == address
            data = np.zeros((int(chosen.sum()), 0), np.uint8)
            if size:
                data = rt.memory.read_bytes(rt.memory.locate(
                    buffers[chosen], size, 1, wave.blocks_of(threads[chosen]), threads[chosen], False)[2],
                    int(chosen.sum()), size, 1)
            for thread, row in zip(threads[chosen], data):
                def strings(address, thread=int(thread)):  # %s may name the thread's own stack
                    return read_string(address, block=thread // wave.tpb, thread=thread)

                rt.events.printf.append((
                    wave.first_block + int(thread // wave.tpb), int(thread % wave.tpb),
                    printf_format.format_call(text, conversions, row.tobytes(), strings)))
        if out is not None:
            out(frame, rows, np.zeros(count, dtype=np.int32))

    return run


def assert_fail(c, function, pc, op):
    """A failed assert(): the message is an event, and the threads stop."""
    readers = [c.reader(function, a) for a in op.args]
    op_id = function.op_ids[pc]
    rt, read_string = c.rt, c.accesses.read_string

    def run(frame, rows):
        threads = frame.thread_ids(rows)
        values = [np.broadcast_to(np.asarray(read(frame, rows)), (len(threads),))[0] for read in readers[:4]]
        message = f"{read_string(int(values[1]))}:{int(values[2])}: {read_string(int(values[3]))}: " \
                  f"Assertion `{read_string(int(values[0]))}' failed."
        wave = rt.wave
        reasons = taint.as_array(rt.taint_of_threads(threads), len(threads)) if rt.tainting else None
        rt.events.assertions.append(Assertion("assert", op_id, wave.first_block + wave.blocks_of(threads),
                                              wave.tid_of(threads), message, reasons))
        rt.exit_threads(threads, op_id, reasons)
        return np.zeros(0, dtype=np.int64)

    return run


def trap(c, function, pc, op):
    """__trap() and abort(): a fault, and the threads stop."""
    op_id, rt = function.op_ids[pc], c.rt

    def run(frame, rows):
        threads = frame.thread_ids(rows)
        rt.fault(TRAP, op_id, threads)
        rt.exit_threads(threads, op_id, rt.taint_of_threads(threads) if rt.tainting else None)
        return np.zeros(0, dtype=np.int64)

    return run


def assume(c, function, pc, op):
    """__builtin_assume / llvm.assume: a lane breaking it makes the launch one the kernel
    does not allow, and stops it."""
    condition = c.reader(function, op.args[0])
    op_id, rt = function.op_ids[pc], c.rt

    def run(frame, rows):
        value = np.asarray(condition(frame, rows))
        threads = frame.thread_ids(rows)
        broken = ~np.broadcast_to(value.astype(bool), threads.shape)
        if broken.any():  # the launch is not one the kernel allows: nothing after it counts
            wave = rt.wave
            violators = threads[broken]
            rt.events.assertions.append(Assertion("assume", op_id, wave.first_block + wave.blocks_of(violators),
                                                  wave.tid_of(violators)))
            raise Stop("invalid-launch", (op_id, False), "a thread broke an assumption of the kernel")

    return run


def axiom(c, function, pc, op):
    """__simulee_axiom(holds), which GPUVerify's `__axiom` calls at a kernel's entry: the
    threads for which it is 0 take no part in the launch (they leave, as if never launched)."""
    condition = c.reader(function, op.args[0])
    op_id, rt = function.op_ids[pc], c.rt

    def run(frame, rows):
        threads = frame.thread_ids(rows)
        holds = np.broadcast_to(np.asarray(condition(frame, rows)).astype(bool), threads.shape)
        if holds.all():
            return rows
        rt.exit_threads(threads[~holds], op_id)
        return frame.row_indices(rows)[holds]

    return run


def texture(c, function, pc, op):
    """__simulee_texture_fetch(texture, dims, x, y, z, out, size): what the texture gives
    each thread at its coordinates (textures.py), stored to `out` (zeros when no texture is
    bound)."""
    readers = [c.reader(function, a) for a in op.args]
    op_id = function.op_ids[pc]
    access = c.accesses.access

    def run(frame, rows):
        count = frame.width(rows)
        handle = np.broadcast_to(np.asarray(readers[0](frame, rows), dtype=np.int64), (count,))
        dims = int(np.asarray(readers[1](frame, rows)).reshape(-1)[0])
        coordinates = [np.broadcast_to(np.asarray(readers[i](frame, rows), dtype=np.float64), (count,))
                       for i in (2, 3, 4)]
        size = int(np.asarray(readers[6](frame, rows)).reshape(-1)[0])
        result = np.zeros((count, size), dtype=np.uint8)
        for address in np.unique(handle):
            found = c.placement.texture(int(address))
            if found is not None:
                chosen = handle == address
                result[chosen] = found.fetch(dims, [axis[chosen] for axis in coordinates], size)
        target = np.broadcast_to(np.asarray(readers[5](frame, rows), dtype=np.int64), (count,))
        access(frame, rows, target, size, 1, op_id, WRITE, result)

    return run


# ---------------------------------------------------------------------- dynamic parallelism

def parameter_buffer(c, function, pc, op):
    """cudaGetParameterBuffer(alignment, size) (CDP2): a device-heap buffer the launching
    thread writes a child kernel's arguments into (64-byte aligned, as clang's stores into it
    assume)."""
    size = c.reader(function, op.args[1])
    out = c.writer(function, op.result, True)
    heap = c.accesses.heap

    def run(frame, rows):
        sizes = np.broadcast_to(np.asarray(size(frame, rows)).astype(np.int64), (frame.width(rows),))
        out(frame, rows, heap().malloc_aligned(sizes, PARAMETER_BUFFER_ALIGN))

    return run


def launch_device(c, function, pc, op):
    """cudaLaunchDevice(kernel, parameter buffer, grid, block, shared bytes, stream) (CDP2):
    each calling thread's child launch, recorded in the run's events; it runs after the
    launching grid (a parent cannot wait for its children in CDP2)."""
    readers = [c.reader(function, a) for a in op.args]
    out = c.writer(function, op.result, True)
    op_id = function.op_ids[pc]
    rt, access = c.rt, c.accesses.access

    def run(frame, rows):
        threads = frame.thread_ids(rows)
        count = len(threads)
        values = [np.broadcast_to(np.asarray(reader(frame, rows), dtype=np.int64), (count,)) for reader in readers]
        grids, blocks = (np.ascontiguousarray(access(frame, rows, values[i], 12, 4, op_id, READ))
                         .view(np.uint32).reshape(count, 3) for i in (2, 3))
        wave = rt.wave
        names = c.placement.function_names  # the launch's (compiled code outlives it)
        for lane in range(count):  # one record per child launch
            index = int(split(np.int64(values[0][lane]))[1][()]) - 1
            rt.events.launches.append(ChildLaunch(
                names[index] if 0 <= index < len(names) else "", int(values[1][lane]),
                tuple(int(v) for v in grids[lane]), tuple(int(v) for v in blocks[lane]), int(values[4][lane]), op_id,
                wave.first_block + int(threads[lane] // wave.tpb), int(threads[lane] % wave.tpb)))
        out(frame, rows, np.zeros(count, dtype=np.int32))

    return run


def device_runtime(c, function, pc, op):
    """The rest of the device runtime (CDP2): cudaMalloc and cudaFree on the device heap;
    streams and events created in device code are null handles, which a launch ignores;
    every call succeeds."""
    callee = op.extra["callee"]
    readers = [c.reader(function, a) for a in op.args]
    out = c.writer(function, op.result, True) if op.result >= 0 else None
    op_id = function.op_ids[pc]
    access, heap = c.accesses.access, c.accesses.heap
    creates = ("Create" in callee or callee.endswith("Malloc")) and readers

    def run(frame, rows):
        count = frame.width(rows)
        if creates:
            handle = np.broadcast_to(np.asarray(readers[0](frame, rows), dtype=np.int64), (count,))
            made = np.zeros(count, dtype=np.int64)
            if callee.endswith("Malloc"):
                made = heap().malloc(np.broadcast_to(np.asarray(readers[1](frame, rows), dtype=np.int64), (count,)))
            access(frame, rows, handle, 8, 8, op_id, WRITE, made.view(np.uint8).reshape(count, 8))
        elif callee.endswith("Free") and readers:
            heap().free(np.broadcast_to(np.asarray(readers[0](frame, rows), dtype=np.int64), (count,)))
        if out is not None:
            out(frame, rows, np.zeros(count, dtype=np.int32))

    return run


def out_parameter_math(c, function, pc, op):
    """Math with results stored through pointers: frexp, modf, remquo, sincos(pi)."""
    callee = op.extra["callee"]
    readers = [c.reader(function, a) for a in op.args]
    out = c.writer(function, op.result, True) if op.result >= 0 else None
    op_id = function.op_ids[pc]
    single = callee in {f"__nv_{name}f" for name in ("frexp", "modf", "remquo", "sincos", "sincospi")}
    dtype = np.float32 if single else np.float64
    layout, accesses = c.layout, c.accesses

    def store(frame, rows, pointer, value, ty):
        accesses.access(frame, rows, pointer, layout.store_size(ty), layout.align(ty), op_id, WRITE,
                        accesses.encode(value, ty, frame.width(rows)))

    float_type = FloatType("float" if single else "double")

    def run(frame, rows):
        x = np.asarray(readers[0](frame, rows), dtype=dtype)
        base = callee.removeprefix("__nv_").removesuffix("f") if single else callee.removeprefix("__nv_")
        if base == "frexp":
            mantissa, exponent = np.frexp(x)
            store(frame, rows, readers[1](frame, rows), exponent.astype(np.int32), I32)
            result = mantissa.astype(dtype)
        elif base == "modf":
            fraction, whole = np.modf(x)
            store(frame, rows, readers[1](frame, rows), whole.astype(dtype), float_type)
            result = fraction.astype(dtype)
        elif base == "remquo":
            result, quotient = mathlib.remquo(x, np.asarray(readers[1](frame, rows), dtype=dtype))
            store(frame, rows, readers[2](frame, rows), quotient, I32)
        else:  # sincos, sincospi
            sine, cosine = (mathlib.sinpi, mathlib.cospi) if base == "sincospi" else (np.sin, np.cos)
            store(frame, rows, readers[1](frame, rows), sine(x).astype(dtype), float_type)
            store(frame, rows, readers[2](frame, rows), cosine(x).astype(dtype), float_type)
            result = None
        if out is not None and result is not None:
            out(frame, rows, result)

    return run


def invented_return(c, function, pc, op):
    """A call of a function the program declares and never defines (GPUVerify's
    `nondet()`, an external `bar(s)`): it returns, per thread and call, a value Simulee
    makes up: 0 half the time (a `while (nondet())` ends soon), else one of the launch's
    fill (small values, or with a wide fill anything; none with zeros), labelled so that
    what depends on it says so (Placement.returned); it changes no memory."""
    callee = op.extra["callee"]
    out = c.writer(function, op.result, True)
    out_taint = c.taint_writer(function, op.result)
    if op.result < 0:
        return lambda frame, rows: None
    ty = function.slot_types[op.result]
    dtype = np.dtype(dtype_of(ty))
    site = int(function.op_ids[pc]) * 7919 + sum(map(ord, callee))
    rt = c.rt

    def run(frame, rows):
        launch, calls = c.placement.launch, c.placement.calls
        calls[site] = calls.get(site, -1) + 1
        threads = (rt.wave.first_block * rt.wave.tpb + frame.thread_ids(rows)).astype(np.int64)
        seed = (launch.seed * 1_000_003 + site) * 65_537 + calls[site]
        values = np.zeros(len(threads), dtype=dtype)
        if launch.fill != "zeros":
            kind = "wide" if launch.fill == "wide" else "small"
            some = (hashed(seed, threads) & np.uint64(1)).astype(bool)
            values[some] = Fill(kind, seed, dtype.str, launch.dictionary).values(threads[some])
        out(frame, rows, values)
        if rt.tainting:
            out_taint(frame, rows, c.placement.returned.get(callee, 0))

    return run


def math(c, function, pc, op):
    """A function of the math library (mathlib), or an unsupported call."""
    callee = op.extra["callee"]
    implementation = mathlib.find(callee)
    if implementation is None:
        raise Unsupported(f"call of undefined function '{callee}'")
    readers = [c.reader(function, a) for a in op.args]
    types, result_type = op.arg_types, op.type
    dtype_of(result_type)
    out = c.writer(function, op.result, False)
    return lambda frame, rows: out(frame, rows, implementation([read(frame, rows) for read in readers], types,
                                                               result_type))
