"""Children's accounts made off the request (issue 47): the teacher's list of names becomes a
worker job (``classroom.tasks.make_student_accounts``) that the page follows until it shows the
login cards, once; the passwords wait in the job sealed (``classroom.cards``), never in clear.

The queue is a list here (the task's ``delay`` is replaced) and the test runs the task itself,
as a worker would; ``tests/services/test_accounts_worker.py`` runs it on a real worker."""

from __future__ import annotations

import doctest
import json
from datetime import timedelta
from typing import ClassVar

import pytest
from django.contrib.auth.hashers import MD5PasswordHasher
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from classroom import cards, tasks
from classroom.models import ACCOUNTS_JOB, CARDS_KEPT, Membership, forget_old_cards
from core.models import Job
from tests.conftest import tasks_sent

from .test_classroom import classroom, co_teacher  # noqa: F401 - fixtures

HX = {"HTTP_HX_REQUEST": "true"}
NAMES = ["Anna Nováková", "Petr Dvořák"]


@pytest.fixture
def queue():
    """The accounts jobs sent to the workers, as the list of their ids (the task's name heard
    from Celery as it is sent; a job sent to another queue than the default fails the test)."""
    sent: list[str] = []

    def record(name: str, args: tuple, queue: str) -> None:
        if name == "classroom.make_student_accounts":
            assert queue == "default", queue
            sent.append(args[0])

    with tasks_sent(record):
        yield sent


def ask(client, classroom, names, callbacks):  # noqa: F811
    with callbacks(execute=True):
        return client.post(
            reverse("classroom:students_create", args=[classroom.pk]), {"names": "\n".join(names)}
        )


def card_passwords(page: str) -> dict[str, str]:
    """username -> password, read from a page of login cards."""
    found = {}
    for card in page.split('data-testid="login-card"')[1:]:
        username = card.split('data-testid="card-username">')[1].split("<")[0]
        found[username] = card.split('data-testid="card-password">')[1].split("<")[0]
    return found


def test_the_accounts_are_a_job_the_page_follows_to_login_cards_shown_once(
    client,
    teacher,
    classroom,  # noqa: F811
    queue,
    django_capture_on_commit_callbacks,
):
    client.force_login(teacher)
    response = ask(
        client,
        classroom,
        ["Anna Nováková", "", "  Petr  Dvořák "],
        django_capture_on_commit_callbacks,
    )
    job = Job.objects.get(kind=ACCOUNTS_JOB)
    url = reverse("classroom:students_job", args=[classroom.pk, job.pk])
    assert response.status_code == 302 and response["Location"] == url
    assert queue == [str(job.pk)]
    assert job.owner == teacher and job.params == {"classroom": classroom.pk, "names": NAMES}
    # nothing is hashed or made in the request
    assert not Membership.objects.filter(classroom=classroom, managed=True).exists()

    waiting = client.get(url)
    page = waiting.content.decode()
    assert waiting.status_code == 200 and "no-store" in waiting["Cache-Control"]
    assert "2 accounts wait for a worker" in page and 'data-testid="login-card"' not in page
    polled = client.get(url, **HX).content.decode()
    assert f'hx-get="{url}"' in polled and 'hx-trigger="load delay:1s"' in polled
    assert "<html" not in polled

    assert tasks.make_student_accounts(queue[0]) == "done"
    assert tasks.make_student_accounts(queue[0]) == "skipped"  # delivered twice: made once
    job.refresh_from_db()
    assert job.status == Job.Status.DONE and job.progress == 100
    made = Membership.objects.filter(classroom=classroom, managed=True).select_related("user")
    assert sorted(m.user.first_name for m in made) == sorted(NAMES)
    assert sorted(job.result["accounts"]) == sorted(m.user.pk for m in made)

    # the htmx poll leads to the page itself, where the cards come whole
    done = client.get(url, **HX)
    assert done.status_code == 204 and done["HX-Redirect"] == url
    shown = client.get(url)
    page = shown.content.decode()
    assert shown.status_code == 200 and "no-store" in shown["Cache-Control"]
    assert page.count('data-testid="login-card"') == 2 and "print.css" in page
    passwords = card_passwords(page)
    anna = next(m.user for m in made if m.user.first_name == "Anna Nováková")
    assert anna.username.startswith("anna-novakova-") and anna.email == ""
    assert set(passwords) == {m.user.username for m in made}
    for password in passwords.values():
        # the job kept them sealed, and keeps nothing of them now
        assert password not in json.dumps(job.result)
    job.refresh_from_db()
    assert "cards" not in job.result and job.result["accounts"]

    again = client.get(url).content.decode()
    assert 'data-testid="card-password"' not in again
    assert 'data-testid="made-accounts"' in again and anna.username in again
    client.logout()
    assert client.login(username=anna.username, password=passwords[anna.username])


def test_a_second_click_with_the_same_names_follows_the_first_job(
    client,
    teacher,
    classroom,  # noqa: F811
    queue,
    django_capture_on_commit_callbacks,
):
    client.force_login(teacher)
    first = ask(client, classroom, NAMES, django_capture_on_commit_callbacks)
    second = ask(client, classroom, NAMES, django_capture_on_commit_callbacks)
    assert first["Location"] == second["Location"] and len(queue) == 1
    other = ask(client, classroom, ["Eva Malá"], django_capture_on_commit_callbacks)
    assert other["Location"] != first["Location"] and len(queue) == 2


def test_only_the_teacher_who_asked_follows_the_job_and_sees_the_cards(
    client,
    teacher,
    co_teacher,  # noqa: F811
    classroom,  # noqa: F811
    queue,
    django_capture_on_commit_callbacks,
):
    client.force_login(teacher)
    url = ask(client, classroom, NAMES, django_capture_on_commit_callbacks)["Location"]
    assert tasks.make_student_accounts(queue[0]) == "done"
    client.force_login(co_teacher)
    assert client.get(url).status_code == 404
    client.force_login(teacher)
    assert 'data-testid="card-password"' in client.get(url).content.decode()


class ProgressHasher(MD5PasswordHasher):
    """MD5 (fast, for tests) that notes, for each password it hashes, the progress of the
    running accounts job as the database holds it then (what the teacher's page would show)."""

    seen: ClassVar[list[int]] = []

    def encode(self, password: str, salt: str) -> str:
        job = Job.objects.filter(kind=ACCOUNTS_JOB, status=Job.Status.RUNNING).first()
        ProgressHasher.seen.append(job.progress if job else -1)
        return super().encode(password, salt)


def test_the_job_reports_its_progress_as_the_passwords_are_hashed(
    teacher,
    classroom,  # noqa: F811
    settings,
    monkeypatch,
):
    settings.PASSWORD_HASHERS = [f"{__name__}.ProgressHasher", *settings.PASSWORD_HASHERS]
    ProgressHasher.seen.clear()
    monkeypatch.setattr(tasks, "PROGRESS_EVERY", 0)  # a report after every password
    job = classroom.start_student_accounts(["A", "B", "C", "D"], teacher)
    assert tasks.make_student_accounts(str(job.pk)) == "done"
    assert ProgressHasher.seen == [0, 25, 50, 75]
    job.refresh_from_db()
    assert job.progress == 100


def test_a_job_that_stopped_running_makes_no_accounts(teacher, classroom):  # noqa: F811
    job = classroom.start_student_accounts(NAMES, teacher)
    assert job.claim("a worker")
    Job.objects.filter(pk=job.pk).update(status=Job.Status.FAILED)  # e.g. an admin stopped it
    assert classroom.create_student_accounts(NAMES, job=job) == []
    assert not Membership.objects.filter(classroom=classroom, managed=True).exists()


def test_a_job_whose_class_is_gone_fails_and_says_so(
    client,
    teacher,
    classroom,  # noqa: F811
    queue,
    django_capture_on_commit_callbacks,
):
    client.force_login(teacher)
    url = ask(client, classroom, NAMES, django_capture_on_commit_callbacks)["Location"]
    job = Job.objects.get(kind=ACCOUNTS_JOB)
    job.params["classroom"] = 10**9
    job.save(update_fields=["params"])
    assert tasks.make_student_accounts(str(job.pk)) == "failed"
    job.params["classroom"] = classroom.pk
    job.save(update_fields=["params"])
    page = client.get(url, **HX).content.decode()
    assert "could not be created" in page and "hx-get" not in page


def test_cards_never_looked_at_are_forgotten_after_a_day(
    client,
    teacher,
    classroom,  # noqa: F811
    queue,
    django_capture_on_commit_callbacks,
):
    client.force_login(teacher)
    url = ask(client, classroom, NAMES, django_capture_on_commit_callbacks)["Location"]
    assert tasks.make_student_accounts(queue[0]) == "done"
    job = Job.objects.get(kind=ACCOUNTS_JOB)
    assert forget_old_cards(now=timezone.now()) == 0  # a fresh job keeps them
    later = job.finished + CARDS_KEPT + timedelta(seconds=1)
    assert forget_old_cards(now=later) == 1
    job.refresh_from_db()
    assert "cards" not in job.result and len(job.result["accounts"]) == 2
    page = client.get(url).content.decode()
    assert 'data-testid="card-password"' not in page and 'data-testid="made-accounts"' in page


def test_sealed_passwords_open_only_for_their_job_and_after_the_key_is_rotated(settings):
    assert doctest.testmod(cards).failed == 0
    token = cards.seal(["abcd-efgh-23", "mnpq-rstu-45"], "job-1")
    assert "abcd" not in token
    assert cards.unseal(token, "job-2") is None
    assert cards.unseal(token[:-4] + "AAAA", "job-1") is None
    old_key = settings.SECRET_KEY
    with override_settings(SECRET_KEY="a-new-key-" + "x" * 50, SECRET_KEY_FALLBACKS=[old_key]):
        assert cards.unseal(token, "job-1") == ["abcd-efgh-23", "mnpq-rstu-45"]
    with override_settings(SECRET_KEY="a-new-key-" + "x" * 50, SECRET_KEY_FALLBACKS=[]):
        assert cards.unseal(token, "job-1") is None
