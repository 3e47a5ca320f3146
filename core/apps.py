from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class CoreConfig(AppConfig):
    name = "core"
    verbose_name = _("Site")

    def ready(self) -> None:
        # the engine reads its endgame databases from $DAMA_ENDGAMES (dama.endgames.default_tables):
        # hand it the site's directory, in web and worker processes alike
        import os

        from django.conf import settings

        os.environ["DAMA_ENDGAMES"] = str(settings.DAMA_ENDGAMES_DIR)
