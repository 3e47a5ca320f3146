"""Shared test fixtures: named users for each role, and helpers for tests that need a service.

A test that needs Redis, PostgreSQL, a Celery worker or Chromium calls ``service_unavailable`` when
the service is missing: the test is skipped with the reason, or fails when DAMA_REQUIRE_SERVICES=1
(as in CI, where every service must be there).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlparse, urlunparse

import pytest

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
PASSWORD = "a-long-test-password-42"


#: the Redis databases of the services' brokers (tests/services: verify 13, play 12), which no
#: test process takes for its own
SERVICE_REDIS_DBS = (12, 13)


def pytest_configure(config: pytest.Config) -> None:
    from django.conf import settings

    # Fast hashing for test accounts; PBKDF2 stays so the demo fixture's hashes still verify.
    settings.PASSWORD_HASHERS = [
        "django.contrib.auth.hashers.MD5PasswordHasher",
        "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    ]
    # A puzzle in the exams' share is kept for them from its first save (never practice): the
    # tests' puzzles are practice puzzles unless a test sets a share (tests/web/test_exams.py).
    settings.DAMA_EXAM_SHARE = 0.0
    # No endgame databases unless a test builds its own (a developer's var/endgames must not
    # change what the searches in the tests play): a directory that does not exist
    import tempfile
    from pathlib import Path

    nowhere = Path(tempfile.gettempdir()) / "dama-tests-no-endgames" / str(os.getpid())
    settings.DAMA_ENDGAMES_DIR = nowhere
    os.environ["DAMA_ENDGAMES"] = str(nowhere)
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker:
        own_services(worker)


def process_redis_url(url: str, worker: str) -> str:
    """The Redis database of test process ``worker`` under pytest-xdist (``gw0``, ``gw1``, ...):
    ``gw0`` keeps the database of ``url``, each next process the next one down (wrapping from 0
    to 15), skipping the services' brokers' (``SERVICE_REDIS_DBS``).

    >>> process_redis_url("redis://127.0.0.1:6379/0", "gw1")
    'redis://127.0.0.1:6379/15'
    >>> process_redis_url("redis://127.0.0.1:6379/15", "gw2")
    'redis://127.0.0.1:6379/11'
    """
    parts = urlparse(url)
    if parts.scheme not in ("redis", "rediss"):
        return url
    base = int(parts.path.strip("/") or 0)
    databases = [base] + [n % 16 for n in range(base - 1, base - 16, -1)]
    databases = [n for n in databases if n == base or n not in SERVICE_REDIS_DBS]
    index = int(worker.removeprefix("gw"))
    return urlunparse(parts._replace(path=f"/{databases[index % len(databases)]}"))


def own_services(worker: str) -> None:
    """Give test process ``worker`` (pytest-xdist) a Redis database and a SQLite broker file of
    its own, so that processes running at once never see each other's cache, messages or live
    lessons: a test empties its cache with ``cache.clear()``, which empties the whole Redis
    database. (Its test database has a name of its own already: pytest-django adds the suffix;
    everything else a test shares it makes in ``tmp_path`` or on a free port.)"""
    from django.conf import settings
    from django.test import override_settings

    from dama_learn.celery import app
    from dama_learn.settings import redis_caches

    changes: dict[str, object] = {}
    shared = os.environ.get("REDIS_URL")
    if shared:
        url = process_redis_url(shared, worker)
        os.environ["REDIS_URL"] = url  # the workers and servers the tests start
        caches = redis_caches(url)
        changes["REDIS_URL"] = url
        changes["CACHES"] = {
            alias: caches.get(alias, config) for alias, config in settings.CACHES.items()
        }
        if shared == settings.DAMA_CHANNELS_REDIS_URL:
            layer = settings.CHANNEL_LAYERS["default"]
            changes["DAMA_CHANNELS_REDIS_URL"] = url
            changes["CHANNEL_LAYERS"] = {
                "default": {**layer, "CONFIG": {**layer["CONFIG"], "hosts": [url]}}
            }
        if shared == settings.CELERY_BROKER_URL:
            changes["CELERY_BROKER_URL"] = url
    elif settings.CELERY_BROKER_URL.startswith("sqla+sqlite:///"):
        changes["CELERY_BROKER_URL"] = settings.CELERY_BROKER_URL.replace(
            ".sqlite3", f"-{worker}.sqlite3"
        )
    override_settings(**changes).enable()
    app.conf.broker_url = settings.CELERY_BROKER_URL
    drop_pools()


T = TypeVar("T")


def wait_until(
    condition: Callable[[], T],
    seconds: float,
    what: str,
    *,
    every: float = 0.1,
    details: Callable[[], str] | None = None,
) -> T:
    """Ask ``condition`` every ``every`` seconds until it returns something true, and return that.
    When ``seconds`` pass first the test fails with ``what`` (and ``details()``, e.g. a worker's
    log). The deadline is only a failure condition: a condition met at once returns at once, so a
    test never waits longer than the machine needs, and ``seconds`` can be generous.

    >>> wait_until(lambda: 42, 1, "the answer")
    42
    """
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() >= deadline:
            message = f"{what}: not within {seconds} s"
            pytest.fail(f"{message}\n{details()}" if details else message, pytrace=False)
        time.sleep(every)


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


@contextlib.contextmanager
def tasks_sent(record: Callable[[str, tuple, str], None]) -> Iterator[None]:
    """Within the block, ``record(name, args, queue)`` hears of every task sent to the workers,
    from Celery's ``before_task_publish`` signal (the message itself goes on to this test
    process's broker, where no worker takes it)."""
    from celery.signals import before_task_publish

    def receiver(sender=None, body=None, routing_key=None, **_message):
        args, _kwargs, _embed = body
        record(sender, tuple(args), routing_key)

    before_task_publish.connect(receiver, weak=False)
    try:
        yield
    finally:
        before_task_publish.disconnect(receiver)


@pytest.fixture
def sent_tasks():
    """The tasks sent to the workers during the test, as ``(name, args, queue)`` in the order
    sent. The models send their work by the task's name (``core.workers.send``), so this is what
    the workers would be asked."""
    sent: list[tuple[str, tuple, str]] = []
    with tasks_sent(lambda *message: sent.append(message)):
        yield sent


@pytest.fixture
def verify_queue():
    """The proofs sent to the ``verify`` queue during the test, as ``(puzzle id, revision)`` in
    the order sent (``puzzles.verify_puzzle``; a proof sent anywhere else is recorded with its
    queue, and fails the comparison)."""
    sent: list[tuple] = []

    def record(name: str, args: tuple, queue: str) -> None:
        if name == "puzzles.verify_puzzle":
            sent.append(args if queue == "verify" else (*args, queue))

    with tasks_sent(record):
        yield sent


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
def _games_unlimited(settings):
    """Games started an hour (``play.limits``) count in the process's cache from test to test,
    all from one client address (and SQLite gives an account the same id again after a test's
    rollback): no limit here; the limits' own tests set theirs."""
    settings.DAMA_PLAY_GAMES_PER_HOUR = settings.DAMA_PLAY_GAMES_PER_HOUR_PER_ADDRESS = 10**6


@pytest.fixture(autouse=True)
def _no_site_heartbeat(settings):
    """No web process's heartbeat thread in the test process (``versus.heartbeat``: a test that
    loads ``dama_learn.asgi`` would start one, writing to the test database from test to test);
    the outage tests turn it on with their own clock."""
    settings.DAMA_HEARTBEAT_SECONDS = 0


@pytest.fixture(autouse=True)
def _site_language():
    """Each test starts in the site's default language: a request (LocaleMiddleware) or a
    consumer that activates Czech leaves it active in the thread for whatever test runs next."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()
