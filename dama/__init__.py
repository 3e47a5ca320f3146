"""dama: a pure-Python rules engine for Czech, international and Brazilian draughts.

>>> import dama
>>> board = dama.Board("czech")
>>> [str(m) for m in board.legal_moves][:3]
['21-17', '22-17', '22-18']
"""

from __future__ import annotations

# first: decides whether the compiled engine or the pure-Python source is imported (dama._loader)
from ._loader import COMPILED, build_info
from .baseboard import BLACK, WHITE, Color, Move, MoveKey, Piece
from .board import Board
from .entry import Entry, EntryKind
from .errors import (
    AmbiguousMoveError,
    DamaError,
    IllegalMoveError,
    InvalidFenError,
    InvalidMoveError,
    InvalidPdnError,
    InvalidSquareError,
    InvalidVariantError,
)
from .geometry import Bitboard, Square
from .notation import example_moves, parse_square, square_name
from .variants import VARIANT_NAMES, VARIANTS, Variant, find_variant

#: the package; stored with every game analysis, so that a new search (0.2.0: the search on typed
#: data; 0.3.0: the trained evaluation in Czech) has the analyses made before it redone by the
#: beat (analysis.redo_stale)
__version__ = "0.3.0"
#: bumped whenever move generation or the solver changes results; stored with every proof
ENGINE_VERSION = "dama-0.1.0"

__all__ = [
    "BLACK",
    "COMPILED",
    "ENGINE_VERSION",
    "VARIANTS",
    "VARIANT_NAMES",
    "WHITE",
    "AmbiguousMoveError",
    "Bitboard",
    "Board",
    "Color",
    "DamaError",
    "Entry",
    "EntryKind",
    "IllegalMoveError",
    "InvalidFenError",
    "InvalidMoveError",
    "InvalidPdnError",
    "InvalidSquareError",
    "InvalidVariantError",
    "Move",
    "MoveKey",
    "Piece",
    "Square",
    "Variant",
    "build_info",
    "example_moves",
    "find_variant",
    "parse_square",
    "square_name",
]
