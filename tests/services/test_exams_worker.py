"""A class's certificates printed on a real worker: the teacher's request only enqueues the job
(``exams.print_certificates``, default queue); a worker process that consumes only that queue
draws the PDF, and the page's poll then offers the download.

Redis database 9 (``DAMA_TEST_EXAMS_REDIS_URL`` overrides) with this run's key prefix, so that
other test runs on the same Redis see none of these messages.
"""

from __future__ import annotations

import os
from urllib.parse import urlparse, urlunparse

import pytest
from django.urls import reverse
from django.utils import timezone

from classroom.models import Classroom
from core.models import Job
from exams.models import ClassExam, Exam
from tests.conftest import redis_url, wait_until
from tests.web.test_exams import answer_right, pdf_text

pytestmark = [pytest.mark.services, pytest.mark.slow]

EXAMS_REDIS_DB = 9
HX = {"HTTP_HX_REQUEST": "true"}


def exams_redis_url() -> str:
    explicit = os.environ.get("DAMA_TEST_EXAMS_REDIS_URL")
    if explicit:
        return explicit
    return urlunparse(urlparse(redis_url())._replace(path=f"/{EXAMS_REDIS_DB}"))


@pytest.fixture
def exams_broker(request, monkeypatch):
    """The services' Redis broker (this run's key prefix), on database 9."""
    monkeypatch.setenv("DAMA_TEST_VERIFY_REDIS_URL", exams_redis_url())
    return request.getfixturevalue("redis_broker")


def test_a_worker_prints_the_class_certificates_the_page_follows(
    client, exams_broker, start_worker, teacher, django_user_model
):
    worker = start_worker(exams_broker, queues="default")
    room = Classroom.objects.create(name="Kroužek", variant="czech", created_by=teacher)
    room.teachers.add(teacher)
    class_exam = ClassExam.objects.create(
        classroom=room, variant="czech", level=1, starts_at=timezone.now(), created_by=teacher
    )
    certs = []
    for i, (first, last) in enumerate([("Jiřina", "Kořínková"), ("Ondřej", "Šíma")]):
        user = django_user_model.objects.create_user(
            f"pupil{i}", password="x", first_name=first, last_name=last
        )
        room.add_student(user)
        sitting = Exam.start(user, "czech", 1, class_exam=class_exam)
        while not sitting.is_finished:
            answer_right(sitting)
        certs.append(sitting.certificate)

    client.force_login(teacher)
    response = client.post(reverse("exams:class_certificates", args=[class_exam.pk]), **HX)
    assert response.status_code == 202
    status_url = response["Location"]
    job = Job.objects.get()
    wait_until(
        lambda: Job.objects.get(pk=job.pk).is_finished,
        60,
        "the print done",
        details=lambda: worker.log()[-3000:],
    )
    job.refresh_from_db()
    assert job.status == Job.Status.DONE, job.error
    assert job.worker == worker.hostname and "exams.print_certificates" in worker.log()

    polled = client.get(status_url, **HX).content.decode()
    assert 'data-testid="download-certificates"' in polled and "hx-get" not in polled
    pdf = client.get(reverse("exams:class_certificates_pdf", args=[class_exam.pk, job.pk]))
    pages, text = pdf_text(pdf.content)
    assert pages == 2
    for cert in certs:
        assert cert.name in text and cert.code in text
