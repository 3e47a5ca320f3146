"""In Chromium: a game against the computer in each variant, from a position near the end, to a
result: an illegal move explained with its article, a move clicked square by square, the
computer's reply announced, a takeback, then typed moves to the win, told with the rule that ends
the game; the replay steps through it. The computer plays at level 1 (instant: in the request,
no worker needed); the test chooses the player's moves with the engine."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: (variant, start position with White to move, a man move backwards, the article ending it)
GAMES = [
    ("czech", "W:W25,K30:B12", "25-29", "CUD 2006 art. 7.2c"),
    ("international", "W:W35,K46:B16", "35-40", "SDS international art. 7"),
    ("brazilian", "W:W25,K30:B12", "25-29", "SDS Brazilian art. 7"),
]


def expect():
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect


def game(page):
    return page.locator("#game")


def engine_move(variant: str, fen: str) -> tuple[tuple[int, ...], str]:
    """The move the test plays, its route and its notation: the engine's choice from the board
    on the page."""
    import dama
    from dama.search import search

    board = dama.Board(variant, fen)
    move = search(board, nodes=5000, seed=1).move  # the same move on any machine
    return tuple(move.routes[0]), board.move_text(move)


def wait_for_answer(page, version: str) -> None:
    """Until the game region was swapped for a newer version the player can read."""
    check = expect()
    check(game(page)).not_to_have_attribute("data-version", version)
    check(game(page)).to_have_attribute("data-state", _not_thinking())


def _not_thinking():
    import re

    return re.compile("^(player|over)$")


def click_route(page, route) -> None:
    for square in route:
        page.locator(f'#game-board [data-square="{square}"]').first.click()


@pytest.mark.parametrize(("variant", "fen", "backwards", "article"), GAMES)
def test_a_game_against_the_computer_to_a_result(page, variant, fen, backwards, article):
    check = expect()
    page.goto(f"{page.base_url}/play/{variant}/?fen={fen}&level=1")
    check(page.locator('[data-testid="from-position"]')).to_be_visible()
    check(page.locator('input[name="color"][value="white"]')).to_be_checked()
    page.get_by_test_id("start").click()
    check(game(page)).to_have_attribute("data-state", "player")
    feedback = page.get_by_test_id("feedback")
    check(feedback).to_have_attribute("aria-live", "polite")

    # an illegal move, typed: refused with the rule and its article, nothing changes
    page.locator("#game-move").fill(backwards)
    page.locator("#game-move").press("Enter")
    check(page.get_by_test_id("illegal")).to_be_visible()
    check(page.get_by_test_id("article")).to_contain_text("art.")
    check(game(page)).to_have_attribute("data-version", "0")

    # a move clicked square by square; the computer's reply is announced
    route, _text = engine_move(variant, page.locator("#game-board").get_attribute("data-fen"))
    click_route(page, route)
    wait_for_answer(page, "0")
    check(page.get_by_test_id("computer-move")).to_contain_text("The computer played")

    # take it back: the start position again
    page.get_by_test_id("takeback").click()
    check(page.get_by_test_id("taken-back")).to_be_visible()
    check(page.locator("#game-board")).to_have_attribute("data-fen", fen)
    check(page.get_by_test_id("moves")).to_have_count(0)

    # typed moves to the end
    for _ in range(12):
        if game(page).get_attribute("data-state") == "over":
            break
        version = game(page).get_attribute("data-version")
        board = page.locator("#game-board")
        _route, text = engine_move(variant, board.get_attribute("data-fen"))
        page.locator("#game-move").fill(text)
        page.locator("#game-move").press("Enter")
        wait_for_answer(page, version)
    check(game(page)).to_have_attribute("data-state", "over")
    check(page.get_by_test_id("result")).to_contain_text("You won!")
    check(page.get_by_test_id("end-article")).to_contain_text(article)

    # the replay steps through the game
    page.get_by_test_id("replay-link").click()
    check(page.locator("[data-replay-count]")).to_contain_text("1 / ")
    page.locator("[data-replay-next]").click()
    check(page.locator("[data-replay-count]")).to_contain_text("2 / ")


def test_the_play_pages_have_no_serious_accessibility_or_csp_violations(
    page, live_server, student, teacher
):
    from classroom.models import Classroom
    from play.models import Game
    from tests.browser.test_a11y import log_in, prepare, violations

    prepare(page)
    log_in(page, live_server, student)
    playing = Game.start(user=student, variant="czech", level=1, player_white=True)
    playing.play(text="22-18")
    over = Game.start(user=student, variant="czech", level=1, player_white=True, fen="W:W22:B18")
    over.play(text="22x15")
    classroom = Classroom.objects.create(name="4.B", variant="czech")
    classroom.teachers.add(teacher)
    classroom.memberships.create(user=student)
    found = {}
    paths = [
        "/play/czech/",
        "/play/czech/?fen=W:W25,K30:B12&from=puzzle",
        f"/play/game/{playing.pk}/",
        f"/play/game/{over.pk}/",
        f"/play/game/{playing.pk}/replay/",
        "/play/",
    ]
    for path in paths:
        bad = violations(page, path)
        if bad:
            found[path] = bad
    page.context.clear_cookies()
    log_in(page, live_server, teacher)
    for path in (f"/play/class/{classroom.pk}/", f"/play/game/{over.pk}/replay/"):
        bad = violations(page, path)
        if bad:
            found[path] = bad
    assert found == {}, found
