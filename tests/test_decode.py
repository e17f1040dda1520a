"""The decoder: types and layouts, instruction fields, constants, globals, CFG analyses,
source locations."""

import random
import struct

import llvmlite.binding as llvm
import networkx as nx
import numpy as np
import pytest

from conftest import IR_FILES, KERNELS, at, kernel_files, line_of, program
from interpreter import irparse as ir
from interpreter.decode import Address, immediate_post_dominators, reverse_post_order
from interpreter.types import ArrayType, DataLayout, FloatType, IntType, PointerType, StructType, VectorType

NVPTX_LAYOUT = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"


# ---------------------------------------------------------------------------- types


@pytest.mark.parametrize("path", [KERNELS / "struct_param.cu", KERNELS / "qualifiers.cu", KERNELS / "vector_types.cu",
                                  KERNELS / "half.cu", IR_FILES / "opcodes.ll"], ids=lambda p: p.name)
def test_struct_layouts_match_llvm(path):
    """Every named struct type's size, alignment and field offsets agree with LLVM's."""
    loaded = program(path)
    text = path.read_text() if path.suffix == ".ll" else None
    if text is None:
        from simulee.frontend.compiler import load_ir

        text = load_ir(path)
    module = llvm.parse_assembly(text, llvm.create_context())  # a context of its own: struct names stay unique
    target = llvm.create_target_data(module.data_layout)
    names = [line.split(" = type ")[0][1:] for line in text.splitlines() if " = type {" in line]
    assert names
    types = ir.NamedTypes()
    for line in text.splitlines():
        if " = type " in line:
            name, _, body = line.partition(" = type ")
            types.texts[name.strip()] = body
    for name in names:
        ours = types.get("%" + name)
        theirs = module.get_struct_type(name.strip('"'))
        assert loaded.layout.size(ours) == target.get_abi_size(theirs), name
        assert loaded.layout.align(ours) == target.get_abi_alignment(theirs), name
        assert list(loaded.layout.field_offsets(ours)) == [
            target.get_element_offset(theirs, i) for i in range(len(ours.fields))
        ], name


def test_scalar_and_aggregate_layouts():
    layout = DataLayout(NVPTX_LAYOUT)
    assert [layout.size(IntType(b)) for b in (1, 8, 16, 32, 64, 128)] == [1, 1, 2, 4, 8, 16]
    assert layout.align(IntType(64)) == 8
    assert layout.size(PointerType(0)) == 8 and layout.size(PointerType(6)) == 4
    assert (layout.size(FloatType("half")), layout.size(FloatType("double"))) == (2, 8)
    assert layout.size(ArrayType(3, IntType(16))) == 6
    assert (layout.size(VectorType(4, FloatType("float"))), layout.align(VectorType(4, FloatType("float")))) == (16, 16)
    assert layout.size(VectorType(3, FloatType("float"))) == 16  # padded to its alignment
    mixed = StructType((IntType(8), IntType(32), FloatType("double")))
    assert layout.field_offsets(mixed) == (0, 4, 8) and layout.size(mixed) == 16
    packed = StructType((IntType(8), IntType(32)), packed=True)
    assert layout.field_offsets(packed) == (0, 1) and layout.size(packed) == 5 and layout.align(packed) == 1
    assert layout.store_size(IntType(1)) == 1 and layout.store_size(IntType(24)) == 3
    # LLVM's default (no layout string) aligns i64 to 4 bytes
    assert DataLayout("").align(IntType(64)) == 4


# ---------------------------------------------------------------------------- instructions


@pytest.fixture(scope="module")
def everything():
    loaded = program(IR_FILES / "opcodes.ll")
    function = loaded.function("everything")
    by_result = {function.slot_names[op.result]: op for op in function.ops if op.result >= 0}
    return loaded, function, by_result


def test_operands_are_slots(everything):
    _, function, ops = everything
    assert function.params == (0, 1, 2, 3)
    assert [function.slot_names[p] for p in function.params] == ["out", "n", "x", "v"]
    add = ops["sum"]
    assert add.args[0] == 1 and function.constants[add.args[1]] == ir.ConstInt(IntType(32), 1)
    assert add.extra["flags"] == ("nsw",)
    assert function.constants[ops["diff"].args[1]].value == -5
    assert ops["shift"].extra["flags"] == ("exact",)
    assert function.slot_types[add.result] == IntType(32)


def test_comparisons_casts_and_floats(everything):
    _, function, ops = everything
    assert ops["lt"].extra["predicate"] == "slt" and ops["ult"].extra["predicate"] == "ult"
    assert ops["fl"].extra["predicate"] == "uno"
    assert ops["half"].extra["flags"] == ("fast",)
    third = function.constants[ops["third"].args[1]]
    assert third.value == struct.unpack("<f", struct.pack("<f", 1 / 3))[0]  # hex float constant, float precision
    assert (ops["ext"].opcode, str(ops["ext"].arg_types[0]), str(ops["ext"].type)) == ("zext", "i32", "i64")
    assert str(ops["tr"].type) == "i16" and str(ops["fp"].type) == "double"
    assert ops["neg"].opcode == "fneg" and ops["frozen"].opcode == "freeze"


def test_memory_instructions(everything):
    _, function, ops = everything
    assert ops["slot"].extra["allocated_type"] == ArrayType(8, IntType(32))
    gep = ops["elem"]
    assert gep.extra["source_type"] == ArrayType(8, IntType(32)) and gep.extra["flags"] == ("inbounds",)
    assert ops["loaded"].extra["volatile"] is True
    rmw = ops["old"]
    assert (rmw.extra["operation"], rmw.extra["syncscope"], rmw.extra["orderings"]) == ("umax", "block", ["monotonic"])
    cas = ops["pairv"]
    assert cas.type == StructType((IntType(32), IntType(1))) and cas.extra["weak"]
    assert cas.extra["orderings"] == ["seq_cst", "acquire"]
    fence = next(op for op in function.ops if op.opcode == "fence")
    assert fence.extra == {"syncscope": "block", "orderings": ["acq_rel"]}
    # constant getelementptr of a global folds to an address with a byte offset
    assert function.constants[ops["fromtable"].args[0]] == Address("table", 8, PointerType(1))
    assert function.constants[ops["cast"].args[0]] == Address("tile", 0, PointerType(3))


def test_aggregates_and_vectors(everything):
    _, _, ops = everything
    assert ops["won"].extra["indices"] == (1,) and str(ops["won"].type) == "i1"
    assert ops["agg"].extra["indices"] == (0,)
    assert str(ops["lane"].type) == "float"
    assert ops["shuf"].extra["mask"] == (3, -1, 4, 0)


def test_control_flow(everything):
    _, function, ops = everything
    names = [block.name for block in function.blocks]
    assert names == ["entry", "zero", "seven", "loop", "other", "join"]
    switch = next(op for op in function.ops if op.opcode == "switch")
    assert switch.extra["default"] == names.index("other")
    assert switch.extra["cases"] == ((0, names.index("zero")), (7, names.index("seven")))
    assert ops["i"].extra["blocks"] == (names.index("seven"), names.index("loop"))
    assert ops["result"].extra["blocks"] == (1, 2, 3)
    assert [b.successors for b in function.blocks] == [(4, 1, 2), (5,), (5, 3), (5, 3), (), ()]
    assert function.blocks[5].predecessors == (1, 2, 3)
    # 'other' ends in unreachable, so the switch's paths only meet when leaving the function
    assert function.ipdom == (function.exit, 5, 5, 5, function.exit, function.exit)
    assert function.rpo[0] == 0 and sorted(function.rpo) == list(range(6))


def test_unsupported_instructions_are_kept_with_their_location():
    text = (
        "define void @f(ptr %p) {\n"
        "  %v = va_arg ptr %p, i32, !dbg !7\n"
        '  call void asm sideeffect "exit;", ""(), !dbg !8\n'
        "  ret void\n"
        "}\n"
    )
    module = ir.parse_module(text)
    va_arg, assembly, _ = module.functions["f"].blocks[0].instructions
    assert (va_arg.opcode, va_arg.extra["reason"], va_arg.dbg, va_arg.result) == (
        "unsupported", "instruction 'va_arg'", 7, "v")
    assert va_arg.text == "%v = va_arg ptr %p, i32, !dbg !7"
    assert (assembly.opcode, assembly.extra["reason"], assembly.dbg) == ("unsupported", 'inline assembly "exit;"', 8)


# ---------------------------------------------------------------------------- globals


def test_global_images(everything):
    loaded, _, _ = everything
    table = loaded.global_variable("table")
    assert (table.size, table.align, table.addrspace) == (16, 4, 1)
    assert struct.unpack("<4i", table.data) == (10, 20, 30, 40)
    pair = loaded.global_variable("pair")
    assert pair.data == bytes([1, 0, 0, 0, 2, 0, 0, 0]) + struct.pack("<d", 3.5)
    assert loaded.global_variable("message").data == b"hi\n\x00\x01\x02"
    tile = loaded.global_variable("tile")
    assert (tile.size, tile.addrspace, tile.data) == (32 * 33 * 4, 3, bytes(32 * 33 * 4))
    where = loaded.global_variable("where")
    assert where.relocations == ((0, Address("tile", (33 + 2) * 4, PointerType(0))),)


def test_extern_shared_has_no_image():
    loaded = program(KERNELS / "extern_shared.cu")
    (name,) = [n for n, g in loaded.module.globals.items() if "buffer" in n]
    assert loaded.global_variable(name).data is None


# ---------------------------------------------------------------------------- CFG


def networkx_ipdom(successors, exits):
    """Immediate post-dominators by networkx: the dominators of the reversed CFG, rooted at
    a virtual exit that every exit block flows to."""
    exit_node = len(successors)
    reversed_cfg = nx.DiGraph()
    reversed_cfg.add_nodes_from(range(exit_node + 1))
    reversed_cfg.add_edges_from((exit_node, block) for block in exits)
    reversed_cfg.add_edges_from((target, block) for block, targets in enumerate(successors) for target in targets)
    dominators = nx.immediate_dominators(reversed_cfg, exit_node)
    return tuple(dominators.get(block, exit_node) for block in range(exit_node))


def forward_dominators(successors):
    cfg = nx.DiGraph()
    cfg.add_nodes_from(range(len(successors)))
    cfg.add_edges_from((block, target) for block, targets in enumerate(successors) for target in targets)
    return nx.immediate_dominators(cfg, 0)


def random_cfg(rng, size):
    successors = []
    for block in range(size):
        if block == size - 1 or rng.random() < 0.15:
            successors.append(())  # an exit
        else:
            count = rng.choice((1, 2, 2, 3))
            successors.append(tuple(dict.fromkeys(rng.randrange(size) for _ in range(count))))
    return successors


@pytest.mark.parametrize("seed", range(200))
def test_post_dominators_match_networkx_on_random_graphs(seed):
    rng = random.Random(seed)
    successors = random_cfg(rng, rng.randrange(2, 25))
    exits = [b for b, s in enumerate(successors) if not s]
    assert immediate_post_dominators(successors, exits) == networkx_ipdom(successors, exits)
    cfg = nx.DiGraph()
    cfg.add_nodes_from(range(len(successors)))
    cfg.add_edges_from((block, target) for block, targets in enumerate(successors) for target in targets)
    assert reverse_post_order(successors) == tuple(reversed(list(nx.dfs_postorder_nodes(cfg, 0))))


def _dominates(dominators, a, b):
    while True:
        if a == b:
            return True
        if dominators.get(b, b) == b:
            return False
        b = dominators[b]


def test_post_dominators_of_all_test_kernels_match_networkx():
    for path in kernel_files():
        loaded = program(path)
        for kernel in loaded.kernels:
            function = loaded.function(kernel.symbol)
            successors = [b.successors for b in function.blocks]
            exits = [b for b, s in enumerate(successors) if not s]
            assert function.ipdom == networkx_ipdom(successors, exits), (path.name, kernel.name)
            # structured code is reducible: in reverse post-order only back edges go backwards
            position = {block: i for i, block in enumerate(function.rpo)}
            dominators = forward_dominators(successors)
            for block in function.rpo:
                for target in successors[block]:
                    assert position[target] > position[block] or _dominates(dominators, target, block)


def test_reconvergence_points_of_real_branches():
    loaded = program(KERNELS / "control_flow.cu")
    function = loaded.function(loaded.kernels[0].symbol)
    entry = function.blocks[0]
    assert len(entry.successors) == 2  # if (t >= n) return;
    # clang sends both the early return and the normal end through one cleanup block: the
    # branch reconverges there
    early_return = function.blocks[entry.successors[0]]
    assert function.ipdom[0] == early_return.successors[0]
    cleanup = function.blocks[function.ipdom[0]]
    assert function.ops[cleanup.end - 1].opcode == "switch"  # on which exit path was taken
    switch = next(op for op in function.ops if op.opcode == "switch")
    switch_block = function.blocks[switch.block]
    join = function.ipdom[switch.block]
    # every case flows into the join block
    for target in switch_block.successors:
        assert target == join or function.blocks[target].successors == (join,)


# ---------------------------------------------------------------------------- locations


def test_locations_follow_inlining_to_the_kernel():
    loaded = program(KERNELS / "qualifiers.cu")
    function = loaded.function(loaded.kernels[0].symbol)
    (atomic,) = [op for op in function.ops if op.opcode == "atomicrmw"]
    chain = atomic.location.chain()
    assert chain[0].file.endswith("simulee/frontend/include/simulee/atomics.h")
    assert chain[-1] == atomic.location.outermost()
    source = KERNELS / "qualifiers.cu"
    assert chain[-1].file == str(source) and chain[-1].line == line_of(source, "atomicAdd(&device_counter")
    assert str(chain[-1]) == f"{source}:{at(source, 'atomicAdd(&device_counter')}"


def test_locations_of_device_function_code():
    loaded = program(KERNELS / "device_functions.cu")
    function = loaded.function(loaded.kernels[0].symbol)
    multiplies = [op for op in function.ops if op.opcode == "mul"]
    # square() is inlined twice through sum_of_squares() into the kernel
    assert {op.location.line for op in multiplies} == {line_of(KERNELS / "device_functions.cu", "return x * x")}
    source = KERNELS / "device_functions.cu"
    nested = tuple(line_of(source, text) for text in ("return x * x", "return square(a)", "= sum_of_squares("))
    assert {tuple(place.line for place in op.location.chain()) for op in multiplies} == {nested}


def test_functions_in_a_named_comdat_parse():
    """Host IR of C++ templates puts each instance in a comdat of its own name."""
    from interpreter import irparse

    module = irparse.parse_module('$_Z1fv = comdat any\n'
                                  'define weak_odr void @_Z1fv() comdat($_Z1fv) {\n  ret void\n}\n'
                                  'define linkonce_odr void @"g.1"() comdat($"g.1") {\n  ret void\n}\n')
    assert list(module.functions) == ["_Z1fv", "g.1"]


def test_a_module_is_parsed_and_decoded_only_as_far_as_its_kernels_are_used():
    from interpreter.loader import load_module
    from interpreter.simt import execute
    from interpreter.launch import Launch
    from simulee.frontend.compiler import load_ir

    text = load_ir(KERNELS / "global_races.cu")
    loaded = load_module(text, printed=True)  # the front end's output, as llvmlite printed it: not parsed again
    assert len(loaded.kernels) == 14 and not any("blocks" in vars(f) for f in loaded.module.functions.values())
    kernel = loaded.kernel("neighbour_blocks")
    assert kernel.params[1].name == "n"  # what the signature says needs no body
    assert not any("blocks" in vars(f) for f in loaded.module.functions.values())
    assert kernel.builtins == ("tid.x", "ctaid.x", "ntid.x")  # what its code uses: its body, parsed now
    parsed = {name for name, f in loaded.module.functions.items() if "blocks" in vars(f)}
    assert kernel.symbol in parsed and len(parsed) < 14
    result = execute(loaded, kernel, Launch(2, 32, {"a": np.zeros(64, dtype=np.float32), "n": 64}))
    assert result.status == "ok" and len(result.trace) > 0
    # the same module verified and printed by llvmlite first reads alike
    again = load_module(text)
    assert [(k.symbol, k.builtins, k.shared_bytes, k.dynamic_shared, k.params) for k in again.kernels] == \
        [(k.symbol, k.builtins, k.shared_bytes, k.dynamic_shared, k.params) for k in loaded.kernels]
    assert [op.opcode for op in again.function(kernel.symbol).ops] == \
        [op.opcode for op in loaded.function(kernel.symbol).ops]
