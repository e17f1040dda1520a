"""The prover is never wrong: random small kernels (benchmarks.soundness: plain accesses,
atomics and fences of every scope, volatile flags and spins on them, try-locks, shared
memory, block and warp barriers, each under a thread or block guard) run in the interpreter
on launches of several warps and blocks; a kernel a run shows a race or barrier divergence
in is never proved. `python -m benchmarks.soundness` runs thousands of them."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.soundness import batch, kernel_source

pytestmark = pytest.mark.xdist_group("soundness")  # the module's tests run in order, in one worker

KERNELS_PER_EXAMPLE = 4
SEEN = {"racy": 0, "proved": 0}  # over the examples: both directions must occur


@settings(max_examples=10, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_no_kernel_a_run_shows_racy_is_proved(data, tmp_path_factory):
    choose = lambda options: data.draw(st.sampled_from(list(options)))  # noqa: E731
    sources = [kernel_source(f"k{i}", choose) for i in range(KERNELS_PER_EXAMPLE)]
    for entry in batch(sources, tmp_path_factory.mktemp("soundness"), 0):
        SEEN["racy"] += bool(entry["shown"])
        SEEN["proved"] += entry["verdict"] == "proved"
        assert not (entry["shown"] and entry["verdict"] == "proved"), \
            f"proved, but a run shows {entry['shown']}:\n{entry['source']}"


def test_the_random_kernels_hold_racy_ones_and_proved_ones():
    assert SEEN["racy"] >= 5 and SEEN["proved"] >= 3, SEEN
