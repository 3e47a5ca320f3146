"""Standings and the cross-table of a class tournament, on plain values (no Django).

Points are draughts points, 2-1-0: a win 2, a draw 1, a loss 0; a Swiss bye scores
``bye_points`` (2 unless the tournament says otherwise), a round robin's rest scores nothing
(everyone rests once). Ties are broken in this order, our choice among the tie-breaks that
draughts tournaments use:

* **Swiss**: the *truncated Solkoff* (the sum of the opponents' points without the lowest one;
  the FMJD's Swiss opens, e.g. its World Cup tournaments, rank by it), then the full *Solkoff*
  (Buchholz: the sum of the opponents' points), then the number of wins, then the points among
  the tied players (their games with each other).
* **Round robin**: the points among the tied players first (in a round robin they have all met),
  then *Sonneborn-Berger* (for each game, the points scored times the opponent's points: a win
  counts twice the beaten player's points, a draw once the drawn player's; on the 2-1-0 scale
  this is twice the chess figure, and stays a whole number), then the number of wins.
* **Arena**: the number of wins, then the fewest games (the same points in fewer games).

Players still tied after these share their place (``rank`` is the same), listed by seed.
A bye is no opponent: it adds nothing to Solkoff or Sonneborn-Berger.

>>> from tournaments.pairing import Game
>>> games = [Game(1, 1, 2, "2-0"), Game(1, 3, 4, "1-1"), Game(2, 1, 3, "1-1"), Game(2, 4, 2, "0-2")]
>>> [(row.player, row.points, row.rank) for row in standings([1, 2, 3, 4], games, kind="swiss")]
[(1, 3, 1), (2, 2, 2), (3, 2, 3), (4, 1, 4)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .pairing import POINTS, WIN_POINTS, Game

ROUND_ROBIN, SWISS, ARENA = "round_robin", "swiss", "arena"


@dataclass
class Row:
    """One player's line of the standings."""

    player: int
    seed: int
    points: int = 0
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0
    #: the tie-breaks, named, in the order they were applied
    tie_breaks: dict[str, int] = field(default_factory=dict)
    rank: int = 0
    #: (round, opponent or None for a bye, "w"/"b"/"", points or None while unfinished)
    history: list[tuple[int, int | None, str, int | None]] = field(default_factory=list)


#: the tie-breaks of each kind of tournament, by name, as the table heads show them
TIE_BREAKS = {
    SWISS: ("truncated_solkoff", "solkoff", "wins", "head_to_head"),
    ROUND_ROBIN: ("head_to_head", "sonneborn_berger", "wins"),
    ARENA: ("wins", "fewer_games"),
}


def standings(
    players: Sequence[int],
    games: Sequence[Game],
    *,
    kind: str = SWISS,
    bye_points: int = WIN_POINTS,
) -> list[Row]:
    """The standings of ``players`` (in seeding order) after ``games``, best first."""
    if kind not in TIE_BREAKS:
        raise ValueError(f"no such kind of tournament: {kind!r}")
    rest_points = bye_points if kind == SWISS else 0
    rows = {player: Row(player, seed) for seed, player in enumerate(players, start=1)}
    played: dict[int, list[tuple[int, int]]] = {player: [] for player in rows}  # (opponent, pts)
    for game in sorted(games, key=lambda g: (g.round, g.white)):
        if game.black is None:
            if game.white in rows:
                row = rows[game.white]
                row.byes += 1
                row.points += rest_points
                row.history.append((game.round, None, "", rest_points))
            continue
        points = POINTS.get(game.result or "")
        for me, opponent, colour, index in (
            (game.white, game.black, "w", 0),
            (game.black, game.white, "b", 1),
        ):
            if me not in rows:
                continue
            row = rows[me]
            scored = None if points is None else points[index]
            row.history.append((game.round, opponent, colour, scored))
            if scored is None:
                continue
            row.games += 1
            row.points += scored
            row.wins += scored == 2
            row.draws += scored == 1
            row.losses += scored == 0
            played[me].append((opponent, scored))

    def opponent_points(player: int) -> list[int]:
        return [rows[o].points for o, _pts in played[player] if o in rows]

    for player, row in rows.items():
        seen = opponent_points(player)
        row.tie_breaks = {
            "truncated_solkoff": sum(seen) - min(seen, default=0),
            "solkoff": sum(seen),
            "sonneborn_berger": sum(pts * rows[o].points for o, pts in played[player] if o in rows),
            "wins": row.wins,
            "fewer_games": -row.games,
        }
    # points among the players tied on points (their games with each other)
    by_points: dict[int, set[int]] = {}
    for player, row in rows.items():
        by_points.setdefault(row.points, set()).add(player)
    for player, row in rows.items():
        tied = by_points[row.points]
        row.tie_breaks["head_to_head"] = sum(pts for o, pts in played[player] if o in tied)
    names = TIE_BREAKS[kind]
    row_list = sorted(rows.values(), key=lambda r: _key(r, names))
    for index, row in enumerate(row_list):
        before = row_list[index - 1] if index else None
        same = before is not None and _key(before, names)[:-1] == _key(row, names)[:-1]
        row.rank = before.rank if same and before is not None else index + 1
        row.tie_breaks = {name: row.tie_breaks[name] for name in names}
    return row_list


def _key(row: Row, names: Sequence[str]) -> tuple[int, ...]:
    return (-row.points, *(-row.tie_breaks[name] for name in names), row.seed)


@dataclass
class CrossTable:
    """The cross-table: ``rows`` in standing order; ``cells[i][j]`` is what the player of row
    ``i`` scored against the player of row ``j``: "" when they have not met (or not yet
    finished), "x" on the diagonal, else the points as text (several games joined by spaces).
    ``rounds`` holds, per row, one cell per round for the round-by-round table of a Swiss or an
    arena: (opponent's place or None for a bye, colour, points or None)."""

    rows: list[Row]
    cells: list[list[str]]
    rounds: int

    def round_cells(self, index: int) -> list[tuple[int | None, str, int | None] | None]:
        """Row ``index``'s games by round (None where the player had no game that round)."""
        place = {row.player: number for number, row in enumerate(self.rows, start=1)}
        row = self.rows[index]
        out: list[tuple[int | None, str, int | None] | None] = [None] * self.rounds
        for round_number, opponent, colour, points in row.history:
            if 1 <= round_number <= self.rounds:
                where = None if opponent is None else place.get(opponent)
                out[round_number - 1] = (where, colour, points)
        return out


def cross_table(rows: Sequence[Row]) -> CrossTable:
    """The cross-table of the standings ``rows``.

    >>> from tournaments.pairing import Game
    >>> table = cross_table(standings([1, 2, 3], [Game(1, 2, 3, "2-0"), Game(1, 1)], kind="round_robin"))
    >>> [row.player for row in table.rows], table.cells
    ([2, 1, 3], [['x', '', '2'], ['', 'x', ''], ['0', '', 'x']])
    """
    index = {row.player: i for i, row in enumerate(rows)}
    cells: list[list[list[str]]] = [[[] for _ in rows] for _ in rows]
    rounds = 0
    for i, row in enumerate(rows):
        for round_number, opponent, _colour, points in row.history:
            rounds = max(rounds, round_number)
            if opponent is None or points is None or opponent not in index:
                continue
            cells[i][index[opponent]].append(str(points))
    text = [
        ["x" if i == j else " ".join(cell) for j, cell in enumerate(line)]
        for i, line in enumerate(cells)
    ]
    return CrossTable(list(rows), text, rounds)
