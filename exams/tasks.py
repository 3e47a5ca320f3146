"""Celery tasks of the exams: thin and idempotent, on the default queue.

``print_certificates`` is a teacher's "Print the certificates" of a class exam: drawing a class's
certificates takes about half a second for 30 students, too long for a request. The request
creates a :class:`core.models.Job` (kind :data:`PRINT_JOB`, the class exam, the teacher's
language and the site's address in its parameters) and returns at once; a worker draws the PDF
into a :class:`exams.models.CertificatePrint`, reporting its progress to the job, which the
teacher's page polls until it offers the download.
"""

from __future__ import annotations

import logging
import platform
import time
from collections.abc import Iterator

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import transaction

from core.models import Job

from . import certificate as drawing
from .models import Certificate, CertificatePrint, ClassExam

logger = logging.getLogger(__name__)

#: the job kind of "Print the certificates"
PRINT_JOB = "exam_certificates"
#: how often a running print writes its progress to the job, in seconds
PROGRESS_EVERY = 0.3


def class_certificates(class_exam: ClassExam) -> list[Certificate]:
    """The certificates a class exam's students earned, in the order they are printed."""
    return list(Certificate.objects.filter(exam__class_exam=class_exam).order_by("name", "pk"))


@shared_task(name="exams.print_certificates", acks_late=True, soft_time_limit=120, time_limit=150)
def print_certificates(job_id: str) -> str:
    """Draw the job's class exam's certificates as one PDF and keep it for the download;
    "skipped" when the job is gone or another delivery has it."""
    job = Job.objects.filter(pk=job_id, kind=PRINT_JOB).first()
    if job is None or job.status != Job.Status.QUEUED:
        return "skipped"
    if not job.claim(print_certificates.request.hostname or platform.node()):
        return "skipped"
    params = job.params
    class_exam = ClassExam.objects.filter(pk=params.get("class_exam")).first()
    certificates = class_certificates(class_exam) if class_exam is not None else []
    if not certificates:
        job.fail("no certificates to print")
        return "failed"
    last = time.monotonic()

    def counted() -> Iterator[Certificate]:
        nonlocal last
        for done, cert in enumerate(certificates):
            now = time.monotonic()
            if now - last >= PROGRESS_EVERY:
                last = now
                job.report(done * 100 // len(certificates))
            yield cert

    try:
        body = drawing.render(
            counted(), drawing.absolute_from(params["base_url"]), params.get("language")
        )
    except SoftTimeLimitExceeded:
        job.fail("the print ran past the worker's time limit")
        return "failed"
    with transaction.atomic():
        CertificatePrint.objects.update_or_create(
            job=job,
            defaults={"class_exam": class_exam, "pdf": body, "pages": len(certificates)},
        )
        if not job.finish({"pages": len(certificates), "bytes": len(body)}):
            transaction.set_rollback(True)
            return "skipped"
    swept = CertificatePrint.sweep()
    logger.info(
        "certificates of class exam %s printed (%d pages)", class_exam.pk, len(certificates)
    )
    if swept:
        logger.info("%d old certificate prints deleted", swept)
    return "done"
