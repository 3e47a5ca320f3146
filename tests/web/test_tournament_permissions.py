"""Every tournament address, asked by each role: the teacher, a co-teacher of the class, a
student of the class, a student of another class, a teacher of another class, and an anonymous
visitor. 302 to the login page for visitors, 404 for whoever may not know the tournament exists,
403 for a student asking for what only teachers do. A test checks that the matrix names every URL
of ``tournaments.urls``; tests/security/test_permissions.py counts these rows as the site's."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tournaments import urls as tournament_urls
from tournaments.models import Pairing, Tournament

from .test_classroom import (  # noqa: F401 - fixtures
    classroom,
    co_teacher,
    other_class,
    other_teacher,
)

ROLES = ("teacher", "co_teacher", "student", "other_student", "other_teacher", "anonymous")
LOGIN = 302

MEMBERS = {
    "teacher": 200,
    "co_teacher": 200,
    "student": 200,
    "other_student": 404,
    "other_teacher": 404,
}
TEACHERS = {**MEMBERS, "student": 403}
TEACHERS_POST = {**TEACHERS, "teacher": 302, "co_teacher": 302}
#: the round's games have no results yet: the next round is refused, with a 400 that says why
TEACHERS_REFUSED = {**TEACHERS, "teacher": 400, "co_teacher": 400}


def new_tournament(w):
    return {
        "name": "Cup",
        "kind": "swiss",
        "players": [w.student.pk, w.second.pk],
        "length": 45,
        "minutes": 5,
        "increment": 0,
        "bye_points": 2,
    }


# (url name, method, kwargs builder, POST data (or its builder), expected by role; anonymous is
# always LOGIN)
MATRIX = [
    ("list", "get", lambda w: {"class_pk": w.classroom.pk}, None, MEMBERS),
    ("create", "get", lambda w: {"class_pk": w.classroom.pk}, None, TEACHERS),
    ("create", "post", lambda w: {"class_pk": w.classroom.pk}, new_tournament, TEACHERS_POST),
    ("detail", "get", lambda w: {"pk": w.tournament.pk}, None, MEMBERS),
    ("table", "get", lambda w: {"pk": w.tournament.pk}, None, MEMBERS),
    ("next", "post", lambda w: {"pk": w.tournament.pk}, {}, TEACHERS_REFUSED),
    ("finish", "post", lambda w: {"pk": w.tournament.pk}, {}, TEACHERS_POST),
    ("result", "post", lambda w: {"pk": w.tournament.pk, "pairing_id": w.game.pk}, {"result": "1-1"}, TEACHERS_POST),
]  # fmt: skip


class World:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)


@pytest.fixture
def world(db, request, django_user_model):
    get = request.getfixturevalue
    classroom = get("classroom")  # noqa: F811
    get("other_class")
    teacher = get("teacher")
    second = django_user_model.objects.create_user("second")
    classroom.add_student(second)
    tournament = Tournament.create(
        classroom, teacher, name="Cup", kind="round_robin", players=classroom.students()
    )
    tournament.start()
    return World(
        teacher=teacher,
        co_teacher=get("co_teacher"),
        student=get("student"),
        second=second,
        other_student=get("outsider"),
        other_teacher=get("other_teacher"),
        classroom=classroom,
        tournament=tournament,
        game=Pairing.objects.get(round__tournament=tournament),
    )


CASES = [
    pytest.param(name, method, kwargs, data, role, expected.get(role, LOGIN), id=f"{method}-{name}-{role}")
    for name, method, kwargs, data, expected in MATRIX
    for role in ROLES
]  # fmt: skip


@pytest.mark.parametrize(("name", "method", "kwargs", "data", "role", "status"), CASES)
def test_every_tournament_view_answers_each_role_as_it_should(
    client, world, name, method, kwargs, data, role, status
):
    url = reverse(f"tournaments:{name}", kwargs=kwargs(world))
    if role != "anonymous":
        client.force_login(getattr(world, role))
    if callable(data):
        data = data(world)
    response = client.post(url, data) if method == "post" else client.get(url)
    assert response.status_code == status, (url, role, response.content.decode()[:300])
    if role == "anonymous":
        assert response.url.startswith("/accounts/login/?next=")


def test_the_matrix_covers_every_tournament_url():
    assert {p.name for p in tournament_urls.urlpatterns} == {row[0] for row in MATRIX}


def test_nothing_of_the_tournament_reaches_someone_outside_the_class(client, world):
    client.force_login(world.other_student)
    for url in (
        world.tournament.get_absolute_url(),
        reverse("tournaments:table", args=[world.tournament.pk]),
    ):
        response = client.get(url)
        assert response.status_code == 404 and "Cup" not in response.content.decode()
