"""The engine's modules import each other in layers: no import cycle, not even one hidden in a
function body or under ``TYPE_CHECKING``, and each module imports on its own."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "dama"
MODULES = sorted(
    "dama" if p.name == "__init__.py" else f"dama.{p.stem}" for p in PACKAGE.glob("*.py")
)


def _module_of(path: Path) -> str:
    return "dama" if path.name == "__init__.py" else f"dama.{path.stem}"


def imports_of(path: Path) -> set[str]:
    """The dama modules ``path`` imports anywhere in its code (docstrings are not code)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from .x import y, from . import y
                base = "dama" + (f".{node.module}" if node.module else "")
            else:
                base = node.module or ""
            names = [base]
            if base == "dama":  # from dama import board: the submodule, else the package
                names = [
                    f"dama.{a.name}" if f"dama.{a.name}" in MODULES else "dama" for a in node.names
                ]
        else:
            continue
        for name in names:
            if name == "dama" or name.startswith("dama."):
                found.add(".".join(name.split(".")[:2]))
    found.discard(_module_of(path))
    return found


def import_graph() -> dict[str, set[str]]:
    return {_module_of(p): imports_of(p) for p in sorted(PACKAGE.glob("*.py"))}


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
