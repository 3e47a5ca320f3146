"""Square names and move text: numeric (``32-28``, ``28x19``, ``46x37x48x25``) and algebraic
(``c3-d4``, ``d4xf6``) on 8x8.

>>> from dama import Board
>>> b = Board("brazilian")
>>> b.move_text(b.parse_move("c3-d4"))
'c3-d4'
>>> b.move_text(b.parse_move("22-18"), algebraic=False)
'22-18'
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .errors import InvalidMoveError, InvalidSquareError
from .geometry import geometry
from .variants import Variant, find_variant

if TYPE_CHECKING:
    from .baseboard import BaseBoard, Move

_TOKEN_SPLIT = re.compile(r"\s*[-x:×]\s*", re.IGNORECASE)
#: a number in a file or a text: ASCII digits only (``int()`` also reads '١٢' and '1_0', and
#: refuses more than 4,300 digits with a ``ValueError`` of its own), at most 9 of them
_NUMBER = re.compile(r"[0-9]{1,9}", re.ASCII)


def read_number(text: str, minimum: int = 0, maximum: int = 999_999_999) -> int | None:
    """The whole number written in ``text`` (ASCII digits, spaces around allowed) when it is
    from ``minimum`` to ``maximum``, else None: the caller raises its own error with the rule.
    Every number the engine reads from a FEN, a PDN tag or a goal goes through here, so that no
    text can make ``int()`` fail.

    >>> read_number("29"), read_number(" 7 ", 1, 10), read_number("0", 1, 10)
    (29, 7, None)
    >>> [read_number(t) for t in ("²", "١٢", "1_0", "-1", "", "9" * 5000)]
    [None, None, None, None, None, None]
    """
    t = text.strip() if isinstance(text, str) else ""
    if not _NUMBER.fullmatch(t):
        return None
    n = int(t)
    return n if minimum <= n <= maximum else None


_SQUARE_TEXT = re.compile(r"^([0-9]{1,2}|[a-jA-J](?:10|[1-9]))$")


def parse_square(text: str, variant: str | Variant) -> int:
    """Square number of ``text`` (``22`` or ``c3``); raises :class:`InvalidSquareError`.

    >>> parse_square("c3", "czech"), parse_square("46", "international")
    (22, 46)
    """
    v = find_variant(variant)
    g = geometry(v.size)
    t = str(text).strip()
    if t.isascii() and t.isdigit() and len(t) <= 3:
        sq = int(t)
        if 1 <= sq <= g.squares:
            return sq
        raise InvalidSquareError(f"there is no square {sq}: squares are numbered 1-{g.squares}")
    sq2 = g.parse(t)
    if sq2 is None:
        raise InvalidSquareError(
            f"{t!r} is not a square: write a number 1-{g.squares} or a dark square's name such as "
            f"{g.name(g.squares - g.half + 1)}"
        )
    return sq2


def square_name(sq: int, variant: str | Variant, algebraic: bool = True) -> str:
    """Name of square ``sq``: algebraic (``c3``) or its number."""
    v = find_variant(variant)
    g = geometry(v.size)
    if not 1 <= sq <= g.squares:
        raise InvalidSquareError(f"there is no square {sq}: squares are numbered 1-{g.squares}")
    return g.name(sq) if algebraic else str(sq)


def example_moves(variant: str | Variant) -> tuple[str, ...]:
    """Move text to show as examples beside a move box on this variant's board: a man's first
    move and a capture of two pieces from White's front row, in the variant's notation, and on
    8x8 (where players write both) the same move in the other notation.

    >>> example_moves("czech")
    ('22-18', '22x15x6', 'c3-d4')
    >>> example_moves("brazilian")
    ('c3-d4', 'c3xe5xc7', '22-18')
    >>> example_moves("international")
    ('32-28', '32x23x12')
    """
    v = find_variant(variant)
    g = geometry(v.size)
    row = v.size // 2 + 1  # White's front row at the start
    col = 2 if g.square_at(row, 2) is not None else 3

    def text(places: tuple[tuple[int, int], ...], sep: str, algebraic: bool) -> str:
        squares = [g.square_at(r, c) for r, c in places]
        return sep.join(square_name(sq, v, algebraic) for sq in squares if sq is not None)

    route = ((row, col), (row - 1, col + 1))
    capture = ((row, col), (row - 2, col + 2), (row - 4, col))

    alg = v.algebraic_default
    examples = (text(route, "-", alg), text(capture, "x", alg))
    return (*examples, text(route, "-", not alg)) if v.size == 8 else examples


def square_text(board: BaseBoard, sq: int, algebraic: bool | None = None) -> str:
    alg = board.variant.algebraic_default if algebraic is None else algebraic
    return square_name(sq, board.variant, alg)


def route_text(board: BaseBoard, move: Move, index: int = 0, algebraic: bool | None = None) -> str:
    """The full route of ``move`` (route ``index``)."""
    sep = "x" if move.captured else "-"
    return sep.join(square_text(board, s, algebraic) for s in move.routes[index])


def move_text(board: BaseBoard, move: Move, algebraic: bool | None = None) -> str:
    """Shortest unambiguous text of ``move``: ``start-end``/``startxend``, or the full route when
    another legal move shares the start and end."""
    sep = "x" if move.captured else "-"
    short = (
        f"{square_text(board, move.start, algebraic)}{sep}{square_text(board, move.end, algebraic)}"
    )
    if move.captured:
        others = [
            m for m in board.generate_legal_moves() if m.start == move.start and m.end == move.end
        ]
        if len(others) > 1:
            return route_text(board, move, 0, algebraic)
    return short


def tokenize_move(board: BaseBoard, text: str) -> tuple[list[int], bool]:
    """Squares of a move text and whether it is written as a capture. Raises InvalidMoveError."""
    if not isinstance(text, str):
        raise InvalidMoveError("a move must be text such as 32-28 or 28x19")
    t = text.strip().rstrip("!?*+ ")
    if not t:
        raise InvalidMoveError("the move is empty: write it like 32-28, 28x19 or c3-d4")
    is_capture = "x" in t.lower() or ":" in t or "×" in t
    parts = _TOKEN_SPLIT.split(t)
    if len(parts) < 2:
        raise InvalidMoveError(
            f"{text!r} is not a move: write the start and end squares joined by - (move) or x (capture)"
        )
    squares = []
    for p in parts:
        if not _SQUARE_TEXT.match(p):
            raise InvalidMoveError(f"{p!r} in {text!r} is not a square")
        try:
            squares.append(parse_square(p, board.variant))
        except InvalidSquareError as e:
            raise InvalidMoveError(str(e)) from None
    return squares, is_capture


def _is_subsequence(needle: list[int], hay: tuple[int, ...]) -> bool:
    it = iter(hay)
    return all(any(x == y for y in it) for x in needle)


def matching_moves(board: BaseBoard, squares: list[int]) -> list[Move]:
    """Distinct legal moves whose start and end are the text's and whose route passes, in order,
    through any landing squares written between them."""
    start, end, middle = squares[0], squares[-1], squares[1:-1]
    legal = board.generate_legal_moves()
    # a text that is exactly one move's full route names that move, even if it is also a
    # shortened form of longer routes
    exact = [m for m in legal if tuple(squares) in m.routes]
    if len(exact) == 1:
        return exact
    out = []
    for m in legal:
        if m.start != start or m.end != end:
            continue
        if middle and not any(_is_subsequence(middle, r[1:-1]) for r in m.routes):
            continue
        out.append(m)
    return out
