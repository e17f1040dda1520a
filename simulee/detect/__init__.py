"""Detectors: each turns what a launch did (its memory-access model or the interpreter's
events) into findings of its own rules (detect.base.Detector). None of them touches the
interpreter. DETECTORS is the one list `check`, `run` and the report writers iterate:
adding a bug class is adding its file and one line here. `parts` runs them over a launch
the interpreter hands over a few blocks at a time.

May import: simulee.errors, simulee.model, simulee.frontend, interpreter.
"""

from __future__ import annotations

from simulee.detect.bank_conflicts import BankConflicts
from simulee.detect.base import Detector, Rule
from simulee.detect.divergence import Divergence
from simulee.detect.faults import Faults
from simulee.detect.race import Races
from simulee.detect.redundant import RedundantBarriers
from simulee.detect.streams import StreamRaces
from simulee.detect.uninitialized import UninitializedShared
from simulee.detect.vacuous import Vacuous

DETECTORS: tuple[Detector, ...] = (
    Races(),
    Divergence(),
    Faults(),
    UninitializedShared(),
    BankConflicts(),
    RedundantBarriers(),
    StreamRaces(),  # between the launches of a whole program (simulee exec)
    Vacuous(),  # last: it speaks only when nothing else did
)


def enabled(asked: tuple[str, ...] = ()) -> tuple[Detector, ...]:
    """The detectors that run: the default ones, plus those named in `asked` ("all": every one)."""
    return tuple(d for d in DETECTORS if d.default or d.name in asked or "all" in asked)


def rules() -> dict[str, Rule]:
    """Every rule any detector reports, by id."""
    return {rule.id: rule for detector in DETECTORS for rule in detector.rules}


def columns() -> tuple[str, ...]:
    """The CSV columns the detectors add (from Finding.details)."""
    return tuple(column for detector in DETECTORS for column in detector.columns)


def names() -> tuple[str, ...]:
    return tuple(detector.name for detector in DETECTORS)
