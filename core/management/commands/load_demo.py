"""Load the demo data (fixtures listed in settings.DAMA_DEMO_FIXTURES) and print the accounts."""

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from core.demo import DEMO_ACCOUNTS


class Command(BaseCommand):
    help = "Load the demo accounts (and any other demo fixtures) for a development site."

    def add_arguments(self, parser):
        parser.add_argument(
            "--force", action="store_true", help="load even with DEBUG off (never in production)"
        )
        parser.add_argument(
            "--queue",
            action="store_true",
            help="send the proofs of new corpus puzzles to the workers instead of proving them here",
        )

    def handle(self, *args, force=False, queue=False, **options):
        if not settings.DEBUG and not force:
            raise CommandError(
                "Refusing to load demo accounts with known passwords while DEBUG is off (use --force)."
            )
        for name in settings.DAMA_DEMO_FIXTURES:
            call_command("loaddata", name, verbosity=0)
            self.stdout.write(f"loaded fixture {name}")
        # The puzzle corpus: idempotent; new puzzles are proven here (about a minute for the whole
        # corpus), so the trainer and the daily puzzle have puzzles at once; --queue: the workers.
        puzzle_files = sorted((settings.BASE_DIR / "fixtures" / "puzzles").glob("*.pdn"))
        if puzzle_files:
            extra = ["--queue"] if queue else []
            call_command("load_puzzles", *map(str, puzzle_files), *extra, stdout=self.stdout)
        self.stdout.write(self.style.SUCCESS("Demo accounts (user name / password):"))
        for username, password, role in DEMO_ACCOUNTS:
            self.stdout.write(f"  {username:<8} / {password:<16} ({role})")
