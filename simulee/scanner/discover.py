"""What a repository scan checks: the CUDA sources under a folder, and the include paths
that compile them (the repository's own include folders, found as its sources use them).
Nothing outside the folder is read: links that lead out of it are not followed (a source
that is such a link is still listed, for the scan to refuse), and folders that are links
are not entered."""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import platformdirs

SKIPPED = ("build*", "third_party", "vendor", ".git")  # folders a scan skips unless told otherwise
HEADER_SUFFIXES = (".h", ".cuh", ".hpp", ".hh", ".hxx", ".inl", ".inc")
CONVENTIONAL = ("include", "src")  # folders that are on a project's include path by convention
_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.MULTILINE)


def sources(root: Path, include: tuple[str, ...] = (), exclude: tuple[str, ...] = ()) -> list[Path]:
    """Every .cu file under `root`, sorted, outside the SKIPPED folders and the `exclude`
    globs; with `include` globs, only the files matching one of them. A glob matches a
    path relative to `root` (`src/*/old_*.cu`) or any one of its folder names (`tests`)."""
    return _files(root, (".cu",), include, exclude)


@dataclass(frozen=True)
class Repository:
    """What a check or scan of a folder compiles, and with which include folders."""

    root: Path
    files: list[Path]  # .cu sources and the kernel headers none of them includes, sorted
    parts: dict[Path, Path]  # sources that another source includes -> one that does
    shared: tuple[str, ...]  # the repository's include folders (and a prefix folder, if needed)

    def units(self) -> list[Path]:
        """The files compiled on their own (not part of another's translation unit)."""
        return [file for file in self.files if file not in self.parts]


def repository(root: Path, include: tuple[str, ...] = (), exclude: tuple[str, ...] = (),
               files: list[Path] | None = None) -> Repository:
    """The sources under the folder `root` (see `sources` for `include` and `exclude`), or
    only `files` of it when given."""
    listed = files is not None
    files = files if listed else sources(root, include, exclude)
    shared = include_dirs(root, files)
    prefix = prefix_folder(Path(os.path.abspath(root)), files,
                           Path(platformdirs.user_cache_dir("simulee")) / "prefixes")
    shared += (prefix,) if prefix else ()
    if not listed:
        files = sorted(files + kernel_headers(root, files, shared, include, exclude))
    return Repository(root, files, included_sources(root, files, shared), shared)


def _files(root: Path, suffixes: tuple[str, ...], include: tuple[str, ...], exclude: tuple[str, ...]) -> list[Path]:
    found = []
    for path in sorted(p for p in root.rglob("*") if p.suffix.lower() in suffixes):
        relative = PurePosixPath(path.relative_to(root).as_posix())
        if not path.is_file() or _matches(relative, SKIPPED, folders_only=True) or _matches(relative, exclude):
            continue
        if include and not _matches(relative, include):
            continue
        found.append(path)
    return found


HOST_SUFFIXES = (".cc", ".cpp", ".cxx", ".c++")  # C++ sources whose calls of a .cu's functions may make its launches


def host_sources(root: Path, include: tuple[str, ...] = (), exclude: tuple[str, ...] = ()) -> list[Path]:
    """Every C++ source under `root` (HOST_SUFFIXES), chosen as `sources` chooses .cu files."""
    return _files(root, HOST_SUFFIXES, include, exclude)


def mentioning(files: list[Path], names: set[str], folders: tuple[str, ...]) -> dict[Path, set[str]]:
    """The files of `files` that can call a function named in `names` (its identifier,
    not its symbol), each with the names it can call: those its text names, and those a
    function it names is defined around in a header it reaches (kaldi's inline
    `cuda_add_mat` around `cudaF_add_mat`). In the order of `files`."""
    if not names:
        return {}
    texts: dict[Path, str] = {}
    reached: dict[Path, set[Path]] = {}

    def text(path: Path) -> str:
        if path not in texts:
            try:
                texts[path] = path.read_text(errors="replace")
            except OSError:
                texts[path] = ""
        return texts[path]

    def headers(path: Path) -> set[Path]:
        pending, seen = [path], set()
        while pending:
            including = pending.pop()
            for name in _included_names(including):
                for folder in (including.parent, *map(Path, folders)):
                    candidate = (folder / name).resolve()
                    if candidate.is_file():
                        if candidate not in seen:
                            seen.add(candidate)
                            pending.append(candidate)
                        break
        return seen

    wanted = _words(names)
    for file in files:
        reached[file] = headers(file.resolve())
    calls = {name: {name} for name in names}  # a name in a file's text -> the names a call of it reaches
    for header in set().union(*reached.values()):
        body = text(header)
        for match in wanted.finditer(body):
            enclosing = _FUNCTION_HEAD.findall(body, 0, match.start())
            if enclosing:
                calls.setdefault(enclosing[-1], set()).add(match.group())
    calling = _words(set(calls))
    found = {file: set().union(*(calls[word] for word in calling.findall(text(file.resolve())))) for file in files}
    return {file: called for file, called in found.items() if called}


def wrappers_of(sites, files: dict[str, Path]) -> dict[str, set[str]]:
    """Each host function a launch of `sites` reads parameters of (its symbol) -> the keys
    of `files` whose text defines a function of its name (a wrapper `void reduction(...) {`
    that several programs of a repository each define their own way)."""
    from simulee.checker.sites import identifier

    functions = {function: identifier(function) for site in sites for function in site.open_functions()}
    found: dict[str, set[str]] = {}
    for key, path in files.items() if functions else ():
        try:
            body = path.read_text(errors="replace")
        except OSError:
            continue
        for name in set(_FUNCTION_HEAD.findall(body)) & set(functions.values()):
            found.setdefault(name, set()).add(key)
    return {function: found.get(name, set()) for function, name in functions.items()}


_FUNCTION_HEAD = re.compile(r"\b([A-Za-z_]\w*)\s*\([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*\)\s*(?:const\s*)?\{")


def _words(names: set[str]) -> re.Pattern:
    return re.compile(r"\b(?:%s)\b" % "|".join(sorted(map(re.escape, names))))


def _matches(relative: PurePosixPath, globs: tuple[str, ...], folders_only: bool = False) -> bool:
    names = relative.parts[:-1] if folders_only else relative.parts
    return any(fnmatch.fnmatchcase(name, glob) for glob in globs for name in names) or \
        (not folders_only and any(fnmatch.fnmatchcase(str(relative), glob) for glob in globs))


def include_dirs(root: Path, files: list[Path]) -> tuple[str, ...]:
    """The repository's include folders: every `include/` and `src/` folder, and every
    folder D such that a source (or a header it reaches) includes "P" where D/P is a
    header of the repository and P is not next to the file that includes it, nor a
    header of the C and C++ libraries or of CUDA (a repository's `compat/unistd.h` must
    not stand in for <unistd.h> everywhere). Absolute paths, conventional folders first,
    each list sorted."""
    from simulee.frontend.compiler import system_header

    headers = [path for path in root.rglob("*") if path.suffix in HEADER_SUFFIXES and inside(path, root)
               and path.is_file()
               and not _matches(PurePosixPath(path.relative_to(root).as_posix()), SKIPPED, folders_only=True)]
    by_tail: dict[str, list[Path]] = {}
    for header in headers:
        parts = header.relative_to(root).parts
        for start in range(len(parts)):
            by_tail.setdefault("/".join(parts[start:]), []).append(header)
    conventional = sorted({str(path) for path in root.rglob("*") if path.is_dir() and path.name in CONVENTIONAL
                           and not _matches(PurePosixPath(path.relative_to(root).as_posix()), SKIPPED)})
    found: set[str] = set()
    seen: set[Path] = set()
    pending = list(files)
    while pending:
        including = pending.pop()
        if including in seen or not inside(including, root):
            continue
        seen.add(including)
        for name in _included_names(including):
            neighbour = including.parent / name
            if inside(neighbour, root) and neighbour.is_file():
                pending.append(neighbour.resolve())
                continue
            tail = PurePosixPath(name).as_posix().removeprefix("./")
            for header in by_tail.get(tail, ()) if tail in by_tail and not system_header(tail) else ():
                depth = len(PurePosixPath(name).parts)
                found.add(str(header.parents[depth - 1]))
                pending.append(header.resolve())
    return tuple(conventional) + tuple(sorted(found - set(conventional)))


def inside(path: Path, root: Path) -> bool:
    """Whether `path`, links followed, lies in the folder `root`."""
    return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(root))


def _included_names(path: Path) -> list[str]:
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return []
    return [name for name in _INCLUDE.findall(text) if ".." not in PurePosixPath(name).parts]


def included_sources(root: Path, files: list[Path], folders: tuple[str, ...]) -> dict[Path, Path]:
    """The sources of `files` (.cu and C++ files) that another of them includes (a unity
    build, or kernels kept in a .cu that a .cu includes), each with one source that
    includes it. Such a source is a part of its includer's translation unit, not one of its
    own."""
    wanted = {path.resolve(): path for path in files}
    included: dict[Path, Path] = {}
    for including in files:
        for name in _included_names(including):
            if not name.lower().endswith((".cu", *HOST_SUFFIXES)):
                continue
            for folder in (including.parent, *map(Path, folders)):
                candidate = (folder / name).resolve()
                if candidate in wanted and candidate != including.resolve():
                    included.setdefault(wanted[candidate], including)
                    break
    # a source included by a source that is itself included belongs to the outermost one
    for part, including in list(included.items()):
        seen = {part}
        while including in included and including not in seen:
            seen.add(including)
            including = included[including]
        included[part] = including
    return included


def prefix_folder(root: Path, files: list[Path], scratch: Path) -> str | None:
    """A folder in which NAME (the root's own name) leads to the root, when the sources
    include their headers as "NAME/header.h" (a scan of one folder of a larger tree, such
    as kaldi's src/cudamatrix, whose files include "cudamatrix/cu-common.h"); else None."""
    prefix = root.name + "/"
    if not any(name.startswith(prefix) and (root / name[len(prefix):]).is_file()
               for file in files for name in _included_names(file)):
        return None
    folder = scratch / hashlib.sha256(str(root).encode()).hexdigest()[:16]
    link = folder / root.name
    folder.mkdir(parents=True, exist_ok=True)
    if not link.is_symlink() or os.readlink(link) != str(root):
        temporary = folder / f".{root.name}.{os.getpid()}"
        temporary.unlink(missing_ok=True)
        temporary.symlink_to(root, target_is_directory=True)
        os.replace(temporary, link)
    return str(folder)


_KERNEL = re.compile(r"\b__global__\b")


def kernel_headers(root: Path, files: list[Path], folders: tuple[str, ...], include: tuple[str, ...] = (),
                   exclude: tuple[str, ...] = ()) -> list[Path]:
    """The .cuh files under `root` that define kernels but that no source in `files`
    includes (directly or through headers): kernels compiled at run time with NVRTC or
    jitify from the header's text. Each is a translation unit of its own."""
    reached: set[Path] = set()
    pending = list(files)
    while pending:
        including = pending.pop()
        for name in _included_names(including):
            for folder in (including.parent, *map(Path, folders)):
                candidate = (folder / name).resolve()
                if candidate.is_file() and inside(candidate, root):
                    if candidate not in reached:
                        reached.add(candidate)
                        pending.append(candidate)
                    break
    found = []
    for path in sorted(root.rglob("*.cuh")):
        relative = PurePosixPath(path.relative_to(root).as_posix())
        if not path.is_file() or not inside(path, root) or path.resolve() in reached \
                or _matches(relative, SKIPPED, folders_only=True) or _matches(relative, exclude) \
                or (include and not _matches(relative, include)):
            continue
        try:
            if _KERNEL.search(path.read_text(errors="replace")):
                found.append(path)
        except OSError:
            continue
    return found
