from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class VersusConfig(AppConfig):
    name = "versus"
    verbose_name = _("Games between players")
