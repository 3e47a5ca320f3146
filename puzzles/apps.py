from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PuzzlesConfig(AppConfig):
    name = "puzzles"
    verbose_name = _("Puzzles")

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        # the ratings register the session -> account hand-over of a visitor's attempts
        from . import (
            daily,
            rating,  # noqa: F401
            stream,
        )
        from .models import DailyPuzzle, Puzzle

        # the stream's rows of the pool and the puzzles served, kept a few seconds per process
        # (stream.pool_rows, models.served_puzzle)
        post_save.connect(stream.forget_pool, sender=Puzzle, dispatch_uid="puzzles.pool.save")
        post_delete.connect(stream.forget_pool, sender=Puzzle, dispatch_uid="puzzles.pool.del")
        # today's daily puzzles, kept a few seconds per process (daily.todays_ids)
        for sender in (Puzzle, DailyPuzzle):
            for signal in (post_save, post_delete):
                signal.connect(daily.forget_today, sender=sender, dispatch_uid="puzzles.today")
