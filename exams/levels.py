"""The exam ladder as data: ``exams/levels.yaml`` (the levels) and ``exams/questions/*.yaml`` (the
rule questions of each variant, and its "choose the better move" questions in
``strategy-<variant>.yaml``), read once per process into plain objects.

A rule question is a lesson step (``lessons.course.Step``) that no lesson shows:
``core.exercise.judge`` judges it exactly as it judges a lesson's exercise. A strategy question
is one too (kind ``better_move``); each is kept for the real exams (``pool: exam``,
:attr:`RuleQuestion.reserved`) or free for practice (``pool: practice``).

Level numbers are stable (certificates and sittings keep them) and increase down the file.

    >>> [level.number for level in levels()]
    [1, 2, 3, 4, 5, 6, 7, 8]
    >>> level(3).questions, level(3).pass_mark
    (8, 6)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from django.utils.translation import get_language

from lessons.course import CourseDataError, Step, Text, read_exercise

from . import engine

DATA = Path(__file__).resolve().parent
GOALS = ("capture", "gain", "win")


class LevelDataError(ValueError):
    """A level file that cannot be read (names the place)."""


@dataclass(frozen=True)
class PuzzleFilter:
    goals: tuple[str, ...] = ()
    motifs: tuple[str, ...] = ()
    min_difficulty: int = 0
    max_difficulty: int = 9999

    def matches(self, goal: str, motifs: list[str], difficulty: int) -> bool:
        if self.goals and goal.split(":", 1)[0] not in self.goals:
            return False
        if self.motifs and not {m.split(":")[0] for m in motifs} & set(self.motifs):
            return False
        return self.min_difficulty <= difficulty <= self.max_difficulty


@dataclass(frozen=True)
class DrillFilter:
    """Won endings of the endgame databases (``exams.drills``): the side to move wins in
    ``min_moves`` to ``max_moves`` moves, within the variant's count."""

    min_moves: int = 2
    max_moves: int = 12


@dataclass(frozen=True)
class Draw:
    """One line of a level's draw: ``count`` rule questions of ``rules`` kind, puzzles, or
    endgames to win against the engine (positions of proven ``win`` puzzles, played out as a
    game with the ``play`` app's computer)."""

    count: int
    rules: str = ""
    puzzles: PuzzleFilter | None = None
    endgame: PuzzleFilter | None = None
    #: won endings of the endgame databases, played out against the database's defence
    drill: DrillFilter | None = None

    @property
    def positions(self) -> PuzzleFilter | None:
        """The filter of a puzzle or endgame line (None for rule questions)."""
        return self.puzzles or self.endgame


@dataclass(frozen=True)
class Level:
    number: int
    slug: str
    name: Text
    covers: Text
    questions: int
    minutes: int
    pass_mark: int
    draw: tuple[Draw, ...]

    @property
    def seconds(self) -> int:
        return self.minutes * 60

    def title(self) -> str:
        return f"{self.number}. {self.name}"


def _text(value: Any, where: str) -> Text:
    try:
        return Text.read(value, where)
    except CourseDataError as exc:
        raise LevelDataError(str(exc)) from None


def _read_draw(raw: Any, where: str) -> Draw:
    if not isinstance(raw, dict) or not isinstance(raw.get("count"), int) or raw["count"] < 1:
        raise LevelDataError(f"{where}: a draw needs a positive count")
    if "rules" in raw:
        if raw["rules"] not in engine.RULE_KINDS:
            raise LevelDataError(f"{where}: unknown rule question kind {raw['rules']!r}")
        return Draw(count=raw["count"], rules=str(raw["rules"]))
    if "drill" in raw:
        spec = raw["drill"] or {}
        if not isinstance(spec, dict):
            raise LevelDataError(f"{where}: drill: {{min_moves, max_moves}}")
        found_drill = DrillFilter(
            min_moves=int(spec.get("min_moves", 2)), max_moves=int(spec.get("max_moves", 12))
        )
        if not 1 <= found_drill.min_moves <= found_drill.max_moves:
            raise LevelDataError(f"{where}: drill moves out of range")
        return Draw(count=raw["count"], drill=found_drill)
    key = "endgame" if "endgame" in raw else "puzzles"
    spec = raw.get(key)
    if not isinstance(spec, dict):
        raise LevelDataError(
            f"{where}: a draw is rules: KIND, puzzles: {{...}} or endgame: {{...}}"
        )
    goals = tuple(str(g) for g in spec.get("goals") or ())
    if any(g not in GOALS for g in goals):
        raise LevelDataError(f"{where}: goals are {GOALS}")
    if key == "endgame" and goals != ("win",):
        raise LevelDataError(f"{where}: an endgame is a position to win: goals: [win]")
    found = PuzzleFilter(
        goals=goals,
        motifs=tuple(str(m) for m in spec.get("motifs") or ()),
        min_difficulty=int(spec.get("min_difficulty", 0)),
        max_difficulty=int(spec.get("max_difficulty", 9999)),
    )
    return Draw(count=raw["count"], **{key: found})


def read_levels(path: Path) -> tuple[Level, ...]:
    """The levels of ``path`` (raises :class:`LevelDataError` when they are not valid)."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        out: list[Level] = []
        for i, raw in enumerate(data["levels"], start=1):
            where = f"{path.name}: level {i}"
            draws = tuple(_read_draw(d, f"{where}.draw[{j}]") for j, d in enumerate(raw["draw"]))
            level = Level(
                number=int(raw["number"]),
                slug=str(raw["slug"]),
                name=_text(raw["name"], f"{where}.name"),
                covers=_text(raw["covers"], f"{where}.covers"),
                questions=int(raw["questions"]),
                minutes=int(raw["minutes"]),
                pass_mark=int(raw["pass"]),
                draw=draws,
            )
            if level.number < 1 or (out and level.number <= out[-1].number):
                raise LevelDataError(f"{where}: numbered {level.number} after {len(out)} levels")
            if sum(d.count for d in draws) != level.questions:
                raise LevelDataError(f"{where}: the draw gives {sum(d.count for d in draws)}")
            if not 0 < level.pass_mark <= level.questions or level.minutes < 1:
                raise LevelDataError(f"{where}: pass mark or minutes out of range")
            out.append(level)
    except (OSError, yaml.YAMLError, KeyError, TypeError, ValueError, OverflowError) as exc:
        if isinstance(exc, LevelDataError):
            raise
        raise LevelDataError(f"{path.name}: {exc}") from None
    return tuple(out)


@cache
def levels() -> tuple[Level, ...]:
    return read_levels(DATA / "levels.yaml")


def level(number: int) -> Level | None:
    return next((lv for lv in levels() if lv.number == number), None)


# -- rule questions ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RuleQuestion:
    id: str
    kind: str
    step: Step
    #: kept for the real exams: practice never draws it and no page shows its answer
    reserved: bool = False

    @property
    def tier(self) -> int:
        return engine.tier(self.kind)


def read_questions(variant: str, path: Path) -> dict[str, RuleQuestion]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise LevelDataError(f"{path.name}: {exc}") from None
    out: dict[str, RuleQuestion] = {}
    for raw in data.get("questions") or []:
        where = f"{path.name}: {raw.get('id')}"
        try:
            kind = str(raw.get("kind") or ("strategy" if "pool" in raw else ""))
            if kind == "strategy" and raw.get("pool") not in ("exam", "practice"):
                raise LevelDataError(f"{where}: a strategy question's pool is exam or practice")
            if kind not in engine.RULE_KINDS or not engine.fen_is_readable(variant, raw["fen"]):
                raise LevelDataError(f"{where}: unknown kind or unreadable position")
            exercise = read_exercise(raw["exercise"], where)
            prompt = exercise.prompt
            step = Step(
                slug=str(raw["id"]),
                title=prompt,
                text=prompt,
                articles=tuple(raw.get("articles") or raw.get("sources") or ()),
                variant=variant,
                fen=str(raw["fen"]),
                highlight=(),
                arrows=(),
                exercise=exercise,
            )
        except (KeyError, TypeError, CourseDataError) as exc:
            raise LevelDataError(f"{where}: {exc}") from None
        if kind == "strategy" and (
            exercise.kind != "better_move" or exercise.answers[0] not in exercise.options
        ):
            raise LevelDataError(f"{where}: a strategy question chooses among its options")
        out[step.slug] = RuleQuestion(step.slug, kind, step, reserved=raw.get("pool") == "exam")
    return out


@cache
def rule_questions(variant: str) -> dict[str, RuleQuestion]:
    """The rule questions of ``variant`` and its strategy questions (ids never collide: the
    strategy ones start with ``st-``)."""
    found = read_questions(variant, DATA / "questions" / f"{variant}.yaml")
    strategy = DATA / "questions" / f"strategy-{variant}.yaml"
    if strategy.exists():
        found.update(read_questions(variant, strategy))
    return found


def text(value: Text) -> str:
    """``value`` in the active language."""
    return value.cs if (get_language() or "").startswith("cs") else value.en
