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


# Memory-model strength of an access or fence (the trace's `sync` column): 0 for a plain
# access; else its scope, plus ACQUIRE / RELEASE when the instruction itself orders
# (ld.acquire, st.release, an LLVM atomic load or store with that ordering), and VOLATILE
# for a volatile access that is no atomic.
BLOCK_SCOPE, DEVICE_SCOPE, SYSTEM_SCOPE = 1, 2, 3
SCOPE_BITS, ACQUIRE, RELEASE, VOLATILE = 3, 4, 8, 16
# a cluster is one block: Simulee launches no thread-block clusters (nor does a launch without the attribute)
_SYNCSCOPES = {"block": BLOCK_SCOPE, "cta": BLOCK_SCOPE, "cluster": BLOCK_SCOPE, "device": DEVICE_SCOPE,
               "agent": DEVICE_SCOPE, "gpu": DEVICE_SCOPE}


def access_sync(opcode: str, extra: dict) -> int:
    """The `sync` of a load, store or atomicrmw/cmpxchg: volatile accesses are strong at
    system scope (PTX treats them as relaxed.sys), and marked VOLATILE (they synchronize
    only as the flag of a release and an acquire); atomics at their syncscope (none: the
    device, as CUDA's atomicAdd); an atomic load acquires and an atomic store releases
    when its ordering says so. A read-modify-write's ordering is ignored: clang gives
    CUDA's relaxed atomicAdd seq_cst, so only a fence around it orders."""
    atomic = opcode in ("atomicrmw", "cmpxchg") or extra.get("atomic")
    if not atomic:
        return SYSTEM_SCOPE | VOLATILE if extra.get("volatile") else 0
    scope = syncscope(extra, DEVICE_SCOPE)
    orderings = set(extra.get("orderings", ()))
    if opcode == "load" and orderings & {"acquire", "seq_cst"}:
        scope |= ACQUIRE
    if opcode == "store" and orderings & {"release", "seq_cst"}:
        scope |= RELEASE
    return scope


def syncscope(extra: dict, default: int) -> int:
    """The scope an LLVM atomic or fence names (syncscope("block"), ...); `default` when it
    names none."""
    if "syncscope" not in extra:
        return default
    return _SYNCSCOPES.get(extra["syncscope"], SYSTEM_SCOPE)


def unknown_syncscope(extra: dict) -> str | None:
    """The syncscope an LLVM atomic or fence names when it is none of those above
    ("singlethread", another target's), else None."""
    name = extra.get("syncscope")
    return name if name is not None and name not in _SYNCSCOPES else None


def call_scope(callee: str) -> int:
    """The scope of an NVVM atomic or fence intrinsic: .cta (and .cluster, one block) block,
    .sys system, else device (llvm.nvvm.membar.gl, llvm.nvvm.atomic.add.gen.i.cta.i32.p0, ...)."""
    name = callee + "."
    if ".cta." in name or ".cluster." in name:
        return BLOCK_SCOPE
    if ".sys." in name:
        return SYSTEM_SCOPE
    return DEVICE_SCOPE
