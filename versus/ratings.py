"""Glicko-2 for games between players, through the puzzles' pure module (``puzzles.glicko2``:
standard library only, no models); this wrapper is the one place the versus app reaches it.

One game is one rating period for each player: each meets the other's rating before the game.

>>> white, black = game_result(Rating(1500, 350, 0.06), Rating(1500, 350, 0.06), 1.0)
>>> round(white.rating), round(black.rating)
(1662, 1338)
"""

from __future__ import annotations

from puzzles.glicko2 import DEFAULT_DEVIATION, DEFAULT_RATING, DEFAULT_VOLATILITY, Rating, rate

__all__ = ["DEFAULT_DEVIATION", "DEFAULT_RATING", "DEFAULT_VOLATILITY", "Rating", "game_result"]


def game_result(white: Rating, black: Rating, score: float) -> tuple[Rating, Rating]:
    """The new ratings of White and Black after a game White scored ``score`` in (1, ½, 0)."""
    return (
        rate(white, [(black, score)], clamp=True),
        rate(black, [(white, 1 - score)], clamp=True),
    )
