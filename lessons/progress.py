"""The learner's progress through the courses: in the database for an account, in the session
for an anonymous visitor, handed over to the account at login (``core.progress``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils.dateparse import parse_datetime

from core import progress

from .course import Course, Step
from .models import ProgressMixin, StepProgress

SESSION_KEY = "lessons"


@dataclass
class SessionRecord(ProgressMixin):
    """One step's progress kept in the session (the same fields and rules as the model)."""

    stars: int = 0
    attempts: int = 0
    hints_used: int = 0
    answer_shown: bool = False
    completed_at: datetime | None = None

    @classmethod
    def from_session(cls, data: dict[str, Any]) -> SessionRecord:
        def number(key: str, top: int) -> int:
            value = data.get(key, 0)
            return min(max(value, 0), top) if isinstance(value, int) else 0

        done = data.get("done")
        return cls(
            stars=number("stars", 3),
            attempts=number("attempts", 10**6),
            hints_used=number("hints", 1000),
            answer_shown=bool(data.get("shown")),
            completed_at=parse_datetime(done) if isinstance(done, str) else None,
        )

    def to_session(self) -> dict[str, Any]:
        return {
            "stars": self.stars,
            "attempts": self.attempts,
            "hints": self.hints_used,
            "shown": self.answer_shown,
            "done": self.completed_at.isoformat() if self.completed_at else None,
        }


def session_key(course: str, step: str) -> str:
    return f"{course}/{step}"


class Tracker:
    """Progress of the visitor of ``request`` (an account's rows, or the session's copy)."""

    def __init__(self, request) -> None:
        self.request = request
        user = getattr(request, "user", None)
        self.user = user if user is not None and user.is_authenticated else None

    def records(self, course: Course) -> dict[str, ProgressMixin]:
        """Step slug -> progress, for the steps of ``course`` the visitor has touched."""
        if self.user is not None:
            rows = StepProgress.objects.filter(user=self.user, course=course.slug)
            return {row.step: row for row in rows}
        data = progress.session_data(self.request, SESSION_KEY)
        prefix = f"{course.slug}/"
        return {
            key[len(prefix) :]: SessionRecord.from_session(value)
            for key, value in data.items()
            if key.startswith(prefix) and isinstance(value, dict)
        }

    def get(self, step: Step) -> ProgressMixin:
        return self.records(step.course).get(step.slug) or SessionRecord()

    def update(self, step: Step, change) -> tuple[ProgressMixin, Any]:
        """Apply ``change(record)`` to the step's record and store it; returns (record, result)."""
        course = step.course.slug
        if self.user is not None:
            with transaction.atomic():
                row, _created = StepProgress.objects.select_for_update().get_or_create(
                    user=self.user, course=course, step=step.slug
                )
                result = change(row)
                row.save()
            return row, result
        data = progress.session_data(self.request, SESSION_KEY)
        key = session_key(course, step.slug)
        raw = data.get(key)
        record = SessionRecord.from_session(raw if isinstance(raw, dict) else {})
        result = change(record)
        progress.update_session_data(self.request, SESSION_KEY, {key: record.to_session()})
        return record, result


@progress.handover(SESSION_KEY)
def move_lesson_progress(user, data: dict[str, Any]) -> None:
    """Merge the session's progress into the account's rows, keeping the better of each step."""
    for key, raw in data.items():
        course, _sep, step = str(key).partition("/")
        if not course or not step or not isinstance(raw, dict):
            continue
        incoming = SessionRecord.from_session(raw)
        fields = {
            "stars": incoming.stars,
            "attempts": incoming.attempts,
            "hints_used": incoming.hints_used,
            "answer_shown": incoming.answer_shown,
            "completed_at": incoming.completed_at,
        }
        row, created = StepProgress.objects.select_for_update().get_or_create(
            user=user, course=course[:40], step=step[:80], defaults=fields
        )
        if not created and incoming.rank() > row.rank():
            for name, value in fields.items():
                setattr(row, name, value)
            row.save()


# -- the course map ---------------------------------------------------------------------------------
DONE, NEXT, LOCKED = "done", "next", "locked"


@dataclass
class StepState:
    step: Step
    state: str
    stars: int

    @property
    def is_open(self) -> bool:
        return self.state != LOCKED


@dataclass
class LessonState:
    lesson: Any
    steps: list[StepState]

    @property
    def done(self) -> int:
        return sum(1 for s in self.steps if s.state == DONE)

    @property
    def stars(self) -> int:
        return sum(s.stars for s in self.steps)

    @property
    def is_done(self) -> bool:
        return self.done == len(self.steps)


@dataclass
class CourseMap:
    """Each step of a course as done / next / locked for one visitor.

    Steps open one after another: every done step stays open, and the first step not done yet is
    the next one (where "resume" leads); the steps after it are locked.
    """

    course: Course
    lessons: list[LessonState]
    next_step: Step | None

    @property
    def states(self) -> list[StepState]:
        return [s for lesson in self.lessons for s in lesson.steps]

    def is_open(self, step: Step) -> bool:
        return any(s.step is step and s.is_open for s in self.states)

    @property
    def done(self) -> int:
        return sum(lesson.done for lesson in self.lessons)

    @property
    def total(self) -> int:
        return len(self.course.steps)

    @property
    def stars(self) -> int:
        return sum(lesson.stars for lesson in self.lessons)

    @property
    def max_stars(self) -> int:
        return 3 * self.total

    @property
    def started(self) -> bool:
        return self.done > 0

    @property
    def finished(self) -> bool:
        return self.next_step is None


def course_map(course: Course, records: dict[str, ProgressMixin]) -> CourseMap:
    next_step: Step | None = None
    lessons = []
    for lesson in course.lessons:
        states = []
        for step in lesson.steps:
            record = records.get(step.slug)
            if record is not None and record.is_done:
                states.append(StepState(step, DONE, record.stars))
            elif next_step is None:
                next_step = step
                states.append(StepState(step, NEXT, 0))
            else:
                states.append(StepState(step, LOCKED, 0))
        lessons.append(LessonState(lesson, states))
    return CourseMap(course, lessons, next_step)
