"""Check the endgame databases against the solver and the search on random positions, and write
the counts of won, drawn and lost positions per material (docs/benchmarks/endgames.md).

``python -m tools.endgames_check --dir var/endgames [--positions 10000] [--counts FILE]``

For each variant, ``--positions`` random covered positions (a built material at random, then a
position of it, either side to move), with neither the solver nor the search given the
databases:

* the solver (``dama.solve.shortest``, goal ``win``, up to ``--solver-moves`` moves): when it finds
  a forced win in ``k`` moves the databases must say a win in ``k`` moves; when it proves there
  is none within the horizon they must not say a win that short;
* the search (``dama.search.search`` to ``--search-depth`` plies): when it scores a mate (a win
  or a loss it has seen to the end) the databases must say the same result, a win no slower.

Prints a line per variant and exits 1 on any disagreement.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

from dama import VARIANT_NAMES
from dama.endgames import Tables, counts, random_position
from dama.search import MATE, MATE_BOUND, search
from dama.solve import Limits, shortest


def check(
    tables: Tables, variant: str, positions: int, seed: int, solver_moves: int, depth: int
) -> dict[str, object]:
    rng = random.Random(seed)
    empty = Tables(None)
    names = tables.built(variant)
    stats = {
        "positions": 0,
        "solver_verdicts": 0,
        "solver_wins": 0,
        "search_mates": 0,
        "disagreements": 0,
    }
    errors: list[str] = []
    t0 = time.perf_counter()
    for _ in range(positions):
        b = random_position(tables, variant, rng, names)
        if b is None:
            break
        p = tables.probe(b)
        assert p is not None
        stats["positions"] += 1
        if not b.generate_legal_moves():
            continue
        found = shortest(b, "win", Limits(moves=solver_moves, nodes=50_000, seconds=5))
        if found is not None:
            stats["solver_verdicts"] += 1
            if found:
                stats["solver_wins"] += 1
                if p.result != "win" or p.moves != found:
                    errors.append(f"{b.fen()}: solver wins in {found} moves, databases {p}")
            elif p.result == "win" and p.moves <= solver_moves:
                errors.append(f"{b.fen()}: solver finds no win, databases {p}")
        r = search(b, depth=depth, endgames=empty)
        if abs(r.score) > MATE_BOUND:
            stats["search_mates"] += 1
            plies = MATE - abs(r.score)
            if r.score > 0 and (p.result != "win" or p.plies > plies):
                errors.append(f"{b.fen()}: search wins in {plies} plies, databases {p}")
            if r.score < 0 and (p.result != "loss" or p.plies < plies):
                errors.append(f"{b.fen()}: search loses in {plies} plies, databases {p}")
    stats["disagreements"] = len(errors)
    for line in errors[:20]:
        print(line)
    return {**stats, "seconds": round(time.perf_counter() - t0, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default="var/endgames")
    ap.add_argument("--variant", default="all")
    ap.add_argument("--positions", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--solver-moves", type=int, default=4)
    ap.add_argument("--search-depth", type=int, default=4)
    ap.add_argument("--counts", type=Path, help="write the counts per material to this JSON file")
    args = ap.parse_args(argv)
    tables = Tables.open(args.dir)
    variants = VARIANT_NAMES if args.variant == "all" else (args.variant,)
    if args.counts is not None:
        data = {v: counts(args.dir, v) for v in VARIANT_NAMES}
        args.counts.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        print(f"counts of {sum(len(c) for c in data.values())} materials in {args.counts}")
    bad = 0
    for v in variants:
        if not args.positions:
            break
        res = check(tables, v, args.positions, args.seed, args.solver_moves, args.search_depth)
        bad += int(res["disagreements"])  # type: ignore[call-overload]
        print(f"{v}: {json.dumps(res)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
