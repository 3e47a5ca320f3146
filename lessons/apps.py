from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class LessonsConfig(AppConfig):
    name = "lessons"
    verbose_name = _("Lessons")

    def ready(self) -> None:
        from . import checks, progress  # noqa: F401  (registers the system check and hand-over)
