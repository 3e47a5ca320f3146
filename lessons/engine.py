"""The lessons app's one seam to the rules engine ``dama``.

Only this module imports ``dama`` in ``lessons``. It turns a lesson step (plain data from
``lessons.course``) into a position, draws it, and judges the learner's answers with the engine:
every verdict is a plain :class:`Verdict` value carrying the engine's explanation (message in the
active language and the rulebook article) so that views and templates never touch engine objects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.utils.safestring import SafeString
from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

import dama
from core.board import (
    BoardView,
    Entry,
    board_view,
    draw,
    explanation_marks,
    read_entry,
    solver_flipped,
    start_board,
)

if TYPE_CHECKING:
    from .course import Compare, Course, Step

# verdicts: RIGHT, WRONG (an illegal move, explained by the engine), LEGAL (a legal answer that is
# not the one asked for), CONTINUE (a capture entered landing by landing goes on), ADDED (a capture
# added to a selection), BAD (input that is not an answer at all: a 400)
RIGHT, WRONG, LEGAL, CONTINUE, ADDED, BAD = "right", "wrong", "legal", "continue", "added", "bad"

MAX_TEXT = 200
_LIST_SPLIT = re.compile(r"[,;\s]+")


def start_diagram(variant: str) -> SafeString:
    """The starting position of ``variant`` as an accessible SVG diagram."""
    return draw(start_board(variant))


def men_per_side(variant: str) -> int:
    return len(start_board(variant).pieces(dama.WHITE))


# -- values handed to views and templates ---------------------------------------------------------
@dataclass
class Verdict:
    """The judgement of one answer. ``message`` is in the active language."""

    status: str
    message: str = ""
    article: str = ""
    code: str = ""
    squares: tuple[int, ...] = ()
    entered: str = ""
    path: tuple[int, ...] = ()
    wrong_index: int | None = None
    fen_after: str = ""
    last_move: tuple[int, ...] = ()
    outcome: str = ""
    outcome_article: str = ""
    selection: str = ""
    counts: bool = True  # counts as an attempt (right, wrong and legal answers do)

    @property
    def is_right(self) -> bool:
        return self.status == RIGHT

    @property
    def is_bad(self) -> bool:
        return self.status == BAD


# -- positions ------------------------------------------------------------------------------------
def _start(step: Step) -> dama.Board:
    """The diagram position of ``step``."""
    return dama.Board(step.variant, step.fen)


def _exercise_board(step: Step) -> dama.Board:
    """The position the exercise is asked on: the diagram, then the ``after`` moves."""
    board = _start(step)
    for text in step.exercise.after:
        board.push(board.parse_move(text))
    return board


def _squares(board: dama.Board, names: tuple[str, ...] | list[str]) -> list[int]:
    return [board.parse_square(n) for n in names]


def _square_label(board: dama.Board, sq: int) -> str:
    """A square as the learner may know it: ``c3 (22)`` on 8x8, ``22`` on 10x10."""
    if board.variant.size == 8:
        return f"{board.square_name(sq, algebraic=True)} ({sq})"
    return str(sq)


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
    board = _exercise_board(step)
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
        targets=step.exercise.kind in ("move", "choose_move", "what_if"),
    )


def diagram_before(step: Step) -> SafeString:
    """The diagram of a ``what_if`` step before its moves are played, seen from the side the
    exercise is asked of (as its board is)."""
    board = _start(step)
    return draw(
        board,
        marks=_step_marks(board, step),
        arrows=_step_arrows(board, step),
        flipped=solver_flipped(_exercise_board(step)),
    )


def compare_diagram(entry: Compare) -> SafeString:
    """One variant's board of a comparison, seen from the side to move (as the step's board is)."""
    board = dama.Board(entry.variant, entry.fen)
    return draw(board, flipped=solver_flipped(board))


# -- reading what the learner entered ----------------------------------------------------------------
class _Bad(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def _clean(text: str) -> str:
    text = (text or "").strip()
    if len(text) > MAX_TEXT:
        raise _Bad(_("That is too long to be an answer."))
    return text


def _entered(
    board: dama.Board, *, route: str, text: str, counts: bool = True
) -> tuple[Entry, Verdict | None]:
    """What the learner entered (``core.board.read_entry``), and the verdict when it is not a
    legal move: the capture goes on, an illegal move explained by the engine, or not a move."""
    entry = read_entry(board, route=route, text=text)
    if entry.status == "move":
        return entry, None
    if entry.status == "continue":
        return entry, Verdict(CONTINUE, entry.message, path=entry.path, counts=False)
    if entry.status == "illegal":
        return entry, Verdict(
            WRONG,
            entry.message,
            article=entry.article,
            code=entry.code,
            squares=entry.squares,
            entered=entry.entered,
            counts=counts,
        )
    return entry, Verdict(BAD, entry.message, article=entry.article, counts=False)


def _outcome_after(board: dama.Board) -> tuple[str, str]:
    outcome = board.outcome()
    if outcome is None:
        return "", ""
    return outcome.message(get_language()), outcome.citation(get_language())


def _right(board: dama.Board, entry: Entry) -> Verdict:
    assert entry.move is not None
    board.push(entry.move)
    outcome, outcome_article = _outcome_after(board)
    verdict = Verdict(
        RIGHT,
        _("Right: %(move)s.") % {"move": entry.entered},
        entered=entry.entered,
        fen_after=board.fen(),
        last_move=entry.named_route or entry.move.routes[0],
        outcome=outcome,
        outcome_article=outcome_article,
    )
    board.pop()
    return verdict


def _legal_but_wrong(board: dama.Board, step: Step, move: dama.Move, entered: str) -> Verdict:
    index = None
    for i, wrong in enumerate(step.exercise.wrong):
        if wrong.move and wrong.feedback is not None:
            try:
                if board.parse_move(wrong.move) == move:
                    index = i
                    break
            except dama.DamaError:
                continue
    message = (
        _("%(move)s is a legal move, but not the one asked for.") % {"move": entered}
        if index is None
        else ""
    )
    return Verdict(LEGAL, message, entered=entered, wrong_index=index, squares=(move.start,))


def _full_route(board: dama.Board, text: str) -> tuple[int, ...]:
    """The full route written ``text`` (``30x23x16``), or () when it names none."""
    return read_entry(board, text=text).named_route


# -- judging ------------------------------------------------------------------------------------------
def judge(step: Step, *, route: str = "", text: str = "", selection: str = "") -> Verdict:
    """Judge the learner's answer to ``step``: a clicked ``route`` ("22,15") or typed ``text``.

    In a ``select_captures`` exercise a clicked route adds a capture to ``selection`` (the text of
    the captures chosen so far) and typed text is the whole selection to check.
    """
    board = _exercise_board(step)
    try:
        mode = step.exercise.mode
        if mode == "square":
            return _judge_square(board, step, route=route, text=text)
        if mode == "select":
            if route:
                return _add_to_selection(board, route=route, selection=selection)
            return _judge_selection(board, step, text=text)
        return _judge_move(board, step, route=route, text=text)
    except _Bad as exc:
        return Verdict(BAD, exc.message, counts=False)


def _judge_move(board: dama.Board, step: Step, *, route: str, text: str) -> Verdict:
    ex = step.exercise
    entry, verdict = _entered(board, route=route, text=text)
    if verdict is not None:
        return verdict
    move = entry.move
    assert move is not None
    if ex.kind == "capture_route" and not ex.any_route:
        accepted = {_full_route(board, r) for r in ex.answers}
        if entry.named_route:
            right = entry.named_route in accepted
        elif all(r in accepted for r in move.routes):
            right = True
        elif any(r in accepted for r in move.routes):
            raise _Bad(_("Write the whole route: every landing square, joined by x."))
        else:
            right = False
    else:
        right = move in {board.parse_move(a) for a in ex.answers}
    if right:
        return _right(board, entry)
    return _legal_but_wrong(board, step, move, entry.entered)


def _judge_square(board: dama.Board, step: Step, *, route: str, text: str) -> Verdict:
    if route:
        squares = board.read_entry(route=route).squares
        if not squares:
            raise _Bad(_("The clicked route is not valid."))
        if len(squares) != 1:
            raise _Bad(_("Click one square."))
        sq = squares[0]
    else:
        text = _clean(text)
        if not text:
            raise _Bad(_("Type the square's name or number, or click it on the board."))
        try:
            sq = board.parse_square(text)
        except dama.DamaError:
            raise _Bad(
                _(
                    "“%(square)s” is not a dark square of this board: write a number from 1 to "
                    "%(last)s or a name such as %(example)s."
                )
                % {
                    "square": text,
                    "last": board.geo.squares,
                    "example": board.square_name(board.geo.squares, algebraic=True),
                }
            ) from None
    label = _square_label(board, sq)
    if sq == board.parse_square(step.exercise.answers[0]):
        return Verdict(
            RIGHT, _("Right: %(square)s.") % {"square": label}, entered=label, squares=(sq,)
        )
    index = None
    for i, wrong in enumerate(step.exercise.wrong):
        if wrong.square and board.parse_square(wrong.square) == sq:
            index = i
            break
    message = (
        _("You chose %(square)s; that is not the square asked for.") % {"square": label}
        if index is None
        else ""
    )
    return Verdict(LEGAL, message, entered=label, wrong_index=index, squares=(sq,))


def _parse_selection(board: dama.Board, text: str) -> list[str]:
    text = _clean(text)
    return [p for p in _LIST_SPLIT.split(text) if p]


def _judge_selection(board: dama.Board, step: Step, *, text: str) -> Verdict:
    parts = _parse_selection(board, text)
    if not parts:
        raise _Bad(
            _("Select the captures on the board, or type them separated by commas (22x15, 21x14).")
        )
    chosen: list[dama.Move] = []
    for part in parts:
        entry, verdict = _entered(board, route="", text=part)
        if verdict is not None:
            return verdict
        move = entry.move
        assert move is not None
        if not move.captured:
            wrong = _legal_but_wrong(board, step, move, board.move_text(move))
            if wrong.wrong_index is None:
                wrong.message = _("%(move)s is a move, but not a capture.") % {
                    "move": board.move_text(move)
                }
            return wrong
        if move not in chosen:
            chosen.append(move)
    accepted = {board.parse_move(a) for a in step.exercise.answers}
    entered = ", ".join(board.move_text(m) for m in chosen)
    if set(chosen) == accepted:
        return Verdict(
            RIGHT,
            _("Right: %(moves)s.") % {"moves": entered},
            entered=entered,
            squares=tuple(m.start for m in chosen),
        )
    found = len(set(chosen) & accepted)
    return Verdict(
        LEGAL,
        ngettext(
            "You found %(found)d capture, but there are more. Look at every piece.",
            "You found %(found)d captures, but there are more. Look at every piece.",
            found,
        )
        % {"found": found},
        entered=entered,
    )


def _add_to_selection(board: dama.Board, *, route: str, selection: str) -> Verdict:
    entry, verdict = _entered(board, route=route, text="", counts=False)
    if verdict is not None:
        verdict.selection = selection
        return verdict
    move = entry.move
    assert move is not None
    if not move.captured:
        return Verdict(
            LEGAL,
            _("%(move)s is a move, but not a capture.") % {"move": board.move_text(move)},
            selection=selection,
            counts=False,
        )
    parts = _parse_selection(board, selection)
    known = set()
    for part in parts:
        try:
            known.add(board.parse_move(part))
        except dama.DamaError:
            continue
    text = board.move_text(move)
    if move not in known:
        parts.append(text)
    selection = ", ".join(parts)
    return Verdict(
        ADDED,
        _("%(move)s is in your selection: %(selection)s. Add more, or press Check.")
        % {"move": text, "selection": selection},
        selection=selection,
        squares=(move.start,),
        counts=False,
    )


# -- the answer, on request -----------------------------------------------------------------------
def _answer_drawing(step: Step) -> tuple[dict[int, str], list[list[int]]]:
    board = _exercise_board(step)
    ex = step.exercise
    if ex.mode == "square":
        return {board.parse_square(ex.answers[0]): "good"}, []
    arrows: list[list[int]] = []
    for answer in ex.answers[:8]:
        if ex.kind == "capture_route" and not ex.any_route:
            route = _full_route(board, answer)
            if route:
                arrows.append(list(route))
        else:
            arrows.append(list(board.parse_move(answer).routes[0]))
    return {}, arrows


def answer_text(step: Step) -> str:
    """The expected answer in the variant's notation, for "Show the answer"."""
    board = _exercise_board(step)
    ex = step.exercise
    if ex.mode == "square":
        return _square_label(board, board.parse_square(ex.answers[0]))
    if ex.kind == "capture_route" and not ex.any_route:
        return _(" or ").join(ex.answers)
    if ex.kind == "capture_route":
        move = board.parse_move(ex.answers[0])
        return _(" or ").join(board.route_text(move, i) for i in range(len(move.routes)))
    if ex.mode == "select":
        return ", ".join(ex.answers)
    return _(" or ").join(ex.answers)


# -- validation (system check) --------------------------------------------------------------------
def course_problems(course: Course) -> list[str]:
    """What would stop the site from serving ``course``: bad positions, answers it cannot read."""
    problems = []
    for step in course.steps:
        where = f"{course.slug}/{step.slug}"
        try:
            board = _exercise_board(step)
            _squares(_start(step), step.highlight)
            for pair in step.arrows:
                _squares(_start(step), list(pair))
            ex = step.exercise
            if ex.mode == "square":
                board.parse_square(ex.answers[0])
            elif ex.kind == "capture_route" and not ex.any_route:
                for answer in ex.answers:
                    if not _full_route(board, answer):
                        problems.append(f"{where}: {answer!r} is not a legal capture route")
            else:
                for answer in ex.answers:
                    board.parse_move(answer)
            for entry in step.compare:
                dama.Board(entry.variant, entry.fen)
        except (dama.DamaError, ValueError) as exc:
            problems.append(f"{where}: {exc}")
    return problems
