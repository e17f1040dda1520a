"""The SIMT executor: runs every thread of every block of a launch, one IR instruction at a
time for all the threads that stand at it together.

Threads at the same program point form a group; the scheduler always runs the group that is
earliest in reverse post-order (deepest call first), so threads that diverge at a branch meet
again where their paths join, and merge. A group runs a block of instructions as NumPy
operations over its threads, then splits by where each thread branches.

A frame is one activation of a function for the threads that called it together; its
registers hold one element per thread of the frame, and a group names its threads by rows of
its frame. Barriers park a group until every live thread of its block waits at the same
barrier; warp collectives park lanes until every live lane named in the mask has arrived.
When nothing can run, incomplete barriers and collectives are recorded (barrier divergence,
missing lanes) and released in a fixed order so that the run always ends.

Large grids run in waves of blocks, produced as they are needed (a grid of billions of
blocks starts at once); global memory persists across waves, shared memory and local stacks
do not. A launch stops early at its step, work or time limit, when a thread breaks the
kernel's stated assumption, or once its trace is full if it asked to.

Forward progress: a group that takes a loop's back edge with the loop's state unchanged
(the header's phis get the values they hold, no store and no clock read since its last
trip round) spins, waiting for memory to change. It yields: it is parked until nothing else
can run and memory has changed since, as a GPU's co-resident blocks and warps make
progress while one spins. The blocks of a wave are the resident ones. When nothing can run
and no spinning group can see a change, the launch stops: a deadlock if the loop reads
memory (it waits for a value no thread can still write; only a potential one when blocks of
later waves, or blocks a sample left out, could have written it), else an endless loop.
"""

from __future__ import annotations

import heapq
import itertools
import time

import numpy as np

from interpreter import collectives, flow, taint
from interpreter.compiler import (
    BARRIER, BRANCH, CALL, COLLECTIVE, GRID_BARRIER, PLAIN, RETURN, STOP, SWITCH, UNREACHABLE, UNSUPPORTED,
    Compiler,
)
from interpreter.launch import CUT_OFF_MESSAGE, Launch, Result, Stop
from interpreter.loops import step_budget
from interpreter.native import Native, default_engine, warmup
from interpreter.loader import KernelInfo, Program, demangle
from interpreter.memory import Memory
from interpreter.trace import (
    REACHED_UNREACHABLE, SPLIT, STACK_OVERFLOW, BarrierDivergence, Events, Fault, TraceRecorder, coordinates,
)
from interpreter.values import write
from interpreter.vocabulary import Unsupported


REGISTER_BUDGET = 1 << 29  # bytes of the registers of a wave's threads: big kernels make smaller waves
LOCAL_MEMORY_BUDGET = 1 << 28  # bytes of local (stack) memory of a wave: big stacks make smaller waves
SHARED_MEMORY_BUDGET = 1 << 28  # bytes of the shared memory of a wave's blocks: big segments make smaller waves
GRID_RESIDENT_THREADS = 1 << 19  # threads a grid barrier's launch may have: more than any GPU holds resident
FAULT_SAMPLE = 4096  # threads kept per faulting instruction and kind
TIME_CHECK_MASK = 1023  # the clock is read every 1,024 steps
NATIVE_STEPS = 1 << 24  # thread-instructions a native call may run through branches before the clock is read
NO_RANK = 1 << 62  # no other group is runnable: native code may go on at any rank


class Frame:
    """One activation of a function by the threads (wave indices) that called it together."""

    __slots__ = ("function", "threads", "regs", "caller", "caller_rows", "call_pc", "key", "depth", "local_top",
                 "id", "count", "taint", "branches", "control", "divergent", "control_divergent")
    _ids = itertools.count()

    def __init__(self, function, threads, caller=None, caller_rows=None, call_pc=-1, key=(), depth=0, local_top=0,
                 control=0, control_divergent=0):
        self.function = function
        self.threads = threads
        self.count = len(threads)
        self.regs = [None] * function.registers  # per register (function.storage), its rows' values
        # what Simulee invented each register depends on; each branch's condition as the rows last
        # evaluated it; what reaching this call does (interpreter.taint)
        self.taint = [0] * function.registers
        self.branches: dict = {}
        self.control = control
        # the same, of the branches that split a block (taint.control with divergent)
        self.divergent: dict = {}
        self.control_divergent = control_divergent
        self.caller = caller
        self.caller_rows = caller_rows
        self.call_pc = call_pc
        self.key = key
        self.depth = depth
        self.local_top = local_top
        self.id = next(Frame._ids)

    def thread_ids(self, rows):
        return self.threads if rows is None else self.threads[rows]

    def width(self, rows) -> int:
        """How many rows `rows` names (None: all of them)."""
        return self.count if rows is None else len(rows)

    def row_indices(self, rows) -> np.ndarray:
        """`rows` as an index array (None: every row)."""
        return np.arange(self.count) if rows is None else rows


class Group:
    """Threads (rows of `frame`; None for all) standing at instruction `pc`."""

    __slots__ = ("frame", "pc", "rows")

    def __init__(self, frame: Frame, pc: int, rows):
        self.frame, self.pc, self.rows = frame, pc, rows

    def count(self) -> int:
        return self.frame.width(self.rows)


class Wave:
    """Per-thread and per-block state of the blocks running together."""

    def __init__(self, first_block: int, blocks: int, threads_per_block: int):
        self.first_block = first_block
        self.blocks = blocks
        self.tpb = threads_per_block
        self.warps_per_block = (threads_per_block + 31) // 32
        count = blocks * threads_per_block
        self.count = count
        self.live = np.ones(count, dtype=bool)
        self.everyone_live = True
        self.exit_epoch = np.full(count, -1, dtype=np.int32)
        self.exit_grid_epoch = np.full(count, -1, dtype=np.int32)
        self.exit_op = np.full(count, -1, dtype=np.int32)
        self.warp_sync = np.zeros(count, dtype=np.int32)
        self.wait_key = np.full(count, -1, dtype=np.int64)
        self.barrier_value = np.zeros(count, dtype=np.int32)
        self.epoch = np.zeros(blocks, dtype=np.int32)
        self.live_count = np.full(blocks, threads_per_block, dtype=np.int64)
        self.wait_count = np.zeros(blocks, dtype=np.int64)
        lanes = np.arange(threads_per_block) % 32
        warps = np.arange(threads_per_block) // 32
        per_block = np.zeros(self.warps_per_block, dtype=np.uint32)
        np.bitwise_or.at(per_block, warps, (np.uint32(1) << lanes.astype(np.uint32)).astype(np.uint32))
        self.live_bits = np.tile(per_block, blocks)
        self.existing_bits = self.live_bits.copy()
        # per thread, what its place (a barrier it waits at, its exit) depends on; per block, what the
        # predicates of its reducing barrier do (interpreter.taint)
        self.place_taint = np.zeros(count, dtype=np.uint64)
        self.barrier_taint = 0

    def blocks_of(self, threads):
        return threads // self.tpb

    def tid_of(self, threads):
        return threads % self.tpb

    def warps_of(self, threads):
        """Warp index in the wave (blocks' warps numbered consecutively)."""
        return (threads // self.tpb) * self.warps_per_block + (threads % self.tpb) // 32

    def lanes_of(self, threads):
        return (threads % self.tpb) % 32


class Execution:
    """The launches of one kernel: its code is compiled once and runs each launch `start`
    begins."""

    def __init__(self, program: Program, kernel: KernelInfo, launch: Launch):
        self.program = program
        self.kernel = kernel
        self.compiler = Compiler(program, kernel, self)
        self.native = Native(self)
        self.start(launch)
        self.root_function = self.compiler.function(kernel.symbol)

    def start(self, launch: Launch) -> bool:
        """Begin `launch` with fresh memory and state. False when the kernel's compiled
        code cannot run it (its symbols are placed elsewhere): make a new execution."""
        self.launch = launch
        self.memory = launch.device.memory if launch.device is not None else Memory(launch.growth_limit)
        self.events = Events()
        self.tainting = False  # whether values carry what Simulee invented (interpreter.taint)
        self.taint_here = None  # (frame, rows, pc, operands' taint) of the plain instruction running
        self.invented_branches: dict[int, bool] = {}  # Result.invented_branches
        self.recorder = TraceRecorder(
            launch.trace_limit, self._split if launch.flush is not None and not launch.stop_when_traced else None,
            launch.split_at) if launch.trace else None
        self.steps = 0
        self.thread_instructions = 0
        self.grid_epoch = 0
        self.sequence = itertools.count()
        self.reported_masks: set[tuple[int, int]] = set()
        self.blocks_run = 0  # blocks of the waves started
        self.finished = 0  # blocks of the waves run to their end
        self.cut_in_wave = 0  # accesses the wave running handed over in parts before its end (_cut)
        self.handed = 0  # accesses handed over in parts (Launch.flush)
        self.deadline = float("inf")
        self.clock_reads = 0  # a loop that reads the clock may end without any store
        self._no_threads()
        if not self.compiler.start(launch):
            return False
        self.tainting = launch.taint and bool(self.compiler.placement.labels)
        # native runs once the kernel's launches have done enough work (or steps) to pay for compiling
        work, steps = warmup()
        native = (launch.engine or default_engine()) == "native"
        self.native_after = max(0, work - self.native.work) if native else float("inf")
        self.native_steps_after = max(0, steps - self.native.steps) if native else float("inf")
        # waves are smaller when threads need many registers or much local memory, or blocks much shared memory
        stack = self.compiler.static_stack_bytes()
        wave_threads = min(launch.wave_threads, REGISTER_BUDGET // max(1, self.compiler.register_bytes()),
                           LOCAL_MEMORY_BUDGET // stack if stack else launch.wave_threads)
        shared = self.compiler.shared_segment_bytes
        self.blocks_per_wave = self.blocks_per_wave_at_most = max(1, min(
            wave_threads // launch.threads_per_block, SHARED_MEMORY_BUDGET // shared if shared else wave_threads))
        if launch.flush is not None:  # the first wave one block (of any size it fits the trace); the next fit it
            self.blocks_per_wave = 1
        # a grid barrier needs every block resident: one wave, where a GPU could hold the grid at once
        self.one_wave = self.compiler.uses_grid_sync and launch.threads <= GRID_RESIDENT_THREADS
        waves, self.wave_blocks = self._wave_counts()
        self.steps_per_wave = step_budget(self.program.reachable_functions(self.kernel.symbol),
                                          [p.name for p in self.kernel.params], launch) \
            if launch.step_limit is None else 0
        self.step_limit = launch.step_limit if launch.step_limit is not None else self.steps_per_wave * waves
        return True

    def _no_threads(self) -> None:
        """No wave, and no thread waiting anywhere."""
        self.wave: Wave | None = None
        self.runnable: dict[tuple[int, int], Group] = {}
        self.heap: list = []
        self.barriers: dict[tuple[int, int], Group] = {}
        self.collective_waits: dict[tuple[int, int], Group] = {}
        self.grid_waits: dict[tuple[int, int], Group] = {}
        self.trips: dict[tuple[str, int], tuple] = {}  # (function, loop header): (state, loads) at its last trip
        self.spinning: dict[tuple[int, int], Group] = {}  # parked until memory changes
        self.spun: dict[tuple[int, int], tuple[tuple, bool]] = {}  # of each: (state when parked, its loop reads memory)

    # ------------------------------------------------------------------ running

    def run(self, progress=None) -> Result:
        """Run every wave; `progress(blocks done, blocks in all)` is called after each.
        `blocks_run` counts the blocks of every wave started."""
        launch = self.launch
        start = time.perf_counter()
        self.deadline = start + launch.time_limit
        status, message = "ok", ""
        traced = 0  # accesses the waves run to their end recorded
        try:
            with np.errstate(all="ignore"):
                for first, blocks in self.waves():
                    self.blocks_run += blocks
                    before = self.recorder.count if self.recorder else 0
                    self.cut_in_wave = 0
                    self.run_wave(first, blocks)
                    recorded = self.recorder.count + self.cut_in_wave - before if self.recorder else 0
                    self.finished, traced = self.finished + blocks, traced + recorded
                    if launch.flush is not None and self.recorder is not None:
                        self._fit_waves(first + blocks, recorded / blocks)
                        # waves fit flush_at: past half of it, the next one would not fit beside it
                        if 2 * self.recorder.count >= launch.flush_at and self.blocks_run < self.wave_blocks:
                            self._flush()
                    if progress is not None:
                        progress(self.blocks_run, self.wave_blocks)
        except Stop as stop:
            self.events.looping_op, self.events.in_loop = stop.op, stop.in_loop
            status, message = stop.status, stop.message
        except Unsupported as error:
            status, message = "unsupported", str(error)
        except MemoryError:
            status, message = "out-of-memory", "the launch needs more memory than this machine can give"
        buffers = self.compiler.output_buffers() if launch.keep_buffers else {}
        result = Result(
            status, message, buffers, self._trace(), self.events, launch,
            self.blocks_run * launch.threads_per_block, self.thread_instructions, self.steps,
            time.perf_counter() - start, [region.name if region else "" for region in self.memory.regions],
            self.kernel.name, self.step_limit, self.blocks_run, self.wave_blocks,
            list(self.compiler.placement.labels) if self.tainting else [],
            traced / self.finished if self.finished else 0.0, self.invented_branches,
        )
        self.native.finished(self.thread_instructions, self.steps, self.tainting,
                             (self.native_after, self.native_steps_after))
        # the execution outlives the launch (it is kept to run the next): what the launch
        # made goes with the result, or is freed now
        self.memory.release(regions=launch.device is None)
        self.compiler.finish()
        self._no_threads()
        self.recorder = self.launch = None
        return result

    def _cut(self, op: int) -> None:
        """Blocks just passed barrier `op` and every other block of the wave waits at a
        barrier or is done, so no block has accesses of one barrier epoch on both sides of
        this point: once the trace holds Launch.flush_at accesses, hand it over here as a
        part, so that a block's accesses need not fit a trace, only an epoch's."""
        launch = self.launch
        if launch.flush is None or self.recorder is None or self.recorder.count < launch.flush_at:
            return
        self.cut_in_wave += self.recorder.count
        self.events.cuts.append(op)
        self._flush()

    def _split(self) -> None:
        """The trace passes Launch.split_at with no barrier to cut at (_cut): hand it over
        here, inside the blocks' barrier intervals, saying which go on (Events.open)."""
        wave = self.wave
        self.cut_in_wave += self.recorder.count
        self.events.cuts.append(SPLIT)
        self.events.open = (wave.first_block + np.arange(wave.blocks), wave.epoch.copy())
        self._flush()

    def _flush(self) -> None:
        """Hand the trace of the waves run since the last flush to Launch.flush, with the
        events that go with its accesses, and go on with the recorder emptied."""
        launch, events, finished = self.launch, self.events, self.finished
        part_events = Events(collectives=events.collectives, barrier_passes=events.barrier_passes,
                             fences=events.fences, cuts=events.cuts, open=events.open)
        events.collectives, events.barrier_passes, events.fences, events.cuts, events.open = [], [], [], [], None
        trace = self.recorder.take(self.compiler.op_infos)
        self.handed += len(trace)
        if self.handed > launch.access_limit:
            raise Stop("trace-limit", (-1, False), f"stopped once it had made {self.handed:,} accesses")
        labels = list(self.compiler.placement.labels) if self.tainting else []
        regions = [region.name if region else "" for region in self.memory.regions]
        launch.flush(Result("ok", "", {}, trace, part_events, launch, finished * launch.threads_per_block,
                            self.thread_instructions, self.steps, 0.0, regions,
                            self.kernel.name, self.step_limit, finished, self.wave_blocks, labels,
                            len(trace) / finished if finished else 0.0, self.invented_branches))

    def _fit_waves(self, done: int, per_block: float) -> None:
        """Size the waves after block `done` so that one records about Launch.flush_at
        accesses, by what a block of the last one recorded; the step limit follows the
        number of waves."""
        launch = self.launch
        if launch.sample is not None or self.one_wave or done >= launch.blocks:
            return
        normal = self.blocks_per_wave_at_most
        fit = max(1, min(normal, int(launch.flush_at // max(per_block, 1.0))))
        if fit == self.blocks_per_wave:
            return
        left = launch.blocks - done
        if launch.step_limit is None:
            self.step_limit += self.steps_per_wave * (-(-left // fit) - -(-left // self.blocks_per_wave))
        self.blocks_per_wave = fit

    def waves(self):
        """(first block, block count) of each wave, lazily: runs of consecutive blocks (of
        the sample, if any) of at most wave_threads threads (of blocks_per_wave, which a
        launch that flushes its trace changes as it goes); one wave for grid.sync kernels."""
        launch = self.launch
        if self.one_wave:
            yield 0, launch.blocks
            return
        if launch.sample is None:
            first = 0
            while first < launch.blocks:
                count = min(self.blocks_per_wave, launch.blocks - first)
                yield first, count
                first += count
            return
        per_wave = self.blocks_per_wave
        run: tuple[int, int] | None = None
        for block in sorted({b for b in launch.sample if 0 <= b < launch.blocks}):
            if run is not None and run[0] + run[1] == block and run[1] < per_wave:
                run = (run[0], run[1] + 1)
                continue
            if run is not None:
                yield run
            run = (block, 1)
        if run is not None:
            yield run

    def _wave_counts(self) -> tuple[int, int]:
        """(waves, blocks) the launch runs."""
        launch = self.launch
        if self.one_wave:
            return 1, launch.blocks
        if launch.sample is None:
            return -(-launch.blocks // self.blocks_per_wave), launch.blocks
        runs = list(self.waves())
        return len(runs), sum(count for _, count in runs)

    def _trace(self):
        return (self.recorder or TraceRecorder()).finish(self.compiler.op_infos)

    def run_wave(self, first_block: int, blocks: int) -> None:
        tpb = self.launch.threads_per_block
        self.wave = Wave(first_block, blocks, tpb)
        self.memory.start_wave(blocks, self.compiler.shared_segment_bytes, self.wave.count, 0)
        root = Frame(self.root_function, np.arange(self.wave.count, dtype=np.int64), key=())
        self.compiler.enter_kernel(root)
        self.runnable.clear()
        self.heap.clear()
        self.trips.clear()
        self.spinning.clear()
        self.spun.clear()
        self.barriers.clear()
        self.collective_waits.clear()
        self.grid_waits.clear()
        self.add(root, 0, None)
        self.schedule()

    def schedule(self) -> None:
        while True:
            group = self.pop()
            if group is None:
                if self.wake_spinning() or (not self.spinning and self.release_stuck()):
                    continue
                if self.spinning:
                    self.stop_spinning()
                return
            self.run_group(group)

    def pop(self) -> Group | None:
        while self.heap:
            _, _, key = heapq.heappop(self.heap)
            group = self.runnable.pop(key, None)
            if group is not None:
                return group
        return None

    def add(self, frame: Frame, pc: int, rows) -> None:
        """Make rows of `frame` runnable at `pc`, merging with threads already there."""
        if rows is not None and len(rows) == 0:
            return
        key = (frame.id, pc)
        existing = self.runnable.get(key)
        if existing is not None:
            existing.rows = _union(existing.rows, rows, frame.count)
            return
        self.runnable[key] = Group(frame, pc, rows)
        heapq.heappush(self.heap, (frame.key + (frame.function.rank[pc],), next(self.sequence), key))

    def run_group(self, group: Group) -> None:
        """Run `group` from its instruction until it branches, parks, calls or returns."""
        frame, pc, rows = group.frame, group.pc, group.rows
        function = frame.function
        kinds, runs = function.kinds, function.taint_runs if self.tainting else function.runs
        limit, work_limit = self.step_limit, self.launch.work_limit
        left_to_numpy = -1  # where native code could do nothing: the NumPy closure runs it
        while True:
            self.steps += 1
            self.thread_instructions += frame.width(rows)
            if self.steps > limit or self.thread_instructions > work_limit:
                self.stop_limit(function)
            if self.steps & TIME_CHECK_MASK == 0:
                self.check_time(function)
            kind = kinds[pc]
            if kind == PLAIN:
                if (self.thread_instructions >= self.native_after or self.steps >= self.native_steps_after) \
                        and pc != left_to_numpy:
                    done, reached = self.run_native(frame, rows, pc, limit, work_limit)
                    if done:  # where it stopped, native code may go on (a new call has room) or not (do nothing)
                        pc = reached
                        continue
                    left_to_numpy = pc
                runs[pc](frame, rows)
                pc += 1
                continue
            if kind == STOP:  # an instruction after which some lanes stop (assert, trap)
                rows = runs[pc](frame, rows)
                if rows is not None and len(rows) == 0:
                    return
                pc += 1
                continue
            if kind == BRANCH or kind == SWITCH:
                edges = runs[pc](frame, rows)
                if self.tainting:
                    self.note_branch(frame, pc, rows, edges)
                if self.launch.coverage:
                    self.cover(function.name, pc, frame, edges)
                for target, target_rows in edges:
                    self.enter(frame, function.op_block[pc], target, target_rows)
                return
            if kind == RETURN:
                self.finish_call(frame, rows, pc)
                return
            if kind == CALL:
                if self.tainting:  # a call through a bad pointer depends on the pointer
                    self.taint_here = (frame, rows, pc, taint.operands(frame, function.decoded.ops[pc].args, rows, pc))
                runs[pc](frame, rows, pc)
                return
            if kind == BARRIER:
                self.park_barrier(frame, pc, rows)
                return
            if kind == GRID_BARRIER:
                if not self.one_wave:
                    self.too_large_for_grid_barrier(function, pc)
                self.park(self.grid_waits, frame, pc, rows)
                self.check_grid_barrier()
                return
            if kind == COLLECTIVE:
                rows = self.arrive_collective(frame, pc, rows)
                if rows is not None and len(rows) == 0:
                    return  # waiting for the rest of its warps
                pc += 1
                continue
            if kind == UNREACHABLE:
                self.taint_here = (frame, rows, pc, 0)
                threads = frame.thread_ids(rows)
                self.fault(REACHED_UNREACHABLE, function.op_ids[pc], threads)
                self.exit_threads(threads, function.op_ids[pc], self.taint_of_threads(threads))
                return
            if kind == UNSUPPORTED:
                raise Unsupported(self.compiler.unsupported_message(function, pc))
            raise AssertionError(f"unknown op kind {kind}")

    def run_native(self, frame: Frame, rows, pc: int, limit: int, work_limit: float) -> tuple[int, int]:
        """Run native code from `pc` as far as the step and work limits allow (this step
        counted already), through branches while the group would be scheduled next:
        (instructions done, each counted as the loop would; the pc to go on at)."""
        table = self.native.table(frame.function)
        if table[pc] is None:
            return 0, pc
        width = frame.width(rows)
        budget = 1 + min(limit - self.steps, (work_limit - self.thread_instructions) // width
                         if work_limit != float("inf") else limit, max(NATIVE_STEPS // width, 64))
        done, reached = self.native.run(frame, rows, pc, int(max(budget, 1)), self.first_rank_after(frame))
        if done > 1:
            before = self.steps
            self.steps += done - 1
            self.thread_instructions += (done - 1) * width
            if (before ^ self.steps) & ~TIME_CHECK_MASK:
                self.check_time(frame.function)
        return done, reached

    def check_time(self, function) -> None:
        """Stop the launch past its time limit, or past its cut-off (Launch.cut_off)."""
        now = time.perf_counter()
        if now > self.deadline:
            raise Stop("time-limit", self.compiler.looping_op(function),
                       f"ran out of its {self.launch.time_limit:.3g} s")
        if self.launch.cut_off is not None and now > self.launch.cut_off[0]:
            raise Stop("time-limit", self.compiler.looping_op(function), CUT_OFF_MESSAGE)

    def first_rank_after(self, frame: Frame) -> int:
        """The highest rank in `frame`'s function at which its group would be scheduled
        before every other runnable group (-1: at none). An entry the heap still holds for a
        group gone (pop drops it) counts too: a group revived at its key would take its place."""
        heap = self.heap
        if not heap:
            return NO_RANK
        key, top = frame.key, heap[0][0]
        for mine, theirs in zip(key, top):
            if mine != theirs:
                return NO_RANK if mine < theirs else -1
        if len(top) <= len(key):
            return -1
        rank = top[len(key)]
        return rank - 1 if len(top) == len(key) + 1 else rank

    def stop_limit(self, function) -> None:
        """The step or work limit ran out while `function` ran."""
        if self.steps > self.step_limit:
            raise Stop("step-limit", self.compiler.looping_op(function),
                       f"stopped at its step limit of {self.step_limit:,} scheduler steps")
        raise Stop("step-limit", self.compiler.looping_op(function),
                   f"stopped at its work limit of {self.launch.work_limit:,.0f} thread-instructions")

    def spins(self, frame: Frame, target_block: int, rows, incoming) -> tuple | None:
        """When rows of `frame`, taking a back edge to `target_block` with the phi values
        `incoming`, repeat their last trip round the loop exactly (same threads, same phis,
        no store and no clock read since): ((memory version, clock reads), whether the trip
        read memory); else None. Notes the trip."""
        if rows is not None and len(rows) == 0:
            return None
        key = (frame.function.name, target_block)  # one entry per loop, whichever frame runs it
        threads = (None, None) if rows is None else (int(rows[0]), int(rows[-1]))
        state = (self.memory.version, self.clock_reads, frame.id, frame.width(rows), threads)
        last = self.trips.get(key)
        self.trips[key] = (state, self.memory.reads)
        if last is None or last[0] != state or \
                not all(_unchanged(frame.regs[frame.function.storage[slot]], rows, value)
                        for slot, _, value in incoming):
            return None
        return state[:2], self.memory.reads != last[1]

    def wake_spinning(self) -> bool:
        """Nothing else can run: spinning groups that may see a change (a store or a clock
        read since they parked) go round again. False if none."""
        now = (self.memory.version, self.clock_reads)
        woken = [key for key, (state, _) in self.spun.items() if state != now]
        for key in woken:
            group = self.spinning.pop(key)
            del self.spun[key]
            self.add(group.frame, group.pc, group.rows)
        return bool(woken)

    def stop_spinning(self) -> None:
        """Every thread left spins and nothing can change what they read: the launch ends,
        a deadlock if they wait on memory (a potential one when blocks that did not run
        could have released them), else an endless loop."""
        key, group = next(iter(self.spinning.items()))
        waits_on_memory = self.spun[key][1]
        if self.tainting:
            self.events.looping_taint = self.loop_taint(self.spinning.values())
        threads = np.concatenate([g.frame.thread_ids(g.rows) for g in self.spinning.values()])
        where = self.compiler.looping_op(group.frame.function)
        if not waits_on_memory:
            raise Stop("infinite-loop", where, "threads came back to this loop with their registers and all memory "
                                               "unchanged, and no other thread can run")
        wave, launch = self.wave, self.launch
        named = ", ".join(
            f"thread ({x},{y},{z}) of block ({bx},{by},{bz})" for (x, y, z), (bx, by, bz) in
            zip(coordinates(wave.tid_of(threads[:3]), launch.block),
                coordinates(wave.first_block + wave.blocks_of(threads[:3]), launch.grid)))
        more = f" and {len(threads) - 3:,} more" if len(threads) > 3 else ""
        spin = f"{len(threads):,} thread{'s' if len(threads) > 1 else ''} ({named}{more}) " \
               f"spin{'' if len(threads) > 1 else 's'} here"
        unrun = launch.blocks - self.blocks_run if launch.sample is None else launch.blocks - len(set(launch.sample))
        if unrun > 0:
            them = "them" if len(threads) > 1 else "it"
            cause = f"run in later waves; at most {self.blocks_per_wave:,} run at once" if launch.sample is None \
                else "were left out of the sample run"
            raise Stop("deadlock", where, f"potential deadlock: {spin} waiting for a value that only blocks not "
                                          f"resident with {them} could write ({unrun:,} blocks {cause}): on a GPU "
                                          f"this can hang")
        raise Stop("deadlock", where, f"deadlock: {spin} waiting for a value no thread can still write")

    def cover(self, function: str, pc: int, frame: Frame, edges) -> None:
        """Record the branch's edges taken, and whether the threads of one block (code -1)
        or of one warp (code -2) went different ways."""
        coverage = self.events.coverage
        for target, _ in edges:
            coverage.add((function, pc, target))
        if len(edges) < 2:
            return
        sides = [frame.thread_ids(rows) for _, rows in edges]
        threads = np.concatenate(sides)
        labels = np.repeat(np.arange(len(sides)), [len(side) for side in sides])
        for code, units in ((-1, self.wave.blocks_of(threads)), (-2, self.wave.warps_of(threads))):
            pairs = np.unique(units * len(sides) + labels)
            if len(np.unique(pairs // len(sides))) < len(pairs):
                coverage.add((function, pc, code))

    def enter(self, frame: Frame, source_block: int, target_block: int, rows) -> None:
        """Threads of `frame` branch from one block to another: the target's phis take their
        values for that edge (all read before any is written), then the threads wait at the
        target's first instruction."""
        function = frame.function
        function.block_visits[target_block] += 1
        phis = function.phis[target_block]
        incoming = [(slot, ty, read(frame, rows)) for slot, ty, read in
                    (phi.for_edge(source_block) for phi in phis)] if phis else []
        if phis and self.tainting:  # each phi's value depends on it and on what chose the edge
            chosen = taint.control(frame, function.control.deciding[target_block], rows)
            for phi in phis:
                phi_taint = taint.union(chosen, phi.taint_for_edge(frame, rows, source_block))
                taint.assign(frame.taint, function.storage[phi.slot], rows, phi_taint, frame.count)
        first = function.block_first[target_block]
        back = function.rank[first] <= function.rank[function.block_first[source_block]]
        spun = self.spins(frame, target_block, rows, incoming) if back else None
        if spun is not None:
            self.park(self.spinning, frame, first, rows)
            self.spun[(frame.id, first)] = spun
            return
        storage = function.storage
        for slot, ty, value in incoming:
            frame.regs[storage[slot]] = write(frame.regs[storage[slot]], rows, value, ty, frame.count)
        self.add(frame, first, rows)

    # ------------------------------------------------------------------ calls and exits

    def call(self, frame: Frame, rows, pc: int, callee, arguments: list) -> None:
        """Threads `rows` of `frame` call compiled function `callee` with `arguments`."""
        threads = frame.thread_ids(rows)
        caller_rows = frame.row_indices(rows)
        depth = frame.depth + 1
        if depth > self.launch.recursion_limit:
            self.stack_overflow(frame, rows, frame.function.op_ids[pc],
                                f"calls nested more than {self.launch.recursion_limit} deep")
            return
        reached = reached_split = 0
        if self.tainting:  # what reaching the call depends on; a pointer called through too
            op = frame.function.decoded.ops[pc]
            pointer = taint.operands(frame, op.args[len(arguments):], rows, pc)
            branches = frame.function.control.of(pc)
            reached = taint.union(taint.control(frame, branches, rows), pointer)
            reached_split = taint.union(taint.control(frame, branches, rows, divergent=True), pointer)
        callee_frame = Frame(callee, threads, frame, caller_rows, pc, frame.key + (frame.function.rank[pc],), depth,
                             frame.local_top, reached if type(reached) is int else np.array(reached),
                             reached_split if type(reached_split) is int else np.array(reached_split))
        for slot, ty, value in zip(callee.params, callee.param_types, arguments):
            callee_frame.regs[callee.storage[slot]] = write(None, None, value, ty, callee_frame.count)
        if self.tainting:
            for slot, argument in zip(callee.params, frame.function.decoded.ops[pc].args):
                callee_frame.taint[callee.storage[slot]] = taint.operands(frame, (argument,), rows, pc)
        self.add(callee_frame, 0, None)

    def count_work(self, thread_instructions: int) -> None:
        """Work done beside the instruction steps (bytes moved by memcpy), toward the limit."""
        self.thread_instructions += thread_instructions

    def stack_overflow(self, frame: Frame, rows, op: int, detail: str) -> None:
        """The stacks of rows of `frame` overflow at `op`: a fault, and the threads stop."""
        threads = frame.thread_ids(rows)
        location = self.compiler.op_infos[op].location
        function = location.function if location is not None and location.function else demangle(frame.function.name)
        self.fault(STACK_OVERFLOW, op, threads, detail=f"{function} needs {detail}")
        self.exit_threads(threads, op)

    def finish_call(self, frame: Frame, rows, pc: int) -> None:
        """`ret` by rows of `frame`: back to the caller, or out of the kernel."""
        value = frame.function.runs[pc](frame, rows)
        if frame.caller is None:
            if self.tainting:  # where a thread leaves depends on how it got there
                self.note_place(frame, pc, rows)
            self.exit_threads(frame.thread_ids(rows), frame.function.op_ids[pc])
            return
        caller = frame.caller
        caller_rows = frame.caller_rows if rows is None else frame.caller_rows[rows]
        if len(caller_rows) == caller.count:
            caller_rows = None
        flow.write_call_result(caller, caller_rows, frame.call_pc, value)
        if self.tainting:  # the value returned, and which return returned it
            result = caller.function.decoded.ops[frame.call_pc].result
            if result >= 0:
                returned = taint.union(taint.operands(frame, frame.function.decoded.ops[pc].args, rows, pc),
                                       taint.control(frame, frame.function.control.of(pc), rows))
                taint.assign(caller.taint, caller.function.storage[result], caller_rows, returned, caller.count)
        self.add(caller, frame.call_pc + 1, caller_rows)

    def exit_threads(self, threads: np.ndarray, op: int, depends=None) -> None:
        """Threads leave the kernel (ret, or stopped by a fault: assert, trap, unreachable, a
        call through a bad pointer); while the launch tracks taint, `depends` (per thread,
        or one mask) is what stopped them, and so what their absence from later barriers
        and warp collectives depends on."""
        wave = self.wave
        if depends is not None and self.tainting:
            wave.place_taint[threads] = depends
        threads = threads[wave.live[threads]]
        if len(threads) == 0:
            return
        blocks = wave.blocks_of(threads)
        wave.live[threads] = False
        wave.everyone_live = False
        wave.exit_epoch[threads] = wave.epoch[blocks]
        wave.exit_grid_epoch[threads] = self.grid_epoch
        wave.exit_op[threads] = op
        np.subtract.at(wave.live_count, blocks, 1)
        lanes = wave.lanes_of(threads).astype(np.uint32)
        np.bitwise_and.at(wave.live_bits, wave.warps_of(threads), ~(np.uint32(1) << lanes))
        self.check_barriers(np.unique(blocks))
        if self.grid_waits:
            self.check_grid_barrier()

    # ------------------------------------------------------------------ barriers

    def park(self, table: dict, frame: Frame, pc: int, rows) -> None:
        key = (frame.id, pc)
        existing = table.get(key)
        if existing is None:
            table[key] = Group(frame, pc, rows)
        else:
            existing.rows = _union(existing.rows, rows, frame.count)

    def park_barrier(self, frame: Frame, pc: int, rows) -> None:
        """Threads arrive at a block barrier; reduction barriers first note their values."""
        threads = frame.thread_ids(rows)
        wave = self.wave
        if self.tainting:
            self.note_place(frame, pc, rows)
            if frame.function.info[pc].reduction is not None:
                predicate = frame.function.decoded.ops[pc].args[-1:]
                wave.barrier_taint |= taint.reduce(taint.operands(frame, predicate, rows, pc))
        frame.function.info[pc].note_value(frame, rows, threads, wave)
        if not self.barriers and len(threads) == wave.count and wave.everyone_live:
            # every thread of the wave arrives together and none ever left: all blocks pass
            frame.function.info[pc].write_result(frame, rows, pc, threads, wave)
            self.events.barrier_passes.append((frame.function.op_ids[pc], wave.first_block + np.arange(wave.blocks),
                                               wave.epoch.copy()))
            wave.epoch += 1
            self.add(frame, pc + 1, rows)
            self._cut(frame.function.op_ids[pc])
            return
        self.park(self.barriers, frame, pc, rows)
        wave.wait_key[threads] = frame.id * (1 << 32) + pc
        blocks = wave.blocks_of(threads)
        counts = np.bincount(blocks, minlength=wave.blocks)
        wave.wait_count += counts
        self.check_barriers(np.flatnonzero(counts))

    def check_barriers(self, blocks: np.ndarray) -> None:
        """Release the barrier of each of `blocks` whose live threads all wait at one barrier."""
        wave = self.wave
        if not self.barriers or len(blocks) == 0:
            return
        full = blocks[(wave.wait_count[blocks] == wave.live_count[blocks]) & (wave.wait_count[blocks] > 0)]
        if len(full) == 0:
            return
        keys = wave.wait_key.reshape(wave.blocks, wave.tpb)[full]
        waiting = keys >= 0
        lowest = np.where(waiting, keys, np.iinfo(np.int64).max).min(axis=1)
        highest = np.where(waiting, keys, -1).max(axis=1)
        uniform = full[lowest == highest]
        if len(uniform):
            self.release_blocks(uniform)

    def release_blocks(self, blocks: np.ndarray) -> None:
        """Let every waiting thread of `blocks` pass its barrier; the blocks' epochs advance.
        Threads of these blocks that did not arrive (they exited during the epoch, or wait at
        another barrier) are recorded as barrier divergence."""
        wave = self.wave
        in_blocks = np.zeros(wave.blocks, dtype=bool)
        in_blocks[blocks] = True
        cut_at = -1
        self._record_divergence(blocks)
        for key, group in list(self.barriers.items()):
            threads = group.frame.thread_ids(group.rows)
            released = in_blocks[wave.blocks_of(threads)]
            if not released.any():
                continue
            rows = group.frame.row_indices(group.rows)
            go, stay = rows[released], rows[~released]
            group.frame.function.info[group.pc].write_result(group.frame, go, group.pc, threads[released], wave)
            if len(stay):
                group.rows = stay
            else:
                del self.barriers[key]
            go_threads = threads[released]
            passed = np.unique(wave.blocks_of(go_threads))
            self.events.barrier_passes.append((group.frame.function.op_ids[group.pc], wave.first_block + passed,
                                               wave.epoch[passed].copy()))
            wave.wait_key[go_threads] = -1
            np.subtract.at(wave.wait_count, wave.blocks_of(go_threads), 1)
            self.add(group.frame, group.pc + 1, None if len(go) == group.frame.count else go)
            cut_at = group.frame.function.op_ids[group.pc]
        wave.epoch[blocks] += 1
        others = ~in_blocks & (wave.live_count > 0)  # each waits whole at a barrier, or no clean cut
        if cut_at >= 0 and (wave.wait_count[others] == wave.live_count[others]).all():
            self._cut(cut_at)

    def _record_divergence(self, blocks: np.ndarray) -> None:
        """For blocks about to pass a barrier: a barrier divergence event for each block
        where some thread that was live during this epoch is not at this barrier."""
        wave = self.wave
        keys = wave.wait_key.reshape(wave.blocks, wave.tpb)[blocks]
        exited = (wave.exit_epoch.reshape(wave.blocks, wave.tpb)[blocks] == wave.epoch[blocks][:, None])
        waiting = keys >= 0
        first_key = np.where(waiting, keys, np.iinfo(np.int64).max).min(axis=1)
        mixed = waiting & (keys != first_key[:, None])
        suspicious = np.flatnonzero(exited.any(axis=1) | mixed.any(axis=1))
        for index in suspicious:
            block = int(blocks[index])
            for key in np.unique(keys[index][waiting[index]]):
                arrived = np.flatnonzero(keys[index] == key)
                missing = np.flatnonzero(exited[index] | (waiting[index] & (keys[index] != key)))
                where = np.where(exited[index][missing], wave.exit_op[block * wave.tpb + missing],
                                 self.barrier_ops(keys[index][missing]))
                places = wave.place_taint[block * wave.tpb + np.r_[arrived, missing]]
                self.events.barrier_divergence.append(BarrierDivergence(
                    wave.first_block + block, int(self.barrier_ops(np.array([key]))[0]), int(wave.epoch[block]),
                    arrived, missing, where, exited[index][missing], taint=int(np.bitwise_or.reduce(places))))

    def barrier_ops(self, keys: np.ndarray) -> np.ndarray:
        """The static op ids of barrier wait keys (-1 for threads not waiting)."""
        ops = np.full(len(keys), -1, dtype=np.int64)
        for key in np.unique(keys[keys >= 0]):
            group = self.barriers.get((int(key) >> 32, int(key) & 0xFFFFFFFF))
            if group is not None:
                ops[keys == key] = group.frame.function.op_ids[group.pc]
        return ops

    def check_grid_barrier(self) -> None:
        """Release the grid barrier once every live thread of the launch waits at it."""
        wave = self.wave
        waiting = sum(group.count() for group in self.grid_waits.values())
        if waiting == 0 or waiting != int(wave.live.sum()):
            return
        self.release_grid_barrier()

    def too_large_for_grid_barrier(self, function, pc: int) -> None:
        """A thread reached a grid barrier in a launch too large for every block to be
        resident at once: no GPU runs it (a cooperative launch fails, a plain one hangs)."""
        launch = self.launch
        raise Stop("deadlock", (function.op_ids[pc], False),
                   f"potential deadlock: a grid barrier in a launch of {launch.blocks:,} blocks "
                   f"({launch.threads:,} threads), more than a GPU holds at once (at most "
                   f"{GRID_RESIDENT_THREADS:,} threads here): a cooperative launch of it fails, a plain one can hang")

    def release_grid_barrier(self) -> None:
        """Every thread waiting at the grid barrier goes on. If some thread of the grid that
        was live in this grid epoch is not among them (it exited, or waits at a block
        barrier), that is a barrier divergence."""
        wave = self.wave
        groups = list(self.grid_waits.values())
        waiting = np.zeros(wave.count, dtype=bool)
        for group in groups:
            waiting[group.frame.thread_ids(group.rows)] = True
        exited = wave.exit_grid_epoch == self.grid_epoch
        missing = np.flatnonzero(~waiting & (exited | wave.live))
        if len(missing):
            first = groups[0]
            arrived = first.frame.thread_ids(first.rows)
            block = int(wave.blocks_of(arrived[0]))
            arrived = arrived[wave.blocks_of(arrived) == block]
            where = np.where(exited[missing], wave.exit_op[missing], self.barrier_ops(wave.wait_key[missing]))
            places = np.bitwise_or.reduce(wave.place_taint[np.r_[arrived, missing]])
            self.events.barrier_divergence.append(BarrierDivergence(
                wave.first_block + block, first.frame.function.op_ids[first.pc], int(self.grid_epoch),
                wave.tid_of(arrived), wave.tid_of(missing), where, exited[missing],
                wave.first_block + wave.blocks_of(missing), int(places)))
        for group in groups:
            self.add(group.frame, group.pc + 1, group.rows)
        self.grid_waits.clear()
        wave.epoch += 1
        self.grid_epoch += 1

    # ------------------------------------------------------------------ warp collectives

    def arrive_collective(self, frame: Frame, pc: int, rows):
        """Lanes reach a warp collective and wait there. Lanes waiting at the same intrinsic
        (at this instruction or another: sm_70 lets them meet) count as present; every warp
        whose live lanes named in the masks are all present executes now, together. Returns
        the arriving rows that executed it (to go on); other waiters resume on their own."""
        self.park(self.collective_waits, frame, pc, rows)
        return collectives.meet(self, frame.function.info[pc].callee, (frame.id, pc), force=False)

    # ------------------------------------------------------------------ nothing can run

    def release_stuck(self) -> bool:
        """Nothing is runnable: run a waiting collective with the lanes that came (recording
        the missing ones); else release blocks stuck at different barriers. False when
        nothing waits anymore."""
        if self.collective_waits:
            group = next(iter(self.collective_waits.values()))
            collectives.meet(self, group.frame.function.info[group.pc].callee, None, force=True)
            return True
        if self.barriers:
            wave = self.wave
            stuck = np.flatnonzero(wave.wait_count > 0)
            self.release_blocks(stuck)
            return True
        if self.grid_waits:
            self.release_grid_barrier()
            return True
        return False

    # ------------------------------------------------------------------ faults

    def fault(self, kind: str, op: int, threads: np.ndarray, addresses=None, detail: str = "", depends=None) -> None:
        """Lanes `threads` (of the wave) fault at `op`. Of a fault that repeats at one op,
        only FAULT_SAMPLE threads are kept (and the count of the rest), so that a fault in
        every block of a huge launch takes bounded memory. While the launch tracks taint,
        `depends` is what each lane's fault depends on (None: the operands and the control
        of the instruction running, taint_here)."""
        if len(threads) == 0:
            return
        wave = self.wave
        counts = self.events.fault_counts
        kept = min(counts.get((kind, op), 0), FAULT_SAMPLE)
        counts[(kind, op)] = counts.get((kind, op), 0) + len(threads)
        if kept >= FAULT_SAMPLE:
            return
        masks = None
        if self.tainting:
            masks = taint.as_array(self.taint_of_threads(threads) if depends is None else depends, len(threads))
        if kept + len(threads) > FAULT_SAMPLE:
            threads = threads[: FAULT_SAMPLE - kept]
            addresses = addresses[: FAULT_SAMPLE - kept] if addresses is not None else None
            masks = masks[: FAULT_SAMPLE - kept] if masks is not None else None
        self.events.faults.append(Fault(kind, op, wave.first_block + wave.blocks_of(threads), wave.tid_of(threads),
                                        addresses, detail, masks))

    # ------------------------------------------------------------------ taint

    def note_branch(self, frame: Frame, pc: int, rows, edges) -> None:
        """Rows of `frame` evaluated the branch or switch at `pc`, going `edges` ((target,
        rows) each): its condition's taint is what the instructions it controls depend on,
        and where it split a block, who in the block takes part."""
        condition = frame.function.decoded.ops[pc].args[:1]
        if not condition:
            return
        mask = taint.operands(frame, condition, rows, pc)
        op = frame.function.op_ids[pc]
        invented = bool(mask) if type(mask) is int else bool(mask.all())
        self.invented_branches[op] = self.invented_branches.get(op, True) and invented
        split = None
        if len(edges) > 1 and not (type(mask) is int and not mask):
            sides = [frame.row_indices(side) for _, side in edges]
            labels = np.repeat(np.arange(len(sides)), [len(side) for side in sides])
            everyone = np.concatenate(sides)
            blocks = self.wave.blocks_of(frame.threads[everyone])
            pairs = np.unique(blocks * len(sides) + labels)
            torn = np.unique(pairs // len(sides), return_counts=True)
            split_blocks = torn[0][torn[1] > 1]
            order = np.argsort(everyone)
            split = np.isin(blocks, split_blocks)[order]  # per row of `rows`, in their order
        taint.note_branch(frame, pc, mask, rows, split)

    def note_place(self, frame: Frame, pc: int, rows) -> None:
        """Rows of `frame` wait at the barrier at `pc`, or leave the kernel at its `ret`:
        what got each there (for barrier divergence)."""
        mask = taint.control(frame, frame.function.control.of(pc), rows)
        self.wave.place_taint[frame.thread_ids(rows)] = mask

    def taint_of_threads(self, threads: np.ndarray):
        """What the instruction running (taint_here) depends on in `threads` (of the
        wave): its operands and reaching it."""
        if self.taint_here is None:
            return 0
        frame, rows, pc, operands = self.taint_here
        positions = np.searchsorted(frame.threads, threads)  # the threads' rows of the frame
        mask = taint.control(frame, frame.function.control.of(pc), positions)
        if type(operands) is not int:
            operands = operands[np.searchsorted(frame.row_indices(rows), positions)]
        return taint.union(mask, operands)

    def context_taint(self, frame: Frame, rows):
        """What rows of `frame` depend on at the plain instruction running: its operands
        and reaching it (for what it does to memory without saying)."""
        if self.taint_here is None or self.taint_here[0] is not frame:
            return 0
        _, at_rows, pc, operands = self.taint_here
        if at_rows is not rows:
            operands = taint.reduce(operands)
        return taint.union(taint.control(frame, frame.function.control.of(pc), rows), operands)

    def loop_taint(self, groups) -> int:
        """What the threads of `groups` being where they are depends on: every branch their
        frames took and their calls."""
        mask = 0
        for group in groups:
            frame = group.frame
            mask |= taint.reduce(frame.control if group.rows is None else taint.rows_of(frame.control, group.rows))
            for found in frame.branches.values():
                mask |= taint.reduce(taint.rows_of(found, group.rows))
        return mask


def _unchanged(register, rows, value) -> bool:
    """Whether `register`'s rows `rows` (None: all) already hold `value`."""
    if isinstance(register, tuple):
        return all(_unchanged(r, rows, v) for r, v in zip(register, value))
    if register is None:
        return False
    held = register if rows is None else register[rows]
    return bool((held == value).all())


def _union(a, b, count: int):
    """Rows in either set, sorted (None means all `count` rows)."""
    if a is None or b is None or len(a) + len(b) >= count:
        return None
    marked = np.zeros(count, dtype=bool)
    marked[a] = True
    marked[b] = True
    return np.flatnonzero(marked)


def execute(program: Program, kernel: KernelInfo | str, launch: Launch, progress=None) -> Result:
    """Run `kernel` of `program` with `launch`; `progress(blocks done, blocks in all)`
    is called after each wave of blocks. The kernel's execution is kept with the program,
    so its next launch runs the code compiled for this one."""
    if isinstance(kernel, str):
        kernel = program.kernel(kernel)
    execution = program.executions.get(kernel.symbol)
    if execution is None or not execution.start(launch):
        execution = program.executions[kernel.symbol] = Execution(program, kernel, launch)
    return execution.run(progress)
