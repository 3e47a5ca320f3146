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

        # the models register the session -> account hand-over of a visitor's attempts
        # (``attempt.hand_over_attempts``)
        from .models import DailyPuzzle, Puzzle

        changed = partial(bump, "puzzles")
        for sender in (Puzzle, DailyPuzzle):
            for signal in (post_save, post_delete):
                signal.connect(changed, sender=sender, weak=False, dispatch_uid="puzzles.kept")
        # a puzzle kept for the exams that is deleted no longer seals its positions
        post_delete.connect(unseal, sender=Puzzle, weak=False, dispatch_uid="puzzles.unseal")


def unseal(sender, instance, **_signal) -> None:
    from core.models import SealedPosition

    if instance.for_exams:
        SealedPosition.lift(instance.seal_label)
