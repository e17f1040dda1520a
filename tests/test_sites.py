"""Launch sites: what the host code's launches say (simulee.checker.sites), how the search keeps
to them (evolve.space.SearchSpace.of_sites), and what `check` and `scan` report with and
without them. The kernels are in tests/sites."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import TESTS, program
from evolve.launchsite import Site, evaluate, input_bounds, inputs_of
from simulee.frontend.compiler import CompileOptions
from simulee.checker.sites import host_code, kernel_of_stub
from simulee.model.findings import SAME_BUG

SITES = TESTS / "sites"


def simulee(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "simulee", *map(str, args)], capture_output=True, text=True,
                          timeout=600)


def check_json(file: str, *options) -> dict:
    result = simulee("check", SITES / file, "-q", "--format", "json", *options)
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)["kernels"][0]


def errors(kernel: dict) -> list[dict]:
    return [f for f in kernel["findings"] if f["severity"] == "error"]


def line_in(file: str, marker: str) -> int:
    """The line of tests/sites/`file` that holds `marker`."""
    return next(n for n, text in enumerate((SITES / file).read_text().splitlines(), 1) if marker in text)


def sites_of(file: str) -> list[Site]:
    sites, _, _, problem = host_code(SITES / file, CompileOptions())
    assert problem == ""
    return sites


def dims(site: Site, what: str, inputs: list) -> tuple:
    return tuple(evaluate(e, inputs) for e in getattr(site, what))


def test_stub_names_map_to_kernel_symbols():
    assert kernel_of_stub("_Z18__device_stub__addPfPKfi") == "_Z3addPfPKfi"
    assert kernel_of_stub("_ZN2ns16__device_stub__kEv") == "_ZN2ns1kEv"
    assert kernel_of_stub("__device_stub__plain") == "plain"


def test_grids_computed_from_an_argument_keep_the_relation():
    chevrons = line_in("grids.cu", "scale<<<")
    site = next(s for s in sites_of("grids.cu") if s.kernel == "_Z5scalePffi" and s.line == chevrons)
    n = site.args[2]
    assert n[0] == "input" and site.inputs[n[1]].kind == "integer"
    for value in (1, 256, 257, 1000):
        inputs = [None] * len(site.inputs)
        inputs[n[1]] = value
        assert dims(site, "grid", inputs) == ((value + 255) // 256, 1, 1)
        assert dims(site, "block", inputs) == (256, 1, 1)
    assert site.args[1] == ["const", 2.0] and site.shared == ["const", 0]


def test_a_grid_rounded_up_in_floating_point_keeps_its_relation_and_its_race_needs_two_blocks():
    """ceil((double) n / 256.0) blocks: the grid follows n, so the search reaches the sizes
    of two blocks of data, where one thread's serial total reads the other blocks' writes
    (a fitness run of that size needs more steps than the short budget)."""
    site = next(s for s in sites_of("serial_total.cu") if "normalize_then_total" in s.kernel)
    n = site.args[2]
    for value in (1, 256, 257, 1000):
        inputs = [None] * len(site.inputs)
        inputs[n[1]] = value
        assert dims(site, "grid", inputs) == (-(-value // 256), 1, 1)
    result = simulee("check", SITES / "serial_total.cu", "-q", "--format", "json")
    kernels = {k["kernel"]: k["findings"] for k in json.loads(result.stdout)["kernels"]}
    found = kernels["normalize_then_total"]
    assert [(f["type"], f["severity"], f["line"]) for f in found] == \
        [("data-race", "error", line_in("serial_total.cu", "weights[i] / sum"))]
    assert found[0]["launch"]["args"]["n"] > 256
    assert kernels["normalize_then_block_total"] == []


def test_dim3_constants_shared_memory_templates_and_cudaLaunchKernel():
    sites = sites_of("grids.cu")
    tiled = next(s for s in sites if s.kernel == "_Z5tiledILi16EEvPf")
    assert dims(tiled, "grid", []) == (4, 2, 1) and dims(tiled, "block", []) == (16, 1, 1)
    assert tiled.shared == ["const", 64] and tiled.line == line_in("grids.cu", "tiled<16><<<")
    by_pointer = line_in("grids.cu", "cudaLaunchKernel((void")
    launched = next(s for s in sites if s.kernel == "_Z5scalePffi" and s.line == by_pointer)
    assert dims(launched, "grid", []) == (8, 1, 1) and dims(launched, "block", []) == (128, 1, 1)
    assert launched.args[1] == ["const", 0.5]
    assert launched.args[2][0] == "input"  # n, a parameter of run()
    assert Site.from_json(json.loads(json.dumps(launched.to_json()))) == launched


def test_pitch_from_cudaMallocPitch_is_never_below_the_width():
    site = sites_of("pitched.cu")[0]
    assert dims(site, "grid", []) == (40, 1, 1) and site.args[1] == ["const", 300]
    assert evaluate(site.args[2], []) >= 300 and evaluate(site.args[2], []) * 4 % 512 == 0


def test_a_block_the_site_fixes_is_the_only_block_checked():
    """rotate is correct for the 32-thread blocks its host code launches; any larger block races."""
    kernel = check_json("rotate.cu")
    assert errors(kernel) == []
    assert {tuple(launch["block"]) for launch in kernel["launches"]} == {(32, 1, 1)}
    assert kernel["launches"][0]["origin"] == f"site rotate.cu:{line_in('rotate.cu', 'rotate<<<')}"
    # with no host code, blocks wider than the 32 elements a block rotates are outside what the kernel implies
    synthetic = check_json("rotate.cu", "--no-launch-sites")
    assert synthetic["findings"] and not errors(synthetic)
    assert all("only when blockDim.x > 32, on a launch Simulee chose" in f["message"] for f in synthetic["findings"])
    wide = check_json("rotate.cu", "--no-launch-sites", "--block", "64")
    assert errors(wide) and all(f["launch"]["origin"] == "given" for f in errors(wide))


def test_searched_inputs_keep_pitch_at_least_width():
    assert errors(check_json("pitched.cu")) == []  # the site's cudaMallocPitch relation
    assert errors(check_json("pitched.cu", "--no-launch-sites")) == []  # a searched pitch stays padded
    assert [f["type"] for f in errors(check_json("pitched.cu", "--arg", "pitch=10"))] == ["data-race"]


def test_the_same_buffer_passed_twice_is_one_buffer():
    found = errors(check_json("shifted.cu"))
    assert [(f["type"], f["launch"]["args"]) for f in found] == [("data-race", {"in": "=out"})]
    assert found[0]["launch"]["origin"] == f"site shifted.cu:{line_in('shifted.cu', 'shift<<<')}"
    assert errors(check_json("shifted.cu", "--no-launch-sites")) == []


def test_reports_label_findings_on_synthetic_launches():
    text = simulee("check", SITES / "rotate.cu", "-q", "--no-launch-sites").stdout
    assert "synthetic launch: no launch site or user gives it" in text
    table = list(csv.DictReader(simulee("check", SITES / "rotate.cu", "-q", "--no-launch-sites", "--format",
                                        "csv").stdout.splitlines()))
    assert table and {row["origin"] for row in table} == {"synthetic"}
    sarif = json.loads(simulee("check", SITES / "shifted.cu", "-q", "--format", "sarif").stdout)
    result = sarif["runs"][0]["results"][0]
    assert result["properties"]["synthetic"] is False and "synthetic" not in result["message"]["text"]


def test_a_scan_takes_launch_sites_from_other_files(tmp_path: Path):
    """kernels.cu defines rotate, launch.cu launches it with 32-thread blocks."""
    result = simulee("scan", SITES / "repo", "-o", tmp_path / "out", "--jobs", "1", "-q")
    assert result.returncode in (0, 1), result.stderr
    with open(tmp_path / "out" / "kernels.csv", newline="") as stream:
        kernels = list(csv.DictReader(stream))
    assert [(k["file"], k["kernel"], k["status"]) for k in kernels] == [("kernels.cu", "rotate", "ok")]
    records = [json.loads(line) for line in (tmp_path / "out" / "scan.jsonl").read_text().splitlines()]
    check = next(r["check"] for r in records if r["record"] == "kernel")
    assert {tuple(launch["block"]) for launch in check["launches"]} == {(32, 1, 1)}
    assert [f for f in check["findings"] if f["severity"] == "error"] == []
    with open(tmp_path / "out" / "files.csv", newline="") as stream:
        host = {row["file"]: row["host"] for row in csv.DictReader(stream)}
    assert host["launch.cu"] == "its own host code only: no main in its folder or those above it"


@pytest.mark.parametrize("given", [("--block", "64"), ("--launch", "2/64")])
def test_a_launch_given_on_the_command_line_replaces_the_sites(given):
    kernel = check_json("rotate.cu", *given)
    assert errors(kernel) and all(launch["origin"] in ("given", "search") for launch in kernel["launches"])


def test_wrapper_dim3_parameters_struct_members_and_a_cooperative_launch():
    """fill_matrix passes its caller's dim3 grid and block, and a Dim {n, n, 2n} by value."""
    fill = next(s for s in sites_of("wrapped.cu") if s.kernel == "_Z4fillPf3Dimi")
    assert all(e[0] == "input" for e in fill.grid + fill.block)  # x, y and z of each dim3 are open
    from evolve.launchsite import kernel_arguments
    from simulee.frontend.compiler import load_program

    program = load_program(SITES / "wrapped.cu")
    members = kernel_arguments(program.kernel("fill").params, fill)
    # after two dim3s (i64, i32 each) and m
    n = next(i for i, put in enumerate(fill.inputs) if put.what.startswith("parameter %5 "))
    inputs = [7] * len(fill.inputs)
    inputs[n] = 40
    assert [evaluate(members[name], inputs) for name in ("d.rows", "d.cols", "d.stride")] == [40, 40, 80]
    sweep = next(s for s in sites_of("wrapped.cu") if s.kernel == "_Z5sweepPf")
    assert sweep.cooperative and dims(sweep, "grid", []) == (4, 1, 1) and dims(sweep, "block", []) == (32, 1, 1)

    kernels = {k["kernel"]: k for k in json.loads(simulee("check", SITES / "wrapped.cu", "-q", "--format",
                                                          "json").stdout)["kernels"]}
    checked = kernels["fill"]["launches"]
    # the axes fill reads and the n that sizes d (its members bound the writes), nothing else
    assert kernels["fill"]["search"]["genes"] == ["grid.x", "block.x", "wrapped.cu:14#9"]
    assert all(launch["grid"][1:] == [1, 1] and launch["block"][1:] == [1, 1] for launch in checked)
    assert all(launch["args"]["d.stride"] == 2 * launch["args"]["d.rows"] for launch in checked)
    assert errors(kernels["fill"]) == [] and errors(kernels["sweep"]) == []


def test_struct_members_passed_through_stay_those_the_grid_is_computed_from():
    kernel = check_json("tied_members.cu")
    checked = [launch for launch in kernel["launches"] if launch["origin"] != "default"]
    assert checked and errors(kernel) == []
    assert all(launch["grid"][0] == (launch["args"]["d.cols"] + 31) // 32 for launch in checked)


def test_both_arms_of_an_if_sharing_a_configuration_and_a_block_of_the_devices_warp_size():
    sites = {site.kernel: site for site in sites_of("branches.cu")}
    assert {"_Z7forwardPfi", "_Z8backwardPfi"} <= set(sites)
    assert dims(sites["_Z8warp_sumPfPKf"], "block", []) == (32, 1, 1)  # cudaDevAttrWarpSize
    checked = check_json("branches.cu", "-k", "warp_sum")
    assert {tuple(launch["block"]) for launch in checked["launches"]} == {(32, 1, 1)} and checked["findings"] == []


def test_host_code_including_curand_kernel_h_is_read():
    (site,) = sites_of("noise.cu")
    assert site.kernel == "_Z5noisePfyi" and dims(site, "block", []) == (128, 1, 1)


def test_a_value_given_with_arg_holds_beside_the_sites():
    kernel = check_json("grids.cu", "-k", "scale", "--arg", "n=300")
    assert {launch["args"]["n"] for launch in kernel["launches"]} == {300}
    assert all(launch["origin"].startswith("site grids.cu:") for launch in kernel["launches"])


def test_what_the_host_code_tests_around_a_launch_bounds_its_values():
    sites = {site.kernel: site for site in sites_of("dispatch.cu")}
    (condition,) = sites["_Z4tileILi16EEvPf"].conditions  # block.x == 16
    assert input_bounds(condition)[1:] == (16, 16)
    (guard,) = sites["_Z4fillPii"].conditions  # not n > 4096
    assert input_bounds(guard)[1:] == (None, 4096)
    for kernel, block in (("tile<16>", 16), ("tile<32>", 32)):
        checked = check_json("dispatch.cu", "-k", kernel)
        assert {tuple(run["block"]) for run in checked["launches"]} == {(block, 1, 1)} and checked["findings"] == []
    fill = check_json("dispatch.cu", "-k", "fill")
    assert fill["findings"] == [] and all(launch["args"]["n"] <= 4096 for launch in fill["launches"])
    # without the sites, the search tries what the host code never does: rows wider than the kernel's tile (a
    # warning: its shared row implies at most 16 threads) and n past the guard (an error)
    shared_slot, everyone = line_in("dispatch.cu", "row[t % Width] = v["), line_in("dispatch.cu", "a[0] = i;")
    wide = [f for f in check_json("dispatch.cu", "-k", "tile<16>", "--no-launch-sites")["findings"]
            if f["line"] == shared_slot]
    assert wide and all(f["severity"] == "warning" and "only when blockDim.x > 16" in f["message"] for f in wide)
    assert errors(check_json("dispatch.cu", "-k", "fill", "--no-launch-sites"))[0]["line"] == everyone


def test_a_template_instance_the_host_launches_for_powers_of_two_is_checked_on_powers_of_two_only():
    """is_pow2(n) is ctpop(n) < 2 in the host's -O1 code: the guard of each instance."""
    def sizes(kernel: str) -> set[int]:
        return {launch["args"]["n"] for launch in check_json("dispatch.cu", "-k", kernel)["launches"]}

    assert all(n & (n - 1) == 0 for n in sizes("fold<true>")) and check_json("dispatch.cu", "-k",
                                                                              "fold<true>")["findings"] == []
    assert all(n & (n - 1) != 0 for n in sizes("fold<false>"))
    middle = line_in("dispatch.cu", "the middle element is read and written")
    assert {f["line"] for f in errors(check_json("dispatch.cu", "-k", "fold<true>", "--no-launch-sites"))} == {middle}


def test_a_kernel_its_files_host_code_never_launches_is_reported_as_a_warning_by_a_scan(tmp_path):
    result = simulee("scan", SITES / "dispatch.cu", "-o", tmp_path / "out", "-q", "--jobs", "1")
    assert result.returncode == 0, result.stderr  # warnings only
    rows = list(csv.DictReader((tmp_path / "out" / "bugs.csv").open()))
    assert [(r["kernel"], r["type"], r["severity"], r["line"]) for r in rows] == [
        ("unused", "data-race", "warning", str(line_in("dispatch.cu", "a[threadIdx.x / 2] =")))]
    assert "but no host code of the repository launches this one" in rows[0]["message"]
    checked = check_json("dispatch.cu", "-k", "unused")  # a check of the file alone still calls it an error
    assert [f["severity"] for f in checked["findings"]] == ["error"]


def test_a_race_through_made_up_content_is_a_warning_that_names_it_with_a_launch_site_or_without():
    for options in ((), ("--no-launch-sites",)):
        (race,) = check_json("compaction.cu", "-k", "compact", *options)["findings"]  # Simulee made the slots up
        store = line_in("compaction.cu", "out[slots[i]] = in[i]")
        assert (race["type"], race["severity"], race["line"]) == ("data-race", "warning", store)
        assert "only for some contents of flags, slots: Simulee made up what they hold" in race["message"]
        assert race["details"]["conditional"].startswith("only for some contents of flags, slots")


def test_csr_rows_out_of_order_are_a_warning_and_a_row_one_past_its_end_an_error():
    """Rows overlap out of order only for some row pointers: a warning naming them. A row
    one too long meets the next row on every content Simulee tries, those that put no two
    threads on one index by chance (a permutation, the identity) too: an error."""
    rows = check_json("compaction.cu", "-k", "scale_rows")
    assert [(f["type"], f["severity"]) for f in rows["findings"]] == [("data-race", "warning")]
    assert "only for some contents of row_ptr" in rows["findings"][0]["message"]
    past = errors(check_json("compaction.cu", "-k", "scale_rows_past"))
    assert past and {f["line"] for f in past} == {line_in("compaction.cu", "one past the row's end")}


def test_a_row_copied_between_csr_tables_is_a_warning_naming_every_table_it_reads():
    """The output rows meet only when the tables disagree on a row's length: for some
    contents, even copying one element too many (the identity agrees, a permutation not)."""
    for kernel in ("select_rows", "select_rows_past"):
        copied = check_json("compaction.cu", "-k", kernel)
        assert [(f["type"], f["severity"]) for f in copied["findings"]] == [("data-race", "warning")]
        assert "only for some contents of out_ptr, rows, in_ptr" in copied["findings"][0]["message"]


def test_a_launcher_called_from_a_cpp_file_is_checked_under_its_callers_launches():
    """colsum is right only on 1-D grids of 1-D blocks; its launcher takes grid and block
    from callers/main.cpp (256 threads a block) or colsum_2d.cpp (a 128x2 block)."""
    from simulee.checker.sites import calls_in, host_calls, through_callers

    launcher = sites_of("callers/colsum.cu")
    assert [site.open_functions() for site in launcher] == [{"_Z13launch_colsum4dim3S_PfPKfii"}]
    calls, problem = host_calls(SITES / "callers" / "main.cpp", CompileOptions(), launcher[0].open_functions())
    assert problem == "" and len(calls) == 1
    [site] = through_callers(launcher, calls)
    launch = f"colsum.cu:{line_in('callers/colsum.cu', 'colsum<<<')}"
    assert site.label == f"main.cpp:{line_in('callers/main.cpp', '  launch_colsum(dim3')} -> {launch}"
    assert site.open_functions() == {"_Z11column_sumsPfPKfii"}
    cols = next(i for i, value in enumerate(site.inputs) if value.parameter[1:] == (3, ""))
    inputs = [0] * len(site.inputs)
    inputs[cols] = 1000
    assert dims(site, "grid", inputs) == (4, 1, 1) and dims(site, "block", inputs) == (256, 1, 1)
    assert calls_in("define void @f() {\n  ret void\n}\n", {"launch_colsum"}) == []

    assert errors(check_json("callers/colsum.cu"))  # alone, the search gives it a second row of blocks
    clean = check_json("callers/colsum.cu", "--host", SITES / "callers" / "main.cpp")
    assert errors(clean) == [] and {tuple(launch["block"]) for launch in clean["launches"]} == {(256, 1, 1)}
    [race] = errors(check_json("callers/colsum.cu", "--host", SITES / "colsum_2d.cpp"))
    assert race["line"] == line_in("callers/colsum.cu", "sums[j] += total")
    caller = line_in("colsum_2d.cpp", "  launch_colsum(dim3")
    assert race["launch"]["origin"] == f"site colsum_2d.cpp:{caller} -> {launch}"


def test_a_call_through_a_table_of_launchers_is_a_call_of_each():
    """A switch over which launcher to call, with the same arguments in every case, is what
    LLVM makes a constant table of functions indexed by the switch's value (llm.c's
    attention_backward over its launch_softmax_N): the call through it passes 1024 to each
    launcher in the table; a table that is not constant, or a pointer from elsewhere, calls
    none."""
    from simulee.checker.sites import calls_in

    host = (
        "@switch.table.run = internal unnamed_addr constant [2 x ptr] [ptr @launch_a, ptr @launch_b]\n"
        "@chosen = internal global [2 x ptr] [ptr @launch_a, ptr @launch_b]\n"
        "declare void @launch_a(i32)\ndeclare void @launch_b(i32)\n"
        "define void @run(i32 %kernel, ptr %given) {\n"
        "  %index = zext i32 %kernel to i64\n"
        "  %slot = getelementptr inbounds ptr, ptr @switch.table.run, i64 %index\n"
        "  %launcher = load ptr, ptr %slot\n"
        "  call void %launcher(i32 1024)\n"
        "  %mutable = getelementptr inbounds ptr, ptr @chosen, i64 %index\n"
        "  %other = load ptr, ptr %mutable\n"
        "  call void %other(i32 7)\n"
        "  call void %given(i32 9)\n"
        "  ret void\n"
        "}\n")
    calls = calls_in(host, {"launch_a", "launch_b"})
    assert sorted((call.callee, tuple(call.args)) for call in calls) == [
        ("launch_a", (["const", 1024],)), ("launch_b", (["const", 1024],))]


def test_a_global_the_program_only_sets_to_constants_holds_one_of_them_or_its_initializer():
    """What the optimizer keeps of `num_SMs = prop.multiProcessorCount` stored at start-up
    and read in another function (llm.c's setup_main): a flag that it was set. A launch
    reading it gets its initializer or the stored value, both the host's; a global whose
    address goes elsewhere may hold anything."""
    from simulee.checker.sites import read_host

    host = (
        "@num_SMs.b = internal unnamed_addr global i1 false\n"
        "@mode = internal global i32 0\n@other = internal global i32 0\n"
        "declare i32 @__cudaPushCallConfiguration(i64, i32, i64, i32, i64, ptr)\n"
        "declare void @_Z20__device_stub__kernelii(i32, i32)\ndeclare void @sink(ptr)\n"
        "define void @setup() {\n  store i1 true, ptr @num_SMs.b\n  store i32 3, ptr @mode\n"
        "  call void @sink(ptr @other)\n  ret void\n}\n"
        "define void @run() {\n  %set = load i1, ptr @num_SMs.b\n  %sms = select i1 %set, i32 80, i32 0\n"
        "  %m = load i32, ptr @mode\n  %o = load i32, ptr @other\n  %x = zext i32 %sms to i64\n"
        "  %xy = or i64 %x, 4294967296\n"
        "  %c = call i32 @__cudaPushCallConfiguration(i64 %xy, i32 1, i64 4294967328, i32 1, i64 0, ptr null)\n"
        "  call void @_Z20__device_stub__kernelii(i32 %m, i32 %o)\n  ret void\n}\n")
    (site,), _, _ = read_host(host)
    assert [i.choices for i in site.inputs] == [(0, 1), (0, 3), ()]
    assert [evaluate(site.grid[0], [1, 3, 0]), evaluate(site.grid[0], [0, 3, 0])] == [80, 0]


def test_a_scan_reads_the_repositorys_cpp_callers_of_a_launcher_and_keeps_them_when_resumed(tmp_path: Path):
    out = tmp_path / "out"
    for resumed in (False, True):
        result = simulee("scan", SITES / "callers", "-o", out, "--jobs", "1", "-q", *(["--resume"] if resumed else []))
        assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in (out / "scan.jsonl").read_text().splitlines()]
    assert [(r["file"], r["status"], len(r["calls"])) for r in records if r["record"] == "calls"] == \
        [("colsum.cu", "ok", 0), ("main.cpp", "ok", 1)]
    check = next(r["check"] for r in records if r["record"] == "kernel")
    assert {tuple(launch["block"]) for launch in check["launches"]} == {(256, 1, 1)} and check["findings"] == []


def test_a_race_only_rows_of_blocks_make_is_a_warning_when_the_callers_choosing_them_cannot_be_read(tmp_path):
    """rows.cu's launchers take grid and block from trainer.cpp, which needs a header
    outside the folder: column_totals races only on rows of blocks, which the unread
    callers choose (a warning naming them); so does column_sums, whose lanes also meet in
    blocks narrower than a warp (a race of another scope, replayed apart: its block width
    is a guess too); first_slots races on any two blocks (an error). With the header the
    callers launch one row of blocks: column_totals and column_sums are clean."""
    host = ("--host", SITES / "hidden" / "trainer.cpp")
    (rows,) = check_json("hidden/rows.cu", "-k", "column_totals", *host)["findings"]
    assert (rows["type"], rows["severity"], rows["line"]) == (
        "data-race", "warning", line_in("hidden/rows.cu", "the blocks of a column race"))
    assert "only for a launch shape Simulee chose (gridDim.y=" in rows["message"]
    assert "trainer.cpp) could not be read" in rows["message"]
    readable = ("-I", SITES / "hidden_include")
    assert check_json("hidden/rows.cu", "-k", "column_totals", *host, *readable)["findings"] == []
    # column_sums: the grid's rows race, and lanes of a guessed block narrower than a warp meet at the same
    # place; neither is the host's: a warning naming the grid's rows, and with the callers read, clean
    (sums,) = check_json("hidden/rows.cu", "-k", "column_sums", *host)["findings"]
    assert (sums["type"], sums["severity"], sums["line"]) == (
        "data-race", "warning", line_in("hidden/rows.cu", "rows of blocks add to one column"))
    assert check_json("hidden/rows.cu", "-k", "column_sums", *host, *readable)["findings"] == []
    slots = line_in("hidden/rows.cu", "every block writes the same slots")
    for options in ((), readable):
        (race,) = check_json("hidden/rows.cu", "-k", "first_slots", *host, *options)["findings"]
        assert (race["type"], race["severity"], race["line"]) == ("data-race", "error", slots)
    for options, expected in (((), {("error", slots), ("warning", rows["line"]), ("warning", sums["line"])}),
                              (readable, {("error", slots)})):
        out = tmp_path / str(len(options))
        result = simulee("scan", SITES / "hidden", "-o", out, "--jobs", "1", "-q", *options)
        assert result.returncode == 1, result.stderr
        with open(out / "bugs.csv") as rows_file:
            assert {(row["severity"], int(row["line"])) for row in csv.DictReader(rows_file)} == expected


def test_device_variables_the_host_code_writes_hold_made_up_content():
    """totals loops over as many points as two variables written with cudaMemcpyToSymbol
    say; zero, as a fresh module has them, the loop never runs and its race is missed. The
    host writes what its caller passes, but the counts only decide how often each block
    runs the loop, all its threads alike: the race is the program's whenever a block runs it
    twice, an error."""
    from simulee.checker.sites import host_code

    sites, written, _, problem = host_code(SITES / "symbols.cu", CompileOptions())
    assert problem == "" and {"counters", "max_points"} <= set(written) and len(sites) == 5
    result = simulee("check", SITES / "symbols.cu", "-q", "--format", "json")
    kernels = {k["kernel"]: k for k in json.loads(result.stdout)["kernels"]}
    reset, add = line_in("symbols.cu", "if (threadIdx.x == 0) sum = 0;"), line_in("symbols.cu", "atomicAdd(&sum")
    found = kernels["totals"]["findings"]
    assert {(f["line"], f["type"], f["severity"]) for f in found} == {(reset, "data-race", "error"),
                                                                      (add, "data-race", "error")}
    assert kernels["totals_fixed"]["findings"] == []
    ignored = json.loads(simulee("check", SITES / "symbols.cu", "-q", "--format", "json", "--no-launch-sites").stdout)
    assert all(k["findings"] == [] for k in ignored["kernels"] if k["kernel"].startswith("totals"))


def test_a_table_the_host_fills_with_what_it_states_holds_that_and_one_it_copies_from_elsewhere_is_made_up():
    from simulee.checker.sites import host_code

    _, written, _, _ = host_code(SITES / "symbols.cu", CompileOptions())
    assert written["stated_offsets"] == [[0, "00000000100000002000000030000000"]]  # {0, 16, 32, 48}
    assert written["caller_offsets"] is None and written["max_points"] is None  # the caller's values
    assert check_json("symbols.cu", "-k", "scatter_stated")["findings"] == []
    (race,) = check_json("symbols.cu", "-k", "scatter_made_up")["findings"]
    assert (race["type"], race["severity"]) == ("data-race", "warning")
    assert "only for some contents of caller_offsets" in race["message"]
    (slot,) = check_json("symbols.cu", "-k", "same_slot")["findings"]  # one slot whatever the table holds
    assert (slot["type"], slot["severity"], slot["line"]) == ("data-race", "error",
                                                               line_in("symbols.cu", "every thread, one slot"))


def test_a_race_needing_a_grid_and_a_size_the_host_takes_from_different_values_is_a_warning_naming_both():
    (unrelated,) = check_json("grid_from_host.cu", "-k", "wrap_unrelated")["findings"]
    assert (unrelated["type"], unrelated["severity"]) == ("data-race", "warning")
    assert "only for values Simulee chose (n=" in unrelated["message"] and ", gridDim.x=" in unrelated["message"]
    (rounded,) = check_json("grid_from_host.cu", "-k", "wrap_rounded")["findings"]  # the grid is computed from n
    assert (rounded["type"], rounded["severity"], rounded["line"]) == (
        "data-race", "warning", line_in("grid_from_host.cu", "the last block's threads past n"))
    assert "not with n=128, gridDim.x=2" in rounded["message"]  # a whole number of blocks: none past n
    # the value stored through the table is no part of the address: area is not among the guesses
    # the blocks of a batch race whatever dim and the grid's y are: the race holds on one plane of blocks
    (batch,) = check_json("grid_from_host.cu", "-k", "batch_overwrites")["findings"]
    assert (batch["type"], batch["severity"], batch["line"]) == (
        "data-race", "error", line_in("grid_from_host.cu", "every item of the batch writes the same rows"))


def test_an_argument_the_grid_is_computed_from_keeps_the_sites_value():
    """The grid and an argument computed from the same member of `this` stay related: the
    search does not pad `taps` (a row stride by its use) apart from the grid made for it,
    as it did CUDA-CNN's kernelSize (to 1,835,008: kernelSize * kernelSize overflowed)."""
    from dataclasses import replace

    from evolve.space import SearchSpace
    from simulee.checker.kernel import default_launch

    (site,) = [s for s in sites_of("members.cu") if s.kernel == "_Z8sum_tapsPfii"]
    taps = site.args[1]
    assert taps[0] == "input" and inputs_of(site.grid[1]) == {taps[1]}
    loaded = program(SITES / "members.cu")
    kernel = loaded.kernel("sum_taps")
    space = SearchSpace.of_sites(kernel, default_launch(kernel), {"taps": ["address"], "outputs": ["address"]},
                                 set(), [site])
    space = replace(space, strides=frozenset({"taps"}))
    assert [gene.name for gene in space.genes] == ["taps", "outputs"]
    for genome in (space.initial(0), [3, 100], [16, 2]):  # the padding would make taps 2 x outputs
        launch = space.launch(genome)
        assert launch.grid[1] == launch.args["taps"] ** 2, (launch.grid, launch.args)
    assert errors(check_json("members.cu")) == []


def test_a_divisor_the_host_computes_is_never_searched_as_zero_but_a_zero_it_passes_is_a_bug():
    """kaldi's MulRowsGroupMat passes group_size = cols / src_cols: searched sizes that make
    it 0 (src_cols > cols) are no launch the host makes; a literal 0 is still a bug."""
    from evolve.space import InvalidGenome, SearchSpace
    from simulee.checker.kernel import default_launch

    (site,) = [s for s in sites_of("group_size.cu") if "group_of" in s.kernel]
    kernel = program(SITES / "group_size.cu").kernel("group_of")
    space = SearchSpace.of_sites(kernel, default_launch(kernel), {"cols": ["branch"], "group_size": ["address",
                                 "divisor"], "in": ["address"], "out": ["address"]}, set(), [site])
    cols, src_cols = (space.genes.index(g) for g in space.genes if g.name in ("cols", "group_size.cu:14#3"))
    genome = space.initial(0)
    genome[cols], genome[src_cols] = 100, 7
    assert space.launch(genome).args["group_size"] == 14
    genome[src_cols] = 101
    with pytest.raises(InvalidGenome, match="divides by group_size, which would be 0"):
        space.launch(genome)
    kernel = check_json("group_size.cu", "-k", "per_group")
    assert [(f["type"], f["line"]) for f in errors(kernel)] == [
        ("division-by-zero", line_in("group_size.cu", "col % group_size"))]


def test_a_block_width_the_host_halves_in_a_loop_is_one_of_its_halvings():
    """halving.cu: the host halves 256 (or 32) until it fits the group, as kaldi's GroupPnorm
    does: the block is what that loop leaves for the group size, so groups wider than a warp
    race with the next round's loads (an error), and the launcher that starts at 32 never
    makes a block whose groups span warps (clean; a searched width was a false error)."""
    wide, narrow = (next(s for s in sites_of("halving.cu") if f"ILi{start}E" in s.kernel) for start in (256, 32))
    for site, shapes in ((wide, [(1, 256, 1), (1, 256, 1), (4, 64, 1), (64, 4, 1), (256, 1, 1)]),
                         (narrow, [(1, 256, 1), (1, 256, 1), (4, 64, 1), (32, 8, 1), (32, 8, 1)])):
        group_size = next(i for i, value in enumerate(site.inputs) if value.kind == "integer")
        assert [dims(site, "block", [size if i == group_size else 0 for i in range(len(site.inputs))])
                for size in (1, 3, 10, 97, 1000)] == shapes
    races = {(f["type"], f["line"]) for f in errors(check_json("halving.cu", "-k", "group_sums<256>", "--no-prove"))}
    assert ("data-race", line_in("tested_library/group_sums.cuh", "the group's values")) in races
    assert check_json("halving.cu", "-k", "group_sums<32>", "--no-prove")["findings"] == []


@pytest.mark.parametrize("widest, races", [(256, True), (32, False)])
def test_a_launcher_of_a_library_tested_by_several_programs_gets_what_the_library_computes(tmp_path, widest,
                                                                                         races):
    """tests/sites/tested_library: kernels.cu's launcher takes its grid and block from
    groups.cpp, and two test programs define main (a Makefile's library and tests). The
    library is linked without a main: its launch is the one groups.cpp makes (one block, a
    halving of `widest` wide), so groups wider than a warp race (an error) and a library that
    halves from 32 makes no block where they do (clean)."""
    import shutil

    folder = tmp_path / "tested_library"
    shutil.copytree(SITES / "tested_library", folder)
    groups = folder / "groups.cpp"
    groups.write_text(groups.read_text().replace("int threads = 256;", f"int threads = {widest};"))
    (site,) = host_code(folder / "kernels.cu", CompileOptions())[0]
    assert site.grid == (["const", 1], ["const", 1], ["const", 1])
    assert dims(site, "block", [1000] * len(site.inputs)) == (widest, 256 // widest, 1)
    kernel = json.loads(simulee("check", folder / "kernels.cu", "-q", "--format", "json", "--no-prove").stdout)
    assert {(f["type"], f["severity"]) for f in kernel["kernels"][0]["findings"]} == (
        {("data-race", "error")} if races else set())


@pytest.mark.parametrize("sizes, races", [("128, 256, 512", False), ("128, 200, 512", True)])
def test_the_sizes_a_host_loops_over_from_a_braced_list_are_its_values(tmp_path, sizes, races):
    """size_list.cu: main runs a tiled copy for each size of a std::vector built from a
    braced list. n and the grid take each of the list's values (the host's, not searched):
    128, 256 and 512 make no race; a list holding 200 races there (an error: a host value)."""
    source = tmp_path / "size_list.cu"
    source.write_text((SITES / "size_list.cu").read_text().replace("{128, 256, 512}", "{" + sizes + "}"))
    (site,) = [s for s in host_code(source, CompileOptions())[0] if s.kernel.endswith("5tilesPfi")]
    n = site.args[1]
    assert n[0] == "input" and site.inputs[n[1]].choices == tuple(sorted(int(v) for v in sizes.split(", ")))
    checked = simulee("check", source, "-k", "tiles", "-q", "--format", "json", "--no-prove")
    kernel = json.loads(checked.stdout)["kernels"][0]
    assert {(f["type"], f["severity"]) for f in kernel["findings"]} == ({("data-race", "error")} if races else set())


def test_a_kernel_the_hosts_sizes_never_reach_is_not_checked_and_says_why():
    """size_list.cu's small_tiles is launched for sizes below 128, which its list never
    holds: no launch the host makes (not checked: exit status 2), and `-v` shows each
    generation made none."""
    checked = simulee("check", SITES / "size_list.cu", "-k", "small_tiles", "-v", "--no-prove")
    assert checked.returncode == 2, checked.stderr
    assert "not checked: no launch could be made: no launch at size_list.cu:" in checked.stdout
    assert "the host code does not launch it with those values" in checked.stdout
    assert "generation  1: no valid launch  no launch at" in checked.stdout


def test_a_library_whose_units_take_too_long_is_linked_from_those_compiled_in_time(tmp_path, monkeypatch):
    """tests/sites/tested_library within a scan's file time that its first unit spends: the
    source compiles, the library's other units are left out (the note says so; the whole
    file does not time out), and a library short of units is no program: the source's own
    launcher stands, its block shape an input (groups.cpp, which computes it, is left out)."""
    import shutil
    from simulee.frontend import hostprogram

    folder = tmp_path / "tested_library"
    shutil.copytree(SITES / "tested_library", folder)
    clock = iter(range(0, 100000, 100))  # each look at the clock is 100 s later
    monkeypatch.setattr(hostprogram, "_clock", lambda: next(clock))
    linked, note = hostprogram.program_ir(folder / "kernels.cu", CompileOptions(timeout=300))
    assert linked is None and "translation units left out: not compiled in time (groups.cpp" in note
    (site,) = host_code(folder / "kernels.cu", CompileOptions(timeout=300))[0]
    assert any(expression[0] == "input" for expression in site.block)


def test_a_program_whose_other_units_take_too_long_is_linked_from_main_and_the_source(tmp_path, monkeypatch):
    """tests/sites/program with a third unit main does not need, within a scan's file time
    that the source and main.cpp spend: that unit is left out (the note and program_note say
    so), and the rest is still a program: main's width reaches the launch as a constant
    through the constructor and the launcher, which the link makes internal to fold it."""
    import shutil
    from simulee.checker.sites import program_note
    from simulee.frontend import hostprogram

    folder = tmp_path / "program"
    shutil.copytree(SITES / "program", folder)
    (folder / "report.cpp").write_text('#include <cstdio>\nvoid report(int width) { printf("%d\\n", width); }\n')
    clock = iter(range(0, 100000, 100))  # each look at the clock is 100 s later
    monkeypatch.setattr(hostprogram, "_clock", lambda: next(clock))
    options = CompileOptions(timeout=300)
    linked, note = hostprogram.program_ir(folder / "layer.cu", options)
    assert linked is not None and "1 of its 3 translation units left out: not compiled in time (report.cpp)" in note
    assert program_note(folder / "layer.cu", options).startswith("its host program (")
    (site,) = host_code(folder / "layer.cu", options)[0]
    assert site.args[1] == ["const", 16]


@pytest.mark.parametrize("call, races", [("(data, data, size)", True), ("(data + size, data, size)", False)])
def test_an_in_place_call_its_launch_site_makes_is_the_hosts(tmp_path, call, races):
    """tests/sites/in_place.cu: the launcher passes one buffer as both pointers, so blocks
    write what other blocks read: an error (the site's alias, not one the search tried;
    every size the replays try shows it). Writing past the input instead: no race."""
    source = tmp_path / "in_place.cu"
    source.write_text((SITES / "in_place.cu").read_text().replace("(data, data, size)", call))
    result = simulee("check", source, "-q", "--format", "json")
    kernel = json.loads(result.stdout)["kernels"][0]
    expected = {("data-race", line_in("in_place.cu", "// the write"))} if races else set()
    assert {(f["type"], f["line"]) for f in errors(kernel)} == expected
    assert not [f for f in kernel["findings"] if "an in-place call" in f["message"]]


@pytest.mark.parametrize("with_makefile", [True, False])
def test_a_makefiles_link_rule_tells_a_sources_program(tmp_path, with_makefile):
    """tests/sites/made: a folder of two programs, as a Makefile builds them: `sums` from
    the objects of sums_main.cpp and sums.cu (pattern rules into obj/, names made with
    addprefix and patsubst), `scale` from its sources. By its link rule, sums.cu's program
    is main's in-place call: the blocks' race is an error. Without the Makefile the folder's
    two mains make sums.cu part of a library whose launcher's pointers are its caller's,
    unknown: no error."""
    import shutil
    from simulee.frontend import make

    folder = tmp_path / "made"
    shutil.copytree(SITES / "made", folder)
    if with_makefile:
        assert make.program_of(folder / "sums.cu") == [folder / "sums_main.cpp", folder / "sums.cu"]
        assert make.program_of(folder / "sums_main.cpp") == [folder / "sums_main.cpp", folder / "sums.cu"]
        assert make.program_of(folder / "scale.cu") == [folder / "scale.cu", folder / "scale_main.cpp"]
    else:
        (folder / "Makefile").unlink()
        assert make.program_of(folder / "sums.cu") is None
    result = simulee("check", folder / "sums.cu", "-q", "--format", "json", "-v")
    kernel = json.loads(result.stdout)["kernels"][0]
    expected = {("data-race", line_in("made/sums.cu", "// the write"))} if with_makefile else set()
    assert {(f["type"], f["line"]) for f in errors(kernel)} == expected
    assert ("sums.cu: launch sites read from its host program (a library" in result.stderr) != with_makefile


def test_a_makefile_above_the_source_with_substitutions_and_a_shared_library(tmp_path):
    """make.program_of on a Makefile one folder above the sources: `$(wildcard)`, a
    substitution reference, `+=`, `?=` and a continued line name the objects; a source two
    programs link (a library both use) belongs to no one program; a source no rule builds
    gets none."""
    from simulee.frontend import make

    (tmp_path / "src").mkdir()
    for name in ("src/a.cu", "src/b.cu", "main.cpp", "test.cpp", "common.cu", "unbuilt.cu"):
        (tmp_path / name).write_text("int x;\n")
    (tmp_path / "Makefile").write_text(
        "SOURCES := $(wildcard src/*.cu)\n"
        "OBJECTS = $(SOURCES:.cu=.o) \\\n    main.o\n"
        "OBJECTS += common.o\n"
        "OBJECTS ?= ignored.o\n"
        "app: $(OBJECTS) # the program\n\tnvcc $^ -o $@\n"
        "tests: test.o common.o\n\tnvcc $^ -o $@\n"
        "%.o: %.cu\n\tnvcc -c $< -o $@\n")
    program = [tmp_path / "src/a.cu", tmp_path / "src/b.cu", tmp_path / "main.cpp", tmp_path / "common.cu"]
    assert make.program_of(tmp_path / "src" / "b.cu") == program
    assert make.program_of(tmp_path / "test.cpp") == [tmp_path / "test.cpp", tmp_path / "common.cu"]
    assert make.program_of(tmp_path / "common.cu") is None  # linked into app and tests
    assert make.program_of(tmp_path / "unbuilt.cu") is None
    assert make.program_of(tmp_path / "src" / "a.cu", confine=(str(tmp_path / "src"),)) is None  # not above it
    (tmp_path / "src" / "Makefile").mkdir()  # not a file: the one above is read
    assert make.program_of(tmp_path / "src" / "b.cu") == program
    (tmp_path / "src" / "Makefile").rmdir()
    (tmp_path / "src" / "Makefile").write_bytes(b"a.o: a.cu\n")
    (tmp_path / "src" / "Makefile").chmod(0)  # unreadable, or linking nothing: the one above is read
    assert make.program_of(tmp_path / "src" / "b.cu") == program


def test_a_size_a_host_loop_carries_starts_at_what_the_loop_is_entered_with():
    """tests/sites/loop_carried.cu: `while (size > 1) size = reduce(data, size)` after
    `size = 1 << 16`: the launch's size is the loop's, which Simulee cannot evaluate past
    its first pass; the site's own launch is of that first value (256 blocks), and the
    in-place race between blocks is an error."""
    (site,) = host_code(SITES / "loop_carried.cu", CompileOptions())[0]
    assert [i.start for i in site.inputs if i.kind == "integer"] == [1 << 16]
    assert type(site).from_json(site.to_json()) == site  # as a scan's workers pass it
    kernel = check_json("loop_carried.cu")
    sites = {launch["args"]["size"] for launch in kernel["launches"]
             if launch["origin"].startswith("site ") and "searched" not in launch["origin"]}
    assert sites == {1 << 16}
    written = line_in("loop_carried.cu", "// the write")
    assert {(f["type"], f["line"]) for f in errors(kernel)} == {("data-race", written)}


def test_a_host_value_too_tangled_to_follow_is_read_in_time_as_an_input():
    """tests/sites/tangled.cu: 48 steps of a hash, each reading the last step three times,
    are an expression of 3^48 nodes as a tree; the site is read at once, `seed` through
    inputs that stand for the steps too large to follow, `n` and the shape as the host's."""
    (site,) = sites_of("tangled.cu")
    out, n, seed = site.args
    assert n == ["const", 1024] and site.grid[0] == ["const", 4] and site.block[0] == ["const", 256]
    assert seed[0] != "const" and any("too large an expression" in i.what for i in site.inputs)
    assert type(site).from_json(site.to_json()) == site
    kernel = check_json("tangled.cu")
    assert kernel["status"] != "not checked" and errors(kernel) == []


@pytest.mark.parametrize("in_place", [True, False])
def test_a_stride_a_host_loop_doubles_starts_where_the_loop_does(in_place):
    """tests/sites/doubling.cu: `for (stride = 1; stride < size; stride *= 2)` launches with
    the loop's strides; the site's own launch is of stride 1 (not padded past size as a row
    stride Simulee chose would be, which leaves nothing accessed). In place, the race
    between neighbours is an error; on two buffers the kernel is clean."""
    kernel = check_json("doubling.cu", *(["-D", "IN_PLACE"] if in_place else []))
    own = [launch for launch in kernel["launches"] if launch["origin"] == "site doubling.cu:10"]
    assert own and all(launch["args"]["stride"] == 1 for launch in own)
    written = line_in("doubling.cu", "// the write")
    assert {(f["type"], f["line"]) for f in errors(kernel)} == ({("data-race", written)} if in_place else set())
    assert not any(f["type"] == "vacuous" for f in kernel["findings"])


def test_a_grid_computed_from_a_dim3s_x_reads_the_same_value_as_the_block():
    """tests/sites/argv_reduce.cu: `dim3 grid((n - 1) / block.x + 1)` after `dim3 block(size,
    1)`: the grid's x is computed from the block's x input, so a launch Simulee makes never
    pairs a block of one size with the grid of another."""
    (site,) = sites_of("argv_reduce.cu")
    assert site.block[0][0] == "input"
    assert inputs_of(site.grid[0]) == {site.block[0][1]}
    assert evaluate(site.grid[0], [None] * site.block[0][1] + [256] + [1] * len(site.inputs)) == 16384


def test_a_block_size_from_the_programs_argument_is_replayed_at_the_next_power_of_two():
    """tests/sites/argv_reduce.cu: a tree reduction over slices of blockDim.x strays into the
    next block only off powers of two, and the block size is the program's argument. A
    witness at 852 threads is replayed at 896 (the next multiple of 128) and at 1,024, with
    the grid the host computes for each; the race is a warning naming `block`."""
    from evolve.space import ALIGNED, SearchSpace
    from simulee.checker.kernel import default_launch

    (site,) = sites_of("argv_reduce.cu")
    kernel = program(SITES / "argv_reduce.cu").kernel("neighbours")
    space = SearchSpace.of_sites(kernel, default_launch(kernel), {"n": ["branch"], "data": ["address"],
                                 "sums": ["address"]}, set(), [site])
    genome = space.initial(0)
    genome[next(i for i, gene in enumerate(space.genes) if gene.name == "block.x")] = 852
    launch = space.launch(genome)
    assert launch.block[0] == 852 and launch.grid[0] == ((1 << 22) - 1) // 852 + 1
    varied = [what for what, _ in space.variants(launch, ["gridDim.x", "blockDim.x"], joint=ALIGNED, alone=False)]
    assert varied == ["gridDim.x=4682, blockDim.x=896", "gridDim.x=4096, blockDim.x=1024"]
    kernel = check_json("argv_reduce.cu")
    summed = line_in("argv_reduce.cu", "// the sum")
    assert errors(kernel) == []
    (race,) = [f for f in kernel["findings"] if f["type"] == "data-race"]
    assert race["line"] == summed
    assert "only for values Simulee chose" in race["message"] and "`block`" in race["message"]


@pytest.mark.parametrize("synced", [False, True])
def test_a_race_a_guessed_block_shows_between_blocks_is_reported_as_the_hosts_block_shows_it(synced):
    """tests/sites/argv_tail.cu: a warp's tail without a barrier over each block's slice. A
    block of 32 threads (the program's argument) shows the tail racing with the next block;
    the host's own block sizes show it between lanes of the first warp. The errors are those
    warp-synchronous races (none once __syncwarp orders the lanes); what only the narrow block
    shows between blocks is a warning."""
    kernel = check_json("argv_tail.cu", *(["-D", "SYNCED"] if synced else []))
    tail = next(n for n, text in enumerate((SITES / "argv_tail.cu").read_text().splitlines(), 1)
                if "// the tail" in text and (n < line_in("argv_tail.cu", "#else")) == synced)
    assert {(f["type"], f["scope"], f["line"]) for f in errors(kernel)} == (set() if synced else
        {("warp-synchronous-race", "intra-warp", tail), ("warp-synchronous-race", "intra-warp", tail + 1)})
    between = [f for f in kernel["findings"] if f["scope"] == "inter-block"]
    assert between and all(f["severity"] == "warning" and "only for values Simulee chose" in f["message"]
                           for f in between)


def test_a_variant_run_on_sampled_blocks_tells_of_a_race_when_its_blocks_ran_whole():
    """A variant of a large grid runs on runs of its blocks: where each ran whole, a race it
    does not show is one it does not have (the witness, too, was found on such runs); where it
    stopped at its work or trace, it tells nothing."""
    from simulee.checker.kernel import PartialKeys, _shown_as, _tells
    from simulee.model.findings import Finding, Place

    ops = (("k", 10), ("k", 11))
    keys = PartialKeys()
    keys.reached = frozenset(ops)

    def race(first: int, second: int) -> Finding:
        return Finding("data-race", "error", "k", "", Place("write", "k.cu", 3, 1, (first, 0, 0), (0, 0, 0)),
                       Place("read", "k.cu", 3, 5, (second, 0, 0), (851, 0, 0)), ops=ops)

    assert _tells(keys, race(1, 0)) and _tells(keys, race(5001, 5000))
    keys.reached = frozenset(ops[:1])  # its threads never got to the read
    assert not _tells(keys, race(1, 0))
    stopped = PartialKeys()
    stopped.reached, stopped.whole = frozenset(ops), False
    assert not _tells(stopped, race(1, 0))
    shown = PartialKeys([_shown_as(race(1, 0))])
    shown.whole = False  # what a run stopped early showed, it has
    assert _tells(shown, race(1, 0))


def test_a_library_one_of_whose_units_does_not_compile_is_no_program(tmp_path):
    """tests/sites/tested_library with groups.cpp broken: the rest of the library would hide
    the calls a scan reads, so there is no program and kernels.cu's own launcher stands."""
    import shutil
    from simulee.frontend import hostprogram

    folder = tmp_path / "tested_library"
    shutil.copytree(SITES / "tested_library", folder)
    (folder / "groups.cpp").write_text((folder / "groups.cpp").read_text() + "\nthis does not compile\n")
    linked, note = hostprogram.program_ir(folder / "kernels.cu", CompileOptions())
    assert linked is None and note == "some files of its library do not compile"
    (site,) = host_code(folder / "kernels.cu", CompileOptions())[0]
    assert any(expression[0] == "input" for expression in site.block)


@pytest.mark.parametrize("kernel, faults", [("scale", True), ("scale_checked", False), ("rows", True),
                                            ("rows_fitting", False)])
def test_a_buffer_is_as_large_as_the_host_allocates_it(kernel, faults):
    """allocated.cu: n floats from cudaMalloc in a local, and 32 rows in a global pointer:
    the launch's buffer is that large, so ceil(n / 256) blocks without a bounds check, and 40
    rows into 32, write past its end (an error); with the check, or 32 rows, nothing does (a
    buffer of no known size grows to whatever the kernel touches)."""
    checked = check_json("allocated.cu", "-k", kernel, "--no-prove")
    line = line_in("allocated.cu", "no bounds check" if kernel == "scale" else "a row per block")
    assert {(f["type"], f["severity"], f["line"]) for f in checked["findings"]} == (
        {("out-of-bounds", "error", line)} if faults else set())
    (site,) = [s for s in sites_of("allocated.cu") if s.kernel.endswith(f"{len(kernel)}{kernel}Pf") or
               s.kernel.endswith(f"{len(kernel)}{kernel}Pfi")]
    assert [size for size in site.sizes if size is not None] == [["const", 4000 if "scale" in kernel else 32768]]


def test_a_race_on_sizes_simulee_chose_is_a_warning_naming_them_one_every_value_shows_an_error():
    """A site passing a dim and an area from different members: a race that needs the area
    smaller than dim * dim (and a plane a 64-thread block covers) rests on Simulee's guess,
    and other values of them do not show it; when the host derives the area from the dim
    itself and the kernel fills the whole plane, the planes meet whatever dim is."""
    line = line_in("layers.cu", "plane b starts area apart")
    guessed, computed = (check_json("layers.cu", "-k", kernel) for kernel in ("planes", "planes_short"))
    (race,) = [f for f in guessed["findings"] if f["type"] == "data-race"]
    assert race["severity"] == "warning" and race["line"] == line
    assert "only for values Simulee chose (dim=" in race["message"] and "area=" in race["message"]
    # it names what the host passes for them, as the launch writes it
    assert "dim from `l->dim` at layers.cu:" in race["message"]
    assert "area from `l->out->rows * l->out->cols` at layers.cu:" in race["message"]
    assert [(f["type"], f["line"]) for f in errors(computed)] == [
        ("data-race", line_in("layers.cu", "the whole plane b, area apart"))]


def test_a_race_only_sizes_off_a_multiple_show_is_a_warning_one_every_size_shows_an_error():
    """staged_rows.cu: a launcher passes n as it gets it. The weights' and the row's shared
    regions meet only when n is no multiple of 4 (llm.c's layernorm: the host's channels
    are a multiple of 64), so the race rests on the n Simulee chose: a warning naming n and
    a multiple of 128 it does not show with. A row starting one vector early meets the
    weights for every n: an error."""
    line = line_in("staged_rows.cu", "staged[i] = weights[i]")
    off, every = (check_json("staged_rows.cu", "-k", f"stage_rows<{early}>", "--no-prove")
                  for early in ("false", "true"))
    (race,) = off["findings"]
    assert (race["type"], race["severity"], race["line"]) == ("warp-synchronous-race", "warning", line)
    assert "only for values Simulee chose (n=" in race["message"]
    assert int(re.search(r"not with n=(\d+)", race["message"]).group(1)) % 128 == 0
    assert [(f["type"], f["line"]) for f in errors(every)] == [("warp-synchronous-race", line)]


def test_a_size_struct_the_host_passes_whole_is_varied_member_by_member():
    """A struct of two ints from a function Simulee cannot read reaches the launcher as one
    64-bit value: replays change both members (not the packed value, whose grid would be
    no launch), so a race every size shows is an error and one only d.cols == 33 shows is a
    warning naming the member it needs and a size it does not show with."""
    every, one = (check_json("matrix_dim.cu", "-k", kernel)["findings"] for kernel in ("pairs", "pair_at"))
    line = line_in("matrix_dim.cu", "two threads per element")
    assert [(f["type"], f["severity"], f["line"]) for f in every] == [("data-race", "error", line)]
    (doubted,) = one
    assert doubted["type"] == "data-race" and doubted["severity"] == "warning"
    assert "only for values Simulee chose" in doubted["message"] and "d.cols=34" in doubted["message"]
    assert "d.cols=33" in doubted["message"].partition("not with")[0]  # the member it needs, not the grid alone


def test_a_three_int_size_struct_is_searched_and_varied_member_by_member():
    """kaldi's MatrixDim (rows, cols, stride) from a function Simulee cannot read: rows and
    cols travel in one 64-bit value, stride in another. A race no size avoids (a warp step
    reading a lane's write of the step before) is an error; rows that overlap only when the
    stride is below cols are never made: the stride Simulee picks stays rows apart."""
    every, one = (check_json("row_dim.cu", "-k", kernel) for kernel in ("row_sum", "row_copy"))
    assert {(f["severity"], f["line"]) for f in every["findings"]} == {
        ("error", line_in("row_dim.cu", "no __syncwarp before")), ("error", line_in("row_dim.cu", "s[tid + k]"))}
    assert one["findings"] == [] and one["launches"]
    assert all(launch["args"]["d.stride"] >= launch["args"]["d.cols"] for launch in one["launches"])


def test_a_loop_over_a_constant_table_of_block_sizes_launches_each_and_no_other():
    """llm.c's benchmarks launch with each block size of a constant table: those are the
    host's values (given, not open), every launch checked is one of them with the grid the
    host computes from it, and the race two warps make is an error that names no guess;
    the kernel with its barrier is clean."""
    (site,) = [s for s in sites_of("block_table.cu") if s.kernel == "_Z9block_maxPKfPf"]
    assert [i.choices for i in site.inputs if i.choices] == [(32, 64, 128)]
    racy, synced = (check_json("block_table.cu", "-k", kernel) for kernel in ("block_max", "block_max_synced"))
    (host,) = racy["search"]["host"]
    assert host["given"]["blockDim.x"] == "32|64|128" and host["open"] == []
    launches = [(launch["grid"][0], launch["block"][0]) for launch in racy["launches"] if launch["origin"] != "default"]
    assert launches and all(block in (32, 64, 128) and grid * block == 4096 for grid, block in launches)
    (race,) = racy["findings"]
    assert (race["type"], race["severity"], race["line"]) == (
        "data-race", "error", line_in("block_table.cu", "warp 0 reads it with no barrier"))
    assert "Simulee chose" not in race["message"]
    assert errors(synced) == []


def test_a_grid_sized_from_the_devices_properties_is_the_hosts_on_the_model_device():
    """tests/sites/device_fill.cu: cudaGetDeviceProperties answers as simulee exec's V100
    (80 multiprocessors of 2,048 threads), stored in globals at start-up: the grid is the
    host's 640 (the globals hold 0 or what setup() stored), the rows 32 blocks apart race
    (an error naming no guess), and the grid-stride loop is clean."""
    (site,) = [s for s in sites_of("device_fill.cu") if "fill_rows" in s.kernel]
    assert site.grid[0] == ["const", 640]
    rows, strided = (check_json("device_fill.cu", "-k", kernel) for kernel in ("fill_rows", "fill"))
    assert {tuple(launch["grid"]) for launch in rows["launches"]} == {(640, 1, 1)}
    (race,) = rows["findings"]
    assert (race["type"], race["severity"]) == ("data-race", "error") and "Simulee chose" not in race["message"]
    assert errors(strided) == []


def test_a_pointer_the_site_passes_null_is_null():
    """NULL and a stride of 0 for an output the host does not want: the kernel skips it,
    so no row of it is written twice; a buffer with a stride of 0 is a race."""
    clean, flat = (check_json("optional_output.cu", "-k", kernel) for kernel in ("rows_out", "rows_out_flat"))
    assert errors(clean) == [] and all(launch["args"]["extra"] == 0 for launch in clean["launches"])
    assert {(f["type"], f["line"]) for f in errors(flat)} == {
        ("data-race", line_in("optional_output.cu", "every row at one place"))}


def test_a_launch_guarded_by_a_conjunction_needs_its_pointer_part():
    """tests/sites/guarded_null.cu (llm.c's matmul_backward): `if (fused < 2 && pre)`, where
    `fused` is read by nothing the launch passes. The pointer part still holds for the
    launch, so the callers' default NULL never reaches `scale_by`; `scale_all`, launched with
    it unguarded, reads through NULL (an error). Both callers' NULL are folded the same way."""
    guarded, unguarded = (check_json("guarded_null.cu", "-k", kernel) for kernel in ("scale_by", "scale_all"))
    assert guarded["launches"] and errors(guarded) == []
    passing = line_in("guarded_null.cu", "saved[layer], fusion[layer]")
    assert {launch["origin"].split()[1].split(" ")[0] for launch in guarded["launches"]} == {
        f"guarded_null.cu:{passing}"} and all("pre" not in launch["args"] for launch in guarded["launches"])
    assert {(f["type"], f["line"]) for f in errors(unguarded)} == {
        ("null-pointer", line_in("guarded_null.cu", "NULL for most callers"))}
    defaulted = line_in("guarded_null.cu", "backward(d, bias, n);")
    conditions = {s.callers: s.conditions for s in sites_of("guarded_null.cu") if "scale_by" in s.kernel}
    assert conditions[(f"guarded_null.cu:{defaulted}",)] == (["const", 0],)


@pytest.mark.parametrize("form", [
    ["and", 1, ["input", 0], ["and", 1, ["input", 1], ["input", 2]]],
    ["select", 1, ["input", 0], ["input", 1], ["const", 0]],  # a && b as -O1 writes it when b may be poison
    ["or", 1, ["input", 0], ["input", 1]],
    ["select", 1, ["input", 0], ["const", 1], ["input", 2]],  # a || b
    ["icmp", 32, "eq", ["input", 0], ["input", 1]]])
@pytest.mark.parametrize("holds", [True, False])
def test_the_parts_of_a_guard_hold_together_exactly_when_it_does(form, holds):
    """A branch edge's condition split into parts (sites._conjuncts), each of which a
    launch behind it needs: all of them hold exactly when the edge is taken, for every
    value of the 1-bit inputs."""
    import itertools

    from simulee.checker.sites import _conjuncts

    parts = _conjuncts(form, holds)
    for values in itertools.product((0, 1), repeat=3):
        assert all(evaluate(part, list(values)) for part in parts) == (evaluate(form, list(values)) == holds)
    split = form[0] == "and" and holds or form[0] == "or" and not holds or form[0] == "select" and (
        holds == (form[4] == ["const", 0]))
    assert len(parts) > 1 if split else parts == [form if holds else ["xor", 1, form, ["const", 1]]]


def test_a_stride_the_site_does_not_pass_stays_rows_apart_as_sizes_grow():
    """tests/sites/dim_struct.cu (kaldi's MatrixDim): the host builds {rows, cols, stride}
    from its matrix's fields, so the stride is a struct member the site does not pass and
    Simulee picks. It stays at least twice the launch's widest size as the search grows
    rows and cols (it was left at the default launch's 64 while rows reached 502, and
    rows overlapped: a false race). Copying a triangle is clean; transposing in place races."""
    triangle, transpose = (check_json("dim_struct.cu", "-k", kernel)
                           for kernel in ("copy_low_upp", "transpose_in_place"))
    assert errors(triangle) == [] and triangle["launches"]
    assert all(launch["args"]["d.stride"] >= 2 * max(launch["args"]["d.rows"], launch["args"]["d.cols"])
               for launch in triangle["launches"])
    assert {(f["type"], f["line"]) for f in errors(transpose)} == {
        ("data-race", line_in("dim_struct.cu", "thread (j, i) writes what this reads"))}


@pytest.mark.parametrize("command", ["scan", "check"])
@pytest.mark.parametrize("blocks", [1, 4])
def test_a_wrapper_two_folders_define_takes_the_calls_of_its_own_folder(command, blocks, tmp_path: Path):
    """tests/sites/folders: own/ and other/ each define `launch(int *, int, int)`, with the
    blocks and threads in opposite order; own/ has two mains, so own/stamp.cu's launch is
    read from the repository's calls of `launch`. other/main.cpp's call (256, 1) is of its
    own wrapper, never 256 one-thread blocks of stamp (a false race); own/main.cpp's call
    of one block is clean, and of four blocks, which all write out[threadIdx.x], a race."""
    import shutil

    folder = tmp_path / "folders"
    shutil.copytree(SITES / "folders", folder)
    main = folder / "own" / "main.cpp"
    main.write_text(main.read_text().replace("#define BLOCKS 1", f"#define BLOCKS {blocks}"))
    if command == "scan":
        out = tmp_path / "out"
        result = simulee("scan", folder, "-o", out, "--jobs", "1", "-q")
        records = [json.loads(line) for line in (out / "scan.jsonl").read_text().splitlines()]
        stamp = next(r["check"] for r in records if r["record"] == "kernel" and r["check"]["kernel"] == "stamp")
    else:
        result = simulee("check", folder, "-q", "--format", "json")
        stamp = next(c for c in json.loads(result.stdout)["kernels"] if c["kernel"] == "stamp")
    assert result.returncode == (1 if blocks > 1 else 0), result.stderr
    assert {tuple(launch["grid"]) for launch in stamp["launches"] if launch["origin"].startswith("site")} == \
        {(blocks, 1, 1)}
    written = line_in("folders/own/stamp.cu", "// the write")
    assert {(f["type"], f["line"]) for f in errors(stamp)} == ({("data-race", written)} if blocks > 1 else set())


def test_a_block_axis_the_kernel_ignores_is_proved_as_long_as_the_host_launches_it():
    """tests/sites/rows_ignored.cu: the host's blocks are 16 x 2 and neither kernel reads
    threadIdx.y. The prover takes the host's launch, not one row: `tally`'s rows meet at
    out[threadIdx.x] (not proved; the race an error), `idle` touches no memory (proved)."""
    tally, idle = (check_json("rows_ignored.cu", "-k", kernel) for kernel in ("tally", "idle"))
    assert tally["proof"]["verdict"] != "proved"
    meet = line_in("rows_ignored.cu", "// the rows meet")
    assert {(f["type"], f["line"]) for f in errors(tally)} == {("data-race", meet)}
    assert idle["proof"]["verdict"] == "proved" and errors(idle) == []


@pytest.mark.parametrize("ping_pong", [False, True])
def test_a_count_a_host_loop_carries_starts_at_what_a_caller_passes(ping_pong):
    """tests/sites/entered: reduce_all's loop carries `size` from its parameter, which main.cpp
    passes (1 << 16) through a function pointer; the folder has two mains, so the launch is
    read through the calls of reduce_all. The count starts at 1 << 16, the host's launch of
    256 blocks; in place, block b's write of out[b] races with block 0's read of it, an error;
    with a second buffer, nothing."""
    from simulee.checker.sites import host_calls, through

    (site,) = sites_of("entered/reduce.cu")
    (count,) = [i for i in site.inputs if i.entered]
    assert count.start is None and count.entered[1] == 3 and type(site).from_json(site.to_json()) == site
    (call,), problem = host_calls(SITES / "entered" / "main.cpp", CompileOptions(), {count.entered[0]})
    assert 1 << 16 in {i.start for i in through(site, call).inputs}
    kernel = check_json("entered", *(["-D", "PING_PONG"] if ping_pong else []))
    hosts = [launch for launch in kernel["launches"] if "searched" not in launch["origin"]]
    assert hosts and all(launch["args"]["size"] == 1 << 16 and launch["grid"][0] == 256 for launch in hosts)
    written = line_in("entered/reduce.cu", "// the write")
    assert {(f["type"], f["line"]) for f in errors(kernel)} == (set() if ping_pong else {("data-race", written)})


@pytest.mark.parametrize("command", ["scan", "check"])
@pytest.mark.parametrize("small_launches", [True, False])
def test_a_kernel_takes_the_launches_of_its_own_program_not_of_a_same_named_kernel(command, small_launches,
                                                                                     tmp_path: Path):
    """small.cu and large.cu each define and launch their own shift: small's with the
    dynamic shared memory its padded tile needs, large's with none (its tile is static);
    small's under large's launch would write past its tile. Where small.cu's host code
    launches nothing, its shift still does not take large's launch: it has none."""
    import shutil

    folder = tmp_path / "twins"
    shutil.copytree(SITES / "twins", folder)
    if not small_launches:
        small = folder / "small.cu"
        small.write_text(small.read_text().split("void shift_all")[0])
    if command == "scan":
        out = tmp_path / "out"
        result = simulee("scan", folder, "-o", out, "--jobs", "1", "-q")
        records = [json.loads(line) for line in (out / "scan.jsonl").read_text().splitlines()]
        checks = {r["check"]["file"]: r["check"] for r in records if r["record"] == "kernel"}
    else:
        result = simulee("check", folder, "-q", "--format", "json")
        checks = {Path(c["file"]).name: c for c in json.loads(result.stdout)["kernels"]}
    assert result.returncode == 0, result.stderr
    for file in ("small.cu", "large.cu") if small_launches else ("large.cu",):
        assert {launch["origin"].split(",")[0] for launch in checks[file]["launches"]} == \
            {f"site {file}:{line_in('twins/' + file, 'shift<<<')}"}
    if not small_launches:
        assert not any(launch["origin"].startswith("site") for launch in checks["small.cu"]["launches"])
    for file in ("small.cu", "large.cu"):
        assert [f for f in checks[file]["findings"] if f["severity"] == "error"] == []


def test_a_launch_spaced_as_nvcc_accepts_is_a_launch_site():
    source = TESTS / "programs" / "oldstyle" / "main.cu"  # doubled << < (n + 63) / 64, 64 >> > (device, n)
    result = simulee("check", source, "-q", "--format", "json", "-D", "SHIFTED")
    assert result.returncode == 1 and "host code left out" not in result.stderr, result.stderr
    (race,) = json.loads(result.stdout)["kernels"][0]["findings"]
    launch = next(n for n, text in enumerate(source.read_text().splitlines(), 1) if "doubled << <" in text)
    assert race["launch"]["origin"] == f"site main.cu:{launch}" and race["launch"]["grid"] == [2, 1, 1]


def test_a_barrier_redundant_in_one_instance_is_not_covered_while_another_could_not_be_checked():
    def barriers(*options) -> tuple[list, list]:
        result = simulee("check", SITES / "instances.cu", "-q", "--format", "json", *options)
        assert result.returncode in (0, 2), result.stderr  # 2: a kernel could not be checked
        kernels = json.loads(result.stdout)["kernels"]
        found = [f["type"] for k in kernels for f in k["findings"]]
        return {k["kernel"]: k["barriers"] for k in kernels}, found

    (narrow,), found = barriers("-DNARROW_ONLY")
    assert found == ["redundant-barrier"]  # shift<32> alone: each thread reads its own slot
    both, found = barriers()
    (narrow,), (wide,) = both["shift<32>"], both["shift<2048>"]
    assert "redundant-barrier" not in found  # shift<2048> reads its neighbour's slot: it may need it
    assert (narrow["verdict"], narrow["kernel_verdict"]) == ("not-covered", "redundant")
    assert narrow["reason"] == "not judged in shift<2048>: not checked: no launch could be made"
    assert (wide["verdict"], wide["reason"]) == ("not-covered", "not checked: no launch could be made")


@pytest.mark.parametrize("width, races", [(16, False), (8, True)])
def test_a_width_main_passes_through_a_constructor_in_another_file_is_the_hosts(tmp_path, width, races):
    """tests/sites/program: main.cpp constructs a Net of a width, which the launcher in
    layer.cu passes to the kernel from the struct it stored it in. Linked as one program, the
    launch passes main's width: 16, rows never overlap (no race, and width is not searched);
    8, they do (an error: the host's value, not a guess)."""
    import shutil

    folder = tmp_path / "program"
    shutil.copytree(SITES / "program", folder)
    main = folder / "main.cpp"
    main.write_text(main.read_text().replace("Net net(16)", f"Net net({width})"))
    sites, *_ = host_code(folder / "layer.cu", CompileOptions())
    (site,) = sites
    assert site.args[1] == ["const", width]
    result = simulee("check", folder / "layer.cu", "-q", "--format", "json", "-v")
    kernel = json.loads(result.stdout)["kernels"][0]
    assert "width" not in kernel["search"]["genes"]
    assert {(f["type"], f["line"]) for f in errors(kernel)} == (
        {("data-race", line_in("program/layer.cu", "// the update"))} if races else set())


@pytest.mark.parametrize("rows_of, severity", [("row + 1", "warning"), ("row / 2 + 1", "error")])
def test_a_width_the_host_reads_at_run_time_makes_a_warning_naming_it_unless_every_width_races(
        tmp_path, rows_of, severity):
    """tests/sites/program with main's width read from the command line: Simulee cannot
    evaluate it and searches it. Rows overlap only for widths below 15: the race is a warning
    that names the width Simulee chose, another it does not show with, and what the launch
    passes (`width`, the member the constructor stored). Two rows at one place (row / 2)
    race whatever the width: an error."""
    import shutil

    folder = tmp_path / "program"
    shutil.copytree(SITES / "program", folder)
    main, layer = folder / "main.cpp", folder / "layer.cu"
    main.write_text(main.read_text().replace("Net net(16)", "Net net(atoi(argv[2]))"))
    layer.write_text(layer.read_text().replace("(width + 1) * (row + 1)", f"(width + 1) * ({rows_of})"))
    kernel = json.loads(simulee("check", layer, "-q", "--format", "json").stdout)["kernels"][0]
    # rows 2k and 2k + 1 of one warp meet: a race in either form (warp-synchronous at the second read)
    assert kernel["findings"] and {(SAME_BUG.get(f["type"], f["type"]), f["severity"], f["line"])
                                   for f in kernel["findings"]} == {
        ("data-race", severity, line_in("program/layer.cu", "// the update"))}
    race = kernel["findings"][0]
    if severity == "warning":
        assert "only for values Simulee chose (width=" in race["message"], race["message"]
        assert ", not with width=" in race["message"]
        assert "the host passes width from `width` at layer.cu:" in race["message"]


def test_a_width_a_c_main_passes_is_the_hosts():
    """tests/sites/cprogram: main.c (K&R C, compiled as C) passes twice(8) to a launcher in
    launcher.cu: the program's launch passes 16, a constant, and the kernel is clean."""
    sites, *_ = host_code(SITES / "cprogram" / "launcher.cu", CompileOptions())
    (site,) = sites
    assert site.args[1] == ["const", 16]
    assert errors(check_json("cprogram/launcher.cu")) == []


def _cmake_build(folder: Path, width: int) -> Path:
    """tests/sites/cmake_program copied to `folder` with the compilation database CMake
    would write for it: target app (app/main.cpp, kernels/layer.cu, -DWIDTH=`width`) and
    target narrow (tools/narrow.cpp, a main of its own); its path."""
    import shutil

    shutil.copytree(SITES / "cmake_program", folder)
    build = folder / "build"
    build.mkdir()
    units = [("app", "app/main.cpp", "g++"), ("app", "kernels/layer.cu", "nvcc"), ("narrow", "tools/narrow.cpp", "g++")]
    database = [{"directory": str(build), "file": str(folder / file),
                 "arguments": [compiler, f"-I{folder / 'include'}", f"-DWIDTH={width}", "-O2", "-o",
                               f"CMakeFiles/{target}.dir/{file}.o", "-c", str(folder / file)]}
                for target, file, compiler in units]
    (build / "compile_commands.json").write_text(json.dumps(database))
    return build / "compile_commands.json"


@pytest.mark.parametrize("width, races", [(16, False), (8, True)])
def test_a_width_the_build_gives_main_in_another_folder_is_the_hosts(tmp_path, width, races):
    """tests/sites/cmake_program: the launcher is in kernels/, main in app/ with the width
    its build target defines (-DWIDTH), another target's main in tools/ passes 4. By the
    compilation database, the launcher's program is its target's: main.cpp's width is what
    the launch passes, so 16 is clean (width not searched) and 8 races (an error). `scan`
    finds the database in build/ by itself."""
    database = _cmake_build(tmp_path / "net", width)
    layer = tmp_path / "net" / "kernels" / "layer.cu"
    sites, *_ = host_code(layer, CompileOptions(compile_commands=str(database)))
    (site,) = sites
    assert site.args[1] == ["const", width]
    result = simulee("check", layer, "-q", "--format", "json", "-v", "--compile-commands", database)
    assert "layer.cu: launch sites read from its host program" in result.stderr
    kernel = json.loads(result.stdout)["kernels"][0]
    assert {launch["args"]["width"] for launch in kernel["launches"]} == {width}
    assert "width" not in kernel.get("search", {}).get("genes", ())
    expected = {("data-race", line_in("cmake_program/kernels/layer.cu", "// the update"))} if races else set()
    assert {(f["type"], f["line"]) for f in errors(kernel)} == expected
    scanned = simulee("scan", tmp_path / "net", "-q", "--jobs", "1", "-o", tmp_path / "out")
    assert scanned.returncode in (0, 1), scanned.stderr
    rows = list(csv.DictReader((tmp_path / "out" / "bugs.csv").open()))
    assert {(row["type"], int(row["line"])) for row in rows if row["severity"] == "error"} == expected
    (layer_row,) = [row for row in csv.DictReader((tmp_path / "out" / "files.csv").open())
                    if row["file"] == "kernels/layer.cu"]
    assert layer_row["host"] == "its host program"


CMAKE_LISTS = """\
cmake_minimum_required(VERSION 3.18)
project(net LANGUAGES CXX CUDA)  # read, never run
set(LAYER_SOURCES kernels/layer.cu)
add_library(layers STATIC ${LAYER_SOURCES})
target_include_directories(layers PUBLIC ${CMAKE_CURRENT_SOURCE_DIR}/include)
add_subdirectory(app)
add_executable(narrow tools/narrow.cpp)
target_link_libraries(narrow PRIVATE layers)
"""


def test_a_cmake_listing_is_read_for_its_targets_sources_and_flags(tmp_path):
    """FindCUDA's cuda_add_executable with OPTIONS, sources through set, list(APPEND),
    file(GLOB), aux_source_directory (appended; no headers) and quoted words, comments, an
    if's arms run in order (the last set wins), folder-wide macros and include folders: each
    target's sources and flags."""
    from simulee.frontend import cmake

    for name in ("a.cu", "b.cu", "main.cpp", "win.cpp", "src/x.cu", "src/y.cu", "lib/k.cu", "lib/k.cuh", "lib/z.cpp"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text("")
    (tmp_path / "CMakeLists.txt").write_text("""\
set(cuda_sources a.cu  # the kernels
  "b.cu")
list(APPEND cuda_sources ${EXTRA})  # EXTRA is never set: nothing
file(GLOB more src/*.cu)
aux_source_directory(${PROJECT_SOURCE_DIR}/lib more)
add_definitions(-DVERBOSE)
include_directories(${CMAKE_CURRENT_SOURCE_DIR}/src)
if (WIN32)
  set(platform win.cpp)
else()
  set(platform main.cpp)
endif()
cuda_add_executable(app ${cuda_sources} ${more} ${platform} OPTIONS -arch=sm_35 extra.cu)
#[[ add_executable(gone a.cu) ]]
""")
    (app,) = cmake.targets(tmp_path).values()
    assert app.executable and [p.relative_to(tmp_path).as_posix() for p in app.sources] == [
        "a.cu", "b.cu", "src/x.cu", "src/y.cu", "lib/k.cu", "lib/z.cpp", "main.cpp"]
    assert cmake.flags_of(tmp_path / "src" / "x.cu", None) == ((str(tmp_path / "src"),), ("VERBOSE",))
    assert cmake.program_of(tmp_path / "a.cu", tmp_path) == app.sources
    assert cmake.program_of(tmp_path / "win.cpp", tmp_path) is None
    # one source in two targets, one of them built with RACY=1: only what both give
    listing = (tmp_path / "CMakeLists.txt").read_text()
    (tmp_path / "CMakeLists.txt").write_text(listing + "add_executable(twin a.cu)\n"
                                             "target_compile_definitions(twin PRIVATE RACY=1)\n")
    assert "twin" in cmake.targets(tmp_path)
    assert cmake.flags_of(tmp_path / "a.cu", None) == ((str(tmp_path / "src"),), ("VERBOSE",))


@pytest.mark.parametrize("width, races", [(16, False), (8, True)])
def test_a_width_main_passes_by_the_cmake_lists_target_that_links_the_kernels_is_the_hosts(tmp_path, width, races):
    """tests/sites/cmake_program with no compilation database but its CMakeLists.txt: the
    executable `app` (declared in app/CMakeLists.txt, WIDTH its compile definition) links
    the library holding the launcher, so main.cpp's width is what the launch passes: 16
    clean, 8 an error; the include folder is the library's. Without the listing's target
    the width is searched (the test below)."""
    _cmake_build(tmp_path / "net", width)
    (tmp_path / "net" / "build" / "compile_commands.json").unlink()
    (tmp_path / "net" / "CMakeLists.txt").write_text(CMAKE_LISTS)
    (tmp_path / "net" / "app" / "CMakeLists.txt").write_text(
        f"add_executable(app main.cpp)\ntarget_compile_definitions(app PRIVATE WIDTH={width})\n"
        "target_link_libraries(app PRIVATE layers)\n")
    layer = tmp_path / "net" / "kernels" / "layer.cu"
    (site,) = host_code(layer, CompileOptions())[0]
    assert site.args[1] == ["const", width]
    kernel = json.loads(simulee("check", layer, "-q", "--format", "json").stdout)["kernels"][0]
    assert {launch["args"]["width"] for launch in kernel["launches"]} == {width}
    expected = {("data-race", line_in("cmake_program/kernels/layer.cu", "// the update"))} if races else set()
    assert {(f["type"], f["line"]) for f in errors(kernel)} == expected


def test_a_width_from_a_main_simulee_cannot_find_is_a_warning_naming_it(tmp_path):
    """The same launcher with no compilation database: its folder holds no main, the width
    is searched, and the race that only widths below 15 make is a warning naming it."""
    _cmake_build(tmp_path / "net", 16)
    (tmp_path / "net" / "build" / "compile_commands.json").unlink()
    layer = tmp_path / "net" / "kernels" / "layer.cu"
    kernel = json.loads(simulee("check", layer, "-q", "--format", "json", "-I", tmp_path / "net" / "include")
                        .stdout)["kernels"][0]
    assert {(f["type"], f["severity"]) for f in kernel["findings"]} == {("data-race", "warning")}
    assert "only for values Simulee chose (width=" in kernel["findings"][0]["message"]


def test_a_race_only_rows_a_kernel_ignores_make_is_a_warning_unless_the_user_states_them():
    """tests/sites/one_row.cu, no host code: the race two rows of a searched block make at
    an address that ignores threadIdx.y is a warning naming blockDim.y; with a 2-D block
    stated it is an error; a race one row shows too is an error."""
    row = check_json("one_row.cu", "-k", "scale_row")
    assert row["findings"] and {(f["type"], f["severity"]) for f in row["findings"]} == {("data-race", "warning")}
    assert "only when blockDim.y > 1, on a launch Simulee chose" in row["findings"][0]["message"]
    assert "no address of the kernel depends on threadIdx.y" in row["findings"][0]["message"]
    stated = check_json("one_row.cu", "-k", "scale_row", "--block", "64,2,1")
    assert {(f["type"], f["line"]) for f in errors(stated)} == {("data-race", line_in("one_row.cu", "by x alone"))}
    every = check_json("one_row.cu", "-k", "sum_all")
    assert {(f["type"], f["line"]) for f in errors(every)} == {("data-race", line_in("one_row.cu", "at one place"))}


def test_a_race_only_blocks_wider_than_a_row_stride_make_is_a_warning_unless_the_user_states_them():
    """tests/sites/row_stride.cu, no host code: rows of 256 (a #define) and chunks of 128 a
    loop steps by collide only in blocks wider than the stride (a warning naming it); a
    neighbour's slot races within any row (an error); a stated launch wider than the stride
    is the user's (an error), one within it is clean."""
    kernels = {k["kernel"]: k for k in json.loads(simulee("check", SITES / "row_stride.cu", "-q", "--format",
                                                          "json").stdout)["kernels"]}
    for name, width, marker in (("scale_rows", 256, "by row"), ("chunks", 128, "by chunk")):
        findings = kernels[name]["findings"]
        assert findings and {(f["type"], f["severity"], f["line"]) for f in findings} == {
            ("data-race", "warning", line_in("row_stride.cu", marker))}, name
        assert f"only when blockDim.x > {width}, on a launch Simulee chose: the addresses step by {width} at line " \
            f"{line_in('row_stride.cu', marker)}" in findings[0]["message"]
    assert {(f["type"], f["line"]) for f in errors(kernels["shift_rows"])} == {
        ("data-race", line_in("row_stride.cu", "a neighbour's slot"))}
    wide = check_json("row_stride.cu", "-k", "scale_rows", "--block", "512", "--grid", "4")
    assert {(f["type"], f["line"]) for f in errors(wide)} == {("data-race", line_in("row_stride.cu", "by row"))}
    assert check_json("row_stride.cu", "-k", "scale_rows", "--block", "256", "--grid", "4")["findings"] == []


def test_a_race_between_the_warps_of_a_kernel_that_syncs_warps_alone_is_a_warning_unless_the_user_states_them():
    """tests/sites/warp_only.cu, no host code: a kernel whose only barrier is __syncwarp is
    written for one warp per block, so a race only two warps make is a warning naming that;
    a race within one warp, or between warps where the kernel has __syncthreads, is an
    error; a stated block of two warps is the user's (an error), one warp is clean."""
    kernels = {k["kernel"]: k for k in json.loads(simulee("check", SITES / "warp_only.cu", "-q", "--format",
                                                          "json").stdout)["kernels"]}
    findings = kernels["warp_sum"]["findings"]
    assert findings and {(f["type"], f["severity"], f["line"]) for f in findings} == {
        ("data-race", "warning", line_in("warp_only.cu", "the warp's tail"))}
    assert "only when a block has more than 32 threads, on a launch Simulee chose: the kernel synchronizes with " \
        "__syncwarp alone" in findings[0]["message"]
    assert {(f["type"], f["line"]) for f in errors(kernels["warp_sum_unsynchronized"])} == {
        ("data-race", line_in("warp_only.cu", "no __syncwarp between"))}
    assert {(f["type"], f["line"]) for f in errors(kernels["block_sum"])} == {
        ("data-race", line_in("warp_only.cu", "a block barrier elsewhere"))}
    wide = check_json("warp_only.cu", "-k", "warp_sum", "--block", "64")
    assert {(f["type"], f["line"]) for f in errors(wide)} == {("data-race", line_in("warp_only.cu", "the warp's tail"))}
    assert check_json("warp_only.cu", "-k", "warp_sum", "--block", "32", "--grid", "1")["findings"] == []


def test_a_race_only_more_blocks_than_a_blocks_threads_make_in_a_column_layout_is_a_warning():
    """tests/sites/columns.cu, no host code: `threadIdx.x * blockDim.x + blockIdx.x` is
    written for at most blockDim.x blocks, so the collision more blocks make is a warning
    naming that; the next column's slot races in any launch (an error); a stated grid
    wider than the block is the user's (an error), one within it is clean."""
    kernels = {k["kernel"]: k for k in json.loads(simulee("check", SITES / "columns.cu", "-q", "--format",
                                                          "json").stdout)["kernels"]}
    findings = kernels["number_columns"]["findings"]
    assert findings and {(f["type"], f["severity"], f["line"]) for f in findings} == {
        ("data-race", "warning", line_in("columns.cu", "by column"))}
    assert "only when gridDim.x > blockDim.x, on a launch Simulee chose: the addresses step by blockDim.x with " \
        f"threadIdx.x at line {line_in('columns.cu', 'int i =')}" in findings[0]["message"]
    assert {(f["type"], f["line"]) for f in errors(kernels["shift_columns"])} == {
        ("data-race", line_in("columns.cu", "the next column's slot"))}
    wide = check_json("columns.cu", "-k", "number_columns", "--block", "8", "--grid", "16")
    assert {(f["type"], f["line"]) for f in errors(wide)} == {("data-race", line_in("columns.cu", "by column"))}
    assert check_json("columns.cu", "-k", "number_columns", "--block", "16", "--grid", "16")["findings"] == []


@pytest.mark.parametrize("other_main, severity", [(False, "error"), (True, "warning")])
def test_a_main_in_the_folder_above_is_the_programs_when_it_is_the_only_one(tmp_path, other_main, severity):
    """tests/sites/cmake_program with no compilation database and main's width 8: the
    launcher's folder (kernels/) has no main, the tree above has one (app/main.cpp), so the
    launch passes 8 and the race is an error; with a second main there (tools/narrow.cpp)
    the program is not known, the width is searched, and the race a warning."""
    _cmake_build(tmp_path / "net", 8)
    (tmp_path / "net" / "build" / "compile_commands.json").unlink()
    main = tmp_path / "net" / "app" / "main.cpp"
    main.write_text(main.read_text().replace("Net net(WIDTH)", "Net net(8)"))
    if not other_main:
        (tmp_path / "net" / "tools" / "narrow.cpp").unlink()
    layer = tmp_path / "net" / "kernels" / "layer.cu"
    kernel = json.loads(simulee("check", layer, "-q", "--format", "json", "-I", tmp_path / "net" / "include")
                        .stdout)["kernels"][0]
    assert {(f["type"], f["severity"], f["line"]) for f in kernel["findings"]} == {
        ("data-race", severity, line_in("cmake_program/kernels/layer.cu", "// the update"))}


def _with_main(folder: Path, name: str, call: str | None) -> Path:
    """tests/sites/`name` copied into `folder`, with a main that allocates a buffer `m` and
    makes `call` (none without it); the copy's path."""
    text = (SITES / name).read_text()
    if call:
        text += f"\nint main() {{\n  float *m;\n  cudaMalloc(&m, 1 << 20);\n  {call};\n}}\n"
    (folder / name).write_text(text)
    return folder / name


@pytest.mark.parametrize("host, severity", [(None, "warning"), (100, "error"), (256, None)])
def test_a_race_only_row_widths_off_the_tile_make_is_a_warning_unless_the_host_gives_one(tmp_path, host, severity):
    """tests/sites/tiles.cu: a tiled copy without bounds checks races when its row width n is
    not a multiple of the 32-wide tile. With n a parameter of the launcher (unknown), the
    width Simulee chose shows it and the next multiple of 128 does not: a warning saying so.
    A main passing 100 makes it the host's race (an error); one passing 256, none."""
    source = _with_main(tmp_path, "tiles.cu", None if host is None else f"copy(m, m + (1 << 17), {host})")
    kernel = json.loads(simulee("check", source, "-q", "--format", "json").stdout)["kernels"][0]
    line = line_in("tiles.cu", "the tile's element")
    assert {(f["type"], f["severity"], f["line"]) for f in kernel["findings"]} == (
        {("data-race", severity, line)} if severity else set())
    if severity == "warning":
        assert "only for values Simulee chose (n=" in kernel["findings"][0]["message"]
        assert "not with n=128" in kernel["findings"][0]["message"]


@pytest.mark.parametrize("step, races", [(1, False), (2, True)])
def test_a_step_main_passes_through_a_launcher_pointer_in_a_folder_of_programs_is_the_hosts(tmp_path, step, races):
    """tests/sites/programs: each source is a program of its own (two define main). bench.cu's
    main passes its launcher by pointer to a timing template with n and the step; the kernel
    takes an empty tag before them. bench.cu alone is the program, the call made direct by
    inlining folds main's values: step 1 writes each element once (clean), step 2 makes
    threads i and i + 512 update one element (an error: the host's value, not a guess)."""
    import shutil

    folder = tmp_path / "programs"
    shutil.copytree(SITES / "programs", folder)
    bench = folder / "bench.cu"
    bench.write_text(bench.read_text().replace("step = 1;", f"step = {step};"))
    kernel = json.loads(simulee("check", bench, "-q", "--format", "json").stdout)["kernels"][0]
    assert {tuple(sorted(launch["args"].items())) for launch in kernel["launches"]} == {
        (("a", "bytes[16384]"), ("n", 1024), ("step", step))}  # a: the 4,096 floats main allocates
    assert {(f["type"], f["severity"], f["line"]) for f in kernel["findings"]} == (
        {("data-race", "error", line_in("programs/bench.cu", "// the update"))} if races else set())


def test_a_global_that_host_code_left_out_sets_is_not_the_initializer():
    """tests/sites/left_out: the grid is a global a set-up function stores the multiprocessor
    count in, through a library whose header is missing, so its body is left out to compile
    the file. The global is not its initializer (1: one block, race-free) but unknown: the
    race of every block's update to one slot is found."""
    kernel = check_json("left_out/multiprocessors.cu")
    assert {(f["type"], f["line"]) for f in errors(kernel)} == {
        ("data-race", line_in("left_out/multiprocessors.cu", "every block's update"))}


@pytest.mark.parametrize("host, severity", [(None, "warning"), (2, "error"), (5, None)])
def test_a_value_whose_variant_never_reaches_the_race_does_not_refute_it(tmp_path, host, severity):
    """tests/sites/levels.cu: a race on every level that does work, and an early return past
    the last level. With the level unknown, the variants past it never reach the racing
    accesses: they cannot tell (the warning says the race is not known there, not that it
    is absent). A main passing level 2 makes it the host's race (an error); 5, none (nothing
    is checked there: a vacuous check)."""
    source = _with_main(tmp_path, "levels.cu", None if host is None else f"run_level(m, m + 1024, {host})")
    kernel = json.loads(simulee("check", source, "-q", "--format", "json").stdout)["kernels"][0]
    assert {(f["type"], f["severity"], f["line"]) for f in kernel["findings"] if f["type"] != "vacuous-check"} == (
        {("data-race", severity, line_in("levels.cu", "the zeroing"))} if severity else set())
    if severity == "warning":
        assert "not known with level=" in kernel["findings"][0]["message"]


@pytest.mark.parametrize("synced", [False, True])
def test_a_variant_whose_made_up_counts_hold_no_points_leaves_the_race_as_it_was(tmp_path, synced):
    """tests/sites/octaves.cu: a loop over the points of an octave, whose bounds are counts
    in device memory the host fills (made up here), and the octave unknown. The variant
    octave=2 reaches no point because the made-up counts say so (a branch on them alone
    kept its threads from the race): it leaves the race as the witness showed it, and the
    variant whose count index runs past the array is no octave the host could pass. The
    race holds on every octave with points: an error (it was a warning "not known with
    octave=35"). The kernel with a barrier at the loop's end is clean."""
    source = tmp_path / "octaves.cu"
    text = (SITES / "octaves.cu").read_text()
    source.write_text(text.replace("}  // the loop's end", "  __syncthreads();\n  }") if synced else text)
    kernel = json.loads(simulee("check", source, "-q", "--format", "json", "--no-prove").stdout)["kernels"][0]
    assert {(f["type"], f["severity"], f["line"]) for f in kernel["findings"]} == (
        set() if synced else {("data-race", "error", line_in("octaves.cu", "the partial sum"))})


def test_only_a_branch_on_made_up_values_alone_keeps_a_variant_away():
    """An instruction a variant did not reach was kept away by made-up memory only when
    every branch it depends on that the variant evaluated had a condition carrying a label
    every time: one also decided by the value itself (a clean evaluation) may be the value's."""
    from interpreter.trace import OpInfo
    from simulee.checker.kernel import _kept_away

    ops = [OpInfo("k", 0, "br", None, ""), OpInfo("k", 1, "br", None, ""),
           OpInfo("k", 2, "store", None, "", controls=(0,)), OpInfo("k", 3, "load", None, "", controls=(0, 1)),
           OpInfo("k", 4, "load", None, "", controls=(1,)), OpInfo("k", 5, "load", None, "", controls=(0,))]
    assert _kept_away(ops, {0: True, 1: False}, frozenset({("k", 0), ("k", 1), ("k", 5)})) == {("k", 2)}
    assert _kept_away(ops, {0: True}, frozenset()) == {("k", 2), ("k", 3), ("k", 5)}
    assert _kept_away(ops, {0: False, 1: False}, frozenset()) == frozenset()


@pytest.mark.parametrize("n, races", [(256, False), (100, True)])
def test_a_width_main_passes_through_a_step_that_calls_a_missing_library_is_the_hosts(tmp_path, n, races):
    """tests/sites/library/rows.cu: main passes n and a launcher by pointer to a step that
    calls cuBLAS, whose header is missing. The step compiles (its constants are unknown
    values, its calls do nothing) instead of being left out, so the launcher's n is main's:
    256 in blocks of 64 writes disjoint rows (clean); 100 makes a block's last threads write
    the next row (an error: the host's value, not a guess)."""
    source = tmp_path / "rows.cu"
    source.write_text((SITES / "library" / "rows.cu").read_text().replace("int n = 256;", f"int n = {n};"))
    kernel = json.loads(simulee("check", source, "-q", "--format", "json").stdout)["kernels"][0]
    assert {(f["type"], f["severity"], f["line"]) for f in kernel["findings"]} == (
        {("data-race", "error", line_in("library/rows.cu", "the row's element"))} if races else set())


@pytest.mark.parametrize("host, severity", [(None, "warning"), (6, "error"), (64, None)])
def test_a_misaligned_vector_copy_only_widths_off_four_make_is_a_warning_unless_the_host_gives_one(
        tmp_path, host, severity):
    """tests/sites/vector_rows.cu: a float4 row copy, a memcpy in the IR, from row * n is
    misaligned unless n is a multiple of 4. With n unknown the width Simulee chose shows it
    and another does not: a warning naming n. A main passing 6 makes it the host's fault (an
    error); one passing 64, none. (The prover shows the kernel race-free, which skips the
    search: --no-prove searches.)"""
    source = _with_main(tmp_path, "vector_rows.cu", None if host is None else f"copy(m, m + (1 << 16), 8, {host})")
    kernel = json.loads(simulee("check", source, "-q", "--format", "json", "--no-prove").stdout)["kernels"][0]
    line = line_in("vector_rows.cu", "the row's vector")
    assert {(f["type"], f["severity"]) for f in kernel["findings"]} == (
        {("misaligned", severity)} if severity else set())
    assert all(abs(f["line"] - line) <= 1 for f in kernel["findings"])
    if severity == "warning":
        assert "only for values Simulee chose (n=" in kernel["findings"][0]["message"]


@pytest.mark.parametrize("host, severity", [(None, "warning"), (87, "error"), (128, "warning")])
def test_a_race_only_partial_warps_make_is_a_warning_unless_the_host_launches_one(tmp_path, host, severity):
    """tests/sites/warp_sums.cu: every lane stores its warp's reduced sum in the warp's slot.
    In whole warps they store one value (a benign race, a warning); a partial warp's lanes
    hold different sums (a race). With the block size unknown, the size Simulee chose shows
    it and a whole number of warps does not: a warning, though another launch showed the
    benign form first. A main launching blocks of 87 makes it the host's race (an error)."""
    source = _with_main(tmp_path, "warp_sums.cu", None if host is None else f"sum_rows(m, m + 1024, 8, {host})")
    kernel = json.loads(simulee("check", source, "-q", "--format", "json").stdout)["kernels"][0]
    assert {(f["type"], f["severity"], f["line"]) for f in kernel["findings"]} == {
        ("data-race", severity, line_in("warp_sums.cu", "every lane stores its warp's sum"))}
    (race,) = kernel["findings"]
    if host is None:
        assert "only for values Simulee chose (blockDim.x=" in race["message"]
    assert race["benign"] == (host == 128)
