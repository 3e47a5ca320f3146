"""The web layer reaches the engine through one adapter module per app, and agrees with it."""

from __future__ import annotations

import ast
from pathlib import Path

from django.conf import settings

from core import board as core_board
from core.variants import VARIANT_NAMES

APPS = [
    "core",
    "accounts",
    "lessons",
    "puzzles",
    "classroom",
    "play",
    "dama_learn",
    "exams",
    "versus",
    "explore",
    "analysis",
    "runs",
    "squares",
]
#: the modules that import the engine: one per app, and core's (the board seam, the variant
#: registry of dama.VARIANTS, and the judge of an exercise, which the lessons and the exams share)
ADAPTERS = {
    "core/board.py",
    "core/endgames.py",
    "core/exercise.py",
    "core/variants.py",
    "lessons/engine.py",
    "puzzles/engine.py",
    "classroom/engine.py",
    "play/engine.py",
    "exams/engine.py",
    "versus/engine.py",
    "explore/engine.py",
    "analysis/engine.py",
}


def imports_dama(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(
            a.name == "dama" or a.name.startswith("dama.") for a in node.names
        ):
            return True
        if (
            isinstance(node, ast.ImportFrom)
            and node.module
            and (node.module == "dama" or node.module.startswith("dama."))
        ):
            return True
    return False


def test_only_the_adapter_modules_import_the_engine():
    """The site's code reaches the engine through the adapters. A migration is not the site's
    code: it carries a frozen copy of what its data step ran (docs/architecture.md), and may use
    the engine as the library it is, as it may any installed package."""
    root = Path(settings.BASE_DIR)
    offenders = []
    for app in APPS:
        for path in (root / app).rglob("*.py"):
            rel = path.relative_to(root).as_posix()
            if imports_dama(path) and rel not in ADAPTERS and "/migrations/" not in rel:
                offenders.append(rel)
    assert offenders == []


def test_the_site_knows_exactly_the_engines_variants():
    assert set(VARIANT_NAMES) == set(core_board.engine_variant_names())


def test_each_app_has_its_adapter():
    root = Path(settings.BASE_DIR)
    assert all((root / adapter).exists() for adapter in ADAPTERS)


def test_board_drawings_are_cached_by_position_and_options():
    import dama
    from core import board as core_board

    board = dama.Board("czech")
    plain = core_board.board_svg(board, labels="auto", lang="en")
    # the defaults spelled out share the entry; any real option gets its own drawing
    assert core_board.board_svg(board, labels="auto", lang="en", highlight={}, arrows=[]) is plain
    assert core_board.board_svg(board, labels=None, lang="en") != plain
    assert core_board.board_svg(board, labels="auto", lang="en", flipped=True) != plain
    assert core_board.board_svg(board, labels="auto", lang="cs") != plain
    marked = core_board.board_svg(board, labels="auto", lang="en", highlight={22: "hint"})
    assert 'class="square dark hint"' in marked and marked != plain
    # the same as drawing it afresh
    assert plain == dama.svg.board_svg(board, labels="auto", lang="en")
    board.push(board.parse_move("22-18"))
    assert core_board.board_svg(board, labels="auto", lang="en") != plain
