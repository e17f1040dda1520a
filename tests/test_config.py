"""simulee.toml: contracts the user states (launches, values, ranges, relations, buffers,
aliases) keep correct kernels clean and leave real bugs found; suppressions hide what the
user accepts; mistakes in the file are one-line errors."""

from __future__ import annotations

import json
import textwrap

import pytest

from conftest import ROOT

CONFIG = ROOT / "tests" / "config"
KERNELS = CONFIG / "kernels.cu"


@pytest.fixture
def no_config(tmp_path) -> str:
    empty = tmp_path / "empty.toml"
    empty.write_text("")
    return str(empty)


def findings(run_cli, *options, kernel: str) -> list[tuple[str, str, int]]:
    status, out, err = run_cli("check", KERNELS, "-k", kernel, "--format", "json", *options)
    assert status in (0, 1), err
    (check,) = json.loads(out)["kernels"]
    return [(f["type"], f["severity"], f["line"]) for f in check["findings"]]


def line_of(text: str) -> int:
    return next(number for number, line in enumerate(KERNELS.read_text().splitlines(), 1) if text in line)


@pytest.mark.parametrize("kernel, racy_line, severity", [
    ("halves", "halves overlap when offset < width", "error"),  # relation offset >= width
    ("compact", "out[offsets[i]] = in[i]", "warning"),  # offsets = exclusive_scan(flags): made up, they meet
    ("tiled", "tiles overlap when tile < blockDim.x", "error"),  # tile == blockDim.x, computed
    ("modes", "every thread writes out[0]", "error"),  # mode only 0, 1 or 2
    ("runs", "runs meet when two rows are one", "warning"),  # a __constant__ table: made up, rows repeat
])
def test_what_the_toml_states_keeps_a_correct_kernel_clean(run_cli, no_config, kernel, racy_line, severity):
    assert findings(run_cli, kernel=kernel) == []
    unstated = findings(run_cli, "--config", no_config, kernel=kernel)
    assert ("data-race", severity, line_of(racy_line)) in unstated


def test_a_real_bug_stays_found_under_the_stated_contract(run_cli):
    assert findings(run_cli, kernel="compact_halved") == [("data-race", "error", line_of("share a slot"))]


def test_stated_buffers_and_derived_arguments_are_what_the_launch_checked(run_cli):
    status, out, _ = run_cli("check", KERNELS, "-k", "tiled", "--format", "json")
    (check,) = json.loads(out)["kernels"]
    assert "tile" not in check["search"]["genes"]  # computed from the block, never searched
    assert all(launch["args"]["tile"] == launch["block"][0] for launch in check["launches"])
    status, out, _ = run_cli("check", KERNELS, "-k", "compact", "--format", "json")
    (check,) = json.loads(out)["kernels"]
    assert all(launch["args"]["offsets"].startswith("int32[") for launch in check["launches"])


def test_exact_launches_and_values_from_the_toml(run_cli, tmp_path):
    (tmp_path / "kernels.cu").write_text(KERNELS.read_text())
    (tmp_path / "simulee.toml").write_text(textwrap.dedent("""
        [[kernel]]
        name = "modes"
        launches = ["1/64/mode=3", "1/32/mode=1"]
    """))
    status, out, _ = run_cli("check", tmp_path / "kernels.cu", "-k", "modes", "--format", "json")
    (check,) = json.loads(out)["kernels"]
    assert [(launch["grid"], launch["block"], launch["args"], launch["origin"]) for launch in check["launches"]] == [
        ([1, 1, 1], [64, 1, 1], {"mode": 3}, "stated"), ([1, 1, 1], [32, 1, 1], {"mode": 1}, "stated")]
    assert status == 1 and [f["type"] for f in check["findings"]] == ["data-race"]
    assert check["findings"][0]["launch"]["origin"] == "stated"  # not synthetic: the user says so
    status, out, _ = run_cli("check", tmp_path / "kernels.cu", "-k", "modes", "--arg", "mode=2", "--format", "json")
    (check,) = json.loads(out)["kernels"]  # the command line wins over the toml
    assert status == 0 and {launch["args"]["mode"] for launch in check["launches"]} == {2}


def test_a_suppression_hides_a_finding_from_the_text_and_marks_it_in_sarif(run_cli, tmp_path):
    (tmp_path / "kernels.cu").write_text(KERNELS.read_text())
    (tmp_path / "simulee.toml").write_text(textwrap.dedent("""
        [[suppress]]
        rule = "data-race"
        kernel = "compact_*"
        reason = "tracked in #12"
    """))
    status, out, _ = run_cli("check", tmp_path / "kernels.cu", "-k", "compact_halved")
    assert status == 0 and "error:" not in out and "1 suppressed" in out
    status, out, _ = run_cli("check", tmp_path / "kernels.cu", "-k", "compact_halved", "--format", "sarif")
    (result,) = json.loads(out)["runs"][0]["results"]
    assert result["suppressions"] == [{"kind": "external", "justification": "tracked in #12"}]
    status, out, _ = run_cli("check", tmp_path / "kernels.cu", "-k", "modes")  # other kernels are not hidden
    assert status == 1


def test_a_scan_reads_the_repository_toml(run_cli, tmp_path):
    (tmp_path / "kernels.cu").write_text(KERNELS.read_text())
    (tmp_path / "simulee.toml").write_text((CONFIG / "simulee.toml").read_text() + textwrap.dedent("""
        [[suppress]]
        kernel = "compact_halved"
    """))
    status, out, err = run_cli("scan", tmp_path, "-o", tmp_path / "out", "--jobs", "1", "-q")
    assert status == 0, err
    assert "1 suppressed" in out and "0 errors" in out
    bugs = (tmp_path / "out" / "bugs.csv").read_text().splitlines()
    assert len(bugs) == 1  # the header alone


@pytest.mark.parametrize("text, message", [
    ("[[kernel]\nname = 1", "not valid TOML"),
    ("[[kernel]]\nnmae = 'x'", "unknown key 'nmae'"),
    ("[[kernel]]\nname = 'halves'\nargs = { widht = 4 }", "halves has no scalar parameter 'widht'"),
    ("[[kernel]]\nrelations = ['pitch >= ']", "is not an expression"),
    ("[[kernel]]\nrelations = ['__import__(\"os\")']", "calls something other than"),
    ("[[kernel]]\nbuffers = { flags = 'int32:n:shuffled' }", "content 'shuffled' is not one of"),
    ("[[kernel]]\nargs = { n = '9..1' }", "the range is empty"),
    ("[[kernel]]\nblock = '2048'", "at most 1,024"),
    ("[[suppress]]\nrule = 3", "are strings"),
    ("[[tables]]", "unknown table tables"),
])
def test_a_mistake_in_the_toml_is_one_line_and_status_2(run_cli, tmp_path, text, message):
    config = tmp_path / "simulee.toml"
    config.write_text(text)
    status, out, err = run_cli("check", KERNELS, "-k", "halves", "--config", config)
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_the_nearest_toml_applies_but_not_one_beyond_the_repository(tmp_path):
    from simulee.checker.config import find_config

    (tmp_path / "simulee.toml").write_text("")
    nested = tmp_path / "repo" / "src"
    nested.mkdir(parents=True)
    assert find_config(nested) == tmp_path / "simulee.toml"
    (tmp_path / "repo" / ".git").mkdir()
    assert find_config(nested) is None


def test_a_member_the_toml_gives_a_range_is_searched(run_cli, tmp_path):
    kernels = ROOT / "tests" / "kernels" / "struct_members.cu"
    config = tmp_path / "simulee.toml"
    config.write_text('[[kernel]]\nname = "copy_next"\nargs = { "d.stride" = "1..4" }\n')
    status, out, _ = run_cli("check", kernels, "-k", "copy_next", "--config", config, "--format", "json")
    (check,) = json.loads(out)["kernels"]
    assert "d.stride" in check["search"]["genes"] and status == 1
    assert {f["launch"]["args"]["d.stride"] for f in check["findings"]} == {1}  # row i + 1 starts where row i reads
    config.write_text("")
    status, out, _ = run_cli("check", kernels, "-k", "copy_next", "--config", config, "--format", "json")
    assert status == 0  # kept at its default, rows never meet


IGNORED = """\
__global__ void shift(int *out) {
  out[threadIdx.x + 1] = out[threadIdx.x];  // simulee: ignore[data-race] rows are copied in place on purpose
}

__global__ void shift_unsuppressed(int *out) {
  out[threadIdx.x + 1] = out[threadIdx.x];  // simulee: ignore[barrier-divergence] not this kind
}

// simulee: ignore-kernel[data-race] a legacy kernel, replaced in 2.0
__global__ void legacy(int *out) {
  out[threadIdx.x + 1] = out[threadIdx.x];
}
"""


def test_a_suppression_in_the_source_hides_its_finding_and_marks_it_in_source_in_sarif(run_cli, tmp_path, no_config):
    """`// simulee: ignore[TYPE] reason` on a finding's line, or ignore-kernel above the
    kernel, suppresses it; another type named leaves it."""
    source = tmp_path / "ignored.cu"
    source.write_text(IGNORED)
    status, out, _ = run_cli("check", source, "--launch", "1/64", "--config", no_config)
    assert status == 1 and out.count("error: data race") == 1 and "2 suppressed" in out
    assert "ignored.cu:6:" in out  # shift_unsuppressed
    status, out, _ = run_cli("check", source, "--launch", "1/64", "--config", no_config, "--format", "sarif")
    results = json.loads(out)["runs"][0]["results"]
    suppressed = sorted((r["locations"][0]["physicalLocation"]["region"]["startLine"], r["suppressions"][0]["kind"],
                         r["suppressions"][0]["justification"]) for r in results if "suppressions" in r)
    assert suppressed == [(2, "inSource", "rows are copied in place on purpose"),
                          (11, "inSource", "a legacy kernel, replaced in 2.0")]


IGNORED_FUNCTION = """\
// simulee: ignore-function[data-race] every thread sets the same flag to 1
__device__ void raise_flag(int *flag) {
  flag[0] = 1;
}

__device__ void count(int *counts) {
  counts[threadIdx.x / 2] += 1;
}

__global__ void first(int *flag, int *counts) { raise_flag(flag); count(counts); }

__global__ void second(int *flag, int *counts) { raise_flag(flag); count(counts); }
"""


def test_ignore_function_suppresses_a_device_functions_findings_in_every_kernel_calling_it(run_cli, tmp_path,
                                                                                          no_config):
    source = tmp_path / "flags.cu"
    source.write_text(IGNORED_FUNCTION)
    status, out, _ = run_cli("check", source, "--launch", "1/64", "--config", no_config, "--format", "json")
    document = json.loads(out)
    assert status == 1
    # count's race stays, one bug in both kernels; raise_flag's is suppressed in both
    assert [(c["line"], c["kernels"]) for c in document["root_causes"]] == [(7, ["first", "second"])]
    suppressed = [(f["kernel"], f["line"], f["reason"]) for k in document["kernels"] for f in k["suppressed"]]
    assert suppressed == [("first", 3, "every thread sets the same flag to 1"),
                          ("second", 3, "every thread sets the same flag to 1")]
    assert document["kernels"][0]["suppressed"][0]["first"]["function"] == "raise_flag"
