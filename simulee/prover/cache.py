"""Proofs kept between runs, beside the compile cache (frontend.cache).

A proof is stored under root/proofs/ by a key over what decides it: the program's IR, the
kernel, what is fixed of its launches (solve.Fixed), the effort it may spend, the warp
model, and Simulee's own code (every module of its packages, so any change to the prover
or what it reads is a miss). Only verdicts that cannot depend on the machine's speed are
kept (lasting): a proof that no limit in seconds cut short.
Anything missing, unreadable or of another shape is a miss; an unwritable cache keeps
nothing.
"""

from __future__ import annotations

import json
import pickle
from dataclasses import replace
from pathlib import Path

from simulee.frontend.cache import cache_root, code_digest, digest, write_atomically
from simulee.prover.proof import INTERNAL_ERROR, Access, Fixed, Proof

CLOCK_MARGIN = 0.9  # a proof that took less than this share of its seconds met no limit in seconds


def proof_key(program_digest: str, symbol: str, fixed: Fixed, units: int, warp_model: str) -> str:
    """The key of a proof of kernel `symbol` of the program whose IR has `program_digest`,
    or '' when there is none (a program made in memory, not loaded from IR)."""
    if not program_digest:
        return ""
    described = {"ir": program_digest, "kernel": symbol, "units": units, "warp": warp_model, "code": code_digest(),
                 "grid": fixed.grid, "block": fixed.block, "args": sorted(fixed.args.items()),
                 "sites": [site.to_json() for site in fixed.sites], "ranges": sorted(fixed.ranges.items()),
                 "choices": sorted((name, sorted(values)) for name, values in fixed.choices.items()),
                 "relations": [relation.text for relation in fixed.relations], "launches": fixed.launches}
    return digest(json.dumps(described, default=repr).encode())


def lasting(proof: Proof, allowed: float) -> bool:
    """Whether `proof`, allowed `allowed` seconds, would be the same on any machine under any
    load: proved, or ended well before its time ran out (so no question, walk or pair was
    cut short by the clock: what stopped it was z3's effort, counted in units), and not by
    an internal error of the prover (which may not happen again)."""
    if proof.reason.startswith(INTERNAL_ERROR):
        return False
    return proof.verdict == "proved" or proof.seconds < CLOCK_MARGIN * allowed


class ProofCache:
    """Proofs pickled under root/proofs/, one file per key."""

    def __init__(self, root: Path | None = None):
        self.root = (root or cache_root()) / "proofs"

    def _path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.pickle"

    def get(self, key: str) -> Proof | None:
        try:
            proof = pickle.loads(self._path(key).read_bytes())
        except Exception:  # absent, truncated, or of classes that changed: a miss
            return None
        return proof if isinstance(proof, Proof) else None

    def put(self, key: str, proof: Proof) -> None:
        try:
            data = pickle.dumps(_portable(proof))
            self._path(key).parent.mkdir(parents=True, exist_ok=True)
            write_atomically(self._path(key), data)
        except Exception:  # unwritable, or a value that cannot be kept: nothing is kept
            pass


def _portable(proof: Proof) -> Proof:
    """`proof` without the solver's terms of its races' accesses (offsets, sizes, conditions:
    they live in z3's context, and a verdict and its report do not read them)."""
    def place(end):
        return replace(end, offset=None, size=None, condition=None) if isinstance(end, Access) else end

    return replace(proof, candidates=[replace(c, first=place(c.first), second=place(c.second))
                                      for c in proof.candidates])
