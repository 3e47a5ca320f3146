"""Differential tests: our legal moves against py-draughts 1.10.1, and the moves of the public API
against the move generator they come from.

Issue 2, "How it is proven": on thousands of random positions rich in kings the set of distinct moves
(start, end, captured set) must agree exactly with py-draughts for international and Brazilian
draughts. py-draughts is GPL and a test-only dependency: it is called, never copied. The public
API (``Board.generate_legal_moves``) takes its moves from the one generator (``dama._core``) that
perft and the solver use and traces their routes: no move may be lost or doubled on the way.
Czech has no oracle: its rules are checked by perft and by the reference generator of
``test_properties.py``.

Positions are seeded and deterministic; ``DAMA_DIFF_POSITIONS`` (default 2000 per variant) raises
the count.
"""

from __future__ import annotations

import importlib
import random
from types import ModuleType
from typing import Any

import pytest

from dama import Board
from dama._core import core
from dama.perft import perft

SEED = 20061001
MAX_REPORTED = 8


def _report(title: str, failures: list[str], total: int) -> str:
    shown = "\n".join(failures[:MAX_REPORTED])
    more = f"\n... and {len(failures) - MAX_REPORTED} more" if len(failures) > MAX_REPORTED else ""
    return f"{title}: {len(failures)} of {total} positions disagree\n{shown}{more}"


def _diff_text(h: ModuleType, fen: str, ours: set[Any], theirs: set[Any]) -> str:
    only_ours = ", ".join(sorted(h.describe_key(k) for k in ours - theirs)) or "-"
    only_theirs = ", ".join(sorted(h.describe_key(k) for k in theirs - ours)) or "-"
    return f"  {fen}\n    only dama: {only_ours}\n    only py-draughts: {only_theirs}"


# -- the position generator itself --------------------------------------------------------------
@pytest.mark.parametrize("variant", ["czech", "international", "brazilian"])
def test_random_positions_are_valid_rich_in_kings_and_deterministic(
    engine_helpers: ModuleType, variant: str
) -> None:
    """The generator keeps its promises, so the differential tests below test what they claim."""
    h = engine_helpers
    fens = h.king_rich_fens(SEED, variant, 400)
    assert fens == h.king_rich_fens(SEED, variant, 400), "same seed, different positions"
    assert fens != h.king_rich_fens(SEED + 1, variant, 400)
    with_kings = with_captures = with_multi = with_king_captures = 0
    for fen in fens:
        b = Board(variant, fen)  # parsing rejects a man on its own crowning row
        assert b.white and b.black, f"a side has no piece: {fen}"
        g = b.geo
        assert not (b.white & ~b.kings & g.white_crown), fen
        assert not (b.black & ~b.kings & g.black_crown), fen
        moves = b.generate_legal_moves()
        with_kings += bool(b.kings)
        if moves and moves[0].captured:
            with_captures += 1
            with_multi += any(len(m.captured) > 1 for m in moves)
            with_king_captures += any(b.kings & (1 << g.bit_of[m.start]) for m in moves)
    assert with_kings >= 0.8 * len(fens)
    assert with_captures >= 0.25 * len(fens)
    assert with_multi >= 0.05 * len(fens)
    assert with_king_captures >= 0.1 * len(fens)


# -- against py-draughts -------------------------------------------------------------------------
def test_start_positions_agree_with_py_draughts(
    engine_helpers: ModuleType, draughts_module: ModuleType
) -> None:
    h = engine_helpers
    for variant in ("international", "brazilian"):
        board = Board(variant)
        squares = h.their_square_map(draughts_module, variant)
        theirs = getattr(draughts_module, h.ORACLE_CLASSES[variant])()
        assert h.their_move_keys(theirs, squares) == h.our_move_keys(board)
        assert len(board.legal_moves) == (9 if variant == "international" else 7)


@pytest.mark.parametrize("variant", ["international", "brazilian"])
@pytest.mark.parametrize("source", ["placement", "play"])
def test_legal_moves_agree_with_py_draughts(
    engine_helpers: ModuleType,
    draughts_module: ModuleType,
    diff_positions: int,
    variant: str,
    source: str,
) -> None:
    """Same set of (start, end, captured set) on every position, and py-draughts' route is one of ours."""
    h = engine_helpers
    rng = random.Random(f"{SEED}:{variant}:{source}")
    count = diff_positions // 2 if source == "play" else diff_positions - diff_positions // 2
    if source == "placement":
        fens = [h.random_placement_fen(rng, variant) for _ in range(count)]
    else:
        fens = h.random_play_fens(rng, variant, count)
    squares = h.their_square_map(draughts_module, variant)
    failures: list[str] = []
    route_failures: list[str] = []
    captures_seen = 0
    for fen in fens:
        ours_board = Board(variant, fen)
        our_moves = ours_board.generate_legal_moves()
        ours = {m.key() for m in our_moves}
        assert len(ours) == len(our_moves), f"dama lists a move twice: {fen}"
        their_list = h.their_moves(h.their_board(draughts_module, variant, fen), squares)
        theirs = {k for k, _r, _c in their_list}
        if ours != theirs:
            failures.append(_diff_text(h, fen, ours, theirs))
            continue
        captures_seen += bool(our_moves and our_moves[0].captured)
        by_key = {m.key(): m for m in our_moves}
        for key, route, caps in their_list:
            m = by_key[key]
            if route not in m.routes:
                route_failures.append(
                    f"  {fen}: py-draughts route {'x'.join(map(str, route))} not among {m.routes}"
                )
            elif m.route_captures[m.routes.index(route)] != caps:
                route_failures.append(
                    f"  {fen}: route {route} captures {caps} here, {m.route_captures} in dama"
                )
    assert not failures, _report(f"{variant} ({source}) move sets", failures, len(fens))
    assert not route_failures, _report(f"{variant} ({source}) routes", route_failures, len(fens))
    assert captures_seen >= len(fens) // 5, (
        "too few capture positions: the comparison proves little"
    )


# A few king-rich positions: perft counted by both engines (py-draughts' numbers are computed here,
# not copied). "random178" is an international test position from dctl's perft tests.
PERFT_POSITIONS = [
    ("international", "B:BK17,K24:W6,9,10,11,20,21,22,23,30,K31,33,37,41,42,43,44,46", 4),
    ("international", "W:WK47,K3,28,33,36,38:BK10,K45,12,16,19,24", 4),
    ("international", "W:WK1,K46,K50,31,32:BK5,K26,K25,18,19,20", 3),
    ("brazilian", "W:WKa1,Kh2,c3,e3:BKh8,Kb6,d6,f6", 5),
    ("brazilian", "B:WKd4,Kf2,b2,g3:BKc7,Ke7,a5,h6,d8", 5),
    ("brazilian", "W:WKc1,Kg1,e3,a3:BKb8,Kf8,c5,e5,g5", 5),
]


@pytest.mark.parametrize(("variant", "fen", "depth"), PERFT_POSITIONS)
def test_perft_of_king_rich_positions_agrees_with_py_draughts(
    engine_helpers: ModuleType, draughts_module: ModuleType, variant: str, fen: str, depth: int
) -> None:
    h = engine_helpers
    board = Board(variant, fen)
    theirs_board = h.their_board(draughts_module, variant, fen)
    for d in range(1, depth + 1):
        expected = h.their_api_perft(theirs_board, d)
        if variant == "international":
            turbo = importlib.import_module("draughts.engines.turbo")
            assert turbo.perft_from_board(theirs_board, d) == expected, (
                "py-draughts disagrees with itself"
            )
        assert perft(board, d) == expected, f"perft({d}) of {fen}"
    assert h.our_api_perft(board, depth) == expected
    assert board.fen() == Board(variant, fen).fen(), (
        "the public-API perft did not restore the board"
    )


# -- the generator and the public API ----------------------------------------------------------------
@pytest.mark.parametrize("variant", ["czech", "international", "brazilian"])
def test_every_move_of_the_generator_reaches_the_public_api_once(
    engine_helpers: ModuleType, diff_positions: int, variant: str
) -> None:
    """Board.generate_legal_moves has exactly the generator's moves, each once, each with a route."""
    h = engine_helpers
    fens = h.king_rich_fens(SEED + 7, variant, diff_positions)
    failures: list[str] = []
    for fen in fens:
        b = Board(variant, fen)
        raw = h.core_move_keys(b)
        if len(raw) != len(set(raw)):
            failures.append(f"  {fen}\n    the fast core lists a move twice")
            continue
        ours, fast = h.our_move_keys(b), set(raw)
        if ours != fast:
            only_b = ", ".join(sorted(h.describe_key(k) for k in ours - fast)) or "-"
            only_c = ", ".join(sorted(h.describe_key(k) for k in fast - ours)) or "-"
            failures.append(f"  {fen}\n    only Board: {only_b}\n    only core: {only_c}")
    assert not failures, _report(f"{variant}: Board vs fast core", failures, len(fens))


@pytest.mark.parametrize("variant", ["czech", "international", "brazilian"])
def test_push_and_core_make_give_the_same_position_and_pop_restores(
    engine_helpers: ModuleType, variant: str
) -> None:
    h = engine_helpers
    fens = h.king_rich_fens(SEED + 11, variant, 300)
    c = core(Board(variant).variant)
    g = Board(variant).geo
    checked = 0
    for fen in fens:
        b = Board(variant, fen)
        before = (b.white, b.black, b.kings, b.turn, b.zobrist_hash())
        for m in b.generate_legal_moves():
            raw = (1 << g.bit_of[m.start], 1 << g.bit_of[m.end], g.bb(m.captured))
            expected = c.make(b.white, b.black, b.kings, b.turn, raw)
            b.push(m)
            assert (b.white, b.black, b.kings) == expected, f"{fen}: {m.route_str()}"
            assert b.turn != before[3]
            assert b.pop() == m
            assert (b.white, b.black, b.kings, b.turn, b.zobrist_hash()) == before, fen
            checked += 1
    assert checked > 1000
