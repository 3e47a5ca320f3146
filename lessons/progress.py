"""The learner's progress through the courses: in the database for an account, in the session
for an anonymous visitor, handed over to the account at login (``core.progress``); the course
map; and the test-out of a lesson (its last exercises in a row), which marks the lesson's other
steps tested out."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from core import progress

from .course import Course, Lesson, Step
from .models import ProgressMixin, StepProgress

SESSION_KEY = "lessons"
#: the session's test-outs going on: "<course>/<lesson>" -> the exercise answered next
TEST_OUT_KEY = "lessons_test_out"
#: a lesson's test-out: its last this many exercises, in a row, each right at the first answer
TEST_OUT_STEPS = 2
#: the answers of a test-out to a checked answer
GOES_ON, PASSED, FAILED = "goes_on", "passed", "failed"


def lesson_key(lesson: Lesson) -> str:
    return f"{lesson.course.slug}/{lesson.slug}"


def test_out_steps(lesson: Lesson) -> list[Step]:
    """The exercises of ``lesson``'s test-out: its last :data:`TEST_OUT_STEPS` steps, the ones
    that use what the lesson teaches; none for a lesson that has no more steps than that (the
    test would be the whole lesson)."""
    if any(step.exercise.is_drill for step in lesson.steps):  # a drill is played, not answered
        return []
    return lesson.steps[-TEST_OUT_STEPS:] if len(lesson.steps) > TEST_OUT_STEPS else []


@dataclass
class SessionRecord(ProgressMixin):
    """One step's progress kept in the session (the same fields and rules as the model)."""

    stars: int = 0
    attempts: int = 0
    hints_used: int = 0
    answer_shown: bool = False
    completed_at: datetime | None = None
    tested_out_at: datetime | None = None

    @classmethod
    def from_session(cls, data: dict[str, Any]) -> SessionRecord:
        def number(key: str, top: int) -> int:
            value = data.get(key, 0)
            return min(max(value, 0), top) if isinstance(value, int) else 0

        def when(key: str) -> datetime | None:
            value = data.get(key)
            try:
                return parse_datetime(value) if isinstance(value, str) else None
            except ValueError:  # a well-formed but impossible date
                return None

        return cls(
            stars=number("stars", 3),
            attempts=number("attempts", 10**6),
            hints_used=number("hints", 1000),
            answer_shown=bool(data.get("shown")),
            completed_at=when("done"),
            tested_out_at=when("tested"),
        )

    def to_session(self) -> dict[str, Any]:
        return {
            "stars": self.stars,
            "attempts": self.attempts,
            "hints": self.hints_used,
            "shown": self.answer_shown,
            "done": self.completed_at.isoformat() if self.completed_at else None,
            "tested": self.tested_out_at.isoformat() if self.tested_out_at else None,
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

    # -- the test-out of a lesson ------------------------------------------------------------
    def test_out_at(self, lesson: Lesson) -> int | None:
        """Which exercise of the lesson's test-out the learner answers next (0-based in
        :func:`test_out_steps`), or None when no test-out of the lesson is going on."""
        runs = self.request.session.get(TEST_OUT_KEY)
        at = runs.get(lesson_key(lesson)) if isinstance(runs, dict) else None
        steps = test_out_steps(lesson)
        return at if isinstance(at, int) and 0 <= at < len(steps) else None

    def _set_test_out(self, lesson: Lesson, at: int | None) -> None:
        runs = self.request.session.get(TEST_OUT_KEY)
        runs = dict(runs) if isinstance(runs, dict) else {}
        if at is None:
            runs.pop(lesson_key(lesson), None)
        else:
            runs[lesson_key(lesson)] = at
        self.request.session[TEST_OUT_KEY] = runs

    def start_test_out(self, lesson: Lesson) -> None:
        """Begin (or begin again) the lesson's test-out at its first exercise."""
        if not test_out_steps(lesson):
            raise ValueError(f"the lesson {lesson.slug} has no test-out")
        self._set_test_out(lesson, 0)

    def answer_test_out(self, lesson: Lesson, right: bool) -> str:
        """The test-out's answer to a checked answer of its current exercise: a wrong one ends
        the test-out (:data:`FAILED`); a right one goes on to the next exercise (:data:`GOES_ON`)
        or, after the last, passes it (:data:`PASSED`): every step of the lesson not done is
        then recorded tested out (:meth:`record_tested_out`)."""
        at = self.test_out_at(lesson)
        if at is None:
            return FAILED
        if not right:
            self._set_test_out(lesson, None)
            return FAILED
        if at + 1 < len(test_out_steps(lesson)):
            self._set_test_out(lesson, at + 1)
            return GOES_ON
        self._set_test_out(lesson, None)
        self.record_tested_out(lesson)
        return PASSED

    def record_tested_out(self, lesson: Lesson) -> list[Step]:
        """Mark every step of ``lesson`` that is not done (nor tested out already) tested out,
        in one transaction for an account; the steps changed."""
        now = timezone.now()
        course = lesson.course.slug
        changed: list[Step] = []
        if self.user is not None:
            with transaction.atomic():
                for step in lesson.steps:
                    row, _created = StepProgress.objects.select_for_update().get_or_create(
                        user=self.user, course=course, step=step.slug
                    )
                    if row.note_tested_out(now):
                        row.save()
                        changed.append(step)
            return changed
        data = progress.session_data(self.request, SESSION_KEY)
        updates: dict[str, Any] = {}
        for step in lesson.steps:
            key = session_key(course, step.slug)
            raw = data.get(key)
            record = SessionRecord.from_session(raw if isinstance(raw, dict) else {})
            if record.note_tested_out(now):
                updates[key] = record.to_session()
                changed.append(step)
        if updates:
            progress.update_session_data(self.request, SESSION_KEY, updates)
        return changed


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
            "tested_out_at": incoming.tested_out_at,
        }
        row, created = StepProgress.objects.select_for_update().get_or_create(
            user=user, course=course[:40], step=step[:80], defaults=fields
        )
        if not created and incoming.rank() > row.rank():
            for name, value in fields.items():
                setattr(row, name, value)
            row.save()


# -- the course map ---------------------------------------------------------------------------------
#: a step's state on the map: done (answered right, with stars), tested out (its lesson's
#: test-out passed), next (the first step neither done nor tested out: where "resume" leads),
#: open (not done yet). Every step can be opened, whatever its state.
DONE, TESTED, NEXT, OPEN = "done", "tested", "next", "open"


@dataclass
class StepState:
    step: Step
    state: str
    stars: int


@dataclass
class LessonState:
    lesson: Any
    steps: list[StepState]

    @property
    def done(self) -> int:
        return sum(1 for s in self.steps if s.state == DONE)

    @property
    def tested(self) -> int:
        return sum(1 for s in self.steps if s.state == TESTED)

    @property
    def stars(self) -> int:
        return sum(s.stars for s in self.steps)

    @property
    def is_done(self) -> bool:
        """Every step done or tested out."""
        return self.done + self.tested == len(self.steps)

    @property
    def test_out(self) -> list[Step]:
        """The exercises of the lesson's test-out, when it has one and it is not passed yet."""
        return [] if self.is_done else test_out_steps(self.lesson)


@dataclass
class CourseMap:
    """Each step of a course as done / tested out / next / open for one visitor."""

    course: Course
    lessons: list[LessonState]
    next_step: Step | None

    @property
    def states(self) -> list[StepState]:
        return [s for lesson in self.lessons for s in lesson.steps]

    @property
    def done(self) -> int:
        return sum(lesson.done for lesson in self.lessons)

    @property
    def tested(self) -> int:
        return sum(lesson.tested for lesson in self.lessons)

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
        return self.done + self.tested > 0

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
            elif record is not None and record.is_tested_out:
                states.append(StepState(step, TESTED, 0))
            elif next_step is None:
                next_step = step
                states.append(StepState(step, NEXT, 0))
            else:
                states.append(StepState(step, OPEN, 0))
        lessons.append(LessonState(lesson, states))
    return CourseMap(course, lessons, next_step)
