"""What students did: attempts at the puzzles of assigned sets (``puzzles.Attempt`` rows with the
set's id), lesson progress (``lessons.StepProgress``), ratings, and results in the class's
tournaments.

The trainer (``puzzles``) writes the attempts; this module only reads them. The tournaments
stand above the classroom (they are played as games between players), so their results are read
through ``apps.get_model``, never an import (docs/architecture.md).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import Any

from django.apps import apps

from core.variants import VARIANTS
from lessons.course import all_courses
from lessons.models import StepProgress
from puzzles.models import Attempt, PlayerRating

from .models import Assignment, Classroom

SOLVED, FAILED, TRIED, NOT_TRIED = "solved", "failed", "tried", "not_tried"


#: the puzzle was solved, but not cleanly at the first attempt: after the solution was shown (in
#: an attempt of the set, or anywhere before it), or after a mistake (a legal wrong move: an
#: illegal or unreadable one is refused by the trainer and never counts)
SOLVED_AFTER_SOLUTION, SOLVED_AFTER_MISTAKE = "solved_after_solution", "solved_after_mistake"


@dataclass
class Cell:
    """How a student did at one puzzle of a set: the first attempt's outcome (a set's attempt
    starts with what the student had seen of the puzzle elsewhere: ``Attempt.inherit``), and
    whether a replay solved it after that."""

    status: str = NOT_TRIED
    attempts: int = 0
    seconds: int = 0
    hints: int = 0
    #: "", :data:`SOLVED_AFTER_MISTAKE` or :data:`SOLVED_AFTER_SOLUTION`
    later: str = ""

    @property
    def minutes(self) -> str:
        m, s = divmod(int(self.seconds), 60)
        return f"{m}:{s:02d}"


@dataclass
class Column:
    assignment: Assignment
    puzzle: Any
    number: int


@dataclass
class Row:
    student: Any
    cells: list[Cell] = field(default_factory=list)

    @property
    def solved(self) -> int:
        return sum(1 for c in self.cells if c.status == SOLVED)


def _summarise(attempts) -> Cell:
    """The cell of a student's attempts at one puzzle of a set, oldest first: the first attempt
    decides (solved only when solved cleanly: no legal wrong move, no solution shown, nothing of
    the kind inherited from before the set; an illegal move is not a mistake and leaves no trace
    on the attempt); a solve after that is marked, not counted."""
    cell = Cell(attempts=len(attempts))
    if not attempts:
        return cell
    first = attempts[0]
    cell.hints = first.hints or 0
    cell.seconds = int(first.seconds or 0)
    if first.solved and not (first.failed or first.solution_shown):
        cell.status = SOLVED
        return cell
    cell.status = FAILED if (first.failed or first.solution_shown) else TRIED
    shown = False
    for attempt in attempts:
        shown = shown or attempt.solution_shown
        if attempt.solved:
            cell.later = SOLVED_AFTER_SOLUTION if shown else SOLVED_AFTER_MISTAKE
            break
    return cell


def attempts_by_key(users, set_ids, puzzle_ids) -> dict[tuple[int, int, int], list[Any]]:
    """(user id, set id, puzzle id) -> attempts, oldest first."""
    out: dict[tuple[int, int, int], list[Any]] = {}
    if not set_ids:
        return out
    rows = Attempt.objects.filter(
        user__in=users, set_id__in=set_ids, puzzle_id__in=puzzle_ids
    ).order_by("started_at", "pk")
    for a in rows:
        out.setdefault((a.user_id, a.set_id, a.puzzle_id), []).append(a)
    return out


def class_table(classroom: Classroom) -> tuple[list[Column], list[Row]]:
    """Students x puzzles of every set assigned to the class."""
    columns: list[Column] = []
    for assignment in classroom.assignments.select_related("puzzle_set").order_by("created", "pk"):
        for n, puzzle in enumerate(assignment.student_puzzles(), 1):
            columns.append(Column(assignment, puzzle, n))
    students = list(classroom.students())
    found = attempts_by_key(
        students,
        {c.assignment.puzzle_set_id for c in columns},
        {c.puzzle.pk for c in columns},
    )
    rows = []
    for student in students:
        row = Row(student)
        for c in columns:
            row.cells.append(
                _summarise(found.get((student.pk, c.assignment.puzzle_set_id, c.puzzle.pk), []))
            )
        rows.append(row)
    return columns, rows


def student_cells(assignment: Assignment, user) -> list[tuple[Any, Cell]]:
    """One student's puzzles of an assignment with how they did."""
    puzzles = assignment.student_puzzles()
    found = attempts_by_key([user], {assignment.puzzle_set_id}, {p.pk for p in puzzles})
    return [
        (p, _summarise(found.get((user.pk, assignment.puzzle_set_id, p.pk), []))) for p in puzzles
    ]


@dataclass
class TournamentTotals:
    """A student's results in the class's tournaments: how many they played in, their finished
    games (a bye is none) and their points (2-1-0; a bye scores as its tournament says)."""

    tournaments: int = 0
    games: int = 0
    points: int = 0


def tournament_totals(classroom: Classroom) -> dict[int, TournamentTotals]:
    """Each player's totals over the class's tournaments that have started, by user id, as the
    tournaments' own standings count them."""
    tournament_model = apps.get_model("tournaments", "Tournament")
    totals: dict[int, TournamentTotals] = {}
    started = tournament_model.objects.filter(classroom=classroom).exclude(
        status=tournament_model.DRAFT
    )
    for tournament in started:
        for row in tournament.standings():
            mine = totals.setdefault(row.player, TournamentTotals())
            mine.tournaments += 1
            mine.games += row.games
            mine.points += row.points
    return totals


def tournament_rows(classroom: Classroom) -> list[tuple[Any, TournamentTotals]]:
    """The class's students with their tournament totals; empty when no tournament started."""
    totals = tournament_totals(classroom)
    if not totals:
        return []
    return [(s, totals.get(s.pk, TournamentTotals())) for s in classroom.students()]


def _cell_text(value: Any) -> Any:
    """A spreadsheet cell that cannot run as a formula (names are typed by users)."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def table_csv(classroom: Classroom) -> str:
    """One line per student and puzzle of the assigned sets, each with the student's tournament
    totals (``tournaments``, ``tournament_games``, ``tournament_points``); a student with no
    puzzle to show still has a line for their tournaments, once a tournament has started."""
    columns, rows = class_table(classroom)
    totals = tournament_totals(classroom)
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [
            "student",
            "username",
            "set",
            "number",
            "puzzle",
            "status",
            "attempts",
            "seconds",
            "hints",
            "later",
            "tournaments",
            "tournament_games",
            "tournament_points",
        ]
    )
    for row in rows:
        name = row.student.get_full_name() or row.student.username
        mine = totals.get(row.student.pk, TournamentTotals())
        results = [mine.tournaments, mine.games, mine.points]
        if not columns and totals:
            writer.writerow(
                [_cell_text(name), _cell_text(row.student.username), *[""] * 8, *results]
            )
        for column, cell in zip(columns, row.cells, strict=True):
            writer.writerow(
                [
                    _cell_text(name),
                    _cell_text(row.student.username),
                    _cell_text(column.assignment.puzzle_set.title),
                    column.number,
                    column.puzzle.pk,
                    cell.status,
                    cell.attempts,
                    cell.seconds,
                    cell.hints,
                    cell.later,
                    *results,
                ]
            )
    return out.getvalue()


@dataclass
class CourseProgress:
    course: Any
    done: int
    total: int
    stars: int
    hints: int
    answers_shown: int
    #: steps not done but tested out (their lesson's test-out passed): no stars
    tested: int = 0


def lesson_progress(user) -> list[CourseProgress]:
    """Per course: steps done out of all, steps tested out, stars, hints, answers shown."""
    rows = list(StepProgress.objects.filter(user=user))
    out = []
    for course in all_courses():
        mine = [r for r in rows if r.course == course.slug]
        done = [r for r in mine if r.completed_at is not None or r.stars > 0]
        out.append(
            CourseProgress(
                course=course,
                done=len(done),
                total=len(course.steps),
                stars=sum(r.stars for r in done),
                hints=sum(r.hints_used for r in mine),
                answers_shown=sum(1 for r in mine if r.answer_shown),
                tested=sum(1 for r in mine if r.is_tested_out),
            )
        )
    return out


def ratings(user) -> list[dict[str, Any]]:
    """The student's puzzle ratings, one per variant played."""
    return [
        {
            "variant": str(VARIANTS[r.variant].title) if r.variant in VARIANTS else r.variant,
            "rating": round(r.rating),
            "deviation": round(r.deviation),
        }
        for r in PlayerRating.objects.filter(user=user)
    ]


def attempt_log(user, set_ids) -> list[Any]:
    """Every attempt of the student at puzzles of the given sets, newest first."""
    if not set_ids:
        return []
    return list(
        Attempt.objects.filter(user=user, set_id__in=set_ids)
        .select_related("puzzle")
        .order_by("-started_at", "-pk")[:200]
    )
