"""The command line, all of it: ``python -m dama moves|perft|explain|svg|solve|best|match|mine|endgames``.

Each command is a ``cmd_*`` function over the parsed arguments that calls the library and prints
(``python -m dama`` runs :func:`main`; the ``dama`` script too); no other module of the package
reads a command line.

Bad input (unknown variant, bad FEN, depth out of range) exits with status 2 and one line on
stderr saying what is wrong.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any, NoReturn

from . import __version__
from ._loader import describe
from .board import Board
from .errors import DamaError
from .variants import VARIANT_NAMES

MAX_PERFT_DEPTH = 15
#: the verdict's fields ``solve`` prints, in this order (``--proof`` adds the proof tree)
SOLVE_KEYS = (
    "goal",
    "horizon",
    "length",
    "solution",
    "alternatives",
    "refutation",
    "duals",
    "nodes",
    "seconds",
    "depth",
    "reason",
    "searched",
    "engine_version",
    "limits",
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _board(args: argparse.Namespace) -> Board:
    return Board(args.variant, args.fen) if args.fen is not None else Board(args.variant)


def _fail(message: str) -> NoReturn:
    sys.stderr.write(f"dama: error: {message}\n")
    raise SystemExit(2)


def cmd_moves(args: argparse.Namespace) -> int:
    board = _board(args)
    out: list[str] = []
    for m in board.generate_legal_moves():
        if args.routes:
            out.extend(m.route_str(i) for i in range(len(m.routes)))
        else:
            out.append(m.route_str(0))
    for line in out:
        print(line)
    return 0


def cmd_perft(args: argparse.Namespace) -> int:
    if not 1 <= args.depth <= MAX_PERFT_DEPTH:
        _fail(f"--depth must be between 1 and {MAX_PERFT_DEPTH}, not {args.depth}")
    board = _board(args)
    if args.divide:
        from .perft import divide

        t0 = time.perf_counter()
        total = 0
        for m, n in divide(board, args.depth):
            print(f"{m.route_str(0)} {n}")
            total += n
        dt = time.perf_counter() - t0
        print(f"{args.depth} {total} {dt:.3f} {int(total / dt) if dt > 0 else 0}")
        return 0
    for d in range(1, args.depth + 1):
        t0 = time.perf_counter()
        n = board.perft(d)
        dt = time.perf_counter() - t0
        print(f"{d} {n} {dt:.3f} {int(n / dt) if dt > 0 else 0}", flush=True)
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    board = _board(args)
    exp = board.explain_illegal(args.move)
    if exp is None:
        print(f"{args.move} is legal")
        return 0
    print(
        json.dumps(
            {"code": exp.code, "article": exp.article, "en": exp.message_en, "cs": exp.message_cs},
            ensure_ascii=False,
        )
    )
    return 1


def cmd_svg(args: argparse.Namespace) -> int:
    from .svg import board_svg

    print(board_svg(_board(args), flipped=args.flipped))
    return 0


def cmd_solve(args: argparse.Namespace) -> int:
    """Print the verdict as JSON (exit 0 for every verdict)."""
    from .solve import Limits, parse_goal, solve

    goal = parse_goal(args.goal)
    kw: dict[str, Any] = {"moves": args.moves}
    if args.nodes is not None:
        kw["nodes"] = args.nodes
    if args.seconds is not None:
        kw["seconds"] = args.seconds
    v = solve(_board(args), goal, Limits(**kw))
    d = v.to_dict()
    out: dict[str, Any] = {"verdict": v.kind}
    for key in SOLVE_KEYS:
        out[key] = d[key]
    if args.proof:
        out["proof"] = d["proof"]
    print(json.dumps(out, indent=2))
    return 0


def cmd_mine(args: argparse.Namespace) -> int:
    """Mine puzzles and write them as PDN, one at a time (so that a long run can be watched and
    interrupted); progress goes to stderr."""
    from .mine import RULE_MOTIFS, mine, mine_rule_captures, pdn_positions, puzzle_pdn
    from .variants import find_variant

    v = find_variant(args.variant)
    if args.count < 1:
        _fail(f"--count must be at least 1, not {args.count}")
    mix = None
    if args.mix:
        mix = {}
        for part in args.mix.split(","):
            name, _, share = part.partition("=")
            if name.strip() not in ("capture", "gain", "win"):
                _fail(f"--mix: unknown goal {name.strip()!r} (capture, gain, win)")
            try:
                mix[name.strip()] = float(share)
            except ValueError:
                _fail(f"--mix: {part!r} is not goal=share")
    if args.rule and args.rule not in RULE_MOTIFS:
        _fail(f"--rule: unknown capture rule {args.rule!r} ({', '.join(RULE_MOTIFS)})")
    positions = None
    if args.from_pdn:
        try:
            with open(args.from_pdn, encoding="utf-8") as fh:
                text = fh.read()
        except OSError as e:
            _fail(f"cannot read {args.from_pdn}: {e.strerror}")
        positions = pdn_positions(text, v)
    t0 = time.perf_counter()

    def progress(games: int, found: int, per_kind: dict[str, int]) -> None:
        if games % 25 == 0:
            kinds = " ".join(f"{k}={n}" for k, n in per_kind.items())
            sys.stderr.write(
                f"[{time.perf_counter() - t0:7.0f}s] games {games} puzzles {found} {kinds}\n"
            )
            sys.stderr.flush()

    found = (
        mine_rule_captures(v, args.count, args.rule, args.seed)
        if args.rule
        else mine(v, args.count, args.seed, mix=mix, positions=positions, progress=progress)
    )
    out = open(args.out, "w", encoding="utf-8") if args.out else sys.stdout  # noqa: SIM115
    try:
        n = 0
        for pz in found:
            if n:
                out.write("\n")
            out.write(puzzle_pdn(pz))
            out.flush()
            n += 1
        sys.stderr.write(f"[{time.perf_counter() - t0:7.0f}s] done: {n} puzzles\n")
    finally:
        if out is not sys.stdout:
            out.close()
    return 0


def cmd_best(args: argparse.Namespace) -> int:
    from .search import best_move as level_move
    from .search import search

    board = _board(args)
    if args.level is not None and not 1 <= args.level <= 8:
        _fail(f"--level must be between 1 and 8, not {args.level}")
    for name in ("depth", "seconds", "nodes"):
        val = getattr(args, name)
        if val is not None and not val > 0:
            _fail(f"--{name} must be positive, not {val}")
    if not board.generate_legal_moves():
        _fail("the game is over: the side to move has no legal move")
    if args.level is not None:
        r = level_move(board, args.level, seed=args.seed)
    else:
        limits = (args.depth, args.seconds, args.nodes)
        depth = args.depth if any(x is not None for x in limits) else 6
        r = search(board, depth=depth, seconds=args.seconds, nodes=args.nodes, seed=args.seed)
    print(r.move.route_str(0))
    print(f"score {r.score}")
    print(f"depth {r.depth}")
    print(f"nodes {r.nodes}")
    print("pv " + " ".join(m.route_str(0) for m in r.pv))
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    from .match import GameRecord, Player, format_match, play_match
    from .variants import find_variant

    variant = find_variant(args.variant).name
    try:
        a = Player.parse(args.a).with_seconds(args.seconds)
        b = Player.parse(args.b).with_seconds(args.seconds)
    except ValueError as e:
        _fail(str(e))
    if args.games < 1:
        _fail(f"--games must be at least 1, not {args.games}")
    if args.seconds is not None and not args.seconds > 0:
        _fail(f"--seconds must be positive, not {args.seconds}")

    def report(g: int, rec: GameRecord, a_white: bool) -> None:
        if args.verbose:
            result = "draw" if rec.winner is None else ("A" if rec.winner == a_white else "B")
            sys.stderr.write(f"game {g + 1}: {result} ({rec.reason}, {len(rec.moves)} plies)\n")

    score = play_match(variant, a, b, args.games, seed=args.seed, on_game=report)
    for line in format_match(variant, a, b, score):
        print(line)
    return 0


def _endgame_dir(args: argparse.Namespace) -> str:
    import os

    from .endgames import ENV_VAR

    return args.dir or os.environ.get(ENV_VAR, "").strip() or "var/endgames"


def _variants(name: str) -> list[str]:
    from .variants import find_variant

    return list(VARIANT_NAMES) if name == "all" else [find_variant(name).name]


def cmd_endgames_build(args: argparse.Namespace) -> int:
    from .endgames import DEFAULT_MAX, build

    if args.processes < 1:
        _fail(f"--processes must be at least 1, not {args.processes}")
    directory = _endgame_dir(args)
    for variant in _variants(args.variant):
        most = args.max_pieces if args.max_pieces is not None else DEFAULT_MAX[variant]
        if not 2 <= most <= 5:
            _fail(f"--max-pieces must be 2-5, not {most}")
        t0 = time.perf_counter()
        times = build(
            variant, most, directory, progress=print, processes=args.processes, rebuild=args.rebuild
        )
        print(
            f"{variant}: up to {most} pieces in {directory}: {len(times)} built "
            f"in {time.perf_counter() - t0:.1f} s"
        )
    return 0


def cmd_endgames_info(args: argparse.Namespace) -> int:
    from .endgames import info

    directory = _endgame_dir(args)
    rows = info(directory)
    if not rows:
        print(f"no endgame databases in {directory}")
        return 0
    for variant, r in rows.items():
        print(
            f"{variant}: {r['materials']} materials, up to {r['max_pieces']} pieces, "
            f"{r['positions']:,} positions, {r['bytes'] / 1e6:.1f} MB, "
            f"won {r['won']:,} drawn {r['drawn']:,} lost {r['lost']:,}, "
            f"longest win {r['longest']} plies, built in {r['seconds']:.1f} s"
        )
        if args.materials:
            for name, c in r["by_material"].items():
                print(
                    f"  {name}: {c['positions']:,} positions, won {c['won']:,} "
                    f"drawn {c['drawn']:,} lost {c['lost']:,}, longest {c['longest']} plies"
                )
    return 0


def cmd_endgames_verify(args: argparse.Namespace) -> int:
    from .endgames import Tables, verify

    tables = Tables.open(_endgame_dir(args))
    bad = 0
    for variant in _variants(args.variant):
        checked, errors = verify(tables, variant, args.positions, seed=args.seed)
        for line in errors:
            print(line)
        bad += len(errors)
        print(f"{variant}: {checked} positions checked, {len(errors)} wrong")
    return 1 if bad else 0


def cmd_endgames_probe(args: argparse.Namespace) -> int:
    from .endgames import Tables, fits_count

    tables = Tables.open(_endgame_dir(args))
    board = _board(args)
    p = tables.probe(board)
    if p is None:
        print("not covered (material not built)")
        return 1
    fits = fits_count(board, p)
    print(f"{p.result} in {p.plies} plies ({p.moves} moves)")
    if fits is not None:
        print(f"within the draw count: {'yes' if fits else 'no'}")
    for move, q in tables.rank_moves(board):
        print(f"{move.route_str(0)} {q.result} {q.plies}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m dama", description="The dama draughts rules engine.")
    p.add_argument(
        "--version",
        action="version",
        version=f"dama {__version__}, {describe()}",
        help="print the version and which engine runs (compiled or pure Python), then exit",
    )
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    def common(sp: argparse.ArgumentParser) -> None:
        sp.add_argument(
            "--variant",
            required=True,
            metavar="V",
            help=f"the variant: {', '.join(VARIANT_NAMES)}",
        )
        sp.add_argument(
            "--fen",
            metavar="FEN",
            help="the position in PDN FEN, e.g. W:W31-50:B1-20 (default: the start position)",
        )

    sp = sub.add_parser("moves", help="list the legal moves, one per line, as full routes")
    common(sp)
    sp.add_argument(
        "--routes", action="store_true", help="print every capture route, not one per move"
    )
    sp.set_defaults(func=cmd_moves)

    sp = sub.add_parser("perft", help="count leaf nodes (equivalent routes counted once)")
    common(sp)
    sp.add_argument(
        "--depth", type=int, required=True, metavar="N", help=f"plies, 1-{MAX_PERFT_DEPTH}"
    )
    sp.add_argument("--divide", action="store_true", help="print the count below each legal move")
    sp.set_defaults(func=cmd_perft)

    sp = sub.add_parser("explain", help="say which rule a move breaks (exit 1 when illegal)")
    common(sp)
    sp.add_argument("move", help="the move text, e.g. 32-28 or c3-d4")
    sp.set_defaults(func=cmd_explain)

    sp = sub.add_parser("svg", help="print the position as an SVG diagram")
    common(sp)
    sp.add_argument("--flipped", action="store_true", help="Black at the bottom")
    sp.set_defaults(func=cmd_svg)

    sp = sub.add_parser("solve", help="prove a puzzle: print the verdict as JSON")
    common(sp)
    sp.add_argument("--goal", required=True, help="capture | gain:N | win")
    sp.add_argument(
        "--moves", type=int, default=None, metavar="H", help="horizon in moves of the side to move"
    )
    sp.add_argument("--seconds", type=float, default=None, metavar="S", help="time limit")
    sp.add_argument("--nodes", type=int, default=None, metavar="N", help="node limit")
    sp.add_argument("--proof", action="store_true", help="include the proof tree")
    sp.set_defaults(func=cmd_solve)

    sp = sub.add_parser("best", help="search the position: print the move, score, depth, nodes, pv")
    common(sp)
    limit = sp.add_mutually_exclusive_group()
    limit.add_argument("--level", type=int, metavar="N", help="playing level, 1-8")
    limit.add_argument("--depth", type=int, metavar="D", help="search depth in plies")
    limit.add_argument("--seconds", type=float, metavar="S", help="time limit")
    sp.add_argument("--nodes", type=int, metavar="N", help="node limit (with --depth/--seconds)")
    sp.add_argument("--seed", type=int, metavar="N", help="seed for the choice among equal moves")
    sp.set_defaults(func=cmd_best)

    sp = sub.add_parser("match", help="play two settings against each other, print the score")
    sp.add_argument(
        "--variant", required=True, metavar="V", help=f"the variant: {', '.join(VARIANT_NAMES)}"
    )
    sp.add_argument("--a", required=True, metavar="SPEC", help="player A, e.g. level=3 or depth=4")
    sp.add_argument("--b", required=True, metavar="SPEC", help="player B, e.g. level=2")
    sp.add_argument("--games", type=int, default=8, metavar="N", help="games (default 8)")
    sp.add_argument(
        "--seconds", type=float, metavar="S", help="seconds a move for a player without limits"
    )
    sp.add_argument("--seed", type=int, default=0, metavar="N", help="seed of the games")
    sp.add_argument("--verbose", action="store_true", help="a line on stderr after each game")
    sp.set_defaults(func=cmd_match)

    sp = sub.add_parser("mine", help="mine proven-unique puzzles from self-play, write PDN")
    sp.add_argument(
        "--variant", required=True, metavar="V", help=f"the variant: {', '.join(VARIANT_NAMES)}"
    )
    sp.add_argument("--count", type=int, required=True, metavar="N", help="puzzles to find")
    sp.add_argument("--seed", type=int, default=0, metavar="S", help="random seed of the games")
    sp.add_argument("--out", metavar="FILE", help="PDN file to write (default: stdout)")
    sp.add_argument("--from-pdn", metavar="FILE", help="mine the positions of these PDN games")
    sp.add_argument("--mix", metavar="MIX", help="goal shares, e.g. capture=0.3,gain=0.55,win=0.15")
    sp.add_argument(
        "--rule",
        metavar="MOTIF",
        help="capture puzzles from random placements shaped by this capture rule "
        "(turkish_strike, majority, king_priority, no_crown_in_passing)",
    )
    sp.set_defaults(func=cmd_mine)

    sp = sub.add_parser("endgames", help="build, describe, verify and probe endgame databases")
    eg = sp.add_subparsers(
        dest="endgames_command",
        required=True,
        parser_class=_Parser,
        help="build, info, verify or probe",
    )
    dir_help = "the directory of the databases (default: $DAMA_ENDGAMES, else var/endgames)"
    sp = eg.add_parser(
        "build", help="build every material up to --max-pieces by retrograde analysis"
    )
    sp.add_argument("--variant", default="all", metavar="V", help="a variant or all (default)")
    sp.add_argument(
        "--max-pieces",
        type=int,
        metavar="N",
        help="pieces on the board, 2-5 (default: 5 on 8x8, 4 on 10x10)",
    )
    sp.add_argument("--dir", metavar="DIR", help=dir_help)
    sp.add_argument("--processes", type=int, default=1, metavar="P", help="worker processes")
    sp.add_argument("--rebuild", action="store_true", help="build materials already there again")
    sp.set_defaults(func=cmd_endgames_build)
    sp = eg.add_parser("info", help="what is built: materials, positions, sizes, counts")
    sp.add_argument("--dir", metavar="DIR", help=dir_help)
    sp.add_argument("--materials", action="store_true", help="a line per material too")
    sp.set_defaults(func=cmd_endgames_info)
    sp = eg.add_parser(
        "verify", help="check random positions against their successors (exit 1 on an error)"
    )
    sp.add_argument("--variant", default="all", metavar="V", help="a variant or all (default)")
    sp.add_argument("--dir", metavar="DIR", help=dir_help)
    sp.add_argument("--positions", type=int, default=10_000, metavar="N", help="per variant")
    sp.add_argument("--seed", type=int, default=0, metavar="S", help="random seed")
    sp.set_defaults(func=cmd_endgames_verify)
    sp = eg.add_parser("probe", help="the value of a position and of each legal move")
    common(sp)
    sp.add_argument("--dir", metavar="DIR", help=dir_help)
    sp.set_defaults(func=cmd_endgames_probe)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args))
    except DamaError as e:
        _fail(str(e))
    except BrokenPipeError:
        return 0
