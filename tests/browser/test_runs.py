"""Puzzle streak and storm in a browser: a visitor's storm on a phone (the server's clock on the
page, the next puzzle in the answer to the last move, the run's end with the puzzles to replay),
and a class race in a live lesson: the teacher starts it, three students join it from the lesson
page (the panel follows the lesson's socket), each plays their own storm, and the teacher's
leaderboard follows their scores."""

from __future__ import annotations

import re
from datetime import timedelta

from django.utils import timezone

from classroom.models import Classroom
from live.models import LiveSession
from runs.models import Race, Run
from tests.browser.conftest import ASGI_MARKS, WAIT_MS, expect, open_as
from tests.browser.test_a11y import csp_violations, run_axe
from tests.conftest import _make_user
from tests.puzzle_fixtures import make_puzzle

pytestmark = ASGI_MARKS


def play(tab, move: str) -> None:
    tab.fill("#run-move", move)
    tab.click('#run [data-testid="play"]')


def test_a_storm_on_a_phone_keeps_the_servers_clock_and_brings_the_next_puzzle(
    chromium, server, django_user_model
):
    check = expect()
    make_puzzle("czech_capture")
    make_puzzle("czech_gain")
    anna = _make_user(django_user_model, "anna")
    errors: list[str] = []
    context, tab = open_as(chromium, server, anna, errors, phone=True)
    try:
        tab.goto(f"{server}/puzzles/czech/dashboard/")
        tab.click("text=Streak and storm")
        tab.click('[data-testid="start-storm"]')
        # the clock counts down from the server's three minutes (a busy machine may show 2:5x)
        check(tab.locator('[data-testid="clock"]')).to_have_text(
            re.compile(r"^2:5\d$"), timeout=WAIT_MS
        )
        check(tab.locator('[data-testid="goal"]')).to_contain_text("multi-jump")
        play(tab, "28x3")
        check(tab.locator('[data-testid="score"]')).to_have_text("1")
        check(tab.locator('[data-testid="solved"]')).to_be_visible()
        check(tab.locator('[data-testid="goal"]')).to_contain_text("win one piece")
        # a reload keeps the clock: the server's deadline, not the page's. A minute taken off
        # the deadline on the server shows after the reload (a page that kept or restarted its
        # own clock would still show 2:5x)
        run = Run.objects.get()
        run.deadline -= timedelta(minutes=1)
        run.save(update_fields=["deadline"])
        left = run.remaining(timezone.now())
        tab.reload()
        shown = tab.locator('[data-testid="clock"]').inner_text()
        minutes, seconds = map(int, shown.split(":"))
        assert minutes * 60 + seconds <= left + 1 < 121, (shown, left)
        play(tab, "21-17")  # legal, not the solution: ten seconds off, the run goes on
        check(tab.locator('[data-testid="wrong"]')).to_contain_text("10 seconds off the clock")
        check(tab.locator('[data-testid="run-over"]')).to_be_visible()  # the pool ran out
        check(tab.locator('[data-testid="missed"] a')).to_have_count(1)
        assert run_axe(tab) == []
        assert csp_violations(tab) == []
    finally:
        context.close()
    assert errors == []


def test_a_class_race_with_three_students(chromium, server, django_user_model):
    check = expect()
    teacher = _make_user(django_user_model, "tereza", teacher=True)
    students = [_make_user(django_user_model, name) for name in ("anna", "bruno", "cyril")]
    classroom = Classroom.objects.create(name="Club", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    for student in students:
        classroom.add_student(student)
    make_puzzle("czech_capture")
    make_puzzle("czech_gain")
    lesson = LiveSession.start(classroom, teacher, [], title="Friday race")
    errors: list[str] = []
    contexts = []
    try:
        t_ctx, desk = open_as(chromium, server, teacher, errors)
        tabs = []
        for n, student in enumerate(students):
            ctx, tab = open_as(chromium, server, student, errors, phone=n == 0)
            contexts.append(ctx)
            tabs.append(tab)
        contexts.append(t_ctx)
        for tab in (desk, *tabs):
            tab.goto(f"{server}{lesson.get_absolute_url()}")
            check(tab.locator("#live")).to_have_attribute("data-live-socket", "open")
        check(tabs[0].locator('[data-testid="race-join"]')).to_have_count(0)

        # the teacher starts the race: the students' panels offer to join (pushed)
        desk.click('[data-testid="race-start"]')
        check(desk.locator('[data-testid="race-panel"]')).to_have_attribute("data-running", "1")
        for tab in tabs:
            check(tab.locator('[data-testid="race-join"]')).to_be_visible(timeout=WAIT_MS)
            tab.click('[data-testid="race-join"]')
            check(tab.locator('[data-testid="clock"]')).to_be_visible()
        race = Race.objects.get()
        assert Run.objects.filter(race=race).count() == 3

        # each plays their own storm: Anna solves two puzzles, Bruno one, Cyril none yet
        for tab in tabs[:2]:
            play(tab, "28x3")
            check(tab.locator('[data-testid="score"]')).to_have_text("1")
            check(tab.locator("#run-move")).to_have_value("")  # the next puzzle's form
        play(tabs[0], "22-17")
        check(tabs[0].locator('[data-testid="feedback"]')).to_contain_text("Right!")
        play(tabs[0], "25x11")
        check(tabs[0].locator('[data-testid="run-over"]')).to_be_visible()
        check(tabs[0].locator('[data-testid="back-to-lesson"]')).to_be_visible()

        # the teacher's leaderboard follows, best first
        rows = desk.locator('[data-testid="race-row"]')
        check(rows).to_have_count(3, timeout=WAIT_MS)
        check(rows.nth(0)).to_contain_text("anna", timeout=WAIT_MS)
        check(rows.nth(0).locator('[data-testid="race-score"]')).to_have_text("2")
        check(rows.nth(1)).to_contain_text("bruno")
        check(rows.nth(1).locator('[data-testid="race-score"]')).to_have_text("1")
        check(rows.nth(2).locator('[data-testid="race-score"]')).to_have_text("0")
        assert run_axe(desk) == []
        assert [r.user.username for r in race.leaderboard()] == ["anna", "bruno", "cyril"]
    finally:
        for context in contexts:
            context.close()
    assert errors == [], errors
