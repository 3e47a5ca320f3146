"""Puzzle mining on two real worker processes (issue 17): a job's tasks fan out over both workers,
each mines its seed and saves what it finds; started again over the same seeds, nothing is saved
twice.

Workers run `celery -A dama_learn worker -Q deep` on the test database; the broker is Redis
database 10 with this run's own key prefix (conftest.KEY_PREFIX), so runs sharing a server never
meet. The workers get task time limits long enough for a mining task.
"""

from __future__ import annotations

import os
from urllib.parse import urlparse, urlunparse

import pytest

from puzzles.models import MiningJob, Puzzle
from tests.conftest import redis_url, wait_until
from tests.services.conftest import (
    FAST_REDELIVERY,
    KEY_PREFIX,
    Worker,
    on_redis_broker,
)
from tests.web.test_worker import database_url_for_worker

pytestmark = [pytest.mark.services, pytest.mark.slow]

MINING_REDIS_DB = 10
MINING_ENV = {
    **FAST_REDELIVERY,
    "CELERY_VISIBILITY_TIMEOUT": "600",
    "CELERY_TASK_SOFT_TIME_LIMIT": "300",
}


@pytest.fixture
def mining_broker(settings):
    url = urlunparse(urlparse(redis_url())._replace(path=f"/{MINING_REDIS_DB}"))
    options = {"visibility_timeout": 600, "global_keyprefix": KEY_PREFIX}
    with on_redis_broker(settings, url, options) as url:
        yield url


@pytest.fixture
def mining_workers(transactional_db, tmp_path, mining_broker):
    started: list[Worker] = []

    def start(n: int) -> list[Worker]:
        env = {
            **os.environ,
            **MINING_ENV,
            "DJANGO_SETTINGS_MODULE": "dama_learn.settings",
            "DATABASE_URL": database_url_for_worker(),
            "CELERY_BROKER_URL": mining_broker,
            "PYTHONUNBUFFERED": "1",
        }
        for i in range(n):
            w = Worker(mining_broker, tmp_path / f"miner-{i + 1}.log", env, "deep")
            started.append(w)
        for w in started:
            w.wait_ready()
        return started

    yield start
    for w in started:
        w.stop()


def wait_done(pk: int, workers: list[Worker], seconds: float = 300) -> MiningJob:
    def done() -> MiningJob | None:
        job = MiningJob.objects.get(pk=pk)
        return job if job.status == MiningJob.Status.DONE else None

    return wait_until(
        done,
        seconds,
        f"mining job {pk} done",
        every=0.5,
        details=lambda: "\n".join(f"--- {w.hostname}:\n{w.log()[-3000:]}" for w in workers),
    )


def test_two_worker_processes_mine_a_job_and_a_rerun_saves_nothing_twice(mining_workers):
    workers = mining_workers(2)
    job = MiningJob.start("czech", tasks=2, games=1, per_task=1, nodes=300, first_seed=10)
    job.send()  # the test runs outside a request: no on_commit hook fires
    job = wait_done(job.pk, workers)
    assert job.done_tasks == 2 and sorted(job.finished_seeds) == [10, 11]
    assert len(set(job.workers)) == 2, job.workers  # both processes took a task
    assert job.found >= 1 and job.cpu_seconds > 0
    saved = list(Puzzle.objects.filter(variant="czech"))
    assert len(saved) == job.found
    assert all(p.verdict == "unique" and p.worker == "PDN" for p in saved)  # proof shipped along
    assert all(p.source.startswith("engine czech level 4 varied 4 seed ") for p in saved)
    # the same seeds again: every puzzle is known, none is saved twice
    again = MiningJob.start("czech", tasks=2, games=1, per_task=1, nodes=300, first_seed=10)
    again.send()
    again = wait_done(again.pk, workers)
    assert again.found == 0 and again.known >= job.found
    assert Puzzle.objects.filter(variant="czech").count() == len(saved)
