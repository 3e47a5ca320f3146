"""The board as good to use as lichess's (issue 15), in Chromium on a desktop and a 390x844 phone:
the side it is seen from and the flip button, a capture drawn landing by landing, the legal
destinations where they give nothing away, the board's size and the phone, the keyboard (skip
link, focus after a finished puzzle or step, the cursor only for the keyboard) and the marks of an
explanation with their meaning and legend."""

from __future__ import annotations

import pytest

from tests.browser.test_lessons import log_in_after, steps_before
from tests.puzzle_fixtures import make_puzzle

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
SIZES = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])


def expect():
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect


def square(page, widget: str, n: int):
    return page.locator(f'{widget} [data-square="{n}"]').first


def centre(page, widget: str, n: int) -> tuple[float, float]:
    box = square(page, widget, n).bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def coordinates(page, widget: str, cls: str) -> list[str]:
    """The a-h or 1-8 labels along an edge, in the order they stand on the screen."""
    return page.evaluate(
        """([widget, cls]) => Array.from(document.querySelectorAll(widget + ' svg text.' + cls))
            .map(t => [t.getBoundingClientRect()[cls === 'file' ? 'x' : 'y'], t.textContent])
            .sort((a, b) => a[0] - b[0]).map(p => p[1])""",
        [widget, cls],
    )


def jumped(page, widget: str) -> list[int]:
    return page.evaluate(
        """w => Array.from(document.querySelectorAll(w + ' .is-jumped'))
            .map(e => Number(e.dataset.square)).sort((a, b) => a - b)""",
        widget,
    )


# -- orientation ------------------------------------------------------------------------------------


def test_a_puzzle_black_solves_is_seen_from_blacks_side_and_the_flip_button_turns_it(page):
    puzzle = make_puzzle("international_gain")  # Black: 27x38x49 or 27x29
    page.goto(f"{page.base_url}/puzzles/international/{puzzle.pk}/")
    check = expect()
    board = "#trainer-board"
    check(page.locator(f"{board} svg")).to_have_attribute("data-flipped", "1")
    # Black's side: square 1 (Black's back row) at the bottom, 50 at the top
    assert centre(page, board, 1)[1] > centre(page, board, 50)[1]
    # the numbers stay upright: each is drawn in its square's top-left corner
    label = page.locator(f'{board} [data-square="1"] text').bounding_box()
    box = square(page, board, 1).bounding_box()
    assert label["y"] < box["y"] + box["height"] / 2 and label["x"] < box["x"] + box["width"] / 2

    flip = page.locator(f"{board} [data-board-flip]")
    flip.click()
    check(flip).to_have_attribute("aria-pressed", "true")
    check(page.locator(f"{board} svg")).to_have_attribute("data-flipped", "0")
    assert centre(page, board, 1)[1] < centre(page, board, 50)[1]
    flip.click()
    check(page.locator(f"{board} svg")).to_have_attribute("data-flipped", "1")

    # clicks find the squares where they now stand
    square(page, board, 27).click()
    square(page, board, 38).click()
    check(page.locator(board)).to_have_attribute("data-path", "27,38")
    check(page.locator(f'{board} [data-square="38"] [data-piece="bm"]')).to_have_count(1)
    # the keyboard cursor moves to the square that stands to the right on the screen
    check(page.locator(f"{board}-svg")).to_be_focused()
    page.keyboard.press("Escape")
    check(page.locator(f"{board} .is-selected")).to_have_count(0)
    page.keyboard.press("ArrowRight")
    before = page.locator(f"{board} .is-cursor").get_attribute("data-square")
    page.keyboard.press("ArrowRight")
    after = page.locator(f"{board} .is-cursor").get_attribute("data-square")
    assert before and after and before != after
    assert centre(page, board, int(after))[0] > centre(page, board, int(before))[0]


def test_brazilian_coordinates_read_from_blacks_side_on_the_daily_puzzle(page):
    make_puzzle("brazilian_capture")  # Black to play
    page.goto(page.base_url + "/daily/brazilian/")
    check = expect()
    board = "#trainer-board"
    check(page.locator(f"{board} svg")).to_have_attribute("data-flipped", "1")
    assert coordinates(page, board, "file") == list("hgfedcba")
    assert coordinates(page, board, "rank") == list("12345678")
    page.locator(f"{board} [data-board-flip]").click()
    check(page.locator(f"{board} svg")).to_have_attribute("data-flipped", "0")
    assert coordinates(page, board, "file") == list("abcdefgh")
    assert coordinates(page, board, "rank") == list("87654321")
    # the square's name still says which square it is
    name = square(page, board, 1).get_attribute("data-name")
    assert name == "b8"


def test_a_lesson_step_with_black_to_move_is_seen_from_blacks_side(page, django_user_model):
    log_in_after(page, django_user_model, "czech", steps_before("czech", "cz-black-replies"))
    page.goto(page.base_url + "/learn/czech/")
    page.locator('[data-testid="resume"]').click()
    check = expect()
    check(page.locator("h1")).not_to_have_text("")
    check(page.locator("#lesson-board svg")).to_have_attribute("data-flipped", "1")
    assert centre(page, "#lesson-board", 1)[1] > centre(page, "#lesson-board", 32)[1]


def test_a_board_with_white_to_move_is_seen_from_whites_side(page):
    make_puzzle("czech_capture")
    page.goto(page.base_url + "/puzzles/czech/")
    expect()(page.locator("#trainer-board svg")).to_have_attribute("data-flipped", "0")
    assert centre(page, "#trainer-board", 1)[1] < centre(page, "#trainer-board", 32)[1]


# -- a capture landing by landing -----------------------------------------------------------------


def test_a_multi_capture_is_drawn_landing_by_landing_and_taken_back(page):
    puzzle = make_puzzle("czech_capture")  # 28x19x12x3 jumps 24, 16 and 8
    page.goto(f"{page.base_url}/puzzles/czech/{puzzle.pk}/")
    check = expect()
    board = "#trainer-board"
    square(page, board, 28).click()
    square(page, board, 19).click()
    check(page.locator(board)).to_have_attribute("data-path", "28,19")
    # the man stands on its landing, the jumped piece is crossed, the route so far is drawn
    check(page.locator(f'{board} [data-square="19"] [data-piece="wm"]')).to_have_count(1)
    check(page.locator(f'{board} [data-square="28"] [data-piece]')).to_have_count(0)
    assert jumped(page, board) == [24]
    check(page.locator(f"{board} .board-overlay .mark-path")).to_have_count(1)
    square(page, board, 12).click()
    check(page.locator(board)).to_have_attribute("data-path", "28,19,12")
    check(page.locator(f'{board} [data-square="12"] [data-piece="wm"]')).to_have_count(1)
    assert jumped(page, board) == [16, 24]

    # Backspace takes one landing back
    check(page.locator(f"{board}-svg")).to_be_focused()
    page.keyboard.press("Backspace")
    check(page.locator(f'{board} [data-square="19"] [data-piece="wm"]')).to_have_count(1)
    check(page.locator(f'{board} [data-square="12"] [data-piece]')).to_have_count(0)
    assert jumped(page, board) == [24]
    check(page.locator("[data-board-status]")).to_contain_text("taken back")
    # a click on the last landing takes it back too: the man is only picked again
    square(page, board, 19).click()
    check(page.locator(f'{board} [data-square="28"] [data-piece="wm"]')).to_have_count(1)
    assert jumped(page, board) == []
    check(page.locator(f"{board} .board-overlay .mark-path")).to_have_count(0)
    # Escape cancels
    page.keyboard.press("Escape")
    check(page.locator(f"{board} .is-selected")).to_have_count(0)
    # and the route entered again solves the puzzle
    for n in (28, 19, 12, 3):
        square(page, board, n).click()
    check(page.locator('[data-testid="solved"]')).to_contain_text("Solved")


# -- targets --------------------------------------------------------------------------------------


def test_a_material_puzzle_shows_where_a_picked_piece_can_go(page):
    puzzle = make_puzzle("czech_gain")  # 22-17! (quiet moves only in the first position)
    page.goto(f"{page.base_url}/puzzles/czech/{puzzle.pk}/")
    check = expect()
    board = "#trainer-board"
    square(page, board, 22).click()
    check(page.locator(f"{board} .is-target")).to_have_count(2)
    targets = page.evaluate(
        """() => Array.from(document.querySelectorAll('#trainer-board .is-target'))
            .map(e => Number(e.dataset.square)).sort((a, b) => a - b)"""
    )
    assert targets == [17, 18]
    check(page.locator("[data-board-status]")).to_contain_text("It can go to: 17, 18")
    # another of one's own pieces picks that one instead
    square(page, board, 27).click()
    check(page.locator(f"{board} .is-target")).to_have_count(2)


def test_a_capture_puzzle_and_a_capture_lesson_show_no_targets(page, django_user_model):
    puzzle = make_puzzle("czech_capture")
    page.goto(f"{page.base_url}/puzzles/czech/{puzzle.pk}/")
    check = expect()
    assert page.locator("#trainer-board").get_attribute("data-targets") is None
    square(page, "#trainer-board", 28).click()
    check(page.locator("#trainer-board .is-selected")).to_have_count(1)
    check(page.locator("#trainer-board .is-target")).to_have_count(0)

    log_in_after(page, django_user_model, "czech", steps_before("czech", "cz-multi-capture"))
    page.goto(page.base_url + "/learn/czech/")
    page.locator('[data-testid="resume"]').click()
    check(page.locator("#lesson-board")).to_have_attribute("data-fen", "W:W30:B11,19,26")
    assert page.locator("#lesson-board").get_attribute("data-targets") is None
    square(page, "#lesson-board", 30).click()
    check(page.locator("#lesson-board .is-target")).to_have_count(0)


def test_a_lesson_about_a_quiet_move_shows_the_targets(page, django_user_model):
    log_in_after(page, django_user_model, "czech", steps_before("czech", "cz-man-blocked"))
    page.goto(page.base_url + "/learn/czech/")
    page.locator('[data-testid="resume"]').click()
    check = expect()
    board = "#lesson-board"
    assert page.locator(board).get_attribute("data-targets")
    square(page, board, 25).click()
    check(page.locator(f"{board} .is-target")).not_to_have_count(0)
    check(page.locator(f'{board} [data-square="22"].is-target')).to_have_count(1)


# -- the size of the board and the phone ------------------------------------------------------------


@SIZES
def test_the_board_takes_the_width_it_can_and_fits_a_phone(page, django_user_model, viewport):
    make_puzzle("czech_capture", fen="W:W22:B18", motifs=["capture:1"])
    puzzle = make_puzzle("international_gain")
    page.set_viewport_size(viewport)
    urls = [f"/puzzles/international/{puzzle.pk}/", "/puzzles/czech/", "/daily/czech/"]
    log_in_after(page, django_user_model, "czech", steps_before("czech", "cz-man-blocked"))
    from lessons.course import get_course

    step = next(s for s in get_course("czech").steps if s.slug == "cz-man-blocked")
    urls.append(f"/learn/czech/{step.lesson.slug}/{step.slug}/")
    for url in urls:
        page.goto(page.base_url + url)
        box = page.locator(".board-widget:not(.solved) .board-svg svg").first.bounding_box()
        assert box is not None, url
        if viewport is PHONE:
            # the full width (the page's small margins aside), and all of it on the screen
            assert box["width"] >= viewport["width"] - 32, (url, box)
            assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], (url, box)
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        else:
            # as large as the window's height lets it be, all of it on the screen (issue 47)
            assert box["width"] >= 600, (url, box)
            assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], (url, box)
    # the goal and motif filters are folded away
    page.goto(f"{page.base_url}/puzzles/czech/{make_puzzle('czech_gain').pk}/")
    expect()(page.locator(".filters-fold")).not_to_have_attribute("open", "")
    expect()(page.locator('[data-testid="puzzle-filters"]')).to_be_hidden()


@pytest.mark.parametrize("course", ["czech", "international", "brazilian"])
def test_every_lesson_step_shows_its_whole_board_on_a_phone(page, course):
    from lessons.course import get_course

    page.set_viewport_size(PHONE)
    for step in get_course(course).steps:
        page.goto(page.base_url + f"/learn/{course}/{step.lesson.slug}/{step.slug}/")
        box = page.locator("#lesson-board .board-svg svg").bounding_box()
        assert box is not None, step.slug
        assert box["width"] >= PHONE["width"] - 32, (step.slug, box)
        assert box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], (step.slug, box)


# -- keyboard and screen reader -----------------------------------------------------------------------


def tabs_to_board(page) -> int:
    for n in range(1, 60):
        page.keyboard.press("Tab")
        if page.evaluate("() => !!document.activeElement.closest('.board-svg')"):
            return n
    raise AssertionError("the board was not reached")


def test_the_skip_link_leads_to_the_board_and_few_tab_stops_come_before_it(page):
    make_puzzle("czech_capture", fen="W:W22:B18", motifs=["capture:1"])
    puzzle = make_puzzle("czech_gain")
    for url in ("/", f"/puzzles/czech/{puzzle.pk}/", "/puzzles/czech/", "/daily/czech/"):
        page.goto(page.base_url + url)
        page.keyboard.press("Tab")
        focused = page.evaluate("() => document.activeElement.textContent")
        assert focused == "Skip to the board", url
        page.keyboard.press("Enter")
        assert page.evaluate("() => !!document.activeElement.closest('.board-svg')"), url
        # by Tab alone: at most 16 stops before the board (19 to 24 before the compact header;
        # the main menu has grown by Play, Exams and Review since)
        page.goto(page.base_url + url)
        assert tabs_to_board(page) <= 16, url


def test_after_a_solved_puzzle_focus_is_on_the_next_puzzle(page):
    puzzle = make_puzzle("czech_capture", fen="W:W22:B18", motifs=["capture:1"])
    page.goto(f"{page.base_url}/puzzles/czech/{puzzle.pk}/")
    check = expect()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # the skip link: the board
    square(page, "#trainer-board", 22).click()
    square(page, "#trainer-board", 15).click()
    check(page.locator('[data-testid="solved"]')).to_be_visible()
    check(page.locator('[data-testid="next-puzzle"]')).to_be_focused()
    assert (
        page.locator('[data-testid="next-puzzle"]').get_attribute("aria-describedby")
        == "trainer-feedback"
    )


def test_after_a_finished_step_focus_is_on_the_next_step(page):
    from lessons.course import get_course

    step = get_course("czech").steps[0]  # click the square h8 (4)
    page.goto(page.base_url + f"/learn/czech/{step.lesson.slug}/{step.slug}/")
    square(page, "#lesson-board", 4).click()
    check = expect()
    check(page.locator("#lesson-feedback")).to_contain_text("Right:")
    check(page.locator('[data-testid="next-step"]')).to_be_focused()


def test_the_keyboard_cursor_shows_for_the_keyboard_and_not_after_a_click(page):
    page.goto(page.base_url + "/")
    check = expect()
    board = page.locator(".board-widget")
    square(page, ".board-widget", 22).click()
    check(board.locator(".is-selected")).to_have_count(1)
    check(board.locator(".board-overlay .mark-cursor")).to_have_count(0)
    page.keyboard.press("ArrowUp")
    check(board.locator(".board-overlay .mark-cursor")).to_have_count(1)
    square(page, ".board-widget", 22).click()
    check(board.locator(".board-overlay .mark-cursor")).to_have_count(0)


# -- marks with meaning ---------------------------------------------------------------------------


def test_an_illegal_move_marks_the_wrong_and_the_required_squares_with_a_legend(page):
    puzzle = make_puzzle("czech_capture")  # 28x3 is compulsory
    page.goto(f"{page.base_url}/puzzles/czech/{puzzle.pk}/")
    check = expect()
    page.locator("#trainer-move").fill("30-26")
    page.locator('[data-testid="play"]').click()
    check(page.locator('[data-testid="wrong"]')).to_be_visible()
    board = "#trainer-board"
    check(page.locator(f'{board} [data-square="30"].wrong')).to_have_count(1)
    check(page.locator(f'{board} [data-square="28"].required')).to_have_count(1)
    legend = page.locator(f'{board} [data-testid="mark-legend"]')
    check(legend).to_contain_text("where the move goes wrong")
    check(legend).to_contain_text("what the rules require")
    colours = page.evaluate(
        """() => ['30', '28'].map(n => document.querySelector(
            '#trainer-board [data-square="' + n + '"] rect.mark').getAttribute('fill'))"""
    )
    assert colours[0] != colours[1]


def test_a_jumped_piece_has_its_own_mark_and_the_legend_is_in_czech(chromium, live_server):
    from django.contrib.auth import get_user_model

    from tests.conftest import PASSWORD

    context = chromium.new_context(locale="cs-CZ", viewport=PHONE)
    page = context.new_page()
    page.set_default_timeout(15_000)
    try:
        page.base_url = live_server.url
        log_in_after(page, get_user_model(), "czech", steps_before("czech", "cz-multi-capture"))
        assert PASSWORD
        page.goto(page.base_url + "/learn/czech/")
        page.locator('[data-testid="resume"]').click()
        # 30x23x16x7: jumping 26 twice is a piece jumped twice (already_jumped)
        page.locator("#answer-input").fill("30x23x16x23")
        page.locator('[data-testid="check"]').click()
        check = expect()
        check(page.locator("#lesson-feedback")).not_to_be_empty()
        legend = page.locator('#lesson-board [data-testid="mark-legend"]')
        check(legend).to_be_visible()
        check(legend).to_contain_text("přeskočená figura")
        check(page.locator("#lesson-board .jumped")).not_to_have_count(0)
        check(page.locator("#lesson-board .wrong")).not_to_have_count(0)
    finally:
        context.close()


# -- accessibility of the new states --------------------------------------------------------------


def test_the_new_board_states_pass_axe_and_the_policy(page):
    from tests.browser.test_a11y import prepare, violations

    prepare(page)
    black = make_puzzle("international_gain")
    capture = make_puzzle("czech_capture")
    page.goto(f"{page.base_url}/puzzles/international/{black.pk}/")
    page.locator("#trainer-board [data-board-flip]").click()  # turned by the visitor
    page.locator("[data-menu-toggle]").click()  # the phone's menu open
    page.locator('[data-testid="settings-menu"]').click()  # and the variant menu in it
    assert violations(page) == []
    page.goto(f"{page.base_url}/puzzles/czech/{capture.pk}/")
    square(page, "#trainer-board", 28).click()
    square(page, "#trainer-board", 19).click()  # a capture under way
    expect()(page.locator("#trainer-board")).to_have_attribute("data-path", "28,19")
    assert violations(page) == []
    page.locator("#trainer-move").fill("30-26")
    page.locator('[data-testid="play"]').click()  # the marks and their legend
    expect()(page.locator('[data-testid="mark-legend"]')).to_be_visible()
    assert violations(page) == []
