"""A project's CMakeLists.txt read, never run: the build targets it declares, their sources
and the include folders and macros they compile with.

What `add_executable`, `add_library` (and FindCUDA's `cuda_add_executable`,
`cuda_add_library`), `target_sources`, `target_link_libraries`,
`target_include_directories`, `target_compile_definitions`, `include_directories`,
`add_definitions` and `add_compile_definitions` name, through `set`, `list(APPEND ...)`,
`file(GLOB ...)`, `aux_source_directory` and `add_subdirectory`, with `${VAR}` expanded
(the current and top source folders; a variable never set is empty). Conditions are not
evaluated: the commands of every arm of an `if` run in order (a variable both arms set
keeps the last arm's). Generator expressions, functions and macros are not evaluated;
what they name is left out.

May import: nothing of Simulee's.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path

MAX_FILES = 64  # CMakeLists.txt files one project reads at most (its add_subdirectory tree)
_COMMAND = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_ARGUMENT = re.compile(r'"((?:[^"\\]|\\.)*)"|\[\[(.*?)\]\]|([^\s()"#]+)', re.S)
_VARIABLE = re.compile(r"\$\{([A-Za-z0-9_.+-]+)\}")
_TARGET_WORDS = {"WIN32", "MACOSX_BUNDLE", "EXCLUDE_FROM_ALL", "STATIC", "SHARED", "MODULE", "OBJECT",
                 "PRIVATE", "PUBLIC", "INTERFACE", "IMPORTED", "ALIAS", "GLOBAL"}


@dataclass
class Target:
    """A build target: an executable or a library, its sources (resolved paths), the
    targets or libraries it links (`links`, by name), its include folders and macros."""

    name: str
    executable: bool
    sources: list[Path] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    includes: list[str] = field(default_factory=list)
    defines: list[str] = field(default_factory=list)


def targets(folder: Path) -> dict[str, Target]:
    """The targets the CMakeLists.txt of `folder` and of the folders it adds declare, by
    name; {} when it has none or cannot be read."""
    return _targets(str(Path(folder).resolve()), _stamp(Path(folder)))


def _stamp(folder: Path) -> tuple:
    try:
        stat = (folder / "CMakeLists.txt").stat()
    except OSError:
        return ()
    return stat.st_mtime_ns, stat.st_size


@functools.lru_cache(maxsize=16)
def _targets(top: str, stamp: tuple) -> dict[str, Target]:
    found: dict[str, Target] = {}
    _read(Path(top), {"CMAKE_SOURCE_DIR": top, "PROJECT_SOURCE_DIR": top}, found, [0])
    return found


def _read(folder: Path, variables: dict[str, str], found: dict[str, Target], files: list[int]) -> None:
    listing = folder / "CMakeLists.txt"
    files[0] += 1
    if files[0] > MAX_FILES or not listing.is_file():
        return
    try:
        text = listing.read_text(errors="replace")
    except OSError:
        return
    variables = dict(variables, CMAKE_CURRENT_SOURCE_DIR=str(folder), CMAKE_CURRENT_LIST_DIR=str(folder))
    for command, words in _commands(text):
        words = [piece for word in words for piece in _expanded(word, variables)]
        _obey(command.lower(), words, folder, variables, found, files)


def _obey(command: str, words: list[str], folder: Path, variables: dict[str, str], found: dict[str, Target],
          files: list[int]) -> None:
    """What one command does to the variables and targets."""
    if command == "set" and words:
        values = [w for w in words[1:] if w not in ("CACHE", "PARENT_SCOPE", "FORCE")]
        variables[words[0]] = ";".join(values)
    elif command == "list" and len(words) >= 2 and words[0] == "APPEND":
        variables[words[1]] = ";".join(filter(None, [variables.get(words[1], ""), *words[2:]]))
    elif command == "file" and len(words) >= 3 and words[0] in ("GLOB", "GLOB_RECURSE"):
        patterns = [w for at, w in enumerate(words[2:], 2) if words[at - 1] not in ("RELATIVE", "LIST_DIRECTORIES")
                    and w not in ("CONFIGURE_DEPENDS", "LIST_DIRECTORIES", "RELATIVE")]
        recurse = words[0] == "GLOB_RECURSE"
        matched = sorted({str(p) for pattern in patterns for p in _globbed(folder, pattern, recurse)})
        variables[words[1]] = ";".join(matched)
    elif command == "aux_source_directory" and len(words) == 2:  # the folder's sources, appended
        found_here = sorted(str(p) for p in _globbed(folder, f"{words[0]}/*", False) if p.suffix in SOURCE_SUFFIXES)
        variables[words[1]] = ";".join(filter(None, [variables.get(words[1], ""), *found_here]))
    elif command in ("add_executable", "cuda_add_executable", "add_library", "cuda_add_library") and words:
        if "IMPORTED" in words or "ALIAS" in words:
            return
        named = words[1:words.index("OPTIONS")] if "OPTIONS" in words else words[1:]
        target = found.setdefault(words[0], Target(words[0], "executable" in command))
        target.sources += _sources(named, folder)
        target.includes += _expanded(f"${{{INCLUDES}}}", variables)
        target.defines += _expanded(f"${{{DEFINES}}}", variables)
    elif command in ("include_directories", "add_definitions", "add_compile_definitions"):
        key = INCLUDES if command == "include_directories" else DEFINES
        variables[key] = ";".join(filter(None, [variables.get(key, ""), *_flags(key, words, folder)]))
    elif words and words[0] in found:
        _obey_target(command, found[words[0]], words[1:], folder)
    elif command == "add_subdirectory" and words:
        _read((folder / words[0]).resolve(), variables, found, files)


def _obey_target(command: str, target: Target, words: list[str], folder: Path) -> None:
    """What a command naming a declared target adds to it."""
    words = [w for w in words if w not in _TARGET_WORDS and w not in ("SYSTEM", "BEFORE", "AFTER")]
    if command == "target_sources":
        target.sources += _sources(words, folder)
    elif command == "target_link_libraries":
        target.links += [w for w in words if not w.startswith("-")]
    elif command == "target_include_directories":
        target.includes += _flags(INCLUDES, words, folder)
    elif command == "target_compile_definitions":
        target.defines += _flags(DEFINES, words, folder)


SOURCE_SUFFIXES = {".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".cu"}  # what aux_source_directory collects
INCLUDES, DEFINES = "simulee.includes", "simulee.defines"  # the folder's include folders and macros, as variables


def _flags(key: str, words: list[str], folder: Path) -> list[str]:
    """Include folders (resolved) or macros (NAME or NAME=VALUE) as a command names them."""
    if key == INCLUDES:
        return [str((folder / w).resolve()) for w in words if w not in ("SYSTEM", "BEFORE", "AFTER") and "$<" not in w]
    return [w.removeprefix("-D") for w in words if "$<" not in w and (w.startswith("-D") or not w.startswith("-"))]


def _sources(words: list[str], folder: Path) -> list[Path]:
    return [(folder / word).resolve() for word in words if word not in _TARGET_WORDS and "$<" not in word]


def _globbed(folder: Path, pattern: str, recurse: bool) -> list[Path]:
    base = Path(pattern) if Path(pattern).is_absolute() else folder / pattern
    try:
        root = base.parent.resolve()
        return [p.resolve() for p in (root.rglob(base.name) if recurse else root.glob(base.name)) if p.is_file()]
    except (OSError, ValueError):
        return []


def _commands(text: str):
    """Each command of a CMake listing: (name, its arguments as written)."""
    text = _COMMENT.sub(lambda m: m.group(0) if m.group(0).startswith('"') else " ", text)
    position = 0
    while (match := _COMMAND.search(text, position)) is not None:
        depth, at, words = 1, match.end(), []
        while at < len(text) and depth:
            word = _ARGUMENT.match(text, at)
            if text[at] in "()":
                depth += 1 if text[at] == "(" else -1
                at += 1
            elif word is not None:
                words.append(next(group for group in word.groups() if group is not None))
                at = word.end()
            else:
                at += 1
        yield match.group(1), words
        position = at


_COMMENT = re.compile(r'"(?:[^"\\]|\\.)*"|#\[\[.*?\]\]|#[^\n]*', re.S)  # strings kept, comments blanked


def _expanded(word: str, variables: dict[str, str]) -> list[str]:
    """A word with its variables replaced, split at the semicolons of a list."""
    for _ in range(8):  # nested ${A_${B}}
        expanded = _VARIABLE.sub(lambda m: variables.get(m.group(1), ""), word)
        if expanded == word:
            break
        word = expanded
    return [piece for piece in word.split(";") if piece]


LEVELS = 3  # folders above a source's own where its project's CMakeLists.txt is looked for


def projects(source: Path, confine: tuple[str, ...] | None) -> list[Path]:
    """The folders of `source`'s and above (up to LEVELS, not past a repository's root: a
    .git, or the folders `confine` allows) that hold a CMakeLists.txt, the outermost first,
    as CMake reads a project from its top."""
    found, folder = [], Path(source).resolve().parent
    allowed = [Path(root).resolve() for root in confine or ()]
    for _ in range(LEVELS + 1):
        if confine is not None and not any(folder.is_relative_to(root) for root in allowed):
            break
        if (folder / "CMakeLists.txt").is_file():
            found.append(folder)
        if (folder / ".git").exists() or folder.parent == folder:
            break
        folder = folder.parent
    return found[::-1]


def flags_of(source: Path, confine: tuple[str, ...] | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the include folders, the macros) every target holding `source` compiles it with,
    with those of the libraries it links (as CMake passes a linked library's public ones),
    by its outermost project that has such targets: a source two targets build with
    different macros (`-DRACY=1` in one) gets only those they share. Include folders
    `confine` does not allow are left out."""
    source = Path(source).resolve()
    allowed = [Path(root).resolve() for root in confine or ()]
    for folder in projects(source, confine):
        declared = targets(folder)
        holding = [target for target in declared.values() if source in target.sources]
        if holding:
            each = [_linked([target], declared) for target in holding]
            includes = [i for i in dict.fromkeys(i for t in each[0] for i in t.includes)
                        if all(i in (j for t in linked for j in t.includes) for linked in each[1:])]
            defines = [d for d in dict.fromkeys(d for t in each[0] for d in t.defines)
                       if all(d in (e for t in linked for e in t.defines) for linked in each[1:])]
            includes = [i for i in includes if Path(i).is_dir() and
                        (confine is None or any(Path(i).is_relative_to(root) for root in allowed))]
            return tuple(includes), tuple(defines)
    return (), ()


def _linked(roots: list[Target], declared: dict[str, Target]) -> list[Target]:
    """`roots` and the libraries they link, directly or through each other."""
    linked, pending = list(roots), [name for target in roots for name in target.links]
    while pending:
        name = pending.pop()
        if name in declared and declared[name] not in linked and not declared[name].executable:
            linked.append(declared[name])
            pending += declared[name].links
    return linked


def program_of(source: Path, folder: Path) -> list[Path] | None:
    """The sources of the first executable target of `folder`'s CMake project that holds
    `source` or links a library that does, with those of the libraries it links; None when
    no executable target holds it."""
    declared = targets(folder)
    source = Path(source).resolve()
    holding = {name for name, target in declared.items() if source in target.sources}
    for target in declared.values():
        if not target.executable:
            continue
        linked = _linked([target], declared)
        if holding & {t.name for t in linked}:
            return list(dict.fromkeys(p for t in linked for p in t.sources))
    return None
