"""How long a Swiss round takes to pair, and how often a rule gives way, by class size: Swisses
with random results (seeds 0-5) to their last round (`python tools/swiss_pairing.py`, from
the repository's root). The figures are in docs/benchmarks/tournaments.md."""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tournaments.pairing import RESULTS, Game, max_swiss_rounds, records, swiss_round  # noqa: E402


def main(sizes: tuple[int, ...] = (9, 20, 30, 40, 59, 60), seeds: int = 6) -> None:
    for count in sizes:
        worst, broken, total = 0.0, 0, 0
        for seed in range(seeds):
            rng = random.Random(seed)
            players = list(range(1, count + 1))
            games: list[Game] = []
            for number in range(1, max_swiss_rounds(count) + 1):
                start = time.perf_counter()
                new = swiss_round(players, games, number)
                worst = max(worst, time.perf_counter() - start)
                games += [
                    g if g.black is None else Game(g.round, g.white, g.black, rng.choice(RESULTS))
                    for g in new
                ]
            for record in records(players, games).values():
                total += 1
                broken += (
                    abs(record.colour_balance) > 2
                    or "www" in record.colours
                    or "bbb" in record.colours
                    or record.byes > 1
                )
        print(
            f"{count} players, {max_swiss_rounds(count)} rounds: slowest round {worst:.2f} s, "
            f"players with a colour or bye rule given way {broken}/{total}"
        )


if __name__ == "__main__":
    main()
