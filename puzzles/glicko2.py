"""Glicko-2 ratings (Mark Glickman, "Example of the Glicko-2 system", 2013), pure Python.

A rating is a value (:class:`Rating`: rating, deviation, volatility on the Glicko scale); one rating
period is :func:`rate`: the player's rating and the results against opponents in that period give
the new rating. The trainer rates each first attempt at a puzzle as one period in which the player
meets the puzzle (score 1, 0.5 or 0) and the puzzle meets the player (1 - score), as lichess does.

Glickman's worked example: a 1500/200/0.06 player beats a 1400/30 player and loses to 1550/100
and 1700/300 opponents.

>>> r = rate(Rating(1500, 200, 0.06), [(Rating(1400, 30), 1), (Rating(1550, 100), 0), (Rating(1700, 300), 0)])
>>> round(r.rating, 2), round(r.deviation, 2), round(r.volatility, 6)
(1464.05, 151.52, 0.059996)

(the paper prints 1464.06 / 151.52 / 0.05999, computed with rounded intermediate values).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

#: the conversion factor between the Glicko and Glicko-2 scales (173.7178 in the paper)
SCALE = 400 / math.log(10)
#: the system constant tau: how much the volatility may change (0.3 to 1.2; small is cautious)
TAU = 0.5
EPSILON = 0.000001
DEFAULT_RATING = 1500.0
DEFAULT_DEVIATION = 350.0
DEFAULT_VOLATILITY = 0.06
#: bounds that keep a rating sane over thousands of puzzles
MIN_DEVIATION = 45.0
MAX_DEVIATION = 350.0
#: a player's rating period: a week without a rated puzzle widens the deviation once (:func:`idle`)
PERIOD_DAYS = 7.0


@dataclass(frozen=True, slots=True)
class Rating:
    rating: float = DEFAULT_RATING
    deviation: float = DEFAULT_DEVIATION
    volatility: float = DEFAULT_VOLATILITY

    @property
    def mu(self) -> float:
        return (self.rating - DEFAULT_RATING) / SCALE

    @property
    def phi(self) -> float:
        return self.deviation / SCALE


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def expected_score(player: Rating, opponent: Rating) -> float:
    """The player's expected score against ``opponent`` (0..1).

    >>> round(expected_score(Rating(1500, 200), Rating(1400, 30)), 3)
    0.639
    """
    return _e(player.mu, opponent.mu, opponent.phi)


def _new_volatility(sigma: float, phi: float, delta: float, v: float, tau: float) -> float:
    """Step 5 of the paper: the Illinois algorithm on f(x) = 0."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2)


def rate(
    player: Rating,
    results: Iterable[tuple[Rating, float]],
    *,
    tau: float = TAU,
    clamp: bool = False,
) -> Rating:
    """The player's rating after one period with ``results`` (opponent, score 0..1).

    A period without games only widens the deviation (step 6). ``clamp`` keeps the deviation
    between :data:`MIN_DEVIATION` and :data:`MAX_DEVIATION` (the paper's example does not).
    """
    games = list(results)
    mu, phi, sigma = player.mu, player.phi, player.volatility
    if not games:
        phi_star = math.sqrt(phi * phi + sigma * sigma)
        return _finish(Rating(player.rating, phi_star * SCALE, sigma), clamp)
    v_inv = 0.0
    delta_sum = 0.0
    for opponent, score in games:
        g = _g(opponent.phi)
        e = _e(mu, opponent.mu, opponent.phi)
        v_inv += g * g * e * (1 - e)
        delta_sum += g * (score - e)
    v = 1 / v_inv
    delta = v * delta_sum
    sigma_new = _new_volatility(sigma, phi, delta, v, tau)
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)
    mu_new = mu + phi_new * phi_new * delta_sum
    return _finish(Rating(mu_new * SCALE + DEFAULT_RATING, phi_new * SCALE, sigma_new), clamp)


def _finish(r: Rating, clamp: bool) -> Rating:
    if not clamp:
        return r
    return Rating(r.rating, min(MAX_DEVIATION, max(MIN_DEVIATION, r.deviation)), r.volatility)


def idle(player: Rating, periods: float) -> Rating:
    """The rating after ``periods`` rating periods without a game: step 6 of the paper once per
    period (the deviation widens by the volatility, the rating stays), at most
    :data:`MAX_DEVIATION`. A player back after a long break is rated with more uncertainty, so
    the first results move the rating further.

    >>> r = idle(Rating(1500, 50, 0.06), 10)
    >>> round(r.rating), round(r.deviation, 1)
    (1500, 59.9)
    >>> idle(Rating(1500, 300, 0.06), 1000).deviation
    350.0
    """
    if periods <= 0:
        return player
    phi = math.sqrt(player.phi**2 + periods * player.volatility**2)
    return Rating(player.rating, min(MAX_DEVIATION, phi * SCALE), player.volatility)


def rate_pair(player: Rating, puzzle: Rating, score: float) -> tuple[Rating, Rating]:
    """One attempt: the new player and puzzle ratings when the player scored ``score``."""
    return (
        rate(player, [(puzzle, score)], clamp=True),
        rate(puzzle, [(player, 1 - score)], clamp=True),
    )
