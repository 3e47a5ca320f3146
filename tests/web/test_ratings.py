"""Glicko-2 (Glickman's worked example), and how the trainer rates players and puzzles."""

from __future__ import annotations

import pytest

from puzzles import glicko2
from puzzles.glicko2 import Rating, rate, rate_pair


def test_glickmans_worked_example():
    player = Rating(1500, 200, 0.06)
    results = [(Rating(1400, 30), 1), (Rating(1550, 100), 0), (Rating(1700, 300), 0)]
    after = rate(player, results)
    assert after.rating == pytest.approx(1464.06, abs=0.02)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_glicko2_scale_conversion_of_the_example():
    assert Rating(1500, 200).mu == 0
    assert Rating(1500, 200).phi == pytest.approx(1.1513, abs=0.0001)
    assert Rating(1400, 30).mu == pytest.approx(-0.5756, abs=0.0001)


def test_a_period_without_games_only_widens_the_deviation():
    after = rate(Rating(1500, 200, 0.06), [])
    assert after.rating == 1500
    assert after.deviation == pytest.approx(200.27, abs=0.01)


def test_winning_raises_and_losing_lowers_and_the_puzzle_moves_the_other_way():
    player, puzzle = Rating(1500, 100), Rating(1500, 100)
    won_player, won_puzzle = rate_pair(player, puzzle, 1.0)
    lost_player, lost_puzzle = rate_pair(player, puzzle, 0.0)
    assert won_player.rating > 1500 > lost_player.rating
    assert won_puzzle.rating < 1500 < lost_puzzle.rating
    half, _ = rate_pair(player, puzzle, 0.5)
    assert half.rating == pytest.approx(1500, abs=0.5)


def test_expected_score_and_clamped_deviation():
    assert glicko2.expected_score(Rating(1700, 50), Rating(1500, 50)) > 0.7
    new, _ = rate_pair(Rating(1500, 46), Rating(1500, 46), 1.0)
    assert new.deviation >= glicko2.MIN_DEVIATION


def test_time_away_widens_the_deviation_once_per_rating_period():
    assert glicko2.idle(Rating(1500, 50), 0) == Rating(1500, 50)
    ten = glicko2.idle(Rating(1620, 50, 0.06), 10)
    assert ten.rating == 1620 and ten.volatility == 0.06
    # step 6 ten times: phi'^2 = phi^2 + 10 sigma^2 (Glicko-2 scale)
    assert ten.phi**2 == pytest.approx(Rating(0, 50).phi ** 2 + 10 * 0.06**2)
    assert (
        glicko2.idle(Rating(1500, 45), 52).deviation > glicko2.idle(Rating(1500, 45), 4).deviation
    )
    assert glicko2.idle(Rating(1500, 300), 10_000).deviation == glicko2.MAX_DEVIATION


@pytest.mark.django_db
def test_a_player_back_after_a_year_is_rated_from_a_wider_deviation(django_user_model):
    from datetime import timedelta

    from django.utils import timezone

    from puzzles.models import Attempt, PlayerRating
    from tests.puzzle_fixtures import make_puzzle

    puzzle = make_puzzle("czech_gain")
    changes = {}
    for name, away in (("fresh", timedelta(0)), ("back", timedelta(days=365))):
        user = django_user_model.objects.create_user(name)
        row = PlayerRating.objects.create(
            user=user, variant="czech", rating=1500, deviation=50, games=200
        )
        PlayerRating.objects.filter(pk=row.pk).update(updated=timezone.now() - away)
        row.refresh_from_db()
        shown = row.deviation_now
        assert (shown == pytest.approx(50, abs=0.01)) if name == "fresh" else shown > 80
        attempt = Attempt.objects.create(user=user, puzzle=puzzle, solved=True)
        changes[name] = attempt.rate_once(1.0)
    # the same win moves the rating further after the time away
    assert changes["back"] > 1.5 * changes["fresh"] > 0
