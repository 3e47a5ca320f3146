from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PuzzlesConfig(AppConfig):
    name = "puzzles"
    verbose_name = _("Puzzles")

    def ready(self) -> None:
        # the trainer registers its session -> account hand-over (core.progress)
        from django.db.models.signals import post_delete, post_save

        from . import trainer
        from .models import Puzzle

        # the stream's rows of the pool, kept a few seconds per process (trainer.pool_rows)
        post_save.connect(trainer.forget_pool, sender=Puzzle, dispatch_uid="puzzles.pool.save")
        post_delete.connect(trainer.forget_pool, sender=Puzzle, dispatch_uid="puzzles.pool.del")
