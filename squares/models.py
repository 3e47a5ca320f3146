"""A timed run of the square trainer, and its state changes.

A run asks one square after another for :data:`RUN_SECONDS` seconds: in ``find`` mode the square
is named (``c3`` or ``22``) and the learner clicks it on the board; in ``name`` mode a square is
marked and the learner writes its name or number. The board is seen from White's or from
Black's side. The whole state is on the row: the question (``square``, numbered by ``asked``),
the score, the misses, and the start and deadline by the server's clock (:mod:`squares.clock`),
so that a reload changes nothing and an answer after the deadline does not count. An answer is
:meth:`SquareRun.answer`, in a transaction on the locked row; the question's number comes with
it, so a second tab's answer to a question already answered is refused (409).

The best score of each board, notation, side and mode is the best finished run's
(:meth:`SquareRunQuerySet.bests`): an account's runs, or a visitor's (their token in the
session; handed to the account at sign-up).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import Max
from django.utils.translation import gettext_lazy as _

from core.board import has_square_names, read_square, square_count
from core.owners import OwnedQuerySet
from core.variants import VARIANT_CHOICES

from . import clock
from .trainee import Trainee

#: how long a run lasts
RUN_SECONDS = 30


class Notation(models.TextChoices):
    NUMBERS = "numbers", _("numbers")
    NAMES = "names", _("names (a1-h8)")


class Side(models.TextChoices):
    WHITE = "white", _("from White's side")
    BLACK = "black", _("from Black's side")


class Mode(models.TextChoices):
    FIND = "find", _("find this square")
    NAME = "name", _("name this square")


def notations_of(variant: str) -> list[str]:
    """The notations a board is trained in: the numbers everywhere, the names on 8x8."""
    return [Notation.NUMBERS, Notation.NAMES] if has_square_names(variant) else [Notation.NUMBERS]


class Conflict(Exception):
    """The question was answered since the page asked it (another tab, a double submit)."""


@dataclass(frozen=True)
class Answered:
    """What an answer came to: ``right``, and the square the learner gave (``given``) for the
    square asked (``asked``); ``over``: the time was up, nothing counted."""

    over: bool = False
    right: bool = False
    asked: int = 0
    given: int = 0


def _other_square(count: int, avoid: int) -> int:
    """A random square of 1..``count``, not ``avoid`` (the one just asked)."""
    square = secrets.randbelow(count - 1) + 1
    return square + 1 if square >= avoid > 0 else square


class SquareRunQuerySet(OwnedQuerySet["SquareRun"]):
    def finished(self, now: datetime | None = None) -> SquareRunQuerySet:
        return self.filter(deadline__lte=now or clock.now())

    def bests(
        self, trainee: Trainee, variant: str, now: datetime | None = None
    ) -> dict[tuple[str, str, str], int]:
        """The best score of ``trainee``'s finished runs on ``variant``'s board, by (notation,
        side, mode)."""
        rows = (
            self.of(trainee)
            .finished(now)
            .filter(variant=variant)
            .values("notation", "side", "mode")
            .annotate(best=Max("score"))
        )
        return {(r["notation"], r["side"], r["mode"]): r["best"] for r in rows}


class SquareRun(models.Model):
    """One timed run of the square trainer (see the module)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE
    )
    visitor = models.CharField(max_length=48, blank=True, default="", db_index=True)
    variant = models.CharField(max_length=20, choices=VARIANT_CHOICES)
    notation = models.CharField(max_length=8, choices=Notation.choices)
    side = models.CharField(max_length=8, choices=Side.choices)
    mode = models.CharField(max_length=8, choices=Mode.choices)
    started_at = models.DateTimeField()
    deadline = models.DateTimeField()
    #: the square asked now, and its number in the run (1 for the first)
    square = models.PositiveSmallIntegerField()
    asked = models.PositiveIntegerField(default=1)
    score = models.PositiveIntegerField(default=0)
    misses = models.PositiveIntegerField(default=0)
    #: the last answer: the square asked and the square given (0: none yet)
    last_asked = models.PositiveSmallIntegerField(default=0)
    last_given = models.PositiveSmallIntegerField(default=0)

    objects = SquareRunQuerySet.as_manager()

    class Meta:
        indexes = [models.Index(fields=["user", "variant"])]

    def __str__(self) -> str:
        return f"{self.variant} {self.notation} {self.side} {self.mode}: {self.score}"

    # -- what a page shows -------------------------------------------------------------------------

    @property
    def algebraic(self) -> bool:
        return self.notation == Notation.NAMES

    @property
    def flipped(self) -> bool:
        return self.side == Side.BLACK

    def is_over(self, now: datetime | None = None) -> bool:
        return (now or clock.now()) >= self.deadline

    def remaining_ms(self, now: datetime | None = None) -> int:
        """Milliseconds left of the run by the server's clock (0 once it is over)."""
        left = self.deadline - (now or clock.now())
        return max(0, int(left.total_seconds() * 1000))

    def settings_key(self) -> tuple[str, str, str]:
        return (self.notation, self.side, self.mode)

    # -- the state changes ---------------------------------------------------------------------------

    @classmethod
    def start(
        cls,
        trainee: Trainee,
        *,
        variant: str,
        notation: str,
        side: str,
        mode: str,
        now: datetime | None = None,
    ) -> SquareRun:
        """A new run for ``trainee``, its clock started now; a ``ValidationError`` for settings
        the board does not have (the names on a 10x10 board)."""
        if notation not in notations_of(variant):
            raise ValidationError(_("This board is not trained in that notation."), code="notation")
        if side not in Side.values or mode not in Mode.values:
            raise ValidationError(_("Choose a side and a mode."), code="settings")
        started = now or clock.now()
        return cls.objects.create(
            user=trainee.user,
            visitor=trainee.visitor_token(make=True),
            variant=variant,
            notation=notation,
            side=side,
            mode=mode,
            started_at=started,
            deadline=started + timedelta(seconds=RUN_SECONDS),
            square=_other_square(square_count(variant), 0),
        )

    def read(self, *, square: int | None = None, text: str = "") -> int:
        """The square the learner gave: in ``find`` mode the square clicked, in ``name`` mode
        the name or number written (in the run's notation); a ``ValidationError`` otherwise."""
        if self.mode == Mode.FIND:
            if square is None or not 1 <= square <= square_count(self.variant):
                raise ValidationError(_("Click a dark square of the board."), code="square")
            return square
        return read_square(self.variant, text, algebraic=self.algebraic)

    def answer(
        self, asked: int, *, square: int | None = None, text: str = "", now: datetime | None = None
    ) -> Answered:
        """Answer question number ``asked``: a point when the square given is the one asked, a
        miss otherwise, and the next square. After the deadline nothing counts (``over``). A
        ``ValidationError`` for input that gives no square (nothing changes); :class:`Conflict`
        when question ``asked`` was answered already (another tab)."""
        if self.is_over(now):  # whatever was sent: the time is up
            return Answered(over=True)
        given = self.read(square=square, text=text)
        with transaction.atomic():
            run = SquareRun.objects.select_for_update().get(pk=self.pk)
            if run.is_over(now):
                self._copy(run)
                return Answered(over=True)
            if asked != run.asked:
                self._copy(run)
                raise Conflict
            right = given == run.square
            changes: dict[str, Any] = {
                "asked": run.asked + 1,
                "last_asked": run.square,
                "last_given": given,
                "square": _other_square(square_count(run.variant), run.square),
                "score": run.score + (1 if right else 0),
                "misses": run.misses + (0 if right else 1),
            }
            SquareRun.objects.filter(pk=run.pk).update(**changes)
            for name, value in changes.items():
                setattr(run, name, value)
            self._copy(run)
            return Answered(right=right, asked=run.last_asked, given=given)

    def _copy(self, run: SquareRun) -> None:
        for name in ("asked", "last_asked", "last_given", "square", "score", "misses"):
            setattr(self, name, getattr(run, name))
