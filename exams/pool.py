"""The exams' own pool of puzzles, and drawing an exam's questions.

**Reserved for exams.** A deterministic share (``DAMA_EXAM_SHARE``, 25 % by default) of the
corpus's proven-unique puzzles is kept for the exams: a puzzle is reserved when the hash of its
variant, position and goal falls in that share (:func:`is_exam_puzzle`), so the same puzzles are
reserved on every installation. :func:`reserve` writes a :class:`~exams.models.ReservedPuzzle` row
for each (idempotent; ``manage.py reserve_exam_puzzles`` and every exam draw run it); the puzzle
trainer's pool (``puzzles.stream.public_pool``: the stream, the daily puzzle, the motif filter),
a puzzle's plain address and the teachers' corpus search leave those rows out, so practice never
serves an exam question.

**Drawing.** An exam's questions are drawn per line of the level's draw: rule questions of the
line's kind, or reserved puzzles that match its filter and that the trainer judges (a complete
proof), asked as puzzles or (``win`` positions) as an endgame to win against the engine. Questions the player has met in an earlier exam, or tried as practice (a puzzle with an
attempt), come last; the set of questions is never one the player already had for that level
(:func:`draw` tries other draws and refuses rather than repeat one).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable

from django.conf import settings

from core import kept
from puzzles.models import Attempt
from puzzles.stream import forget_pool, servable

from .levels import Level, rule_questions

#: how many draws :func:`draw` tries before it gives up finding a set not drawn before
TRIES = 50


class NotEnoughQuestions(Exception):
    """The level's pool cannot make an exam this player has not had."""


def share() -> float:
    return float(getattr(settings, "DAMA_EXAM_SHARE", 0.25))


def is_exam_puzzle(variant: str, fen: str, goal: str, fraction: float | None = None) -> bool:
    """Whether the puzzle (variant, position, goal) belongs to the exams' share.

    >>> is_exam_puzzle("czech", "W:W21:B1", "capture", 1.0), is_exam_puzzle("czech", "W:W21:B1", "capture", 0.0)
    (True, False)
    """
    fraction = share() if fraction is None else fraction
    digest = hashlib.sha256(f"exam|{variant}|{fen}|{goal}".encode()).hexdigest()
    return int(digest[:8], 16) < fraction * 2**32


def reserve(variant: str) -> int:
    """Reserve the exams' share of the corpus's proven puzzles of ``variant``; returns how many
    rows were new. Idempotent; a new reservation drops the trainer's kept pool everywhere."""
    from .models import ReservedPuzzle

    known = set(ReservedPuzzle.objects.filter(variant=variant).values_list("puzzle_id", flat=True))
    new = [
        ReservedPuzzle(puzzle_id=pk, variant=variant)
        for pk, fen, goal in servable(variant)
        .filter(author__isnull=True)
        .values_list("pk", "fen", "goal")
        if pk not in known and is_exam_puzzle(variant, fen, goal)
    ]
    if new:
        ReservedPuzzle.objects.bulk_create(new, ignore_conflicts=True)
        kept.bump("puzzles")
        forget_pool()
    return len(new)


def exam_puzzles(variant: str) -> list[tuple[int, str, list[str], int]]:
    """``(pk, goal, motifs, difficulty)`` of the reserved puzzles the trainer can judge."""
    return list(
        servable(variant)
        .filter(exam_reservation__isnull=False)
        .values_list("pk", "goal", "motifs", "difficulty")
    )


def signature(questions: Iterable[dict]) -> str:
    """The identity of a set of questions (their order does not matter)."""
    keys = sorted(f"{q['type']}:{q['id']}" for q in questions)
    return hashlib.sha256("|".join(keys).encode()).hexdigest()


def candidates(level: Level, variant: str) -> list[list[dict]]:
    """Per draw line of ``level``, every question it may draw (``{"type", "id"}``)."""
    rules = rule_questions(variant)
    puzzles = exam_puzzles(variant) if any(d.positions for d in level.draw) else []
    out = []
    for line in level.draw:
        if line.rules:
            out.append(
                [{"type": "rule", "id": q.id} for q in rules.values() if q.kind == line.rules]
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
) -> list[dict]:
    """The questions of a new exam of ``level``: per line of the draw, ``count`` questions,
    fresh ones first (``seen``: ``type:id`` of questions of the player's earlier exams;
    ``practised``: puzzles the player tried in practice), never a set in ``drawn`` (the
    signatures of the player's earlier exams of the level). Raises
    :class:`NotEnoughQuestions`."""
    lines = candidates(level, variant)
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
