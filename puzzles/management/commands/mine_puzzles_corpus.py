"""Grow a variant's shipped corpus file with natural puzzles, resumably, one puzzle at a time.

    manage.py mine_puzzles_corpus --variant czech --target 3000 --seed 1
    manage.py mine_puzzles_corpus --variant czech --requalify OLD.pdn   # keep the dual-free ones

Puzzles come from games the engine plays against itself at ``--level`` (``--nodes`` per move) and
are appended to ``fixtures/puzzles/<variant>.pdn`` (or ``--out``) with their proofs (the ``Proof``
tag: loading does not prove them again). The file is read first: puzzles already in it are never
mined again, and the run goes on from the game after the last one of this seed found in it, so an
interrupted run resumes where it stopped. ``--deep-share`` keeps the file's share of puzzles of
3 or more solver moves at that share or above as it grows: a shorter puzzle is appended only while
the file's short ones stay within that proportion of its deep ones (plus :data:`SLACK`), so the
time goes into finding deep ones and the file is balanced whenever the run stops. ``--shots N``
appends only puzzles that show a named shot of the variant the file holds fewer than ``N``
puzzles of (whatever the target), and stops when every shot has ``N``; ``--shot NAME`` (again for
more) wants only those shots, and when each has a cheap look for where it can start
(``dama.mine.SHOT_SETUPS``: the Turkish strike's) only such positions are proven.
``--min-horizon H`` appends only puzzles of ``H`` or more solver moves; from 5 the candidates
are picked by a longer look-ahead and proven with larger limits (``dama.mine.DEEP_LIMITS``). ``--requalify`` proves the puzzles of another PDN file
again by today's rules (unique, no dual on the main line), names their shots and appends those that
pass.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from core.variants import VARIANT_NAMES
from puzzles import engine

#: short puzzles allowed beyond the deep-share proportion (so that a new file can start)
SLACK = 20
#: solver moves from which a puzzle counts as deep (intermediate and advanced)
DEEP = 3
#: --min-horizon from which the miner looks further and proves more (``engine.mine(deep=True)``)
DEEP_MINING = 5


def corpus_path(variant: str) -> Path:
    return Path(settings.BASE_DIR) / "fixtures" / "puzzles" / f"{variant}.pdn"


def known_puzzles(text: str, variant: str) -> dict[tuple[str, str], int]:
    """The (fen, goal) pairs of a PDN text's puzzles, as the loader normalises them, with their
    horizons (0 when the text gives none)."""
    out = {}
    for entry in engine.read_puzzles(text, variant):
        if not isinstance(entry, Exception):
            out[(entry.fen, entry.goal)] = entry.horizon or 0
    return out


def short_allowed(horizons: Iterable[int], share: float) -> bool:
    """Whether one more short puzzle (fewer than :data:`DEEP` solver moves) keeps a file with
    these puzzles' ``horizons`` at ``share`` deep ones or above (give or take :data:`SLACK`).

    >>> short_allowed([1] * 20, 0.3), short_allowed([1] * 20 + [3] * 3, 0.3)
    (False, True)
    """
    deep = short = 0
    for h in horizons:
        if h >= DEEP:
            deep += 1
        else:
            short += 1
    if share <= 0:
        return True
    return short + 1 <= deep * (1 - share) / share + SLACK


def shot_counts(text: str, variant: str) -> dict[str, int]:
    """How many puzzles of a PDN text show each named shot of ``variant``."""
    counts = dict.fromkeys(sorted(engine.shot_names(variant)), 0)
    for entry in engine.read_puzzles(text, variant):
        if not isinstance(entry, Exception):
            for m in set(entry.motifs) & counts.keys():
                counts[m] += 1
    return counts


def last_game(text: str, variant: str, level: int, seed: int, varied: int = 2) -> int:
    """The highest game number of this seed, level and opening variety among the sources of a
    PDN text."""
    games = f"engine {variant} level {level}{engine.varied_label(varied)} seed {seed}"
    pat = re.compile(rf"{games} game (\d+) ")
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
        parser.add_argument(
            "--varied",
            type=int,
            default=engine.MINING_VARIED,
            help="random safe plies after the balanced opening (2 gave the first corpus)",
        )
        parser.add_argument(
            "--sidelines",
            type=int,
            default=engine.MINING_SIDELINES,
            help="tempting other moves examined in each position of a game (0: the games' own)",
        )
        parser.add_argument(
            "--sideline-plies",
            type=int,
            default=1,
            choices=(1, 2),
            help="2: also the tempting replies to those moves (for the rarest shots)",
        )
        parser.add_argument(
            "--deep-share",
            type=float,
            default=0.3,
            help=f"keep at least this share of puzzles of {DEEP}+ solver moves (0: any)",
        )
        parser.add_argument(
            "--shots",
            type=int,
            default=0,
            metavar="N",
            help="append only puzzles of named shots the file holds fewer than N of",
        )
        parser.add_argument(
            "--shot",
            action="append",
            default=[],
            metavar="NAME",
            help="with --shots: only this named shot (again for more)",
        )
        parser.add_argument(
            "--min-horizon",
            type=int,
            default=0,
            metavar="H",
            help="append only puzzles of H or more solver moves (5 and more: the deep mining)",
        )
        parser.add_argument("--out", metavar="FILE", help="default: fixtures/puzzles/<variant>.pdn")
        parser.add_argument("--requalify", metavar="FILE", help="re-prove and keep these instead")

    def handle(
        self,
        *args,
        variant,
        target,
        seed,
        level,
        nodes,
        seconds,
        varied,
        sidelines,
        sideline_plies,
        deep_share,
        shots,
        shot,
        min_horizon,
        out,
        requalify,
        **o,
    ):
        path = Path(out) if out else corpus_path(variant)
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        known = known_puzzles(text, variant)
        t0, c0 = time.perf_counter(), time.process_time()
        if requalify:
            try:
                old = Path(requalify).read_text(encoding="utf-8")
            except OSError as exc:
                raise CommandError(f"cannot read {requalify}: {exc.strerror}") from None
            kept = [p for p in engine.requalify(variant, old) if (p.fen, p.goal) not in known]
            self._append(path, kept)
            self.stdout.write(f"{len(kept)} puzzles kept and appended to {path}")
            return
        start = last_game(text, variant, level, seed, varied) + 1
        held = len(known)
        wanted = {}
        if shots:
            counts = shot_counts(text, variant)
            unknown = sorted(set(shot) - counts.keys())
            if unknown:
                raise CommandError(
                    f"no shot named {', '.join(unknown)} in {variant}: {', '.join(counts)}"
                )
            wanted = {k: c for k, c in counts.items() if c < shots and (not shot or k in shot)}
            target = held + sum(shots - c for c in wanted.values())
        if held >= target:
            self.stdout.write(f"{path} already holds {held} puzzles")
            return
        n = passed = 0
        for p in engine.mine(
            variant,
            # short ones passed over count among the mined: ask for all the deep share may need
            # (for rare shots, as many as it takes)
            10**9 if shots or min_horizon else round((target - held) / max(deep_share, 0.1)),
            seed,
            natural=True,
            level=level,
            nodes=nodes,
            first_game=start,
            varied=varied,
            sidelines=sidelines,
            sideline_plies=sideline_plies,
            shots=wanted,
            deep=min_horizon >= DEEP_MINING,
            min_length=min_horizon,
            skip=lambda fen, goal: (fen, goal) in known,
        ):
            horizon = p.horizon or 0
            in_file = (h for h in known.values() if h >= 0)
            needed = [m for m in p.motifs if wanted.get(m, shots) < shots]
            if shots and not needed or horizon < min_horizon:
                known[(p.fen, p.goal)] = -1
            elif not needed and horizon < DEEP and not short_allowed(in_file, deep_share):
                passed += 1
                known[(p.fen, p.goal)] = -1  # not mined again in this run, not in the file
            else:
                known[(p.fen, p.goal)] = horizon
                self._append(path, [p])
                n += 1
                for m in needed:
                    wanted[m] += 1
                self.stdout.write(
                    f"[{time.perf_counter() - t0:7.0f}s] {n} {p.goal} {p.horizon} "
                    + " ".join(p.motifs)
                )
            if shots and all(c >= shots for c in wanted.values()):
                break
            if held + n >= target or seconds and time.perf_counter() - t0 > seconds:
                break
        cpu = time.process_time() - c0
        self.stdout.write(
            f"{n} puzzles appended to {path} in {time.perf_counter() - t0:.0f}s"
            f" ({cpu:.0f}s of CPU, {3600 * n / max(cpu, 1e-9):.0f} per CPU-hour;"
            f" {passed} short ones passed over for the deep share)"
        )

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
