"""Happens-before through memory: fences, atomics, volatile flags and their scopes
(simulee.model.ordering), each correct kernel against its broken twins."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import KERNELS, line_of
from simulee.model.sort import columns_order, stable_order

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


def test_thousands_of_blocks_taking_tickets_stay_ordered():
    assert findings("fenced_sum", "--launch", "2000/64") == []  # 2,000 releases and acquires, all followed


def test_beyond_the_events_followed_an_unordered_pair_is_only_a_warning():
    result = subprocess.run([sys.executable, "-m", "simulee", "check", str(FILE), "-k", "fenced_sum", "-q",
                             "--launch", "3000/64"], capture_output=True, text=True)
    assert result.returncode == 0 and ": error:" not in result.stdout
    assert "only the first 2,048 releases and acquires were followed, and a later one may order this" in result.stdout


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
    value, flag = at("data[0] = 42", "hand_off"), at("*ready = 1", "hand_off")
    read_flag, read_value = at("if (*ready)", "hand_off"), at("out[0] = data[0]", "hand_off")
    assert read_flag < read_value
    assert findings("plain_flag_handoff", "--launch", "2/32") == [
        ("data-race", value, read_value), ("data-race", flag, read_flag)]


def test_atomics_of_a_block_scope_race_with_other_blocks_atomics():
    counter = at("atomicAdd_block(count, 1)", "block_scoped_counter")
    found = findings("block_scoped_counter", "--launch", "2/32")
    assert ("data-race", counter, at("*count = 0", "block_scoped_counter")) in found
    # an error, though both add 1: a read-modify-write's operand is not what it leaves (never benign)
    assert ("scoped-race", counter, counter) in found
    result = subprocess.run([sys.executable, "-m", "simulee", "check", str(FILE), "-k", "block_scoped_counter", "-q",
                             "--launch", "2/32"], capture_output=True, text=True)
    assert "scoped race" in result.stdout and "atomicAdd_block at line" in result.stdout


SPIN = KERNELS / "spin_sync.cu"


def spin_findings(kernel: str, launch: str = "4/64") -> list[tuple[str, str, int, int, str]]:
    """(type, severity, line, other line or 0, synchronization) of each finding of `kernel`
    in spin_sync.cu on `launch`."""
    result = subprocess.run([sys.executable, "-m", "simulee", "check", str(SPIN), "-k", kernel, "-q", "--format",
                             "json", "--launch", launch], capture_output=True, text=True)
    assert result.returncode in (0, 1), result.stderr
    found = json.loads(result.stdout)["kernels"][0]["findings"]
    return sorted((f["type"], f["severity"], f["first"]["line"], (f["second"] or {}).get("line", 0),
                   f.get("details", {}).get("synchronization", "")) for f in found)


def spin_at(text: str, kernel: str) -> int:
    return line_of(SPIN, text, kernel)


@pytest.mark.parametrize("kernel", ["locked", "wait_for_last", "warp_turns", "warp_lock", "lookback_scan"])
@pytest.mark.parametrize("launch", ["4/64", "9/64"])
def test_correct_locks_spins_and_look_back_are_clean(kernel, launch):
    assert spin_findings(kernel, launch) == []


def test_a_lock_released_without_a_fence_does_not_publish_what_it_guarded():
    total, count = spin_at("*total += blockIdx.x", "locked_add"), spin_at("*count += 1", "locked_add")
    release = spin_at("atomicExch(&lock, 0)", "locked_add")
    assert spin_findings("unfenced_lock") == [("data-race", "error", total, total, "no release"),
                                              ("data-race", "error", count, count, "no release")]
    result = subprocess.run([sys.executable, "-m", "simulee", "check", str(SPIN), "-k", "unfenced_lock", "-q",
                             "--launch", "4/64"], capture_output=True, text=True)
    assert f"no release: the flag write at line {release} has no __threadfence() before it" in result.stdout


def test_a_block_scoped_lock_locks_nothing_for_other_blocks():
    found = spin_findings("block_lock_across_blocks")
    total = spin_at("*total += blockIdx.x", "locked_add")
    assert ("scoped-race", "error", total, total, "scope too narrow") in found
    assert {kind for kind, *_ in found} == {"scoped-race"}
    result = subprocess.run([sys.executable, "-m", "simulee", "check", str(SPIN), "-k", "block_lock_across_blocks",
                             "-q", "--launch", "4/64"], capture_output=True, text=True)
    assert f"atomicCAS_block at line {spin_at('atomicCAS_block', 'locked_add')} has block scope and cannot order " \
           "block 0 with block 1; use a device-scope one" in result.stdout


def test_a_plain_flag_between_blocks_races():
    flag, value = spin_at("*ready = 1", "wait_for"), spin_at("data[0] = 7", "wait_for")
    assert spin_findings("wait_plain") == [
        ("data-race", "error", value, spin_at("out[0] = data[0]", "wait_for"), "none"),
        ("data-race", "error", flag, spin_at("while (*ready == 0)", "wait_for"), "none")]


def test_a_spin_on_a_flag_nobody_sets_is_a_deadlock_naming_the_threads():
    result = subprocess.run([sys.executable, "-m", "simulee", "check", str(SPIN), "-k", "never_set", "-q",
                             "--launch", "3/64"], capture_output=True, text=True)
    assert result.returncode == 0  # the flag is a buffer the caller fills: a warning naming it
    assert f"spin_sync.cu:{spin_at('while (*ready == 0)', 'never_set')}:19: warning: deadlock: 3 threads (thread " \
           "(0,0,0) of block (0,0,0), thread (0,0,0) of block (1,0,0), thread (0,0,0) of block (2,0,0)) spin here " \
           "waiting for a value no thread can still write (only for some contents of ready: Simulee made up what " \
           "it holds (zeros)" in result.stdout
    given = subprocess.run([sys.executable, "-m", "simulee", "check", str(SPIN), "-k", "never_set", "-q",
                            "--launch", "3/64", "--buffer", "ready=int32:1:zeros"], capture_output=True, text=True)
    assert given.returncode == 1 and ": error: deadlock: 3 threads" in given.stdout  # the user's zero


def test_a_spin_on_a_block_of_a_later_wave_is_a_potential_deadlock():
    found = spin_findings("wait_for_last", "5000/64")  # more blocks than run at once
    assert found == [("deadlock", "warning", spin_at("while (*ready == 0)", "wait_for"), 0, "")]


def test_the_lanes_of_a_warp_share_the_lock_one_lane_took_only_after_a_syncwarp():
    total = spin_at("total[lane] += 1", "warp_locked")
    assert spin_findings("unsynced_warp_lock") == [("data-race", "error", total, total, "no acquire")]


def test_a_lock_between_warps_needs_its_release_fence():
    total = spin_at("sum += threadIdx.x", "take_turns")
    assert spin_findings("unfenced_warp_turns") == [("data-race", "error", total, total, "no release")]


def test_look_back_without_fences_reads_unpublished_aggregates():
    found = spin_findings("unfenced_lookback_scan")
    read = spin_at("prefix += value[2 * p + flag - 1]", "look_back")
    assert found == [
        ("data-race", "error", spin_at("value[2 * tile] = aggregate", "look_back"), read, "no release"),
        ("data-race", "error", spin_at("value[2 * tile + 1] = prefix", "look_back"), read, "no release")]


def test_csv_and_sarif_say_why_the_synchronization_did_not_order_the_race():
    def report(form: str) -> str:
        return subprocess.run([sys.executable, "-m", "simulee", "check", str(SPIN), "-k", "unfenced_lock", "-q",
                               "--format", form, "--launch", "4/64"], capture_output=True, text=True).stdout
    rows = list(csv.DictReader(io.StringIO(report("csv"))))
    assert [row["synchronization"] for row in rows] == ["no release", "no release"]
    results = json.loads(report("sarif"))["runs"][0]["results"]
    assert [r["properties"]["synchronization"] for r in results] == ["no release", "no release"]


REF = KERNELS / "atomic_ref.cu"


@pytest.mark.parametrize("kernel, expected", [
    ("ref_handoff", []),
    ("ptx_handoff", []),
    ("ref_block_scope", [("scoped-race", "scope too narrow"), ("scoped-race", "scope too narrow")]),
    ("ref_relaxed", [("data-race", "no release")]),
    ("ptx_cta_fence", [("scoped-race", "scope too narrow")]),
    ("ptx_vector_status", []),
])
def test_orders_and_scopes_the_code_states_in_libcu_and_ptx(kernel, expected):
    result = subprocess.run([sys.executable, "-m", "simulee", "check", str(REF), "-k", kernel, "-q", "--format",
                             "json", "--launch", "2/32"], capture_output=True, text=True)
    found = json.loads(result.stdout)["kernels"][0]["findings"]
    assert [(f["type"], f["details"]["synchronization"]) for f in found] == expected
    if expected:
        assert all(f["first"]["line"] == line_of(REF, "data[0] = 7", "hand_over" if "ref" in kernel else kernel)
                   for f in found[:1])


def test_a_race_beside_an_unrelated_counter_names_no_synchronization():
    write, read = spin_at("s[threadIdx.x] = threadIdx.x", "counted_neighbours"), \
        spin_at("s[(threadIdx.x + 32)", "counted_neighbours")
    assert spin_findings("counted_neighbours", "2/64") == [("data-race", "error", write, read, "none")]


VOLATILE = KERNELS / "volatile_sync.cu"


def volatile_findings(kernel: str, launch: str = "2/32", *options) -> list[tuple[str, str, int, int]]:
    """(type, severity, line, other line) of each finding of a kernel of volatile_sync.cu."""
    result = subprocess.run([sys.executable, "-m", "simulee", "check", str(VOLATILE), "-k", kernel, "-q", "--format",
                             "json", "--launch", launch, *options], capture_output=True, text=True)
    assert result.returncode in (0, 1), result.stderr
    found = json.loads(result.stdout)["kernels"][0]["findings"]
    return sorted((f["type"], f["severity"], f["first"]["line"], f["second"]["line"]) for f in found)


def volatile_at(text: str, kernel: str) -> int:
    return line_of(VOLATILE, text, kernel)


def test_volatile_is_no_atomic_an_atomic_against_a_volatile_store_races():
    exchange, store = volatile_at("atomicExch((int *)slot, 1)", "exchange_vs_volatile"), \
        volatile_at("*slot = 2", "exchange_vs_volatile")
    assert volatile_findings("exchange_vs_volatile") == [("data-race", "error", exchange, store)]
    assert volatile_findings("exchange_vs_exchange") == []  # two atomics never race


def test_volatile_data_nothing_orders_races():
    line = volatile_at("*count = *count + 1", "volatile_counter")
    assert ("data-race", "error", line, line) in volatile_findings("volatile_counter")


def test_a_lock_needs_its_device_fences_when_the_data_it_guards_is_volatile():
    section = volatile_at("*total = *total + 1", "add_locked")
    assert volatile_findings("locked") == []
    unfenced = volatile_findings("unfenced_unlock")
    assert unfenced and {(kind, first) for kind, _, first, _ in unfenced} == {("data-race", section)}
    for kernel in ("block_fenced_lock", "block_fenced_acquire"):  # block fences on both sides, or after the CAS
        block = volatile_findings(kernel)
        assert block and {(kind, severity, first) for kind, severity, first, _ in block} == {
            ("scoped-race", "error", section)}


def test_a_block_fence_after_what_an_acquire_orders_releases_the_next_handover_and_bounds_no_acquire():
    assert volatile_findings("relayed", "2/64") == []
    second = volatile_at("the second add, after block 0's", "relay")
    found = volatile_findings("relayed_block_first", "2/64")  # block 0 releases for its block only
    assert found and {(kind, severity) for kind, severity, _, _ in found} == {("scoped-race", "error")}
    assert {first for _, _, first, _ in found} | {other for _, _, _, other in found} >= {second}


def test_a_volatile_flag_orders_volatile_data_only_after_a_fence_and_is_no_race_itself():
    data, read = volatile_at("data[0] = 42", "publish"), volatile_at("out[0] = data[0]", "publish")
    assert volatile_findings("flagged") == []
    assert volatile_findings("unfenced_flag") == [("data-race", "error", data, read)]  # the data, not the flag


@pytest.mark.parametrize("model", ["independent", "lockstep"])
def test_a_plain_write_beside_another_lanes_atomic_is_a_data_race_under_every_warp_model(model):
    write, atomic = volatile_at("counter[1] = 0", "atomic_vs_plain_in_a_warp"), \
        volatile_at("atomicAdd(&counter[1], 1)", "atomic_vs_plain_in_a_warp")
    assert volatile_findings("atomic_vs_plain_in_a_warp", "1/32", "--warp-model", model) == [
        ("data-race", "error", write, atomic)]


NV = KERNELS / "nv_atomics.cu"


def nv_findings(kernel: str) -> list[tuple[str, int, int]]:
    result = subprocess.run([sys.executable, "-m", "simulee", "check", str(NV), "-k", kernel, "-q", "--format",
                             "json", "--launch", "2/64"], capture_output=True, text=True)
    assert result.returncode in (0, 1), result.stderr
    found = json.loads(result.stdout)["kernels"][0]["findings"]
    return sorted((f["type"], f["first"]["line"], f["second"]["line"]) for f in found if f["severity"] == "error")


def test_cuda_12_built_in_atomics_release_and_acquire_at_their_scope():
    value, read = line_of(NV, "the value handed off"), line_of(NV, "the value read")
    store, load = line_of(NV, "__nv_atomic_store_n(ready"), line_of(NV, "__nv_atomic_load_n(ready")
    assert nv_findings("release_acquire") == []
    assert nv_findings("release_acquire_in_block_scope") == [("scoped-race", value, read),
                                                             ("scoped-race", store, load)]
    assert nv_findings("relaxed_hand_off") == [("data-race", value, read)]
    add = line_of(NV, "a thread's own add")
    assert nv_findings("count_in_thread_scope") == [("data-race", add, add)]  # thread scope: plain adds
    assert nv_findings("count_every_scope") == []


def test_cuda_12_built_in_atomics_leave_what_cudas_atomics_leave(tmp_path):
    out = tmp_path / "out.npz"
    for engine in ("native", "numpy"):
        done = subprocess.run([sys.executable, "-m", "simulee", "--engine", engine, "run", str(NV), "-k",
                               "count_every_scope", "--grid", "2", "--block", "64", "--buffer", "counts=int32:16:zeros",
                               "--buffer", "wide=uint64:1:zeros", "--buffer", "total=float32:1:zeros", "--buffer",
                               "peak=int32:3:zeros", "-o", out, "-q"], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        buffers = np.load(out)
        assert buffers["counts"].tolist() == [128, 256, -64, -64, 0, 0, 0, 0, 2 ** 31 - 1, 0, 0, 1, 0, 0, 0, 0]
        assert buffers["wide"].tolist() == [128 << 33] and buffers["total"].tolist() == [64.0]
        assert buffers["peak"].tolist() == [127, -63, -127]


CAS_RETRY = KERNELS / "cas_retry.cu"


def test_a_plain_read_that_only_seeds_a_compare_and_swap_retry_loop_is_a_benign_race():
    """cas_retry.cu: a plain read racing other blocks' compare-and-swap, whose value is what
    its thread's CAS expects (through the bit casts of a float) and which that CAS retries
    on, is benign, a warning saying why; a read whose value is kept, beside a CAS expecting a
    constant, is a race (an error) on the same launch, under either engine."""
    def found(kernel: str, engine: str) -> list[tuple]:
        result = subprocess.run([sys.executable, "-m", "simulee", "check", str(CAS_RETRY), "-k", kernel, "-q",
                                 "--format", "json", "--launch", "4/64", "--engine", engine],
                                capture_output=True, text=True)
        assert result.returncode in (0, 1), result.stderr
        return [(f["type"], f["severity"], f["benign"], f["first"]["line"], f["second"]["line"], f["message"])
                for f in json.loads(result.stdout)["kernels"][0]["findings"]]

    guess, retried = line_of(CAS_RETRY, "float guess = *total"), line_of(CAS_RETRY, "unsigned int old = atomicCAS")
    kept, swap = line_of(CAS_RETRY, "seen[blockIdx.x"), line_of(CAS_RETRY, "atomicCAS(word, 0u, 1u)")
    for engine in ("numpy", "native"):
        [seeded] = found("cas_add", engine)
        assert seeded[:5] == ("data-race", "warning", True, retried, guess)
        assert "only seeds a compare-and-swap of its thread" in seeded[5]
        [race] = found("read_then_cas", engine)
        assert race[:5] == ("data-race", "error", False, swap, kept)


REREAD = KERNELS / "reread.cu"


def test_a_read_of_what_its_own_thread_stored_racing_stores_of_that_value_is_benign():
    """reread.cu: every thread stores one pointer in a __shared__ variable and reads it back:
    the reads race the other threads' stores of that same value, which change nothing the
    read returns (a benign warning saying why, as the stores' own write-write race); a
    thread reading back its own index, which another thread's store replaces, races (an
    error), under either engine."""
    def found(kernel: str, engine: str) -> set[tuple]:
        result = subprocess.run([sys.executable, "-m", "simulee", "check", str(REREAD), "-k", kernel, "-q",
                                 "--format", "json", "--launch", "2/64", "--engine", engine, "--no-prove"],
                                capture_output=True, text=True)
        assert result.returncode in (0, 1), result.stderr
        return {(f["type"], f["severity"], f["benign"], f["hazard"], f["message"].count("stored that same value"))
                for f in json.loads(result.stdout)["kernels"][0]["findings"] if f["type"] == "data-race"}

    for engine in ("numpy", "native"):
        assert found("same_pointer", engine) == {("data-race", "warning", True, "write-write", 0),
                                                 ("data-race", "warning", True, "read-write", 1)}
        assert ("data-race", "error", False, "read-write", 0) in found("own_index", engine)


@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(0, 1 << 62), st.integers(-(1 << 20), 1 << 20)),
                max_size=300), st.sampled_from([1, 2, 3]))
def test_the_fast_sorts_give_numpys_stable_orders(rows, width):
    """The packed sorts the model and the detectors take give what NumPy's stable argsort
    and lexsort give, ties in row order, for keys that fit in 63 bits and keys that do not."""
    columns = [np.array([row[k] for row in rows], dtype=np.int64) for k in range(width)] if rows else \
        [np.zeros(0, dtype=np.int64)] * width
    assert np.array_equal(columns_order(columns), np.lexsort(tuple(reversed(columns))))
    for column in columns:
        assert np.array_equal(stable_order(column), np.argsort(column, kind="stable"))
    unsigned = np.array([row[1] for row in rows], dtype=np.uint64) << np.uint64(1)  # past int64's range
    assert np.array_equal(stable_order(unsigned), np.argsort(unsigned, kind="stable"))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 62), st.integers(0, 3), st.integers(0, 2 ** 32 - 1))
def test_the_radix_sort_gives_numpys_stable_order_on_large_arrays(span_bits, ties, seed):
    """Past MIN_KEYS keys, stable_order sorts in machine code (interpreter.native_sort): keys
    of any span up to what packs with the row (and past it, to NumPy), with runs of equal
    keys (ties in row order), shifted below zero, or booleans, order as NumPy's stable
    argsort does, and so do the widest keys that pack with their rows."""
    from interpreter.native_sort import MIN_KEYS, _radix_sort, stable_rows

    assert _radix_sort() is not None  # the machine code, not NumPy's sort, is what is tested
    rng = np.random.default_rng(seed)
    n = int(rng.integers(MIN_KEYS, 3 * MIN_KEYS))
    key = rng.integers(0, 1 << span_bits, n, dtype=np.int64) - (1 << max(span_bits - 1, 0))
    key = np.repeat(key[: -(-n // (1 << ties))], 1 << ties)[:n]  # runs of 2**ties equal keys
    assert np.array_equal(stable_order(key), np.argsort(key, kind="stable"))
    flags = key % 2 == 0
    assert np.array_equal(stable_order(flags), np.argsort(flags, kind="stable"))
    widest = 63 - (n - 1).bit_length()
    values = rng.integers(0, 1 << widest, n, dtype=np.int64) >> (span_bits % 8)
    assert np.array_equal(stable_rows(values.copy(), widest), np.argsort(values, kind="stable"))
