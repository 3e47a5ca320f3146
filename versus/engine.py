"""The versus app's seam to the engine (``dama``): what only games between two players need.

A game is kept, as a game against the computer is, as its start position and the routes played
(lists of squares); :func:`replay` plays them again with the move stack, so the engine's own
draw rules (repetition, the 25- and 15-move rules, the endgame counts) and its losses (no
pieces, no move) end the game with the rulebook article (:func:`end_of`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

import dama
import dama.pdn
from core import board as core_board

#: the article on moving in turn, by rulebook (what the engine cites for a move of the
#: opponent's piece: ``dama.explain``'s ``opponent_piece``)
TURN_ARTICLES = {"CUD 2006": "CUD 2006 art. 3.3"}


def start_fen(variant: str) -> str:
    return core_board.start_board(variant).fen()


def check_start(variant: str, fen: str) -> str:
    """``fen`` as the engine writes it, when a game can start there; a ``ValidationError``
    for a position that is not valid or where the game is already over."""
    board = core_board.board_from_fen(fen, variant)
    if board.outcome() is not None:
        raise ValidationError(_("The game is already over in this position."), code="over")
    return str(board.fen())


def find(board: dama.Board, route: Sequence[int]) -> dama.Move:
    """The legal move on ``board`` with the stored ``route``."""
    wanted = tuple(route)
    for move in board.generate_legal_moves():
        if wanted in move.routes:
            return move
    raise ValidationError(_("A stored move is not legal: %(route)s") % {"route": wanted})


def replay(variant: str, fen: str, routes: Iterable[Sequence[int]]) -> dama.Board:
    """The board after ``routes`` from ``fen``, with the moves on its stack."""
    board = core_board.board_from_fen(fen, variant)
    for route in routes:
        board.push(find(board, route))
    return board


def line_texts(variant: str, fen: str, routes: Iterable[Sequence[int]]) -> list[str]:
    """The moves of ``routes`` in the variant's notation."""
    board = core_board.board_from_fen(fen, variant)
    texts = []
    for route in routes:
        move = find(board, route)
        texts.append(board.move_text(move))
        board.push(move)
    return texts


def white_turn(board: dama.Board) -> bool:
    return board.turn == dama.WHITE


def turn_article(variant: str) -> str:
    """The rulebook article that says the players move in turn, in the page's language.

    >>> turn_article("czech"), turn_article("brazilian")
    ('CUD 2006 art. 3.3', 'SDS Brazilian art. 2')
    """
    rulebook = dama.VARIANTS[variant].rulebook
    return core_board.cite(TURN_ARTICLES.get(rulebook, f"{rulebook} art. 2"))


# the end of a game on the board: the one reading of it, in core.board
End = core_board.End
end_of = core_board.end_of
end_message = core_board.end_message


def read_move(board: dama.Board, *, route: str = "", text: str = "") -> core_board.Entry:
    return core_board.read_entry(board, route=route, text=text)


def game_board(
    board: dama.Board,
    *,
    flipped: bool,
    path: Iterable[int] = (),
    marks: dict[int, str] | None = None,
) -> core_board.BoardView:
    """The board of a game in play: the server answers each click, quiet destinations shown."""
    return core_board.board_view(
        board, marks=marks, last_move=board.peek(), flipped=flipped, path=path, targets=True
    )


def position_board(board: dama.Board, *, flipped: bool) -> core_board.BoardView:
    """An earlier position of a game, to look at: its last move marked, nothing to click."""
    return core_board.board_view(board, last_move=board.peek(), flipped=flipped)


def illegal_marks(code: str, squares: Iterable[int]) -> dict[int, str]:
    return core_board.explanation_marks(code, squares)


def fen_of(board: dama.Board) -> str:
    return str(board.fen())


def pdn(
    variant: str, fen: str, routes: Iterable[Sequence[int]], tags: dict[str, str], result: str
) -> str:
    board = replay(variant, fen, routes)
    return str(dama.pdn.Game.from_board(board, tags, result=result or "*").pdn())
