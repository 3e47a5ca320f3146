"""The analysis board's engine on a real worker: the request only queues the job
(``explore.deep_analyse``, the ``deep`` queue); a worker process that consumes only that queue
searches the position, the page follows the job to the engine's lines, and a second request
for the same position is answered at once from the kept result (the worker's cache is its own
process's here, so the job's row answers), with no second job."""

from __future__ import annotations

import pytest

from core.models import Job
from explore import analysis
from tests.conftest import wait_until

pytestmark = [pytest.mark.services, pytest.mark.slow]

FEN = "W:W22,K31:B18"
STATE = {"variant": "czech", "fen": FEN, "tree": "", "at": "0"}


def test_a_worker_analyses_the_position_and_the_page_follows_to_its_lines(
    client, redis_broker, start_worker, student, outsider
):
    worker = start_worker(redis_broker, queues="deep")
    client.force_login(student)
    response = client.post("/explore/analyse", STATE, HTTP_HX_REQUEST="true")
    assert response.status_code == 202
    job = Job.objects.get(kind=analysis.KIND)
    wait_until(
        lambda: Job.objects.get(pk=job.pk).is_finished,
        60,
        "the analysis done",
        details=lambda: worker.log()[-3000:],
    )
    job.refresh_from_db()
    assert job.status == Job.Status.DONE, job.error
    assert job.worker == worker.hostname and analysis.TASK in worker.log()
    page = client.get(response["Location"], HTTP_HX_REQUEST="true").content.decode()
    assert "22x15" in page and 'data-testid="explore-eval"' in page

    client.force_login(outsider)
    again = client.post("/explore/analyse", STATE, HTTP_HX_REQUEST="true")
    assert again.status_code == 200 and "22x15" in again.content.decode()
    assert Job.objects.filter(kind=analysis.KIND).count() == 1
