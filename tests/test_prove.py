"""simulee prove: two symbolic threads and z3 decide race freedom for every launch. Each racy
kernel of tests/prove/twins.cu has a fixed twin: the racy ones are never proved (their races
are confirmed by running the solver's launch), the twins are, and check's search finds no
race in what was proved."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import TESTS, line_of
from simulee.checker.kernel import check_kernel, default_launch
from simulee.frontend.compiler import load_program
from simulee.prover.proof import Fixed
from simulee.prover.solve import prove_kernel
from simulee.prover.verdicts import confirm

pytestmark = pytest.mark.xdist_group("prove")  # one worker computes the module's fixtures

TWINS = TESTS / "prove" / "twins.cu"
PROVED = ("tree_sum", "scale", "count", "rows_of_64", "struct_buffers", "grid_shift", "pointer_calls",
          "staged_rows", "countdown")
RACY = ("tree_sum_unsynchronized", "shift_left", "magic_size", "wrapped_index", "early_exit", "peek_counter",
        "rows_of_64_unstated", "struct_buffers_halved", "grid_shift_even_blocks", "warp_scan", "warp_sides",
        "pointer_calls_first", "countdown_late")


@pytest.fixture(scope="module")
def program():
    return load_program(TWINS)


@pytest.fixture(scope="module")
def proofs(program):
    found = {}
    for kernel in program.kernels:
        if kernel.name.startswith("grid_stride"):  # slow for every launch: their own test asks them
            continue
        proof = prove_kernel(program, kernel)
        confirm(program, kernel, proof)
        found[kernel.name] = proof
    return found


def test_the_fixed_twins_are_proved_for_every_launch(proofs):
    assert {name for name, proof in proofs.items() if proof.verdict == "proved"} == set(PROVED)
    assert any("blockDim.y = 1" in assumption for assumption in proofs["scale"].assumptions)


@pytest.mark.parametrize("name", RACY)
def test_a_racy_kernel_is_never_proved_and_its_race_is_confirmed_by_running_the_solvers_launch(proofs, name):
    proof = proofs[name]
    assert proof.verdict == "race" and any(candidate.confirmed for candidate in proof.candidates), proof


def test_the_solver_finds_the_one_size_that_races_at_once(proofs):
    races = [c for c in proofs["magic_size"].candidates if c.kind == "data-race"]
    assert races and all(c.args[1] == 1337 for c in races)
    assert {c.first.line for c in races} == {line_of(TWINS, "all threads write x[0]")}


def test_what_each_race_is(proofs):
    write = line_of(TWINS, "threads 64 apart share a slot")
    wrapped = proofs["wrapped_index"].candidates[0]
    assert (wrapped.first.line, wrapped.second.line) == (write, write)
    (_, one), (_, other) = wrapped.threads
    assert (one[0] - other[0]) % 64 == 0 and one != other  # an 8-bit slot: threads 64 apart
    divergence = [c for c in proofs["early_exit"].candidates if c.kind == "barrier-divergence"]
    assert divergence and {divergence[0].first.kind, divergence[0].second.kind} == {"barrier", "exit"}
    grid = [c for c in proofs["grid_shift_even_blocks"].candidates if c.kind == "barrier-divergence"]
    assert grid and grid[0].scope == "different blocks" and grid[0].confirmed
    first = proofs["pointer_calls_first"].candidates[0]  # the write in the function called through the pointer
    assert line_of(TWINS, "every odd thread writes x[0]") in first.lines()
    peek = proofs["peek_counter"].candidates[0]
    assert {peek.first.kind, peek.second.kind} == {"atomic", "read"}
    assert {peek.first.line, peek.second.line} == {line_of(TWINS, "the other threads' add"),
                                                   line_of(TWINS, "races with the other threads' atomicAdd")}


def test_a_given_launch_is_what_is_proved(program):
    scale = program.kernel("scale")  # a 1-D kernel: 2-D blocks run each element's update several times
    two_d = prove_kernel(program, scale, given=Fixed(block=(16, 16, 1)))
    confirm(program, scale, two_d)
    assert two_d.verdict == "race" and any(c.confirmed and c.block == (16, 16, 1) for c in two_d.candidates)
    one_d = prove_kernel(program, scale, given=Fixed(grid=(2, 1, 1), block=(64, 1, 1), args={"n": 100}))
    assert one_d.verdict == "proved" and "n = 100" in one_d.assumptions
    nothing = prove_kernel(program, scale, given=Fixed(args={"n": 7}, block=(2048, 1, 1)))  # beyond CUDA's limits
    assert nothing.verdict == "unknown" and "no launch" in nothing.reason


def test_pointers_a_struct_carries_are_buffers_of_their_own_and_the_proof_says_so(proofs):
    assert any("pointers in structs" in assumption for assumption in proofs["struct_buffers"].assumptions)
    assert not any("pointers in structs" in assumption for assumption in proofs["scale"].assumptions)


def test_lockstep_warps_order_what_their_lanes_do_at_different_instructions(program):
    scan, sides = program.kernel("warp_scan"), program.kernel("warp_sides")
    proof = prove_kernel(program, scan, warp_model="lockstep")
    assert proof.verdict == "proved" and any("lockstep" in assumption for assumption in proof.assumptions)
    racy = prove_kernel(program, sides, warp_model="lockstep")  # the sides of a branch are not ordered
    confirm(program, sides, racy, "lockstep")
    assert racy.verdict == "race" and any(c.confirmed for c in racy.candidates)
    check = check_kernel(program, scan, [default_launch(scan, grid=(2, 1, 1), block=(96, 1, 1))], "lockstep")
    assert not [f for f in check.findings if f.type == "data-race"], check.findings


def test_a_grid_stride_loop_is_proved_for_a_given_launch_and_its_twin_is_not(program):
    stride = prove_kernel(program, program.kernel("grid_stride"), given=Fixed(grid=(64, 1, 1), block=(256, 1, 1)))
    assert stride.verdict == "proved"
    every = prove_kernel(program, program.kernel("grid_stride"), 1000)
    assert every.verdict != "race"  # a 64-bit counter and the offsets it makes do not wrap
    by_block = program.kernel("grid_stride_by_block")
    racy = prove_kernel(program, by_block, given=Fixed(grid=(4, 1, 1), block=(64, 1, 1)))
    confirm(program, by_block, racy)
    assert racy.verdict == "race" and any(c.confirmed for c in racy.candidates)


def test_mul24_is_exact_past_24_bits(program, proofs):
    race = proofs["mul24_index"]  # only a grid of 2^24 threads or more wraps: a launch too large to run
    assert race.verdict == "race" and not any(c.confirmed for c in race.candidates)
    assert all(max(b[0] for b, _ in c.threads) * c.block[0] >= 1 << 24 for c in race.candidates)
    small = prove_kernel(program, program.kernel("mul24_index"), given=Fixed(grid=(4096, 1, 1), block=(1024, 1, 1)))
    assert small.verdict == "proved"


@pytest.mark.parametrize("name", PROVED)
def test_the_interpreter_finds_no_race_in_a_proved_kernel(program, name):
    kernel = program.kernel(name)  # launches of odd and even sizes, a partial last block, several blocks
    launches = [default_launch(kernel, grid=grid, block=block) for grid, block in
                (((3, 1, 1), (96, 1, 1)), ((2, 1, 1), (256, 1, 1)), ((5, 1, 1), (33, 1, 1)))]
    check = check_kernel(program, kernel, launches)
    assert check.status == "ok" and check.launches
    assert not [f for f in check.findings if f.type in ("data-race", "barrier-divergence")], check.findings


def test_the_command_line_reports_verdicts_as_json_and_exits_1_on_a_confirmed_race():
    result = subprocess.run([sys.executable, "-m", "simulee", "prove", str(TWINS), "-k", "scale", "-k", "shift_left",
                             "--format", "json"], capture_output=True, text=True, timeout=600)
    assert result.returncode == 1, result.stderr
    kernels = {k["kernel"]: k for k in json.loads(result.stdout)["kernels"]}
    assert kernels["scale"]["verdict"] == "proved" and kernels["scale"]["races"] == []
    race = kernels["shift_left"]["races"][0]
    assert kernels["shift_left"]["confirmed"] and race["type"] == "data-race" and "n" in race["args"]
    bad = subprocess.run([sys.executable, "-m", "simulee", "prove", str(TESTS / "nonexistent.cu")],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.startswith("simulee: error: ")


def test_a_precondition_is_an_assumption_the_proof_lists(proofs):
    assert any("preconditions" in assumption for assumption in proofs["rows_of_64"].assumptions)
    assert not any("preconditions" in assumption for assumption in proofs["rows_of_64_unstated"].assumptions)


def test_sarif_holds_each_race_at_its_line_and_every_verdict(run_cli):
    import jsonschema

    status, out, _ = run_cli("prove", TWINS, "-k", "scale", "-k", "shift_left", "--format", "sarif")
    assert status == 1
    document = json.loads(out)
    jsonschema.Draft4Validator(json.loads((TESTS / "data" / "sarif-schema-2.1.0.json").read_text())).validate(document)
    (run,) = document["runs"]
    assert {v["kernel"]: v["verdict"] for v in run["properties"]["verdicts"]} == \
        {"scale": "proved", "shift_left": "race (confirmed)"}
    confirmed = [r for r in run["results"] if r["level"] == "error"]
    assert confirmed and all(r["ruleId"] == "data-race" for r in confirmed)
    lines = {r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in confirmed}
    assert lines == {line_of(TWINS, "thread i+1 writes x[i+1]")}


def test_a_proof_stops_when_its_effort_is_spent_and_says_so(program):
    from simulee.prover.solve import Effort

    tree_sum = program.kernel("tree_sum")
    starved = prove_kernel(program, tree_sum, effort=Effort(20_000, 30_000))
    assert starved.verdict == "unknown" and starved.spent and "ran out" in starved.reason
    enough = [prove_kernel(program, tree_sum, effort=Effort(4_000_000, 20_000_000)) for _ in range(2)]
    assert [proof.verdict for proof in enough] == ["proved", "proved"]  # the same effort, the same verdict


def test_a_kernel_past_its_seconds_is_unknown_and_its_race_not_run(run_cli):
    status, out, _ = run_cli("prove", TWINS, "-k", "shift_left", "--format", "json", "--kernel-seconds", "1e-6")
    (kernel,) = json.loads(out)["kernels"]
    assert status == 0 and kernel["verdict"] == "unknown" and "out of time" in kernel["reason"]
    status, out, _ = run_cli("prove", TWINS, "-k", "shift_left", "--format", "json", "--kernel-seconds", "120")
    assert status == 1 and json.loads(out)["kernels"][0]["confirmed"]


def test_prove_reads_the_launch_sites_of_the_host_code_it_is_given(run_cli, tmp_path):
    launched = TESTS / "prove" / "launched.cu"
    status, out, _ = run_cli("prove", launched, "--format", "json")
    (kernel,) = json.loads(out)["kernels"]
    assert status == 0 and kernel["verdict"] == "proved"
    assert any("launch sites" in assumption for assumption in kernel["assumptions"])
    status, out, _ = run_cli("prove", launched, "--format", "json", "--no-launch-sites")
    (kernel,) = json.loads(out)["kernels"]
    assert status == 1 and kernel["verdict"] == "race" and kernel["confirmed"]
    (tmp_path / "rows.cu").write_text(launched.read_text().split("int main")[0])  # no host code: a contract
    (tmp_path / "simulee.toml").write_text('[[kernel]]\nname = "rows"\nblock = "64"\nargs = { n = 1000 }\n')
    status, out, _ = run_cli("prove", tmp_path / "rows.cu", "--format", "json")
    (kernel,) = json.loads(out)["kernels"]
    assert kernel["verdict"] == "proved" and {"n = 1000", "the block given: (64, 1, 1)"} <= set(kernel["assumptions"])


def test_a_folder_proves_the_kernel_named_in_the_file_that_has_it(run_cli):
    status, out, _ = run_cli("prove", TESTS / "prove", "-k", "rows", "--format", "json")
    assert status == 0 and [k["kernel"] for k in json.loads(out)["kernels"]] == ["rows"]
    status, _, err = run_cli("prove", TESTS / "prove", "-k", "no_such_kernel")
    assert status == 2 and "no file has a kernel named no_such_kernel" in err


def test_a_simulee_toml_relation_is_an_assumption_of_the_proof(run_cli, tmp_path):
    (tmp_path / "halves.cu").write_text(
        "__global__ void halves(float *x, int offset, int width) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < width) x[i + offset] = 2.0f * x[i];  // races with a read unless offset >= width\n"
        "}\n")
    grid = "gridDim.x * blockDim.x <= 1073741824"  # fewer than 2^31 threads: i does not wrap
    verdicts = []
    for relations in (["offset >= width", grid], ["offset * 2 >= width * 2", "width % 2 == 0", grid],
                      ["offset / 1 >= width", grid], []):
        (tmp_path / "simulee.toml").write_text(f'[[kernel]]\nname = "halves"\nrelations = {json.dumps(relations)}\n')
        # a question's time limit well past what it needs: the verdict must not depend on the machine's load
        status, out, err = run_cli("prove", tmp_path / "halves.cu", "--format", "json", "--query-seconds", "120")
        (kernel,) = json.loads(out)["kernels"]
        verdicts.append((kernel["verdict"], [a for a in kernel["assumptions"] if "simulee.toml" in a]))
    first, exact, divided, none = verdicts
    assert first == ("proved", ["offset >= width (simulee.toml)", f"{grid} (simulee.toml)"])
    assert exact[0] == "proved"  # Python's arithmetic: offset * 2 does not wrap at 32 bits
    assert divided == ("race", [f"{grid} (simulee.toml)"])  # true division is not followed: nothing assumed of it
    assert none[0] == "race"


# ---------------------------------------------------------------------------- scopes (tests/prove/scopes.cu)

SCOPES = TESTS / "prove" / "scopes.cu"
SCOPED_RACES = {  # kernel -> (the kind of the solver's race, its lines by what is written there)
    "exchange_across_blocks": ("scoped-race", {"block 0's exchange", "block 1's exchange"}),
    "count_across_blocks": ("scoped-race", {"every block's add"}),
    "mixed_scopes": ("scoped-race", {"orders nothing with block 0's"}),
    "reference_across_blocks": ("scoped-race", {"block 0 writes", "block 1 reads"}),
    "locked_total_in_block_scope": ("scoped-race", {"atomicCAS_block(lock, 0, 1)"}),
    "cluster_across_blocks": ("scoped-race", {"atom.relaxed.cluster"}),
    "peek_beside_atomic": ("data-race", {"thread 0's add", "reads what thread 0 adds to"}),
    "publish_in_block_scope": ("data-race", {"published under a block fence", "read under a block fence"}),
}
SCOPED_PROVED = ("count_within_blocks", "count_in_shared", "count_device", "loads_across_blocks", "gpu_scope_counter")
THROUGH_MEMORY = ("publish", "locked_total")  # race-free through a fence and a flag or a lock: the prover says unknown


@pytest.fixture(scope="module")
def scoped():
    program = load_program(SCOPES)
    found = {}
    for kernel in program.kernels:
        proof = prove_kernel(program, kernel)
        confirm(program, kernel, proof)
        found[kernel.name] = proof
    return program, found


@pytest.mark.parametrize("name", sorted(SCOPED_RACES))
def test_an_atomic_or_fence_orders_nothing_outside_its_scope(scoped, name):
    _, proofs = scoped
    proof = proofs[name]
    kind, lines = SCOPED_RACES[name]
    assert proof.verdict == "race" and any(c.confirmed for c in proof.candidates), proof
    first = next(c for c in proof.candidates if c.confirmed)
    assert first.kind == kind and set(first.lines()) == {line_of(SCOPES, text) for text in lines}, first
    if kind == "scoped-race":
        assert first.scope == "different blocks" and first.threads[0][0] != first.threads[1][0]


def test_atomics_of_a_scope_that_holds_both_threads_are_proved(scoped):
    _, proofs = scoped
    assert {name for name, proof in proofs.items() if proof.verdict == "proved"} == set(SCOPED_PROVED)


@pytest.mark.parametrize("name", THROUGH_MEMORY)
def test_what_orders_through_memory_is_unknown_to_the_prover_never_proved(scoped, name):
    _, proofs = scoped
    proof = proofs[name]
    assert proof.verdict == "unknown" and "orders accesses through memory" in proof.reason
    assert "a fence at line" in proof.reason and not any(c.confirmed for c in proof.candidates)


@pytest.mark.parametrize("name", SCOPED_PROVED)
def test_the_interpreter_finds_no_race_where_scopes_were_proved(scoped, name):
    program, _ = scoped
    kernel = program.kernel(name)
    launches = [default_launch(kernel, grid=grid, block=block) for grid, block in
                (((3, 1, 1), (96, 1, 1)), ((2, 1, 1), (33, 1, 1)))]
    check = check_kernel(program, kernel, launches)
    assert check.status == "ok" and check.launches
    assert not [f for f in check.findings if f.type in ("data-race", "scoped-race", "barrier-divergence")], \
        check.findings


def test_an_atomic_of_a_scope_the_model_does_not_know_is_unknown(run_cli):
    status, out, _ = run_cli("prove", TESTS / "prove" / "unknown_scope.ll", "--format", "json")
    (kernel,) = json.loads(out)["kernels"]
    assert status == 0 and kernel["verdict"] == "unknown"
    assert 'an atomic of scope "singlethread"' in kernel["reason"]


def test_a_scoped_race_is_never_proved_by_check_and_its_run_shows_it(run_cli, tmp_path):
    kernels = {}
    for name in ("exchange_across_blocks", "count_within_blocks"):
        out = tmp_path / f"{name}.json"
        run_cli("check", SCOPES, "-k", name, "-q", "--format", "json", "-o", out)
        kernels.update({k["kernel"]: k for k in json.loads(out.read_text())["kernels"]})
    racy = kernels["exchange_across_blocks"]
    assert racy["verdict"] == "race" and racy["proof"]["verdict"] == "race"
    assert [(f["type"], f["severity"]) for f in racy["findings"]] == [("scoped-race", "error")]
    assert kernels["count_within_blocks"]["verdict"] == "proved" and not kernels["count_within_blocks"]["findings"]


def test_a_proved_kernel_whose_run_did_not_end_says_what_was_proved_and_what_was_not_checked(program, monkeypatch):
    """A check proves `count` and then runs it for what a proof does not decide; with a trace
    too small for any launch, and no launch judged in parts, the run ends in nothing: the
    kernel is not checked for memory faults, and says that its races and barriers were
    proved."""
    from simulee.checker import kernel as checking
    from simulee.checker.kernel import NOT_CHECKED, Given, Settings
    from simulee.prover.verdicts import check_given

    monkeypatch.setattr(checking, "_in_parts", lambda program, kernel, result, *rest, **options: (result, None, None))
    kernel = program.kernel("count")
    check = check_given(program, kernel, Given(), Settings(trace_limit=8))
    assert check.proof["verdict"] == "proved" and check.status == NOT_CHECKED
    assert check.error.startswith("proved free of races and barrier divergence for every launch; memory faults not "
                                  "checked: every launch was stopped once its trace was full"), check.error
