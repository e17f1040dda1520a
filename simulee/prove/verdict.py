"""A race the solver finds, run in the interpreter: `confirmed` when the run shows it (a
true alarm, with the dynamic report's witness), `possible` when it does not (the solver's
model rested on a value the model left unconstrained: a loaded value, a float, a call's
result) or the witness is too large to run."""

from __future__ import annotations

import struct

from interpreter.loader import KernelInfo, Program
from simulee.prove.solve import Candidate, Proof

RUNNABLE_BLOCKS = 4096  # a witness launch with more blocks is not run (possible, too large to run)
MAX_RUNS = 4  # witness launches run per kernel: the first that shows its race confirms the kernel's


def confirm(program: Program, info: KernelInfo, proof: Proof, warp_model: str = "independent") -> None:
    """Run candidates of `proof` until one shows its race (at most MAX_RUNS) and mark
    them (Candidate.confirmed, .why); those not run stay unconfirmed, saying so."""
    from simulee.check import check_kernel, default_launch

    runs = 0
    for candidate in proof.candidates:
        if runs >= MAX_RUNS or any(c.confirmed for c in proof.candidates):
            candidate.confirmed, candidate.why = False, "not run: another race of the kernel was run"
            continue
        runs += 1
        blocks = candidate.grid[0] * candidate.grid[1] * candidate.grid[2]
        if blocks > RUNNABLE_BLOCKS:
            candidate.confirmed, candidate.why = False, f"its launch of {blocks:,} blocks is too large to run"
            continue
        launch = default_launch(info, arguments(info, candidate), grid=candidate.grid, block=candidate.block)
        check = check_kernel(program, info, [launch], warp_model=warp_model)
        wanted = set(filter(None, candidate.lines()))
        shown = [f for f in check.findings if f.type == candidate.kind and
                 (candidate.kind != "data-race" or {f.first.line, f.second.line if f.second else f.first.line}
                  == wanted or {f.first.line} == wanted)]
        candidate.confirmed = bool(shown)
        candidate.why = "" if shown else "the interpreter's run of the solver's launch does not show it: " \
            "the model rests on a value it leaves unconstrained (read from memory, a float, a call's result)"


def arguments(info: KernelInfo, candidate: Candidate) -> dict:
    """The kernel's scalar arguments as the solver chose them (integers as their type
    reads the bits, floats from their bits); pointers are left to the launch."""
    values = {}
    for index, param in enumerate(info.params):
        bits = candidate.args.get(index)
        if bits is None or param.kind not in ("integer", "float"):
            continue
        width = param.bits or 32
        if param.kind == "float":
            values[param.name] = struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0] if width == 32 \
                else struct.unpack("<d", struct.pack("<Q", bits))[0]
        elif param.signed and bits >= 1 << (width - 1):
            values[param.name] = bits - (1 << width)
        else:
            values[param.name] = bits
    return values
