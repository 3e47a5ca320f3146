"""The benchmark behind ``make bench``: ``python -m dama.bench [--quick] [--section NAME]``.

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
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from .board import Board

PY_DRAUGHTS_VERSION = "1.10.1"
_TABLE = Path(__file__).resolve().parent.parent / "tests" / "engine" / "data" / "perft.json"


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

    @property
    def ratio(self) -> float | None:
        if self.theirs is None:
            return None
        return self.ours.nps / self.theirs.nps

    def check(self) -> str:
        counts = [self.ours.nodes] + ([self.theirs.nodes] if self.theirs else [])
        if self.theirs is not None and self.theirs.nodes != self.ours.nodes:
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
_CORPUS = Path(__file__).resolve().parent.parent / "fixtures" / "puzzles"
SOLVER_SAMPLE = 20
QUICK_SOLVER_SAMPLE = 5


def solver_section(ctx: BenchContext) -> list[Row]:
    """The solver on a fixed sample of the corpus: the first 20 puzzles of each variant's file
    (5 with --quick), each proved again at its horizon; puzzles/s and nodes/s per variant."""
    from .pdn import read_tags
    from .solve import Limits, solve

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
    from .pdn import read_tags
    from .solve import Limits, solve

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


#: the bench, in order; add a Section to add a benchmark
SECTIONS: list[Section] = [
    Section("perft", "perft: fast core (Board.perft) from the start positions", perft_section),
    Section("api", "perft through the public API (legal_moves, push, pop)", api_section),
    Section("solver", "solver: proving a fixed sample of the puzzle corpus", solver_section),
    Section("deep", "solver: 15-ply uniqueness proofs (horizon 6 + 2)", deep_solver_section),
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
        prog="python -m dama.bench", description=__doc__.split("\n")[0] if __doc__ else None
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
        "--repeat",
        type=int,
        default=None,
        metavar="N",
        help="runs of each measurement, the fastest counts (default 3, 1 with --quick)",
    )
    args = p.parse_args(argv)
    repeat = args.repeat if args.repeat is not None else (1 if args.quick else 3)
    if repeat < 1:
        p.error("--repeat must be at least 1")
    draughts, found = load_draughts()
    ctx = BenchContext(
        quick=args.quick, draughts=draughts, out=out, table=_load_table(), repeat=repeat
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
