"""What each command is asked, as typed options: one frozen dataclass per command, its
fields named as the command line's options (`--max-seconds` is `max_seconds`), with the
same defaults (tests/test_app.py holds the two to each other).

The command line makes them from what it parsed (`of`); the Python API, the server and an
editor make them from keywords (`given`), each value read as the command line reads it:
the converters below are the command line's `type=` too, so a value it would reject is
rejected with its message, as a SimuleeError.
"""

from __future__ import annotations

import argparse
import os
import re
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from interpreter.limits import DEFAULT_HEAP_BYTES, FILLS, MAX_SHARED_BYTES
from simulee.errors import SimuleeError
from simulee.frontend.compiler import DEFAULT_ARCH, CompileOptions

# ---------------------------------------------------------------------------- values as the command line reads them


def size(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"'{text}' must not be negative")
    return value


def positive(text: str) -> int:
    value = size(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"'{text}' must be at least 1")
    return value


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"'{text}' must be more than 0")
    return value


def number_of_bytes(text: str) -> int:
    """A size in bytes: 4096, 512K, 64M, 4G (binary multiples)."""
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    number, unit = (text[:-1], units[text[-1].upper()]) if text and text[-1].upper() in units else (text, 1)
    try:
        value = float(number) * unit
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a size (e.g. 4G, 512M)") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"'{text}' must not be negative")
    return int(value)


def shared_bytes(text: str) -> int:
    value = size(text)
    if value > MAX_SHARED_BYTES:
        raise argparse.ArgumentTypeError(f"'{text}' is more than the {MAX_SHARED_BYTES} bytes a CUDA block may have")
    return value


def heap_bytes(text: str) -> int:
    from simulee.checker.launchspec import available_memory

    value = number_of_bytes(text)
    if not 0 < value <= available_memory():
        raise argparse.ArgumentTypeError(f"'{text}' must be more than 0 and at most the memory available")
    return value


def detectors(text: str) -> tuple[str, ...]:
    from simulee import detect

    asked = tuple(name.strip() for name in text.split(",") if name.strip())
    unknown = [name for name in asked if name not in (*detect.names(), "all")]
    if unknown or not asked:
        raise argparse.ArgumentTypeError(f"'{text}': expected detector names among "
                                         f"{', '.join(detect.names())}, or all")
    return asked


def target(text: str) -> int:
    match = re.fullmatch(r"(?:sm_|compute_)?(\d+)", text.strip())
    if not match:
        raise argparse.ArgumentTypeError(f"'{text}': expected an architecture such as sm_70")
    return int(match.group(1))


def finding_types(text: str) -> frozenset[str]:
    from simulee import detect

    asked = {name.strip() for name in text.split(",") if name.strip()}
    unknown = sorted(asked - set(detect.rules()))
    if unknown or not asked:
        raise argparse.ArgumentTypeError(f"'{text}': expected finding types among {', '.join(detect.rules())}")
    return frozenset(asked)


def _read(parse=None, choices: tuple = (), flag: str = "", joined: bool = False):
    """A field's metadata: how a keyword's value is read (as the option's text), what it
    may be, its flag when it is not --NAME, and whether the option's one text holds a
    list, comma-separated (a list given for it is joined so)."""
    return {"parse": parse, "choices": choices, "flag": flag, "joined": joined}


def _option(default, parse=None, choices: tuple = (), flag: str = "", joined: bool = False):
    return field(default=default, metadata=_read(parse, choices, flag, joined))


WARP_MODELS = ("independent", "lockstep")

# ---------------------------------------------------------------------------- option groups


@dataclass(frozen=True)
class Args:
    """What every command that compiles is asked (the compilation options)."""

    include_dirs: tuple = _option((), flag="-I")
    defines: tuple = _option((), flag="-D")
    clang: str | None = None
    clang_args: tuple = _option((), flag="--clang-arg")
    arch: str = DEFAULT_ARCH
    compile_commands: str | None = None
    gpuverify_annotations: bool = False
    verbose: bool = False

    @classmethod
    def of(cls, namespace: argparse.Namespace, **overrides):
        """The options the command line parsed (lists as tuples), with `overrides`."""
        values = {f.name: getattr(namespace, f.name) for f in fields(cls) if hasattr(namespace, f.name)}
        values = {name: tuple(value) if isinstance(value, list) else value for name, value in values.items()}
        return cls(**{**values, **overrides})

    @classmethod
    def given(cls, command: str, **keywords):
        """The options `keywords` give, each read as the command line reads its option
        (a list for a repeatable one); TypeError for a keyword the command has no option
        for, SimuleeError with the command line's message for a value it would reject."""
        known = {f.name: f for f in fields(cls)}
        values = {}
        for name, value in keywords.items():
            if name not in known:
                raise TypeError(f"simulee {command} has no option '{name}' (options: {', '.join(sorted(known))})")
            if value is not None:
                values[name] = _value(known[name], value)
        return cls(**values)

    def but(self, **changes):
        return replace(self, **changes)

    def compile_options(self) -> CompileOptions:
        """The compiler's options, checked: -D's form, -I's folders, --arch's range."""
        for define in self.defines:
            if not define or define.startswith("=") or " " in define.partition("=")[0]:
                raise SimuleeError(f"malformed -D option: '{define}' (expected NAME or NAME=VALUE)")
        for directory in self.include_dirs:
            if not Path(directory).is_dir():
                raise SimuleeError(f"-I {directory}: no such folder")
        if not re.fullmatch(r"sm_\d{2,3}[af]?", self.arch) or not 50 <= int(re.sub(r"\D", "", self.arch)) <= 121:
            raise SimuleeError(f"--arch {self.arch}: expected a GPU architecture from sm_50 to sm_121, such as sm_70")
        if self.compile_commands and not Path(self.compile_commands).is_file():
            raise SimuleeError(f"--compile-commands {self.compile_commands}: no such file")
        return CompileOptions(tuple(self.include_dirs), tuple(self.defines), self.clang, self.gpuverify_annotations,
                              clang_args=tuple(self.clang_args), arch=self.arch,
                              compile_commands=self.compile_commands and os.path.abspath(self.compile_commands))


def _value(option, value):
    """A keyword's value as the command line would read the option's text."""
    parse, choices = option.metadata.get("parse"), option.metadata.get("choices", ())
    flag = option.metadata.get("flag") or "--" + option.name.replace("_", "-")
    if isinstance(option.default, bool) or isinstance(value, bool):
        return bool(value)
    joined = option.metadata.get("joined", False)
    if joined and isinstance(value, (list, tuple)):
        value = ",".join(map(str, value))
    many = isinstance(option.default, tuple) and not joined
    items = list(value) if many and isinstance(value, (list, tuple)) else [value]
    read = []
    for item in items:
        if isinstance(item, tuple):  # (name, array): a buffer the API attaches
            read.append(item)
            continue
        text = str(item)
        if choices and text not in choices:
            raise SimuleeError(f"argument {flag}: invalid choice: '{text}' (choose from {', '.join(choices)})")
        try:
            read.append(parse(text) if parse else text)
        except argparse.ArgumentTypeError as error:
            raise SimuleeError(f"argument {flag}: {error}") from None
        except ValueError:
            raise SimuleeError(f"argument {flag}: invalid {getattr(parse, '__name__', '')} value: '{text}'") from None
    return tuple(read) if many else read[0]


@dataclass(frozen=True)
class Executing:
    """How launches run (the execution options)."""

    shared_bytes: int = _option(48 * 1024, shared_bytes)
    seed: int = _option(0, size)
    step_limit: int | None = _option(None, positive)
    max_seconds: float | None = _option(None, seconds)
    heap_bytes: int = _option(DEFAULT_HEAP_BYTES, heap_bytes)


@dataclass(frozen=True)
class Launching:
    """What a launch is given (the launch options)."""

    kernel: str | None = None
    grid: str | None = _option(None, joined=True)  # "4,2", or (4, 2) from the API
    block: str | None = _option(None, joined=True)
    arg: tuple = ()
    buffer: tuple = ()
    alias: tuple = ()
    fill: str | None = _option(None, choices=FILLS)
    buffer_cast: bool = False


@dataclass(frozen=True)
class Searching:
    """How kernels are checked when launches are searched (the search options)."""

    warp_model: str = _option("independent", choices=WARP_MODELS)
    target: int = _option(0, target)
    seed_launches: Path | None = _option(None, Path)
    no_prove: bool = False
    fail_on: frozenset | None = _option(None, finding_types)
    baseline: Path | None = _option(None, Path)
    new_only: bool = False
    detect: tuple = _option((), detectors, joined=True)
    population: int = _option(10, positive)
    generations: int = _option(10, size)
    launches: int = _option(3, positive)
    max_blocks: int = _option(32, positive)
    config: str | None = None
    host: tuple = ()
    launch_sites: bool = True


# ---------------------------------------------------------------------------- commands


@dataclass(frozen=True)
class KernelsArgs(Args):
    path: str = ""
    format: str = _option("text", choices=("text", "json"))


@dataclass(frozen=True)
class RunArgs(Launching, Executing, Args):
    path: str = ""
    printf: bool = False
    output: str | None = None
    trace: str | None = None
    quiet: bool = False


@dataclass(frozen=True)
class CheckArgs(Searching, Launching, Executing, Args):
    path: str = ""  # one FILE or DIR (the command line's several are checked one after the other)
    replay: Path | None = _option(None, Path)
    launch: tuple = ()
    format: str = _option("text", choices=("text", "json", "csv", "sarif"))
    output: str | None = None
    barriers: bool = False
    no_search: bool = False
    quiet: bool = False


@dataclass(frozen=True)
class ProveArgs(Args):
    path: str = ""
    kernel: tuple = ()
    format: str = _option("text", choices=("text", "json", "sarif"))
    query_seconds: float = _option(5.0, seconds)
    kernel_seconds: float = _option(60.0, seconds)
    warp_model: str = _option("independent", choices=WARP_MODELS)
    grid: str | None = _option(None, joined=True)  # "4,2", or (4, 2) from the API
    block: str | None = _option(None, joined=True)
    arg: tuple = ()
    host: tuple = ()
    launch_sites: bool = True
    config: str | None = None


@dataclass(frozen=True)
class EquivArgs(Executing, Args):
    old: str = ""
    new: str = ""
    map: tuple = ()
    grid: str | None = _option(None, joined=True)  # "4,2", or (4, 2) from the API
    block: str | None = _option(None, joined=True)
    arg: tuple = ()
    buffer: tuple = ()
    fill: str | None = _option(None, choices=FILLS)
    rtol: float = _option(0.0, float)
    atol: float = _option(0.0, float)
    no_search: bool = False
    launch_sites: bool = True
    no_prove: bool = False
    population: int = _option(8, positive)
    generations: int = _option(6, positive)
    warp_model: str = _option("independent", choices=WARP_MODELS)
    format: str = _option("text", choices=("text", "json"))
    quiet: bool = False


@dataclass(frozen=True)
class ScanArgs(Searching, Executing, Args):
    path: str = ""
    output: str | None = None
    jobs: int = _option(len(os.sched_getaffinity(0)), positive)
    scheduler: str | None = None
    resume: bool = False
    kernel_timeout: float = _option(120.0, seconds)
    compile_timeout: float = _option(300.0, seconds)
    memory_limit: int = _option(8 << 30, number_of_bytes)
    include: tuple = ()
    exclude: tuple = ()
    all_instances: bool = False
    project: str | None = None
    quiet: bool = False
