"""Values never live at once share a frame's register (interpreter.registers): checked
against a liveness computed here instruction by instruction, on random kernels and on
kernels whose values cross divergent branches, loops, shuffles and calls; and the kernels
still compute what they compute, on both engines."""

from __future__ import annotations

import random

import numpy as np
import pytest

from benchmarks.differential import PRELUDE_CUDA, Generator, cuda_source
from interpreter.launch import Launch
from interpreter.registers import storage
from interpreter.simt import execute
from simulee.frontend.compiler import load_program

CROSSING = r"""
__device__ __noinline__ int blend(int a, int b, int k) { return k & 1 ? a * b % 1009 : a + b; }

__global__ void crossing(const int *in, int *out, int n) {
    int t = threadIdx.x;
    int a = in[t], b = in[(t + 1) % n], c = in[(t + 2) % n];
    int kept = a * 3 + b;                         // live across the branch and the loop
    int acc = 0;
    if (t % 3 == 0) {
        int d = a - c, e = d * d, f = e + b;      // short-lived values of one side
        acc = f / 2;
    } else {
        int g = c * c, h = g - a;
        acc = h + kept;
    }
    for (int i = 0; i < t % 5; i++)
        acc = blend(acc, kept + i, i);
    int x = acc + c;
    int y = __shfl_down_sync(0xffffffff, x, 1);   // lanes read each other's operand
    if (t == 0)
        atomicAdd(&out[n - 1 - y % 2], 0);        // read back after the native run it is in
    out[t] = y + kept;
}
"""


def _liveness(decoded) -> tuple[list[set[int]], list[set[int]]]:
    """Per instruction, the values live before and after it: a fixpoint over instructions,
    with a phi's operand used at the end of the block it comes from."""
    constants, ops = decoded.constants, decoded.ops
    succ = [[] for _ in ops]
    for block in decoded.blocks:
        for pc in range(block.start, block.end - 1):
            succ[pc].append(pc + 1)
        for target in block.successors:
            succ[block.end - 1].append(decoded.blocks[target].start)
    live_in: list[set[int]] = [set() for _ in ops]
    live_out: list[set[int]] = [set() for _ in ops]
    changed = True
    while changed:
        changed = False
        for pc in range(len(ops) - 1, -1, -1):
            out = set()
            for nxt in succ[pc]:
                out |= {v for v in live_in[nxt] if ops[nxt].opcode != "phi" or v != ops[nxt].result}
                if ops[nxt].opcode == "phi":  # this edge's operand of each phi of the block entered
                    block = ops[pc].block
                    for phi in ops[decoded.blocks[ops[nxt].block].start:]:
                        if phi.opcode != "phi":
                            break
                        out |= {v for v, b in zip(phi.args, phi.extra["blocks"]) if b == block and v not in constants}
            op = ops[pc]
            entry = set(out) - {op.result}
            if op.opcode != "phi":
                entry |= {v for v in op.args if v not in constants}
            else:
                entry |= {op.result}  # phis of a block are defined together, on entry
            if out != live_out[pc] or entry != live_in[pc]:
                live_out[pc], live_in[pc], changed = out, entry, True
    return live_in, live_out


def _check_no_two_live_values_share(decoded) -> None:
    """No value shares a register with one live where it is defined, or its operands, or
    one that was live earlier in its block since its last store (native code runs again
    what lies between two stores); parameters, phis and atomics' operands and results
    have registers of their own."""
    register, _ = storage(decoded)
    constants = decoded.constants
    kept_apart = set(decoded.params) | {op.result for op in decoded.ops if op.opcode == "phi"} | \
        {slot for op in decoded.ops if op.opcode == "atomicrmw" for slot in (*op.args, op.result)
         if slot >= 0 and slot not in constants}
    for value in kept_apart:
        assert [slot for slot in range(len(register)) if register[slot] == register[value]] == [value]
    live_in, live_out = _liveness(decoded)
    for block in decoded.blocks:
        seen = set(live_in[block.start]) if block.end > block.start else set()  # live so far in the block
        for pc in range(block.start, block.end):
            op = decoded.ops[pc]
            seen |= live_in[pc]
            if op.result >= 0 and op.opcode != "phi":
                for other in (seen | live_out[pc]) - {op.result}:
                    assert register[other] != register[op.result], \
                        f"{decoded.name}: %{decoded.slot_names[op.result]} shares a register with %" \
                        f"{decoded.slot_names[other]}, live in its block before it or after it, at {op.text}"
            seen |= live_out[pc] | ({op.result} if op.result >= 0 else set())
            if op.opcode in ("store", "atomicrmw"):  # native code's stage ends: what was left is free again
                seen = set(live_out[pc])


def _functions(program):
    for kernel in program.kernels:
        for decoded in program.reachable_functions(kernel.symbol):
            yield decoded


def test_no_two_values_live_at_once_share_a_register_in_a_kernel_of_branches_loops_shuffles_and_calls(tmp_path):
    (tmp_path / "crossing.cu").write_text(CROSSING)
    program = load_program(tmp_path / "crossing.cu")
    for decoded in _functions(program):
        _check_no_two_live_values_share(decoded)
    kernel = program.function(program.kernel("crossing").symbol)
    used, count = storage(kernel)
    assert count < len(kernel.slot_types)


@pytest.mark.parametrize("seed", range(3))
def test_no_two_values_live_at_once_share_a_register_in_random_kernels(seed, tmp_path):
    rng = random.Random(1000 + seed)
    generator = Generator(lambda options: rng.choice(list(options)))
    source = "".join(cuda_source(generator.kernel(f"k{i}")) for i in range(6))
    (tmp_path / "random.cu").write_text(PRELUDE_CUDA + source)
    for decoded in _functions(load_program(tmp_path / "random.cu")):
        _check_no_two_live_values_share(decoded)


def test_a_long_chain_of_temporaries_across_blocks_needs_a_few_registers_not_one_each(tmp_path):
    """200 sums each used by the next, each in a block of its own (a branch after each):
    a frame keeps a handful of registers, not one a value. Within one block a register a
    value left is not taken again (a thread's faulting instruction is run again by the
    threads that had gone past it): that chain keeps one a value."""
    steps = "".join(f"    float v{i} = v{i - 1} * 1.5f + in[{i % 7}];\n    if (v{i} > 1e30f) out[{i}] = 0.0f;\n"
                    for i in range(1, 200))
    straight = "".join(f"    float v{i} = v{i - 1} * 1.5f + in[{i % 7}];\n" for i in range(1, 200))
    (tmp_path / "chain.cu").write_text(
        "__global__ void chain(const float *in, float *out) {\n    float v0 = in[threadIdx.x];\n"
        f"{steps}    out[threadIdx.x] = v199;\n}}\n"
        "__global__ void straight(const float *in, float *out) {\n    float v0 = in[threadIdx.x];\n"
        f"{straight}    out[threadIdx.x] = v199;\n}}\n")
    program = load_program(tmp_path / "chain.cu")
    for name, most in (("chain", 30), ("straight", 1000)):
        kernel = program.function(program.kernel(name).symbol)
        _check_no_two_live_values_share(kernel)
        _, count = storage(kernel)
        assert len(kernel.slot_types) > 400 and count < most
    assert storage(program.function(program.kernel("straight").symbol))[1] > 300


@pytest.mark.parametrize("engine", ["numpy", "native"])
def test_values_sharing_registers_compute_what_the_kernel_computes(engine, tmp_path):
    (tmp_path / "crossing.cu").write_text(CROSSING)
    program = load_program(tmp_path / "crossing.cu")
    n = 64
    data = np.arange(n, dtype=np.int32) * 5 - 90
    result = execute(program, "crossing", Launch((1, 1, 1), (n, 1, 1), {"in": data, "out": np.zeros(n, np.int32),
                                                                       "n": n}, engine=engine))
    assert result.status == "ok", result.message
    a, b, c = (np.roll(data, -shift).astype(np.int64) for shift in (0, 1, 2))
    kept = a * 3 + b
    x = []
    for t in range(n):
        acc = int(np.trunc(((a[t] - c[t]) ** 2 + b[t]) / 2)) if t % 3 == 0 else int(c[t] * c[t] - a[t] + kept[t])
        for i in range(t % 5):
            other = int(kept[t]) + i
            acc = int(np.fmod(acc * other, 1009)) if i & 1 else acc + other
        x.append(acc + int(c[t]))
    expected = [(x[t + 1] if t % 32 != 31 else x[t]) + int(kept[t]) for t in range(n)]
    assert result.buffers["out"].tolist() == expected
