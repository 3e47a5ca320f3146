"""The daily puzzle: the same for everyone on a date, deterministic, no repeat within a year, the
streak of consecutive days, the archive, and the periodic job."""

from __future__ import annotations

import re
from datetime import date, timedelta
from unittest import mock

import pytest
from django.utils import timezone

from dama_learn.celery import app as celery_app
from puzzles import daily, engine
from puzzles.models import Attempt, DailyPuzzle, Puzzle, PuzzleVote
from tests.conftest import PASSWORD
from tests.puzzle_fixtures import make_puzzle

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def pool():
    """Five proven Czech capture puzzles (and one international one)."""
    fens = ["W:W22:B18", "W:W21:B17", "W:W30:B26", "W:W23:B19", "W:W27:B23"]
    made = [make_puzzle("czech_capture", fen=f, motifs=["capture:1"]) for f in fens]
    make_puzzle("international_capture")
    return made


def solve_today(client, variant="czech"):
    html = client.get(f"/daily/{variant}/").content.decode()
    attempt = int(re.search(r'data-attempt="(\d+)"', html).group(1))
    row = Attempt.objects.get(pk=attempt)
    route = row.puzzle.proof["solution"][0]
    return client.post(f"/puzzles/attempt/{attempt}/move", {"move": route}, **HX)


def test_daily_page_shows_the_same_puzzle_to_everyone(client, django_user_model, pool):
    first = client.get("/daily/czech/").content.decode()
    other = type(client)()
    second = other.get("/daily/czech/").content.decode()
    pick = re.compile(r'data-fen="([^"]+)"')
    assert pick.search(first).group(1) == pick.search(second).group(1)
    assert DailyPuzzle.objects.filter(variant="czech").count() == 1
    assert "Daily puzzle: Czech draughts" in first
    assert 'data-testid="streak"' in first


def test_choice_is_deterministic_for_a_date(pool):
    day = date(2030, 5, 17)
    assert daily.choose("czech", day) == daily.choose("czech", day)
    picks = {daily.choose("czech", day + timedelta(days=n)).pk for n in range(10)}
    assert len(picks) > 1  # not the same puzzle every day


def test_no_puzzle_repeats_within_a_year(pool):
    start = date(2031, 1, 1)
    used = [daily.daily_puzzle("czech", start + timedelta(days=n)).puzzle_id for n in range(5)]
    assert len(set(used)) == 5  # five puzzles, five days, no repeat
    # the pool ran out: the one used longest ago comes back
    sixth = daily.daily_puzzle("czech", start + timedelta(days=5)).puzzle_id
    assert sixth == used[0]
    # a puzzle used a year and more ago is available again
    late = daily.choose("czech", start + timedelta(days=400))
    assert late is not None


def test_a_puzzle_used_in_the_past_year_is_never_chosen(pool):
    day = date(2032, 6, 1)
    for n, puzzle in enumerate(pool[:4]):
        DailyPuzzle.objects.create(
            variant="czech", date=day - timedelta(days=300 + n), puzzle=puzzle
        )
    assert daily.choose("czech", day) == pool[4]


def test_periodic_job_picks_today_and_tomorrow_and_is_in_the_beat_schedule(pool):
    assert "puzzles.pick_daily_puzzles" in {
        entry["task"] for entry in celery_app.conf.beat_schedule.values()
    }
    done = daily.pick_daily_puzzles.apply().get()
    today = timezone.localdate()
    assert done[f"czech:{today.isoformat()}"] is not None
    assert DailyPuzzle.objects.filter(variant="czech", date=today + timedelta(days=1)).exists()
    assert done[f"brazilian:{today.isoformat()}"] is None  # no Brazilian puzzle yet
    daily.pick_daily_puzzles.apply().get()  # idempotent
    assert DailyPuzzle.objects.filter(variant="czech").count() == 2


def test_daily_without_puzzles_says_so(client):
    response = client.get("/daily/brazilian/")
    assert response.status_code == 200
    assert 'data-testid="daily-empty"' in response.content.decode()


def test_solving_today_starts_a_streak(client, student, pool):
    client.login(username=student.username, password=PASSWORD)
    html = solve_today(client).content.decode()
    assert "Solved!" in html
    assert "Streak: 1 day" in html
    assert "today&#x27;s puzzle solved" in html or "today's puzzle solved" in html


def test_an_illegal_move_on_the_daily_puzzle_is_refused_and_the_solve_shows_a_signed_gain(
    client, student, pool
):
    client.login(username=student.username, password=PASSWORD)
    html = client.get("/daily/czech/").content.decode()
    attempt = int(re.search(r'data-attempt="(\d+)"', html).group(1))
    # 1-2 is never along a diagonal
    response = client.post(f"/puzzles/attempt/{attempt}/move", {"move": "1-2"}, **HX)
    assert response.status_code == 400 and "That move is not allowed." in response.content.decode()
    row = Attempt.objects.get(pk=attempt)
    assert not row.failed and not row.rated and row.moves == []
    html = solve_today(client).content.decode()
    assert "Solved!" in html and "Streak: 1 day" in html
    assert re.search(r'data-testid="rating-change">Rating \+\d+<', html)


def test_streak_counts_consecutive_days_solved_on_the_day(client, student, pool):
    client.login(username=student.username, password=PASSWORD)
    today = daily.today()
    for n in (1, 2, 3, 5):
        day = today - timedelta(days=n)
        row = daily.daily_puzzle("czech", day)
        at = timezone.make_aware(timezone.datetime.combine(day, timezone.datetime.min.time()))
        Attempt.objects.create(
            user=student,
            puzzle=row.puzzle,
            source="daily",
            daily_date=day,
            solved=True,
            finished_at=at + timedelta(hours=12),
        )
    # solved a day late: does not count
    late = today - timedelta(days=4)
    Attempt.objects.create(
        user=student,
        puzzle=daily.daily_puzzle("czech", late).puzzle,
        source="daily",
        daily_date=late,
        solved=True,
        finished_at=timezone.now(),
    )
    html = client.get("/daily/czech/").content.decode()
    assert "Streak: 3 days" in html  # yesterday's run still stands before today is solved
    assert "best 3" in html
    html = solve_today(client).content.decode()
    assert "Streak: 4 days" in html and "best 4" in html


def test_visitor_streak_moves_to_the_account(client, student, pool):
    solve_today(client)
    client.post("/accounts/login/", {"username": student.username, "password": PASSWORD})
    assert "Streak: 1 day" in client.get("/daily/czech/").content.decode()


def test_archive_lists_past_daily_puzzles_and_opens_them(client, pool):
    today = daily.today()
    past = today - timedelta(days=2)
    daily.daily_puzzle("czech", past)
    daily.daily_puzzle("czech", today)
    html = client.get("/daily/czech/archive/").content.decode()
    assert f'data-date="{past.isoformat()}"' in html
    assert f'data-date="{today.isoformat()}"' not in html
    response = client.get(f"/daily/czech/{past.isoformat()}/")
    assert response.status_code == 200
    assert "does not count for the streak" in response.content.decode()
    assert client.get(f"/daily/czech/{(today + timedelta(days=1)).isoformat()}/").status_code == 404
    assert client.get("/daily/czech/2001-01-01/").status_code == 404
    assert client.get("/daily/czech/yesterday/").status_code == 404
    assert client.get(f"/daily/czech/{today.isoformat()}/").status_code == 302


def test_solving_an_archived_puzzle_does_not_count_for_the_streak(client, pool):
    past = daily.today() - timedelta(days=1)
    daily.daily_puzzle("czech", past)
    html = client.get(f"/daily/czech/{past.isoformat()}/").content.decode()
    attempt = int(re.search(r'data-attempt="(\d+)"', html).group(1))
    route = Attempt.objects.get(pk=attempt).puzzle.proof["solution"][0]
    html = client.post(f"/puzzles/attempt/{attempt}/move", {"move": route}, **HX).content.decode()
    assert "Solved!" in html and "Streak: 0 days" in html


# -- today's puzzle is played only as the daily puzzle (issue 22) ----------------------------------


def test_todays_puzzle_is_not_playable_under_its_plain_address(client, pool):
    row = daily.daily_puzzle("czech")
    response = client.get(f"/puzzles/czech/{row.puzzle_id}/")
    assert response.status_code == 302 and response["Location"] == "/daily/czech/"
    assert not Attempt.objects.exclude(source=Attempt.Source.DAILY).exists()
    # nor with another context's parameters, nor by posting to an attempt made there
    assert client.get(f"/puzzles/czech/{row.puzzle_id}/?replay=1").status_code == 302
    # an earlier day's puzzle is an ordinary puzzle again
    row.date = daily.today() - timedelta(days=1)
    row.save()  # as any change of a daily puzzle, it drops what the processes keep
    assert client.get(f"/puzzles/czech/{row.puzzle_id}/").status_code == 200


def test_the_stream_does_not_serve_todays_puzzle_while_others_remain(client, pool):
    row = daily.daily_puzzle("czech")
    for _ in range(12):
        location = client.get("/puzzles/czech/")["Location"]
        assert f"/puzzles/czech/{row.puzzle_id}/" not in location


def test_the_stream_left_with_only_todays_puzzle_leads_to_the_daily_page():
    """A pool of one puzzle, today's daily puzzle: the stream sends the player to the daily
    page itself, not to the puzzle's address (which would only send them on)."""
    from django.test import Client

    make_puzzle("czech_capture")
    row = daily.daily_puzzle("czech")
    assert row is not None
    response = Client().get("/puzzles/czech/")
    assert response.status_code == 302 and response["Location"] == "/daily/czech/"


def test_the_puzzle_page_reads_the_daily_and_exam_facts_with_its_puzzle(client, pool):
    # one query for the puzzle and today's daily flag (whether the exams keep it is a column of
    # the row itself), not two
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    puzzle = pool[0]
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(f"/puzzles/czech/{puzzle.pk}/").status_code == 200
    reading = [q["sql"] for q in ctx.captured_queries if '"puzzles_dailypuzzle"' in q["sql"]]
    assert reading and all('FROM "puzzles_puzzle"' in sql for sql in reading)
    assert any('"for_exams"' in sql for sql in reading)
    # and a kept puzzle's flag lives no longer than its day
    row = daily.daily_puzzle("czech", daily.today() + timedelta(days=1))
    assert client.get(f"/puzzles/czech/{row.puzzle_id}/").status_code == 200
    tomorrow = daily.today() + timedelta(days=1)
    with mock.patch("django.utils.timezone.localdate", return_value=tomorrow):
        response = client.get(f"/puzzles/czech/{row.puzzle_id}/")
    assert response.status_code == 302 and response["Location"] == "/daily/czech/"


# -- chosen from the best rated: the quality estimate, then players' votes (issue 17) -------------


def test_the_daily_puzzle_is_chosen_among_the_best_rated(pool, monkeypatch):
    monkeypatch.setattr(daily, "DAILY_POOL", 2)
    best = {pool[1].pk, pool[3].pk}
    Puzzle.objects.filter(pk__in=best).update(quality=60)
    start = date(2033, 3, 1)
    picks = [daily.daily_puzzle("czech", start + timedelta(days=n)).puzzle_id for n in range(6)]
    assert set(picks) == best  # only the two best, and both (no repeat while another is there)
    assert set(picks[:2]) == best


def test_likes_lift_a_puzzle_and_dislikes_drop_it(pool, django_user_model):
    users = [django_user_model.objects.create_user(f"voter{n}") for n in range(4)]
    liked, disliked = pool[4], pool[0]
    Puzzle.objects.filter(pk=disliked.pk).update(quality=10)
    assert daily.best_rated("czech").first() == disliked  # the estimate alone
    for user in users:
        liked.vote(user, True)
        disliked.vote(user, False)
    order = list(daily.best_rated("czech").values_list("pk", flat=True))
    assert order[0] == liked.pk and order[-1] == disliked.pk
    liked.refresh_from_db()
    assert (liked.likes, liked.dislikes) == (4, 0)


def test_a_puzzle_is_rated_by_its_motifs_when_saved():
    plain = make_puzzle("czech_capture", motifs=["capture:1"])
    assert plain.quality == 0
    plain.goal, plain.horizon = "gain:1", 3
    plain.motifs = ["sacrifice:1", "capture:2", "shot", "coup_de_dame"]
    plain.save()
    plain.refresh_from_db()
    assert plain.quality == engine.quality("gain:1", 3, plain.motifs) > 50


def test_an_account_votes_once_on_a_finished_puzzle_and_may_change_its_mind(client, student, pool):
    client.login(username=student.username, password=PASSWORD)
    html = client.get("/daily/czech/").content.decode()
    attempt = int(re.search(r'data-attempt="(\d+)"', html).group(1))
    url = f"/puzzles/attempt/{attempt}/vote"
    assert 'data-testid="vote"' not in html  # not before the puzzle is finished
    too_soon = client.post(url, {"liked": "1"}, **HX)
    assert too_soon.status_code == 400 and "Finish the puzzle" in too_soon.content.decode()
    solved = solve_today(client).content.decode()
    assert 'data-testid="vote"' in solved and "Did you like this puzzle?" in solved
    puzzle = Attempt.objects.get(pk=attempt).puzzle
    response = client.post(url, {"liked": "1"}, **HX)
    assert response.status_code == 200 and 'aria-pressed="true" data-testid="vote-up"' in (
        response.content.decode()
    )
    client.post(url, {"liked": "1"}, **HX)  # the same vote again changes nothing
    puzzle.refresh_from_db()
    assert (puzzle.likes, puzzle.dislikes) == (1, 0)
    client.post(url, {"liked": "0"}, **HX)
    puzzle.refresh_from_db()
    assert (puzzle.likes, puzzle.dislikes) == (0, 1)
    assert PuzzleVote.objects.filter(puzzle=puzzle).count() == 1
    # without JavaScript: back to the puzzle
    assert client.post(url, {"liked": "1"}).status_code == 302
    for bad in ({"liked": "yes"}, {}, {"liked": "²"}):
        response = client.post(url, bad, **HX)
        assert response.status_code == 400 and "Say 1" in response.content.decode()


def test_a_visitor_or_another_account_cannot_vote(client, student, teacher, pool):
    html = client.get("/daily/czech/").content.decode()
    attempt = int(re.search(r'data-attempt="(\d+)"', html).group(1))
    solved = solve_today(client).content.decode()
    assert 'data-testid="vote"' not in solved  # a visitor is not asked
    url = f"/puzzles/attempt/{attempt}/vote"
    assert client.post(url, {"liked": "1"}, **HX).status_code == 403
    other = type(client)()
    other.login(username=teacher.username, password=PASSWORD)
    assert other.post(url, {"liked": "1"}, **HX).status_code == 404  # not its attempt
    assert not PuzzleVote.objects.exists()
