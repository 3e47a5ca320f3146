"""The playing engine's evaluation (issue 16): symmetric, material first, the named terms; with
the hand-tuned weights and, where it says so, with the trained ones too (issue 52,
tests/engine/test_weights.py)."""

from __future__ import annotations

import pytest

from dama import Board
from dama.evaluate import KING_VALUE, Evaluator, trained_evaluator
from dama.variants import find_variant


def evaluate(board: Board) -> int:
    """The hand-tuned evaluation of ``board`` (the named terms and their weights)."""
    return int(Evaluator(find_variant(board.variant)).evaluate(*board.key()))


def trained(board: Board) -> int:
    """The trained evaluation of ``board`` (dama/weights)."""
    return int(trained_evaluator(find_variant(board.variant)).evaluate(*board.key()))


BOTH = pytest.mark.parametrize("score", [evaluate, trained], ids=["hand", "trained"])


def mirrored(board: Board) -> Board:
    """The position turned round: each piece to the opposite square, colours and turn swapped."""
    n = board.geo.squares
    parts = []
    for color, tag in ((True, "B"), (False, "W")):  # White's pieces become Black's
        squares = [f"K{n + 1 - s}" for s in board.pieces(color, king=True)]
        squares += [str(n + 1 - s) for s in board.pieces(color, king=False)]
        parts.append(tag + ",".join(squares))
    turn = "B" if board.turn else "W"
    return Board(board.variant, f"{turn}:{parts[1]}:{parts[0]}")


@pytest.mark.parametrize(
    ("variant", "fen"),
    [
        ("czech", "W:W21,22,23,K30:B1,5,10,K12"),
        ("czech", "B:W13,18,19,24,27:B2,3,7,11,16"),
        ("brazilian", "W:W9,22,25,K32:B6,7,17,K4"),
        ("international", "W:W27,28,32,33,K48:B16,18,19,23,K3"),
        ("international", "B:W24,31,36,45:B5,11,17,26"),
    ],
)
@BOTH
def test_the_evaluation_is_the_same_for_both_colours(variant: str, fen: str, score) -> None:
    b = Board(variant, fen)
    assert score(b) == score(mirrored(b))


@pytest.mark.parametrize("variant", ["czech", "brazilian", "international"])
@BOTH
def test_the_start_position_is_level(variant: str, score) -> None:
    assert score(Board(variant)) == 0


@BOTH
def test_a_man_more_is_worth_about_a_man(score) -> None:
    b = Board("czech", "W:W21,22,23:B10,11")
    assert 60 < score(b) < 250
    b = Board("czech", "B:W21,22,23:B10,11")
    assert -250 < score(b) < -60  # the side to move's view


def test_a_king_is_worth_the_measured_value() -> None:
    ev = Evaluator(find_variant("czech"))
    assert ev.king_value == KING_VALUE["czech"]
    men = ev.evaluate(*Board("czech", "W:W21,22,23:B9,10,11").key())
    king = ev.evaluate(*Board("czech", "W:W21,22,K23:B9,10,11").key())
    assert king - men > 150


def test_a_runaway_man_scores_nearly_a_king() -> None:
    """The white man on 13 has a free road to the king row; the one on 15 meets the man on 8
    (the trained weights value the free road less, but still more than the blocked one)."""
    free = evaluate(Board("czech", "W:W13:B4,8"))
    blocked = evaluate(Board("czech", "W:W15:B4,8"))
    assert free - blocked > 100
    assert trained(Board("czech", "W:W13:B4,8")) - trained(Board("czech", "W:W15:B4,8")) > 30


def test_a_trapped_king_is_worth_less() -> None:
    """A king shut in the corner by its own and the opponent's men scores less than a free one."""
    ev = Evaluator(find_variant("international"))
    trapped = ev.evaluate(*Board("international", "W:WK46,41,37:B26,31,32").key())
    free = ev.evaluate(*Board("international", "W:WK28,41,37:B26,31,32").key())
    assert free - trapped > 30


@pytest.mark.parametrize(
    ("variant", "fen"),
    [
        ("czech", "W:WK2,K28:BK29"),  # two kings against one: art. 6.4
        ("czech", "W:WK2,20:BK29"),  # a king and a man against a king
        ("international", "W:WK1,K3:BK46"),  # FMJD 5-move rule
    ],
)
@BOTH
def test_endgames_the_counts_draw_score_zero(variant: str, fen: str, score) -> None:
    assert score(Board(variant, fen)) == 0
