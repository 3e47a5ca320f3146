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
