from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PuzzlesConfig(AppConfig):
    name = "puzzles"
    verbose_name = _("Puzzles")

    def ready(self) -> None:
        # the trainer registers its session -> account hand-over (core.progress)
        from . import trainer  # noqa: F401
