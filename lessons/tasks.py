"""Celery task of the lessons: build the endgame databases an Endgames course needs.

A signed-in learner's "Build the endgame databases" on the course page creates a
:class:`core.models.Job` (kind :data:`BUILD_JOB`, the course in its parameters); a worker builds
the slices of every drill's position and every claim's (``Tables.ensure``: a slice and what it
leads to, when missing), reporting progress to the job, which the course page follows.
"""

from __future__ import annotations

import platform

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded

from core import endgames
from core.models import Job

from .course import COURSE_FILES, get_course

#: the job kind of "Build the endgame databases"
BUILD_JOB = "endgame_tables"


def course_positions(slug: str) -> list[tuple[str, str]]:
    """(variant, FEN) of every drill and claim of the course ``slug``."""
    course = get_course(slug)
    out: list[tuple[str, str]] = []
    for step in course.steps:
        if step.exercise.is_drill:
            out.append((step.variant, step.fen))
        out.extend((step.variant, claim.fen) for claim in step.claims)
    return out


#: a build's time on a worker: the 10x10 three-kings slice takes minutes in pure Python
SOFT_LIMIT, HARD_LIMIT = 1000, 1100


# "deep_": routed to the ``deep`` queue with the long searches (settings.CELERY_TASK_ROUTES)
@shared_task(
    name="lessons.deep_build_endgames",
    acks_late=True,
    soft_time_limit=SOFT_LIMIT,
    time_limit=HARD_LIMIT,
)
def build_endgames(job_id: str) -> str:
    """Build the slices the job's course needs; "skipped" when the job is gone or taken. Every
    slice is written whole (a file renamed into place), so a build stopped by the time limit
    goes on where it stopped when started again."""
    job = Job.objects.filter(pk=job_id, kind=BUILD_JOB).first()
    if job is None or job.status != Job.Status.QUEUED:
        return "skipped"
    if not job.claim(build_endgames.request.hostname or platform.node()):
        return "skipped"
    slug = str(job.params.get("course", ""))
    if slug not in COURSE_FILES:
        job.fail("unknown course")
        return "failed"
    positions = course_positions(slug)
    try:
        for n, (variant, fen) in enumerate(positions):
            endgames.ensure(variant, fen)
            job.report(100 * (n + 1) // max(len(positions), 1))
    except SoftTimeLimitExceeded:
        job.fail("the build ran past the worker's time limit: start it again to go on")
        return "failed"
    except (OSError, ValueError) as exc:
        job.fail(str(exc))
        return "failed"
    endgames.forget()
    job.finish({"positions": len(positions)})
    return "done"
