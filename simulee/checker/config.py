"""Contracts a user states in `simulee.toml`: how kernels are launched and called where the
host code does not say it (or says it where Simulee cannot read it), and which findings to
suppress.

```toml
[[kernel]]                       # every [[kernel]] entry that matches a kernel applies, in order
name = "ScaleUp"                 # a kernel name or glob (default "*"); scale matches scale<float>
file = "src/*.cu"                # a file glob, relative to this file's folder (default: any file)
launches = ["40x30/16x4/width=640/pitch=640/height=480/newpitch=1280"]  # exact launches, as --launch
grid = "8x8"                     # or fix the grid and/or block and let the search vary the rest
block = "16x4"
fill = "distinct"                # what buffers hold, as --fill
args = { width = 640, height = "1..1080", mode = [0, 2], "dim.rows" = 64 }  # a value, a range, choices
relations = ["newpitch >= 2 * width", "n % 32 == 0", "power_of_two(stride)", "blockDim.x == 256"]
buffers = { flags = "int32:n:bits", index = "int32:n:exclusive_scan(flags)", table = "@table.npy" }
symbols = { offsets = "int32:4:iota" }  # what a __constant__ or __device__ variable the host writes holds
aliases = { out = "in" }         # out is the same buffer as in

[[suppress]]                     # findings matching every key given are suppressed
rule = "data-race"               # a finding type, or "*"
file = "legacy/*.cu"
kernel = "old_*"
reason = "known; rewritten in #12"
```

Relations are expressions over the kernel's scalar parameters (a struct's members as
`dim.rows`), `blockDim.x`/`gridDim.x` (y, z), numbers, `+ - * / // % **`, comparisons,
`and`/`or`/`not` and the functions `power_of_two`, `min`, `max`, `abs`. A buffer is
`DTYPE:COUNT[:CONTENT]`, COUNT an expression over the arguments, CONTENT one of
BUFFER_CONTENTS or `exclusive_scan(OTHER)` (the running sum of another stated buffer,
before each element: the offsets a stream compaction writes to), or `@FILE.npy`.
"""

from __future__ import annotations

import ast
import fnmatch
import operator
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import numpy as np

from interpreter.contents import Fill
from interpreter.limits import FILLS
from simulee.errors import SimuleeError

CONFIG_NAME = "simulee.toml"
BUFFER_CONTENTS = ("zeros", "ones", "iota", "bits", "permutation", "small", "wide", "distinct", "sorted")
KERNEL_KEYS = {"name", "file", "launches", "grid", "block", "fill", "args", "relations", "buffers", "symbols",
               "aliases"}
SUPPRESS_KEYS = {"rule", "file", "kernel", "reason"}
_SCAN = re.compile(r"exclusive_scan\((\w+)\)$")


class ConfigError(SimuleeError):
    """A simulee.toml that cannot be used: one line naming the file and the mistake."""


# ---------------------------------------------------------------------------- relations


_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
           ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
           ast.LShift: operator.lshift, ast.RShift: operator.rshift}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge}
_FUNCTIONS = {"power_of_two": lambda x: x > 0 and int(x) == x and int(x) & (int(x) - 1) == 0,
              "min": min, "max": max, "abs": abs}


@dataclass(frozen=True)
class Expression:
    """An arithmetic or logical expression over named values (a relation, a buffer's
    count), parsed once; `names` are the values it reads."""

    text: str
    tree: ast.Expression = field(compare=False)
    names: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, text: str, where: str) -> "Expression":
        try:
            tree = ast.parse(text.strip(), mode="eval")
        except SyntaxError:
            raise ConfigError(f"{where}: '{text}' is not an expression") from None
        names = set()
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Expression, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Call,
                                     ast.Name, ast.Attribute, ast.Constant, ast.Load, ast.operator, ast.unaryop,
                                     ast.boolop, ast.cmpop)):
                raise ConfigError(f"{where}: '{text}' uses {type(node).__name__}, which a relation cannot")
            if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _FUNCTIONS):
                raise ConfigError(f"{where}: '{text}' calls something other than {', '.join(_FUNCTIONS)}")
            if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float)):
                raise ConfigError(f"{where}: '{text}' holds {node.value!r}, not a number")
            if isinstance(node, (ast.Name, ast.Attribute)) and not _inside_call_name(tree, node):
                name = _dotted(node)
                if name is None:
                    raise ConfigError(f"{where}: '{text}' names something that is not a parameter")
                names.add(name)
        names = {n for n in names if not any(m.startswith(n + ".") for m in names)}  # blockDim.x, not blockDim
        return cls(text.strip(), tree, frozenset(names - set(_FUNCTIONS)))

    def value(self, values: dict[str, object]):
        """The value with `values` for the names (a KeyError names one that is missing)."""
        return _evaluate(self.tree.body, values)

    def holds(self, values: dict[str, object]) -> bool:
        try:
            return bool(self.value(values))
        except (ArithmeticError, ValueError, TypeError):
            return False

    def __str__(self) -> str:
        return self.text


def _inside_call_name(tree, node) -> bool:
    return any(isinstance(call, ast.Call) and call.func is node for call in ast.walk(tree))


def _dotted(node) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def _evaluate(node, values: dict[str, object]):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.Name, ast.Attribute)):
        return values[_dotted(node)]
    if isinstance(node, ast.BinOp):
        return _BINARY[type(node.op)](_evaluate(node.left, values), _evaluate(node.right, values))
    if isinstance(node, ast.UnaryOp):
        operand = _evaluate(node.operand, values)
        return {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_,
                ast.Invert: operator.invert}[type(node.op)](operand)
    if isinstance(node, ast.BoolOp):
        results = (_evaluate(v, values) for v in node.values)
        return all(results) if isinstance(node.op, ast.And) else any(results)
    if isinstance(node, ast.Compare):
        left = _evaluate(node.left, values)
        for op, comparator in zip(node.ops, node.comparators):
            right = _evaluate(comparator, values)
            if not _COMPARE[type(op)](left, right):
                return False
            left = right
        return True
    if isinstance(node, ast.Call):
        return _FUNCTIONS[node.func.id](*(_evaluate(a, values) for a in node.args))
    raise ValueError(f"cannot evaluate {type(node).__name__}")


def launch_values(launch) -> dict[str, object]:
    """The names a relation reads, for one launch: its scalar arguments and the block's
    and grid's sizes."""
    values = {name: value for name, value in launch.args.items() if isinstance(value, (int, float, np.number))}
    for what, dims in (("blockDim", launch.block), ("gridDim", launch.grid)):
        values.update({f"{what}.{axis}": size for axis, size in zip("xyz", dims)})
    return values


# ---------------------------------------------------------------------------- buffers


@dataclass(frozen=True)
class BufferSpec:
    """A buffer a contract makes for every launch: `dtype`, `count` elements (an
    expression over the arguments), `content`; or the array in `path`."""

    name: str
    dtype: str = ""
    count: Expression | None = None
    content: str = "zeros"
    path: Path | None = None

    @property
    def scanned(self) -> str | None:
        """The buffer an exclusive_scan content sums."""
        match = _SCAN.match(self.content)
        return match.group(1) if match else None

    def make(self, values: dict[str, object], made: dict[str, np.ndarray], seed: int, dtype: np.dtype | None):
        """The array for one launch: `values` its arguments, `made` the buffers made so
        far, `dtype` what the parameter points to (when the spec names no dtype)."""
        if self.path is not None:
            return np.load(self.path, allow_pickle=False).reshape(-1)
        dtype = np.dtype(self.dtype) if self.dtype else dtype or np.dtype(np.int32)
        if self.scanned is not None and self.count is None:
            count = len(made[self.scanned])
        else:
            count = int(self.count.value(values)) if self.count is not None else 0
        if count < 1:
            raise ValueError(f"buffer {self.name} would have {count} elements")
        rng = np.random.default_rng(seed)
        content = self.content
        if self.scanned is not None:
            sums = np.cumsum(made[self.scanned][:count].astype(np.int64))
            return np.concatenate([[0], sums[:-1]]).astype(dtype)
        if content in ("zeros", "ones"):
            return (np.zeros if content == "zeros" else np.ones)(count, dtype=dtype)
        if content == "iota":
            return np.arange(count).astype(dtype)
        if content == "bits":
            return rng.integers(0, 2, count).astype(dtype)
        if content == "permutation":
            return rng.permutation(count).astype(dtype)
        return Fill(content, seed, dtype.str).values(np.arange(count))


def _buffer_spec(name: str, text: str, root: Path, where: str) -> BufferSpec:
    if not isinstance(text, str):
        raise ConfigError(f"{where}: buffer {name} must be a string like \"int32:n:iota\" or \"@file.npy\"")
    if text.startswith("@"):
        path = (root / text[1:]).resolve()
        if not path.is_file():
            raise ConfigError(f"{where}: buffer {name}: no such file {path}")
        return BufferSpec(name, path=path)
    parts = text.split(":")
    if len(parts) not in (2, 3):
        raise ConfigError(f"{where}: buffer {name} = '{text}': expected DTYPE:COUNT[:CONTENT] or @FILE.npy")
    try:
        dtype = np.dtype(parts[0]) if parts[0] else None
    except TypeError:
        raise ConfigError(f"{where}: buffer {name}: unknown dtype '{parts[0]}'") from None
    if dtype is not None and dtype.kind not in "biuf":
        raise ConfigError(f"{where}: buffer {name}: dtype {dtype} is not a number type")
    content = parts[2].strip() if len(parts) == 3 else "zeros"
    if content not in BUFFER_CONTENTS and not _SCAN.match(content):
        raise ConfigError(f"{where}: buffer {name}: content '{content}' is not one of "
                          f"{', '.join(BUFFER_CONTENTS)} or exclusive_scan(OTHER)")
    count = Expression.parse(parts[1], f"{where}: buffer {name}") if parts[1].strip() else None
    spec = BufferSpec(name, parts[0], count, content)
    if count is None and spec.scanned is None:
        raise ConfigError(f"{where}: buffer {name} needs a COUNT")
    return spec


# ---------------------------------------------------------------------------- entries


@dataclass(frozen=True)
class KernelContract:
    """What the matching [[kernel]] entries say about one kernel, merged."""

    launches: tuple[str, ...] = ()
    grid: str | None = None
    block: str | None = None
    fill: str | None = None
    args: dict[str, object] = field(default_factory=dict)  # name -> a value
    ranges: dict[str, tuple[float, float]] = field(default_factory=dict)
    choices: dict[str, tuple] = field(default_factory=dict)
    relations: tuple[Expression, ...] = ()
    buffers: tuple[BufferSpec, ...] = ()
    aliases: dict[str, str] = field(default_factory=dict)
    sources: tuple[str, ...] = ()  # where it was stated: "simulee.toml:[[kernel]] 2"
    symbols: tuple[BufferSpec, ...] = ()  # what device variables hold

    def __bool__(self) -> bool:
        return bool(self.sources)

    def without(self, names: set[str], launches: bool = False) -> "KernelContract":
        """This contract less what it says of `names` (given on the command line, which
        wins), and less its grid, block and launches when `launches` are given there."""
        drop = lambda table: {k: v for k, v in table.items() if k not in names}
        return KernelContract(() if launches else self.launches, None if launches else self.grid,
                              None if launches else self.block, None if "fill" in names else self.fill,
                              drop(self.args), drop(self.ranges), drop(self.choices),
                              self.relations, tuple(b for b in self.buffers if b.name not in names),
                              drop(self.aliases), self.sources, self.symbols)

    def given(self, kernel, seed: int = 0):
        """What the contract gives as values (simulee.checker.kernel.Given): grid, block, argument
        values, aliases, fill and exact launches."""
        from simulee.checker.kernel import Given
        from simulee.checker.launchspec import launch_arguments, parse_block, parse_dims

        try:
            args = launch_arguments(kernel, [f"{n}={v}" for n, v in self.args.items()], [], seed, False,
                                    aliases=[f"{n}={t}" for n, t in self.aliases.items()])
            launches = []
            for text in self.launches:
                parts = text.split("/")
                launches.append((parse_dims(parts[0], "grid"), parse_block(parts[1], "block"),
                                 launch_arguments(kernel, parts[2:], [], seed, False)))
            grid = self.grid and parse_dims(self.grid, "grid")
            block = self.block and parse_block(self.block, "block")
        except SimuleeError as error:
            raise ConfigError(f"{self.sources[-1]}: {kernel.name}: {str(error).replace('--', '', 1)}") from None
        return Given(grid, block, args, self.fill, tuple(launches), "stated")

    def with_buffers(self, launch, params):
        """`launch` with the buffers and device variables the contract states (a
        ConfigError when they cannot be made for it)."""
        try:
            return self.stating(launch, params)
        except (ValueError, KeyError, ArithmeticError, TypeError) as error:
            raise ConfigError(f"{self.sources[-1]}: no stated buffer for the launch grid {launch.grid} block "
                              f"{launch.block}: {error}") from None

    def stating(self, launch, params):
        """`launch` with the buffers and device variables the contract states (the
        errors of making them raised as they are)."""
        from dataclasses import replace

        buffers = self.make_buffers(launch, params)
        values = launch_values(launch)
        symbols = {spec.name: spec.make(values, {}, launch.seed * 1000 + 999 - number, None)
                   for number, spec in enumerate(self.symbols)}
        if not buffers and not symbols:
            return launch
        return replace(launch, args={**launch.args, **buffers}, symbols={**launch.symbols, **symbols})

    def derivations(self, free: set[str]) -> dict[str, Expression]:
        """The arguments among `free` that a relation `name == expression` (or
        `expression == name`) fixes, with that expression: they are computed, not
        searched (`tile == blockDim.x` makes tile the block's width)."""
        derived: dict[str, Expression] = {}
        for relation in self.relations:
            node = relation.tree.body
            if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.Eq)):
                continue
            for side, other in ((node.left, node.comparators[0]), (node.comparators[0], node.left)):
                name = _dotted(side) if isinstance(side, (ast.Name, ast.Attribute)) else None
                if name in free and name not in derived:
                    expression = Expression(ast.unparse(other), ast.Expression(other), relation.names - {name})
                    if name not in expression.names and not expression.names & set(derived):
                        derived[name] = expression
                        break
        return derived

    def derive(self, launch, derived: dict[str, Expression]):
        """`launch` with each derived argument computed from the others (a ValueError when
        it cannot be)."""
        from dataclasses import replace

        values = launch_values(launch)
        args = dict(launch.args)
        for name, expression in derived.items():
            value = expression.value(values)
            args[name] = values[name] = int(value) if isinstance(launch.args.get(name), (int, np.integer)) else value
        return replace(launch, args=args)

    def admits(self, launch) -> str:
        """'' when `launch` keeps every relation, else the first it breaks."""
        values = launch_values(launch)
        for relation in self.relations:
            if relation.names <= set(values) and not relation.holds(values):
                return str(relation)
        return ""

    def make_buffers(self, launch, params) -> dict[str, np.ndarray]:
        """The stated buffers for `launch` (scanned buffers after what they sum)."""
        by_name = {p.name: p for p in params}
        values = launch_values(launch)
        made: dict[str, np.ndarray] = {}
        from interpreter.placement import element_dtype

        for spec in sorted(self.buffers, key=lambda s: s.scanned is not None):
            param = by_name.get(spec.name)
            dtype = element_dtype(param) if param is not None else None
            made[spec.name] = spec.make(values, made, launch.seed * 1000 + len(made), dtype)
        return made


@dataclass(frozen=True)
class Suppression:
    rule: str = "*"
    file: str = "*"
    kernel: str = "*"
    reason: str = ""
    source: str = ""

    def matches(self, finding, relative_file: str) -> bool:
        return fnmatch.fnmatchcase(finding.type, self.rule) and _file_matches(relative_file, self.file) and \
            _name_matches(finding.kernel, self.kernel)


@dataclass
class Config:
    """A simulee.toml: its folder (file globs are relative to it), entries and
    suppressions. An empty Config states nothing."""

    path: Path | None = None
    entries: list[dict] = field(default_factory=list)
    suppressions: list[Suppression] = field(default_factory=list)

    @property
    def root(self) -> Path:
        return self.path.parent if self.path else Path.cwd()

    def relative(self, file: str | Path) -> str:
        path = Path(file).resolve()
        return path.relative_to(self.root.resolve()).as_posix() if path.is_relative_to(self.root.resolve()) \
            else path.as_posix()

    def for_kernel(self, file: str | Path, kernel) -> KernelContract:
        """What the entries matching `kernel` of `file` state, merged in order; names a
        kernel lacks are errors for an entry naming it exactly, and skipped for a glob."""
        relative = self.relative(file)
        merged: dict = {"args": {}, "ranges": {}, "choices": {}, "relations": [], "buffers": {}, "aliases": {},
                        "sources": [], "symbols": {}}
        for number, entry in enumerate(self.entries, 1):
            if not (_file_matches(relative, entry.get("file", "*"))
                    and _name_matches(kernel.name, entry.get("name", "*"))):
                continue
            where = f"{self.path.name if self.path else CONFIG_NAME}: [[kernel]] {number}"
            exact = not any(c in entry.get("name", "*") for c in "*?[")
            _merge_entry(merged, entry, kernel, where, exact, self.root)
            merged["sources"].append(where)
        if not merged["sources"]:
            return KernelContract()
        return KernelContract(tuple(merged.get("launches", ())), merged.get("grid"), merged.get("block"),
                              merged.get("fill"), merged["args"], merged["ranges"], merged["choices"],
                              tuple(merged["relations"]), tuple(merged["buffers"].values()), merged["aliases"],
                              tuple(merged["sources"]), tuple(merged["symbols"].values()))

    def reason(self, finding) -> str | None:
        """Why `finding` is suppressed (the [[suppress]] entry's reason, or which entry),
        None when no entry matches it."""
        relative = self.relative(finding.file) if finding.file else ""
        entry = next((s for s in self.suppressions if s.matches(finding, relative)), None)
        return None if entry is None else entry.reason or f"suppressed by {entry.source}"


def load_config(path: Path) -> Config:
    """A simulee.toml, validated: a ConfigError (one line) for anything it cannot use."""
    try:
        data = tomllib.loads(path.read_text())
    except OSError as error:
        raise ConfigError(f"cannot read {path}: {error.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: not valid TOML: {error}") from None
    unknown = set(data) - {"kernel", "suppress"}
    if unknown:
        raise ConfigError(f"{path}: unknown table {sorted(unknown)[0]} (expected [[kernel]] and [[suppress]])")
    entries = _tables(data, "kernel", path)
    suppressions = []
    for number, entry in enumerate(entries, 1):
        _validate_entry(entry, f"{path.name}: [[kernel]] {number}", path.parent)
    for number, entry in enumerate(_tables(data, "suppress", path), 1):
        where = f"{path.name}: [[suppress]] {number}"
        _only_keys(entry, SUPPRESS_KEYS, where)
        if not all(isinstance(entry.get(key, ""), str) for key in SUPPRESS_KEYS):
            raise ConfigError(f"{where}: rule, file, kernel and reason are strings")
        suppressions.append(Suppression(entry.get("rule", "*"), entry.get("file", "*"), entry.get("kernel", "*"),
                                        entry.get("reason", ""), where))
    return Config(path.resolve(), entries, suppressions)


def config_for(path: Path, named: str | None = None) -> Config:
    """The config `named` (--config), else the simulee.toml find_config finds for `path`,
    else an empty one."""
    if named:
        if not Path(named).is_file():
            raise ConfigError(f"--config {named}: no such file")
        return load_config(Path(named))
    found = find_config(path)
    return load_config(found) if found else Config()


def find_config(start: Path) -> Path | None:
    """The simulee.toml of the folder `start` (a file's folder) or the nearest folder
    above it, not looking past a repository's root (a folder holding .git)."""
    folder = start.resolve()
    folder = folder if folder.is_dir() else folder.parent
    for candidate in (folder, *folder.parents):
        if (candidate / CONFIG_NAME).is_file():
            return candidate / CONFIG_NAME
        if (candidate / ".git").exists():
            return None
    return None


def _tables(data: dict, key: str, path: Path) -> list[dict]:
    tables = data.get(key, [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise ConfigError(f"{path}: {key} must be an array of tables, written [[{key}]]")
    return tables


def _only_keys(entry: dict, allowed: set[str], where: str) -> None:
    unknown = set(entry) - allowed
    if unknown:
        raise ConfigError(f"{where}: unknown key '{sorted(unknown)[0]}' (expected {', '.join(sorted(allowed))})")


def _validate_entry(entry: dict, where: str, root: Path) -> None:
    """Everything in an entry that does not depend on the kernel: types and syntax."""
    from simulee.checker.launchspec import parse_block, parse_dims

    _only_keys(entry, KERNEL_KEYS, where)
    for key in ("name", "file", "grid", "block", "fill"):
        if key in entry and not isinstance(entry[key], str):
            raise ConfigError(f"{where}: {key} must be a string")
    try:
        if "grid" in entry:
            parse_dims(entry["grid"], "grid")
        if "block" in entry:
            parse_block(entry["block"], "block")
        for launch in _strings(entry, "launches", where):
            parts = launch.split("/")
            if len(parts) < 2:
                raise ConfigError(f"{where}: launch '{launch}': expected GRID/BLOCK[/NAME=VALUE...]")
            parse_dims(parts[0], "grid"), parse_block(parts[1], "block")
    except ConfigError:
        raise
    except SimuleeError as error:
        raise ConfigError(f"{where}: {str(error).replace('--', '', 1)}") from None
    if entry.get("fill", "zeros") not in FILLS:
        raise ConfigError(f"{where}: fill must be one of {', '.join(FILLS)}")
    for name, value in _table(entry, "args", where).items():
        _argument(name, value, where)
    for text in _strings(entry, "relations", where):
        Expression.parse(text, where)
    for key in ("buffers", "symbols"):
        for name, text in _table(entry, key, where).items():
            _buffer_spec(name, text, root, where)
    for name, target in _table(entry, "aliases", where).items():
        if not isinstance(target, str) or target == name:
            raise ConfigError(f"{where}: alias {name} must name another pointer parameter")


def _strings(entry: dict, key: str, where: str) -> list[str]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: {key} must be a list of strings")
    return value


def _table(entry: dict, key: str, where: str) -> dict:
    value = entry.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: {key} must be a table, like {key} = {{ n = 1024 }}")
    return value


_RANGE = re.compile(r"^\s*(-?[\d.e+]+)\s*\.\.\s*(-?[\d.e+]+)\s*$")


def _argument(name: str, value, where: str):
    """('value', v), ('range', (low, high)) or ('choices', (...))."""
    if isinstance(value, bool) or isinstance(value, (int, float)):
        return "value", int(value) if isinstance(value, bool) else value
    numbers = isinstance(value, list) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
    if numbers and value:
        return "choices", tuple(sorted(value))
    if isinstance(value, str):
        match = _RANGE.match(value)
        if match:
            try:
                low, high = (float(g) if any(c in g for c in ".e") else int(g) for g in match.groups())
            except ValueError:
                match = None
            else:
                if low > high:
                    raise ConfigError(f"{where}: args {name} = '{value}': the range is empty")
                return "range", (low, high)
    raise ConfigError(f"{where}: args {name} = {value!r}: expected a number, a range \"LOW..HIGH\" or a list of "
                      "choices")


def _merge_entry(merged: dict, entry: dict, kernel, where: str, exact: bool, root: Path) -> None:
    """Add one entry's statements about `kernel` to `merged` (later ones override)."""
    scalars = {p.name: p for p in kernel.scalars()} | {p.name: p for p in kernel.params
                                                       if p.kind in ("integer", "float")}
    pointers = {p.name for p in kernel.params if p.kind == "pointer"}
    names = set(scalars) | {f"{what}.{axis}" for what in ("blockDim", "gridDim") for axis in "xyz"}

    def known(name: str, among, what: str) -> bool:
        if name in among:
            return True
        if exact:
            raise ConfigError(f"{where}: {kernel.name} has no {what} '{name}' "
                              f"({what}s: {', '.join(sorted(among)) or 'none'})")
        return False

    for key in ("grid", "block", "fill"):
        if key in entry:
            merged[key] = entry[key]
    if "launches" in entry:
        merged["launches"] = entry["launches"]
    for name, value in entry.get("args", {}).items():
        if not known(name, scalars, "scalar parameter"):
            continue
        kind, parsed = _argument(name, value, where)
        for table in ("args", "ranges", "choices"):
            merged[table].pop(name, None)
        merged[{"value": "args", "range": "ranges", "choices": "choices"}[kind]][name] = parsed
    for text in entry.get("relations", []):
        relation = Expression.parse(text, where)
        missing = sorted(relation.names - names)
        if missing and not known(missing[0], names, "parameter"):
            continue
        merged["relations"].append(relation)
    for name, text in entry.get("buffers", {}).items():
        if known(name, pointers, "pointer parameter"):
            merged["buffers"][name] = _buffer_spec(name, text, root, where)
    for name, text in entry.get("symbols", {}).items():  # device variables: the module says which exist
        merged["symbols"][name] = _buffer_spec(name, text, root, where)
    for name, target in entry.get("aliases", {}).items():
        if known(name, pointers, "pointer parameter") and known(target, pointers, "pointer parameter"):
            merged["aliases"][name] = target


def _name_matches(name: str, pattern: str) -> bool:
    """A kernel's name, or its name before template arguments or parameter types."""
    bare = re.split(r"[<(]", name, maxsplit=1)[0]
    return fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(bare, pattern)


def _file_matches(relative: str, pattern: str) -> bool:
    return pattern == "*" or fnmatch.fnmatchcase(relative, pattern) or PurePosixPath(relative).match(pattern)

