"""Celery tasks of the puzzles app: thin, idempotent, safe to deliver twice.

``verify_puzzle`` runs on the ``verify`` queue (see ``CELERY_TASK_ROUTES``). It is acknowledged
only when it ends (``acks_late``), and a worker that dies mid-proof leaves the message to be
delivered again (``reject_on_worker_lost``; on Redis after ``CELERY_VISIBILITY_TIMEOUT``). Its
time limits are shorter than that timeout, so a proof still running is never handed out twice.
When it ends, the author's next waiting proof is sent (``PuzzleQuerySet.release``; the sweeper
does it too if this was missed).
"""

from __future__ import annotations

import logging
import platform

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from core.workers import TRANSIENT_ERRORS

from . import mining, verification
from .models import Puzzle

logger = logging.getLogger(__name__)


@shared_task(
    name="puzzles.verify_puzzle",
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    soft_time_limit=settings.DAMA_VERIFY_SOFT_TIME_LIMIT,
    time_limit=settings.DAMA_VERIFY_TIME_LIMIT,
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=2,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=5,
)
def verify_puzzle(self, puzzle_id: int, revision: int) -> str:
    """Prove revision ``revision`` of puzzle ``puzzle_id`` and store the verdict.

    Returns the verdict, or why nothing was done (gone, stale revision, already verified, being
    proven elsewhere).
    """
    worker = self.request.hostname or platform.node()
    try:
        outcome = verification.run(puzzle_id, revision, worker=worker)
    except SoftTimeLimitExceeded:
        outcome = verification.record_timeout(
            puzzle_id, revision, settings.DAMA_VERIFY_SOFT_TIME_LIMIT
        )
    except TRANSIENT_ERRORS:
        raise  # retried with backoff
    except Exception as exc:  # an engine bug: record it rather than retry it
        logger.exception("puzzle %s revision %s: the proof failed", puzzle_id, revision)
        outcome = verification.record_error(puzzle_id, revision, f"{exc.__class__.__name__}: {exc}")
    logger.info("puzzle %s revision %s: %s", puzzle_id, revision, outcome)
    try:  # the author's next waiting proof takes this one's place
        Puzzle.objects.release_after(puzzle_id)
    except TRANSIENT_ERRORS:
        logger.warning("puzzle %s: the author's waiting proofs were not released", puzzle_id)
    return outcome


@shared_task(name="puzzles.sweep_verifications", acks_late=True)
def sweep_verifications() -> dict[str, int]:
    """Periodic: enqueue again the proofs that were lost (see ``verification.sweep``)."""
    result = verification.sweep()
    if any(result.values()):
        logger.info("puzzle proofs swept: %s", result)
    return result


@shared_task(name="puzzles.verify_stale_puzzles", acks_late=True)
def verify_stale_puzzles() -> int:
    """Periodic: prove again the puzzles an older engine version proved."""
    count = verification.enqueue_stale()
    if count:
        logger.info("%s puzzles queued for re-verification with the current engine", count)
    return count


@shared_task(
    name="puzzles.deep_mine_range",
    bind=True,
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=TRANSIENT_ERRORS,
    retry_backoff=2,
    max_retries=5,
)
def deep_mine_range(self, job_id: int, seed: int) -> dict[str, int]:
    """Mine the games of ``seed`` for mining job ``job_id`` (the ``deep`` queue; idempotent:
    puzzles already known are skipped, a finished seed is not mined again)."""
    worker = self.request.hostname or platform.node()
    return mining.mine_range(job_id, seed, worker)
