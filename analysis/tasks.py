"""Celery tasks of the analysis, on the ``analysis`` queue (``CELERY_TASK_ROUTES``). Thin and
idempotent: the task takes the analysis's id, claims the row (queued or redelivered: running),
analyses the game with :func:`analysis.engine.analyse`, writing the progress as it goes, and
writes the result with a conditional update (:meth:`GameAnalysis.finish`). However it ends, the
user's next analysis is sent (one of a user's analyses on the workers at a time)."""

from __future__ import annotations

import logging
import time
from typing import Any

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.utils.translation import gettext as _

from core.workers import TRANSIENT_ERRORS

from . import engine
from .models import GameAnalysis

logger = logging.getLogger(__name__)

#: a 60-move game takes at most 30 CPU seconds (docs/benchmarks/analysis.md): room for a busy
#: machine, within the site's limit (the broker's visibility timeout is set above it)
SOFT_TIME_LIMIT = min(240, settings.CELERY_TASK_SOFT_TIME_LIMIT)
TIME_LIMIT = min(270, settings.CELERY_TASK_TIME_LIMIT)
#: the stale analyses (another engine or budget) asked again per run of the beat's task: after
#: a new engine, the games are redone a batch at a time, the newest first, each in its user's turn
REDO_BATCH = 200
#: the progress is written at most this often (seconds)
PROGRESS_SECONDS = 0.5

TASK_OPTIONS: dict[str, Any] = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "soft_time_limit": SOFT_TIME_LIMIT,
    "time_limit": TIME_LIMIT,
    "autoretry_for": TRANSIENT_ERRORS,
    "retry_backoff": 1,
    "retry_backoff_max": 30,
    "max_retries": 5,
}


@shared_task(name="analysis.analyse_game", **TASK_OPTIONS)
def analyse_game(analysis_id: int) -> str:
    """Analyse game ``analysis_id``: "done", "failed", or "stale" when the row is gone or not
    waiting for a worker."""
    row = GameAnalysis.claim(analysis_id)
    if row is None:
        return "stale"
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= PROGRESS_SECONDS:
            last[0] = now
            row.write_progress(100 * done // max(1, total))

    t0 = time.process_time()
    try:
        result = engine.analyse(row.variant, row.start_fen, row.moves, progress=progress)
    except engine.BadMove as exc:
        row.fail(_("Move %(number)s %(move)s cannot be played: %(reason)s")
                 % {"number": exc.number, "move": exc.move, "reason": exc.reason})  # fmt: skip
        return "failed"
    except SoftTimeLimitExceeded:
        row.fail(_("The analysis took too long."))
        return "failed"
    except TRANSIENT_ERRORS:
        raise
    except Exception:
        logger.exception("analysis %s failed", analysis_id)
        row.fail(_("The analysis failed."))
        return "failed"
    row.finish(result, seconds=time.process_time() - t0)
    logger.info("analysis %s done in %.1f CPU s", analysis_id, time.process_time() - t0)
    return "done"


@shared_task(name="analysis.resend_lost", **TASK_OPTIONS)
def resend_lost() -> int:
    """Put back the analyses a lost worker left (the beat runs it every few minutes)."""
    return GameAnalysis.objects.resend_lost()


@shared_task(name="analysis.redo_stale", **TASK_OPTIONS)
def redo_stale() -> int:
    """Ask again for a batch of the analyses an older engine made (the beat runs it hourly)."""
    return GameAnalysis.objects.redo_stale(batch=REDO_BATCH)
