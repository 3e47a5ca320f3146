"""Real processes for the fault tests: a throwaway ``redis-server`` of the test's own (never the
shared one) that a test can stop and start again on the same port, and Celery workers on the test
database (tests/services/conftest.py). Missing redis-server: skipped, or failed when
DAMA_REQUIRE_SERVICES=1."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading

import pytest

from dama_learn.settings import redis_caches
from tests.conftest import drop_pools, service_unavailable, wait_until
from tests.services.conftest import FAST_REDELIVERY, Worker, use_broker
from tests.web.test_worker import database_url_for_worker

pytestmark = pytest.mark.services


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class OwnRedis:
    """A redis-server on its own port and folder; ``stop()`` kills it, ``start()`` brings it back."""

    def __init__(self, folder) -> None:
        self.port = free_port()
        self.folder = folder
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        )  # fmt: skip
        wait_until(self.answers, 10, "redis-server answering", every=0.05)

    def answers(self) -> bool:
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
        except OSError:
            return False
        return True

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


@pytest.fixture
def own_redis(tmp_path):
    if not shutil.which("redis-server"):
        service_unavailable("redis-server is not installed (apt-get install redis-server)")
    server = OwnRedis(tmp_path)
    server.start()
    yield server
    server.stop()


@pytest.fixture
def on_own_redis(own_redis, settings):
    """This process's cache and Celery broker on the throwaway Redis."""
    from dama_learn.celery import app

    previous = (app.conf.broker_url, dict(app.conf.broker_transport_options or {}))
    settings.CACHES = {
        **settings.CACHES,  # the process's own page fragments (template_fragments) stay
        # the caches as settings.py makes them with REDIS_URL (cached_db sessions)
        **redis_caches(own_redis.url),
    }
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
    settings.SESSION_CACHE_ALIAS = "sessions"
    settings.CELERY_BROKER_URL = own_redis.url
    use_broker(own_redis.url)
    yield own_redis
    app.conf.broker_url, app.conf.broker_transport_options = previous
    drop_pools()


@pytest.fixture
def workers(transactional_db, tmp_path):
    """``workers(broker_url, **env)`` starts a verify worker on the test database; all are stopped
    after the test."""
    started: list[Worker] = []

    def start(broker: str, wait: bool = True, **extra: str) -> Worker:
        env = {
            **os.environ, **FAST_REDELIVERY, **extra,
            "DJANGO_SETTINGS_MODULE": "dama_learn.settings",
            "DATABASE_URL": database_url_for_worker(),
            "CELERY_BROKER_URL": broker,
            "REDIS_URL": broker,
            "PYTHONUNBUFFERED": "1",
        }  # fmt: skip
        worker = Worker(broker, tmp_path / f"worker-{len(started) + 1}.log", env)
        started.append(worker)
        if wait:
            worker.wait_ready()
        return worker

    yield start
    for worker in started:
        worker.stop()


def answered_within(seconds: float, what: str, request):
    """What ``request()`` returns, failing the test when it has not returned within ``seconds``:
    a deadline for a hang (a request stuck on a dead service), never a measure of speed."""
    from django.db import connections

    outcome: list = []

    def run() -> None:
        try:
            outcome.append((True, request()))
        except BaseException as exc:  # handed to the test's thread
            outcome.append((False, exc))
        finally:
            connections.close_all()  # this thread's own database connections

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if not outcome:
        pytest.fail(f"{what}: no answer within {seconds} s", pytrace=False)
    ok, value = outcome[0]
    if not ok:
        raise value
    return value
