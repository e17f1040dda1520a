"""The native engine against the NumPy interpreter: the same kernels and launches must give
the same status, buffers, trace (every column, record for record), faults and counts, and
native code must really have run."""

import json
from dataclasses import replace

import numpy as np
import pytest

from interpreter.launch import Launch
from interpreter.loader import load_module
from interpreter.simt import execute
from simulee.checker.kernel import check_kernel, default_launch, indices_read
from simulee.cli import main
from simulee.errors import CompileError
from simulee.frontend.compiler import load_ir

from conftest import KERNELS, ROOT, TESTS

RNG = np.random.default_rng(3)
N = 256
INTS = RNG.integers(-2**31, 2**31, N).astype(np.int32)
INTS[:8] = [0, -1, 2**31 - 1, -2**31, 1, 5, 1000, 3]
FLOATS = (RNG.standard_normal(N) * 1e10).astype(np.float32)
FLOATS[:6] = [np.nan, np.inf, -np.inf, 0.5, -0.0, 3e9]
DOUBLES = RNG.standard_normal(N) * 1e19
DOUBLES[:3] = [np.nan, 1e300, -1e300]

CASES = {
    "arithmetic": ((2, 1, 1), (128, 1, 1), lambda: dict(
        a=INTS.copy(), f=FLOATS.copy(), d=DOUBLES.copy(), out=np.zeros(8 * N, np.int64),
        fout=np.zeros(N, np.float32), dout=np.zeros(N), shift=20)),
    "narrow": ((3, 1, 1), (100, 1, 1), lambda: dict(
        bytes=np.arange(300, dtype=np.uint8), halves=np.arange(300, dtype=np.int16) * 99,
        flags=np.arange(300) % 2 == 0, n=290)),
    "indices": ((3, 2, 2), (4, 3, 5), lambda: dict(out=np.zeros(4 * 12 * 60, np.int32))),
    "staged": ((3, 1, 1), (64, 1, 1), lambda: {"in": np.arange(192, dtype=np.float32),
                                                 "out": np.zeros(192, np.float32), "n": 150}),
    "atomics": ((3, 1, 1), (64, 1, 1), lambda: dict(
        bins=np.zeros(16, np.uint32), total=np.zeros(1, np.float32),
        extremes=np.array([-2**31, 2**31 - 1, 0], np.int32), undone=np.zeros(3, np.int32),
        data=(np.arange(200) * 37 % 251).astype(np.uint8), n=180)),
    "divide": ((2, 1, 1), (64, 1, 1), lambda: dict(
        a=np.r_[INTS[:100], [-2**31] * 8, [7, -7, 0, 5] * 5].astype(np.int32),
        b=np.r_[np.where(INTS[100:200] == 0, 3, INTS[100:200] % 1000), [-1, 1, 2, -2] * 2,
                [3, -3, 7, 0] * 5].astype(np.int32),
        out=np.zeros(256, np.int64), uout=np.zeros(128, np.uint32), n=128)),
    **{f"faulty:{which}": ((1, 1, 1), (64, 1, 1), lambda which=which: dict(data=np.zeros(100, np.int32), n=0,
                                                                          which=which)) for which in range(4)},
}


@pytest.fixture(autouse=True)
def every_run_native(monkeypatch):
    monkeypatch.setenv("SIMULEE_NATIVE_WARMUP", "0")


@pytest.fixture(scope="module")
def program():
    return load_module(load_ir(TESTS / "native" / "ops.cu"))


def both(program, kernel, launch_of):
    """(NumPy result, native result, native instructions run) of one launch; the memory's
    counts of loads and stores (what spinning threads wait on) must agree too."""
    numpy_result = execute(program, kernel, launch_of("numpy"))
    execution = program.executions[program.kernel(kernel).symbol]
    counts = execution.memory.version, execution.memory.reads
    before = execution.native.instructions
    native_result = execute(program, kernel, launch_of("native"))
    execution = program.executions[program.kernel(kernel).symbol]
    assert (execution.memory.version, execution.memory.reads) == counts
    return numpy_result, native_result, execution.native.instructions - before


def assert_same_values(numpy_values, native_values):
    """Traced values equal bit for bit; else the first that differ, in hex."""
    where = np.flatnonzero(numpy_values != native_values)[:5]
    assert not len(where), f"value differs at {where.tolist()}: NumPy " \
        f"{[hex(v) for v in numpy_values[where]]}, native {[hex(v) for v in native_values[where]]}"


def assert_same(numpy_result, native_result):
    assert (native_result.status, native_result.message) == (numpy_result.status, numpy_result.message)
    assert (native_result.steps, native_result.thread_instructions) == \
        (numpy_result.steps, numpy_result.thread_instructions)
    assert len(native_result.trace) == len(numpy_result.trace)
    assert native_result.trace.dropped == numpy_result.trace.dropped
    for name, column in numpy_result.trace.columns.items():
        if name == "value":
            assert_same_values(column, native_result.trace[name])
        else:
            assert np.array_equal(native_result.trace[name], column), name
    assert native_result.buffers.keys() == numpy_result.buffers.keys()
    for name, buffer in numpy_result.buffers.items():
        assert np.array_equal(native_result.buffers[name], buffer, equal_nan=buffer.dtype.kind == "f"), name
    faults = [[(f.kind, f.op, f.blocks.tolist(), f.threads.tolist()) for f in result.events.faults]
              for result in (numpy_result, native_result)]
    assert faults[0] == faults[1]
    assert native_result.events.fault_counts == numpy_result.events.fault_counts
    assert [(op, blocks.tolist(), epochs.tolist()) for op, blocks, epochs in native_result.events.barrier_passes] == \
        [(op, blocks.tolist(), epochs.tolist()) for op, blocks, epochs in numpy_result.events.barrier_passes]
    assert native_result.events.coverage == numpy_result.events.coverage


@pytest.mark.parametrize("case", sorted(CASES))
def test_native_code_computes_and_traces_what_the_interpreter_does(program, case):
    grid, block, arguments = CASES[case]
    numpy_result, native_result, ran = both(program, case.partition(":")[0],
                                            lambda engine: Launch(grid, block, arguments(), engine=engine))
    assert_same(numpy_result, native_result)
    assert ran > 0
    if case.startswith("faulty") or case == "divide":  # found by the NumPy path after native code left the run
        assert numpy_result.events.fault_count() > 0


def test_edge_values_reach_the_outputs(program):
    """The arithmetic case is not vacuous: saturating conversions and shifts past the width."""
    _, result, _ = both(program, "arithmetic", lambda engine: Launch((2, 1, 1), (128, 1, 1),
                                                                   CASES["arithmetic"][2](), engine=engine))
    out = result.buffers["out"].reshape(N, 8)
    assert out[0, 5] == 0  # NaN converts to 0
    assert out[1, 5] == 2**31 - 1 + 2**32 - 1 + 2**63 - 1 - 2**64 or out[1, 5] != 0
    assert (out[3::4, 1] == 0).all()  # (unsigned)x >> (20 + 33): past the width gives 0


@pytest.mark.parametrize("limit,stop", [(500, False), (500, True), (1000, True)])
def test_a_trace_limit_inside_a_native_run_is_met_as_the_interpreter_meets_it(program, limit, stop):
    grid, block, arguments = CASES["arithmetic"]
    numpy_result, native_result, _ = both(program, "arithmetic", lambda engine: Launch(
        grid, block, arguments(), engine=engine, trace_limit=limit, stop_when_traced=stop))
    assert_same(numpy_result, native_result)
    assert numpy_result.status == ("trace-limit" if stop else "ok")


@pytest.mark.parametrize("steps", [5, 17, 40])
def test_a_step_limit_inside_a_native_run_stops_at_the_same_instruction(program, steps):
    grid, block, arguments = CASES["arithmetic"]
    numpy_result, native_result, _ = both(program, "arithmetic", lambda engine: Launch(
        grid, block, arguments(), engine=engine, step_limit=steps))
    assert_same(numpy_result, native_result)
    assert numpy_result.status == "step-limit"


@pytest.mark.parametrize("source,kernel,grid,block,arguments", [
    ("reduction.cu", "reduce_sum", (4, 1, 1), (256, 1, 1),
     lambda: {"in": np.ones(1024, np.float32), "out": np.zeros(4, np.float32), "n": 1000}),
    ("transpose.cu", "transpose", (2, 2, 1), (32, 8, 1),
     lambda: {"out": np.zeros(4096, np.float32), "in": np.arange(4096, dtype=np.float32), "width": 64,
              "height": 64}),
    ("matmul.cu", "matmul", (2, 2, 1), (16, 16, 1),
     lambda: {"a": np.arange(32 * 40, dtype=np.float32), "b": np.ones(40 * 32, np.float32),
              "c": np.zeros(32 * 32, np.float32), "m": 32, "k": 40, "n": 32}),
])
@pytest.mark.parametrize("optimized", [False, True], ids=["quick code", "optimized code"])
def test_benchmark_workloads_run_the_same_under_both_engines(monkeypatch, source, kernel, grid, block, arguments,
                                                            optimized):
    """Native code is first compiled quickly, then optimized (here at once) once a function
    has done much work: both agree with the interpreter."""
    import interpreter.native

    if optimized:
        monkeypatch.setattr(interpreter.native, "OPTIMIZE_AFTER", 0)
    program = load_module(load_ir(KERNELS / source))
    numpy_result, native_result, ran = both(program, kernel,
                                            lambda engine: Launch(grid, block, arguments(), engine=engine))
    assert_same(numpy_result, native_result)
    assert ran > 0
    levels = program.executions[program.kernel(kernel).symbol].native.levels
    assert set(levels.values()) == ({2} if optimized else {0}) or not optimized and 2 in levels.values()


FLOW_CASES = {  # tests/native/flow.cu: launch, arguments, how the interpreter ends it, whether loops go round natively
    # (else each back edge, which may spin, is left to the scheduler)
    "rounds": ((2, 1, 1), (64, 1, 1), lambda: {"out": np.zeros(128, np.float32),
                                               "in": np.arange(64, dtype=np.float32) - 20.5, "n": 300}, "ok", True),
    "nested": ((1, 1, 1), (64, 1, 1), lambda: {"out": np.zeros(64, np.int32), "rows": 7, "cols": 13}, "ok", True),
    "waits": ((2, 1, 1), (64, 1, 1), lambda: {"flag": np.zeros(2, np.int32), "out": np.zeros(128, np.int32)}, "ok",
              False),
    "endless": ((1, 1, 1), (32, 1, 1), lambda: {"out": np.zeros(32, np.int32), "n": 5}, "infinite-loop", False),
    "rewrites": ((1, 1, 1), (32, 1, 1), lambda: {"out": np.zeros(32, np.int32), "n": 5}, "step-limit", True),
}


@pytest.fixture(scope="module")
def loops():
    return load_module(load_ir(TESTS / "native" / "flow.cu"))


@pytest.mark.parametrize("case", sorted(FLOW_CASES))
@pytest.mark.parametrize("coverage", [False, True], ids=["", "coverage"])
@pytest.mark.parametrize("trace_limit", [float("inf"), 3000], ids=["", "trace limit"])
def test_loops_go_round_in_native_code_as_the_interpreter_runs_them(loops, case, coverage, trace_limit):
    """Through uniform branches, phis and back edges; leaving to the scheduler where the
    group splits, where a trip may spin (a deadlock or an endless loop is found as the
    interpreter finds it), at the step limit and where the trace fills."""
    grid, block, arguments, status, goes_round = FLOW_CASES[case]
    symbol = loops.kernel(case).symbol
    before = loops.executions[symbol].native.edges if symbol in loops.executions else 0
    numpy_result, native_result, _ = both(loops, case, lambda engine: Launch(
        grid, block, arguments(), engine=engine, coverage=coverage, step_limit=20_000, trace_limit=trace_limit))
    assert_same(numpy_result, native_result)
    assert numpy_result.status == status
    edges = loops.executions[symbol].native.edges - before
    assert edges > 100 if goes_round else edges < 10
    if coverage:
        assert numpy_result.events.coverage


@pytest.mark.parametrize("engine", ["numpy", "native"])
def test_each_store_traces_the_value_it_left_in_memory(engine):
    """A store's traced value is a copy: registers the later trips of a loop rewrite in place
    (native code does) leave it as it was stored."""
    program = load_module(load_ir(TESTS / "native" / "stored.cu"))
    kernel = program.kernels[0]
    base = default_launch(kernel, reads=indices_read(program, kernel), seed=1, fill="small")
    result = execute(program, kernel.symbol, replace(base, engine=engine, args={**base.args, "n": 64},
                                                     grid=(1, 1, 1), block=(64, 1, 1)))
    trace, out = result.trace, result.buffers["out"]
    region = trace["region"][(trace["kind"] == 1) & (trace["space"] == 1)][0]
    stores = (trace["kind"] == 1) & (trace["region"] == region)
    assert stores.sum() == 4 * 64
    assert np.array_equal(trace["value"][stores], out.view(np.uint64)[trace["offset"][stores] // 8])
    assert len(np.unique(out[64:128])) == 1 and out[64] == 5.0


@pytest.mark.parametrize("source", ["tests/native/flow.cu", "tests/kernels/reduction.cu", "tests/kernels/histogram.cu",
                                    "benchmarks/kernels/cudaSift/FindMaxCorr.cu"])
def test_buffers_of_content_simulee_invents_are_read_natively_as_the_interpreter_reads_them(monkeypatch, source):
    """A buffer filled on first touch (the search's invented content, no taint tracked):
    native code reads and writes the chunks from its start that have their content, the
    interpreter fills the others; the same values, trace and output buffers (untouched
    chunks stay unfilled) as on NumPy."""
    import interpreter.native

    opened = []  # bytes of filled buffers native code was let touch
    regions = interpreter.native.Native._regions

    def spied(self, memory):
        tables = regions(self, memory)
        opened.extend(int(limit) for region, limit in zip(memory.regions, tables[1])
                      if region is not None and region.fill is not None)
        return tables

    monkeypatch.setattr(interpreter.native.Native, "_regions", spied)
    program = load_module(load_ir(ROOT / source))
    ran = 0
    for kernel in program.kernels:
        base = default_launch(kernel, reads=indices_read(program, kernel), seed=3, work_limit=1 << 20, fill="small",
                              taint=False, step_limit=20_000)
        numpy_result, native_result, native = both(program, kernel.symbol, lambda engine: replace(base, engine=engine))
        assert_same(numpy_result, native_result)
        ran += native
    assert ran > 0 and max(opened) > 0


def test_a_loop_of_the_step_benchmark_goes_round_many_times_a_call():
    program = load_module(load_ir(ROOT / "benchmarks" / "workloads" / "steps.cu"))
    arguments = {"out": np.zeros(64, np.int32), "in": np.arange(64, dtype=np.int32), "n": 1001}
    numpy_result, native_result, _ = both(program, "steps", lambda engine: Launch(
        (1, 1, 1), (64, 1, 1), dict(arguments), engine=engine, step_limit=30_000))
    assert_same(numpy_result, native_result)
    native = program.executions[program.kernel("steps").symbol].native
    assert native_result.status == "step-limit" and native.edges > 5_000 and native.runs < 100


def test_the_numpy_engine_runs_no_native_code(program):
    grid, block, arguments = CASES["staged"]
    execute(program, "staged", Launch(grid, block, arguments(), engine="numpy"))
    execution = program.executions[program.kernel("staged").symbol]
    before = execution.native.instructions
    execute(program, "staged", Launch(grid, block, arguments(), engine="numpy"))
    assert execution.native.instructions == before


@pytest.mark.parametrize("case,invented", [("arithmetic", ("a", "f")), ("staged", ("in",)), ("atomics", ("data",))])
def test_launches_tracking_invented_values_give_every_result_the_same_taint(program, case, invented):
    """Buffers Simulee fills itself (labels); native calls stop before accesses and give
    their results the taint of their operands: the trace's taint columns, the faults'
    and the labels agree."""
    grid, block, arguments = CASES[case]
    numpy_result, native_result, ran = both(program, case, lambda engine: Launch(
        grid, block, {k: v for k, v in arguments().items() if k not in invented}, engine=engine, taint=True,
        fill="small"))
    assert_same(numpy_result, native_result)
    assert native_result.labels
    if case == "atomics":  # the bins' addresses come from invented bytes through native arithmetic
        assert native_result.trace["taint"].any()
    assert ran > 0


def timeless(value):
    """A JSON report without its timings and what ran natively."""
    if isinstance(value, dict):
        return {key: timeless(item) for key, item in value.items() if key not in ("seconds", "engine")}
    return [timeless(item) for item in value] if isinstance(value, list) else value


def check_json(capsys, *argv) -> dict:
    assert main(["check", *map(str, argv), "--format", "json", "--seed", "3"]) in (0, 1)
    return timeless(json.loads(capsys.readouterr().out))


@pytest.mark.parametrize("file,options", [
    ("global_races.cu", ["--grid", "2", "--block", "64"]),
    ("barrier_verdicts.cu", ["--grid", "2", "--block", "64"]),
])
def test_check_reports_the_same_findings_under_both_engines(capsys, monkeypatch, file, options):
    monkeypatch.setenv("SIMULEE_ENGINE", "numpy")
    reference = check_json(capsys, KERNELS / file, *options)
    monkeypatch.setenv("SIMULEE_ENGINE", "native")
    assert check_json(capsys, KERNELS / file, *options) == reference
    assert any(kernel["findings"] for kernel in reference["kernels"])


EVERY_SOURCE = sorted([*(ROOT / "benchmarks" / "kernels").rglob("*.cu"), *TESTS.rglob("*.cu")])


@pytest.mark.parametrize("path", EVERY_SOURCE, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_kernel_of_the_benchmarks_and_tests_runs_and_checks_the_same_under_both_engines(monkeypatch, path):
    """Each kernel's default launch, on zeros and on content Simulee invents and tracks:
    the same trace, buffers and events; and a check of it the same findings and barrier
    verdicts (the judge's launches without each barrier included)."""
    try:
        program = load_module(load_ir(path))
    except CompileError:
        pytest.skip("does not compile: a test of errors")
    native = work = 0
    for kernel in program.kernels:
        reads = indices_read(program, kernel)
        for fill in ("zeros", "small"):
            base = default_launch(kernel, reads=reads, seed=1, work_limit=1 << 20, fill=fill, taint=fill != "zeros")
            numpy_result, native_result, ran = both(program, kernel.symbol, lambda engine: replace(base, engine=engine))
            assert_same(numpy_result, native_result)
            native, work = native + ran, work + numpy_result.thread_instructions
        checks = []
        for engine in ("numpy", "native"):
            monkeypatch.setenv("SIMULEE_ENGINE", engine)
            checks.append(timeless(check_kernel(program, kernel, [replace(base, work_limit=1 << 22)]).to_json()))
        assert checks[1] == checks[0], kernel.name
    assert native > 0 or work < 10_000  # native code ran wherever there was work for it


@pytest.mark.parametrize("before", [True, False])
def test_an_unknown_engine_is_a_one_line_error(capsys, before):
    command = ["kernels", str(TESTS / "native" / "ops.cu")]
    with pytest.raises(SystemExit) as stopped:
        main(["--engine", "gpu", *command] if before else [*command, "--engine", "gpu"])
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert "--engine" in error and len(error.strip().splitlines()) == 1


def test_verbose_output_says_what_ran_natively_and_what_was_left(capsys):
    source = TESTS / "native" / "ops.cu"
    assert main(["check", str(source), "-k", "claim", "--grid", "1", "--block", "64", "--buffer", "owner=int32:1",
                 "--buffer", "out=int32:64", "-v", "--format", "json"]) in (0, 1)
    engine = json.loads(capsys.readouterr().out)["kernels"][0]["engine"]
    assert engine["native"] > 0 and engine["thread_instructions"] > engine["native"]
    assert any(left.startswith("cmpxchg at line") for left in engine["left_to_numpy"])
    assert main(["check", str(source), "-k", "claim", "--grid", "1", "--block", "64", "--buffer", "owner=int32:1",
                 "--buffer", "out=int32:64", "-v"]) in (0, 1)
    assert "claim: native code ran" in capsys.readouterr().out


PROGRAMS = TESTS / "programs"
WHOLE_PROGRAMS = [[path.name] for path in sorted(PROGRAMS.glob("*.c*"))
                  if path.name not in ("scatter.cu", "spin.cu")] + \
    [["multi/main.cpp", "multi/scale.cu"], ["oldstyle/main.cu", "oldstyle/helpers.c"], ["spin.cu", "--timeout", "3"],
     ["scatter.cu", "--", "permutation.txt"], ["scatter.cu", "--", "duplicated.txt"]]


@pytest.mark.xdist_group("exec")  # after the runtime is built
@pytest.mark.parametrize("arguments", WHOLE_PROGRAMS, ids=" ".join)
def test_every_test_program_runs_the_same_under_both_engines(tmp_path, arguments):
    """simulee exec: the program's output, its exit status and every finding agree."""
    import re
    import subprocess
    import sys

    (tmp_path / "permutation.txt").write_text(" ".join(str((i * 37) % 128) for i in range(128)))
    (tmp_path / "duplicated.txt").write_text(" ".join(str(i // 2) for i in range(128)))
    done = {}
    for engine in ("numpy", "native"):
        ran = subprocess.run([sys.executable, "-m", "simulee", "--engine", engine, "exec",
                              *(str(tmp_path / a) if a.endswith(".txt") else a for a in arguments), "-q"],
                             cwd=PROGRAMS, capture_output=True, text=True, timeout=300)
        done[engine] = ran.returncode, ran.stdout, re.sub(r"\(\d+\.\d+ s\)", "(s)", ran.stderr)
    assert done["native"] == done["numpy"]
    assert done["native"][0] != 2 and "Traceback" not in done["native"][2]  # built and ran: not vacuously equal
