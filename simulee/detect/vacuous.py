"""Vacuous checks: a kernel none of whose checked launches accessed global or shared memory
(every access guarded off: a size of zero, a struct of zeros) and which showed no bug was
not really checked: its launches or arguments are not the ones its code is used with.
Said as a warning, never a silent `ok`."""

from __future__ import annotations

from interpreter.launch import Result
from interpreter.loader import KernelInfo
from simulee.findings import WARNING, Finding, Place, launch_of
from simulee.model import MemoryAccessModel

VACUOUS = "vacuous-check"


def find_vacuous(kernel: KernelInfo, explored: list[tuple[Result, MemoryAccessModel]], found: int) -> list[Finding]:
    """The warning for `kernel` when none of the launches checked (`explored`: each with
    its model, which holds every global and shared access that did not fault) touched
    memory and the `found` findings of its check are none."""
    if not explored or found or any(len(model) for _, model in explored):
        return []
    launches = len(explored)
    message = (f"vacuous check: {'no launch' if launches > 1 else 'the launch'} checked "
               f"({launches} launch{'es' if launches > 1 else ''}) accessed global or shared memory, so nothing "
               "was checked; give the launch and arguments the kernel is used with (--launch, --arg)")
    return [Finding(VACUOUS, WARNING, kernel.name, message, Place("kernel", kernel.file, kernel.line, 0),
                    launch=launch_of(explored[0][0]))]
