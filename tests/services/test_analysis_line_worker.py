"""The engine's line of a position of a game report, searched on a real worker: the request
only creates the job (``analysis.deep_line``, on the ``deep`` queue by its name), a worker that
consumes only that queue searches the position, and the page that follows the job shows the
line (tests/web/test_analysis_report.py tests the rest of the report in this process)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from analysis import report
from core.models import Job
from tests.conftest import wait_until
from tests.web.test_analysis_report import make_analysis

pytestmark = [pytest.mark.services, pytest.mark.slow]

HX = {"HX-Request": "true"}


def test_a_deep_worker_searches_the_engines_line_the_report_follows(
    client, redis_broker, start_worker, student
):
    worker = start_worker(redis_broker, queues="deep")
    row = make_analysis(student)
    client.force_login(student)
    asked = client.post(reverse("analysis:line", args=[row.pk]), {"ply": 2}, headers=HX)
    assert asked.status_code == 202
    job = Job.objects.get(kind=report.LINE_JOB)
    wait_until(
        lambda: Job.objects.get(pk=job.pk).is_finished,
        90,
        "the engine's line searched",
        details=lambda: worker.log()[-3000:],
    )
    job.refresh_from_db()
    assert job.status == Job.Status.DONE, job.error
    assert job.worker == worker.hostname and "analysis.deep_line" in worker.log()
    assert job.result["nodes"] >= report.LINE_NODES // 2 and job.result["line"]
    follow = reverse("analysis:line_job", args=[row.pk, job.pk])
    shown = client.get(follow, headers=HX).content.decode()
    assert 'data-testid="line-result"' in shown and job.result["line"][0] in shown
