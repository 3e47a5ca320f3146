"""Celery tasks of the analysis board: thin and idempotent (see ``analysis``)."""

from __future__ import annotations

import logging
import platform
import time

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded

from core.models import Job

from . import analysis, engine

logger = logging.getLogger(__name__)

#: how often a running analysis writes its progress, in seconds
PROGRESS_EVERY = 0.3


@shared_task(
    name=analysis.TASK,
    acks_late=True,
    soft_time_limit=int(engine.LINE_SECONDS * engine.LINES) + 30,
    time_limit=int(engine.LINE_SECONDS * engine.LINES) + 60,
)
def deep_analyse(job_id: str) -> str:
    """The engine's lines of the job's position, kept (``analysis.keep``) and written to the job;
    "skipped" when the job is gone, replaced or taken by another delivery."""
    job = Job.objects.filter(pk=job_id, kind=analysis.KIND).first()
    if job is None or job.status != Job.Status.QUEUED:
        return "skipped"
    if not job.claim(deep_analyse.request.hostname or platform.node()):
        return "skipped"
    variant, fen = job.params["variant"], job.params["fen"]
    result = analysis.cached(variant, fen)
    if result is None:
        last = 0.0

        def progress(done: float) -> bool:
            nonlocal last
            now = time.monotonic()
            if now - last < PROGRESS_EVERY:
                return True
            last = now
            return job.report(int(done * 100))  # False: replaced, stop

        try:
            result = engine.analyse(variant, fen, progress)
        except SoftTimeLimitExceeded:
            job.fail("the search ran past the worker's time limit")
            return "failed"
        except ValueError as exc:
            job.fail(str(exc))
            return "failed"
        if not result["complete"]:
            return "replaced"
        analysis.keep(variant, fen, result)
    if not job.finish(result):
        return "replaced"
    logger.info("analysis %s: %s lines", job_id, len(result["lines"]))
    return "done"
