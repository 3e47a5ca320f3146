"""The live lesson's load script (tests/load/live_load.py) in a smoke size: 5 students over real
WebSockets to uvicorn serving the site on loopback (in this process, on the test database; the
channel layer on Redis database 11 when REDIS_URL is set). It asserts that every student saw
every action and that the answers sent at once were counted exactly, not the times: the times of
a shared CI machine mean nothing (the full run of 30 students reports them:
docs/benchmarks/live.md)."""

from __future__ import annotations

import asyncio

import pytest
from django.test import Client

from classroom.models import Classroom
from live.models import LiveAnswer, LiveSession, StepData
from tests.conftest import _make_user
from tests.load import live_load, servers
from tests.web.test_live_consumers import channel_layer  # noqa: F401 - the layer fixture

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

STUDENTS = 5


def test_five_students_follow_every_action_and_their_answers_are_counted_exactly(
    django_user_model, teacher
):
    from dama_learn.asgi import application

    classroom = Classroom.objects.create(name="Smoke", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    students = []
    for n in range(STUDENTS):
        user = _make_user(django_user_model, f"pupil{n}")
        classroom.add_student(user)
        students.append(user)
    session = LiveSession.start(
        classroom, teacher, [StepData(live_load.FREE, "one"), StepData(live_load.FREE_2, "two")]
    )

    def cookie(user) -> str:
        client = Client()
        client.force_login(user)
        return f"sessionid={client.cookies['sessionid'].value}"

    with servers.serve_in_thread(application) as base:
        figures = asyncio.run(
            live_load.run_lesson(
                base,
                session.pk,
                cookie(teacher),
                [(u.username, cookie(u)) for u in students],
                rounds=6,
            )
        )
    assert figures["errors"] == [] and figures["missed"] == 0, figures
    assert figures["latencies"] == 6 * STUDENTS
    assert figures["teacher_counted"] == STUDENTS
    assert figures["panel_counts"] == figures["expected_counts"] == {"22-18": 3, "27-23": 2}
    stored = LiveAnswer.objects.filter(session=session)
    assert stored.count() == STUDENTS
    assert {m: stored.filter(notation=m).count() for m in ("22-18", "27-23")} == {
        "22-18": 3,
        "27-23": 2,
    }
