"""What the interpreter could not do safely becomes findings: faulting accesses
(out-of-bounds, misaligned, null), division by zero, traps, failed asserts, runaway loops,
and warp collectives whose masks name lanes that never joined."""

from __future__ import annotations

import numpy as np

from interpreter.launch import Result
from simulee.findings import ERROR, WARNING, Finding, launch_of, place
from simulee.frontend import user_location


def find_faults(result: Result) -> list[Finding]:
    ops = result.trace.ops
    launch = launch_of(result)
    findings = []
    by_site: dict[tuple, list] = {}
    for fault in result.events.faults:  # one finding per kind and source line (an index and its access)
        location = user_location(ops[fault.op].location) if 0 <= fault.op < len(ops) else None
        site = (location.file, location.line) if location else fault.op
        by_site.setdefault((fault.kind, site), []).append(fault)
    for (kind, _), faults in by_site.items():
        op = faults[0].op
        threads = len(np.unique(np.concatenate([f.blocks.astype(np.int64) << 32 | f.threads for f in faults])))
        first = place(ops, op, ops[op].opcode if 0 <= op < len(ops) else "", result, int(faults[0].blocks[0]),
                      int(faults[0].threads[0]))
        message = f"{kind.replace('-', ' ')} in {threads} thread{'s' if threads > 1 else ''}"
        findings.append(Finding(kind, ERROR, result.kernel, message, first, launch=launch, instances=threads))
    for assertion in result.events.assertions:
        if assertion.kind != "assert":
            continue
        first = place(ops, assertion.op, "assert", result, int(assertion.blocks[0]), int(assertion.threads[0]))
        count = len(assertion.threads)
        findings.append(Finding("assertion", ERROR, result.kernel,
                                f"assertion failed in {count} thread{'s' if count > 1 else ''}: {assertion.message}",
                                first, launch=launch, instances=count))
    for event in result.events.warp_masks:
        first = place(ops, event.op, "collective", result, event.block, None)
        findings.append(Finding("warp-mask", WARNING, result.kernel,
                                f"warp {event.warp}: mask {event.mask:#010x} names lanes that never took part "
                                f"(present {event.arrived:#010x})", first, launch=launch))
    if result.status == "step-limit":
        first = place(ops, result.events.looping_op, "loop") if result.events.looping_op >= 0 else None
        findings.append(Finding("step-limit", ERROR, result.kernel, f"{result.message} here (an infinite loop?)",
                                first, launch=launch))
    return findings


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
