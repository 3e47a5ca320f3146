"""/healthz and background jobs, without a worker (the worker test starts a real one). The health
details are for staff (``admin_client``; visitors get a bare status: tests/security/test_information.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from core.models import Job, WorkerHeartbeat

pytestmark = pytest.mark.django_db


def test_healthz_without_a_worker_is_503_with_the_reason(admin_client):
    response = admin_client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["database"]["ok"] is True
    assert body["broker"]["ok"] is True
    assert body["workers"]["ok"] is False
    assert "no worker answered" in body["reasons"]
    assert body["pending_jobs"] == 0


def test_healthz_counts_pending_jobs(admin_client):
    Job.objects.create(kind="probe")
    Job.objects.create(kind="probe", status=Job.Status.RUNNING)
    Job.objects.create(kind="probe", status=Job.Status.DONE)
    assert admin_client.get("/healthz").json()["pending_jobs"] == 2


def test_healthz_is_200_when_a_worker_heartbeat_is_fresh(admin_client, settings, tmp_path):
    # the SQLite-file broker of `make run` cannot broadcast a ping: heartbeats tell instead
    settings.CELERY_BROKER_URL = f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}"
    WorkerHeartbeat.beat("celery@somewhere")
    response = admin_client.get("/healthz")
    assert response.status_code == 200, response.json()
    assert response.json()["workers"]["workers"] == ["celery@somewhere"]


def test_a_stale_heartbeat_does_not_count(client, settings):
    WorkerHeartbeat.objects.create(
        hostname="celery@gone", seen=timezone.now() - timedelta(minutes=5)
    )
    assert client.get("/healthz").status_code == 503


def test_healthz_reports_an_unreachable_broker(admin_client, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    response = admin_client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["broker"]["ok"] is False
    assert any("broker unreachable" in reason for reason in response.json()["reasons"])


def test_probe_is_for_staff_only(client, student):
    client.force_login(student)
    response = client.post("/jobs/probe")
    assert response.status_code == 302  # to the admin login
    assert not Job.objects.exists()


def test_probe_creates_a_job_and_enqueues_it_on_commit(
    client, staff, django_capture_on_commit_callbacks
):
    client.force_login(staff)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = client.post("/jobs/probe", {"variant": "international"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 202
    job = Job.objects.get()
    assert job.params == {"variant": "international"}
    assert response["Location"] == f"/jobs/{job.pk}"
    assert len(callbacks) == 1
    assert f'hx-get="/jobs/{job.pk}"' in response.content.decode()


def test_probe_with_an_unknown_variant_is_400(client, staff):
    client.force_login(staff)
    assert client.post("/jobs/probe", {"variant": "chess"}).status_code == 400


def test_job_state_as_json_page_and_partial(client, staff):
    client.force_login(staff)
    job = Job.objects.create(kind="probe", owner=staff)
    assert (
        client.get(f"/jobs/{job.pk}", HTTP_ACCEPT="application/json").json()["status"] == "queued"
    )
    assert "<html" in client.get(f"/jobs/{job.pk}").content.decode()
    assert "<html" not in client.get(f"/jobs/{job.pk}", HTTP_HX_REQUEST="true").content.decode()


def test_a_job_is_visible_only_to_who_started_it(client, student, outsider):
    job = Job.objects.create(kind="probe", owner=student)
    client.force_login(outsider)
    assert client.get(f"/jobs/{job.pk}").status_code == 404
    client.force_login(student)
    assert client.get(f"/jobs/{job.pk}").status_code == 200


def test_probe_task_run_in_process_records_the_result(db):
    from core.tasks import probe

    job = Job.objects.create(kind="probe", params={"variant": "czech"})
    assert probe.apply(args=[str(job.pk)]).get() == "done"
    job.refresh_from_db()
    assert job.status == Job.Status.DONE
    assert job.result["start_moves"] == 7
    assert (
        probe.apply(args=[str(job.pk)]).get() == "skipped"
    )  # idempotent: a second delivery does nothing


def test_job_claim_happens_once(db):
    job = Job.objects.create(kind="probe")
    assert job.claim("w1") is True
    assert Job.objects.get(pk=job.pk).claim("w2") is False
