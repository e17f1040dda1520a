"""What a proof says, as plain data: its verdict, the races the solver found (with their
accesses' places) and the assumptions, and what was fixed of the launches it covers.
Nothing here speaks to the solver, so a proof kept by prover.cache is read, reported and
taken by a check without importing z3.

May import: nothing of simulee (it is the prover's vocabulary).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import z3

INTERNAL_ERROR = "internal error in the prover"


@dataclass
class Access:
    """One access of a thread's walk (model.Walker): its kind, base object and space, byte
    offset, size and path condition as the solver's terms (None in a proof kept by the
    cache), and where it is in the source."""

    kind: str  # read, write, atomic (a read-modify-write)
    base: tuple | None
    space: str  # global, shared (None base: any)
    offset: z3.BitVecRef
    size: z3.BitVecRef
    condition: z3.BoolRef
    pc: int
    line: int | None
    file: str = ""
    function: str = ""  # the function called through a pointer it is in (its pc is that function's); "" the kernel's
    scope: int = 0  # an atomic's scope (interpreter.vocabulary BLOCK_SCOPE, DEVICE_SCOPE, SYSTEM_SCOPE), 0 a plain
    # access's (an atomic load is a read of a scope, an atomic store a write of one)


@dataclass(frozen=True)
class End:
    """Where a thread's path from a barrier goes next: a barrier (its line) or the kernel's end."""

    kind: str  # barrier, exit
    line: int | None = None


@dataclass
class Candidate:
    """Two threads the solver found: what they do, and the launch they do it in."""

    kind: str  # data-race, scoped-race (two atomics of different blocks, one of block scope), barrier-divergence
    first: object  # Access, or the end ("exit" / a barrier pc) thread 1 reaches
    second: object
    scope: str  # same block, different blocks
    grid: tuple
    block: tuple
    threads: tuple  # ((block, thread), (block, thread)), each (x, y, z)
    args: dict  # parameter index -> value (integers)
    confirmed: bool | None = None  # the interpreter's run of the launch shows it (verdict.confirm)
    why: str = ""  # why it is only possible

    def lines(self) -> tuple:
        return tuple(getattr(x, "line", None) for x in (self.first, self.second))


@dataclass
class Proof:
    kernel: str
    file: str
    line: int
    verdict: str  # proved, race, unknown
    reason: str = ""
    candidates: list[Candidate] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    seconds: float = 0.0
    params: tuple[str, ...] = ()  # the kernel's parameter names, by position
    spent: bool = False  # unknown because a question ran out of time or effort (more of them might decide it)
    ordering: list[str] = field(default_factory=list)  # what orders through memory, which the model does not follow


@dataclass
class Fixed:
    """What is fixed of every launch: grid, block (3-tuples), integer arguments by name, the
    launch sites the host code launches the kernel at (evolve.launchsite.Site), and the
    ranges ((low, high), both included) and choices of values a simulee.toml states of
    integer arguments, and its relations (those sites.relation_facts follows)."""

    grid: tuple | None = None
    block: tuple | None = None
    args: dict = field(default_factory=dict)
    sites: tuple = ()
    ranges: dict = field(default_factory=dict)
    choices: dict = field(default_factory=dict)
    relations: tuple = ()  # simulee.checker.config.Expression
    launches: tuple = ()  # exact launches given ((grid, block, args) each): the launch is one of them


def describe(candidate: Candidate) -> str:
    """The launch and the two threads of `candidate`, as reports say them."""
    axes = lambda t: "(" + ", ".join(str(v) for v in t) + ")"  # noqa: E731
    (b1, t1), (b2, t2) = candidate.threads
    return (f"grid {axes(candidate.grid)}, block {axes(candidate.block)}: thread {axes(t1)} of block {axes(b1)} "
            f"and thread {axes(t2)} of block {axes(b2)}")

