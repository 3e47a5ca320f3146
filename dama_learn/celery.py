"""The Celery application: `celery -A dama_learn worker`.

The broker comes from settings (CELERY_BROKER_URL, else REDIS_URL, else a SQLite file that needs no
server). Each worker also writes a heartbeat row to the database every few seconds, so /healthz can
tell that a worker is alive even on brokers that cannot broadcast a ping.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

from celery import Celery, bootsteps
from celery.schedules import crontab
from celery.signals import worker_process_init
from celery.utils.log import current_process_index

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dama_learn.settings")

app = Celery("dama_learn")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
app.autodiscover_tasks(related_name="daily")  # puzzles.daily: the daily puzzle job
app.autodiscover_tasks(related_name="lines")  # analysis.lines: the engine's line of a position


class Heartbeat(bootsteps.StartStopStep):
    """Record in the database, every few seconds, that this worker is alive."""

    requires = {"celery.worker.components:Timer"}

    def __init__(self, worker: Any, **kwargs: Any) -> None:
        super().__init__(worker, **kwargs)
        self.tref: Any = None

    def start(self, worker: Any) -> None:
        from django.conf import settings

        self.beat(worker)
        self.tref = worker.timer.call_repeatedly(
            settings.DAMA_WORKER_HEARTBEAT_SECONDS, self.beat, (worker,), priority=10
        )

    def stop(self, worker: Any) -> None:
        if self.tref is not None:
            self.tref.cancel()
            self.tref = None
        from core.models import WorkerHeartbeat

        with contextlib.suppress(Exception):  # the database may already be gone at shutdown
            WorkerHeartbeat.objects.filter(hostname=worker.hostname).delete()

    def beat(self, worker: Any) -> None:
        from django.db import close_old_connections

        from core.models import WorkerHeartbeat

        close_old_connections()
        WorkerHeartbeat.beat(worker.hostname)


app.steps["worker"].add(Heartbeat)


def pin_to_core(index: int | None) -> int | None:
    """Keep this process on one of the cores it may use, the ``index``-th (round robin): the
    core, or None when there is nothing to choose (one core, no index, no affinity calls).

    A worker that runs only when the web leaves a core idle (the ``play`` queue under
    ``cpu.idle`` or SCHED_IDLE) still slows the web down when its processes wander: measured on
    2 cores, two idle-priority burners left free made a 7.4 ms request take 11-12 ms at p95
    (the kernel moves them between cores as the web processes come and go); one burner held on
    each core changed nothing (7.4-7.5 ms), the same as with no burner at all.
    """
    if index is None or not hasattr(os, "sched_setaffinity"):
        return None
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        return None
    core = cores[index % len(cores)]
    os.sched_setaffinity(0, {core})
    return core


@worker_process_init.connect
def _pin_pool_process(**kwargs: Any) -> None:
    """With ``DAMA_WORKER_PIN_CORES`` each pool process of this worker keeps to a core of its
    own (the first process the first core, and so on)."""
    from django.conf import settings

    if settings.DAMA_WORKER_PIN_CORES:
        pin_to_core(current_process_index(base=0))


#: the queues a worker of this site serves (settings: CELERY_TASK_ROUTES; ``exam``: the searches
#: of an exam's endgame games, sent there by ``play.models.Search``, served by the play workers;
#: ``analysis``: the analyses of finished games, analysis.tasks)
QUEUES = ("exam", "default", "deep", "verify", "play", "analysis")


def declare_queues(names: tuple[str, ...] = QUEUES) -> None:
    """Declare the task queues on the broker before a worker and the web start.

    With the database broker (kombu's SQLAlchemy transport, the SQLite file of `make run`) a
    queue is a table row that the first worker to consume and the first request to publish would
    otherwise both insert at the same moment: the second insert fails on the unique name.
    Declaring an existing queue again changes nothing.
    """
    with app.connection_for_write() as conn:
        channel = conn.default_channel
        for name in names:
            app.amqp.queues[name].bind(channel).declare()


# Periodic jobs: `celery -A dama_learn beat` (one per site; `make run` embeds it in its worker).
# The sweeper re-enqueues puzzle proofs that were lost (pending or silent for too long); the other
# re-verifies puzzles proven by an older engine version.
app.conf.beat_schedule = {
    "puzzles-sweep-lost-proofs": {"task": "puzzles.sweep_verifications", "schedule": 300.0},
    "puzzles-reverify-stale": {"task": "puzzles.verify_stale_puzzles", "schedule": 3600.0},
    # today's and tomorrow's daily puzzles exist before anyone asks (the pages pick them too)
    "puzzles-pick-daily": {"task": "puzzles.pick_daily_puzzles", "schedule": 3600.0},
    # the review reminder mails (only to accounts that switched them on; once a day each)
    "review-reminders": {
        "task": "review.send_review_reminders",
        "schedule": crontab(hour=16, minute=0),
    },
    # the games between players whose clock ran out with no flag task queued (a far deadline)
    "versus-judge-clocks": {"task": "versus.judge_clocks", "schedule": 60.0},
    # the games' analyses a lost worker left wait their turn again
    "analysis-resend-lost": {"task": "analysis.resend_lost", "schedule": 300.0},
    # the analyses an older engine made are redone, a batch an hour (analysis.tasks.REDO_BATCH)
    "analysis-redo-stale": {"task": "analysis.redo_stale", "schedule": 3600.0},
    # a correspondence game's player whose move's time runs out within a day (once a move)
    "versus-correspondence-reminders": {
        "task": "versus.remind_correspondence",
        "schedule": 3600.0,
    },
}
