"""Server-side time of a response in a ``Server-Timing`` header (``app;dur=<ms>``).

The load test reads it to tell the time spent in Django (views, database, templates) from the time
spent in the network and the client; browsers show it in their developer tools. The header is sent
only when ``DAMA_SERVER_TIMING`` is on (the default with DEBUG, off in production): the time each
answer took is what a timing attack measures (was the password hash computed? does that account
exist?), so a production site does not hand it to every caller. ``tests/load/run_load.py`` turns it
on in gunicorn's environment to report the server's own times.
"""

from __future__ import annotations

import time

from django.conf import settings


class ServerTimingMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if not settings.DAMA_SERVER_TIMING:
            return self.get_response(request)
        start = time.perf_counter()
        response = self.get_response(request)
        elapsed = (time.perf_counter() - start) * 1000
        response["Server-Timing"] = f"app;dur={elapsed:.2f}"
        return response
