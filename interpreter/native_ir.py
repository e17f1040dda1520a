"""What native code and the Python that calls it agree on: the LLVM types registers compute
and are stored in, the words of the context array the code reads, the trace columns it
writes, and the writer of LLVM IR text.

May import: interpreter modules (nothing of simulee or evolve).
"""

from __future__ import annotations

import numpy as np

from interpreter.types import FloatType, IntType, PointerType

# the context array the generated code reads (int64 words)
(C_SHARED, C_SHARED_BYTES, C_LOCAL, C_LOCAL_BYTES, C_TPB, C_FIRST_BLOCK, C_REGIONS, C_BASES, C_LIMITS,
 C_WRITABLE, C_TOUCHED, C_EPOCH, C_WARP_SYNC, C_ACTIVE, C_THREADS,
 C_SPACE, C_REGION, C_OFFSET, C_BLOCK, C_THREAD, C_EPOCH_COL, C_ACTIVE_COL, C_WARP_SYNC_COL, C_VALUE,
 C_BX, C_BY, C_BZ, C_GX, C_GY, C_GZ,
 C_WAVE_BLOCK, C_TID, C_TID_X, C_TID_Y, C_TID_Z, C_CTAID_X, C_CTAID_Y, C_CTAID_Z, C_CHANGED) = range(39)
CONTEXT_WORDS = 39

INT_WIDTHS = (1, 8, 16, 32, 64)
FLOATS = {"float": "float", "double": "double"}
DTYPES = {"i1": np.dtype(np.bool_), "i8": np.dtype(np.int8), "i16": np.dtype(np.int16), "i32": np.dtype(np.int32),
          "i64": np.dtype(np.int64), "float": np.dtype(np.float32), "double": np.dtype(np.float64)}
SIZES = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "float": 4, "double": 8}
BITS_OF_FLOAT = {"float": "i32", "double": "i64"}


def llvm_type(ty) -> str | None:
    """The LLVM type a scalar value computes in (pointers are tagged int64), or None."""
    if isinstance(ty, IntType):
        return f"i{ty.bits}" if ty.bits in INT_WIDTHS else None
    if isinstance(ty, FloatType):
        return FLOATS.get(ty.name)
    if isinstance(ty, PointerType):
        return "i64"
    return None


def storage(ty: str) -> str:
    """The type a register element is stored as (NumPy's bool is a byte)."""
    return "i8" if ty == "i1" else ty


def literal(value, ty: str) -> str:
    """`value` as an LLVM constant of type `ty`."""
    if ty in ("float", "double"):
        number = float(np.float32(value)) if ty == "float" else float(value)
        return "0x%016X" % np.array(number, dtype=np.float64).view(np.uint64)
    if ty == "i1":
        return "true" if int(value) & 1 else "false"
    return str(int(value))


class Writer:
    """LLVM IR text of one generated function."""

    def __init__(self):
        self.lines: list[str] = []
        self.count = 0

    def tmp(self) -> str:
        self.count += 1
        return f"%t{self.count}"

    def __call__(self, text: str) -> str:
        name = self.tmp()
        self.lines.append(f"  {name} = {text}")
        return name

    def do(self, text: str) -> None:
        self.lines.append(f"  {text}")

    def label(self, name: str) -> None:
        self.lines.append(f"{name}:")


# the trace columns native code writes, and (context word, item size) of each
COLUMNS = (("space", np.uint8), ("region", np.int32), ("offset", np.int64), ("block", np.int64),
           ("thread", np.int32), ("epoch", np.int32), ("active", np.uint32), ("warp_sync", np.int32),
           ("value", np.uint64))
COLUMN_PLACES = [(word, np.dtype(dtype).itemsize) for word, (_, dtype) in zip(
    (C_SPACE, C_REGION, C_OFFSET, C_BLOCK, C_THREAD, C_EPOCH_COL, C_ACTIVE_COL, C_WARP_SYNC_COL, C_VALUE), COLUMNS)]
