"""`simulee kernels`: every test kernel compiles and lists as its header comment says."""

import json

import pytest

from conftest import KERNELS, expected_kernels, kernel_files, line_of, program


def test_there_are_enough_test_kernels():
    assert len(kernel_files()) >= 25
    assert all(expected_kernels(path) for path in kernel_files()), "every kernel file states its kernels"


@pytest.mark.parametrize("path", kernel_files(), ids=lambda p: p.name)
def test_kernel_file_lists_as_expected(path):
    loaded = program(path)
    expected = expected_kernels(path)
    assert [k.declaration() for k in loaded.kernels] == [e.declaration for e in expected]
    for kernel, want in zip(loaded.kernels, expected):
        assert list(kernel.builtins) == want.reads, kernel.name
        dynamic = want.shared.endswith("dynamic")
        static = want.shared.split()[0] if want.shared.split()[0].isdigit() else "0"
        assert (kernel.shared_bytes, kernel.dynamic_shared) == (int(static), dynamic), kernel.name
        assert kernel.file == str(path)
        assert kernel.line > 0
    for kernel in loaded.kernels:
        unsupported = [op.text for f in loaded.reachable_functions(kernel.symbol) for op in f.ops
                       if op.opcode == "unsupported"]
        assert unsupported == [], f"{kernel.name} has undecodable instructions"


def test_kernel_source_lines_point_at_the_definition():
    loaded = program(KERNELS / "saxpy.cu")
    lines = (KERNELS / "saxpy.cu").read_text().splitlines()
    assert lines[loaded.kernels[0].line - 1].startswith("__global__ void saxpy(")


def test_parameter_details_come_from_debug_info():
    saxpy = program(KERNELS / "saxpy.cu").kernels[0]
    n, a, x, y = saxpy.params
    assert (n.name, n.kind, n.bits, n.signed, n.c_type) == ("n", "integer", 32, True, "int")
    assert (a.kind, a.bits, a.c_type) == ("float", 32, "float")
    assert (x.kind, x.address_space, x.pointee, x.c_type) == ("pointer", "global", "const float", "const float *")
    assert y.pointee == "float"

    unsigned = program(KERNELS / "atomics_int.cu").kernels[0].params
    assert [p.pointee for p in unsigned] == ["int", "unsigned int", "unsigned long long", "long long", "unsigned short"]

    apply = program(KERNELS / "struct_param.cu").kernels[0]
    params, bodies = apply.params
    assert (params.kind, params.size, params.c_type) == ("struct", 24, "Params")
    assert (bodies.kind, bodies.pointee) == ("pointer", "Body")

    double_math = program(KERNELS / "math_double.cu").kernels[0]
    assert double_math.params[2].signed is True
    histogram = program(KERNELS / "histogram.cu").kernels[0]
    assert histogram.params[0].pointee == "const unsigned char"


def test_parameters_without_debug_info_come_from_the_ir():
    from conftest import IR_FILES

    loaded = program(IR_FILES / "annotated_kernel.ll")
    (kernel,) = loaded.kernels
    assert kernel.name == "scale_rows"
    assert [(p.name, p.kind, p.bits) for p in kernel.params] == [("matrix", "pointer", 64), ("factor", "float", 32),
                                                                 ("width", "integer", 32)]
    assert kernel.params[2].signed is None
    assert kernel.builtins == ("tid.x", "ctaid.y")
    assert (kernel.shared_bytes, kernel.dynamic_shared) == (512, False)


def test_kernel_lookup_by_any_name():
    loaded = program(KERNELS / "template_kernel.cu")
    assert loaded.kernel("scale<float>").symbol == "_Z5scaleIfEvPT_S0_i"
    assert loaded.kernel("_Z5scaleIdEvPT_S0_i").name == "scale<double>"
    assert loaded.kernel("fill").name == "fill<int, 4>"
    assert loaded.kernel("void fill<int, 4>(int*, int)").name == "fill<int, 4>"
    with pytest.raises(KeyError, match="ambiguous.*scale<float>, scale<double>"):
        loaded.kernel("scale")
    with pytest.raises(KeyError, match="not found"):
        loaded.kernel("transpose")
    casts = program(KERNELS / "template_casts.cu")
    assert casts.kernel("block_sum<128, true>").name == "block_sum<(unsigned int)128, true>"
    close = r"block_sum<\(unsigned int\)128, true>, block_sum<\(unsigned int\)64, false> \(2 kernels"
    with pytest.raises(KeyError, match=rf"kernel 'block_sum<256, true>' not found; close: {close}"):
        casts.kernel("block_sum<256, true>")
    namespaced = program(KERNELS / "namespaces.cu")
    assert namespaced.kernel("integrate").name == "physics::integrate"
    assert namespaced.kernel("hidden").name == "(anonymous namespace)::hidden"


def test_cli_lists_one_file(run_cli, monkeypatch):
    monkeypatch.chdir(KERNELS.parent.parent)
    status, out, err = run_cli("kernels", "tests/kernels/reduction.cu")
    assert status == 0, err
    assert out == (
        f"tests/kernels/reduction.cu:{line_of('reduction.cu', 'void reduce_sum(')}: "
        "reduce_sum(const float *in, float *out, int n)\n"
        "    reads threadIdx.x blockIdx.x blockDim.x; shared 1024 B\n"
    )


def test_cli_lists_a_folder(run_cli):
    status, out, err = run_cli("kernels", KERNELS)
    assert status == 0, err
    expected = sum(len(expected_kernels(p)) for p in kernel_files())
    assert sum(1 for line in out.splitlines() if not line.startswith(" ")) == expected
    assert f"{expected} kernels in {len(kernel_files())} files" in err


def test_cli_json(run_cli):
    status, out, _ = run_cli("kernels", KERNELS / "extern_shared.cu", "--format", "json")
    assert status == 0
    document = json.loads(out)
    assert document["tool"] == "simulee" and document["errors"] == []
    first, second = document["kernels"]
    assert first["kernel"] == "dynamic_reverse"
    assert first["symbol"] == "_Z15dynamic_reversePii"
    assert first["params"] == [
        {"name": "data", "type": "int *", "kind": "pointer", "ir_type": "ptr", "address_space": "global",
         "pointee": "int"},
        {"name": "n", "type": "int", "kind": "integer", "ir_type": "i32", "bits": 32, "signed": True},
    ]
    assert (first["shared_bytes"], first["dynamic_shared"], first["builtins"]) == (64, True, ["tid.x"])
    assert (second["shared_bytes"], second["dynamic_shared"]) == (0, True)
