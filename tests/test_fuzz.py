"""A property-based campaign (Hypothesis) against the command line: random launches,
arguments, buffers and options for `run` and `check` on the test kernels, and random
bytes and mutated IR for the loader. Whatever comes in, simulee answers with exit status
0, 1 or 2, never a traceback or an internal error, and within a bounded time.

The default run keeps within the test suite's budget; SIMULEE_FUZZ_EXAMPLES=N runs N
cases per property (and draws new ones on every run instead of the fixed sequence)."""

from __future__ import annotations

import contextlib
import io
import os
import signal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import IR_FILES, KERNELS, ROOT

EXAMPLES = int(os.environ.get("SIMULEE_FUZZ_EXAMPLES", "0"))
CASE_SECONDS = 60  # the most one case may take: beyond, it hangs
CAMPAIGN = settings(max_examples=EXAMPLES or 12, deadline=None, derandomize=not EXAMPLES, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

# kernels and the parameters they take
KERNEL_PARAMS = {
    ("saxpy.cu", "saxpy"): ["n", "a", "x", "y"],
    ("many_params.cu", "scatter"): ["out", "in", "rows", "shape", "n", "stride", "tag", "lane", "offset", "alpha",
                                    "beta", "flip"],
    ("reduction.cu", "reduce_sum"): ["in", "out", "n"],
    ("loops.cu", "count_to"): ["out", "n"],
    ("loops.cu", "wait_for_flag"): ["flag", "out"],
    ("heap.cu", "scratch"): ["out", "n"],
    ("template_kernel.cu", "scale<float>"): ["data", "factor", "n"],
    ("faults.cu", "divide_by_zero"): ["a", "b", "out"],
    ("barrier_divergence.cu", "early_return"): ["data", "n"],
}

def mostly(common, rare):
    """`common` three times in four, else `rare`: most cases run kernels, some probe edges."""
    return st.one_of(common, common, common, rare)


sizes = mostly(st.integers(1, 300), st.one_of(st.integers(-1, 2**31 + 5), st.sampled_from([0, 65535, 65536, 1024,
                                                                                            1025, 64, 65, 10**20])))
dims = mostly(
    st.lists(sizes, min_size=1, max_size=3).map(lambda parts: ",".join(map(str, parts))),
    st.one_of(st.lists(sizes, min_size=1, max_size=4).map(lambda parts: "x".join(map(str, parts))),
              st.text(alphabet="0123456789,x -abc", max_size=8)),
)
numbers = mostly(st.one_of(st.integers(-100, 5000), st.floats(-100, 100).map(repr)),
                 st.one_of(st.integers(-2**70, 2**70), st.floats(allow_nan=True, allow_infinity=True).map(repr),
                           st.sampled_from(["true", "false", "0x10", "1e3", "", "nan", "-0", "abc"])))
dtypes = mostly(st.sampled_from(["float32", "int32", "float64", "uint8"]),
                st.sampled_from(["int8", "uint16", "uint64", "float16", "bool", "complex64", "str", "object",
                                 "float99", "datetime64[s]", "V4", ""]))
counts = mostly(st.integers(1, 5000), st.one_of(st.integers(-3, 0), st.sampled_from([10**15, 2**40, "x", ""])))
fills = st.sampled_from(["", ":zeros", ":ones", ":iota", ":random", ":random", ":sparkly", ":"])


@st.composite
def launches(draw):
    """Command-line options for one kernel: a launch in part or in full, and options."""
    (file, kernel), params = draw(st.sampled_from(sorted(KERNEL_PARAMS.items())))
    options = ["-k", kernel]
    if draw(st.booleans()):
        options += ["--grid", draw(dims)]
    if draw(st.booleans()):
        options += ["--block", draw(dims)]
    for name in draw(st.lists(st.sampled_from(params + ["nope"]), max_size=4)):
        if draw(st.booleans()):
            options += ["--arg", f"{name}={draw(numbers)}"]
        else:
            options += ["--buffer", f"{name}={draw(dtypes)}:{draw(counts)}{draw(fills)}"]
    if draw(st.booleans()):
        options.append("--buffer-cast")
    for option, values in (("--step-limit", st.sampled_from(["1", "100", "5000", "0", "-5", "many"])),
                           ("--heap-bytes", st.sampled_from(["0", "1", "64K", "8M", "1T", "x"])),
                           ("--shared-bytes", st.sampled_from(["0", "16", "49152", "232449", "-1"])),
                           ("--seed", st.sampled_from(["0", "7", "-1", "x"]))):
        if draw(st.integers(0, 3)) == 0:
            options += [option, draw(values)]
    return KERNELS / file, options


@st.composite
def searches(draw):
    """Options only `check` takes."""
    options = ["--generations", str(draw(st.integers(0, 2))), "--population", str(draw(st.integers(1, 3)))]
    for option, values in (("--warp-model", st.sampled_from(["independent", "lockstep", "sometimes"])),
                           ("--launches", st.sampled_from(["1", "2", "0"])),
                           ("--max-blocks", st.sampled_from(["1", "4", "0"])),
                           ("--format", st.sampled_from(["text", "json", "csv", "sarif", "xml"]))):
        if draw(st.booleans()):
            options += [option, draw(values)]
    for flag in ("--no-search", "--barriers", "-v"):
        if draw(st.integers(0, 3)) == 0:
            options.append(flag)
    if draw(st.integers(0, 4)) == 0:
        options += ["--launch", f"{draw(dims)}/{draw(dims)}"]
    return options


class Hang(BaseException):
    """A case ran past CASE_SECONDS."""


def answer(*arguments) -> tuple[int, str]:
    """Run the CLI in this process within CASE_SECONDS: its exit status, and what it
    wrote to stderr and stdout."""
    from simulee.cli import main

    def hang(signum, frame):
        raise Hang(f"simulee {' '.join(map(str, arguments))} ran past {CASE_SECONDS} s")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(CASE_SECONDS)
    err, out = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            try:
                status = main([str(a) for a in arguments])
            except SystemExit as exit:  # argparse's usage errors
                status = exit.code
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return status, err.getvalue(), out.getvalue()


def assert_answered(status, err: str, out: str) -> None:
    assert status in (0, 1, 2), (status, err)
    assert "Traceback" not in err + out and "internal error" not in err + out, err + out
    if status == 2:  # a usage error, or something that could not be checked, says so
        assert "simulee: error: " in err or " not checked" in out, err + out


@pytest.fixture(autouse=True)
def _quietly(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # whatever a case writes stays here
    monkeypatch.delenv("SIMULEE_DEBUG", raising=False)
    monkeypatch.setenv("SIMULEE_CACHE", str(ROOT / ".pytest_cache" / "simulee-ir"))


@CAMPAIGN
@given(launches())
def test_run_answers_any_launch(case):
    path, options = case
    assert_answered(*answer("run", path, *options, "--max-seconds", "10"))


@CAMPAIGN
@given(launches(), searches())
def test_check_answers_any_launch_and_options(case, search):
    path, options = case
    assert_answered(*answer("check", path, *options, *search, "--max-seconds", "10", "-q"))


def _reference_ir() -> str:
    from simulee.frontend.compiler import load_ir

    return load_ir(KERNELS / "saxpy.cu")


@st.composite
def mutated_ir(draw):
    """Compiled IR with lines dropped, repeated, cut or with tokens replaced."""
    lines = _reference_ir().splitlines()
    for _ in range(draw(st.integers(1, 4))):
        index = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["drop", "repeat", "cut", "token", "garbage"]))
        if action == "drop":
            del lines[index]
        elif action == "repeat":
            lines.insert(index, lines[index])
        elif action == "cut":
            lines[index] = lines[index][: draw(st.integers(0, len(lines[index])))]
        elif action == "token":
            words = lines[index].split(" ")
            if words:
                words[draw(st.integers(0, len(words) - 1))] = draw(st.sampled_from(
                    ["i32", "ptr", "%0", "0", "-1", "undef", "poison", "i128", "x86_fp80", "@nowhere", "label", "{",
                     "addrspace(3)", "!dbg", "9223372036854775807"]))
            lines[index] = " ".join(words)
        else:
            lines.insert(index, draw(st.text(max_size=40)))
    return "\n".join(lines) + "\n"


@CAMPAIGN
@given(mutated_ir())
def test_the_loader_answers_any_mutated_ir(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("ir") / "mutated.ll"
    path.write_text(text, errors="replace")
    assert_answered(*answer("kernels", path))
    assert_answered(*answer("run", path, "--grid", "2", "--block", "32", "--arg", "n=64", "--arg", "a=2",
                            "--max-seconds", "10"))


@CAMPAIGN
@given(st.binary(max_size=2048), st.sampled_from([".ll", ".bc", ".cu"]))
def test_the_loader_answers_any_bytes(tmp_path_factory, data, suffix):
    path = tmp_path_factory.mktemp("bytes") / f"random{suffix}"
    path.write_bytes(data)
    assert_answered(*answer("kernels", path))
    assert_answered(*answer("compile", path, "-o", path.with_suffix(".out")))


def test_the_reference_ir_itself_loads():
    """The mutations start from IR that runs (the campaign's baseline)."""
    assert (IR_FILES / "opcodes.ll").exists()
    assert "define" in _reference_ir()
