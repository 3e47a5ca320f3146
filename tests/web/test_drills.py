"""Drills: an Endgames course's position played out against the endgame database's best defence.

The rules of a drill on the real course (``fixtures/lessons/endgames-*.yaml``) and the real
databases (built once per test session: ``endgame_tables`` in tests/conftest.py): a win within the
count passes the step; a move that lets the win go ends the attempt with the database's
explanation and a better move; "Start again"; a reload resumes; a second tab's stale move is
refused; unreadable or illegal input is a 400 that changes nothing; without the databases the
pages say so and offer to build them on a worker.
"""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from dama import Board
from dama.endgames import Tables
from lessons.course import get_course
from lessons.models import DrillRun, StepProgress
from lessons.tasks import BUILD_JOB

pytestmark = pytest.mark.django_db

#: White wins in 11 moves with 23-18 only; 17-13 lets it go to a draw (CUD 2006 art. 6.3 count)
MAIN_ROAD = ("endgames-czech", "cz-eg-lone-king", "cz-eg-take-the-main-road")
#: the lone black king on the main diagonal holds the draw for 5 moves (29-22 or 29-25)
HOLD = ("endgames-czech", "cz-eg-lone-king", "cz-eg-main-road-draw")
#: 10x10: White to move wins in 3 (29-24!)
INT_BREAK = ("endgames-international", "int-eg-men", "int-eg-breakthrough")


def url(where, action="step"):
    return reverse(f"lessons:{action}", args=list(where))


def feedback_of(html: str) -> str:
    match = re.search(r'<div id="lesson-feedback"[^>]*>(.*?)</div>', html, re.S)
    assert match, "the answer fills the aria-live feedback region"
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", match.group(1))).split())


def ply_of(html: str) -> int:
    return int(re.search(r'name="ply" value="(\d+)"', html).group(1))


def play(client, where, move: str, ply: int | None = None, **extra):
    data = {"answer": move}
    if ply is not None:
        data["ply"] = str(ply)
    return client.post(url(where, "check"), data, HTTP_HX_REQUEST="true", **extra)


def best(tables: Tables, variant: str, fen: str, moves: list[str]) -> str:
    board = Board(variant, fen)
    for text in moves:
        board.push(board.parse_move(text))
    return board.move_text(tables.best_moves(board)[0])


def step_of(where):
    return get_course(where[0]).step(where[1], where[2])


def play_out(client, where, tables) -> tuple[str, int]:
    """Play the database's best moves until the drill ends: (the last answer, its status)."""
    step = step_of(where)
    html = client.get(url(where)).content.decode()
    for _ in range(60):
        ply = ply_of(html)
        run = DrillRun.objects.get() if DrillRun.objects.exists() else None
        moves = list(run.moves) if run else []
        response = play(client, where, best(tables, step.variant, step.fen, moves), ply)
        assert response.status_code == 200, response.content
        html = response.content.decode()
        if 'name="ply"' not in html:
            return html, response.status_code
    raise AssertionError("the drill did not end")


def test_win_within_the_count_passes_the_step(client, student, endgame_tables):
    tables = Tables.open(endgame_tables)
    client.force_login(student)
    html, _status = play_out(client, MAIN_ROAD, tables)
    assert 'data-testid="drill-passed"' in html
    run = DrillRun.objects.get(user=student)
    assert run.status == DrillRun.Status.PASSED
    assert len(run.moves) == 21  # the database's 11 moves, its defence between them
    record = StepProgress.objects.get(user=student, step=MAIN_ROAD[2])
    assert record.stars == 3 and record.completed_at is not None


def test_a_drawing_move_fails_with_the_explanation_and_retry_starts_again(
    client, student, endgame_tables
):
    client.force_login(student)
    client.get(url(MAIN_ROAD))
    response = play(client, MAIN_ROAD, "17-13", 0)
    assert response.status_code == 200
    said = feedback_of(response.content.decode())
    assert "23-18 keeps the win" in said and "17-13 lets it go to a draw" in said
    run = DrillRun.objects.get(user=student)
    assert run.status == DrillRun.Status.FAILED and run.moves == ["17-13"]
    assert run.better == "23-18"
    # the attempt is over: another move is refused, nothing stored
    assert play(client, MAIN_ROAD, "23-18", 1).status_code == 409
    record = StepProgress.objects.get(user=student, step=MAIN_ROAD[2])
    assert record.stars == 0 and record.attempts == 1
    response = client.post(url(MAIN_ROAD, "retry"), HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and ply_of(response.content.decode()) == 0
    run.refresh_from_db()
    assert run.moves == [] and run.status == DrillRun.Status.PLAYING and run.attempts == 1
    assert play(client, MAIN_ROAD, "23-18", 0).status_code == 200


def test_reload_resumes_and_a_stale_tab_is_refused(client, endgame_tables):
    client.get(url(MAIN_ROAD))
    response = play(client, MAIN_ROAD, "23-18", 0)
    assert response.status_code == 200
    run = DrillRun.objects.get()
    assert run.user is None and len(run.moves) == 2  # the visitor's session owns it
    reply = run.moves[1]
    html = client.get(url(MAIN_ROAD)).content.decode()
    assert ply_of(html) == 2 and "23-18" in html and reply in html
    # a second tab still showing the start plays on it: refused, nothing changes
    assert play(client, MAIN_ROAD, "23-18", 0).status_code == 409
    run.refresh_from_db()
    assert len(run.moves) == 2


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({"answer": "30-26", "ply": "0"}, "That move cannot be played."),
        ({"answer": "hello", "ply": "0"}, "is not a move"),
        ({"answer": "23-18"}, "reload the page"),
        ({"answer": "23-18", "ply": "x1"}, "reload the page"),
        ({"route": "99,1", "ply": "0"}, "That move cannot be played."),
    ],
)
def test_bad_input_is_a_400_that_changes_nothing(client, endgame_tables, data, said):
    client.get(url(MAIN_ROAD))
    response = client.post(url(MAIN_ROAD, "check"), data, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    assert said in feedback_of(response.content.decode())
    assert all(run.moves == [] for run in DrillRun.objects.all())


def test_holding_the_draw_for_the_moves_asked_passes(client, student, endgame_tables):
    tables = Tables.open(endgame_tables)
    client.force_login(student)
    html, _status = play_out(client, HOLD, tables)
    assert 'data-testid="drill-passed"' in html
    run = DrillRun.objects.get(user=student)
    assert run.status == DrillRun.Status.PASSED


def test_leaving_the_draw_fails(client, endgame_tables):
    client.get(url(HOLD))
    response = play(client, HOLD, "29-15", 0)
    said = feedback_of(response.content.decode())
    assert "keeps the draw" in said and "29-15 lets the other side win" in said
    assert DrillRun.objects.get().status == DrillRun.Status.FAILED


def test_the_hint_is_the_databases_move_and_costs_a_star(client, student, endgame_tables):
    client.force_login(student)
    client.get(url(INT_BREAK))
    response = client.post(url(INT_BREAK, "hint"), HTTP_HX_REQUEST="true")
    assert "29-24 keeps the win" in response.content.decode()
    html, _status = play_out(client, INT_BREAK, Tables.open(endgame_tables))
    assert 'data-testid="drill-passed"' in html
    assert StepProgress.objects.get(user=student, step=INT_BREAK[2]).stars == 2


def test_in_czech_the_explanation_is_czech(client, endgame_tables):
    client.post("/language", {"language": "cs"})
    client.get(url(MAIN_ROAD))
    response = play(client, MAIN_ROAD, "17-13", 0)
    html = response.content.decode()
    said = feedback_of(html)
    assert "17-13" in said and "23-18" in said
    step = step_of(MAIN_ROAD)
    page = client.get(url(MAIN_ROAD)).content.decode()
    assert '<html lang="cs">' in page and step.exercise.prompt.cs in unescape(page)


def test_without_the_databases_the_course_says_so_and_offers_a_build(
    client, student, settings, tmp_path, sent_tasks
):
    from core import endgames

    settings.DAMA_ENDGAMES_DIR = tmp_path / "none"
    endgames.forget()
    course_url = reverse("lessons:course", args=["endgames-czech"])
    html = client.get(course_url).content.decode()
    assert 'data-testid="endgame-tables" data-ready="0"' in html
    step_html = client.get(url(MAIN_ROAD)).content.decode()
    assert 'data-testid="drill-missing"' in step_html
    assert play(client, MAIN_ROAD, "23-18", 0).status_code == 409
    build_url = reverse("lessons:build_tables", args=["endgames-czech"])
    assert client.post(build_url).status_code == 403
    client.force_login(student)
    with django_capture_on_commit():
        response = client.post(build_url)
    assert response.status_code == 302
    from core.models import Job

    job = Job.objects.get(kind=BUILD_JOB)
    assert job.params == {"course": "endgames-czech"} and job.owner == student
    assert [(name, queue) for name, _args, queue in sent_tasks] == [
        ("lessons.deep_build_endgames", "deep")
    ]
    client.post(build_url)  # a second request while it is pending starts no second job
    assert Job.objects.filter(kind=BUILD_JOB).count() == 1
    assert 'data-testid="tables-job"' in client.get(course_url).content.decode()
    endgames.forget()


def django_capture_on_commit():
    from django.test import TestCase

    return TestCase.captureOnCommitCallbacks(execute=True)


def test_the_build_task_builds_what_the_course_needs(settings, tmp_path, student, endgame_dir):
    """The worker's task builds the slices the course lacks: a copy of the session's databases
    without the Czech man-against-man slice gets it back."""
    import shutil

    from core import endgames
    from core.models import Job
    from lessons.tasks import build_endgames, course_positions

    shutil.copytree(endgame_dir, tmp_path, dirs_exist_ok=True)
    removed = list((tmp_path / "czech").glob("MvM.*"))
    assert removed
    for path in removed:
        path.unlink()
    settings.DAMA_ENDGAMES_DIR = tmp_path
    endgames.forget()
    assert not endgames.covers("czech", "W:W9:B2")
    job = Job.objects.create(kind=BUILD_JOB, owner=student, params={"course": "endgames-czech"})
    assert build_endgames.run(str(job.pk)) == "done"
    job.refresh_from_db()
    assert job.status == Job.Status.DONE and job.progress == 100
    assert all(endgames.covers(v, fen) for v, fen in course_positions("endgames-czech"))
    assert build_endgames.run(str(job.pk)) == "skipped"
    endgames.forget()


def test_a_failed_drill_comes_back_in_the_review(client, student, endgame_tables):
    """A drill whose attempt failed is a lesson step answered wrongly: a review card (Again),
    whose address is the drill's page."""
    from review.models import Card
    from review.queue import card_url

    client.force_login(student)
    client.get(url(MAIN_ROAD))
    play(client, MAIN_ROAD, "17-13", 0)
    card = Card.objects.get(user=student, step=MAIN_ROAD[2])
    assert card.course == MAIN_ROAD[0] and card.kind == Card.Kind.STEP
    page = client.get(card_url(card), follow=True)
    assert page.status_code == 200 and 'data-testid="drill"' in page.content.decode()
