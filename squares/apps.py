from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SquaresConfig(AppConfig):
    name = "squares"
    verbose_name = _("Square trainer")

    def ready(self) -> None:
        from . import trainee  # noqa: F401  (registers the visitors' hand-over at login)
