"""WSGI entry point: `gunicorn dama_learn.wsgi`. Each process beats the site's heartbeat
(``versus.heartbeat``): an outage pauses the games' clocks."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dama_learn.settings")

application = get_wsgi_application()

from versus import heartbeat  # noqa: E402

heartbeat.start()
