"""WSGI entry point: `gunicorn dama_learn.wsgi`."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dama_learn.settings")

application = get_wsgi_application()
