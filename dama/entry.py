"""What a player entered: a clicked route or typed move text, read against a position.

:meth:`Board.read_entry <dama.Board.read_entry>` answers the one question every screen asks about
move entry, the way python-chess's ``Board.find_move``/``parse_san`` do: which legal move does
this clicked route or typed text mean, or is it the start of one? The answer is an :class:`Entry`
value of one of four kinds (:class:`EntryKind`):

``move``
    a legal move (``move``; ``route`` is the route entered, or the move's first route when the text
    named only its start and end);
``partial``
    the clicked squares so far begin a capture that goes on (``candidates``, ``next_landings``);
    a click on the piece and then on a capture's last landing reads as that capture, as its
    typed text ``22x8`` does;
``illegal``
    a well-formed move the rules do not allow here, with the engine's ``explanation``;
``unreadable``
    not a move at all; ``reason`` says why (:data:`UNREADABLE_REASONS`), with the engine's
    ``explanation`` for text that is not move notation and ``candidates`` for a short text that
    could be several moves.

>>> from dama import Board
>>> board = Board("czech", "W:W22:B18,11")
>>> board.read_entry(route="22,15,8").move
<Move 22x15x8>
>>> entry = board.read_entry(route="22,15")
>>> entry.kind, entry.next_landings, entry.text
(<EntryKind.PARTIAL: 'partial'>, (8,), '22x15')
>>> board.read_entry(route="22,8").route  # the piece, then the capture's last landing
(22, 15, 8)
>>> board.read_entry(text="22x8").route
(22, 15, 8)
>>> entry = board.read_entry(text="22x15")
>>> entry.kind, entry.explanation.code
(<EntryKind.ILLEGAL: 'illegal'>, 'capture_not_finished')
>>> entry = board.read_entry(text="22+18")
>>> entry.kind, entry.reason, entry.explanation.code
(<EntryKind.UNREADABLE: 'unreadable'>, 'syntax', 'syntax')
>>> board.read_entry(route="22").reason, board.read_entry(text="  ").reason
('one_square', 'empty')
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from .errors import InvalidMoveError
from .explain import Explanation, explain_illegal
from .notation import matching_moves, move_text, read_number, square_text, tokenize_move

if TYPE_CHECKING:
    from .baseboard import BaseBoard, Move

__all__ = ["MAX_ROUTE", "MAX_TEXT", "UNREADABLE_REASONS", "Entry", "EntryKind", "read_entry"]

#: the longest typed text read as a move (characters)
MAX_TEXT = 200
#: the most squares a clicked route may have
MAX_ROUTE = 40

#: why an entry is ``unreadable``: each reason with a short description
UNREADABLE_REASONS: dict[str, str] = {
    "empty": "nothing was entered",
    "too_long": f"the text is longer than {MAX_TEXT} characters",
    "bad_route": "the clicked route is not a list of squares of this board",
    "one_square": "the clicked route has one square: the piece's destination is missing",
    "syntax": "the text is not move notation (the explanation says why)",
    "ambiguous": "a short text or a click from a piece straight to a last landing that names"
    " several legal moves (listed in candidates)",
}

# explanation codes that mean "this is not a move at all" rather than "this move is illegal"
_NOT_A_MOVE = frozenset({"syntax", "no_such_square"})


class EntryKind(StrEnum):
    """The four answers to "what did the player enter?"."""

    MOVE = "move"
    PARTIAL = "partial"
    ILLEGAL = "illegal"
    UNREADABLE = "unreadable"


@dataclass(frozen=True, slots=True)
class Entry:
    """What a clicked route or a typed text means on a board (see the module docstring).

    ``squares`` are the squares entered, in order (clicked, or read from the text; empty when the
    text is not move notation). ``text`` is the entry written as move text in the variant's
    notation: for a move, its route when the entry named a full route of a multi-capture, else its
    short text; for a route, the squares joined by ``x`` or ``-``; for typed text, the text.
    """

    kind: EntryKind
    text: str = ""
    squares: tuple[int, ...] = ()
    move: Move | None = None
    candidates: tuple[Move, ...] = ()
    explanation: Explanation | None = None
    reason: str = ""

    @property
    def names_route(self) -> bool:
        """True when the entry is a move given by one of its full routes (every landing)."""
        return self.move is not None and self.squares in self.move.routes

    @property
    def route(self) -> tuple[int, ...]:
        """A move's route as entered (its first route when the entry named only start and end);
        the squares so far for any other entry."""
        if self.move is None:
            return self.squares
        return self.squares if self.names_route else self.move.routes[0]

    @property
    def next_landings(self) -> tuple[int, ...]:
        """The squares a ``partial`` capture may land on next, in order."""
        n = len(self.squares)
        return tuple(
            sorted(
                {
                    route[n]
                    for move in self.candidates
                    for route in move.routes
                    if len(route) > n and route[:n] == self.squares
                }
            )
        )


def read_entry(board: BaseBoard, route: str | Iterable[int] = "", text: str = "") -> Entry:
    """What ``route`` (clicked squares, ``"22,15,8"`` or a sequence of numbers) or else ``text``
    (``22-18``, ``22x8``, the full route ``46x37x48x25``, algebraic ``c3-d4``) means on ``board``.

    A route is read square by square: a legal move's full route, the start of a capture route
    (``partial``), or an illegal move explained as the engine explains its text. Text is read as
    :meth:`~dama.Board.parse_move` reads it. Never raises for bad input: the answer says what is
    wrong.
    """
    if isinstance(route, str) and route.strip() or not isinstance(route, str) and route:
        return _read_route(board, route)
    return _read_text(board, text if isinstance(text, str) else "")


def _route_squares(board: BaseBoard, route: str | Iterable[int]) -> tuple[int, ...] | None:
    if isinstance(route, str):
        parts = [p for p in route.split(",") if p.strip()]
        if len(parts) > MAX_ROUTE:
            return None
        read = [read_number(p) for p in parts]
        squares = tuple(n for n in read if n is not None)
        if len(squares) < len(read):
            return None
    else:
        squares = tuple(route)
        if not all(type(s) is int for s in squares):
            return None
    if not squares or len(squares) > MAX_ROUTE:
        return None
    if any(not 1 <= s <= board.geo.squares for s in squares):
        return None
    return squares


def _read_route(board: BaseBoard, route: str | Iterable[int]) -> Entry:
    squares = _route_squares(board, route)
    if squares is None:
        return Entry(EntryKind.UNREADABLE, reason="bad_route")
    if len(squares) < 2:
        return Entry(EntryKind.UNREADABLE, squares=squares, reason="one_square")
    legal = board.generate_legal_moves()
    for move in legal:
        if squares in move.routes:
            return Entry(EntryKind.MOVE, _move_text(board, move, squares), squares, move)
    n = len(squares)
    started = tuple(
        move
        for move in legal
        if move.captured and any(len(r) > n and r[:n] == squares for r in move.routes)
    )
    names = [square_text(board, s) for s in squares]
    if started:
        return Entry(EntryKind.PARTIAL, "x".join(names), squares, candidates=started)
    start, end = squares[0], squares[-1]
    if n == 2:
        # the piece, then straight to the capture's last landing: as the typed ``23x7`` reads
        ends = tuple(m for m in legal if m.captured and m.start == start and m.end == end)
        if len(ends) == 1:
            return Entry(EntryKind.MOVE, _move_text(board, ends[0], squares), squares, ends[0])
        if ends:
            text = "x".join(names)
            return Entry(EntryKind.UNREADABLE, text, squares, candidates=ends, reason="ambiguous")
    # (a two-square click that ends a capture was read above)
    jumped = n > 2 or _piece_between(board, start, end)
    text = ("x" if jumped else "-").join(names)
    return Entry(EntryKind.ILLEGAL, text, squares, explanation=explain_illegal(board, text))


def _read_text(board: BaseBoard, text: str) -> Entry:
    text = text.strip()
    if not text:
        return Entry(EntryKind.UNREADABLE, reason="empty")
    if len(text) > MAX_TEXT:
        return Entry(EntryKind.UNREADABLE, reason="too_long")
    try:
        squares, _capture = tokenize_move(board, text)
    except InvalidMoveError:
        explanation = explain_illegal(board, text)
        return Entry(EntryKind.UNREADABLE, text, explanation=explanation, reason="syntax")
    entered = tuple(squares)
    found = matching_moves(board, squares)
    if len(found) == 1:
        return Entry(EntryKind.MOVE, _move_text(board, found[0], entered), entered, found[0])
    if found:
        return Entry(
            EntryKind.UNREADABLE, text, entered, candidates=tuple(found), reason="ambiguous"
        )
    explanation = explain_illegal(board, text)
    if explanation is not None and explanation.code in _NOT_A_MOVE:
        return Entry(EntryKind.UNREADABLE, text, explanation=explanation, reason="syntax")
    return Entry(EntryKind.ILLEGAL, text, entered, explanation=explanation)


def _move_text(board: BaseBoard, move: Move, squares: tuple[int, ...]) -> str:
    """The move as entered: its full route when one was given (of a multi-capture), else short."""
    if len(squares) > 2 and squares in move.routes:
        return "x".join(square_text(board, s) for s in squares)
    return move_text(board, move)


def _piece_between(board: BaseBoard, a: int, b: int) -> bool:
    """True when a piece stands between ``a`` and ``b`` on one diagonal (a click that jumps)."""
    geo = board.geo
    (r1, c1), (r2, c2) = geo.row_col(a), geo.row_col(b)
    dr, dc = r2 - r1, c2 - c1
    if abs(dr) != abs(dc) or abs(dr) < 2:
        return False
    sr, sc = (1 if dr > 0 else -1), (1 if dc > 0 else -1)
    for i in range(1, abs(dr)):
        sq = geo.square_at(r1 + i * sr, c1 + i * sc)
        if sq is not None and board.piece_at(sq) is not None:
            return True
    return False
