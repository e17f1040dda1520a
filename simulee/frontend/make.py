"""A folder's Makefile read, never run: the programs its link rules make and the sources
of the objects they link.

Rules (`target ...: prerequisite ...`, recipes ignored) and variables (`=`, `:=`, `::=`,
`?=`, `+=`; `$(VAR)`, `${VAR}` and `$(VAR:.cu=.o)` expanded; of the functions `wildcard`,
`patsubst`, `subst`, `addprefix`, `addsuffix`, `notdir`, `basename`, `dir`; any other is
empty) as GNU make reads them, without `include`, conditions (the lines of every arm are
read in order) or automatic variables. An object's source is what its explicit rule
names, else what a pattern rule (`%.o: %.cu`, `$(OBJ_DIR)/%.o: $(SRC_DIR)/%.cu`) or make's
built-in rules (a source of the object's stem beside it) make it from.

May import: nothing of Simulee's.
"""

from __future__ import annotations

import functools
import glob
import re
from dataclasses import dataclass
from pathlib import Path

NAMES = ("GNUmakefile", "makefile", "Makefile")
SOURCES = (".cu", ".c", ".cc", ".cpp", ".cxx", ".c++")
OBJECTS = (".o", ".obj")
_ASSIGNMENT = re.compile(r"^(?:override\s+|export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*(::=|:=|\?=|\+=|=)\s*(.*)$")
_DIRECTIVE = re.compile(r"^\s*(?:ifeq|ifneq|ifdef|ifndef|else|endif|include|-include|sinclude|define|endef|"
                        r"export|unexport|vpath)\b")
_REFERENCE = re.compile(r"\$(?:\(([^()]*(?:\([^()]*\)[^()]*)*)\)|\{([^{}]*)\}|([A-Za-z0-9_@<^]))")


@dataclass(frozen=True)
class Rule:
    targets: tuple[str, ...]
    prerequisites: tuple[str, ...]


def makefile(folder: Path) -> Path | None:
    """The Makefile GNU make would read in `folder`, or None."""
    return next((folder / name for name in NAMES if (folder / name).is_file()), None)


def program_of(source: Path, confine: tuple[str, ...] | None = None) -> list[Path] | None:
    """The sources of the one program a link rule of a Makefile makes from `source` (or its
    object) with other sources or objects (`app: main.o kernels.o`), by the Makefile of
    `source`'s folder or, where that does not link it, of the nearest folder above (up to
    LEVELS, not past a repository's root: a .git, or the folders `confine` allows) that
    does; None when none links it, or one links it into several programs (a library)."""
    source = Path(source).resolve()
    allowed = [Path(root).resolve() for root in confine or ()]
    folder = source.parent
    for _ in range(LEVELS + 1):
        if confine is not None and not any(folder.is_relative_to(root) for root in allowed):
            break
        found = makefile(folder)
        if found is not None:
            programs = _programs(source, found)
            if programs:
                return programs[0] if len(programs) == 1 else None
        if (folder / ".git").exists() or folder.parent == folder:
            break
        folder = folder.parent
    return None


LEVELS = 2  # folders above a source's own where a Makefile that builds it is looked for


def _programs(source: Path, found: Path) -> list[list[Path]]:
    """The sources of each program a link rule of the Makefile `found` makes from `source`
    (none when it cannot be read)."""
    try:
        rules, folder = _rules(str(found), found.stat().st_mtime_ns), found.parent
    except (OSError, UnicodeError):
        return []
    programs = []
    for rule in rules:
        if any(target.endswith(OBJECTS) or "%" in target for target in rule.targets):
            continue
        units = [_source_of(folder, p, rules) if p.endswith(OBJECTS) else _path(folder, p)
                 for p in rule.prerequisites if p.endswith(OBJECTS + SOURCES)]
        units = list(dict.fromkeys(unit for unit in units if unit is not None and unit.is_file()))
        if source in units and units not in programs:
            programs.append(units)
    return programs


def _path(folder: Path, name: str) -> Path:
    return (folder / name).resolve()


def _source_of(folder: Path, target: str, rules: tuple[Rule, ...]) -> Path | None:
    """The source an object `target` is compiled from: the source its own rule names, else
    one a pattern rule makes it from that exists, else one of its stem beside it."""
    for rule in rules:
        if target in rule.targets:
            named = [p for p in rule.prerequisites if p.endswith(SOURCES)]
            if named:
                return _path(folder, named[0])
    for rule in rules:
        for pattern in (t for t in rule.targets if "%" in t):
            stem = _matched(pattern, target)
            named = [p for p in rule.prerequisites if p.endswith(SOURCES) and "%" in p]
            if stem is not None and named and _path(folder, named[0].replace("%", stem, 1)).is_file():
                return _path(folder, named[0].replace("%", stem, 1))
    base = _path(folder, target)
    return next((base.with_suffix(s) for s in SOURCES if base.with_suffix(s).is_file()), None)


def _matched(pattern: str, name: str) -> str | None:
    """The stem `name` gives `pattern`'s % (`obj/%.o` and `obj/k.o`: k), or None."""
    before, _, after = pattern.partition("%")
    if name.startswith(before) and name.endswith(after) and len(name) > len(before) + len(after):
        return name[len(before):len(name) - len(after)]
    return None


@functools.lru_cache(maxsize=16)
def _rules(path: str, stamp: int) -> tuple[Rule, ...]:
    """The rules of the Makefile at `path` (as of `stamp`, its modification time), their
    targets and prerequisites expanded."""
    folder = Path(path).parent
    variables: dict[str, str] = {"CURDIR": str(folder)}
    rules = []
    for line in _logical_lines(Path(path).read_text(errors="replace")):
        if line.startswith("\t") or _DIRECTIVE.match(line) or not line.strip():
            continue
        assigned = _ASSIGNMENT.match(line.strip())
        if assigned and ":" not in line.split("=", 1)[0].rstrip(":?+"):
            name, operator, value = assigned.groups()
            if operator == "?=" and name in variables:
                continue
            value = _expand(value, variables, folder) if operator in (":=", "::=") else value
            variables[name] = f"{variables.get(name, '')} {value}".strip() if operator == "+=" else value
            continue
        head, colon, tail = line.partition(":")
        if not colon or tail.startswith("="):
            continue
        tail = tail.lstrip(":").split(";", 1)[0].split("|", 1)[0]
        targets = _expand(head, variables, folder).split()
        if ":" in tail:  # a static pattern rule (targets: target-pattern: prerequisite-patterns)
            tail = tail.split(":", 1)[1]
        prerequisites = _expand(tail, variables, folder).split()
        if targets and not all(t.startswith(".") and t.isupper() for t in targets):
            rules.append(Rule(tuple(targets), tuple(prerequisites)))
    return tuple(rules)


def _logical_lines(text: str) -> list[str]:
    """The Makefile's lines, continuations joined and comments dropped."""
    joined = re.sub(r"\\\n\s*", " ", text)
    return [re.sub(r"(?<!\\)#.*", "", line) for line in joined.splitlines()]


def _expand(text: str, variables: dict[str, str], folder: Path, depth: int = 0) -> str:
    """`text` with its variable references and the functions make.py knows expanded."""
    if depth > 16:
        return ""
    return _REFERENCE.sub(lambda found: _reference(found.group(1) or found.group(2) or found.group(3),
                                                   variables, folder, depth), text)


def _reference(inner: str, variables: dict[str, str], folder: Path, depth: int) -> str:
    function, _, argument = inner.partition(" ")
    if argument and function in _FUNCTIONS:
        arguments = [_expand(a, variables, folder, depth + 1).strip() for a in _split_arguments(argument)]
        return _FUNCTIONS[function](arguments, folder)
    name, colon, substitution = inner.partition(":")
    value = _expand(variables.get(name.strip(), ""), variables, folder, depth + 1)
    if colon and "=" in substitution:  # $(SRC:.cu=.o)
        old, new = substitution.split("=", 1)
        pattern, replacement = (old, new) if "%" in old else (f"%{old}", f"%{new}")
        return " ".join(_patsubst(pattern, replacement, word) for word in value.split())
    return value


def _split_arguments(text: str) -> list[str]:
    """A function's arguments, split at the commas outside parentheses."""
    parts, depth, current = [], 0, ""
    for character in text:
        depth += (character in "({") - (character in ")}")
        if character == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += character
    return parts + [current]


def _patsubst(pattern: str, replacement: str, word: str) -> str:
    stem = _matched(pattern, word) if "%" in pattern else ("" if word == pattern else None)
    if stem is None:
        return word
    return replacement.replace("%", stem, 1) if "%" in replacement else replacement


def _wildcard(arguments: list[str], folder: Path) -> str:
    return " ".join(str(Path(found).relative_to(folder)) if Path(found).is_relative_to(folder) else found
                    for pattern in arguments[0].split()
                    for found in sorted(glob.glob(str(folder / pattern))))


_FUNCTIONS = {
    "wildcard": _wildcard,
    "patsubst": lambda a, _: " ".join(_patsubst(a[0], a[1], w) for w in a[2].split()) if len(a) == 3 else "",
    "subst": lambda a, _: a[2].replace(a[0], a[1]) if len(a) == 3 and a[0] else "",
    "addprefix": lambda a, _: " ".join(a[0] + w for w in a[1].split()) if len(a) == 2 else "",
    "addsuffix": lambda a, _: " ".join(w + a[0] for w in a[1].split()) if len(a) == 2 else "",
    "notdir": lambda a, _: " ".join(w.rsplit("/", 1)[-1] for w in a[0].split()),
    "basename": lambda a, _: " ".join(re.sub(r"\.[^./]*$", "", w) for w in a[0].split()),
    "dir": lambda a, _: " ".join(w.rsplit("/", 1)[0] + "/" if "/" in w else "./" for w in a[0].split()),
}
