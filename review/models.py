"""Review cards: what a learner got wrong, scheduled again with FSRS (:mod:`review.scheduling`).

A card is a puzzle or a lesson step of one learner: an account (``user``) or a visitor (``user``
empty; the visitor's session keeps the card ids, as the trainer keeps a visitor's attempts, and
hands them to the account at sign-up or login). ``state`` is the scheduler's card as JSON and
``due`` (indexed) when it is next shown. The state changes are methods:
:meth:`Card.review` (one rating, in a transaction on the locked row, at most once per attempt)
and :meth:`CardQuerySet.add_set` (a teacher's set for every student of a class), and
:meth:`CardQuerySet.add_personal` (a puzzle made from one of the player's games).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import models, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.variants import VARIANT_CHOICES
from puzzles.models import Puzzle

from . import scheduling
from .scheduling import Rating


class CardQuerySet(models.QuerySet["Card"]):
    def due(self, now: datetime | None = None) -> CardQuerySet:
        return self.filter(due__lte=now or timezone.now())

    def add_personal(self, user: Any, puzzle: Puzzle) -> Card:
        """A card, due now, for ``user``'s personal puzzle (a shot of one of their games: the
        review says which game, ``Puzzle.origin``); a card they have for it keeps its
        schedule. Returns the card."""
        now = timezone.now()
        card, _created = self.get_or_create(
            user=user,
            puzzle=puzzle,
            defaults={
                "kind": Card.Kind.PUZZLE,
                "variant": puzzle.variant,
                "origin": Card.Origin.GAME,
                "state": scheduling.new_state(now),
                "due": now,
            },
        )
        return card

    def add_set(self, users: list[Any], puzzles: list[Puzzle], *, note: str = "") -> int:
        """A card, due now, for each of ``puzzles`` and each of ``users`` that has none for the
        puzzle yet (an existing card keeps its schedule). One insert; returns how many new."""
        now = timezone.now()
        existing = set(
            self.filter(user__in=users, puzzle__in=puzzles).values_list("user_id", "puzzle_id")
        )
        cards = [
            Card(
                user=user,
                kind=Card.Kind.PUZZLE,
                puzzle=puzzle,
                variant=puzzle.variant,
                origin=Card.Origin.TEACHER,
                note=note[:120],
                state=scheduling.new_state(now),
                due=now,
            )
            for user in users
            for puzzle in puzzles
            if (user.pk, puzzle.pk) not in existing
        ]
        Card.objects.bulk_create(cards, ignore_conflicts=True)
        return len(cards)


class Card(models.Model):
    class Kind(models.TextChoices):
        PUZZLE = "puzzle", _("puzzle")
        STEP = "step", _("lesson step")

    class Origin(models.TextChoices):
        """Why the card was made (the review page says it)."""

        FAILED = "failed", _("missed")
        HINT = "hint", _("solved with a hint")
        SLOW = "slow", _("solved slowly")
        WRONG = "wrong", _("answered wrongly")
        TEACHER = "teacher", _("added by a teacher")
        GAME = "game", _("from one of your games")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="review_cards",
        verbose_name=_("user"),
    )
    kind = models.CharField(_("kind"), max_length=10, choices=Kind, default=Kind.PUZZLE)
    puzzle = models.ForeignKey(
        Puzzle,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="review_cards",
        verbose_name=_("puzzle"),
    )
    #: a lesson step: its course and step slugs (step slugs are unique across the courses)
    course = models.CharField(_("course"), max_length=40, blank=True)
    step = models.CharField(_("step"), max_length=80, blank=True)
    variant = models.CharField(_("variant"), max_length=20, choices=VARIANT_CHOICES)
    origin = models.CharField(_("origin"), max_length=10, choices=Origin, default=Origin.FAILED)
    #: the set's title when a teacher added the card
    note = models.CharField(_("note"), max_length=120, blank=True)
    state = models.JSONField(_("scheduler state"), default=dict)
    due = models.DateTimeField(_("due"), db_index=True)
    reps = models.PositiveIntegerField(_("reviews"), default=0)
    lapses = models.PositiveIntegerField(_("lapses"), default=0)
    last_rating = models.PositiveSmallIntegerField(_("last rating"), null=True, blank=True)
    last_review = models.DateTimeField(_("last review"), null=True, blank=True)
    #: when the card was last missed (a wrong answer or move, a solution shown)
    last_missed = models.DateTimeField(_("last missed"), null=True, blank=True)
    #: the puzzle attempt that last rated the card (an attempt rates its card at most once)
    last_attempt = models.PositiveBigIntegerField(_("last attempt"), null=True, blank=True)
    created = models.DateTimeField(_("created"), default=timezone.now, editable=False)

    objects = CardQuerySet.as_manager()

    class Meta:
        ordering = ["due", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "puzzle"],
                condition=Q(user__isnull=False, puzzle__isnull=False),
                name="review_one_card_per_user_and_puzzle",
            ),
            models.UniqueConstraint(
                fields=["user", "course", "step"],
                condition=Q(user__isnull=False, kind="step"),
                name="review_one_card_per_user_and_step",
            ),
        ]
        indexes = [models.Index(fields=["user", "variant", "due"], name="review_user_due")]
        verbose_name = _("review card")
        verbose_name_plural = _("review cards")

    def __str__(self) -> str:
        what = f"puzzle #{self.puzzle_id}" if self.kind == self.Kind.PUZZLE else self.step
        return f"{self.user or 'visitor'} · {what} · {self.due:%Y-%m-%d}"

    @property
    def is_puzzle(self) -> bool:
        return self.kind == self.Kind.PUZZLE

    def is_due(self, now: datetime | None = None) -> bool:
        return self.due <= (now or timezone.now())

    def apply(self, rating: Rating, now: datetime) -> None:
        """Schedule the card after a review rated ``rating`` (in memory; the caller saves)."""
        self.state, self.due = scheduling.review(self.state or None, rating, now)
        if rating == Rating.Again:
            if self.reps:
                self.lapses += 1
            self.last_missed = now
        self.reps += 1
        self.last_rating = int(rating)
        self.last_review = now

    def review(self, rating: Rating, *, attempt_id: int | None = None, now=None) -> bool:
        """Rate the card once (on its locked row): False when ``attempt_id`` rated it already."""
        now = now or timezone.now()
        with transaction.atomic():
            card = Card.objects.select_for_update().get(pk=self.pk)
            if attempt_id is not None and card.last_attempt == attempt_id:
                return False
            card.apply(rating, now)
            card.last_attempt = attempt_id or card.last_attempt
            card.save()
        self.__dict__.update({f.attname: getattr(card, f.attname) for f in Card._meta.fields})
        return True


class ReminderSetting(models.Model):
    """Whether an account gets a daily e-mail when cards are due (off unless asked for)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="review_reminder",
        verbose_name=_("user"),
    )
    daily_email = models.BooleanField(_("daily e-mail reminder"), default=False)
    last_sent = models.DateField(_("last sent"), null=True, blank=True)

    class Meta:
        verbose_name = _("review reminder")
        verbose_name_plural = _("review reminders")

    def __str__(self) -> str:
        return f"{self.user} · {'on' if self.daily_email else 'off'}"
