"""A proof as the user reads it: one line per kernel (and one per race) in text, JSON, or
SARIF (a result per race, at error level when a run confirmed it, else a note)."""

from __future__ import annotations

from pathlib import Path

from simulee import __version__
from simulee.model.findings import display
from simulee.report.formats import SARIF_SCHEMA
from simulee.prover.proof import Candidate, Proof, describe

SHOWN = 5  # races a kernel's text report shows


def verdict_of(proof: Proof) -> str:
    """proved, race (confirmed), race (possible) or unknown, as the text report says it."""
    if proof.verdict != "race":
        return proof.verdict
    return "race (confirmed)" if confirmed(proof) else "race (possible)"


def confirmed(proof: Proof) -> bool:
    return any(candidate.confirmed for candidate in proof.candidates)


def text(proof: Proof) -> str:
    where = f"{display(proof.file)}:{proof.line}: {proof.kernel}"
    if proof.verdict == "proved":
        return f"{where}: proved: race-free and barrier-divergence-free for every launch ({proof.seconds:.1f} s)"
    if proof.verdict == "unknown":  # with the races the solver found that no run showed, if any
        lines = [f"{where}: unknown: {proof.reason} ({proof.seconds:.1f} s)"]
    else:
        lines = [f"{where}: {verdict_of(proof)} ({proof.seconds:.1f} s)"]
    shown = sorted(proof.candidates, key=lambda c: not c.confirmed)[:SHOWN]
    for candidate in shown:
        lines.append(f"    {_what(candidate, proof)}: {describe(candidate)}{_arguments(candidate, proof)}"
                     + ("" if candidate.confirmed else f" -- possible: {candidate.why}"))
    if len(proof.candidates) > len(shown):
        lines.append(f"    and {len(proof.candidates) - len(shown)} more (--format json lists them)")
    return "\n".join(lines)


def _what(candidate: Candidate, proof: Proof) -> str:
    file = display(proof.file)
    if candidate.kind == "barrier-divergence":
        ends = [f"the barrier at line {end.line}" if end.kind == "barrier" else "the kernel's end"
                for end in (candidate.first, candidate.second)]
        return f"barrier divergence: one thread goes to {ends[0]}, another to {ends[1]}"
    first, second = candidate.first, candidate.second
    kinds = f"{_access(first)} at {display(first.file) or file}:{first.line} and " \
            f"{_access(second)} at {display(second.file) or file}:{second.line}"
    if candidate.kind == "scoped-race":
        return f"scoped race ({candidate.scope}): {kinds}, one of block scope"
    return f"data race ({candidate.scope}): {kinds}"


def _access(access) -> str:
    """read, write, atomic (a read-modify-write), atomic read or atomic write."""
    return f"atomic {access.kind}" if access.scope and access.kind != "atomic" else access.kind


def _arguments(candidate: Candidate, proof: Proof) -> str:
    if not candidate.args:
        return ""
    name = lambda index: proof.params[index] if index < len(proof.params) else f"#{index}"  # noqa: E731
    return "; " + ", ".join(f"{name(index)} = {value}" for index, value in sorted(candidate.args.items()))


def to_json(proof: Proof) -> dict:
    return {
        "kernel": proof.kernel, "file": display(proof.file), "line": proof.line, "verdict": proof.verdict,
        "confirmed": confirmed(proof), "assumptions": proof.assumptions, "reason": proof.reason,
        "races": [_candidate_json(c, proof.params) for c in proof.candidates], "seconds": round(proof.seconds, 3),
    }


def _candidate_json(candidate: Candidate, params: tuple[str, ...]) -> dict:
    def place(end):
        if hasattr(end, "space"):  # an access; else where a thread's path goes next (End)
            return {"access": _access(end), "line": end.line, "space": end.space}
        return {"end": end.kind, "line": end.line}

    (block1, thread1), (block2, thread2) = candidate.threads
    return {"type": candidate.kind, "scope": candidate.scope, "first": place(candidate.first),
            "second": place(candidate.second), "grid": list(candidate.grid), "block": list(candidate.block),
            "threads": [{"block": list(block1), "thread": list(thread1)},
                        {"block": list(block2), "thread": list(thread2)}],
            "args": {params[k] if k < len(params) else str(k): v for k, v in sorted(candidate.args.items())},
            "confirmed": candidate.confirmed,
            "why": candidate.why}


RULES = {"data-race": "two threads access the same bytes, one writing, with nothing ordering them",
         "scoped-race": "atomics of threads of different blocks on the same bytes, one of block scope",
         "barrier-divergence": "threads of a block reach different barriers (or one its end)"}


def to_sarif(proofs: list[Proof]) -> dict:
    """SARIF 2.1.0: a result per race (error when confirmed, note when possible), every
    kernel's verdict and assumptions in the run's property bag."""
    results = []
    for proof in proofs:
        for candidate in proof.candidates:
            line = next((end.line for end in (candidate.first, candidate.second) if getattr(end, "line", None)),
                        proof.line)
            results.append({
                "ruleId": candidate.kind, "level": "error" if candidate.confirmed else "note",
                "message": {"text": f"{_what(candidate, proof)}: {describe(candidate)}{_arguments(candidate, proof)}"
                            + ("" if candidate.confirmed else f" (possible: {candidate.why})")},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": Path(display(proof.file)).as_posix()},
                                                    "region": {"startLine": max(line or 1, 1)}},
                               "logicalLocations": [{"name": proof.kernel, "kind": "function"}]}]})
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [{
        "tool": {"driver": {"name": "simulee", "version": __version__, "rules": [
            {"id": rule, "shortDescription": {"text": text}} for rule, text in RULES.items()]}},
        "results": results,
        "properties": {"verdicts": [{"kernel": p.kernel, "file": display(p.file), "line": p.line,
                                     "verdict": verdict_of(p), "reason": p.reason, "assumptions": p.assumptions}
                                    for p in proofs]}}]}
