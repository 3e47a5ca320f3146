"""The puzzle solver (issue 5): goals, verdicts, proof trees, limits, the command line.

Positions are data: FEN in, solve, assert the verdict and what it names.
"""

from __future__ import annotations

import json

import pytest

import dama
from dama import Board
from dama.cli import main
from dama.proof import ProofMove
from dama.solve import (
    Goal,
    InvalidGoalError,
    InvalidLimitsError,
    Limits,
    Verdict,
    parse_goal,
    shortest,
    solve,
)

#: name -> (variant, FEN, goal, horizon)
POSITIONS = {
    # Czech king priority: the man on 28 could take 24, but the king must capture: 29x15x8
    "czech_king_priority": ("czech", "W:W28,K29:B18,11,4,24", "capture", None),
    # two different captures of the man on 22 (over 18 and 10, or over 18 and 11)
    "czech_two_captures": ("czech", "W:W22,K31:B18,11,10", "capture", None),
    # the king's double capture 32x5 goes round by 14 or by 18: one move, two routes
    "czech_two_routes": ("czech", "W:W15,21,25,29,31,K32:B9,23", "capture", None),
    # 22-17! 13x22 25x18x11: one man given, two taken
    "czech_shot": (
        "czech",
        "W:W21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,10,12,13,15",
        "gain:1",
        2,
    ),
    # 27-24! 20x27 31x24x15x22: one man given, three taken
    "brazilian_shot": (
        "brazilian",
        "W:W25,27,28,29,30,31,32:B1,2,3,4,5,7,8,9,18,19,20",
        "gain:2",
        2,
    ),
    # Black wins a man two ways: 14-18 23x14x7 16x23x32, or 13-17 22x13 14-18 ...
    "czech_cooked_gain": (
        "czech",
        "B:W19,22,23,24,26,27,28,29,30,31:B1,3,4,8,10,12,13,14,15,16",
        "gain:1",
        2,
    ),
    # 17-13! (the only move that wins a man in two), with a dual at the second move
    "czech_dual": ("czech", "W:W17,21,26,29,31,32:B3,4,9,10,14,16,28", "gain:1", 2),
    # 1x19x12x3, then whatever Black plays, 13x6 or a king capture ends it
    "czech_win": ("czech", "W:WK1,13:B5,8,K10,16", "win", 2),
}


def board_of(name: str) -> Board:
    variant, fen, _goal, _h = POSITIONS[name]
    return Board(variant, fen)


def solved(name: str, **limits: object) -> Verdict:
    variant, fen, goal, h = POSITIONS[name]
    return solve(Board(variant, fen), goal, Limits(moves=h, **limits))  # type: ignore[arg-type]


# -- goals and limits --------------------------------------------------------------------------


def test_parse_goal_reads_the_three_goals() -> None:
    assert parse_goal("capture") == Goal("capture")
    assert parse_goal(" Gain:3 ") == Goal("gain", 3)
    assert str(parse_goal("win")) == "win"
    assert parse_goal("gain:2").default_moves == 5
    assert parse_goal("capture").default_moves == 1


@pytest.mark.parametrize(
    "text",
    ["gain", "gain:0", "gain:x", "mate", "", "win:2"]
    + ["gain:²", "gain:١٢", "gain:" + "9" * 5000, "gain:100", "gain:-1", "gain:1_0"],
)
def test_bad_goal_raises_a_value_error(text: str) -> None:
    with pytest.raises(InvalidGoalError) as exc:
        parse_goal(text)
    assert isinstance(exc.value, ValueError)


@pytest.mark.parametrize(
    "kw", [{"moves": 0}, {"moves": 31}, {"nodes": 0}, {"seconds": 0}, {"max_depth": 0}]
)
def test_bad_limits_raise_a_value_error(kw: dict[str, float]) -> None:
    with pytest.raises(InvalidLimitsError):
        Limits(**kw)  # type: ignore[arg-type]


def test_limits_take_the_horizon_from_the_goal() -> None:
    assert Limits().for_goal(Goal("capture")).moves == 1
    assert Limits().for_goal(Goal("win")).moves == 5
    assert Limits(moves=3).for_goal(Goal("gain", 1)).moves == 3
    assert Limits(moves=3).for_goal(Goal("capture")).moves == 1


# -- capture -----------------------------------------------------------------------------------


def test_unique_capture_under_king_priority() -> None:
    v = solved("czech_king_priority")
    assert v.kind == "unique"
    assert v.solution == ("29x15x8",)
    assert v.length == 1 and v.horizon == 1
    assert [p.key() for p in v.proof] == [(29, 8, frozenset({11, 18}))]


def test_two_distinct_captures_are_a_cook() -> None:
    v = solved("czech_two_captures")
    assert v.kind == "cooked"
    assert len(v.alternatives) == 1
    assert {v.solution[0], v.alternatives[0][0]} == {"22x15x6", "22x15x8"}


def test_equivalent_routes_are_one_move_and_all_accepted() -> None:
    v = solved("czech_two_routes")
    assert v.kind == "unique"
    (move,) = v.proof
    assert set(move.routes) == {"32x14x5", "32x18x5"}
    board = board_of("czech_two_routes")
    for route in move.routes:
        assert move.matches(board.parse_move(route))
    assert [m.text for m in v.tree.accepted([])] == [move.text]


def test_no_capture_is_no_solution_with_a_reason() -> None:
    v = solve(Board("czech"), "capture")
    assert v.kind == "no_solution"
    assert "no capture" in v.reason
    assert v.solution == ()


# -- gain ------------------------------------------------------------------------------------


def test_unique_gain_by_a_sacrifice_czech() -> None:
    v = solved("czech_shot")
    assert v.kind == "unique"
    assert v.solution == ("22-17", "13x22", "25x18x11")
    assert v.length == 2
    assert v.engine_version == dama.ENGINE_VERSION
    assert v.limits.moves == 2


def test_unique_gain_two_by_a_sacrifice_brazilian() -> None:
    v = solved("brazilian_shot")
    assert v.kind == "unique"
    assert v.solution == ("27-24", "20x27", "31x24x15x22")


def test_the_minimal_length_is_found_first() -> None:
    variant, fen, goal, _ = POSITIONS["czech_shot"]
    v = solve(Board(variant, fen), goal, Limits(moves=5))
    assert v.kind == "unique"
    assert v.length == 2
    assert v.solution[0] == "22-17"


@pytest.mark.parametrize("name", sorted(POSITIONS))
def test_shortest_is_the_length_solve_finds(name: str) -> None:
    variant, fen, goal, h = POSITIONS[name]
    board = Board(variant, fen)
    v = solve(board, goal, Limits(moves=h))
    assert v.kind in ("unique", "cooked")
    assert shortest(board, goal, Limits(moves=h)) == v.length


def test_shortest_is_0_when_no_solution_is_that_short_and_none_when_the_limits_run_out() -> None:
    variant, fen, goal, _ = POSITIONS["czech_shot"]
    board = Board(variant, fen)
    assert shortest(board, goal, Limits(moves=1)) == 0  # the shot takes two moves
    assert shortest(board, "gain:4", Limits(moves=3)) == 0
    assert solve(board, "gain:4", Limits(moves=3)).kind == "no_solution"
    assert shortest(board, goal, Limits(moves=4, nodes=5)) is None
    assert shortest(board, goal, Limits(moves=4, max_depth=2)) is None  # horizon 1 only


def test_cooked_gain_reports_the_other_first_move_with_a_line() -> None:
    v = solved("czech_cooked_gain")
    assert v.kind == "cooked"
    firsts = {v.solution[0], *(a[0] for a in v.alternatives)}
    assert {"14-18", "13-17"} <= firsts
    board = board_of("czech_cooked_gain")
    for alt in v.alternatives:
        b = board.copy()
        for text in alt:  # every alternative line is legal
            b.push(b.parse_move(text))


def test_no_solution_names_the_best_try_and_its_refutation() -> None:
    variant, fen, _goal, _ = POSITIONS["czech_shot"]
    board = Board(variant, fen)
    v = solve(board, "gain:3", Limits(moves=2))
    assert v.kind == "no_solution"
    assert len(v.refutation) >= 2
    b = board.copy()
    for text in v.refutation:
        b.push(b.parse_move(text))
    assert "gain:3" in v.reason


# -- win ---------------------------------------------------------------------------------------


def test_win_puzzle_and_every_defence_in_the_proof() -> None:
    v = solved("czech_win")
    assert v.kind == "unique"
    assert v.solution[0] == "1x19x12x3"
    (first,) = v.proof
    board = board_of("czech_win")
    board.push(board.parse_move(first.text))
    # every defender reply is in the proof, each answered by a move that wins
    assert {r.key() for r in first.replies} == {m.key() for m in board.legal_moves}
    for reply in first.replies:
        assert reply.replies, f"no answer to {reply.text}"
        b = board.copy()
        b.push(b.parse_move(reply.text))
        for answer in reply.replies:
            b2 = b.copy()
            b2.push(b2.parse_move(answer.text))
            assert b2.outcome() is not None and b2.outcome().winner == dama.WHITE  # type: ignore[union-attr]


def test_blocked_defender_counts_as_won() -> None:
    # 21-17 leaves the black man on 13 no move: 17 is taken and 22 behind it too
    board = Board("czech", "W:W21,22:B13")
    v = solve(board, "win", Limits(moves=1))
    # the only win in one; other moves win later, inside the H + 2 margin: a cook
    assert v.kind == "cooked" and v.length == 1
    assert v.solution == ("21-17",)
    board.push(board.parse_move("21-17"))
    assert not board.legal_moves


# -- proof trees and duals ------------------------------------------------------------------------


def test_duals_are_counted_and_kept_in_the_proof() -> None:
    v = solved("czech_dual")
    assert v.kind == "unique"
    assert v.solution[0] == "17-13"
    assert v.duals >= 1
    (first,) = v.proof
    assert any(len(r.replies) > 1 for r in first.replies)
    total = sum(len(r.replies) - 1 for r in first.replies if r.replies)
    assert v.duals == total + sum(
        len(rr.replies) - 1
        for r in first.replies
        for a in r.replies
        for rr in a.replies
        if rr.replies
    )


def test_accepted_moves_follow_the_proof() -> None:
    tree = solved("czech_shot").tree
    assert [m.text for m in tree.accepted([])] == ["22-17"]
    assert [m.text for m in tree.accepted(["22-17", "13x22"])] == ["25x18x11"]
    assert tree.accepted(["21-17"]) == ()


def test_verdict_round_trips_through_json() -> None:
    for name in ("czech_win", "czech_cooked_gain", "czech_two_routes"):
        v = solved(name)
        data = json.loads(json.dumps(v.to_dict()))
        assert Verdict.from_dict(data) == v
    p = solved("czech_win").proof[0]
    assert ProofMove.from_dict(p.to_dict()) == p


# -- limits and progress -------------------------------------------------------------------------


def test_tiny_node_limit_is_undecided_with_what_was_searched() -> None:
    variant, fen, goal, _ = POSITIONS["czech_cooked_gain"]
    v = solve(Board(variant, fen), goal, Limits(moves=4, nodes=50))
    assert v.kind == "undecided"
    assert v.reason == "nodes"
    assert v.searched["phase"] in ("solution", "uniqueness")
    assert v.nodes >= 50


def test_progress_is_reported() -> None:
    calls: list[tuple[int, int, float]] = []
    variant, fen, goal, _ = POSITIONS["czech_cooked_gain"]
    v = solve(Board(variant, fen), goal, Limits(moves=3), progress=lambda *a: calls.append(a))
    assert calls
    nodes = [n for n, _d, _t in calls]
    assert nodes == sorted(nodes) and 0 < nodes[-1] <= v.nodes  # the count so far, never back
    assert [t for _n, _d, t in calls] == sorted(t for _n, _d, t in calls)


def test_solve_does_not_change_the_board() -> None:
    board = board_of("czech_shot")
    before = (board.fen(), len(board.move_stack))
    solved("czech_shot")
    solve(board, "gain:1", Limits(moves=2))
    assert (board.fen(), len(board.move_stack)) == before


# -- command line ------------------------------------------------------------------------------


def test_cli_prints_the_verdict_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    variant, fen, goal, h = POSITIONS["czech_shot"]
    rc = main(["solve", "--variant", variant, "--fen", fen, "--goal", goal, "--moves", str(h)])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "unique"
    assert out["solution"] == ["22-17", "13x22", "25x18x11"]
    for key in ("alternatives", "duals", "nodes", "seconds", "depth"):
        assert key in out


@pytest.mark.parametrize(
    "args",
    [
        ["--goal", "gain:0"],
        ["--goal", "checkmate"],
        ["--goal", "gain:1", "--moves", "0"],
        ["--goal", "win", "--nodes", "0"],
        ["--goal", "win", "--fen", "W:W99:B1"],
    ],
)
def test_cli_bad_input_exits_2_with_one_line(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["solve", "--variant", "czech", *args])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
