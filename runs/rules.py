"""The rules of a run, as data: the storm's clock, its combo bonuses and its penalty, and how a
run's puzzles are chosen. Pure Python (no rows): :mod:`runs.models` applies them.

The storm follows lichess's Puzzle Storm: three minutes; every accepted move adds one to the
combo, and a combo reaching a level of :data:`COMBO_BONUS` adds its seconds to the clock (past
the last level, every :data:`COMBO_EVERY` more moves add the last bonus again); a wrong move
costs :data:`WRONG_PENALTY` seconds, breaks the combo and goes on to the next puzzle.

    >>> [combo_bonus(n) for n in (1, 4, 5, 6, 12, 20, 30, 31, 40, 50)]
    [0, 0, 3, 0, 5, 7, 10, 0, 10, 10]
    >>> rows = [(pk, 1000 + 10 * pk) for pk in range(1, 101)]
    >>> picked = rising(rows, 10, random.Random(1))
    >>> len(picked), len(set(picked)), picked == sorted(picked)
    (10, 10, True)
    >>> rising(rows[:3], 10, random.Random(1))
    [1, 2, 3]
"""

from __future__ import annotations

import random
from collections.abc import Sequence

#: a storm's time, in seconds
STORM_SECONDS = 180
#: (combo reached, seconds added): lichess's Puzzle Storm schedule
COMBO_BONUS: tuple[tuple[int, int], ...] = ((5, 3), (12, 5), (20, 7), (30, 10))
#: past the last level, every this many more accepted moves add the last level's bonus again
COMBO_EVERY = 10
#: the seconds a wrong move costs in a storm
WRONG_PENALTY = 10
#: how many puzzles a run is given at its start (rising in difficulty; a run that solves them
#: all ends there)
RUN_LENGTH = {"streak": 250, "storm": 150}
#: skips a streak allows
STREAK_SKIPS = 1


def combo_bonus(combo: int) -> int:
    """The seconds a storm's clock gains when the combo reaches ``combo``."""
    for level, seconds in COMBO_BONUS:
        if combo == level:
            return seconds
    last, top = COMBO_BONUS[-1]
    if combo > last and (combo - last) % COMBO_EVERY == 0:
        return top
    return 0


def rising(rows: Sequence[tuple[int, float]], count: int, rng: random.Random) -> list[int]:
    """``count`` distinct puzzle ids of rising difficulty from ``rows`` (id, rating): the rows
    sorted by rating are cut into ``count`` slices of equal size and one puzzle is drawn from
    each, so a run starts easy and gets harder, and no puzzle comes twice."""
    ordered = sorted(rows, key=lambda row: (row[1], row[0]))
    if len(ordered) <= count:
        return [pk for pk, _rating in ordered]
    size = len(ordered)
    return [
        rng.choice(ordered[i * size // count : (i + 1) * size // count])[0] for i in range(count)
    ]
