"""The benchmark behind ``make bench``: ``python -m tools.bench [--quick] [--section NAME]``.

It prints, in one run, leaf nodes per second of our perft from the start positions beside
py-draughts 1.10.1 (a dev dependency, imported only here and only when the bench runs), as ratios
``dama / py-draughts`` (above 1.00x: we are faster):

* ``perft``: the fast core (:meth:`dama.Board.perft`) against py-draughts' bitboard perft (its
  ``TurboEngine`` module) for international draughts, and against a perft loop over its public
  ``legal_moves``/``push``/``pop`` for Brazilian; Czech (which py-draughts lacks) on its own.
* ``api``: a perft loop over our public API (``Board.legal_moves`` with full :class:`~dama.Move`
  objects, ``push``, ``pop``) against the same loop over py-draughts' public API.

Each figure is the fastest of ``--repeat`` runs (default 3), ours and theirs alternating, timed in
CPU seconds of this process so that other load on a shared machine skews the ratios less. Every
count is checked against the published tables in ``tests/engine/data/perft.json`` when that
file is there. Both API loops count leaves in bulk at the last ply (``len(legal_moves)``).

The bench is a list of sections (:data:`SECTIONS`): a section is a function taking a
:class:`BenchContext` and returning :class:`Row` objects; add one to bench something else.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

from dama._loader import COMPILED, build_info
from dama.board import Board
from dama.match import GameRecord

PY_DRAUGHTS_VERSION = "1.10.1"
#: the project's root (this file is tools/bench.py)
ROOT = Path(__file__).resolve().parent.parent
_TABLE = ROOT / "tests" / "engine" / "data" / "perft.json"


@dataclass(frozen=True, slots=True)
class Timing:
    """Leaf nodes counted and the seconds it took."""

    nodes: int
    seconds: float

    @property
    def nps(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else float("inf")


@dataclass(slots=True)
class Row:
    """One measurement: ours, optionally theirs on the same work, and what theirs is."""

    label: str
    depth: int | None
    ours: Timing
    theirs: Timing | None = None
    #: what the py-draughts figure measures, e.g. "TurboEngine bitboard perft"
    against: str = ""
    #: the published node count, when there is one
    expected: int | None = None
    note: str = ""
    #: both sides count the same nodes (perft); False where each counts its own (searches)
    same_nodes: bool = True

    @property
    def ratio(self) -> float | None:
        if self.theirs is None:
            return None
        return self.ours.nps / self.theirs.nps

    def check(self) -> str:
        counts = [self.ours.nodes] + ([self.theirs.nodes] if self.theirs else [])
        if self.theirs is not None and self.same_nodes and self.theirs.nodes != self.ours.nodes:
            return "MISMATCH"
        if self.expected is None:
            return "-"
        return "ok" if all(n == self.expected for n in counts) else "MISMATCH"


@dataclass(slots=True)
class BenchContext:
    """What a section gets: quick mode, py-draughts (None when not installed), a printer."""

    quick: bool
    draughts: ModuleType | None
    out: Callable[[str], None]
    table: dict[str, list[int]] = field(default_factory=dict)
    #: runs of each measurement; the fastest counts
    repeat: int = 1
    #: variants the playing-engine sections play (empty: all)
    variants: tuple[str, ...] = ()

    def expected(self, variant: str, depth: int) -> int | None:
        """The published perft of ``variant``'s start position at ``depth``, if known."""
        nodes = self.table.get(variant, [])
        return nodes[depth - 1] if 0 < depth <= len(nodes) else None


@dataclass(frozen=True, slots=True)
class Section:
    name: str
    title: str
    run: Callable[[BenchContext], list[Row]]


# -- timing helpers --------------------------------------------------------------------------------
#: a measured piece of work: a function returning a node count, and its arguments
Job = tuple[Callable[..., int], tuple[Any, ...]]


def _timed(job: Job) -> Timing:
    """Run ``job`` once, timed by this process's CPU time (other load on the machine does not count)."""
    fn, args = job
    t0 = time.process_time()
    n = int(fn(*args))
    return Timing(n, time.process_time() - t0)


def measure(repeat: int, ours: Job, theirs: Job | None = None) -> tuple[Timing, Timing | None]:
    """The fastest of ``repeat`` runs of each job, the two alternating run by run."""
    best: list[Timing | None] = [None, None]
    for _ in range(repeat):
        for i, job in enumerate((ours, theirs)):
            if job is None:
                continue
            t = _timed(job)
            b = best[i]
            if b is not None and t.nodes != b.nodes:
                raise RuntimeError(f"{job[0].__name__} counted {b.nodes}, then {t.nodes}")
            if b is None or t.seconds < b.seconds:
                best[i] = t
    assert best[0] is not None
    return best[0], best[1]


def api_perft(board: Any, depth: int) -> int:
    """Perft over a public API (``legal_moves``, ``push``, ``pop``); works on both libraries."""
    moves = board.legal_moves
    if depth <= 1:
        return len(moves) if depth == 1 else 1
    total = 0
    push, pop = board.push, board.pop
    for m in moves:
        push(m)
        total += api_perft(board, depth - 1)
        pop()
    return total


def _their_board(draughts: ModuleType, variant: str) -> Any:
    cls = {"international": "StandardBoard", "brazilian": "BrazilianBoard"}[variant]
    return getattr(draughts, cls)()


# -- sections -------------------------------------------------------------------------------------
PERFT_DEPTHS = {"international": 8, "brazilian": 9, "czech": 9}
API_DEPTHS = {"international": 7, "brazilian": 8, "czech": 8}
QUICK_PERFT_DEPTHS = {"international": 5, "brazilian": 6, "czech": 6}
QUICK_API_DEPTHS = {"international": 4, "brazilian": 5, "czech": 5}
_THEIR_API = "py-draughts public API loop (legal_moves/push/pop)"


def perft_section(ctx: BenchContext) -> list[Row]:
    """Fast-core perft from the start positions (international 8, Brazilian and Czech 9)."""
    rows = []
    for variant, depth in (QUICK_PERFT_DEPTHS if ctx.quick else PERFT_DEPTHS).items():
        theirs: Job | None = None
        against = note = ""
        if ctx.draughts is None or variant == "czech":
            note = "py-draughts has no Czech draughts" if variant == "czech" else ""
        elif variant == "international":
            turbo = importlib.import_module("draughts.engines.turbo")
            theirs = (turbo.perft_from_board, (_their_board(ctx.draughts, variant), depth))
            against = "py-draughts TurboEngine bitboard perft"
        else:
            theirs = (api_perft, (_their_board(ctx.draughts, variant), depth))
            against = _THEIR_API
        ours_t, theirs_t = measure(ctx.repeat, (Board(variant).perft, (depth,)), theirs)
        row = Row(
            f"{variant} perft", depth, ours_t, theirs_t, against, ctx.expected(variant, depth), note
        )
        rows.append(row)
        ctx.out(_progress(row))
    return rows


def api_section(ctx: BenchContext) -> list[Row]:
    """Perft through each library's public API (full move objects, push, pop) on the same trees."""
    rows = []
    for variant, depth in (QUICK_API_DEPTHS if ctx.quick else API_DEPTHS).items():
        theirs: Job | None = None
        against = note = ""
        if variant == "czech":
            note = "py-draughts has no Czech draughts"
        elif ctx.draughts is not None:
            theirs = (api_perft, (_their_board(ctx.draughts, variant), depth))
            against = _THEIR_API
        ours_t, theirs_t = measure(ctx.repeat, (api_perft, (Board(variant), depth)), theirs)
        row = Row(
            f"{variant} public API",
            depth,
            ours_t,
            theirs_t,
            against,
            ctx.expected(variant, depth),
            note,
        )
        rows.append(row)
        ctx.out(_progress(row))
    return rows


#: the shipped puzzle corpus the solver section proves a sample of
_CORPUS = ROOT / "fixtures" / "puzzles"
SOLVER_SAMPLE = 20
QUICK_SOLVER_SAMPLE = 5


def solver_section(ctx: BenchContext) -> list[Row]:
    """The solver on a fixed sample of the corpus: the first 20 puzzles of each variant's file
    (5 with --quick), each proved again at its horizon; puzzles/s and nodes/s per variant."""
    from dama.pdn import read_tags
    from dama.solve import Limits, solve

    rows = []
    sample = QUICK_SOLVER_SAMPLE if ctx.quick else SOLVER_SAMPLE
    for variant in ("international", "brazilian", "czech"):
        path = _CORPUS / f"{variant}.pdn"
        try:
            tags = read_tags(path.read_text(encoding="utf-8"))[:sample]
        except OSError:
            ctx.out(f"  ... {variant}: no corpus at {path}, skipped")
            continue
        puzzles = [(Board(variant, t["FEN"]), t["Goal"], int(t["Horizon"])) for t in tags]
        kinds: dict[str, int] = {}

        def prove_all(
            puzzles: list[tuple[Board, str, int]] = puzzles, kinds: dict[str, int] = kinds
        ) -> int:
            kinds.clear()
            nodes = 0
            for board, goal, horizon in puzzles:
                v = solve(board, goal, Limits(moves=horizon))
                kinds[v.kind] = kinds.get(v.kind, 0) + 1
                nodes += v.nodes
            return nodes

        ours, _ = measure(ctx.repeat, (prove_all, ()))
        n = len(puzzles)
        pps = n / ours.seconds if ours.seconds > 0 else float("inf")
        verdicts = ", ".join(f"{k} {c}" for k, c in sorted(kinds.items()))
        row = Row(
            f"{variant} solver",
            None,
            ours,
            note=f"{n} corpus puzzles, {pps:.1f} puzzles/s; verdicts: {verdicts}",
        )
        rows.append(row)
        ctx.out(f"  ... {row.label}: {n} puzzles in {ours.seconds:.2f} s ({pps:.1f}/s)")
    return rows


DEEP_HORIZON = 6  #: solver moves: with the H + 2 margin the search reaches 15-16 plies


def deep_solver_section(ctx: BenchContext) -> list[Row]:
    """Deep proofs: the three longest gain/win puzzles of each variant's corpus, proved with a
    horizon of 6 moves, so that the uniqueness search (H + 2) looks 15-16 plies ahead. The issue's
    target is a 15-ply proof in under 30 s on one worker; the row shows the slowest proof."""
    from dama.pdn import read_tags
    from dama.solve import Limits, solve

    rows = []
    for variant in ("international", "brazilian", "czech"):
        path = _CORPUS / f"{variant}.pdn"
        try:
            tags = read_tags(path.read_text(encoding="utf-8"))
        except OSError:
            ctx.out(f"  ... {variant}: no corpus at {path}, skipped")
            continue
        deep = [t for t in tags if t["Goal"] == "win" or t["Goal"].startswith("gain:")]
        deep.sort(key=lambda t: (-int(t["Horizon"]), t["FEN"]))
        chosen = deep[: 1 if ctx.quick else 3]
        slowest = [0.0]
        plies = [0]

        def prove(
            chosen: list[dict[str, str]] = chosen,
            variant: str = variant,
            slowest: list[float] = slowest,
            plies: list[int] = plies,
        ) -> int:
            nodes = 0
            for t in chosen:
                t0 = time.process_time()
                v = solve(Board(variant, t["FEN"]), t["Goal"], Limits(moves=DEEP_HORIZON))
                slowest[0] = max(slowest[0], time.process_time() - t0)
                plies[0] = max(plies[0], v.depth)
                nodes += v.nodes
            return nodes

        ours, _ = measure(1, (prove, ()))
        row = Row(
            f"{variant} deep proofs",
            None,
            ours,
            note=f"{len(chosen)} proofs searched to {plies[0]} plies; slowest {slowest[0]:.2f} s",
        )
        rows.append(row)
        ctx.out(f"  ... {row.label}: slowest {slowest[0]:.2f} s at {plies[0]} plies")
    return rows


# -- the playing engine: strength against py-draughts, nodes per second, the level ladder ---------
PLAY_SECONDS = 0.1  #: time a move for both engines in the games against py-draughts
PLAY_GAMES = 20  #: games per variant against py-draughts (openings x 2, colours swapped)
QUICK_PLAY_GAMES = 2
NPS_SECONDS = 0.5  #: time of each search in the nodes-per-second comparison
LADDER_GAMES = 16  #: games per pair of neighbouring levels (8 vs 7 takes about 20 min a variant)
QUICK_LADDER_GAMES = 2
_THEIR_ENGINES = {"international": "TurboEngine", "brazilian": "SimpleEngine"}


def _their_squares(draughts: ModuleType, variant: str) -> list[int]:
    """py-draughts 0-based square index -> our square number (its 8x8 squares by name)."""
    from dama.geometry import geometry
    from dama.variants import find_variant

    g = geometry(find_variant(variant).size)
    names = list(_their_board(draughts, variant).SQUARE_NAMES)
    if names:
        return [g.parse(n) or 0 for n in names]
    return list(range(1, g.squares + 1))


def _their_key(move: Any, squares: list[int]) -> tuple[int, int, frozenset[int]]:
    route = move.square_list
    return (
        squares[route[0]],
        squares[route[-1]],
        frozenset(squares[c] for c in move.captured_list),
    )


def play_vs_draughts(
    draughts: ModuleType,
    variant: str,
    opening: tuple[str, ...],
    ours_white: bool,
    seconds: float,
    ply_cap: int = 0,
) -> tuple[bool | None, str, int, float, float, int, float]:
    """One game of our search against py-draughts' engine at ``seconds`` a move, from ``opening``.

    Returns (did we win: True/False/None for a draw, the reason, plies, our seconds a move,
    theirs (wall clock), our nodes and our CPU seconds). The game ends by our variant's rules
    (:meth:`dama.Board.outcome`) or at ``ply_cap`` plies (default :data:`dama.match.PLY_CAP`),
    a draw."""
    from dama.match import PLY_CAP, opening_board
    from dama.search import Memory, search

    ours = opening_board(variant, opening)
    assert isinstance(ours, Board)
    theirs = _their_board(draughts, variant)
    squares = _their_squares(draughts, variant)
    engine = getattr(draughts, _THEIR_ENGINES[variant])(depth_limit=None, time_limit=seconds)

    def sync(move_key: tuple[int, int, frozenset[int]]) -> None:
        for tm in theirs.legal_moves:
            if _their_key(tm, squares) == move_key:
                theirs.push(tm)
                return
        raise RuntimeError(f"py-draughts has no move {move_key} in {ours.fen()}")

    for m in ours.move_stack:
        sync(m.key())
    memory = Memory()  # our side's tables, kept from move to move as in a game on the site
    spent = [0.0, 0.0]
    moved = [0, 0]
    nodes = 0
    cpu = 0.0
    while True:
        out = ours.outcome()
        if out is not None:
            won = None if out.winner is None else out.winner == ours_white
            break
        if ours.ply >= (ply_cap or PLY_CAP):
            won, out = None, None
            break
        mine = ours.turn == ours_white
        t0 = time.perf_counter()
        if mine:
            c0 = time.process_time()
            r = search(ours, seconds=seconds, seed=ours.ply, memory=memory)
            cpu += time.process_time() - c0
            move = r.move
            nodes += r.nodes
        else:
            key = _their_key(engine.get_best_move(theirs), squares)
            move = next(m for m in ours.legal_moves if m.key() == key)
        spent[0 if mine else 1] += time.perf_counter() - t0
        moved[0 if mine else 1] += 1
        sync(move.key())
        ours.push(move)
    reason = out.reason if out is not None else "ply_cap"
    return (
        won,
        reason,
        ours.ply,
        spent[0] / max(moved[0], 1),
        spent[1] / max(moved[1], 1),
        nodes,
        cpu,
    )


def play_section(ctx: BenchContext) -> list[Row]:
    """Our engine against py-draughts at equal time a move (TurboEngine on international,
    SimpleEngine on Brazilian), from the balanced openings of :data:`dama.match.OPENINGS` with
    colours swapped; then nodes per second of both searches on the same positions."""
    from dama.match import OPENINGS, opening_board
    from dama.search import search

    rows: list[Row] = []
    if ctx.draughts is None:
        ctx.out("  ... py-draughts is not installed: no games against it")
        return rows
    games = QUICK_PLAY_GAMES if ctx.quick else PLAY_GAMES
    for variant in ("international", "brazilian"):
        if ctx.variants and variant not in ctx.variants:
            continue
        wins = draws = losses = 0
        t_ours = t_theirs = 0.0
        plies = nodes = 0
        t_total = 0.0
        for g in range(games):
            opening = OPENINGS[variant][(g // 2) % len(OPENINGS[variant])]
            won, reason, n, mine, theirs, used, cpu = play_vs_draughts(
                ctx.draughts, variant, opening, g % 2 == 0, PLAY_SECONDS
            )
            wins += won is True
            losses += won is False
            draws += won is None
            t_ours += mine
            t_theirs += theirs
            plies += n
            nodes += used
            t_total += cpu
            result = {True: "win", False: "loss", None: "draw"}[won]
            ctx.out(f"  ... {variant} game {g + 1}: {result} ({reason}, {n} plies)")
        pct = 100.0 * (wins + draws / 2) / games
        note = (
            f"vs py-draughts {_THEIR_ENGINES[variant]} at {PLAY_SECONDS} s a move: {games} games, "
            f"+{wins} ={draws} -{losses}, {pct:.1f} % of the points (target >= 75 %); "
            f"seconds a move: dama {t_ours / games:.3f}, py-draughts {t_theirs / games:.3f}"
        )
        ctx.out(f"  {variant}: {note}")
        rows.append(Row(f"{variant} games", None, Timing(nodes, t_total), note=note))
    # nodes per second on the same positions (each library counts its own nodes)
    turbo = ctx.draughts.TurboEngine
    sq = _their_squares(ctx.draughts, "international")
    ours_nodes = theirs_nodes = 0
    ours_s = theirs_s = 0.0
    for opening in OPENINGS["international"][: 3 if ctx.quick else len(OPENINGS["international"])]:
        board = opening_board("international", opening)
        t0 = time.process_time()
        ours_nodes += search(board, seconds=NPS_SECONDS).nodes
        ours_s += time.process_time() - t0
        theirs = _their_board(ctx.draughts, "international")
        for m in board.move_stack:
            key = m.key()
            theirs.push(next(tm for tm in theirs.legal_moves if _their_key(tm, sq) == key))
        engine = turbo(depth_limit=None, time_limit=NPS_SECONDS)
        t0 = time.process_time()
        engine.get_best_move(theirs)
        theirs_s += time.process_time() - t0
        theirs_nodes += int(engine.nodes)
    row = Row(
        "international search",
        None,
        Timing(ours_nodes, ours_s),
        Timing(theirs_nodes, theirs_s),
        f"py-draughts TurboEngine search, {NPS_SECONDS} s on each opening position",
        same_nodes=False,
    )
    ctx.out(f"  ... search nodes/s: dama {row.ours.nps:,.0f}, TurboEngine {_fmt_nps(row.theirs)}")
    rows.append(row)
    return rows


def ladder_section(ctx: BenchContext) -> list[Row]:
    """Each level against the level below, in every variant (``python -m dama match``)."""
    from dama.match import Player, play_match

    rows: list[Row] = []
    summary: list[str] = []
    games = QUICK_LADDER_GAMES if ctx.quick else LADDER_GAMES
    for variant in ("czech", "international", "brazilian"):
        if ctx.variants and variant not in ctx.variants:
            continue
        for level in range(2, 9):
            t0 = time.process_time()
            score = play_match(variant, Player(level=level), Player(level=level - 1), games)
            dt = time.process_time() - t0
            note = (
                f"level {level} vs {level - 1}: +{score.wins} ={score.draws} -{score.losses}, "
                f"{score.percent:.1f} % (target >= 65 %)"
            )
            ctx.out(f"  ... {variant} {note} ({dt:.0f} s)")
            summary.append(f"  {variant} {note}")
    for line in summary:  # no nodes/s rows: the table below is for speed
        ctx.out(line)
    return rows


# -- the playing engine against its previous version (issue 52) -----------------------------------
#: node limit of each search in the nodes-per-second comparison (the same limit for both)
PREV_NODES = 40_000
QUICK_PREV_NODES = 5_000
#: time a move in the games between the two versions (wall clock, each side alike)
PREV_SECONDS = 0.1
PREV_GAMES = 12
QUICK_PREV_GAMES = 2


def play_vs_previous(
    variant: str, opening: tuple[str, ...], new_white: bool, seconds: float, seed: int
) -> tuple[bool | None, str, int, int, int]:
    """One game of :mod:`dama.search` against :mod:`dama.search_v1` (the previous search) at
    ``seconds`` a move, each side with its own memory: (the new search won: True, lost: False,
    drew: None; the reason; plies; the new search's nodes; the previous one's)."""
    from dama import search as new
    from dama import search_v1 as old
    from dama.match import PLY_CAP, opening_board

    b = opening_board(variant, opening)
    mem_new, mem_old = new.Memory(), old.Memory()
    nodes = [0, 0]
    while True:
        out = b.outcome()
        if out is not None:
            winner, reason = out.winner, out.reason
            break
        if b.ply >= PLY_CAP:
            winner, reason = None, "ply_cap"
            break
        if b.turn == new_white:
            r = new.search(b, seconds=seconds, seed=seed + b.ply, memory=mem_new)
            nodes[0] += r.nodes
        else:
            r2 = old.search(b, seconds=seconds, seed=seed + b.ply, memory=mem_old)
            nodes[1] += r2.nodes
            r = r2  # type: ignore[assignment]
        b.push(r.move)
    won = None if winner is None else winner == new_white
    return won, reason, b.ply, nodes[0], nodes[1]


def previous_section(ctx: BenchContext) -> list[Row]:
    """The playing search against its previous version (:mod:`dama.search_v1`, the search before
    issue 52, compiled alike) in one run: nodes per second on the same positions with the same
    node limit, then games at equal time a move from the balanced openings, colours swapped."""
    from dama import search as new
    from dama import search_v1 as old
    from dama.match import OPENINGS, opening_board

    rows: list[Row] = []
    limit = QUICK_PREV_NODES if ctx.quick else PREV_NODES
    for variant in ("international", "brazilian", "czech"):
        if ctx.variants and variant not in ctx.variants:
            continue
        boards = [opening_board(variant, o) for o in OPENINGS[variant]]
        best = _fastest(
            ctx,
            {
                "previous": partial(_nodes, old.search, boards, limit),
                "new": partial(_nodes, new.search, boards, limit),
            },
        )
        row = Row(
            f"{variant} search vs previous",
            None,
            best["new"],
            best["previous"],
            f"dama.search_v1, {len(boards)} openings, {limit:,} nodes each",
            same_nodes=False,
        )
        ctx.out(
            f"  ... {variant} search nodes/s: new {best['new'].nps:,.0f}, previous "
            f"{best['previous'].nps:,.0f}: {row.ratio:.2f}x"
        )
        rows.append(row)
    games = QUICK_PREV_GAMES if ctx.quick else PREV_GAMES
    for variant in ("international", "brazilian", "czech"):
        if ctx.variants and variant not in ctx.variants:
            continue
        wins = draws = losses = 0
        n_new = n_old = 0
        t0 = time.process_time()
        for g in range(games):
            opening = OPENINGS[variant][(g // 2) % len(OPENINGS[variant])]
            won, reason, plies, a, b = play_vs_previous(
                variant, opening, g % 2 == 0, PREV_SECONDS, seed=g
            )
            wins += won is True
            losses += won is False
            draws += won is None
            n_new += a
            n_old += b
            result = {True: "win", False: "loss", None: "draw"}[won]
            ctx.out(f"  ... {variant} game {g + 1} vs previous: {result} ({reason}, {plies} plies)")
        pct = 100.0 * (wins + draws / 2) / games
        note = (
            f"new vs previous at {PREV_SECONDS} s a move: {games} games, +{wins} ={draws} "
            f"-{losses}, {pct:.1f} % of the points (keep >= 60 %); nodes searched: new "
            f"{n_new:,}, previous {n_old:,}"
        )
        rows.append(_games_row(ctx, variant, "games vs previous", note, n_new, t0))
    return rows


def _nodes(search: Callable[..., Any], boards: list[Board], limit: int, **kw: Any) -> int:
    """The nodes of ``search`` on each board with ``limit`` nodes, summed."""
    return sum(search(b, nodes=limit, **kw).nodes for b in boards)


def _fastest(ctx: BenchContext, jobs: dict[str, Callable[[], int]]) -> dict[str, Timing]:
    """Each job (counting nodes) run ``ctx.repeat`` times, alternating: its fastest run, in CPU
    seconds."""
    best: dict[str, Timing] = {}
    for _ in range(ctx.repeat):
        for name, job in jobs.items():
            t0 = time.process_time()
            t = Timing(job(), time.process_time() - t0)
            if name not in best or t.seconds < best[name].seconds:
                best[name] = t
    return best


def _games_row(
    ctx: BenchContext, variant: str, label: str, note: str, count: int, t0: float
) -> Row:
    """A match's row: its score in the note (printed too), ``count`` and the CPU time since
    ``t0`` as its timing."""
    ctx.out(f"  {variant}: {note}")
    return Row(f"{variant} {label}", None, Timing(count, time.process_time() - t0), note=note)


# -- the evaluation: trained weights against the hand-tuned terms (issue 52) -----------------------
EVAL_NODES = 40_000
EVAL_SECONDS = 0.1
EVAL_GAMES = 48
QUICK_EVAL_GAMES = 2


def evaluation_section(ctx: BenchContext) -> list[Row]:
    """The trained evaluation (:mod:`dama.weights`) against the hand-tuned one, both in the same
    search, in one run: search nodes/s on the openings with the same node limit, then games at
    equal time a move from the balanced openings, colours swapped (keep a change at >= 60 %)."""
    from dama.evaluate import Evaluator, trained_evaluator
    from dama.match import OPENINGS, Player, opening_board, play_match
    from dama.search import search
    from dama.variants import find_variant

    rows: list[Row] = []
    limit = QUICK_PREV_NODES if ctx.quick else EVAL_NODES
    games = QUICK_EVAL_GAMES if ctx.quick else EVAL_GAMES
    for variant in ("international", "brazilian", "czech"):
        if ctx.variants and variant not in ctx.variants:
            continue
        var = find_variant(variant)
        evs = {"hand": Evaluator(var), "trained": trained_evaluator(var)}
        boards = [opening_board(variant, o) for o in OPENINGS[variant]]
        best = _fastest(
            ctx,
            {
                name: partial(_nodes, search, boards, limit, _evaluator=ev)
                for name, ev in evs.items()
            },
        )
        row = Row(
            f"{variant} search, trained vs hand evaluation",
            None,
            best["trained"],
            best["hand"],
            f"hand-tuned evaluation, {len(boards)} openings, {limit:,} nodes each",
            same_nodes=False,
        )
        ctx.out(
            f"  ... {variant} search nodes/s: trained {best['trained'].nps:,.0f}, hand "
            f"{best['hand'].nps:,.0f}: {row.ratio:.2f}x"
        )
        rows.append(row)
        a = Player(seconds=EVAL_SECONDS, eval="trained")
        b = Player(seconds=EVAL_SECONDS, eval="hand")
        t0 = time.process_time()

        def said(g: int, rec: GameRecord, a_white: bool, variant: str = variant) -> None:
            won = None if rec.winner is None else rec.winner == a_white
            result = {True: "win", False: "loss", None: "draw"}[won]
            ctx.out(f"  ... {variant} game {g + 1}, trained vs hand: {result} ({rec.reason})")

        score = play_match(variant, a, b, games, on_game=said)
        note = (
            f"trained vs hand at {EVAL_SECONDS} s a move: {games} games, +{score.wins} "
            f"={score.draws} -{score.losses}, {score.percent:.1f} % of the points (keep >= 60 %)"
        )
        rows.append(_games_row(ctx, variant, "games, trained vs hand", note, games, t0))
    return rows


# -- depth in a second, and level 8 on a busy machine (issue 52) -------------------------------------
DEPTH_SECONDS = 1.0
BUSY_GAMES = 10
BUSY_MOVES = 12


def depth_section(ctx: BenchContext) -> list[Row]:
    """The depth the search completes in 1 s (wall clock) on each balanced opening."""
    from dama.match import OPENINGS, opening_board
    from dama.search import search

    rows: list[Row] = []
    for variant in ("international", "brazilian", "czech"):
        if ctx.variants and variant not in ctx.variants:
            continue
        depths: list[int] = []
        nodes = 0
        t0 = time.process_time()
        for o in OPENINGS[variant][: 3 if ctx.quick else None]:
            r = search(opening_board(variant, o), seconds=DEPTH_SECONDS)
            depths.append(r.depth)
            nodes += r.nodes
        note = (
            f"depth completed in {DEPTH_SECONDS} s on {len(depths)} openings: min {min(depths)}, "
            f"median {sorted(depths)[len(depths) // 2]}, max {max(depths)} (target 14)"
        )
        ctx.out(f"  {variant}: {note}")
        rows.append(
            Row(f"{variant} depth in 1 s", None, Timing(nodes, time.process_time() - t0), note=note)
        )
    return rows


def _busy_game(job: tuple[str, int, int]) -> list[float]:
    """A game of level 8 against itself for ``moves`` moves: each move's wall-clock seconds."""
    from dama.match import OPENINGS, opening_board
    from dama.search import Memory, best_move

    variant, g, moves = job
    b = opening_board(variant, OPENINGS[variant][g % len(OPENINGS[variant])])
    memories = {True: Memory(), False: Memory()}
    times: list[float] = []
    for _ in range(moves):
        if b.outcome() is not None:
            break
        t0 = time.perf_counter()
        r = best_move(b, 8, g + b.ply, memories[b.turn])
        times.append(time.perf_counter() - t0)
        b.push(r.move)
    return times


def busy_section(ctx: BenchContext) -> list[Row]:
    """Level 8's move on a busy machine: 10 games of level 8 at once, one process each (more
    than the cores), each move's wall-clock time (target: within 2 s)."""
    from concurrent.futures import ProcessPoolExecutor

    rows: list[Row] = []
    games = 3 if ctx.quick else BUSY_GAMES
    moves = 2 if ctx.quick else BUSY_MOVES
    for variant in ("international", "brazilian", "czech"):
        if ctx.variants and variant not in ctx.variants:
            continue
        t0 = time.perf_counter()
        with ProcessPoolExecutor(games) as pool:
            times = sorted(
                t
                for ts in pool.map(_busy_game, [(variant, g, moves) for g in range(games)])
                for t in ts
            )
        wall = time.perf_counter() - t0

        def pct(q: float, times: list[float] = times) -> float:
            return times[min(len(times) - 1, int(q * len(times)))]

        note = (
            f"level 8, {games} games at once on {os.cpu_count()} cores: {len(times)} moves, wall "
            f"p50 {pct(0.5):.2f} s, p95 {pct(0.95):.2f} s, max {times[-1]:.2f} s (target <= 2 s)"
        )
        ctx.out(f"  {variant}: {note}")
        rows.append(
            Row(
                f"{variant} level 8, {games} games at once",
                None,
                Timing(len(times), wall),
                note=note,
            )
        )
    return rows


# -- both builds: the compiled engine against pure Python, in one run ------------------------------
BUILD_PERFT_DEPTHS = {"international": 7, "brazilian": 8, "czech": 8}
QUICK_BUILD_PERFT_DEPTHS = {"international": 5, "brazilian": 6, "czech": 6}
#: puzzles of each variant's corpus file proved with --quick (all of them otherwise)
QUICK_SOLVER_PUZZLES = 20
#: the node limit of each playing search (the same tree in both builds)
SEARCH_NODES = 40_000
QUICK_SEARCH_NODES = 5_000
THEIR_SEARCH_SECONDS = 0.5
WORKLOADS = ("perft:international", "perft:brazilian", "perft:czech", "solver", "search")


def _perft_workload(variant: str, quick: bool) -> tuple[int, int]:
    depth = (QUICK_BUILD_PERFT_DEPTHS if quick else BUILD_PERFT_DEPTHS)[variant]
    return Board(variant).perft(depth), 1


def _solver_puzzles(quick: bool) -> list[tuple[Board, str, int]]:
    """The corpus puzzles the solver workload proves (read before the clock starts: reading the
    PDN is not the solver's work)."""
    from dama.pdn import read_tags

    out = []
    for variant in ("international", "brazilian", "czech"):
        tags = read_tags((_CORPUS / f"{variant}.pdn").read_text(encoding="utf-8"))
        for t in tags[:QUICK_SOLVER_PUZZLES] if quick else tags:
            out.append((Board(variant, t["FEN"]), t["Goal"], int(t["Horizon"])))
    return out


def _solver_workload(puzzles: list[tuple[Board, str, int]]) -> tuple[int, int]:
    from dama.solve import Limits, solve

    nodes = 0
    for board, goal, horizon in puzzles:
        nodes += solve(board, goal, Limits(moves=horizon)).nodes
    return nodes, len(puzzles)


def _search_workload(quick: bool) -> tuple[int, int]:
    from dama.match import OPENINGS, opening_board
    from dama.search import search

    nodes = positions = 0
    for opening in OPENINGS["international"]:
        board = opening_board("international", opening)
        nodes += search(board, nodes=QUICK_SEARCH_NODES if quick else SEARCH_NODES).nodes
        positions += 1
    return nodes, positions


def workload(name: str, quick: bool) -> Callable[[], tuple[int, int]]:
    """One workload, ready to run: a call gives (nodes, items), items being proofs for
    ``solver``, positions for ``search``, 1 for perft. What is not the engine's work (reading
    the corpus) is done here, before any clock starts."""
    if name.startswith("perft:"):
        variant = name.split(":", 1)[1]
        return lambda: _perft_workload(variant, quick)
    if name == "solver":
        puzzles = _solver_puzzles(quick)
        return lambda: _solver_workload(puzzles)
    if name == "search":
        return lambda: _search_workload(quick)
    raise ValueError(f"unknown workload {name!r}: one of {', '.join(WORKLOADS)}")


def timed_workload(name: str, quick: bool, repeat: int) -> tuple[int, int, float]:
    """(nodes, items, seconds): the fastest of ``repeat`` runs, in CPU seconds."""
    run = workload(name, quick)
    best = None
    for _ in range(repeat):
        t0 = time.process_time()
        nodes, items = run()
        dt = time.process_time() - t0
        if best is not None and best[0] != nodes:
            raise RuntimeError(f"{name} counted {best[0]} nodes, then {nodes}")
        if best is None or dt < best[2]:
            best = (nodes, items, dt)
    assert best is not None
    return best


def timed_pure(name: str, quick: bool, repeat: int) -> tuple[int, int, float]:
    """:func:`timed_workload` in a child process running pure Python (``DAMA_PURE=1``)."""
    code = "import sys; from tools.bench import workload_main; sys.exit(workload_main())"
    cmd = [sys.executable, "-c", code, name, "--repeat", str(repeat)]
    env = {**os.environ, "DAMA_PURE": "1"}
    out = subprocess.run(
        cmd + (["--quick"] if quick else []),
        cwd=ROOT,  # where ``tools`` and ``dama`` are imported from
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    d = json.loads(out.strip().splitlines()[-1])
    assert d["compiled"] is False
    return int(d["nodes"]), int(d["items"]), float(d["seconds"])


def _theirs(ctx: BenchContext, name: str) -> tuple[Timing | None, str]:
    if ctx.draughts is None:
        return None, ""
    if name == "perft:international":
        depth = (QUICK_BUILD_PERFT_DEPTHS if ctx.quick else BUILD_PERFT_DEPTHS)["international"]
        turbo = importlib.import_module("draughts.engines.turbo")
        job = (turbo.perft_from_board, (_their_board(ctx.draughts, "international"), depth))
        return measure(ctx.repeat, job)[0], "py-draughts TurboEngine perft"
    if name == "perft:brazilian":
        depth = (QUICK_BUILD_PERFT_DEPTHS if ctx.quick else BUILD_PERFT_DEPTHS)["brazilian"]
        job = (api_perft, (_their_board(ctx.draughts, "brazilian"), depth))
        return measure(ctx.repeat, job)[0], "py-draughts public API perft"
    if name == "search":
        from dama.match import OPENINGS, opening_board

        sq = _their_squares(ctx.draughts, "international")
        nodes, seconds = 0, 0.0
        for opening in OPENINGS["international"]:
            board = opening_board("international", opening)
            theirs = _their_board(ctx.draughts, "international")
            for m in board.move_stack:
                key = m.key()
                theirs.push(next(tm for tm in theirs.legal_moves if _their_key(tm, sq) == key))
            engine = ctx.draughts.TurboEngine(depth_limit=None, time_limit=THEIR_SEARCH_SECONDS)
            t0 = time.process_time()
            engine.get_best_move(theirs)
            seconds += time.process_time() - t0
            nodes += int(engine.nodes)
        return Timing(nodes, seconds), "py-draughts TurboEngine search (its own tree)"
    return None, ""


def _label(name: str, quick: bool) -> str:
    if name.startswith("perft:"):
        v = name.split(":", 1)[1]
        return f"{v} perft {(QUICK_BUILD_PERFT_DEPTHS if quick else BUILD_PERFT_DEPTHS)[v]}"
    return {"solver": "solver, corpus", "search": "playing search"}[name]


def builds_section(ctx: BenchContext) -> list[Row]:
    """The compiled engine (in this process, when :data:`dama.COMPILED`) against pure Python (a
    child process with ``DAMA_PURE=1``) and py-draughts on the same work: perft from the start
    positions, proving the puzzle corpus (nodes/s and proofs/s), the playing search with a node
    limit on the balanced international openings (py-draughts: TurboEngine's nodes/s on the same
    positions, its own tree)."""
    rows: list[Row] = []
    info = build_info()
    if not COMPILED:
        ctx.out(f"  ... the compiled engine is not in use ({info['reason']}): pure Python only")
    summary: list[str] = []
    for name in WORKLOADS:
        pn, pitems, ps = timed_pure(name, ctx.quick, ctx.repeat)
        pure = Timing(pn, ps)
        theirs, against = _theirs(ctx, name)
        label = _label(name, ctx.quick)
        same = name != "search"
        rows.append(Row(f"{label} [pure]", None, pure, theirs, against, same_nodes=same))
        line = f"  {label}: pure {pure.nps:,.0f} nodes/s"
        if COMPILED:
            cn, citems, cs = timed_workload(name, ctx.quick, ctx.repeat)
            if cn != pn:
                raise RuntimeError(f"{name}: compiled {cn} nodes, pure {pn}: the builds differ")
            comp = Timing(cn, cs)
            x = comp.nps / pure.nps
            rows.append(
                Row(
                    f"{label} [compiled]",
                    None,
                    comp,
                    theirs,
                    against,
                    note=f"{x:.1f}x pure Python",
                    same_nodes=same,
                )
            )
            line += f", compiled {comp.nps:,.0f} nodes/s: {x:.1f}x pure Python"
            if name == "solver":
                line += f"; proofs/s: pure {pitems / ps:.1f}, compiled {citems / cs:.1f}"
            if theirs is not None:
                line += (
                    f"; vs {against} {theirs.nps:,.0f} nodes/s: compiled "
                    f"{comp.nps / theirs.nps:.2f}x, pure {pure.nps / theirs.nps:.2f}x"
                )
        elif theirs is not None:
            line += f"; vs {against} {theirs.nps:,.0f}: {pure.nps / theirs.nps:.2f}x"
        ctx.out(line)
        summary.append(line)
    ctx.out("")
    ctx.out("Builds (ratios of nodes per second on the same work):")
    for line in summary:
        ctx.out(line)
    return rows


def workload_main(argv: Sequence[str] | None = None) -> int:
    """The child of :func:`timed_pure`: one workload, one JSON line on stdout."""
    p = argparse.ArgumentParser(prog="tools.bench workload")
    p.add_argument("workload", choices=WORKLOADS)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--repeat", type=int, default=1)
    args = p.parse_args(argv)
    nodes, items, seconds = timed_workload(args.workload, args.quick, max(1, args.repeat))
    print(json.dumps({"compiled": COMPILED, "nodes": nodes, "items": items, "seconds": seconds}))
    return 0


#: the bench, in order; add a Section to add a benchmark
SECTIONS: list[Section] = [
    Section("perft", "perft: fast core (Board.perft) from the start positions", perft_section),
    Section("api", "perft through the public API (legal_moves, push, pop)", api_section),
    Section("solver", "solver: proving a fixed sample of the puzzle corpus", solver_section),
    Section("deep", "solver: 15-ply uniqueness proofs (horizon 6 + 2)", deep_solver_section),
    Section("play", "playing engine: games against py-draughts, search nodes/s", play_section),
    Section("ladder", "playing engine: each level against the level below", ladder_section),
    Section(
        "previous", "playing engine: the search against its previous version", previous_section
    ),
    Section(
        "evaluation",
        "playing engine: the trained evaluation against the hand-tuned one",
        evaluation_section,
    ),
    Section("depth", "playing engine: the depth completed in a second", depth_section),
    Section("busy", "playing engine: level 8 with ten games at once", busy_section),
    Section("builds", "both builds: the compiled engine against pure Python", builds_section),
]


# -- output ------------------------------------------------------------------------------------------
def _progress(row: Row) -> str:
    theirs = f", py-draughts {row.theirs.seconds:.2f} s" if row.theirs else ""
    return f"  ... {row.label} depth {row.depth}: {row.ours.seconds:.2f} s{theirs}"


def _fmt_nps(t: Timing | None) -> str:
    return "-" if t is None else f"{t.nps:,.0f}"


def format_table(rows: list[Row]) -> list[str]:
    head = (
        f"{'test':<28} {'depth':>5} {'nodes':>11} {'check':>8} {'dama s':>8} {'dama nodes/s':>13} "
        f"{'py-dr. s':>9} {'py-dr. nodes/s':>15} {'ratio':>7}"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        theirs_s = "-" if r.theirs is None else f"{r.theirs.seconds:.2f}"
        ratio = "-" if r.ratio is None else f"{r.ratio:.2f}x"
        depth = "-" if r.depth is None else str(r.depth)
        lines.append(
            f"{r.label:<28} {depth:>5} {r.ours.nodes:>11} {r.check():>8} {r.ours.seconds:>8.2f} "
            f"{_fmt_nps(r.ours):>13} {theirs_s:>9} {_fmt_nps(r.theirs):>15} {ratio:>7}"
        )
    return lines


def format_ratios(rows: list[Row]) -> list[str]:
    lines = []
    for r in rows:
        depth = "" if r.depth is None else f" depth {r.depth}"
        if r.ratio is not None:
            lines.append(
                f"  {r.label}{depth}: dama {_fmt_nps(r.ours)} vs {_fmt_nps(r.theirs)} nodes/s"
                f" ({r.against}): ratio {r.ratio:.2f}x"
            )
        elif r.note:
            lines.append(f"  {r.label}{depth}: dama {_fmt_nps(r.ours)} nodes/s ({r.note})")
    return lines


def _load_table() -> dict[str, list[int]]:
    try:
        data = json.loads(_TABLE.read_text(encoding="utf-8"))
        return {v: list(d["nodes"]) for v, d in data["variants"].items()}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


def load_draughts() -> tuple[ModuleType | None, str]:
    """py-draughts and a line saying what was found."""
    try:
        mod = importlib.import_module("draughts")
    except ImportError:
        return None, (
            f"py-draughts is NOT installed: only dama's figures are shown. It is a dev dependency "
            f"(py-draughts=={PY_DRAUGHTS_VERSION}): run `make venv` or "
            f"`pip install -e '.[dev]'` to compare."
        )
    version = str(getattr(mod, "__version__", "?"))
    note = (
        ""
        if version == PY_DRAUGHTS_VERSION
        else f" (expected {PY_DRAUGHTS_VERSION}: ratios may differ)"
    )
    return mod, f"py-draughts {version}{note}"


def main(argv: Sequence[str] | None = None, out: Callable[[str], None] = print) -> int:
    names = [s.name for s in SECTIONS]
    p = argparse.ArgumentParser(
        prog="python -m tools.bench", description=__doc__.split("\n")[0] if __doc__ else None
    )
    p.add_argument("--quick", action="store_true", help="shallow depths (a smoke test, seconds)")
    p.add_argument(
        "--section",
        action="append",
        choices=names,
        metavar="NAME",
        help=f"run only this section (repeatable): {', '.join(names)}",
    )
    p.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="V",
        help="play and ladder sections: only this variant (repeatable)",
    )
    p.add_argument(
        "names",
        nargs="*",
        metavar="SECTION",
        help="sections to run, as --section (e.g. `python -m tools.bench play ladder`)",
    )
    p.add_argument(
        "--repeat",
        type=int,
        default=None,
        metavar="N",
        help="runs of each measurement, the fastest counts (default 3, 1 with --quick)",
    )
    args = p.parse_args(argv)
    for name in args.names:
        if name not in names:
            p.error(f"unknown section {name!r}: choose from {', '.join(names)}")
    args.section = (args.section or []) + args.names
    repeat = args.repeat if args.repeat is not None else (1 if args.quick else 3)
    if repeat < 1:
        p.error("--repeat must be at least 1")
    draughts, found = load_draughts()
    ctx = BenchContext(
        quick=args.quick,
        draughts=draughts,
        out=out,
        table=_load_table(),
        repeat=repeat,
        variants=tuple(args.variant),
    )
    out(f"dama bench: Python {platform.python_version()} on {platform.machine()}; {found}")
    out(
        f"each figure is the fastest of {repeat} run{'s' if repeat > 1 else ''}, in CPU seconds of this"
        " process (time.process_time), dama and py-draughts alternating"
    )
    if not ctx.table:
        out(f"(no published table at {_TABLE}: node counts are not checked)")
    t0 = time.perf_counter()
    all_rows: list[Row] = []
    for section in SECTIONS:
        if args.section and section.name not in args.section:
            continue
        out("")
        out(f"== {section.title} ==")
        rows = section.run(ctx)
        out("")
        for line in format_table(rows):
            out(line)
        all_rows.extend(rows)
    out("")
    out("Ratios (dama nodes/s / py-draughts nodes/s; above 1.00x dama is faster):")
    for line in format_ratios(all_rows):
        out(line)
    bad = [r.label for r in all_rows if r.check() == "MISMATCH"]
    out("")
    out(f"total {time.perf_counter() - t0:.1f} s")
    if bad:
        out(f"MISMATCH in node counts: {', '.join(bad)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
