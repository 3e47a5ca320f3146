"""Sign-up, log-in and out, passwords, the profile, roles, and progress handed over at login."""

from __future__ import annotations

import io
import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.core.cache import cache

from accounts.models import Profile, profile_of
from core import progress
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def empty_cache():
    """The rate limits count in the cache: each test starts with none counted."""
    cache.clear()
    yield
    cache.clear()


def run_mail_tasks_inline(monkeypatch) -> list[tuple[str, tuple]]:
    """The accounts' mail tasks, run in-process as a worker would when the page's transaction
    commits (wrap the request in ``django_capture_on_commit_callbacks(execute=True)``); the list
    holds (task name, arguments) of each task sent."""
    from accounts import tasks

    sent: list[tuple[str, tuple]] = []

    def sender(task):
        def delay(*args):
            sent.append((task.name, args))
            return task.apply(args=args).get()

        return delay

    for task in (tasks.send_password_reset, tasks.send_email_confirmation):
        monkeypatch.setattr(task, "delay", sender(task))
    return sent


@pytest.fixture
def worker(monkeypatch):
    return run_mail_tasks_inline(monkeypatch)


def confirmation_link(message) -> str:
    return re.search(r"http://testserver(/accounts/email/confirm/\S+/)", message.body).group(1)


def signup(client, username="newbie", **extra):
    data = {
        "username": username,
        "email": f"{username}@example.com",
        "password1": PASSWORD,
        "password2": PASSWORD,
    }
    data.update(extra)
    return client.post("/accounts/signup/", data)


def test_signup_makes_a_learner_and_logs_them_in(client):
    response = signup(client)
    assert response.status_code == 302
    user = User.objects.get(username="newbie")
    assert profile_of(user).role == Profile.Role.LEARNER
    assert client.get("/accounts/profile/").status_code == 200


def test_signup_with_mismatched_passwords_is_a_form_error(client):
    response = signup(client, password2="something-else-entirely")
    assert response.status_code == 400
    assert (
        "didn’t match" in response.content.decode() or "didn't match" in response.content.decode()
    )
    assert not User.objects.filter(username="newbie").exists()


def test_signup_keeps_the_email_only_once_its_owner_confirms_it(
    client, worker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = signup(client, email="newbie@example.com")
    assert response.status_code == 302
    user = User.objects.get(username="newbie")
    assert user.email == ""
    assert worker == [
        (
            "accounts.send_email_confirmation",
            (user.pk, "newbie@example.com", "testserver", False, "en"),
        )
    ]
    assert mail.outbox[0].to == ["newbie@example.com"]
    link = confirmation_link(mail.outbox[0])
    page = client.get(link)
    assert page.status_code == 200 and "newbie@example.com" in page.content.decode()
    assert client.post(link).status_code == 302
    user.refresh_from_db()
    assert user.email == "newbie@example.com"


def test_signup_says_a_confirmation_link_is_on_its_way(client):
    page = signup(client, email="newbie@example.com")
    text = client.get(page["Location"]).content.decode()
    assert "We sent a link to newbie@example.com" in text


def test_teacher_requested_at_signup_is_granted_at_once_when_the_setting_says_so(client, settings):
    settings.DAMA_TEACHERS_AUTO_APPROVE = True
    signup(client, want_teacher="on")
    assert profile_of(User.objects.get(username="newbie")).is_teacher


def test_teacher_requested_at_signup_waits_for_an_admin_otherwise(client, settings):
    settings.DAMA_TEACHERS_AUTO_APPROVE = False
    signup(client, want_teacher="on")
    profile = profile_of(User.objects.get(username="newbie"))
    assert not profile.is_teacher
    assert profile.is_teacher_pending


def test_learner_can_request_the_teacher_role_from_the_profile(client, student, settings):
    settings.DAMA_TEACHERS_AUTO_APPROVE = False
    client.force_login(student)
    response = client.post("/accounts/teacher/")
    assert response.status_code == 302
    assert profile_of(student).is_teacher_pending
    assert "waiting for an administrator" in client.get("/accounts/profile/").content.decode()


@pytest.mark.parametrize("after", ["0", "١٢", "profile", "https://evil.example/", "/teach/"])
def test_a_next_that_is_not_a_path_of_the_site_leads_to_the_profile(client, student, after):
    client.force_login(student)
    response = client.post("/accounts/teacher/", {"next": after})
    assert response.status_code == 302
    assert response.url == (after if after == "/teach/" else "/accounts/profile/")


def test_request_teacher_needs_post(client, student):
    client.force_login(student)
    assert client.get("/accounts/teacher/").status_code == 405


def test_login_and_logout(client, student):
    response = client.post("/accounts/login/", {"username": "standa", "password": PASSWORD})
    assert response.status_code == 302
    assert "standa" in client.get("/").content.decode()
    response = client.post("/accounts/logout/")
    assert response.status_code == 302
    assert "standa" not in client.get("/").content.decode()


def test_login_with_a_wrong_password_is_a_form_error(client, student):
    response = client.post("/accounts/login/", {"username": "standa", "password": "nope"})
    assert response.status_code == 200
    assert "form-errors" in response.content.decode()


def test_login_switches_to_the_profile_language(client, student):
    Profile.objects.filter(user=student).update(language="cs")
    response = client.post("/accounts/login/", {"username": "standa", "password": PASSWORD})
    assert response.cookies["django_language"].value == "cs"


def test_a_language_chosen_before_logging_in_wins_over_the_accounts_and_is_kept(client, student):
    Profile.objects.filter(user=student).update(language="cs")
    client.post("/language", {"language": "en", "next": "/"})
    response = client.post("/accounts/login/", {"username": "standa", "password": PASSWORD})
    assert response.cookies["django_language"].value == "en"
    assert '<html lang="en">' in client.get("/").content.decode()
    assert Profile.objects.get(user=student).language == "en"


def test_the_accounts_language_comes_back_at_the_next_session_until_the_user_changes_it(
    client, student
):
    Profile.objects.filter(user=student).update(language="cs")
    client.post("/language", {"language": "en"})
    client.post("/accounts/login/", {"username": "standa", "password": PASSWORD})
    client.post("/language", {"language": "cs"})  # changed while signed in: the account's now
    client.post("/accounts/logout/")
    client.cookies.pop("django_language", None)  # another browser
    response = client.post("/accounts/login/", {"username": "standa", "password": PASSWORD})
    assert response.cookies["django_language"].value == "cs"


def test_profile_saves_variant_and_language_and_mails_a_new_address_a_link(
    client, student, worker, django_capture_on_commit_callbacks
):
    client.force_login(student)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/accounts/profile/",
            {
                "profile-preferred_variant": "international",
                "profile-language": "cs",
                "account-email": "s@example.org",
            },
        )
    assert response.status_code == 302
    profile = profile_of(student)
    student.refresh_from_db()
    assert (profile.preferred_variant, profile.language) == ("international", "cs")
    assert response.cookies["django_language"].value == "cs"
    assert student.email == "standa@example.com"  # until the new address is confirmed
    assert mail.outbox[0].to == ["s@example.org"]
    client.post(confirmation_link(mail.outbox[0]))
    student.refresh_from_db()
    assert student.email == "s@example.org"


def test_profile_removes_the_address_at_once(client, student):
    client.force_login(student)
    response = client.post(
        "/accounts/profile/",
        {"profile-preferred_variant": "czech", "profile-language": "", "account-email": ""},
    )
    assert response.status_code == 302
    student.refresh_from_db()
    assert student.email == ""


def test_a_confirmation_link_that_was_tampered_with_is_a_400(client, student):
    from accounts.mail import confirmation_token

    token = confirmation_token(student, "s@example.org")
    response = client.get(f"/accounts/email/confirm/{token[:-2]}xx/")
    assert response.status_code == 400
    assert "not valid" in response.content.decode()
    assert client.post(f"/accounts/email/confirm/{token[:-2]}xx/").status_code == 400
    student.refresh_from_db()
    assert student.email == "standa@example.com"


def test_a_confirmation_link_expires(client, student, monkeypatch):
    import time

    from accounts.mail import CONFIRMATION_DAYS, confirmation_token

    token = confirmation_token(student, "s@example.org")
    later = time.time() + CONFIRMATION_DAYS * 24 * 3600 + 60
    monkeypatch.setattr(time, "time", lambda: later)
    assert client.post(f"/accounts/email/confirm/{token}/").status_code == 400


def test_an_address_taken_by_another_account_meanwhile_is_not_added(client, student, outsider):
    from accounts.mail import confirmation_token

    token = confirmation_token(student, "shared@example.org")
    User.objects.filter(pk=outsider.pk).update(email="Shared@example.org")
    response = client.post(f"/accounts/email/confirm/{token}/")
    assert response.status_code == 409
    student.refresh_from_db()
    assert student.email == "standa@example.com"


def test_profile_rejects_an_unknown_variant(client, student):
    client.force_login(student)
    response = client.post(
        "/accounts/profile/", {"profile-preferred_variant": "chess", "profile-language": ""}
    )
    assert response.status_code == 400
    assert profile_of(student).preferred_variant == "czech"


def test_the_profile_asks_the_name_certificates_print_and_keeps_it_tidy(client, student):
    client.force_login(student)
    page = client.get("/accounts/profile/").content.decode()
    assert 'name="profile-certificate_name"' in page and 'autocomplete="name"' in page
    response = client.post(
        "/accounts/profile/",
        {
            "profile-certificate_name": "  Žofie   O’Brien-Čermáková ",
            "profile-preferred_variant": "czech",
            "profile-language": "",
            "account-email": student.email,
        },
    )
    assert response.status_code == 302
    assert profile_of(student).certificate_name == "Žofie O’Brien-Čermáková"


@pytest.mark.parametrize(
    "name",
    ["examflow94519", "standa@example.com", "-Anna", "Anna-", "A", "Anna_Nová", "李小龍", "x" * 61],
)
def test_the_profile_refuses_a_name_a_certificate_cannot_print(client, student, name):
    client.force_login(student)
    response = client.post(
        "/accounts/profile/",
        {
            "profile-certificate_name": name,
            "profile-preferred_variant": "czech",
            "profile-language": "",
            "account-email": student.email,
        },
    )
    assert response.status_code == 400
    assert 'class="errors" role="alert"' in response.content.decode()
    assert profile_of(student).certificate_name == ""


def test_the_name_form_comes_back_to_the_page_that_asked(client, student):
    client.force_login(student)
    url = "/accounts/profile/name/?next=/exams/czech/"
    page = client.get(url).content.decode()
    assert 'name="next" value="/exams/czech/"' in page
    refused = client.post(url, {"certificate_name": "", "next": "/exams/czech/"})
    assert refused.status_code == 400 and profile_of(student).certificate_name == ""
    saved = client.post(url, {"certificate_name": "Stanislav Dvořák", "next": "/exams/czech/"})
    assert saved.status_code == 302 and saved.url == "/exams/czech/"
    assert profile_of(student).certificate_name == "Stanislav Dvořák"
    away = client.post(
        url, {"certificate_name": "Stanislav Dvořák", "next": "https://evil.example/"}
    )
    assert away.url == "/accounts/profile/"


def test_profile_needs_login(client):
    assert client.get("/accounts/profile/").status_code == 302


def test_password_change(client, student):
    client.force_login(student)
    assert client.get("/accounts/password/change/").status_code == 200
    response = client.post(
        "/accounts/password/change/",
        {
            "old_password": PASSWORD,
            "new_password1": "another-long-pass-77",
            "new_password2": "another-long-pass-77",
        },
    )
    assert response.status_code == 302
    assert client.get(response["Location"]).status_code == 200
    student.refresh_from_db()
    assert student.check_password("another-long-pass-77")


def test_password_reset_sends_a_link_that_sets_a_new_password(
    client, student, worker, django_capture_on_commit_callbacks
):
    assert client.get("/accounts/password/reset/").status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/accounts/password/reset/", {"email": student.email})
    assert response.status_code == 302
    assert client.get(response["Location"]).status_code == 200
    assert worker == [("accounts.send_password_reset", (student.email, "testserver", False, "en"))]
    assert len(mail.outbox) == 1
    link = re.search(
        r"http://testserver(/accounts/password/reset/\S+/)", mail.outbox[0].body
    ).group(1)
    response = client.get(link, follow=True)
    assert response.status_code == 200
    form_url = response.redirect_chain[-1][0]
    response = client.post(
        form_url, {"new_password1": "reset-pass-long-99", "new_password2": "reset-pass-long-99"}
    )
    assert response.status_code == 302
    student.refresh_from_db()
    assert student.check_password("reset-pass-long-99")


def test_password_reset_with_a_broken_link_says_so(client, student):
    response = client.get("/accounts/password/reset/MQ/bad-token/")
    assert response.status_code == 200
    assert "expired" in response.content.decode()


def test_every_user_gets_a_profile(django_user_model):
    user = django_user_model.objects.create_user("fresh", password=PASSWORD)
    assert Profile.objects.filter(user=user).exists()


@pytest.fixture
def collected():
    """A progress hand-over registered for the test, as a later app registers its own."""
    received: list[tuple[str, dict]] = []

    @progress.handover("test-progress")
    def take(user, data):
        received.append((user.username, data))

    yield received
    progress.unregister("test-progress")


def put_progress(client, data):
    session = client.session
    session[progress.SESSION_KEY] = {"test-progress": data, "not-registered": {"x": 1}}
    session.save()


def test_anonymous_progress_moves_to_the_account_at_signup(client, collected):
    client.get("/")
    put_progress(client, {"czech/1": 3})
    signup(client)
    assert collected == [("newbie", {"czech/1": 3})]
    store = client.session[progress.SESSION_KEY]
    assert "test-progress" not in store
    assert store["not-registered"] == {"x": 1}  # kept until its app registers a hand-over


def test_anonymous_progress_moves_to_the_account_at_login(client, student, collected):
    client.get("/")
    put_progress(client, {"czech/2": 1})
    client.post("/accounts/login/", {"username": "standa", "password": PASSWORD})
    assert collected == [("standa", {"czech/2": 1})]


def test_progress_helpers_keep_data_per_key(rf):
    from django.contrib.sessions.backends.db import SessionStore

    request = rf.get("/")
    request.session = SessionStore()
    progress.update_session_data(request, "lessons", {"a": 1})
    progress.update_session_data(request, "lessons", {"b": 2})
    assert progress.session_data(request, "lessons") == {"a": 1, "b": 2}
    assert progress.session_data(request, "puzzles") == {}


def test_a_key_cannot_be_registered_twice(collected):
    with pytest.raises(ValueError):
        progress.handover("test-progress")(lambda user, data: None)


def test_variant_chosen_before_login_becomes_the_preferred_one(client, student):
    client.get("/?variant=brazilian")
    client.post("/accounts/login/", {"username": "standa", "password": PASSWORD})
    assert profile_of(student).preferred_variant == "brazilian"


@pytest.mark.slow  # load_demo imports the whole puzzle corpus, as the first `make run` does
def test_demo_fixture_loads_and_its_accounts_log_in(client, settings):
    from django.core.management import call_command

    from core.demo import DEMO_ACCOUNTS

    settings.DEBUG = True
    call_command("load_demo", verbosity=0, stdout=io.StringIO())
    for username, password, _role in DEMO_ACCOUNTS:
        assert client.login(username=username, password=password), username
        client.logout()
    assert profile_of(User.objects.get(username="teacher")).is_teacher
    assert not profile_of(User.objects.get(username="student")).is_teacher


def test_demo_accounts_are_refused_in_production(settings):
    from django.core.management import call_command
    from django.core.management.base import CommandError

    settings.DEBUG = False
    with pytest.raises(CommandError):
        call_command("load_demo", verbosity=0)
