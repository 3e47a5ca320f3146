"""A class race in a live lesson (``runs.Race``): the teacher starts a storm for the whole class,
each student joins their own storm on the race's puzzles and clock, the teacher's panel follows
the leaderboard (pushed over the lesson's channel layer group), and the results stay with the
lesson."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from classroom.models import Classroom
from live import push
from live.models import LiveSession
from puzzles.player import Player
from runs.models import Kind, Race, Run
from tests.puzzle_fixtures import make_puzzle

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def lesson(teacher, student, django_user_model):
    classroom = Classroom.objects.create(name="Club", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    classroom.add_student(student)
    make_puzzle("czech_capture")
    make_puzzle("czech_gain")
    return LiveSession.start(classroom, teacher, [])


@pytest.fixture
def pushed(monkeypatch):
    sent: list[tuple[str, dict]] = []
    monkeypatch.setattr(push, "_send", lambda group, message: sent.append((group, message)))
    return sent


def test_the_teacher_starts_a_race_and_everyone_in_the_lesson_is_told(
    client, teacher, lesson, pushed, django_capture_on_commit_callbacks
):
    client.force_login(teacher)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("runs:race_start", args=[lesson.pk]), **HX)
    assert (
        response.status_code == 200 and 'data-testid="race-board"' not in response.content.decode()
    )
    race = Race.objects.get()
    assert race.lesson == lesson and race.variant == "czech" and len(race.puzzles) == 2
    assert race.ends_at - race.started_at == timedelta(seconds=180)
    assert (push.group_name(lesson.pk), {"type": "live.race"}) in pushed
    page = client.get(lesson.get_absolute_url()).content.decode()
    assert 'data-testid="race-panel"' in page and 'data-running="1"' in page


def test_a_student_joins_once_on_the_races_puzzles_and_clock(client, student, lesson):
    race = Race.start(lesson)
    client.force_login(student)
    page = client.get(lesson.get_absolute_url()).content.decode()
    assert 'data-testid="race-join"' in page
    first = client.post(reverse("runs:race_join", args=[race.pk]))
    run = Run.objects.get()
    assert first.url == reverse("runs:run", args=[run.pk])
    assert (run.race, run.kind, run.puzzles, run.deadline) == (
        race,
        Kind.STORM,
        race.puzzles,
        race.ends_at,
    )
    again = client.post(reverse("runs:race_join", args=[race.pk]))
    assert again.url == first.url and Run.objects.count() == 1
    page = client.get(lesson.get_absolute_url()).content.decode()
    assert 'data-testid="race-mine"' in page


def test_a_race_over_takes_nobody_new(client, student, lesson):
    race = Race.start(lesson, now=timezone.now() - timedelta(minutes=5))
    client.force_login(student)
    response = client.post(reverse("runs:race_join", args=[race.pk]))
    assert response.status_code == 400 and b"over" in response.content
    assert not Run.objects.exists()


def test_a_students_score_reaches_the_teachers_leaderboard(
    client, teacher, student, lesson, pushed, django_capture_on_commit_callbacks
):
    race = Race.start(lesson)
    player = Player(student, client.session)
    run = race.join(player)
    pushed.clear()
    with django_capture_on_commit_callbacks(execute=True):
        answer = run.answer(player, at=0, text="28x3")
    assert answer.result.kind == "solved" and run.score == 1
    assert pushed == [(push.teachers_group(lesson.pk), {"type": "live.race"})]
    client.force_login(teacher)
    html = client.get(reverse("runs:race_panel", args=[lesson.pk])).content.decode()
    assert 'data-testid="race-score">1<' in html and student.username in html
    # the results stay with the lesson
    assert [r.score for r in lesson.races.get().leaderboard()] == [1]


def test_only_the_classes_teachers_start_a_race_and_outsiders_see_nothing(
    client, student, outsider, lesson
):
    client.force_login(student)
    assert client.post(reverse("runs:race_start", args=[lesson.pk])).status_code == 403
    client.force_login(outsider)
    assert client.get(reverse("runs:race_panel", args=[lesson.pk])).status_code == 404
    race = Race.start(lesson)
    assert client.post(reverse("runs:race_join", args=[race.pk])).status_code == 404


def test_no_race_starts_in_a_lesson_that_has_ended(client, teacher, lesson):
    lesson.end()
    client.force_login(teacher)
    response = client.post(reverse("runs:race_start", args=[lesson.pk]))
    assert response.status_code == 400 and b"ended" in response.content
