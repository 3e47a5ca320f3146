"""A live lesson in Chromium: a teacher and two students in three browser contexts, against
uvicorn serving the site (HTTP and WebSockets) on loopback in this process.

The teacher starts the lesson from the class page on a puzzle set and a position of their own;
the students find "Join the live lesson" in My classes and on their dashboard and follow the
teacher's board (a move, the next position) over the WebSocket; they answer a question by
clicking the capture landing by landing and by typing it; the teacher sees both answers right,
reveals the solution, asks about the next position, sees the count per answer and puts one
student's answer on the board; a student who reloads finds the lesson as it stands, and a page
that follows by polling (no WebSocket) follows it too. No JavaScript error and no CSP violation
anywhere (the socket connects to 'self').
"""

from __future__ import annotations

import re

from classroom.models import Classroom, PuzzleSet
from live.models import LiveAnswer, LiveSession
from tests.browser.conftest import ASGI_MARKS, WAIT_MS, expect, open_as
from tests.browser.test_a11y import csp_violations, prepare, run_axe
from tests.conftest import _make_user, wait_until
from tests.load.live_load import FREE
from tests.puzzle_fixtures import make_puzzle

pytestmark = ASGI_MARKS


def test_a_teacher_and_two_students_hold_a_live_lesson(chromium, server, django_user_model):
    check = expect()
    teacher = _make_user(django_user_model, "tereza", teacher=True)
    anna = _make_user(django_user_model, "anna")
    bruno = _make_user(django_user_model, "bruno")
    classroom = Classroom.objects.create(name="Club", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    classroom.add_student(anna)
    classroom.add_student(bruno)
    the_set = PuzzleSet.objects.create(owner=teacher, title="Shots", variant="czech")
    the_set.add(make_puzzle("czech_capture"))
    errors: list[str] = []
    contexts = []
    try:
        t_ctx, desk = open_as(chromium, server, teacher, errors)
        a_ctx, a = open_as(chromium, server, anna, errors, phone=True)
        b_ctx, b = open_as(chromium, server, bruno, errors)
        contexts = [t_ctx, a_ctx, b_ctx]

        # the teacher starts the lesson from the class page
        desk.goto(f"{server}/teach/classes/{classroom.pk}/")
        desk.click('[data-testid="live-start-link"]')
        desk.select_option("#id_puzzle_set", str(the_set.pk))
        desk.fill("#id_positions", f"{FREE} | 22-18")
        desk.fill("#id_title", "Monday shots")
        desk.click('[data-testid="live-start"]')
        check(desk.locator('[data-testid="live-step"]')).to_contain_text("Position 1 of 2")
        check(desk.locator("h1")).to_have_text("Monday shots")
        # one primary action (ask the question); the others are in groups that open
        check(desk.locator("[data-primary]")).to_have_count(1)
        check(desk.locator("[data-primary]")).to_have_text("Ask the question")
        check(desk.locator('[data-testid="live-end"]')).to_be_hidden()
        session = LiveSession.objects.get()
        check(desk.locator("#live")).to_have_attribute("data-live-socket", "open")

        # the students join from My classes and from the dashboard
        a.goto(f"{server}/teach/my/")
        check(a.locator('[data-testid="live-join"]')).to_contain_text("Monday shots")
        a.click('[data-testid="live-join"] a')
        b.goto(f"{server}/puzzles/czech/dashboard/")
        b.click('[data-testid="live-join"] a')
        for tab in (a, b):
            check(tab.locator("#live")).to_have_attribute("data-live-socket", "open")
            check(tab.locator('[data-testid="live-step"]')).to_contain_text("Position 1 of 2")
            check(tab.locator("h1")).to_have_text("Monday shots")

        # the teacher's next position and move reach both screens
        desk.click('[data-testid="live-next"]')
        for tab in (a, b):
            check(tab.locator('[data-testid="live-step"]')).to_contain_text(
                "Position 2 of 2", timeout=WAIT_MS
            )
        # the own position has no title to repeat its number
        check(desk.locator('[data-testid="live-step"]')).to_have_text("Position 2 of 2")
        # an arrow drawn by clicking two squares, a mark by clicking one twice: the drawing
        # group opens by keyboard, and stays open as the stage changes
        desk.locator('[data-testid="live-drawing"] > summary').focus()
        desk.keyboard.press("Enter")
        desk.click('[data-testid="live-draw-mode"]')
        check(desk.locator('[data-testid="live-draw-mode"]')).to_have_attribute(
            "aria-pressed", "true"
        )
        for square in (27, 23, 13, 13):
            desk.locator(f'#live-teacher-board [data-square="{square}"]').first.click()
            if square == 23:
                check(desk.locator("#live-draw")).to_have_value("")  # the arrow was posted
        for tab in (a, b):
            check(tab.locator("#live-board-widget svg g.arrow")).to_have_count(1, timeout=WAIT_MS)

        def marked() -> list:  # the mark's request may still be on its way
            session.refresh_from_db()
            return session.marks

        wait_until(marked, 15, "the mark stored")
        assert session.arrows == [[27, 23]] and session.marks == [13]
        # the mark's answer replaces the teacher's stage, move field included: wait for it to land
        # before typing, or a slow machine swaps the typed move away and the play posts nothing
        desk.wait_for_function("() => !document.querySelector('.htmx-request')")
        check(desk.locator('[data-testid="live-drawing"]')).to_have_attribute("open", "")
        desk.click('[data-testid="live-draw-mode"]')
        desk.fill("#live-teacher-move", "22-17")
        desk.click('[data-testid="live-play"]')
        for tab in (a, b):
            check(tab.locator(".board-foot .turn")).to_contain_text(
                "last move 22-17", timeout=WAIT_MS
            )
            check(tab.locator('[data-testid="live-announce"]')).to_contain_text(
                "Last move 22-17", timeout=WAIT_MS
            )

        # back to the puzzle: a question, answered by clicks (landing by landing) and by typing
        desk.click('[data-testid="live-previous"]')
        # the teacher's stage is swapped for the first position's: ask on that one, not on the
        # stage on its way out
        check(desk.locator('[data-testid="live-step"]')).to_contain_text("Position 1 of 2")
        desk.wait_for_function("() => !document.querySelector('.htmx-request')")
        desk.click('[data-testid="live-ask"]')
        for tab in (a, b):
            check(tab.locator("#live-move")).to_be_visible(timeout=WAIT_MS)
        for square in (28, 19, 12, 3):
            a.locator(f'#live-board-widget [data-square="{square}"]').first.click()
            if square in (19, 12):  # the server answered: the capture goes on
                check(a.locator("#live-board-widget")).to_have_attribute(
                    "data-path", re.compile(rf"(^|,){square}$")
                )
        check(a.locator('[data-testid="live-mine"]')).to_contain_text("Your answer: 28x3")
        check(a.locator('[data-testid="live-announce"]')).to_contain_text("Your answer: 28x3")
        b.fill("#live-move", "28x19x12x3")
        b.press("#live-move", "Enter")
        check(b.locator('[data-testid="live-mine"]')).to_contain_text("Your answer: 28x3")
        check(desk.locator('[data-testid="live-answered"]')).to_contain_text(
            "2 of 2 answered", timeout=WAIT_MS
        )
        check(desk.locator('[data-testid="live-answered"]')).to_contain_text("2 right")

        # the solution, for everyone (the question open, closing it comes first; revealing is
        # among the other actions)
        check(desk.locator("[data-primary]")).to_have_text("Close the question")
        desk.click('[data-testid="live-more"] > summary')
        desk.click('[data-testid="live-reveal"]')
        for tab in (a, b):
            check(tab.locator('[data-testid="live-solution"]')).to_have_text(
                "28x3", timeout=WAIT_MS
            )
        check(a.locator('[data-testid="live-mine"]')).to_contain_text("Right!")

        # the next position: two different answers, one put on the board
        check(desk.locator("[data-primary]")).to_have_text("Next position")
        desk.click('[data-testid="live-go-next"]')
        desk.click('[data-testid="live-ask"]')
        for tab, move in ((a, "22-18"), (b, "27-23")):
            check(tab.locator("#live-move")).to_be_visible(timeout=WAIT_MS)
            tab.fill("#live-move", move)
            tab.click('[data-testid="live-answer-button"]')
            check(tab.locator('[data-testid="live-mine"]')).to_contain_text(move)
        counts = desk.locator('[data-testid="live-count"]')
        check(counts).to_have_count(2, timeout=WAIT_MS)
        check(desk.locator('[data-testid="live-counts"]')).to_contain_text("27-23")
        bruno_answer = LiveAnswer.objects.get(student=bruno, question=2)
        assert bruno_answer.correct is False
        assert LiveAnswer.objects.get(student=anna, question=2).correct is True
        desk.locator(f'[data-testid="live-show-answer"][value="{bruno_answer.pk}"]').click()
        check(desk.locator('[data-testid="live-shown"]')).to_contain_text("bruno")
        for tab in (a, b):
            check(tab.locator('[data-testid="live-shown"]')).to_contain_text(
                "a student's answer, 27-23", timeout=WAIT_MS
            )

        # no serious accessibility problem on the teacher's page and a student's, mid-lesson
        for tab in (desk, b):
            assert run_axe(tab) == [], tab.url

        # a reload keeps the student in the lesson, as it stands
        b.reload()
        check(b.locator('[data-testid="live-shown"]')).to_contain_text("27-23")
        check(b.locator("#live")).to_have_attribute("data-live-socket", "open")

        # a page without a WebSocket follows by polling the state
        a.goto(f"{server}/live/{session.pk}/?transport=poll")
        check(a.locator('[data-testid="live-connection"]')).to_contain_text("checking")
        # and so does one whose WebSocket is refused on the way (a proxy that drops them)
        b.route_web_socket(re.compile(r"/ws/live/"), lambda ws: ws.close())
        b.reload()
        check(b.locator('[data-testid="live-connection"]')).to_contain_text(
            "checking", timeout=WAIT_MS
        )
        desk.fill("#live-draw", "22-18")
        desk.click('[data-testid="live-draw-button"]')
        session.refresh_from_db()
        for tab in (a, b):
            check(tab.locator("#live-stage")).to_have_attribute(
                "data-version", str(session.version), timeout=WAIT_MS
            )
        # the teacher's page follows by polling too: the answers panel counts a new answer
        desk.goto(f"{server}/live/{session.pk}/?transport=poll")
        desk.click('[data-testid="live-close"]')
        check(desk.locator("[data-primary]")).to_have_text("Reveal the solution")
        desk.click('[data-testid="live-more"] > summary')
        desk.click('[data-testid="live-ask"]')
        check(a.locator("#live-move")).to_be_visible(timeout=WAIT_MS)
        a.fill("#live-move", "22-18")
        a.click('[data-testid="live-answer-button"]')
        check(desk.locator('[data-testid="live-answered"]')).to_contain_text(
            "1 of 2 answered", timeout=WAIT_MS
        )
        desk.click('[data-testid="live-end"]')
        for tab in (a, b):
            check(tab.locator('[data-testid="live-ended"]')).to_be_visible(timeout=WAIT_MS)
        for tab in (desk, a, b):
            assert csp_violations(tab) == [], tab.url
    finally:
        for context in contexts:
            context.close()
    assert errors == [], errors


#: counts the page's WebSockets (window.__sockets), to see that a closed one is not tried again
COUNT_SOCKETS = """
(() => {
  const Real = window.WebSocket;
  window.__sockets = 0;
  window.WebSocket = function (...args) { window.__sockets += 1; return new Real(...args); };
  window.WebSocket.prototype = Real.prototype;
})();
"""


def test_a_tab_beyond_the_allowed_sockets_and_a_removed_student_are_told_and_stop(
    chromium, server, django_user_model, settings
):
    check = expect()
    settings.DAMA_LIVE_SOCKETS_PER_USER = 1
    teacher = _make_user(django_user_model, "tereza", teacher=True)
    anna = _make_user(django_user_model, "anna")
    classroom = Classroom.objects.create(name="Club", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    classroom.add_student(anna)
    session = LiveSession.start(classroom, teacher, [])
    errors: list[str] = []
    context, first = open_as(chromium, server, anna, errors)
    t_ctx, desk = open_as(chromium, server, teacher, errors)
    try:
        first.goto(f"{server}/live/{session.pk}/")
        check(first.locator("#live")).to_have_attribute("data-live-socket", "open")
        second = context.new_page()  # the same student's second tab
        prepare(second)
        second.add_init_script(COUNT_SOCKETS)
        second.on("pageerror", lambda exc: errors.append(f"second tab: {exc}"))
        second.goto(f"{server}/live/{session.pk}/")
        check(second.locator("#live")).to_have_attribute("data-live-socket", "too-many")
        told = "open in too many of your windows or tabs"
        check(second.locator('[data-testid="live-connection"]')).to_contain_text(told)
        check(second.locator('[data-testid="live-announce"]')).to_contain_text(told)
        # no new try: the page would reconnect after 1 s, then 2 s
        second.wait_for_timeout(3500)
        assert second.evaluate("window.__sockets") == 1
        check(second.locator("#live")).to_have_attribute("data-live-socket", "too-many")

        # the teacher removes her from the class: the first tab's socket closes
        desk.goto(f"{server}/teach/classes/{classroom.pk}/")
        desk.get_by_role("button", name="remove from the class").click()
        check(first.locator("#live")).to_have_attribute("data-live-socket", "left")
        told = "You are no longer in this class"
        check(first.locator('[data-testid="live-connection"]')).to_contain_text(told)
        check(first.locator('[data-testid="live-announce"]')).to_contain_text(told)
        for tab in (first, second):
            assert csp_violations(tab) == [], tab.url
    finally:
        context.close()
        t_ctx.close()
    assert errors == [], errors
