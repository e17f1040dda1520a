"""Content-addressed cache of compiled IR.

An entry is found by a key over everything known before compiling (tool versions, flags,
source path and content); it records the files the compiler read and their hashes, and is
used only while every one of them is unchanged and the stored IR matches its own hash.
Anything missing, unreadable or inconsistent is a miss, so a corrupt entry gets rebuilt.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from pathlib import Path

from simulee.folders import cache_folder


def cache_root() -> Path:
    """$SIMULEE_CACHE, else the user's cache directory for simulee (simulee.folders)."""
    return Path(cache_folder())


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@functools.lru_cache(maxsize=1)
def code_digest() -> str:
    """The digest of every module of Simulee's packages as they are on disk: what a kept
    result that Simulee's own code computes (a proof, a build) is keyed by."""
    root = Path(__file__).resolve().parents[2]
    files = sorted(path for package in ("simulee", "interpreter", "evolve") for path in (root / package).rglob("*.py"))
    return digest(b"".join(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() for path in files))


def file_digest(path: str | Path) -> str | None:
    """The SHA-256 of a file's content, or None when it cannot be read."""
    try:
        return digest(Path(path).read_bytes())
    except OSError:
        return None


class IRCache:
    """IR texts stored under root/ir/, one manifest (.json) and one IR file (.ll) per key."""

    def __init__(self, root: Path | None = None):
        self.root = (root or cache_root()) / "ir"

    def _paths(self, key: str) -> tuple[Path, Path]:
        folder = self.root / key[:2]
        return folder / f"{key}.json", folder / f"{key}.ll"

    def get(self, key: str) -> str | None:
        """The cached IR for `key`, or None when absent, stale or corrupt."""
        manifest_path, ir_path = self._paths(key)
        try:
            manifest = json.loads(manifest_path.read_text())
            ir = ir_path.read_bytes()
            if digest(ir) != manifest["ir"]:
                return None
            for dep, dep_digest in manifest["deps"].items():
                if file_digest(dep) != dep_digest:
                    return None
            return ir.decode()
        except (OSError, ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
            return None

    def put(self, key: str, ir: str, deps: list[str]) -> None:
        """Store `ir` for `key`, valid while the files `deps` keep their current content.
        An unwritable cache is not an error: the IR is simply not kept."""
        manifest_path, ir_path = self._paths(key)
        data = ir.encode()
        manifest = {"ir": digest(data), "deps": {dep: file_digest(dep) for dep in deps}}
        try:
            manifest_path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(ir_path, data)
            write_atomically(manifest_path, json.dumps(manifest, indent=1).encode())
        except OSError:
            pass


def write_atomically(path: Path, data: bytes) -> None:
    """Write through a temporary file and rename, so readers never see half a file."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
