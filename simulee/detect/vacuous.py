"""Vacuous checks: a kernel none of whose checked launches accessed global or shared memory
(every access guarded off: a size of zero, a struct of zeros) and which showed no bug was
not really checked: its launches or arguments are not the ones its code is used with.
Said as a warning, never a silent `ok`."""

from __future__ import annotations

from interpreter.loader import KernelInfo
from simulee.detect.base import Detector, KernelRuns, Rule
from simulee.model.findings import WARNING, Finding, Place

VACUOUS = "vacuous-check"


class Vacuous(Detector):
    name = VACUOUS
    rules = (Rule(VACUOUS, WARNING, "No launch checked accessed global or shared memory: nothing was checked"),)

    def keep(self, run, runs: KernelRuns) -> None:
        runs.state[self.name] = runs.state.get(self.name, False) or len(run.model) > 0

    def absorb(self, runs: KernelRuns, staged: KernelRuns) -> None:
        runs.state[self.name] = runs.state.get(self.name, False) or staged.state.get(self.name, False)

    def kernel(self, runs: KernelRuns) -> list[Finding]:
        if runs.status != "ok":
            return []
        return find_vacuous(runs.kernel, runs.launches, runs.state.get(self.name, False), runs.found,
                            runs.out_of_time, runs.notes)


def find_vacuous(kernel: KernelInfo, launches: list[dict], accessed: bool, found: int,
                 out_of_time: bool = False, notes: list[str] = ()) -> list[Finding]:
    """The warning for `kernel` when its check found nothing (`found` findings: none) and
    none of the launches checked (`launches`, as launch_of gives them) `accessed` global or
    shared memory (without a fault): it names the first of the check's `notes` (why some
    launches were not checked) when there is one. When time ran out before any launch was
    checked (`out_of_time`), a time-limit warning says so instead. (A check no launch of
    which could run is `not-checked`: its status says why.)"""
    if found or accessed:
        return []
    where = Place("kernel", kernel.file, kernel.line, 0)
    if not launches and out_of_time:
        return [Finding("time-limit", WARNING, kernel.name, "not checked: time ran out before a launch was checked "
                        "(--max-seconds, or a scan's --kernel-timeout)", where)]
    if not launches:
        return []
    because = f" ({notes[0]})" if notes else ""
    which = f"none of the {len(launches)} launches checked accessed" if len(launches) > 1 else \
        "the launch checked accessed no"
    message = (f"vacuous check: {which} global or shared memory, so nothing "
               f"was checked{because}; give the launch and arguments the kernel is used with (--launch, --arg)")
    return [Finding(VACUOUS, WARNING, kernel.name, message, where, launch=launches[0])]
