from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = _("Accounts")

    def ready(self) -> None:
        from django.core import checks

        from core.ratelimit import check_shared_cache

        from . import signals  # noqa: F401

        # with DEBUG off, check --deploy fails unless the limits' cache is shared (Redis)
        checks.register(check_shared_cache, checks.Tags.caches, deploy=True)
