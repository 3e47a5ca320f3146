"""The board: a position of one variant with FEN, notation, move entry, explanations and the
game's end, on top of :class:`~dama.baseboard.BaseBoard` (moves, make/unmake).

>>> from dama import BLACK
>>> b = Board("czech")
>>> len(b.legal_moves)
7
>>> m = b.parse_move("22-18")
>>> b.push(m); b.turn == BLACK
True
>>> b.pop() == m
True
>>> b.fen()
'W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12'
"""

from __future__ import annotations

from collections.abc import Iterable

from .baseboard import BaseBoard, Move
from .entry import Entry, read_entry
from .errors import AmbiguousMoveError, IllegalMoveError
from .explain import Explanation, explain_illegal
from .fen import board_fen, parse_fen
from .geometry import Square
from .notation import (
    matching_moves,
    move_text,
    parse_square,
    route_text,
    square_text,
    tokenize_move,
)
from .outcome import Outcome, outcome
from .perft import perft
from .variants import Variant

__all__ = ["Board"]


class Board(BaseBoard):
    """A draughts position of one variant, with its move stack.

    ``Board("czech")`` is the start position; ``Board("czech", fen)`` or :meth:`from_fen` a set-up
    one.
    """

    def __init__(self, variant: str | Variant = "international", fen: str | None = None) -> None:
        super().__init__(variant)
        if fen is not None:
            parse_fen(fen, self)

    @classmethod
    def from_fen(cls, fen: str, variant: str | Variant = "international") -> Board:
        return cls(variant, fen)

    def fen(self, algebraic: bool | None = None) -> str:
        """The position in PDN FEN, e.g. ``W:W31,32:B10,12``."""
        return board_fen(self, algebraic=algebraic)

    def __repr__(self) -> str:
        return f"Board({self.variant.name!r}, {self.fen()!r})"

    # -- notation ---------------------------------------------------------------------------
    def square_name(self, sq: Square, algebraic: bool | None = None) -> str:
        """The square's name in the variant's notation (or as asked): ``22`` or ``c3``."""
        return square_text(self, sq, algebraic)

    def parse_square(self, text: str) -> Square:
        return parse_square(text, self.variant)

    def move_text(self, move: Move, algebraic: bool | None = None) -> str:
        """Short notation: ``32-28``, ``28x19`` (or ``c3-d4`` when algebraic)."""
        return move_text(self, move, algebraic=algebraic)

    def route_text(self, move: Move, index: int = 0, algebraic: bool | None = None) -> str:
        """Full route: ``46x37x48x25``."""
        return route_text(self, move, index=index, algebraic=algebraic)

    def parse_move(self, text: str) -> Move:
        """The legal move written ``text`` (short or full route, numeric or algebraic).

        Raises :class:`~dama.InvalidMoveError` (not a move),
        :class:`~dama.IllegalMoveError` (with the engine's explanation) or
        :class:`~dama.AmbiguousMoveError` (listing the full routes to choose from).
        """
        squares, _capture = tokenize_move(self, text)
        found = matching_moves(self, squares)
        if len(found) == 1:
            return found[0]
        if not found:
            exp = explain_illegal(self, text)
            msg = exp.message_en if exp is not None else f"{text.strip()} is not a legal move here"
            raise IllegalMoveError(msg, exp)
        routes = [route_text(self, m, 0) for m in found]
        raise AmbiguousMoveError(
            f"{text.strip()} is ambiguous: write the full route, one of {', '.join(routes)}", routes
        )

    def push_text(self, text: str) -> Move:
        """Parse ``text`` as a move here, play it and return it."""
        m = self.parse_move(text)
        self.push(m)
        return m

    # -- entry, explanations, the end ----------------------------------------------------------
    def read_entry(self, route: str | Iterable[int] = "", text: str = "") -> Entry:
        """What a clicked ``route`` (``"22,15"``) or else typed ``text`` (``22x8``, ``c3-d4``)
        means here: a move, the start of a capture, an illegal move or unreadable input (see
        :mod:`dama.entry`).

        >>> b = Board("czech")
        >>> b.read_entry(route="22,18").move, b.read_entry(text="c3-d4").move
        (<Move 22-18>, <Move 22-18>)
        >>> b.read_entry(text="22-26").explanation.code
        'man_backward'
        """
        return read_entry(self, route, text)

    def explain_illegal(self, text: str) -> Explanation | None:
        """Why ``text`` is not a legal move here (None when it is legal or ambiguous)."""
        return explain_illegal(self, text)

    def outcome(self) -> Outcome | None:
        """The game's result if it has ended here (a loss or a draw by rule), else None."""
        return outcome(self)

    def perft(self, depth: int) -> int:
        """Leaf nodes at ``depth`` plies, equivalent routes counted once."""
        return perft(self, depth)
