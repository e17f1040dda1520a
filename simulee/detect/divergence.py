"""Barrier divergence: some threads of a block waited at a barrier while another live
thread of the block exited or waited at a different barrier (the interpreter records every
such barrier release). One finding per divergent barrier, with a thread that arrived and one
that did not, and where that thread went. When the threads of a block split between two
barriers, the one every thread of the block reaches in the end is where the others waited,
not where they diverged: it is reported only if no barrier of the split is divergent.

A block barrier that every thread of its block reaches but those that exited (a `return`
past the end of the data before a `__syncthreads()`) is a warning: the CUDA programming
guide leaves a barrier not every thread reaches undefined, while the GPUs Simulee targets
count exited threads as arrived, so the live threads neither hang nor meet the wrong
barrier. So is a block split by whole warps between two block barriers (a warp-specialized
double buffer whose halves each pass their own `__syncthreads()`): every one is the GPU's
barrier 0, which counts arriving warps, so they are released together, and what that leaves
is for the race detector to judge. A thread that waits at another barrier while a thread of
its own warp waits here, or a grid barrier with exited threads (a block whose exited thread
0 never signals the grid), is an error."""

from __future__ import annotations

import math

import numpy as np

from interpreter.launch import Result
from simulee.detect.base import Detector, LaunchRun, Rule
from simulee.model.findings import ERROR, WARNING, Finding, launch_of, place, where


WARP_SIZE = 32  # threads of a warp: a block's linear thread index // 32 is its warp


class Divergence(Detector):
    name = "barrier-divergence"
    needs_trace = False
    rules = (Rule("barrier-divergence", ERROR,
                  "A barrier is reached by some threads of a block but not by all live ones (a warning where the "
                  "others exited before a block barrier, or whole warps wait at another: undefined, though current "
                  "GPUs count exited threads as arrived and every __syncthreads() is one barrier)"),)

    def launch(self, run: LaunchRun) -> list[Finding]:
        return find_divergence(run.result)


def find_divergence(result: Result) -> list[Finding]:
    ops = result.trace.ops
    findings = []
    for op, events in divergent_barriers(result).items():
        event = events[0]
        missing_op = int(event.missing_ops[0]) if len(event.missing_ops) else -1
        exited = bool(event.missing_exited[0]) if len(event.missing_exited) else False
        arrived = place(ops, op, "barrier", result, event.block, int(event.arrived[0]))
        missing_block = int(event.missing_blocks[0]) if event.missing_blocks is not None else event.block
        missed = place(ops, missing_op, "exit" if exited else "barrier", result, missing_block,
                       int(event.missing[0])) if len(event.missing) else None
        if missed is None:
            fate = "did not arrive"
        elif missing_op < 0:
            fate = f"of block ({','.join(map(str, missed.block))}) did not arrive"
        else:
            fate = f"{'exited' if exited else 'waited at another barrier'} at {where(missed, arrived)}"
            if missing_block != event.block:
                fate = f"of block ({','.join(map(str, missed.block))}) {fate}"
        blocks = len({e.block for e in events})
        message = (f"barrier divergence: thread ({','.join(map(str, arrived.thread))}) of block "
                   f"({','.join(map(str, arrived.block))}) waits here but thread "
                   f"({','.join(map(str, missed.thread)) if missed else '?'}) {fate}"
                   f" ({blocks} block{'s' if blocks > 1 else ''})")
        after_exit = all(e.missing_blocks is None and len(e.missing) and np.all(e.missing_exited) for e in events)
        by_warps = not after_exit and all(_between_warps(e) for e in events)
        if after_exit:
            message += (": every live thread of the block reaches it, the others exited; the CUDA programming guide "
                        "leaves such a barrier undefined, current GPUs count exited threads as arrived (no hang); "
                        "keep the threads to the barrier and skip their work instead")
        elif by_warps:
            message += (": whole warps wait at each of the two barriers; every __syncthreads() is the GPU's barrier 0, "
                        "which counts the warps that arrive, so current GPUs release them together (the races that "
                        "leaves are checked as such); the CUDA programming guide leaves it undefined: use one barrier "
                        "both arms reach, or named barriers")
        findings.append(Finding("barrier-divergence", WARNING if after_exit or by_warps else ERROR, result.kernel,
                                message,
                                arrived, missed,
                                launch=launch_of(result), instances=len(events),
                                taint=0 if any(not e.taint for e in events) else event.taint))
    return findings


def _between_warps(event) -> bool:
    """Whether a divergent release split its block by whole warps between block barriers:
    every missing thread waits at another barrier (none exited, none of another block) and
    no warp has threads on both sides."""
    if event.missing_blocks is not None or not len(event.missing) or np.any(event.missing_exited):
        return False
    waiting = np.asarray(event.arrived) // WARP_SIZE
    return not np.intersect1d(waiting, np.asarray(event.missing) // WARP_SIZE).size


def divergent_barriers(result: Result) -> dict[int, list]:
    """The divergent barrier ops of a launch, each with its divergent releases."""
    by_barrier: dict[int, list] = {}
    for event in result.events.barrier_divergence:
        by_barrier.setdefault(event.op, []).append(event)
    divergent = {op: events for op, events in by_barrier.items() if not _reached_by_all(events, result)}
    return divergent or by_barrier


def _reached_by_all(events: list, result: Result) -> bool:
    """Whether, in every block where a block barrier's release was divergent, each thread of
    the block arrived at it in one of those releases."""
    if any(event.missing_blocks is not None for event in events):
        return False
    threads = math.prod(result.launch.block)
    arrived: dict[int, set] = {}
    for event in events:
        arrived.setdefault(event.block, set()).update(np.asarray(event.arrived).tolist())
    return all(len(ids) == threads for ids in arrived.values())
