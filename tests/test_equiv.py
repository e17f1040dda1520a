"""simulee equiv: two versions of a kernel on the same launches and inputs. Each pair in
both directions: the optimization that computes the same is equivalent, the broken one
differs (with the launch, the element and who wrote it)."""

from __future__ import annotations

import json

import pytest

from conftest import TESTS, line_of, lines_of

EQUIV = TESTS / "equiv"
TRANSPOSE, REDUCE, PADDING, MATMUL = (EQUIV / name for name in ("transpose.cu", "reduce.cu", "padding.cu",
                                                                 "matmul.cu"))


def equiv(run_cli, old, new, *options):
    status, out, err = run_cli("equiv", old, new, "--format", "json", "-q", *options)
    assert status in (0, 1), err
    return status, json.loads(out)


def test_a_tiled_transpose_is_equivalent_to_the_naive_one(run_cli):
    status, report = equiv(run_cli, f"{TRANSPOSE}:transpose_naive", f"{TRANSPOSE}:transpose_tiled", "--block", "16,16",
                           "--no-prove")
    assert status == 0 and report["verdict"] == "equivalent" and report["launches"] > 10
    assert report["difference"] is None and report["inconclusive"] == []


def test_a_launch_whose_trace_a_check_would_not_hold_is_not_compared(run_cli, monkeypatch):
    import simulee.checker.equivalence

    monkeypatch.setattr(simulee.checker.equivalence, "TRACE_LIMIT", 100)  # the transpose's launch makes thousands
    status, out, err = run_cli("equiv", f"{TRANSPOSE}:transpose_naive", f"{TRANSPOSE}:transpose_tiled", "--block",
                               "16,16", "--no-search", "--no-prove", "--format", "json", "-q")
    report = json.loads(out)
    assert report["verdict"] == "not-compared" and report["launches"] == 0, report
    assert "trace-limit" in report["inconclusive"][0]["reason"]


def test_a_tile_off_by_one_at_its_edge_differs_there(run_cli):
    status, report = equiv(run_cli, f"{TRANSPOSE}:transpose_naive", f"{TRANSPOSE}:transpose_tiled_edge",
                           "--block", "16,16")
    assert status == 1 and report["verdict"] == "differ"
    difference = report["difference"]
    assert difference["buffer"] == "out" and difference["differing"] > 0
    naive_store = line_of(TRANSPOSE, "out[x * height + y] = in[y * width + x]")
    assert difference["old_writer"].endswith(f"transpose.cu:{naive_store}")
    assert difference["new_writer"] == "not written (its initial value)"
    # the element is one a thread at the tile's last column would have written
    height = difference["launch"]["args"]["height"]
    assert (difference["index"] % height) % 16 == 15


@pytest.mark.parametrize("version", ["reduce_sequential", "reduce_add_on_load", "reduce_warp_synced",
                                     "reduce_shuffle"])
def test_each_reduction_optimization_computes_what_the_first_did(run_cli, version):
    status, report = equiv(run_cli, f"{REDUCE}:reduce_interleaved", f"{REDUCE}:{version}", "--block", "128")
    assert status == 0 and report["verdict"] == "equivalent", report


def test_the_unsynchronized_last_warp_is_not_equivalent_it_races(run_cli):
    status, report = equiv(run_cli, f"{REDUCE}:reduce_interleaved", f"{REDUCE}:reduce_warp_unsynced",
                           "--block", "128")
    assert status == 1 and report["verdict"] == "differ"
    assert report["difference"]["behaviour"].startswith("reduce_warp_unsynced (new) races: warp-synchronous race")


def test_a_padding_change_differs_only_where_n_is_not_a_multiple_of_32_and_the_search_finds_it(run_cli):
    status, report = equiv(run_cli, f"{PADDING}:scale", f"{PADDING}:scale_padded", "--no-search", "--no-prove")
    assert status == 0 and report["verdict"] == "equivalent" and report["launches"] == 1  # n = the thread count
    assert report["proof"] is None
    status, report = equiv(run_cli, f"{PADDING}:scale", f"{PADDING}:scale_padded", "--no-prove")
    assert status == 1 and report["difference"]["buffer"] == "out"
    assert report["difference"]["launch"]["args"]["n"] % 32 != 0
    assert report["difference"]["old_writer"] == "not written (its initial value)"


def test_a_tiled_matmul_sums_in_another_order_equal_within_a_tolerance(run_cli):
    options = ("--block", "8,8", "--fill", "distinct", "--generations", "2")
    status, report = equiv(run_cli, f"{MATMUL}:matmul_naive", f"{MATMUL}:matmul_tiled", *options)
    assert status == 1 and report["difference"]["buffer"] == "c"  # bit for bit, rounding differs
    status, report = equiv(run_cli, f"{MATMUL}:matmul_naive", f"{MATMUL}:matmul_tiled", *options, "--rtol", "1e-5")
    assert status == 0 and report["verdict"] == "equivalent"


def test_parameters_in_another_order_are_matched_by_map(run_cli):
    status, report = equiv(run_cli, f"{PADDING}:scale", f"{PADDING}:scale_reordered", "--map", "n=n",
                           "--map", "in=in", "--map", "out=out")
    assert status == 0 and report["parameters"] == {"in": "in", "out": "out", "n": "n"}
    status, out, err = run_cli("equiv", f"{PADDING}:scale", f"{PADDING}:scale_reordered", "-q")
    assert status == 2 and "differ in kind (use --map OLD=NEW)" in err and len(err.splitlines()) == 1


def test_what_is_not_a_version_is_a_one_line_error(run_cli):
    status, _, err = run_cli("equiv", f"{PADDING}:scale", f"{PADDING}:scale_offset", "-q")
    assert status == 2 and "takes 3 parameters and scale_offset 4" in err and len(err.splitlines()) == 1
    status, _, err = run_cli("equiv", f"{PADDING}:scale", f"{PADDING}:scale_padded", "--map", "m=n", "-q")
    assert status == 2 and "scale has no parameter 'm'" in err
    status, _, err = run_cli("equiv", f"{PADDING}:scale", f"{PADDING}:missing", "-q")
    assert status == 2 and "missing" in err


def test_the_text_report_names_the_launch_the_element_and_its_writers(run_cli):
    status, out, _ = run_cli("equiv", f"{PADDING}:scale", f"{PADDING}:scale_padded", "-q")
    lines = out.splitlines()
    assert status == 1 and "scale (" in lines[0] and ") differ on grid (" in lines[0]
    assert lines[1].lstrip().startswith("out[") and "(old) vs" in lines[1] and "elements differ" in lines[1]
    assert lines[2].strip() == "old: not written (its initial value)"
    assert lines[3].strip().startswith("new: last written by thread (")


BARRIERS = EQUIV / "barriers.cu"


def test_a_barrier_whose_removal_changes_an_output_is_not_redundant(run_cli):
    status, out, err = run_cli("check", BARRIERS, "-k", "count_then_publish", "--format", "json", "-q")
    (kernel,) = json.loads(out)["kernels"]
    assert not [f for f in kernel["findings"] if f["type"] == "redundant-barrier"]
    second = lines_of(BARRIERS, "__syncthreads();")[1]  # count_then_publish's second
    (barrier,) = [b for b in kernel["barriers"] if b["line"] == second]
    assert barrier["verdict"] == "needed" and barrier["race"] is None
    assert barrier["reason"].startswith("without it, out[0] is ") and "instead of" in barrier["reason"]


def test_a_redundant_barrier_says_its_removal_was_checked(run_cli):
    status, out, err = run_cli("check", BARRIERS, "-k", "scale_twice", "--format", "json", "-q")
    (kernel,) = json.loads(out)["kernels"]
    (finding,) = [f for f in kernel["findings"] if f["type"] == "redundant-barrier"]
    assert "; removal checked: same outputs on " in finding["message"]
    assert finding["message"].endswith(" and proved for every launch")  # loop-free: the prover decides it
    (barrier,) = kernel["barriers"]
    assert barrier["verdict"] == "redundant" and barrier["removal_checked"] >= 1 and barrier["removal_proved"]



FIXES = EQUIV / "fixes.cu"


def fix(tmp_path, source, *options):
    """simulee fix on a copy of `source` in a git repository: (status, patch, stderr, the copy)."""
    import subprocess
    import sys
    from pathlib import Path

    copy = tmp_path / source.name
    copy.write_text(source.read_text())
    done = subprocess.run([str(Path(sys.executable).parent / "simulee"), "fix", copy.name, *options], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600)
    return done.returncode, done.stdout, done.stderr, copy


def test_fix_inserts_the_missing_barrier_and_the_patch_applies_with_git(tmp_path, run_cli):
    import subprocess

    status, patch, err, copy = fix(tmp_path, FIXES, "-k", "shift_left")
    assert status == 0, err
    fill = line_of(FIXES, "tile[threadIdx.x] = i < n ? in[i] : 0;", "shift_left")
    assert f"fixed fixes.cu:{fill}: inserted __syncthreads(); before line {fill + 1}" in err
    assert "+  __syncthreads();" in patch and patch.startswith("--- a/fixes.cu\n+++ b/fixes.cu\n")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "fix.patch").write_text(patch)
    subprocess.run(["git", "apply", "fix.patch"], cwd=tmp_path, check=True)
    status, out, _ = run_cli("check", copy, "-k", "shift_left", "--format", "json", "-q")
    assert status == 0 and json.loads(out)["kernels"][0]["findings"] == []


def test_fix_tries_again_what_a_later_edit_made_fixable_and_names_the_original_lines(tmp_path, run_cli):
    import subprocess

    status, patch, err, copy = fix(tmp_path, FIXES, "-k", "fold_unsynced", "--grid", "1", "--block", "32")
    assert status == 0 and "not fixed" not in err, err
    store, fold, copied = (line_of(FIXES, text, "fold_unsynced") for text in
                           ("part[threadIdx.x] = mine;", "if (threadIdx.x < width)", "= part[0];"))
    # the loop's barrier adds a race with the copy until the barrier after the loop is in: it is tried again
    assert f"fixed fixes.cu:{store}: inserted __syncwarp(); before line {copied}" in err
    assert f"fixed fixes.cu:{store}: inserted __syncwarp(); before line {fold}" in err  # the original's number
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "fix.patch").write_text(patch)
    subprocess.run(["git", "apply", "fix.patch"], cwd=tmp_path, check=True)
    status, out, _ = run_cli("check", copy, "-k", "fold_unsynced", "--grid", "1", "--block", "32", "--format",
                             "json", "-q")
    assert status == 0 and json.loads(out)["kernels"][0]["findings"] == []


def test_fix_puts_the_barrier_after_the_read_when_the_race_runs_into_the_next_iteration(tmp_path, run_cli):
    status, patch, err, copy = fix(tmp_path, FIXES, "-k", "rolling", "--grid", "1", "--block", "64", "--apply")
    assert status == 0 and "not fixed" not in err, err
    read = line_of(FIXES, "carried = cell[(threadIdx.x + 1) % blockDim.x];", "rolling")
    assert f"inserted __syncthreads(); before line {read + 1}" in err
    edited = copy.read_text().splitlines()
    assert edited[read - 1].strip() == "carried = cell[(threadIdx.x + 1) % blockDim.x];"
    assert edited[read].strip() == "__syncthreads();" and edited[read + 1].strip() == "}"


def test_fix_edits_only_the_file_it_is_given(run_cli):
    header = EQUIV / "headers" / "staged.cuh"
    status, out, err = run_cli("fix", EQUIV / "headers" / "uses_header.cu", "--block", "64")
    assert status == 1 and out == ""
    assert f"not fixed: {header.relative_to(TESTS.parent)}:{line_of(header, 'tile[threadIdx.x] = value;')}" \
        f": data-race in shift_through_header: it lies in another file than uses_header.cu" in err


def test_fix_never_puts_a_barrier_in_a_branch_some_threads_skip(tmp_path):
    status, patch, err, copy = fix(tmp_path, FIXES, "-k", "shift_half")
    assert status == 1 and patch == ""
    assert "not fixed: fixes.cu:" in err and "no edit removes it without changing what the kernel computes or " \
        "adding a finding" in err


def test_fix_removes_a_checked_redundant_barrier_and_keeps_the_needed_one(tmp_path):
    status, patch, err, copy = fix(tmp_path, BARRIERS, "--apply")
    assert status == 0 and patch == ""
    text = copy.read_text()
    assert text.count("__syncthreads();") == 2  # count_then_publish keeps both of its barriers
    assert "removed a redundant barrier (its removal checked)" in err and "barriers.cu edited (1 fixes)" in err


def test_fix_lists_what_a_barrier_cannot_fix(tmp_path):
    status, patch, err, copy = fix(tmp_path, REDUCE, "-k", "reduce_warp_unsynced")
    assert status == 1
    assert "+    __syncwarp();" in patch  # between the steps of the warp's tail
    assert "both accesses are in one statement: a barrier cannot go between them (split the statement)" in err


def test_a_patch_of_a_file_without_a_last_newline_applies(tmp_path):
    import subprocess

    source = tmp_path / "src" / "fixes.cu"
    source.parent.mkdir()
    source.write_text(FIXES.read_text().rstrip("\n").split("\n__global__ void shift_half")[0].rstrip("\n"))
    status, patch, err, copy = fix(tmp_path, source, "--block", "64", "--grid", "1")
    assert status == 0 and patch.endswith("\\ No newline at end of file\n"), err
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    (tmp_path / "fix.patch").write_text(patch)
    subprocess.run(["git", "apply", "fix.patch"], cwd=tmp_path, check=True)
    assert "__syncthreads();" in copy.read_text() and not copy.read_text().endswith("\n")


def test_fix_puts_the_barrier_where_every_thread_passes_not_inside_a_guard(tmp_path):
    status, patch, err, copy = fix(tmp_path, FIXES, "-k", "transpose_unsynced", "--block", "16,16")
    assert status == 0, err
    guard = line_of(FIXES, "if (x < height && y < width) {", "transpose_unsynced")
    assert f"inserted __syncthreads(); before line {guard}" in err
    assert "+  __syncthreads();\n   if (x < height && y < width) {" in patch


def test_apply_leaves_a_file_alone_while_something_is_left(tmp_path):
    status, patch, err, copy = fix(tmp_path, REDUCE, "-k", "reduce_warp_unsynced", "--apply")
    assert status == 1 and copy.read_text() == REDUCE.read_text()
    assert "reduce.cu not edited: " in err and "+    __syncwarp();" in patch



def test_the_launch_the_host_code_makes_is_compared_first(run_cli):
    launched = EQUIV / "launched.cu"
    status, report = equiv(run_cli, f"{launched}:square", f"{launched}:square_padded", "--no-prove")
    launch = report["difference"]["launch"]
    assert status == 1 and launch["grid"] == [4, 1, 1] and launch["block"] == [256, 1, 1] and \
        launch["args"]["n"] == 1000 and report["launches"] == 1
    status, report = equiv(run_cli, f"{launched}:square", f"{launched}:square_padded", "--no-prove",
                           "--no-launch-sites")
    assert report["difference"]["launch"]["args"]["n"] != 1000

# ---------------------------------------------------------------------------- proved for every launch
PROOFS = EQUIV / "proofs.cu"
LOOPS = EQUIV / "loops.cu"


def proof_of(run_cli, old, new, *options):
    status, report = equiv(run_cli, old, new, "--no-search", *options)
    return status, report, report["proof"]


def test_a_tiled_transpose_is_proved_equal_to_the_naive_one_for_every_grid(run_cli):
    status, report, proof = proof_of(run_cli, f"{TRANSPOSE}:transpose_naive", f"{TRANSPOSE}:transpose_tiled",
                                     "--block", "16,16", "--arg", "width=40", "--arg", "height=24")
    assert status == 0 and report["verdict"] == "proved-equivalent", proof
    assert proof["verdict"] == "proved" and "both versions are race-free (proved for every launch)" in \
        proof["assumptions"] and "the block given: (16, 16, 1)" in proof["assumptions"]


def test_parameters_in_another_order_are_proved_equal(run_cli):
    status, report, proof = proof_of(run_cli, f"{PADDING}:scale", f"{PADDING}:scale_reordered", "--map", "in=in",
                                     "--map", "out=out", "--map", "n=n")
    assert status == 0 and report["verdict"] == "proved-equivalent", proof


def test_the_prover_finds_the_launch_the_given_one_misses_and_the_interpreter_shows_it(run_cli):
    status, report, proof = proof_of(run_cli, f"{PADDING}:scale", f"{PADDING}:scale_padded")
    assert status == 1 and report["verdict"] == "differ" and proof["verdict"] == "differ"
    difference = report["difference"]
    n = difference["launch"]["args"]["n"]
    assert n % 32 != 0 and difference["index"] >= n and difference["old_writer"].startswith("not written")


@pytest.mark.parametrize("new", ["stage_twice", "stage_reversed"])
def test_the_last_store_is_what_a_version_leaves_through_shared_memory_too(run_cli, new):
    status, report, proof = proof_of(run_cli, f"{PROOFS}:stage_once", f"{PROOFS}:{new}", "--block", "256")
    assert status == 0 and report["verdict"] == "proved-equivalent", proof


@pytest.mark.parametrize("new", ["stage_swapped", "stage_neighbour"])
def test_a_version_that_leaves_other_values_is_never_proved(run_cli, new):
    status, report, proof = proof_of(run_cli, f"{PROOFS}:stage_once", f"{PROOFS}:{new}", "--block", "256")
    assert status == 1 and report["verdict"] == "differ" and report["difference"]["buffer"] == "out"


def test_floating_point_sums_are_proved_equal_when_only_operands_commute(run_cli):
    status, report, proof = proof_of(run_cli, f"{PROOFS}:sum_right", f"{PROOFS}:sum_swapped")
    assert status == 0 and report["verdict"] == "proved-equivalent", proof
    status, report, proof = proof_of(run_cli, f"{PROOFS}:sum_left", f"{PROOFS}:sum_right")
    assert report["verdict"] == "equivalent" and proof["verdict"] == "unknown"  # reassociated: never proved
    assert "did not show in the interpreter" in proof["reason"]


def prove_pair(old: str, new: str, given=None, effort=None):
    """The proof of two versions (file:kernel), through the API's loading as the CLI does it."""
    from simulee import api  # noqa: F401  (the package's lazy API loads the programs as the CLI does)
    from simulee.checker.equivalence import Pair
    from simulee.app.args import EquivArgs
    from simulee.app.equiv import version_of
    from simulee.prover.equivalence import prove_equivalent
    from simulee.prover.proof import Fixed

    options = EquivArgs().compile_options()
    (a, old_kernel), (b, new_kernel) = version_of(old, options), version_of(new, options)
    return prove_equivalent(Pair.of(a, old_kernel, b, new_kernel), given or Fixed(), effort=effort)


def test_a_racy_version_is_never_proved_and_what_the_proof_does_not_model_is_its_reason():
    from simulee.prover.proof import Fixed

    racy = prove_pair(f"{PROOFS}:stage_once", f"{PROOFS}:stage_racy", Fixed(block=(256, 1, 1)))
    assert racy.verdict == "unknown" and racy.reason.startswith("the new kernel is not proved race-free (race")
    faulting = prove_pair(f"{PROOFS}:read_null", f"{PROOFS}:read_null")
    assert faulting.verdict == "unknown" and "a load from memory the model does not place" in faulting.reason
    looping = prove_pair(f"{REDUCE}:reduce_sequential", f"{REDUCE}:reduce_sequential", Fixed(block=(128, 1, 1)))
    assert looping.verdict == "unknown" and "reads at line 27 what its loop at line 26 stores" in looping.reason


@pytest.mark.parametrize("kernel, reason", [
    ("scale_block_strided", "the old kernel is not proved race-free (race"),
    ("column_prefix", "the old kernel reads at line 56 what its loop at line 56 stores before a barrier passes"),
    ("column_total", "the old kernel stores at line 65 a value a loop carries from one iteration to the next"),
    ("column_until_zero", "the old kernel's loop at line 72 leaves from more than one place"),
])
def test_a_loop_the_proof_does_not_follow_is_named_with_its_line(kernel, reason):
    from simulee.prover.proof import Fixed

    args = {} if kernel.startswith("scale") else {"width": 64}
    proof = prove_pair(f"{LOOPS}:{kernel}", f"{LOOPS}:{kernel}", Fixed(grid=(4, 1, 1), block=(64, 1, 1), args=args))
    assert proof.verdict == "unknown" and proof.reason.startswith(reason), proof.reason


def test_a_grid_stride_loop_is_proved_equal_to_its_while_loop(run_cli):
    status, report, proof = proof_of(run_cli, f"{LOOPS}:scale_strided", f"{LOOPS}:scale_while", "--grid", "64",
                                     "--block", "256")
    assert status == 0 and report["verdict"] == "proved-equivalent", proof


def test_a_column_walked_up_is_proved_equal_to_one_walked_down_and_one_row_more_is_not(run_cli):
    from simulee.prover.proof import Fixed

    status, report, proof = proof_of(run_cli, f"{LOOPS}:column_down", f"{LOOPS}:column_up", "--block", "64",
                                     "--arg", "width=64")
    assert status == 0 and report["verdict"] == "proved-equivalent", proof
    over = prove_pair(f"{LOOPS}:column_down", f"{LOOPS}:column_over", Fixed(block=(64, 1, 1), args={"width": 64}))
    assert over.verdict == "differ" and over.buffer == "out", over


def test_a_loop_holding_a_barrier_is_proved_when_each_iteration_reads_what_it_staged():
    from simulee.prover.proof import Fixed

    given = Fixed(grid=(8, 1, 1), block=(256, 1, 1))
    staged = prove_pair(f"{LOOPS}:reverse_direct", f"{LOOPS}:reverse_staged", given)
    assert staged.verdict == "proved", staged.reason
    shifted = prove_pair(f"{LOOPS}:reverse_direct", f"{LOOPS}:reverse_staged_shifted", given)
    tiles = shifted.args.get("tiles", 0)
    assert shifted.verdict == "differ" and shifted.buffer == "out" and shifted.offset // 1024 == tiles - 1, shifted


def test_a_proof_bounded_in_z3s_units_decides_the_same_on_any_machine_and_stops_past_them():
    """What a check's removal proofs are given: units, not seconds. The same proof spends
    the same units each time; fewer than it needs leave it unknown, never proved."""
    from simulee.prover.proof import Fixed
    from simulee.prover.solve import Effort

    given = Fixed(grid=(8, 1, 1), block=(256, 1, 1))
    spent = []
    for _ in range(2):
        effort = Effort(10**12, 10**12)
        assert prove_pair(f"{LOOPS}:reverse_direct", f"{LOOPS}:reverse_staged", given, effort).verdict == "proved"
        spent.append(10**12 - effort.left)
    assert spent[0] == spent[1] > 0
    half = Effort(spent[0] // 2, spent[0] // 2)
    short = prove_pair(f"{LOOPS}:reverse_direct", f"{LOOPS}:reverse_staged", given, half)
    assert short.verdict == "unknown" and short.reason.endswith("ran out of its effort (z3's units)"), short.reason


@pytest.mark.parametrize("kernel, reason", [
    ("reverse_staged_late", "the new kernel reads at line 117 what an earlier iteration of its loop at line 116 may "
                            "have stored"),
    ("reverse_staged_racy", "the new kernel is not proved race-free (race"),
])
def test_what_a_loop_holding_a_barrier_carries_through_memory_is_never_proved(kernel, reason):
    from simulee.prover.proof import Fixed

    proof = prove_pair(f"{LOOPS}:reverse_direct", f"{LOOPS}:{kernel}", Fixed(grid=(8, 1, 1), block=(256, 1, 1)))
    assert proof.verdict == "unknown" and reason in proof.reason, proof.reason


def test_the_removal_of_a_barrier_in_a_loop_holding_others_is_proved(run_cli):
    status, out, err = run_cli("check", LOOPS, "-k", "reverse_tiles", "--grid", "2", "--block", "256", "--arg",
                               "tiles=6", "--format", "json", "-q")
    (kernel,) = json.loads(out)["kernels"]
    (finding,) = [f for f in kernel["findings"] if f["type"] == "redundant-barrier"]
    assert finding["line"] == lines_of(LOOPS, "__syncthreads();")[-3]  # reverse_tiles' first, opening a tile
    assert finding["message"].endswith(" and proved for every launch")
    assert [b["verdict"] for b in kernel["barriers"]] == ["redundant", "needed", "needed"]


def test_the_prover_finds_the_elements_only_a_grid_stride_loop_writes(run_cli):
    status, report, proof = proof_of(run_cli, f"{LOOPS}:scale_strided", f"{LOOPS}:scale_once", "--grid", "64",
                                     "--block", "256")
    assert status == 1 and report["verdict"] == "differ" and proof["verdict"] == "differ"
    difference = report["difference"]
    assert difference["index"] >= 64 * 256 and difference["new_writer"].startswith("not written")


def test_the_text_report_says_proved_and_what_it_assumed(run_cli):
    status, out, err = run_cli("equiv", f"{PADDING}:scale", f"{PADDING}:scale_reordered", "--map", "in=in", "--map",
                               "out=out", "--map", "n=n", "--no-search", "-q")
    assert status == 0, err
    first, assumed = out.splitlines()[:2]
    assert first.startswith("simulee: scale (") and "proved equivalent for every launch (and equal on 1 launch;" \
        in first
    assert assumed.startswith("    assumed: CUDA's launch limits") and "distinct pointer parameters" in assumed


def test_a_given_buffer_is_what_both_versions_read(run_cli):
    launch = ("--arg", "n=64", "--grid", "1", "--block", "64", "--no-prove")
    status, report = equiv(run_cli, f"{PROOFS}:clamp_select", f"{PROOFS}:clamp_branch", "--buffer",
                           "in=int32:64:ones", *launch)
    assert status == 0 and report["verdict"] == "equivalent" and report["launches"] == 1  # all positive: equal
    status, report = equiv(run_cli, f"{PROOFS}:clamp_select", f"{PROOFS}:clamp_branch", "--fill", "wide", *launch)
    assert status == 1 and report["difference"]["new_writer"] == "not written (its initial value)"
    assert report["difference"]["old"] == 0  # where the input is not positive
