"""In Chromium, with a real Celery worker proving puzzles: a teacher signs up, creates a class and a
set, builds a puzzle in the board editor, sees its proof arrive and assigns the set; a student
joins with the code and solves it in the trainer; the teacher sees the result.

Needs Redis and a worker (skipped without Redis, a failure when DAMA_REQUIRE_SERVICES=1) and
Chromium.
"""

from __future__ import annotations

import re

import pytest

from tests.conftest import PASSWORD, wait_until
from tests.services import conftest as services

# the real broker and worker of the proof tests (Redis on its own database, a verify worker
# process on the test database)
redis_broker = services.redis_broker
start_worker = services.start_worker

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

#: the puzzle built by clicks: White 22 against Black 18 and 11; the only capture is 22x15x8
WHITE, BLACK, ROUTE = [22], [18, 11], [22, 15, 8]


def expect():
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect


def sign_up(page, username: str, *, teacher: bool, next_url: str = "") -> None:
    page.goto(f"{page.base_url}/accounts/signup/{'?next=' + next_url if next_url else ''}")
    page.fill("#id_username", username)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    if teacher:
        page.check("#id_want_teacher")
    page.click("main form button[type=submit]")
    expect()(page.locator('[data-testid="profile-link"]')).to_have_text(username)


def editor_square(page, n: int):
    return page.locator(f'#position-editor [data-square="{n}"]').first


def solution_square(page, n: int):
    return page.locator(f'#solution-editor [data-square="{n}"]').first


def test_teacher_builds_proves_and_assigns_a_puzzle_and_sees_the_students_result(
    request, page, chromium, live_server, settings
):
    from classroom.models import Classroom, PuzzleSet
    from puzzles.models import Puzzle

    settings.DAMA_TEACHERS_AUTO_APPROVE = True
    check = expect()
    broker = request.getfixturevalue("redis_broker")
    request.getfixturevalue("start_worker")(broker)

    # the teacher signs up and creates a class and a set
    sign_up(page, "tereza", teacher=True)
    page.goto(f"{page.base_url}/teach/")
    page.get_by_role("link", name="New class").click()
    page.fill("#id_name", "Tuesday club")
    page.click("main form button[type=submit]")
    check(page.locator('[data-testid="class-name"]')).to_have_text("Tuesday club")
    code = page.locator('[data-testid="join-code"]').inner_text().strip()
    join_link = page.locator('[data-testid="join-link"]').get_attribute("href")
    check(page.locator(".qr svg")).to_be_visible()

    page.goto(f"{page.base_url}/teach/")
    page.get_by_role("link", name="New set").click()
    page.fill("#id_title", "Multi-jumps")
    page.click("main form button[type=submit]")
    check(page.locator('[data-testid="set-title"]')).to_have_text("Multi-jumps")

    # the board editor: place the men by clicks, play the solution on the solution board, save
    page.locator('[data-testid="new-puzzle"]').click()
    for n in WHITE:
        editor_square(page, n).click()
        check(page.locator("#puzzle-fen")).to_have_value(re.compile(rf"W:W(?:[\d,]*,)?{n}\b"))
    page.locator('[data-piece-choice="b"]').check()
    for n in BLACK:
        editor_square(page, n).click()
        check(page.locator("#puzzle-fen")).to_have_value(re.compile(rf":B(?:[\d,]*,)?{n}\b"))
    check(page.locator("#puzzle-fen")).to_have_value("W:W22:B11,18")
    # "Ask the engine": a job on the worker, its answer polled onto the solution board
    page.locator('[data-testid="ask-engine"]').click()
    check(page.locator('[data-testid="solution-line"]')).to_have_text("22x15x8", timeout=30_000)
    check(page.locator('[data-testid="solution-status"]')).to_contain_text("unique")
    check(page.locator("#engine-job")).not_to_have_attribute("hx-get", re.compile("."))
    page.get_by_role("button", name="Start again").click()
    check(page.locator('[data-testid="solution-line"]')).to_have_text("–")
    for n in ROUTE:
        solution_square(page, n).click()
    check(page.locator('[data-testid="solution-line"]')).to_have_text("22x8")
    page.fill("#id_title", "Two men at once")
    page.locator('[data-testid="save-puzzle"]').click()

    # the proof arrives from the worker, live
    status = page.locator("#proof-status")
    check(status).to_have_attribute("data-verdict", "unique", timeout=60_000)
    check(status).to_contain_text("Exactly one first move reaches the goal")
    check(page.locator("#proof-diagram figcaption")).to_contain_text("The key move 22x8")
    puzzle = Puzzle.objects.get(title="Two men at once")
    assert puzzle.verdict == "unique" and puzzle.worker.startswith("verify-")

    # assign the set to the class
    puzzle_set = PuzzleSet.objects.get(title="Multi-jumps")
    page.goto(f"{page.base_url}{puzzle_set.get_absolute_url()}")
    page.locator('[data-testid="assign-link"]').click()
    page.select_option("#id_classroom", label="Tuesday club")
    page.locator('[data-testid="assign-button"]').click()
    check(page.locator('[data-testid="assignments"]')).to_contain_text("Multi-jumps")

    # a student signs up through the join link and joins with one click
    student_context = chromium.new_context(locale="en-US", viewport={"width": 390, "height": 844})
    student = student_context.new_page()
    student.set_default_timeout(15_000)
    student.base_url = page.base_url
    assert join_link.endswith(f"/teach/join/{code}/")
    student.goto(join_link)
    student.locator('[data-testid="join"]').get_by_role("link", name="Sign up").click()
    student.fill("#id_username", "standa")
    student.fill("#id_password1", PASSWORD)
    student.fill("#id_password2", PASSWORD)
    student.click("main form button[type=submit]")
    student.locator('[data-testid="join-button"]').click()
    check(student.locator('[data-testid="class-name"]')).to_have_text("Tuesday club")
    assert list(
        Classroom.objects.get(join_code=code).memberships.values_list("user__username", flat=True)
    ) == ["standa"]
    student.goto(f"{page.base_url}/teach/my/")
    student.locator('[data-testid="assignment-link"]').click()
    solve_link = student.locator('[data-testid="solve-link"]')
    assert solve_link.get_attribute("href").endswith(f"/{puzzle.pk}/?set={puzzle_set.pk}")
    assert "22x8" not in student.content() and "22x15x8" not in student.content()
    solve_link.click()

    check(student.locator("[data-board]")).to_have_count(1)
    check(student.locator("[data-move-input]")).to_have_count(1)
    for n in ROUTE:
        student.locator(f'[data-board] [data-square="{n}"]').first.click()
    from puzzles.models import Attempt

    wait_until(
        Attempt.objects.filter(puzzle=puzzle, set_id=puzzle_set.pk, solved=True).exists,
        15,
        "the student's attempt recorded as solved",
    )
    student_context.close()

    # the teacher sees the result
    classroom = Classroom.objects.get(join_code=code)
    page.goto(f"{page.base_url}/teach/classes/{classroom.pk}/progress/")
    row = page.locator('tr[data-student="standa"]')
    check(row.locator('[data-status="solved"]')).to_have_count(1)
    check(row).to_contain_text("1 / 1")
