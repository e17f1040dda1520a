"""Native loops: the machine code that takes a group from one native run to the next
across its function's branches, so that a loop whose blocks are all native runs round
after round in one call instead of returning to the scheduler at every branch.

A block *flows* when everything before its terminator is one native run without atomics
(or nothing) and its terminator is a `br`. Flowing blocks joined by branches form a
component; a call enters one at a run of it and follows branches the way the scheduler
would, for as long as that is exactly what the scheduler would do:

- the branch is uniform: every thread of the group goes the same way (else the group
  splits, which the scheduler does);
- the target flows, and its phis read native values for the edge;
- the target's first instruction ranks before every group waiting in the scheduler's
  heap, so that the scheduler would run this group again next (`bound`);
- a back edge does not repeat its loop's last trip: since the last trip round the loop
  in this call (or since the call began), some store ran or some phi changes. Otherwise
  the trip may spin, and the scheduler's own test (`spins`) decides;
- the step budget and the trace's room allow the next run whole.

The edge's effects are those of `Execution.enter`: the target's visit count, its phis
(all read before any is written), the branch's coverage, and for a back edge the loop's
last trip (its stores and reads so far), which the caller hands to the scheduler's
spin detection. Each access the runs complete is logged (its pc and step) so that the
caller records the trace as the runs' own calls would.

May import: interpreter modules (nothing of simulee or evolve).
"""

from __future__ import annotations

import ctypes

import numpy as np

from interpreter.native_ir import COLUMN_PLACES, DTYPES, Writer, literal, llvm_type, storage
from interpreter.trace import READ

# the words of a call's int64 in/out array
(IO_BUDGET, IO_BOUND, IO_ROOM, IO_LOG_ROOM, IO_LOGGING, IO_LOG, IO_VISITS, IO_TAKEN, IO_TRIPS) = range(9)
IO_COLUMNS = 9  # nine column addresses, in native_ir.COLUMNS order
IO_STEPS, IO_RECORDS, IO_LOGGED, IO_PC, IO_WRITES, IO_READS, IO_EDGES = range(18, 25)
IO_WORDS = 25

FLOW_SIGNATURE = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p,
                             ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)


class Flow:
    """The flowing blocks of one function, their components, and the text of the function
    (@RUN_FLOW) that runs them."""

    def __init__(self, function, runs, position: dict, branch_kind: int):
        self.function = function
        decoded = function.decoded
        self.body: dict[int, object] = {}  # flowing block -> its run (None: the block is only its branch)
        by_first = {run.pcs[0]: run for run in runs}
        for number, block in enumerate(decoded.blocks):
            first, terminator = function.block_first[number], block.end - 1
            if terminator < first or function.kinds[terminator] != branch_kind or \
                    decoded.ops[terminator].opcode != "br":
                continue
            op = decoded.ops[terminator]
            if op.args and not self._condition_ok(op.args[0]):
                continue
            if first == terminator:
                self.body[number] = None
                continue
            run = by_first.get(first)
            if run is not None and run.pcs[-1] == terminator - 1 and not run.atomic:
                self.body[number] = run
        self.edges: dict[tuple[int, int], list] = {}  # enterable edge -> per phi (slot, type, incoming)
        for block in self.body:
            for target in decoded.ops[decoded.blocks[block].end - 1].extra["targets"]:
                incoming = self._incoming(block, target)
                if incoming is not None:
                    self.edges[(block, target)] = incoming
        self.component = self._components()
        self.back_targets = sorted({target for (block, target) in self.edges if self._back(block, target)})
        wanted: dict[int, list[int]] = {}  # component -> the registers its code reaches
        for block, run in self.body.items():
            terminator = decoded.ops[decoded.blocks[block].end - 1]
            wanted.setdefault(self.component[block], []).extend(
                [*(run.slots if run is not None else ()), *(s for s in terminator.args if s not in function.constants)])
        for (block, _), phis in self.edges.items():
            wanted[self.component[block]].extend(
                [*(slot for slot, _, _ in phis), *(value for _, _, (kind, value) in phis if kind == "slot")])
        self.slots = {component: list(dict.fromkeys(slots)) for component, slots in wanted.items()}
        for slots in self.slots.values():
            for slot in slots:
                position.setdefault(slot, len(position))
        self.position = position
        self.places = {component: np.array([position[s] for s in slots], dtype=np.int64)
                       for component, slots in self.slots.items()}
        self.dtypes = {slot: DTYPES[llvm_type(function.slot_types[slot]) or "i64"]
                       for slots in self.slots.values() for slot in slots}
        # per pc of an access the runs make: what its records say besides the columns the code writes
        count = len(decoded.ops)
        self.kind_of, self.size_of = np.zeros(count, np.uint8), np.zeros(count, np.int32)
        self.op_of, self.sync_of = np.zeros(count, np.int32), np.zeros(count, np.uint8)
        for run in self.body.values():
            for index, pc in enumerate(run.pcs if run is not None else ()):
                if run.memory[index]:
                    self.kind_of[pc], self.size_of[pc] = run.kinds[index], run.sizes[index]
                    self.op_of[pc], self.sync_of[pc] = run.op_ids[index], run.syncs[index]
        self.taken = np.zeros(count, dtype=np.uint8)  # per branch: the targets a call took (bit per target)
        self.trips = np.zeros(3 * len(decoded.blocks), dtype=np.int64)  # per loop header: trip taken, writes, reads
        self.entry = None
        self.table = None

    # -- what flows

    def _condition_ok(self, slot: int) -> bool:
        constant = self.function.constants.get(slot)
        if constant is not None:
            return np.isscalar(constant) or isinstance(constant, np.ndarray) and constant.ndim == 0
        return llvm_type(self.function.slot_types[slot]) == "i1"

    def _incoming(self, block: int, target: int):
        """Per phi of `target`, (slot, LLVM type, ("slot", register) | ("literal", text))
        for the edge from `block`; None when the edge is not native."""
        function = self.function
        if target not in self.body:
            return None
        found = []
        for phi in function.phis[target]:
            ty = llvm_type(phi.ty)
            if ty is None:
                return None
            op = function.decoded.ops[phi.pc]
            sources = [slot for source, slot in zip(op.extra["blocks"], op.args) if source == block]
            if not sources:
                found.append((phi.slot, ty, ("literal", literal(0, ty))))
                continue
            slot = sources[0]
            constant = function.constants.get(slot)
            if constant is not None:
                if not (np.isscalar(constant) or isinstance(constant, np.ndarray) and constant.ndim == 0):
                    return None
                found.append((phi.slot, ty, ("literal", literal(constant, ty))))
            elif llvm_type(function.slot_types[slot]) == ty:
                found.append((phi.slot, ty, ("slot", slot)))
            else:
                return None
        return found

    def _back(self, block: int, target: int) -> bool:
        """Whether the edge goes back (the scheduler's test in `enter`)."""
        rank, first = self.function.rank, self.function.block_first
        return rank[first[target]] <= rank[first[block]]

    def _components(self) -> dict[int, int]:
        parent = {block: block for block in self.body}

        def root(block):
            while parent[block] != block:
                parent[block] = parent[parent[block]]
                block = parent[block]
            return block

        for block, target in self.edges:
            parent[root(block)] = root(target)
        return {block: root(block) for block in self.body}

    def entry_block(self, run) -> int | None:
        """The flowing block whose run `run` is (a call may start anywhere in it), or None."""
        block = self.function.op_block[run.pcs[0]]
        return block if self.body.get(block) is run else None

    # -- the function text

    def ir(self) -> str:
        w = self.w = Writer()
        w.lines.append("define i64 @RUN_FLOW(i64 %block, i64 %start, i64 %n, ptr noalias %rows, ptr noalias %regs, "
                       "ptr %ctx, ptr noalias %io) {")
        w.label("entry")
        self.io = {}
        for word in range(IO_WORDS):
            self.io[word] = w(f"getelementptr i64, ptr %io, i64 {word}")
        self.inputs = {word: w(f"load i64, ptr {self.io[word]}") for word in range(IO_STEPS)}
        self.pointer = {word: w(f"inttoptr i64 {self.inputs[word]} to ptr")
                        for word in (IO_LOG, IO_VISITS, IO_TAKEN, IO_TRIPS)}
        self.state = {}
        for name in ("steps", "records", "logged", "writes", "reads", "edges", "from", "pc"):
            self.state[name] = w("alloca i64")
            w.do(f"store i64 0, ptr {self.state[name]}")
        w.do(f"store i64 %start, ptr {self.state['from']}")
        for target in self.back_targets:  # no trip round any loop yet in this call
            cell = w(f"getelementptr i64, ptr {self.pointer[IO_TRIPS]}, i64 {3 * target}")
            w.do(f"store i64 0, ptr {cell}")
            cell = w(f"getelementptr i64, ptr {self.pointer[IO_TRIPS]}, i64 {3 * target + 1}")
            w.do(f"store i64 0, ptr {cell}")
        cases = " ".join(f"i64 {block}, label %B{block}" for block in self.body)
        w.do(f"switch i64 %block, label %out [ {cases} ]")
        for block in self.body:
            self._block(block)
        w.label("out")
        for name, word in (("steps", IO_STEPS), ("records", IO_RECORDS), ("logged", IO_LOGGED), ("pc", IO_PC),
                           ("writes", IO_WRITES), ("reads", IO_READS), ("edges", IO_EDGES)):
            w.do(f"store i64 {w(f'load i64, ptr {self.state[name]}')}, ptr {self.io[word]}")
        w.do("ret i64 0")
        w.lines.append("}")
        return "\n".join(w.lines)

    def _leave(self, pc) -> None:
        """Return to the scheduler at `pc` (nothing of that instruction done)."""
        self.w.do(f"store i64 {pc}, ptr {self.state['pc']}")
        self.w.do("br label %out")

    def _add(self, name: str, amount: str) -> str:
        w = self.w
        total = w(f"add i64 {w(f'load i64, ptr {self.state[name]}')}, {amount}")
        w.do(f"store i64 {total}, ptr {self.state[name]}")
        return total

    def _block(self, block: int) -> None:
        w, function = self.w, self.function
        run = self.body[block]
        first = function.block_first[block]
        terminator = function.decoded.blocks[block].end - 1
        w.label(f"B{block}")
        if run is not None:
            self._run(block, run, first)
        else:
            w.do(f"br label %B{block}.branch")
        w.label(f"B{block}.branch")
        steps = w(f"load i64, ptr {self.state['steps']}")
        over = w(f"icmp sge i64 {steps}, {self.inputs[IO_BUDGET]}")
        w.do(f"br i1 {over}, label %B{block}.full, label %B{block}.choose")
        w.label(f"B{block}.full")
        self._leave(terminator)
        w.label(f"B{block}.choose")
        op = function.decoded.ops[terminator]
        targets = op.extra["targets"]
        if not op.args:
            w.do(f"br label %E{block}.0")
        else:
            constant = function.constants.get(op.args[0])
            if constant is not None:
                w.do(f"br label %E{block}.{0 if int(constant) & 1 else 1}")
            else:
                count = self._count_true(op.args[0], f"B{block}.c")
                everyone = w(f"icmp eq i64 {count}, %n")
                none = w(f"icmp eq i64 {count}, 0")
                w.do(f"br i1 {everyone}, label %E{block}.0, label %B{block}.some")
                w.label(f"B{block}.some")
                w.do(f"br i1 {none}, label %E{block}.1, label %B{block}.split")
                w.label(f"B{block}.split")
                self._leave(terminator)
        for number, target in enumerate(targets[:2] if op.args else targets[:1]):
            w.label(f"E{block}.{number}")
            self._edge(block, target, terminator, number, f"E{block}.{number}")

    def _run(self, block: int, run, first: int) -> None:
        """The block's run from `from`, when the budget and the trace's room allow it whole."""
        w = self.w
        count = len(run.pcs)
        accesses = [index for index in range(count) if run.memory[index]]
        start = w(f"load i64, ptr {self.state['from']}")
        steps = w(f"load i64, ptr {self.state['steps']}")
        left = w(f"sub i64 {count}, {start}")
        room = w(f"sub i64 {self.inputs[IO_BUDGET]}, {steps}")
        fits = w(f"icmp sle i64 {left}, {room}")
        here = w(f"add i64 {start}, {first}")
        label = f"B{block}.r"
        if accesses:
            taken = "0"  # accesses from `start`
            for index in accesses:
                counted = w(f"icmp sle i64 {start}, {index}")
                taken = w(f"add i64 {taken}, {w(f'zext i1 {counted} to i64')}")
            records = w(f"mul i64 {taken}, %n")
            recorded = w(f"load i64, ptr {self.state['records']}")
            total = w(f"add i64 {recorded}, {records}")
            logged = w(f"load i64, ptr {self.state['logged']}")
            entries = w(f"add i64 {logged}, {taken}")
            logging = w(f"icmp ne i64 {self.inputs[IO_LOGGING]}, 0")
            room_ok = w(f"and i1 {w(f'icmp sle i64 {total}, {self.inputs[IO_ROOM]}')}, "
                        f"{w(f'icmp sle i64 {entries}, {self.inputs[IO_LOG_ROOM]}')}")
            unlogged = w(f"xor i1 {logging}, true")
            fits = w(f"and i1 {fits}, {w(f'or i1 {unlogged}, {room_ok}')}")
        w.do(f"br i1 {fits}, label %{label}.go, label %{label}.no")
        w.label(f"{label}.no")
        self._leave(here)
        w.label(f"{label}.go")
        if accesses:  # the columns' addresses: this run's first access from `start` lands at `records`
            w.do(f"br i1 {logging}, label %{label}.cols, label %{label}.call")
            w.label(f"{label}.cols")
            ordinal = w(f"sub i64 {len(accesses)}, {taken}")
            shift = w(f"sub i64 {recorded}, {w(f'mul i64 {ordinal}, %n')}")
            for number, (word, size) in enumerate(COLUMN_PLACES):
                base = self.inputs[IO_COLUMNS + number]
                address = w(f"add i64 {base}, {w(f'mul i64 {shift}, {size}')}")
                cell = w(f"getelementptr i64, ptr %ctx, i64 {word}")
                w.do(f"store i64 {address}, ptr {cell}")
        w.do(f"br label %{label}.call")
        w.label(f"{label}.call")
        reached = w(f"call i64 @RUN_{run.pcs[0]}(i64 {start}, i64 {count}, i64 %n, ptr %rows, ptr %regs, ptr %ctx)")
        for index in accesses:
            done = w(f"and i1 {w(f'icmp sle i64 {start}, {index}')}, {w(f'icmp sgt i64 {reached}, {index}')}")
            w.do(f"br i1 {done}, label %{label}.a{index}, label %{label}.a{index}.x")
            w.label(f"{label}.a{index}")
            self._add("writes" if run.kinds[index] != READ else "reads", "1")
            w.do(f"br i1 {logging}, label %{label}.a{index}.log, label %{label}.a{index}.x")
            w.label(f"{label}.a{index}.log")
            at = w(f"load i64, ptr {self.state['logged']}")
            cell = w(f"getelementptr i64, ptr {self.pointer[IO_LOG]}, i64 {w(f'mul i64 {at}, 2')}")
            w.do(f"store i64 {first + index}, ptr {cell}")
            step = w(f"add i64 {steps}, {w(f'sub i64 {index}, {start}')}")
            cell = w(f"getelementptr i64, ptr {cell}, i64 1")
            w.do(f"store i64 {step}, ptr {cell}")
            self._add("logged", "1")
            self._add("records", "%n")
            w.do(f"br label %{label}.a{index}.x")
            w.label(f"{label}.a{index}.x")
        self._add("steps", w(f"sub i64 {reached}, {start}"))
        short = w(f"icmp slt i64 {reached}, {count}")
        w.do(f"br i1 {short}, label %{label}.short, label %B{block}.branch")
        w.label(f"{label}.short")
        self._leave(w(f"add i64 {reached}, {first}"))

    def _edge(self, block: int, target: int, terminator: int, number: int, label: str) -> None:
        """Take the edge to `target` when the scheduler would run the group there next."""
        w, function = self.w, self.function
        phis = self.edges.get((block, target))
        if phis is None:
            self._leave(terminator)
            return
        first = function.block_first[target]
        soon = w(f"icmp sle i64 {function.rank[first]}, {self.inputs[IO_BOUND]}")
        w.do(f"br i1 {soon}, label %{label}.soon, label %{label}.late")
        w.label(f"{label}.late")
        self._leave(terminator)
        w.label(f"{label}.soon")
        if self._back(block, target):
            changed = self._any_changed(phis, f"{label}.d")
            cell = w(f"getelementptr i64, ptr {self.pointer[IO_TRIPS]}, i64 {3 * target + 1}")
            writes, last = w(f"load i64, ptr {self.state['writes']}"), w(f"load i64, ptr {cell}")
            stored = w(f"icmp sgt i64 {writes}, {last}")
            w.do(f"br i1 {w(f'or i1 {stored}, {changed}')}, label %{label}.on, label %{label}.same")
            w.label(f"{label}.same")
            self._leave(terminator)
            w.label(f"{label}.on")
            for offset, value in ((0, "1"), (1, w(f"load i64, ptr {self.state['writes']}")),
                                  (2, w(f"load i64, ptr {self.state['reads']}"))):
                cell = w(f"getelementptr i64, ptr {self.pointer[IO_TRIPS]}, i64 {3 * target + offset}")
                w.do(f"store i64 {value}, ptr {cell}")
        self._add("steps", "1")
        self._add("edges", "1")
        cell = w(f"getelementptr i64, ptr {self.pointer[IO_VISITS]}, i64 {target}")
        visits = w(f"load i64, ptr {cell}")
        w.do(f"store i64 {w(f'add i64 {visits}, 1')}, ptr {cell}")
        cell = w(f"getelementptr i8, ptr {self.pointer[IO_TAKEN]}, i64 {terminator}")
        taken = w(f"load i8, ptr {cell}")
        w.do(f"store i8 {w(f'or i8 {taken}, {1 << number}')}, ptr {cell}")
        if phis:
            self._write_phis(phis, f"{label}.p")
        w.do(f"store i64 0, ptr {self.state['from']}")
        w.do(f"br label %B{target}")

    # -- loops over the group's rows

    def _rows(self, label: str, carried: str | None = None):
        """Open a loop over the rows (with an i64 `carried` from 0); returns (row, carried)."""
        w = self.w
        w.do(f"br label %{label}.pre")
        w.label(f"{label}.pre")
        w.do(f"br label %{label}.head")
        w.label(f"{label}.head")
        i = f"%{label}.i"
        w.lines.append(f"  {i} = phi i64 [ 0, %{label}.pre ], [ %{label}.next, %{label}.body.end ]")
        value = None
        if carried is not None:
            value = f"%{label}.v"
            w.lines.append(f"  {value} = phi i64 [ 0, %{label}.pre ], [ %{label}.v.next, %{label}.body.end ]")
        w.do(f"br i1 {w(f'icmp slt i64 {i}, %n')}, label %{label}.body, label %{label}.exit")
        w.label(f"{label}.body")
        row = w(f"load i64, ptr {w(f'getelementptr i64, ptr %rows, i64 {i}')}")
        return row, value

    def _close_rows(self, label: str, carried_next: str | None = None) -> None:
        w = self.w
        w.do(f"br label %{label}.body.end")
        w.label(f"{label}.body.end")
        if carried_next is not None:
            w.lines.append(f"  %{label}.v.next = add i64 {carried_next}, 0")
        w.lines.append(f"  %{label}.next = add i64 %{label}.i, 1")
        w.do(f"br label %{label}.head")
        w.label(f"{label}.exit")

    def _register(self, slot: int, row: str, ty: str):
        """(address, storage type) of register `slot` at `row`."""
        w = self.w
        stored = storage(ty)
        base = w(f"load ptr, ptr {w(f'getelementptr ptr, ptr %regs, i64 {self.position[slot]}')}")
        return w(f"getelementptr {stored}, ptr {base}, i64 {row}"), stored

    def _count_true(self, slot: int, label: str) -> str:
        """How many rows hold true in i1 register `slot`."""
        w = self.w
        row, count = self._rows(label, carried="count")
        cell, stored = self._register(slot, row, "i1")
        value = w(f"icmp ne i8 {w(f'load i8, ptr {cell}')}, 0")
        self._close_rows(label, w(f"add i64 {count}, {w(f'zext i1 {value} to i64')}"))
        return count

    def _incoming_value(self, incoming, ty: str, row: str) -> str:
        kind, value = incoming
        if kind == "literal":
            return value
        cell, stored = self._register(value, row, ty)
        loaded = self.w(f"load {stored}, ptr {cell}")
        return self.w(f"trunc i8 {loaded} to i1") if ty == "i1" else loaded

    def _any_changed(self, phis, label: str) -> str:
        """Whether some row's phi would change (the scheduler's `_unchanged`, NumPy's ==)."""
        w = self.w
        row, seen = self._rows(label, carried="changed")
        differ = "false"
        for slot, ty, incoming in phis:
            new = self._incoming_value(incoming, ty, row)
            cell, stored = self._register(slot, row, ty)
            old = w(f"load {stored}, ptr {cell}")
            old = w(f"trunc i8 {old} to i1") if ty == "i1" else old
            test = w(f"fcmp une {ty} {old}, {new}") if ty in ("float", "double") else w(f"icmp ne {ty} {old}, {new}")
            differ = w(f"or i1 {differ}, {test}")
        self._close_rows(label, w(f"or i64 {seen}, {w(f'zext i1 {differ} to i64')}"))
        return w(f"icmp ne i64 {seen}, 0")

    def _write_phis(self, phis, label: str) -> None:
        """Each row's phis take their values for the edge, all read before any is written."""
        w = self.w
        row, _ = self._rows(label)
        values = [self._incoming_value(incoming, ty, row) for _, ty, incoming in phis]
        for (slot, ty, _), value in zip(phis, values):
            cell, stored = self._register(slot, row, ty)
            w.do(f"store {stored} {w(f'zext i1 {value} to i8') if ty == 'i1' else value}, ptr {cell}")
        self._close_rows(label)
