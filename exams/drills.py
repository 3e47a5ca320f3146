"""The endgame exam level's positions: won endings drawn from the endgame databases.

A drill question (``{"type": "drill", "id": FEN}``) is a position of one of the materials the
variant's Endgames course plays (so the slices the course needs are the ones the exam needs),
White to move and winning within the variant's count in a level line's range of moves, with no
capture at the start and at least one move that lets the win go (a position where every move wins
teaches nothing). The positions are chosen with a fixed seed, so every installation with the same
databases asks the same ones, and never one the course shows. Each is kept for the real exams or
for practice by a hash of the position (:func:`reserved`), as the exams' puzzles are: a practice
exam, which shows its answers, never reveals a position a real exam may ask.

Choosing them is lookups in the databases (no search), done once per process and variant.
"""

from __future__ import annotations

import hashlib
import random
import threading
from functools import cache

from core import endgames
from lessons.course import endgames_of

from .levels import DrillFilter

#: the seed of the choice (a new seed asks other positions everywhere)
SEED = 50
#: positions tried per material, and kept per material at most
TRIES, KEEP = 4000, 40

_lock = threading.Lock()


def reserved(variant: str, fen: str) -> bool:
    """Whether the position is kept for the real exams (half of them, by a hash of the
    position; practice draws from the other half)."""
    digest = hashlib.sha256(f"drill|{variant}|{fen}".encode()).digest()
    return digest[0] % 2 == 0


def course_fens(variant: str) -> set[str]:
    """Every position the variant's Endgames course shows (its drills and claims)."""
    course = endgames_of(variant)
    if course is None:
        return set()
    shown = set()
    for step in course.steps:
        shown.add(endgames.normal_fen(step.variant, step.fen))
        shown.update(endgames.normal_fen(step.variant, c.fen) for c in step.claims)
    return shown


@cache
def _positions(variant: str, directory: str, stamp: float) -> tuple[tuple[str, int], ...]:
    """(FEN, moves to the win) of the won endings chosen for ``variant`` from the databases in
    ``directory`` as they were at ``stamp`` (a slice added there since: chosen again)."""
    course = endgames_of(variant)
    if course is None:
        return ()
    shown = course_fens(variant)
    materials = sorted(  # of the course's wins whose slices are built
        {
            endgames.material(step.variant, step.fen)
            for step in course.steps
            if step.exercise.goal == "win" and endgames.covers(step.variant, step.fen)
        }
    )
    rng = random.Random(f"{SEED}|{variant}")
    out: list[tuple[str, int]] = []
    for material in materials:
        kept = 0
        for _ in range(TRIES):
            found = endgames.won_ending(variant, material, rng)
            if found is None:
                continue
            fen, moves = found
            if fen in shown or any(fen == f for f, _m in out):
                continue
            out.append((fen, moves))
            kept += 1
            if kept >= KEEP:
                break
    return tuple(out)


def positions(variant: str, wanted: DrillFilter, *, practice: bool) -> list[str]:
    """The positions a line of a level draws from: for the real exams or for ``practice``."""
    with _lock:
        found = _positions(variant, str(endgames.directory()), endgames.stamp())
    return [
        fen
        for fen, moves in found
        if wanted.min_moves <= moves <= wanted.max_moves and reserved(variant, fen) != practice
    ]


def forget() -> None:
    """Choose again on the next use (the databases changed: tests)."""
    _positions.cache_clear()
