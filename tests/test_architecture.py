"""The package layout is the architecture: each subpackage's docstring says which others it
may import ("May import: ..."), and its modules import only those (their own package,
the standard library and third-party libraries aside). No module imports itself back
through others."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("simulee", "interpreter", "evolve")
# the command line and the Python API are the faces of every subsystem
ANYTHING = {"simulee", "simulee.cli", "simulee.api", "simulee.__main__"}


def modules() -> dict[str, Path]:
    """Every module of the three packages by dotted name (a package by its own name)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of the three packages that `name` imports anywhere in its text (a
    function's import too): `from package import module` names the module."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return {module for module in found if module.split(".")[0] in PACKAGES}


def unit(module: str) -> str:
    """The subsystem a module belongs to: simulee's subpackage, or the top-level package."""
    parts = module.split(".")
    if parts[0] == "simulee" and len(parts) > 1 and (ROOT / "simulee" / parts[1]).is_dir():
        return f"simulee.{parts[1]}"
    return module if parts[0] == "simulee" else parts[0]


def allowed(package: str, known: dict[str, Path]) -> set[str]:
    """What a package's docstring says it may import."""
    doc = ast.get_docstring(ast.parse(known[package].read_text())) or ""
    stated = re.search(r"May import:(.*?)(?:\n\n|$)", doc, re.S)
    assert stated, f"{package}: the docstring does not say what it may import"
    return set(re.findall(r"\b(?:simulee(?:\.\w+)?|interpreter|evolve)\b", stated.group(1)))


def test_every_subsystem_imports_only_what_its_docstring_allows():
    known = modules()
    wrong = []
    for name, path in known.items():
        if name in ANYTHING:
            continue
        own = unit(name)
        permitted = {own, "simulee.errors"} if own != "simulee.errors" else {own}
        if own.startswith("simulee.") and own in known and known[own].name == "__init__.py":
            permitted |= allowed(own, known)
        elif own in ("interpreter", "evolve"):
            permitted |= allowed(own, known)
        for imported in imports(name, path, known):
            target = unit(imported)
            # the package's root holds only __version__ for the modules below it
            if imported == "simulee" or target in permitted:
                continue
            wrong.append(f"{name} imports {imported}")
    assert not wrong, "\n".join(wrong)


def test_no_import_cycle():
    known = modules()
    graph = nx.DiGraph()
    for name, path in known.items():
        for imported in imports(name, path, known):
            # a package's own modules may import its __init__'s names and the other way round
            if imported != name and not (name.startswith(imported + ".") or imported.startswith(name + ".")):
                graph.add_edge(name, imported)
    cycles = list(nx.simple_cycles(graph, length_bound=6))
    assert not cycles, "\n".join(" -> ".join(cycle) for cycle in cycles[:10])


def test_the_rule_catches_a_wrong_import(tmp_path):
    """The check itself: a module of the front end that imports the scan is found."""
    known = modules()
    rogue = tmp_path / "rogue.py"
    rogue.write_text("from simulee.scanner.repository import scan\n")
    found = imports("simulee.frontend.rogue", rogue, known)
    assert found == {"simulee.scanner.repository"}
    assert unit("simulee.scanner.repository") not in allowed("simulee.frontend", known)
