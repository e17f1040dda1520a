"""Launches as users write them on the command line: dimensions (64, 64,2, 8x8x1),
scalar arguments (n=1024) and buffers (x=float32:1024:iota, x=@data.npy), checked against
the kernel's parameters with one clear error per mistake."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import numpy as np

from interpreter.launch import BLOCK_LIMITS, GRID_LIMITS, Alias, launch_problem
from interpreter.placement import element_dtype
from simulee.errors import SimuleeError

FILLS = ("zeros", "ones", "iota", "random")
NUMERIC_KINDS = "biufc"
MAX_BUFFER_BYTES = 1 << 40  # a memory region's offsets have 40 bits


def parse_dims(text: str, what: str) -> tuple[int, int, int]:
    """Grid dimensions '64', '64,2' or '8x8x1' as (x, y, z), within CUDA's limits."""
    return _dims(text, what, GRID_LIMITS)


def parse_block(text: str, what: str) -> tuple[int, int, int]:
    """Block dimensions as parse_dims, within CUDA's limits (1,024 threads in all)."""
    block = _dims(text, what, BLOCK_LIMITS)
    problem = launch_problem((1, 1, 1), block)
    if problem:
        raise SimuleeError(f"--{what} {text}: {problem}")
    return block


def _dims(text: str, what: str, limits: tuple[int, int, int]) -> tuple[int, int, int]:
    parts = [part.strip() for part in re.split(r"[,x]", text.strip().lower())]
    if not 1 <= len(parts) <= 3 or not all(part.isdigit() and part.isascii() for part in parts):
        raise SimuleeError(f"--{what} {text}: expected 1 to 3 positive integers like 64, 64,2 or 8x8x1")
    dims = [int(part) for part in parts] + [1] * (3 - len(parts))
    if min(dims) < 1:
        raise SimuleeError(f"--{what} {text}: dimensions must be at least 1")
    for axis, size, limit in zip("xyz", dims, limits):
        if size > limit:
            raise SimuleeError(f"--{what} {text}: {axis} is at most {limit:,} in CUDA")
    return tuple(dims)


def parse_assignment(text: str, option: str) -> tuple[str, str]:
    name, equals, value = text.partition("=")
    if not equals or not name.strip() or not value.strip():
        raise SimuleeError(f"{option} {text}: expected NAME=VALUE")
    return name.strip(), value.strip()


def scalar_value(param, text: str):
    """The value of scalar parameter `param` written as `text`."""
    try:
        if param.kind == "float":
            return float(text)
        if param.kind == "integer":
            if text.lower() in ("true", "false"):
                return int(text.lower() == "true")
            value = int(text, 0)
            bits = param.bits or 64
            low = -(1 << (bits - 1)) if param.signed is not False else 0
            high = (1 << bits) - 1 if param.signed is not True else (1 << (bits - 1)) - 1
            if not low <= value <= high:
                raise SimuleeError(f"--arg {param.name}={text}: out of range for {param.c_type or param.ir_type}")
            return value
    except ValueError:
        raise SimuleeError(f"--arg {param.name}={text}: not a valid {param.c_type or param.kind}") from None
    raise SimuleeError(f"--arg {param.name}: parameter of type {param.c_type or param.ir_type} takes no number "
                       "(pointers take --buffer)")


def buffer_value(param, text: str, rng: np.random.Generator, cast: bool = False) -> np.ndarray:
    """A buffer written as DTYPE:COUNT[:FILL] or @file.npy (or a NumPy array): numeric, little-endian (as the
    device is), within the memory free on this machine, and of the element type the
    parameter points to (or, with `cast`, converted to it)."""
    if isinstance(text, np.ndarray):  # given by the Python API
        option = f"buffer {param.name}"
        data = np.ascontiguousarray(text).reshape(-1)
        _numeric(data.dtype, option)
    else:
        option = f"--buffer {param.name}={text}"
        data = _load_npy(Path(text[1:]), option) if text.startswith("@") else _filled(text, option, rng)
    return _element_typed(param, _little_endian(data), option, cast)


def _load_npy(path: Path, option: str) -> np.ndarray:
    try:
        data = np.load(path, allow_pickle=False, mmap_mode="r")
    except (OSError, ValueError, EOFError) as error:
        raise SimuleeError(f"{option}: cannot load {path}: {_one_line(error)}") from None
    if not isinstance(data, np.ndarray):
        raise SimuleeError(f"{option}: {path} holds several arrays (.npz); give one .npy file")
    _numeric(data.dtype, option)
    _affordable(data.nbytes, option)
    try:
        return np.array(data, copy=True).reshape(-1)
    except MemoryError:
        raise SimuleeError(f"{option}: not enough memory for {_bytes(data.nbytes)}") from None


def _filled(text: str, option: str, rng: np.random.Generator) -> np.ndarray:
    parts = text.split(":")
    if len(parts) not in (2, 3):
        raise SimuleeError(f"{option}: expected DTYPE:COUNT[:{'|'.join(FILLS)}] or @file.npy")
    try:
        dtype = np.dtype(parts[0])
    except (TypeError, ValueError, SyntaxError):
        raise SimuleeError(f"{option}: unknown dtype '{parts[0]}'") from None
    _numeric(dtype, option)
    if not (parts[1].isdigit() and parts[1].isascii()) or int(parts[1]) < 1:
        raise SimuleeError(f"{option}: COUNT must be a positive integer")
    count = int(parts[1])
    _affordable(count * dtype.itemsize, option)
    fill = parts[2] if len(parts) == 3 else "zeros"
    if fill not in FILLS:
        raise SimuleeError(f"{option}: fill must be one of {', '.join(FILLS)}")
    try:
        if fill == "zeros":
            return np.zeros(count, dtype=dtype)
        if fill == "ones":
            return np.ones(count, dtype=dtype)
        if fill == "iota":
            return np.arange(count).astype(dtype)
        if dtype.kind in "fc":
            return rng.random(count).astype(dtype)
        return rng.integers(0, 256, size=count * dtype.itemsize, dtype=np.uint8).view(dtype)
    except MemoryError:
        raise SimuleeError(f"{option}: not enough memory for {_bytes(count * dtype.itemsize)}") from None


def _numeric(dtype: np.dtype, option: str) -> None:
    """Only numbers are device memory: no strings, objects, dates or records."""
    if dtype.kind not in NUMERIC_KINDS or dtype.fields is not None or dtype.subdtype is not None:
        raise SimuleeError(f"{option}: dtype {dtype} is not numeric (use bool, intN, uintN, floatN or complexN)")


def _affordable(nbytes: int, option: str) -> None:
    """A buffer must fit in the memory this process can still get, and in a region."""
    room = min(available_memory(), MAX_BUFFER_BYTES)
    if nbytes > room:
        raise SimuleeError(f"{option}: {_bytes(nbytes)} is more than the memory available ({_bytes(room)})")


def available_memory() -> int:
    """Bytes this process may still allocate: the machine's available memory, within its
    address-space limit."""
    import resource

    try:
        with open("/proc/meminfo") as meminfo:
            fields = dict(line.split(":", 1) for line in meminfo if ":" in line)
        free = int(fields["MemAvailable"].split()[0]) * 1024
    except (OSError, ValueError, KeyError):
        try:
            free = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError):
            free = MAX_BUFFER_BYTES
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return min(free, soft) if soft != resource.RLIM_INFINITY else free


def _little_endian(data: np.ndarray) -> np.ndarray:
    """Big-endian data (a .npy written elsewhere) converted to the device's byte order."""
    if data.dtype.byteorder == ">" or (data.dtype.byteorder == "=" and sys.byteorder == "big"):
        return data.astype(data.dtype.newbyteorder("<"))
    return data


def _element_typed(param, data: np.ndarray, option: str, cast: bool) -> np.ndarray:
    """`data` as elements of what `param` points to: the same kind and width, or with
    `cast` converted as C converts (values the element type cannot hold are refused)."""
    target = element_dtype(param)
    if target is None or _same_element(data.dtype, target):
        return data
    pointee = param.pointee or "its element type"
    if not cast:
        raise SimuleeError(f"{option}: {data.dtype} data for a pointer to {pointee} ({target}); give {target} data "
                           "or add --buffer-cast to convert it")
    real = data.real if data.dtype.kind == "c" else data
    with np.errstate(all="ignore"):
        converted = real.astype(target)
        if target.kind in "iub" and real.dtype.kind == "f":
            bad = ~np.isfinite(real) | (np.trunc(real) != converted)
        elif target.kind in "iu":
            bad = converted.astype(real.dtype) != real
        else:
            bad = np.isfinite(real) & ~np.isfinite(converted)
    if np.any(bad):
        raise SimuleeError(f"{option}: --buffer-cast cannot convert {real[np.flatnonzero(bad)[0]]} to {target}")
    return converted


def _same_element(given: np.dtype, target: np.dtype) -> bool:
    """Whether data of dtype `given` already are elements of `target`: the same width,
    both integers (signedness is how the kernel reads them) or both floating point."""
    integers = "iub"
    return given.itemsize == target.itemsize and (given.kind in integers) == (target.kind in integers) and \
        given.kind != "c"


def _bytes(count: int) -> str:
    for unit, size in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{count / size:.1f} {unit}"
    return f"{count} bytes"


def _one_line(error: Exception) -> str:
    return " ".join(str(error).split())


def launch_arguments(kernel, args: list[str], buffers: list[str], seed: int, require_scalars: bool = True,
                     cast: bool = False, aliases: list[str] = ()) -> dict:
    """Kernel arguments from --arg, --buffer and --alias options, each parameter (or member
    of a struct passed by value, "dim.rows") given once. Every
    scalar parameter needs a value (unless `require_scalars` is False); pointers without
    --buffer get paged buffers. `cast` converts buffers to their element types."""
    by_name = {p.name: p for p in kernel.params}
    by_name.update({f.name: f for p in kernel.params for f in p.fields if f.kind != "pointer"})  # "dim.rows"
    values: dict[str, object] = {}
    rng = np.random.default_rng(seed)
    for option, texts in (("--arg", args), ("--buffer", buffers)):
        for text in texts:  # NAME=VALUE, or (NAME, array) from the Python API
            name, value = text if isinstance(text, tuple) else parse_assignment(text, option)
            param = _param(by_name, name, kernel, option)
            if option == "--buffer" and param.kind != "pointer" and not (param.kind == "integer" and param.bits == 64):
                raise SimuleeError(f"--buffer {name}: parameter of type {param.c_type or param.ir_type} "
                                   "is not a pointer")
            if name in values:
                raise SimuleeError(f"{option} {name}: {name} is given twice (each parameter takes one value)")
            values[name] = scalar_value(param, value) if option == "--arg" else buffer_value(param, value, rng, cast)
    for text in aliases:
        name, target = parse_assignment(text, "--alias")
        param, other = _param(by_name, name, kernel, "--alias"), _param(by_name, target, kernel, "--alias")
        if param.kind != "pointer" or other.kind != "pointer" or name == target:
            raise SimuleeError(f"--alias {name}={target}: names two different pointer parameters")
        if name in values or isinstance(values.get(target), Alias):
            raise SimuleeError(f"--alias {name}={target}: {name if name in values else target} is given already")
        values[name] = Alias(target)
    if require_scalars:
        require_values(kernel, values)
    return values


def require_values(kernel, values: dict) -> None:
    """An error unless every scalar parameter has a value."""
    missing = [p.name for p in kernel.params if p.kind in ("integer", "float") and p.name not in values]
    if missing:
        raise SimuleeError(f"no value for scalar parameter{'s' if len(missing) > 1 else ''} "
                           f"{', '.join(missing)} of {kernel.name} (use --arg NAME=VALUE)")


def _param(by_name: dict, name: str, kernel, option: str):
    if name not in by_name:
        raise SimuleeError(f"{option} {name}: {kernel.name} has no parameter '{name}' "
                           f"(parameters: {', '.join(by_name) or 'none'})")
    param = by_name[name]
    if option == "--buffer" and "." in name and param not in kernel.params:
        raise SimuleeError(f"--buffer {name}: a member of a struct takes --arg, not --buffer")
    return param
