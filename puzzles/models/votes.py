"""Players' votes on puzzles: one an account, which it may change (``Puzzle.vote``); the
counts on the puzzle rank the daily puzzle's candidates (``puzzles.daily.best_rated``)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from .puzzle import Puzzle


class PuzzleVote(models.Model):
    """An account's opinion of a puzzle it finished (see :meth:`Puzzle.vote`)."""

    puzzle = models.ForeignKey(
        Puzzle, on_delete=models.CASCADE, related_name="votes", verbose_name=_("puzzle")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="puzzle_votes",
        verbose_name=_("user"),
    )
    liked = models.BooleanField(_("liked"))
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["puzzle", "user"], name="one_vote_per_puzzle_and_user")
        ]
        verbose_name = _("puzzle vote")
        verbose_name_plural = _("puzzle votes")

    def __str__(self) -> str:
        return f"{self.user} {'+' if self.liked else '-'} {self.puzzle_id}"
