"""A question asked on a board, and the judge of an answer to it: the lessons' exercises and the
exams' rule questions (lesson exercises too), judged alike, so it lives here, beside the board
seam, for both apps.

A question is a position and an exercise: anything with ``variant``, ``fen`` and ``exercise``
(``lessons.course.Step``; the exercise as ``lessons.course.Exercise`` reads it: its ``kind`` and
``mode``, the ``answers``, ``any_route``, the moves played ``after`` the diagram and the
``wrong`` answers with their feedback). Every verdict is a plain :class:`Verdict` value carrying
the engine's explanation (message in the active language and the rulebook article), so that
views and templates never touch engine objects.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol

from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

import dama

from .board import Entry, read_entry

# verdicts: RIGHT, WRONG (an illegal move, explained by the engine), LEGAL (a legal answer that is
# not the one asked for), CONTINUE (a capture entered landing by landing goes on), ADDED (a capture
# added to a selection), BAD (input that is not an answer at all: a 400)
RIGHT, WRONG, LEGAL, CONTINUE, ADDED, BAD = "right", "wrong", "legal", "continue", "added", "bad"

MAX_TEXT = 200
_LIST_SPLIT = re.compile(r"[,;\s]+")


class Question(Protocol):
    """What is asked: a lesson's step, an exam's rule question (``lessons.course.Step``)."""

    @property
    def variant(self) -> str: ...

    @property
    def fen(self) -> str: ...

    @property
    def exercise(self) -> Any: ...


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
def position(step: Question) -> dama.Board:
    """The position the exercise is asked on: the diagram, then the ``after`` moves."""
    board = dama.Board(step.variant, step.fen)
    for text in step.exercise.after:
        board.push(board.parse_move(text))
    return board


def square_label(board: dama.Board, sq: int) -> str:
    """A square as the learner may know it: ``c3 (22)`` on 8x8, ``22`` on 10x10."""
    if board.variant.size == 8:
        return f"{board.square_name(sq, algebraic=True)} ({sq})"
    return str(sq)


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


def _legal_but_wrong(board: dama.Board, step: Question, move: dama.Move, entered: str) -> Verdict:
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


def full_route(board: dama.Board, text: str) -> tuple[int, ...]:
    """The full route written ``text`` (``30x23x16``), or () when it names none."""
    return read_entry(board, text=text).named_route


# -- judging ------------------------------------------------------------------------------------------
def judge(step: Question, *, route: str = "", text: str = "", selection: str = "") -> Verdict:
    """Judge the learner's answer to ``step``: a clicked ``route`` ("22,15") or typed ``text``.

    In a ``select_captures`` exercise a clicked route adds a capture to ``selection`` (the text of
    the captures chosen so far) and typed text is the whole selection to check.
    """
    board = position(step)
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


def _judge_move(board: dama.Board, step: Question, *, route: str, text: str) -> Verdict:
    ex = step.exercise
    entry, verdict = _entered(board, route=route, text=text)
    if verdict is not None:
        return verdict
    move = entry.move
    assert move is not None
    if ex.kind == "capture_route" and not ex.any_route:
        accepted = {full_route(board, r) for r in ex.answers}
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


def _judge_square(board: dama.Board, step: Question, *, route: str, text: str) -> Verdict:
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
    label = square_label(board, sq)
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


def _judge_selection(board: dama.Board, step: Question, *, text: str) -> Verdict:
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
def answer_text(step: Question) -> str:
    """The expected answer in the variant's notation, for "Show the answer"."""
    board = position(step)
    ex = step.exercise
    if ex.mode == "square":
        return square_label(board, board.parse_square(ex.answers[0]))
    if ex.kind == "capture_route" and not ex.any_route:
        return _(" or ").join(ex.answers)
    if ex.kind == "capture_route":
        move = board.parse_move(ex.answers[0])
        return _(" or ").join(board.route_text(move, i) for i in range(len(move.routes)))
    if ex.mode == "select":
        return ", ".join(ex.answers)
    return _(" or ").join(ex.answers)
