"""What the interpreter could not do safely becomes findings: faulting accesses
(out-of-bounds, misaligned, null), division by zero, traps, failed asserts, runaway loops,
and warp collectives whose masks name lanes that never joined."""

from __future__ import annotations

import numpy as np

from interpreter import trace
from interpreter.launch import CUT_OFF_MESSAGE, Result
from interpreter.memory import split
from simulee.detect.base import Detector, LaunchRun, Rule
from simulee.model.findings import ERROR, WARNING, Finding, launch_of, place
from simulee.frontend.compiler import user_location

STOPS = ("step-limit", "time-limit", "infinite-loop", "deadlock")


class Faults(Detector):
    """What a thread did that a GPU would not let it (a fault, a failed assert, a warp
    collective's bad mask) and launches that did not run to their end."""

    name = "faults"
    needs_trace = False
    rules = (
        Rule(trace.OUT_OF_BOUNDS, ERROR, "An access outside its buffer"),
        Rule(trace.MISALIGNED, ERROR, "An access at an address not aligned to its size"),
        Rule(trace.NULL_POINTER, ERROR, "An access through a null pointer"),
        Rule(trace.CONSTANT_WRITE, ERROR, "A write to __constant__ memory"),
        Rule(trace.BAD_ADDRESS, ERROR, "An access at an address no buffer, variable or stack holds"),
        Rule(trace.USE_AFTER_FREE, ERROR, "An access to device-heap memory already freed"),
        Rule(trace.DIVISION_BY_ZERO, ERROR, "An integer division or remainder by zero"),
        Rule(trace.TRAP, ERROR, "A thread executed a trap (__trap(), a failed device-side check)"),
        Rule(trace.REACHED_UNREACHABLE, ERROR, "A thread reached code its compiler marked unreachable"),
        Rule(trace.STACK_OVERFLOW, ERROR, "Recursion deeper than a thread's stack allows"),
        Rule(trace.BAD_FUNCTION_POINTER, ERROR, "A call through a pointer that holds no function"),
        Rule(trace.DOUBLE_FREE, ERROR, "free() of device-heap memory already freed"),
        Rule(trace.INVALID_FREE, ERROR, "free() of an address malloc() did not return"),
        Rule("assertion", ERROR, "A failed assert() in device code"),
        Rule("warp-mask", WARNING, "A warp collective whose mask names lanes that never took part"),
        Rule("shuffle-outside-mask", ERROR, "A shuffle reads a lane its mask leaves out (an undefined value)"),
        Rule("infinite-loop", ERROR, "A loop that provably never ends"),
        Rule("deadlock", ERROR, "Threads spin waiting for a value no thread can still write (a warning when "
                                "blocks that could write it are not resident with them)"),
        Rule("step-limit", WARNING, "The launch did not finish within the step limit (an infinite loop?)"),
        Rule("time-limit", WARNING, "The launch or the check ran out of time before it finished"),
        Rule("invalid-launch", WARNING, "The launch breaks an assumption the kernel states"),
    )

    def launch(self, run: LaunchRun) -> list[Finding]:
        return find_faults(run.result)


def find_faults(result: Result) -> list[Finding]:
    ops = result.trace.ops
    launch = launch_of(result)
    findings = []
    by_site: dict[tuple, list] = {}
    for fault in result.events.faults:  # one finding per kind and source line (an index and its access)
        if fault.kind == trace.BUFFER_LIMIT:
            continue  # the launch was too large for Simulee, not faulty (check notes it)
        location = user_location(ops[fault.op].location) if 0 <= fault.op < len(ops) else None
        site = (location.file, location.line) if location else fault.op
        by_site.setdefault((fault.kind, site), []).append(fault)
    for (kind, _), faults, lines in _through_one_pointer(by_site, ops):
        fault, lane, taint = _witness(faults)
        op = fault.op
        pairs = np.stack([np.concatenate([f.blocks for f in faults]).astype(np.int64),
                          np.concatenate([f.threads for f in faults]).astype(np.int64)])
        threads = np.unique(pairs, axis=1).shape[1]
        kept = pairs.shape[1]
        total = sum(result.events.fault_counts.get((kind, f), 0) for f in {f.op for f in faults})
        first = place(ops, op, ops[op].opcode if 0 <= op < len(ops) else "", result, int(fault.blocks[lane]),
                      int(fault.threads[lane]))
        count = f"{threads} thread{'s' if threads > 1 else ''}" if total <= kept else \
            f"at least {threads:,} threads ({total:,} faulting accesses)"
        message = f"{kind.replace('-', ' ')} in {count}" + (f": {fault.detail}" if fault.detail else "")
        if lines:
            message += f" (the same threads, through the same pointer, at line{'s' if len(lines) > 1 else ''} " \
                       f"{', '.join(map(str, lines))} too)"
        findings.append(Finding(kind, ERROR, result.kernel, message, first, launch=launch,
                                instances=max(threads, total),
                                ops=tuple(sorted({(ops[f.op].function, ops[f.op].index) for f in faults
                                                  if 0 <= f.op < len(ops)})), taint=taint))
    for assertion in result.events.assertions:
        if assertion.kind != "assert":
            continue
        _, lane, taint = _witness([assertion])
        first = place(ops, assertion.op, "assert", result, int(assertion.blocks[lane]), int(assertion.threads[lane]))
        count = len(assertion.threads)
        findings.append(Finding("assertion", ERROR, result.kernel,
                                f"assertion failed in {count} thread{'s' if count > 1 else ''}: {assertion.message}",
                                first, launch=launch, instances=count, taint=taint))
    for event in result.events.warp_masks:
        first = place(ops, event.op, "collective", result, event.block, None)
        if event.read_outside:
            findings.append(Finding("shuffle-outside-mask", ERROR, result.kernel,
                                    f"warp {event.warp}: a shuffle with mask {event.mask:#010x} reads lanes "
                                    f"{event.read_outside:#010x}, which the mask leaves out: the values it gets "
                                    f"are undefined", first, launch=launch, taint=event.taint))
            continue
        findings.append(Finding("warp-mask", WARNING, result.kernel,
                                f"warp {event.warp}: mask {event.mask:#010x} names lanes that never took part "
                                f"(present {event.arrived:#010x})", first, launch=launch, taint=event.taint))
    findings += stopped_early(result)
    return findings


def stopped_early(result: Result) -> list[Finding]:
    """A launch that did not run to its end: a loop that provably never ends (an error),
    or one still running when the step or time limit stopped the launch (a warning: it
    may be endless, or only longer than the limit); or a launch that ran out before its
    blocks did."""
    if result.status not in STOPS:
        return []
    events = result.events
    first = place(result.trace.ops, events.looping_op, "loop") if events.looping_op >= 0 else None
    if result.status == "infinite-loop":
        return [Finding(result.status, ERROR, result.kernel, f"endless loop: {result.message}", first,
                        launch=launch_of(result), taint=events.looping_taint)]
    if result.status == "deadlock":  # a potential one when blocks that did not run could end it
        severity = ERROR if result.blocks_run == result.blocks_total == result.launch.blocks else WARNING
        return [Finding(result.status, severity, result.kernel, result.message, first, launch=launch_of(result),
                        taint=events.looping_taint)]
    ended = result.message == CUT_OFF_MESSAGE  # its program ended while it ran (interpreter.launch.cut_off)
    stop = f"{result.message} of time" if result.status == "time-limit" and not ended else result.message
    if ended:
        hint = "what it did until then was checked"
    elif result.status == "time-limit":
        hint = "--max-seconds, or a scan's --kernel-timeout"
    elif "step limit" in result.message:
        hint = f"raise it with --step-limit {10 * result.step_limit}"
    else:
        hint = "a limit of the input search"
    ran = f"{result.blocks_run:,} of {result.blocks_total:,} blocks ran"
    if events.in_loop:
        endless = "; the loop may be endless or only longer than the limit" if result.status == "step-limit" else ""
        partly = f"; {ran}" if result.blocks_run < result.blocks_total else ""
        message = f"threads were still running this loop when the launch {stop}{endless} ({hint}){partly}"
    else:
        message = f"the launch {stop} before its blocks finished: {ran} ({hint})"
    return [Finding(result.status, WARNING, result.kernel, message, first, launch=launch_of(result))]


MEMORY = (trace.NULL_POINTER, trace.OUT_OF_BOUNDS, trace.MISALIGNED, trace.BAD_ADDRESS, trace.USE_AFTER_FREE)


def _through_one_pointer(by_site: dict, ops) -> list[tuple[tuple, list, list[int]]]:
    """((kind, site), faults, other lines) per finding: the memory faults of the same
    threads at one bad pointer's target (null, a freed or unknown region, past the end of
    one buffer) are one bug wherever they read it (a wild pointer read in a loop: one
    finding at its first line, naming the others); every other group as it is."""
    merged: dict[tuple, list] = {}
    for (kind, site), faults in by_site.items():
        key = (kind, site)
        if kind in MEMORY and all(f.addresses is not None for f in faults):
            space, region, _ = split(np.concatenate([f.addresses for f in faults]))
            targets = frozenset(zip(space.tolist(), region.tolist()))
            threads = frozenset(zip(np.concatenate([f.blocks for f in faults]).tolist(),
                                    np.concatenate([f.threads for f in faults]).tolist()))
            key = (kind, targets, threads)
        merged.setdefault(key, []).append(((kind, site), faults))
    found = []
    for groups in merged.values():
        groups.sort(key=lambda group: group[0][1] if isinstance(group[0][1], tuple) else ("", group[0][1]))
        head, faults = groups[0]
        lines = [site[1] for (_, site), _ in groups[1:] if isinstance(site, tuple)]
        found.append((head, [f for _, group in groups for f in group], sorted(set(lines))))
    return found


def _witness(events: list) -> tuple[object, int, int]:
    """(event, lane, taint) of the faulting lane a finding shows: one whose fault holds
    whatever Simulee invented if any (interpreter.taint), else the first."""
    for event in events:
        if event.taint is None:
            return event, 0, 0
        clean = np.flatnonzero(event.taint == 0)
        if len(clean):
            return event, int(clean[0]), 0
    return events[0], 0, int(events[0].taint[0])


def invalid_launch(result: Result) -> list[Finding]:
    """A launch that breaks the kernel's stated assumptions (__assume / __requires): its
    findings are not bugs of the kernel."""
    ops = result.trace.ops
    findings = []
    for assertion in result.events.assertions:
        if assertion.kind == "assume":
            first = place(ops, assertion.op, "assume", result, int(assertion.blocks[0]), int(assertion.threads[0]))
            findings.append(Finding("invalid-launch", WARNING, result.kernel,
                                    "the launch breaks this assumption of the kernel", first,
                                    launch=launch_of(result), instances=len(assertion.threads)))
    return findings
