"""The IR words every part of Simulee agrees on: opcode families, how a call's callee is
classified (barrier, ...), and the one exception for IR Simulee does not execute. The
parser, the compiler and the detectors read these; none defines its own."""

from __future__ import annotations

CAST_OPCODES = {
    "trunc", "zext", "sext", "fptrunc", "fpext", "fptoui", "fptosi", "uitofp", "sitofp",
    "ptrtoint", "ptrtoaddr", "inttoptr", "bitcast", "addrspacecast",
}
DIVISION = {"udiv", "sdiv", "urem", "srem"}  # integer division and remainder: they can fault
WRAPPING_BINARY = {"add", "sub", "mul", "shl", "lshr", "ashr", "and", "or", "xor"}  # never fault
INT_BINARY = WRAPPING_BINARY | DIVISION
FLOAT_BINARY = {"fadd", "fsub", "fmul", "fdiv", "frem"}
SPECIAL_REGISTER = "llvm.nvvm.read.ptx.sreg."  # callee prefix of reads of tid.x, laneid, clock, ...
INDEX_REGISTERS = ("tid", "ctaid", "ntid", "nctaid")  # threadIdx, blockIdx, blockDim, gridDim


class Unsupported(Exception):
    """Valid IR that Simulee does not execute or cannot represent (inline assembly, an
    i128 value, a constant expression it does not know); the message says what, and where
    when it is known."""


def index_register(callee: str) -> str | None:
    """'tid.x', 'nctaid.y', ... for a read of a thread or block index or dimension (the
    registers behind threadIdx, blockIdx, blockDim, gridDim); None for any other callee."""
    register, _, axis = callee.removeprefix(SPECIAL_REGISTER).partition(".")
    if callee.startswith(SPECIAL_REGISTER) and register in INDEX_REGISTERS and axis in ("x", "y", "z"):
        return f"{register}.{axis}"
    return None


def barrier_kind(callee: str) -> str | None:
    """None for a call that is no block barrier; "" for a plain one (__syncthreads,
    bar.sync); popc/and/or for one that also reduces a value over the block
    (__syncthreads_count/and/or). A split arrive and a warp barrier are not block barriers."""
    if not callee.startswith(("llvm.nvvm.barrier", "llvm.nvvm.bar.sync")):
        return None
    if "arrive" in callee or callee.startswith("llvm.nvvm.bar.warp"):
        return None
    for reduction in ("popc", "and", "or"):
        if f".{reduction}" in callee:
            return reduction
    return ""
