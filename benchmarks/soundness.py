"""The prover held against the interpreter on random kernels: a kernel a run shows racy (or
divergent) must never be proved.

    python -m benchmarks.soundness [--kernels N] [--batch B] [--seed S] [--keep DIR]

Generates N small kernels (B to a file, each file compiled once) that mix plain accesses,
atomics of every scope, fences of every scope, volatile flags and bounded spins on them,
try-locks, shared memory, warp and block barriers, each statement guarded by a thread or
block condition. Each kernel runs in the interpreter on a few launches (several warps,
several blocks, a partial warp) and is proved (`simulee.prover.solve.prove_kernel`). Prints
how many kernels a run shows a race or barrier divergence in, how many were proved, and how
many of the racy ones were proved (must be 0; each is printed with its source), with the
seconds. `--keep DIR` writes every generated file there.

`kernel_source(choose)` makes one kernel from a chooser (`choose(options)` returns one of
them), so that tests/test_soundness.py draws the same kernels through Hypothesis.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from benchmarks import batches

# guards a statement may run under: every thread, some lanes of a warp, some warps, some blocks
GUARDS = ("", "t % 2 == 0", "t < 32", "t == 0", "t == 33", "b == 0", "b == 1", "t == 0 && b == 0",
          "t == 0 && b != 0", "t % 32 == 0")
GLOBAL_INDICES = ("0", "1", "t", "t % 4", "t / 32", "b", "gid", "t + 1", "gid + 1")
SHARED_INDICES = ("0", "t % 64", "(t + 1) % 64", "t / 32", "63 - t % 64")
VALUES = ("1", "t", "b", "acc")
SCOPES = ("", "_block", "_system")
FENCES = ("__threadfence()", "__threadfence_block()", "__threadfence_system()")
LAUNCHES = (((2, 1, 1), (64, 1, 1)), ((1, 1, 1), (32, 1, 1)), ((3, 1, 1), (40, 1, 1)))
STATEMENTS = ("store", "load", "volatile store", "volatile load", "atomic add", "atomic exchange",
              "atomic compare", "atomic max", "fence", "shared store", "shared load", "shared atomic", "spin",
              "try lock", "barrier", "warp barrier")


def kernel_source(name: str, choose) -> str:
    """A kernel `name`(int *g, int *out) of 1 to 6 statements chosen by `choose`; every
    thread finally writes what it read to its own element of `out`."""
    count = choose(range(1, 7))
    body = [_statement(choose) for _ in range(count)]
    lines = [f"__global__ void {name}(int *g, int *out) {{",
             "  __shared__ int s[64];",
             "  volatile int *v = g;",
             "  unsigned t = threadIdx.x, b = blockIdx.x, gid = b * blockDim.x + t;",
             "  int acc = 0;",
             *(f"  {line}" for line in body),
             "  out[gid] = acc;",
             "}"]
    return "\n".join(lines) + "\n"


def _statement(choose) -> str:
    kind = choose(STATEMENTS)
    if kind == "barrier":  # divergent now and then: a barrier some threads of a block skip
        guard = choose(("", "", "", "t < 32"))
        return _guarded(guard, "__syncthreads();")
    guard = choose(GUARDS)
    index, value, scope = choose(GLOBAL_INDICES), choose(VALUES), choose(SCOPES)
    shared = choose(SHARED_INDICES)
    text = {
        "store": f"g[{index}] = {value};",
        "load": f"acc += g[{index}];",
        "volatile store": f"v[{index}] = {value};",
        "volatile load": f"acc += v[{index}];",
        "atomic add": f"atomicAdd{scope}(&g[{index}], 1);",
        "atomic exchange": f"acc += atomicExch{scope}(&g[{index}], {value});",
        "atomic compare": f"acc += atomicCAS{scope}(&g[{index}], 0, {value});",
        "atomic max": f"atomicMax{scope}(&g[{index}], {value});",
        "fence": f"{choose(FENCES)};",
        "shared store": f"s[{shared}] = {value};",
        "shared load": f"acc += s[{shared}];",
        "shared atomic": f"atomicAdd{choose(('', '_block'))}(&s[{shared}], 1);",
        "spin": f"for (int k = 0; k < 4 && v[{index}] == 0; ++k) {{ }}",
        "try lock": (f"if (atomicCAS{scope}(&g[64], 0, 1) == 0) {{ {choose(FENCES)}; g[{index}] += 1; "
                     f"{choose(FENCES)}; atomicExch{scope}(&g[64], 0); }}"),
        "warp barrier": "__syncwarp();",
    }[kind]
    return _guarded(guard, text)


def _guarded(guard: str, text: str) -> str:
    return f"if ({guard}) {{ {text} }}" if guard else text


def judge(program, kernel, deadline_seconds: float = 60.0) -> dict:
    """What a run shows of `kernel` on LAUNCHES (the finding types a proof excludes) and
    the prover's verdict."""
    from simulee.checker.kernel import DECIDED, check_kernel, default_launch
    from simulee.prover.solve import prove_kernel

    launches = [default_launch(kernel, grid=grid, block=block) for grid, block in LAUNCHES]
    check = check_kernel(program, kernel, launches, deadline=time.perf_counter() + deadline_seconds)
    shown = sorted({f.type for f in check.findings if f.type in DECIDED})
    proof = prove_kernel(program, kernel, deadline=time.perf_counter() + deadline_seconds, races=1, quick=True)
    return {"kernel": kernel.name, "shown": shown, "verdict": proof.verdict, "reason": proof.reason,
            "status": check.status}


def batch(sources: list[str], folder: Path, number: int) -> list[dict]:
    """Compile `sources` (kernels k0, k1, ...) as one file and judge each kernel."""
    from simulee.frontend.compiler import load_program

    path = folder / f"batch{number}.cu"
    path.write_text("".join(sources))
    program = load_program(path)
    judged = [judge(program, kernel) for kernel in program.kernels]
    for entry, source in zip(judged, sources):
        entry["source"] = source
    return judged


def main(argv: list[str] | None = None) -> int:
    args = batches.arguments("soundness", __doc__, 25, argv)
    if args is None:
        return 2
    rng = random.Random(args.seed)
    choose = lambda options: rng.choice(list(options))  # noqa: E731
    start = time.perf_counter()
    results = batches.in_batches(args, lambda number, names, folder: batch(
        [kernel_source(f"k{i}", choose) for i in names], folder, number), "judged")
    racy = [r for r in results if r["shown"]]
    proved = [r for r in results if r["verdict"] == "proved"]
    wrong = [r for r in racy if r["verdict"] == "proved"]
    verdicts = {v: sum(1 for r in results if r["verdict"] == v) for v in ("proved", "race", "unknown")}
    for entry in wrong:
        print(f"WRONG PROOF: {entry['kernel']} ({', '.join(entry['shown'])}):\n{entry['source']}")
    print(f"{len(results)} kernels (seed {args.seed}): {len(racy)} racy or divergent in a run, {len(proved)} proved "
          f"({verdicts['race']} race, {verdicts['unknown']} unknown), {len(wrong)} racy and proved (must be 0); "
          f"{time.perf_counter() - start:.1f} s")
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
