"""The detector registry, and the detectors that run only when asked: shared-memory bank
conflicts and reads of uninitialized shared memory."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

from conftest import KERNELS, program
from interpreter import trace
from simulee import detect
from simulee.report import formats as report
from simulee.report import rootcause
from simulee.checker.kernel import check_kernel, default_launch
from test_check import line_of

BANKS = "bank_conflicts.cu"
UNINITIALIZED = "uninitialized_shared.cu"


def checked(file: str, kernel: str, grid=(1, 1, 1), block=(32, 1, 1), detect_=("all",), **args):
    loaded = program(KERNELS / file)
    info = loaded.kernel(kernel)
    return check_kernel(loaded, info, [default_launch(info, args, grid, block)], detect=detect_)


def of_type(result, kind: str) -> list:
    return [finding for finding in result.findings if finding.type == kind]


def test_every_fault_kind_the_interpreter_reports_has_a_rule():
    kinds = {value for name, value in vars(trace).items() if name.isupper() and isinstance(value, str)}
    assert kinds - {trace.BUFFER_LIMIT} <= set(detect.rules())
    assert trace.BUFFER_LIMIT not in detect.rules()  # a launch too large to run, never a finding
    assert len(set(detect.names())) == len(detect.DETECTORS)
    assert {d.name for d in detect.enabled()} == {d.name for d in detect.DETECTORS if d.default}
    default = {d.name for d in detect.enabled()}
    assert {d.name for d in detect.enabled(("bank-conflict",))} - default == {"bank-conflict"}


@pytest.mark.parametrize("kernel, degree", [("stride_two", 2), ("column_of_tile", 32)])
def test_a_conflicting_shared_access_is_reported_with_its_degree(kernel, degree):
    (conflict,) = of_type(checked(BANKS, kernel), "bank-conflict")
    assert conflict.severity == "warning" and conflict.details["conflict_degree"] == degree
    assert conflict.line == line_of(BANKS, "out[threadIdx.x] = s[2 * threadIdx.x]" if degree == 2
                                    else "tile[threadIdx.x][0];  // a column", kernel)
    assert conflict.details["extra_passes"] == degree - 1 and f"up to {degree}-way" in conflict.message


@pytest.mark.parametrize("kernel", ["unit_stride", "column_of_padded_tile", "broadcast", "doubles"])
def test_conflict_free_patterns_are_not_reported(kernel):
    assert of_type(checked(BANKS, kernel), "bank-conflict") == []


def test_bank_conflicts_are_off_unless_asked():
    assert of_type(checked(BANKS, "column_of_tile", detect_=()), "bank-conflict") == []


def test_bins_atomically_added_before_anyone_zeroed_them_are_uninitialized_reads():
    found = of_type(checked(UNINITIALIZED, "histogram_unzeroed", (2, 1, 1), (64, 1, 1),
                            values=np.arange(128, dtype=np.int32), n=128), "uninitialized-shared-read")
    assert [f.line for f in found] == [line_of(UNINITIALIZED, "bins never zeroed")]
    assert found[0].first.access == "atomic" and found[0].instances >= 16
    clean = checked(UNINITIALIZED, "histogram_zeroed", (2, 1, 1), (64, 1, 1), values=np.arange(128, dtype=np.int32),
                    n=128)
    assert of_type(clean, "uninitialized-shared-read") == []


def test_a_neighbour_nobody_loaded_is_an_uninitialized_read_and_one_loaded_is_not():
    (past,) = of_type(checked(UNINITIALIZED, "neighbour_past_loaded", (2, 1, 1), (64, 1, 1), n=128),
                      "uninitialized-shared-read")
    assert past.line == line_of(UNINITIALIZED, "never loaded") and past.first.thread == (63, 0, 0)
    assert past.instances == 2  # the last thread of each block
    for n in (128, 100):  # a partial last block reads the zeros loaded past the end
        assert of_type(checked(UNINITIALIZED, "neighbour_within_loaded", (2, 1, 1), (64, 1, 1), n=n),
                       "uninitialized-shared-read") == []
    assert of_type(checked(UNINITIALIZED, "own_write_then_read", (1, 1, 1), (64, 1, 1)),
                   "uninitialized-shared-read") == []


def test_reports_take_rules_levels_and_columns_from_the_detectors():
    result = checked(BANKS, "column_of_tile")
    bugs = rootcause.bugs([result.to_json()])
    rows = list(csv.DictReader(io.StringIO(report.csv_text(bugs))))
    assert [row["conflict_degree"] for row in rows if row["type"] == "bank-conflict"] == ["32"]
    document = json.loads(report.sarif_text(bugs))
    rules = {rule["id"]: rule for rule in document["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["bank-conflict"]["defaultConfiguration"]["level"] == "warning"
    assert rules["bank-conflict"]["shortDescription"]["text"] == detect.rules()["bank-conflict"].description


def test_detect_on_the_command_line():
    import subprocess
    import sys

    def simulee(*args):
        return subprocess.run([sys.executable, "-m", "simulee", *args], capture_output=True, text=True)

    asked = simulee("check", str(KERNELS / BANKS), "-k", "column_of_tile", "--grid", "1", "--block", "32",
                    "--detect", "bank-conflict")
    assert asked.returncode == 0 and "warning: shared-memory bank conflict: up to 32-way" in asked.stdout
    wrong = simulee("check", str(KERNELS / BANKS), "--detect", "bank-conflicts")
    assert wrong.returncode == 2 and wrong.stderr.count("\n") == 1 and "expected detector names" in wrong.stderr
    assert "Traceback" not in wrong.stderr


@pytest.mark.parametrize("seed", range(5))
def test_a_write_checked_later_by_its_own_thread_is_found_per_row_however_often_pairs_repeat_it(seed):
    """race._checked_later (a lane that reads its word again to decide a branch checks what
    its write left): each row's answer is a check by the same thread, on the same unit, in
    the same epoch at a later step, for rows given in any order and any number of times."""
    from simulee.detect.race import READ, _checked_later

    rng = np.random.default_rng(seed)
    n = 400
    c = {"unit": rng.integers(0, 4, n) * 8, "block": rng.integers(0, 2, n), "thread": rng.integers(0, 3, n),
         "epoch": rng.integers(0, 2, n), "step": rng.integers(0, 50, n), "decides": rng.random(n) < 0.3,
         "action": np.where(rng.random(n) < 0.5, READ, READ + 1)}
    rows = rng.integers(0, n, 3 * n)
    key = lambda r: (c["unit"][r], c["block"][r], c["thread"][r], c["epoch"][r])
    checks = [q for q in range(n) if c["decides"][q] and c["action"][q] == READ]
    expected = [any(key(q) == key(r) and c["step"][q] > c["step"][r] for q in checks) for r in rows]
    assert _checked_later(c, rows).tolist() == expected
    assert any(expected) and not all(expected)


@pytest.mark.parametrize("seed", range(5))
def test_pairs_of_different_agents_are_every_such_pair_in_order(seed):
    """race._pairs_of_agents: every pair of positions i < j of one partition whose agents
    differ, ordered by (i, j), however unevenly the agents fill the partitions."""
    from simulee.detect.race import _pairs_of_agents

    rng = np.random.default_rng(seed)
    part = np.sort(rng.integers(0, 6, 300))
    agents = np.where(rng.random(300) < 0.7, 0, rng.integers(0, 5, 300))  # one agent fills most
    expected = [(i, j) for i in range(300) for j in range(i + 1, 300)
                if part[i] == part[j] and agents[i] != agents[j]]
    i, j = _pairs_of_agents(part, agents)
    assert list(zip(i.tolist(), j.tolist())) == expected and expected


def test_pairs_made_in_chunks_are_the_pairs_made_at_once(monkeypatch):
    """race._conflicting_pairs enumerates partitions in chunks of PAIRS_PER_CHUNK pairs:
    however small the chunks, the same pairs in the same order."""
    from simulee.detect import race

    rng = np.random.default_rng(1)
    n = 3000
    c = {"unit": rng.integers(0, 30, n), "block": rng.integers(0, 2, n), "grid_epoch": np.zeros(n, int),
         "epoch": rng.integers(0, 2, n), "warp": rng.integers(0, 2, n), "thread": rng.integers(0, 8, n),
         "action": rng.integers(0, 2, n), "mask": np.full(n, 15), "exempt": rng.random(n) < 0.1}
    keys = ("unit", "block", "grid_epoch", "epoch", "warp")
    made = []
    for chunk in (1 << 40, 7, 1000):
        monkeypatch.setattr(race, "PAIRS_PER_CHUNK", chunk)
        made.append(race._conflicting_pairs(c, np.arange(n), keys, "thread"))
    assert len(made[0][0]) > 1000
    assert all(np.array_equal(x, y) for other in made[1:] for x, y in zip(made[0], other))
