"""Proof trees (``dama.proof.ProofTree``): following a line, accepted moves, the most stubborn
reply, the best move, and the JSON form stored with every proven puzzle."""

from __future__ import annotations

import json

from dama import Board
from dama.proof import ProofMove, ProofTree
from dama.solve import Limits, Verdict, solve

SHOT = "W:W21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,10,12,13,15"


def pm(text: str, *replies: ProofMove, captured: tuple[int, ...] = ()) -> ProofMove:
    """A proof move written ``a-b`` or ``axb``; its squares are read from the text."""
    squares = [int(s) for s in text.replace("x", "-").split("-")]
    return ProofMove(text, squares[0], squares[-1], captured, (text,), tuple(replies))


# the solver plays 1-5 (or 2-6: a dual); the defender answers 9-13 (the goal then needs two more
# solver moves), 10-14 or 11x15 (one more each), 12-16 (reached)
DEEP = pm("9-13", pm("5-1", pm("20-24", pm("6-2"))), pm("6-1", pm("21-25", pm("7-2"))))
TREE = ProofTree(
    (
        pm(
            "1-5",
            DEEP,
            pm("10-14", pm("5-9")),
            pm("11x15", pm("5-8"), captured=(14,)),
            pm("12-16"),
        ),
        pm("2-6", pm("30-26", pm("6-9", pm("31-27", pm("9-3"))))),
    ),
    solution=("1-5", "9-13", "5-1", "20-24", "6-2"),
)


def test_accepted_moves_are_the_proofs_moves_after_a_line() -> None:
    assert [m.text for m in TREE.accepted([])] == ["1-5", "2-6"]
    assert [m.text for m in TREE.accepted(["1-5", "9-13"])] == ["5-1", "6-1"]
    assert [m.text for m in TREE.accepted(["1-5", "10-14"])] == ["5-9"]


def test_a_line_that_leaves_the_proof_accepts_nothing() -> None:
    assert TREE.accepted(["1-5", "13-17"]) == ()
    assert TREE.accepted(["3-7"]) == ()
    assert TREE.node(["1-5", "13-17"]) is None
    assert TREE.node([]) is None


def test_a_line_names_a_move_by_any_of_its_routes() -> None:
    two = ProofMove("32x14x5", 32, 5, (9, 23), ("32x14x5", "32x18x5"))
    tree = ProofTree((two,))
    assert tree.node(["32x18x5"]) is two
    assert tree.node(["32x14x5"]) is two


def test_find_matches_a_move_or_its_key_by_identity() -> None:
    board = Board("czech", "W:W15,21,25,29,31,K32:B9,23")
    move = board.parse_move("32x18x5")
    tree = solve(board, "capture").tree
    assert tree.find([], move) is tree.moves[0]
    assert tree.find([], move.key()) is tree.moves[0]
    assert tree.moves[0].key() == move.key()
    assert tree.find([], (32, 5, frozenset({9}))) is None


def test_the_stubborn_reply_delays_the_goal_longest() -> None:
    reply = TREE.stubborn_reply(["1-5"])
    assert reply is not None and reply.text == "9-13"


def test_stubborn_replies_of_equal_delay_prefer_the_main_line_then_the_longest_capture() -> None:
    # after 1-5 9-13 5-1 the only reply is 20-24; build ties below
    a, b = pm("7-10", pm("5-8")), pm("8x17", pm("5-9"), captured=(12,))
    tie = ProofTree((pm("1-5", a, b),), solution=("1-5", "7-10", "5-8"))
    assert tie.stubborn_reply(["1-5"]) == a  # the main line's, though b captures
    off_main = ProofTree((pm("1-5", a, b),), solution=())
    assert off_main.stubborn_reply(["1-5"]) == b  # the longest capture


def test_no_stubborn_reply_once_the_goal_is_reached() -> None:
    assert TREE.stubborn_reply(["1-5", "12-16"]) is None
    assert TREE.stubborn_reply(["1-5", "9-13", "5-1", "20-24", "6-2"]) is None


def test_the_best_move_reaches_the_goal_soonest() -> None:
    best = TREE.best_move([])
    # 1-5 and 2-6 each need two more solver moves: the main line's wins; so after 9-13, where
    # 5-1 and 6-1 each need one more
    assert best is not None and best.text == "1-5"
    best = TREE.best_move(["1-5", "9-13"])
    assert best is not None and best.text == "5-1"
    assert TREE.best_move(["1-5", "12-16"]) is None


def test_the_best_move_prefers_the_quicker_one_over_the_main_line() -> None:
    slow = pm("1-5", pm("9-13", pm("5-1", pm("20-24", pm("6-2")))))
    quick = pm("2-6", pm("30-26"))
    tree = ProofTree((slow, quick), solution=("1-5", "9-13", "5-1", "20-24", "6-2"))
    assert tree.best_move([]) == quick


def test_duals_count_the_extra_accepted_moves() -> None:
    assert TREE.duals == 1  # 5-1 or 6-1 after 1-5 9-13
    assert TREE.size() == 18


def test_the_tree_of_a_solved_puzzle_answers_like_its_main_line() -> None:
    verdict = solve(Board("czech", SHOT), "gain:1", Limits(moves=2))
    tree = verdict.tree
    line = list(verdict.solution)
    best = tree.best_move([])
    assert best is not None and best.text == line[0]
    reply = tree.stubborn_reply(line[:1])
    assert reply is not None and reply.text == line[1]
    assert [m.text for m in tree.accepted(line[:2])] == [line[2]]


def test_the_json_form_is_the_verdicts_and_round_trips() -> None:
    verdict = solve(Board("czech", SHOT), "gain:1", Limits(moves=2))
    data = json.loads(verdict.to_json())
    tree = ProofTree.from_dict(data)
    assert tree == verdict.tree
    dumped = tree.to_dict()
    assert {k: data[k] for k in dumped} == dumped
    assert Verdict.from_dict(data).tree == tree


def test_stored_proof_json_stays_readable() -> None:
    """The form stored in the database and in PDN ``Proof`` tags (keys ``move``, ``start``,
    ``end``, ``captured``, ``routes``, ``replies``, optional ``expanded``)."""
    stored = {
        "kind": "unique",
        "solution": ["22-17", "13x22", "25x18x11"],
        "proof_complete": False,
        "proof": [
            {
                "move": "22-17",
                "start": 22,
                "end": 17,
                "captured": [],
                "routes": ["22-17"],
                "replies": [
                    {
                        "move": "13x22",
                        "start": 13,
                        "end": 22,
                        "captured": [17],
                        "routes": ["13x22"],
                        "replies": [
                            {
                                "move": "25x18x11",
                                "start": 25,
                                "end": 11,
                                "captured": [22, 15],
                                "routes": ["25x18x11"],
                                "replies": [],
                                "expanded": False,
                            }
                        ],
                    }
                ],
            }
        ],
    }
    tree = ProofTree.from_dict(stored)
    assert not tree.complete
    (last,) = tree.accepted(["22-17", "13x22"])
    assert last.key() == (25, 11, frozenset({15, 22})) and not last.expanded
    assert ProofTree.from_dict(tree.to_dict()) == tree
    assert ProofTree.from_dict({}) == ProofTree()
