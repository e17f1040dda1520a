"""The parts of the search one by one: fitness on hand-made traces, the mutation operators,
the search space, the launch contract, and what the interpreter gives the search (array
index faults, sampled blocks, branch coverage, random buffers, the work limit)."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import KERNELS, program, written
from evolve.contract import Contract
from evolve.fitness import WORST, Fitness, measure
from evolve.mutation import adapted_steps, cauchy_child, gaussian_child, initial_steps
from evolve.space import Gene, SearchSpace
from interpreter.launch import Launch
from interpreter.contents import Fill
from interpreter.memory import GLOBAL, LOCAL, SHARED
from interpreter.simt import execute
from interpreter.trace import TraceRecorder
from simulee.checker.kernel import default_launch


def trace_of(*accesses):
    """A trace of (space, region, offset, block, thread) accesses of 4 bytes."""
    recorder = TraceRecorder()
    for space, region, offset, block, thread in accesses:
        recorder.record(space=space, region=region, offset=np.array([offset]), size=4, block=block,
                        thread=np.array([thread]))
    return recorder.finish([])


# ---------------------------------------------------------------------------- fitness


def test_fitness_distinct_addresses_per_thread_access():
    apart = trace_of(*[(GLOBAL, 1, 4 * t, 0, t) for t in range(4)])
    assert measure(apart) == Fitness(1.0, 16)
    together = trace_of(*[(GLOBAL, 1, 8, 0, t) for t in range(4)])
    assert measure(together) == Fitness(0.25, 4)
    pairs = trace_of(*[(GLOBAL, 1, 4 * (t // 2), 0, t) for t in range(4)])
    assert measure(pairs).F == 0.5


def test_fitness_counts_a_thread_once_per_address():
    assert measure(trace_of(*[(GLOBAL, 1, 0, 0, 7)] * 5)) == Fitness(1.0, 4)


def test_fitness_keeps_blocks_shared_memories_apart_and_ignores_local():
    shared = trace_of((SHARED, 0, 0, 0, 0), (SHARED, 0, 0, 1, 0), (LOCAL, 0, 0, 0, 1), (LOCAL, 0, 0, 0, 2))
    assert measure(shared) == Fitness(1.0, 8)
    assert measure(trace_of((LOCAL, 0, 0, 0, 0))) == Fitness(1.0, 0)


def test_fitness_range_sums_buffers():
    two = trace_of((GLOBAL, 1, 0, 0, 0), (GLOBAL, 1, 96, 0, 1), (GLOBAL, 2, 40, 0, 2))
    assert measure(two).R == 100 + 4


def test_lower_F_ranks_first_then_larger_range():
    ranked = sorted([WORST, Fitness(0.5, 10), Fitness(0.2, 1), Fitness(0.5, 99)], key=Fitness.rank)
    assert ranked == [Fitness(0.2, 1), Fitness(0.5, 99), Fitness(0.5, 10), WORST]


# ---------------------------------------------------------------------------- mutation

GENES = (Gene("grid.x", 1, 32), Gene("block.x", 1, 1024), Gene("n", 1, 65536), Gene("alpha", -64, 64, integer=False))


@pytest.mark.parametrize("seed", range(5))
def test_gaussian_child_steps_dimensions_by_one(seed):
    rng = np.random.default_rng(seed)
    parent = [4, 64, 1000, 1.5]
    steps = initial_steps(GENES, parent)
    child, child_steps = gaussian_child(GENES, parent, steps, rng)
    assert all(abs(c - p) <= 1 for c, p in zip(child[:2], parent[:2]))
    assert child[2:] != parent[2:] and all(s > 0 for s in child_steps) and child_steps != steps


@pytest.mark.parametrize("seed", range(5))
def test_cauchy_child_doubles_or_halves_dimensions(seed):
    rng = np.random.default_rng(seed)
    parent = [4, 64, 1000, 1.5]
    child, _ = cauchy_child(GENES, parent, initial_steps(GENES, parent), rng)
    assert child[0] in (2, 4, 8) and child[1] in (32, 64, 128)


def test_a_child_of_dimensions_alone_always_differs():
    genes = GENES[:2]
    for seed in range(20):
        rng = np.random.default_rng(seed)
        assert gaussian_child(genes, [4, 64], [], rng)[0] != [4, 64]
        assert cauchy_child(genes, [4, 64], [], rng)[0] != [4, 64]


def test_step_sizes_adapt_log_normally():
    rng = np.random.default_rng(0)
    adapted = [adapted_steps([10.0], rng)[0] for _ in range(2000)]
    assert 0.8 < np.exp(np.mean(np.log(adapted))) / 10 < 1.25 and min(adapted) > 0
    assert initial_steps(GENES, [4, 64, 3000, 0.0]) == [1000.0, 1.0]


# ---------------------------------------------------------------------------- space


def space_of(file: str, kernel: str, fixed=frozenset(), **options):
    from evolve.taint import relevant_parameters

    loaded = program(KERNELS / file)
    info = loaded.kernel(kernel)
    return SearchSpace.of(info, default_launch(info), relevant_parameters(loaded, info), set(fixed), **options)


def test_space_has_only_the_dimensions_the_kernel_reads():
    assert [g.name for g in space_of("search_targets.cu", "quotient_write").genes] == ["block.x", "d"]
    assert [g.name for g in space_of("search_targets.cu", "diagonal").genes] == ["block.x", "block.y"]
    assert [g.name for g in space_of("matmul.cu", "matmul").genes] == \
        ["grid.x", "grid.y", "block.x", "block.y", "m", "k", "n"]  # no aliases: a and b are const, inputs
    assert [g.name for g in space_of("matmul.cu", "matmul", {"grid", "k"}).genes] == ["block.x", "block.y", "m", "n"]
    assert [g.name for g in space_of("qualifiers.cu", "qualified").genes] == ["block.x"]


def test_only_an_input_and_an_output_of_one_type_may_be_one_buffer():
    from evolve.space import alias_pairs
    from evolve.taint import pointer_accesses

    def pairs(file, kernel):
        loaded = program(KERNELS / file)
        info = loaded.kernel(kernel)
        return alias_pairs(info, pointer_accesses(loaded, info))

    assert pairs("buffer_contents.cu", "shift") == (("in", "out"),)
    assert pairs("buffer_contents.cu", "shift_from_input") == ()  # a const input
    assert pairs("qualifiers.cu", "qualified") == ()  # __restrict__
    assert pairs("buffer_contents.cu", "two_outputs") == ()  # both only written


def test_repair_keeps_launches_legal():
    space = space_of("matmul.cu", "matmul", max_blocks=16)
    grid_x, grid_y, block_x, block_y, m, k, n = space.repair([64, 8, 512, 64, 0, -5.6, 1e9])
    assert grid_x * grid_y <= 16 and block_x * block_y <= 1024
    assert (m, k, n) == (0, 1, 65536)  # m only bounds a branch: down to -1; k and n scale addresses: from 1
    rounded = space.repair([1, 1, 1, 1, 2.6, 7.4, 3])
    assert rounded[4:] == [3, 7, 3] and all(isinstance(v, int) for v in rounded)


def test_random_genomes_reach_warps_and_blocks():
    space = space_of("reduction.cu", "reduce_sum")
    rng = np.random.default_rng(0)
    genomes = [space.random_genome(rng) for _ in range(200)]
    assert max(g[0] for g in genomes) > 4 and max(g[1] for g in genomes) > 256
    assert all(1 <= g[0] <= 32 and 1 <= g[1] <= 1024 and 1 <= g[2] <= 65536 for g in genomes)


def test_genome_and_launch_round_trip():
    space = space_of("matmul.cu", "matmul")
    launch = space.launch([3, 2, 8, 16, 40, 50, 60])
    assert (launch.grid, launch.block) == ((3, 2, 1), (8, 16, 1))
    assert (launch.args["m"], launch.args["k"], launch.args["n"]) == (40, 50, 60)
    assert space.genome(launch) == [3, 2, 8, 16, 40, 50, 60]


# ---------------------------------------------------------------------------- contract


def test_contract_bound_from_thread_indexed_shared_array():
    loaded = program(KERNELS / "reduction.cu")
    info = loaded.kernel("reduce_sum")
    contract = Contract()
    assert not contract.learn(execute(loaded, info, default_launch(info, block=(256, 1, 1))))
    assert contract.learn(execute(loaded, info, default_launch(info, block=(300, 1, 1))))
    assert contract.texts() == ["blockDim.x <= 256"]  # s[t] faults from t = 256; s[t + stride] from 106
    assert contract.allows((256, 1, 1)) and not contract.allows((257, 1, 1))


def test_a_parameter_multiplying_a_thread_index_is_a_stride(tmp_path):
    from evolve.taint import stride_parameters

    loaded, info = written(tmp_path, "rows.cu", "__global__ void k(float *out, int step, int width, int n) {\n"
                           "  int x = threadIdx.x, y = blockIdx.x;\n"
                           "  if (x < width) out[y * step + x] = n * 2.0f;\n}\n", "k")
    assert stride_parameters(loaded, info) == {"step"}  # width decides a branch; n scales no index


def test_contract_bounds_the_thread_count_of_a_flattened_block_index(tmp_path):
    loaded, info = written(tmp_path, "flat.cu", "__global__ void k(float *out) {\n  __shared__ float s[256];\n"
                           "  int tid = threadIdx.y * blockDim.x + threadIdx.x;\n  s[tid] = tid;\n  __syncthreads();\n"
                           "  out[tid] = s[255 - tid % 256];\n}\n", "k")
    contract = Contract()
    assert not contract.learn(execute(loaded, info, default_launch(info, block=(32, 8, 1))))
    assert contract.learn(execute(loaded, info, default_launch(info, block=(78, 4, 1))))  # threads 256.. fault
    assert contract.texts() == ["blockDim.x * blockDim.y * blockDim.z <= 256"]
    assert contract.allows((32, 8, 1)) and contract.allows((128, 2, 1)) and not contract.allows((16, 17, 1))


def test_contract_ignores_faults_in_thread_zero_and_in_host_buffers(tmp_path):
    loaded, info = written(tmp_path, "faults.cu", "__global__ void k(int *a, int n) {\n  __shared__ int s[8];\n"
                           "  if (threadIdx.x == 0) s[n] = 1;\n  a[threadIdx.x * 100000000] = 1;\n}\n", "k")
    contract = Contract()
    result = execute(loaded, info, default_launch(info, {"n": 9}, block=(64, 1, 1)))
    # s[9] is past the array; a[6400000000] past the bytes a buffer of no given size grows to
    assert {f.kind for f in result.events.faults} == {"out-of-bounds", "buffer-limit"}
    assert not contract.learn(result) and contract.bounds == {}


# ---------------------------------------------------------------------------- interpreter support


def test_index_past_an_array_dimension_faults_even_inside_the_array(tmp_path):
    loaded, info = written(tmp_path, "rows.cu",
                           "__global__ void rows(float *out, int n) {\n  __shared__ float s[4][8];\n"
                           "  s[threadIdx.y][threadIdx.x] = 1.0f;\n  float *end = &s[0][n];\n"
                           "  out[threadIdx.x] = end == &s[0][8] ? 1.0f : 0.0f;\n}\n", "rows")
    within = execute(loaded, info, Launch(1, (8, 4), {"n": 8}))
    assert within.events.faults == []  # &s[0][8] is one past the row: formed, never dereferenced
    wide = execute(loaded, info, Launch(1, (12, 2), {"n": 8}))
    (fault,) = wide.events.faults
    assert fault.kind == "out-of-bounds" and sorted(set(fault.threads % 12)) == [8, 9, 10, 11]


def test_sampled_launch_runs_only_those_blocks():
    loaded = program(KERNELS / "reduction.cu")
    info = loaded.kernel("reduce_sum")
    result = execute(loaded, info, default_launch(info, grid=(10, 1, 1), sample=(0, 1, 9)))
    assert sorted(set(result.trace["block"].tolist())) == [0, 1, 9]
    assert set(np.flatnonzero(result.buffers["out"].view(np.float32)[:10]).tolist()) <= {0, 1, 9}


def test_coverage_records_edges_and_splits():
    loaded = program(KERNELS / "search_targets.cu")
    info = loaded.kernel("early_exit")
    whole = execute(loaded, info, default_launch(info, {"n": 128}, grid=(2, 1, 1), block=(64, 1, 1), coverage=True))
    split = execute(loaded, info, default_launch(info, {"n": 100}, grid=(2, 1, 1), block=(64, 1, 1), coverage=True))
    codes = lambda result: {code for _, _, code in result.events.coverage if code < 0}
    assert codes(whole) == set() and codes(split) == {-1, -2}
    assert len(split.events.coverage) > len(whole.events.coverage)


def test_random_content_depends_on_seed_and_position_only():
    words = np.arange(4096)
    first, again, other = (Fill("small", seed).values(words) for seed in (7, 7, 8))
    assert (first == again).all() and (first != other).any()
    assert first.min() == 0 and first.max() == 63
    assert (Fill("small", 7).values(words[100:200]) == first[100:200]).all()


def test_fills_give_what_they_promise_in_the_element_type():
    elements = np.arange(4096)
    distinct = Fill("distinct", 3, "<i4").values(elements)
    assert len(np.unique(distinct)) == len(elements) and set(distinct.tolist()) == set(elements.tolist())
    assert (np.diff(Fill("sorted", 3, "<i8").values(elements)) >= 0).all()
    assert (Fill("sorted", 3).values(elements) == elements // 2).all()
    assert (Fill("identity", 3, "<i4").values(elements) == elements).all()
    wide = Fill("wide", 5, "<i4", (1337,)).values(elements)
    assert wide.dtype == np.int32 and wide.min() < 0 and wide.max() > 64 and (wide == 1337).any()
    assert {0, 1, -1, 2**31 - 1, -2**31} <= set(wide.tolist())
    floats = Fill("wide", 5, "<f4").values(elements)
    assert floats.dtype == np.float32 and np.isfinite(floats).all() and floats.min() < -100 and floats.max() > 100
    assert (Fill("small", 5, "<f4").values(elements) == Fill("small", 5).values(elements)).all()  # 0.0 to 63.0


def test_work_limit_stops_a_launch():
    loaded = program(KERNELS / "reduction.cu")
    info = loaded.kernel("reduce_sum")
    result = execute(loaded, info, default_launch(info, work_limit=1000))
    assert result.status == "step-limit" and "work limit" in result.message
