"""Server-side time of every response in a ``Server-Timing`` header (``app;dur=<ms>``).

Load tests read it to tell the time spent in Django (views, database, templates) from the time
spent in the network and the client; browsers show it in their developer tools.
"""

from __future__ import annotations

import time


class ServerTimingMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        start = time.perf_counter()
        response = self.get_response(request)
        elapsed = (time.perf_counter() - start) * 1000
        response["Server-Timing"] = f"app;dur={elapsed:.2f}"
        return response
