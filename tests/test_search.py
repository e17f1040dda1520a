"""The input search: with no launch given, it finds the launches that show each bug, keeps
fixed kernels clean, infers the launch contracts kernels imply, and is reproducible."""

from __future__ import annotations

import json

import pytest

from conftest import KERNELS, line_of, program, written
from evolve.search import search
from evolve.space import SearchSpace
from evolve.space import alias_pairs
from evolve.taint import pointer_accesses, relevant_parameters
from simulee.checker.kernel import Settings, check_kernel, default_launch, explore

SEEDS = (1, 2, 3)
TARGETS = "search_targets.cu"
BUGS = {  # kernel -> the finding the search must reach (type, hazard)
    "quotient_write": ("data-race", "write-write"),
    "warp_slots": ("data-race", "write-write"),
    "block_flag": ("data-race", "write-write"),
    "early_exit": ("barrier-divergence", None),
    "diagonal": ("data-race", "write-write"),
    "strided_runs": ("data-race", "write-write"),
}
CLEAN = [("reduction.cu", "reduce_sum"), ("histogram.cu", "histogram256"), ("warp_reduce.cu", "warp_sum"),
         ("matmul.cu", "matmul"), ("transpose.cu", "transpose")]
SYNC_BUGS = ("data-race", "barrier-divergence")


def searched(file: str, kernel: str, seed: int):
    """The search's result on a kernel with nothing fixed, and the space it searched."""
    loaded = program(KERNELS / file)
    info = loaded.kernel(kernel)
    space = SearchSpace.of(info, default_launch(info), relevant_parameters(loaded, info), set())
    return search(loaded, space, seed=seed), space


def found_by_search(file: str, kernel: str, seed: int) -> set[tuple]:
    """(type, hazard) of what the launches the search chose show, without the default
    launch: what the search itself contributes."""
    loaded = program(KERNELS / file)
    result, _ = searched(file, kernel, seed)
    assert result.best, "the search found no valid launch"
    check = check_kernel(loaded, loaded.kernel(kernel), [c.launch for c in result.best], contract=result.contract)
    return {(f.type, f.hazard) for f in check.findings}


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kernel", sorted(BUGS))
def test_search_finds_the_launch_that_shows_the_bug(kernel, seed):
    assert BUGS[kernel] in found_by_search(TARGETS, kernel, seed)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kernel", sorted(BUGS))
def test_fixed_twin_stays_clean_whatever_the_search_tries(kernel, seed):
    loaded = program(KERNELS / TARGETS)
    info = loaded.kernel(f"{kernel}_fixed")
    check = explore(loaded, info, default_launch(info), set(), Settings(seed=seed))
    assert [f for f in check.findings if f.type in SYNC_BUGS] == []


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("file, kernel", CLEAN)
def test_clean_kernels_stay_clean_for_every_seed(file, kernel, seed):
    loaded = program(KERNELS / file)
    info = loaded.kernel(kernel)
    check = explore(loaded, info, default_launch(info), set(), Settings(seed=seed))
    assert [f.message for f in check.findings if f.type in SYNC_BUGS] == []
    assert len(check.launches) >= 2 and all(entry["status"] in ("ok", "invalid") for entry in check.launches)


@pytest.mark.parametrize("file, kernel, bounds", [
    ("reduction.cu", "reduce_sum", ["blockDim.x <= 256"]),
    ("matmul.cu", "matmul", ["blockDim.x <= 16", "blockDim.y <= 16"]),
    ("transpose.cu", "transpose", ["blockDim.x <= 32", "blockDim.y <= 8"]),
])
def test_shared_arrays_imply_a_launch_contract(file, kernel, bounds):
    loaded = program(KERNELS / file)
    info = loaded.kernel(kernel)
    check = explore(loaded, info, default_launch(info), set(), Settings(seed=1))
    assert sorted(a["bound"] for a in check.assumptions) == bounds
    assert all(a["line"] and a["file"].endswith(file) for a in check.assumptions)
    for entry in check.launches:  # every launch checked keeps the contract
        assert entry["status"] == "invalid" or all(
            entry["block"]["xyz".index(b[9])] <= int(b.split("<= ")[1]) for b in bounds)


def test_children_past_a_learned_bound_are_cut_to_it_so_a_small_tile_is_checked(tmp_path):
    """An 8x8 tile: the random blocks of the first generation are all too large for it; the
    children of later ones keep within the bound the first faults taught."""
    source = ("__global__ void transpose_tile(unsigned *graph, int pass) {\n  __shared__ unsigned tile[8][8];\n"
              "  int row = pass * 8 + threadIdx.y, col = pass * 8 + threadIdx.x;\n"
              "  tile[threadIdx.y][threadIdx.x] = graph[row * 64 + col];\n  __syncthreads();\n"
              "  graph[row * 64 + col] = tile[threadIdx.x][threadIdx.y];\n}\n")
    loaded, info = written(tmp_path, "tile.cu", source, "transpose_tile")
    check = explore(loaded, info, default_launch(info), set(), Settings(seed=0))
    assert check.status == "ok" and check.findings == []
    assert sorted(a["bound"] for a in check.assumptions) == ["blockDim.x <= 8", "blockDim.y <= 8"]
    assert any(entry["status"] == "ok" for entry in check.launches)


def test_a_fault_that_valid_launches_also_show_stays_a_finding(tmp_path):
    source = ("__global__ void shift(int *out) {\n  __shared__ int s[64];\n  s[threadIdx.x] = 1;\n"
              "  __syncthreads();\n  out[threadIdx.x] = s[0] + s[threadIdx.x + 64 - blockDim.x];\n}\n")
    loaded, info = written(tmp_path, "off_by_one.cu", source, "shift")
    check = explore(loaded, info, default_launch(info, block=(64, 1, 1)), {"block"}, Settings(seed=1))
    assert check.search is None  # nothing left to search: the given launch alone
    assert [f.type for f in check.findings] == []
    source = source.replace("s[0] + s[threadIdx.x + 64 - blockDim.x]", "s[threadIdx.x - 1]")
    loaded, info = written(tmp_path, "off_by_one_everywhere.cu", source, "shift")
    check = explore(loaded, info, default_launch(info), set(), Settings(seed=1))
    assert "out-of-bounds" in [f.type for f in check.findings]  # thread 0 reads s[-1] in every launch
    assert [a["bound"] for a in check.assumptions] == ["blockDim.x <= 64"]


def test_a_parameter_the_kernel_divides_by_is_never_searched_as_zero(tmp_path):
    source = ("__global__ void first_group(int *out, int group) {\n"
              "  if (threadIdx.x / group == 0) out[0] = threadIdx.x;\n}\n")
    loaded, info = written(tmp_path, "groups.cu", source, "first_group")
    assert relevant_parameters(loaded, info) == {"group": ["branch", "divisor"]}
    check = explore(loaded, info, default_launch(info), set(), Settings(seed=1))
    types = [f.type for f in check.findings]
    assert "data-race" in types and "division-by-zero" not in types  # group >= 2: lanes 0 and 1 both write
    space = SearchSpace.of(info, default_launch(info), relevant_parameters(loaded, info), set())
    assert [(g.name, g.low) for g in space.genes if g.name == "group"] == [("group", 1)]


def test_only_relevant_scalars_are_searched():
    loaded = program(KERNELS / "relevance.cu")
    info = loaded.kernel("mixed")
    assert relevant_parameters(loaded, info) == {
        "b": ["address"], "d": ["address", "divisor"], "n": ["branch"], "stride": ["address", "branch"],
        "scale": ["address"], "stored": ["address"]}  # b: what its buffer holds becomes an index (a[b[t]])
    pairs = alias_pairs(info, pointer_accesses(loaded, info))
    assert pointer_accesses(loaded, info) == {"a": {"read", "write"}, "b": {"read", "write"}} and pairs == (("b", "a"),)
    space = SearchSpace.of(info, default_launch(info), relevant_parameters(loaded, info), {"n"}, aliases=pairs)
    assert [g.name for g in space.genes] == ["block.x", "d", "stride", "scale", "stored", "@fill", "@alias"]


def test_same_seed_same_report(run_cli):
    def report(seed):
        status, out, _ = run_cli("check", KERNELS / TARGETS, "-k", "strided_runs", "--seed", str(seed),
                                 "--format", "json")
        document = json.loads(out)
        for kernel in document["kernels"]:
            kernel["seconds"] = kernel["search"]["seconds"] = kernel["proof"]["seconds"] = 0
            for entry in kernel["launches"]:
                entry["seconds"] = 0
        return status, document

    first, again, other = report(2), report(2), report(3)
    assert first == again
    assert first[0] == 1 and first[1] != other[1]


def test_json_shows_the_search(run_cli):
    status, out, _ = run_cli("check", KERNELS / TARGETS, "-k", "early_exit", "--seed", "1", "--format", "json")
    assert status == 0  # threads that exited before a barrier: a warning
    kernel = json.loads(out)["kernels"][0]
    search_json = kernel["search"]
    assert search_json["seed"] == 1 and search_json["population"] == 10
    assert search_json["genes"] == ["grid.x", "block.x", "n"]
    assert search_json["relevant"] == {"n": ["branch"]}
    assert search_json["fixed"] == {}
    assert 1 <= len(search_json["history"]) <= 10
    for record in search_json["history"]:
        assert set(record) == {"generation", "evaluations", "best", "launch"}
        assert set(record["launch"]) == {"grid", "block", "args", "fill"}
    assert search_json["stopped"] in ("acceptable", "converged", "generations")
    searched_launches = [entry for entry in kernel["launches"] if entry["fitness"] is not None]
    assert searched_launches and all(0 < entry["fitness"]["F"] <= 1 for entry in searched_launches)
    assert kernel["launches"][-1]["fitness"] is None  # the default launch comes last
    divergence = next(f for f in kernel["findings"] if f["type"] == "barrier-divergence")
    assert divergence["launch"]["args"]["n"] % divergence["launch"]["block"][0] != 0


def test_verbose_text_shows_generations_and_launches(run_cli):
    status, out, _ = run_cli("check", KERNELS / "reduction.cu", "--seed", "1", "-v", "-q", "--no-prove")  # searched
    assert status == 0
    assert "reduce_sum: searched grid.x, block.x, n (seed 1):" in out
    assert "  generation  1: F=" in out
    assert "(default launch; ok)" in out
    kernel, store = line_of("reduction.cu", "void reduce_sum("), line_of("reduction.cu", "partial[t] = ")
    assert f"reduction.cu:{kernel}: note: reduce_sum assumes blockDim.x <= 256 (beyond it, line {store} indexes " \
           "past a fixed-size array); launches beyond it were not checked" in out


def test_given_values_are_held_fixed(run_cli):
    status, out, _ = run_cli("check", KERNELS / TARGETS, "-k", "strided_runs", "--block", "32", "--arg",
                             "stride=8", "--format", "json")
    kernel = json.loads(out)["kernels"][0]
    assert status == 0 and kernel["search"] is None if "search" in kernel else status == 0
    assert [entry["block"] for entry in kernel["launches"]] == [[32, 1, 1]]
    status, out, _ = run_cli("check", KERNELS / TARGETS, "-k", "strided_runs", "--block", "32", "--format",
                             "json")  # its race is between lanes of a warp: an error on sm_70 and later
    kernel = json.loads(out)["kernels"][0]
    assert status == 1 and kernel["search"]["genes"] == ["stride"]
    assert {tuple(entry["block"]) for entry in kernel["launches"]} == {(32, 1, 1)}


def test_no_search_and_explicit_launches_do_not_search(run_cli):
    for options in (["--no-search"], ["--launch", "1/64/stride=8"]):
        status, out, _ = run_cli("check", KERNELS / TARGETS, "-k", "strided_runs", *options, "--format", "json")
        kernel = json.loads(out)["kernels"][0]
        assert status == 0 and "search" not in kernel and len(kernel["launches"]) == 1


@pytest.mark.parametrize("option", ["--population=0", "--launches=-1", "--generations=x", "--max-blocks=0"])
def test_malformed_search_options_are_usage_errors(run_cli, option):
    status, _, err = run_cli("check", KERNELS / TARGETS, option)
    assert status == 2 and err.count("\n") == 1 and "error:" in err


def test_a_row_stride_is_padded_past_the_sizes_the_kernel_uses_only(run_cli):
    """column_sums requires width == 128 and never reads height: padding the stride to twice
    the unread height broke the requirement in every launch, and the race went unseen."""
    from conftest import ANNOTATED

    file = ANNOTATED / "fixed_width.cu"
    status, out, err = run_cli("check", file, "--gpuverify-annotations", "--grid", "4", "--block", "32,4",
                               "--no-prove", "--format", "json", "-q")
    (kernel,) = json.loads(out)["kernels"]
    assert [(f["type"], f["line"]) for f in kernel["findings"] if f["severity"] == "error"] == \
        [("data-race", line_of(file, "partial[threadIdx.y][threadIdx.x] = *cell;"))]
    assert all(launch["args"]["width"] == 128 for launch in kernel["launches"] if launch["status"] == "ok")


def test_when_no_launch_can_be_measured_the_check_runs_the_one_reaching_the_most_branches(run_cli):
    file = KERNELS / "long_rows.cu"
    status, out, err = run_cli("check", file, "--grid", "2", "--block", "64", "--no-prove", "--format", "json", "-q")
    (kernel,) = json.loads(out)["kernels"]
    searched = [launch for launch in kernel["launches"] if launch["fitness"]]
    assert [(launch["args"]["n"], launch["fitness"]) for launch in searched] == [(77, {"unmeasured": True})]
    assert {f["line"] for f in kernel["findings"] if f["severity"] == "error"} <= \
        {line_of(file, "slot[threadIdx.x] = 0;"), line_of(file, "slot[1] = 1;")}
    assert not [f for f in kernel["findings"] if f["type"] == "redundant-barrier"]  # n = 77 puts it to the test
    assert status == 1


@pytest.mark.parametrize("synced", [False, True])
def test_a_value_the_kernel_requires_is_the_value_searched(run_cli, synced):
    """pinned_pitch.cu requires pitch == 3072: every launch with another pitch breaks the
    requirement, so the search keeps the stated pitch and finds the tile's race (an error);
    with the barrier nothing races."""
    from conftest import ANNOTATED

    file = ANNOTATED / "pinned_pitch.cu"
    status, out, err = run_cli("check", file, "--gpuverify-annotations", "--no-prove", "--format", "json", "-q",
                               *(("-D", "SYNCED") if synced else ()))
    (kernel,) = json.loads(out)["kernels"]
    errors = {(f["type"], f["line"]) for f in kernel["findings"] if f["severity"] == "error"}
    assert errors == (set() if synced else {("data-race", line_of(file, "// the tile's row"))})
    assert {f["type"] for f in kernel["findings"]} <= {"data-race"}  # no launch broke the requirement
    assert {launch["args"]["pitch"] for launch in kernel["launches"]} == {3072}
    assert status == (0 if synced else 1), err
