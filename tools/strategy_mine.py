"""Find "choose the better move" positions for the strategy courses and the exam pools.

Plays games from the start position with the engine at a weak level (seeded), and keeps the
positions where the side to move has no capture, a handful of quiet moves, equal material, and
one move that a depth-limited search (:mod:`dama.compare`) prefers to every other by at least the
threshold. Prints one JSON line per position: the FEN, every move's score, the best move's line,
and a few features used to pick a theme by hand (a sacrifice, an exchange, a move to the centre
or the edge, a crowning in the line). The author reads them and writes the lesson; the test
(``tests/lessons/test_strategy.py``) checks the margin again.

    python -m tools.strategy_mine --variant czech --games 40 --depth 8 > /tmp/czech.jsonl
    python -m tools.strategy_mine --report      # the margins of the shipped exercises, timed
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import yaml

import dama
from dama.compare import compare_moves
from dama.search import best_move, search


def _material(board: dama.Board, side: bool) -> int:
    """Men count 1, kings 3, from ``side``'s view."""
    mine = len(board.pieces(side)) + 2 * len(board.pieces(side, king=True))
    theirs = len(board.pieces(not side)) + 2 * len(board.pieces(not side, king=True))
    return mine - theirs


def features(board: dama.Board, text: str, depth: int) -> dict[str, object]:
    """What the best move and its line do: a theme is picked from these by hand."""
    side = board.turn
    b = board.copy()
    move = b.parse_move(text)
    b.push(move)
    forced = bool(b.legal_moves) and all(m.captured for m in b.legal_moves)
    exchange = sacrifice = False
    if forced:
        b2 = b.copy()
        b2.push(b2.legal_moves[0])
        if any(m.captured for m in b2.legal_moves):
            exchange = True
        else:
            sacrifice = True
    line = [text]
    crowned = blocked = False
    before = _material(board, side)
    if b.legal_moves:
        r = search(b, depth=max(1, depth - 1))
        for m in r.pv[:12]:
            if m not in b.legal_moves:
                break
            mover = b.turn
            line.append(b.move_text(m))
            b.push(m)
            if m.crowns and mover == side:
                crowned = True
            if not b.legal_moves:
                blocked = b.turn != side
                break
    size = board.variant.size
    row, col = board.geo.row_col(move.end)
    return {
        "line": line,
        "exchange": exchange,
        "sacrifice": sacrifice,
        "edge": col in (0, size - 1),
        "centre": 2 <= col <= size - 3 and 2 <= row <= size - 3,
        "crowned": crowned,
        "blocked": blocked,
        "gain": _material(b, side) - before,
        "pieces": len(board.pieces(dama.WHITE)) + len(board.pieces(dama.BLACK)),
    }


def candidates(
    variant: str, games: int, depth: int, threshold: int, plies: tuple[int, int], max_moves: int = 9
):
    for g in range(games):
        board = dama.Board(variant)
        for ply in range(plies[1]):
            if not board.legal_moves or board.outcome() is not None:
                break
            r = best_move(board, 2 + g % 2, seed=g * 1000 + ply)
            board.push(r.move)
            if ply < plies[0]:
                continue
            moves = board.legal_moves
            if not moves or any(m.captured for m in moves) or not 3 <= len(moves) <= max_moves:
                continue
            if len(board.pieces(dama.WHITE)) != len(board.pieces(dama.BLACK)):
                continue
            if board.kings:
                continue
            texts = [board.move_text(m) for m in moves]
            scores = compare_moves(board, texts, depth)
            ranked = sorted(scores.items(), key=lambda kv: -kv[1])
            best, second = ranked[0], ranked[1]
            if best[1] - second[1] < threshold or best[1] < -60 or best[1] > 400:
                continue
            deeper = compare_moves(board, [best[0], second[0]], depth + 2)
            yield {
                "variant": variant,
                "fen": board.fen(),
                "game": g,
                "ply": ply,
                "scores": dict(ranked),
                "deeper": deeper,
                "best": best[0],
                **features(board, best[0], depth),
            }


ROOT = Path(__file__).resolve().parent.parent


def report() -> None:
    """Per file: the exercises, their smallest and median margin, and the seconds it took."""
    print("| file | depth | threshold | exercises | smallest margin | median margin | seconds |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for variant in ("czech", "brazilian", "international"):
        for path in (
            ROOT / "fixtures" / "lessons" / f"strategy-{variant}.yaml",
            ROOT / "exams" / "questions" / f"strategy-{variant}.yaml",
        ):
            data = yaml.safe_load(path.read_text("utf-8"))
            check = (data.get("course") or {}).get("check") or data["check"]
            items = [
                (s["diagram"]["fen"], s["exercise"])
                for lesson in data.get("lessons") or []
                for s in lesson["steps"]
                if s["exercise"]["kind"] == "better_move"
            ] + [(q["fen"], q["exercise"]) for q in data.get("questions") or []]
            t0 = time.perf_counter()
            margins = []
            for fen, ex in items:
                board = dama.Board(variant, fen)
                others = [o for o in ex["options"] if o != ex["answer"]]
                scores = compare_moves(board, [ex["answer"], *others], check["depth"])
                margins.append(scores[ex["answer"]] - max(scores[o] for o in others))
            margins.sort()
            seconds = time.perf_counter() - t0
            print(
                f"| {path.relative_to(ROOT)} | {check['depth']} | {check['margin']} | "
                f"{len(items)} | {margins[0]} | {margins[len(margins) // 2]} | {seconds:.1f} |"
            )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--report", action="store_true", help="the margins of the shipped exercises")
    p.add_argument("--variant", choices=dama.VARIANT_NAMES)
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--depth", type=int, default=8)
    p.add_argument("--threshold", type=int, default=150)
    p.add_argument("--from-ply", type=int, default=12)
    p.add_argument("--to-ply", type=int, default=60)
    p.add_argument("--max-moves", type=int, default=9)
    args = p.parse_args(argv)
    if args.report:
        report()
        return 0
    if not args.variant:
        p.error("--variant is needed to mine")
    for found in candidates(
        args.variant,
        args.games,
        args.depth,
        args.threshold,
        (args.from_ply, args.to_ply),
        args.max_moves,
    ):
        print(json.dumps(found, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
