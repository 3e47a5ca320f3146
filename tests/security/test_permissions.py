"""The permission matrix of every view of the site x role (visitor, student, teacher, staff),
beyond classroom (tests/web/test_classroom_permissions.py covers its five roles): a test fails when
a URL of the URLconf has a row in neither matrix. The admin: only staff get in."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.mail import confirmation_token
from tests.puzzle_fixtures import make_puzzle
from tests.web.test_classroom_permissions import MATRIX as CLASSROOM_MATRIX

from .urlconf import site_routes, url_names

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "student", "teacher", "staff")
LOGIN = 302
ALL = {r: 200 for r in ROLES}
REDIRECT = {r: 302 for r in ROLES}
ACCOUNT = {"anonymous": LOGIN, "student": 200, "teacher": 200, "staff": 200}
ACCOUNT_POST = {"anonymous": LOGIN, "student": 302, "teacher": 302, "staff": 302}
#: an attempt belongs to the student who made it: nobody else even learns that it exists
OWNER = {"anonymous": 404, "student": 200, "teacher": 404, "staff": 404}
AUTHOR = {"anonymous": 404, "student": 404, "teacher": 404, "staff": 200}  # staff (and the author)
STAFF = {"anonymous": LOGIN, "student": 302, "teacher": 302, "staff": 200}
YESTERDAY = (timezone.localdate() - timedelta(days=1)).isoformat()

# (url name, method, kwargs builder, POST data, expected by role)
MATRIX = [
    ("home", "get", lambda w: {}, None, ALL),
    ("board_move", "get", lambda w: {"variant": "czech"}, None, REDIRECT),
    ("board_move", "post", lambda w: {"variant": "czech"}, {"fen": "W:W21-32:B1-12", "move": "22-18"}, ALL),
    ("set_language", "post", lambda w: {}, {"language": "cs"}, REDIRECT),
    ("healthz", "get", lambda w: {}, None, {r: (200, 503) for r in ROLES}),
    ("job_probe", "post", lambda w: {}, {"variant": "czech"}, {"anonymous": LOGIN, "student": 302, "teacher": 302, "staff": 202}),
    ("job_detail", "get", lambda w: {"job_id": w.job.pk}, None, {"anonymous": 404, "student": 404, "teacher": 404, "staff": 200}),
    ("signup", "get", lambda w: {}, None, {"anonymous": 200, "student": 302, "teacher": 302, "staff": 302}),
    ("login", "get", lambda w: {}, None, ALL),
    ("logout", "post", lambda w: {}, {}, REDIRECT),
    ("profile", "get", lambda w: {}, None, ACCOUNT),
    ("confirm_email", "get", lambda w: {"token": confirmation_token(w.student, "new@example.com")}, None, ALL),
    ("confirm_email", "get", lambda w: {"token": "bad-token"}, None, {r: 400 for r in ROLES}),
    ("confirm_email", "post", lambda w: {"token": confirmation_token(w.student, "new@example.com")}, {}, REDIRECT),
    ("confirm_email", "post", lambda w: {"token": "bad-token"}, {}, {r: 400 for r in ROLES}),
    ("request_teacher", "post", lambda w: {}, {}, ACCOUNT_POST),
    ("password_change", "get", lambda w: {}, None, ACCOUNT),
    ("password_change_done", "get", lambda w: {}, None, ACCOUNT),
    ("password_reset", "get", lambda w: {}, None, ALL),
    ("password_reset", "post", lambda w: {}, {"email": "nobody@example.com"}, REDIRECT),
    ("password_reset_done", "get", lambda w: {}, None, ALL),
    ("password_reset_confirm", "get", lambda w: {"uidb64": "MQ", "token": "bad-token"}, None, ALL),
    ("password_reset_complete", "get", lambda w: {}, None, ALL),
    ("lessons:index", "get", lambda w: {}, None, {r: (200, 302) for r in ROLES}),
    ("lessons:course", "get", lambda w: {"variant": "czech"}, None, ALL),
    ("lessons:step", "get", lambda w: w.step, None, ALL),
    ("lessons:check", "post", lambda w: w.step, {"answer": "4"}, ALL),
    ("lessons:hint", "post", lambda w: w.step, {}, ALL),
    ("lessons:solution", "post", lambda w: w.step, {}, ALL),
    ("puzzles:index", "get", lambda w: {}, None, REDIRECT),
    ("puzzles:dashboard_index", "get", lambda w: {}, None, REDIRECT),
    ("puzzles:attempt_move", "post", lambda w: {"pk": w.attempt}, {"move": "22-17"}, OWNER),
    ("puzzles:attempt_hint", "post", lambda w: {"pk": w.attempt}, {}, OWNER),
    ("puzzles:attempt_solution", "post", lambda w: {"pk": w.attempt}, {}, OWNER),
    ("puzzles:attempt_retry", "post", lambda w: {"pk": w.attempt}, {}, {**OWNER, "student": 302}),
    ("puzzles:trainer", "get", lambda w: {"variant": "czech"}, None, REDIRECT),
    ("puzzles:dashboard", "get", lambda w: {"variant": "czech"}, None, ALL),
    ("puzzles:solve", "get", lambda w: {"variant": "czech", "pk": w.puzzle.pk}, None, ALL),
    ("puzzles:proof", "get", lambda w: {"variant": "czech", "pk": w.puzzle.pk}, None, AUTHOR),
    ("puzzles:daily_index", "get", lambda w: {}, None, REDIRECT),
    ("puzzles:daily", "get", lambda w: {"variant": "czech"}, None, ALL),
    ("puzzles:daily_archive", "get", lambda w: {"variant": "czech"}, None, ALL),
    ("puzzles:daily_day", "get", lambda w: {"variant": "czech", "day": YESTERDAY}, None, {r: 404 for r in ROLES}),
]  # fmt: skip


class World:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)


@pytest.fixture
def world(student, teacher, staff):
    from django.test import Client

    from core.models import Job
    from lessons.course import get_course

    puzzle = make_puzzle("czech_gain")
    # the student's attempt, made in a browser of their own
    own = Client()
    own.force_login(student)
    page = own.get(f"/puzzles/czech/{puzzle.pk}/")
    assert page.status_code == 200, (page.status_code, page.get("Location"))
    html = page.content.decode()
    attempt = int(re.search(r'data-attempt="(\d+)"', html).group(1))
    step = get_course("czech").steps[0]
    job = Job.objects.create(kind="probe", owner=staff, params={"variant": "czech"})
    return World(
        student=student, teacher=teacher, staff=staff, puzzle=puzzle, attempt=attempt, job=job,
        step={"variant": "czech", "lesson": step.lesson.slug, "step": step.slug},
    )  # fmt: skip


CASES = [
    pytest.param(name, method, kwargs, data, role, expected[role], id=f"{method}-{name}-{role}")
    for name, method, kwargs, data, expected in MATRIX
    for role in ROLES
]


@pytest.mark.parametrize(("name", "method", "kwargs", "data", "role", "status"), CASES)
def test_every_view_answers_each_role_as_it_should(
    client, world, name, method, kwargs, data, role, status
):
    url = reverse(name, kwargs=kwargs(world))
    if role != "anonymous":
        client.force_login(getattr(world, role))
    response = client.post(url, data) if method == "post" else client.get(url)
    allowed = status if isinstance(status, tuple) else (status,)
    assert response.status_code in allowed, (url, role, response.content.decode()[:300])


def test_visitors_asking_for_account_pages_are_sent_to_the_login_page(client, world):
    for name in ("profile", "password_change"):
        response = client.get(reverse(name))
        assert response.url.startswith("/accounts/login/?next="), name


def test_the_two_matrices_cover_every_url_of_the_site():
    covered = {row[0] for row in MATRIX} | {f"classroom:{row[0]}" for row in CLASSROOM_MATRIX}
    assert url_names() - covered == set(), "add a row for each new view"


ADMIN_PAGES = [
    r
    for r in site_routes(admin=True)
    if r.is_admin
    and "<" not in r.route
    # the log-in page is for everyone; autocomplete answers a bad query with 403 even to staff
    and r.name not in ("admin:logout", "admin:login", "admin:autocomplete")
]


@pytest.mark.parametrize("role", ROLES)
def test_only_staff_get_into_the_admin(client, world, role):
    if role != "anonymous":
        client.force_login(getattr(world, role))
    for route in ADMIN_PAGES:
        response = client.get(route.url)
        if role == "staff":
            assert response.status_code in (200, 302), route.url
            if response.status_code == 302:
                assert "/admin/login/" not in response.url, route.url
        else:
            assert response.status_code in (302, 404), (route.url, response.status_code)
            if response.status_code == 302:
                assert response.url.startswith("/admin/login/"), route.url
