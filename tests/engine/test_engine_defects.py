"""Two engine defects of issue 17, kept fixed: FEN in, act, assert.

* a ``gain:N`` goal reached by a last solver move that leaves the defender without a legal move;
* the route shown for a king that goes straight on after a capture passes the square directly
  behind the captured piece (the PDN convention).
"""

from __future__ import annotations

import json

import pytest

from dama import Board
from dama.cli import main
from dama.solve import Limits, solve


def test_gain_goal_tries_a_last_move_that_leaves_the_defender_without_a_move() -> None:
    board = Board("czech", "W:W17,29:B9")
    win = solve(board, "win", Limits(moves=2))
    gain = solve(board, "gain:1", Limits(moves=2))
    assert win.kind == "unique"
    assert win.solution == ("29-25", "9-13", "25-22")
    # 17-13 crowns within the uniqueness margin, so gain:1 is cooked, but the blocking line is
    # found at the horizon and is the main line, as for the win goal
    assert gain.kind == "cooked"
    assert gain.length == 2
    assert gain.solution == ("29-25", "9-13", "25-22")


def test_blocking_last_move_alone_proves_a_gain_puzzle() -> None:
    # one move left, no crowning in reach: only the block 25-22 reaches the goal
    v = solve(Board("czech", "W:W17,25:B13"), "gain:1", Limits(moves=1))
    assert v.kind == "unique", v.reason
    assert v.solution == ("25-22",)


def test_gain_goal_still_fails_when_no_last_move_blocks_or_crowns() -> None:
    v = solve(Board("czech", "W:W29:B1"), "gain:1", Limits(moves=1))
    assert v.kind == "no_solution"


def test_cli_gain_goal_finds_the_blocking_line(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["solve", "--variant", "czech", "--fen", "W:W17,29:B9", "--goal", "gain:1"]
    assert main([*argv, "--moves", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["solution"] == ["29-25", "9-13", "25-22"]


@pytest.mark.parametrize(
    ("variant", "fen", "expected"),
    [
        # 47x42 lands on 38 or 33, then takes 29 straight on: shown through 38
        ("international", "W:WK47:B14,19,29,31,42", ["47x38x20x9x36", "47x38x24x13x36"]),
        # the Brazilian king on 32 takes 27 and then 14 on the same diagonal: through 23
        ("brazilian", "B:W5,14,17,21,27,30:B1,15,16,20,K32", ["32x23x9"]),
    ],
)
def test_king_going_straight_on_is_shown_through_the_square_behind_the_piece(
    variant: str, fen: str, expected: list[str]
) -> None:
    moves = Board(variant, fen).generate_legal_moves()
    assert sorted(m.route_str() for m in moves) == expected
    # the other routes are still the same move, and are still accepted
    assert all(len(m.routes) == 2 for m in moves)


def test_a_turning_route_is_not_held_to_the_straight_on_rule() -> None:
    # the king flies from 50 over 28, lands on 22 (the only square), and goes on over 17
    moves = Board("international", "W:WK50:B28,17").generate_legal_moves()
    assert sorted(m.route_str() for m in moves) == ["50x22x11", "50x22x6"]
