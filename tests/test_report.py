"""`simulee check` and `simulee trace` from the command line: reports in every format, field
by field, exit statuses and one-line errors."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import jsonschema
import pandas as pd
import pytest

from conftest import KERNELS, at, line_of, position_of
from simulee.report.formats import CSV_COLUMNS

RACES = KERNELS / "global_races.cu"
HELPER = KERNELS / "merged_findings.cu"
SARIF_SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"


def check(run_cli, *args):
    """`simulee check` on the default launch only: these tests are about the reports."""
    return run_cli("check", "--no-search", *args)


def test_json_report_field_by_field(run_cli):
    status, out, _ = check(run_cli, RACES, "-k", "atomic_vs_plain", "--format", "json")
    assert status == 1
    document = json.loads(out)
    assert document["tool"] == "simulee" and document["version"]
    (kernel,) = document["kernels"]
    assert kernel["kernel"] == "atomic_vs_plain" and kernel["file"].endswith("tests/kernels/global_races.cu")
    write, atomic = position_of(RACES, "= 0;", "atomic_vs_plain"), position_of(RACES, "atomicAdd(&counter[0]")
    assert kernel["line"] == line_of(RACES, "void atomic_vs_plain(") and kernel["status"] == "ok"
    assert kernel["error"] is None
    (launch,) = kernel["launches"]
    assert (launch["grid"], launch["block"], launch["args"], launch["fitness"]) == ([1, 1, 1], [64, 1, 1], {}, None)
    (finding,) = kernel["findings"]
    expected = {"type": "data-race", "severity": "error", "kernel": "atomic_vs_plain", "line": write[0],
                "column": write[1],
                "space": "global", "hazard": "write-write", "scope": "inter-warp", "benign": False,
                "launch": {"grid": [1, 1, 1], "block": [64, 1, 1], "args": {}, "fill": "zeros", "origin": "default"},
                "instances": 2, "addresses": 1}
    assert {key: finding[key] for key in expected} == expected
    assert finding["file"] == kernel["file"]
    assert finding["first"] == {"access": "write", "line": write[0], "column": write[1], "file": kernel["file"],
                                "function": "atomic_vs_plain", "block": [0, 0, 0], "thread": [0, 0, 0]}
    second = finding["second"]
    assert (second["access"], second["line"], second["column"], second["block"]) == ("atomic", *atomic, [0, 0, 0])
    assert second["thread"][0] >= 32  # the widest scope: a thread of the other warp
    assert finding["message"] == "data race (write-write, global, inter-warp) between this write and the atomic at " \
                                 "line %d:%d" % atomic


def test_csv_report_is_a_flat_bug_table(run_cli):
    status, out, _ = check(run_cli, RACES, "-k", "neighbour_blocks", "--format", "csv")
    assert status == 1
    rows = list(csv.DictReader(io.StringIO(out)))
    assert tuple(rows[0].keys()) == CSV_COLUMNS
    inter_block = [row for row in rows if row["scope"] == "inter-block"]
    assert inter_block, rows
    row = inter_block[0]
    assert (row["project"], row["kernel"], row["type"], row["severity"], row["space"], row["hazard"]) == \
        ("kernels", "neighbour_blocks", "data-race", "error", "global", "read-write")
    assert row["file"].endswith("tests/kernels/global_races.cu") and row["benign"] == "false"
    assert int(row["line"]) == int(row["first_line"])
    assert int(row["second_line"]) == line_of(RACES, "a[i] += a[i + 1]")
    assert (row["grid"], row["block"], row["args"]) == ("2x1x1", "64x1x1", "n=128")
    assert int(row["instances"]) >= 1 and int(row["addresses"]) >= 1 and float(row["seconds"]) >= 0
    assert row["message"].startswith("data race (read-write, global, inter-block)")


def test_sarif_report_validates_against_the_official_schema(run_cli):
    status, out, _ = check(run_cli, RACES, "-k", "atomic_vs_plain", "--format", "sarif")
    assert status == 1
    document = json.loads(out)
    schema = json.loads(SARIF_SCHEMA.read_text())
    jsonschema.Draft4Validator.check_schema(schema)
    jsonschema.Draft4Validator(schema).validate(document)
    (run,) = document["runs"]
    assert run["tool"]["driver"]["name"] == "simulee"
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    (result,) = run["results"]
    assert result["ruleId"] == "data-race" and rules[result["ruleIndex"]] == "data-race"
    assert result["level"] == "error" and result["message"]["text"].startswith("data race (write-write")
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"].endswith("tests/kernels/global_races.cu")
    write, atomic = position_of(RACES, "= 0;", "atomic_vs_plain"), position_of(RACES, "atomicAdd(&counter[0]")
    assert location["region"] == {"startLine": write[0], "startColumn": write[1]}
    (related,) = result["relatedLocations"]
    assert related["physicalLocation"]["region"] == {"startLine": atomic[0], "startColumn": atomic[1]}
    assert related["message"]["text"] == "the other atomic"
    assert result["properties"]["scope"] == "inter-warp" and result["properties"]["benign"] is False


def test_sarif_with_every_kind_of_finding_validates(run_cli):
    status, out, _ = check(run_cli, KERNELS / "barrier_verdicts.cu", "--format", "sarif")
    assert status == 1
    schema = json.loads(SARIF_SCHEMA.read_text())
    document = json.loads(out)
    jsonschema.Draft4Validator(schema).validate(document)
    rules = {result["ruleId"] for result in document["runs"][0]["results"]}
    assert rules == {"barrier-divergence", "redundant-barrier"}


def test_text_report_reads_like_a_compiler(run_cli):
    status, out, _ = check(run_cli, RACES, "-k", "atomic_vs_plain")
    assert status == 1
    lines = out.splitlines()
    write, atomic = at(RACES, "= 0;", "atomic_vs_plain"), at(RACES, "atomicAdd(&counter[0]")
    assert lines[0].endswith(f"tests/kernels/global_races.cu:{write}: error: data race (write-write, global, "
                             f"inter-warp) between this write and the atomic at line {atomic}")
    assert lines[1] == f"{line_of(RACES, 'counter[0] = 0;'):>6} |   if (threadIdx.x == 0) counter[0] = 0;"
    assert lines[2] == f"{'':6} | {' ' * (position_of(RACES, '= 0;', 'atomic_vs_plain')[1] - 1)}^"
    assert lines[3].strip().startswith("witness block (0,0,0) thread (0,0,0) and block (0,0,0) thread (")
    assert lines[3].endswith("launch grid (1,1,1) block (64,1,1) (synthetic launch: no launch site or user gives it)")
    assert lines[-1].startswith("simulee: checked 1 kernel in 1 file: 1 error, 0 warnings (")


def test_barrier_verdicts_on_request(run_cli):
    file = KERNELS / "barrier_verdicts.cu"
    needed, redundant = (position_of(file, f"__syncthreads();  // {verdict}", "one_of_each")
                         for verdict in ("needed", "redundant"))
    write, read = (position_of(file, text, "one_of_each") for text in ("= in[t]", "shared_by_all[(t + 1)"))
    status, out, _ = check(run_cli, file, "-k", "one_of_each", "--barriers")
    assert status == 0  # a redundant barrier is a warning
    assert "barriers of one_of_each:" in out
    assert "barrier_verdicts.cu:%d:%d: needed, passed 1 time (removing it: data race (read-write, shared, " \
           "inter-warp) between the write at line %d:%d and the read at line %d:%d)" % (*needed, *write, *read) in out
    assert "barrier_verdicts.cu:%d:%d: redundant, passed 1 time" % redundant in out
    _, json_out, _ = check(run_cli, file, "-k", "one_of_each", "--format", "json")
    verdicts = json.loads(json_out)["kernels"][0]["barriers"]
    assert [(v["line"], v["verdict"]) for v in verdicts] == [(needed[0], "needed"), (redundant[0], "redundant")]
    assert verdicts[0]["race"]["second"]["line"] == read[0]


def test_exit_status_follows_error_findings(run_cli):
    assert check(run_cli, RACES, "-k", "atomic_vs_plain_fixed")[0] == 0
    assert check(run_cli, RACES, "-k", "same_flag")[0] == 0  # benign: a warning
    assert check(run_cli, RACES, "-k", "same_flag", "--format", "json")[0] == 0
    assert check(run_cli, RACES, "-k", "atomic_vs_plain")[0] == 1


def test_warp_model_option(run_cli):
    tail = ["-k", "warp_tail", "--grid", "1", "--block", "32"]
    status, out, _ = check(run_cli, KERNELS / "warp_races.cu", *tail)
    assert status == 1 and "error: warp-synchronous race" in out  # independent scheduling is every current GPU's
    assert check(run_cli, KERNELS / "warp_races.cu", *tail, "--target", "sm_70")[0] == 1
    status, out, _ = check(run_cli, KERNELS / "warp_races.cu", *tail, "--target", "sm_60")
    assert status == 0 and "warning: warp-synchronous race" in out  # correct in lockstep, as a Pascal runs it
    assert check(run_cli, KERNELS / "warp_races.cu", *tail, "--target", "sm_60", "--fail-on",
                 "warp-synchronous-race")[0] == 1
    status, out, _ = check(run_cli, KERNELS / "warp_races.cu", *tail, "--warp-model", "lockstep")
    assert status == 0 and ": error:" not in out and ": warning:" not in out
    assert check(run_cli, KERNELS / "warp_races.cu", *tail, "--fail-on", "data-race,warp-synchronous-race",
                 "--warp-model", "lockstep")[0] == 0


def test_several_launches(run_cli):
    status, out, _ = check(run_cli, KERNELS / "barrier_verdicts.cu", "-k", "early_exit", "--launch", "2/64/n=128",
                           "--launch", "2/64/n=100", "--format", "json")
    assert status == 0  # a barrier after threads exited is a warning
    kernel = json.loads(out)["kernels"][0]
    assert [launch["args"] for launch in kernel["launches"]] == [{"n": 128}, {"n": 100}]
    (finding,) = kernel["findings"]
    assert finding["type"] == "barrier-divergence" and finding["launch"]["args"] == {"n": 100}


def test_report_to_a_file(run_cli, tmp_path):
    out = tmp_path / "report.csv"
    status, stdout, _ = check(run_cli, RACES, "-k", "same_flag", "--format", "csv", "-o", out)
    assert status == 0 and stdout == ""
    assert list(csv.DictReader(out.open()))[0]["benign"] == "true"


def test_a_folder_checks_every_kernel_and_keeps_going_past_a_bad_file(run_cli, tmp_path):
    (tmp_path / "good.cu").write_text("__global__ void clean(int *a) { a[threadIdx.x] = 1; }\n"
                                      "__global__ void racy(int *a) { a[0] = threadIdx.x; }\n")
    broken = "__global__ void broken(int *a) { a[threadIdx.x] = ; }\n"
    (tmp_path / "bad.cu").write_text(broken)
    status, out, err = check(run_cli, tmp_path, "--format", "json")
    assert status == 1
    report = json.loads(out)
    kernels = {k["kernel"]: k for k in report["kernels"]}
    assert sorted(kernels) == ["clean", "racy"]  # the file that did not compile is no kernel
    assert kernels["clean"]["findings"] == [] and kernels["racy"]["findings"][0]["type"] == "data-race"
    (failed,) = report["errors"]
    assert Path(failed["file"]).name == "bad.cu"
    assert f"bad.cu:{at(tmp_path / 'bad.cu', ';')}: expected expression" in failed["error"]  # at its only ';'
    assert err.count("expected expression") == 1 and err.startswith("simulee: error: ")  # reported once
    status, out, err = check(run_cli, tmp_path, "-k", "clean")
    assert status == 2  # nothing found, but a file could not be checked
    assert out.endswith("checked 1 kernel in 1 file: 0 errors, 0 warnings, 1 proved race-free; 1 file not compiled (" +
                        out.rpartition("(")[2])
    status, out, _ = check(run_cli, tmp_path, "--format", "sarif")
    notification, = json.loads(out)["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert notification["level"] == "error" and "expected expression" in notification["message"]["text"]


@pytest.mark.parametrize("args, message", [
    (["missing.cu"], "no such file or folder: missing.cu"),
    ([RACES, "-k", "nope"], "kernel 'nope' not found"),
    ([RACES, "-k", "same_flag", "--launch", "4"], "--launch 4: expected GRID/BLOCK[/NAME=VALUE...]"),
    ([RACES, "-k", "same_flag", "--launch", "1/2048"], "--launch block 2048: x is at most 1,024 in CUDA"),
    ([RACES, "-k", "same_flag", "--launch", "1/64x32"], "--launch block 64x32: a block has at most 1024 threads"),
    ([RACES, "-k", "neighbour_blocks", "--launch", "1/32/m=3"], "neighbour_blocks has no parameter 'm'"),
    ([RACES, "-k", "neighbour_blocks", "--grid", "0"], "--grid 0: dimensions must be at least 1"),
    ([KERNELS.parent / "errors" / "syntax_error.cu"], "error:"),
])
def test_bad_input_is_one_line_and_exit_2(run_cli, args, message):
    status, out, err = check(run_cli, *args)
    assert status == 2 and out == ""
    assert message in err and err.startswith("simulee: error: ")


def test_unknown_warp_model_is_a_usage_error(run_cli):
    status, _, err = check(run_cli, RACES, "--warp-model", "sometimes")
    assert status == 2 and "invalid choice" in err


def test_trace_exports_the_memory_access_model(run_cli, tmp_path):
    status, out, _ = run_cli("trace", RACES, "-k", "broadcast", "--grid", "1", "--block", "64")
    assert status == 0
    frame = pd.read_csv(io.StringIO(out))
    assert list(frame.columns) == ["unit", "space", "memory", "offset", "visit_order", "block_x", "block_y", "block_z",
                                   "thread_x", "thread_y", "thread_z", "warp", "lane", "action", "file", "line",
                                   "column", "value"]
    shared = frame[frame.space == "shared"]
    # thread 0 writes the broadcast value in visit order 0; all 64 threads read it in visit order 1
    assert shared[shared.action == "write"][["thread_x", "visit_order"]].values.tolist() == [[0, 0]]
    reads = shared[shared.action == "read"]
    assert len(reads) == 64 and set(reads.visit_order) == {1} and reads.unit.nunique() == 1
    parquet = tmp_path / "model.parquet"
    status, _, err = run_cli("trace", RACES, "-k", "broadcast", "--grid", "1", "--block", "64", "-o", parquet)
    assert status == 0 and "unit tuples of broadcast written to" in err
    pd.testing.assert_frame_equal(pd.read_parquet(parquet), frame, check_dtype=False)


def test_trace_and_findings_name_the_same_line_inside_a_device_function(run_cli):
    status, out, _ = run_cli("check", HELPER, "-k", "store_in_helper", "--format", "json")
    (finding,) = json.loads(out)["kernels"][0]["findings"]
    status, out, _ = run_cli("trace", HELPER, "-k", "store_in_helper")
    frame = pd.read_csv(io.StringIO(out))
    assert set(frame[frame.action == "write"].line) == {finding["line"]} == {line_of_store()}


def line_of_store() -> int:
    lines = HELPER.read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if "*where = value;" in line)


def test_a_kernel_named_in_a_folder_is_checked_in_the_files_that_have_it(run_cli, tmp_path):
    (tmp_path / "host.cu").write_text("__global__ void other(int *a) { a[threadIdx.x] = 1; }\n")
    (tmp_path / "racy.cu").write_text("__global__ void racy(int *a) { a[0] = threadIdx.x; }\n")
    status, out, _ = check(run_cli, tmp_path, "-k", "racy", "--launch", "1/32", "--format", "json")
    assert status == 1 and [k["kernel"] for k in json.loads(out)["kernels"]] == ["racy"]
    status, out, err = check(run_cli, tmp_path, "-k", "nope")
    assert status == 2 and out == "" and err == f"simulee: error: {tmp_path}: no file has a kernel 'nope' (2 files)\n"


def test_a_bug_two_kernels_share_is_shown_once_with_one_line_naming_them(run_cli, tmp_path):
    from test_scan import SHARED_RACE

    source = tmp_path / "shared.cu"
    source.write_text(SHARED_RACE)
    status, out, _ = check(run_cli, source)
    assert status == 1 and "2 errors, 0 warnings (4 findings in 4 kernels)" in out
    assert out.count("  2 |") == 1 and out.count(" 10 |") == 1  # each excerpt once
    assert "the same bug in 2 kernels: first, second (2 findings, " in out
    assert "the same bug in 2 kernels: spread<float>, spread<double> (2 findings, " in out
