"""The pure core of class tournaments: pairings (round robin, Swiss, arena) and standings, on
plain values, simulated to the end under fixed seeds."""

from __future__ import annotations

import ast
import doctest
import random
import sys
from collections import Counter
from itertools import combinations
from pathlib import Path

import pytest

from tournaments import pairing, standings
from tournaments.pairing import (
    BLACK_WINS,
    DRAW,
    RESULTS,
    WHITE_WINS,
    Game,
    PairingError,
    arena_pairings,
    max_swiss_rounds,
    records,
    round_robin_round,
    round_robin_rounds,
    swiss_round,
)
from tournaments.standings import ROUND_ROBIN, SWISS, cross_table


def play(games: list[Game], rng: random.Random) -> list[Game]:
    """The games with a random result each (byes stay as they are)."""
    return [
        game if game.is_bye else Game(game.round, game.white, game.black, rng.choice(RESULTS))
        for game in games
    ]


def simulate_swiss(count: int, seed: int) -> tuple[list[int], list[Game], list[list[Game]]]:
    rng = random.Random(seed)
    players = list(range(101, 101 + count))
    games: list[Game] = []
    rounds = []
    for number in range(1, max_swiss_rounds(count) + 1):
        new = swiss_round(players, games, number)
        rounds.append(new)
        games += play(new, rng)
    return players, games, rounds


def test_the_modules_doctests_pass():
    assert doctest.testmod(pairing).failed == 0
    assert doctest.testmod(standings).failed == 0


def test_the_pure_modules_import_only_the_standard_library_and_each_other():
    for module in (pairing, standings):
        tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [("." * node.level) + (node.module or "")]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert name.startswith(".") or top in sys.stdlib_module_names, (module, name)


@pytest.mark.parametrize("seed", [48, 1, 2, 3, 4])
def test_a_swiss_of_nine_players_runs_to_the_end_by_the_rules(seed):
    players, games, rounds = simulate_swiss(9, seed)
    assert len(rounds) == 4
    for number, games_of_round in enumerate(rounds, start=1):
        seen = [p for game in games_of_round for p in game.players()]
        assert sorted(seen) == players, f"round {number} pairs everyone exactly once"
        assert sum(game.is_bye for game in games_of_round) == 1
    meetings = [frozenset(game.players()) for game in games if not game.is_bye]
    assert len(meetings) == len(set(meetings)), "no two players meet twice"
    past = records(players, games)
    for player, record in past.items():
        assert record.byes <= 1, f"{player} had {record.byes} byes"
        assert abs(record.colour_balance) <= 2, f"{player} played {record.colours}"
        assert "www" not in record.colours and "bbb" not in record.colours, record.colours


def test_the_swiss_bye_goes_to_the_lowest_ranked_player_without_one_and_scores_a_win():
    players = [1, 2, 3, 4, 5]
    first = swiss_round(players, [], 1)
    assert first[-1] == Game(1, 5), "the lowest seed rests in round 1"
    games = play(first, random.Random(0))
    second = swiss_round(players, games, 2)
    rester = second[-1].white
    assert second[-1].is_bye and rester != 5, "a second bye goes to someone else"
    scores = records(players, games)
    lowest = min(
        (p for p in players if p != 5), key=lambda p: (scores[p].points, -players.index(p))
    )
    assert rester == lowest
    assert records(players, [Game(1, 5)])[5].points == 2
    assert records(players, [Game(1, 5)], bye_points=1)[5].points == 1


def test_the_swiss_pairs_a_score_group_top_half_against_bottom_half_transposed_for_colours():
    players = [1, 2, 3, 4, 5, 6, 7, 8]
    assert [(g.white, g.black) for g in swiss_round(players, [], 1)] == [
        (1, 5),
        (6, 2),
        (3, 7),
        (8, 4),
    ]
    # after round 1 the winners 1, 2, 3, 4 meet each other: 1 v 3 and 2 v 4 by the split, but
    # 1 and 3 both had white: 1 v 4 and 2 v 3 give everyone the other colour (so in the losers)
    won = [Game(1, 1, 5, WHITE_WINS), Game(1, 6, 2, BLACK_WINS), Game(1, 3, 7, WHITE_WINS)]
    won.append(Game(1, 8, 4, BLACK_WINS))
    second = {frozenset(g.players()) for g in swiss_round(players, won, 2)}
    assert second == {frozenset({1, 4}), frozenset({2, 3}), frozenset({5, 8}), frozenset({6, 7})}
    for game in swiss_round(players, won, 2):
        assert records(players, won)[game.white].colours == "b", "everyone gets the other colour"


def test_a_swiss_refuses_a_round_while_games_are_unfinished():
    with pytest.raises(PairingError):
        swiss_round([1, 2, 3, 4], [Game(1, 1, 3)], 2)


def test_a_swiss_cannot_pair_players_who_have_all_met():
    games = [Game(1, 1, 2, DRAW)]
    with pytest.raises(PairingError):
        swiss_round([1, 2], games, 2)


@pytest.mark.parametrize("count", [4, 5, 6, 9])
def test_a_round_robin_meets_everyone_once_with_balanced_colours(count):
    players = [10 * n for n in range(1, count + 1)]
    rounds = [round_robin_round(players, r) for r in range(1, round_robin_rounds(count) + 1)]
    games = [game for r in rounds for game in r]
    meetings = Counter(frozenset(game.players()) for game in games if not game.is_bye)
    assert set(meetings) == {frozenset(pair) for pair in combinations(players, 2)}
    assert set(meetings.values()) == {1}, "every pair meets exactly once"
    for games_of_round in rounds:
        assert sorted(p for game in games_of_round for p in game.players()) == players
    byes = Counter(game.white for game in games if game.is_bye)
    assert byes == (Counter(players) if count % 2 else Counter()), "each rests once when odd"
    for player, record in records(players, games).items():
        assert abs(record.colour_balance) <= 1, f"{player} played {record.colours}"


def test_a_round_robin_of_four_follows_the_berger_table():
    table = [[(g.white, g.black) for g in round_robin_round([1, 2, 3, 4], r)] for r in (1, 2, 3)]
    assert table == [[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]]
    with pytest.raises(PairingError):
        round_robin_round([1, 2, 3, 4], 4)


def test_arena_pairs_the_nearest_waiting_players_and_not_the_last_opponent_again():
    games = [Game(1, 1, 2, WHITE_WINS), Game(1, 3, 4, WHITE_WINS)]
    # 1 and 3 have 2 points, 2 and 4 none: 1 meets 3, 2 meets 4
    assert {frozenset(g.players()) for g in arena_pairings([1, 2, 3, 4], games, 2)} == {
        frozenset({1, 3}),
        frozenset({2, 4}),
    }
    # only 1 and 2 wait, who just met: they wait for someone else, unless the teacher pairs now
    assert arena_pairings([1, 2], games, 2) == []
    again = arena_pairings([1, 2], games, 2, rematch=True)
    assert [frozenset(g.players()) for g in again] == [frozenset({1, 2})]
    # 1 waits with 2 (its last opponent) and 5 (far behind on rating): 5 it is
    paired = arena_pairings([1, 2, 5], games, 2, ratings={1: 1500, 2: 1500, 5: 900})
    assert [frozenset(g.players()) for g in paired] == [frozenset({1, 5})]
    assert arena_pairings([7], [], 1) == [], "a lone waiting player is not paired"


def test_the_swiss_standings_break_ties_by_truncated_solkoff_then_wins():
    games = [
        Game(1, 1, 2, WHITE_WINS),
        Game(1, 3, 4, DRAW),
        Game(2, 1, 3, DRAW),
        Game(2, 4, 2, BLACK_WINS),
    ]
    rows = standings.standings([1, 2, 3, 4], games, kind=SWISS)
    assert [(r.player, r.points) for r in rows] == [(1, 3), (2, 2), (3, 2), (4, 1)]
    two, three = rows[1], rows[2]
    assert two.tie_breaks["truncated_solkoff"] == three.tie_breaks["truncated_solkoff"] == 3
    assert (two.wins, three.wins) == (1, 0), "wins decide after the Solkoffs"
    assert [r.rank for r in rows] == [1, 2, 3, 4]


def test_the_round_robin_standings_break_ties_by_the_game_between_the_tied_players():
    # 1 beats 2; 2 beats 3; 3 beats 1 ... and 4 loses to all but draws nobody:
    # 1, 2, 3 all have 4 points; among themselves each has 2, Sonneborn-Berger decides
    games = [
        Game(1, 1, 2, WHITE_WINS),
        Game(1, 3, 4, WHITE_WINS),
        Game(2, 2, 3, WHITE_WINS),
        Game(2, 4, 1, BLACK_WINS),
        Game(3, 3, 1, WHITE_WINS),
        Game(3, 2, 4, WHITE_WINS),
    ]
    rows = standings.standings([1, 2, 3, 4], games, kind=ROUND_ROBIN)
    assert {r.points for r in rows[:3]} == {4}
    assert rows[3].player == 4
    assert all(r.tie_breaks["head_to_head"] == 2 for r in rows[:3])
    assert [r.rank for r in rows] == [1, 1, 1, 4], "still tied: they share the place"
    # now 1 beats 3 instead: 1 leads on the games between the tied players... alone on points
    games[4] = Game(3, 3, 1, BLACK_WINS)
    rows = standings.standings([1, 2, 3, 4], games, kind=ROUND_ROBIN)
    assert [(r.player, r.points) for r in rows] == [(1, 6), (2, 4), (3, 2), (4, 0)]


def test_a_direct_win_decides_between_two_tied_round_robin_players():
    games = [
        Game(1, 1, 2, BLACK_WINS),  # 2 beats 1
        Game(1, 3, 4, DRAW),
        Game(2, 1, 3, WHITE_WINS),
        Game(2, 4, 2, DRAW),
        Game(3, 4, 1, BLACK_WINS),
        Game(3, 2, 3, DRAW),
    ]
    rows = standings.standings([1, 2, 3, 4], games, kind=ROUND_ROBIN)
    assert [(r.player, r.points) for r in rows][:2] == [(2, 4), (1, 4)]


def test_the_cross_table_shows_every_game_from_both_sides():
    players = [1, 2, 3, 4]
    rng = random.Random(7)
    games = []
    for r in range(1, 4):
        games += play(round_robin_round(players, r), rng)
    rows = standings.standings(players, games, kind=ROUND_ROBIN)
    table = cross_table(rows)
    for i in range(4):
        assert table.cells[i][i] == "x"
        for j in range(4):
            if i != j:
                assert int(table.cells[i][j]) + int(table.cells[j][i]) == 2
        assert sum(int(c) for c in table.cells[i] if c != "x") == rows[i].points
    assert table.rounds == 3
    assert all(cell is not None for cell in table.round_cells(0))


def test_sonneborn_berger_decides_between_round_robin_players_level_on_their_own_game():
    games = [
        Game(1, 1, 2, DRAW),
        Game(1, 3, 4, WHITE_WINS),
        Game(2, 1, 3, WHITE_WINS),
        Game(2, 4, 2, BLACK_WINS),
        Game(3, 4, 1, WHITE_WINS),
        Game(3, 2, 3, BLACK_WINS),
    ]
    rows = standings.standings([1, 2, 3, 4], games, kind=ROUND_ROBIN)
    assert [(r.player, r.points) for r in rows] == [(3, 4), (1, 3), (2, 3), (4, 2)]
    one, two = rows[1], rows[2]
    assert one.tie_breaks["head_to_head"] == two.tie_breaks["head_to_head"] == 1
    # 1 drew 2 (3 points) and beat 3 (4 points): 3 + 2 * 4; 2 drew 1 and beat 4 (2 points)
    assert (one.tie_breaks["sonneborn_berger"], two.tie_breaks["sonneborn_berger"]) == (11, 7)
    assert (one.rank, two.rank) == (2, 3)


def test_swisses_of_every_class_size_keep_the_rules_under_random_results():
    """300 Swisses of 4 to 24 players, each to its last round: never stuck, never a rematch,
    a second bye or a colour rule broken."""
    for seed in range(300):
        rng = random.Random(seed)
        count = rng.randint(4, 24)
        players = list(range(1, count + 1))
        games: list[Game] = []
        for number in range(1, max_swiss_rounds(count) + 1):
            games += play(swiss_round(players, games, number), rng)
        meetings = [frozenset(game.players()) for game in games if not game.is_bye]
        assert len(meetings) == len(set(meetings)), seed
        for record in records(players, games).values():
            assert record.byes <= 1, seed
            assert abs(record.colour_balance) <= 2, (seed, record.colours)
            assert "www" not in record.colours and "bbb" not in record.colours, (seed, record)


@pytest.mark.slow
@pytest.mark.parametrize("count", [59, 60])
def test_a_swiss_of_the_largest_class_is_paired_to_its_last_round_without_a_rematch(count):
    """The search is bounded in steps: a class of 60 is paired every round (a late round may
    give up a colour rule, never "once only" nor a second bye)."""
    rng = random.Random(count)
    players = list(range(1, count + 1))
    games: list[Game] = []
    for number in range(1, max_swiss_rounds(count) + 1):
        games += play(swiss_round(players, games, number), rng)
    meetings = [frozenset(game.players()) for game in games if not game.is_bye]
    assert len(meetings) == len(set(meetings))
    assert all(record.byes <= 1 for record in records(players, games).values())
