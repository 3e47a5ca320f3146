"""The playing search on typed data (issue 52): its own move generation agrees with the core, the
compiled and the pure Python builds search the same tree node for node, a forced win is found
and self-play with the kept tables (memories) plays only legal moves (the shots and the corpus
puzzles it wins are in test_search.py).

Runs in both builds like the rest of the engine suite (``DAMA_PURE=1`` for pure Python).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

import dama
from dama import Board
from dama._core import core
from dama.evaluate import Evaluator, trained_evaluator
from dama.match import OPENINGS, opening_board
from dama.search import MATE_BOUND, Memory, Searcher, search
from dama.variants import find_variant

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = ["czech", "brazilian", "international"]

#: positions searched to a fixed depth by both builds: openings, a middle game with a capture
#: to come, king endings (the king's captures come from the core, the men's from the search)
AGREE = [
    ("czech", "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12", 6),
    ("czech", "W:W22,23,26,31:B1,3,14,15", 7),
    ("brazilian", "W:W17,21,22,23,25,26,27,29,31,32:B1,2,3,5,6,9,10,11,12,13,15", 6),
    ("international", "", 5),
    ("international", "W:WK46,34,39,44:B7,12,K23,24", 6),
]


def _agree_line(variant: str, fen: str, depth: int, trained: bool = False) -> dict[str, object]:
    b = Board(variant, fen) if fen else Board(variant)
    ev = trained_evaluator(find_variant(variant)) if trained else Evaluator(find_variant(variant))
    r = search(b, depth=depth, seed=3, _evaluator=ev)
    return {
        "move": r.move.route_str(),
        "score": r.score,
        "depth": r.depth,
        "nodes": r.nodes,
        "pv": [m.route_str() for m in r.pv],
    }


def _results() -> list[dict[str, object]]:
    """Each position with the hand-tuned and with the trained evaluation (dama/weights)."""
    return [_agree_line(v, f, d, trained) for v, f, d in AGREE for trained in (False, True)]


def test_compiled_and_pure_search_the_same_tree() -> None:
    """The same positions searched to a fixed depth, with each evaluation, here and in a child
    process running the other build (pure Python when this one is compiled, and the compiled one, where it is built, when
    this one is pure): the same move, score, principal variation and node count."""
    env = {**os.environ}
    if dama.COMPILED:
        env["DAMA_PURE"] = "1"
    else:
        env.pop("DAMA_PURE", None)
    code = (
        "import json, sys; sys.path.insert(0, '.'); import dama; "
        "from tests.engine.test_search_core import _results; "
        "print(json.dumps({'compiled': dama.COMPILED, 'results': _results()}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    ).stdout
    other = json.loads(out.strip().splitlines()[-1])
    if dama.COMPILED:
        assert other["compiled"] is False
    mine = _results()
    assert all(int(str(r["nodes"])) > 100 for r in mine)
    assert other["results"] == mine


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_captures_on_the_move_stack_are_the_cores_in_games(variant: str) -> None:
    """Positions of random games: the captures the search writes onto its move stack are the
    legal captures of :meth:`dama._core.Core.captures`, in the same order."""
    v = find_variant(variant)
    s, c = Searcher(v), core(v)
    seen = with_captures = 0
    for seed in range(12):
        b = opening_board(variant, OPENINGS[variant][seed % len(OPENINGS[variant])])
        rng = random.Random(seed)
        while b.outcome() is None and b.ply < 90:
            white, black, kings, turn = b.key()
            n = s.gen_captures(white, black, kings, turn, 0)
            got = [(1 << s.mv_frm[i], 1 << s.mv_to[i], s.mv_cap[i]) for i in range(n)]
            assert got == c.captures(white, black, kings, turn), b.fen()
            seen += 1
            with_captures += n > 0
            b.push(rng.choice(b.legal_moves))
    assert seen > 500 and with_captures > 100


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_kings_captures_on_the_move_stack_are_the_cores(variant: str) -> None:
    """Random placements with many kings (king priority, the majority rule, a king's landing
    where it can jump again, two routes to one move): the captures on the move stack are the
    core's, in its order."""
    v = find_variant(variant)
    s, c = Searcher(v), core(v)
    rng = random.Random(52)
    n = v.size * v.size // 2
    top, bottom = range(1, v.size // 2 + 1), range(n - v.size // 2 + 1, n + 1)
    with_kings = 0
    for _ in range(700):
        white: list[str] = []
        black: list[str] = []
        for sq in rng.sample(range(1, n + 1), rng.randint(3, 14)):
            is_white, king = rng.random() < 0.5, rng.random() < 0.4
            king = king or (sq in top if is_white else sq in bottom)  # no man on its crown row
            (white if is_white else black).append(("K" if king else "") + str(sq))
        if not white or not black:
            continue
        turn = rng.choice("WB")
        b = Board(variant, f"{turn}:W{','.join(white)}:B{','.join(black)}")
        w, bl, k, t = b.key()
        count = s.gen_captures(w, bl, k, t, 0)
        got = [(1 << s.mv_frm[i], 1 << s.mv_to[i], s.mv_cap[i]) for i in range(count)]
        expected = c.captures(w, bl, k, t)
        assert got == expected, b.fen()
        with_kings += any(k & m[0] for m in expected)
    assert with_kings > 150


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_lone_king_is_caught_by_force(variant: str) -> None:
    fen = "W:WK46,K5:B16" if variant == "international" else "W:WK29,K1:B10"
    r = search(Board(variant, fen), depth=10)
    assert r.score > MATE_BOUND


@pytest.mark.parametrize("variant", VARIANTS)
def test_self_play_with_memories_plays_only_legal_moves(variant: str) -> None:
    """Games where each side keeps its tables from move to move (as the site plays): every move
    and every principal variation is legal, up to the end of the game or 120 plies."""
    for game in range(3):
        b = opening_board(variant, OPENINGS[variant][game + 3])
        memories = {True: Memory(), False: Memory()}
        while b.outcome() is None and b.ply < 120:
            r = search(b, nodes=300 + 200 * game, seed=b.ply, memory=memories[b.turn])
            assert r.move in b.legal_moves
            probe = b.copy()
            for m in r.pv:
                assert m in probe.legal_moves
                probe.push(m)
            b.push(r.move)
        assert b.ply > 20
