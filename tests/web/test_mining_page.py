"""The staff mining pages (issue 17): start a job (its tasks go to the workers on commit), follow
it, and bad input is a form error, not a 500."""

from __future__ import annotations

import pytest

from puzzles import mining
from puzzles.models import MiningJob

pytestmark = pytest.mark.django_db


def test_staff_start_a_job_and_its_tasks_are_sent_on_commit(client, staff, monkeypatch):
    sent: list[int] = []
    monkeypatch.setattr(mining, "send", lambda job: sent.append(job.pk))
    client.force_login(staff)
    page = client.get("/puzzles/mining/")
    assert page.status_code == 200 and "Start mining" in page.content.decode()
    with pytest.MonkeyPatch.context():
        from django.test import TestCase

        with TestCase.captureOnCommitCallbacks(execute=True):
            response = client.post(
                "/puzzles/mining/", {"variant": "czech", "tasks": 3, "games": 2, "first_seed": 5}
            )
    job = MiningJob.objects.get()
    assert response.status_code == 302 and response["Location"] == job.get_absolute_url()
    assert (job.tasks, job.games, job.first_seed, job.status) == (3, 2, 5, "running")
    assert sent == [job.pk]
    assert mining.seeds_of(job) == [5, 6, 7]


def test_the_job_page_polls_until_done_and_shows_the_figures(client, staff):
    job = MiningJob.objects.create(variant="czech", tasks=2, games=1)
    client.force_login(staff)
    html = client.get(job.get_absolute_url()).content.decode()
    assert 'hx-trigger="every 2s"' in html and 'aria-live="polite"' in html
    job.record(1, found=3, known=1, games=1, seconds=2.0, worker="w1", finished=True)
    job.record(1, found=0, known=3, games=1, seconds=1.0, worker="w1", finished=True)  # twice
    assert job.done_tasks == 1 and job.status == "running"
    job.record(2, found=2, known=0, games=1, seconds=2.0, worker="w2", finished=True)
    assert job.status == "done" and job.found == 5 and job.workers == ["w1", "w2"]
    part = client.get(job.get_absolute_url(), HTTP_HX_REQUEST="true").content.decode()
    assert "every 2s" not in part and 'data-found="5"' in part and "<html" not in part


def test_bad_input_is_a_form_error(client, staff):
    client.force_login(staff)
    response = client.post("/puzzles/mining/", {"variant": "chess", "tasks": 0, "games": 99})
    assert response.status_code == 400
    assert MiningJob.objects.count() == 0


def test_only_staff_see_mining(client, student):
    client.force_login(student)
    assert client.get("/puzzles/mining/").status_code == 302
    job = MiningJob.objects.create(variant="czech", tasks=1, games=1)
    assert client.get(job.get_absolute_url()).status_code == 302
