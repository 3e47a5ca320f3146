"""The daily puzzle's row: one puzzle a date and variant, chosen by ``puzzles.daily``."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from core.variants import VARIANT_CHOICES

from .puzzle import Puzzle


class DailyPuzzle(models.Model):
    """The puzzle of one date in one variant: the same for everyone."""

    variant = models.CharField(_("variant"), max_length=20, choices=VARIANT_CHOICES)
    date = models.DateField(_("date"))
    puzzle = models.ForeignKey(
        Puzzle, on_delete=models.CASCADE, related_name="daily", verbose_name=_("puzzle")
    )

    class Meta:
        ordering = ["-date"]
        constraints = [
            models.UniqueConstraint(fields=["variant", "date"], name="one_daily_puzzle_per_day")
        ]
        verbose_name = _("daily puzzle")
        verbose_name_plural = _("daily puzzles")

    def __str__(self) -> str:
        return f"{self.variant} {self.date}: {self.puzzle}"
