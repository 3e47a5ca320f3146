"""A real Celery worker process does the work a request enqueued: with Redis, and with the\nserver-less SQLite broker that `make run` uses by default."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection

from core.models import Job, WorkerHeartbeat
from tests.conftest import drop_pools, redis_problem, redis_url, service_unavailable, wait_until

pytestmark = pytest.mark.services


def database_url_for_worker() -> str:
    """The test database, as a URL the worker process can open."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        name = str(db["NAME"])
        if name == ":memory:" or name.startswith("file:"):
            pytest.fail(
                "the worker test needs a file-based SQLite test database (settings: DATABASES TEST NAME)"
            )
        return f"sqlite:///{name}"
    if connection.vendor == "postgresql":
        auth = quote(db["USER"] or "")
        if db.get("PASSWORD"):
            auth += ":" + quote(db["PASSWORD"])
        host = db.get("HOST") or "127.0.0.1"
        port = db.get("PORT") or 5432
        return f"postgres://{auth}@{host}:{port}/{db['NAME']}"
    pytest.skip(f"no worker database URL for {connection.vendor}")


@pytest.fixture(params=["redis", "sqlite"])
def broker(request, settings, tmp_path):
    """Point this process's Celery app at the broker: Redis (skip, or fail in CI, when it is not
    there) or the server-less SQLite file that `make run` uses by default."""
    if request.param == "redis":
        url = redis_url()
        problem = redis_problem(url)
        if problem:
            service_unavailable(f"Redis is not reachable at {url}: {problem}")
    else:
        url = f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}"
    from dama_learn.celery import app

    def use(broker_url: str, options: dict) -> None:
        # Celery caches its connection and producer pools per broker URL; drop the cached ones.
        app.conf.broker_url = broker_url
        app.conf.broker_transport_options = options
        drop_pools()

    previous = (app.conf.broker_url, dict(app.conf.broker_transport_options or {}))
    settings.CELERY_BROKER_URL = url
    # as settings.py does: the visibility timeout is a Redis option (SQLAlchemy would reject it)
    use(url, previous[1] if request.param == "redis" else {})
    yield url
    use(*previous)


def worker_ready(app, broker_url: str, hostname: str) -> bool:
    """Whether the worker ``hostname`` answers: a ping on Redis, its heartbeat row on SQLite."""
    if broker_url.startswith("redis"):
        return bool(app.control.ping(destination=[hostname], timeout=0.5))
    return WorkerHeartbeat.objects.filter(hostname=hostname).exists()


def wait_until_ready(app, broker_url: str, hostname: str, proc, log_path, seconds: float = 60):
    """Poll until the worker process ``proc`` answers; fail at once when it exits."""

    def ready() -> bool:
        if proc.poll() is not None:
            pytest.fail(f"the worker exited with {proc.returncode}:\n{log_path.read_text()}")
        return worker_ready(app, broker_url, hostname)

    wait_until(ready, seconds, "the worker ready", every=0.3, details=log_path.read_text)


@pytest.fixture
def celery_worker_process(transactional_db, broker, tmp_path):
    """Start `celery -A dama_learn worker` as a subprocess on the test database; stop it after."""
    from dama_learn.celery import app, declare_queues

    hostname = f"test-{uuid.uuid4().hex[:8]}@localhost"
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "dama_learn.settings",
        "DATABASE_URL": database_url_for_worker(),
        "CELERY_BROKER_URL": broker,
        "PYTHONUNBUFFERED": "1",
    }
    # as rundev does: on the SQLite broker the worker and this process would otherwise both
    # create a queue's row when the request publishes while the worker starts consuming
    declare_queues()
    log_path = tmp_path / "worker.log"
    log = open(log_path, "w")  # noqa: SIM115 - closed in teardown
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "dama_learn", "worker", "-Q", "default,deep", "-n", hostname,
         "--concurrency", "1", "--loglevel", "INFO", "--without-mingle", "--without-gossip"],
        cwd=settings.BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        wait_until_ready(app, broker, hostname, proc, log_path)
        yield hostname
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def wait_for(job: Job, seconds: float = 60) -> Job:
    def finished() -> bool:
        job.refresh_from_db()
        return job.is_finished

    wait_until(finished, seconds, f"job {job.pk} finished", details=lambda: str(job.__dict__))
    return job


def test_a_real_worker_runs_the_job_a_request_enqueued(
    client, django_user_model, celery_worker_process
):
    boss = django_user_model.objects.create_superuser(
        "boss", "boss@example.com", "x-long-password-1"
    )
    client.force_login(boss)
    response = client.post("/jobs/probe", {"variant": "czech"})
    assert response.status_code == 202
    job = wait_for(Job.objects.get())
    assert job.status == Job.Status.DONE, (job.status, job.error)
    assert job.worker == celery_worker_process
    assert job.result["start_moves"] == 7
    assert job.result["worker"] == celery_worker_process
    assert (
        client.get(response["Location"], HTTP_ACCEPT="application/json").json()["status"] == "done"
    )


def test_healthz_is_200_when_a_worker_answers(admin_client, celery_worker_process):
    response = admin_client.get("/healthz")  # the details are for staff
    body = response.json()
    assert response.status_code == 200, body
    assert body["workers"]["method"] == (
        "ping" if settings.CELERY_BROKER_URL.startswith("redis") else "heartbeat"
    )
    assert celery_worker_process in body["workers"]["workers"]


def test_a_real_worker_answers_the_teachers_question_to_the_engine(
    client, teacher, celery_worker_process
):
    """The board editor's "Ask the engine" is a job: the request answers at once, a worker
    searches (on the deep queue) and the page's poll brings the solution to the solution board."""
    from classroom.models import PuzzleSet

    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Shots", variant="czech")
    client.force_login(teacher)
    response = client.post(
        f"/teach/sets/{puzzle_set.pk}/editor/solve/",
        {"fen": "W:W14,17,21,28,30,32:B1,5,8,11,16,23,24", "goal": "capture"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 202
    job = wait_for(Job.objects.get(kind="editor_solve"))
    assert job.status == Job.Status.DONE, (job.status, job.error)
    assert job.worker == celery_worker_process
    assert job.result["kind"] == "unique" and job.progress == 100
    page = client.get(response["Location"], HTTP_HX_REQUEST="true").content.decode()
    assert 'data-testid="solution-line">28x19x12x3<' in page
    assert "The engine found the solution" in page
