"""In Chromium: a learner walks through the first steps of each course, answers wrongly and reads
the engine's explanation, enters a multi-capture landing by landing, selects captures by clicking,
and answers by keyboard alone."""

from __future__ import annotations

import pytest
from django.utils import timezone

from tests.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# the click_square steps at the start of each course: the square to click
FIRST_SQUARES = {
    "czech": [4, 29, 23, 18, 12],  # h8 corner, a1, e3, 18, h6
    "international": [5, 50, 28, 31],
    "brazilian": [4, 32, 10, 22, 9],  # h8, g1, d6, 22, b6
}


def square(page, n: int):
    return page.locator(f'#lesson-board [data-square="{n}"]').first


def feedback(page):
    return page.locator("#lesson-feedback")


def expect():
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect


def click_route(page, *squares: int) -> None:
    for n in squares:
        square(page, n).click()


def walk_square_steps(page, course: str) -> None:
    """Answer the course's first click-the-square steps, going on with "Next step" each time."""
    check = expect()
    for n, target in enumerate(FIRST_SQUARES[course], start=1):
        check(page.locator(".step-count")).to_contain_text(f"Step {n} of")
        square(page, target).click()
        check(feedback(page)).to_contain_text("Right:")
        check(feedback(page)).to_contain_text("You earned 3 stars.")
        page.locator('[data-testid="next-step"]').click()


def log_in_after(page, django_user_model, course: str, slugs: list[str]) -> None:
    """A learner who has done ``slugs`` of ``course`` logs in."""
    from lessons.models import StepProgress

    user = django_user_model.objects.create_user("lucie", "lucie@example.com", PASSWORD)
    for slug in slugs:
        StepProgress.objects.create(
            user=user, course=course, step=slug, stars=3, attempts=1, completed_at=timezone.now()
        )
    page.goto(page.base_url + "/accounts/login/")
    page.fill("input[name=username]", "lucie")
    page.fill("input[name=password]", PASSWORD)
    page.locator("main form button[type=submit]").click()
    expect()(page.locator('[data-testid="profile-link"]')).to_have_text("lucie")


def steps_before(course: str, slug: str) -> list[str]:
    from lessons.course import get_course

    steps = get_course(course).steps
    index = next(i for i, s in enumerate(steps) if s.slug == slug)
    return [s.slug for s in steps[:index]]


def test_czech_learner_walks_the_first_steps_with_a_wrong_answer_explained(page):
    check = expect()
    page.goto(page.base_url + "/learn/czech/")
    page.locator('[data-testid="resume"]').click()
    check(page.locator("h1")).to_have_text("We play on the dark squares")

    square(page, 3).click()  # f8: dark, but not on the main diagonal
    check(feedback(page)).to_contain_text("f8 is dark, but it is not on the main diagonal")
    square(page, 4).click()
    check(feedback(page)).to_contain_text("You earned 2 stars.")
    page.locator('[data-testid="next-step"]').click()

    for target in FIRST_SQUARES["czech"][1:]:
        square(page, target).click()
        check(feedback(page)).to_contain_text("You earned 3 stars.")
        page.locator('[data-testid="next-step"]').click()

    check(page.locator("h1")).to_have_text("White starts")
    click_route(page, 11, 15)  # a black man: not White's
    check(feedback(page)).to_contain_text("That move is not allowed.")
    check(feedback(page)).to_contain_text("it is White's turn")
    check(feedback(page)).to_contain_text("Rule: CUD 2006 art. 3.3")
    check(page.locator('#lesson-board [data-square="11"].wrong')).to_have_count(1)
    click_route(page, 22, 18)
    check(feedback(page)).to_contain_text("Right: 22-18.")
    check(page.locator("#lesson-board")).to_have_attribute(
        "data-fen", "B:W18,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    )

    page.goto(page.base_url + "/learn/czech/")
    check(page.locator('[data-state="done"]')).to_have_count(6)
    check(page.locator('[data-step="cz-man-forward"]')).to_have_attribute("data-state", "next")


def test_international_learner_walks_the_first_steps_with_a_wrong_answer_explained(page):
    check = expect()
    page.goto(page.base_url + "/learn/international/")
    page.locator('[data-testid="resume"]').click()
    walk_square_steps(page, "international")
    check(page.locator(".step-count")).to_contain_text("Step 5 of")
    click_route(page, 32, 23)  # two rows at once
    check(feedback(page)).to_contain_text("That move is not allowed.")
    check(feedback(page)).to_contain_text("SDS international art. 2")
    page.locator("#answer-input").fill("32-28")
    page.locator('[data-testid="check"]').click()
    check(feedback(page)).to_contain_text("Right: 32-28.")
    check(feedback(page)).to_contain_text("You earned 2 stars.")


def test_brazilian_learner_walks_the_first_steps_in_algebraic_notation(page):
    check = expect()
    page.goto(page.base_url + "/learn/brazilian/")
    page.locator('[data-testid="resume"]').click()
    walk_square_steps(page, "brazilian")
    check(page.locator(".step-count")).to_contain_text("Step 6 of")
    page.locator("#answer-input").fill("c3-c5")  # straight ahead
    page.locator('[data-testid="check"]').click()
    check(feedback(page)).to_contain_text("That move is not allowed.")
    check(feedback(page)).to_contain_text("SDS Brazilian art. 2")
    page.locator("#answer-input").fill("c3-d4x")  # not even a move: a 400 in the partial
    page.locator('[data-testid="check"]').click()
    check(feedback(page)).to_contain_text("That answer cannot be read.")
    click_route(page, 22, 18)
    check(feedback(page)).to_contain_text("Right: c3-d4.")


def test_a_multi_capture_is_entered_by_clicks_landing_by_landing(page, django_user_model):
    check = expect()
    log_in_after(page, django_user_model, "czech", steps_before("czech", "cz-multi-capture"))
    page.goto(page.base_url + "/learn/czech/")
    page.locator('[data-testid="resume"]').click()
    check(page.locator("#lesson-board")).to_have_attribute("data-fen", "W:W30:B11,19,26")

    square(page, 30).click()
    check(page.locator("[data-board-status]")).to_contain_text("Piece on 30 chosen")
    square(page, 23).click()
    check(feedback(page)).to_contain_text("Landed on 23. The capture goes on")
    check(page.locator("#lesson-board")).to_have_attribute("data-path", "30,23")
    # the man is drawn on its landing, the jumped piece crossed, the route so far drawn
    check(page.locator('#lesson-board [data-square="23"] [data-piece="wm"]')).to_have_count(1)
    check(page.locator('#lesson-board [data-square="30"] [data-piece]')).to_have_count(0)
    check(page.locator('#lesson-board [data-square="26"].is-jumped')).to_have_count(1)
    check(page.locator(".board-overlay .mark-path")).to_have_count(1)
    square(page, 16).click()
    check(page.locator("#lesson-board")).to_have_attribute("data-path", "30,23,16")
    square(page, 7).click()
    check(feedback(page)).to_contain_text("Right: 30x23x16x7.")
    check(feedback(page)).to_contain_text("You earned 3 stars.")
    check(page.locator("#lesson-board")).to_have_attribute("data-fen", "B:W7:B")


def test_all_captures_are_selected_by_clicking_then_checked(page, django_user_model):
    check = expect()
    log_in_after(page, django_user_model, "czech", steps_before("czech", "cz-free-choice"))
    page.goto(page.base_url + "/learn/czech/")
    page.locator('[data-testid="resume"]').click()
    click_route(page, 21, 14, 7)
    check(page.locator("#answer-input")).to_have_value("21x7")
    click_route(page, 24, 15, 6)
    check(page.locator("#answer-input")).to_have_value("21x7, 24x6")
    page.locator('[data-testid="check"]').click()
    check(feedback(page)).to_contain_text("Right:")
    check(feedback(page)).to_contain_text("You earned 3 stars.")


def test_a_move_is_answered_by_keyboard_alone(page, django_user_model):
    check = expect()
    log_in_after(page, django_user_model, "czech", steps_before("czech", "cz-man-forward"))
    page.goto(page.base_url + "/learn/czech/czech-men/cz-man-forward/")
    board = page.locator("#lesson-board .board-svg")
    board.focus()
    check(page.locator(".board-overlay .mark-cursor")).to_have_count(1)
    page.keyboard.press("Enter")  # the cursor starts on White's only man, 22
    check(page.locator("[data-board-status]")).to_contain_text("Piece on 22 chosen")
    page.keyboard.press("ArrowUp")  # to 17 or 18, both right
    page.keyboard.press("Enter")
    check(feedback(page)).to_contain_text("Right: 22-1")
    next_step = page.locator('[data-testid="next-step"]')
    check(next_step).to_be_focused()  # solved: the keyboard goes on to the next step
    page.keyboard.press("Enter")
    check(page.locator("h1")).to_have_text("An occupied square")


def test_a_learner_who_knows_the_basics_tests_out_of_a_lesson(page):
    """Every step opens from the map; a lesson's test-out (its last two exercises in a row)
    marks its other steps tested out, and a wrong answer ends it, to be tried again."""
    check = expect()
    page.goto(page.base_url + "/learn/czech/")
    # a step far into the course opens straight from the map
    page.locator('[data-step="cz-new-king-waits"] a').click()
    check(page.locator(".step-count")).to_contain_text("Step")
    check(page.locator("#lesson-board")).to_be_visible()
    page.goto(page.base_url + "/learn/czech/")
    page.locator('[data-lesson="czech-men"] [data-testid="test-out-link"]').click()
    page.locator('[data-testid="test-out-start"]').click()
    check(page.locator('[data-testid="test-out-count"]')).to_have_text("Exercise 1 of 2")
    page.get_by_role("button", name="29-25").click()  # a wrong choice: the test-out ends
    check(feedback(page)).to_contain_text("Not this time: the test-out is over.")
    start_again = page.locator('[data-testid="test-out-start"]')
    check(start_again).to_be_focused()  # the next action, for the keyboard
    page.keyboard.press("Enter")
    check(page.locator('[data-testid="test-out-count"]')).to_have_text("Exercise 1 of 2")
    page.get_by_role("button", name="25-22").click()
    check(feedback(page)).to_contain_text("On to the next exercise.")
    check(page.locator('[data-testid="test-out-count"]')).to_have_text("Exercise 2 of 2")
    click_route(page, 9, 13)  # Black's reply, clicked on the board
    check(feedback(page)).to_contain_text("You have tested out of this lesson.")
    check(page.locator('[data-testid="test-out-go-on"]')).to_be_focused()
    page.goto(page.base_url + "/learn/czech/")
    for slug, state in [
        ("cz-white-starts", "tested"), ("cz-man-forward", "tested"),
        ("cz-man-blocked", "done"), ("cz-black-replies", "done"),
        ("cz-board-main-diagonal", "next"),
    ]:  # fmt: skip
        check(page.locator(f'[data-step="{slug}"]')).to_have_attribute("data-state", state)
    check(page.locator('[data-step="cz-white-starts"]')).to_contain_text("tested out")
