"""The rule courses: read from ``fixtures/lessons/*.yaml`` into plain objects, cached per process.

The YAML files are the single source of the course content (schema: ``docs/lessons-coverage.md``).
They are read once and re-read when a file changes (so an author sees an edit on the next request);
``lessons.checks`` validates them at start-up (``manage.py check``, ``migrate``, ``runserver``, so
``make run`` refuses a broken course). Progress is stored by course and step slug
(``lessons.models.StepProgress``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from django.conf import settings
from django.http import Http404
from django.urls import reverse

from core.board import cite, svg_lang

VARIANT_COURSES = ("czech", "international", "brazilian")
COMPARISON = "comparison"
#: the Combinations course of each variant (issue 17): the named shots of ``dama.shots``
COMBINATION_COURSES = tuple(f"combinations-{v}" for v in VARIANT_COURSES)
#: the Strategy course of each variant (issue 50): quiet moves, "choose the better move"
STRATEGY_COURSES = tuple(f"strategy-{v}" for v in VARIANT_COURSES)
#: the Endgames course of each variant (issue 50): drills played against the endgame databases
ENDGAME_COURSES = tuple(f"endgames-{v}" for v in VARIANT_COURSES)
COURSE_FILES = (
    *VARIANT_COURSES,
    COMPARISON,
    *COMBINATION_COURSES,
    *STRATEGY_COURSES,
    *ENDGAME_COURSES,
)
#: ``better_move``: every option is legal, the answer is the one the engine's deep search
#: prefers by the margin its file names (``tests/lessons/test_strategy.py``)
KINDS = (
    "move",
    "capture_route",
    "select_captures",
    "choose_move",
    "click_square",
    "what_if",
    "better_move",
    "drill",
)
#: a drill's goals: win within the count, or hold the draw (``hold`` moves)
DRILL_GOALS = ("win", "draw")


def lessons_dir() -> Path:
    return Path(getattr(settings, "DAMA_LESSONS_DIR", settings.BASE_DIR / "fixtures" / "lessons"))


class CourseDataError(ValueError):
    """A course file that cannot be read into a course (names the file and the place)."""


@dataclass(frozen=True)
class Text:
    """A text in Czech and English; ``str()`` is the active language's."""

    cs: str
    en: str

    def __str__(self) -> str:
        return self.cs if svg_lang() == "cs" else self.en

    @classmethod
    def read(cls, value: Any, where: str) -> Text:
        if not isinstance(value, dict) or not all(
            isinstance(value.get(k), str) and value[k].strip() for k in ("cs", "en")
        ):
            raise CourseDataError(f"{where}: expected {{cs: ..., en: ...}}")
        return cls(cs=value["cs"].strip(), en=value["en"].strip())


@dataclass(frozen=True)
class Wrong:
    """An example of a wrong answer: an illegal move (``code``) or a legal one / a square with
    ``feedback``."""

    move: str = ""
    square: str = ""
    code: str = ""
    feedback: Text | None = None


@dataclass(frozen=True)
class Exercise:
    kind: str
    prompt: Text
    hint: Text
    solution: Text | None
    #: move texts (move, choose_move, select_captures, what_if/move), full routes
    #: (capture_route), or one square (click_square, what_if/square)
    answers: tuple[str, ...]
    any_route: bool = False
    options: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    answer_type: str = "move"
    outcome: str = ""
    wrong: tuple[Wrong, ...] = ()
    #: a drill: win it (within the count) or hold the draw for ``hold`` of the learner's moves
    goal: str = ""
    hold: int = 0

    @property
    def is_drill(self) -> bool:
        return self.kind == "drill"

    @property
    def mode(self) -> str:
        """How the learner answers: ``move`` (one move or route), ``square`` or ``select``."""
        if self.kind == "click_square" or (self.kind == "what_if" and self.answer_type == "square"):
            return "square"
        if self.kind == "select_captures":
            return "select"
        return "move"

    def feedback_for_move(self, index: int | None) -> Text | None:
        if index is None:
            return None
        return self.wrong[index].feedback

    @property
    def wrong_moves(self) -> list[str]:
        return [w.move for w in self.wrong if w.move]


@dataclass(frozen=True)
class Compare:
    variant: str
    fen: str
    legal: tuple[str, ...]
    note: Text


@dataclass(frozen=True)
class ShotLine:
    """A Combinations step's shot: its name in ``dama.shots``, the goal and the proven line."""

    name: str
    goal: str
    line: tuple[str, ...]


@dataclass(frozen=True)
class Claim:
    """What a step's text states about a position, checked against the endgame databases by the
    tests: ``result`` (win, draw, loss for the side to move) and, for a win, that it ``fits`` the
    count and takes at most ``moves`` moves."""

    fen: str
    result: str
    moves: int = 0
    fits: bool | None = None


@dataclass(eq=False)
class Step:
    slug: str
    title: Text
    text: Text
    articles: tuple[str, ...]
    variant: str
    fen: str
    highlight: tuple[str, ...]
    arrows: tuple[tuple[str, str], ...]
    exercise: Exercise
    compare: tuple[Compare, ...] = ()
    shot: ShotLine | None = None
    claims: tuple[Claim, ...] = ()
    lesson: Lesson = field(init=False, repr=False)
    index: int = field(init=False, default=0)  # position in the course, from 0

    @property
    def course(self) -> Course:
        return self.lesson.course

    @property
    def number(self) -> int:
        return self.index + 1

    @property
    def article_texts(self) -> list[str]:
        return [cite(a) for a in self.articles]

    def get_absolute_url(self) -> str:
        return reverse("lessons:step", args=[self.course.slug, self.lesson.slug, self.slug])

    def action_url(self, action: str) -> str:
        return reverse(f"lessons:{action}", args=[self.course.slug, self.lesson.slug, self.slug])

    @property
    def drill_url(self) -> str:
        """The puzzle trainer of this step's shot (``?motif=`` filters the stream), or ""."""
        if self.shot is None:
            return ""
        return reverse("puzzles:trainer", args=[self.variant]) + f"?motif={self.shot.name}"

    @property
    def check_url(self) -> str:
        return self.action_url("check")

    @property
    def hint_url(self) -> str:
        return self.action_url("hint")

    @property
    def solution_url(self) -> str:
        return self.action_url("solution")

    @property
    def previous(self) -> Step | None:
        return self.course.steps[self.index - 1] if self.index else None

    @property
    def next(self) -> Step | None:
        steps = self.course.steps
        return steps[self.index + 1] if self.index + 1 < len(steps) else None


@dataclass(eq=False)
class Lesson:
    slug: str
    title: Text
    summary: Text
    steps: list[Step]
    course: Course = field(init=False, repr=False)
    number: int = 0


@dataclass(eq=False)
class Course:
    slug: str
    variant: str  # a variant name, or "mixed" for the comparison course
    notation: str
    title: Text
    summary: Text
    lessons: list[Lesson]
    steps: list[Step] = field(default_factory=list)

    @property
    def is_combinations(self) -> bool:
        return self.slug in COMBINATION_COURSES

    @property
    def cites_sources(self) -> bool:
        """Its steps cite books and pages (Combinations, Strategy), not rulebook articles."""
        return self.slug in COMBINATION_COURSES or self.slug in STRATEGY_COURSES

    def is_endgames(self) -> bool:
        return self.slug in ENDGAME_COURSES

    def get_absolute_url(self) -> str:
        return reverse("lessons:course", args=[self.slug])

    def step(self, lesson_slug: str, step_slug: str) -> Step | None:
        for lesson in self.lessons:
            if lesson.slug == lesson_slug:
                for step in lesson.steps:
                    if step.slug == step_slug:
                        return step
        return None

    def step_by_slug(self, slug: str) -> Step | None:
        return next((s for s in self.steps if s.slug == slug), None)


# -- reading -------------------------------------------------------------------------------------
def _strs(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        value = [value]
    return tuple(str(v) for v in value)


def read_exercise(raw: Any, where: str) -> Exercise:
    """An exercise of a course file (or of the exams' rule questions) from its YAML mapping."""
    if not isinstance(raw, dict):
        raise CourseDataError(f"{where}: exercise must be a mapping")
    kind = raw.get("kind")
    if kind not in KINDS:
        raise CourseDataError(f"{where}: unknown exercise kind {kind!r}")
    answer = raw.get("answer")
    any_route = False
    if kind == "capture_route":
        if not isinstance(answer, dict):
            raise CourseDataError(f"{where}: capture_route answer must be {{routes}} or {{move}}")
        if answer.get("any_route"):
            answers, any_route = _strs(answer.get("move")), True
        else:
            answers = _strs(answer.get("routes"))
    else:
        answers = _strs(answer)
    goal, hold = "", 0
    if kind == "drill":
        goal = str(raw.get("goal") or "")
        hold = raw.get("hold") or 0
        if goal not in DRILL_GOALS or not isinstance(hold, int) or hold < 0:
            raise CourseDataError(f"{where}: a drill needs goal: win|draw (and hold: moves)")
        if goal == "draw" and hold < 1:
            raise CourseDataError(f"{where}: a drill to hold the draw needs hold: moves")
    elif not answers:
        raise CourseDataError(f"{where}: no answer")
    wrong = []
    for i, w in enumerate(raw.get("wrong") or []):
        if not isinstance(w, dict):
            raise CourseDataError(f"{where}: wrong[{i}] must be a mapping")
        feedback = Text.read(w["feedback"], f"{where}.wrong[{i}]") if "feedback" in w else None
        wrong.append(
            Wrong(
                move=str(w.get("move", "")),
                square=str(w.get("square", "")),
                code=str(w.get("code", "")),
                feedback=feedback,
            )
        )
    return Exercise(
        kind=kind,
        prompt=Text.read(raw.get("prompt"), f"{where}.prompt"),
        hint=Text.read(raw.get("hint"), f"{where}.hint"),
        solution=Text.read(raw["solution"], f"{where}.solution") if "solution" in raw else None,
        answers=answers,
        any_route=any_route,
        options=_strs(raw.get("options")),
        after=_strs(raw.get("after")),
        answer_type=str(raw.get("answer_type") or "move"),
        outcome=str(raw.get("outcome") or ""),
        wrong=tuple(wrong),
        goal=goal,
        hold=hold,
    )


def _read_shot(raw: Any, where: str) -> ShotLine | None:
    if raw is None:
        return None
    if not isinstance(raw, dict) or not raw.get("name") or not raw.get("line"):
        raise CourseDataError(f"{where}: expected {{name, goal, line: [moves]}}")
    return ShotLine(name=str(raw["name"]), goal=str(raw.get("goal") or ""), line=_strs(raw["line"]))


def _read_claims(raw: Any, where: str) -> tuple[Claim, ...]:
    out = []
    for i, c in enumerate(raw or []):
        if not isinstance(c, dict) or c.get("result") not in ("win", "draw", "loss"):
            raise CourseDataError(f"{where}.claims[{i}]: expected {{fen, result, moves?, fits?}}")
        fits = c.get("fits")
        out.append(
            Claim(
                fen=str(c["fen"]),
                result=str(c["result"]),
                moves=int(c.get("moves") or 0),
                fits=None if fits is None else bool(fits),
            )
        )
    return tuple(out)


def read_course(path: Path) -> Course:
    """One course file as a :class:`Course` (raises :class:`CourseDataError` when unreadable)."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = yaml.safe_load(fh)
    except (OSError, yaml.YAMLError) as exc:
        raise CourseDataError(f"{path.name}: {exc}") from None
    try:
        meta = data["course"]
        course = Course(
            slug=str(meta["slug"]),
            variant=str(meta["variant"]),
            notation=str(meta.get("notation", "numeric")),
            title=Text.read(meta["title"], f"{path.name}: course.title"),
            summary=Text.read(meta["summary"], f"{path.name}: course.summary"),
            lessons=[],
        )
        for n, raw_lesson in enumerate(data["lessons"], start=1):
            lesson = Lesson(
                slug=str(raw_lesson["slug"]),
                title=Text.read(raw_lesson["title"], f"{path.name}: {raw_lesson['slug']}.title"),
                summary=Text.read(
                    raw_lesson["summary"], f"{path.name}: {raw_lesson['slug']}.summary"
                ),
                steps=[],
                number=n,
            )
            lesson.course = course
            for raw in raw_lesson["steps"]:
                where = f"{path.name}: {raw.get('slug')}"
                diagram = raw["diagram"]
                step = Step(
                    slug=str(raw["slug"]),
                    title=Text.read(raw["title"], f"{where}.title"),
                    text=Text.read(raw["text"], f"{where}.text"),
                    articles=_strs(raw.get("articles")),
                    variant=str(diagram.get("variant") or course.variant),
                    fen=str(diagram["fen"]),
                    highlight=_strs(diagram.get("highlight")),
                    arrows=tuple((str(a[0]), str(a[1])) for a in diagram.get("arrows") or []),
                    exercise=read_exercise(raw.get("exercise"), f"{where}.exercise"),
                    compare=tuple(
                        Compare(
                            variant=str(c["variant"]),
                            fen=str(c.get("fen") or diagram["fen"]),
                            legal=_strs(c.get("legal")),
                            note=Text.read(c["note"], f"{where}.compare.note"),
                        )
                        for c in raw.get("compare") or []
                    ),
                    shot=_read_shot(raw.get("shot"), f"{where}.shot"),
                    claims=_read_claims(raw.get("claims"), where),
                )
                step.lesson = lesson
                step.index = len(course.steps)
                lesson.steps.append(step)
                course.steps.append(step)
            course.lessons.append(lesson)
    except (KeyError, TypeError, IndexError) as exc:
        raise CourseDataError(f"{path.name}: missing or malformed field {exc}") from None
    if course.slug != path.stem:
        raise CourseDataError(f"{path.name}: course.slug is {course.slug!r}")
    return course


_lock = threading.Lock()
_cache: dict[str, tuple[float, Course]] = {}


def get_course(slug: str) -> Course:
    """The course ``slug`` (re-read when its file changed); a friendly 404 for an unknown one."""
    if slug not in COURSE_FILES:
        raise Http404(f"Unknown course {slug!r}")
    path = lessons_dir() / f"{slug}.yaml"
    try:
        mtime = path.stat().st_mtime
    except OSError:
        raise Http404(f"The course {slug!r} is not installed") from None
    with _lock:
        cached = _cache.get(slug)
        if cached is None or cached[0] != mtime:
            cached = (mtime, read_course(path))
            _cache[slug] = cached
    return cached[1]


def all_courses() -> list[Course]:
    return [get_course(slug) for slug in COURSE_FILES]


def combinations_of(variant: str) -> Course | None:
    """The Combinations course of ``variant`` (None for the comparison course)."""
    slug = f"combinations-{variant}"
    return get_course(slug) if slug in COMBINATION_COURSES else None


def strategy_of(variant: str) -> Course | None:
    """The Strategy course of ``variant`` (None for the comparison course)."""
    slug = f"strategy-{variant}"
    return get_course(slug) if slug in STRATEGY_COURSES else None


def endgames_of(variant: str) -> Course | None:
    """The Endgames course of ``variant`` (None for the comparison course)."""
    slug = f"endgames-{variant}"
    return get_course(slug) if slug in ENDGAME_COURSES else None


def find_step_anywhere(step_slug: str) -> Step | None:
    """The step with this slug in any course (slugs are unique across courses)."""
    for course in all_courses():
        step = course.step_by_slug(step_slug)
        if step is not None:
            return step
    return None
