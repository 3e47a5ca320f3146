"""Perft: count the leaf nodes of the move tree (equivalent capture routes counted once).

>>> from dama import Board
>>> Board("czech").perft(3)
302
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._core import core

if TYPE_CHECKING:
    from .baseboard import BaseBoard, Move


def perft(board: BaseBoard, depth: int) -> int:
    """Leaf nodes ``depth`` plies below ``board``."""
    c = core(board.variant)
    return c.perft(board.white, board.black, board.kings, board.turn, depth)


def divide(board: BaseBoard, depth: int) -> list[tuple[Move, int]]:
    """(move, leaf nodes below it) for every legal move, ``depth`` >= 1."""
    out = []
    for m in board.generate_legal_moves():
        board.push(m)
        try:
            out.append((m, perft(board, depth - 1)))
        finally:
            board.pop()
    return out
