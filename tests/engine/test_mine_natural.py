"""Mining for issue 17: the no-dual rule, engine self-play games, the opponent's move that allowed
the puzzle, resumable mining. FEN in, act, assert."""

from __future__ import annotations

import random

import pytest

from dama import Board
from dama._core import core
from dama.mine import (
    board_at,
    engine_game,
    examine,
    is_dual_free,
    main_line_duals,
    mine,
    move_of,
    tempting_moves,
    turkish_setup,
    was_allowed,
)
from dama.solve import Limits, material_search, solve
from dama.variants import find_variant

#: Black's 22-28 30x19 28x37x46 19x28 46x23 wins three, but after 19x28 the new king may end its
#: capture on 5, 10, 14, 19 or 23: five different moves reach the goal (a dual on the main line)
DUAL = ("international", "B:W16,26,30,32,36,38,39,41,43,44,45,47,49:B1,4,7,8,9,11,15,22,23,24,35")
#: 22-17! 13x22 25x18x11: one move at each solver turn
CLEAN = ("czech", "W:W21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,10,12,13,15")


def test_a_dual_on_the_main_line_is_found_in_the_proof() -> None:
    v = solve(Board(*DUAL), "gain:3", Limits(moves=3))
    assert v.kind == "unique"  # the first move is unique, also at the horizon + 2
    assert main_line_duals(v) == 1
    assert not is_dual_free(v)


def test_a_puzzle_with_one_move_at_each_turn_is_dual_free() -> None:
    v = solve(Board(*CLEAN), "gain:1", Limits(moves=2))
    assert main_line_duals(v) == 0
    assert is_dual_free(v)


def test_a_cooked_or_unsolved_verdict_is_never_dual_free() -> None:
    cooked = solve(Board("czech", "W:W17,29:B9"), "gain:1", Limits(moves=2))
    assert cooked.kind == "cooked" and main_line_duals(cooked) is None
    assert not is_dual_free(solve(Board("czech", "W:W29:B1"), "gain:1", Limits(moves=1)))


def test_mining_drops_the_puzzle_with_a_dual() -> None:
    found = examine(Board(*DUAL), ("gain",), look_ahead=4)
    assert all(p.solution[0] != "22-28" for p in found)
    # the clean one is kept
    kept = examine(Board(*CLEAN), ("gain",), look_ahead=4)
    assert [p.solution for p in kept] == [("22-17", "13x22", "25x18x11")]


def test_engine_games_are_legal_varied_and_reproducible() -> None:
    a = engine_game("czech", 3, level=4, max_plies=30, nodes=2_000)
    b = engine_game("czech", 3, level=4, max_plies=30, nodes=2_000)
    c = engine_game("czech", 4, level=4, max_plies=30, nodes=2_000)
    assert a == b and a != c
    cc = core(find_variant("czech"))
    for before, after in zip(a, a[1:], strict=False):
        nexts = {(*cc.make(*before, m), not before[3]) for m in cc.moves(*before)}
        assert after in nexts


def test_more_varied_opening_plies_give_more_different_games() -> None:
    # the games stop right after the varied plies: the start each seed draws
    from dama.match import OPENINGS

    plies = max(len(o) for o in OPENINGS["czech"])

    def starts(varied: int) -> set:
        games = (engine_game("czech", s, 4, plies + varied + 1, 1, varied) for s in range(150))
        return {g[-1] for g in games}

    two, four = starts(2), starts(4)
    assert len(four) > len(two)
    assert len(four) >= 0.8 * 150 > len(two)  # almost every seed its own start


def test_a_puzzle_the_last_move_allowed_is_recognised() -> None:
    v = find_variant("czech")
    # Black to move: 9-13?? walks into 22-17! 13x22 25x18x11; 10-14 keeps everything
    before = Board("czech", "B:W21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,9,10,12,15").key()
    after = Board(*CLEAN).key()
    cc = core(v)
    assert after in {(*cc.make(*before, m), not before[3]) for m in cc.moves(*before)}
    (pz,) = examine(board_at(v, after), ("gain",), look_ahead=4)
    assert was_allowed(v, before, after, pz)


def test_natural_mining_keeps_an_allowed_gain_and_skips_known_puzzles() -> None:
    before = Board("czech", "B:W21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,9,10,12,15").key()
    after = Board(*CLEAN).key()
    game = [("game 1 ply 20", before), ("game 1 ply 21", after)]
    (pz,) = mine("czech", 1, mix={"gain": 1.0}, positions=game, natural=True)
    assert pz.solution == ("22-17", "13x22", "25x18x11")
    assert pz.source == "game 1 ply 21"
    # resumed: a puzzle already known is not mined again
    known = {(pz.fen, pz.goal)}
    again = mine(
        "czech",
        1,
        mix={"gain": 1.0},
        positions=game,
        natural=True,
        skip=lambda fen, goal: (fen, goal) in known,
    )
    assert list(again) == []
    # without the move before it, nothing says the opponent allowed it: not natural
    assert list(mine("czech", 1, mix={"gain": 1.0}, positions=game[1:], natural=True)) == []


def test_tempting_moves_give_nothing_away_at_a_glance_and_leave_out_the_move_played() -> None:
    v = find_variant("czech")
    cc = core(v)
    # Black to move: 13-17 offers a man that 22x13 wins; the other moves give nothing away
    b = Board("czech", "B:W22,30:B1,9,13")
    every = tempting_moves(cc, b.key(), None, 99, random.Random(1))
    texts = set()
    for m, q in every:
        assert q == (*cc.make(*b.key(), m), not b.turn)
        texts.add(str(move_of(b, m)))
        assert material_search(cc, *q, 0) + 1 <= 0  # White's captures win nothing back
    assert texts == {"1-5", "1-6", "9-14"}
    # the move the game played is never among them, and at most ``limit`` come back
    played = every[0][1]
    assert played not in {q for _, q in tempting_moves(cc, b.key(), played, 99, random.Random(1))}
    assert len(tempting_moves(cc, b.key(), None, 2, random.Random(1))) == 2


@pytest.mark.slow  # mines twice, games of 1,500 nodes a move
def test_mining_the_sidelines_finds_more_and_names_the_move_that_allowed_each_puzzle() -> None:
    kw = {"natural": True, "level": 4, "nodes": 1_500, "varied": 4, "max_games": 3}
    plain = list(mine("czech", 100, 5, **kw))
    side = list(mine("czech", 100, 5, sidelines=4, **kw))
    assert len(side) > len(plain)
    after = [p for p in side if " after " in p.source]
    assert after
    for p in after:
        # "... seed 5 game G ply P after ROUTE": ROUTE from the game's position before ply P
        head, route = p.source.split(" after ")
        game_no, ply = (int(x) for x in head.split(" game ")[1].split(" ply "))
        game = engine_game("czech", 5 * 1_000_003 + game_no, 4, 160, 1_500, 4)
        b = board_at(find_variant("czech"), game[ply - 1])
        b.push(b.parse_move(route))
        assert b.key() != game[ply]  # not the move the game went on with
        assert Board("czech", p.fen).key() == b.key()


@pytest.mark.slow  # mines twice, games of 1,500 nodes a move
def test_two_plies_off_the_game_are_a_tempting_move_and_a_tempting_reply() -> None:
    kw = {"natural": True, "level": 4, "nodes": 1_500, "varied": 4, "max_games": 2}
    one = list(mine("czech", 200, 5, sidelines=3, **kw))
    two = list(mine("czech", 200, 5, sidelines=3, sideline_plies=2, **kw))
    assert len(two) > len(one)
    far = [p for p in two if " after " in p.source and " " in p.source.split(" after ")[1]]
    assert far
    cc = core(find_variant("czech"))
    for p in far:
        head, routes = p.source.split(" after ")
        game_no, ply = (int(x) for x in head.split(" game ")[1].split(" ply "))
        game = engine_game("czech", 5 * 1_000_003 + game_no, 4, 160, 1_500, 4)
        b = board_at(find_variant("czech"), game[ply - 2])
        for route in routes.split():
            # each of the two moves gives nothing away at a glance
            tempting = {q for _, q in tempting_moves(cc, b.key(), None, 99, random.Random(0))}
            b.push(b.parse_move(route))
            assert b.key() in tempting
        assert Board("czech", p.fen).key() == b.key()


def test_a_focus_keeps_mining_to_the_positions_it_accepts() -> None:
    before = Board("czech", "B:W21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,9,10,12,15").key()
    game = [("game 1 ply 20", before), ("game 1 ply 21", Board(*CLEAN).key())]
    seen: list[str] = []

    def nowhere(board: Board) -> bool:
        seen.append(board.fen())
        return False

    assert list(mine("czech", 1, mix={"gain": 1.0}, positions=game, focus=nowhere)) == []
    assert Board(*CLEAN).fen() in seen
    # 22-17! starts no Turkish strike: the look for the coup turc passes this position over
    assert not turkish_setup(Board(*CLEAN))
    assert list(mine("czech", 1, mix={"gain": 1.0}, positions=game, focus=turkish_setup)) == []
    assert len(list(mine("czech", 1, mix={"gain": 1.0}, positions=game))) == 1


#: 20-16! 11x20 19-15! 10x19 17x10x3 wins two; the combination goes on: 20-24 23x16 12x19
#: 3x12x23 wins a third, five solver moves deep
LONG_COMBINATION = "W:W17,19,20,21,22,23,26,28,29,31:B4,5,7,8,9,10,11,12,13,14"


def test_deep_mining_looks_further_and_finds_the_longer_combination() -> None:
    game = [("x game 1 ply 30", Board("brazilian", LONG_COMBINATION).key())]
    (short,) = mine("brazilian", 1, positions=game, mix={"gain": 1.0})
    (deep,) = mine("brazilian", 1, positions=game, mix={"gain": 1.0}, deep=True)
    assert (short.goal, short.horizon) == ("gain:2", 3)
    assert (deep.goal, deep.horizon) == ("gain:3", 5)
    assert deep.solution[:5] == short.solution
    assert deep.solution[5:] == ("20-24", "23x16", "12x19", "3x12x23")


def test_a_minimum_length_passes_over_shorter_combinations_before_their_proof() -> None:
    game = [("x game 1 ply 30", Board("brazilian", LONG_COMBINATION).key())]
    (deep,) = mine("brazilian", 1, positions=game, mix={"gain": 1.0}, deep=True, min_length=5)
    assert (deep.goal, deep.horizon) == ("gain:3", 5)
    # the two-man gain takes three moves, the three-man one five: neither reaches six
    assert list(mine("brazilian", 1, positions=game, deep=True, min_length=6)) == []
    assert (
        list(mine("brazilian", 1, positions=game, min_length=3, mix={"gain": 1.0}))[0].horizon == 3
    )
