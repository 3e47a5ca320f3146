"""Every address of the analysis, asked by each role: the player whose game it is, a teacher of
a class the player is in, another user, staff (no exception: an analysis is personal) and an
anonymous visitor. 404 for whoever may not know the analysis exists; the lists and the upload form
are each user's own (302 to the login page for visitors). A test checks that the matrix names every
URL of ``analysis.urls``; tests/security/test_permissions.py counts these rows as the site's."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.urls import reverse

from analysis import urls as analysis_urls
from analysis.models import GameAnalysis, GameUpload
from analysis.report import LINE_JOB
from classroom.models import Classroom, Membership
from core.models import Job
from tests.conftest import _make_user

ROLES = ("player", "teacher", "outsider", "staff", "anonymous")
LOGIN = 302
OWN = {"player": 200, "teacher": 404, "outsider": 404, "staff": 404, "anonymous": LOGIN}
SEEN = {"player": 200, "teacher": 200, "outsider": 404, "staff": 404, "anonymous": 404}
SEEN_MOVED = {"player": 302, "teacher": 302, "outsider": 404, "staff": 404, "anonymous": 404}
#: a line job is its owner's (the player asked for it)
JOBS = {"player": 302, "teacher": 404, "outsider": 404, "staff": 404, "anonymous": 404}
EVERYONES = {"player": 200, "teacher": 200, "outsider": 200, "staff": 200, "anonymous": LOGIN}
#: the states a page polls: without htmx, back to the list (each user's own; tests/web/
#: test_analysis_pages.py asks them as the page does)
STATES = {"player": 302, "teacher": 302, "outsider": 302, "staff": 302, "anonymous": LOGIN}

# (url name, method, kwargs builder, POST data, expected by role)
MATRIX = [
    ("list", "get", lambda w: {}, None, EVERYONES),
    ("upload_new", "get", lambda w: {}, None, EVERYONES),
    ("states", "get", lambda w: {}, None, STATES),
    ("upload", "get", lambda w: {"pk": w.upload.pk}, None, OWN),
    ("report", "get", lambda w: {"pk": w.analysis.pk}, None, SEEN),
    # the report's progress (a finished analysis: back to the report) and the engine's line
    ("report_progress", "get", lambda w: {"pk": w.analysis.pk}, None, SEEN_MOVED),
    ("line", "post", lambda w: {"pk": w.analysis.pk}, {"ply": "0"}, SEEN_MOVED),
    ("line_job", "get", lambda w: {"pk": w.analysis.pk, "job_id": w.job.pk}, None, JOBS),
]
#: the class pages of the analysis (a teacher's view of the students' personal puzzles) are asked
#: by class role in tests/security/test_permissions.py
CLASS_PAGES = {"class_puzzles", "class_add_puzzle"}


@pytest.fixture
def w(db, django_user_model, student, teacher, outsider, staff):
    classroom = Classroom.objects.create(name="4.A")
    classroom.teachers.add(teacher)
    Membership.objects.create(classroom=classroom, user=student)
    upload = GameUpload.objects.create(user=student, name="games.pdn", variant="czech")
    analysis = GameAnalysis.objects.create(
        source="upload", upload=upload, upload_index=1, user=student, white_user=student,
        variant="czech", start_fen="W:W21-32:B1-12", moves=["22-18"] * 6,
    )  # fmt: skip
    analysis.state = GameAnalysis.State.DONE
    analysis.save(update_fields=["state"])
    job = Job.objects.create(
        kind=LINE_JOB, owner=student, params={"analysis": analysis.pk, "ply": 0},
        status=Job.Status.DONE, progress=100, result={},
    )  # fmt: skip
    users = {"player": student, "teacher": teacher, "outsider": outsider, "staff": staff}
    return SimpleNamespace(users=users, upload=upload, analysis=analysis, job=job)


@pytest.mark.parametrize("row", MATRIX, ids=lambda row: f"{row[0]}-{row[1]}")
@pytest.mark.parametrize("role", ROLES)
def test_every_analysis_address_answers_each_role_as_the_matrix_says(client, w, row, role):
    name, method, kwargs, data, expected = row
    if role != "anonymous":
        client.force_login(w.users[role])
    url = reverse(f"analysis:{name}", kwargs=kwargs(w))
    response = client.post(url, data) if method == "post" else client.get(url)
    assert response.status_code == expected[role], (url, role)


def test_the_matrix_names_every_url_of_the_analysis():
    names = {p.name for p in analysis_urls.urlpatterns}
    assert names == {row[0] for row in MATRIX} | CLASS_PAGES


def test_a_teacher_of_another_class_does_not_see_a_students_analysis(client, w, django_user_model):
    other = _make_user(django_user_model, "otakar", teacher=True)
    Classroom.objects.create(name="4.B").teachers.add(other)
    client.force_login(other)
    assert client.get(reverse("analysis:report", args=[w.analysis.pk])).status_code == 404
