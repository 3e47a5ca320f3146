from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ReviewConfig(AppConfig):
    name = "review"
    verbose_name = _("Review")

    def ready(self) -> None:
        # listens to the trainer and the lessons, and registers the visitor's hand-over
        from . import receivers  # noqa: F401
