"""Shared test fixtures: named users for each role, and helpers for tests that need a service.

A test that needs Redis, PostgreSQL, a Celery worker or Chromium calls ``service_unavailable`` when
the service is missing: the test is skipped with the reason, or fails when DAMA_REQUIRE_SERVICES=1
(as in CI, where every service must be there).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
PASSWORD = "a-long-test-password-42"


def pytest_configure(config: pytest.Config) -> None:
    from django.conf import settings

    # Fast hashing for test accounts; PBKDF2 stays so the demo fixture's hashes still verify.
    settings.PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.MD5PasswordHasher",
        "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    ]


def services_required() -> bool:
    return os.environ.get("DAMA_REQUIRE_SERVICES") == "1"


def service_unavailable(reason: str) -> None:
    """Skip the test because a service is missing, or fail when services are required."""
    if services_required():
        pytest.fail(
            f"{reason} (DAMA_REQUIRE_SERVICES=1, so this is a failure, not a skip)", pytrace=False
        )
    pytest.skip(reason)


def redis_url() -> str:
    return os.environ.get("REDIS_URL") or DEFAULT_REDIS_URL


def redis_problem(url: str) -> str | None:
    """None when Redis answers a PING at ``url``, else the reason."""
    import redis

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=2, socket_timeout=2)
        client.ping()
        client.close()
    except Exception as exc:
        return f"{exc.__class__.__name__}: {exc}"
    return None


def chromium_path() -> str | None:
    path = (
        os.environ.get("DAMA_CHROMIUM")
        or shutil.which("chromium")
        or shutil.which("chromium-browser")
    )
    return path if path and os.access(path, os.X_OK) else None


def _make_user(django_user_model, username: str, *, teacher: bool = False):
    from accounts.models import profile_of

    user = django_user_model.objects.create_user(username, f"{username}@example.com", PASSWORD)
    profile = profile_of(user)
    if teacher:
        profile.grant_teacher_role()
    return user


@pytest.fixture
def teacher(db, django_user_model):
    """A teacher (role granted)."""
    return _make_user(django_user_model, "tereza", teacher=True)


@pytest.fixture
def student(db, django_user_model):
    """A learner who will be in the teacher's classes."""
    return _make_user(django_user_model, "standa")


@pytest.fixture
def outsider(db, django_user_model):
    """A learner with nothing to do with the teacher or the student."""
    return _make_user(django_user_model, "olga")


@pytest.fixture
def staff(db, django_user_model):
    return django_user_model.objects.create_superuser("boss", "boss@example.com", PASSWORD)


def drop_pools() -> None:
    """Forget the Celery app's and kombu's cached connection and producer pools, closing their
    connections: the next message goes over a fresh connection to the broker now configured.
    (kombu keeps producer pools in a global registry too; one left over from an earlier broker
    once published on a channel whose connection was already closed.)"""
    from kombu import pools

    from dama_learn.celery import app

    if app._pool is not None:
        app._pool.force_close_all()
    app._pool = None
    app.amqp._producer_pool = None
    pools.reset()


@pytest.fixture(autouse=True)
def _empty_kept_values():
    """Each test starts with empty process caches (core.kept, the kept page fragments): a test
    database rolled back sends no signal, so values kept from the test before would outlive its
    rows."""
    from django.core.cache import caches

    from core import kept

    kept.forget_process()
    caches["template_fragments"].clear()
    yield
    kept.forget_process()
    caches["template_fragments"].clear()


@pytest.fixture(autouse=True)
def _site_language():
    """Each test starts in the site's default language: a request (LocaleMiddleware) or a
    consumer that activates Czech leaves it active in the thread for whatever test runs next."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()
