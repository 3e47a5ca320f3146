"""Site-wide Celery tasks. Thin: take an id, reload the row, do one thing, write conditionally."""

from __future__ import annotations

import platform
import time

from celery import shared_task

from .models import Job


@shared_task(name="core.probe", acks_late=True)
def probe(job_id: str) -> str:
    """Prove the background path works: a worker picks the job up and records who it is.

    Used by /jobs/probe (staff) and by the test that runs a real worker process.
    """
    job = Job.objects.filter(pk=job_id).first()
    if job is None or job.status != Job.Status.QUEUED:
        return "skipped"
    worker = probe.request.hostname or platform.node()
    if not job.claim(worker):
        return "skipped"
    started = time.monotonic()
    from . import board

    result = {
        "worker": worker,
        "engine": board.engine_version(),
        "start_moves": board.count_start_moves(job.params.get("variant", "czech")),
        "seconds": round(time.monotonic() - started, 3),
    }
    job.finish(result)
    return "done"


@shared_task(name="core.deep_build_endgames", acks_late=True, time_limit=6 * 3600)
def deep_build_endgames(variant: str, material: str) -> list[str]:
    """Build one material of the endgame databases (e.g. ``KKvK``) and all it depends on into
    ``settings.DAMA_ENDGAMES_DIR``, where missing; returns the names built (idempotent: nothing
    when they are there). The library builds without Celery: ``python -m dama endgames build``."""
    from . import board

    return board.endgame_tables().ensure(variant, material)
