from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LiveConfig(AppConfig):
    name = "live"
    verbose_name = _("Live lessons")

    def ready(self) -> None:
        from . import receivers  # noqa: F401 - connects the class's signals
