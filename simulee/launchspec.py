"""Launches as users write them on the command line: dimensions (64, 64,2, 8x8x1),
scalar arguments (n=1024) and buffers (x=float32:1024:iota, x=@data.npy), checked against
the kernel's parameters with one clear error per mistake."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from simulee.errors import SimuleeError

FILLS = ("zeros", "ones", "iota", "random")


def parse_dims(text: str, what: str) -> tuple[int, int, int]:
    """'64', '64,2' or '8x8x1' as (x, y, z)."""
    parts = re.split(r"[,x]", text.strip().lower())
    if not 1 <= len(parts) <= 3 or not all(p.strip().isdigit() for p in parts):
        raise SimuleeError(f"--{what} {text}: expected 1 to 3 positive integers like 64, 64,2 or 8x8x1")
    dims = [int(p) for p in parts] + [1] * (3 - len(parts))
    if min(dims) < 1:
        raise SimuleeError(f"--{what} {text}: dimensions must be at least 1")
    return tuple(dims)


def parse_block(text: str, what: str) -> tuple[int, int, int]:
    """Block dimensions: as parse_dims, at most 1024 threads in all."""
    block = parse_dims(text, what)
    if block[0] * block[1] * block[2] > 1024:
        raise SimuleeError(f"--{what} {text}: a block has at most 1024 threads")
    return block


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


def buffer_value(param, text: str, rng: np.random.Generator) -> np.ndarray:
    """A buffer written as DTYPE:COUNT[:FILL] or @file.npy."""
    if text.startswith("@"):
        path = Path(text[1:])
        try:
            return np.load(path, allow_pickle=False)
        except (OSError, ValueError) as error:
            raise SimuleeError(f"--buffer {param.name}={text}: cannot load {path}: {error}") from None
    parts = text.split(":")
    if len(parts) not in (2, 3):
        raise SimuleeError(f"--buffer {param.name}={text}: expected DTYPE:COUNT[:{'|'.join(FILLS)}] or @file.npy")
    try:
        dtype = np.dtype(parts[0])
    except TypeError:
        raise SimuleeError(f"--buffer {param.name}={text}: unknown dtype '{parts[0]}'") from None
    if not parts[1].isdigit() or int(parts[1]) < 1:
        raise SimuleeError(f"--buffer {param.name}={text}: COUNT must be a positive integer")
    count = int(parts[1])
    fill = parts[2] if len(parts) == 3 else "zeros"
    if fill not in FILLS:
        raise SimuleeError(f"--buffer {param.name}={text}: fill must be one of {', '.join(FILLS)}")
    if fill == "zeros":
        return np.zeros(count, dtype=dtype)
    if fill == "ones":
        return np.ones(count, dtype=dtype)
    if fill == "iota":
        return np.arange(count).astype(dtype)
    if dtype.kind == "f":
        return rng.random(count).astype(dtype)
    if dtype.kind in "iub":
        return rng.integers(0, 256, size=count * dtype.itemsize, dtype=np.uint8).view(dtype)
    raise SimuleeError(f"--buffer {param.name}={text}: cannot fill dtype {dtype} randomly")


def launch_arguments(kernel, args: list[str], buffers: list[str], seed: int, require_scalars: bool = True) -> dict:
    """Kernel arguments from --arg and --buffer options. Every scalar parameter needs a value
    (unless `require_scalars` is False); pointers without --buffer get paged buffers."""
    by_name = {p.name: p for p in kernel.params}
    values: dict[str, object] = {}
    rng = np.random.default_rng(seed)
    for text in args:
        name, value = parse_assignment(text, "--arg")
        param = _param(by_name, name, kernel, "--arg")
        values[name] = scalar_value(param, value)
    for text in buffers:
        name, value = parse_assignment(text, "--buffer")
        param = _param(by_name, name, kernel, "--buffer")
        if param.kind != "pointer" and not (param.kind == "integer" and param.bits == 64):
            raise SimuleeError(f"--buffer {name}: parameter of type {param.c_type or param.ir_type} is not a pointer")
        values[name] = buffer_value(param, value, rng)
    missing = [p.name for p in kernel.params if p.kind in ("integer", "float") and p.name not in values]
    if missing and require_scalars:
        raise SimuleeError(f"no value for scalar parameter{'s' if len(missing) > 1 else ''} "
                           f"{', '.join(missing)} of {kernel.name} (use --arg NAME=VALUE)")
    return values


def _param(by_name: dict, name: str, kernel, option: str):
    if name not in by_name:
        raise SimuleeError(f"{option} {name}: {kernel.name} has no parameter '{name}' "
                           f"(parameters: {', '.join(by_name) or 'none'})")
    return by_name[name]
