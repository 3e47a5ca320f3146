"""The worker's side of "show the engine's line" (:mod:`analysis.report`): thin and idempotent.

``deep_line`` takes the job's id, claims it (a second delivery finds it claimed and stops),
searches the position with :func:`analysis.report.search_line` and writes the line to the job.
Its name puts it on the ``deep`` queue (``CELERY_TASK_ROUTES``: ``*.deep_*``); the Celery app
finds this module by its name (``dama_learn/celery.py``).
"""

from __future__ import annotations

import logging
import platform

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.core.exceptions import ValidationError

from core.models import Job
from core.workers import TRANSIENT_ERRORS

from .report import LINE_JOB, search_line

logger = logging.getLogger(__name__)


@shared_task(
    name="analysis.deep_line",
    acks_late=True,
    soft_time_limit=60,
    time_limit=90,
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=1,
    max_retries=5,
)
def deep_line(job_id: str) -> str:
    """Search the job's position and keep the line as its result; "skipped" when the job is
    gone or another delivery has it."""
    job = Job.objects.filter(pk=job_id, kind=LINE_JOB).first()
    if job is None or job.status != Job.Status.QUEUED:
        return "skipped"
    if not job.claim(deep_line.request.hostname or platform.node()):
        return "skipped"
    params = job.params
    try:
        entry = search_line(params["variant"], params["fen"], int(params["nodes"]))
    except ValidationError as exc:
        job.fail(" ".join(exc.messages))
        return "failed"
    except SoftTimeLimitExceeded:
        job.fail("the search ran past the worker's time limit")
        return "failed"
    job.finish(entry)
    logger.info("engine line %s: depth %s", job_id, entry.get("depth"))
    return "done"
