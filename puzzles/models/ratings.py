"""Puzzle ratings: Glicko-2 (:mod:`puzzles.glicko2`) for players and puzzles, read and written here.

Only a player's first attempt at a puzzle is rated, as on lichess (``Attempt.first``, stored when
the attempt is made); the score is 1 for a clean solve, 0.5 with a hint, 0 after a mistake (a
legal move the proof does not accept: an illegal or unreadable one is refused and never rated) or
with the solution shown. An account's rating is written in the attempt's own transaction (whose
version check also guards it: a request that loses a race rates nothing); a visitor's is kept in
the session, and their attempts move to the account at login or sign-up
(``attempt.hand_over_attempts``), where the rated ones are rated again.
"""

from __future__ import annotations

from datetime import datetime

from django.conf import settings
from django.db import models
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core.variants import VARIANT_CHOICES

from .. import glicko2
from ..player import Player
from .puzzle import Puzzle


class PlayerRatingQuerySet(models.QuerySet["PlayerRating"]):
    def rating_of(self, player: Player, variant: str) -> glicko2.Rating:
        """The player's puzzle rating in ``variant``: the account's row, or the visitor's
        session (the one this request wrote, when it rated the player)."""
        seen = player.ratings_seen.get(variant)
        if seen is not None:
            return seen
        if player.is_account:
            # one row per (user, variant): no ORDER BY needed
            for row in self.filter(user_id=player.user_id, variant=variant)[:1]:
                return row.as_rating()
            return glicko2.Rating()
        return player.session_rating(variant) or glicko2.Rating()

    def rate(
        self,
        player: Player,
        puzzle: Puzzle,
        score: float,
        *,
        attempt_id: int,
        at: datetime | None = None,
    ) -> float:
        """Rate the player's first attempt (``attempt_id``, finished ``at``) at ``puzzle``:
        ``Attempt`` calls this inside the transaction that writes the attempt. An account's and
        the puzzle's rows change (:meth:`rate_account`); a visitor's rating is kept in the
        session (rated again in the account at sign-up). The player's rating change."""
        if player.is_account:
            before, after = self.rate_account(
                player.user_id, puzzle, score, attempt_id=attempt_id, at=at
            )
        else:
            before = self.rating_of(player, puzzle.variant)
            after, _puzzle = glicko2.rate_pair(before, PuzzleRating.of(puzzle), score)
            player.keep_session_rating(puzzle.variant, after)
        player.ratings_seen[puzzle.variant] = after
        return after.rating - before.rating

    def rate_account(
        self,
        user_id: int | None,
        puzzle: Puzzle,
        score: float,
        *,
        attempt_id: int,
        at: datetime | None = None,
    ) -> tuple[glicko2.Rating, glicko2.Rating]:
        """The Glicko-2 update of the account and the puzzle, with a point of rating history
        (call inside a transaction): the account's rating before and after. Both rows are read
        locked."""
        variant = puzzle.variant
        player, _created = self.select_for_update().get_or_create(user_id=user_id, variant=variant)
        rated, _created = PuzzleRating.objects.select_for_update().get_or_create(
            puzzle_id=puzzle.pk,
            defaults={"rating": float(puzzle.difficulty), "deviation": 250.0},
        )
        # the deviation widened for the weeks since the player's last rated puzzle
        now = timezone.now()
        before = player.as_rating(now)
        new_player, new_puzzle = glicko2.rate_pair(
            before, glicko2.Rating(rated.rating, rated.deviation, rated.volatility), score
        )
        self.filter(pk=player.pk).update(**_values(new_player), games=F("games") + 1, updated=now)
        PuzzleRating.objects.filter(pk=rated.pk).update(**_values(new_puzzle), games=F("games") + 1)
        RatingHistory.objects.create(
            user_id=user_id,
            variant=variant,
            rating=new_player.rating,
            deviation=new_player.deviation,
            attempt_id=attempt_id,
            at=at or now,
        )
        return before, new_player


class PlayerRating(models.Model):
    """A player's Glicko-2 puzzle rating in one variant."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="puzzle_ratings",
        verbose_name=_("user"),
    )
    variant = models.CharField(_("variant"), max_length=20, choices=VARIANT_CHOICES)
    rating = models.FloatField(_("rating"), default=1500.0)
    deviation = models.FloatField(_("deviation"), default=350.0)
    volatility = models.FloatField(_("volatility"), default=0.06)
    games = models.PositiveIntegerField(_("rated puzzles"), default=0)
    updated = models.DateTimeField(_("updated"), auto_now=True)

    objects = PlayerRatingQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "variant"], name="player_rating_per_variant")
        ]
        verbose_name = _("player rating")
        verbose_name_plural = _("player ratings")

    def __str__(self) -> str:
        return f"{self.user} {self.variant} {self.rating:.0f}"

    def as_rating(self, now: datetime | None = None) -> glicko2.Rating:
        """The rating as of ``now``: the deviation widened once per rating period
        (:data:`glicko2.PERIOD_DAYS`) since the last rated puzzle."""
        elapsed = ((now or timezone.now()) - self.updated).total_seconds() if self.updated else 0
        periods = int(max(0.0, elapsed) // (glicko2.PERIOD_DAYS * 86400))
        return glicko2.idle(glicko2.Rating(self.rating, self.deviation, self.volatility), periods)

    @property
    def deviation_now(self) -> float:
        """The deviation shown to the player (widened for the time away)."""
        return self.as_rating().deviation


class RatingHistory(models.Model):
    """A player's rating after one rated attempt (the points of the profile's chart)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="puzzle_rating_history",
        verbose_name=_("user"),
    )
    variant = models.CharField(_("variant"), max_length=20, choices=VARIANT_CHOICES)
    rating = models.FloatField(_("rating"))
    deviation = models.FloatField(_("deviation"))
    attempt = models.ForeignKey(
        "Attempt", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    at = models.DateTimeField(_("at"), default=timezone.now)

    class Meta:
        ordering = ["at", "pk"]
        indexes = [models.Index(fields=["user", "variant", "at"])]
        verbose_name = _("rating history")
        verbose_name_plural = _("rating history")


class PuzzleRating(models.Model):
    """A puzzle's Glicko-2 rating (in the puzzle's variant), starting from its difficulty."""

    puzzle = models.OneToOneField(
        Puzzle, on_delete=models.CASCADE, related_name="rating", verbose_name=_("puzzle")
    )
    rating = models.FloatField(_("rating"), default=1500.0)
    deviation = models.FloatField(_("deviation"), default=250.0)
    volatility = models.FloatField(_("volatility"), default=0.06)
    games = models.PositiveIntegerField(_("rated attempts"), default=0)

    class Meta:
        verbose_name = _("puzzle rating")
        verbose_name_plural = _("puzzle ratings")

    def __str__(self) -> str:
        return f"{self.puzzle} {self.rating:.0f}"

    @staticmethod
    def of(puzzle: Puzzle) -> glicko2.Rating:
        """The puzzle's rating (its difficulty until it was first rated)."""
        row = PuzzleRating.objects.filter(puzzle=puzzle).first()
        if row is None:
            return glicko2.Rating(float(puzzle.difficulty), 250.0)
        return glicko2.Rating(row.rating, row.deviation, row.volatility)


def _values(rating: glicko2.Rating) -> dict[str, float]:
    return {"rating": rating.rating, "deviation": rating.deviation, "volatility": rating.volatility}
