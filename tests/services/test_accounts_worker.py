"""Children's accounts made on a real worker: the teacher's request only enqueues the job
(``classroom.make_student_accounts``, default queue); a worker process that consumes only that
queue hashes the passwords with the site's own hashers (Argon2id: the worker runs the production
settings' ``PASSWORD_HASHERS``, not the tests' MD5) and makes the accounts, and the page then
shows the login cards, whose passwords log in.

Redis database 9 (the exams worker test's; ``DAMA_TEST_ACCOUNTS_REDIS_URL`` overrides) with this
run's key prefix, so that other test runs on the same Redis see none of these messages.
"""

from __future__ import annotations

import importlib
import os
from urllib.parse import urlparse, urlunparse

import pytest
from django.test import override_settings
from django.urls import reverse

from classroom.models import ACCOUNTS_JOB, Classroom, Membership
from core.models import Job
from tests.conftest import redis_url, wait_until
from tests.web.test_student_accounts import card_passwords

pytestmark = [pytest.mark.services, pytest.mark.slow]

ACCOUNTS_REDIS_DB = 9
#: a hash of the site's hasher (accounts/hashers.py) starts so
SITE_ARGON2 = "argon2$argon2id$v=19$m=19456,t=2,p=1$"


def accounts_redis_url() -> str:
    explicit = os.environ.get("DAMA_TEST_ACCOUNTS_REDIS_URL")
    if explicit:
        return explicit
    return urlunparse(urlparse(redis_url())._replace(path=f"/{ACCOUNTS_REDIS_DB}"))


@pytest.fixture
def accounts_broker(request, monkeypatch):
    """The services' Redis broker (this run's key prefix), on database 9."""
    monkeypatch.setenv("DAMA_TEST_VERIFY_REDIS_URL", accounts_redis_url())
    return request.getfixturevalue("redis_broker")


def test_a_worker_makes_the_childrens_accounts_the_page_follows_to_the_cards(
    client, accounts_broker, start_worker, teacher
):
    worker = start_worker(accounts_broker, queues="default")
    room = Classroom.objects.create(name="Kroužek", variant="czech", created_by=teacher)
    room.teachers.add(teacher)

    client.force_login(teacher)
    response = client.post(
        reverse("classroom:students_create", args=[room.pk]),
        {"names": "Jiřina Kořínková\nOndřej Šíma"},
    )
    assert response.status_code == 302
    url = response["Location"]
    job = Job.objects.get(kind=ACCOUNTS_JOB)
    wait_until(
        lambda: Job.objects.get(pk=job.pk).is_finished,
        60,
        "the accounts made",
        details=lambda: worker.log()[-3000:],
    )
    job.refresh_from_db()
    assert job.status == Job.Status.DONE, job.error
    assert job.worker == worker.hostname and "classroom.make_student_accounts" in worker.log()

    polled = client.get(url, HTTP_HX_REQUEST="true")
    assert polled.status_code == 204 and polled["HX-Redirect"] == url
    passwords = card_passwords(client.get(url).content.decode())
    made = Membership.objects.filter(classroom=room, managed=True).select_related("user")
    assert {m.user.username for m in made} == set(passwords)
    production = importlib.import_module("dama_learn.settings").PASSWORD_HASHERS
    client.logout()
    with override_settings(PASSWORD_HASHERS=production):
        for membership in made:
            assert membership.user.password.startswith(SITE_ARGON2), membership.user.password
            username = membership.user.username
            assert client.login(username=username, password=passwords[username]), username
            client.logout()
