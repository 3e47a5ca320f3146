"""Keep the exams' share of the corpus (idempotent): run after ``DAMA_EXAM_SHARE_PERCENT`` grows.

A puzzle is kept for the exams when it is saved (``Puzzle.for_exams``); this marks the corpus's
puzzles that fall in the share now and are not kept yet (and seals their positions). A puzzle
once kept is never given back to practice.
"""

from django.core.management.base import BaseCommand

from core.variants import VARIANT_NAMES
from puzzles.models import Puzzle


class Command(BaseCommand):
    help = "Keep the exams' share of each variant's corpus for them (practice leaves it out)."

    def handle(self, *args, **options):
        for variant in VARIANT_NAMES:
            kept = Puzzle.objects.filter(variant=variant).keep_exam_share()
            self.stdout.write(f"{variant}: {kept} newly kept for the exams")
