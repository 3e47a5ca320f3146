"""Sessions and the logged-in user, by Django's own session engines and ModelBackend: what a
request costs in queries, and that an expired session or a closed account logs out. The worker's
garbage collector (gunicorn.conf.py) is Python's own, after ``gc.freeze()``."""

from __future__ import annotations

import datetime
import gc
import runpy
from pathlib import Path

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.web.test_settings import run

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def queries_of(client, url: str) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return [q["sql"] for q in queries.captured_queries]


def test_a_logged_in_request_reads_its_session_and_user_with_one_query_each(client, student):
    client.force_login(student)
    sql = queries_of(client, "/puzzles/czech/dashboard/")
    assert sum("django_session" in s for s in sql) == 1
    assert sum(s.startswith("SELECT") and '"auth_user"' in s for s in sql) == 1


def test_sessions_are_djangos_database_store_with_or_without_redis(tmp_path):
    # cached_db on Redis would fail every request while Redis is down (tests/faults)
    with_redis = run("print(s.SESSION_ENGINE)", tmp_path, REDIS_URL="redis://r:6379/1")
    without = run("print(s.SESSION_ENGINE)", tmp_path)
    assert with_redis.stdout.strip() == without.stdout.strip()
    assert without.stdout.strip() == "django.contrib.sessions.backends.db"


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


def test_a_gunicorn_worker_freezes_what_it_loaded_and_keeps_pythons_collector():
    config = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    was_enabled = gc.isenabled()
    try:
        config["post_worker_init"](worker=None)
        assert gc.get_freeze_count() > 0 and gc.isenabled() == was_enabled
    finally:
        gc.unfreeze()
