"""Launches of a whole program saved to run again on their own.

`simulee exec --save-launches DIR` writes each launch it runs to DIR/NNNN (its number):
`launch.json` (the kernel, dimensions, dynamic shared memory, the argument values as the
program passed them, the program's sources and compile options, and every region of
device memory with its number, name, space, size and host address) and `memory.npz` (the
bytes of each region just before the launch). `simulee check --replay DIR/NNNN` builds the
device code again, puts every region back at its number (so the pointers the arguments and
the memory hold stay valid) and checks that one launch on it. `check --seed-launches DIR`
starts the input search from the dimensions and numbers of every launch saved there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from interpreter.launch import Launch
from interpreter.memory import CONSTANT, GLOBAL, Memory
from simulee.errors import SimuleeError
from simulee.frontend.compiler import CompileOptions

FORMAT = 1


def save(folder: Path, device, launch, record, options: CompileOptions, sources: list[Path]) -> None:
    """Write `launch` (about to run on `device`; DeviceLaunch `record`) to folder/NNNN."""
    target = folder / f"{record.number:04d}"
    target.mkdir(parents=True, exist_ok=True)
    regions, arrays = [], {}
    for number, region in enumerate(device.memory.regions):
        if region is None or region.size is None:
            continue
        host = next((base for base, mapped in device.memory.host_ranges.items() if mapped == number), 0)
        regions.append({"number": number, "name": region.name, "space": region.space, "size": region.size,
                        "read_only": region.read_only, "host": host})
        arrays[f"r{number}"] = np.array(region.data[: region.size])
    np.savez(target / "memory.npz", **arrays)
    description = {
        "format": FORMAT, "number": record.number, "kernel": record.kernel.symbol, "name": record.kernel.name,
        "site": record.where, "grid": list(launch.grid), "block": list(launch.block),
        "shared_bytes": launch.shared_bytes, "arguments": {name: _value(value) for name, value in launch.args.items()},
        "sources": [str(source.resolve()) for source in sources],
        "options": {"include_dirs": [str(Path(d).resolve()) for d in options.include_dirs],
                    "defines": list(options.defines), "clang_args": list(options.clang_args), "arch": options.arch},
        "globals": {name: int(address) for name, address in device.addresses.items()},
        "regions": regions,
    }
    (target / "launch.json").write_text(json.dumps(description, indent=1) + "\n")


def _value(value):
    from simulee.exec.device import Pointer

    if isinstance(value, Pointer):
        return {"pointer": int(value)}
    if isinstance(value, (bytes, bytearray)):
        return {"bytes": bytes(value).hex()}
    if isinstance(value, (np.floating, float)):
        return {"float": float(value), "bits": int(np.asarray(value).itemsize * 8)}
    return int(value)


@dataclass
class SavedDevice:
    """A saved launch's device memory, as a Launch's `device` (Placement reads `addresses`)."""

    memory: Memory
    addresses: dict


@dataclass
class Saved:
    sources: list[Path]
    options: CompileOptions
    kernel: str
    launch: Launch


def load(folder: Path) -> Saved:
    """The saved launch in `folder` (SimuleeError when it is not one)."""
    description_path, memory_path = folder / "launch.json", folder / "memory.npz"
    if not description_path.is_file() or not memory_path.is_file():
        raise SimuleeError(f"{folder}: not a saved launch (no launch.json and memory.npz; simulee exec "
                           "--save-launches writes them)")
    try:
        description = json.loads(description_path.read_text())
        if description.get("format") != FORMAT:
            raise SimuleeError(f"{folder}: a saved launch of another format ({description.get('format')})")
        arrays = np.load(memory_path, allow_pickle=False)
        memory = Memory()
        for entry in sorted(description["regions"], key=lambda entry: entry["number"]):
            while len(memory.regions) < entry["number"]:
                memory.regions.append(None)
            data = np.zeros(max(16, (entry["size"] + 15) // 16 * 16), dtype=np.uint8)
            data[: entry["size"]] = arrays[f"r{entry['number']}"]
            space = CONSTANT if entry["space"] == CONSTANT else GLOBAL
            memory.add_view(entry["name"], space, data, entry["size"], entry["read_only"])
            if entry["host"]:
                memory.map_host(entry["host"], entry["number"])
        options = description["options"]
        compile_options = CompileOptions(tuple(options["include_dirs"]), tuple(options["defines"]),
                                         clang_args=tuple(options["clang_args"]), arch=options["arch"])
        device = SavedDevice(memory, {name: int(address) for name, address in description["globals"].items()})
        arguments = {name: _argument(value) for name, value in description["arguments"].items()}
        launch = Launch(tuple(description["grid"]), tuple(description["block"]), arguments,
                        shared_bytes=description["shared_bytes"], device=device,
                        origin=f"launch {description['number']}" + (f" at {description['site']}"
                                                                       if description.get("site") else "")
                        + " (replayed)")
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise SimuleeError(f"{folder}: a damaged saved launch: {error}") from None
    return Saved([Path(source) for source in description["sources"]], compile_options, description["kernel"], launch)


def _argument(value):
    from simulee.exec.device import Pointer

    if isinstance(value, dict) and "pointer" in value:
        return Pointer(value["pointer"])
    if isinstance(value, dict) and "bytes" in value:
        return bytes.fromhex(value["bytes"])
    if isinstance(value, dict) and "float" in value:
        return {16: np.float16, 32: np.float32, 64: np.float64}[value["bits"]](value["float"])
    return int(value)


def seeds(folder: Path) -> dict[str, list[Launch]]:
    """The launches saved under `folder` (folder/NNNN/launch.json), by kernel symbol: their
    dimensions, dynamic shared memory and number arguments (pointers and structs left to
    the search)."""
    if not folder.is_dir():
        raise SimuleeError(f"--seed-launches {folder}: no such folder")
    found: dict[str, list[Launch]] = {}
    for path in sorted(folder.glob("*/launch.json")):
        try:
            description = json.loads(path.read_text())
            numbers = {name: _argument(value) for name, value in description["arguments"].items()
                       if not isinstance(value, dict) or "float" in value}
            found.setdefault(description["kernel"], []).append(
                Launch(tuple(description["grid"]), tuple(description["block"]), numbers,
                       shared_bytes=description["shared_bytes"]))
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise SimuleeError(f"{path}: a damaged saved launch: {error}") from None
    if not found:
        raise SimuleeError(f"--seed-launches {folder}: no saved launch in it "
                           "(simulee exec --save-launches writes them)")
    return found
