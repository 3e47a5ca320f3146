"""The daily puzzle: the same puzzle for everyone on a date, a year without repeats, streaks.

:func:`daily_puzzle` picks the puzzle of a date the first time anyone asks (or when the periodic
job ``puzzles.pick_daily_puzzles`` runs, a little before midnight, for the next day): among the
:data:`DAILY_POOL` best rated proven puzzles of the site's pool (the corpus: never a teacher's own
puzzle; rated by :func:`best_rated`: the quality estimate from the puzzle's motifs, then
players' likes) not used in the 365 days before, the one whose hash of (variant, date, id) is
smallest, so that the choice is deterministic; the row is unique per variant and date, so two
requests racing at midnight still agree.
"""

from __future__ import annotations

import hashlib
from datetime import date, timedelta

from celery import shared_task
from django.db import IntegrityError, transaction
from django.db.models import ExpressionWrapper, F, FloatField, QuerySet
from django.db.models.functions import Cast
from django.utils import timezone

from core.kept import bump
from core.variants import VARIANT_NAMES

from .models import Attempt, DailyPuzzle, Puzzle
from .player import Player
from .stream import public_pool

#: a puzzle is not the daily puzzle again within this many days
NO_REPEAT_DAYS = 365


#: the best rated puzzles of a variant the daily puzzle is chosen from (a year's worth and more)
DAILY_POOL = 500
#: how far players' votes move a puzzle's rating from its quality estimate (0-100): all of it
#: when many liked it, a share while few voted
VOTE_WEIGHT = 40
#: votes that count as none, so that the first few move the rating little
VOTE_PRIOR = 4


def best_rated(variant: str) -> QuerySet[Puzzle]:
    """The public pool of ``variant``, best rated first: the quality estimate plus
    :data:`VOTE_WEIGHT` times the share of likes over dislikes (with :data:`VOTE_PRIOR`)."""
    votes = Cast(F("likes") - F("dislikes"), FloatField())
    score = ExpressionWrapper(
        F("quality") + VOTE_WEIGHT * votes / (F("likes") + F("dislikes") + VOTE_PRIOR),
        output_field=FloatField(),
    )
    return public_pool(variant).alias(score=score).order_by("-score", "pk")


def today() -> date:
    return timezone.localdate()


def _rank(variant: str, day: date, pk: int) -> str:
    return hashlib.sha256(f"{variant}:{day.isoformat()}:{pk}".encode()).hexdigest()


def choose(variant: str, day: date) -> Puzzle | None:
    """The puzzle :func:`daily_puzzle` would pick for ``day`` (without storing it)."""
    ids = list(best_rated(variant).values_list("pk", flat=True)[:DAILY_POOL])
    if not ids:
        return None
    recent = set(
        DailyPuzzle.objects.filter(
            variant=variant,
            date__gt=day - timedelta(days=NO_REPEAT_DAYS),
            date__lt=day + timedelta(days=NO_REPEAT_DAYS),
        )
        .exclude(date=day)
        .values_list("puzzle_id", flat=True)
    )
    candidates = [pk for pk in ids if pk not in recent]
    if not candidates:
        # fewer puzzles than days: the one used longest ago
        last_used = dict(
            DailyPuzzle.objects.filter(variant=variant, puzzle_id__in=ids)
            .order_by("date")
            .values_list("puzzle_id", "date")
        )
        candidates = [
            min(ids, key=lambda pk: (last_used.get(pk, date.min), _rank(variant, day, pk)))
        ]
    pk = min(candidates, key=lambda pk: _rank(variant, day, pk))
    return Puzzle.objects.get(pk=pk)


def daily_puzzle(variant: str, day: date | None = None) -> DailyPuzzle | None:
    """The daily puzzle of ``variant`` on ``day`` (today), chosen and stored on first use. A
    puzzle the exams keep (``for_exams``) is never one: a day chosen before they kept it is
    chosen again from today on, and is gone from the archive before."""
    day = day or today()
    row = (
        DailyPuzzle.objects.select_related("puzzle")
        .defer("puzzle__proof")
        .filter(variant=variant, date=day)
        .first()
    )
    if row is not None and not row.puzzle.for_exams:
        return row
    if row is not None and day < today():
        return None
    puzzle = choose(variant, day)
    if puzzle is None:
        return None
    if row is not None:
        DailyPuzzle.objects.filter(pk=row.pk, puzzle_id=row.puzzle_id).update(puzzle=puzzle)
        bump("puzzles")  # the kept rows say which puzzle is today's
        return daily_puzzle(variant, day)
    try:
        with transaction.atomic():
            return DailyPuzzle.objects.create(variant=variant, date=day, puzzle=puzzle)
    except IntegrityError:
        return (
            DailyPuzzle.objects.select_related("puzzle")
            .defer("puzzle__proof")
            .get(variant=variant, date=day)
        )


@shared_task(name="puzzles.pick_daily_puzzles")
def pick_daily_puzzles() -> dict[str, int | None]:
    """Periodic job: make sure today's and tomorrow's daily puzzles exist in every variant."""
    done: dict[str, int | None] = {}
    for variant in VARIANT_NAMES:
        for day in (today(), today() + timedelta(days=1)):
            row = daily_puzzle(variant, day)
            done[f"{variant}:{day.isoformat()}"] = row.puzzle_id if row else None
    return done


def archive(variant: str, before: date | None = None) -> QuerySet[DailyPuzzle]:
    """The days before ``before`` (today) and their puzzles, but those the exams keep."""
    return DailyPuzzle.objects.filter(
        variant=variant, date__lt=before or today(), puzzle__for_exams=False
    ).select_related("puzzle")


def todays_ids() -> frozenset[int]:
    """The puzzles that are today's daily puzzles (of any variant): the stream leaves them out
    and their plain address leads to the daily puzzle. Read from the database on every call (one
    small indexed query): the stream and the puzzle page must agree in every process, also in
    the embedded default, whose cache is not shared between processes, or the stream would send
    a player to a page that sends them on to the daily puzzle."""
    return frozenset(DailyPuzzle.objects.filter(date=today()).values_list("puzzle_id", flat=True))


def is_todays(puzzle: Puzzle) -> bool:
    """Whether ``puzzle`` is today's daily puzzle of its variant: then it is played only as the
    daily puzzle (its plain address would let a player see the solution there first). A puzzle
    served to the trainer knows it already (:func:`~puzzles.stream.served_puzzle`)."""
    if not puzzle.is_public:
        return False
    known = getattr(puzzle, "daily_today", None)
    return puzzle.pk in todays_ids() if known is None else known


def solved_days(player: Player, variant: str) -> set[date]:
    """The dates whose daily puzzle the player solved on that very date."""
    days = set()
    for day, finished in (
        Attempt.objects.of(player)
        .filter(
            source=Attempt.Source.DAILY,
            solved=True,
            puzzle__variant=variant,
            daily_date__isnull=False,
        )
        .values_list("daily_date", "finished_at")
    ):
        if finished is not None and timezone.localdate(finished) == day:
            days.add(day)
    return days


def streak(player: Player, variant: str, day: date | None = None) -> dict[str, int | bool]:
    """Consecutive days solved up to ``day`` (today counts once solved; an unsolved today does
    not break yesterday's streak yet), the best run, and whether today is done."""
    day = day or today()
    days = solved_days(player, variant)
    current = 0
    cursor = day if day in days else day - timedelta(days=1)
    while cursor in days:
        current += 1
        cursor -= timedelta(days=1)
    best = 0
    run = 0
    previous = None
    for d in sorted(days):
        run = run + 1 if previous is not None and d - previous == timedelta(days=1) else 1
        best = max(best, run)
        previous = d
    return {"current": current, "best": best, "today": day in days}
