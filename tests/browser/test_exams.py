"""In Chromium, on a phone: a learner takes the level 1 exam from the main navigation to the
certificate, answering on the board and by typing, and checks the certificate's public page."""

from __future__ import annotations

import io

import pytest
from pypdf import PdfReader

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def expect():
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect


def log_in(page, live_server, user) -> None:
    from django.test import Client

    client = Client()
    client.force_login(user)
    cookie = client.cookies["sessionid"]
    page.context.add_cookies([{"name": "sessionid", "value": cookie.value, "url": live_server.url}])


def test_a_learner_passes_level_1_and_gets_a_certificate(page, live_server, django_user_model):
    from exams.models import Exam

    check = expect()
    user = django_user_model.objects.create_user("marek", "marek@example.com", "x-long-pw-42")
    user.first_name, user.last_name = "Marek", "Šťastný"
    user.save()
    log_in(page, live_server, user)
    page.goto(live_server.url + "/")
    page.locator("[data-menu-toggle]").click()  # the phone's menu
    page.locator('[data-testid="exams-link"]').click()
    check(page.locator('[data-testid="exam-level-1"]')).to_be_visible()
    page.locator('[data-testid="start-exam-1"]').click()
    check(page.locator('[data-testid="question-number"]')).to_contain_text("Question 1 of 10")
    check(page.locator('[data-testid="time-left"]')).to_contain_text(":")
    exam = Exam.objects.get(user=user)
    assert "data-moves" not in page.content()

    for n in range(exam.total):
        check(page.locator('[data-testid="question-number"]')).to_contain_text(
            f"Question {n + 1} of 10"
        )
        exam.refresh_from_db()
        step = exam.question(n).rule.step
        answer = step.exercise.answers[0]
        if n == 0:
            # on the board: the piece, then its landing (the server judges every click)
            start, end = (int(s) for s in answer.replace("x", "-").split("-")[::1][:2])
            page.locator(f'#exam-board [data-square="{start}"]').first.click()
            page.locator(f'#exam-board [data-square="{end}"]').first.click()
        elif n == exam.total - 1:
            # the last one is skipped (wrong) with the keyboard: 9 of 10 still pass
            page.locator('[data-testid="skip"]').focus()
            page.keyboard.press("Enter")
        else:
            page.locator("#exam-answer").fill(answer)
            page.locator('[data-testid="answer"]').click()
        if n < exam.total - 1:
            check(page.locator('[data-testid="question-number"]')).to_contain_text(
                f"Question {n + 2} of 10"
            )
            check(page.locator('[data-testid="previous-verdict"]')).to_contain_text("saved")
            # the new question's heading has the focus (a screen reader reads it)
            check(page.locator("#question-heading")).to_be_focused()

    check(page.locator('[data-testid="exam-score"]')).to_contain_text("9 of 10 right.")
    check(page.locator('[data-testid="exam-passed"]')).to_be_visible()
    code = page.locator('[data-testid="certificate-code"]').inner_text()
    href = page.locator('[data-testid="certificate-link"]').get_attribute("href")
    pdf = page.request.get(live_server.url + href)
    assert pdf.ok and pdf.headers["content-type"] == "application/pdf"
    text = PdfReader(io.BytesIO(pdf.body())).pages[0].extract_text()
    assert "Marek Šťastný" in text and code in text

    page.goto(f"{live_server.url}/certificates/{code}/")
    check(page.locator('[data-testid="verified"]')).to_be_visible()
    check(page.locator('[data-testid="verified-name"]')).to_have_text("Marek Šťastný")
    assert "marek@example.com" not in page.content()


def test_handing_in_asks_first_and_is_answered_by_keyboard(page, live_server, django_user_model):
    """One press of "Hand in the exam" only asks (how many questions are open); "No, go on" (or
    Escape) gives the focus back to the button; "Yes, hand it in" ends the exam. All by keyboard,
    the question read by a screen reader as the focus lands on its heading; axe finds nothing
    serious on it."""
    from exams.models import Exam
    from tests.browser.test_a11y import prepare, run_axe
    from tests.web.test_exams import give_name

    check = expect()
    prepare(page)
    user = django_user_model.objects.create_user("klara", "klara@example.com", "x-long-pw-42")
    give_name(user, "Klára Nováková")
    exam = Exam.start(user, "czech", 1, "real")
    log_in(page, live_server, user)
    page.goto(live_server.url + exam.get_absolute_url())
    hand_in = page.locator('[data-testid="hand-in"]')
    question = page.locator('[data-testid="hand-in-question"]')
    heading = page.locator("#hand-in-heading")

    hand_in.focus()
    page.keyboard.press("Enter")
    check(heading).to_be_focused()
    check(page.locator('[data-testid="hand-in-open"]')).to_contain_text(
        "10 questions are not answered yet: they count as wrong."
    )
    assert run_axe(page) == []
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")  # a phone
    # "No, go on with the exam", reached with Tab
    page.keyboard.press("Tab")
    check(page.locator('[data-testid="hand-in-confirm"]')).to_be_focused()
    page.keyboard.press("Tab")
    check(page.locator('[data-testid="hand-in-cancel"]')).to_be_focused()
    page.keyboard.press("Enter")
    check(question).to_have_count(0)
    check(hand_in).to_be_focused()
    # Escape says no as well
    page.keyboard.press("Enter")
    check(heading).to_be_focused()
    page.keyboard.press("Escape")
    check(question).to_have_count(0)
    check(hand_in).to_be_focused()
    exam.refresh_from_db()
    assert not exam.is_finished
    check(page.locator('[data-testid="question-number"]')).to_contain_text("Question 1 of 10")
    # "Yes, hand it in"
    page.keyboard.press("Enter")
    check(heading).to_be_focused()
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    check(page.locator('[data-testid="exam-score"]')).to_contain_text("0 of 10 right.")
    exam.refresh_from_db()
    assert exam.is_finished


def test_the_exam_clock_stands_still_while_the_computer_thinks(
    page, live_server, django_user_model, settings, monkeypatch
):
    """An endgame question's game waits for the computer (no worker here: its message waits on
    the test's broker): the sitting page's clock stands still and says so, and counts on once the
    reply is there (the page asks the server again by itself)."""
    from exams import levels as levels_module
    from exams import models as exam_models
    from exams.levels import Draw, PuzzleFilter
    from exams.models import Exam
    from play import tasks
    from play.models import Game
    from tests.puzzle_fixtures import make_puzzle
    from tests.web.test_exams import tiny_level

    check = expect()
    settings.DAMA_EXAM_SHARE = 1.0
    settings.DAMA_EXAM_ENGINE_LEVEL = 5
    make_puzzle("czech_capture", fen="W:W17,18:B9", goal="win", horizon=3, motifs=[])
    tiny = tiny_level(Draw(1, endgame=PuzzleFilter(goals=("win",))))
    for module in (exam_models, levels_module):
        monkeypatch.setattr(
            module, "level", lambda n, real=module.level: tiny if n == 3 else real(n)
        )
    from tests.web.test_exams import give_name

    user = django_user_model.objects.create_user("eva", "eva@example.com", "x-long-pw-42")
    give_name(user, "Eva Svobodová")
    exam = Exam.start(user, "czech", 3, "real")
    game = Game.objects.get(pk=exam.start_endgame(index=0))
    assert game.play(text="18-14").kind == "moved"
    log_in(page, live_server, user)
    page.goto(live_server.url + exam.get_absolute_url())
    clock = page.locator('[data-testid="time-left"]')
    check(page.locator('[data-testid="clock-stopped"]')).to_be_visible()
    stopped_at = clock.inner_text()
    assert stopped_at in ("9:59", "10:00"), stopped_at
    assert tasks.computer_move(game.pk, 1) == "played"
    check(page.locator('[data-testid="clock-stopped"]')).to_have_count(0, timeout=10_000)
    check(clock).not_to_have_text(stopped_at, timeout=5_000)  # it counts down again
