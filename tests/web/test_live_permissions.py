"""Every live lesson address, asked by each role: the teacher (who started the lesson), a
co-teacher of the class, a student of the class, a student of another class, a teacher of another
class, and an anonymous visitor. 302 to the login page for visitors, 404 for whoever may not know
the lesson exists, 403 for a student asking for what only teachers do (and a teacher answering).
The WebSocket's own check is in test_live_consumers.py. A test checks that the matrix names every
URL of ``live.urls``; tests/security/test_permissions.py counts these rows as the site's."""

from __future__ import annotations

import pytest
from django.urls import reverse

from live import urls as live_urls
from live.models import LiveSession, StepData

from .test_classroom import (  # noqa: F401 - fixtures
    classroom,
    co_teacher,
    other_class,
    other_teacher,
)

ROLES = ("teacher", "co_teacher", "student", "other_student", "other_teacher", "anonymous")
LOGIN = 302
FREE = "W:W22,27:B13,9"

MEMBERS = {
    "teacher": 200,
    "co_teacher": 200,
    "student": 200,
    "other_student": 404,
    "other_teacher": 404,
}
TEACHERS = {
    "teacher": 200,
    "co_teacher": 200,
    "student": 403,
    "other_student": 404,
    "other_teacher": 404,
}
TEACHERS_POST = {**TEACHERS, "teacher": 302, "co_teacher": 302}

# (url name, method, kwargs builder, POST data, expected by role; anonymous is always LOGIN)
MATRIX = [
    ("start", "get", lambda w: {"class_pk": w.classroom.pk}, None, TEACHERS),
    ("start", "post", lambda w: {"class_pk": w.classroom.pk}, {"positions": FREE}, TEACHERS_POST),
    ("session", "get", lambda w: {"pk": w.live.pk}, None, MEMBERS),
    ("state", "get", lambda w: {"pk": w.live.pk}, None, MEMBERS),
    ("results", "get", lambda w: {"pk": w.live.pk}, None, TEACHERS),
    # no question is open: the student's answer is refused with 409, nobody else may answer
    ("answer", "post", lambda w: {"pk": w.live.pk}, {"move": "22-18"}, {**TEACHERS, "teacher": 403, "co_teacher": 403, "student": 409}),
    ("control", "post", lambda w: {"pk": w.live.pk}, {"action": "clear"}, TEACHERS_POST),
]  # fmt: skip


class World:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)


@pytest.fixture
def world(db, request):
    get = request.getfixturevalue
    classroom = get("classroom")  # noqa: F811
    get("other_class")
    teacher = get("teacher")
    return World(
        teacher=teacher,
        co_teacher=get("co_teacher"),
        student=get("student"),
        other_student=get("outsider"),
        other_teacher=get("other_teacher"),
        classroom=classroom,
        live=LiveSession.start(classroom, teacher, [StepData(FREE, "free")]),
    )


CASES = [
    pytest.param(name, method, kwargs, data, role, expected.get(role, LOGIN), id=f"{method}-{name}-{role}")
    for name, method, kwargs, data, expected in MATRIX
    for role in ROLES
]  # fmt: skip


@pytest.mark.parametrize(("name", "method", "kwargs", "data", "role", "status"), CASES)
def test_every_live_view_answers_each_role_as_it_should(
    client, world, name, method, kwargs, data, role, status
):
    url = reverse(f"live:{name}", kwargs=kwargs(world))
    if role != "anonymous":
        client.force_login(getattr(world, role))
    response = client.post(url, data) if method == "post" else client.get(url)
    assert response.status_code == status, (url, role, response.content.decode()[:300])
    if role == "anonymous":
        assert response.url.startswith("/accounts/login/?next=")


def test_the_matrix_covers_every_live_url():
    assert {p.name for p in live_urls.urlpatterns} == {row[0] for row in MATRIX}


def test_nothing_of_the_lesson_reaches_someone_outside_the_class(client, world):
    client.force_login(world.other_student)
    for url in (world.live.get_absolute_url(), reverse("live:state", args=[world.live.pk])):
        response = client.get(url)
        assert response.status_code == 404 and FREE not in response.content.decode()
