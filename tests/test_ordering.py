"""Happens-before through memory: fences, atomics, volatile flags and their scopes
(simulee.detect.ordering), each correct kernel against its broken twins."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from conftest import KERNELS, line_of

FILE = KERNELS / "fence_sync.cu"


def findings(kernel: str, *launch) -> list[tuple[str, int, int]]:
    """(type, line, other line) of each error of `kernel` checked on `launch` alone."""
    result = subprocess.run([sys.executable, "-m", "simulee", "check", str(FILE), "-k", kernel, "-q", "--format",
                             "json", *launch], capture_output=True, text=True)
    assert result.returncode in (0, 1), result.stderr
    found = json.loads(result.stdout)["kernels"][0]["findings"]
    return sorted((f["type"], f["first"]["line"], f["second"]["line"]) for f in found if f["severity"] == "error")


def at(text: str, kernel: str = "last_block_sum") -> int:
    return line_of(FILE, text, kernel)


@pytest.mark.parametrize("grid", ["2", "7"])
def test_the_last_block_reads_every_partial_after_a_fence_and_a_ticket(grid):
    assert findings("fenced_sum", "--launch", f"{grid}/64") == []


def test_without_the_fence_the_partials_and_the_counter_race():
    partial, reads, counter = at("partial[blockIdx.x] = acc"), at("acc += partial[i]"), at("atomicInc(&retired")
    assert findings("unfenced_sum", "--launch", "4/64") == [
        ("data-race", partial, reads), ("data-race", counter, at("retired = 0;"))]


def test_a_block_scoped_fence_cannot_order_blocks_and_says_so():
    found = findings("block_fenced_sum", "--launch", "4/64")
    assert {kind for kind, _, _ in found} == {"scoped-race"} and len(found) == 2
    result = subprocess.run([sys.executable, "-m", "simulee", "check", str(FILE), "-k", "block_fenced_sum", "-q",
                             "--launch", "4/64"], capture_output=True, text=True)
    line = at("__threadfence_block()")
    assert f"__threadfence_block() at line {line} has block scope" in result.stdout, result.stdout


def test_a_volatile_flag_after_a_fence_hands_data_to_another_block():
    assert findings("flag_handoff", "--launch", "2/32") == []


def test_a_plain_flag_orders_nothing():
    value, flag = at("data[0] = 42", "plain_flag_handoff"), at("*ready = 1", "plain_flag_handoff")
    read_flag, read_value = at("if (*ready)", "plain_flag_handoff"), at("out[0] = data[0]", "plain_flag_handoff")
    assert read_flag < read_value
    assert findings("plain_flag_handoff", "--launch", "2/32") == [
        ("data-race", value, read_value), ("data-race", flag, read_flag)]


def test_atomics_of_a_block_scope_race_with_other_blocks_atomics():
    counter = at("atomicAdd_block(count, 1)", "block_scoped_counter")
    found = findings("block_scoped_counter", "--launch", "2/32")
    assert ("data-race", counter, at("*count = 0", "block_scoped_counter")) in found
    result = subprocess.run([sys.executable, "-m", "simulee", "check", str(FILE), "-k", "block_scoped_counter", "-q",
                             "--launch", "2/32"], capture_output=True, text=True)
    assert "scoped race" in result.stdout and "atomicAdd_block at line" in result.stdout
