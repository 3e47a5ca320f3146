"""Every versus address (the games and the simuls), asked by each role: the player (the
student, White in a private casual game against another account, and in the teacher's open
simul), the class's teacher (the simul's host), a stranger (``outsider``), staff, and an
anonymous visitor. 302 to the login page for visitors where an account is needed, 404 for
whoever may not know the game exists, 403 for a stranger who would act on a game they may
watch (tests/web/test_versus_views.py). The socket's check is in test_versus_consumers.py;
tests/security/test_permissions.py counts these rows as the site's."""

from __future__ import annotations

import pytest
from django.urls import reverse

from classroom.models import Classroom
from tests.conftest import _make_user
from versus import urls as versus_urls
from versus.models import Simul, VersusGame

pytestmark = pytest.mark.django_db

ROLES = ("student", "teacher", "outsider", "staff", "anonymous")
LOGIN = 302
ACCOUNT = {"student": 200, "teacher": 200, "outsider": 200, "staff": 200, "anonymous": LOGIN}
PLAYER = {"student": 200, "teacher": 404, "outsider": 404, "staff": 404, "anonymous": 404}


#: a simul: the class's student and teacher (the host) see it; visitors log in first
IN_SIMUL = {"student": 200, "teacher": 200, "outsider": 404, "staff": 404, "anonymous": LOGIN}


def acted(status: int) -> dict[str, int]:
    """An action: the player gets ``status``; nobody else learns the game exists."""
    return {**PLAYER, "student": status}


# (url name, method, kwargs builder, POST data, expected by role)
MATRIX = [
    ("index", "get", lambda w: {}, None, ACCOUNT),
    ("new", "get", lambda w: {}, None, ACCOUNT),
    ("new", "post", lambda w: {}, {"variant": "czech", "time": "none"}, {**ACCOUNT, "student": 302, "teacher": 302, "outsider": 302, "staff": 302}),
    ("classmates", "get", lambda w: {"class_pk": w.classroom.pk}, None, {**ACCOUNT, "outsider": 404, "staff": 404}),
    ("game", "get", lambda w: {"token": w.game.token}, None, PLAYER),
    ("state", "get", lambda w: {"token": w.game.token}, None, acted(302)),
    ("pdn", "get", lambda w: {"token": w.game.token}, None, PLAYER),
    ("accept", "post", lambda w: {"token": w.game.token}, {}, acted(400)),
    ("move", "post", lambda w: {"token": w.game.token}, {"move": "22-18"}, acted(302)),
    ("draw", "post", lambda w: {"token": w.game.token}, {}, acted(302)),
    ("draw_answer", "post", lambda w: {"token": w.game.token}, {"answer": "yes"}, acted(400)),
    ("resign", "post", lambda w: {"token": w.game.token}, {}, acted(302)),
    ("abort", "post", lambda w: {"token": w.game.token}, {}, acted(302)),
    ("takeback", "post", lambda w: {"token": w.game.token}, {}, acted(400)),
    ("takeback_answer", "post", lambda w: {"token": w.game.token}, {"answer": "yes"}, acted(400)),
    # a simul of the class hosted by the teacher, the student in it, open
    ("simul_new", "get", lambda w: {}, None, ACCOUNT),
    ("simul_new", "post", lambda w: {}, {"variant": "czech"}, {**IN_SIMUL, "student": 404, "teacher": 404}),
    ("simul", "get", lambda w: {"pk": w.simul.pk}, None, IN_SIMUL),
    ("simul_state", "get", lambda w: {"pk": w.simul.pk}, None, {**IN_SIMUL, "student": 302, "teacher": 302}),
    ("simul_next", "get", lambda w: {"pk": w.simul.pk}, None, {**IN_SIMUL, "student": 302, "teacher": 302}),
    ("simul_join", "post", lambda w: {"pk": w.simul.pk}, {}, {**IN_SIMUL, "student": 302, "teacher": 403}),
    ("simul_start", "post", lambda w: {"pk": w.simul.pk}, {}, {**IN_SIMUL, "student": 403, "teacher": 302}),
    ("simul_cancel", "post", lambda w: {"pk": w.simul.pk}, {}, {**IN_SIMUL, "student": 403, "teacher": 302}),
]  # fmt: skip


class World:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)


@pytest.fixture
def world(student, teacher, outsider, staff, django_user_model):
    classroom = Classroom.objects.create(name="4.B", variant="czech")
    classroom.teachers.add(teacher)
    classroom.add_student(student)
    vera = _make_user(django_user_model, "vera")
    game = VersusGame.challenge(student, variant="czech", colour="white", public=False)
    game.accept(vera)
    simul = Simul.create(teacher, classroom, variant="czech", students=[student])
    return World(
        student=student, teacher=teacher, outsider=outsider, staff=staff, classroom=classroom,
        game=game, simul=simul,
    )  # fmt: skip


CASES = [
    pytest.param(name, method, kwargs, data, role, expected[role], id=f"{method}-{name}-{role}")
    for name, method, kwargs, data, expected in MATRIX
    for role in ROLES
]


@pytest.mark.parametrize(("name", "method", "kwargs", "data", "role", "status"), CASES)
def test_every_versus_view_answers_each_role_as_it_should(
    client, world, name, method, kwargs, data, role, status
):
    url = reverse(f"versus:{name}", kwargs=kwargs(world))
    if role != "anonymous":
        client.force_login(getattr(world, role))
    response = client.post(url, data) if method == "post" else client.get(url)
    assert response.status_code == status, (url, role, response.content.decode()[:300])


def test_the_matrix_covers_every_versus_url():
    assert {p.name for p in versus_urls.urlpatterns} == {row[0] for row in MATRIX}
