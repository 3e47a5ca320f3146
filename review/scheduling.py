"""The review schedule: the `fsrs` package's scheduler (FSRS-6), and how a result becomes a rating.

A card's state is the scheduler's own ``fsrs.Card`` as a dict (stored on the model as JSON); this
module turns a puzzle attempt or a lesson answer into one of FSRS's four ratings and asks the
scheduler when the card is due next. Nothing here reads the database.

>>> from datetime import datetime, timezone
>>> now = datetime(2026, 1, 1, tzinfo=timezone.utc)
>>> _state, due = review(None, Rating.Again, now)
>>> (due - now).days
1
>>> rate_attempt(failed=False, solution_shown=False, hints=1, seconds=10.0)
<Rating.Hard: 2>
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import fsrs
from fsrs import Rating

__all__ = ["FAST_SECONDS", "SLOW_SECONDS", "Rating", "new_state", "rate_attempt", "rate_step"]

#: a solve slower than this (no hint, no mistake) was hard: the puzzle becomes a card
SLOW_SECONDS = 120.0
#: a clean solve faster than this was easy
FAST_SECONDS = 20.0

#: Whole days between reviews: no same-day learning steps (a puzzle replayed a minute after its
#: solution was shown is remembered, not solved); a lapse is seen again the next day.
SCHEDULER = fsrs.Scheduler(
    learning_steps=(),
    relearning_steps=(timedelta(days=1),),
    enable_fuzzing=False,
)


def rate_attempt(*, failed: bool, solution_shown: bool, hints: int, seconds: float) -> Rating:
    """Again for a mistake or a solution shown; Hard with a hint or slowly; Easy when fast."""
    if failed or solution_shown:
        return Rating.Again
    if hints or seconds > SLOW_SECONDS:
        return Rating.Hard
    if seconds < FAST_SECONDS:
        return Rating.Easy
    return Rating.Good


def rate_step(*, right: bool) -> Rating:
    """A lesson step answered: Good when right, Again when wrong."""
    return Rating.Good if right else Rating.Again


def new_state(now: datetime) -> dict[str, Any]:
    """A card never reviewed, due at ``now`` (a teacher's set added to a class)."""
    return fsrs.Card(due=now).to_dict()


def review(state: dict[str, Any] | None, rating: Rating, now: datetime) -> tuple[dict, datetime]:
    """The card after a review rated ``rating`` at ``now``: its new state and when it is due."""
    card = fsrs.Card.from_dict(state) if state else fsrs.Card(due=now)  # type: ignore[arg-type]
    card, _log = SCHEDULER.review_card(card, rating, now)
    return card.to_dict(), card.due
