"""The analysis of one game: CPU seconds for a game of ``--moves`` moves (two plies each).

The game is played by the engine against itself at ``--level`` (seeded, so the same game every
run; a weak level makes mistakes, so the analysis has moments to prove), then analysed with
``analysis.engine.analyse`` at the default node budget (``--nodes`` to try another). Prints the
CPU seconds (``time.process_time``) of the searches and of the proofs, the marks and moments,
and whether the engine is the compiled one. ``--profile`` writes a pyinstrument profile.

    .venv/bin/python tools/analysis_bench.py --variant czech --moves 60
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import dama  # noqa: E402
from analysis import engine  # noqa: E402  (the engine module alone: no Django needed)
from dama.search import Memory, best_move  # noqa: E402


def play(variant: str, moves: int, level: int, seed: int) -> list[str]:
    """A game of the engine against itself at ``level``, ``2 * moves`` plies at most."""
    board = dama.Board(variant)
    memories = (Memory(), Memory())
    texts: list[str] = []
    for ply in range(2 * moves):
        if not board.legal_moves or board.outcome() is not None:
            break
        m = best_move(board, level, seed=seed + ply, memory=memories[ply % 2]).move
        texts.append(board.move_text(m))
        board.push(m)
    return texts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="czech")
    parser.add_argument("--moves", type=int, default=60)
    parser.add_argument("--level", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", type=int, default=1)
    parser.add_argument("--nodes", type=int, default=engine.NODES)
    parser.add_argument("--profile", default="")
    args = parser.parse_args(argv)
    print(f"engine: {dama.build_info()}; budget {args.nodes} nodes; {args.variant}")
    worst = 0.0
    for g in range(args.games):
        moves = play(args.variant, args.moves, args.level, args.seed + 1000 * g)
        profiler = None
        if args.profile:
            from pyinstrument import Profiler

            profiler = Profiler()
            profiler.start()
        t0 = time.process_time()
        result = engine.analyse(args.variant, "", moves, nodes=args.nodes)
        cpu = time.process_time() - t0
        if profiler is not None:
            profiler.stop()
            Path(args.profile).write_text(profiler.output_text(unicode=True))
        worst = max(worst, cpu)
        kinds = [f"{m.kind}:{m.proof.verdict}:{m.proof.goal}" for m in result.moments]
        print(
            f"game {g + 1}: {len(moves)} plies, {cpu:.1f} CPU s (searches {result.search_seconds:.1f}, "
            f"proofs {result.proof_seconds:.1f}; {result.unproven} unproven), "
            f"{len(result.marks)} marks, moments {kinds}"
        )
    print(f"worst: {worst:.1f} CPU s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
