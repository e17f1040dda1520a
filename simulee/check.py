"""Check one kernel on one or more launches: run each, build its memory-access model, let
every detector look at it, merge what they find across launches, and judge every barrier
over all the launches together."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from interpreter.launch import Launch, Result
from interpreter.loader import KernelInfo, Program
from interpreter.simt import execute
from simulee.detect.divergence import find_divergence
from simulee.detect.faults import find_faults, invalid_launch
from simulee.detect.race import find_races
from simulee.detect.redundant import BarrierVerdict, barrier_verdicts, redundant_findings
from simulee.findings import ERROR, Finding, display, launch_of
from simulee.model import build_model

DEFAULT_THREADS_PER_BLOCK = 64
DEFAULT_BLOCKS_PER_AXIS = 2


@dataclass
class KernelCheck:
    """What checking one kernel found. `status` is ok, unsupported (the interpreter met
    something it cannot execute: `error` names it) or error."""

    kernel: str
    symbol: str
    file: str
    line: int
    status: str = "ok"
    error: str = ""
    launches: list[dict] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    verdicts: list[BarrierVerdict] = field(default_factory=list)
    seconds: float = 0.0

    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == ERROR)

    def to_json(self) -> dict:
        return {"kernel": self.kernel, "file": display(self.file), "line": self.line, "status": self.status,
                "error": self.error or None, "launches": self.launches,
                "findings": [f.to_json() for f in self.findings],
                "barriers": [v.to_json() for v in self.verdicts]}


def default_launch(kernel: KernelInfo, args: dict | None = None, grid=None, block=None, **options) -> Launch:
    """A launch with defaults for whatever is not given. Grid: two blocks along each axis
    the kernel reads blockIdx or gridDim of (one block if it reads neither: more would only
    repeat it). Block: 64 threads (two warps) shaped by the thread-index axes it reads
    (64x1x1, 16x4x1 or 16x4x2). Every integer scalar is the number of threads along x (a
    size n covers every thread of a 1-D launch; a width, height or depth spans the x
    extent), every float 1.0. Pointers get buffers that grow on demand and read as zeros.
    `args` overrides any of these."""
    reads = set(kernel.builtins)
    if block is None:
        if "tid.z" in reads:
            block = (16, 4, 2)
        elif "tid.y" in reads:
            block = (16, 4, 1)
        else:
            block = (DEFAULT_THREADS_PER_BLOCK, 1, 1)
    if grid is None:
        grid = tuple(DEFAULT_BLOCKS_PER_AXIS if {f"ctaid.{axis}", f"nctaid.{axis}"} & reads else 1 for axis in "xyz")
    values: dict[str, object] = {}
    for param in kernel.params:
        if param.kind == "integer":
            values[param.name] = grid[0] * block[0]
        elif param.kind == "float":
            values[param.name] = 1.0
    values.update(args or {})
    return Launch(tuple(grid), tuple(block), values, **options)


def check_kernel(program: Program, kernel: KernelInfo, launches: list[Launch],
                 warp_model: str = "independent") -> KernelCheck:
    """Run every launch and report everything found. A launch that breaks an assumption the
    kernel states (__assume, __requires) reports only that: the kernel promises nothing
    there."""
    start = time.perf_counter()
    check = KernelCheck(kernel.name, kernel.symbol, kernel.file, kernel.line)
    merged: dict[tuple, Finding] = {}
    explored: list[tuple[Result, object]] = []
    for launch in launches:
        result = execute(program, kernel, launch)
        check.launches.append(dict(launch_of(result), fitness=None, status=result.status,
                                   seconds=round(result.seconds, 4)))
        if result.status == "unsupported":
            check.status, check.error = "unsupported", result.message
            break
        broken = invalid_launch(result)
        if broken:  # outside the kernel's preconditions: nothing it does there is a bug
            for finding in broken:
                _merge(merged, finding)
            continue
        model = build_model(result)
        for finding in find_races(model, warp_model) + find_divergence(result) + find_faults(result):
            _merge(merged, finding)
        explored.append((result, model))
    if explored:
        check.verdicts = barrier_verdicts(program, kernel, explored, warp_model)
        for finding in redundant_findings(check.verdicts, launch_of(explored[0][0])):
            _merge(merged, finding)
    check.findings = sorted(merged.values(), key=lambda f: (f.file, f.line, f.column, f.type, f.message))
    check.seconds = time.perf_counter() - start
    return check


def _merge(found: dict[tuple, Finding], finding: Finding) -> None:
    """The same finding from another launch adds its instances. The first witness stays,
    unless only the new one is not benign: then the race is not benign, and the new launch
    (its witness, severity and message) shows it."""
    key = finding.key()
    existing = found.get(key)
    if existing is None:
        found[key] = finding
        return
    finding.instances += existing.instances
    finding.addresses = max(existing.addresses, finding.addresses)
    if not (existing.benign and finding.benign is False):
        existing.instances, existing.addresses = finding.instances, finding.addresses
        return
    found[key] = finding
