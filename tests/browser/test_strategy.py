"""In Chromium: a "choose the better move" step of the strategy course, by keyboard alone: Tab
reaches the options, a weaker option gets the step's own feedback, the better one is right."""

from __future__ import annotations

import pytest

from .test_lessons import expect, feedback

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def tab_to_option(page, value: str, limit: int = 40) -> None:
    """Press Tab until the option button ``value`` has the focus (fails after ``limit``)."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        focused = page.evaluate("() => [document.activeElement.name, document.activeElement.value]")
        if focused == ["choice", value]:
            return
    pytest.fail(f"Tab never reached the option {value}")


def test_the_better_move_is_chosen_by_keyboard_alone(page):
    from lessons.course import get_course

    course = get_course("strategy-czech")
    step = next(s for s in course.steps if s.exercise.kind == "better_move")
    ex = step.exercise
    weaker = next(o for o in ex.options if o != ex.answers[0])
    check = expect()
    page.goto(page.base_url + step.get_absolute_url())
    check(page.locator("fieldset.options legend")).to_have_text("Which of these moves is better?")
    check(page.locator("fieldset.options button")).to_have_count(len(ex.options))

    tab_to_option(page, weaker)
    page.keyboard.press("Enter")
    check(feedback(page)).to_contain_text("Not this one.")
    index = next(i for i, w in enumerate(ex.wrong) if w.move == weaker)
    check(feedback(page)).to_contain_text(ex.wrong[index].feedback.en[:40])

    tab_to_option(page, ex.answers[0])
    page.keyboard.press("Enter")
    check(feedback(page)).to_contain_text(f"Right: {ex.answers[0]}.")
    next_step = page.locator('[data-testid="next-step"]')
    check(next_step).to_be_focused()
    page.keyboard.press("Enter")
    check(page.locator("h1")).to_have_text(step.next.title.en)


def test_the_strategy_pages_have_no_serious_or_csp_violations(page, live_server, student):
    """The course map, a choose-the-better-move step, a play-on step (its diagram before the
    moves) and a sitting of the strategy exam: axe-core and the Content-Security-Policy."""
    import json

    from exams.models import Exam
    from lessons.course import get_course
    from tests.web.test_exams import give_name

    from .test_a11y import log_in, prepare, violations

    prepare(page)
    steps = get_course("strategy-brazilian").steps
    choose = next(s for s in steps if s.exercise.kind == "better_move")
    found = {}
    for path in ["/learn/strategy-brazilian/", choose.get_absolute_url()]:
        found[path] = violations(page, path)
    play = choose.next
    assert play is not None and play.exercise.kind == "what_if"
    found[play.get_absolute_url()] = violations(page, play.get_absolute_url())
    log_in(page, live_server, give_name(student, "Standa Řehoř"))
    exam = Exam.start(student, "international", 8, "real")
    found[exam.get_absolute_url()] = violations(page, exam.get_absolute_url())
    found = {path: bad for path, bad in found.items() if bad}
    assert found == {}, json.dumps(found, indent=1)
