"""The detectors on kernels with known bugs, each beside its fixed twin, which must be clean."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import KERNELS, line_of, lines_of, program
from simulee.checker.kernel import check_kernel, default_launch
from interpreter.launch import Alias

INDEPENDENT, LOCKSTEP = "independent", "lockstep"


def check(file: str, kernel: str, *launches, warp_model: str = INDEPENDENT, **args):
    """Check a kernel of tests/kernels on launches (grid, block, args), or on the default
    launch with `args`."""
    loaded = program(KERNELS / file)
    info = loaded.kernel(kernel)
    built = [default_launch(info, dict(values), grid, block) for grid, block, values in launches]
    return check_kernel(loaded, info, built or [default_launch(info, args)], warp_model)


def races(result) -> set[tuple]:
    """(hazard, space, scope, line of the write, line of the other access, benign) per race."""
    return {(f.hazard, f.space, f.scope, f.first.line, f.second.line, f.benign)
            for f in result.findings if f.type in ("data-race", "warp-synchronous-race")}


def kinds(result) -> list[str]:
    return sorted(f.type for f in result.findings)


def assert_clean(result):
    assert result.status == "ok", result.error
    assert result.findings == [], [f.message for f in result.findings]


def one_warp(**args):
    return ((1, 1, 1), (32, 1, 1), args)


# ---------------------------------------------------------------------------- the paper's examples


def test_block_min_without_barrier_after_the_if_else_is_a_write_write_race():
    data = np.random.default_rng(1).integers(-100, 100, 128).astype(np.int32)
    file = "paper_examples.cu"
    fold = line_of(file, "best[t - s] = min")
    found = races(check(file, "block_min", ((2, 1, 1), (64, 1, 1), {"in": data})))
    for arm in (line_of(file, "best[t] = -v"), line_of(file, "best[t] = v")):
        assert ("write-write", "shared", "inter-warp", arm, fold, False) in found
        assert ("read-write", "shared", "inter-warp", arm, fold, False) in found
    assert_clean(check(file, "block_min_fixed", ((2, 1, 1), (64, 1, 1), {"in": data})))


def test_private_slots_barrier_is_redundant_and_the_twin_without_it_is_clean():
    result = check("paper_examples.cu", "private_slots")
    assert kinds(result) == ["redundant-barrier"]
    finding = result.findings[0]
    assert finding.severity == "warning"
    assert finding.line == line_of("paper_examples.cu", "__syncthreads();  // redundant")
    assert [v.verdict for v in result.verdicts] == ["redundant"]
    fixed = check("paper_examples.cu", "private_slots_fixed")
    assert_clean(fixed)
    assert fixed.verdicts == []


def test_barrier_in_a_loop_with_thread_dependent_trips_diverges():
    trips = np.arange(64, dtype=np.int32) % 3
    result = check("paper_examples.cu", "loop_trip_barrier", ((1, 1, 1), (64, 1, 1), {"trips": trips}))
    divergence = [f for f in result.findings if f.type == "barrier-divergence"]
    assert divergence and all(f.severity == "warning" for f in divergence)  # the others exited: counted as arrived
    first = divergence[0]
    waiting, missing = first.first.thread[0], first.second.thread[0]
    assert trips[waiting] > trips[missing]  # the thread that left the loop early did not arrive
    read = line_of("paper_examples.cu", "int next = cell[", "loop_trip_barrier")
    in_the_loop = next(line for line in lines_of("paper_examples.cu", "__syncthreads();") if line > read)
    assert first.line == in_the_loop  # the barrier after the read
    assert first.second.access == "exit"  # it left the loop and the kernel
    fixed = check("paper_examples.cu", "loop_trip_barrier_fixed", ((1, 1, 1), (64, 1, 1), {"trips": trips, "most": 2}))
    assert_clean(fixed)
    assert [v.verdict for v in fixed.verdicts] == ["needed", "needed", "needed"]


# ---------------------------------------------------------------------------- warps


def test_a_tagged_write_histogram_is_warp_synchronous_in_every_pair_it_races_by():
    """Its lanes write one bin together and retry: every race it has is one lockstep orders,
    whether the data sends every lane to one bin or to a few."""
    file = "warp_races.cu"
    for data in (np.zeros(32, np.uint8), np.arange(32, dtype=np.uint8) % 3):
        launch = ((1, 1, 1), (32, 1, 1), {"data": data})
        independent = check(file, "tagged_histogram", launch, warp_model=INDEPENDENT)
        assert {(f.type, f.severity) for f in independent.findings if f.type != "redundant-barrier"} == {
            ("warp-synchronous-race", "error")}
        assert line_of(file, "lanes of one bin write together") in {f.line for f in independent.findings}
        assert [f for f in check(file, "tagged_histogram", launch, warp_model=LOCKSTEP).findings
                if f.type != "redundant-barrier"] == []


def test_warp_synchronous_tail_races_only_on_independent_warps():
    file = "warp_races.cu"
    tail = line_of(file, "s[t] += s[t + offset]")
    independent = check(file, "warp_tail", one_warp(), warp_model=INDEPENDENT)
    assert ("read-write", "shared", "intra-warp", tail, tail, False) in races(independent)
    # its own class: correct before Volta, an error on every GPU current toolkits support, with the fix
    assert {(f.type, f.severity) for f in independent.findings} == {("warp-synchronous-race", "error")}
    assert "put __syncwarp() between them" in independent.findings[0].message
    assert_clean(check(file, "warp_tail", one_warp(), warp_model=LOCKSTEP))
    for model in (INDEPENDENT, LOCKSTEP):
        assert_clean(check(file, "warp_tail_fixed", one_warp(), warp_model=model))


def test_two_lanes_of_one_store_race_under_both_warp_models():
    file = "warp_races.cu"
    store = line_of(file, "half[threadIdx.x / 2] = threadIdx.x")
    two_warps = ((1, 1, 1), (64, 1, 1), {})
    for model in (INDEPENDENT, LOCKSTEP):
        result = check(file, "same_store", two_warps, warp_model=model)
        assert races(result) == {("write-write", "shared", "intra-warp", store, store, False)}
        assert result.findings[0].type == "data-race"  # one store's two lanes: a race in lockstep too
        assert result.findings[0].instances == result.findings[0].addresses == 32
        fixed = check(file, "same_store_fixed", two_warps, warp_model=model)
        assert_clean(fixed)
        assert [v.verdict for v in fixed.verdicts] == ["needed"]


def test_syncwarp_missing_races_on_independent_warps_and_placed_is_clean():
    file = "warp_races.cu"
    write, read = line_of(file, "slot[threadIdx.x] = threadIdx.x * 3"), line_of(file, "out[threadIdx.x] = slot[")
    found = races(check(file, "syncwarp_missing", one_warp(), warp_model=INDEPENDENT))
    assert found == {("read-write", "shared", "intra-warp", write, read, False)}
    assert_clean(check(file, "syncwarp_missing", one_warp(), warp_model=LOCKSTEP))
    for model in (INDEPENDENT, LOCKSTEP):
        assert_clean(check(file, "syncwarp_placed", one_warp(), warp_model=model))


def test_shuffle_reduction_is_clean():
    for model in (INDEPENDENT, LOCKSTEP):
        assert_clean(check("warp_races.cu", "shuffle_sum", one_warp(), warp_model=model))


# ---------------------------------------------------------------------------- memory


def test_atomic_against_plain_store_is_a_race_and_all_atomic_is_clean():
    file = "global_races.cu"
    result = check(file, "atomic_vs_plain")
    (finding,) = result.findings
    assert (finding.hazard, finding.space, finding.first.access, finding.second.access) == \
        ("write-write", "global", "write", "atomic")
    assert finding.first.line == line_of(file, "counter[0] = 0;") and finding.first.thread == (0, 0, 0)
    assert finding.second.line == line_of(file, "else atomicAdd(&counter[0], 1);")
    assert_clean(check(file, "atomic_vs_plain_fixed"))


def test_neighbouring_blocks_race_through_global_memory():
    file = "global_races.cu"
    result = check(file, "neighbour_blocks", ((2, 1, 1), (64, 1, 1), {"n": 128}))
    inter_block = [f for f in result.findings if f.scope == "inter-block"]
    assert inter_block and all(f.space == "global" and f.hazard == "read-write" for f in inter_block)
    witness = inter_block[0]
    assert {witness.first.block, witness.second.block} == {(0, 0, 0), (1, 0, 0)}
    assert {witness.first.thread, witness.second.thread} == {(63, 0, 0), (0, 0, 0)}  # a[64] at the seam
    assert_clean(check(file, "neighbour_blocks_fixed", ((2, 1, 1), (64, 1, 1), {"n": 128})))


def test_transposed_tile_without_its_barrier_races_and_with_it_is_clean():
    file = "global_races.cu"
    launch = ((2, 2, 1), (32, 32, 1), {"width": 64})
    result = check(file, "transpose_no_barrier", launch)
    write = line_of(file, "tile[threadIdx.y][threadIdx.x] = in[")
    read = line_of(file, "= tile[threadIdx.x][threadIdx.y]")
    assert races(result) == {("read-write", "shared", "inter-warp", write, read, False)}
    (finding,) = result.findings
    # thread (x, y) reads what thread (y, x) wrote: another warp unless x == y, in each of 4 blocks
    assert finding.instances == finding.addresses == 4 * (32 * 32 - 32)
    assert_clean(check(file, "transpose_with_barrier", launch))


def test_race_only_in_the_last_partial_block():
    file = "global_races.cu"
    assert_clean(check(file, "last_block_only", ((3, 1, 1), (64, 1, 1), {"n": 192})))
    result = check(file, "last_block_only", ((3, 1, 1), (64, 1, 1), {"n": 150}))
    (finding,) = result.findings
    assert (finding.hazard, finding.space, finding.benign) == ("write-write", "global", False)
    assert finding.first.block == finding.second.block == (2, 0, 0) and finding.addresses == 1
    assert_clean(check(file, "last_block_only_fixed", ((3, 1, 1), (64, 1, 1), {"n": 150})))


def test_broadcast_needs_its_barrier():
    file = "global_races.cu"
    clean = check(file, "broadcast")
    assert_clean(clean)
    assert [v.verdict for v in clean.verdicts] == ["needed"]
    kernel = "broadcast_no_barrier"
    assert races(check(file, kernel)) == {
        ("read-write", "shared", "inter-warp", line_of(file, "if (threadIdx.x == 0) value = in[0] * 2;", kernel),
         line_of(file, "out[threadIdx.x] = value;", kernel), False)}


def test_same_value_write_write_is_benign():
    file = "global_races.cu"
    result = check(file, "same_flag")
    (finding,) = result.findings
    assert finding.benign is True and finding.severity == "warning" and finding.hazard == "write-write"
    assert result.errors() == 0
    assert_clean(check(file, "same_flag_fixed"))


def test_out_of_bounds_store_is_a_finding():
    file = "global_races.cu"
    sized = {"data": np.zeros(128, np.int32)}
    result = check(file, "out_of_bounds_store", ((2, 1, 1), (64, 1, 1), sized))
    (finding,) = result.findings
    assert finding.type == "out-of-bounds" and finding.instances == 1
    assert finding.first.block == (1, 0, 0) and finding.first.thread == (63, 0, 0)
    assert_clean(check(file, "out_of_bounds_store_fixed", ((2, 1, 1), (64, 1, 1), {**sized, "n": 128})))


# ---------------------------------------------------------------------------- barriers


def test_one_barrier_needed_and_one_redundant():
    file = "barrier_verdicts.cu"
    result = check(file, "one_of_each")
    needed, redundant = result.verdicts
    assert (needed.verdict, redundant.verdict) == ("needed", "redundant")
    assert needed.place.line == line_of(file, "// needed: line 28")
    assert redundant.place.line == line_of(file, "// redundant: each thread")
    assert (needed.race.hazard, needed.race.first.line, needed.race.second.line) == \
        ("read-write", line_of(file, "shared_by_all[t] = in[t];"), line_of(file, "float next = shared_by_all["))
    assert [(f.type, f.line) for f in result.findings] == [("redundant-barrier", redundant.place.line)]
    fixed = check(file, "one_of_each_fixed")
    assert_clean(fixed)
    assert [v.verdict for v in fixed.verdicts] == ["needed"]


def test_early_return_diverges_only_when_n_is_not_a_multiple_of_the_block():
    """A block barrier the threads past n never reach because they returned: a warning (GPUs
    count exited threads as arrived; the programming guide leaves it undefined)."""
    file = "barrier_verdicts.cu"
    result = check(file, "early_exit", ((2, 1, 1), (64, 1, 1), {"n": 100}))
    (finding,) = result.findings
    assert finding.type == "barrier-divergence" and finding.line == line_of(file, "__syncthreads();", "early_exit")
    assert finding.severity == "warning" and "the others exited" in finding.message
    assert finding.first.block == finding.second.block == (1, 0, 0)
    assert 100 - 64 <= finding.second.thread[0] and finding.first.thread[0] < 100 - 64
    assert finding.second.access == "exit"
    assert_clean(check(file, "early_exit", ((2, 1, 1), (64, 1, 1), {"n": 128})))
    assert_clean(check(file, "early_exit_fixed", ((2, 1, 1), (64, 1, 1), {"n": 100})))


def test_barriers_in_both_arms_of_an_if_diverge():
    file = "barrier_verdicts.cu"
    result = check(file, "both_arms")
    divergence = [f for f in result.findings if f.type == "barrier-divergence"]
    assert len(divergence) == 2 and all(f.second.access == "barrier" for f in divergence)
    assert all(f.severity == "error" for f in divergence)  # live threads wait at another barrier
    assert {f.line for f in divergence} == {f.second.line for f in divergence}  # each names the other
    assert_clean(check(file, "both_arms_fixed"))


def test_whole_warps_at_two_barriers_are_a_warning_and_a_warp_split_between_them_an_error():
    """warp_arms: the first warp passes one __syncthreads(), the others another; released
    together (barrier 0 counts warps), nothing races: a warning, with one warp or two in the
    second arm. Split inside a warp (both_arms' 16 threads) it is an error (the test above)."""
    file = "barrier_verdicts.cu"
    result = check(file, "warp_arms", ((1, 1, 1), (64, 1, 1), {}))
    divergence = [f for f in result.findings if f.type == "barrier-divergence"]
    assert {f.line for f in divergence} == {line_of(file, "// the first warp's"), line_of(file, "// the second warp's")}
    assert all(f.severity == "warning" and "whole warps wait at each of the two barriers" in f.message
               for f in divergence)
    assert [f for f in result.findings if f.type != "barrier-divergence"] == []
    wider = check(file, "warp_arms", ((1, 1, 1), (96, 1, 1), {}))  # one warp in the first arm, two in the second
    assert {f.severity for f in wider.findings if f.type == "barrier-divergence"} == {"warning"}


def test_the_barrier_inside_the_branch_diverges_not_the_one_all_threads_reach():
    file = "barrier_verdicts.cu"
    result = check(file, "branch_then_uniform", ((1, 1, 1), (64, 1, 1), {}))
    (finding,) = result.findings
    assert finding.type == "barrier-divergence" and finding.line == line_of(file, "// divergent: only the first warp")
    assert finding.second.access == "barrier"
    assert finding.second.line == line_of(file, "// every thread reaches this one")
    assert [v.divergent for v in result.verdicts] == [True, False]
    assert_clean(check(file, "branch_then_uniform_fixed", ((1, 1, 1), (64, 1, 1), {})))


def test_of_two_barriers_back_to_back_the_first_is_redundant_and_the_second_needed():
    file = "barrier_verdicts.cu"
    result = check(file, "back_to_back", ((1, 1, 1), (64, 1, 1), {}))
    assert [v.verdict for v in result.verdicts] == ["redundant", "needed"]
    assert [(f.type, f.line) for f in result.findings] == [("redundant-barrier", line_of(file, "// first of two"))]


def test_a_barrier_never_reached_is_not_covered():
    file = "barrier_verdicts.cu"
    result = check(file, "early_exit", ((1, 1, 1), (64, 1, 1), {"n": 0}))
    assert [v.verdict for v in result.verdicts] == ["not-covered"]
    assert kinds(result) == ["vacuous-check"]  # n = 0: every thread left before touching memory


def test_verdicts_merge_launches():
    """A barrier is redundant only if no launch needs it."""
    file = "paper_examples.cu"
    zero, some = np.zeros(64, np.int32), np.full(64, 2, np.int32)
    quiet = check(file, "loop_trip_barrier_fixed", ((1, 1, 1), (64, 1, 1), {"trips": zero, "most": 2}))
    # nobody writes in the loop: the barrier between its reads was put to no test, the last one orders no write
    assert [v.verdict for v in quiet.verdicts] == ["needed", "not-covered", "redundant"]
    both = check(file, "loop_trip_barrier_fixed", ((1, 1, 1), (64, 1, 1), {"trips": zero, "most": 2}),
                 ((1, 1, 1), (64, 1, 1), {"trips": some, "most": 2}))
    assert [v.verdict for v in both.verdicts] == ["needed", "needed", "needed"]
    assert both.findings == []


# ---------------------------------------------------------------------------- findings are summarized


def test_one_finding_per_pair_of_locations_with_counts():
    file = "global_races.cu"
    result = check(file, "neighbour_blocks", ((8, 1, 1), (256, 1, 1), {"n": 2048}))
    keys = [(f.first.line, f.first.column, f.second.line, f.second.column) for f in result.findings]
    assert len(keys) == len(set(keys)) <= 4
    assert sum(f.instances for f in result.findings) > 100  # thousands of dynamic races, a few findings


def test_default_launch_shape():
    loaded = program(KERNELS / "global_races.cu")
    one_d = default_launch(loaded.kernel("neighbour_blocks"))
    assert (one_d.grid, one_d.block, one_d.args["n"]) == ((2, 1, 1), (64, 1, 1), 128)
    two_d = default_launch(loaded.kernel("transpose_no_barrier"))
    assert (two_d.grid, two_d.block, two_d.args["width"]) == ((2, 2, 1), (16, 4, 1), 32)
    block_only = default_launch(loaded.kernel("same_flag"))
    assert block_only.grid == (1, 1, 1)
    given = default_launch(loaded.kernel("neighbour_blocks"), {"n": 5}, (3, 1, 1), (32, 1, 1))
    assert (given.grid, given.block, given.args["n"]) == ((3, 1, 1), (32, 1, 1), 5)


@pytest.mark.parametrize("model", [INDEPENDENT, LOCKSTEP])
def test_reduction_is_clean_and_every_barrier_needed(model):
    result = check("reduction.cu", "reduce_sum", ((4, 1, 1), (256, 1, 1), {"n": 1000}), warp_model=model)
    assert_clean(result)
    assert [v.verdict for v in result.verdicts] == ["needed", "needed"]


def test_grid_barrier_divergence_when_threads_leave_before_grid_sync():
    file = "cooperative_groups.cu"
    result = check(file, "grid_sum_early_exit", ((2, 1, 1), (64, 1, 1), {"n": 100}))
    (finding,) = result.findings
    assert finding.type == "barrier-divergence" and finding.line == line_of(file, "grid.sync();", "grid_sum_early_exit")
    assert finding.severity == "error"  # a grid barrier: a block whose exited thread 0 never signals the grid
    assert finding.second.access == "exit" and finding.second.block == (1, 0, 0) and finding.second.thread[0] >= 36
    assert_clean(check(file, "grid_sum_early_exit", ((2, 1, 1), (64, 1, 1), {"n": 128})))


def test_a_launch_breaking_the_kernels_assumption_reports_only_that():
    result = check("assumptions.cu", "fixed_block", ((1, 1, 1), (128, 1, 1), {}))
    (finding,) = result.findings
    assert (finding.type, finding.severity, finding.line) == \
        ("invalid-launch", "warning", line_of("assumptions.cu", "__assume(blockDim.x == 64)"))
    assert_clean(check("assumptions.cu", "fixed_block", ((1, 1, 1), (64, 1, 1), {})))


def test_only_common_bytes_conflict():
    file = "access_widths.cu"
    assert_clean(check(file, "char_neighbours"))
    int_store, char_store = line_of(file, "*(int *)c = 0;"), line_of(file, "c[3] = 1;")
    assert races(check(file, "int_over_char")) == {
        ("write-write", "global", "inter-warp", int_store, char_store, False)}
    wide, inside = line_of(file, "reinterpret_cast<float4 *>(f)[1]"), line_of(file, "f[6] = 1.0f;")
    result = check(file, "float4_over_float")
    assert races(result) == {("write-write", "global", "inter-warp", wide, inside, False)}
    assert result.findings[0].addresses == 1


def test_a_race_benign_in_one_launch_but_not_another_is_an_error():
    same, different = ((1, 1, 1), (64, 1, 1), {"k": 64}), ((1, 1, 1), (64, 1, 1), {"k": 1})
    assert [f.benign for f in check("merged_findings.cu", "quotient_flag", same).findings] == [True]
    for launches in ((same, different), (different, same)):
        (finding,) = check("merged_findings.cu", "quotient_flag", *launches).findings
        assert (finding.benign, finding.severity, finding.launch["args"]) == (False, "error", {"k": 1})
        assert "same value" not in finding.message


def test_a_kernel_that_accessed_no_memory_is_a_vacuous_check_not_a_silent_ok():
    # a count of 0 sends every thread home before its first access
    zeros = check("struct_param.cu", "apply", ((2, 1, 1), (64, 1, 1), {"params.count": 0}))
    assert [(f.type, f.severity, f.line) for f in zeros.findings] == \
        [("vacuous-check", "warning", line_of("struct_param.cu", "__global__ void apply"))]
    params = np.zeros(1, dtype=[("dt", "f4"), ("count", "i4"), ("damping", "f8"), ("steps", "i4"), ("pad", "i4")])
    params[0] = (0.5, 64, 0.9, 3, 0)
    assert check("struct_param.cu", "apply", params=params.tobytes()).findings == []


def test_tables_of_pointers_point_to_buffers_of_their_own():
    rows = ((4, 1, 1), (64, 1, 1), {"cols": 64})
    assert check("pointer_tables.cu", "bump_rows", rows).findings == []  # no null pointer, no race between rows
    shift = line_of("pointer_tables.cu", "rows[blockIdx.x][threadIdx.x] =", "shift_rows")
    assert races(check("pointer_tables.cu", "shift_rows", rows)) == {
        ("read-write", "global", "inter-warp", shift, shift, False)}
    assert check("pointer_tables.cu", "shift_rows_fixed", rows).findings == []
    layers = check("pointer_tables.cu", "first_of_layer", ((2, 2, 1), (1, 1, 1), {}))
    first = line_of("pointer_tables.cu", "layers[blockIdx.y][0][0]")
    assert [(f.type, f.hazard, f.scope, f.line, f.instances) for f in layers.findings] == \
        [("data-race", "write-write", "inter-block", first, 2)]  # one race per layer, none across layers


def test_members_of_a_struct_by_value_are_listed_and_keep_their_defaults_in_the_search():
    loaded = program(KERNELS / "struct_members.cu")
    window = loaded.kernel("window").params[1]
    assert [(f.name, f.kind, f.bits, f.offset) for f in window.fields] == [
        ("w.range.lo", "integer", 32, 0), ("w.range.hi", "integer", 32, 4), ("w.taps[0]", "float", 32, 8),
        ("w.taps[1]", "float", 32, 12), ("w.taps[2]", "float", 32, 16), ("w.flip", "integer", 1, 20),
        ("w.shift", "integer", 8, 21)]
    assert window.to_json()["members"][5] == {"name": "w.flip", "type": "bool", "kind": "integer", "offset": 20}
    assert program(KERNELS / "enum_params.cu").kernel("apply_op").params[1].to_json()["choices"] == [3, 7, 11]
    # rows and cols default to the threads along x, the stride to twice that: a matrix whose rows never overlap
    found = explored("struct_members.cu", "copy_next")
    assert found.findings == [] and "d.stride" not in found.search["genes"]
    assert {launch["args"]["d.stride"] for launch in found.launches} == {2 * found.launches[-1]["args"]["d.rows"]}
    assert explored("struct_members.cu", "copy_next_fixed").findings == []


def test_members_given_are_kept_and_the_rest_default():
    d = check("struct_members.cu", "copy_next", ((1, 1, 1), (32, 1, 1), {"d.rows": 32, "d.stride": 2}))
    assert d.findings == [] and d.launches[0]["args"]["d.stride"] == 2  # rows 2 apart never meet
    one = check("struct_members.cu", "copy_next", ((1, 1, 1), (32, 1, 1), {"d.rows": 32, "d.stride": 1}))
    assert kinds(one) == ["warp-synchronous-race"]  # lanes of one warp: ordered were it in lockstep


def explored(file: str, kernel: str):
    """The check `simulee check` makes with no launch given: the search from the default launch."""
    from simulee.checker.kernel import Settings, explore

    loaded = program(KERNELS / file)
    info = loaded.kernel(kernel)
    return explore(loaded, info, default_launch(info), set(), Settings())


def test_a_kernel_no_launch_of_which_could_be_made_is_not_checked_and_a_full_trace_checks_fewer_blocks(monkeypatch):
    from dataclasses import replace

    from interpreter.simt import execute
    from simulee.checker import kernel as checking
    from simulee.checker.kernel import NOT_CHECKED

    loaded = program(KERNELS / "reduction.cu")
    info = loaded.kernel("reduce_sum")
    launch = default_launch(info, {"n": 128}, (2, 1, 1), (64, 1, 1))
    parted = check_kernel(loaded, info, [replace(launch, trace_limit=100)])  # its trace fills at once: in parts
    assert parted.status == "ok" and parted.launches[0]["parts"] > 1 and parted.findings == []
    checked_in_parts = checking.CHECK_ACCESSES
    monkeypatch.setattr(checking, "CHECK_ACCESSES", 150)  # too few to judge it in parts, and one block fills a trace
    cut = check_kernel(loaded, info, [replace(launch, trace_limit=100)])
    assert cut.status == "ok" and cut.launches[0]["status"] == "ok" and cut.findings == []
    assert cut.notes[0] == ("launch grid (2,1,1) block (64,1,1) made more accesses than a check keeps: checked on 1 of "
                            "its 2 blocks (linear block indices 0), each to its end in parts")
    monkeypatch.setattr(checking, "CHECK_ACCESSES", checked_in_parts)
    whole = check_kernel(loaded, info, [launch])
    assert whole.status == "ok" and whole.findings == []
    full = execute(loaded, info, launch)
    wide = replace(launch, grid=(16, 1, 1), trace_limit=len(full.trace) * 2)
    parts = check_kernel(loaded, info, [wide])
    assert parts.status == "ok" and parts.notes == []  # 16 blocks overflow the trace: judged in parts, all of them
    monkeypatch.setattr(checking, "CHECK_ACCESSES", 0)  # too many to judge in parts
    fewer = check_kernel(loaded, info, [wide])
    assert fewer.status == "ok"  # a sample of them fits, from the first to the last
    assert fewer.notes[0].startswith("launch grid (16,1,1) block (64,1,1) made more accesses than a check keeps: "
                                     "checked on ") and fewer.notes[0].endswith("15)")
    nothing = check_kernel(loaded, info, [])  # no launch could be made
    assert (nothing.status, nothing.error) == (NOT_CHECKED, "not checked: no launch could be made")


def test_an_enum_parameter_takes_only_its_enumerators():
    info = program(KERNELS / "enum_params.cu").kernel("apply_op")
    assert info.params[1].choices == (3, 7, 11) and default_launch(info).args["op"] == 3
    found = explored("enum_params.cu", "apply_op")
    assert [(f.type, f.line) for f in found.findings] == [("data-race", line_of("enum_params.cu", "neighbours race"))]
    assert {launch["args"]["op"] for launch in found.launches} <= {3, 7, 11}


def test_the_search_tries_the_constants_the_code_compares_against():
    from evolve.constants import compared_constants

    loaded = program(KERNELS / "magic_values.cu")
    assert compared_constants(loaded, loaded.kernel("magic")) == (1337, 1336, 1338, 0, -1, 1)  # and the edges
    magic = explored("magic_values.cu", "magic")
    assert [(f.type, f.line) for f in magic.findings] == [("data-race", line_of("magic_values.cu", "every thread"))]
    assert explored("magic_values.cu", "magic_fixed").findings == []
    assert 185 in compared_constants(loaded, loaded.kernel("two_writers"))
    writers = explored("magic_values.cu", "two_writers")
    assert [(f.type, f.line, f.launch["args"]["x"]) for f in writers.findings] == \
        [("data-race", line_of("magic_values.cu", "meets thread 200"), 185)]
    mode = explored("magic_values.cu", "by_mode")
    assert [(f.type, f.line) for f in mode.findings] == [("data-race", line_of("magic_values.cu", "neighbours race"))]


def test_a_barrier_in_a_loop_one_iteration_never_tested_is_not_covered_not_redundant():
    file = "barrier_verdicts.cu"
    one = check(file, "tiled", ((2, 1, 1), (64, 1, 1), {"tiles": 1}))
    assert [v.verdict for v in one.verdicts] == ["needed", "not-covered"] and one.findings == []
    assert one.verdicts[1].passes == 2 and "at most one iteration" in one.verdicts[1].reason
    two = check(file, "tiled", ((2, 1, 1), (64, 1, 1), {"tiles": 2}))
    assert [v.verdict for v in two.verdicts] == ["needed", "needed"]
    assert two.verdicts[1].race.first.line == line_of(file, "tile[threadIdx.x] = in[k")


def test_a_barrier_in_a_loop_whose_two_iterations_only_ran_in_blocks_of_one_thread_is_not_covered():
    from simulee.detect.redundant import NEVER_BOTH

    file = "barrier_verdicts.cu"
    apart = check(file, "tiled", ((2, 1, 1), (1, 1, 1), {"tiles": 2}), ((2, 1, 1), (64, 1, 1), {"tiles": 1}))
    assert [v.verdict for v in apart.verdicts] == ["needed", "not-covered"] and apart.findings == []
    assert apart.verdicts[1].reason == NEVER_BOTH


def test_races_that_need_what_the_buffers_hold_are_found_and_are_warnings_that_name_the_buffer():
    file = "buffer_contents.cu"
    for kernel, line in (("threshold", "threads above the threshold race"),
                         ("negative_first", "threads with a negative input race")):
        found = explored(file, kernel)
        assert [(f.type, f.severity, f.line) for f in found.findings] == [("data-race", "warning", line_of(file, line))]
        assert found.findings[0].launch["fill"] != "zeros"  # the witness says what the buffers held
        assert found.findings[0].details["conditional"].startswith("only for some contents of in: Simulee made up")
    assert "@fill" in explored(file, "threshold").search["genes"]
    for fixed in ("threshold_fixed", "scatter_fixed"):
        assert explored(file, fixed).findings == []
    given = check(file, "threshold", ((1, 1, 1), (64, 1, 1), {"in": np.arange(64, dtype=np.int32) * 3}))
    assert [(f.type, f.severity) for f in given.findings] == [("data-race", "error")]  # the user's values


def test_a_race_through_what_an_index_array_holds_is_a_warning_unless_the_user_gives_the_array():
    file = "buffer_contents.cu"
    (race,) = explored(file, "scatter").findings  # out[index[t]]: the program's index may well be a permutation
    assert (race.type, race.severity, race.line) == ("data-race", "warning", line_of(file, "duplicate indices race"))
    assert "only for some contents of index" in race.message
    given = check(file, "scatter", ((1, 1, 1), (64, 1, 1), {"index": np.arange(64, dtype=np.int32) // 2}))
    assert [(f.type, f.severity) for f in given.findings] == [("data-race", "error")]  # the user's duplicates
    distinct = check(file, "scatter", ((1, 1, 1), (64, 1, 1), {"index": np.arange(64, dtype=np.int32)}))
    assert distinct.findings == []


def test_the_faults_of_one_wild_pointer_read_at_several_lines_are_one_finding():
    file = "faults.cu"
    rows = np.zeros(2, dtype=np.int64)  # the user's row table: a null row pointer
    (fault,) = check(file, "wild_row", ((1, 1, 1), (32, 1, 1), {"rows": rows})).findings
    first = line_of(file, "the first read through the null row pointer")
    assert (fault.type, fault.severity, fault.line) == ("null-pointer", "error", first)
    assert f"at lines {first + 1}, {first + 2} too" in fault.message
    made_up = check(file, "wild_row", ((1, 1, 1), (32, 1, 1), {}))  # Simulee's own rows: not the kernel's fault
    assert made_up.findings == []


def test_freeing_a_pointer_simulee_put_in_a_table_is_a_warning_about_the_table():
    file = "heap.cu"
    (free,) = check(file, "release_rows", ((1, 1, 1), (32, 1, 1), {})).findings
    assert (free.type, free.severity, free.line) == ("invalid-free", "warning", line_of(file, "frees a row the table"))
    assert "only for some contents of the buffers rows points to" in free.message
    (inside,) = [f for f in check(file, "free_inside", ((1, 1, 1), (32, 1, 1), {})).findings
                 if f.type == "invalid-free"]  # p + 4 of the kernel's own malloc: its bug whatever the buffers hold
    assert inside.severity == "error"


def test_a_fault_at_an_address_made_up_content_gives_is_a_note_not_a_finding():
    file = "buffer_contents.cu"
    zeros = check(file, "scatter", ((1, 1, 1), (64, 1, 1), {}))  # zeros: every thread writes out[0]
    assert [f.type for f in zeros.findings] == ["data-race"]
    from simulee.checker.kernel import check_kernel, default_launch

    loaded = program(KERNELS / file)
    info = loaded.kernel("scatter")
    binned = loaded.kernel("binned")  # a shared array of 64 bins
    far = check_kernel(loaded, binned, [default_launch(binned, {}, (1, 1, 1), (64, 1, 1), fill="wide")])
    assert far.findings == [] and far.launches[0]["status"] == "ok"  # no out-of-bounds error
    assert "what bin holds (content Simulee made up) is out of bounds: not reported" in far.notes[0]
    # an index past the bytes Simulee gives a buffer of no given size: the launch was too large, not faulty
    huge = check_kernel(loaded, info, [default_launch(info, {}, (1, 1, 1), (64, 1, 1), fill="wide")])
    assert [f.type for f in huge.findings] == ["data-race"]
    note, negative = huge.notes  # negative indices are below the buffer's start: out of bounds, the content's
    assert "what index holds (content Simulee made up) is out of bounds: not reported" in negative
    line = line_of(file, "duplicate indices race")
    assert "reaches past what Simulee gives a buffer of no given size (1,024 MiB, 16,384 pointers in a table of " \
           f"them) (line {line})" in note
    given = check(file, "scatter", ((1, 1, 1), (64, 1, 1), {"index": np.full(64, 1 << 20, np.int32)}))
    assert [f.type for f in given.findings] == ["data-race"]  # the user's index: it is the kernel's to check


def test_a_race_through_made_up_content_that_other_contents_still_show_is_an_error():
    file = "buffer_contents.cu"
    (race,) = explored(file, "counted").findings  # slot = atomicAdd(count, t): threads 0 and 1 meet whatever count is
    assert (race.type, race.severity) == ("data-race", "error") and "conditional" not in race.details


def test_a_race_that_permuted_structs_still_show_is_a_warning_about_them():
    file = "buffer_contents.cu"
    (race,) = explored(file, "add_blocks").findings  # identity spans {i, i} overlap: no content of numbers is neutral
    line = line_of(file, "blocks whose spans overlap")
    assert (race.type, race.severity, race.line) == ("data-race", "warning", line)
    assert "only for some contents of spans" in race.message
    apart = np.array([(32 * block, 32) for block in range(4)], dtype=np.int32)  # the program's disjoint spans
    assert check(file, "add_blocks", ((4, 1, 1), (32, 1, 1), {"spans": apart})).findings == []


def test_a_race_only_an_in_place_call_makes_is_a_warning_that_says_so():
    file = "buffer_contents.cu"
    (race,) = explored(file, "shift").findings
    assert (race.type, race.severity, race.line) == ("data-race", "warning", line_of(file, "in place, thread t"))
    assert race.launch["args"]["in"] == "=out" and "only when in==out" in race.message
    assert explored(file, "shift_from_input").findings == []  # a const input is never the output
    given = check(file, "shift", ((1, 1, 1), (64, 1, 1), {"in": Alias("out")}))  # the user says it is in place
    assert [(f.type, f.severity) for f in given.findings] == [("data-race", "error")]


def test_a_race_made_up_contents_show_without_an_in_place_call_is_told_by_the_contents():
    from simulee.checker.kernel import Given, Settings, check_given

    file = "buffer_contents.cu"
    loaded = program(KERNELS / file)
    info = loaded.kernel("add_shifted")
    line = line_of(file, "shifted slots that meet race")
    for found in (explored(file, "add_shifted"), check_given(loaded, info, Given((2, 1, 1), (64, 1, 1)), Settings())):
        assert {(f.type, f.severity, f.line) for f in found.findings} == {("data-race", "warning", line)}
        in_place = [f for f in found.findings if "only when y==x" in f.message]
        assert in_place and all(f.launch["args"]["y"] == "=x" for f in in_place)  # the read of x meets the writes
        (both,) = [f for f in found.findings if "(write-write" in f.message]  # shown on separate buffers too
        assert "only for some contents of offsets" in both.message and "=x" not in both.launch["args"].values()
    offsets = -(np.arange(128, dtype=np.int32) % 2)  # the user's offsets: i and i + 1 meet at every even slot
    x = np.arange(128, dtype=np.float32)  # the two write different sums
    given = check(file, "add_shifted", ((2, 1, 1), (64, 1, 1), {"offsets": offsets, "x": x}))
    assert {(f.type, f.severity) for f in given.findings if "(write-write" in f.message} == {("data-race", "error")}


def test_a_scalar_that_takes_a_uniform_index_past_a_table_is_a_contract_not_a_bug():
    file = "buffer_contents.cu"
    searched = explored(file, "per_level")
    assert searched.findings == [] and "level=64" in searched.notes[0]
    assert any(entry["status"] == "ok" for entry in searched.launches)  # smaller levels were checked
    given = check(file, "per_level", ((1, 1, 1), (32, 1, 1), {"level": 20}))  # a value the user chose is a bug
    assert [f.type for f in given.findings] == ["out-of-bounds"]


def test_a_barrier_no_launch_put_to_the_test_is_not_covered_not_redundant():
    from simulee.detect.redundant import NOTHING_ACROSS

    lone = check("reduction.cu", "reduce_sum", ((2, 1, 1), (1, 1, 1), {"n": 2}))  # one thread per block
    assert [v.verdict for v in lone.verdicts] == ["not-covered", "not-covered"] and lone.findings == []
    assert lone.verdicts[0].passes == 2 and lone.verdicts[0].reason == NOTHING_ACROSS
    full = check("reduction.cu", "reduce_sum", ((2, 1, 1), (64, 1, 1), {"n": 128}))
    assert [v.verdict for v in full.verdicts] == ["needed", "needed"]


def test_a_searched_stride_spans_every_gate_of_a_row():
    """Row strides are padded to 1 + the largest multiple of a size the kernel adds to a row
    (three gates: 3x cells), so rows never overlap; a race inside a row is still found."""
    from evolve.taint import row_span

    loaded = program(KERNELS / "row_span.cu")
    assert row_span(loaded, loaded.kernel("three_gates"), {"stride"}) == 3
    found = explored("row_span.cu", "three_gates")
    assert found.findings == []
    assert all(launch["args"]["stride"] >= 3 * launch["args"]["cells"] for launch in found.launches)
    shifted = explored("row_span.cu", "three_gates_shifted")
    shifted_write = line_of("row_span.cu", "+ 1] = 4.0f")
    assert any(f.type == "data-race" and shifted_write in (f.line, f.second.line) for f in shifted.findings)


@pytest.mark.parametrize("kernel, fault, severity, marker", [
    ("bucket", "bad-function-pointer", "warning", "the host's map is a function"),
    ("bucket_table", "bad-function-pointer", "error", "odd threads call null"),
    ("scale", "division-by-zero", "warning", "the host's divisor is never 0"),
    ("scale_own", "division-by-zero", "error", "every fourth thread divides by 0")])
def test_a_fault_on_struct_members_simulee_could_not_fill_is_a_warning(kernel, fault, severity, marker):
    """A function pointer in a struct passed by value, and a union member, are what the host
    sets: faults through them are warnings naming them; faults of the kernel's own values
    (and of a dividend Simulee made up, which decides no division by zero) are errors."""
    (found,) = explored("struct_unfilled.cu", kernel).findings
    assert (found.type, found.severity, found.line) == (fault, severity, line_of("struct_unfilled.cu", marker))
    if severity == "warning":
        member = "the pointers in b" if kernel == "bucket" else "the members of s"
        assert f"only for some values of {member}: a struct passed by value" in found.message


def test_a_function_declared_and_never_defined_returns_made_up_values_a_finding_on_them_says_so():
    file = "undefined_calls.cu"
    (made_up,) = explored(file, "slot_from_nondet").findings  # threads meet only where nondet's values repeat
    assert (made_up.type, made_up.severity, made_up.line) == ("data-race", "warning",
                                                              line_of(file, "slots made up by nondet race"))
    assert "only for some values of what nondet() returns: the program declares nondet() and never defines it" \
        in made_up.message
    (whatever,) = explored(file, "first_slot").findings  # record(nondet()) changes nothing; out[0] is shared
    assert (whatever.type, whatever.severity, whatever.line) == ("data-race", "error",
                                                                 line_of(file, "every thread writes here"))
    counted = explored(file, "own_count")  # while (nondet()) ends, and each thread writes its own slot
    assert counted.findings == [] and any(entry["status"] == "ok" for entry in counted.launches)
    pointed = explored(file, "through_lookup")  # a made-up pointer's fault is a note, not the kernel's bug
    assert pointed.findings == [] and "computed from what lookup(int) returns (content Simulee made up)" in \
        pointed.notes[0]
