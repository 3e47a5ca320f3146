"""ASGI entry point: the site over HTTP, and the WebSockets of the live lessons (``live.routing``) and of
the games between players (``versus.routing``).

Served by daphne's ``runserver`` in development (``make run``) and by uvicorn in production
(docs/production.md: ``uvicorn dama_learn.asgi:application``, beside gunicorn or alone).
WebSockets get the session's user (``AuthMiddlewareStack``) and are refused from another site's
page (``AllowedHostsOriginValidator``: the Origin must be one of ``ALLOWED_HOSTS``). Each
process beats the site's heartbeat (``versus.heartbeat``): an outage pauses the games' clocks.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dama_learn.settings")

# Django first: the apps are loaded before anything imports a model
django_application = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from live.routing import websocket_urlpatterns as live_sockets  # noqa: E402
from versus import heartbeat  # noqa: E402
from versus.routing import websocket_urlpatterns as versus_sockets  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_application,
        "websocket": AllowedHostsOriginValidator(
            AuthMiddlewareStack(URLRouter(live_sockets + versus_sockets))
        ),
    }
)

heartbeat.start()
