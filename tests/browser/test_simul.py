"""A teacher's simul in Chromium: the teacher's grid in one browser context (a laptop), a
student's game page in another (a phone), against uvicorn serving the site (HTTP and
WebSockets) on loopback in this process.

The teacher starts the simul from its page (a student waiting on it sees her board appear and
opens it) and plays Black on three boards. The student moves on her game page: the teacher's
grid shows her board waiting for the host, without a reload (the simul's socket), and says so
in its aria-live line; the teacher clicks the board's drawing, plays on it, and the student's
page follows; back on the grid, another student's move (made elsewhere) lights their board, and
the key N opens it. On the phone the student's view of the grid is one column. No JavaScript
error, no CSP violation, no serious accessibility violation.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from classroom.models import Classroom
from tests.browser.conftest import ASGI_MARKS, WAIT_MS, expect, open_as, type_move
from tests.browser.test_a11y import csp_violations, run_axe
from tests.conftest import _make_user
from versus.models import Simul

pytestmark = ASGI_MARKS


def test_a_students_move_reaches_the_teachers_grid_and_the_teacher_answers_on_that_board(
    chromium,
    server,
    django_user_model,
):
    check = expect()
    teacher = _make_user(django_user_model, "tereza", teacher=True)
    classroom = Classroom.objects.create(name="Club", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    students = [_make_user(django_user_model, name) for name in ("anna", "bruno", "cyril")]
    for student in students:
        classroom.add_student(student)
    anna, bruno, _cyril = students
    simul = Simul.create(
        teacher, classroom, variant="czech", host_colour="black", students=students
    )
    errors: list[str] = []
    contexts = []
    try:
        t_ctx, desk = open_as(chromium, server, teacher, errors)
        a_ctx, phone = open_as(chromium, server, anna, errors, phone=True)
        contexts = [t_ctx, a_ctx]

        # Anna waits on the simul's page; the teacher starts it from the grid page
        phone.goto(f"{server}/versus/simul/{simul.pk}/")
        check(phone.locator('[data-testid="simul-joined"]')).to_be_visible()
        check(phone.locator("#simul")).to_have_attribute("data-socket", "open", timeout=WAIT_MS)
        desk.goto(f"{server}/versus/simul/{simul.pk}/")
        check(desk.locator('[data-testid="simul-players"] li')).to_have_count(3)
        desk.click('[data-testid="simul-start"]')
        check(desk.locator("#simul")).to_have_attribute("data-socket", "open", timeout=WAIT_MS)
        boards = desk.locator('[data-testid="simul-board"]')
        check(boards).to_have_count(3)
        games = {g.white.username: g for g in simul.boards()}
        board_1 = desk.get_by_role("region", name="Board 1: anna")
        status_1 = board_1.locator('[data-testid="simul-board-status"]')
        check(status_1).to_have_text("anna to move.")
        check(desk.locator('[data-testid="simul-next"]')).to_have_count(0)
        # a laptop lays the boards side by side
        first, second = (boards.nth(i).bounding_box() for i in (0, 1))
        assert first and second and second["x"] > first["x"]

        # Anna's page shows the start without a reload; her board is a board of the simul
        phone.click('[data-testid="simul-my-board"]', timeout=WAIT_MS)
        phone.wait_for_url(f"**/versus/g/{games['anna'].token}/")
        check(phone.locator('[data-testid="simul-note"]')).to_be_visible()
        check(phone.locator("#versus")).to_have_attribute("data-socket", "open", timeout=WAIT_MS)
        type_move(phone, "22-18")
        check(phone.locator('[data-testid="their-move"]')).to_be_visible(timeout=WAIT_MS)

        # the teacher's grid follows without a reload, and says so
        check(status_1).to_have_text("Your move.", timeout=WAIT_MS)
        check(board_1).to_have_attribute("data-host-turn", "1")
        check(desk.locator('[data-testid="simul-announce"]')).to_have_text(
            "Board 1: anna played 22-18. Your move.", timeout=WAIT_MS
        )
        check(desk.locator('[data-testid="simul-waiting"]')).to_contain_text(
            "1 board waits for your move."
        )
        assert desk.evaluate("performance.getEntriesByType('navigation').length") == 1
        assert run_axe(desk) == []

        # the teacher clicks the board's drawing and answers on it; Anna's page follows
        board_1.locator(".board-svg").click()
        desk.wait_for_url(f"**/versus/g/{games['anna'].token}/")
        check(desk.locator('[data-testid="your-move"]')).to_be_visible()
        type_move(desk, "11-15")
        check(phone.locator('[data-testid="moves"]')).to_contain_text("11-15", timeout=WAIT_MS)
        check(phone.locator('[data-testid="your-move"]')).to_be_visible(timeout=WAIT_MS)

        # back on the grid: Bruno's move (made elsewhere) lights his board; the key N opens it
        desk.click('[data-testid="simul-back"]')
        check(desk.locator("#simul")).to_have_attribute("data-socket", "open", timeout=WAIT_MS)
        check(status_1).to_have_text("anna to move.")
        with ThreadPoolExecutor(1) as pool:
            reply = pool.submit(games["bruno"].play, bruno, text="21-17").result()
        assert reply.kind == "moved"
        board_2 = desk.get_by_role("region", name="Board 2: bruno")
        check(board_2.locator('[data-testid="simul-board-status"]')).to_have_text(
            "Your move.", timeout=WAIT_MS
        )
        desk.keyboard.press("n")
        desk.wait_for_url(f"**/versus/g/{games['bruno'].token}/")
        check(desk.locator('[data-testid="your-move"]')).to_be_visible()

        # the student's view of the grid on a phone: one column
        phone.goto(f"{server}/versus/simul/{simul.pk}/")
        check(phone.locator('[data-testid="simul-my-board"]')).to_be_visible()
        phone_boards = phone.locator('[data-testid="simul-board"]')
        check(phone_boards).to_have_count(3)
        top, below = (phone_boards.nth(i).bounding_box() for i in (0, 1))
        assert top and below and top["x"] == below["x"] and below["y"] > top["y"]
        assert phone.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        assert run_axe(phone) == []
        for tab in (desk, phone):
            assert csp_violations(tab) == []
    finally:
        for context in contexts:
            context.close()
    assert errors == [], errors
