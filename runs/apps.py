from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class RunsConfig(AppConfig):
    name = "runs"
    verbose_name = _("Puzzle runs")

    def ready(self) -> None:
        # the models register the session -> account hand-over of a visitor's runs
        from . import models  # noqa: F401
