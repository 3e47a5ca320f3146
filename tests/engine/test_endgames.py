"""The endgame databases (dama.endgames, dama.egtb): built for small material into a temporary
directory and checked against an independent brute-force analysis, the solver, their own rules
(every value is the best over its successors) and the colour flip."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import pytest

from dama import Board
from dama._core import core
from dama.egtb import material_name, parse_material
from dama.endgames import Probe, Tables, build, closure, default_tables, fits_count, materials
from dama.geometry import geometry
from dama.solve import Limits, shortest
from dama.variants import find_variant

Pos = tuple[int, int, int, bool]


def _positions(variant: str, mats: list[tuple[int, int, int, int]]) -> list[Pos]:
    """Every position of the materials (both sides to move), from square numbers."""
    g = geometry(find_variant(variant).size)
    n, half = g.squares, g.half
    out = []
    for wk, wm, bk, bm in mats:
        for wms in itertools.combinations(range(half + 1, n + 1), wm):
            for bms in itertools.combinations(range(1, n - half + 1), bm):
                if set(wms) & set(bms):
                    continue
                free = [s for s in range(1, n + 1) if s not in wms and s not in bms]
                for wks in itertools.combinations(free, wk):
                    rest = [s for s in free if s not in wks]
                    for bks in itertools.combinations(rest, bk):
                        white = g.bb(wks + wms)
                        black = g.bb(bks + bms)
                        kings = g.bb(wks + bks)
                        out.append((white, black, kings, True))
                        out.append((white, black, kings, False))
    return out


def _brute_force(variant: str, mats: list[tuple[int, int, int, int]]) -> dict[Pos, int]:
    """Distance to the end (plies; odd: the side to move wins, even: it loses), no entry for a
    draw, by forward passes: in pass k a position is decided when its value is k plies."""
    c = core(find_variant(variant))
    succ: dict[Pos, list[Pos]] = {}
    for pos in _positions(variant, mats):
        white, black, kings, turn = pos
        succ[pos] = [(*c.make(*pos, m), not turn) for m in c.moves(*pos)]
    value: dict[Pos, int] = {}
    for pos, nxt in succ.items():
        if not nxt:
            value[pos] = 0
    k = 0
    while True:
        k += 1
        new = {}
        for pos, nxt in succ.items():
            if pos in value:
                continue
            vals = [0 if not (s[0] if s[3] else s[1]) else value.get(s) for s in nxt]
            if k & 1:
                if any(v is not None and not v & 1 and v + 1 == k for v in vals):
                    new[pos] = k
            elif all(v is not None and v & 1 for v in vals) and max(vals) + 1 == k:  # type: ignore[type-var]
                new[pos] = k
        if not new and k > 2 + max(value.values(), default=0):
            return value
        value.update(new)


@pytest.fixture(scope="module")
def czech3(tmp_path_factory: pytest.TempPathFactory) -> Tables:
    d = tmp_path_factory.mktemp("eg")
    build("czech", 3, d)
    return Tables.open(d)


def _board(variant: str, pos: Pos) -> Board:
    b = Board(variant)
    b.white, b.black, b.kings, b.turn = pos
    b.clear_stack()
    return b


@pytest.mark.parametrize(
    ("variant", "name"),
    [
        ("czech", "MvM"),
        ("international", "KvM"),
        ("brazilian", "MvK"),
        pytest.param("czech", "KMvK", marks=pytest.mark.slow),
        pytest.param("brazilian", "KvKM", marks=pytest.mark.slow),
        pytest.param("czech", "MMvM", marks=pytest.mark.slow),
    ],
)
def test_build_agrees_with_brute_force(variant: str, name: str, tmp_path: Path) -> None:
    """Every position of a material and of all it reaches, both sides to move, has the value a
    forward brute-force analysis finds (win, draw or loss and the distance in plies)."""
    mats = closure(parse_material(name))
    all_mats = sorted({m for x in mats for m in (x, (x[2], x[3], x[0], x[1]))})
    t = Tables.open(tmp_path)
    built = t.ensure(variant, name)
    assert material_name(*parse_material(name)) in built or name in built
    truth = _brute_force(variant, all_mats)
    for pos in _positions(variant, all_mats):
        p = t.probe(_board(variant, pos))
        assert p is not None
        v = truth.get(pos)
        if v is None:
            assert p == Probe("draw", 0), pos
        else:
            assert p == Probe("win" if v & 1 else "loss", v), pos


def test_every_value_is_the_best_over_its_successors(czech3: Tables) -> None:
    """Retro-consistency: a win is one ply more than the fastest losing successor, a loss one
    more than the slowest winning one, a draw has a drawn successor and none lost."""
    rng = random.Random(5)
    mats = [m for m in materials(3)]
    positions = _positions("czech", mats)
    for pos in rng.sample(positions, 1500):
        b = _board("czech", pos)
        p = czech3.probe(b)
        assert p is not None
        after = [czech3.after(b, m) for m in b.legal_moves]
        assert all(a is not None for a in after)
        if not after:
            assert p == Probe("loss", 0)
            continue
        best = min(after, key=lambda a: a.order())  # type: ignore[union-attr]
        assert p == best


def test_black_to_move_is_the_colour_flip(czech3: Tables) -> None:
    """A position with Black to move has the value of the same position turned half round with
    the colours swapped and White to move."""
    g = geometry(8)
    rng = random.Random(7)
    positions = [p for p in _positions("czech", materials(3)) if not p[3]]
    for pos in rng.sample(positions, 500):
        b = _board("czech", pos)
        flipped = Board("czech")
        flipped.clear()
        for sq in range(1, 33):
            piece = b.piece_at(sq)
            if piece is not None:
                flipped.set_piece_at(33 - sq, type(piece)(not piece.color, piece.king))
        assert flipped.turn
        assert czech3.probe(b) == czech3.probe(flipped)
    del g


def test_solver_finds_the_same_wins(czech3: Tables) -> None:
    """The solver's shortest forced win has as many moves as the database's distance, and finds
    none in drawn or lost positions."""
    rng = random.Random(11)
    positions = _positions("czech", materials(3))
    for pos in rng.sample(positions, 40):
        b = _board("czech", pos)
        p = czech3.probe(b)
        assert p is not None
        found = shortest(b, "win", Limits(moves=6, nodes=200_000))
        if p.result == "win" and p.moves <= 6:
            assert found == p.moves, b.fen()
        elif found is not None:
            assert found == 0 or p.result == "win" and p.moves > 6, b.fen()


def test_best_moves_keep_the_result(czech3: Tables) -> None:
    b = Board("czech", "W:WK28:B4,8")
    p = czech3.probe(b)
    assert p is not None and p.result == "win"
    best = czech3.best_moves(b)
    assert czech3.after(b, best[0]) == p
    assert all(czech3.after(b, m).result == "win" for m in best)  # type: ignore[union-attr]
    worse = [m for m in b.legal_moves if m not in czech3.best_moves(b)]
    assert worse and all(czech3.after(b, m).result != "win" for m in worse)  # type: ignore[union-attr]


def test_without_files_nothing_is_covered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DAMA_ENDGAMES", raising=False)
    assert default_tables().probe(Board("czech", "W:WK1:BK32")) is None
    monkeypatch.setenv("DAMA_ENDGAMES", str(tmp_path))
    assert default_tables().probe(Board("czech", "W:WK1:BK32")) is None


def test_fits_count_compares_the_distance_with_the_count() -> None:
    b = Board("czech", "W:WK1,K2:BK32")
    assert fits_count(b, Probe("win", 9)) is True
    assert fits_count(b, Probe("win", 11)) is False
    assert fits_count(b, Probe("draw", 0)) is None
    assert fits_count(Board("brazilian", "W:WK1,K2:BK32"), Probe("win", 9)) is None


def test_search_plays_the_databases_move_and_scores_their_distance(czech3: Tables) -> None:
    """In a covered position the search's move keeps the win at its distance and its score is
    the mate at that distance; in a drawn one it scores 0 (a correct draw claim)."""
    from dama.search import MATE, search

    b = Board("czech", "W:WK28:B4,8")
    p = czech3.probe(b)
    assert p is not None and p.result == "win"
    r = search(b, depth=2, endgames=czech3)
    assert czech3.after(b, r.move) == p
    assert r.score == MATE - p.plies
    assert len(r.pv) == p.plies
    drawn = Board("czech", "W:WK1:BK32")
    assert czech3.probe(drawn) == Probe("draw", 0)
    assert search(drawn, depth=4, endgames=czech3).score == 0


def test_search_never_lets_a_covered_win_slip(czech3: Tables) -> None:
    """From random won positions, the search with the databases (even at one ply) always plays
    a move that keeps the win."""
    from dama.search import search

    rng = random.Random(3)
    won = 0
    for pos in rng.sample(_positions("czech", materials(3)), 400):
        b = _board("czech", pos)
        p = czech3.probe(b)
        if p is None or p.result != "win":
            continue
        won += 1
        r = search(b, depth=1, endgames=czech3)
        after = czech3.after(b, r.move)
        assert after is not None and after.result == "win", b.fen()
    assert won > 50


def test_search_scores_a_capture_into_covered_material_by_the_databases(
    czech3: Tables,
) -> None:
    """Four pieces (not covered by a 3-piece build) where White must capture into covered
    material that is won: the search with the databases sees the win to its end at one ply,
    without them it does not."""
    from dama.search import MATE, MATE_BOUND, search

    rng = random.Random(1)
    g = geometry(8)
    tried = 0
    while True:
        tried += 1
        assert tried < 20_000, "no such position found"
        squares = rng.sample(range(1, 33), 4)
        if squares[1] <= 4 or squares[3] >= 29:
            continue  # a man on its crowning row
        b = Board("czech")
        b.clear()
        b.white = g.bb(squares[:2])
        b.black = g.bb(squares[2:])
        b.kings = g.bb(squares[:1])
        b.clear_stack()
        moves = b.legal_moves
        if not moves or not moves[0].captured or czech3.probe(b) is not None:
            continue
        ranked = czech3.rank_moves(b)
        if ranked and ranked[0][1].result == "win" and ranked[0][1].plies > 3:
            break
    best = ranked[0][1]
    r = search(b, depth=1, endgames=czech3)
    assert r.score == MATE - best.plies
    assert czech3.after(b, r.move) == best
    assert search(b, depth=1, endgames=Tables(None)).score < MATE_BOUND


def test_solver_proofs_end_at_the_databases(
    czech3: Tables, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the databases the solver proves the same win in far fewer nodes."""
    from dama.solve import solve

    b = Board("czech", "W:WK28:B4,8")
    monkeypatch.delenv("DAMA_ENDGAMES", raising=False)
    alone = solve(b, "win", Limits(moves=7))
    assert czech3.directory is not None
    monkeypatch.setenv("DAMA_ENDGAMES", str(czech3.directory))
    helped = solve(b, "win", Limits(moves=7))
    assert helped.kind == alone.kind == "cooked"
    assert helped.length == alone.length == 7
    assert helped.nodes < alone.nodes / 5


def test_counts_match_the_recorded_build(czech3: Tables, tmp_path: Path) -> None:
    """The won, drawn and lost positions of each material of a fresh build are the numbers
    written in tests/engine/data/endgame_counts.json (from the full build)."""
    import json

    from dama.endgames import counts

    data = json.loads((Path(__file__).parent / "data" / "endgame_counts.json").read_text())
    assert czech3.directory is not None
    build("brazilian", 3, tmp_path)
    build("international", 2, tmp_path)
    for variant, directory, most in (
        ("czech", czech3.directory, 3),
        ("brazilian", tmp_path, 3),
        ("international", tmp_path, 2),
    ):
        fresh = counts(directory, variant)
        assert len(fresh) == len(materials(most))
        for name, c in fresh.items():
            assert c == data[variant][name], (variant, name)


def test_check_tool_finds_the_solver_and_the_search_in_agreement(czech3: Tables) -> None:
    """tools/endgames_check.py on a few random positions: the solver's wins and the search's
    mates (both without the databases) agree with them."""
    from tools.endgames_check import check

    res = check(czech3, "czech", 60, seed=2, solver_moves=3, depth=3)
    assert res["positions"] == 60
    assert res["disagreements"] == 0
    assert res["solver_wins"] and res["search_mates"]


def test_search_claims_the_draw_when_the_count_cuts_the_win(czech3: Tables) -> None:
    """Two kings against a king (CUD 2006 art. 6.4: 5 moves each): a win the databases give
    but that the count runs out on scores 0 (the search claims the draw), still tried the
    fastest way; with the count fresh it is the mate at the databases' distance."""
    from dama.search import MATE, search

    g = geometry(8)
    rng = random.Random(4)
    while True:
        a, b_, c = rng.sample(range(1, 33), 3)
        b = Board("czech")
        b.clear()
        b.white, b.black = g.bb([a, b_]), g.bb([c])
        b.kings = b.white | b.black
        b.clear_stack()
        p = czech3.probe(b)
        if p is not None and p.result == "win" and p.plies >= 3:
            break
    assert fits_count(b, p) is True
    assert search(b, depth=2, endgames=czech3).score == MATE - p.plies
    b.endgame_plies = 9  # one ply of the count left
    assert fits_count(b, p) is False
    r = search(b, depth=2, endgames=czech3)
    assert r.score == 0
    assert czech3.after(b, r.move) == p
