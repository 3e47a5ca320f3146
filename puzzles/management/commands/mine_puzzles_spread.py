"""The spread of a puzzle corpus: piece counts, move numbers, horizons, goals and named shots per
variant, from PDN files (the shipped ``fixtures/puzzles/*.pdn`` by default), side by side.

    manage.py mine_puzzles_spread                                   # the shipped corpus
    manage.py mine_puzzles_spread old/*.pdn                         # another corpus, to compare

Shots are given as counts, the other measures as shares; the source tells the engine's game
positions (``engine-game``) from the tempting moves off them (``engine-sideline``). The move
number comes from the ``Source`` tag (``... ply N``: the game's half-move N, so the move
is N // 2 + 1); puzzles without one count as unknown.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand

from puzzles import engine

PLY = re.compile(r"\bply (\d+)\b")


def spread(paths: list[Path]) -> dict[str, dict[str, Counter[str]]]:
    """variant -> measure -> Counter of buckets."""
    out: dict[str, dict[str, Counter[str]]] = {}
    names = engine.shot_names()
    for path in paths:
        variant = path.stem.replace("old_", "")
        for entry in engine.read_puzzles(path.read_text(encoding="utf-8"), None):
            if isinstance(entry, Exception):
                continue
            v = out.setdefault(
                entry.variant,
                {k: Counter() for k in ("pieces", "move", "horizon", "goal", "shot", "source")},
            )
            n = engine.piece_count(entry.variant, entry.fen)
            v["pieces"][f"{(n // 5) * 5:02d}-{(n // 5) * 5 + 4:02d}"] += 1
            m = PLY.search(entry.source)
            v["move"][f"{(int(m.group(1)) // 2 + 1) // 10 * 10:03d}+" if m else "?"] += 1
            h = entry.horizon or 1
            v["horizon"]["1-2" if h <= 2 else "3-4" if h <= 4 else "5+"] += 1
            v["goal"][entry.goal.split(":")[0]] += 1
            source = entry.source.split(" ")[0] or "?"
            if source == "engine":  # a position of the game, or a tempting move off it
                source = "engine-sideline" if " after " in entry.source else "engine-game"
            v["source"][source] += 1
            for t in entry.motifs:
                if t in names:
                    v["shot"][t] += 1
        del variant
    return out


class Command(BaseCommand):
    help = "Show the spread of piece counts, move numbers, horizons and shots of puzzle files."

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="*", metavar="PDN")

    def handle(self, *args, paths, **opts):
        files = [Path(p) for p in paths] or sorted(
            (Path(settings.BASE_DIR) / "fixtures" / "puzzles").glob("*.pdn")
        )
        for variant, measures in sorted(spread(files).items()):
            total = sum(measures["goal"].values())
            self.stdout.write(f"{variant}: {total} puzzles")
            for name, counter in measures.items():
                cells = "  ".join(
                    # the rare shots by count: a share would round them to 0 %
                    f"{k} {n}" if name == "shot" else f"{k} {100 * n / total:.0f}%"
                    for k, n in sorted(counter.items())
                )
                self.stdout.write(f"  {name:8} {cells}")
