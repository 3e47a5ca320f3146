"""In Chromium, with a real Celery worker on the default queue: a teacher writes the names of two
children, the page follows the worker's job and then shows the login cards on a page of their
own (the poll's redirect), and a child logs in with a card's password; the cards are shown once.

Needs Redis and a worker (skipped without Redis, a failure when DAMA_REQUIRE_SERVICES=1) and
Chromium.
"""

from __future__ import annotations

import importlib
import re

import pytest

from tests.services import conftest as services

from .test_teacher_flow import expect, sign_up

# the real broker and worker of the proof tests (Redis on its own database, a worker process on
# the test database)
redis_broker = services.redis_broker
start_worker = services.start_worker

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]


def test_a_teacher_follows_the_accounts_job_to_the_login_cards_and_a_child_logs_in(
    request, page, chromium, settings, django_user_model
):
    from classroom.models import Classroom

    # the worker hashes with the site's own hashers (Argon2id): the site here checks them too
    settings.PASSWORD_HASHERS = importlib.import_module("dama_learn.settings").PASSWORD_HASHERS
    settings.DAMA_TEACHERS_AUTO_APPROVE = True
    check = expect()
    broker = request.getfixturevalue("redis_broker")

    sign_up(page, "tereza", teacher=True)
    teacher = django_user_model.objects.get(username="tereza")
    room = Classroom.objects.create(name="Tuesday club", variant="czech", created_by=teacher)
    room.teachers.add(teacher)
    page.goto(f"{page.base_url}{room.get_absolute_url()}")
    page.get_by_role("link", name="Create accounts for children").click()
    page.fill("#id_names", "Žofie Čermáková\nLudvík Šťastný")
    page.get_by_role("button", name="Create the accounts").click()

    # the job's page waits for a worker, polling; once a worker has made the accounts, the poll
    # leads to the cards on a page of their own
    check(page).to_have_url(re.compile(r"/students/new/[0-9a-f-]{36}/$"))
    check(page.locator('[data-testid="accounts-job"]')).to_contain_text(
        "2 accounts wait for a worker"
    )
    job_url = page.url
    request.getfixturevalue("start_worker")(broker, queues="default")
    cards = page.locator('[data-testid="login-card"]')
    check(cards).to_have_count(2, timeout=60_000)
    check(page.get_by_role("button", name="Print")).to_be_visible()
    username = cards.first.locator('[data-testid="card-username"]').inner_text().strip()
    password = cards.first.locator('[data-testid="card-password"]').inner_text().strip()
    assert re.fullmatch(r"[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{2}", password), password

    # shown once: the same address now lists the accounts without their passwords
    assert page.url == job_url
    page.reload()
    check(page.locator('[data-testid="made-accounts"]')).to_contain_text(username)
    check(page.locator('[data-testid="card-password"]')).to_have_count(0)

    child_context = chromium.new_context(locale="en-US", viewport={"width": 390, "height": 844})
    child = child_context.new_page()
    child.set_default_timeout(15_000)
    child.goto(f"{page.base_url}/accounts/login/")
    child.fill("#id_username", username)
    child.fill("#id_password", password)
    child.click("main form button[type=submit]")
    check(child.locator('[data-testid="profile-link"]')).to_have_text(username)
    child_context.close()
