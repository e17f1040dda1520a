"""The prover and the check together: a kernel proved race-free is run for its faults
without the race search, a race the solver finds starts the search at the solver's launch,
and every kernel's report says what was decided of it."""

from __future__ import annotations

import json
import os

import pytest

from conftest import TESTS, line_of
from simulee.checker.kernel import DECIDED

pytestmark = pytest.mark.xdist_group("verdicts")  # one worker computes the module's fixtures

TOGETHER = TESTS / "prove" / "together.cu"
TWINS = TESTS / "prove" / "twins.cu"


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    """{kernel: its record} of `simulee check --format json` on together.cu, with and without the prover."""
    from simulee.cli import main

    found = {}
    for label, flags in (("proving", ()), ("not proving", ("--no-prove",))):
        out = tmp_path_factory.mktemp("verdicts") / "report.json"
        main(["check", str(TOGETHER), "-q", "--format", "json", "-o", str(out), *flags])
        found[label] = {k["kernel"]: k for k in json.loads(out.read_text())["kernels"]}
    return found


def test_a_kernel_proved_race_free_is_run_for_its_faults_without_the_race_search(checked):
    scale, divide = checked["proving"]["scale"], checked["proving"]["divide"]
    assert scale["verdict"] == "proved" and scale["proof"]["verdict"] == "proved"
    assert "search" not in scale and len(scale["launches"]) == 1  # the default launch alone
    assert "search" in checked["not proving"]["scale"]
    assert divide["verdict"] == "proved"
    assert [(f["type"], f["line"]) for f in divide["findings"]] == \
        [("division-by-zero", line_of(TOGETHER, "1000 / (i - 5)"))]


def test_the_solvers_race_starts_the_search_which_shows_it(checked):
    race = line_of(TOGETHER, "every thread writes x[0]")
    found = checked["proving"]["one_size"]
    assert found["verdict"] == "race" and "the solver found" in found["verdict_reason"]
    assert any(f["type"] == "data-race" and f["line"] == race and f["launch"]["args"]["n"] == 1337
               for f in found["findings"])
    missed = checked["not proving"]["one_size"]  # 1337 is no constant of the kernel: the search alone misses it
    assert not any(f["type"] in DECIDED for f in missed["findings"])
    assert missed["verdict"] == "not-proved" and "--no-prove" in missed["verdict_reason"]


def test_what_the_model_cannot_follow_is_not_proved_and_says_why(checked):
    call = checked["proving"]["through_call"]
    assert call["verdict"] == "not-proved" and "a call to" in call["verdict_reason"]
    assert call["proof"]["verdict"] == "unknown" and "search" in call  # the search ran
    table = checked["proving"]["through_table"]  # a loaded index is any value: the solver's race rests on it
    assert table["proof"]["verdict"] == "race" and table["verdict"] == "possible-race"


def test_the_text_report_says_what_was_decided_of_each_kernel(run_cli):
    status, out, _ = run_cli("check", TOGETHER, "-q")
    assert status == 1
    assert f"together.cu:{line_of(TOGETHER, 'void scale(')}: note: scale: proved: race-free" in out
    assert f"together.cu:{line_of(TOGETHER, 'void one_size(')}: note: one_size: race: a run shows it" in out
    assert "2 proved race-free" in out.splitlines()[-1]


@pytest.mark.parametrize("name", ["tree_sum_unsynchronized", "shift_left", "magic_size", "wrapped_index",
                                  "early_exit", "peek_counter", "rows_of_64_unstated"])
def test_a_racy_kernel_is_never_proved_by_a_check(run_cli, tmp_path, name):
    out = tmp_path / "report.json"
    run_cli("check", TWINS, "-k", name, "-q", "--format", "json", "-o", out)
    (record,) = json.loads(out.read_text())["kernels"]
    assert record["verdict"] in ("race", "possible-race") and record["proof"]["verdict"] != "proved", record


def test_a_kernel_is_proved_under_the_launches_its_host_code_makes(run_cli, tmp_path):
    launched = TESTS / "prove" / "launched.cu"

    def record(*flags):
        out = tmp_path / "report.json"
        run_cli("check", launched, "-q", "--format", "json", "-o", out, *flags)
        (found,) = json.loads(out.read_text())["kernels"]
        return found

    under_sites = record()
    assert under_sites["verdict"] == "proved" and not under_sites["findings"]
    assert any("launch sites" in assumption and f"launched.cu:{line_of(launched, 'rows<<<')}" in assumption
               for assumption in under_sites["proof"]["assumptions"])
    # a block of 65 threads writes the next block's first element: the solver's race, but one the kernel's
    # row stride of 64 says it is not written for (a warning, a possible race) unless the user states such a block
    anywhere = record("--no-launch-sites")
    assert anywhere["verdict"] == "possible-race" and anywhere["proof"]["verdict"] == "race"
    assert [(f["type"], f["severity"], f["line"]) for f in anywhere["findings"]] == [
        ("data-race", "warning", line_of(launched, "x[i] = "))]
    assert "only when blockDim.x > 64" in anywhere["findings"][0]["message"]
    wide = record("--no-launch-sites", "--block", "128")
    assert wide["verdict"] == "race" and [(f["type"], f["severity"]) for f in wide["findings"]] == [
        ("data-race", "error")]


def test_what_a_simulee_toml_states_of_an_argument_is_an_assumption_of_the_proof(run_cli, tmp_path):
    config, out = tmp_path / "simulee.toml", tmp_path / "report.json"
    config.write_text('[[kernel]]\nname = "first_n"\nargs = { n = "1..64" }\n')
    run_cli("check", TOGETHER, "-k", "first_n", "-q", "--format", "json", "-o", out, "--config", config)
    (stated,) = json.loads(out.read_text())["kernels"]
    assert stated["verdict"] == "proved" and "1 <= n <= 64 (simulee.toml)" in stated["proof"]["assumptions"]


def test_a_kernel_racy_only_past_what_a_simulee_toml_states_is_racy_without_it(checked):
    found = checked["proving"]["first_n"]  # a run shows it for n Simulee chose, which no launch site gives: a warning
    assert found["verdict"] in ("race", "possible-race") and found["proof"]["verdict"] == "race"
    assert any(f["type"] == "data-race" for f in found["findings"])


# ---------------------------------------------------------------------------- a proof never costs the check


def test_a_removal_proof_that_chains_reads_ends_and_the_check_stands(run_cli, tmp_path):
    sides = TESTS / "prove" / "sides.cu"
    out = tmp_path / "report.json"
    status, _, err = run_cli("check", sides, "-q", "--format", "json", "-o", out)
    (record,) = json.loads(out.read_text())["kernels"]
    assert record["status"] == "ok" and "internal error" not in json.dumps(record), record
    assert record["verdict"] == "proved"
    barriers = {(f["type"], f["line"]) for f in record["findings"]}
    assert barriers == {("redundant-barrier", line_of(sides, "the even blocks' barrier")),
                        ("redundant-barrier", line_of(sides, "the odd blocks' barrier"))}


def _failing(*args, **kwargs):
    raise RuntimeError("planted failure")


def test_a_failing_prover_leaves_the_race_reported_and_the_proof_unknown(run_cli, tmp_path, monkeypatch):
    import simulee.prover.solve

    monkeypatch.delenv("SIMULEE_DEBUG", raising=False)
    monkeypatch.setenv("SIMULEE_CACHE", str(tmp_path / "cache"))  # no proof kept by another test
    monkeypatch.setattr(simulee.prover.solve, "_prove_kernel", _failing)
    out = tmp_path / "report.json"
    status, _, _ = run_cli("check", TWINS, "-k", "shift_left", "-q", "--format", "json", "-o", out)
    (record,) = json.loads(out.read_text())["kernels"]
    assert status == 1 and record["status"] == "ok" and record["verdict"] == "race"
    assert [f["type"] for f in record["findings"]] == ["data-race"]
    assert record["proof"]["verdict"] == "unknown"
    assert record["proof"]["reason"] == "internal error in the prover: RuntimeError: planted failure"
    status, out, _ = run_cli("prove", TWINS, "-k", "shift_left")
    assert status == 0 and "unknown: internal error in the prover: RuntimeError: planted failure" in out


def test_a_failing_removal_proof_leaves_the_barrier_verdicts(run_cli, tmp_path, monkeypatch):
    import simulee.prover.equivalence

    monkeypatch.delenv("SIMULEE_DEBUG", raising=False)
    monkeypatch.setattr(simulee.prover.equivalence, "_prove", _failing)
    out = tmp_path / "report.json"
    run_cli("check", TESTS / "prove" / "sides.cu", "-q", "--format", "json", "-o", out)
    (record,) = json.loads(out.read_text())["kernels"]
    assert record["status"] == "ok" and record["verdict"] == "proved"
    assert [f["type"] for f in record["findings"]] == ["redundant-barrier", "redundant-barrier"]
    assert all("proved for every launch" not in f["message"] for f in record["findings"])


PAIR = ("__global__ void scale(float *x, float factor, int n) {\n"  # race-free, and a racy twin
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n) x[i] = x[i] * factor;\n"
        "}\n"
        "__global__ void shift_left(int *x, int n) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n - 1) x[i] = x[i + 1];\n"
        "}\n")


def test_a_kept_proof_answers_until_the_kernel_changes(run_cli, tmp_path, monkeypatch):
    """A check keeps the prover's verdicts beside the compile cache (prover.cache): checked
    again, unchanged kernels ask z3 nothing (a prover that fails is never called) and get
    the same verdicts and solver races, the racy ones still racy; a corrupt entry is asked
    again; an edited file is a new
    question for each of its kernels (the failing prover answers: unknown), and the race the
    edit makes is found."""
    import simulee.prover.solve

    monkeypatch.setenv("SIMULEE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("SIMULEE_DEBUG", raising=False)
    source = tmp_path / "pair.cu"
    source.write_text(PAIR)

    def proofs() -> dict:
        out = tmp_path / "report.json"
        run_cli("check", source, "-q", "--format", "json", "-o", out)
        return {k["kernel"]: (k["verdict"], {key: value for key, value in k["proof"].items() if key != "seconds"})
                for k in json.loads(out.read_text())["kernels"]}

    first = proofs()
    assert first["scale"][0] == "proved" and first["shift_left"][0] == "race"
    monkeypatch.setattr(simulee.prover.solve, "_prove_kernel", _failing)
    assert proofs() == first
    for kept in (tmp_path / "cache" / "proofs").rglob("*.pickle"):  # a corrupt entry is a miss
        kept.write_bytes(b"garbage")
    for _ in range(2):  # and what the failing prover answers is not kept
        assert {kernel: proof["verdict"] for kernel, (_, proof) in proofs().items()} == {
            "scale": "unknown", "shift_left": "unknown"}
    assert {kept.read_bytes() for kept in (tmp_path / "cache" / "proofs").rglob("*.pickle")} == {b"garbage"}
    source.write_text(source.read_text().replace("if (i < n) x[i] = x[i] * factor;", "x[0] = x[i] * factor;"))
    edited = proofs()
    assert {kernel: (verdict, proof["verdict"]) for kernel, (verdict, proof) in edited.items()} == {
        "scale": ("race", "unknown"), "shift_left": ("race", "unknown")}


def test_a_check_whose_proofs_are_kept_does_not_import_the_solver(tmp_path):
    """The small path: a race a small launch given shows is not asked of the prover; checked
    again, a file whose proofs are kept gets the same verdicts, and neither z3 nor the
    search's DEAP is imported (a given launch is not searched)."""
    import subprocess
    import sys

    source = tmp_path / "pair.cu"
    source.write_text(PAIR)
    script = ("import json, sys\nfrom simulee.cli import main\n"
              f"main(['check', {str(source)!r}, '-q', '--grid', '2', '--block', '64', '--arg', 'n=100', "
              f"'--format', 'json', '-o', {str(tmp_path / 'report.json')!r}])\n"
              "print(json.dumps(sorted(m for m in ('z3', 'deap') if m in sys.modules)))\n")
    environment = dict(os.environ, SIMULEE_CACHE=str(tmp_path / "cache"), SIMULEE_NO_SERVER="1")

    def check() -> tuple[list, dict]:
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment,
                              timeout=600)
        assert done.returncode == 0, done.stderr
        report = json.loads((tmp_path / "report.json").read_text())
        return json.loads(done.stdout), {k["kernel"]: (k["verdict"], k["proof"]["verdict"]) for k in report["kernels"]}

    imported, first = check()
    assert imported == ["z3"] and first == {"scale": ("proved", "proved"), "shift_left": ("race", "off")}
    assert check() == ([], first)
    source.write_text(source.read_text().replace("if (i < n) x[i] = x[i] * factor;", "x[0] = x[i] * factor;"))
    environment["SIMULEE_CACHE"] = str(tmp_path / "another")  # nothing kept: both run first, both race
    imported, edited = check()
    assert imported == [] and edited == {"scale": ("race", "off"), "shift_left": ("race", "off")}
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["kernels"][1]["proof"]["reason"].startswith("a run of the launch given shows a race")


def test_a_small_launch_given_runs_once_where_a_proof_is_kept_or_the_run_is_the_check(tmp_path, monkeypatch):
    """The small launch given is run before the prover only when no proof is kept; unsearched,
    the run that shows a race is the check itself: the race-free kernel runs twice on a fresh
    cache (before the prover, then checked) and once when its proof is kept, the racy one
    once each time."""
    import simulee
    import simulee.prover.verdicts as verdicts

    monkeypatch.setenv("SIMULEE_CACHE", str(tmp_path / "cache"))
    runs = []
    checks = verdicts.run_checks
    monkeypatch.setattr(verdicts, "run_checks", lambda program, kernel, *rest, **options: (
        runs.append(kernel.name), checks(program, kernel, *rest, **options))[1])

    source = tmp_path / "pair.cu"
    source.write_text(PAIR)

    def check() -> dict:
        runs.clear()
        report = simulee.check(source, grid=2, block=64, args={"n": 100}, no_search=True)
        return {k["kernel"]: (k["verdict"], runs.count(k["kernel"])) for k in report.kernels}

    assert check() == {"scale": ("proved", 2), "shift_left": ("race", 1)}
    assert check() == {"scale": ("proved", 1), "shift_left": ("race", 1)}


# ---------------------------------------------------------------------------- one verdict per kernel


def test_a_proof_a_run_contradicts_is_an_internal_error_the_report_names(run_cli, tmp_path, monkeypatch):
    import simulee.prover.solve
    from simulee.prover.proof import Proof

    def wrong(program, info, *args, **kwargs):  # a prover that proves whatever it is given
        return Proof(info.name, info.file, info.line, "proved")

    log = tmp_path / "contradictions.jsonl"
    monkeypatch.setenv("SIMULEE_CONTRADICTIONS", str(log))
    monkeypatch.setenv("SIMULEE_CACHE", str(tmp_path / "cache"))  # the wrong proofs are kept there, not for others
    monkeypatch.setattr(simulee.prover.solve, "_prove_kernel", wrong)
    status, out, _ = run_cli("check", TWINS, "-k", "shift_left")
    race = line_of(TWINS, "thread i+1 writes x[i+1]")
    assert status == 1 and "error: data race" in out  # the run's finding stands
    assert f"twins.cu:{line_of(TWINS, 'void shift_left(')}: error: shift_left: internal error: the prover proved " \
        f"shift_left race-free" in out
    assert f"a run shows the data-race at tests/prove/twins.cu:{race}" in out
    assert "note: shift_left: race: a run shows it; the prover proved the opposite, an internal error" in out
    assert "1 proof contradicted by a run (internal error)" in out.splitlines()[-1]
    (logged,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert logged["kernel"] == "shift_left" and logged["file"].endswith("twins.cu")
    run_cli("check", TWINS, "-k", "shift_left", "--format", "sarif", "-o", tmp_path / "report.sarif")
    (run,) = json.loads((tmp_path / "report.sarif").read_text())["runs"]
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert [n["level"] for n in notes] == ["error"] and "internal error" in notes[0]["message"]["text"]


def test_a_run_that_agrees_with_the_proof_logs_nothing(run_cli, tmp_path, monkeypatch):
    log = tmp_path / "contradictions.jsonl"
    monkeypatch.setenv("SIMULEE_CONTRADICTIONS", str(log))
    status, out, _ = run_cli("check", TWINS, "-k", "scale")
    assert status == 0 and "proved: race-free" in out and "internal error" not in out and not log.exists()
