"""Shared helpers for the engine tests: seeded random positions and the py-draughts oracle.

Positions come from two seeded sources, both deterministic for a given seed:

* :func:`random_placement_fen`: men and kings dropped at random on the board (no man on its own
  crowning row, at least one piece per side, kings likely), in densities from a near-empty board
  (long king flights) to a crowded one (long capture chains);
* :func:`random_play_fens`: positions met along random games from the start position, kept with a
  strong preference for those with kings on the board.

:func:`king_rich_fens` mixes the two. py-draughts (GPL, a test-only dependency) is reached only
through :func:`load_draughts`, :func:`their_board` and :func:`their_move_keys`; it is used, never
copied. On 8x8 it is given algebraic FENs and its squares are read back through their names,
because its numeric 8x8 numbering is not ours.

The fixture ``engine_helpers`` gives test functions this module (import-mode independent); the
fixtures ``draughts_module`` (the imported py-draughts, skipping when it is missing unless
``DAMA_REQUIRE_SERVICES=1``) and ``diff_positions`` (how many positions the differential tests use,
``DAMA_DIFF_POSITIONS``) wrap these for test functions.
"""

from __future__ import annotations

import importlib
import os
import random
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from dama import Board
from dama.geometry import Geometry, geometry
from dama.variants import Variant, find_variant

#: variants that py-draughts also implements, with its board class names
ORACLE_CLASSES = {"international": "StandardBoard", "brazilian": "BrazilianBoard"}
ALL_VARIANTS = ("czech", "international", "brazilian")

#: a move compared across engines: (start, end, captured set), our square numbers
MoveKey = tuple[int, int, frozenset[int]]


# -- random positions ---------------------------------------------------------------------------
def random_placement_fen(
    rng: random.Random,
    variant: str | Variant,
    *,
    king_share: float | None = None,
    max_per_side: int | None = None,
) -> str:
    """A random position of ``variant`` as a numeric FEN.

    Each side gets 1..``max_per_side`` pieces (default: a bound drawn per position from 2 up to the
    variant's men per side); each piece is a
    king with probability ``king_share`` (default: drawn from 0.25-1.0 per position, so most
    positions hold several kings). Men never stand on their own crowning row. The side to move is
    random.
    """
    v = find_variant(variant)
    g = geometry(v.size)
    if max_per_side is not None:
        top = max_per_side
    else:  # sparse boards (long king flights) as often as crowded ones (long capture chains)
        top = rng.choice((2, 4, 6, v.men_per_side // 2, v.men_per_side))
    share = king_share if king_share is not None else rng.choice((0.25, 0.4, 0.5, 0.65, 0.8, 1.0))
    squares = list(range(1, g.squares + 1))
    rng.shuffle(squares)
    n_white = rng.randint(1, top)
    n_black = rng.randint(1, top)
    white_crown = set(range(1, g.half + 1))
    black_crown = set(range(g.squares - g.half + 1, g.squares + 1))
    fields: dict[str, list[str]] = {"W": [], "B": []}
    it = iter(squares)
    for side, count, crown in (("W", n_white, white_crown), ("B", n_black, black_crown)):
        for _ in range(count):
            sq = next(it)
            king = sq in crown or rng.random() < share
            fields[side].append(f"K{sq}" if king else str(sq))
    turn = rng.choice("WB")
    return f"{turn}:W{','.join(fields['W'])}:B{','.join(fields['B'])}"


def random_play_fens(
    rng: random.Random, variant: str | Variant, count: int, *, max_plies: int = 250
) -> list[str]:
    """``count`` positions met along seeded random games from the start position.

    A position with a king on the board is always kept; one without is kept one time in twenty, so
    the list is rich in kings but still holds some middle-game positions of men only.
    """
    out: list[str] = []
    while len(out) < count:
        board = Board(variant)
        for _ in range(max_plies):
            moves = board.generate_legal_moves()
            if not moves:
                break
            board.push(rng.choice(moves))
            if not (board.white and board.black):
                break  # the game is over: a side has no piece left
            if board.kings or rng.random() < 0.05:
                out.append(board.fen())
                if len(out) >= count:
                    break
    return out


def king_rich_fens(seed: int, variant: str | Variant, count: int) -> list[str]:
    """``count`` FENs: half random placements, half positions from random play (seeded)."""
    rng = random.Random(f"{seed}:{find_variant(variant).name}")
    n_play = count // 2
    fens = [random_placement_fen(rng, variant) for _ in range(count - n_play)]
    fens.extend(random_play_fens(rng, variant, n_play))
    return fens


def env_count(name: str, default: int) -> int:
    """An integer from the environment (``default`` when unset); a bad value is an error."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError as e:
        raise pytest.UsageError(f"{name} must be a whole number, not {raw!r}") from e
    if value < 1:
        raise pytest.UsageError(f"{name} must be at least 1, not {value}")
    return value


# -- our moves ------------------------------------------------------------------------------------
def our_move_keys(board: Board) -> set[MoveKey]:
    return {m.key() for m in board.generate_legal_moves()}


def core_move_keys(board: Board) -> list[MoveKey]:
    """The fast core's moves of ``board`` as (start, end, captured set), duplicates kept."""
    from dama._core import core

    g = board.geo
    sq = g.square_of
    out: list[MoveKey] = []
    for frm, to, cap in core(board.variant).moves(
        board.white, board.black, board.kings, board.turn
    ):
        out.append(
            (sq[frm.bit_length() - 1], sq[to.bit_length() - 1], frozenset(g.squares_of(cap)))
        )
    return out


def describe_key(key: MoveKey) -> str:
    start, end, caps = key
    if not caps:
        return f"{start}-{end}"
    return f"{start}x{end} (takes {','.join(str(c) for c in sorted(caps))})"


# -- py-draughts ----------------------------------------------------------------------------------
def load_draughts() -> ModuleType | None:
    """py-draughts, or None when it is not installed."""
    try:
        return importlib.import_module("draughts")
    except ImportError:
        return None


def require_draughts() -> ModuleType:
    """py-draughts, or skip (fail when ``DAMA_REQUIRE_SERVICES=1``) when it is not installed."""
    mod = load_draughts()
    if mod is None:
        msg = "py-draughts 1.10.1 (the differential oracle, a dev dependency) is not installed"
        if os.environ.get("DAMA_REQUIRE_SERVICES") == "1":
            pytest.fail(msg + " and DAMA_REQUIRE_SERVICES=1")
        pytest.skip(msg)
    return mod


def their_board(draughts: ModuleType, variant: str, fen: str) -> Any:
    """A py-draughts board of our ``fen`` (algebraic squares on 8x8)."""
    cls = getattr(draughts, ORACLE_CLASSES[variant])
    ours = Board(variant, fen)
    text = ours.fen(algebraic=ours.geo.size == 8)
    return cls.from_fen(text)


def their_square_map(draughts: ModuleType, variant: str) -> list[int]:
    """py-draughts 0-based square index -> our square number."""
    cls = getattr(draughts, ORACLE_CLASSES[variant])
    g: Geometry = geometry(find_variant(variant).size)
    names = list(cls.SQUARE_NAMES)
    if names:
        out = []
        for name in names:
            sq = g.parse(name)
            assert sq is not None, f"py-draughts square name {name!r} unknown"
            out.append(sq)
        return out
    return list(range(1, g.squares + 1))


def their_moves(
    board: Any, squares: list[int]
) -> list[tuple[MoveKey, tuple[int, ...], tuple[int, ...]]]:
    """Each py-draughts legal move as (key, route squares, captured squares in order), our numbers."""
    out = []
    for m in board.legal_moves:
        route = tuple(squares[s] for s in m.square_list)
        caps = tuple(squares[s] for s in m.captured_list)
        out.append(((route[0], route[-1], frozenset(caps)), route, caps))
    return out


def their_move_keys(board: Any, squares: list[int]) -> set[MoveKey]:
    return {k for k, _r, _c in their_moves(board, squares)}


def their_api_perft(board: Any, depth: int) -> int:
    """Perft through py-draughts' public API: legal_moves, push, pop (bulk count at the last ply)."""
    moves = board.legal_moves
    if depth <= 1:
        return len(moves) if depth == 1 else 1
    total = 0
    for m in moves:
        board.push(m)
        total += their_api_perft(board, depth - 1)
        board.pop()
    return total


def our_api_perft(board: Board, depth: int) -> int:
    """Perft through our public API: legal_moves, push, pop (bulk count at the last ply)."""
    moves = board.legal_moves
    if depth <= 1:
        return len(moves) if depth == 1 else 1
    total = 0
    for m in moves:
        board.push(m)
        total += our_api_perft(board, depth - 1)
        board.pop()
    return total


def chunks(items: list[str], size: int) -> Iterator[list[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


# -- fixtures -------------------------------------------------------------------------------------
#: this module, kept at import time: pytest may later drop ``conftest`` from sys.modules
_HELPERS = sys.modules[__name__]


@pytest.fixture(scope="session")
def engine_helpers() -> ModuleType:
    """This module: tests reach the helpers above as ``engine_helpers.random_placement_fen`` etc."""
    return _HELPERS


@pytest.fixture
def draughts_module() -> ModuleType:
    """py-draughts (skips when missing, fails instead when ``DAMA_REQUIRE_SERVICES=1``)."""
    return require_draughts()


@pytest.fixture(scope="session")
def diff_positions() -> int:
    """Positions per variant for the differential tests (``DAMA_DIFF_POSITIONS``, default 2000)."""
    return env_count("DAMA_DIFF_POSITIONS", 2000)
