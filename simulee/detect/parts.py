"""A launch detected in parts, so that every access of a launch of any size is checked in
bounded memory.

The interpreter hands over the trace of whole blocks as its waves end and forgets it
(interpreter Launch.flush); a wave whose blocks alone make more accesses than a part holds
is cut inside, at a barrier that leaves no block's barrier epoch on both sides
(Events.cuts), and an epoch that alone passes Launch.split_at inside it (Events.open).
Every detector judges each part as the launch it is a piece of: what the threads of one
block do among themselves within an epoch not split (races in shared memory and within a
block, bank conflicts) lies whole in one part; what carries across is left for the next
part (the shared bytes written before, for uninitialized reads; per word and instruction of
a split epoch, its accesses of the lowest and highest warp, and of each warp its lowest and
highest lane, with the epoch's warp collectives, for races between warps and lanes) or not
judged (no barrier of a launch cut inside its blocks is judged redundant; races across a
split epoch with fences, flags or atomics, noted). What
blocks of different parts do to each other (races between blocks in global memory) each
detector judges at the end from what it left of every part (Detector.leave, .across), in
memory that grows with the bytes the launch touches rather than with its accesses.

The same bug may show in several parts: its findings are merged by key (`merge`), the
worst instance showing it (two blocks of different parts storing different values make a
race no part alone showed as more than benign).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools

from simulee.detect.base import Detector, KernelRuns, LaunchRun, OutOfTime
from simulee.detect.race import WARP_SYNCHRONOUS
from simulee.model.findings import Finding


class PartedLaunch:
    """The detection of one launch, fed part by part (`part`, the Launch.flush callback)
    and ended by its last part (`finish`). What the detectors keep of each part for the
    kernel's judgment (Detector.keep) is staged, and goes to a check's KernelRuns with
    `keep` once the check knows the launch counts."""

    def __init__(self, program, kernel, detectors: tuple[Detector, ...], warp_model: str = "independent",
                 each=None):
        self.program, self.kernel, self.detectors, self.warp_model = program, kernel, detectors, warp_model
        self.each = each  # each(part Result) is called with every part, the last one included
        self.staged = KernelRuns(program, kernel, warp_model)
        self.findings: list[Finding] = []
        self.summary: dict = {}
        self.parts = 0
        self.out_of_time = False

    def part(self, result) -> None:
        """Judge one part (a Result of whole blocks). Past the deadline of detect.base.within,
        the parts after are not judged: `finish` raises OutOfTime."""
        if self.out_of_time:
            return
        try:
            self._judge(result)
        except OutOfTime:
            self.out_of_time = True
        _release_freed()  # a launch judged in parts only: one part alone frees little

    def finish(self, result) -> list[Finding]:
        """Every finding of the launch, given its last part (the launch's Result): each
        part's, then those only blocks of different parts together show."""
        if self.out_of_time:
            raise OutOfTime
        self._judge(result)
        if self.parts > 1:
            run = LaunchRun(self.program, self.kernel, result, self.warp_model)
            for detector in self.detectors:
                self.findings += detector.across(run, self.summary)
            del run
            _release_freed()
        found: dict[tuple, Finding] = {}
        for finding in self.findings:
            merge(found, finding)
        return list(found.values())

    def keep(self, runs: KernelRuns) -> None:
        """Give `runs` what the detectors kept of every part, as of one launch."""
        for detector in self.detectors:
            detector.absorb(runs, self.staged)

    @property
    def notes(self) -> list[str]:
        """What the detectors could not judge across parts, and why."""
        return self.summary.get("notes", [])

    def _judge(self, result) -> None:
        run = LaunchRun(self.program, self.kernel, result, self.warp_model, self.summary)
        if self.each is not None:
            self.each(result)
        for detector in self.detectors:
            self.findings += detector.launch(run)
        for detector in self.detectors:
            detector.keep(run, self.staged)
        for detector in self.detectors:
            detector.leave(run, self.summary)
        self.parts += 1


def merge(found: dict[tuple, Finding], finding: Finding, rather: bool = False) -> bool:
    """The same finding from another launch (or part) adds its instances. The first witness
    stays, unless the new one shows it worse (a data race where the first showed a
    warp-synchronous one, or not benign where the first was), or as bad and `rather` (on
    a launch with fewer guesses): then the new launch (its witness, type, severity and
    message) shows it. Whether the new one shows it."""
    key = finding.key()
    existing = found.get(key)
    if existing is None:
        found[key] = finding
        return True
    finding.instances += existing.instances
    finding.addresses = max(existing.addresses, finding.addresses)
    if gravity(finding) < gravity(existing) or (gravity(finding) == gravity(existing) and not rather):
        existing.instances, existing.addresses = finding.instances, finding.addresses
        return False
    found[key] = finding
    return True


def gravity(finding: Finding) -> tuple[bool, bool]:
    """How bad a finding shows its bug: a race in lockstep warps too, then not benign."""
    return finding.type != WARP_SYNCHRONOUS, finding.benign is False


def _release_freed() -> None:
    """Give the memory a part's judgment freed back to the system (glibc keeps freed arrays
    under its mmap threshold, up to 32 MB each, in the heap: hundreds of MB after a part)."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim():
    """glibc's malloc_trim, or None where the C library has none."""
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None
