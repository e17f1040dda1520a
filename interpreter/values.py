"""Vectorized values: how IR types map to NumPy arrays, and the semantics of LLVM's
arithmetic, comparisons and casts on them.

A value holds one element per thread: an integer iN is an array of the narrowest signed
dtype that holds N bits (i1 is bool), wrapping exactly as LLVM's integers do; unsigned
operations read the same bits through an unsigned view. half, float and double are
float16, float32 and float64, so single precision stays single precision (bfloat16 is
carried in float32 and rounded after every operation). A pointer is an int64 tagged address
(see memory.py). A vector <n x T> is a 2-D array (threads, n); a struct or array value is a
tuple of member values. A constant is a NumPy scalar (a 1-D array for a vector, a tuple for
an aggregate) that broadcasts against per-thread arrays.
"""

from __future__ import annotations

import numpy as np

from interpreter.memory import LOCAL, OFFSET_MASK, SHARED, SPACE_SHIFT
from interpreter.types import I64, ArrayType, FloatType, IntType, PointerType, StructType, Type, VectorType
from interpreter.vocabulary import Unsupported

# Pointers into these spaces convert to and from integers as CUDA's windows do: the integer is
# the offset in the space (what __cvta_generic_to_shared gives and a 32-bit PTX address holds).
WINDOWED_SPACES = (SHARED, LOCAL)


_INT_DTYPES = ((1, np.bool_), (8, np.int8), (16, np.int16), (32, np.int32), (64, np.int64))
_FLOAT_DTYPES = {"half": np.float16, "bfloat": np.float32, "float": np.float32, "double": np.float64}
UNSIGNED = {np.dtype(np.int8): np.dtype(np.uint8), np.dtype(np.int16): np.dtype(np.uint16),
            np.dtype(np.int32): np.dtype(np.uint32), np.dtype(np.int64): np.dtype(np.uint64)}


def dtype_of(ty: Type) -> np.dtype:
    """The NumPy dtype of a scalar type, or of a vector's elements."""
    if isinstance(ty, VectorType):
        return dtype_of(ty.element)
    if isinstance(ty, IntType):
        for bits, dtype in _INT_DTYPES:
            if ty.bits <= bits:
                return np.dtype(dtype)
        raise Unsupported(f"{ty.bits}-bit integers")
    if isinstance(ty, FloatType):
        if ty.name not in _FLOAT_DTYPES:
            raise Unsupported(f"{ty.name} floating point")
        return np.dtype(_FLOAT_DTYPES[ty.name])
    if isinstance(ty, PointerType):
        return np.dtype(np.int64)
    raise Unsupported(f"values of type {ty}")


def scalar_type(ty: Type) -> Type:
    """The element type of a vector type, or the type itself."""
    return ty.element if isinstance(ty, VectorType) else ty


def is_odd_width(ty: Type) -> bool:
    """An integer narrower than its dtype (i24, i48, ...): re-wrapped after operations."""
    ty = scalar_type(ty)
    return isinstance(ty, IntType) and ty.bits not in (1, 8, 16, 32, 64)


def is_bfloat(ty: Type) -> bool:
    ty = scalar_type(ty)
    return isinstance(ty, FloatType) and ty.name == "bfloat"


def wrap(values, ty: Type):
    """Two's-complement wrap of `values` to the width of integer type `ty`, sign-extended in
    its dtype. The identity for the native widths."""
    if not is_odd_width(ty):
        return values
    shift = dtype_of(ty).itemsize * 8 - scalar_type(ty).bits
    values = np.asarray(values)
    return (values << shift) >> shift


def unsigned(values):
    """The same bits read as unsigned integers (a view, not a copy)."""
    values = np.asarray(values)
    target = UNSIGNED.get(values.dtype)
    return values.view(target) if target is not None else values


def unsigned_of_width(values, ty: Type):
    """The unsigned value of an integer of type `ty`: its bits above the width cleared."""
    result = unsigned(values)
    if is_odd_width(ty):
        result = result & result.dtype.type((1 << scalar_type(ty).bits) - 1)
    return result


def zeros(ty: Type, count: int):
    """A value of type `ty` for `count` threads, all zero."""
    if isinstance(ty, StructType):
        return tuple(zeros(member, count) for member in ty.fields)
    if isinstance(ty, ArrayType):
        return tuple(zeros(ty.element, count) for _ in range(ty.count))
    shape = (count, ty.count) if isinstance(ty, VectorType) else (count,)
    return np.zeros(shape, dtype=dtype_of(ty))


def constant(ty: Type, value=None):
    """A constant of type `ty`: `value` is a number, a list of element values (vectors and
    aggregates) or None for zero."""
    if isinstance(ty, (StructType, ArrayType)):
        members = ty.fields if isinstance(ty, StructType) else [ty.element] * ty.count
        values = value if value is not None else [None] * len(members)
        return tuple(constant(member, v) for member, v in zip(members, values))
    if isinstance(ty, VectorType):
        values = value if value is not None else [None] * ty.count
        return np.array([constant(ty.element, v) for v in values], dtype=dtype_of(ty))
    dtype = dtype_of(ty)
    if value is None:
        value = 0
    if dtype == np.bool_:
        return np.bool_(int(value) & 1)
    if isinstance(ty, IntType):
        bits = dtype.itemsize * 8
        number = int(value) & ((1 << bits) - 1)
        return dtype.type(number - (1 << bits) if number >> (bits - 1) else number)
    return dtype.type(value)


# ---------------------------------------------------------------------------- registers


def per_lane(value, count: int, dtype) -> np.ndarray:
    """`value` (one for every lane, or one per lane) as an array of `count` elements of
    `dtype`."""
    array = np.asarray(value, dtype=dtype)
    return array if array.shape == (count,) else np.full(count, array, dtype=dtype)


def take(value, rows):
    """The elements of a per-thread value at `rows` (None: all of them)."""
    if rows is None:
        return value
    if isinstance(value, tuple):
        return tuple(take(member, rows) for member in value)
    return value[rows]


def write(register, rows, value, ty: Type, count: int):
    """`register` (None when never written) with `value` stored at `rows` (None: all rows);
    returns the register. A full write makes a fresh array (constants broadcast), so no two
    registers ever share memory and later partial writes cannot alias."""
    if isinstance(ty, (StructType, ArrayType)):
        members = ty.fields if isinstance(ty, StructType) else [ty.element] * ty.count
        registers = register if register is not None else (None,) * len(members)
        return tuple(write(r, rows, v, m, count) for r, v, m in zip(registers, value, members))
    if rows is None:
        shape = (count, ty.count) if isinstance(ty, VectorType) else (count,)
        array = np.asarray(value)
        if array.shape == shape:
            return array.astype(dtype_of(ty), copy=True)
        return np.full(shape, array, dtype=dtype_of(ty))
    if register is None:
        register = zeros(ty, count)
    register[rows] = value
    return register


# ---------------------------------------------------------------------------- integers


def integer_binary(opcode: str, a, b, ty: Type):
    """add, sub, mul, and, or, xor and the shifts on integers of type `ty`, wrapping at its
    width. Shifting by the width or more gives 0 (ashr: the sign bits), as PTX does."""
    dtype = dtype_of(ty)
    if dtype == np.bool_:
        return _boolean_binary(opcode, a, b)
    if opcode == "add":
        return wrap(np.add(a, b, dtype=dtype), ty)
    if opcode == "sub":
        return wrap(np.subtract(a, b, dtype=dtype), ty)
    if opcode == "mul":
        return wrap(np.multiply(a, b, dtype=dtype), ty)
    if opcode == "and":
        return np.bitwise_and(a, b, dtype=dtype)
    if opcode == "or":
        return np.bitwise_or(a, b, dtype=dtype)
    if opcode == "xor":
        return np.bitwise_xor(a, b, dtype=dtype)
    if opcode in ("shl", "lshr", "ashr"):
        return _shift(opcode, np.asarray(a, dtype=dtype), b, ty)
    raise ValueError(f"unknown integer operation {opcode}")


def _shift(opcode: str, a, b, ty: Type):
    dtype = a.dtype
    bits = scalar_type(ty).bits
    amount = unsigned_of_width(b, ty)
    if amount.ndim == 0:  # the common case: a constant amount
        if amount >= bits:
            return np.where(a < 0, -1, 0).astype(dtype) if opcode == "ashr" else np.zeros_like(a)
        too_far = None
    else:
        too_far = amount >= bits
        amount = np.where(too_far, 0, amount).astype(amount.dtype)
    if opcode == "shl":
        result = wrap(np.left_shift(unsigned(a), amount).view(dtype), ty)
    elif opcode == "lshr":
        result = wrap(np.right_shift(unsigned_of_width(a, ty), amount).view(dtype), ty)
    else:
        result = np.right_shift(a, amount.astype(dtype))
    if too_far is not None:
        result = np.where(too_far, np.where(a < 0, -1, 0) if opcode == "ashr" else 0, result).astype(dtype)
    return result


def _boolean_binary(opcode: str, a, b):
    """i1 arithmetic, modulo 2: add and sub are xor, mul is and."""
    if opcode in ("add", "sub", "xor"):
        return np.logical_xor(a, b)
    if opcode in ("mul", "and"):
        return np.logical_and(a, b)
    if opcode == "or":
        return np.logical_or(a, b)
    if opcode in ("shl", "lshr"):
        return np.logical_and(a, np.logical_not(b))
    if opcode == "ashr":
        return np.asarray(a, dtype=bool)
    raise ValueError(f"unknown i1 operation {opcode}")


def divide(opcode: str, a, b, ty: Type):
    """udiv, urem, sdiv, srem with C semantics: the quotient truncates toward zero and the
    remainder has the dividend's sign. Returns (result, lanes that divided by zero or None);
    those lanes yield 0. INT_MIN / -1 wraps to INT_MIN, as on the GPU."""
    dtype = dtype_of(ty)
    a = np.asarray(a, dtype=dtype)
    b = np.asarray(b, dtype=dtype)
    if dtype == np.bool_:
        zero = ~b
        result = (a & b) if opcode in ("udiv", "sdiv") else np.zeros_like(a & b)
        return result, zero
    zero = (b == 0) if b.ndim or b == 0 else None
    if zero is not None:
        b = np.where(zero, 1, b).astype(dtype)
    if opcode in ("udiv", "urem"):
        ua, ub = unsigned_of_width(a, ty), unsigned_of_width(b, ty)
        result = np.floor_divide(ua, ub) if opcode == "udiv" else np.remainder(ua, ub)
        result = wrap(result.view(dtype), ty)
    else:
        negative_one = b == -1  # avoid the INT_MIN // -1 overflow in NumPy
        safe = np.where(negative_one, 1, b).astype(dtype)
        remainder = np.fmod(a, safe)
        if opcode == "srem":
            result = np.where(negative_one, 0, remainder).astype(dtype)
        else:
            quotient = np.floor_divide(a - remainder, safe)
            result = wrap(np.where(negative_one, np.negative(a), quotient).astype(dtype), ty)
    if zero is not None:
        result = np.where(zero, 0, result).astype(dtype)
    return result, zero


_ORDER = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
          "ge": np.greater_equal}


def integer_compare(predicate: str, a, b, ty: Type):
    """icmp: eq and ne on the bits, s.. on the signed values, u.. on the unsigned values."""
    if predicate in ("eq", "ne"):
        return _ORDER[predicate](a, b)
    order = _ORDER[predicate[1:]]
    if predicate[0] == "u":
        return order(unsigned_of_width(a, ty), unsigned_of_width(b, ty))
    if dtype_of(ty) == np.bool_:  # i1 is signed: true is -1
        return order(-np.asarray(a, dtype=np.int8), -np.asarray(b, dtype=np.int8))
    return order(a, b)


# ---------------------------------------------------------------------------- floats


def float_binary(opcode: str, a, b, ty: Type):
    """fadd, fsub, fmul, fdiv, frem in the precision of `ty`."""
    dtype = dtype_of(ty)
    a = np.asarray(a, dtype=dtype)
    b = np.asarray(b, dtype=dtype)
    if opcode == "fadd":
        result = a + b
    elif opcode == "fsub":
        result = a - b
    elif opcode == "fmul":
        result = a * b
    elif opcode == "fdiv":
        result = a / b
    elif opcode == "frem":
        result = np.fmod(a, b)
    else:
        raise ValueError(f"unknown float operation {opcode}")
    return round_bfloat(result, ty)


def round_bfloat(values, ty: Type):
    """Round float32 values to bfloat16's precision (nearest even) when `ty` is bfloat."""
    if not is_bfloat(ty):
        return values
    bits = np.asarray(values, dtype=np.float32).view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) & np.uint32(0xFFFF0000)
    quiet = (bits | np.uint32(0x00400000)) & np.uint32(0xFFFF0000)  # a NaN stays a NaN (rounding could carry it away)
    return np.where(np.isnan(np.asarray(values, dtype=np.float32)), quiet, rounded).view(np.float32)


def float_compare(predicate: str, a, b):
    """fcmp with every ordered (o..) and unordered (u..) predicate, ord, uno, true, false."""
    a, b = np.asarray(a), np.asarray(b)
    if predicate in ("true", "false"):
        return np.full(np.broadcast(a, b).shape, predicate == "true")
    unordered = np.isnan(a) | np.isnan(b)
    if predicate == "ord":
        return ~unordered
    if predicate == "uno":
        return unordered
    ordered = _ORDER[predicate[1:]](a, b) & ~unordered
    return ordered if predicate[0] == "o" else ordered | unordered


# ---------------------------------------------------------------------------- casts


def cast(opcode: str, value, source: Type, target: Type):
    """Every LLVM cast, elementwise on vectors. Float-to-integer conversions saturate and
    map NaN to 0, as PTX's cvt.rzi does; pointer casts keep the tagged address."""
    if opcode == "bitcast":
        return bitcast(value, source, target)
    value = np.asarray(value)
    source, target = scalar_type(source), scalar_type(target)
    dtype = dtype_of(target)
    if opcode == "trunc":
        if dtype == np.bool_:
            return (value & 1).astype(np.bool_)
        return wrap(value.astype(dtype), target)
    if opcode == "zext":
        if value.dtype == np.bool_:
            return value.astype(dtype)
        return wrap(unsigned_of_width(value, source).astype(UNSIGNED[dtype]).view(dtype), target)
    if opcode == "sext":
        if value.dtype == np.bool_:
            return np.negative(value.astype(dtype))
        return wrap(value.astype(dtype), target)
    if opcode in ("fptrunc", "fpext"):
        return round_bfloat(value.astype(dtype), target)
    if opcode in ("fptosi", "fptoui"):
        return _float_to_int(value, target, signed=opcode == "fptosi")
    if opcode in ("sitofp", "uitofp"):
        return round_bfloat(_int_to_float(value, source, opcode == "sitofp").astype(dtype), target)
    if opcode in ("ptrtoint", "ptrtoaddr"):
        if getattr(source, "addrspace", 0) in WINDOWED_SPACES:
            value = value & OFFSET_MASK
        return value.astype(np.int64, copy=True) if target.bits == 64 else cast("trunc", value, I64, target)
    if opcode == "inttoptr":
        value = value.astype(np.int64, copy=True) if source.bits == 64 else cast("zext", value, source, I64)
        space = getattr(target, "addrspace", 0)
        if space in WINDOWED_SPACES:
            # a window address (an offset in the block's shared or the thread's local memory)
            untagged = (value >> SPACE_SHIFT) == 0
            value = np.where(untagged, value | np.int64(space << SPACE_SHIFT), value)
        return value
    if opcode == "addrspacecast":
        return value.copy()
    raise ValueError(f"unknown cast {opcode}")


def _int_to_float(value, source: Type, signed: bool):
    """Integers widened so that the final conversion rounds once (64-bit ones through the
    extended precision type)."""
    if value.dtype == np.bool_:
        return np.negative(value.astype(np.float64)) if signed else value.astype(np.float64)
    number = value if signed else unsigned_of_width(value, source)
    return number.astype(np.float64 if value.dtype.itemsize < 8 else np.longdouble)


def _float_to_int(value, target: Type, signed: bool):
    dtype = dtype_of(target)
    wide = np.asarray(value, dtype=np.float64)
    if dtype == np.bool_:
        return (np.trunc(np.nan_to_num(wide)) != 0)
    bits = target.bits
    low, high = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    truncated = np.trunc(wide)
    nan = np.isnan(wide)
    below, above = truncated <= low, truncated >= high
    inside = np.where(nan | below | above, 0, truncated).astype(np.int64 if signed else np.uint64)
    result = np.where(above, high, np.where(below, low, inside)).astype(np.int64 if signed else np.uint64)
    result = np.where(nan, 0, result).astype(result.dtype)
    if not signed:
        result = result.astype(UNSIGNED[dtype]).view(dtype) if dtype != np.int64 else result.view(np.int64)
    return wrap(result.astype(dtype), target)


def to_bytes(value, ty: Type) -> np.ndarray:
    """The little-endian bytes of a scalar or vector value: shape (threads, itemsize * n), or
    (itemsize * n,) for a constant. A bfloat is its 16 bits (the high half of the float32
    that carries it)."""
    if is_bfloat(ty):
        bits = round_bfloat(np.asarray(value, dtype=np.float32), ty).view(np.uint32) >> np.uint32(16)
        return to_bytes(bits.astype(np.uint16).view(np.int16), _bfloat_bits(ty))
    array = np.asarray(value, dtype=dtype_of(ty))
    if array.ndim == 0:  # a scalar constant
        return np.frombuffer(array.tobytes(), dtype=np.uint8)
    array = np.ascontiguousarray(array)
    if isinstance(ty, VectorType):
        return array.view(np.uint8).reshape(array.shape[:-1] + (-1,))
    return array.reshape(-1, 1).view(np.uint8)


def from_bytes(data: np.ndarray, ty: Type):
    """The value of type `ty` stored in `data` (shape (threads, bytes)); integers narrower
    than their dtype (i24, ...) are sign-extended; a bfloat's 16 bits are the high half of
    the float32 that carries it."""
    if is_bfloat(ty):
        bits = unsigned(from_bytes(data, _bfloat_bits(ty))).astype(np.uint32) << np.uint32(16)
        return bits.view(np.float32)
    dtype = dtype_of(ty)
    data = np.ascontiguousarray(data, dtype=np.uint8)
    if isinstance(ty, VectorType):
        return data.view(dtype).reshape(data.shape[0], ty.count)
    if dtype == np.bool_:
        return (data[:, 0] & 1).astype(bool)
    if data.shape[1] < dtype.itemsize:
        data = np.concatenate([data, np.zeros((data.shape[0], dtype.itemsize - data.shape[1]), np.uint8)], axis=1)
    return wrap(data[:, : dtype.itemsize].copy().view(dtype).reshape(data.shape[0]), ty)


def _bfloat_bits(ty: Type) -> Type:
    """The 16-bit integer type (or vector of them) holding a bfloat's (or bfloat vector's) bits."""
    return VectorType(ty.count, IntType(16)) if isinstance(ty, VectorType) else IntType(16)


def bitcast(value, source: Type, target: Type):
    """Reinterpret the bits of a value as another type of the same size."""
    if source == target:
        return np.array(value, copy=True)
    data = to_bytes(value, source)
    if data.ndim == 1:  # a constant
        return from_bytes(data.reshape(1, -1), target)[0]
    return from_bytes(data, target)
