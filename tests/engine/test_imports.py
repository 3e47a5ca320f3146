"""The engine's modules import each other in layers: no import cycle, not even one hidden in a
function body or under ``TYPE_CHECKING``, and each module imports on its own."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "dama"


def _module_of(path: Path) -> str:
    """``dama/mine/tag.py`` -> ``dama.mine.tag``; a package's ``__init__.py`` is the package."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


SOURCES = sorted(p for p in PACKAGE.rglob("*.py") if "_compiled" not in p.parts)
MODULES = sorted(_module_of(p) for p in SOURCES)


def imports_of(path: Path) -> set[str]:
    """The dama modules ``path`` imports anywhere in its code (docstrings are not code)."""
    here = _module_of(path)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from .x import y, from ..x import y, from . import y
                package = here.split(".")
                if path.name != "__init__.py":
                    package = package[:-1]
                package = package[: len(package) - (node.level - 1)]
                base = ".".join(package + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            # from dama import board, from .mine import tag: the submodule, else the package
            names = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names
            ]
        else:
            continue
        for name in names:
            # a name imported from a module, e.g. dama.mine.tag.motifs: its module
            while name not in MODULES and "." in name:
                name = name.rsplit(".", 1)[0]
            if name in MODULES:
                found.add(name)
    found.discard(here)
    return found


def import_graph() -> dict[str, set[str]]:
    return {_module_of(p): imports_of(p) for p in SOURCES}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` (the modules in order, the first repeated last), or None."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                return [*path[path.index(n) :], n]
            if n not in state and (cycle := visit(n)) is not None:
                return cycle
        path.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (cycle := visit(m)) is not None:
            return cycle
    return None


def test_the_cycle_finder_finds_a_cycle_and_accepts_layers() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}) is None


def test_the_import_reader_sees_imports_in_functions_and_type_checking_blocks() -> None:
    graph = import_graph()
    assert "dama.baseboard" in graph["dama.board"]
    assert "dama.baseboard" in graph["dama.fen"]  # under TYPE_CHECKING only
    assert "dama" in graph["dama.solve"]  # from . import ENGINE_VERSION, inside solve()
    assert "dama.board" in graph["dama.mine.tag"]  # from ..board import Board
    assert "dama.mine.tag" in graph["dama.mine.verify"]  # from .tag import ...


def test_the_mining_steps_import_only_the_steps_before_them() -> None:
    """Generate, verify, tag and write are steps (``dama.mine``): the tagger knows nothing of
    where positions come from or how they are proven, and nothing but the pipeline
    (``dama.mine`` itself) imports the writer."""
    graph = import_graph()
    steps = {m for m in graph if m.startswith("dama.mine.")}
    assert steps == {"dama.mine.generate", "dama.mine.verify", "dama.mine.tag", "dama.mine.write"}
    assert graph["dama.mine.tag"] & steps == set()
    assert graph["dama.mine.generate"] & steps == {"dama.mine.tag"}
    assert graph["dama.mine.verify"] & steps == {"dama.mine.generate", "dama.mine.tag"}
    assert graph["dama.mine.write"] & steps == {"dama.mine.tag"}


def test_no_module_of_the_engine_imports_one_that_imports_it_back() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


@pytest.mark.parametrize("module", MODULES)
def test_each_module_imports_on_its_own(module: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", f"import {module}"],
        cwd=PACKAGE.parent,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
