"""Progress through the rule courses: one row per learner and step, queryable by teachers.

The course content itself is data (``fixtures/lessons/*.yaml``, read by ``lessons.course``); a row
names its course and step by slug (step slugs are unique across all courses).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


def stars_for(attempts: int, hints_used: int, answer_shown: bool) -> int:
    """Stars for a step answered right after ``attempts`` tries (the right one included).

    3 on the first try without a hint; 2 with one retry or one hint; 1 otherwise, and always 1 when
    the answer was shown.

    >>> stars_for(1, 0, False), stars_for(2, 0, False), stars_for(1, 1, False)
    (3, 2, 2)
    >>> stars_for(2, 1, False), stars_for(1, 0, True)
    (1, 1)
    """
    if answer_shown:
        return 1
    slips = max(attempts - 1, 0) + min(hints_used, 1)
    return 3 if slips == 0 else 2 if slips == 1 else 1


class ProgressMixin:
    """The rules shared by a database row and the session's copy of one step's progress.

    A step is *done* when it was answered right (its stars, 1-3); it is *tested out* when the
    learner passed the test-out of its lesson (the lesson's last exercises in a row) without
    doing the step itself: no stars, ``tested_out_at`` set. Either one *passes* the step (the
    course map goes on after it); a tested-out step can still be done for stars.
    """

    stars: int
    attempts: int
    hints_used: int
    answer_shown: bool
    completed_at: object
    tested_out_at: object

    @property
    def is_done(self) -> bool:
        return self.stars > 0

    @property
    def is_tested_out(self) -> bool:
        return not self.is_done and self.tested_out_at is not None

    @property
    def is_passed(self) -> bool:
        return self.is_done or self.tested_out_at is not None

    def rank(self) -> tuple[int, int, int]:
        """Which of two records of the same step is better: more stars, then done, then tested
        out."""
        return (self.stars, 1 if self.completed_at else 0, 1 if self.tested_out_at else 0)

    def note_tested_out(self, now=None) -> bool:
        """Mark the step tested out (its lesson's test-out was passed) unless it is done or
        tested out already. True when it changed."""
        if self.is_passed:
            return False
        self.tested_out_at = now or timezone.now()
        return True

    def note_attempt(self, right: bool, now=None) -> bool:
        """Count one checked answer; on the first right one set the stars. True when just done."""
        if self.is_done:
            return False
        self.attempts += 1
        if right:
            self.stars = stars_for(self.attempts, self.hints_used, self.answer_shown)
            self.completed_at = now or timezone.now()
            return True
        return False

    def note_hint(self) -> None:
        if not self.is_done:
            self.hints_used += 1

    def note_answer_shown(self) -> None:
        if not self.is_done:
            self.answer_shown = True


class StepProgress(ProgressMixin, models.Model):
    """How one learner did on one step of a course."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="lesson_progress",
        verbose_name=_("user"),
    )
    course = models.CharField(_("course"), max_length=40)
    step = models.CharField(_("step"), max_length=80)
    #: 0 until the step is done, then 1-3
    stars = models.PositiveSmallIntegerField(_("stars"), default=0)
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    hints_used = models.PositiveSmallIntegerField(_("hints used"), default=0)
    answer_shown = models.BooleanField(_("answer shown"), default=False)
    completed_at = models.DateTimeField(_("completed at"), null=True, blank=True)
    #: set when the lesson's test-out was passed while this step was not done (no stars)
    tested_out_at = models.DateTimeField(_("tested out at"), null=True, blank=True)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("step progress")
        verbose_name_plural = _("step progress")
        ordering = ["user", "course", "completed_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "course", "step"], name="lessons_one_row_per_step"
            ),
            models.CheckConstraint(
                condition=models.Q(stars__gte=0, stars__lte=3), name="lessons_stars_0_to_3"
            ),
        ]
        indexes = [models.Index(fields=["course", "step"], name="lessons_course_step")]

    def __str__(self) -> str:
        return f"{self.user} · {self.course}/{self.step} · {self.stars}★"

    def to_session(self) -> dict:
        return {
            "stars": self.stars,
            "attempts": self.attempts,
            "hints": self.hints_used,
            "shown": self.answer_shown,
            "done": self.completed_at.isoformat() if self.completed_at else None,
            "tested": self.tested_out_at.isoformat() if self.tested_out_at else None,
        }


class DrillRun(models.Model):
    """A learner's go at a drill step (a position played out against the endgame database): the
    moves played so far, the learner's and the defence's in turn, from the step's position.

    One row per learner (an account, or a visitor's session) and step; every change goes through
    :meth:`advance` or :meth:`restart` in a transaction holding the row's lock, and a move is
    played only on the position the page showed (``expected``, the number of moves it saw), so
    two tabs cannot play two moves on one position. A reload resumes from the stored moves.
    """

    class Status(models.TextChoices):
        PLAYING = "playing", _("playing")
        PASSED = "passed", _("passed")
        FAILED = "failed", _("failed")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="drill_runs",
        verbose_name=_("user"),
    )
    session_key = models.CharField(_("session"), max_length=40, blank=True)
    course = models.CharField(_("course"), max_length=40)
    step = models.CharField(_("step"), max_length=80)
    moves = models.JSONField(_("moves"), default=list)
    status = models.CharField(_("status"), max_length=8, choices=Status, default=Status.PLAYING)
    #: the message of the end (why it failed, or how it was won), in the language it was played
    message = models.TextField(_("message"), blank=True)
    #: a move that kept the goal, when the attempt failed
    better = models.CharField(_("better move"), max_length=60, blank=True)
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)

    class Meta:
        verbose_name = _("drill")
        verbose_name_plural = _("drills")
        constraints = [
            models.UniqueConstraint(
                fields=["user", "course", "step"],
                condition=models.Q(user__isnull=False),
                name="lessons_one_drill_per_user_step",
            ),
            models.UniqueConstraint(
                fields=["session_key", "course", "step"],
                condition=models.Q(user__isnull=True),
                name="lessons_one_drill_per_session_step",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user or self.session_key} · {self.course}/{self.step} · {self.status}"

    @property
    def is_over(self) -> bool:
        return self.status != self.Status.PLAYING

    @classmethod
    def _owner(cls, user, session_key: str) -> dict:
        if user is not None:
            return {"user": user}
        return {"user": None, "session_key": session_key}

    @classmethod
    def current(cls, user, session_key: str, course: str, step: str) -> DrillRun:
        """The learner's drill of ``step`` (a fresh one, not stored, when none was played)."""
        owner = cls._owner(user, session_key)
        found = cls.objects.filter(course=course, step=step, **owner).first()
        return found or cls(course=course, step=step, **owner)

    @classmethod
    def _locked(cls, user, session_key: str, course: str, step: str) -> DrillRun:
        owner = cls._owner(user, session_key)
        row, _created = cls.objects.select_for_update().get_or_create(
            course=course, step=step, **owner
        )
        return row

    @classmethod
    def advance(cls, user, session_key: str, course: str, step: str, expected: int | None, judge):
        """Play one answer on the stored drill: ``judge(moves)`` returns a ``core.endgames.Turn``
        for the stored moves; its moves are stored and the end noted. Returns (the drill, the
        turn), or (the drill, None) when the page was behind (``expected`` is not the number of
        moves stored: another tab moved) or the drill is over."""
        with transaction.atomic():
            row = cls._locked(user, session_key, course, step)
            if row.is_over or (expected is not None and expected != len(row.moves)):
                return row, None
            turn = judge(list(row.moves))
            if turn.stored:
                row.moves = [*row.moves, *turn.stored]
                if turn.status == "passed":
                    row.status = cls.Status.PASSED
                elif turn.status == "failed":
                    row.status = cls.Status.FAILED
                row.message = turn.message if turn.ends else ""
                row.better = turn.better
                row.save()
            return row, turn

    @classmethod
    def restart(cls, user, session_key: str, course: str, step: str) -> DrillRun:
        """Start the drill again from its position (one more attempt)."""
        with transaction.atomic():
            row = cls._locked(user, session_key, course, step)
            if row.moves or row.is_over:
                row.attempts = models.F("attempts") + 1
            row.moves, row.status, row.message, row.better = [], cls.Status.PLAYING, "", ""
            row.save()
            row.refresh_from_db()
            return row
