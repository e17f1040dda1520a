"""A build's compile_commands.json (CMake's CMAKE_EXPORT_COMPILE_COMMANDS, Bear): the include
folders, macros and language standard each source is built with, as nvcc or clang would
be given them.

Only what shapes the device code is kept: -I/-isystem/-iquote folders, -D/-U, -std and
-include, and the build target an object belongs to (CMake names it in the object's path:
frontend.hostprogram links a target's sources as one program); nvcc's own options
(-gencode, -Xcompiler, --expt-relaxed-constexpr, ...) and everything about code generation
are dropped. Folders outside the allowed ones (the
repository and the user's -I) are dropped too, as a scan reads nothing else: a CUDA
installation's include folder is replaced by NVIDIA's headers Simulee brings."""

from __future__ import annotations

import json
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from simulee.errors import SimuleeError

NAMES = ("compile_commands.json",)


@dataclass(frozen=True)
class Entry:
    """What a source is compiled with."""

    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    clang_args: tuple[str, ...] = ()  # -U, -std=, -include
    target: str | None = None  # the build target whose object it is (CMake's CMakeFiles/<target>.dir), if known


def find(root: Path) -> Path | None:
    """ROOT/compile_commands.json, else the first ROOT/build*/compile_commands.json."""
    candidates = [root / "compile_commands.json"]
    candidates += sorted(path / "compile_commands.json" for path in root.glob("build*") if path.is_dir())
    return next((path for path in candidates if path.is_file()), None)


def load(path: Path, allowed: tuple[str, ...] | None = None) -> dict[str, Entry]:
    """The entries of a compilation database by each source's real absolute path; with
    `allowed`, include folders outside those folders are left out."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError) as error:
        raise SimuleeError(f"{path}: cannot read: {getattr(error, 'strerror', None) or error}") from None
    except json.JSONDecodeError as error:
        raise SimuleeError(f"{path}: not a compilation database: {error.msg} at line {error.lineno}") from None
    if not isinstance(data, list):
        raise SimuleeError(f"{path}: not a compilation database: expected a list of entries")
    entries = {}
    for number, item in enumerate(data):
        if not isinstance(item, dict) or "file" not in item or "directory" not in item or \
                not ("arguments" in item or "command" in item):
            raise SimuleeError(f"{path}: entry {number + 1} needs 'directory', 'file' and 'arguments' or 'command'")
        directory = Path(item["directory"])
        try:
            arguments = item["arguments"] if "arguments" in item else shlex.split(item["command"])
        except ValueError as error:
            raise SimuleeError(f"{path}: entry {number + 1}: {error}") from None
        file = os.path.realpath(directory / item["file"])
        entries[file] = _entry(arguments, directory, allowed)
    return entries


_CMAKE_TARGET = re.compile(r"CMakeFiles/([^/]+)\.dir/")
_FOLDER_OPTIONS = ("-I", "-isystem", "-iquote", "-idirafter", "--include-path")
_KEPT_WITH_VALUE = ("-include", "--pre-include")


def _entry(arguments: list[str], directory: Path, allowed: tuple[str, ...] | None) -> Entry:
    folders, defines, extra, target = [], [], [], None
    position = 1  # after the compiler
    while position < len(arguments):
        argument = arguments[position]
        value, step = _value(arguments, position)
        if argument.startswith(_FOLDER_OPTIONS):
            if value is not None:
                folder = os.path.realpath(directory / value)
                if allowed is None or any(folder == a or folder.startswith(a.rstrip(os.sep) + os.sep)
                                          for a in allowed):
                    folders.append(folder)
        elif argument.startswith(("-D", "--define-macro")):
            if value:
                defines.append(value)
        elif argument.startswith("-U") and value:
            extra.append(f"-U{value}")
        elif argument.startswith(("-std=", "--std=")):
            extra.append("-std=" + argument.split("=", 1)[1])
        elif argument in _KEPT_WITH_VALUE and position + 1 < len(arguments):
            included = os.path.realpath(directory / arguments[position + 1])
            if allowed is None or any(included.startswith(a.rstrip(os.sep) + os.sep) for a in allowed):
                extra += ["-include", included]
            step = 2
        elif argument == "-o" and position + 1 < len(arguments):
            named = _CMAKE_TARGET.search(arguments[position + 1].replace(os.sep, "/"))
            target = named and named.group(1)
            step = 2
        position += step
    return Entry(tuple(dict.fromkeys(folders)), tuple(defines), tuple(extra), target)


def _value(arguments: list[str], position: int) -> tuple[str | None, int]:
    """The value of an option that takes one (joined, after '=' or the next argument) and
    how many arguments the option took."""
    argument = arguments[position]
    for option in (*_FOLDER_OPTIONS, "-D", "--define-macro", "-U"):
        if argument == option:
            return (arguments[position + 1], 2) if position + 1 < len(arguments) else (None, 1)
        if argument.startswith(option):
            rest = argument[len(option):]
            return rest[1:] if rest.startswith("=") and option.startswith("--") else rest, 1
    return None, 1
