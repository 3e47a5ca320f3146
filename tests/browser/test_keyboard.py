"""Keyboard only, from the top of the page: Tab to the board of a lesson step and answer with the
arrow keys and Enter; Tab to a puzzle's move field, type the moves and press Enter. No clicks, no
focus() from the test."""

from __future__ import annotations

import pytest

from tests.puzzle_fixtures import make_puzzle

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def expect():
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect


def tab_to(page, selector: str, limit: int = 80) -> None:
    """Press Tab until the focused element matches ``selector``."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(
            "s => !!document.activeElement && document.activeElement.matches(s)", selector
        ):
            return
    raise AssertionError(f"{selector} was not reached with {limit} presses of Tab")


def test_a_lesson_step_by_keyboard_alone(page):
    from lessons.course import get_course

    step = get_course("czech").steps[0]  # click the square h8 (4)
    page.goto(page.base_url + f"/learn/czech/{step.lesson.slug}/{step.slug}/")
    tab_to(page, "#answer-text, input[name=answer]")
    page.keyboard.type("4")
    page.keyboard.press("Enter")
    check = expect()
    check(page.locator("#lesson-feedback")).to_contain_text("Right:")
    tab_to(page, '[data-testid="next-step"]')
    page.keyboard.press("Enter")
    check(page.locator(".step-count")).to_contain_text("Step 2 of")
    # the board itself answers to the keyboard: Tab to it, a cursor appears, Enter picks
    tab_to(page, "#lesson-board .board-svg")
    check(page.locator(".board-overlay .mark-cursor")).to_have_count(1)


def test_a_puzzle_by_keyboard_alone(page):
    puzzle = make_puzzle("czech_gain")
    page.goto(page.base_url + f"/puzzles/czech/{puzzle.pk}/")
    check = expect()
    first, second = puzzle.proof["solution"][0], puzzle.proof["solution"][2]
    tab_to(page, "#trainer-move")
    page.keyboard.type(first)
    page.keyboard.press("Enter")
    check(page.locator("#trainer")).to_have_attribute("data-state", "playing")
    tab_to(page, "#trainer-move")
    page.keyboard.type(second)
    page.keyboard.press("Enter")
    check(page.locator("#trainer")).to_have_attribute("data-state", "solved")
