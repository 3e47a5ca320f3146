"""Sessions and the logged-in user, by Django's own session engines and ModelBackend: what a
request costs in queries, and that an expired session or a closed account logs out. The worker's
garbage collector (gunicorn.conf.py) is Python's own, after ``gc.freeze()``."""

from __future__ import annotations

import datetime
import gc
import json
import runpy
from pathlib import Path

import pytest
from django.conf import settings
from django.core.cache import caches
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from dama_learn.settings import redis_caches
from tests.conftest import PASSWORD
from tests.web.test_settings import run

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]


def queries_of(client, url: str) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return [q["sql"] for q in queries.captured_queries]


def test_a_logged_in_request_reads_its_user_with_one_query_and_its_session_from_the_cache(
    client, student
):
    client.force_login(student)
    client.get("/puzzles/czech/dashboard/")  # the session is cached at its first read
    sql = queries_of(client, "/puzzles/czech/dashboard/")
    cached = settings.SESSION_ENGINE == "django.contrib.sessions.backends.cached_db"
    assert sum("django_session" in s for s in sql) == (0 if cached else 1)
    assert sum(s.startswith("SELECT") and '"auth_user"' in s for s in sql) == 1


def test_sessions_are_cached_on_redis_and_kept_in_the_database(tmp_path):
    code = "print(s.SESSION_ENGINE, s.CACHES.get('sessions', {}).get('BACKEND'))"
    with_redis = run(code, tmp_path, REDIS_URL="redis://r:6379/1").stdout.split()
    without = run(code, tmp_path).stdout.split()
    assert with_redis == [
        "django.contrib.sessions.backends.cached_db",
        "django_redis.cache.RedisCache",
    ]
    # a locmem cache would be one per process: without Redis the database alone
    assert without == ["django.contrib.sessions.backends.db", "None"]


def test_the_tested_session_cache_is_the_one_settings_make(tmp_path):
    """DOWN (below) is the settings' sessions cache but for its address."""
    code = "import json; print(json.dumps(s.CACHES['sessions']))"
    made = json.loads(run(code, tmp_path, REDIS_URL="redis://r:6379/1").stdout)
    assert made == {**DOWN["sessions"], "LOCATION": "redis://r:6379/1"}


DOWN = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    # the sessions' cache as settings.py makes it (REDIS_URL), on a port where nothing listens
    "sessions": redis_caches("redis://127.0.0.1:1/0")["sessions"],
}


@override_settings(
    CACHES=DOWN,
    SESSION_ENGINE="django.contrib.sessions.backends.cached_db",
    SESSION_CACHE_ALIAS="sessions",
)
def test_with_the_session_cache_down_sessions_come_from_the_database(client, student):
    from django.contrib.sessions.models import Session

    assert caches["sessions"].get("anything", "missed") == "missed"
    caches["sessions"].set("anything", 1)  # a write is skipped, not an error
    # a visitor's new session (the store asks the cache whether the key is taken), a log-in,
    # a page read from the database, a log-out (the store deletes the cached copy)
    assert client.get("/puzzles/czech/").status_code in (200, 302)
    assert (
        client.post(
            "/accounts/login/", {"username": student.username, "password": PASSWORD}
        ).status_code
        == 302
    )
    assert Session.objects.count() >= 1
    assert client.get("/accounts/profile/").status_code == 200
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get("/accounts/profile/").status_code == 302


def test_an_expired_session_is_a_visitor_again(client, student):
    from django.contrib.sessions.models import Session

    client.force_login(student)
    assert client.get("/accounts/profile/").status_code == 200
    Session.objects.update(expire_date=timezone.now() - datetime.timedelta(seconds=1))
    if settings.SESSION_ENGINE.endswith("cached_db"):
        # the cached copy expires with the session (its timeout is the session's age)
        store = client.session
        caches[settings.SESSION_CACHE_ALIAS].delete(store.cache_key)
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


def test_a_gunicorn_worker_loads_its_urlconf_before_it_freezes(tmp_path):
    """What the first requests would load (the URLconf, its views and their libraries, the cache
    client) is loaded at the worker's start and frozen with the rest, so that no full collection
    walks it inside a request."""
    result = run(
        "import gc, runpy, sys; "
        "runpy.run_path('gunicorn.conf.py')['post_worker_init'](worker=None); "
        "loaded = 'puzzles.views_trainer' in sys.modules; "
        "from puzzles import views_trainer; "
        "walked = {id(o) for o in gc.get_objects()}; "
        "print(loaded, id(views_trainer.attempt_move) in walked, id(views_trainer.__dict__) in walked)",
        tmp_path,
        # an empty database of its own (the pool it keeps is read from it), not the developer's
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["True", "False", "False"]
