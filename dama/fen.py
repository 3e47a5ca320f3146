"""FEN in PDN style: ``W:W31,32,K45:B10,12``.

Ranges (``W:W31-50:B1-20``), an empty side (``W:W8:B``) and algebraic squares on 8x8
(``B:Wc3,Kd4:Bf6``) are read. Errors say what is wrong and where.

>>> from dama import Board
>>> Board("czech", "W:W21-23,K32:B1").fen()
'W:W21,22,23,K32:B1'
>>> Board("brazilian", "B:Wc3,Kd4:Bf6").fen(algebraic=True)
'B:WKd4,c3:Bf6'
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .errors import InvalidFenError

if TYPE_CHECKING:
    from .baseboard import BaseBoard

_RANGE = re.compile(r"^(\d+)-(\d+)$")


def _square(token: str, board: BaseBoard, where: str) -> int:
    g = board.geo
    if token.isascii() and token.isdigit():
        if len(token) > 3:
            raise InvalidFenError(f"{token[:12]!r}... in {where} is not a square number")
        sq = int(token)
        if not 1 <= sq <= g.squares:
            raise InvalidFenError(
                f"square {sq} in {where} is not on the {g.size}x{g.size} board (1-{g.squares})"
            )
        return sq
    alg = g.parse(token)
    if alg is None:
        raise InvalidFenError(
            f"{token!r} in {where} is not a square (expected a number or a name like c3)"
        )
    return alg


def parse_fen(fen: str, board: BaseBoard) -> None:
    """Set ``board`` to the position ``fen`` (raises :class:`InvalidFenError`)."""
    if not isinstance(fen, str):
        raise InvalidFenError("FEN must be text")
    text = fen.strip().strip('"').strip()
    if text.endswith("."):
        text = text[:-1]
    if not text:
        raise InvalidFenError("FEN is empty")
    parts = [p.strip() for p in text.split(":")]
    turn = parts[0].upper()
    if turn not in ("W", "B"):
        raise InvalidFenError(
            f"FEN must start with the side to move, W or B, not {parts[0]!r} (e.g. W:W31,32:B10,12)"
        )
    g = board.geo
    white = black = kings = 0
    seen: dict[int, str] = {}
    sides_seen = set()
    for idx, part in enumerate(parts[1:], start=2):
        if not part:
            raise InvalidFenError(f"FEN field {idx} is empty: expected W or B followed by squares")
        side = part[0].upper()
        if side not in ("W", "B"):
            raise InvalidFenError(
                f"FEN field {idx} ({part!r}) must start with W or B to say whose pieces follow"
            )
        if side in sides_seen:
            raise InvalidFenError(
                f"FEN lists the {'white' if side == 'W' else 'black'} pieces twice"
            )
        sides_seen.add(side)
        colour = "white" if side == "W" else "black"
        body = part[1:].strip()
        if not body:
            continue
        for tok in body.split(","):
            raw = tok.strip()
            where = f"the {colour} pieces (field {idx}, {raw!r})"
            if not raw:
                raise InvalidFenError(f"empty entry (two commas in a row?) in the {colour} pieces")
            king = False
            if raw[0] in "Kk":
                king = True
                raw = raw[1:].strip()
            m = _RANGE.match(raw)
            if m:
                lo, hi = _square(m.group(1), board, where), _square(m.group(2), board, where)
                if lo > hi:
                    raise InvalidFenError(f"range {raw} in {where} runs backwards")
                squares = list(range(lo, hi + 1))
            else:
                squares = [_square(raw, board, where)]
            for sq in squares:
                if sq in seen:
                    raise InvalidFenError(f"square {sq} is given twice ({seen[sq]} and {colour})")
                seen[sq] = colour
                bit = 1 << g.bit_of[sq]
                crown = g.white_crown if side == "W" else g.black_crown
                if not king and bit & crown:
                    raise InvalidFenError(
                        f"a {colour} man cannot stand on square {sq}, its crowning row; write K{sq} for a king"
                    )
                if side == "W":
                    white |= bit
                else:
                    black |= bit
                if king:
                    kings |= bit
    board.white, board.black, board.kings = white, black, kings
    board.turn = turn == "W"
    board.clear_stack()


def board_fen(board: BaseBoard, algebraic: bool | None = None) -> str:
    """The FEN of ``board``; numeric squares unless ``algebraic`` (8x8 names)."""
    g = board.geo
    alg = bool(algebraic)

    def side(bb: int, letter: str) -> str:
        items = []
        for sq in g.squares_of(bb):
            name = g.name(sq) if alg else str(sq)
            items.append(("K" if board.kings & (1 << g.bit_of[sq]) else "") + name)
        return letter + ",".join(items)

    return f"{'W' if board.turn else 'B'}:{side(board.white, 'W')}:{side(board.black, 'B')}"
