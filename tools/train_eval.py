"""Train the playing engine's evaluation from self-play (issue 52): ``python -m tools.train_eval``.

One command, reproducible from its seed::

    python -m tools.train_eval --variant czech --seed 52 --games 1600 --generations 2

Each generation plays ``--games`` games of the engine against itself (both sides the search of
:mod:`dama.search` bounded by ``--nodes`` a move, so the games do not depend on the machine's
speed or load), from the balanced openings of :mod:`dama.match` and a few random plies chosen by
the seed; generation 0 plays with the hand-tuned evaluation, each later one with the weights the
generation before it fitted (the iteration). Every quiet position (the side to move has no capture)
is labelled with the game's result (1, 1/2, 0 for White), and the weights are fitted to the
positions of all generations so far by logistic regression: the probability that White wins is
``sigmoid(evaluation / K)``, ``K`` fitted first to the hand-tuned evaluation.

The evaluation fitted is :class:`dama.evaluate.Evaluator`'s: the named terms (material, kings,
tempo, centre, ...) with one coefficient each, plus one value per local pattern of every window of
two rows by four columns (four dark squares, each empty, White's or Black's: 81 patterns a window).
The fit makes it exactly symmetric between the colours: a window's pattern counts for White and the
same pattern turned round (mirrored window, colours swapped) against, so the values shipped are
``P[pattern] - P[its mirror]``. Games are split by their number: every tenth is held out, and the
log loss on those positions is reported for the hand-tuned and the trained evaluation.

The weights go to ``dama/weights/<variant>.json`` with their SHA-256 in ``dama/weights/SHA256SUMS``
(:mod:`dama.weights`); ``--processes`` plays the games in parallel (the result does not depend on
it: every game has its own seed). numpy is used here only; the engine reads the weights as data.
Our own code: no library fits a linear model with tied (mirrored) sparse weights in a few lines
of numpy, and the engine's own features must be the ones fitted.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dama import weights as weights_mod
from dama.board import Board
from dama.evaluate import N_TERMS, PATTERN_STATES, SCALE, TERMS, Evaluator
from dama.geometry import geometry
from dama.match import OPENINGS, PLY_CAP, opening_board
from dama.search import Memory, search
from dama.variants import find_variant

#: plies after the opening chosen at random (0 to this), so that the games differ
RANDOM_PLIES = 6
#: positions before this ply are not used (the opening and the random plies)
FIRST_PLY = 8


@dataclass
class Game:
    """One self-play game: its quiet positions (White, Black, kings) and White's result."""

    positions: list[tuple[int, int, int]]
    result: float


def play(job: tuple[str, int, int, list[int] | None, list[int] | None]) -> Game:
    """Play one self-play game (a worker's job: variant, seed, nodes, weights or None)."""
    variant, seed, nodes, coef, patterns = job
    var = find_variant(variant)
    ev = Evaluator(var)
    if coef is not None and patterns is not None:
        ev.use_weights(coef, patterns)
    rng = random.Random(seed)
    openings = OPENINGS[variant]
    b = opening_board(variant, openings[rng.randrange(len(openings))])
    for _ in range(rng.randint(0, RANDOM_PLIES)):
        moves = b.legal_moves
        if not moves or b.outcome() is not None:
            break
        b.push(rng.choice(moves))
    memories = {True: Memory(), False: Memory()}
    positions: list[tuple[int, int, int]] = []
    result = 0.5
    while True:
        out = b.outcome()
        if out is not None:
            result = 0.5 if out.winner is None else (1.0 if out.winner else 0.0)
            break
        if b.ply >= PLY_CAP:
            break
        moves = b.legal_moves
        if b.ply >= FIRST_PLY and not moves[0].captured:
            positions.append((b.white, b.black, b.kings))
        r = search(b, nodes=nodes, seed=seed * 1000 + b.ply, _evaluator=ev, memory=memories[b.turn])
        b.push(r.move)
    return Game(positions, result)


def _played(jobs: list[Any], processes: int | None) -> Iterator[Game]:
    """The games of ``jobs``, in order: in this process with ``--processes 1`` (no fork: a caller
    with threads of its own, such as a test runner's worker, cannot fork safely), else in a pool
    of processes."""
    if processes == 1:
        yield from map(play, jobs)
        return
    with ProcessPoolExecutor(processes) as pool:
        yield from pool.map(play, jobs, chunksize=4)


def mirror_bits(width: int) -> Any:
    """The bitboard turned round (square s to squares + 1 - s: the bits reversed in ``width``)."""

    def mirror(x: int) -> int:
        return int(format(x, f"0{width}b")[::-1], 2)

    return mirror


def pattern_mirror(ev: Evaluator, squares: int) -> np.ndarray:
    """``M[i]``: the pattern index of pattern ``i`` turned round (window mirrored, colours
    swapped): the window's squares s become squares + 1 - s, in reverse bit order."""
    wins = ev.win_squares
    where = {tuple(sorted(w)): i for i, w in enumerate(wins)}
    m = np.zeros(PATTERN_STATES * len(wins), dtype=np.int64)
    for i, sqs in enumerate(wins):
        j = where[tuple(sorted(squares + 1 - s for s in sqs))]
        assert list(wins[j]) == [squares + 1 - s for s in reversed(sqs)]
        for c in range(PATTERN_STATES):
            digits = [(c // 3**k) % 3 for k in range(4)]
            swapped = [(0, 2, 1)[d] for d in digits]
            mc = sum(swapped[k] * 3 ** (3 - k) for k in range(4))
            m[i * PATTERN_STATES + c] = j * PATTERN_STATES + mc
    return m


@dataclass
class Data:
    terms: np.ndarray  # N x N_TERMS, White's view
    pats: np.ndarray  # N x windows: pattern indices of the position
    mpats: np.ndarray  # N x windows: of the position turned round
    y: np.ndarray  # White's result
    held: np.ndarray  # bool: held out


def features(variant: str, games: Sequence[Game], first_game: int) -> Data:
    """The features of the games' positions (game ``first_game + k`` is the k-th)."""
    var = find_variant(variant)
    ev = Evaluator(var)
    g = geometry(var.size)
    width = max(g.bit_of[1 : g.squares + 1]) + 1
    mirror = mirror_bits(width)
    rows_t, rows_p, rows_m, ys, held = [], [], [], [], []
    for k, game in enumerate(games):
        out_held = (first_game + k) % 10 == 9
        for w, b, kings in game.positions:
            f = ev.features(w, b, kings)
            if f[0]:
                continue  # an endgame rule fixes the score
            fm = ev.features(mirror(b), mirror(w), mirror(kings))
            rows_t.append(f[1 : 1 + N_TERMS])
            rows_p.append(f[1 + N_TERMS :])
            rows_m.append(fm[1 + N_TERMS :])
            ys.append(game.result)
            held.append(out_held)
    return Data(
        np.array(rows_t, dtype=np.float64).reshape(-1, N_TERMS),
        np.array(rows_p, dtype=np.int64).reshape(len(ys), -1),
        np.array(rows_m, dtype=np.int64).reshape(len(ys), -1),
        np.array(ys, dtype=np.float64),
        np.array(held, dtype=bool),
    )


def concat(parts: list[Data]) -> Data:
    return Data(
        *(
            np.concatenate([getattr(p, f) for p in parts])
            for f in ("terms", "pats", "mpats", "y", "held")
        )
    )


def log_loss(e: np.ndarray, y: np.ndarray) -> float:
    """Mean log loss of ``sigmoid(e)`` (logits) against ``y``."""
    return float(np.mean(np.logaddexp(0, e) - y * e))


def fit(
    data: Data, hand: np.ndarray, n_pat: int, k_scale: float, l2: float, steps: int
) -> tuple[np.ndarray, np.ndarray, dict[str, float]]:
    """Fit term coefficients and pattern values (logits per centi-man scaled by ``k_scale``)
    on the positions not held out, by full-batch Adam; returns them in centi-men and the fit."""
    tr = ~data.held
    t, p, pm, y = data.terms[tr], data.pats[tr], data.mpats[tr], data.y[tr]
    n, nw = p.shape
    c = hand / k_scale  # start from the hand-tuned coefficients
    pv = np.zeros(n_pat)
    params = [c, pv]
    m1 = [np.zeros_like(x) for x in params]
    m2 = [np.zeros_like(x) for x in params]
    lr, b1, b2 = 0.01, 0.9, 0.999
    pf, pmf = p.ravel(), pm.ravel()
    for step in range(1, steps + 1):
        e = t @ c + pv[p].sum(axis=1) - pv[pm].sum(axis=1)
        g = (1 / (1 + np.exp(-e)) - y) / n
        gc = t.T @ g
        gw = np.repeat(g, nw)
        gp = (
            np.bincount(pf, weights=gw, minlength=n_pat)
            - np.bincount(pmf, weights=gw, minlength=n_pat)
            + 2 * l2 * pv
        )
        for i, gr in enumerate((gc, gp)):
            m1[i] = b1 * m1[i] + (1 - b1) * gr
            m2[i] = b2 * m2[i] + (1 - b2) * gr * gr
            mh = m1[i] / (1 - b1**step)
            vh = m2[i] / (1 - b2**step)
            params[i] -= lr * mh / (np.sqrt(vh) + 1e-8)
        c, pv = params
    stats: dict[str, float] = {}
    for name, sel in (("train", tr), ("held", data.held)):
        if sel.any():
            e_h = data.terms[sel] @ (hand / k_scale)
            e_t = (
                data.terms[sel] @ c
                + pv[data.pats[sel]].sum(axis=1)
                - pv[data.mpats[sel]].sum(axis=1)
            )
            stats[f"{name}_positions"] = int(sel.sum())
            stats[f"{name}_loss_hand"] = round(log_loss(e_h, data.y[sel]), 5)
            stats[f"{name}_loss_trained"] = round(log_loss(e_t, data.y[sel]), 5)
    return c * k_scale, pv * k_scale, stats


def normalise(coef: list[int], patterns: list[int]) -> tuple[list[int], list[int]]:
    """The weights scaled so that a man is worth 100 centi-men, as in the hand-tuned evaluation
    (the scale the weak levels' blunder margins and the analyses' thresholds are set in); the
    moves the search prefers do not change."""
    f = 100 * SCALE / coef[0]
    return [int(round(x * f)) for x in coef], [int(round(x * f)) for x in patterns]


def fit_k(data: Data, hand: np.ndarray) -> float:
    """The scale ``K`` (centi-men) at which the hand-tuned evaluation best predicts the results."""
    e = data.terms @ hand
    best = min(range(20, 1001, 10), key=lambda k: log_loss(e / k, data.y))
    return float(best)


def train(args: argparse.Namespace, out: Any = print) -> weights_mod.Weights:
    variant = args.variant
    var = find_variant(variant)
    ev = Evaluator(var)
    hand = np.array(ev.coef, dtype=np.float64) / SCALE
    n_pat = PATTERN_STATES * int(ev.n_win)
    mirror_index = pattern_mirror(ev, Board(variant).geo.squares)
    coef: list[int] | None = None
    patterns: list[int] | None = None
    parts: list[Data] = []
    k_scale = 0.0
    k_man = 0.0
    stats: dict[str, float] = {}
    t0 = time.monotonic()
    for gen in range(args.generations):
        first = gen * args.games
        jobs = [
            (variant, args.seed * 1_000_003 + first + i, args.nodes, coef, patterns)
            for i in range(args.games)
        ]
        cached = None
        if args.cache is not None:
            cached = args.cache / (
                f"{variant}-seed{args.seed}-games{args.games}-nodes{args.nodes}-l2{args.l2}"
                f"-steps{args.steps}-gen{gen}.json"
            )
        if cached is not None and cached.exists():
            games = [Game([tuple(p) for p in g[0]], g[1]) for g in json.loads(cached.read_text())]
            out(f"  generation {gen}: {len(games)} games read from {cached}")
        else:
            games = []
            for i, game in enumerate(_played(jobs, args.processes)):
                games.append(game)
                if (i + 1) % max(1, args.games // 10) == 0:
                    out(
                        f"  generation {gen}: {i + 1}/{args.games} games "
                        f"({time.monotonic() - t0:.0f} s)"
                    )
            if cached is not None:
                cached.parent.mkdir(parents=True, exist_ok=True)
                cached.write_text(json.dumps([[g.positions, g.result] for g in games]))
        results = [g.result for g in games]
        out(
            f"generation {gen}: {len(games)} games, White {results.count(1.0)}, draws "
            f"{results.count(0.5)}, Black {results.count(0.0)}"
        )
        parts.append(features(variant, games, first))
        data = concat(parts)
        if not k_scale:
            k_scale = fit_k(data, hand)
            out(f"K = {k_scale:.0f} centi-men")
        c, pv, stats = fit(data, hand, n_pat, k_scale, args.l2, args.steps)
        shipped = pv - pv[mirror_index]
        k_man = k_scale * 100 / c[0]  # K in the shipped scale, where a man is 100
        coef, patterns = normalise(
            [int(round(x * SCALE)) for x in c], [int(round(x * SCALE)) for x in shipped]
        )
        out(f"generation {gen}: fitted on {len(data.y)} positions: {stats}")
        out(
            "  terms: "
            + ", ".join(f"{n} {x / SCALE:.1f}" for n, x in zip(TERMS, coef, strict=True))
        )
    assert coef is not None and patterns is not None
    w = weights_mod.Weights(
        variant,
        tuple(coef),
        tuple(patterns),
        {
            "command": "python -m tools.train_eval " + " ".join(_settings(args.argv)),
            "seed": args.seed,
            "games_per_generation": args.games,
            "generations": args.generations,
            "nodes_per_move": args.nodes,
            "l2": args.l2,
            "steps": args.steps,
            "k_centimen": round(k_man, 1),
            **stats,
        },
    )
    return w


def _settings(argv: list[str]) -> list[str]:
    """The command's arguments without those that do not change the weights (where they are
    written, how many processes play)."""
    kept: list[str] = []
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in ("--out", "--processes", "--cache"):
            skip = True
        elif not arg.startswith(("--out=", "--processes=", "--cache=")):
            kept.append(arg)
    return kept


def main(argv: Sequence[str] | None = None, out: Any = print) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.train_eval", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--variant", required=True, choices=sorted(OPENINGS))
    parser.add_argument("--seed", type=int, default=52)
    parser.add_argument("--games", type=int, default=1600, help="self-play games a generation")
    parser.add_argument("--generations", type=int, default=2)
    parser.add_argument("--nodes", type=int, default=3000, help="search nodes a move")
    parser.add_argument("--l2", type=float, default=2e-5, help="ridge on the pattern values")
    parser.add_argument("--steps", type=int, default=400, help="Adam steps of each fit")
    parser.add_argument("--processes", type=int, default=None)
    parser.add_argument("--out", type=Path, default=weights_mod.WEIGHTS_DIR)
    parser.add_argument(
        "--cache",
        type=Path,
        default=None,
        help="keep each generation's games here and read them back when the settings match "
        "(a later run with more generations plays only the new ones)",
    )
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    w = train(args, out)
    path = weights_mod.write(w, args.out)
    out(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
