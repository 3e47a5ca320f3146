"""Pairings of a class tournament: round robin, Swiss and arena, on plain values.

This module needs only the standard library (no Django): players are ids (ints, in seeding
order: the first is the top seed), the games so far are :class:`Game` values, and every function
returns new :class:`Game` values without results. Scores are draughts scores, 2-1-0 (a win 2, a
draw 1, a loss 0), read by :mod:`tournaments.standings`.

Why our own code and not a library: the maintained Swiss pairing programs for Python pair chess
by FIDE's Dutch system (``caissify-pairings``, ``py4swiss``: thousands of lines, a graph library
beside them, and the caller must keep FIDE's float history; ``swisspair`` binds a C++ engine made
for card games; ``pypair`` has not changed since 2014). A class of at most a few dozen children
needs the few rules below, written so that a teacher can explain a pairing, which the FMJD asks
of every Swiss program. A search with backtracking, bounded in steps, finds the pairings: in
simulated Swisses of up to 40 players it kept every rule below; in a class of 60, a late round
may give up a colour rule rather than search for long (docs/benchmarks/tournaments.md).

The rules, in our own words:

* **Round robin** by Berger tables, as FMJD members print them (the Polish draughts code,
  PZWarc *Kodeks warcabowy* ch. V art. 1.4; FIDE Handbook C.05 Annex 1 has the same tables).
  The table is for an even number of players; with an odd number a dummy player is added and
  whoever meets it rests that round (a bye). The last pairing number plays on the first board,
  with black in odd rounds and white in even ones; on the other boards the player named first
  has white. Over the whole tournament every player has white at most one time more (or fewer)
  than black.
* **Swiss** after the FMJD's *Official regulations of the Swiss system* (approved by the FMJD
  General Assembly of 29-30 November 1986, with the changes it accepted in 1999-2003; we read
  them in the Estonian draughts code, *Kabekoodeks* part V): the players are ordered before
  round 1 (art. 2.1: we draw the order by lot, a class has no ratings); each is paired with an
  opponent of the same score, or as near as can be (2.2); two players meet once only (2.3); a
  Swiss has between a third and a half as many rounds as players (2.4: we pair at most half,
  :func:`max_swiss_rounds`). For the colours we take the basic rules that FIDE's Swiss systems
  share (FIDE Handbook C.04.1 f-h): nobody's whites and blacks differ by more than two, nobody
  has the same colour three times in a row, and otherwise a player gets the colour they had less
  often, or else the one they did not have last. With an odd number of players the
  lowest-ranked player who has had no bye yet rests and scores ``bye_points`` (2, as a win, by
  common draughts practice and C.04.1 c; a parameter). Within a score group the top half meets
  the bottom half in order (1 v 5, 2 v 6, ...), the customary Swiss split, swapped where that
  gives both players the colour they need; a player left over floats down to the next group.
  The rules give way in this order when no pairing keeps them all (it happens in the last
  rounds of small groups): first the split, then the colours, then one bye each; never "once
  only" (:class:`PairingError`).
* **Arena** (as on lichess): there are no rounds; whoever has finished a game waits, and the
  waiting players are paired at once, each with the nearest waiting player by score and then by
  rating, never with the opponent they have just played: a player whose only partner would be
  that one waits for someone else (unless the teacher pairs now, ``rematch``).

Example, the Berger table of four players:

>>> [[(g.white, g.black) for g in round_robin_round([1, 2, 3, 4], r)] for r in (1, 2, 3)]
[[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

#: results, written as draughts scoresheets write them: white's points first
WHITE_WINS, DRAW, BLACK_WINS = "2-0", "1-1", "0-2"
RESULTS = (WHITE_WINS, DRAW, BLACK_WINS)
#: points for a result, (white, black)
POINTS = {WHITE_WINS: (2, 0), DRAW: (1, 1), BLACK_WINS: (0, 2)}
WIN_POINTS = 2


class PairingError(ValueError):
    """The players cannot be paired by the rules (e.g. everyone has met everyone)."""


@dataclass(frozen=True)
class Game:
    """One pairing of one round: ``black`` is None for a bye (the white player rests), and
    ``result`` is one of :data:`RESULTS`, or None while the game is not finished (a bye has
    none)."""

    round: int
    white: int
    black: int | None = None
    result: str | None = None

    @property
    def is_bye(self) -> bool:
        return self.black is None

    @property
    def is_finished(self) -> bool:
        return self.is_bye or self.result is not None

    def players(self) -> tuple[int, ...]:
        return (self.white,) if self.black is None else (self.white, self.black)


# -- round robin ---------------------------------------------------------------------------------


def round_robin_rounds(count: int) -> int:
    """How many rounds a round robin of ``count`` players has: every player rests once when the
    number is odd.

    >>> round_robin_rounds(4), round_robin_rounds(5)
    (3, 5)
    """
    if count < 2:
        raise PairingError("a round robin needs two players")
    return count - 1 if count % 2 == 0 else count


def round_robin_round(players: Sequence[int], number: int) -> list[Game]:
    """Round ``number`` (from 1) of the Berger table for ``players`` (in pairing-number order).

    With an odd number of players the one who would meet the dummy gets a bye, listed last.

    >>> [(g.white, g.black) for g in round_robin_round([1, 2, 3], 1)]
    [(2, 3), (1, None)]
    """
    rounds = round_robin_rounds(len(players))
    if not 1 <= number <= rounds:
        raise PairingError(f"a round robin of {len(players)} has rounds 1 to {rounds}")
    size = len(players) + len(players) % 2  # with the dummy
    last = size - 1  # the index of the fixed (last) number
    ring = last  # numbers 1..n-1 turn around it, as indexes 0..n-2
    half = size // 2
    first = ((number - 1) * half) % ring  # the index playing the last number on board 1
    boards: list[tuple[int, int]] = []
    boards.append((last, first) if number % 2 == 0 else (first, last))
    for board in range(1, half):
        boards.append(((first + board) % ring, (first - board) % ring))
    games: list[Game] = []
    byes: list[Game] = []
    for white, black in boards:
        if white >= len(players) or black >= len(players):  # the dummy
            rester = black if white >= len(players) else white
            byes.append(Game(number, players[rester]))
        else:
            games.append(Game(number, players[white], players[black]))
    return games + byes


# -- what the games so far say about each player ----------------------------------------------


@dataclass
class Record:
    """One player's past, as the pairing rules need it."""

    points: int = 0
    colours: str = ""  # "w"/"b" per game played, oldest first (byes have no colour)
    opponents: frozenset[int] = frozenset()
    byes: int = 0
    last_opponent: int | None = None

    @property
    def colour_balance(self) -> int:
        """Whites minus blacks."""
        return self.colours.count("w") - self.colours.count("b")

    def may_have(self, colour: str) -> bool:
        """Whether the colour rules let this player have ``colour`` next (C.04.1 f, g)."""
        balance = self.colour_balance + (1 if colour == "w" else -1)
        if abs(balance) > 2:
            return False
        return not self.colours.endswith(colour * 2)

    def wants(self) -> str | None:
        """The colour the player should have: the one had less often, else not the last."""
        if self.colour_balance:
            return "b" if self.colour_balance > 0 else "w"
        if self.colours:
            return "b" if self.colours[-1] == "w" else "w"
        return None


def records(
    players: Iterable[int], games: Iterable[Game], *, bye_points: int = WIN_POINTS
) -> dict[int, Record]:
    """Every player's points, colours, opponents and byes after ``games`` (rounds in order)."""
    found = {player: Record() for player in players}
    opponents: dict[int, set[int]] = {player: set() for player in found}
    for game in sorted(games, key=lambda g: g.round):
        if game.black is None:
            if game.white in found:
                found[game.white].byes += 1
                found[game.white].points += bye_points
            continue
        white, black = found.get(game.white), found.get(game.black)
        points = POINTS.get(game.result or "", (0, 0))
        for record, colour, opponent, scored in (
            (white, "w", game.black, points[0]),
            (black, "b", game.white, points[1]),
        ):
            if record is None:
                continue
            record.colours += colour
            record.points += scored
            record.last_opponent = opponent
        if white is not None and black is not None:
            opponents[game.white].add(game.black)
            opponents[game.black].add(game.white)
    for player, record in found.items():
        record.opponents = frozenset(opponents[player])
    return found


def colours_for(
    a: int, b: int, past: Mapping[int, Record], *, strict: bool = True
) -> tuple[int, int] | None:
    """(white, black) for players ``a`` and ``b`` (``a`` ranked higher), or None when the colour
    rules allow neither way round (only with ``strict``)."""
    ra, rb = past[a], past[b]
    ways = [(a, b), (b, a)]
    if strict:
        ways = [(w, k) for w, k in ways if past[w].may_have("w") and past[k].may_have("b")]
        if not ways:
            return None
    if len(ways) == 1:
        return ways[0]
    want_a, want_b = ra.wants(), rb.wants()
    if want_a != want_b:
        # one of them has no wish, or they wish for different colours: both can be pleased
        if want_a == "w" or want_b == "b":
            return (a, b)
        if want_a == "b" or want_b == "w":
            return (b, a)
        return (a, b)
    # the same wish: the stronger need wins (the larger imbalance), then the higher ranked
    if abs(rb.colour_balance) > abs(ra.colour_balance):
        return (b, a) if want_b == "w" else (a, b)
    return (a, b) if want_a == "w" else (b, a)


def _colours(a: int, b: int, past: Mapping[int, Record], *, strict: bool) -> tuple[int, int]:
    return colours_for(a, b, past, strict=strict) or colours_for(a, b, past, strict=False) or (a, b)


# -- Swiss -----------------------------------------------------------------------------------------


#: the steps (players placed) one try at a Swiss pairing may take, and the last, loosest try
SEARCH_STEPS = 2_000
LAST_SEARCH_STEPS = 200_000
#: the lowest-ranked players without a bye that a try may give it to, before the next rule gives
BYE_CANDIDATES = 4


def max_swiss_rounds(count: int) -> int:
    """The most rounds we pair for a Swiss of ``count`` players: half their number (FMJD 2.4;
    more rounds can leave no pairing without a rematch). A smaller class plays a round robin.

    >>> max_swiss_rounds(9), max_swiss_rounds(3)
    (4, 1)
    """
    return max(1, count // 2)


def swiss_round(
    players: Sequence[int],
    games: Sequence[Game],
    number: int,
    *,
    bye_points: int = WIN_POINTS,
) -> list[Game]:
    """The pairings of Swiss round ``number`` for ``players`` (in seeding order), after
    ``games`` (every game of the earlier rounds, finished). The bye, if any, is listed last.

    >>> first = swiss_round([1, 2, 3, 4, 5], [], 1)
    >>> [(g.white, g.black) for g in first]
    [(1, 3), (4, 2), (5, None)]
    """
    if len(players) < 2:
        raise PairingError("a Swiss needs two players")
    if len(set(players)) != len(players):
        raise PairingError("a player is listed twice")
    if any(not game.is_finished for game in games):
        raise PairingError("the last round has games without a result")
    seed = {player: index for index, player in enumerate(players)}
    past = records(players, games, bye_points=bye_points)
    ranked = sorted(players, key=lambda p: (-past[p].points, seed[p]))

    # the bye: the lowest-ranked player who has had none yet and without whom the rest pair;
    # the rule of one bye each comes before the colour rules, which come before the split
    tries: list[tuple[int | None, bool]] = [(None, True), (None, False)]
    last: int | None = None
    if len(ranked) % 2:
        fresh = [p for p in reversed(ranked) if past[p].byes == 0]
        others = [p for p in reversed(ranked) if past[p].byes > 0]
        tries = [
            (p, strict)
            for group in (fresh, others)
            for strict in (True, False)
            for p in group[:BYE_CANDIDATES]
        ]
        last = (fresh or others)[0]
    # each try searches a bounded number of steps (a class of 60 could otherwise search for
    # minutes where the colour rules cannot be kept); a last, loose try searches much longer
    plan = [(rester, strict, SEARCH_STEPS, False) for rester, strict in tries if strict]
    plan.append((last, True, SEARCH_STEPS, True))
    plan += [(rester, strict, SEARCH_STEPS, False) for rester, strict in tries if not strict]
    plan.append((last, False, LAST_SEARCH_STEPS, True))
    for rester, strict, budget, hardest_first in plan:
        field = [p for p in ranked if p != rester]
        pairs = _pair_field(field, past, strict=strict, budget=budget, hardest_first=hardest_first)
        if pairs is None:
            continue
        out = [Game(number, *_colours(a, b, past, strict=strict)) for a, b in pairs]
        if not games:
            out = _first_round_colours(out, seed, number)
        if rester is not None:
            out.append(Game(number, rester))
        return out
    raise PairingError("no pairing without a rematch: the players have all met")


def _first_round_colours(out: list[Game], seed: Mapping[int, int], number: int) -> list[Game]:
    """Round 1: the higher seed has white on the first board, black on the second, and so on."""
    fixed = []
    for board, game in enumerate(out):
        assert game.black is not None
        high, low = sorted((game.white, game.black), key=seed.__getitem__)
        fixed.append(Game(number, high, low) if board % 2 == 0 else Game(number, low, high))
    return fixed


class _OutOfSteps(Exception):
    pass


def _pair_field(
    field: list[int],
    past: Mapping[int, Record],
    *,
    strict: bool,
    budget: int,
    hardest_first: bool = False,
) -> list[tuple[int, int]] | None:
    """Pairs for ``field`` (ranked: score, then seed), top-down with backtracking; None when
    there are none, or none found in ``budget`` steps. A set of players found unpairable is
    remembered, so the search stays small. With ``hardest_first`` the player with the fewest
    possible opponents is paired first (the last resort: it finds a pairing where top-down
    would search for long)."""
    dead: set[frozenset[int]] = set()
    steps = 0

    def allowed(a: int, b: int) -> bool:
        if b in past[a].opponents:
            return False
        return not strict or colours_for(a, b, past, strict=True) is not None

    if any(not any(allowed(a, b) for b in field if b != a) for a in field):
        return None  # someone has no possible opponent at all

    def search(rest: list[int]) -> list[tuple[int, int]] | None:
        nonlocal steps
        if not rest:
            return []
        key = frozenset(rest)
        if key in dead:
            return None
        steps += 1
        if steps > budget:
            raise _OutOfSteps
        top = rest[0]
        if hardest_first:
            top = min(rest, key=lambda a: sum(allowed(a, b) for b in rest if b != a))
        others = [p for p in rest if p != top]
        for opponent in _preferred(top, others, past):
            if not allowed(top, opponent):
                continue
            tail = search([p for p in others if p != opponent])
            if tail is not None:
                return [(top, opponent), *tail]
        dead.add(key)
        return None

    try:
        return search(field)
    except _OutOfSteps:
        return None


def _preferred(top: int, others: list[int], past: Mapping[int, Record]) -> list[int]:
    """The order in which ``top`` (the highest-ranked unpaired player) tries opponents: the same
    score group first, its bottom half in order (the Swiss split), then its top half from the
    bottom up; then the nearest lower groups; within each, the opponent whom the colours suit."""
    points = past[top].points
    group = [p for p in others if past[p].points == points]
    size = len(group) + 1  # with ``top``
    half = size // 2
    # ``top`` is the first of its group: its ideal opponent is the first of the bottom half
    split = group[half - 1 :] + list(reversed(group[: half - 1])) if group else []
    rest = sorted(
        (p for p in others if past[p].points != points),
        key=lambda p: abs(past[p].points - points),
    )
    order = {p: index for index, p in enumerate(split + rest)}

    def suits(p: int) -> int:
        """0 when the two wish for different colours (or either has no wish), else 1."""
        a, b = past[top].wants(), past[p].wants()
        return 0 if a is None or b is None or a != b else 1

    def score_distance(p: int) -> int:
        return abs(past[p].points - points)

    return sorted(order, key=lambda p: (score_distance(p), suits(p), order[p]))


# -- arena -----------------------------------------------------------------------------------------


def arena_pairings(
    waiting: Sequence[int],
    games: Sequence[Game],
    number: int,
    *,
    ratings: Mapping[int, float] | None = None,
    rematch: bool = False,
) -> list[Game]:
    """Pairs of the ``waiting`` players (those with no game going on), nearest by score then by
    rating, never the last opponent again in a row: a player whose only partner would be the
    last opponent keeps waiting for someone else, unless ``rematch`` (the teacher pairs now).
    An odd player out keeps waiting (no bye in an arena). ``number`` is the wave, stored as the
    games' round.

    >>> old = [Game(1, 1, 2, "2-0"), Game(1, 3, 4, "1-1")]
    >>> [(g.white, g.black) for g in arena_pairings([1, 2, 3, 4], old, 2)]
    [(3, 1), (4, 2)]
    """
    everyone = set(waiting) | {p for game in games for p in game.players()}
    past = records(everyone, games, bye_points=0)
    rating = ratings or {}
    order = sorted(waiting, key=lambda p: (-past[p].points, -rating.get(p, 0.0), p))
    out: list[Game] = []
    free = list(order)
    while len(free) >= 2:
        top = free.pop(0)
        fresh = [p for p in free if past[top].last_opponent != p and past[p].last_opponent != top]
        if not fresh and rematch:
            fresh = free
        if not fresh:
            continue

        def nearness(p: int, top: int = top) -> tuple[float, float, int]:
            return (
                abs(past[p].points - past[top].points),
                abs(rating.get(p, 0.0) - rating.get(top, 0.0)),
                order.index(p),
            )

        opponent = min(fresh, key=nearness)
        free.remove(opponent)
        out.append(Game(number, *_colours(top, opponent, past, strict=False)))
    return out
