"""Load puzzles into the corpus from PDN files (idempotent: keyed by variant, position and goal
among the puzzles without an author).

    manage.py load_puzzles fixtures/puzzles/*.pdn           # proves new puzzles here
    manage.py load_puzzles --queue fixtures/puzzles/*.pdn   # sends them to the workers

A new puzzle whose PDN carries its proof (a ``Proof`` tag) stores it; the others (and those whose
question changed) are proven in this process once loaded, with a progress bar (the whole corpus
takes seconds, so a fresh site has its trainer and daily puzzle at once), or with ``--queue`` sent
to the ``verify`` queue. Loading the same files again changes nothing and proves nothing.
"""

from __future__ import annotations

from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from core.variants import VARIANT_NAMES
from puzzles import engine
from puzzles.management.commands.verify_puzzles import prove_in_process
from puzzles.models import Puzzle
from puzzles.proofs import proofs_held


class Command(BaseCommand):
    help = "Load puzzles from PDN files (or directories of them); queue the unproven ones."

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", metavar="PATH", help="PDN files or directories")
        parser.add_argument(
            "--variant",
            choices=VARIANT_NAMES,
            help="the variant of games without a GameType tag",
        )
        parser.add_argument(
            "--queue",
            action="store_true",
            help="send the proofs of new puzzles to the workers instead of proving them here",
        )

    def handle(self, *args, paths, variant, queue=False, **opts):
        files: list[Path] = []
        for name in paths:
            path = Path(name)
            if path.is_dir():
                files.extend(sorted(path.glob("*.pdn")))
            elif path.is_file():
                files.append(path)
            else:
                raise CommandError(f"{name}: no such file or directory")
        if queue:
            self.load(files, variant)
            return
        with proofs_held() as held:
            self.load(files, variant, queued="to prove")
        if held:
            self.stdout.write(
                f"Proving {len(held)} puzzles here (--queue sends them to the workers instead):"
            )
            outcomes = prove_in_process(self.stdout, held)
            summary = ", ".join(f"{kind} {n}" for kind, n in sorted(outcomes.items()))
            self.stdout.write(f"Verdicts: {summary}")

    def load(self, files: list[Path], variant: str | None, queued: str = "queued for proof"):
        totals = {"created": 0, "updated": 0, "unchanged": 0, "proven": 0, "skipped": 0}
        for path in files:
            counts = dict.fromkeys(totals, 0)
            text = path.read_text(encoding="utf-8")
            with transaction.atomic():
                for entry in engine.read_puzzles(text, variant):
                    if isinstance(entry, ValidationError):
                        counts["skipped"] += 1
                        self.stderr.write(f"{path}: {' '.join(entry.messages)}")
                        continue
                    try:
                        puzzle, status = Puzzle.objects.import_data(entry)
                    except ValidationError as exc:
                        counts["skipped"] += 1
                        self.stderr.write(
                            f"{path}: {entry.fen} {entry.goal}: {' '.join(exc.messages)}"
                        )
                        continue
                    counts[status] += 1
                    if status == "created" and puzzle.is_finished:
                        counts["proven"] += 1
            for key, n in counts.items():
                totals[key] += n
            self.stdout.write(
                "{path}: {created} new ({proven} with their proof), {updated} updated, "
                "{unchanged} unchanged, {skipped} skipped".format(path=path, **counts)
            )
        waiting = totals["created"] - totals["proven"] + totals["updated"]
        self.stdout.write(
            f"{len(files)} files: {totals['created']} new puzzles, {totals['updated']} updated, "
            f"{waiting} {queued}."
        )
