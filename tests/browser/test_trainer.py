"""In Chromium: a player solves a Czech, an international and a Brazilian puzzle by clicking
(multi-jumps landing by landing, the defender's reply played by the site), has an illegal move
explained without it counting and then solves the puzzle for a signed rating gain, fails one with
a legal wrong move and reads the refutation, and solves the daily puzzle to start a streak."""

from __future__ import annotations

import re

import pytest

from tests.puzzle_fixtures import make_puzzle

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def expect():
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect


def click(page, *squares: int) -> None:
    for n in squares:
        page.locator(f'#trainer-board [data-square="{n}"]').first.click()


def feedback(page):
    return page.locator('[data-testid="feedback"]')


def open_puzzle(page, puzzle) -> None:
    page.goto(f"{page.base_url}/puzzles/{puzzle.variant}/{puzzle.pk}/")
    expect()(page.locator('[data-testid="goal"]')).to_be_visible()


def test_czech_multi_jump_clicked_landing_by_landing(page):
    puzzle = make_puzzle("czech_capture")
    open_puzzle(page, puzzle)
    check = expect()
    check(page.locator('[data-testid="goal"]')).to_have_text(
        "White to play: find the forced multi-jump."
    )
    click(page, 28, 19)
    check(page.locator("#trainer-board")).to_have_attribute("data-path", "28,19")
    click(page, 12)
    check(page.locator("#trainer-board")).to_have_attribute("data-path", "28,19,12")
    click(page, 3)
    check(page.locator('[data-testid="solved"]')).to_contain_text("Solved!")
    check(page.locator('[data-testid="rating-change"]')).to_be_visible()
    # the rating line outside the trainer was swapped out of band with the new rating
    check(page.locator('[data-testid="trainer-meta"]')).to_have_count(1)
    check(page.locator('[data-testid="trainer-meta"]')).to_contain_text("Your rating:")
    check(page.locator('[data-testid="trainer-meta"]')).not_to_contain_text("Your rating: 1500")
    # the solution replay steps through its frames
    check(page.locator("[data-replay-count]")).to_contain_text("1 / 2")
    page.locator("[data-replay-next]").click()
    check(page.locator("[data-replay-count]")).to_contain_text("2 / 2")


def test_international_capture_by_clicks(page):
    puzzle = make_puzzle("international_capture")
    open_puzzle(page, puzzle)
    click(page, 36, 27, 18, 29)
    expect()(page.locator('[data-testid="solved"]')).to_contain_text("Solved!")


def test_brazilian_combination_with_the_defenders_reply(page):
    puzzle = make_puzzle("brazilian_gain")
    open_puzzle(page, puzzle)
    check = expect()
    click(page, 27, 24)
    check(feedback(page)).to_contain_text("Right! Black answers")
    check(page.locator("#trainer-board")).to_have_attribute("data-animate", "20,27")
    # landing by landing, each shown before the next click (as a player sees it)
    click(page, 31, 24)
    check(page.locator("#trainer-board")).to_have_attribute("data-path", "31,24")
    click(page, 15)
    check(page.locator("#trainer-board")).to_have_attribute("data-path", "31,24,15")
    click(page, 22)
    check(page.locator('[data-testid="solved"]')).to_contain_text("Solved!")


def test_clicks_on_a_board_not_yet_set_up_are_played_once_it_is(page):
    """htmx sets a new board up only when it settles: clicks made on it before are kept, not lost.

    The settle delay is raised from htmx's 20 ms to 1.5 s so that the clicks land in it for sure."""
    puzzle = make_puzzle("brazilian_gain")
    open_puzzle(page, puzzle)
    check = expect()
    page.evaluate("htmx.config.defaultSettleDelay = 1500")
    click(page, 27, 24)
    check(feedback(page)).to_contain_text("Right! Black answers")
    board = page.locator("#trainer-board")
    # the new board is in the page and not yet set up when the next move's clicks come
    assert board.get_attribute("data-board-ready") is None
    click(page, 31, 24)
    assert board.get_attribute("data-board-ready") is None
    check(board).to_have_attribute("data-board-ready", "1")
    check(board).to_have_attribute("data-path", "31,24")
    page.evaluate("htmx.config.defaultSettleDelay = 20")
    click(page, 15)
    check(board).to_have_attribute("data-path", "31,24,15")
    click(page, 22)
    check(page.locator('[data-testid="solved"]')).to_contain_text("Solved!")


def test_an_illegal_move_is_explained_and_not_counted_then_solving_gains_signed_rating(page):
    check = expect()
    capture = make_puzzle("czech_capture")
    open_puzzle(page, capture)
    click(page, 17, 13)  # a quiet move while a capture is compulsory
    check(feedback(page)).to_contain_text("That move is not allowed.")
    check(feedback(page)).to_contain_text("CUD 2006")
    check(feedback(page)).to_contain_text("An illegal move is not counted as a mistake")
    check(page.locator('[data-testid="rating-change"]')).to_have_count(0)
    check(page.locator('[data-testid="retry"]')).to_have_count(0)
    check(page.locator('[data-testid="trainer"]')).to_have_attribute("data-state", "playing")
    # the same position: the capture is still there to be played, and the solve is a clean one
    click(page, 28, 19, 12, 3)
    check(page.locator('[data-testid="solved"]')).to_have_text("Solved!")
    check(page.locator('[data-testid="rating-change"]')).to_have_text(re.compile(r"^Rating \+\d+$"))
    check(page.locator('[data-testid="trainer-meta"]')).not_to_contain_text("Your rating: 1500")


def test_failing_a_puzzle_is_explained_then_solved_after_a_retry(page):
    check = expect()
    gain = make_puzzle("czech_gain")
    open_puzzle(page, gain)
    click(page, 21, 17)
    check(feedback(page)).to_contain_text("is legal but does not win: this lets Black play")
    # a legal wrong move is the mistake that fails the puzzle: rated, with its sign
    check(page.locator('[data-testid="rating-change"]')).to_have_text(re.compile(r"^Rating -\d+$"))
    check(page.locator('[data-testid="refutation"] svg')).to_be_visible()
    page.locator('[data-testid="retry"]').click()
    check(feedback(page)).to_contain_text("Back to the start position.")
    page.locator('[data-testid="hint-button"]').click()
    check(page.locator('[data-testid="hint"]')).to_be_visible()
    click(page, 22, 17)
    check(feedback(page)).to_contain_text("Right! Black answers 13x22.")
    page.fill("#trainer-move", "25x18x11")
    page.locator('[data-testid="play"]').click()
    check(page.locator('[data-testid="solved"]')).to_contain_text("Solved, after a mistake.")


def test_daily_puzzle_solved_starts_the_streak(page):
    make_puzzle("czech_capture", fen="W:W22:B18", motifs=["capture:1"])
    check = expect()
    page.goto(page.base_url + "/daily/czech/")
    check(page.locator("h1")).to_have_text("Daily puzzle: Czech draughts")
    check(page.locator('[data-testid="streak"]')).to_contain_text("Streak: 0 days")
    click(page, 22, 15)
    check(page.locator('[data-testid="solved"]')).to_contain_text("Solved!")
    check(page.locator('[data-testid="streak"]')).to_contain_text("Streak: 1 day")
    page.goto(page.base_url + "/daily/czech/archive/")
    check(page.locator('[data-testid="streak"]')).to_contain_text("Your streak: 1 day")
