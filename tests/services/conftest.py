"""Real services for the puzzle-proof tests: a broker (Redis, or the SQLite file of `make run`)
and Celery worker processes on the test database that a test can start, SIGKILL and start again.

On Redis every key of a test run carries a prefix of its own (CELERY_REDIS_KEY_PREFIX), so test
runs sharing a Redis server (two developers, CI jobs) never see, consume or delete each other's
messages.

Redis missing: the test is skipped with the reason, or fails when DAMA_REQUIRE_SERVICES=1.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path
from urllib.parse import urlparse, urlunparse

import pytest
from django.conf import settings

from tests.conftest import drop_pools, redis_problem, redis_url, service_unavailable
from tests.web.test_worker import database_url_for_worker, wait_until_ready

#: the Redis database of these tests (DAMA_TEST_VERIFY_REDIS_URL overrides)
VERIFY_REDIS_DB = 13
#: the prefix of every Redis key of this test run
KEY_PREFIX = f"dama-test-{uuid.uuid4().hex[:10]}:"

#: worker settings for these tests: a short visibility timeout, so that a proof whose worker was
#: killed is delivered again within seconds, and time limits below it (as settings.py demands)
FAST_REDELIVERY = {
    "CELERY_VISIBILITY_TIMEOUT": "10",
    "CELERY_TASK_SOFT_TIME_LIMIT": "6",
    "DAMA_VERIFY_SOFT_TIME_LIMIT": "6",
    "DAMA_PROOF_MAX_SECONDS": "5",
    "DAMA_PROOF_SECONDS": "5",
    "DAMA_VERIFY_STALL_SECONDS": "3",
    "CELERY_REDIS_KEY_PREFIX": KEY_PREFIX,
}


def verify_redis_url() -> str:
    explicit = os.environ.get("DAMA_TEST_VERIFY_REDIS_URL")
    if explicit:
        return explicit
    parts = urlparse(redis_url())
    return urlunparse(parts._replace(path=f"/{VERIFY_REDIS_DB}"))


def use_broker(url: str) -> None:
    """Point this process's Celery app at ``url`` (Celery caches pools per URL: drop them)."""
    from dama_learn.celery import app

    app.conf.broker_url = url
    app.conf.broker_transport_options = (
        {
            "visibility_timeout": int(FAST_REDELIVERY["CELERY_VISIBILITY_TIMEOUT"]),
            "global_keyprefix": KEY_PREFIX,
        }
        if url.startswith("redis")
        else {}
    )
    drop_pools()


def forget_keys(client) -> None:
    """Delete this test run's keys (and only them)."""
    keys = list(client.scan_iter(match=f"{KEY_PREFIX}*", count=1000))
    if keys:
        client.delete(*keys)


@contextlib.contextmanager
def on_redis_broker(settings, url: str, transport_options: dict | None = None):
    """This process's Celery app on the Redis broker at ``url`` (its keys forgotten before and
    after); the app's broker settings come back afterwards."""
    problem = redis_problem(url)
    if problem:
        service_unavailable(f"Redis is not reachable at {url}: {problem}")
    import redis

    from dama_learn.celery import app

    client = redis.Redis.from_url(url)
    forget_keys(client)
    previous = (app.conf.broker_url, dict(app.conf.broker_transport_options or {}))
    settings.CELERY_BROKER_URL = url
    use_broker(url)
    if transport_options is not None:
        app.conf.broker_transport_options = transport_options
    try:
        yield url
    finally:
        app.conf.broker_url, app.conf.broker_transport_options = previous
        drop_pools()
        forget_keys(client)
        client.close()


@pytest.fixture
def redis_broker(settings):
    settings.DAMA_PROOF_SECONDS = int(FAST_REDELIVERY["DAMA_PROOF_SECONDS"])
    with on_redis_broker(settings, verify_redis_url()) as url:
        yield url


@pytest.fixture
def sqlite_broker(settings, tmp_path):
    url = f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}"
    from dama_learn.celery import app

    previous = (app.conf.broker_url, dict(app.conf.broker_transport_options or {}))
    settings.CELERY_BROKER_URL = url
    use_broker(url)
    yield url
    app.conf.broker_url, app.conf.broker_transport_options = previous
    drop_pools()


class Worker:
    """`celery -A dama_learn worker -Q verify,deep` in its own process group (proofs, and the
    board editor's "Ask the engine")."""

    def __init__(
        self,
        broker: str,
        log: Path,
        env: dict[str, str],
        queues: str = "verify,deep",
        concurrency: int = 1,
    ) -> None:
        self.hostname = f"verify-{uuid.uuid4().hex[:8]}@localhost"
        self.broker = broker
        self.log_path = log
        self._log = open(log, "w")  # noqa: SIM115 - closed in stop()
        from dama_learn.celery import declare_queues

        declare_queues()  # before the worker: it and this process never create one at once
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "dama_learn", "worker", "-Q", queues,
             "-n", self.hostname, "--concurrency", str(concurrency), "--loglevel", "INFO",
             "--without-mingle", "--without-gossip"],
            cwd=settings.BASE_DIR, env=env, stdout=self._log, stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: SIGKILL reaches the pool child too
        )  # fmt: skip

    def wait_ready(self, seconds: float = 60) -> None:
        from dama_learn.celery import app

        wait_until_ready(app, self.broker, self.hostname, self.proc, self.log_path, seconds)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL the worker and its pool processes: no goodbye, no acknowledgement."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self._log.close()


@pytest.fixture
def start_worker(transactional_db, tmp_path):
    """``start_worker(broker_url)`` starts a verify worker on the test database and waits until
    it answers; every worker is stopped after the test."""
    started: list[Worker] = []

    def start(
        broker: str,
        queues: str = "verify,deep",
        concurrency: int = 1,
        env: dict[str, str] | None = None,
    ) -> Worker:
        env = {
            **os.environ,
            **FAST_REDELIVERY,
            "DJANGO_SETTINGS_MODULE": "dama_learn.settings",
            "DATABASE_URL": database_url_for_worker(),
            "CELERY_BROKER_URL": broker,
            "PYTHONUNBUFFERED": "1",
            **(env or {}),
        }
        worker = Worker(
            broker, tmp_path / f"worker-{len(started) + 1}.log", env, queues, concurrency
        )
        started.append(worker)
        worker.wait_ready()
        return worker

    yield start
    for worker in started:
        worker.stop()
