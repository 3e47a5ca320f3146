"""The exams' questions: the puzzles each kind of exam draws from, and drawing an exam.

**Two pools.** A deterministic share (``DAMA_EXAM_SHARE_PERCENT``, 25 % by default) of the
corpus is kept for the exams from the moment a puzzle is saved (``Puzzle.for_exams``, decided
by ``puzzles.models.in_exam_share``, a hash of its variant, position and goal: the same puzzles
on every installation). A real exam draws from those (:func:`exam_puzzles`); the trainer, the
daily puzzle, the corpus search and the practice exams never serve them, no page shows their
solution, and their positions are sealed (``core.models.SealedPosition``). A practice exam shows
its answers at the end, so it draws from the puzzles practice may reveal
(:func:`practice_puzzles`: ``Puzzle.objects.practice()``).

**Drawing.** An exam's questions are drawn per line of the level's draw: rule questions of the
line's kind, puzzles of its pool that match its filter and that the trainer judges (a
complete proof), asked as puzzles or (``win`` positions) as an endgame to win against the
engine, or won endings of the endgame databases (``exams.drills``, kept for the real exams or
for practice alike) played out against the database. Questions the player has met in an earlier exam, or tried as practice (a puzzle with an
attempt), come last; the set of questions is never one the player already had for that level
(:func:`draw` tries other draws and refuses rather than repeat one).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable

from puzzles.models import Attempt
from puzzles.stream import public_pool, servable

from . import drills
from .levels import Level, rule_questions

#: how many draws :func:`draw` tries before it gives up finding a set not drawn before
TRIES = 50


class NotEnoughQuestions(Exception):
    """The level's pool cannot make an exam this player has not had."""


def exam_puzzles(variant: str) -> list[tuple[int, str, list[str], int]]:
    """``(pk, goal, motifs, difficulty)`` of the puzzles kept for the exams that the trainer can
    judge: what a real exam draws from."""
    return list(
        servable(variant).filter(for_exams=True).values_list("pk", "goal", "motifs", "difficulty")
    )


def practice_puzzles(variant: str) -> list[tuple[int, str, list[str], int]]:
    """The same of the puzzles practice may reveal (the trainer's pool): what a practice exam,
    which shows its answers, draws from."""
    return list(public_pool(variant).values_list("pk", "goal", "motifs", "difficulty"))


def signature(questions: Iterable[dict]) -> str:
    """The identity of a set of questions (their order does not matter)."""
    keys = sorted(f"{q['type']}:{q['id']}" for q in questions)
    return hashlib.sha256("|".join(keys).encode()).hexdigest()


def candidates(level: Level, variant: str, *, practice: bool = False) -> list[list[dict]]:
    """Per draw line of ``level``, every question it may draw (``{"type", "id"}``): the puzzles
    kept for the exams, or for a ``practice`` exam those practice may reveal."""
    rules = rule_questions(variant)
    puzzles = []
    if any(d.positions for d in level.draw):
        puzzles = practice_puzzles(variant) if practice else exam_puzzles(variant)
    out = []
    for line in level.draw:
        if line.rules:
            # a real exam asks the strategy questions kept for it; practice asks the others
            out.append(
                [
                    {"type": "rule", "id": q.id}
                    for q in rules.values()
                    if q.kind == line.rules
                    and q.reserved == (line.rules == "strategy" and not practice)
                ]
            )
        elif line.drill is not None:
            out.append(
                [
                    {"type": "drill", "id": fen}
                    for fen in drills.positions(variant, line.drill, practice=practice)
                ]
            )
        else:
            wanted = line.positions
            assert wanted is not None
            kind = "endgame" if line.endgame else "puzzle"
            out.append(
                [
                    {"type": kind, "id": pk}
                    for pk, goal, motifs, difficulty in puzzles
                    if wanted.matches(goal, motifs, difficulty)
                ]
            )
    return out


def draw(
    level: Level,
    variant: str,
    *,
    seen: set[str],
    practised: set[int],
    drawn: set[str],
    rng: random.Random,
    practice: bool = False,
) -> list[dict]:
    """The questions of a new exam of ``level``: per line of the draw, ``count`` questions,
    fresh ones first (``seen``: ``type:id`` of questions of the player's earlier exams;
    ``practised``: puzzles the player tried in practice), never a set in ``drawn`` (the
    signatures of the player's earlier exams of the level); a ``practice`` exam's puzzles
    from those practice may reveal. Raises :class:`NotEnoughQuestions`."""
    lines = candidates(level, variant, practice=practice)
    for line, pool in zip(level.draw, lines, strict=True):
        if len(pool) < line.count:
            raise NotEnoughQuestions(f"level {level.number}: {len(pool)} < {line.count}")
    for attempt in range(TRIES):
        chosen: list[dict] = []
        for line, pool in zip(level.draw, lines, strict=True):
            # a position is asked once per exam (as a puzzle or as an endgame)
            taken = {q["id"] for q in chosen}
            shuffled = [q for q in pool if q["id"] not in taken]
            rng.shuffle(shuffled)
            # fresh questions first; once the fresh ones run short, later tries mix in others
            shuffled.sort(
                key=lambda q: (
                    attempt < TRIES // 2
                    and (
                        f"{q['type']}:{q['id']}" in seen
                        or (q["type"] != "rule" and q["id"] in practised)
                    )
                )
            )
            chosen.extend(shuffled[: line.count])
        if len(chosen) == level.questions and signature(chosen) not in drawn:
            return chosen
    raise NotEnoughQuestions(f"level {level.number}: every draw was had before")


def practised_puzzles(user, variant: str) -> set[int]:
    return set(
        Attempt.objects.filter(user=user, puzzle__variant=variant).values_list(
            "puzzle_id", flat=True
        )
    )
