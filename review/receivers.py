"""The review app listens: a puzzle missed or solved, a personal puzzle made from one of the
player's games, a lesson step answered (the signals of ``puzzles.signals`` and
``lessons.signals``), and makes or rates the learner's card."""

from __future__ import annotations

import logging
from typing import Any

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.utils import timezone

from lessons.signals import step_answered
from puzzles.signals import attempt_failed, attempt_finished, personal_puzzle_made

from . import learner as _learner  # noqa: F401  (registers the visitor's hand-over)
from . import scheduling
from .learner import Learner, forget_count
from .models import Card
from .scheduling import Rating

log = logging.getLogger(__name__)


def _new_card(attempt: Any, origin: str) -> Card:
    return Card(
        kind=Card.Kind.PUZZLE,
        puzzle_id=attempt.puzzle_id,
        variant=attempt.puzzle.variant,
        origin=origin,
        due=timezone.now(),
    )


@receiver(attempt_failed, dispatch_uid="review.attempt_failed")
def puzzle_missed(sender: Any, attempt: Any, player: Any, **kwargs: Any) -> None:
    """A wrong move: the puzzle's card is rated Again (a new card is made), once per attempt."""
    learner = Learner(player.user, player.session)
    now = timezone.now()
    card = learner.puzzle_card(attempt.puzzle_id)
    if card is None:
        card = _new_card(attempt, Card.Origin.FAILED)
        card.apply(Rating.Again, now)
        card.last_attempt = attempt.pk
        learner.add(card)
        return
    if card.last_rating == Rating.Again and not card.is_due(now):
        return  # missed again before it came back: it is already scheduled for tomorrow
    if card.review(Rating.Again, attempt_id=attempt.pk, now=now):
        learner.changed()


@receiver(attempt_finished, dispatch_uid="review.attempt_finished")
def puzzle_finished(sender: Any, attempt: Any, player: Any, **kwargs: Any) -> None:
    """A puzzle solved or given up: a due card is rated by how it went (a mistake or the solution
    shown: Again; a hint or a slow solve: Hard; else Good, or Easy when fast); a puzzle without
    a card becomes one when it was missed or hard."""
    learner = Learner(player.user, player.session)
    now = timezone.now()
    rating = scheduling.rate_attempt(
        failed=attempt.failed,
        solution_shown=attempt.solution_shown,
        hints=attempt.hints,
        seconds=attempt.seconds,
    )
    card = learner.puzzle_card(attempt.puzzle_id)
    if card is None:
        if rating in (Rating.Again, Rating.Hard):
            origin = (
                Card.Origin.FAILED
                if rating == Rating.Again
                else Card.Origin.HINT
                if attempt.hints
                else Card.Origin.SLOW
            )
            card = _new_card(attempt, origin)
            card.apply(rating, now)
            card.last_attempt = attempt.pk
            learner.add(card)
        return
    if card.last_attempt == attempt.pk:
        return  # this attempt rated the card already (its first mistake)
    if not card.is_due(now) and rating != Rating.Again:
        return  # solved again before it was due: the schedule stands
    if card.last_rating == Rating.Again and not card.is_due(now):
        return
    if card.review(rating, attempt_id=attempt.pk, now=now):
        learner.changed()


@receiver(personal_puzzle_made, dispatch_uid="review.personal_puzzle_made")
def personal_puzzle(sender: Any, puzzle: Any, owner: Any, **kwargs: Any) -> None:
    """A shot of the player's own game became their puzzle: a card due now (the review says
    which game it comes from); a card they already have for it keeps its schedule."""
    Card.objects.add_personal(owner, puzzle)


@receiver(step_answered, dispatch_uid="review.step_answered")
def step_checked(sender: Any, request: Any, step: Any, right: bool, **kwargs: Any) -> None:
    """A lesson step answered wrongly becomes a card (Again); a due card answered right is Good."""
    learner = Learner.of(request)
    now = timezone.now()
    course = step.course.slug
    card = learner.step_card(course, step.slug)
    rating = scheduling.rate_step(right=right)
    if card is None:
        if not right:
            card = Card(
                kind=Card.Kind.STEP,
                course=course,
                step=step.slug,
                variant=step.variant,
                origin=Card.Origin.WRONG,
                due=now,
            )
            card.apply(rating, now)
            learner.add(card)
        return
    if not card.is_due(now) and (right or card.last_rating == Rating.Again):
        return  # not due yet; a wrong answer to a card going well is a lapse
    if card.review(rating, now=now):
        learner.changed()


@receiver(post_save, sender=Card, dispatch_uid="review.card_saved")
@receiver(post_delete, sender=Card, dispatch_uid="review.card_deleted")
def card_changed(sender: Any, instance: Card, **kwargs: Any) -> None:
    """Any card saved or deleted (the admin too): its owner's navigation counts again."""
    if instance.user_id is not None:
        forget_count(instance.user_id)
