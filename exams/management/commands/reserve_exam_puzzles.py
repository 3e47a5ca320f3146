"""Reserve the exams' share of the corpus (idempotent): practice stops serving those puzzles."""

from django.core.management.base import BaseCommand

from core.variants import VARIANT_NAMES
from exams.pool import reserve


class Command(BaseCommand):
    help = "Reserve the exams' share of each variant's proven puzzles (practice leaves them out)."

    def handle(self, *args, **options):
        for variant in VARIANT_NAMES:
            self.stdout.write(f"{variant}: {reserve(variant)} newly reserved")
