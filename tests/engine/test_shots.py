"""Named shots (issue 17): each predicate on a position we compose and prove with the solver.

A position is data: variant, FEN, goal, the main line the solver proves unique, and the shot the
line shows. The tests prove the puzzle again (so a change of the engine that breaks the position
fails here), tag it, and check that lines without the mechanism are not given the name.
"""

from __future__ import annotations

import pytest

from dama import Board
from dama.mine import SolutionLine, is_dual_free, motifs, rule_motifs
from dama.shots import SHOTS, Line, named_shots, shot_names
from dama.solve import Limits, solve

#: name -> (variant, FEN, goal, solution)
SHOT_POSITIONS: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    "coup_royal": (
        "international",
        "W:W26,27,28,31,36,37,39,41,42,44,45,46,48,49:B5,6,7,8,9,10,14,16,18,20",
        "gain:4",
        ("27-21", "16x27", "31x22x13x4x15x24"),
    ),
    "coup_napoleon": (
        "international",
        "B:W22,25,28,32,33,35,36,38,39,40,41,42,44,46,47,49,50"
        ":B1,2,3,4,5,7,8,11,13,14,15,16,17,19,21,23",
        "gain:4",
        ("14-20", "25x14", "19x10", "28x19", "17x28x37x48"),
    ),
    "coup_philippe": (
        "international",
        "B:W22,25,28,32,33,35,36,38,39,40,41,42,44,46,47,49,50"
        ":B1,2,3,4,5,7,8,11,13,14,15,16,17,19,21,23",
        "gain:4",
        ("14-20", "25x14", "19x10", "28x19", "17x28x37x48"),
    ),
    "coup_de_la_bombe": (
        "brazilian",
        "W:W13,16,19,21,22,25,28,29,30,32:B2,4,5,6,8,12,14,15",
        "gain:4",
        ("19x10x1", "12x19", "1x24"),
    ),
    "double_deux": (
        "international",
        "B:W23,24,30,31,34,35,36,37,39,40,41,42,45,46,47,48:B1,2,3,4,5,6,7,9,10,11,13,15,16,25",
        "gain:1",
        ("13-19", "23x14", "9x20x29", "34x23", "25x34x43", "48x39"),
    ),
    "coup_de_dame": (
        "czech",
        "W:W19,21,22,23,24,25,27,28,30,31:B3,4,5,6,8,11,12,13,14",
        "gain:1",
        ("22-17", "13x22x29", "23-18", "29x15", "19x10x1"),
    ),
    "breakthrough": (
        "brazilian",
        "W:W5,14,17,21,27,30:B1,15,16,20,K32",
        "gain:2",
        ("17-13", "32x23x9", "13x6", "1x10", "5-1"),
    ),
    "lock": (
        "czech",
        "W:W11,14,22:B1,7,16,17,27",
        "win",
        ("11x2", "17x26", "2x20x31x13", "1-5", "13-9"),
    ),
}


def _proven(variant: str, fen: str, goal: str, solution: tuple[str, ...]) -> SolutionLine:
    board = Board(variant, fen)
    horizon = (len(solution) + 1) // 2
    v = solve(board, goal, Limits(moves=horizon, nodes=2_000_000, seconds=120))
    assert v.kind == "unique", (fen, v.kind, v.reason, v.alternatives)
    assert v.solution == solution
    return SolutionLine.from_texts(board, v.solution, goal)


@pytest.mark.parametrize("name", sorted(SHOT_POSITIONS))
def test_each_composed_shot_is_proven_and_named(name: str) -> None:
    variant, fen, goal, solution = SHOT_POSITIONS[name]
    line = _proven(variant, fen, goal, solution)
    assert name in motifs(line)
    assert name in shot_names(variant)


def test_a_plain_sacrifice_and_double_capture_has_no_name() -> None:
    line = _proven(
        "czech",
        "W:W21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,10,12,13,15",
        "gain:1",
        ("22-17", "13x22", "25x18x11"),
    )
    assert named_shots(Line.from_moves(line.board, line.moves, rule_motifs)) == ()


def test_a_single_capture_shows_no_shot() -> None:
    b = Board("czech", "W:W28,K29:B18,11,4,24")
    assert named_shots(Line.from_texts(b, ["29x15x8"])) == ()


def test_the_royal_shot_needs_five_pieces_taken_by_a_man() -> None:
    variant, fen, goal, solution = SHOT_POSITIONS["coup_royal"]
    line = Line.from_texts(Board(variant, fen), solution)
    assert "coup_royal" in named_shots(line)
    # the same line with the last capture cut to four pieces is no coup royal
    short = line.plies[-1]
    cut = Line(
        line.variant,
        line.size,
        (*line.plies[:-1], type(short)(**{**_fields(short), "captured": short.captured[:4]})),
    )
    assert "coup_royal" not in named_shots(cut)


def test_the_bomb_needs_the_same_piece_to_capture_twice() -> None:
    variant, fen, goal, solution = SHOT_POSITIONS["coup_de_la_bombe"]
    line = Line.from_texts(Board(variant, fen), solution)
    last = line.plies[-1]
    moved = type(last)(**{**_fields(last), "start": last.start + 1})
    other = Line(line.variant, line.size, (*line.plies[:-1], moved))
    assert "coup_de_la_bombe" in named_shots(line)
    assert "coup_de_la_bombe" not in named_shots(other)


def test_the_lock_needs_the_defender_left_without_a_move() -> None:
    variant, fen, goal, solution = SHOT_POSITIONS["lock"]
    line = Line.from_texts(Board(variant, fen), solution)
    assert line.locked and "lock" in named_shots(line)
    shorter = Line.from_texts(Board(variant, fen), solution[:4])
    assert not shorter.locked and "lock" not in named_shots(shorter)


def test_the_8x8_games_do_not_use_the_names_of_the_10x10_school() -> None:
    for name in ("coup_royal", "coup_napoleon", "coup_philippe", "coup_raphael"):
        assert name in shot_names("international")
        assert name not in shot_names("czech")
        assert name not in shot_names("brazilian")
    # the bomb relies on the majority rule: Brazilian has it, Czech does not
    assert "coup_de_la_bombe" in shot_names("brazilian")
    assert "coup_de_la_bombe" not in shot_names("czech")


def test_international_names_at_least_ten_shots_each_with_a_source() -> None:
    assert len(shot_names("international")) >= 10
    for shot in SHOTS:
        doc = shot.predicate.__doc__ or ""
        assert "Source" in doc, shot.name


def test_every_composed_position_is_free_of_duals_on_its_main_line() -> None:
    for variant, fen, goal, solution in SHOT_POSITIONS.values():
        board = Board(variant, fen)
        horizon = (len(solution) + 1) // 2
        v = solve(board, goal, Limits(moves=horizon, nodes=2_000_000, seconds=120))
        assert is_dual_free(v), (fen, v.duals)


def _fields(p: object) -> dict[str, object]:
    return {f: getattr(p, f) for f in p.__slots__}  # type: ignore[attr-defined]
