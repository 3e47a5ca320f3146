from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ExploreConfig(AppConfig):
    name = "explore"
    verbose_name = _("Analysis board")
