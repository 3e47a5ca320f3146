"""The staff mining pages (issue 17): start a job (its tasks go to the workers on commit), follow
it, and bad input is a form error, not a 500."""

from __future__ import annotations

import pytest

from puzzles import mining
from puzzles.models import MiningJob, Puzzle

pytestmark = pytest.mark.django_db


def test_staff_start_a_job_and_its_tasks_are_sent_on_commit(client, staff, sent_tasks):
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
    assert sent_tasks == [("puzzles.deep_mine_range", (job.pk, seed), "deep") for seed in (5, 6, 7)]
    assert job.seeds == [5, 6, 7]


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


# -- mining the games of an uploaded PDN file ---------------------------------------------------------


def test_staff_upload_a_pdn_file_of_games_and_the_tasks_share_its_games(
    client, staff, sent_tasks, django_capture_on_commit_callbacks
):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.web.test_mining import GAME_PDN

    client.force_login(staff)
    assert 'enctype="multipart/form-data"' in client.get("/puzzles/mining/").content.decode()
    upload = SimpleUploadedFile("club.pdn", (GAME_PDN * 2).encode(), "application/x-chess-pdn")
    data = {"variant": "czech", "tasks": 2, "games": 1, "first_seed": 1, "pdn": upload}
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/puzzles/mining/", data)
    job = MiningJob.objects.get()
    assert response.status_code == 302
    assert [args for _name, args, _queue in sent_tasks] == [(job.pk, 1), (job.pk, 2)]
    assert job.pdn == GAME_PDN * 2
    assert "positions of the uploaded games" in client.get(job.get_absolute_url()).content.decode()
    # each task reads its share of the games (here one each) and saves what it proves: the gain
    # the last move of the game allowed, once (the second task finds it known)
    first = mining.mine_range(job.pk, 1)
    second = mining.mine_range(job.pk, 2)
    assert (first["games"], second["games"]) == (1, 1)
    assert first["found"] == 1 and second["found"] == 0 and second["known"] >= 1
    assert Puzzle.objects.get().solution == ["22-17", "13x22", "25x18x11"]
    job.refresh_from_db()
    assert job.status == "done" and job.found == 1 and job.games_played == 2 and not job.error


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "The submitted file is empty."),
        (b"   \n", "The file is empty."),
        (b"[Event \x00\x01]", "This is not a PDN text file."),
    ],
)
def test_a_bad_pdn_upload_is_a_form_error(client, staff, content, message):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(staff)
    upload = SimpleUploadedFile("games.pdn", content)
    data = {"variant": "czech", "tasks": 1, "games": 1, "first_seed": 1, "pdn": upload}
    response = client.post("/puzzles/mining/", data)
    assert response.status_code == 400 and message in response.content.decode()
    assert not MiningJob.objects.exists()


def test_a_pdn_file_over_the_size_limit_is_a_form_error(client, staff, monkeypatch):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from puzzles import views_mining

    monkeypatch.setattr(views_mining, "MAX_PDN_BYTES", 2_000_000)
    client.force_login(staff)
    upload = SimpleUploadedFile("games.pdn", b"1. 22-18 *\n" * 200_000)
    data = {"variant": "czech", "tasks": 1, "games": 1, "first_seed": 1, "pdn": upload}
    response = client.post("/puzzles/mining/", data)
    assert response.status_code == 400 and "larger than 2 MB" in response.content.decode()


def test_a_pdn_job_without_a_readable_game_says_why_on_its_page(client, staff):
    job = MiningJob.objects.create(
        variant="czech", tasks=1, games=1, pdn='[GameType "20"]\n\n1. 32-28 *\n'
    )
    counts = mining.mine_range(job.pk, 1)
    assert counts["games"] == 0 and counts["found"] == 0
    job.refresh_from_db()
    assert job.status == "done" and job.error
    client.force_login(staff)
    html = client.get(job.get_absolute_url()).content.decode()
    assert 'data-testid="mining-error"' in html and "No readable game of this variant" in html
