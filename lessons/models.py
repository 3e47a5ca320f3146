"""Progress through the rule courses: one row per learner and step, queryable by teachers.

The course content itself is data (``fixtures/lessons/*.yaml``, read by ``lessons.course``); a row
names its course and step by slug (step slugs are unique across all courses).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
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
