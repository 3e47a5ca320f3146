"""The lessons app's one seam to the rules engine ``dama``.

Only this module imports ``dama`` in ``lessons``. It turns a lesson step (plain data from
``lessons.course``) into a position and draws it: the exercise's board marked for a verdict,
the diagrams, and the check of every course's positions and answers. The answers themselves are
judged by ``core.exercise`` (the exams' rule questions are judged alike), whose
:class:`~core.exercise.Verdict` values the views and templates get.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.utils.safestring import SafeString

import dama
from core.board import BoardView, board_view, draw, explanation_marks, solver_flipped
from core.endgames import replay
from core.exercise import CONTINUE, WRONG, Verdict, full_route, position

if TYPE_CHECKING:
    from .course import Compare, Course, Step


# -- positions ------------------------------------------------------------------------------------
def _start(step: Step) -> dama.Board:
    """The diagram position of ``step``."""
    return dama.Board(step.variant, step.fen)


def _squares(board: dama.Board, names: tuple[str, ...] | list[str]) -> list[int]:
    return [board.parse_square(n) for n in names]


def _step_marks(board: dama.Board, step: Step) -> dict[int, str]:
    return {sq: "highlight" for sq in _squares(board, step.highlight)}


def _step_arrows(board: dama.Board, step: Step) -> list[list[int]]:
    return [_squares(board, list(pair)) for pair in step.arrows]


def exercise_board(
    step: Step,
    *,
    verdict: Verdict | None = None,
    show_answer: bool = False,
) -> BoardView:
    """The board of the exercise, marked for ``verdict`` (and the answer when it is shown), seen
    from the side to move. Where a picked piece can go is shown in the exercises about a move
    (``move``, ``choose_move``, a ``what_if`` move) when the position has no capture (see
    ``core.board.quiet_targets``); capture exercises never show it."""
    board = position(step)
    flipped = solver_flipped(board)
    marks = _step_marks(board, step)
    arrows = _step_arrows(board, step)
    last: dama.Move | tuple[int, ...] | None = board.peek() if step.exercise.after else None
    path: tuple[int, ...] = ()
    last_text = step.exercise.after[-1] if step.exercise.after else ""
    if verdict is not None:
        if verdict.status == CONTINUE:
            path = verdict.path
        elif verdict.fen_after:
            board = dama.Board(step.variant, verdict.fen_after)
            marks = {}
            arrows = []
            last = verdict.last_move
            last_text = verdict.entered
        if verdict.status == WRONG:
            marks.update(explanation_marks(verdict.code, verdict.squares))
        else:
            for sq in verdict.squares:
                if 1 <= sq <= board.geo.squares:
                    marks[sq] = "good" if verdict.is_right else "wrong"
    if show_answer and (verdict is None or not verdict.fen_after):
        answer_marks, answer_arrows = _answer_drawing(step)
        marks.update(answer_marks)
        arrows = answer_arrows or arrows
    return board_view(
        board,
        mode="square" if step.exercise.mode == "square" else "lesson",
        select=step.exercise.mode == "select",
        marks=marks,
        arrows=arrows,
        last_move=last or None,
        notation=last_text,
        path=path,
        flipped=flipped,
        targets=step.exercise.kind in ("move", "choose_move", "what_if", "better_move"),
    )


def diagram_before(step: Step) -> SafeString:
    """The diagram of a ``what_if`` step before its moves are played, seen from the side the
    exercise is asked of (as its board is)."""
    board = _start(step)
    return draw(
        board,
        marks=_step_marks(board, step),
        arrows=_step_arrows(board, step),
        flipped=solver_flipped(position(step)),
    )


def compare_diagram(entry: Compare) -> SafeString:
    """One variant's board of a comparison, seen from the side to move (as the step's board is)."""
    board = dama.Board(entry.variant, entry.fen)
    return draw(board, flipped=solver_flipped(board))


# -- the answer, on request -----------------------------------------------------------------------
def _answer_drawing(step: Step) -> tuple[dict[int, str], list[list[int]]]:
    board = position(step)
    ex = step.exercise
    if ex.mode == "square":
        return {board.parse_square(ex.answers[0]): "good"}, []
    arrows: list[list[int]] = []
    for answer in ex.answers[:8]:
        if ex.kind == "capture_route" and not ex.any_route:
            route = full_route(board, answer)
            if route:
                arrows.append(list(route))
        else:
            arrows.append(list(board.parse_move(answer).routes[0]))
    return {}, arrows


# -- validation (system check) --------------------------------------------------------------------
def course_problems(course: Course) -> list[str]:
    """What would stop the site from serving ``course``: bad positions, answers it cannot read."""
    problems = []
    for step in course.steps:
        where = f"{course.slug}/{step.slug}"
        try:
            board = position(step)
            _squares(_start(step), step.highlight)
            for pair in step.arrows:
                _squares(_start(step), list(pair))
            ex = step.exercise
            if ex.is_drill:
                if board.outcome() is not None or not board.legal_moves:
                    problems.append(f"{where}: a drill starts in a position where the game goes on")
            elif ex.mode == "square":
                board.parse_square(ex.answers[0])
            elif ex.kind == "capture_route" and not ex.any_route:
                for answer in ex.answers:
                    if not full_route(board, answer):
                        problems.append(f"{where}: {answer!r} is not a legal capture route")
            else:
                for answer in ex.answers:
                    board.parse_move(answer)
            if ex.kind == "better_move":
                for option in ex.options:
                    board.parse_move(option)  # every option is a legal move
                if ex.answers[0] not in ex.options:
                    problems.append(f"{where}: the answer is not one of the options")
            for entry in step.compare:
                dama.Board(entry.variant, entry.fen)
            for claim in step.claims:
                dama.Board(step.variant, claim.fen)
        except (dama.DamaError, ValueError) as exc:
            problems.append(f"{where}: {exc}")
    return problems


# -- drills ---------------------------------------------------------------------------------------
def drill_board(step: Step, moves: list[str], *, path: tuple[int, ...] = ()) -> BoardView:
    """The board of a drill after its ``moves`` (the defence's last reply marked), seen from the
    learner's side (who moves at the start)."""
    board = replay(step.variant, step.fen, moves)
    last = board.peek()
    return board_view(
        board,
        mode="lesson",
        last_move=last,
        path=path,
        flipped=solver_flipped(_start(step)),
        animate=bool(moves),
        targets=True,
    )
