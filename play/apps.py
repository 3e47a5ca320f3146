from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PlayConfig(AppConfig):
    name = "play"
    verbose_name = _("Games against the computer")

    def ready(self) -> None:
        # a visitor's games are handed over to the account at log-in or sign-up (core.progress)
        from . import owner  # noqa: F401
