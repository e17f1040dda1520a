"""Dynamic taint (interpreter.taint): which of the values Simulee invented for a launch
each access depends on, through data, memory and control flow, and nothing more."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import line_of, written
from interpreter.launch import Launch
from interpreter.simt import execute

FLOWS = """
__device__ int twice(int v) { return 2 * v; }

__global__ void flows(const int *idx, const int *flags, const float *in, float *out, int *count) {
  __shared__ int own[64];
  int t = threadIdx.x;
  own[t] = t;
  __syncthreads();
  out[idx[t] & 63] = in[t];                        // address from idx
  out[64 + own[(t + 1) % 64]] = 1.0f;              // from shared memory the kernel wrote: clean
  if (flags[t] > 0) out[128 + t] = 2.0f;           // reached under a branch on flags
  out[192 + t] = 3.0f;                             // after the branch joins: clean
  int i = 0;
  for (; i < (idx[0] & 3) + 1; i++) out[256 + i] = 4.0f;  // in a loop idx bounds
  out[300 + i] = 5.0f;                             // the counter the loop leaves: idx
  out[400 + twice(idx[1] & 7)] = 6.0f;             // through a call and its return
  int slot = atomicAdd(count, 1);
  out[500 + (slot & 63)] = 7.0f;                   // what an atomic on invented memory returns
  int moved = __shfl_sync(0xffffffff, idx[t] & 7, 0);
  out[600 + moved] = 8.0f;                         // a shuffled invented value
  int copy[2];
  memcpy(copy, idx + 2, sizeof(copy));
  out[700 + (copy[0] & 7)] = 9.0f;                 // through memcpy
  int top[2] = {0, 0}, at[2] = {-1, -1};
  for (int k = 0; k < 4; k++)
    for (int j = 0; j < 2; j++)
      if (flags[k] > top[j] + 64) { top[j] = flags[k]; at[j] = k; }  // never, with fill="small"
  out[800 + (at[t & 1] & 7)] = 10.0f;              // a stack array that flags may have kept a store from
  int kept[4] = {t & 1, t & 3, t & 2, 0};
  out[900 + kept[t & 3]] = 11.0f;                  // one written on every path: clean
}
"""


def tainted_lines(tmp_path, args: dict | None = None) -> tuple[dict[str, set[str]], list[str]]:
    """Per commented line of FLOWS (by its comment), the labels its stores depend on."""
    loaded, kernel = written(tmp_path, "flows.cu", FLOWS, "flows")
    result = execute(loaded, kernel, Launch(1, 64, args or {}, taint=True, fill="small"))
    assert result.status == "ok", result.message
    trace = result.trace
    by_line: dict[int, set[str]] = {}
    for op, kind, mask in zip(trace["op"], trace["kind"], trace["taint"]):
        location = trace.ops[op].location
        if kind != 0 and location is not None:
            by_line.setdefault(location.line, set()).update(
                label for bit, label in enumerate(result.labels) if int(mask) >> bit & 1)
    comments = {text.split("//")[1].strip(): line_of(tmp_path / "flows.cu", text.split("//")[1].strip())
                for text in FLOWS.splitlines() if "//" in text}
    return {comment: by_line.get(line, set()) for comment, line in comments.items()}, result.labels


def test_an_access_depends_on_what_its_address_and_its_path_were_computed_from(tmp_path):
    found, labels = tainted_lines(tmp_path)
    assert labels == ["idx", "flags", "in", "out", "count"]
    assert found["address from idx"] == {"idx"}
    assert found["from shared memory the kernel wrote: clean"] == set()
    assert found["reached under a branch on flags"] == {"flags"}
    assert found["after the branch joins: clean"] == set()
    assert found["in a loop idx bounds"] == {"idx"}
    assert found["the counter the loop leaves: idx"] == {"idx"}
    assert found["through a call and its return"] == {"idx"}
    assert found["what an atomic on invented memory returns"] == {"count"}
    assert found["a shuffled invented value"] == {"idx"}
    assert found["through memcpy"] == {"idx"}
    assert found["a stack array that flags may have kept a store from"] == {"flags"}
    assert found["one written on every path: clean"] == set()


def test_buffers_the_caller_gives_are_no_invention(tmp_path):
    given = {"idx": np.arange(64, dtype=np.int32), "flags": np.ones(64, np.int32),
             "in": np.zeros(64, np.float32), "out": np.zeros(1024, np.float32), "count": np.zeros(1, np.int32)}
    found, labels = tainted_lines(tmp_path, given)
    assert labels == [] and all(not depends for depends in found.values())


GUARDS = """
__global__ void guards(const int *count, const int *flags, float *out) {
  for (int p = blockIdx.x; p < (count[0] & 7) + 1; p += gridDim.x)
    out[p * 64 + threadIdx.x] = 1.0f;                        // all of a block alike: only whether it gets here
  if (flags[threadIdx.x] & 1) out[512 + threadIdx.x] = 2.0f;  // which threads of a block take part
}
"""


def test_what_decides_whether_a_block_gets_there_differs_from_who_in_it_takes_part(tmp_path):
    loaded, kernel = written(tmp_path, "guards.cu", GUARDS, "guards")
    result = execute(loaded, kernel, Launch(2, 64, {"count": np.full(1, 7, np.int32)}, taint=True, fill="small"))
    trace = result.trace
    by_line: dict[int, set[tuple[int, int]]] = {}
    for op, kind, mask, split in zip(trace["op"], trace["kind"], trace["taint"], trace["divergent"]):
        if kind != 0:
            by_line.setdefault(trace.ops[op].location.line, set()).add((int(mask), int(split)))
    flags = 1 << result.labels.index("flags")
    assert by_line[line_of(tmp_path / "guards.cu", "all of a block alike")] == {(0, 0)}  # the user's count
    assert by_line[line_of(tmp_path / "guards.cu", "which threads")] == {(flags, flags)}
    made_up = execute(loaded, kernel, Launch(2, 64, {}, taint=True, fill="small"))
    count = 1 << made_up.labels.index("count")
    lines = {int(op): (int(m), int(d)) for op, k, m, d in zip(made_up.trace["op"], made_up.trace["kind"],
                                                            made_up.trace["taint"], made_up.trace["divergent"])
             if k != 0 and made_up.trace.ops[op].location.line == line_of(tmp_path / "guards.cu", "alike")}
    assert set(lines.values()) <= {(count, 0)} and lines  # reached for some counts, by whole blocks


COPY = """
__global__ void copy_rows(float *out, const float *in, int n) {
  int row = blockIdx.x, column = threadIdx.x * 4;
  reinterpret_cast<float4 *>(&out[row * 64 + column])[0] =
      reinterpret_cast<const float4 *>(&in[row * n + column])[0];
}
"""


def test_a_memcpys_addresses_depend_on_the_scalars_they_are_computed_from(tmp_path):
    """The float4 copy is an aggregate copy, llvm.memcpy in the IR: its source address is
    computed from n and the block's index (a misaligned copy is n's, when Simulee chose n)."""
    from evolve.taint import MEMORY_INTRINSICS, address_sources

    loaded, kernel = written(tmp_path, "copy.cu", COPY, "copy_rows")
    function = loaded.function(kernel.symbol)
    copies = {(function.name, position) for position, op in enumerate(function.ops)
              if op.opcode == "call" and (op.extra.get("callee") or "").startswith(MEMORY_INTRINSICS)}
    sources = address_sources(loaded, kernel)
    assert copies and any("n" in sources[key].scalars and "gridDim.x" in sources[key].dims
                          for key in copies if key in sources)


STOPS = """
__global__ void stops(const int *flags, float *out) {
  int t = threadIdx.x;
  if (STOP) __trap();
  unsigned mask = __activemask();
  out[t] = __shfl_sync(mask, (float)t, (t + 1) % 32);  // the next lane, if it did not stop
}
"""


@pytest.mark.parametrize("stop, depends", [("flags[t] & 1", True), ("t & 1", False)])
def test_lanes_that_stopped_leave_what_their_absence_decides_depending_on_why(tmp_path, stop, depends):
    """Lanes a fault stopped are missing from the mask __activemask gives and from the
    shuffle after: a shuffle reading them depends on made-up flags when a made-up flag
    stopped them, and on nothing when their lane number did (then it is the kernel's bug)."""
    loaded, kernel = written(tmp_path, "stops.cu", STOPS.replace("STOP", stop), "stops")
    result = execute(loaded, kernel, Launch(1, 32, {}, taint=True, fill="small"))
    (event,) = [event for event in result.events.warp_masks if event.read_outside]
    flags = 1 << result.labels.index("flags")
    assert bool(event.taint & flags) == depends


CALLS = """
__device__ float half_of(float v) { return v / 2; }
__device__ float third_of(float v) { return v / 3; }

__global__ void calls(const int *flags, float *out) {
  float (*f)(float) = flags[threadIdx.x] & 1 ? half_of : third_of;
  float kept[2] = {0, 0};
  if (flags[0] > 64) kept[1] = f(1.0f);
  out[threadIdx.x] = kept[threadIdx.x & 1] + f(2.0f);  // through a pointer a made-up flag chose
}
"""


def test_a_call_through_a_function_pointer_runs_while_taint_is_tracked(tmp_path):
    """An indirect call (no callee name) beside a stack array: the analysis of which
    branches decide a stack object's writes takes it as a write of what it is passed."""
    loaded, kernel = written(tmp_path, "calls.cu", CALLS, "calls")
    result = execute(loaded, kernel, Launch(1, 32, {}, taint=True, fill="small"))
    assert result.status == "ok", result.message
