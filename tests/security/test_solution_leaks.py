"""No solution leaks: while an attempt is not finished, no page or partial the player gets (the
puzzle page, a hint, an unreadable move, a right first move, the daily page, a set's puzzle)
contains a move of the solution still to be found, nor the proof."""

from __future__ import annotations

import re

import pytest

from puzzles import engine
from tests.puzzle_fixtures import PUZZLES, make_puzzle

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


def without_svg(html: str) -> str:
    return re.sub(r"<svg.*?</svg>", "", html, flags=re.S)


def assert_no_moves(html: str, moves: list[str], where: str) -> None:
    text = without_svg(html)
    for move in moves:
        assert move not in text, (where, move)
    assert '"replies"' not in html and "data-moves" not in html, where


@pytest.mark.parametrize("name", list(PUZZLES))
def test_no_partial_of_an_unfinished_attempt_gives_the_solution_away(client, name):
    puzzle = make_puzzle(name)
    solution = puzzle.proof["solution"]
    texts = engine.line_texts(puzzle.variant, puzzle.fen, solution)
    solver_moves = [*solution[::2], *texts[::2]]
    html = client.get(f"/puzzles/{puzzle.variant}/{puzzle.pk}/").content.decode()
    assert_no_moves(html, solver_moves, "page")
    attempt = re.search(r'data-attempt="(\d+)"', html).group(1)
    base = f"/puzzles/attempt/{attempt}"
    hint = client.post(f"{base}/hint", **HX).content.decode()
    assert_no_moves(hint, solver_moves, "hint")
    bad = client.post(f"{base}/move", {"move": "22-"}, **HX)
    assert bad.status_code == 400
    assert_no_moves(bad.content.decode(), solver_moves, "unreadable move")
    if len(solution) > 2:
        right = client.post(f"{base}/move", {"move": solution[0]}, **HX).content.decode()
        assert_no_moves(right, [*solution[2::2], *texts[2::2]], "after the first move")
    # once shown, the solution is there: the check above can see it
    shown = client.post(f"{base}/solution", **HX).content.decode()
    assert any(m in without_svg(shown) for m in texts), "the replay shows the solution"


def test_the_daily_page_has_no_solution(client):
    puzzles = [make_puzzle(n) for n in PUZZLES if PUZZLES[n]["variant"] == "czech"]
    html = client.get("/daily/czech/").content.decode()
    for puzzle in puzzles:
        texts = engine.line_texts(puzzle.variant, puzzle.fen, puzzle.proof["solution"])
        assert_no_moves(html, [*puzzle.proof["solution"][::2], *texts[::2]], "daily")
