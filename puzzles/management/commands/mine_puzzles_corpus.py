"""Grow a variant's shipped corpus file with natural puzzles, resumably, one puzzle at a time.

    manage.py mine_puzzles_corpus --variant czech --target 3000 --seed 1
    manage.py mine_puzzles_corpus --variant czech --requalify OLD.pdn   # keep the dual-free ones

Puzzles come from games the engine plays against itself at ``--level`` (``--nodes`` per move) and
are appended to ``fixtures/puzzles/<variant>.pdn`` (or ``--out``) with their proofs (the ``Proof``
tag: loading does not prove them again). The file is read first: puzzles already in it are never
mined again, and the run goes on from the game after the last one of this seed found in it, so an
interrupted run resumes where it stopped. ``--requalify`` proves the puzzles of another PDN file
again by today's rules (unique, no dual on the main line), names their shots and appends those that
pass.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core.variants import VARIANT_NAMES
from puzzles import engine


def corpus_path(variant: str) -> Path:
    return Path(settings.BASE_DIR) / "fixtures" / "puzzles" / f"{variant}.pdn"


def known_puzzles(text: str, variant: str) -> set[tuple[str, str]]:
    """The (fen, goal) pairs of a PDN text's puzzles, as the loader normalises them."""
    out = set()
    for entry in engine.read_puzzles(text, variant):
        if not isinstance(entry, Exception):
            out.add((entry.fen, entry.goal))
    return out


def last_game(text: str, variant: str, level: int, seed: int) -> int:
    """The highest game number of this seed and level among the sources of a PDN text."""
    pat = re.compile(rf"engine {variant} level {level} seed {seed} game (\d+) ")
    return max((int(m.group(1)) for m in pat.finditer(text)), default=0)


class Command(BaseCommand):
    help = "Append natural, proven, dual-free puzzles to a variant's corpus file (resumable)."

    def add_arguments(self, parser):
        parser.add_argument("--variant", required=True, choices=VARIANT_NAMES)
        parser.add_argument("--target", type=int, default=3000, help="puzzles wanted in the file")
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument("--level", type=int, default=4, choices=range(4, 9))
        parser.add_argument("--nodes", type=int, default=1500, help="search nodes per move")
        parser.add_argument("--seconds", type=float, default=0, help="stop after this long")
        parser.add_argument("--out", metavar="FILE", help="default: fixtures/puzzles/<variant>.pdn")
        parser.add_argument("--requalify", metavar="FILE", help="re-prove and keep these instead")

    def handle(self, *args, variant, target, seed, level, nodes, seconds, out, requalify, **o):
        path = Path(out) if out else corpus_path(variant)
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        known = known_puzzles(text, variant)
        t0 = time.perf_counter()
        if requalify:
            try:
                old = Path(requalify).read_text(encoding="utf-8")
            except OSError as exc:
                raise CommandError(f"cannot read {requalify}: {exc.strerror}") from None
            kept = [p for p in engine.requalify(variant, old) if (p.fen, p.goal) not in known]
            self._append(path, kept)
            self.stdout.write(f"{len(kept)} puzzles kept and appended to {path}")
            return
        start = last_game(text, variant, level, seed) + 1
        want = target - len(known)
        if want <= 0:
            self.stdout.write(f"{path} already holds {len(known)} puzzles")
            return
        n = 0
        for p in engine.mine(
            variant,
            want,
            seed,
            natural=True,
            level=level,
            nodes=nodes,
            first_game=start,
            skip=lambda fen, goal: (fen, goal) in known,
        ):
            known.add((p.fen, p.goal))
            self._append(path, [p])
            n += 1
            self.stdout.write(
                f"[{time.perf_counter() - t0:7.0f}s] {n} {p.goal} {p.horizon} {' '.join(p.motifs)}"
            )
            if seconds and time.perf_counter() - t0 > seconds:
                break
        self.stdout.write(f"{n} puzzles appended to {path} in {time.perf_counter() - t0:.0f}s")

    @staticmethod
    def _append(path: Path, puzzles: list[engine.PuzzleData]) -> None:
        if not puzzles:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        exists = path.exists() and path.stat().st_size > 0
        with path.open("a", encoding="utf-8") as fh:
            for p in puzzles:
                if exists:
                    fh.write("\n")
                fh.write(engine.write_puzzles([p]))
                exists = True
