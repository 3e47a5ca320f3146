"""In Chromium: the home page, switching language and variant, and moves on the board."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def square(page, n: int):
    return page.locator(f'.board-widget [data-square="{n}"]').first


def test_home_page_switch_language_and_variant_then_move_by_clicking(page):
    from playwright.sync_api import expect

    page.goto(page.base_url + "/")
    expect(page.locator("h1")).to_have_text("Learn to play draughts")
    expect(page.locator("html")).to_have_attribute("lang", "en")

    page.locator('.language-switcher button[data-language="cs"]').click()  # in the header
    expect(page.locator("html")).to_have_attribute("lang", "cs")
    expect(page.locator("h1")).to_have_text("Nauč se hrát dámu")

    page.locator("[data-menu-toggle]").click()  # the phone's menu
    page.locator('[data-testid="settings-menu"]').click()  # the variant menu in it
    page.locator('.variant-switcher a[data-variant="international"]').click()
    board = page.locator(".board-widget")
    expect(board).to_have_attribute("data-variant", "international")
    expect(board).to_have_attribute(
        "data-fen",
        "W:W31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20",
    )

    square(page, 32).click()
    targets = page.locator(".board-overlay .mark-target")
    expect(targets).to_have_count(2)  # 32-27 and 32-28, shown at once
    square(page, 28).click()
    expect(page.locator("[data-board-status]")).to_have_text("Zahráno 32-28.")
    expect(page.locator(".board-widget")).to_have_attribute(
        "data-fen",
        "B:W28,31,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50:B1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20",
    )
    expect(page.locator(".turn")).to_contain_text("Na tahu je černý")


def test_a_multi_capture_is_entered_landing_by_landing(page, live_server):
    """Brazilian: the white man on c3 must take two pieces, landing on e5 and then c7."""
    page.goto(page.base_url + "/?variant=brazilian")
    from playwright.sync_api import expect

    fen = "W:W22:B18,10,1"  # man c3 (22); black men d4 (18), d6 (10), b8 (1)
    page.evaluate(
        """fen => { const w = document.querySelector('.board-widget'); w.querySelector('[name=fen]').value = fen; }""",
        fen,
    )
    page.locator("[data-move-input]").fill("c3-d4")  # illegal: capture is compulsory
    page.locator(".move-form button[type=submit]").click()
    status = page.locator("[data-board-status]")
    expect(status).to_have_class("board-status error")
    expect(page.locator(".board-widget")).to_have_attribute("data-fen", "W:W22:B1,10,18")

    square(page, 22).click()
    expect(page.locator(".board-overlay .mark-target")).to_have_count(1)
    square(page, 15).click()  # e5: the capture goes on
    expect(status).to_contain_text("capture goes on")
    square(page, 6).click()  # c7: done
    expect(status).to_contain_text("Played")
    expect(page.locator(".board-widget")).to_have_attribute("data-fen", "B:W6:B1")


def test_the_board_works_by_keyboard(page):
    from playwright.sync_api import expect

    page.goto(page.base_url + "/?variant=czech")
    board = page.locator(".board-svg")
    board.focus()
    expect(page.locator(".board-overlay .mark-cursor")).to_have_count(1)
    page.keyboard.press("Enter")  # picks the first piece that can move (21: a3)
    expect(page.locator(".board-overlay .mark-target")).to_have_count(1)
    page.keyboard.press("ArrowUp")  # a3 -> b4, the only target
    page.keyboard.press("Enter")
    expect(page.locator("[data-board-status]")).to_contain_text("Played 21-17")
    expect(page.locator(".board-svg")).to_be_focused()
