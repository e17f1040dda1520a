"""Launches as users give them: CUDA's limits, huge grids, given and searched values mixed,
many parameters, long loops and endless ones."""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import KERNELS, at, line_of, position_of, program

MANY = KERNELS / "many_params.cu"
LOOPS = KERNELS / "loops.cu"
SAXPY = KERNELS / "saxpy.cu"


# ---------------------------------------------------------------------------- CUDA's limits


@pytest.mark.parametrize("option, value, message", [
    ("--grid", "2147483648", "--grid 2147483648: x is at most 2,147,483,647 in CUDA"),
    ("--grid", "99999999999999999999", "--grid 99999999999999999999: x is at most 2,147,483,647 in CUDA"),
    ("--grid", "1,65536", "--grid 1,65536: y is at most 65,535 in CUDA"),
    ("--grid", "1x1x65536", "--grid 1x1x65536: z is at most 65,535 in CUDA"),
    ("--block", "1025", "--block 1025: x is at most 1,024 in CUDA"),
    ("--block", "1,1025", "--block 1,1025: y is at most 1,024 in CUDA"),
    ("--block", "1x1x65", "--block 1x1x65: z is at most 64 in CUDA"),
    ("--block", "32,32,2", "--block 32,32,2: a block has at most 1024 threads in CUDA, not 2,048"),
    ("--grid", "0", "--grid 0: dimensions must be at least 1"),
    ("--grid", "-1", "--grid -1: expected 1 to 3 positive integers like 64, 64,2 or 8x8x1"),
    ("--block", "sixty", "--block sixty: expected 1 to 3 positive integers like 64, 64,2 or 8x8x1"),
    ("--block", "4,,4", "--block 4,,4: expected 1 to 3 positive integers like 64, 64,2 or 8x8x1"),
    ("--grid", "1,2,3,4", "--grid 1,2,3,4: expected 1 to 3 positive integers like 64, 64,2 or 8x8x1"),
    ("--grid", "²", "--grid ²: expected 1 to 3 positive integers like 64, 64,2 or 8x8x1"),
])
@pytest.mark.parametrize("command", ["run", "check", "trace"])
def test_a_launch_cuda_refuses_is_one_line_and_exit_2(run_cli, command, option, value, message):
    launch = {"--grid": "1", "--block": "32", option: value}
    status, out, err = run_cli(command, SAXPY, "--grid", launch["--grid"], "--block", launch["--block"],
                               "--arg", "n=8", "--arg", "a=1")
    assert status == 2 and out == "" and err == f"simulee: error: {message}\n"


def test_launch_options_are_checked_the_same(run_cli):
    status, _, err = run_cli("check", SAXPY, "--launch", "1/1x1x65")
    assert status == 2 and err == "simulee: error: --launch block 1x1x65: z is at most 64 in CUDA\n"
    status, _, err = run_cli("check", SAXPY, "--launch", "65536x65536/32")
    assert status == 2 and err == "simulee: error: --launch grid 65536x65536: y is at most 65,535 in CUDA\n"


def test_the_largest_launches_cuda_allows_start_at_once_and_stop_at_the_limits(run_cli):
    status, out, err = run_cli("run", SAXPY, "--grid", "2147483647", "--block", "1", "--arg", "n=8", "--arg", "a=1",
                               "--step-limit", "50")
    assert status == 0
    assert err.startswith(f"tests/kernels/saxpy.cu:{at(SAXPY, 'blockIdx.x * blockDim.x')}: warning: the launch "
                          "stopped at its step limit of 50 scheduler steps before its blocks finished: 1,310,720 of "
                          "2,147,483,647 blocks ran (raise it with --step-limit 500)\n")
    assert out.startswith("simulee: saxpy: 1,310,720 threads,")
    status, out, err = run_cli("run", SAXPY, "--grid", "65535,65535", "--block", "1024", "--arg", "n=8",
                               "--arg", "a=1", "--max-seconds", "0.5")
    assert status == 0 and "warning: the launch ran out of its 0.5 s of time before its blocks finished: " in err
    assert " of 4,294,836,225 blocks ran (--max-seconds, or a scan's --kernel-timeout)" in err


def test_a_launch_too_large_to_check_in_full_is_sampled_and_says_so(run_cli):
    status, out, _ = run_cli("check", SAXPY, "--grid", "65535", "--block", "1024", "--arg", "n=8", "--arg", "a=1",
                             "--no-search", "--format", "json")
    (kernel,) = json.loads(out)["kernels"]
    assert status == 0 and kernel["status"] == "ok" and kernel["findings"] == []
    (note,) = kernel["notes"]
    assert note == ("launch grid (65535,1,1) block (1024,1,1) has 67,107,840 threads, too many to check in full: "
                    "checked 1,024 of its 65,535 blocks (linear block indices 0-255, 21,759-22,014, 43,519-43,774, "
                    "65,279-65,534)")
    status, out, _ = run_cli("check", SAXPY, "--grid", "65535,65535", "--block", "1024", "--arg", "n=8",
                             "--arg", "a=1", "--no-search")  # blocks of one x and different y collide
    assert status == 1 and out.startswith(
        f"tests/kernels/saxpy.cu:{line_of(SAXPY, 'void saxpy(')}: note: saxpy: launch grid (65535,65535,1) block "
        "(1024,1,1) has 4,397,912,294,400 threads, too many to check in full: checked 1,024 of its 4,294,836,225 "
        "blocks (linear block indices 0-255, 1,431,611,989-1,431,612,244, 2,863,223,979-2,863,224,234, "
        "4,294,835,969-4,294,836,224)\n")
    assert "error: data race (read-write, global, inter-block)" in out


def test_the_trace_of_a_huge_run_is_cut_and_says_so(tmp_path):
    from interpreter.launch import Launch
    from interpreter.simt import execute

    loaded = program(SAXPY)
    result = execute(loaded, loaded.kernels[0], Launch(64, 256, {"n": 16384, "a": 1.0}, trace_limit=40000))
    assert len(result.trace) == 2 * 16384 and result.trace.dropped == 16384  # x and y read, the store of y cut
    assert result.status == "ok" and result.blocks_run == 64


# ---------------------------------------------------------------------------- given and searched values


SCALARS = ("n", "stride", "tag", "lane", "offset", "alpha", "beta", "flip")
GIVEN_VALUES = {"n": "5000", "stride": "2", "tag": "-3", "lane": "7", "offset": "-11", "alpha": "0.5",
                "beta": "-2.25", "flip": "true"}


@pytest.mark.parametrize("grid, block", [(None, None), ("64", None), (None, "64"), ("64", "64"), ("4096", "32"),
                                         ("3,2", "8x4")])
@pytest.mark.parametrize("given_args", [(), ("n",), ("stride", "flip", "beta"), SCALARS])
def test_every_mix_of_given_and_searched_values_is_checked(run_cli, grid, block, given_args):
    options = ["--grid", grid] if grid else []
    options += ["--block", block] if block else []
    for name in given_args:
        options += ["--arg", f"{name}={GIVEN_VALUES[name]}"]
    status, out, err = run_cli("check", MANY, "--generations", "2", "--population", "4", "--format", "json",
                               *options)
    assert status in (0, 1), err
    kernels = {k["kernel"]: k for k in json.loads(out)["kernels"]}
    assert all(k["status"] == "ok" for k in kernels.values()), err
    assert [f["type"] for f in kernels["scatter_fixed"]["findings"] if f["severity"] == "error"] == []
    for launch in kernels["scatter"]["launches"]:
        if grid:
            assert launch["grid"] == [int(v) for v in grid.split(",")] + [1] * (3 - len(grid.split(",")))
        for name in given_args:
            value = launch["args"][name]
            assert value == json.loads(GIVEN_VALUES[name]) or (name == "flip" and value == 1)
    if "stride" in given_args or not given_args:  # a stride of 2 (or the searched ones) collides
        assert any(f["type"] == "data-race" for f in kernels["scatter"]["findings"]), kernels["scatter"]


def test_a_given_grid_beyond_the_search_budget_searches_the_rest(run_cli):
    """The crash of issue 13: a grid the user gives, larger than --max-blocks, with a
    scalar to search, once turned the check into an internal error."""
    status, out, err = run_cli("check", MANY, "-k", "scatter", "--grid", "64", "--block", "64", "--max-blocks", "4",
                               "--format", "json")
    (kernel,) = json.loads(out)["kernels"]
    assert status == 1 and kernel["status"] == "ok", err
    assert "grid.x" not in kernel["search"]["genes"] and "stride" in kernel["search"]["genes"]
    assert all(launch["grid"] == [64, 1, 1] for launch in kernel["launches"])


def _space(fixed: frozenset, max_blocks: int):
    from evolve.space import SearchSpace
    from evolve.taint import relevant_parameters
    from simulee.checker.kernel import default_launch

    loaded = program(MANY)
    kernel = loaded.kernel("scatter")
    base = default_launch(kernel, grid=(64, 3, 1) if "grid" in fixed else None,
                          block=(8, 8, 4) if "block" in fixed else None)
    return SearchSpace.of(kernel, base, relevant_parameters(loaded, kernel), set(fixed), max_blocks,
                          ("tid.x", "tid.y", "tid.z", "ctaid.x", "ctaid.y", "ntid.x"))


@settings(max_examples=200, deadline=None)
@given(st.sets(st.sampled_from(["grid", "block", "n", "stride", "tag", "flip", "alpha"])),
       st.integers(1, 64),
       st.lists(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-2**70, 2**70)), min_size=16,
                max_size=16))
def test_repair_turns_any_genome_into_a_launch_cuda_accepts(fixed, max_blocks, values):
    """Whatever the search proposes and whatever the user fixed, a repaired genome is a
    launch: within CUDA's limits, a searched grid within the budget."""
    space = _space(frozenset(fixed), max_blocks)
    genome = space.repair(values[: len(space.genes)])
    launch = space.launch(genome)  # Launch itself refuses what CUDA would
    assert math.prod(launch.block) <= 1024
    if "grid" not in fixed:
        assert launch.blocks <= max_blocks
    else:
        assert launch.grid == (64, 3, 1)
    for gene, value in zip(space.genes, genome):
        assert gene.low <= value <= gene.high


# ---------------------------------------------------------------------------- loops


def test_a_long_loop_with_a_constant_bound_runs_to_its_end(run_cli, tmp_path):
    out = tmp_path / "out.npz"
    status, _, err = run_cli("run", LOOPS, "-k", "count_to_constant", "--grid", "1", "--block", "64", "-o", out)
    assert status == 0 and err == ""
    expected = [sum(i & t for i in range(300000)) for t in (0, 1, 63)]
    assert np.load(out)["out"][[0, 1, 63]].astype(np.int64).tolist() == [v - (1 << 32) if v >= 1 << 31 else v
                                                                          for v in (e % (1 << 32) for e in expected)]


def test_the_step_budget_scales_with_loop_bounds_and_arguments():
    from interpreter.launch import Launch
    from interpreter.limits import DEFAULT_STEP_LIMIT
    from interpreter.loops import natural_loops, step_budget

    loaded = program(LOOPS)
    kernel = loaded.kernel("count_to")
    functions = loaded.reachable_functions(kernel.symbol)
    names = [p.name for p in kernel.params]
    small = step_budget(functions, names, Launch(1, 64, {"n": 10}))
    large = step_budget(functions, names, Launch(1, 64, {"n": 300000}))
    assert small < DEFAULT_STEP_LIMIT + 1000 < 300000 * 8 < large  # 8 steps per iteration, at least
    forever = loaded.function(loaded.kernel("count_forever").symbol)
    (loop,) = natural_loops(forever)
    size = sum(forever.blocks[b].end - forever.blocks[b].start for b in loop.blocks)
    assert step_budget([forever], ["out"], Launch(1, 64)) == DEFAULT_STEP_LIMIT + 4 * size  # no bound: its size once


def test_a_loop_stopped_by_the_step_limit_is_a_warning_at_its_own_line(run_cli):
    status, _, err = run_cli("run", LOOPS, "-k", "count_forever", "--grid", "1", "--block", "64",
                             "--step-limit", "3000")
    assert status == 0
    line, column = position_of(LOOPS, "!= 1u")
    assert err.startswith(f"tests/kernels/loops.cu:{line}:{column}: warning: threads were still running this loop "
                          "when the launch stopped at its step limit of 3,000 scheduler steps; the loop may be endless "
                          "or only longer than the limit (raise it with --step-limit 30000)\n"
                          f"{line:>6} |   while (i != 1u) {{\n")


def test_a_wait_for_a_flag_nobody_sets_is_a_deadlock(run_cli):
    status, _, err = run_cli("run", LOOPS, "-k", "wait_for_flag", "--grid", "2", "--block", "64")
    assert status == 1
    assert f"loops.cu:{at(LOOPS, '== 0', 'wait_for_flag')}: error: deadlock: 128 threads (thread (0,0,0) of block " \
           "(0,0,0), thread (1,0,0) of block (0,0,0), thread (2,0,0) of block (0,0,0) and 125 more) spin here " \
           "waiting for a value no thread can still write" in err


def test_a_flag_another_warp_sets_ends_the_wait(run_cli, tmp_path):
    out = tmp_path / "out.npz"
    status, _, err = run_cli("run", LOOPS, "-k", "hand_over", "--grid", "1", "--block", "64", "-o", out)
    assert status == 0 and err == ""
    assert np.load(out)["out"].tolist() == [1] * 64


def test_a_stack_overflow_names_its_function_and_line_and_stops_the_threads(run_cli):
    status, out, err = run_cli("run", LOOPS, "-k", "big_stack", "--grid", "4", "--block", "64", "--arg", "n=1")
    assert status == 1
    assert err.splitlines()[0] == (
        f"tests/kernels/loops.cu:{at(LOOPS, 'int table[300000]')}: error: stack overflow in 256 threads: deep_table "
        "needs 1,200,000 bytes of local memory per thread, more than the 524,288 a CUDA thread may have")
    assert err.count("error:") == 1  # no null pointers after it: the threads stopped
    assert ", 256 faults," in out


@pytest.fixture(autouse=True)
def _relative_paths(monkeypatch):
    from conftest import ROOT

    monkeypatch.chdir(ROOT)


def test_launches_of_every_shape_agree_with_a_reference(run_cli, tmp_path):
    """saxpy over grids and blocks of every rank gives what NumPy gives."""
    for grid, block in itertools.product(["1", "3", "2,2", "2x1x2"], ["1", "33", "8,4", "4x2x3"]):
        out = tmp_path / "out.npz"
        n = 200
        status, _, err = run_cli("run", SAXPY, "--grid", grid, "--block", block, "--arg", f"n={n}", "--arg", "a=3",
                                 "--buffer", f"x=float32:{n}:iota", "--buffer", f"y=float32:{n}:ones", "-o", out)
        assert status == 0, err
        x_threads = int(grid.replace("x", ",").split(",")[0]) * int(block.replace("x", ",").split(",")[0])
        expected = np.ones(n, np.float32)
        covered = min(n, x_threads)
        expected[:covered] = 3 * np.arange(covered, dtype=np.float32) + 1
        np.testing.assert_array_equal(np.load(out)["y"], expected)


def test_a_launch_that_breaks_a_requirement_stops_there():
    """Nothing a launch does after breaking the kernel's stated requirement counts, so it
    does no more: here a loop of n iterations is never run."""
    from conftest import ANNOTATED
    from interpreter.launch import Launch
    from interpreter.simt import execute

    loaded = program(ANNOTATED / "requires.cu", gpuverify_annotations=True)
    kernel = loaded.kernels[0]
    result = execute(loaded, kernel, Launch(64, 1024, {"n": 10**6, "scale": 3}))  # 3 is no power of 2
    assert result.status == "invalid-launch" and result.steps < 100 and len(result.trace) == 0
    assert [a.kind for a in result.events.assertions] == ["assume"]
    result = execute(loaded, kernel, Launch(1, 64, {"n": 64, "scale": 4}))
    assert result.status == "ok" and len(result.trace) == 2 * 64


def test_a_check_stops_a_launch_once_its_trace_is_full_and_judges_fewer_blocks_in_parts(run_cli, monkeypatch):
    from simulee.checker import kernel as checking

    loaded = program(SAXPY)
    launch = checking.default_launch(loaded.kernels[0], {"n": 1 << 20, "a": 1.0}, (4096, 1, 1), (256, 1, 1))
    small = checking.detection_launch(launch)[0]
    assert small.stop_when_traced and small.trace_limit == checking.TRACE_LIMIT
    check = checking.check_kernel(loaded, loaded.kernels[0], [launch])
    assert check.launches[0]["status"] == "ok" and check.notes == []  # 3 accesses a thread: within the limit
    from dataclasses import replace

    check = checking.check_kernel(loaded, loaded.kernels[0], [replace(launch, trace_limit=600_000)])
    assert check.launches[0]["status"] == "ok" and check.notes == []  # 3,145,728 accesses: judged in parts
    monkeypatch.setattr(checking, "CHECK_ACCESSES", 1 << 20)  # too many to judge in parts: fewer blocks, whole
    check = checking.check_kernel(loaded, loaded.kernels[0], [replace(launch, trace_limit=600_000)])
    assert check.launches[0]["status"] == "ok"
    assert check.notes == ["launch grid (4096,1,1) block (256,1,1) made more accesses than a check keeps: "
                           "checked on 584 of its 4,096 blocks (linear block indices "
                           "0-145, 1,316-1,461, 2,633-2,778, 3,950-4,095)"]
    monkeypatch.setattr(checking, "CHECK_ACCESSES", 5_000)  # in parts, it stops past these: one block fills a trace
    check = checking.check_kernel(loaded, loaded.kernels[0], [replace(launch, trace_limit=600)])  # a block makes 768
    assert check.launches[0]["status"] == "ok"  # fewer blocks, each to its end in parts (a part holds 150)
    assert check.notes == ["launch grid (4096,1,1) block (256,1,1) made more accesses than a check keeps: checked on "
                           "4 of its 4,096 blocks (linear block indices 0, 1,365, 2,730, 4,095), each to its end in "
                           "parts"]


def test_a_launch_whose_blocks_each_fill_much_of_the_trace_is_checked_on_fewer_of_them(monkeypatch):
    from dataclasses import replace

    from interpreter.simt import execute
    from simulee.checker import kernel as checking

    loaded = program(LOOPS)
    kernel = next(k for k in loaded.kernels if k.name == "sum_table")
    launch = checking.default_launch(kernel, {"n": 100}, (64, 1, 1), (32, 1, 1))  # 3,232 accesses a block
    runs = []
    monkeypatch.setattr(checking, "execute", lambda *args: runs.append(args[2].sample) or execute(*args))
    monkeypatch.setattr(checking, "CHECK_ACCESSES", 0)  # not judged in parts: checked on fewer blocks
    # the 64 blocks stop in their one wave (203 a block so far), then the first 8 of 32: 4 fit
    check = checking.check_kernel(loaded, kernel, [replace(launch, trace_limit=13_000)])
    assert check.launches[0]["status"] == "ok" and len(runs) == 3
    assert check.notes == ["launch grid (64,1,1) block (32,1,1) made more accesses than a check keeps: checked on 4 "
                           "of its 64 blocks (linear block indices 0, 20, 41, 63)"]
    runs.clear()  # now 4 stop in the fourth: the 3 that finished measure a block, and 2 would not leave room
    check = checking.check_kernel(loaded, kernel, [replace(launch, trace_limit=12_000)])
    assert check.launches[0]["status"] == "trace-limit" and len(runs) == 3


def test_a_launch_whose_first_wave_fills_the_trace_is_measured_on_one_block_before_it_is_run_in_parts(monkeypatch):
    from dataclasses import replace

    from interpreter.simt import execute
    from simulee.checker import kernel as checking

    loaded = program(LOOPS)
    kernel = next(k for k in loaded.kernels if k.name == "sum_table")
    launch = checking.default_launch(kernel, {"n": 100}, (64, 1, 1), (32, 1, 1))  # 3,232 accesses a block
    runs = []
    monkeypatch.setattr(checking, "execute",
                        lambda *args: runs.append((args[2].sample, args[2].flush)) or execute(*args))
    # its one wave stops at 13,000 accesses, 203 a block so far: 64 such blocks would fit 50,000, but one block
    # run alone makes 3,232, so it is not run in parts up to 50,000 in vain: 2 blocks of 3,232 fit half the trace
    monkeypatch.setattr(checking, "CHECK_ACCESSES", 50_000)
    check = checking.check_kernel(loaded, kernel, [replace(launch, trace_limit=13_000)])
    assert [sample for sample, _ in runs] == [None, (0,), (0, 63)]
    assert all(flush is None for _, flush in runs)
    assert check.launches[0]["status"] == "ok"
    assert check.notes == ["launch grid (64,1,1) block (32,1,1) made more accesses than a check keeps: checked on 2 "
                           "of its 64 blocks (linear block indices 0, 63)"]
    runs.clear()  # with room for all of them, the block measured says so, and the launch is judged in parts
    monkeypatch.setattr(checking, "CHECK_ACCESSES", 64 * 3_232)
    check = checking.check_kernel(loaded, kernel, [replace(launch, trace_limit=13_000)])
    assert [sample for sample, _ in runs] == [None, (0,), None] and runs[-1][1] is not None
    assert check.launches[0]["status"] == "ok" and check.notes == []


def test_trace_of_a_huge_launch_says_what_it_sampled(run_cli, tmp_path):
    status, out, err = run_cli("trace", SAXPY, "--grid", "65535", "--block", "1024", "--arg", "n=8", "--arg", "a=1",
                               "-o", tmp_path / "model.csv")
    assert status == 0
    assert err.startswith("simulee: note: launch grid (65535,1,1) block (1024,1,1) has 67,107,840 threads, too many "
                          "to check in full: checked 1,024 of its 65,535 blocks")
    assert (tmp_path / "model.csv").read_text().count("\n") == 1 + 3 * 8  # x, y read and y written by 8 threads
