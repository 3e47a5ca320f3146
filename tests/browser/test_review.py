"""In Chromium on a phone (390x844): a visitor misses a puzzle, sees it in the review the next day
with the count in the navigation and the reason, solves it from the review session in the trainer,
comes back to the session and finds nothing left to do."""

from __future__ import annotations

from datetime import timedelta

import pytest

from review.models import Card
from tests.puzzle_fixtures import make_puzzle
from tests.web.test_review import age

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def expect():
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect


def click(page, *squares: int) -> None:
    for n in squares:
        page.locator(f'#trainer-board [data-square="{n}"]').first.click()


def test_a_review_session_on_a_phone(page):
    check = expect()
    puzzle = make_puzzle("czech_gain")  # 22-17! 13x22 25x18x11
    page.goto(f"{page.base_url}/puzzles/czech/{puzzle.pk}/")
    click(page, 22, 18)  # a legal wrong move
    check(page.get_by_test_id("retry")).to_be_visible()
    page.get_by_test_id("show-solution").click()
    check(page.get_by_test_id("next-puzzle")).to_be_visible()
    # a day later (the card's schedule moved back by a day)
    card = Card.objects.get(puzzle=puzzle, user__isnull=True)
    age(card, 1.001)
    page.goto(f"{page.base_url}/review/")
    link = page.get_by_test_id("review-link")
    check(link).to_contain_text("1")
    check(link.locator(".sr-only").first).to_have_text("(due: ")
    check(page.get_by_test_id("due-czech")).to_contain_text("1 due")
    start = page.get_by_test_id("start-czech")
    box = start.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 390  # on the screen, not beyond it
    start.click()
    check(page.get_by_test_id("review-reason")).to_have_text("You missed this yesterday.")
    go = page.get_by_test_id("review-go")
    check(go).to_be_focused()  # the next action has the focus (keyboard and screen reader)
    page.keyboard.press("Enter")
    check(page.locator('[data-testid="goal"]')).to_be_visible()
    click(page, 22, 17)
    check(page.locator('[data-testid="feedback"]')).to_contain_text("Right!")
    click(page, 25, 18, 11)
    check(page.locator('[data-testid="solved"]')).to_contain_text("Solved")
    page.get_by_test_id("next-puzzle").click()
    check(page).to_have_url(f"{page.base_url}/review/czech/")
    check(page.get_by_test_id("review-done")).to_be_visible()
    check(page.get_by_test_id("review-link")).to_have_text("Review")
    card.refresh_from_db()
    assert card.reps == 2 and card.due - card.last_review >= timedelta(days=2)


def test_the_review_pages_pass_axe_and_the_csp(page, live_server, teacher, student):
    """No serious accessibility violation (axe-core) and no CSP report on the review overview, the
    session (a visitor with a due card) and the class's progress page with its review table."""
    import json

    from django.utils import timezone

    from classroom.models import Assignment, Classroom, PuzzleSet
    from tests.browser.test_a11y import log_in, prepare, violations

    prepare(page)
    puzzle = make_puzzle("czech_gain")
    page.goto(f"{page.base_url}/puzzles/czech/{puzzle.pk}/")
    click(page, 22, 18)
    expect()(page.get_by_test_id("retry")).to_be_visible()  # failed: the card is made
    age(Card.objects.get(user__isnull=True), 1.001)
    found = {}
    for path in ("/review/", "/review/czech/", "/review/international/"):
        if bad := violations(page, path):
            found[path] = bad
    classroom = Classroom.objects.create(name="Club", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    classroom.add_student(student)
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Set", variant="czech")
    puzzle_set.add(puzzle)
    Assignment.objects.create(puzzle_set=puzzle_set, classroom=classroom)
    Card.objects.create(user=student, puzzle=puzzle, variant="czech", due=timezone.now())
    page.context.clear_cookies()
    log_in(page, live_server, teacher)
    path = f"/teach/classes/{classroom.pk}/progress/"
    if bad := violations(page, path):
        found[path] = bad
    expect()(page.get_by_test_id("class-review-table")).to_contain_text("standa")
    assert found == {}, json.dumps(found, indent=1)
