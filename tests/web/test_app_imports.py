"""The site's Django apps import each other in one direction only.

``core`` is the base every app builds on and imports no app; above it ``accounts``, ``lessons``
and ``puzzles``; ``classroom`` on top. The test reads every module of every app (function-level
imports too) with ``ast`` and fails on an import of an app by ``core`` or on any cycle, naming
the files that make it.
"""

from __future__ import annotations

import ast
from pathlib import Path

from django.apps import apps

ROOT = Path(__file__).resolve().parent.parent.parent


def site_apps() -> dict[str, Path]:
    """The installed apps that are this repository's own, by module name."""
    return {
        config.name: Path(config.path)
        for config in apps.get_app_configs()
        if Path(config.path).resolve().parent == ROOT
    }


def imported_modules(source: str) -> list[str]:
    """The absolute module names a module's source imports, anywhere in it."""
    names = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


def app_imports() -> dict[str, dict[str, list[str]]]:
    """For each app, the other apps it imports and the files that import them."""
    own = site_apps()
    graph: dict[str, dict[str, list[str]]] = {name: {} for name in own}
    for name, path in own.items():
        for module in sorted(path.rglob("*.py")):
            for imported in imported_modules(module.read_text(encoding="utf-8")):
                top = imported.split(".")[0]
                if top in own and top != name:
                    graph[name].setdefault(top, []).append(str(module.relative_to(ROOT)))
    return graph


def find_cycle(graph: dict[str, dict[str, list[str]]]) -> list[str] | None:
    """One cycle of the graph as the apps along it (the first repeated at the end), or None."""
    done: set[str] = set()

    def visit(path: list[str]) -> list[str] | None:
        for nxt in sorted(graph[path[-1]]):
            if nxt in path:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in done and (cycle := visit(path + [nxt])) is not None:
                return cycle
        done.add(path[-1])
        return None

    for start in sorted(graph):
        if start not in done and (cycle := visit([start])) is not None:
            return cycle
    return None


def test_the_apps_of_the_site_are_all_read():
    assert set(site_apps()) == {
        "core",
        "accounts",
        "lessons",
        "puzzles",
        "classroom",
        "review",
        "play",
        "exams",
        "live",
        "versus",
        "tournaments",
        "explore",
        "analysis",
        "runs",
        "squares",
    }


def test_core_imports_no_app():
    assert app_imports()["core"] == {}


def test_no_two_apps_import_each_other_even_through_others():
    graph = app_imports()
    cycle = find_cycle(graph)
    assert cycle is None, (
        "import cycle "
        + " -> ".join(cycle)
        + "; "
        + "; ".join(
            f"{a} imports {b} in {', '.join(graph[a][b])}"
            for a, b in zip(cycle, cycle[1:], strict=False)
        )
    )


def test_the_cycle_finder_finds_a_cycle_through_three_apps():
    graph = {"a": {"b": ["a.py"]}, "b": {"c": ["b.py"]}, "c": {"a": ["c.py"]}, "d": {}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b": []}, "b": {}}) is None


def test_a_signed_in_users_choices_reach_the_profile_though_core_does_not_import_accounts(
    client, student
):
    from accounts.models import profile_of

    client.force_login(student)
    client.get("/?variant=international")
    client.post("/language", {"language": "cs", "next": "/"})
    profile = profile_of(student)
    assert (profile.preferred_variant, profile.language) == ("international", "cs")
