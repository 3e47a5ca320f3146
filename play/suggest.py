"""The level suggested to a player: from their puzzle rating in the variant (lichess suggests
by rating too). A player without a settled rating (a new account, a visitor) starts at level 1,
the level a child who has just learned the rules can beat."""

from __future__ import annotations

from django.http import HttpRequest

from puzzles.models import PlayerRating
from puzzles.player import Player

#: (the lowest puzzle rating, the level suggested from it), highest first
LEVEL_BY_RATING = ((2100, 8), (1950, 7), (1800, 6), (1650, 5), (1500, 4), (1350, 3), (1200, 2))
#: a rating deviation above this is not settled yet (Glicko-2 starts at 350)
UNSETTLED_RD = 200


def level_for_rating(rating: float, deviation: float) -> int:
    """
    >>> level_for_rating(1500, 350), level_for_rating(1500, 80), level_for_rating(2300, 60)
    (1, 4, 8)
    >>> level_for_rating(1100, 60)
    1
    """
    if deviation > UNSETTLED_RD:
        return 1
    for lowest, level in LEVEL_BY_RATING:
        if rating >= lowest:
            return level
    return 1


def suggested_level(request: HttpRequest, variant: str) -> int:
    rating = PlayerRating.objects.rating_of(Player.of(request), variant)
    return level_for_rating(rating.rating, rating.deviation)
