from functools import partial

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PuzzlesConfig(AppConfig):
    name = "puzzles"
    verbose_name = _("Puzzles")

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        # the values each process keeps (core.kept: the pool's rows, the puzzles served, today's
        # daily puzzles) are dropped in every process when a puzzle or a daily puzzle changes
        from core.kept import bump

        # the ratings register the session -> account hand-over of a visitor's attempts
        from . import rating  # noqa: F401
        from .models import DailyPuzzle, Puzzle

        changed = partial(bump, "puzzles")
        for sender in (Puzzle, DailyPuzzle):
            for signal in (post_save, post_delete):
                signal.connect(changed, sender=sender, weak=False, dispatch_uid="puzzles.kept")
