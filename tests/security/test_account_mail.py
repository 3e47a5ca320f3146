"""Sign-up, the profile's e-mail form and password reset tell nobody which addresses have accounts
(issue 22, item 8), and are throttled per client address and per address mailed (item 9).

The page answers the same whether an account has the address or not; the mail (sent by a worker)
says the rest, to the address itself: a confirmation link, or "someone tried to use your address".
The reset page makes no database query at all, so its timing cannot depend on the address.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.core import mail

from tests.conftest import PASSWORD
from tests.web.test_accounts import run_mail_tasks_inline

pytestmark = pytest.mark.django_db


@pytest.fixture
def worker(monkeypatch):
    return run_mail_tasks_inline(monkeypatch)


SIGNUP = "/accounts/signup/"
PROFILE = "/accounts/profile/"
RESET = "/accounts/password/reset/"


def signup(client, username, email, address="10.0.0.1", **extra):
    data = {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD}
    return client.post(SIGNUP, data, REMOTE_ADDR=address, **extra)


def page_after(client, response, address: str) -> str:
    """The page a redirect leads to, with the parts that name the account, the address asked for
    and the CSRF token taken out."""
    text = client.get(response["Location"]).content.decode()
    text = re.sub(re.escape(address), "ADDRESS", text, flags=re.IGNORECASE)
    text = re.sub(r"\b[A-Za-z0-9]{64}\b", "CSRF-TOKEN", text)
    return re.sub(r"\b(?:eve|mallory)\b", "NAME", text)


# -- the same answer either way (item 8) --------------------------------------------------------------


def test_signup_answers_the_same_whether_or_not_the_address_has_an_account(
    client, student, worker, django_capture_on_commit_callbacks
):
    from django.test import Client

    other = Client()
    with django_capture_on_commit_callbacks(execute=True):
        taken = signup(client, "mallory", student.email)
        fresh = signup(other, "eve", "eve@example.com", address="10.0.0.2")
    assert taken.status_code == fresh.status_code == 302
    assert page_after(client, taken, student.email) == page_after(other, fresh, "eve@example.com")
    # neither new account has its address yet
    assert User.objects.get(username="mallory").email == ""
    assert User.objects.get(username="eve").email == ""
    # the mails tell the rest, to the address itself
    to_student, to_eve = (
        [m for m in mail.outbox if m.to == [student.email]],
        [m for m in mail.outbox if m.to == ["eve@example.com"]],
    )
    assert (
        len(to_student) == 1 and "Someone tried to use your e-mail address" in to_student[0].subject
    )
    assert "standa" in to_student[0].body and "/accounts/password/reset/" in to_student[0].body
    assert "mallory" not in to_student[0].body
    assert len(to_eve) == 1 and "/accounts/email/confirm/" in to_eve[0].body


def test_the_profile_answers_the_same_whether_or_not_the_address_has_an_account(
    client, student, outsider, worker, django_capture_on_commit_callbacks
):
    client.force_login(outsider)
    answers = []
    for address in (student.email.upper(), "nobody-yet@example.com"):
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(
                PROFILE,
                {
                    "profile-preferred_variant": "czech",
                    "profile-language": "",
                    "account-email": address,
                },
            )
        assert response.status_code == 302
        answers.append(page_after(client, response, address))
    assert answers[0] == answers[1]
    outsider.refresh_from_db()
    assert outsider.email == "olga@example.com"
    assert "Someone tried to use your e-mail address" in mail.outbox[0].subject
    assert "standa" in mail.outbox[0].body
    assert "/accounts/email/confirm/" in mail.outbox[1].body


def test_the_reset_request_makes_no_query_and_sends_the_same_task_for_any_address(
    client, student, worker, django_assert_num_queries, django_capture_on_commit_callbacks
):
    answers = []
    for address in (student.email, "nobody@example.com"):
        with (
            django_capture_on_commit_callbacks(execute=False) as callbacks,
            django_assert_num_queries(0),
        ):
            response = client.post(RESET, {"email": address})
        assert response.status_code == 302
        answers.append(response["Location"])
        assert len(callbacks) == 1  # the mail is the worker's job
        callbacks[0]()
    assert answers[0] == answers[1]
    assert [name for name, _args in worker] == ["accounts.send_password_reset"] * 2
    assert [m.to for m in mail.outbox] == [[student.email]]  # the worker mails only an account


# -- throttles (item 9) ------------------------------------------------------------------------------


def test_signups_are_limited_per_client_address(client, settings):
    settings.DAMA_SIGNUPS_PER_HOUR = 2
    from django.test import Client

    for n in range(2):
        assert signup(Client(), f"user{n}", "", address="10.0.0.1").status_code == 302
    refused = signup(client, "user9", "", address="10.0.0.1")
    assert refused.status_code == 429
    assert "Too many sign-ups from your network" in refused.content.decode()
    assert int(refused["Retry-After"]) <= 3600
    assert not User.objects.filter(username="user9").exists()
    assert signup(client, "user9", "", address="10.0.0.2").status_code == 302


def test_a_refused_signup_is_in_czech_for_a_czech_visitor(client, settings):
    settings.DAMA_SIGNUPS_PER_HOUR = 1
    signup(client, "user1", "", address="10.0.0.1")
    client.logout()
    client.cookies["django_language"] = "cs"
    refused = signup(client, "user2", "", address="10.0.0.1")
    assert refused.status_code == 429
    assert "Příliš mnoho registrací z tvé sítě" in refused.content.decode()


def test_reset_requests_are_limited_per_client_address(client, settings):
    settings.DAMA_RESETS_PER_HOUR = 3
    for n in range(3):
        assert (
            client.post(RESET, {"email": f"x{n}@example.com"}, REMOTE_ADDR="10.0.0.1").status_code
            == 302
        )
    refused = client.post(RESET, {"email": "x9@example.com"}, REMOTE_ADDR="10.0.0.1")
    assert refused.status_code == 429
    assert "Too many password-reset requests from your network" in refused.content.decode()
    assert "Retry-After" in refused
    assert (
        client.post(RESET, {"email": "x9@example.com"}, REMOTE_ADDR="10.0.0.2").status_code == 302
    )


def test_reset_mail_to_one_address_is_limited_from_any_client(
    client, student, settings, worker, django_capture_on_commit_callbacks
):
    settings.DAMA_MAILS_PER_ADDRESS_PER_HOUR = 2
    with django_capture_on_commit_callbacks(execute=True):
        for n in range(2):
            client.post(RESET, {"email": student.email}, REMOTE_ADDR=f"10.0.0.{n + 1}")
        refused = client.post(RESET, {"email": student.email.upper()}, REMOTE_ADDR="10.0.0.9")
    assert refused.status_code == 429
    assert "We sent too many e-mails to this address" in refused.content.decode()
    assert len(mail.outbox) == 2
    # an address without an account is refused alike, after as many requests
    with django_capture_on_commit_callbacks(execute=True):
        for n in range(2):
            client.post(RESET, {"email": "nobody@example.com"}, REMOTE_ADDR=f"10.0.1.{n + 1}")
        assert (
            client.post(RESET, {"email": "nobody@example.com"}, REMOTE_ADDR="10.0.1.9").status_code
            == 429
        )


def test_a_refused_reset_is_in_czech_for_a_czech_visitor(client, settings):
    settings.DAMA_RESETS_PER_HOUR = 1
    client.cookies["django_language"] = "cs"
    client.post(RESET, {"email": "a@example.com"})
    refused = client.post(RESET, {"email": "b@example.com"})
    assert refused.status_code == 429
    assert "Příliš mnoho žádostí o nové heslo z tvé sítě" in refused.content.decode()


def test_confirmation_mail_to_one_address_is_limited_too(client, student, settings):
    settings.DAMA_MAILS_PER_ADDRESS_PER_HOUR = 1
    assert signup(client, "first", "target@example.com").status_code == 302
    client.logout()
    refused = signup(client, "second", "target@example.com", address="10.0.0.2")
    assert refused.status_code == 429
    assert not User.objects.filter(username="second").exists()
    client.force_login(student)
    data = {
        "profile-preferred_variant": "czech",
        "profile-language": "",
        "account-email": "target@example.com",
    }
    assert client.post(PROFILE, data).status_code == 429


def test_address_changes_are_limited_per_account(client, student, settings):
    settings.DAMA_RESETS_PER_HOUR = 2
    client.force_login(student)
    for n in range(2):
        data = {
            "profile-preferred_variant": "czech",
            "profile-language": "",
            "account-email": f"n{n}@example.com",
        }
        assert client.post(PROFILE, data).status_code == 302
    data["account-email"] = "n9@example.com"
    refused = client.post(PROFILE, data)
    assert refused.status_code == 429
    assert "We sent too many e-mails" in refused.content.decode()
