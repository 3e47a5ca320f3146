"""Certificates off the request (issue 19): a class's certificates are printed by a worker job
that the teacher's page follows (``exams.tasks.print_certificates``), and a learner's own
certificate is drawn once and kept (``Certificate.pdf``).

The queue is a list here (the task's ``delay`` is replaced) and the test runs the task itself,
as a worker would; ``tests/services/test_exams_worker.py`` runs it on a real worker."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from core.models import Job
from exams import tasks
from exams.models import Certificate, CertificatePdf, CertificatePrint, ClassExam, Exam

from .test_classroom import classroom, co_teacher, other_class, other_teacher  # noqa: F401
from .test_exams import answer_right, pdf_text

HX = {"HTTP_HX_REQUEST": "true"}
NAMES = ["Žofie Čermáková", "Ludvík Šťastný", "Anna Dvořáková"]


@pytest.fixture
def queue(monkeypatch):
    """The default queue, as the list of job ids sent to it."""
    sent: list[str] = []
    monkeypatch.setattr(tasks.print_certificates, "delay", sent.append)
    return sent


@pytest.fixture
def class_exam(classroom, teacher):  # noqa: F811
    return ClassExam.objects.create(
        classroom=classroom, variant="czech", level=1, starts_at=timezone.now(), created_by=teacher
    )


def pass_exam(user, class_exam: ClassExam) -> Certificate:
    sitting = Exam.start(user, "czech", 1, class_exam=class_exam)
    while not sitting.is_finished:
        answer_right(sitting)
    assert sitting.passed
    return sitting.certificate


@pytest.fixture
def passed(classroom, class_exam, django_user_model):  # noqa: F811
    """Three students of the class who passed the class exam, and their certificates."""
    certs = []
    for i, name in enumerate(NAMES):
        first, last = name.split()
        user = django_user_model.objects.create_user(
            f"pupil{i}", password="x", first_name=first, last_name=last
        )
        classroom.add_student(user)
        certs.append(pass_exam(user, class_exam))
    return certs


def ask_print(client, class_exam, callbacks, **extra):
    with callbacks(execute=True):
        return client.post(reverse("exams:class_certificates", args=[class_exam.pk]), **extra)


def test_the_print_is_a_job_the_page_follows_until_the_download(
    client, teacher, class_exam, passed, queue, django_capture_on_commit_callbacks
):
    client.force_login(teacher)
    page = client.get(class_exam.get_absolute_url()).content.decode()
    assert 'data-testid="print-certificates"' in page and 'id="certificates-print"' in page

    response = ask_print(client, class_exam, django_capture_on_commit_callbacks, **HX)
    job = Job.objects.get(kind=tasks.PRINT_JOB)
    assert response.status_code == 202 and queue == [str(job.pk)]
    status_url = reverse("exams:class_certificates_job", args=[class_exam.pk, job.pk])
    assert response["Location"] == status_url
    html = response.content.decode()
    assert f'hx-get="{status_url}"' in html and "wait for a worker" in html
    assert (
        job.params["class_exam"] == class_exam.pk and job.params["base_url"] == "http://testserver/"
    )
    # nothing is drawn in the request
    assert not CertificatePrint.objects.exists()
    pdf_url = reverse("exams:class_certificates_pdf", args=[class_exam.pk, job.pk])
    assert client.get(pdf_url).status_code == 404

    # a second click while it waits follows the same job
    again = ask_print(client, class_exam, django_capture_on_commit_callbacks, **HX)
    assert again.status_code == 202 and again["Location"] == status_url
    assert Job.objects.filter(kind=tasks.PRINT_JOB).count() == 1 and len(queue) == 1

    assert tasks.print_certificates(queue[0]) == "done"
    assert tasks.print_certificates(queue[0]) == "skipped"  # delivered twice: done once
    job.refresh_from_db()
    assert job.status == Job.Status.DONE and job.progress == 100 and job.result["pages"] == 3

    polled = client.get(status_url, **HX).content.decode()
    assert "hx-get" not in polled and 'data-testid="download-certificates"' in polled
    assert f'href="{pdf_url}"' in polled and "Download the PDF (3 pages)" in polled
    pdf = client.get(pdf_url)
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf"
    pages, text = pdf_text(pdf.content)
    assert pages == 3
    for cert in passed:
        assert cert.name in text and cert.code in text
        assert f"http://testserver/certificates/{cert.code}/" in text
    # the full page, without htmx
    full = client.get(status_url).content.decode()
    assert "<html" in full and 'data-testid="download-certificates"' in full


def test_without_htmx_the_button_leads_to_the_prints_page(
    client,
    co_teacher,  # noqa: F811
    class_exam,
    passed,
    queue,
    django_capture_on_commit_callbacks,
):
    client.force_login(co_teacher)
    response = ask_print(client, class_exam, django_capture_on_commit_callbacks)
    job = Job.objects.get(kind=tasks.PRINT_JOB)
    assert response.status_code == 302
    assert response.url == reverse("exams:class_certificates_job", args=[class_exam.pk, job.pk])
    page = client.get(response.url).content.decode()
    assert 'data-status="queued"' in page and "Refresh" in page


def test_the_print_is_in_the_teachers_language(
    client, teacher, class_exam, passed, queue, django_capture_on_commit_callbacks
):
    client.force_login(teacher)
    client.post("/language", {"language": "cs", "next": "/"})
    response = ask_print(client, class_exam, django_capture_on_commit_callbacks, **HX)
    assert "Osvědčení čekají na workera" in response.content.decode()
    tasks.print_certificates(queue[0])
    job = Job.objects.get(pk=queue[0])
    polled = client.get(
        reverse("exams:class_certificates_job", args=[class_exam.pk, job.pk]), **HX
    ).content.decode()
    assert "Stáhnout PDF (3 strany)" in polled
    pdf = client.get(reverse("exams:class_certificates_pdf", args=[class_exam.pk, job.pk]))
    _pages, text = pdf_text(pdf.content)
    assert text.count("Osvědčení") == 3 and "Kámen" in text


def test_nobody_passed_yet_is_said_and_no_job_is_made(
    client, teacher, class_exam, queue, django_capture_on_commit_callbacks
):
    client.force_login(teacher)
    response = ask_print(client, class_exam, django_capture_on_commit_callbacks, **HX)
    assert response.status_code == 409
    assert "Nobody has passed this exam yet" in response.content.decode()
    plain = ask_print(client, class_exam, django_capture_on_commit_callbacks)
    assert plain.status_code == 409 and "<html" in plain.content.decode()
    assert not Job.objects.exists() and queue == []


def test_a_job_whose_certificates_are_gone_fails_and_says_so(
    client, teacher, class_exam, passed, queue, django_capture_on_commit_callbacks
):
    client.force_login(teacher)
    ask_print(client, class_exam, django_capture_on_commit_callbacks, **HX)
    Certificate.objects.all().delete()
    assert tasks.print_certificates(queue[0]) == "failed"
    job = Job.objects.get(pk=queue[0])
    assert job.status == Job.Status.FAILED
    page = client.get(reverse("exams:class_certificates_job", args=[class_exam.pk, job.pk]), **HX)
    assert "could not be printed" in page.content.decode()
    # a job that is gone, or not a print, is skipped
    assert tasks.print_certificates("00000000-0000-0000-0000-000000000000") == "skipped"


def test_old_prints_are_swept_and_the_page_says_print_again(
    client, teacher, class_exam, passed, queue, django_capture_on_commit_callbacks
):
    client.force_login(teacher)
    ask_print(client, class_exam, django_capture_on_commit_callbacks, **HX)
    tasks.print_certificates(queue[0])
    old = CertificatePrint.objects.get()
    CertificatePrint.objects.filter(pk=old.pk).update(
        made=timezone.now() - CertificatePrint.KEEP - timedelta(minutes=1)
    )
    # the next print sweeps the old one away
    Job.objects.filter(pk=queue[0]).update(created=timezone.now() - timedelta(hours=1))
    ask_print(client, class_exam, django_capture_on_commit_callbacks, **HX)
    assert len(queue) == 2
    tasks.print_certificates(queue[1])
    assert list(CertificatePrint.objects.values_list("job_id", flat=True)) == [
        Job.objects.get(pk=queue[1]).pk
    ]
    page = client.get(reverse("exams:class_certificates_job", args=[class_exam.pk, queue[0]]), **HX)
    assert "print the certificates again" in page.content.decode()
    assert (
        client.get(
            reverse("exams:class_certificates_pdf", args=[class_exam.pk, queue[0]])
        ).status_code
        == 404
    )


@pytest.mark.parametrize(
    "who,expected", [("teacher", 200), ("co_teacher", 200), ("student", 403), ("outsider", 404), ("other_teacher", 404), ("anonymous", 302)]
)  # fmt: skip
def test_only_the_class_teachers_follow_and_download_a_print(
    client, request, class_exam, passed, queue, django_capture_on_commit_callbacks, who, expected
):
    client.force_login(request.getfixturevalue("teacher"))
    ask_print(client, class_exam, django_capture_on_commit_callbacks, **HX)
    tasks.print_certificates(queue[0])
    client.logout()
    if who == "other_teacher":
        request.getfixturevalue("other_class")
    if who != "anonymous":
        client.force_login(request.getfixturevalue(who))
    status = reverse("exams:class_certificates_job", args=[class_exam.pk, queue[0]])
    pdf = reverse("exams:class_certificates_pdf", args=[class_exam.pk, queue[0]])
    assert client.get(status).status_code == expected
    assert client.get(pdf).status_code == expected
    posted = ask_print(client, class_exam, django_capture_on_commit_callbacks)
    assert posted.status_code == (302 if expected == 200 else expected)


def test_bad_addresses_are_404_not_500(
    client,
    teacher,
    classroom,  # noqa: F811
    class_exam,
    passed,
    queue,
    django_capture_on_commit_callbacks,
):
    client.force_login(teacher)
    ask_print(client, class_exam, django_capture_on_commit_callbacks, **HX)
    job_id = queue[0]
    other_exam = ClassExam.objects.create(
        classroom=classroom, variant="czech", level=2, starts_at=timezone.now(), created_by=teacher
    )
    probe = Job.objects.create(kind="probe", owner=teacher, params={"class_exam": class_exam.pk})
    for url in (
        # the job of another class exam, a job that is not a print, one that does not exist
        reverse("exams:class_certificates_job", args=[other_exam.pk, job_id]),
        reverse("exams:class_certificates_pdf", args=[other_exam.pk, job_id]),
        reverse("exams:class_certificates_job", args=[class_exam.pk, probe.pk]),
        reverse(
            "exams:class_certificates_job",
            args=[class_exam.pk, "00000000-0000-0000-0000-000000000000"],
        ),
        reverse("exams:class_certificates", args=[999999]),
        f"/exams/class-exam/{class_exam.pk}/certificates/not-a-uuid/",
    ):
        assert client.get(url).status_code in (404, 405), url
    assert client.get(reverse("exams:class_certificates", args=[class_exam.pk])).status_code == 405


# -- a learner's own certificate ----------------------------------------------------------------


def test_a_certificate_is_drawn_once_per_language_and_then_read(client, passed, monkeypatch):
    cert = passed[0]
    client.force_login(cert.user)
    url = reverse("exams:certificate_pdf", args=[cert.code])
    first = client.get(url)
    assert first.status_code == 200
    kept = CertificatePdf.objects.get(certificate=cert)
    assert kept.language == "en" and bytes(kept.pdf) == first.content

    from exams import certificate as drawing

    def no_drawing(*args, **kwargs):
        raise AssertionError("drawn again")

    monkeypatch.setattr(drawing, "render", no_drawing)
    again = client.get(url)
    assert again.status_code == 200 and again.content == first.content

    # Czech is drawn once too, next to the English one
    monkeypatch.undo()
    client.post("/language", {"language": "cs", "next": "/"})
    czech = client.get(url)
    _pages, text = pdf_text(czech.content)
    assert "Osvědčení" in text and cert.code in text and cert.name in text
    assert set(CertificatePdf.objects.values_list("language", flat=True)) == {"en", "cs"}
    # a new layout draws it again
    monkeypatch.setattr(drawing, "LAYOUT", drawing.LAYOUT + 1)
    client.get(url)
    assert CertificatePdf.objects.get(language="cs").layout == drawing.LAYOUT
