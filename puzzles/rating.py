"""Puzzle ratings: Glicko-2 (:mod:`puzzles.glicko2`) for players and puzzles.

Only a player's first attempt at a puzzle is rated, as on lichess (``Attempt.first``, stored when
the attempt is made); the score is 1 for a clean solve, 0.5 with a hint, 0 after a mistake (a
legal move the proof does not accept: an illegal or unreadable one is refused and never rated) or
with the solution shown. An account's rating is written in the attempt's own transaction (whose
version check also guards it: a request that loses a race rates nothing); a visitor's is kept in
the session, and their attempts move to the account at login or sign-up (``core.progress`` key
``"puzzles"``), where the rated ones are rated again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.db import transaction
from django.db.models import F, Min
from django.utils import timezone

from core import progress

from . import glicko2
from .models import Attempt, PlayerRating, Puzzle, PuzzleRating, RatingHistory

if TYPE_CHECKING:
    from .player import Player

#: the session's progress key of the trainer (``core.progress``: handed over at login)
PROGRESS_KEY = "puzzles"


def puzzle_rating(puzzle: Puzzle) -> glicko2.Rating:
    row = PuzzleRating.objects.filter(puzzle=puzzle).first()
    if row is None:
        return glicko2.Rating(float(puzzle.difficulty), 250.0)
    return glicko2.Rating(row.rating, row.deviation, row.volatility)


def player_rating(player: Player, variant: str) -> glicko2.Rating:
    """The account's rating (its row), or the visitor's (the session)."""
    seen = player.ratings_seen.get(variant)
    if seen is not None:  # this request rated the player
        return seen
    if player.is_account:
        # one row per (user, variant): no ORDER BY needed
        for row in PlayerRating.objects.filter(user_id=player.user_id, variant=variant)[:1]:
            return row.as_rating()
        return glicko2.Rating()
    stored = player.progress().get("ratings", {}).get(variant)
    return glicko2.Rating(*stored[:3]) if stored else glicko2.Rating()


def rate(player: Player, attempt: Attempt, score: float) -> float:
    """Rate the player's first attempt at its puzzle (``Attempt`` calls this inside the
    transaction that writes the attempt): the player's rating change."""
    if not player.is_account:
        return _rate_visitor(player, attempt, score)
    before, after = _apply(attempt, score)
    player.ratings_seen[attempt.puzzle.variant] = after
    return after.rating - before.rating


def _rate_visitor(player: Player, attempt: Attempt, score: float) -> float:
    """A visitor's rating lives in the session (the attempt is rated again in the account at
    sign-up)."""
    variant = attempt.puzzle.variant
    before = player_rating(player, variant)
    after, _puzzle = glicko2.rate_pair(before, puzzle_rating(attempt.puzzle), score)
    ratings = dict(player.progress().get("ratings", {}))
    games = (ratings.get(variant) or [0, 0, 0, 0])[3]
    ratings[variant] = [after.rating, after.deviation, after.volatility, games + 1]
    player.update_progress({"ratings": ratings})
    player.ratings_seen[variant] = after
    return after.rating - before.rating


def rate_account(attempt: Attempt, score: float) -> float | None:
    """Apply one rated attempt of an account to its and the puzzle's Glicko-2 ratings, once (an
    attempt already rated is left alone): the player's rating change."""
    with transaction.atomic():
        if not Attempt.objects.filter(pk=attempt.pk, rated=False).update(rated=True):
            return None
        attempt.rated = True
        before, after = _apply(attempt, score)
        return after.rating - before.rating


def _apply(attempt: Attempt, score: float) -> tuple[glicko2.Rating, glicko2.Rating]:
    """The Glicko-2 update of the player and the puzzle, with a point of rating history (call
    inside a transaction): the player's rating before and after. Both rows are read locked."""
    variant = attempt.puzzle.variant
    player, _created = PlayerRating.objects.select_for_update().get_or_create(
        user_id=attempt.user_id, variant=variant
    )
    puzzle, _created = PuzzleRating.objects.select_for_update().get_or_create(
        puzzle_id=attempt.puzzle_id,
        defaults={"rating": float(attempt.puzzle.difficulty), "deviation": 250.0},
    )
    # the deviation widened for the weeks since the player's last rated puzzle
    now = timezone.now()
    before = player.as_rating(now)
    new_player, new_puzzle = glicko2.rate_pair(
        before, glicko2.Rating(puzzle.rating, puzzle.deviation, puzzle.volatility), score
    )
    PlayerRating.objects.filter(pk=player.pk).update(
        **_values(new_player), games=F("games") + 1, updated=now
    )
    PuzzleRating.objects.filter(pk=puzzle.pk).update(**_values(new_puzzle), games=F("games") + 1)
    RatingHistory.objects.create(
        user_id=attempt.user_id,
        variant=variant,
        rating=new_player.rating,
        deviation=new_player.deviation,
        attempt=attempt,
        at=attempt.finished_at or now,
    )
    return before, new_player


def _values(rating: glicko2.Rating) -> dict[str, float]:
    return {"rating": rating.rating, "deviation": rating.deviation, "volatility": rating.volatility}


@progress.handover(PROGRESS_KEY)
def move_attempts_to_account(user, data: dict[str, Any]) -> None:
    """A visitor logged in or signed up: their attempts become the account's, the account's
    first attempt at each puzzle is marked again, and each first attempt with a result is rated
    (in the order played)."""
    token = str(data.get("visitor", ""))
    theirs = Attempt.objects.filter(visitor=token, user__isnull=True)
    ids = list(theirs.values_list("pk", flat=True)) if token else []
    # a session from before the token (2026-11-28) lists its attempts' ids instead
    ids += [int(i) for i in data.get("attempts", []) if str(i).isdecimal()]
    if not ids:
        return
    Attempt.objects.filter(pk__in=ids, user__isnull=True).update(user=user)
    puzzles = set(Attempt.objects.filter(pk__in=ids, user=user).values_list("puzzle_id", flat=True))
    mine = Attempt.objects.filter(user=user, puzzle_id__in=puzzles)
    firsts = (
        mine.values("puzzle_id").annotate(first_pk=Min("pk")).values_list("first_pk", flat=True)
    )
    mine.exclude(pk__in=list(firsts)).update(first=False)
    mine.filter(pk__in=list(firsts)).update(first=True)
    for attempt in (
        Attempt.objects.filter(pk__in=ids, user=user, rated=False, first=True)
        .select_related("puzzle")
        .order_by("pk")
    ):
        score = attempt.score
        if score is not None:
            rate_account(attempt, score)
