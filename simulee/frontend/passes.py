"""LLVM's own passes over IR text, through llvmlite: the inlining and promotion that make a
kernel's IR interpretable, and the -O1 pipeline that exposes a host's launches.

May import: simulee.errors.
"""

from __future__ import annotations

import functools
import re

from simulee.errors import SimuleeError


def one_line(message: str) -> str:
    return " ".join(message.split())


@functools.cache
def binding():
    """llvmlite's binding layer with every target (NVPTX included) initialized."""
    import llvmlite.binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    return llvm


def verified_module(llvm, ir: str, origin: str):
    """`ir` parsed and verified by llvmlite; SimuleeError when the compiler's IR is invalid."""
    try:
        module = llvm.parse_assembly(ir)
        module.verify()
    except RuntimeError as error:
        raise SimuleeError(f"{origin}: invalid LLVM IR from the compiler: {one_line(str(error))}") from None
    return module


def inline_and_promote(ir: str, origin: str = "<ir>") -> str:
    """Run always-inline and SROA over `ir`: every defined device function that is neither
    recursive nor noinline is marked alwaysinline first, so calls disappear wherever they
    can, and private variables are promoted to SSA values. Returns the new IR text."""
    llvm = binding()
    module = verified_module(llvm, ir, origin)
    recursive = _recursive_functions(llvm, module)
    for function in module.functions:
        if function.is_declaration or function.name in recursive:
            continue
        if not any(b"noinline" in attribute for attribute in function.attributes):
            function.add_function_attribute("alwaysinline")
    machine = llvm.Target.from_triple(module.triple).create_target_machine()
    builder = llvm.create_pass_builder(machine, llvm.create_pipeline_tuning_options())
    passes = llvm.create_new_module_pass_manager()
    passes.add_always_inliner_pass()
    passes.add_sroa_pass()
    passes.run(module, builder)
    # the scopes of inlined noalias parameters: alias-analysis hints only
    return re.sub(r"\n\s*call void @llvm\.experimental\.noalias\.scope\.decl\([^\n]*", "", str(module))


def optimize_host(ir: str, origin: str = "<ir>") -> str:
    """Host IR after LLVM's -O1 pipeline, which folds dim3 constructors and inlines the
    functions around a launch, except the device stubs (`__device_stub__kernel`, what a
    `<<<...>>>` calls), kept as calls so that each launch names its kernel and passes its
    arguments one by one."""
    llvm = binding()
    module = verified_module(llvm, ir, origin)
    for function in module.functions:
        if not function.is_declaration and "__device_stub__" in function.name:
            function.add_function_attribute("noinline")
    machine = llvm.Target.from_triple(module.triple).create_target_machine()
    tuning = llvm.create_pipeline_tuning_options(speed_level=1)
    builder = llvm.create_pass_builder(machine, tuning)
    builder.getModulePassManager().run(module, builder)
    return str(module)


def _recursive_functions(llvm, module) -> set[str]:
    """Names of the functions that can call themselves, directly or through others."""
    calls: dict[str, set[str]] = {}
    for function in module.functions:
        callees = calls.setdefault(function.name, set())
        for block in function.blocks:
            for instruction in block.instructions:
                if instruction.opcode in ("call", "invoke"):
                    *_, callee = instruction.operands
                    if callee.value_kind == llvm.ValueKind.function:
                        callees.add(callee.name)
    recursive = set()
    for start in calls:
        stack, seen = list(calls[start]), set()
        while stack:
            name = stack.pop()
            if name == start:
                recursive.add(start)
                break
            if name not in seen:
                seen.add(name)
                stack.extend(calls.get(name, ()))
    return recursive
