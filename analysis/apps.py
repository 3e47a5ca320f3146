from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AnalysisConfig(AppConfig):
    name = "analysis"
    verbose_name = _("Game analysis")

    def ready(self) -> None:
        # every finished game is analysed: the games' signals
        from . import receivers  # noqa: F401
