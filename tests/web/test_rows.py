"""core.rows: model instances read by hand-written SQL are the ORM's, field for field."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.utils import timezone

from core.rows import Columns
from puzzles import trainer
from puzzles.models import Attempt, Puzzle
from tests.puzzle_fixtures import make_puzzle

pytestmark = pytest.mark.django_db


def read(columns: Columns, table: str, pk: int):
    return columns.get(f"{columns.alias}.id = %s", [pk])


def test_an_attempt_read_by_hand_equals_the_orms(student):
    puzzle = make_puzzle("czech_gain")
    attempt = Attempt.objects.create(
        user=student,
        puzzle=puzzle,
        moves=[{"text": "22-18", "ok": False, "ms": 1200}],
        line=["22-17", "13x22"],
        failed=True,
        seconds=1.25,
        finished_at=timezone.now(),
        daily_date=datetime.date(2026, 11, 21),
    )
    mine = read(Columns(Attempt, "a"), Attempt._meta.db_table, attempt.pk)
    orm = Attempt.objects.get(pk=attempt.pk)
    for field in Attempt._meta.concrete_fields:
        assert getattr(mine, field.attname) == getattr(orm, field.attname), field.name
    assert isinstance(mine.moves, list) and mine.moves[0]["ok"] is False
    assert mine.failed is True and mine.solved is False  # booleans, not 0/1 (SQLite)
    assert timezone.is_aware(mine.started_at) and mine.daily_date == datetime.date(2026, 11, 21)
    assert mine._state.adding is False and mine._state.db == "default"


def test_a_deferred_column_is_loaded_on_first_use():
    puzzle = make_puzzle("czech_gain")
    mine = read(Columns(Puzzle, "p", defer=("proof",)), Puzzle._meta.db_table, puzzle.pk)
    assert mine.get_deferred_fields() == {"proof"}
    assert mine.motifs == puzzle.motifs and mine.fen == puzzle.fen
    assert mine.proof == Puzzle.objects.get(pk=puzzle.pk).proof  # one more query, as the ORM's


def test_get_owned_gives_the_players_attempt_with_its_puzzle_and_nothing_else(
    rf, student, outsider
):
    puzzle = make_puzzle("czech_gain")
    first = Attempt.objects.create(user=student, puzzle=puzzle)
    second = Attempt.objects.create(user=student, puzzle=puzzle)
    request = rf.get("/")
    request.session = {}
    request.user = student
    got = trainer.get_owned(request, second.pk)
    assert got.pk == second.pk and got.puzzle.pk == puzzle.pk and got.has_earlier is True
    assert "proof" in got.puzzle.get_deferred_fields()
    assert trainer.get_owned(request, first.pk).has_earlier is False
    assert trainer.get_owned(request, 2**63) is None  # beyond any id: no query, no error
    request.user = outsider
    assert trainer.get_owned(request, first.pk) is None


# -- the session store and the authentication backend (one query each per request) ----------------


def test_a_logged_in_request_reads_its_session_and_user_with_one_query_each(client, student):
    from django.test.utils import CaptureQueriesContext

    client.force_login(student)
    with CaptureQueriesContext(connection) as queries:
        response = client.get("/puzzles/czech/dashboard/")
    assert response.status_code == 200 and student.username in response.content.decode()
    sql = [q["sql"] for q in queries.captured_queries]
    assert sum("django_session" in s for s in sql) == 1
    assert sum(s.startswith("SELECT") and '"auth_user"' in s for s in sql) == 1


def test_an_expired_session_is_a_visitor_again(client, student):
    from django.contrib.sessions.models import Session

    client.force_login(student)
    assert client.get("/accounts/profile/").status_code == 200
    Session.objects.update(expire_date=timezone.now() - datetime.timedelta(seconds=1))
    response = client.get("/accounts/profile/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_a_deleted_or_deactivated_account_is_logged_out(client, student, django_user_model):
    client.force_login(student)
    django_user_model.objects.filter(pk=student.pk).update(is_active=False)
    assert client.get("/accounts/profile/").status_code == 302
    other = django_user_model.objects.create_user("leaver", password="x-long-password-1")
    client.force_login(other)
    assert client.get("/accounts/profile/").status_code == 200
    other.delete()
    assert client.get("/accounts/profile/").status_code == 302


def test_the_backend_reads_the_user_the_orm_reads(student, django_user_model):
    from accounts.backends import ModelBackend

    mine = ModelBackend().get_user(student.pk)
    orm = django_user_model.objects.get(pk=student.pk)
    for field in django_user_model._meta.concrete_fields:
        assert getattr(mine, field.attname) == getattr(orm, field.attname), field.name
    assert ModelBackend().get_user(2**40) is None and ModelBackend().get_user("x") is None


def test_update_row_writes_what_the_orm_would_and_only_where_it_matches(student):
    from core.rows import update_row

    attempt = Attempt.objects.create(user=student, puzzle=make_puzzle("czech_gain"))
    when = timezone.now()
    values = {"moves": [{"text": "22-18", "ok": True, "ms": 5}], "line": ["22-18"]}
    values.update(solved=True, finished_at=when, seconds=2.5)
    assert update_row(Attempt, {"id": attempt.pk, "version": 7}, values, increment="version") == 0
    assert Attempt.objects.get(pk=attempt.pk).moves == []  # a stale version writes nothing
    assert update_row(Attempt, {"id": attempt.pk, "version": 0}, values, increment="version") == 1
    row = Attempt.objects.get(pk=attempt.pk)
    assert row.moves == values["moves"] and row.line == ["22-18"] and row.solved is True
    assert row.finished_at == when and row.seconds == 2.5 and row.version == 1
