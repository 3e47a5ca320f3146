"""What the analysed games say about the players: the motifs a player misses in their own games
(:class:`~analysis.models.Moment` rows: missed, or walked into), for the player's puzzle dashboard
and for a class's teachers; and the personal puzzles of a class's students, which a teacher may
copy into a set of theirs (``PuzzleSet.add_personal``).

Each function reads the newest :data:`MOMENTS_READ` moments at most, in one query, however many
games were analysed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import QuerySet

from .models import Moment

#: how many of the newest moments the counts read (a player's or a whole class's)
MOMENTS_READ = 2000
#: how many personal puzzles the class's page lists
PUZZLES_LISTED = 100
#: the motif of a moment without one (as the puzzles' dashboard names a puzzle without motifs)
NO_MOTIF = "-"


def motif_names(motifs: Iterable[Any]) -> list[str]:
    """The motifs' names without their counts (``"capture:3"`` is ``"capture"``), sorted.

    >>> motif_names(["sacrifice:2", "capture:3", "shot", "capture:2"])
    ['capture', 'sacrifice', 'shot']
    >>> motif_names([])
    ['-']
    """
    return sorted({str(m).split(":")[0] for m in motifs}) or [NO_MOTIF]


@dataclass
class MotifCount:
    """How often a motif's shot was missed, and walked into, in the games read; by whom."""

    motif: str
    missed: int = 0
    allowed: int = 0
    #: the players it happened to (a class's table names them)
    players: dict[int, Any] = field(default_factory=dict)
    #: puzzles of this motif the player failed (the dashboard's column beside the games')
    failed_in_puzzles: int = 0

    @property
    def total(self) -> int:
        return self.missed + self.allowed

    @property
    def students(self) -> list[Any]:
        return sorted(self.players.values(), key=lambda u: u.get_full_name() or u.username)


def count_motifs(rows: Iterable[tuple[str, list[Any], Any]]) -> list[MotifCount]:
    """Counts by motif from ``(kind, motifs, player)`` rows, the most frequent first."""
    counts: dict[str, MotifCount] = {}
    for kind, motifs, player in rows:
        for name in motif_names(motifs or []):
            count = counts.setdefault(name, MotifCount(name))
            if kind == Moment.Kind.MISSED:
                count.missed += 1
            else:
                count.allowed += 1
            if player is not None:
                count.players[player.pk] = player
    return sorted(counts.values(), key=lambda c: (-c.total, -c.missed, c.motif))


def _moments(users: QuerySet | list[Any], variant: str | None = None) -> QuerySet[Moment]:
    found = Moment.objects.filter(user__in=users)
    if variant:
        found = found.filter(analysis__variant=variant)
    return found.order_by("-pk")


def player_motifs(user: Any, variant: str) -> list[MotifCount]:
    """The motifs ``user`` missed (or walked into) in their analysed games of ``variant``."""
    if not getattr(user, "is_authenticated", False):
        return []
    rows = _moments([user], variant).values_list("kind", "motifs")[:MOMENTS_READ]
    return count_motifs((kind, motifs, None) for kind, motifs in rows)


def beside_puzzles(games: list[MotifCount], by_motif: Iterable[Any]) -> list[MotifCount]:
    """The games' counts with the puzzles' failures of each motif beside them (``by_motif``: the
    puzzle dashboard's ``(motif, [solved, failed])`` rows)."""
    failed = {name: cell[1] for name, cell in by_motif or ()}
    for count in games:
        count.failed_in_puzzles = failed.get(count.motif, 0)
    return games


def class_motifs(students: list[Any]) -> list[MotifCount]:
    """The motifs the ``students`` missed (or walked into) in their own games, each with the
    students it happened to (one query)."""
    if not students:
        return []
    by_id = {s.pk: s for s in students}
    rows = _moments(students).values_list("kind", "motifs", "user_id")[:MOMENTS_READ]
    return count_motifs((kind, motifs, by_id.get(user_id)) for kind, motifs, user_id in rows)


def class_puzzles(students: list[Any], motif: str = "") -> list[Moment]:
    """The newest moments of the ``students``' games that became their personal puzzles (with
    the puzzle, the student and the game: one query), of ``motif`` when given."""
    if not students:
        return []
    rows = (
        _moments(students)
        .filter(puzzle__isnull=False, puzzle__owner__isnull=False)
        .select_related("puzzle", "user", "analysis")
        .defer("puzzle__proof", "analysis__evaluations", "analysis__marks", "analysis__moves")
    )[: PUZZLES_LISTED if not motif else MOMENTS_READ]
    found = [m for m in rows if not motif or motif in motif_names(m.motifs)]
    return found[:PUZZLES_LISTED]
