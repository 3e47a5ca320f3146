"""The square trainer by keyboard alone (docs/squares.md): start a run, Tab to the board, move
the cursor with the arrow keys by what it says (where each square stands, never its name) and
choose with Enter, from Black's side; name a marked square by typing. No clicks, no focus()."""

from __future__ import annotations

import json
import re

import pytest

from core.board import square_label, square_place
from puzzles.models import Attempt
from squares.models import SquareRun
from tests.browser.test_a11y import log_in, prepare, violations
from tests.browser.test_keyboard import expect, tab_to
from tests.puzzle_fixtures import make_puzzle

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def long_runs(monkeypatch):
    """A run of ten minutes here: a machine busy with other tests must not run out of the
    30 s while the browser walks (the clock itself is tested with a fake one,
    tests/web/test_squares.py)."""
    monkeypatch.setattr("squares.models.RUN_SECONDS", 600)


PLACE = re.compile(r"column (\d+) from the left, row (\d+) from the bottom")


def start_by_keyboard(page, variant: str, query: str) -> SquareRun:
    page.goto(page.base_url + f"/squares/{variant}/?{query}")
    tab_to(page, '[data-testid="squares-start"] button[type=submit]')
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/squares/run/\d+/$"))
    return SquareRun.objects.get(pk=int(re.search(r"/run/(\d+)/", page.url).group(1)))


def walk_to(page, run: SquareRun) -> None:
    """Arrow keys until the cursor stands on the square asked (read back from the status line)."""
    column, row = square_place(run.variant, run.square, flipped=run.flipped)
    status = page.locator('[data-testid="squares-status"]')
    for _ in range(60):
        page.keyboard.press("ArrowRight")  # say where the cursor is (it may stay at an edge)
        now = PLACE.search(status.inner_text())
        at = (int(now.group(1)), int(now.group(2)))
        if at == (column, row):
            return
        if at[1] != row:
            page.keyboard.press("ArrowUp" if row > at[1] else "ArrowDown")
        elif at[0] > column:
            page.keyboard.press("ArrowLeft")
            page.keyboard.press("ArrowLeft")
        now = PLACE.search(status.inner_text())
        if (int(now.group(1)), int(now.group(2))) == (column, row):
            return
    raise AssertionError(f"the cursor did not reach {column}, {row}")


def test_find_squares_from_blacks_side_by_keyboard(page):
    run = start_by_keyboard(page, "brazilian", "notation=names&side=black&mode=find")
    check = expect()
    check(page.locator("#squares-board")).to_have_attribute("data-flipped", "1")
    label = square_label("brazilian", run.square, algebraic=True)
    check(page.locator('[data-testid="squares-prompt"]')).to_have_text(f"Click the square {label}.")
    tab_to(page, "#squares-board .board-svg")
    for n in (1, 2):
        # the board has the focus (again, after each answer: the keyboard stays on it) and is set
        # up: htmx gives the new board the focus when it swaps it in, but board.js listens to its
        # keys only when htmx settles it (data-board-ready), and a key pressed in between is lost
        check(page.locator("#squares-board[data-board-ready] .board-svg")).to_be_focused()
        run.refresh_from_db()
        walk_to(page, run)
        page.keyboard.press("Enter")
        noun = "square" if n == 1 else "squares"
        check(page.locator('[data-testid="squares-score"]')).to_contain_text(f"Score: {n} {noun}.")
        check(page.locator('[data-testid="squares-status"]')).to_contain_text("Right:")
    run.refresh_from_db()
    assert (run.score, run.misses) == (2, 0)


def test_name_a_marked_square_by_typing(page):
    run = start_by_keyboard(page, "international", "notation=numbers&side=white&mode=name")
    check = expect()
    column, row = square_place("international", run.square, flipped=False)
    prompt = page.locator('[data-testid="squares-prompt"]')
    check(prompt).to_contain_text(f"column {column} from the left, row {row} from the bottom")
    tab_to(page, "#squares-answer")
    page.keyboard.type(str(run.square))
    page.keyboard.press("Enter")
    check(page.locator('[data-testid="squares-score"]')).to_contain_text("Score: 1 square.")
    # the answer box has the focus again for the next square
    run.refresh_from_db()
    page.keyboard.type(str(run.square))
    page.keyboard.press("Enter")
    check(page.locator('[data-testid="squares-score"]')).to_contain_text("Score: 2 squares.")


def test_the_trainers_pages_have_no_serious_accessibility_or_csp_violations(
    page, live_server, student
):
    """axe-core and the Content-Security-Policy (tests/browser/test_a11y.py) on the square
    trainer's settings, a run in each mode, and a puzzle's every-defence page."""
    prepare(page)
    puzzle = make_puzzle("czech_two_defences")
    Attempt.objects.create(user=student, puzzle=puzzle, solved=True, position=puzzle.fen)
    found = {}
    for path in ["/squares/czech/", "/squares/international/"]:
        found[path] = violations(page, path)
    for query in ("notation=names&side=black&mode=find", "notation=numbers&side=white&mode=name"):
        start_by_keyboard(page, "czech", query)
        found[query] = violations(page)
    log_in(page, live_server, student)
    path = f"/puzzles/czech/{puzzle.pk}/defences/"
    found[path] = violations(page, path)
    found = {k: v for k, v in found.items() if v}
    assert found == {}, json.dumps(found, indent=1)
