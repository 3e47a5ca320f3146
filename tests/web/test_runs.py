"""Puzzle streak and storm (the ``runs`` app): the run rules (combo bonus, time penalty, the end
of a streak, its one skip), the server's clock with a fake clock, no repeats, personal bests and a
visitor's hand-over, the high-score tables (the site's and a class's), review cards for misses,
two tabs, and bad input refused with a 400."""

from __future__ import annotations

import random
import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from classroom.models import Classroom, Membership
from puzzles.models import Attempt
from puzzles.player import Player
from puzzles.trainer import Outcome
from review.models import Card
from runs import rules
from runs.models import Kind, Run, Stale
from tests.conftest import PASSWORD
from tests.puzzle_fixtures import make_puzzle

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


def turned(fen: str) -> str:
    """The same position turned half round with the colours swapped (the same shot for the other
    side): another puzzle of the corpus."""
    side, white, black = fen.split(":")

    def squares(part: str) -> str:
        return ",".join(str(33 - int(sq)) for sq in part[1:].split(","))

    return f"{'B' if side == 'W' else 'W'}:W{squares(black)}:B{squares(white)}"


def mirror_move(text: str) -> str:
    sep = "x" if "x" in text else "-"
    return sep.join(str(33 - int(sq)) for sq in text.split(sep))


#: each puzzle's solution, typed, by the puzzle's name
SOLUTIONS = {"gain": ["22-17", "25x11"], "capture": ["28x3"]}


@pytest.fixture
def czech():
    """Four Czech puzzles of the corpus (two shots, each also turned half round), easiest first,
    with the moves that solve each."""
    made = []
    for name, fixture, level in (
        ("capture", "czech_capture", 1100),
        ("gain", "czech_gain", 1500),
    ):
        made.append((make_puzzle(fixture, difficulty=level), SOLUTIONS[name]))
        base = make_puzzle.__globals__["PUZZLES"][fixture]
        made.append(
            (
                make_puzzle(fixture, fen=turned(base["fen"]), difficulty=level + 100),
                [mirror_move(m) for m in SOLUTIONS[name]],
            )
        )
    return made


def player_of(user=None) -> Player:
    from django.contrib.sessions.backends.db import SessionStore

    return Player(user, SessionStore())


def solve(run: Run, player: Player, moves: list[str], now) -> list:
    answers = []
    for text in moves:
        answers.append(run.answer(player, at=run.index, text=text, now=now))
    return answers


def solutions_of(czech) -> dict[int, list[str]]:
    return {puzzle.pk: moves for puzzle, moves in czech}


# -- the rules, as data --------------------------------------------------------------------------


def test_the_combo_bonus_follows_the_named_schedule():
    assert rules.COMBO_BONUS == ((5, 3), (12, 5), (20, 7), (30, 10))
    assert {n: rules.combo_bonus(n) for n in (5, 12, 20, 30, 40, 50)} == {
        5: 3,
        12: 5,
        20: 7,
        30: 10,
        40: 10,
        50: 10,
    }
    assert [n for n in range(1, 60) if rules.combo_bonus(n)] == [5, 12, 20, 30, 40, 50]


def test_a_run_rises_in_difficulty_and_never_repeats_a_puzzle():
    rows = [(pk, random.Random(pk).randint(600, 2400)) for pk in range(1, 3001)]
    picked = rules.rising(rows, 150, random.Random(7))
    rating = dict(rows)
    assert len(picked) == len(set(picked)) == 150
    assert [rating[pk] for pk in picked] == sorted(rating[pk] for pk in picked)


def test_a_new_run_takes_every_puzzle_of_the_pool_once_easiest_first(czech):
    run = Run.start(player_of(), Kind.STORM, "czech", now=timezone.now())
    by_level = sorted(czech, key=lambda pair: pair[0].difficulty)
    assert run.puzzles == [puzzle.pk for puzzle, _moves in by_level]
    assert run.attempt.source == Attempt.Source.RUN and not run.attempt.first


# -- the storm ------------------------------------------------------------------------------------


def test_storm_combo_of_five_adds_three_seconds_and_a_wrong_move_costs_ten(czech):
    now = timezone.now()
    player = player_of()
    run = Run.start(player, Kind.STORM, "czech", now=now)
    assert run.deadline == now + timedelta(seconds=180)
    moves = solutions_of(czech)
    answers = []
    for _puzzle in range(3):  # capture, capture turned, gain: 1 + 1 + 2 accepted moves
        answers += solve(run, player, moves[run.puzzles[run.index]], now)
    assert run.score == 3 and run.combo == 4
    assert all(a.bonus == 0 for a in answers)
    first = moves[run.puzzles[run.index]][0]
    fifth = run.answer(player, at=run.index, text=first, now=now)
    assert fifth.result.kind == Outcome.RIGHT and fifth.combo == 5 and fifth.bonus == 3
    assert run.deadline == now + timedelta(seconds=183)
    last = run.answer(player, at=run.index, text=moves[run.puzzles[3]][1], now=now)
    assert last.combo == 6 and last.bonus == 0 and run.score == 4
    assert run.is_finished and last.finished  # every puzzle of the pool solved


def test_storm_wrong_move_costs_ten_seconds_breaks_the_combo_and_goes_on(czech):
    now = timezone.now()
    player = player_of()
    (capture, capture_moves), _turned, (gain, _gain_moves), _other = czech
    run = Run.start(
        player, Kind.STORM, "czech", now=now, puzzles=[capture.pk, gain.pk, _turned[0].pk]
    )
    solve(run, player, capture_moves, now)
    assert run.combo == 1
    wrong = run.answer(player, at=1, text="21-17", now=now)
    assert wrong.result.kind == Outcome.WRONG and wrong.penalty == 10 and wrong.advanced
    assert run.deadline == now + timedelta(seconds=170)
    assert (run.combo, run.best_combo, run.mistakes, run.index) == (0, 1, 1, 2)
    assert run.missed == [gain.pk] and not run.is_finished and run.score == 1


def test_a_wrong_move_that_empties_the_storm_clock_ends_the_storm(czech):
    now = timezone.now()
    player = player_of()
    (_capture, _c), _turned, (gain, _g), _other = czech
    run = Run.start(player, Kind.STORM, "czech", now=now, puzzles=[gain.pk, _capture.pk])
    wrong = run.answer(player, at=0, text="21-17", now=now + timedelta(seconds=175))
    assert wrong.finished and run.is_finished
    assert run.finished_at == now + timedelta(seconds=170)


def test_the_storm_clock_is_the_servers_a_reload_keeps_it_and_a_late_move_is_refused(
    client, czech, monkeypatch
):
    start = timezone.now()
    clock = {"now": start}
    monkeypatch.setattr("runs.views._now", lambda: clock["now"])
    client.post(reverse("runs:start", args=["czech", "storm"]))
    run = Run.objects.get()
    assert run.started_at == start and run.deadline == start + timedelta(seconds=180)
    clock["now"] = start + timedelta(seconds=100)
    for _reload in range(2):  # a reload does not reset the clock
        html = client.get(reverse("runs:run", args=[run.pk])).content.decode()
        assert 'data-remaining-ms="80000"' in html
    moves = solutions_of(czech)[run.puzzles[0]]
    clock["now"] = start + timedelta(seconds=180)
    late = client.post(reverse("runs:move", args=[run.pk]), {"at": 0, "move": moves[0]}, **HX)
    assert late.status_code == 400 and "Time is up" in late.content.decode()
    run.refresh_from_db()
    assert run.is_finished and run.score == 0
    assert run.finished_at == start + timedelta(seconds=180)


def test_a_move_is_judged_by_its_receipt_time_not_by_when_the_answer_arrives(czech):
    start = timezone.now()
    player = player_of()
    run = Run.start(player, Kind.STORM, "czech", now=start)
    moves = solutions_of(czech)[run.puzzles[0]]
    just_in = run.answer(player, at=0, text=moves[0], now=start + timedelta(seconds=179.9))
    assert just_in.result.kind == Outcome.SOLVED and run.score == 1 and not run.is_finished


def test_a_storm_page_after_the_deadline_shows_the_result(client, czech, monkeypatch):
    start = timezone.now()
    monkeypatch.setattr("runs.views._now", lambda: start)
    client.post(reverse("runs:start", args=["czech", "storm"]))
    run = Run.objects.get()
    monkeypatch.setattr("runs.views._now", lambda: start + timedelta(seconds=181))
    html = client.get(reverse("runs:run", args=[run.pk])).content.decode()
    assert 'data-testid="run-over"' in html
    assert Run.objects.get(pk=run.pk).finished_at == start + timedelta(seconds=180)


# -- the streak -----------------------------------------------------------------------------------


def test_a_streak_ends_at_the_first_wrong_move(czech):
    player = player_of()
    run = Run.start(player, Kind.STREAK, "czech")
    assert run.deadline is None
    moves = solutions_of(czech)
    solve(run, player, moves[run.puzzles[0]], timezone.now())
    solve(run, player, moves[run.puzzles[1]], timezone.now())
    assert run.score == 2 and not run.is_finished
    wrong = run.answer(player, at=2, text="21-17")
    assert wrong.result.kind == Outcome.WRONG and wrong.finished
    assert run.is_finished and run.score == 2 and run.missed == [run.puzzles[2]]


def test_a_streak_has_one_skip_and_the_skipped_puzzle_is_shown_to_replay(client, czech):
    client.get("/")
    player = Player(None, client.session)
    run = Run.start(player, Kind.STREAK, "czech")
    assert run.skip(player, at=0) is True
    assert run.index == 1 and run.skipped == run.puzzles[0] and run.score == 0
    assert run.skip(player, at=1) is False
    assert run.index == 1
    run.finish()
    assert [p.pk for p in run.missed_puzzles()] == [run.puzzles[0]]


def test_an_illegal_or_unreadable_move_changes_nothing_in_a_run(czech):
    player = player_of()
    run = Run.start(player, Kind.STREAK, "czech")
    for text in ("hello", "1-5", "22-"):
        answer = run.answer(player, at=0, text=text)
        assert answer.status == 400
    run.refresh_from_db()
    assert (run.index, run.score, run.mistakes, run.is_finished) == (0, 0, 0, False)


def test_two_tabs_cannot_score_one_puzzle_twice(czech):
    player = player_of()
    run = Run.start(player, Kind.STREAK, "czech")
    other_tab = Run.objects.get(pk=run.pk)
    moves = solutions_of(czech)[run.puzzles[0]]
    assert run.answer(player, at=0, text=moves[0]).result.kind == Outcome.SOLVED
    with pytest.raises(Stale):
        other_tab.answer(player, at=0, text=moves[0])
    assert Run.objects.get(pk=run.pk).score == 1


def test_no_puzzle_comes_twice_in_a_run(czech):
    player = player_of()
    run = Run.start(player, Kind.STREAK, "czech")
    moves = solutions_of(czech)
    seen = []
    while not run.is_finished:
        seen.append(run.attempt.puzzle_id)
        solve(run, player, moves[run.attempt.puzzle_id], timezone.now())
    assert len(seen) == len(set(seen)) == 4 and run.score == 4


# -- review cards -----------------------------------------------------------------------------------


def test_a_miss_in_a_run_becomes_a_review_card(student, czech):
    player = player_of(student)
    gain = czech[2][0]
    run = Run.start(player, Kind.STORM, "czech", puzzles=[gain.pk, czech[0][0].pk])
    missed = run.puzzles[0]
    assert run.answer(player, at=0, text="21-17").result.kind == Outcome.WRONG
    card = Card.objects.get(user=student, puzzle_id=missed)
    assert card.origin == Card.Origin.FAILED


def test_a_very_slow_solve_in_a_run_becomes_a_review_card(student, czech):
    player = player_of(student)
    run = Run.start(player, Kind.STREAK, "czech")
    Attempt.objects.filter(pk=run.attempt_id).update(
        started_at=timezone.now() - timedelta(minutes=10)
    )
    solve(run, player, solutions_of(czech)[run.puzzles[0]], timezone.now())
    assert run.score == 1
    card = Card.objects.get(user=student, puzzle_id=run.puzzles[0])
    assert card.origin == Card.Origin.SLOW


def test_a_runs_attempt_is_not_rated_and_not_playable_on_the_trainer(client, student, czech):
    client.force_login(student)
    run = Run.start(Player(student, client.session), Kind.STREAK, "czech")
    solve(run, Player(student, client.session), solutions_of(czech)[run.puzzles[0]], timezone.now())
    assert not Attempt.objects.filter(user=student, rated=True).exists()
    response = client.post(f"/puzzles/attempt/{run.attempt_id}/solution", **HX)
    assert response.status_code == 404


# -- bests and tables ------------------------------------------------------------------------------


def finished_run(user, kind, score, when, variant="czech", visitor=""):
    return Run.objects.create(
        kind=kind,
        variant=variant,
        user=user,
        visitor=visitor,
        started_at=when - timedelta(minutes=3),
        finished_at=when,
        score=score,
        puzzles=[],
    )


def test_personal_bests_today_this_week_and_all_time(student):
    now = timezone.localtime().replace(hour=12)
    monday = now - timedelta(days=now.weekday())
    finished_run(student, Kind.STORM, 30, now - timedelta(days=40))
    if now.weekday() > 0:
        finished_run(student, Kind.STORM, 20, monday)
    finished_run(student, Kind.STORM, 12, now)
    finished_run(student, Kind.STREAK, 50, now)
    bests = Run.objects.bests(player_of(student), Kind.STORM, "czech", now)
    assert bests == {"today": 12, "week": 20 if now.weekday() > 0 else 12, "ever": 30}


def test_a_visitors_runs_and_bests_go_to_the_account_at_sign_up(client, czech):
    response = client.post(reverse("runs:start", args=["czech", "streak"]))
    run = Run.objects.get()
    assert response.url == reverse("runs:run", args=[run.pk]) and run.user is None
    moves = solutions_of(czech)[run.puzzles[0]]
    for text in moves:
        client.post(reverse("runs:move", args=[run.pk]), {"at": 0, "move": text}, **HX)
    client.post(reverse("runs:finish", args=[run.pk]), {"at": 1}, **HX)
    page = client.get(reverse("runs:index", args=["czech"])).content.decode()
    assert re.search(r'data-testid="bests-streak">.*?<dd>1</dd>', page, re.S)
    response = client.post(
        "/accounts/signup/",
        {
            "username": "newcomer",
            "email": "n@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert response.status_code == 302
    run.refresh_from_db()
    assert run.user is not None and run.user.username == "newcomer"
    # the run's attempts went with the trainer's hand-over, and stay neither first nor rated
    attempts = Attempt.objects.filter(user=run.user, source=Attempt.Source.RUN)
    assert attempts.count() == 2 and not attempts.filter(first=True).exists()
    assert not attempts.filter(rated=True).exists()
    assert Run.objects.bests(player_of(run.user), Kind.STREAK, "czech", timezone.now())["ever"] == 1


def test_the_high_score_table_is_per_variant_and_a_class_table_for_its_class_only(
    client, teacher, student, outsider, django_user_model
):
    now = timezone.now()
    classroom = Classroom.objects.create(name="4.B")
    classroom.teachers.add(teacher)
    Membership.objects.create(classroom=classroom, user=student)
    finished_run(student, Kind.STORM, 14, now)
    finished_run(student, Kind.STORM, 9, now)
    finished_run(outsider, Kind.STORM, 21, now)
    finished_run(outsider, Kind.STORM, 40, now, variant="international")
    table = Run.objects.high_scores(Kind.STORM, "czech")
    assert [(r["user__username"], r["best"]) for r in table] == [
        (outsider.username, 21),
        (student.username, 14),
    ]
    url = reverse("runs:class", args=["czech", classroom.pk])
    for user in (teacher, student):
        client.force_login(user)
        html = client.get(url).content.decode()
        assert re.search(r'data-testid="class-storm">.*14', html, re.S)
        assert outsider.username not in html
    client.force_login(outsider)
    assert client.get(url).status_code == 404
    client.logout()
    assert client.get(url).status_code == 404


# -- the pages ----------------------------------------------------------------------------------------


def test_a_storm_played_on_the_page_shows_score_combo_and_the_missed_puzzles(client, czech):
    response = client.post(reverse("runs:start", args=["czech", "storm"]))
    run = Run.objects.get()
    page = client.get(response.url).content.decode()
    assert 'data-testid="clock"' in page and 'data-remaining-ms="' in page
    assert 'aria-live="polite"' in page
    moves = solutions_of(czech)[run.puzzles[0]]
    html = client.post(
        reverse("runs:move", args=[run.pk]), {"at": 0, "move": moves[0]}, **HX
    ).content.decode()
    assert "Solved!" in html and 'data-testid="score">1<' in html
    # the next puzzle is already in this answer: no request of its own
    assert 'name="at" value="1"' in html
    client.post(reverse("runs:move", args=[run.pk]), {"at": 1, "move": "5x30"}, **HX)
    html = client.post(
        reverse("runs:move", args=[run.pk]), {"at": 2, "move": "21-17"}, **HX
    ).content.decode()
    assert "Not the solution." in html and "10 seconds off the clock." in html
    html = client.post(reverse("runs:finish", args=[run.pk]), {"at": 3}, **HX).content.decode()
    assert 'data-testid="run-over"' in html and "Run over: 2 puzzles solved." in html
    assert reverse("puzzles:solve", args=["czech", run.puzzles[2]]) in html


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"at": "x"},
        {"at": "-1"},
        {"at": "9" * 5000},
        {"at": "0", "move": "hello"},
        {"at": "0", "route": "1,2,3,4,5,6,7,8,9" * 30},
        {"at": "0", "move": "\x00"},
    ],
)
def test_bad_input_to_a_run_is_a_400_with_a_message(client, czech, data):
    client.post(reverse("runs:start", args=["czech", "streak"]))
    run = Run.objects.get()
    response = client.post(reverse("runs:move", args=[run.pk]), data, **HX)
    assert response.status_code == 400 and response.content.strip()
    assert Run.objects.get(pk=run.pk).index == 0


def test_another_players_run_and_unknown_kinds_are_404(client, student, czech):
    run = Run.start(player_of(student), Kind.STREAK, "czech")
    assert client.get(reverse("runs:run", args=[run.pk])).status_code == 404
    assert client.post(reverse("runs:move", args=[run.pk]), {"at": 0}).status_code == 404
    assert client.post("/runs/czech/blitz/start").status_code == 404
    assert client.get("/runs/chess/").status_code == 404


def test_every_variant_has_its_runs(client):
    for variant in ("czech", "international", "brazilian"):
        make_puzzle(f"{variant}_capture")
        response = client.post(reverse("runs:start", args=[variant, "storm"]))
        run = Run.objects.filter(variant=variant).get()
        assert response.url == reverse("runs:run", args=[run.pk])
        page = client.get(response.url).content.decode()
        assert 'data-testid="goal"' in page
