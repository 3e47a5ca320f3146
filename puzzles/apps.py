from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PuzzlesConfig(AppConfig):
    name = "puzzles"
    verbose_name = _("Puzzles")

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        # the ratings register the session -> account hand-over of a visitor's attempts
        from . import (
            rating,  # noqa: F401
            stream,
        )
        from .models import Puzzle

        # the stream's rows of the pool, kept a few seconds per process (stream.pool_rows)
        post_save.connect(stream.forget_pool, sender=Puzzle, dispatch_uid="puzzles.pool.save")
        post_delete.connect(stream.forget_pool, sender=Puzzle, dispatch_uid="puzzles.pool.del")
