"""Simulee computes what a program computes: random well-defined kernels (integer and float
arithmetic rounded once per operation, conversions through half and bfloat16, branches and
loops, shared memory across barriers, warp shuffles and votes, atomics whose updates commute)
run on the NumPy interpreter, on the native engine, and as the same program in plain C++
compiled for the host (benchmarks.differential): every output byte agrees. `python -m
benchmarks.differential` runs thousands of them."""

from __future__ import annotations

import random

import pytest

from benchmarks.differential import Generator, run_batch

pytestmark = pytest.mark.xdist_group("differential")

KERNELS_PER_FILE = 25


@pytest.mark.parametrize("seed", range(8))
def test_three_executors_agree_on_every_output_byte(seed, tmp_path):
    """25 random kernels from a fixed seed (as the benchmark draws them), in one file."""
    rng = random.Random(seed)
    generator = Generator(lambda options: rng.choice(list(options)))
    kernels = [generator.kernel(f"k{i}") for i in range(KERNELS_PER_FILE)]
    for entry in run_batch(kernels, tmp_path, 0, seed=seed):
        assert not entry["disagreements"], f"{entry['kernel']}: {entry['disagreements']}\n{entry['source']}"


def test_a_negative_zero_constant_keeps_its_sign_beside_a_positive_one(tmp_path):
    """The first disagreement the differential test found: one slot held every constant equal
    to 0.0, so a kernel using 0.0f first stored +0.0 for a -0.0f."""
    import numpy as np

    from interpreter.launch import Launch
    from interpreter.simt import execute
    from simulee.frontend.compiler import load_program

    (tmp_path / "zeros.cu").write_text("__global__ void zeros(float *out) { out[1] = 0.0f; out[0] = -0.0f; }\n")
    program = load_program(tmp_path / "zeros.cu")
    for engine in ("numpy", "native"):
        out = execute(program, "zeros", Launch((1, 1, 1), (1, 1, 1), {"out": np.ones(2, np.float32)},
                                              engine=engine)).buffers["out"]
        assert np.signbit(out).tolist() == [True, False], engine
