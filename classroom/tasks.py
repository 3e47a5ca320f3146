"""Celery tasks of the classroom app: thin and idempotent.

``deep_solve`` (the ``deep`` queue) is the board editor's "Ask the engine": the request creates a
:class:`core.models.Job` with the position and goal and returns at once; a worker runs the quick
search and writes its progress and the verdict to the job, which the editor page polls.

``make_student_accounts`` (the default queue) makes the accounts of a teacher's list of children:
hashing their passwords is the slow part (about 20 ms each with the site's Argon2, 0.3 s with
Django's PBKDF2), so the request only creates the job
(``Classroom.start_student_accounts``) and the teacher's page follows it to the login cards.
"""

from __future__ import annotations

import logging
import platform
import time

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.core.exceptions import ValidationError
from django.utils import translation

from core.models import Job

from . import engine
from .models import ACCOUNTS_JOB, Classroom, forget_old_cards

logger = logging.getLogger(__name__)

#: the job kind of "Ask the engine"
SOLVE_JOB = "editor_solve"
#: how often a running search writes its progress to the job, in seconds
PROGRESS_EVERY = 0.3


@shared_task(
    name="classroom.deep_solve",
    acks_late=True,
    soft_time_limit=int(engine.QUICK_SOLVE_SECONDS) + 30,
    time_limit=int(engine.QUICK_SOLVE_SECONDS) + 60,
)
def deep_solve(job_id: str) -> str:
    """Search the job's position for a solution (``engine.quick_solve``) and store the verdict as
    the job's result; "skipped" when the job is gone or another delivery has it."""
    job = Job.objects.filter(pk=job_id, kind=SOLVE_JOB).first()
    if job is None or job.status != Job.Status.QUEUED:
        return "skipped"
    if not job.claim(deep_solve.request.hostname or platform.node()):
        return "skipped"
    params = job.params
    last = 0.0

    def progress(fraction: float) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= PROGRESS_EVERY:
            last = now
            job.report(int(fraction * 100))

    try:
        with translation.override(params.get("language")):  # the teacher's, for error messages
            verdict = engine.quick_solve(
                params["variant"], params["fen"], params["goal"], params.get("horizon"), progress
            )
    except ValidationError as exc:
        job.fail(" ".join(exc.messages))
        return "failed"
    except SoftTimeLimitExceeded:
        job.fail("the search ran past the worker's time limit")
        return "failed"
    job.finish(verdict)
    logger.info("engine asked by job %s: %s", job_id, verdict["kind"])
    return "done"


@shared_task(
    name="classroom.make_student_accounts", acks_late=True, soft_time_limit=120, time_limit=150
)
def make_student_accounts(job_id: str) -> str:
    """Make the job's accounts (``Classroom.create_student_accounts``, which finishes the job with
    them); "skipped" when the job is gone or another delivery has it."""
    job = Job.objects.filter(pk=job_id, kind=ACCOUNTS_JOB).first()
    if job is None or job.status != Job.Status.QUEUED:
        return "skipped"
    if not job.claim(make_student_accounts.request.hostname or platform.node()):
        return "skipped"
    classroom = Classroom.objects.filter(pk=job.params.get("classroom")).first()
    if classroom is None:
        job.fail("the class is gone")
        return "failed"
    last = time.monotonic()

    def progress(done: int, total: int) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= PROGRESS_EVERY:
            last = now
            job.report(done * 100 // total)

    try:
        made = classroom.create_student_accounts(job.params["names"], progress=progress, job=job)
    except SoftTimeLimitExceeded:
        job.fail("making the accounts ran past the worker's time limit")
        return "failed"
    except RuntimeError as exc:  # no free username for a name
        job.fail(str(exc))
        return "failed"
    if not made:
        return "skipped"
    forgotten = forget_old_cards()
    logger.info("%d accounts made in class %s by job %s", len(made), classroom.pk, job_id)
    if forgotten:
        logger.info("the passwords of %d old accounts jobs forgotten", forgotten)
    return "done"
