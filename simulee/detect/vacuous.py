"""Vacuous checks: a kernel none of whose checked launches accessed global or shared memory
(every access guarded off, or faulting on buffers too small for it) and which showed no other
bug was not really checked: its launches or arguments are not the ones its code is used
with (a size of zero, a struct of zeros). Said as a warning, never a silent `ok`."""

from __future__ import annotations

import numpy as np

from interpreter.launch import Result
from interpreter.loader import KernelInfo
from interpreter.memory import GLOBAL, SHARED
from simulee.findings import WARNING, Finding, Place, launch_of

VACUOUS = "vacuous-check"


def find_vacuous(kernel: KernelInfo, results: list[Result], found: int) -> list[Finding]:
    """The warning for `kernel` when none of `results` (the launches checked) touched
    global or shared memory and the `found` findings of its check are none."""
    if not results or found or any(touched_memory(result) for result in results):
        return []
    launches = len(results)
    message = (f"vacuous check: {'no launch' if launches > 1 else 'the launch'} checked "
               f"({launches} launch{'es' if launches > 1 else ''}) accessed global or shared memory, so nothing "
               "was checked; give the launch and arguments the kernel is used with (--launch, --arg)")
    return [Finding(VACUOUS, WARNING, kernel.name, message, Place("kernel", kernel.file, kernel.line, 0),
                    launch=launch_of(results[0]))]


def touched_memory(result: Result) -> bool:
    """Whether the launch made any access to global or shared memory that did not fault."""
    space = result.trace["space"]
    return bool(np.any((space == GLOBAL) | (space == SHARED)))
