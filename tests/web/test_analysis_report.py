"""The report of an analysed game (analysis/views_report.py): the chart with a point per
position and its marks, the same in words for screen readers, the moments in words with their
motifs, stepping through the positions (?ply=N), the engine's line as a job the page follows,
the progress while the analysis waits or runs, and who may see it.

The analysis is built by hand in the stored formats of analysis/models.py's docstring."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils import translation

from analysis import report
from analysis.lines import deep_line
from analysis.models import GameAnalysis, GameUpload, Moment
from classroom.models import Classroom, Membership
from core.models import Job
from puzzles.models import Puzzle

#: Czech: White to move has a shot, 22-17 13x22 25x18x11 (a man won), and plays 21-17
SHOT_FEN = "W:W21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,10,12,13,15"
MOVES = ["21-17", "5-9", "27-24", "2-7", "25-21", "9-14"]


def entry(value: int, best: str | None = "22-18", mate: int | None = None) -> dict:
    return {"eval": value, "mate": mate, "best": best, "line": [best] if best else [],
            "depth": 9, "nodes": 50000}  # fmt: skip


EVALUATIONS = [
    {**entry(110, "22-17"), "line": ["22-17", "13x22", "25x18x11"]},
    entry(10, "5-9"),
    entry(15, "27-24"),
    entry(-230, "2-7"),
    entry(-220, "25-21"),
    entry(-29991, "9-14", mate=-9),
    entry(-240, "26-23"),
]
MARKS = [
    {"ply": 0, "side": "white", "kind": "mistake", "drop": 100, "best": "22-17"},
    {"ply": 2, "side": "white", "kind": "blunder", "drop": 250, "best": "26-23"},
    {"ply": 4, "side": "white", "kind": "inaccuracy", "drop": 60, "best": "26-23"},
]


def make_analysis(user, state=GameAnalysis.State.DONE, **fields) -> GameAnalysis:
    upload = GameUpload.objects.create(user=user, variant="czech", name="club.pdn", games=1)
    values = {
        "source": GameAnalysis.Source.UPLOAD, "upload": upload, "upload_index": 1,
        "variant": "czech", "start_fen": SHOT_FEN, "moves": MOVES, "result": "0-2",
        "white_name": "Standa", "black_name": "Club player", "user": user,
        "white_user": user, "state": state,
    }  # fmt: skip
    if state == GameAnalysis.State.DONE:
        values.update(evaluations=EVALUATIONS, marks=MARKS, progress=100)
    values.update(fields)
    return GameAnalysis.objects.create(**values)


@pytest.fixture
def analysis(student):
    row = make_analysis(student)
    puzzle = Puzzle.objects.create(
        variant="czech", fen=SHOT_FEN, goal="gain:1", horizon=2, owner=student,
        solution=["22-17", "13x22", "25x18x11"], origin="from your game",
    )  # fmt: skip
    Moment.objects.create(
        analysis=row, ply=0, side="white", kind=Moment.Kind.MISSED, user=student,
        played="21-17", fen=SHOT_FEN, goal="gain:1", horizon=2, gain=1,
        solution=["22-17", "13x22", "25x18x11"],
        motifs=["capture:2", "sacrifice:1", "shot", "coup_philippe"], verdict="unique",
        puzzle=puzzle,
    )  # fmt: skip
    Moment.objects.create(
        analysis=row, ply=2, side="white", kind=Moment.Kind.ALLOWED, user=student,
        played="27-24", fen="B:W17,22,24,26,28,29,30,31,32:B1,3,4,6,9,10,12,13,15", goal="gain:2",
        horizon=2, gain=2, solution=["13-18", "22x13", "9x18x27"], motifs=["sacrifice:1"],
        verdict="cooked",
    )  # fmt: skip
    return row


def url(row, **query) -> str:
    base = reverse("analysis:report", args=[row.pk])
    return base + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def test_the_chart_has_a_point_per_position_and_marks_on_mistakes_and_blunders(
    client, analysis, student
):
    client.force_login(student)
    page = client.get(url(analysis)).content.decode()
    chart = page[page.index('data-testid="eval-chart"') :]
    chart = chart[: chart.index("</div>")]
    assert 'role="img"' in chart and "<title id=" in chart and "<desc id=" in chart
    points = re.findall(r'<a href="([^"]+)" tabindex="-1" data-ply="(\d+)" data-point>', chart)
    assert [int(p) for _u, p in points] == list(range(len(MOVES) + 1))
    assert points[3][0].replace("&amp;", "&") == url(analysis, ply=3)
    marks = re.findall(r'data-mark="(\w+)" data-ply="(\d+)"', chart)
    assert marks == [("mistake", "1"), ("blunder", "3")]  # the inaccuracy only in words
    # a forced win is drawn at the edge, the rest within it; the shown position is marked
    assert 'data-current="6"' in chart


def test_the_chart_is_a_list_in_words_for_screen_readers(client, analysis, student):
    client.force_login(student)
    page = client.get(url(analysis)).content.decode()
    listed = page[page.index('data-testid="eval-list"') :]
    listed = listed[: listed.index("</ol>")]
    items = re.findall(r'data-ply="(\d+)"[^>]*>([^<]+)</a>', listed)
    assert len(items) == len(MOVES) + 1
    assert items[0][1] == "Start position: White better by about a man"
    assert items[3][1] == (
        "Move 2, White 27-24: Black better by about 2 men; blunder (men lost: 2.5)"
    )
    assert items[1][1] == "Move 1, White 21-17: About equal; mistake (men lost: 1.0)"
    assert items[5][1].startswith("Move 3, White 25-21: Black wins by force in 5 moves")


def test_the_moments_are_told_in_words_with_their_motifs_and_the_players_puzzle(
    client, analysis, student
):
    client.force_login(student)
    page = client.get(url(analysis)).content.decode()
    moments = page[page.index('data-testid="moments"') :]
    assert "1. 21-17 missed a man: 22-17 wins it." in moments
    assert "2. 27-24 lost 2 men: 13-18 wins them." in moments
    assert "Motifs: coup Philippe, shot, multi-jump (2), sacrifice (1)" in moments
    puzzle = analysis.moments.get(kind="missed").puzzle
    assert reverse("puzzles:solve", args=["czech", puzzle.pk]) in moments
    assert moments.count('class="dama-board"') == 2  # each moment's position on a small board


def test_the_report_speaks_czech(client, analysis, student):
    client.force_login(student)
    client.cookies["django_language"] = "cs"
    page = client.get(url(analysis)).content.decode()
    assert "Philippův úder (coup Philippe)" in page
    assert "vícenásobné braní (2)" in page
    with translation.override("cs"):
        assert report.men_text(250) == "2,5"


def test_a_teacher_does_not_get_the_link_to_the_students_personal_puzzle(
    client, analysis, student, teacher
):
    classroom = Classroom.objects.create(name="Club", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    Membership.objects.create(classroom=classroom, user=student)
    client.force_login(teacher)
    page = client.get(url(analysis))
    assert page.status_code == 200
    assert "22-17 wins it." in page.content.decode()
    assert 'data-testid="moment-puzzle"' not in page.content.decode()


def test_a_stranger_gets_a_404_and_a_visitor_too(client, analysis, outsider):
    assert client.get(url(analysis)).status_code == 404
    client.force_login(outsider)
    assert client.get(url(analysis)).status_code == 404
    assert client.get(url(analysis, ply=2)).status_code == 404
    assert client.post(reverse("analysis:line", args=[analysis.pk]), {"ply": 2}).status_code == 404


def test_ply_steps_through_the_positions(client, analysis, student):
    client.force_login(student)
    page = client.get(url(analysis, ply=3)).content.decode()
    assert 'data-ply="3"' in page and '<h2 id="position-heading">2. 27-24</h2>' in page
    assert re.search(r'data-ply="3" aria-label="2. 27-24 \(blunder\)" aria-current="step"', page)
    for step, ply in (("first", 0), ("prev", 2), ("next", 4), ("last", 6)):
        assert f'href="{url(analysis, ply=ply)}"' in page.replace("&amp;", "&"), step
        assert f'data-step="{step}"' in page
    # the position's evaluation, best line and the move played from it, in words
    assert "Black better by about 2 men." in page
    assert "Best line (depth 9): 2… 2-7" in page
    assert "2… 2-7 was played." in page
    start = client.get(url(analysis, ply=0)).content.decode()
    assert 'data-step="prev"' not in start and "White better by about a man." in start
    assert (
        "1. 21-17 was played: mistake (men lost: 1.0); the engine&#x27;s move was 22-17." in start
    )


def test_htmx_gets_the_report_view_alone(client, analysis, student):
    client.force_login(student)
    part = client.get(url(analysis, ply=2), headers={"HX-Request": "true"}).content.decode()
    assert part.lstrip().startswith('<div id="report-view"') and "<html" not in part


def test_a_bad_ply_is_a_400_with_a_message(client, analysis, student):
    client.force_login(student)
    for bad in ("99", "-1", "x"):
        page = client.get(url(analysis, ply=bad))
        assert page.status_code == 400
        assert "choose a number from 0 to 6" in page.content.decode()


def test_the_engines_line_is_a_job_sent_by_name_and_its_result_shown(
    client, analysis, student, sent_tasks, django_capture_on_commit_callbacks
):
    client.force_login(student)
    line_url = reverse("analysis:line", args=[analysis.pk])
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(line_url, {"ply": 3}, headers={"HX-Request": "true"})
    assert answer.status_code == 202
    job = Job.objects.get(kind=report.LINE_JOB)
    assert sent_tasks == [("analysis.deep_line", (str(job.pk),), "deep")]
    assert job.params["variant"] == "czech" and job.params["ply"] == 3 and job.owner == student
    assert job.params["fen"] == "B:W17,22,24,25,26,28,29,30,31,32:B1,2,3,4,6,9,10,12,13,15"
    assert job.params["nodes"] == report.LINE_NODES > 50_000
    follow = reverse("analysis:line_job", args=[analysis.pk, job.pk])
    assert f'hx-get="{follow}"' in answer.content.decode()
    waiting = client.get(follow, headers={"HX-Request": "true"}).content.decode()
    assert 'data-testid="line-waiting"' in waiting
    assert deep_line(str(job.pk)) == "done"
    shown = client.get(follow, headers={"HX-Request": "true"}).content.decode()
    job.refresh_from_db()
    assert job.status == Job.Status.DONE and job.result["line"]
    assert 'data-testid="line-result"' in shown and job.result["line"][0] in shown
    assert "2… " in shown  # numbered from Black's move 2
    # without a script: the page with the line
    page = client.get(follow)
    assert page.status_code == 302 and page["Location"].endswith(f"ply=3&line={job.pk}")
    assert job.result["line"][0] in client.get(page["Location"]).content.decode()


def test_one_line_at_a_time_per_user_and_a_line_found_is_kept(
    client, analysis, student, sent_tasks, django_capture_on_commit_callbacks
):
    client.force_login(student)
    line_url = reverse("analysis:line", args=[analysis.pk])
    hx = {"HX-Request": "true"}
    with django_capture_on_commit_callbacks(execute=True):
        client.post(line_url, {"ply": 3}, headers=hx)
        again = client.post(line_url, {"ply": 3}, headers=hx)  # the same position: the same job
        other = client.post(line_url, {"ply": 4}, headers=hx)
    assert again.status_code == 202 and Job.objects.count() == 1
    assert (
        other.status_code == 409 and "still searching your last position" in other.content.decode()
    )
    page = client.post(line_url, {"ply": 4})  # without a script: the page says it
    assert page.status_code == 409 and "<html" in page.content.decode()
    assert 'data-testid="line-error"' in page.content.decode()
    first = Job.objects.get()
    deep_line(str(first.pk))
    with django_capture_on_commit_callbacks(execute=True):
        cached = client.post(line_url, {"ply": 3}, headers=hx)
    assert cached.status_code == 202 and 'data-testid="line-result"' in cached.content.decode()
    assert len(sent_tasks) == 1  # answered from the line found, no second search
    assert Job.objects.filter(status=Job.Status.DONE).count() == 2


def test_no_line_for_the_final_position_of_a_won_game_nor_a_bad_ply(client, student):
    row = make_analysis(student, moves=[*MOVES], evaluations=EVALUATIONS)
    client.force_login(student)
    line_url = reverse("analysis:line", args=[row.pk])
    assert client.post(line_url, {"ply": "x"}, headers={"HX-Request": "true"}).status_code == 400
    assert client.post(line_url, {"ply": 99}).status_code == 400
    assert Job.objects.count() == 0


@pytest.mark.parametrize("state", [GameAnalysis.State.QUEUED, GameAnalysis.State.RUNNING])
def test_while_the_analysis_waits_or_runs_the_page_shows_its_progress_and_polls(
    client, student, state
):
    row = make_analysis(student, state=state, progress=40)
    client.force_login(student)
    page = client.get(url(row)).content.decode()
    progress = reverse("analysis:report_progress", args=[row.pk])
    assert 'data-testid="analysis-progress"' in page and f'hx-get="{progress}"' in page
    assert 'data-testid="eval-chart"' not in page and 'data-testid="moves"' in page
    if state == GameAnalysis.State.RUNNING:
        assert "40 % done" in page
    assert client.get(progress)["Location"] == row.get_absolute_url()  # without a script
    polled = client.get(progress, headers={"HX-Request": "true"})
    assert (
        polled.status_code == 200 and 'data-testid="analysis-progress"' in polled.content.decode()
    )
    GameAnalysis.objects.filter(pk=row.pk).update(
        state=GameAnalysis.State.DONE, evaluations=EVALUATIONS, marks=MARKS
    )
    done = client.get(progress, headers={"HX-Request": "true"})
    assert done.status_code == 204 and done["HX-Redirect"] == row.get_absolute_url()
    assert 'data-testid="eval-chart"' in client.get(url(row)).content.decode()


@pytest.mark.parametrize("state", [GameAnalysis.State.FAILED, GameAnalysis.State.LIMITED])
def test_a_failed_or_limited_analysis_says_why(client, student, state):
    row = make_analysis(student, state=state, error="Over your daily limit of 50 games.")
    client.force_login(student)
    page = client.get(url(row)).content.decode()
    assert 'data-testid="analysis-error"' in page and "Over your daily limit of 50 games." in page
    assert 'data-testid="analysis-progress"' not in page


def test_a_teacher_of_the_players_class_sees_the_report(client, analysis, student, teacher):
    classroom = Classroom.objects.create(name="Club", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    Membership.objects.create(classroom=classroom, user=student)
    client.force_login(teacher)
    assert client.get(url(analysis, ply=2)).status_code == 200
    assert client.get(reverse("analysis:report_progress", args=[analysis.pk])).status_code == 302


def test_a_game_whose_stored_moves_go_wrong_is_shown_up_to_the_bad_move(client, student):
    row = make_analysis(student, state=GameAnalysis.State.FAILED, moves=[*MOVES[:2], "1-32"])
    client.force_login(student)
    page = client.get(url(row))
    assert page.status_code == 200 and 'data-ply="2"' in page.content.decode()


def test_a_game_that_black_begins_is_numbered_as_its_record_is(client, student):
    moves = ["8-11", "19-15", "10x19", "26-23", "19x26", "30x23"]
    evaluations = [entry(0, None if i == len(moves) else "x") for i in range(len(moves) + 1)]
    row = make_analysis(
        student, start_fen="B:W19,26,29,30:B3,7,8,10,12", moves=moves, evaluations=evaluations,
        marks=[],
    )  # fmt: skip
    client.force_login(student)
    page = client.get(url(row, ply=1)).content.decode()
    assert '<li><span class="n">1.</span> <span>…</span> <a class="move"' in page
    assert 'aria-label="1… 8-11" aria-current="step"' in page
    assert 'aria-label="2. 19-15"' in page and 'aria-label="2… 10x19"' in page
    assert "Move 1, Black 8-11: About equal" in page
    assert "Move 2, White 19-15: About equal" in page
