"""Games between two settings of the playing engine: the match harness.

A :class:`Player` is a setting that plays (a level of :data:`dama.search.LEVELS`, or explicit
limits, and optionally another king value); :func:`play_game` plays one game between two of them
from a balanced opening of :data:`OPENINGS` to its end by the variant's rules (or :data:`PLY_CAP`
plies), each side with its own :class:`~dama.search.Memory`; :func:`play_match` plays a match
(each opening twice, colours swapped) and :func:`format_match` prints its score.
``python -m dama match`` runs one; the benchmarks' ladder (``tools/bench.py``) measures the levels
with it, and mining (:func:`dama.mine.engine_game`) starts its games from the same openings.

>>> score = play_match("czech", Player(level=2), Player(level=1), games=2)
>>> score.games, score.wins + score.draws + score.losses
(2, 2)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .baseboard import BaseBoard
from .board import Board
from .evaluate import Evaluator, trained_evaluator
from .search import LEVELS, Memory, SearchResult, best_move, search

#: balanced openings (two plies, numeric routes): no capture, material kept, a depth-7 search of
#: the position after them scores within 0.03 men
OPENINGS: dict[str, tuple[tuple[str, ...], ...]] = {
    "czech": (
        ("22-18", "10-15"),
        ("22-18", "9-13"),
        ("23-19", "10-14"),
        ("24-20", "10-14"),
        ("24-20", "9-13"),
        ("24-19", "11-16"),
        ("21-17", "9-14"),
        ("22-17", "11-15"),
        ("22-17", "12-16"),
        ("21-17", "12-16"),
        ("23-18", "11-16"),
        ("23-19", "11-15"),
    ),
    "brazilian": (
        ("22-18", "11-16"),
        ("23-18", "10-14"),
        ("23-18", "9-13"),
        ("23-19", "9-13"),
        ("24-20", "12-16"),
        ("22-18", "10-14"),
        ("23-18", "12-16"),
        ("23-19", "11-16"),
        ("24-20", "9-13"),
        ("21-17", "9-14"),
        ("22-18", "12-16"),
        ("24-19", "9-14"),
    ),
    "international": (
        ("31-26", "18-23"),
        ("33-29", "16-21"),
        ("33-29", "18-22"),
        ("34-29", "19-24"),
        ("35-30", "17-21"),
        ("35-30", "20-25"),
        ("31-27", "17-21"),
        ("33-28", "17-21"),
        ("33-29", "20-25"),
        ("34-29", "16-21"),
        ("31-26", "19-23"),
        ("34-30", "17-21"),
    ),
}

#: a game still going after this many plies is scored a draw
PLY_CAP = 240
#: the evaluations of the players with another king value (one per variant and value, so that a
#: player's :class:`Memory` goes on with the same evaluation)
_KING_EVALUATORS: dict[tuple[str, int], Evaluator] = {}


@dataclass(frozen=True)
class Player:
    """A setting that plays: a level, or explicit limits, and optionally another king value or
    evaluation (``eval=hand``: the hand-tuned one, ``eval=trained``: the shipped trained weights of
    :mod:`dama.weights`; by default the one the engine plays with).

    >>> Player.parse("level=3")
    Player(level=3, depth=None, seconds=None, nodes=None, king=None, eval=None)
    >>> Player.parse("depth=4,king=250").describe()
    'depth=4,king=250'
    """

    level: int | None = None
    depth: int | None = None
    seconds: float | None = None
    nodes: int | None = None
    king: int | None = None
    eval: str | None = None

    @classmethod
    def parse(cls, text: str) -> Player:
        """Read ``key=value`` pairs separated by commas (level, depth, seconds, nodes, king,
        eval)."""
        fields: dict[str, int | float] = {}
        evaluation: str | None = None
        for part in text.split(","):
            key, sep, value = part.strip().partition("=")
            if key == "eval" and sep:
                if value not in ("hand", "trained"):
                    raise ValueError(f"bad player {text!r}: eval is hand or trained")
                evaluation = value
                continue
            try:
                if not sep or key not in ("level", "depth", "seconds", "nodes", "king"):
                    raise ValueError
                num: int | float = float(value) if key == "seconds" else int(value)
            except ValueError:
                raise ValueError(
                    f"bad player {text!r}: use key=value pairs of level, depth, seconds, nodes, "
                    "king, eval"
                ) from None
            if num <= 0:
                raise ValueError(f"bad player {text!r}: {key} must be positive")
            fields[key] = num
        level = fields.get("level")
        if level is not None:
            if level not in LEVELS:
                raise ValueError(f"level must be between 1 and {len(LEVELS)}, not {level}")
            if len(set(fields) & {"depth", "seconds", "nodes"}):
                raise ValueError(f"bad player {text!r}: a level sets its own limits")
        seconds = fields.get("seconds")
        return cls(
            level=None if level is None else int(level),
            depth=None if "depth" not in fields else int(fields["depth"]),
            seconds=None if seconds is None else float(seconds),
            nodes=None if "nodes" not in fields else int(fields["nodes"]),
            king=None if "king" not in fields else int(fields["king"]),
            eval=evaluation,
        )

    def describe(self) -> str:
        parts = []
        for key in ("level", "depth", "seconds", "nodes", "king", "eval"):
            val = getattr(self, key)
            if val is not None:
                parts.append(f"{key}={val}")
        return ",".join(parts)

    def with_seconds(self, seconds: float | None) -> Player:
        """This player, given ``seconds`` a move when it has no level or limit of its own."""
        if seconds is None or self.level or self.depth or self.seconds or self.nodes:
            return self
        return Player(None, None, seconds, None, self.king, self.eval)

    def choose(
        self,
        board: BaseBoard,
        seed: int | None = None,
        memory: Memory | None = None,
    ) -> SearchResult:
        ev = None
        if self.eval is not None and self.king is not None:
            raise ValueError("a player sets either its king value or its evaluation")
        if self.eval == "trained":
            ev = trained_evaluator(board.variant)
        elif self.eval == "hand":
            key = (board.variant.name, 0)
            ev = _KING_EVALUATORS.get(key)
            if ev is None:
                ev = _KING_EVALUATORS[key] = Evaluator(board.variant)
        elif self.king is not None:
            key = (board.variant.name, self.king)
            ev = _KING_EVALUATORS.get(key)
            if ev is None:
                ev = _KING_EVALUATORS[key] = Evaluator(board.variant, self.king)
        if self.level is not None:
            return best_move(board, self.level, seed, memory, _evaluator=ev)
        return search(
            board,
            depth=self.depth,
            seconds=self.seconds,
            nodes=self.nodes,
            seed=seed,
            _evaluator=ev,
            memory=memory,
        )


@dataclass(frozen=True)
class GameRecord:
    """A finished game: who won (True: White, False: Black, None: a draw), why, the moves."""

    winner: bool | None
    reason: str
    moves: tuple[str, ...]


def opening_board(variant: str, opening: tuple[str, ...]) -> Board:
    """The start position of ``variant`` after the routes of ``opening``."""
    b = Board(variant)
    for route in opening:
        for m in b.legal_moves:
            if route in (m.route_str(i) for i in range(len(m.routes))):
                b.push(m)
                break
        else:
            raise ValueError(f"opening move {route} is not legal in {variant}")
    return b


def play_game(
    variant: str,
    opening: tuple[str, ...],
    white: Player,
    black: Player,
    seed: int | None = None,
    ply_cap: int = PLY_CAP,
) -> GameRecord:
    """Play one game from ``opening`` to its end by the variant's rules (or ``ply_cap`` plies)."""
    b = opening_board(variant, opening)
    moves = list(opening)
    memories = {True: Memory(), False: Memory()}  # each side's, from move to move
    while True:
        out = b.outcome()
        if out is not None:
            return GameRecord(out.winner, out.reason, tuple(moves))
        if b.ply >= ply_cap:
            return GameRecord(None, "ply_cap", tuple(moves))
        player = white if b.turn else black
        r = player.choose(b, None if seed is None else seed + b.ply, memories[b.turn])
        moves.append(r.move.route_str())
        b.push(r.move)


@dataclass
class MatchScore:
    """Wins, draws and losses of player A against player B."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2

    @property
    def percent(self) -> float:
        return 100.0 * self.points / self.games if self.games else 0.0


def play_match(
    variant: str,
    a: Player,
    b: Player,
    games: int,
    seed: int = 0,
    on_game: Callable[[int, GameRecord, bool], None] | None = None,
) -> MatchScore:
    """``games`` games of A against B: each opening of :data:`OPENINGS` twice, colours swapped
    (A is White in even games), cycling through the openings."""
    score = MatchScore()
    openings = OPENINGS[variant]
    for g in range(games):
        opening = openings[(g // 2) % len(openings)]
        a_white = g % 2 == 0
        rec = play_game(variant, opening, a if a_white else b, b if a_white else a, seed + g)
        if rec.winner is None:
            score.draws += 1
        elif rec.winner == a_white:
            score.wins += 1
        else:
            score.losses += 1
        if on_game is not None:
            on_game(g, rec, a_white)
    return score


def format_match(variant: str, a: Player, b: Player, score: MatchScore) -> list[str]:
    """The score table of a match, A's line then B's."""
    na, nb = f"A {a.describe()}", f"B {b.describe()}"
    width = max(len(na), len(nb), 6)
    lines = [
        f"match {variant}: {score.games} games from {len(OPENINGS[variant])} balanced openings, "
        "colours swapped",
        f"{'player':<{width}} {'wins':>5} {'draws':>5} {'losses':>6} {'points':>7} {'%':>6}",
    ]
    rows = (
        (na, score.wins, score.draws, score.losses, score.points),
        (nb, score.losses, score.draws, score.wins, score.games - score.points),
    )
    for name, w, d, lo, pts in rows:
        pct = 100.0 * pts / score.games if score.games else 0.0
        lines.append(f"{name:<{width}} {w:>5} {d:>5} {lo:>6} {pts:>7.1f} {pct:>5.1f}%")
    return lines
