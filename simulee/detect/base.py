"""The one interface every detector implements, and what it is given.

A detector reads what the interpreter recorded (a launch's Result: its trace and events,
and the memory-access model built from the trace) and returns findings of its own rules.
It never touches the interpreter, the search or the reports: `check` runs every enabled
detector on each launch it keeps (`launch`, then `keep` to record what it needs later),
then once over all of them (`kernel`). A launch too large to trace at once comes in parts
of whole blocks (detect.parts): each part is judged as a launch, and `leave` and `across`
judge what blocks of different parts do to each other. The
report writers take rule descriptions, SARIF levels and extra CSV columns from the
detectors' declarations. Detection that must end by a deadline (`simulee exec --timeout`)
runs `within(deadline)`; long detectors call `check_time()` between steps of their work,
which raises OutOfTime past it.
"""

from __future__ import annotations

import contextlib
import contextvars
import time
from dataclasses import dataclass, field
from functools import cached_property

from interpreter.launch import Result
from interpreter.loader import KernelInfo
from simulee.model.findings import Finding
from simulee.model.access import MemoryAccessModel, build_model


class OutOfTime(Exception):
    """Detection ran past the deadline it was given (`within`)."""


_DEADLINE = contextvars.ContextVar("detection_deadline", default=float("inf"))


@contextlib.contextmanager
def within(deadline: float | list):
    """Detection in this context stops at `deadline` (time.perf_counter()): check_time raises
    OutOfTime. A one-element list holds a deadline another thread may lower meanwhile."""
    token = _DEADLINE.set(deadline)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def check_time() -> None:
    """Raise OutOfTime when the deadline detection runs within has passed."""
    deadline = _DEADLINE.get()
    if time.perf_counter() > (deadline[0] if isinstance(deadline, list) else deadline):
        raise OutOfTime


@dataclass(frozen=True)
class Rule:
    """A kind of finding: its id (Finding.type), the severity its findings have unless they
    say otherwise (the SARIF default level) and what it means, in one line."""

    id: str
    severity: str
    description: str


@dataclass
class LaunchRun:
    """One launch a check keeps: the program, the kernel, what the launch did, and the warp
    model races are judged under. The memory-access model is built when first asked for."""

    program: object
    kernel: KernelInfo
    result: Result
    warp_model: str = "independent"
    earlier: dict | None = None  # of a launch judged in parts: what the parts before left (Detector.leave)

    @cached_property
    def model(self) -> MemoryAccessModel:
        return build_model(self.result)


@dataclass
class KernelRuns:
    """What a kernel's check leaves the detectors' kernel stage: the launches it kept
    (`launches`, as findings.launch_of gives them), what each detector recorded of them
    (`state`, by detector name: a launch is released once detectors had it), `found`
    findings so far, `status` (ok unless the interpreter could not go on), whether time ran
    out before every launch ran, and the barrier verdicts (BarrierVerdict) a detector
    judged over the launches, and the check's notes."""

    program: object
    kernel: KernelInfo
    warp_model: str = "independent"
    launches: list[dict] = field(default_factory=list)
    state: dict = field(default_factory=dict)
    found: int = 0
    status: str = "ok"
    out_of_time: bool = False
    verdicts: list = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the check says was not checked as asked, and why


class Detector:
    """A bug class. `rules` are the finding types it reports; `columns` the CSV columns its
    findings fill (from Finding.details); `needs_trace` is false for a detector that reads
    only the interpreter's events (it also runs for `simulee run`, which keeps no trace);
    `default` is false for one that runs only when asked (--detect)."""

    name = ""
    rules: tuple[Rule, ...] = ()
    columns: tuple[str, ...] = ()
    needs_trace = True
    default = True

    def launch(self, run: LaunchRun) -> list[Finding]:
        """The findings of one launch."""
        return []

    def keep(self, run: LaunchRun, runs: KernelRuns) -> None:
        """Record in runs.state what `kernel` needs of a launch the check keeps (after its
        own findings; the launch is released then)."""

    def absorb(self, runs: KernelRuns, staged: KernelRuns) -> None:
        """Take into `runs` what `keep` recorded in `staged` of the parts of one launch, once
        the check knows that launch counts (it may turn out to lie outside the kernel's
        contract only at its end)."""

    def kernel(self, runs: KernelRuns) -> list[Finding]:
        """The findings only all the launches together show (after every launch's own)."""
        return []

    def leave(self, run: LaunchRun, summary: dict) -> None:
        """Of one part of a launch run in parts (detect.parts: whole blocks), record in
        `summary` what `across` needs to judge what blocks of different parts do to each
        other, in memory that grows with the bytes the launch touches, not its accesses.
        What it cannot judge across parts it says in lines appended to summary["notes"]."""

    def across(self, run: LaunchRun, summary: dict) -> list[Finding]:
        """The findings only blocks of different parts together show, from what `leave` kept
        of every part (`run` is the last one)."""
        return []

    def again(self, run: LaunchRun, findings: list[Finding]) -> set[tuple]:
        """The keys of those of `findings` (this detector's, from another launch) of which
        `run` shows an instance again: the same threads at the same places (a finding that
        recurs when what Simulee invented changes holds whatever it is)."""
        return set()
