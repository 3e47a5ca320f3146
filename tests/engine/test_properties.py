"""Property tests of the engine (hypothesis): make/unmake, hashing, FEN, notation, error types.

Positions come from seeded random play from the start position and from random king-rich
placements. Each test keeps its example count small so the file runs in a few seconds; the
differential test against the independent reference generator below carries the Czech rules, which
have no outside oracle (RULES.md; issue 2 "How it is proven").
"""

from __future__ import annotations

import random
import unicodedata

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from dama import (
    AmbiguousMoveError,
    Board,
    IllegalMoveError,
    InvalidFenError,
    Move,
)

VARIANTS = ("czech", "international", "brazilian")
SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


def _size(variant: str) -> int:
    return 10 if variant == "international" else 8


# --------------------------------------------------------------------------------------------
# Strategies
# --------------------------------------------------------------------------------------------


@st.composite
def played_positions(draw: st.DrawFn, variants: tuple[str, ...] = VARIANTS) -> Board:
    """A board after a seeded random game from the start position (its move stack kept)."""
    variant = draw(st.sampled_from(variants))
    seed = draw(st.integers(0, 2**32 - 1))
    plies = draw(st.integers(0, 80))
    rng = random.Random(seed)
    b = Board(variant)
    for _ in range(plies):
        legal = b.legal_moves
        if not legal:
            break
        b.push(rng.choice(legal))
    return b


@st.composite
def placed_fens(draw: st.DrawFn, variants: tuple[str, ...] = VARIANTS) -> tuple[str, str]:
    """(variant, FEN) of a random placement rich in kings (men never on their crowning row)."""
    variant = draw(st.sampled_from(variants))
    size = _size(variant)
    n, half = size * size // 2, size // 2
    squares = draw(st.lists(st.integers(1, n), min_size=1, max_size=18, unique=True))
    sides: dict[bool, list[str]] = {True: [], False: []}
    for sq in squares:
        white = draw(st.booleans())
        crown_row = sq <= half if white else sq > n - half
        king = crown_row or draw(st.integers(0, 9)) < 5
        sides[white].append(("K" if king else "") + str(sq))
    turn = draw(st.sampled_from("WB"))
    return variant, f"{turn}:W{','.join(sides[True])}:B{','.join(sides[False])}"


@st.composite
def any_positions(draw: st.DrawFn, variants: tuple[str, ...] = VARIANTS) -> Board:
    if draw(st.booleans()):
        return draw(played_positions(variants))
    variant, fen = draw(placed_fens(variants))
    return Board(variant, fen)


def snapshot(b: Board) -> tuple[object, ...]:
    return (
        b.fen(),
        b.key(),
        b.zobrist_hash(),
        b.turn,
        b.repetitions(),
        b.quiet_plies,
        b.endgame_plies,
        b.ply,
        tuple(m.key() for m in b.move_stack),
        tuple(m.key() for m in b.legal_moves),
        b.outcome(),
    )


# --------------------------------------------------------------------------------------------
# make / unmake and hashing
# --------------------------------------------------------------------------------------------


@SETTINGS
@given(any_positions(), st.integers(0, 2**32 - 1))
def test_push_pop_restores_everything(board: Board, seed: int) -> None:
    """push then pop gives back the position, key, Zobrist hash, FEN, history and counters."""
    rng = random.Random(seed)
    before: list[tuple[object, ...]] = []
    pushed: list[Move] = []
    for _ in range(12):
        legal = board.legal_moves
        if not legal:
            break
        before.append(snapshot(board))
        m = rng.choice(legal)
        board.push(m)
        pushed.append(m)
        assert board.peek() == m
    while pushed:
        m = pushed.pop()
        assert board.pop() == m
        assert snapshot(board) == before.pop()


@SETTINGS
@given(any_positions())
def test_every_legal_move_push_pop(board: Board) -> None:
    """Each legal move in turn: push, check the mover changed, pop, everything is as before."""
    snap = snapshot(board)
    for m in board.legal_moves:
        mover = board.piece_at(m.start)
        assert mover is not None and mover.color == board.turn
        board.push(m)
        assert board.turn != snap[3]
        piece = board.piece_at(m.end)
        assert piece is not None and piece.color == mover.color
        assert piece.king == (mover.king or m.crowns)
        assert all(board.piece_at(c) is None for c in m.captured if c != m.end)
        assert m.start == m.end or board.piece_at(m.start) is None
        board.pop()
        assert snapshot(board) == snap


@SETTINGS
@given(any_positions())
def test_zobrist_and_key_agree_with_a_fresh_board(board: Board) -> None:
    """The hash and key depend on the position only, not on how it was reached."""
    fresh = Board(board.variant, board.fen())
    assert fresh.key() == board.key()
    assert fresh.zobrist_hash() == board.zobrist_hash()
    assert fresh == board and hash(fresh) == hash(board)
    # the side to move is part of both
    flipped = Board(board.variant, ("B" if board.turn else "W") + board.fen()[1:])
    assert flipped.key() != board.key()
    assert flipped.zobrist_hash() != board.zobrist_hash()


# --------------------------------------------------------------------------------------------
# FEN
# --------------------------------------------------------------------------------------------


@SETTINGS
@given(any_positions())
def test_fen_round_trip(board: Board) -> None:
    """parse(fen(b)) == b, numeric and (on 8x8) algebraic; fen(parse(fen)) is the same text."""
    fen = board.fen()
    again = Board(board.variant, fen)
    assert again == board
    assert again.fen() == fen
    if board.geo.size == 8:
        alg = board.fen(algebraic=True)
        assert Board(board.variant, alg) == board
        assert Board(board.variant, alg).fen() == fen


FEN_ALPHABET = list('WBKwbk0123456789:,-. "xX') + ["c3", "h8", "a1", "K", ":B", ":W", "50", "33"]


@st.composite
def mangled_fens(draw: st.DrawFn) -> str:
    """A valid FEN with random edits, or FEN-like junk, or any short text."""
    kind = draw(st.integers(0, 2))
    if kind == 0:
        _variant, fen = draw(placed_fens())
        chars = list(fen)
        for _ in range(draw(st.integers(1, 4))):
            op = draw(st.integers(0, 2))
            pos = draw(st.integers(0, len(chars)))
            tok = draw(st.sampled_from(FEN_ALPHABET))
            if op == 0:
                chars.insert(pos, tok)
            elif chars:
                del chars[min(pos, len(chars) - 1)]
                if op == 2:
                    chars.insert(pos, tok)
        return "".join(chars)
    if kind == 1:
        return "".join(draw(st.lists(st.sampled_from(FEN_ALPHABET), max_size=16)))
    # any text, without the "other numbers" (superscripts ...) of test_fen_superscript_digit
    return draw(st.text(st.characters(exclude_categories=["No", "Cs"]), max_size=20))


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.sampled_from(VARIANTS), mangled_fens())
def test_malformed_fen_raises_only_invalid_fen_error(variant: str, fen: str) -> None:
    """Any text either is a FEN or raises InvalidFenError with a message, never anything else."""
    try:
        b = Board(variant, fen)
    except InvalidFenError as e:
        assert str(e).strip()
    else:
        # accepted: it must then be a position that round-trips
        assert Board(variant, b.fen()) == b


@pytest.mark.parametrize("fen", ["W:W\u00b2", "W:W21:B\u2460", "W:W" + "9" * 5000])
def test_fen_superscript_digit_raises_invalid_fen_error(fen: str) -> None:
    """'²' and '①' pass str.isdigit() but are no numbers; int() of 5000 digits exceeds Python's limit.

    Such text must be refused as InvalidFenError, never a bare ValueError from int().
    """
    assert unicodedata.category(fen[-1]) in ("No", "Nd")
    with pytest.raises(InvalidFenError):
        Board("czech", fen)


# --------------------------------------------------------------------------------------------
# Notation
# --------------------------------------------------------------------------------------------


def _texts(board: Board, m: Move) -> list[str]:
    texts = [board.move_text(m), board.move_text(m, algebraic=False)]
    texts += [board.route_text(m, i, algebraic=False) for i in range(len(m.routes))]
    if board.geo.size == 8:
        texts.append(board.move_text(m, algebraic=True))
        texts += [board.route_text(m, i, algebraic=True) for i in range(len(m.routes))]
    return texts


def _shadowed(board: Board, m: Move, route: tuple[int, ...]) -> bool:
    """Another legal move with the same start and end whose route passes the same landings."""
    mid = list(route[1:-1])
    for other in board.legal_moves:
        if other == m or (other.start, other.end) != (m.start, m.end):
            continue
        for r in other.routes:
            it = iter(r[1:-1])
            if all(any(x == y for y in it) for x in mid):
                return True
    return False


@SETTINGS
@given(any_positions(("international", "brazilian")))
def test_move_texts_parse_back(board: Board) -> None:
    """The text of every legal move (short, numeric, algebraic, every route) parses to that move."""
    for m in board.legal_moves:
        for text in _texts(board, m):
            assert board.parse_move(text) == m, text


@SETTINGS
@given(any_positions(("czech",)))
def test_czech_move_texts_parse_back(board: Board) -> None:
    """As above for Czech, for routes no other move with the same start and end shadows."""
    for m in board.legal_moves:
        for i, route in enumerate(m.routes):
            if _shadowed(board, m, route):
                continue
            for alg in (False, True):
                assert board.parse_move(board.route_text(m, i, algebraic=alg)) == m
        if not any(_shadowed(board, m, r) for r in m.routes):
            assert board.parse_move(board.move_text(m)) == m
            assert board.parse_move(board.move_text(m, algebraic=True)) == m


@settings(max_examples=30, deadline=None, derandomize=True)
@given(any_positions(("czech",)))
@example(Board("czech", "W:WK19:B6,22,23,14"))
def test_czech_move_texts_parse_back_all(board: Board) -> None:
    """Czech (no majority rule): every legal move's texts parse back, including 19x1 here."""
    for m in board.legal_moves:
        for text in _texts(board, m):
            assert board.parse_move(text) == m, text


@settings(max_examples=40, deadline=None, derandomize=True)
@given(any_positions(), st.data())
def test_illegal_start_end_raises_illegal_move_error(board: Board, data: st.DataObject) -> None:
    """Every well-formed start/end that no legal move has raises IllegalMoveError, nothing else."""
    n = board.geo.squares
    pairs = {(m.start, m.end) for m in board.legal_moves}
    starts = data.draw(st.lists(st.integers(1, n), min_size=1, max_size=4, unique=True))
    for s in starts:
        for e in range(1, n + 1):
            if (s, e) in pairs:
                continue
            for sep in ("-", "x"):
                with pytest.raises(IllegalMoveError) as info:
                    board.parse_move(f"{s}{sep}{e}")
                assert str(info.value)
                assert not isinstance(info.value, AmbiguousMoveError)


# --------------------------------------------------------------------------------------------
# Move generation: public generator, fast core and an independent reference
# --------------------------------------------------------------------------------------------


@SETTINGS
@given(any_positions())
def test_perft_core_agrees_with_the_public_generator(board: Board) -> None:
    """perft (the fast core) counts exactly the distinct moves of generate_legal_moves, 2 plies."""
    legal = board.legal_moves
    assert board.perft(1) == len(legal) == len({m.key() for m in legal})
    total = 0
    for m in legal:
        board.push(m)
        total += len(board.legal_moves)
        board.pop()
    assert board.perft(2) == total


def _coords(n: int, size: int) -> tuple[int, int]:
    r, i = divmod(n - 1, size // 2)
    return r, (2 * i + 1 if r % 2 == 0 else 2 * i)


def _number(r: int, c: int, size: int) -> int | None:
    if not (0 <= r < size and 0 <= c < size) or (r + c) % 2 == 0:
        return None
    return r * (size // 2) + c // 2 + 1


_DIRS = ((-1, -1), (-1, 1), (1, -1), (1, 1))


def reference_moves(board: Board) -> dict[tuple[int, int, frozenset[int]], set[tuple[int, ...]]]:
    """Legal moves by a slow, separate reading of RULES.md: {(start, end, captured): routes}."""
    variant = board.variant.name
    size = board.geo.size
    turn = board.turn
    pieces = {s: p for s in range(1, board.geo.squares + 1) if (p := board.piece_at(s))}
    own = {s for s, p in pieces.items() if p.color == turn}
    opp = {s for s, p in pieces.items() if p.color != turn}
    fwd = -1 if turn else 1
    found: list[tuple[int, tuple[int, ...], tuple[int, ...], bool]] = []

    for s in own:
        occupied = (own | opp) - {s}

        def jumps(
            r: int, c: int, caps: tuple[int, ...], king: bool, occupied: set[int] = occupied
        ) -> list[tuple[int, int, int]]:
            """(victim, landing row, landing col) of every single jump from (r, c)."""
            out = []
            for dr, dc in _DIRS:
                if not king:
                    if variant == "czech" and dr != fwd:
                        continue
                    victim = _number(r + dr, c + dc, size)
                    land = _number(r + 2 * dr, c + 2 * dc, size)
                    if victim in opp and victim not in caps and land and land not in occupied:
                        out.append((victim, r + 2 * dr, c + 2 * dc))
                    continue
                k = 1
                while (v := _number(r + k * dr, c + k * dc, size)) and v not in occupied:
                    k += 1
                if v not in opp or v in caps:
                    continue
                k += 1
                while (t := _number(r + k * dr, c + k * dc, size)) and t not in occupied:
                    out.append((v, r + k * dr, c + k * dc))
                    k += 1
            return out

        def search(
            r: int, c: int, route: tuple[int, ...], caps: tuple[int, ...], king: bool, s: int = s
        ) -> None:
            options = jumps(r, c, caps, king)
            if king:
                # forced landing: behind each victim keep the landings that can go on, if any
                keep = []
                for v in {o[0] for o in options}:
                    behind = [o for o in options if o[0] == v]
                    cont = [o for o in behind if jumps(o[1], o[2], (*caps, v), True)]
                    keep += cont or behind
                options = keep
            if not options and caps:
                found.append((s, route, caps, king))
            for v, lr, lc in options:
                n = _number(lr, lc, size)
                assert n is not None
                search(lr, lc, (*route, n), (*caps, v), king)

        r0, c0 = _coords(s, size)
        search(r0, c0, (s,), (), pieces[s].king)

    out: dict[tuple[int, int, frozenset[int]], set[tuple[int, ...]]] = {}
    if found:
        if variant == "czech" and any(f[3] for f in found):
            found = [f for f in found if f[3]]
        if variant != "czech":
            most = max(len(f[2]) for f in found)
            found = [f for f in found if len(f[2]) == most]
        for s, route, caps, _king in found:
            out.setdefault((s, route[-1], frozenset(caps)), set()).add(route)
        return out
    for s in own:
        r, c = _coords(s, size)
        for dr, dc in _DIRS:
            if not pieces[s].king and dr != fwd:
                continue
            k = 1
            while (t := _number(r + k * dr, c + k * dc, size)) and t not in pieces:
                out[(s, t, frozenset())] = {(s, t)}
                if not pieces[s].king:
                    break
                k += 1
    return out


@settings(max_examples=300, deadline=None, derandomize=True)
@given(any_positions())
def test_legal_moves_agree_with_the_reference_generator(board: Board) -> None:
    """Moves, captured sets and every route agree with reference_moves (all variants; for Czech
    this is the only second opinion on king priority, forced landing and the free choice)."""
    engine = {m.key(): set(m.routes) for m in board.legal_moves}
    assert engine == reference_moves(board)
    far_row = board.geo.squares_of(board.geo.white_crown if board.turn else board.geo.black_crown)
    for m in board.legal_moves:
        mover = board.piece_at(m.start)
        assert mover is not None
        assert m.crowns == (not mover.king and m.end in far_row)
        assert m.captured == m.route_captures[0]
        assert m.path == m.routes[0][1:]
