"""Mine proven-unique puzzles from self-play games (or the games of a PDN file) and write PDN.

manage.py mine_puzzles --variant czech --count 50 --seed 7 --out fixtures/puzzles/czech.pdn
manage.py mine_puzzles --variant international --count 10 --from-pdn games.pdn --save
manage.py mine_puzzles --variant czech --count 10 --from-pdn games.pdn --natural

With ``--natural`` a gain is kept only when the opponent's last move allowed it (another move
avoided it), the way the corpus is mined from the engine's games.
"""

from __future__ import annotations

from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from core.variants import VARIANT_NAMES
from puzzles import engine
from puzzles.management.bar import ProgressBar
from puzzles.models import Puzzle


class Command(BaseCommand):
    help = "Find proven-unique puzzles in self-play (or PDN) games and write them as PDN."

    def add_arguments(self, parser):
        parser.add_argument("--variant", required=True, choices=VARIANT_NAMES)
        parser.add_argument("--count", required=True, type=int, help="how many puzzles")
        parser.add_argument("--seed", type=int, default=0, help="seed of the self-play games")
        parser.add_argument(
            "--from-pdn", metavar="FILE", help="take positions from the games of this PDN file"
        )
        parser.add_argument(
            "--natural",
            action="store_true",
            help="keep a gain only when the opponent's last move allowed it (engine games at "
            "level 4 without --from-pdn)",
        )
        parser.add_argument(
            "--out", metavar="FILE", help="write the PDN here (default: standard output)"
        )
        parser.add_argument(
            "--save",
            action="store_true",
            help="also save them as puzzles, proven (the mining proved them)",
        )

    def handle(self, *args, variant, count, seed, from_pdn, out, save, natural=False, **opts):
        if count < 1:
            raise CommandError("--count must be at least 1.")
        pdn_text = None
        if from_pdn:
            try:
                pdn_text = Path(from_pdn).read_text(encoding="utf-8")
            except OSError as exc:
                raise CommandError(f"cannot read {from_pdn}: {exc.strerror}") from None
        # the bar goes to stderr when the PDN goes to stdout
        bar = ProgressBar(self.stdout if out else self.stderr, count)
        found: list[engine.PuzzleData] = []

        def progress(games: int, got: int, per_goal: dict[str, int]) -> None:
            bar.show(got, note=f"games {games}")

        bar.show(0)
        mined = engine.mine(
            variant, count, seed, pdn_text=pdn_text, progress=progress, natural=natural
        )
        for puzzle in mined:
            found.append(puzzle)
            bar.show(len(found), note=f"{puzzle.goal}")
        bar.finish()
        text = engine.write_puzzles(found)
        if out:
            Path(out).parent.mkdir(parents=True, exist_ok=True)
            Path(out).write_text(text, encoding="utf-8")
            self.stdout.write(f"{len(found)} puzzles written to {out}")
        else:
            self.stdout.write(text, ending="")
        if save:
            counts = {"created": 0, "updated": 0, "unchanged": 0}
            with transaction.atomic():
                for data in found:
                    try:
                        _puzzle, status = Puzzle.objects.import_data(data)
                    except ValidationError as exc:
                        raise CommandError(" ".join(exc.messages)) from None
                    counts[status] += 1
            (self.stdout if out else self.stderr).write(
                "saved: {created} new, {updated} updated, {unchanged} unchanged".format(**counts)
            )
        if len(found) < count:
            self.stderr.write(f"only {len(found)} of {count} puzzles were found")
