"""Every-defence mastery (docs/trainer.md): a solved puzzle played again, the defender choosing
in turn each defence of the proof's winning line, until all are met; per puzzle and per motif
on the dashboard; safe against two tabs; no 500 on bad input."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from puzzles import engine
from puzzles.models import Attempt, Mastery, Puzzle
from puzzles.trainer import build_judge
from tests.puzzle_fixtures import make_puzzle

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def two():
    return make_puzzle("czech_two_defences")


@pytest.fixture
def three():
    return make_puzzle("czech_three_defences")


@pytest.fixture
def learner(client, student):
    client.force_login(student)
    return client


def solve(client, puzzle: Puzzle) -> None:
    """Solve ``puzzle`` in the trainer, the proof's best move each time."""
    page = client.get(f"/puzzles/{puzzle.variant}/{puzzle.pk}/").content.decode()
    attempt = int(re.search(r'data-attempt="(\d+)"', page).group(1))
    tree = engine.proof_tree(puzzle.proof)
    while not Attempt.objects.get(pk=attempt).solved:
        line = Attempt.objects.get(pk=attempt).line
        best = tree.best_move(line)
        response = client.post(f"/puzzles/attempt/{attempt}/move", {"move": best.text}, **HX)
        assert response.status_code == 200


def mastery_of(client, puzzle: Puzzle) -> Mastery:
    response = client.get(reverse("puzzles:mastery", args=[puzzle.variant, puzzle.pk]))
    assert response.status_code == 200
    return Mastery.objects.get(puzzle=puzzle)


def play(client, mastery: Mastery, text: str, ply: int | None = None, **extra):
    mastery.refresh_from_db()
    data = {"move": text, "ply": str(len(mastery.line) if ply is None else ply)}
    return client.post(reverse("puzzles:mastery_move", args=[mastery.pk]), data, **{**HX, **extra})


def play_round(client, mastery: Mastery) -> list[str]:
    """One round with the proof's best moves: the defender's replies met on the way."""
    tree = engine.proof_tree(mastery.puzzle.proof)
    replies = []
    while True:
        mastery.refresh_from_db()
        best = tree.best_move(mastery.line)
        response = play(client, mastery, best.text)
        assert response.status_code == 200, response.content.decode()[-600:]
        mastery.refresh_from_db()
        if mastery.line:
            replies.append(mastery.line[-1])
        if 'data-testid="round-done"' in response.content.decode():
            return replies


def test_the_judge_lists_every_defence_of_the_winning_line_and_picks_one_not_met(two, three):
    judge = build_judge(two.proof)
    assert judge.defences == ("11-15 9-5", "11-15 9-6")
    assert judge.defence_reply(["11-15"], set()) == "9-5"
    assert judge.defence_reply(["11-15"], {"11-15 9-5"}) == "9-6"
    assert judge.defence_reply(["11-15"], set(judge.defences)) is None
    deep = build_judge(three.proof)
    assert deep.defences == (
        "2x11 13-9",
        "2x11 13-9 11-15 9-5",
        "2x11 13-9 11-15 9-6",
    )
    # a forced reply leads on to the defences still to meet below it
    assert deep.defence_reply(["2x11"], {"2x11 13-9", "2x11 13-9 11-15 9-5"}) == "13-9"
    assert deep.defence_reply(["2x11"], set(deep.defences)) is None


def test_meet_every_defence_is_offered_once_the_puzzle_is_solved(learner, two):
    url = reverse("puzzles:mastery", args=["czech", two.pk])
    page = learner.get(f"/puzzles/czech/{two.pk}/").content.decode()
    assert url not in page
    assert learner.get(url).url == f"/puzzles/czech/{two.pk}/"  # solve it first
    solve(learner, two)
    page = learner.get(f"/puzzles/czech/{two.pk}/").content.decode()
    assert 'data-testid="mastery-link"' in page and url in page
    assert "(the proof holds 2 defences)" in page


def test_a_puzzle_with_one_defence_offers_no_mastery(learner):
    gain = make_puzzle("czech_gain")
    solve(learner, gain)
    assert (
        'data-testid="mastery-link"'
        not in learner.get(f"/puzzles/czech/{gain.pk}/").content.decode()
    )


def test_each_round_meets_a_new_defence_until_all_are_met(learner, two):
    solve(learner, two)
    mastery = mastery_of(learner, two)
    assert (mastery.met_count, mastery.total) == (0, 2)
    assert play_round(learner, mastery) == ["9-5"]  # the defender's first defence in the proof
    mastery.refresh_from_db()
    assert mastery.met == ["11-15 9-5"] and mastery.met_count == 1 and mastery.rounds == 1
    assert mastery.line == [] and mastery.position == two.fen
    assert play_round(learner, mastery) == ["9-6"]  # then the other one
    mastery.refresh_from_db()
    assert mastery.met == ["11-15 9-5", "11-15 9-6"] and mastery.is_mastered
    page = learner.get(reverse("puzzles:mastery", args=["czech", two.pk])).content.decode()
    assert "Defences met: 2 of 2." in page and "Mastered." in page


def test_mastery_goes_through_every_defence_of_a_deeper_proof(learner, three):
    solve(learner, three)
    mastery = mastery_of(learner, three)
    assert play_round(learner, mastery) == ["13-9", "9-5"]
    mastery.refresh_from_db()
    assert (mastery.met_count, mastery.total) == (2, 3)
    response = play(learner, mastery, "2x11")
    assert "defends with 13-9" in response.content.decode()
    assert play_round(learner, mastery) == ["9-6"]  # the round goes on from 2x11 13-9
    mastery.refresh_from_db()
    assert set(mastery.met) == {"2x11 13-9", "2x11 13-9 11-15 9-5", "2x11 13-9 11-15 9-6"}
    assert mastery.is_mastered and mastery.rounds == 2


def test_a_legal_move_that_does_not_win_starts_the_round_again(learner, two):
    solve(learner, two)
    mastery = mastery_of(learner, two)
    tree = engine.proof_tree(two.proof)
    wrong = next(
        m for m in ("19-23", "19-24", "4-8", "11-16", "11-7") if m != tree.best_move([]).text
    )
    response = play(learner, mastery, wrong)
    assert response.status_code == 200 and 'data-testid="wrong"' in response.content.decode()
    mastery.refresh_from_db()
    assert (mastery.line, mastery.met, mastery.rounds) == ([], [], 0)


@pytest.mark.parametrize(
    "data",
    [
        {"move": "11-16x", "ply": "0"},  # not a move
        {"move": "4-7", "ply": "0"},  # not a square a man goes to
        {"move": "19-15", "ply": "0"},  # occupied... or not a legal move here
        {"move": "", "ply": "0"},
        {"move": "x" * 5000, "ply": "0"},
        {"move": "11-15", "ply": ""},
        {"move": "11-15", "ply": "-1"},
        {"move": "11-15", "ply": "١"},
        {"move": "11-15"},
        {"route": "999", "ply": "0"},
    ],
)
def test_bad_input_is_400_and_changes_nothing(learner, two, data):
    solve(learner, two)
    mastery = mastery_of(learner, two)
    response = learner.post(reverse("puzzles:mastery_move", args=[mastery.pk]), data, **HX)
    assert response.status_code == 400
    mastery.refresh_from_db()
    assert (mastery.line, mastery.met, mastery.rounds) == ([], [], 0)


def test_a_second_tab_playing_on_an_old_board_gets_409(learner, three):
    solve(learner, three)
    mastery = mastery_of(learner, three)
    assert play(learner, mastery, "2x11", ply=0).status_code == 200
    response = play(learner, mastery, "2x11", ply=0)  # the other tab still shows the start
    assert response.status_code == 409
    mastery.refresh_from_db()
    assert len(mastery.line) == 2


def test_a_mastery_is_its_accounts_only(learner, two, outsider):
    solve(learner, two)
    mastery = mastery_of(learner, two)
    other = Client()
    response = other.post(reverse("puzzles:mastery_move", args=[mastery.pk]), {"ply": "0"})
    assert response.status_code == 302 and "/accounts/login/" in response.url
    other.force_login(outsider)
    assert play(other, mastery, "11-15").status_code == 404
    assert other.get(reverse("puzzles:mastery", args=["czech", two.pk])).status_code == 302


def test_the_dashboard_shows_mastery_by_motif(learner, two, three):
    for puzzle in (two, three):
        solve(learner, puzzle)
    play_round(learner, mastery_of(learner, two))
    play_round(learner, mastery_of(learner, two))
    play_round(learner, mastery_of(learner, three))
    page = learner.get(reverse("puzzles:dashboard", args=["czech"])).content.decode()
    section = page[page.index('data-testid="mastery-by-motif"') :]
    blockade = re.search(r'data-motif="blockade">(.*?)</tr>', section).group(1)
    capture = re.search(r'data-motif="capture">(.*?)</tr>', section).group(1)
    assert "4 of 5 (80 %)" in blockade and "1 of 2" in blockade
    assert "2 of 3 (67 %)" in capture and "0 of 1" in capture
