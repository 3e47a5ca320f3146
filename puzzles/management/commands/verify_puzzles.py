"""Prove puzzles, in the worker pool or in this process, with a progress bar.

manage.py verify_puzzles                    # pending, failed and lost proofs
manage.py verify_puzzles --stale            # verdicts an older engine version made
manage.py verify_puzzles --all --variant czech --in-process
manage.py verify_puzzles --ids 12 40 --no-wait
manage.py verify_puzzles --sweep            # what the periodic sweeper does, once
manage.py verify_puzzles --refutations      # unique proofs stored without refutations of wrong moves
"""

from __future__ import annotations

import platform
import time
from collections import Counter

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from core.variants import VARIANT_NAMES
from puzzles import verification
from puzzles.management.bar import ProgressBar
from puzzles.models import FINAL, Puzzle, Verdict


class Command(BaseCommand):
    help = (
        "Prove puzzles (pending, failed and lost ones unless told otherwise) in the worker pool, "
        "following their progress, or in this process."
    )

    def add_arguments(self, parser):
        which = parser.add_mutually_exclusive_group()
        which.add_argument(
            "--stale", action="store_true", help="puzzles proven by another engine version"
        )
        which.add_argument("--all", action="store_true", help="every puzzle, proven or not")
        which.add_argument("--ids", nargs="+", type=int, metavar="ID", help="these puzzles")
        which.add_argument(
            "--refutations",
            action="store_true",
            help="unique puzzles proven before wrong moves were refuted with the proof",
        )
        which.add_argument(
            "--sweep",
            action="store_true",
            help="only enqueue again the proofs that were lost (the periodic sweeper) and exit",
        )
        parser.add_argument("--variant", choices=VARIANT_NAMES)
        parser.add_argument(
            "--in-process", action="store_true", help="prove here instead of in the worker pool"
        )
        parser.add_argument(
            "--no-wait", action="store_true", help="enqueue and exit without following progress"
        )
        parser.add_argument(
            "--timeout",
            type=float,
            default=3600.0,
            help="seconds to wait for the workers (default 3600)",
        )

    def handle(self, *args, **opts):
        if opts["sweep"]:
            result = verification.sweep()
            self.stdout.write(
                f"{result['requeued']} lost proofs queued again, gave up on {result['gave_up']}, "
                f"{result['released']} waiting proofs of teachers sent."
            )
            return
        puzzles = Puzzle.objects.all()
        if opts["variant"]:
            puzzles = puzzles.filter(variant=opts["variant"])
        force = True
        if opts["ids"]:
            puzzles = puzzles.filter(pk__in=opts["ids"])
        elif opts["refutations"]:
            puzzles = puzzles.filter(verdict=Verdict.UNIQUE).exclude(proof__has_key="refutations")
        elif opts["stale"]:
            puzzles = puzzles.stale()
            force = False  # the old verdict stays until the new one arrives
        elif not opts["all"]:
            puzzles = puzzles.needing_proof() | puzzles.lost()
        rows = list(puzzles.order_by("pk").values_list("pk", "revision"))
        if not rows:
            self.stdout.write("Nothing to verify.")
            return
        if opts["in_process"]:
            outcomes = self.prove_here(rows, force)
        else:
            outcomes = self.prove_on_workers(rows, force, opts["no_wait"], opts["timeout"])
        if outcomes:
            summary = ", ".join(f"{kind} {n}" for kind, n in sorted(outcomes.items()))
            self.stdout.write(f"Verdicts: {summary}")

    def prove_here(self, rows: list[tuple[int, int]], force: bool) -> Counter[str]:
        return prove_in_process(self.stdout, rows, force=force)

    def prove_on_workers(
        self, rows: list[tuple[int, int]], force: bool, no_wait: bool, timeout: float
    ) -> Counter[str]:
        started = timezone.now()
        queued = sum(Puzzle.request_verification(pk, rev, force=force) for pk, rev in rows)
        self.stdout.write(f"{queued} puzzles queued on the verify queue.")
        if no_wait:
            return Counter()
        pks = [pk for pk, _rev in rows]
        bar = ProgressBar(self.stdout, len(pks))
        deadline = time.monotonic() + timeout
        while True:
            present = Puzzle.objects.filter(pk__in=pks)
            done = present.filter(verdict__in=FINAL, verified_at__gte=started)
            finished = done.count() + (len(pks) - present.count())
            running = present.filter(verdict=Verdict.RUNNING).order_by("-progress_updated")
            current = running.values_list("pk", "progress_depth", "progress_nodes").first()
            note = f"#{current[0]} depth {current[1]} nodes {current[2]}" if current else ""
            bar.show(finished, note=note)
            if finished >= len(pks):
                bar.finish()
                break
            if time.monotonic() > deadline:
                bar.finish()
                raise CommandError(
                    f"{len(pks) - finished} proofs were not finished after {timeout:g} s: "
                    "is a worker consuming the verify queue (celery -A dama_learn worker -Q verify)?"
                )
            time.sleep(0.5)
        return Counter(
            Puzzle.objects.filter(pk__in=pks).values_list("verdict", flat=True).iterator()
        )


def prove_in_process(out, rows: list[tuple[int, int]], *, force: bool = False) -> Counter[str]:
    """Prove puzzles (pk, revision) here, one after the other, with a progress bar on ``out``;
    ``force`` sets a finished verdict back to pending first. Returns the verdicts counted."""
    bar = ProgressBar(out, len(rows))
    outcomes: Counter[str] = Counter()
    worker = f"{platform.node()} (in-process)"
    bar.show(0)
    for i, (pk, revision) in enumerate(rows):
        if force:
            Puzzle.objects.filter(pk=pk, revision=revision).update(
                verdict=Verdict.PENDING, attempts=0, error=""
            )

        def note(nodes: int, depth: int, elapsed: float, pk: int = pk) -> None:
            bar.show(note=f"#{pk} depth {depth} nodes {nodes}")

        outcomes[verification.run(pk, revision, worker=worker, on_progress=note)] += 1
        bar.show(i + 1, note=f"#{pk}")
    bar.finish()
    return outcomes
