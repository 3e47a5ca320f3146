"""The web processes' heartbeat: "the site answered at T", so that an outage pauses the games'
clocks (:class:`versus.models.SiteHeartbeat`; docs/versus.md, "When the site is down").

:func:`start` is called once by each web process as it loads the site (``dama_learn.asgi`` for
daphne and uvicorn, ``dama_learn.wsgi`` for gunicorn's workers, each in its own process after the
fork): a daemon thread beats every ``DAMA_HEARTBEAT_SECONDS`` (0: off, as in the tests) for as
long as the process lives. The process waits for the first heartbeat (at most
``FIRST_BEAT_WAIT`` seconds) before it serves: that heartbeat is the one that finds an outage
and gives it back to the clocks, before any move of the restarted site is judged. The beats run
in the thread, never in the server's event loop (uvicorn imports the application inside it, and
Django refuses the database there). A heartbeat that fails (the database is down) is logged and
tried again at the next beat.
"""

from __future__ import annotations

import logging
import os
import threading

from django.conf import settings
from django.db import close_old_connections

from .models import SiteHeartbeat

log = logging.getLogger(__name__)

#: the longest a starting process waits for its first heartbeat before it serves anyway
FIRST_BEAT_WAIT = 10.0

_started_in: int | None = None


def start() -> threading.Thread | None:
    """Start this process's heartbeat (once per process; None when it is off or running)."""
    global _started_in
    seconds = settings.DAMA_HEARTBEAT_SECONDS
    if not seconds or _started_in == os.getpid():
        return None
    _started_in = os.getpid()
    first = threading.Event()
    thread = threading.Thread(
        target=_run, args=(seconds, first), name="versus-heartbeat", daemon=True
    )
    thread.start()
    if not first.wait(FIRST_BEAT_WAIT):
        log.warning("versus: no first heartbeat within %s s; serving anyway", FIRST_BEAT_WAIT)
    return thread


def _run(seconds: float, first: threading.Event) -> None:
    stop = threading.Event()  # never set: the thread ends with its process
    while True:
        close_old_connections()  # the site's connection policy (DB_CONN_MAX_AGE), and health
        try:
            SiteHeartbeat.beat()
        except Exception:
            log.warning("versus: the site's heartbeat was not written", exc_info=True)
        first.set()
        stop.wait(seconds)
