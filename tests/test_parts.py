"""A launch detected in parts (detect.parts) finds what its whole trace shows: random
kernels of global and shared accesses (their indices from the thread, the block, or
neither; barriers or none; atomics; early exits), each run once in waves of a few blocks
and judged part by part (cut inside a wave at its barriers too), and judged on all its
parts' traces joined, give the same root causes, severities and barrier verdicts, but
that a launch cut inside its waves judges no barrier redundant: one the whole trace shows
needed may be left not covered. (The same run: waves of other sizes would order a racy
kernel's accesses otherwise, and change what it stores.)"""

from __future__ import annotations

import copy
import dataclasses
import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from interpreter.launch import Launch
from interpreter.simt import execute
from interpreter.trace import Trace
from simulee.detect import enabled
from simulee.detect.base import KernelRuns
from simulee.detect.parts import PartedLaunch, merge
from simulee.detect.redundant import CUT
from simulee.frontend.compiler import load_program

GRID, BLOCK = 24, 64
SIZE = GRID * BLOCK + 64  # elements of each global buffer: every index below stays inside

INDICES = ["gid", "t", "b", "gid % 96", "(gid * 7) % 1000", "0", "b % 3", "n - 1 - gid", "b * 32 + t % 32",
           "(t + 1) % blockDim.x", "gid / 2"]
SHARED_INDICES = ["t", "(t + 1) % blockDim.x", "0", "t / 2", "blockDim.x - 1 - t", "t % 32"]


def statement(rng: random.Random) -> str:
    """One access (or a barrier, or an exit) of a random kernel."""
    kind = rng.choice(["store", "load", "atomic", "shared store", "shared load", "barrier", "exit"])
    index, where = rng.choice(INDICES), rng.choice(["g", "h"])
    shared = rng.choice(SHARED_INDICES)
    guard = rng.choice(["", "", "if (t % 2 == 0) ", "if (b == 0) ", "if (t < 8) "])
    return {
        "store": f"{guard}{where}[{index}] = v + {rng.randint(0, 3)};",
        "load": f"{guard}v += {where}[{index}];",
        "atomic": f"{guard}atomicAdd(&{where}[{index}], 1);",
        "shared store": f"{guard}s[{shared}] = v;",
        "shared load": f"{guard}v += s[{shared}];",
        "barrier": "__syncthreads();",
        "exit": "if (t == 63 && b % 5 == 4) return;",
    }[kind]


def wide_statement(rng: random.Random) -> str:
    """One access of a random kernel, or a store or load of 8 or 16 bytes (whose words a
    warp's lanes touch two or four at a time)."""
    index, where, guard = rng.choice(INDICES), rng.choice(["g", "h"]), rng.choice(["", "if (t % 2 == 0) "])
    return rng.choice([
        statement(rng),
        f"{guard}((long long *){where})[({index}) % (n / 2)] = v + {rng.randint(0, 3)};",
        f"{guard}{{ int4 w = ((int4 *){where})[({index}) % (n / 4)]; v += w.x + w.y + w.z + w.w; }}",
        f"{guard}((double *)s)[({rng.choice(SHARED_INDICES)}) % (blockDim.x / 2)] = v;",
        f"{guard}v += ((long long *)s)[({rng.choice(SHARED_INDICES)}) % (blockDim.x / 2)];",
    ])


def synchronizing_statement(rng: random.Random) -> str:
    """One access of a random kernel, or a fence, a release or an acquire between blocks
    through flags in h[0..3] (the other accesses' indices keep clear of them)."""
    flag, block = rng.randint(0, 3), rng.choice(["b", "b + 1", "b + 5", "gridDim.x - 1"])
    guard = rng.choice(["if (t == 0) ", "if (t == 0 && b % 2 == 0) ", "if (t == 0 && b == 0) "])
    return rng.choice([
        statement(rng).replace("h[", "h[4 + "),
        statement(rng).replace("h[", "h[4 + "),
        "__threadfence();",
        f"{guard}{{ __threadfence(); atomicExch(&h[{flag}], 1); }}",
        f"{guard}{{ g[({block}) % n] = v; __threadfence(); atomicAdd(&h[{flag}], 1); }}",
        f"if (t == 0 && atomicAdd(&h[{flag}], 0) > 0) v += g[({block}) % n];",
        f"if (t == 0 && atomicAdd(&h[{flag}], 0) > 0) g[({block}) % n] = v;",
    ])


def kernel_source(rng: random.Random, name: str, draw=statement) -> str:
    body = "\n    ".join(draw(rng) for _ in range(rng.randint(2, 6)))
    return (f"__global__ void {name}(int *g, int *h, int n) {{\n"
            f"    __shared__ int s[{BLOCK}];\n"
            f"    int t = threadIdx.x, b = blockIdx.x, gid = b * blockDim.x + t, v = t + h[gid + 64];\n"
            f"    {body}\n"
            f"    if (v == -12345) g[0] = v;\n"
            f"}}\n")


def random_kernels(tmp_path, seed: int, draw=statement):
    """(source, kernel) of eight random kernels drawn with `seed`, compiled together."""
    rng = random.Random(seed)
    sources = [kernel_source(rng, f"k{i}", draw) for i in range(8)]
    (tmp_path / "random.cu").write_text("\n".join(sources))
    program = load_program(tmp_path / "random.cu")
    return program, [(source, program.kernel(f"k{index}")) for index, source in enumerate(sources)]


def detected(program, kernel, flush_at: int, whole: bool = False, split_at: int = 1 << 30) -> tuple[int, dict, list]:
    """(parts, {finding key: (severity, benign, scope)}, barrier verdicts) of one launch
    handed over in parts of about `flush_at` accesses (and inside a barrier interval past
    `split_at`), judged part by part, or (`whole`) judged on all its parts' traces joined:
    the same run (the same waves) either way."""
    detectors = enabled(("uninitialized-shared-read", "bank-conflict"))
    runs = KernelRuns(program, kernel)
    parted = PartedLaunch(program, kernel, detectors)
    pieces = []
    arguments = {"g": np.zeros(SIZE, np.int32), "h": np.zeros(SIZE, np.int32), "n": GRID * BLOCK}
    launch = Launch((GRID, 1, 1), (BLOCK, 1, 1), arguments, flush=pieces.append if whole else parted.part,
                    flush_at=flush_at, split_at=split_at, engine="numpy")
    result = execute(program, kernel.name, launch)
    if whole:
        result = joined(pieces + [result])
    found: dict = {}
    for finding in parted.finish(result):
        merge(found, finding)
    parted.keep(runs)
    runs.launches.append({})
    for detector in detectors:
        for finding in detector.kernel(runs):
            merge(found, finding)
    verdicts = sorted((v.place.line, v.verdict, v.reason) for v in runs.verdicts)
    return parted.parts, {key: (f.severity, f.benign, f.scope) for key, f in found.items()}, verdicts


def joined(parts: list) -> object:
    """One Result of a launch's parts (the last one the launch's own): their traces and the
    events that went with them, joined."""
    last = parts[-1]
    entries = [(len(part.trace), part.trace.columns) for part in parts if len(part.trace)]
    events = copy.copy(last.events)
    for name in ("collectives", "barrier_passes", "fences", "cuts"):
        setattr(events, name, [item for part in parts for item in getattr(part.events, name)])
    return dataclasses.replace(last, trace=Trace(entries, last.trace.ops, sum(count for count, _ in entries)),
                               events=events)


@pytest.mark.parametrize("seed", range(int(__import__("os").environ.get("PARTS_SEEDS", 6))))
def test_a_launch_split_inside_its_barrier_intervals_finds_what_its_whole_trace_finds(seed, tmp_path):
    """Parts handed over inside barrier intervals too (every 48 accesses, waves of 64-thread
    blocks): the same findings as the whole trace, with the same severity and benignity,
    races between lanes of one warp and kernels with atomics included."""
    program, kernels = random_kernels(tmp_path, 1000 + seed)
    between_warps = 0
    for source, kernel in kernels:
        _, whole, _ = detected(program, kernel, 16, whole=True, split_at=48)
        _, parted, _ = detected(program, kernel, 16, split_at=48)
        # the same severity and benignity (its witness may be another instance, of another scope)
        assert {key: found[:2] for key, found in parted.items()} == {key: found[:2] for key, found in whole.items()}, \
            source
        between_warps += sum(key[0] == "data-race" and scope != "intra-warp" for key, (_, _, scope) in whole.items())
    assert between_warps > 0


OWN_WORDS = """
__global__ void far(int *g, int *h, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x, other = blockIdx.x * blockDim.x + (threadIdx.x + 32) % blockDim.x;
    for (int i = 0; i < 6; i++)
        g[t] = g[t] + i * t;   // each thread's own word, again and again: many parts of one interval
    h[t] = g[other];           // another warp's word, written parts before, with no barrier between
}
"""


def test_representatives_chosen_a_few_units_at_a_time_are_those_chosen_at_once(tmp_path, monkeypatch):
    """Every store of the loop is carried across parts (a part a scheduler step): the rows
    each part carries on are the same, row for row, whether their representatives are
    chosen all at once or 8 rows' units at a time (race.CHOOSE_ROWS); and the read of
    another warp's word at the end races with them as on the whole trace."""
    import simulee.detect.race as race

    (tmp_path / "own.cu").write_text(OWN_WORDS)
    program = load_program(tmp_path / "own.cu")
    kernel = program.kernel("far")
    add = race.OpenRows.add
    carried = {}
    for choose in (8, 1 << 20):
        monkeypatch.setattr(race, "CHOOSE_ROWS", choose)
        seen = carried[choose] = []

        def recording(self, columns, chosen, key, on_strong, seen=seen):
            rows = np.lexsort([columns[name][chosen] for name in ("value", "step", "thread", "op")] + [key[chosen]])
            seen.append({name: columns[name][chosen][rows].tolist() for name in race.OPEN_COLUMNS})
            add(self, columns, chosen, key, on_strong)

        monkeypatch.setattr(race.OpenRows, "add", recording)
        parts, found, _ = detected(program, kernel, 16, split_at=48)
        assert parts > 8 and [(key[0], scope) for key, (_, _, scope) in found.items()] == [("data-race", "inter-warp")]
    assert len(carried[8]) > 8 and carried[8] == carried[1 << 20]


@pytest.mark.parametrize("seed", range(2))
def test_representatives_chosen_a_few_units_at_a_time_find_what_the_whole_trace_finds(seed, tmp_path, monkeypatch):
    """The carried rows' representatives chosen 8 rows' units at a time (race.CHOOSE_ROWS):
    the same findings as the whole trace, on random kernels."""
    import simulee.detect.race as race

    monkeypatch.setattr(race, "CHOOSE_ROWS", 8)
    program, kernels = random_kernels(tmp_path, 1000 + seed)
    for source, kernel in kernels:
        _, whole, _ = detected(program, kernel, 16, whole=True, split_at=48)
        _, parted, _ = detected(program, kernel, 16, split_at=48)
        assert {key: found[:2] for key, found in parted.items()} == {key: found[:2] for key, found in whole.items()}, \
            source


@given(st.lists(st.integers(0, 12), max_size=80), st.integers(1, 9))
def test_rows_in_pieces_of_whole_units_cover_each_row_once_in_order(keys, size):
    import simulee.detect.race as race

    key = np.array(keys, dtype=np.int64)
    rows = np.flatnonzero(key % 3 != 1)
    original, race.CHOOSE_ROWS = race.CHOOSE_ROWS, size
    try:
        pieces = list(race._by_units(key, rows))
    finally:
        race.CHOOSE_ROWS = original
    assert sorted(np.concatenate(pieces).tolist()) == rows.tolist() if pieces else len(rows) == 0
    units = [set(key[piece].tolist()) for piece in pieces]
    assert all(not (a & b) for i, a in enumerate(units) for b in units[i + 1:])  # no unit in two pieces
    assert all((np.diff(piece) > 0).all() for piece in pieces)


@pytest.mark.parametrize("seed", range(int(__import__("os").environ.get("PARTS_SEEDS", 6))))
def test_wide_accesses_judged_in_parts_and_inside_intervals_find_what_the_whole_trace_finds(seed, tmp_path):
    """Kernels storing and loading 8 and 16 bytes a thread (kept as runs of two or four
    words an access), handed over in parts between and inside barrier intervals: the same
    findings as the whole trace, with the same severity and benignity."""
    program, kernels = random_kernels(tmp_path, 2000 + seed, wide_statement)
    races = 0
    for source, kernel in kernels:
        for split_at in (48, 1 << 30):
            _, whole, _ = detected(program, kernel, 16, whole=True, split_at=split_at)
            _, parted, _ = detected(program, kernel, 16, split_at=split_at)
            assert {key: found[:2] for key, found in parted.items()} == \
                {key: found[:2] for key, found in whole.items()}, source
            races += sum(key[0] == "data-race" for key in whole)
    assert races > 0


@pytest.mark.parametrize("seed", range(int(__import__("os").environ.get("PARTS_SEEDS", 6))))
def test_a_launch_judged_in_parts_finds_what_its_whole_trace_finds(seed, tmp_path):
    program, kernels = random_kernels(tmp_path, seed)
    races = cuts = 0
    for source, kernel in kernels:
        _, whole, whole_verdicts = detected(program, kernel, 16, whole=True)
        parts, parted, parted_verdicts = detected(program, kernel, 16)
        assert parts > 1, source  # several parts, so that races between them are found from the summaries
        # the same severity and benignity (its witness may be another instance, of another scope)
        assert {key: found[:2] for key, found in parted.items()} == {key: found[:2] for key, found in whole.items()}, \
            source
        # a barrier a part was cut at is judged only where no cut was: needed or not covered, never redundant
        for (line, verdict, reason), (_, whole_verdict, _) in zip(parted_verdicts, whole_verdicts):
            assert verdict == whole_verdict or reason == CUT and whole_verdict == "needed", source
        races += sum(key[0] == "data-race" for key in whole)
        cuts += sum(reason == CUT for _, _, reason in parted_verdicts)
    assert races > 0 and cuts > 0  # the kernels drawn do race, and some were cut inside their waves


@pytest.mark.parametrize("seed", range(int(__import__("os").environ.get("PARTS_SEEDS", 6))))
def test_a_launch_whose_blocks_synchronize_through_flags_judged_in_parts_finds_what_its_whole_trace_finds(
        seed, tmp_path):
    """Random kernels whose blocks release (a fence, then an atomic flag) and acquire (an
    atomic read of a flag guarding an access) between parts: every race the parts show
    the whole trace shows, none is judged ordered that is not, and the races between
    blocks of different parts are judged."""
    program, kernels = random_kernels(tmp_path, 500 + seed, synchronizing_statement)
    races = found = 0
    for source, kernel in kernels:
        _, whole, _ = detected(program, kernel, 16, whole=True)
        parts, parted, _ = detected(program, kernel, 16)
        assert parts > 1, source
        assert set(parted) <= set(whole), source
        races += sum(key[0] in ("data-race", "scoped-race") for key in whole)
        found += sum(key[0] in ("data-race", "scoped-race") for key in parted)
    assert races > 0 and found == races


LAST_BLOCK = """
__global__ void last_block_sum(const float *in, float *partial, float *out, unsigned *count, int n) {
    __shared__ float sums[64];
    __shared__ bool last;
    int t = threadIdx.x;
    float s = 0;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) s += in[i];
    sums[t] = s;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (t < half) sums[t] += sums[t + half];
        __syncthreads();
    }
    if (t == 0) {
        if (FENCE_BEFORE) __threadfence();
        partial[blockIdx.x] = sums[0];
        if (FENCE_AFTER == 1) __threadfence();
        if (FENCE_AFTER == 2) __threadfence_block();
        unsigned ticket = atomicInc(count, gridDim.x);
        last = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (last && t == 0) {
        float total = 0;
        for (int b = 0; b < gridDim.x; b++) total += partial[b];
        out[0] = total;
    }
}
"""


@pytest.mark.parametrize("fences, expected", [
    ((0, 1), []),  # the partial sum, a device fence, the ticket: released
    ((1, 0), [("data-race", "inter-block", [16, 25])]),  # the fence before the partial sum releases nothing of it
    ((0, 2), [("scoped-race", "inter-block", [16, 25])]),  # a block fence cannot order other blocks
])
def test_a_last_block_reduction_in_parts_is_judged_through_its_fence_and_ticket(fences, expected, monkeypatch):
    """64 blocks each write a partial sum, fence and take a ticket; the last reads them all,
    most written many parts before (a trace shrunk to 20,000, parts of 2,048): the fence
    and ticket order them as on the whole trace, so the right kernel is clean and the two
    wrong ones show their race, where races between parts used to go unjudged (a note)."""
    import simulee
    from simulee.checker import kernel as checking
    from simulee.detect import race

    source = LAST_BLOCK.replace("FENCE_BEFORE", str(fences[0])).replace("FENCE_AFTER", str(fences[1]))
    options = dict(grid=64, block=64, args={"n": 64 * 64 * 8}, name="last.cu", no_search=True, no_prove=True)
    whole = simulee.check(source, "last_block_sum", **options)
    monkeypatch.setattr(checking, "TRACE_LIMIT", 20_000)
    monkeypatch.setenv("SIMULEE_TRACE_PART", "2048")
    parted = simulee.check(source, "last_block_sum", **options)
    for report in (whole, parted):
        assert [(f.type, f.scope, sorted((f.first.line, f.second.line))) for f in report.findings] == expected
    (kernel,) = parted.kernels
    assert kernel.launches[0]["parts"] > 16 and kernel.notes == []
    monkeypatch.setattr(race, "SYNC_ROWS", 40)  # the flags' accesses and fences past what a check keeps: not judged
    (kernel,) = simulee.check(source, "last_block_sum", **options).kernels
    assert kernel.notes == [race.ORDERED_NOTE]


def test_a_race_between_the_first_and_the_last_block_is_found_across_parts(tmp_path):
    """Block 0 writes what the last block reads: the two are many parts apart; a kernel
    where each block touches only its own elements stays clean however it is cut."""
    (tmp_path / "ends.cu").write_text(
        "__global__ void ends(int *g, int *h, int n) {\n"
        "    int gid = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    g[gid] = h[gid] + 1;\n"
        "    if (blockIdx.x == 0 && threadIdx.x == 0) h[n - 1] = 7;\n"
        "}\n"
        "__global__ void own(int *g, int *h, int n) {\n"
        "    int gid = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    g[gid] = h[gid] + 1;\n"
        "    h[gid] = g[gid];\n"
        "}\n")
    program = load_program(tmp_path / "ends.cu")
    parts, found, _ = detected(program, program.kernel("ends"), 100)
    assert parts == GRID
    assert [(key[0], key[2], [line for _, line, _ in key[3]]) for key in found] == [("data-race", "global", [4, 3])]
    assert detected(program, program.kernel("own"), 100)[1] == {}



def test_coalesced_stores_of_many_blocks_across_parts_are_benign_only_where_their_values_agree(tmp_path):
    """Every block stores a warp-wide row of values to the same words, each block in a part
    of its own: held as runs with their values, the blocks' stores race where their values
    differ and are benign where each word gets one value, as in the whole trace."""
    (tmp_path / "rows.cu").write_text(
        "__global__ void agree(int *g, int *h, int n) { g[threadIdx.x] = 3 * threadIdx.x + 1; }\n"
        "__global__ void differ(int *g, int *h, int n) {\n"
        "    g[threadIdx.x] = threadIdx.x ? 3 * threadIdx.x + blockIdx.x : 1;  // lane 0's value agrees\n"
        "}\n")
    program = load_program(tmp_path / "rows.cu")
    for name, benign in (("agree", True), ("differ", False)):
        parts, found, _ = detected(program, program.kernel(name), 100)
        assert parts == GRID and found == detected(program, program.kernel(name), 100, whole=True)[1]
        assert [(key[0], key[2], value[1]) for key, value in found.items()] == [("data-race", "global", benign)]

FAR = """
__global__ void far_blocks(const int *in, int *out, int *flags, int rounds) {
    int gid = blockIdx.x * blockDim.x + threadIdx.x, n = gridDim.x * blockDim.x, sum = 0;
    for (int r = 0; r < rounds; r++) sum += in[(gid + r * 7) % n];
    out[gid] = sum;
    if (blockIdx.x == 500 && threadIdx.x == 0) flags[0] = 1;
    if (blockIdx.x == 0 && threadIdx.x == 0) flags[FLAG] = 2;
}
"""


@pytest.mark.parametrize("flag, races", [(0, True), (1, False)])
def test_a_check_of_a_launch_past_the_trace_limit_sees_every_block(flag, races):
    """1,024 blocks of 256 threads, 17 accesses each: 4.5 million accesses, more than a
    trace holds. Judged in parts, the write of block 500 meets block 0's; a check used to
    see runs of blocks from the start to the end that left block 500 out."""
    import simulee

    report = simulee.check(FAR.replace("FLAG", str(flag)), "far_blocks", grid=1024, block=256,
                           args={"rounds": 16}, name="far.cu", no_search=True)
    found = [(f.type, f.scope, sorted((f.first.line, f.second.line))) for f in report.errors]
    assert found == ([("data-race", "inter-block", [6, 7])] if races else [])
    assert not [note for kernel in report.kernels for note in kernel.notes if "blocks" in note]


SUMMARY_FILLS = {
    # blocks of 24 waves, each storing at scattered places: judged among the blocks of the parts before
    "blocks": ("    int gid = blockIdx.x * blockDim.x + threadIdx.x;\n"
               "    g[(gid * 7) % n] = h[gid] + 1;\n"
               "    if (blockIdx.x == 0 && threadIdx.x == 0) h[n - 1] = 7;\n", GRID * BLOCK, GRID, 1 << 30,
               "races in global memory between blocks of different waves were judged among the first "),
    # two blocks in one wave cut in parts inside a grid-stride loop: no block ended when it filled
    "parts": ("    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
              "        g[(i * 7) % n] = h[i] + 1;\n", SIZE, 2, 100,
              "races in global memory between blocks were judged among the accesses of the first "),
}


@pytest.mark.parametrize("case", sorted(SUMMARY_FILLS))
def test_a_summary_that_fills_says_among_which_blocks_or_parts_it_judged(case, tmp_path, monkeypatch):
    """Past the rows a summary keeps, the parts after are judged alone, and a note says
    among which blocks races between parts were judged, or, where no block had ended (one
    wave cut inside its blocks), among which parts: never "the first 0 blocks"."""
    from simulee.detect import race

    body, n, grid, split_at, said = SUMMARY_FILLS[case]
    (tmp_path / "fills.cu").write_text(f"__global__ void fills(int *g, int *h, int n) {{\n{body}}}\n")
    program = load_program(tmp_path / "fills.cu")
    kernel = program.kernel("fills")
    monkeypatch.setattr(race, "SUMMARY_ROWS", 200)
    parted = PartedLaunch(program, kernel, enabled())
    arguments = {"g": np.zeros(SIZE, np.int32), "h": np.zeros(SIZE, np.int32), "n": n}
    result = execute(program, kernel.name, Launch((grid, 1, 1), (BLOCK, 1, 1), arguments, flush=parted.part,
                                                  flush_at=100, split_at=split_at, engine="numpy"))
    found = parted.finish(result)
    assert case != "blocks" or found == []  # block 0 and the last block were never in one summary
    (note,) = parted.notes
    assert note.startswith(said) and int(note.removeprefix(said).split(" ")[0].replace(",", "")) >= 1


def test_a_summary_of_runs_and_rows_is_compacted_as_it_grows(tmp_path, monkeypatch):
    """Every block reads its own elements of `h` (runs) and stores into `g` at scattered
    places (rows): compacted many times over, the summary still finds block 0's write
    that the last block reads."""
    from simulee.detect import race

    (tmp_path / "mix.cu").write_text(
        "__global__ void mix(int *g, int *h, int n) {\n"
        "    int gid = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    g[(gid * 7) % n] = h[gid] + gid;\n"
        "    if (blockIdx.x == 0 && threadIdx.x == 0) h[n - 1] = 7;\n"
        "}\n")
    program = load_program(tmp_path / "mix.cu")
    monkeypatch.setattr(race, "COMPACT_ROWS", 100)
    parts, found, _ = detected(program, program.kernel("mix"), 100)
    assert parts == GRID
    assert [(key[0], key[2], [line for _, line, _ in key[3]]) for key in found] == [("data-race", "global", [4, 3])]


@pytest.mark.parametrize("in_parts", [True, False])
def test_a_variant_of_a_launch_past_the_trace_limit_is_judged_on_every_block(tmp_path, monkeypatch, in_parts):
    """What a variant launch shows (the replays that tell whether a finding rests on a
    value Simulee chose) is judged as the check judges the launch: in parts, every block;
    on fewer blocks, the race at block 500 is not among what it shows."""
    import time

    from simulee.checker import kernel as checking
    from simulee.detect.base import LaunchRun

    (tmp_path / "far.cu").write_text(FAR.replace("FLAG", "0"))
    program = load_program(tmp_path / "far.cu")
    kernel = program.kernel("far_blocks")
    if not in_parts:
        monkeypatch.setattr(checking, "CHECK_ACCESSES", 0)
    launch = checking.default_launch(kernel, {"rounds": 16}, (1024, 1, 1), (256, 1, 1))
    keys = checking._shown(LaunchRun(program, kernel, None), launch, enabled(), time.perf_counter() + 600)
    races = [key for key in keys if key[0] == "data-race"]
    assert [sorted(line for _, line, _ in key[3]) for key in races] == ([[6, 7]] if in_parts else [])
    reached = {program.function(name).ops[index].location.line for name, index in keys.reached
               if program.function(name).ops[index].location}
    assert keys.whole and (6 in reached) == in_parts  # block 500's store: reached in some part, or never run


TILES = """
__global__ void tiles(const float *in, float *out, int rounds) {
    __shared__ float table[256], tile[256];
    int t = threadIdx.x;
    float sum = 0;
    table[t] = in[t];
    __syncthreads();
    for (int r = 0; r < rounds; r++) {
        tile[t] = in[r * blockDim.x + t] + table[(t + r) % blockDim.x];
        __syncthreads();
        sum += tile[(t + 1) % blockDim.x];
        if (RACE && r == rounds - 1 && t == 0) tile[200] = sum;
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + t] = sum;
}
"""


def _checked_with_a_small_trace(monkeypatch, source: str, name: str, grid: int, block: int, **options):
    """The kernel check (and its findings: type, scope, lines) of `name` run on a trace
    shrunk to 20,000 accesses (or `trace_limit`) and parts of 4,096, 200 rounds, unsearched
    and unproved."""
    import simulee
    from simulee.checker import kernel as checking

    monkeypatch.setattr(checking, "TRACE_LIMIT", options.pop("trace_limit", 20_000))
    monkeypatch.setenv("SIMULEE_TRACE_PART", "4096")
    report = simulee.check(source, name, grid=grid, block=block, args={"rounds": 200}, name=f"{name}.cu",
                           no_search=True, no_prove=True, **options)
    (kernel,) = report.kernels
    return kernel, [(f.type, f.scope, sorted((f.first.line, f.second.line))) for f in report.findings]


@pytest.mark.parametrize("race", [True, False])
def test_a_block_making_more_accesses_than_a_trace_holds_is_checked_to_its_end(race, monkeypatch):
    """Each block makes 200 rounds of 1,024 accesses, far more than the trace (shrunk to
    20,000) holds: judged in parts cut at its barriers, the race of its last round is found,
    the table written before the first cut is not read uninitialized after it, and the
    barriers the parts were cut at are not judged redundant."""
    kernel, found = _checked_with_a_small_trace(monkeypatch, TILES.replace("RACE", str(int(race))), "tiles", 2, 256,
                                                detect=("uninitialized-shared-read",))
    assert found == ([("data-race", "inter-warp", [11, 12])] if race else [])
    assert kernel.launches[0]["parts"] > 2 * 200 * 1024 // 20_000
    assert not [note for note in kernel.notes if "accesses" in note]
    verdicts = {(v["line"], v["verdict"], v["reason"]) for v in kernel.barriers}
    assert verdicts == {(7, "not-covered", CUT), (10, "needed", None), (13, "needed", None)}


@pytest.mark.parametrize("race", [True, False])
def test_a_launch_whose_blocks_each_fill_a_trace_is_checked_on_fewer_blocks_each_to_its_end(race, monkeypatch):
    """Eight blocks of 200 rounds of 1,024 accesses each, more than a check judges (shrunk
    to 300,000), and a block alone more than a trace holds (shrunk to 20,000): fewer blocks
    are checked, each to its end in parts, so the race of the last round is found, and a
    note says which blocks; a check used to stop at the trace and leave the rest unchecked."""
    from simulee.checker import kernel as checking

    monkeypatch.setattr(checking, "CHECK_ACCESSES", 300_000)
    kernel, found = _checked_with_a_small_trace(monkeypatch, TILES.replace("RACE", str(int(race))), "tiles", 8, 256)
    assert found == ([("data-race", "inter-warp", [11, 12])] if race else [])
    (note,) = [note for note in kernel.notes if "accesses" in note]
    assert "checked on 1 of its 8 blocks (linear block indices 0), each to its end in parts" in note
    assert kernel.status != "not checked" and kernel.launches[0]["status"] == "ok"


SWEEP = """
__global__ void sweep(const float *in, float *out, int rounds) {
    int t = threadIdx.x;
    float sum = 0;
    if (t == 0) out[0] = 1;
    for (int r = 0; r < rounds; r++) sum += in[r * blockDim.x + t];
    if (SYNC) __syncwarp();
    if (RACE && t == READER) sum += out[0];
    out[t + 1] = sum;
}
"""


def sweep(race: bool, reader: int = 200, sync: bool = False) -> str:
    """SWEEP, lane 0's write racing with thread `reader`'s read at the end of the sweep or
    not, and a __syncwarp() before the read or none."""
    return SWEEP.replace("RACE", str(int(race))).replace("READER", str(reader)).replace("SYNC", str(int(sync)))


@pytest.mark.parametrize("race", [True, False])
def test_a_barrier_interval_making_more_accesses_than_a_trace_holds_is_checked_to_its_end(race, monkeypatch):
    """One block sweeps 200 rows with no barrier: 51,456 accesses in one barrier interval,
    more than the trace (shrunk to 20,000) holds. Handed over in parts inside the interval,
    warp 6's read at its end meets warp 0's write at its start, many parts before, and no
    note says anything was left unjudged."""
    kernel, found = _checked_with_a_small_trace(monkeypatch, sweep(race), "sweep", 1, 256)
    assert found == ([("data-race", "inter-warp", [5, 8])] if race else [])
    assert kernel.launches[0]["parts"] > 200 * 256 // 20_000
    assert kernel.notes == []


@pytest.mark.parametrize("warp_model", ["independent", "lockstep"])
@pytest.mark.parametrize("race, sync", [(True, False), (True, True), (False, False)])
def test_lanes_of_one_warp_racing_across_the_parts_of_a_barrier_interval_are_judged_by_the_warp_model(
        race, sync, warp_model, monkeypatch):
    """Lane 0 writes at the start of a sweep that lane 1 reads at its end, many parts later,
    on two sides of divergent branches: a race between lanes of one warp under either warp
    model, as on the whole trace; with a __syncwarp() between, none under independent
    scheduling. Races between lanes of one warp across parts used to go unjudged (a note)."""
    source = sweep(race, reader=1, sync=sync)
    _, whole = _checked_with_a_small_trace(monkeypatch, source, "sweep", 1, 256, warp_model=warp_model,
                                           trace_limit=1 << 22)
    kernel, found = _checked_with_a_small_trace(monkeypatch, source, "sweep", 1, 256, warp_model=warp_model)
    races = race and (not sync or warp_model == "lockstep")  # lockstep: __syncwarp or not, two sides of a branch
    assert found == whole == ([("data-race", "intra-warp", [5, 8])] if races else [])
    assert kernel.launches[0]["parts"] > 200 * 256 // 20_000 and kernel.notes == []


@pytest.mark.parametrize("fence, expected", [
    ("__threadfence();", set()),  # released
    ("", {("data-race", "inter-warp")}),  # nothing before the flag releases the data
    ("__threadfence_block();", set()),  # a block fence orders warps of one block
])
def test_a_split_interval_whose_flag_orders_its_warps_is_judged_across_as_its_whole_trace(fence, expected, tmp_path):
    """Thread 0 writes a block's data, fences and raises a flag; warp 1 spins on it, then
    reads the data. Split inside that interval (the release in one part, the acquire in
    another), the parts find what the whole trace finds: nothing when the fence releases
    the data, the race between the write and the read when there is none (across the parts
    nothing used to be judged, with a note)."""
    (tmp_path / "publish.cu").write_text(
        "__global__ void publish(int *g, int *h, int n) {\n"
        "    int t = threadIdx.x, b = blockIdx.x;\n"
        "    if (t == 0) {\n"
        "        for (int i = 0; i < 32; i++) g[b * 64 + i] = i + 1;\n"
        f"        {fence}\n"
        "        atomicExch(&h[b], 1);\n"
        "    } else if (t >= 32) {\n"
        "        while (atomicAdd(&h[b], 0) == 0) {}\n"
        "        __threadfence();\n"
        "        h[64 + b * 64 + t] = g[b * 64 + t - 32];\n"
        "    }\n"
        "}\n")
    program = load_program(tmp_path / "publish.cu")
    kernel = program.kernel("publish")
    whole = detected(program, kernel, 16, whole=True, split_at=8)[1]
    assert {(key[0], scope) for key, (_, _, scope) in whole.items()} == expected
    parted = PartedLaunch(program, kernel, enabled())
    arguments = {"g": np.zeros(SIZE, np.int32), "h": np.zeros(SIZE, np.int32), "n": GRID * BLOCK}
    result = execute(program, kernel.name, Launch((GRID, 1, 1), (BLOCK, 1, 1), arguments, flush=parted.part,
                                                  flush_at=16, split_at=8, engine="numpy"))
    assert {(f.type, f.scope) for f in parted.finish(result)} == expected and parted.notes == []


def _summary_rows(rng, count: int, blocks: int, words: int) -> dict:
    from simulee.detect.race import SUMMARY_COLUMNS

    columns = {name: np.zeros(count, dtype=np.int64) for name in SUMMARY_COLUMNS}
    columns.update(owner=rng.integers(0, 2, count), word=rng.integers(0, words, count),
                   block=rng.integers(0, blocks, count), thread=rng.integers(0, 64, count),
                   op=rng.integers(0, 3, count))
    return columns


@pytest.mark.parametrize("seed", range(4))
def test_the_summary_between_blocks_expands_only_words_two_blocks_touch(seed):
    """Of the rows and runs the parts left (race._overlapping), exactly the accesses of the
    words that two or more blocks touch come back, each run expanded into its words with the
    value each of its rows stored (kept aside, run after run): a word one block alone
    touches (however often) races with no other block, so a launch whose blocks each touch
    their own elements expands nothing (its memory stays that of the runs)."""
    from simulee.detect.race import _overlapping, _packed

    rng = np.random.default_rng(seed)
    for _ in range(100):
        blocks, words = int(rng.integers(1, 5)), int(rng.integers(1, 40))
        rows = _summary_rows(rng, int(rng.integers(0, 12)), blocks, words)
        rows["value"] = rng.integers(0, 4, len(rows["word"]))
        runs = _summary_rows(rng, int(rng.integers(0, 6)), blocks, words)
        runs["length"] = rng.integers(1, 12, len(runs["word"]))
        runs["per"] = rng.choice([1, 2, 4], len(runs["word"]))  # words a thread's access spans
        values = rng.integers(0, 4, int(runs["length"].sum()))
        accesses = [(o, w, b, op, t, v) for o, w, b, op, t, v in zip(
            rows["owner"], rows["word"], rows["block"], rows["op"], rows["thread"], rows["value"])]
        at = np.cumsum(runs["length"]) - runs["length"]
        accesses += [(o, w + k, b, op, t + (w + k) // per - w // per, values[a + k])
                     for o, w, b, op, t, n, a, per in zip(runs["owner"], runs["word"], runs["block"], runs["op"],
                                                          runs["thread"], runs["length"], at, runs["per"])
                     for k in range(n)]
        touching: dict[tuple, set] = {}
        for owner, word, block, *_ in accesses:
            touching.setdefault((owner, word), set()).add(block)
        expected = sorted(a for a in accesses if len(touching[a[:2]]) >= 2)
        found = _overlapping([_packed(rows)], [_packed(runs)], values)
        assert sorted(zip(found["owner"], found["word"], found["block"], found["op"], found["thread"],
                          found["value"])) == expected
    own = {name: np.zeros(4, dtype=np.int64) for name in runs if name != "length"}  # four blocks, 512 words each
    own.update(block=np.arange(4), word=512 * np.arange(4), length=np.full(4, 512), per=np.ones(4, np.int64))
    assert len(_overlapping([_packed(_summary_rows(rng, 0, 1, 1))], [_packed(own)])["word"]) == 0


@pytest.mark.parametrize("seed", range(3))
def test_a_launchs_footprint_joined_part_by_part_is_its_whole_traces_and_stays_merged(seed):
    """What `exec` keeps of each part for the stream check (streams.Footprint): the bytes
    read, written and updated atomically, joined as parts come, are the intervals of the
    whole trace, and the parts not yet joined never hold more intervals than the whole
    (plus a small floor): a long launch scattering over its buffers does not keep every
    part's intervals."""
    from interpreter.trace import ATOMIC, READ, WRITE
    from simulee.detect.streams import Footprint, _count, footprint, intervals

    rng = np.random.default_rng(seed)
    whole, joined, most = [], Footprint(), 0
    for _ in range(40):
        count = int(rng.integers(1, 30000))
        part = {"space": np.ones(count, np.uint8), "kind": rng.integers(0, 3, count).astype(np.uint8),
                "region": rng.integers(1, 4, count).astype(np.int32),
                "offset": (4 * rng.integers(0, 60000, count)).astype(np.int64),
                "size": rng.choice([1, 4, 8], count).astype(np.int32)}
        whole.append(part)
        joined.add(footprint(part, 1))
        most = max(most, joined.pending_size - max(joined.size, 1 << 16))
    assert most <= 0
    trace = {name: np.concatenate([part[name] for part in whole]) for name in whole[0]}
    for kind, got in zip((READ, WRITE, ATOMIC), joined.joined()):
        chosen = trace["kind"] == kind
        starts = trace["offset"][chosen]
        expected = intervals(trace["region"][chosen].astype(np.int64), starts, starts + trace["size"][chosen])
        assert got.keys() == expected.keys()
        for region, (s, e) in expected.items():
            assert np.array_equal(got[region][0], s) and np.array_equal(got[region][1], e)
    assert _count(joined.joined()) == joined.size


def test_carried_rows_of_coalesced_accesses_are_held_as_runs_a_warp():
    """Two warps each read 32 consecutive words in one step: carried across parts as two
    runs; a unit touched later brings back its whole run, word, thread and lane stepped."""
    from simulee.detect.race import OPEN_COLUMNS, OpenRows, _open_key

    threads = np.arange(64)
    columns = {name: np.zeros(64, np.int64) for name in OPEN_COLUMNS}
    columns.update(space=np.ones(64, np.uint8), word=1000 + threads, thread=threads.astype(np.int32),
                   lane=threads % 32, warp=threads // 32, step=np.full(64, 7), strong=np.zeros(64, bool))
    carried = OpenRows()
    key = _open_key(columns)
    carried.add(columns, np.arange(64), key, np.zeros(64, bool))
    assert len(carried) == 2  # a row a warp
    again = carried.rows_for(np.array([key[40]]))
    assert again["word"].tolist() == list(range(1032, 1064)) and again["lane"].tolist() == list(range(32))
    assert again["thread"].tolist() == list(range(32, 64)) and (again["warp"] == 1).all()
    taken = carried.take(np.array([key[3], key[5]]))
    assert taken["word"].tolist() == list(range(1000, 1032)) and len(carried) == 1


def test_carried_stores_of_differing_values_are_runs_that_give_back_each_value():
    """A warp storing a different value to each of 32 consecutive words (a copy) is still
    carried as one run, its values kept aside: each unit brings back the value its lane
    stored, also after another run of the chunk was taken."""
    from simulee.detect.race import OPEN_COLUMNS, OpenRows, _open_key

    threads = np.arange(96)
    columns = {name: np.zeros(96, np.int64) for name in OPEN_COLUMNS}
    columns.update(space=np.ones(96, np.uint8), word=2000 + threads, thread=threads.astype(np.int32),
                   lane=threads % 32, warp=threads // 32, step=np.full(96, 3), strong=np.zeros(96, bool),
                   value=(threads * 7919) % 1000, action=np.ones(96, np.int64))
    carried = OpenRows()
    key = _open_key(columns)
    carried.add(columns, np.arange(96), key, np.zeros(96, bool))
    assert len(carried) == 3  # a row a warp, however different its values
    taken = carried.take(np.array([key[10]]))
    assert taken["value"].tolist() == ((threads[:32] * 7919) % 1000).tolist()
    again = carried.rows_for(np.array([key[70]]))
    assert again["word"].tolist() == list(range(2064, 2096))
    assert again["value"].tolist() == ((threads[64:] * 7919) % 1000).tolist()


@pytest.mark.parametrize("per", [2, 4])
def test_carried_accesses_of_several_words_a_thread_are_runs_a_warp(per):
    """A warp's lanes each storing `per` consecutive words in one instruction (doubles,
    float4s) are carried as one run; each unit brings back its lane and thread."""
    from simulee.detect.race import OPEN_COLUMNS, OpenRows, _open_key

    rows = 32 * per
    thread = np.arange(rows) // per
    columns = {name: np.zeros(rows, np.int64) for name in OPEN_COLUMNS}
    columns.update(space=np.ones(rows, np.uint8), word=4096 + np.arange(rows), thread=thread.astype(np.int32),
                   lane=thread, step=np.full(rows, 5), strong=np.zeros(rows, bool), value=np.arange(rows) * 3,
                   action=np.ones(rows, np.int64))
    carried = OpenRows()
    key = _open_key(columns)
    carried.add(columns, np.arange(rows), key, np.zeros(rows, bool))
    assert len(carried) == 1
    again = carried.rows_for(np.array([key[rows // 2]]))
    assert again["word"].tolist() == (4096 + np.arange(rows)).tolist()
    assert again["thread"].tolist() == again["lane"].tolist() == thread.tolist()
    assert again["value"].tolist() == (np.arange(rows) * 3).tolist()
