"""Which web requests are running on this machine now, so that the computer's searches give way.

Where gunicorn and the ``play`` worker share the cores (README "Playing the computer"), a search
slows the site's requests down even at the lowest priority (a cgroup with ``cpu.idle``, each
process on its own core): the kernel gives a request the core at once, but the search beside it
still shares the caches and the memory with it. So each gunicorn worker marks the request it
serves in a small file in shared memory (``gunicorn.conf.py``: ``pre_request`` and
``post_request``), and the play worker's search (``dama.search``'s ``pause``) waits, at most
:data:`MOST_SECONDS` at a time, while a request is marked. The searches then run only in the
gaps between requests; a search's result does not change (the engine does not count the time it
waited). Only gunicorn marks its requests: the live lessons' ASGI server (uvicorn) does not.

Set ``DAMA_WEB_BUSY_FILE`` to the same path (e.g. ``/dev/shm/dama-web-busy``) for gunicorn and
the play worker, run as the same user; without it nothing is marked and nothing waits (nor when
the file cannot be opened: that is logged).

The file holds :data:`SLOTS` clock readings (``time.monotonic``, the same clock in every process
of the machine): a worker writes the time its request started into its slot (by process id) and
clears it when the request ends. A mark older than :data:`STALE_SECONDS` is a request that hangs
or a worker that died mid-request, and is not waited for; two workers sharing a slot may clear
each other's mark early, which only lets a search run a little sooner. Our own code, because
this is a few lines of the standard library's ``mmap``: a lock or a queue (a Redis key, a
semaphore) would cost every request a system call or a round trip, and would have to be freed by
a worker that may die.

>>> import tempfile, os
>>> folder = tempfile.TemporaryDirectory()
>>> web, search = WebBusy(os.path.join(folder.name, "busy")), WebBusy(os.path.join(folder.name, "busy"))
>>> search.busy(), search.wait()
(False, 0.0)
>>> web.start(); search.busy()
True
>>> web.end(); search.busy()
False
>>> folder.cleanup()
"""

from __future__ import annotations

import logging
import mmap
import os
import time

log = logging.getLogger(__name__)

#: slots of the file (one per web process, by process id)
SLOTS = 512
#: a mark older than this is not waited for (a hanging request, a worker that died)
STALE_SECONDS = 2.0
#: the longest one wait lasts (the search looks again about a tenth of a millisecond later)
MOST_SECONDS = 0.5
#: how often a waiting search looks whether the requests are over
POLL_SECONDS = 0.0005

_SIZE = SLOTS * 8
_CLEAR = bytes(_SIZE)


class WebBusy:
    """The shared file at ``path`` (created when missing), for marking requests or waiting."""

    def __init__(self, path: str) -> None:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            if os.fstat(fd).st_size < _SIZE:
                os.ftruncate(fd, _SIZE)
            self._map = mmap.mmap(fd, _SIZE)
        finally:
            os.close(fd)
        self._marks = memoryview(self._map).cast("d")
        self._slot = os.getpid() % SLOTS

    # -- the web's side ---------------------------------------------------------------------------
    def start(self) -> None:
        """A request of this process starts."""
        self._marks[self._slot] = time.monotonic()

    def end(self) -> None:
        """The request of this process is over."""
        self._marks[self._slot] = 0.0

    # -- the search's side ------------------------------------------------------------------------
    def busy(self) -> bool:
        """Whether a request started less than :data:`STALE_SECONDS` ago is still running."""
        if self._map[:] == _CLEAR:
            # nothing marked (most of the time): a copy and a compare of 4 KB, about 0.2 µs, where
            # reading the 512 marks takes 10 µs; the search asks every 32 nodes
            return False
        newest = max(self._marks)
        return newest > 0.0 and time.monotonic() - newest < STALE_SECONDS

    def wait(self) -> float:
        """Sleep while a request runs, at most :data:`MOST_SECONDS`: the seconds waited (0.0 when
        no request runs). This is the search's ``pause``."""
        if not self.busy():
            return 0.0
        t0 = time.monotonic()
        while True:
            time.sleep(POLL_SECONDS)
            waited = time.monotonic() - t0
            if waited >= MOST_SECONDS or not self.busy():
                return waited


#: by (path, process id): a forked process takes its own slot; a file that could not be opened
#: is None, so that a request does not try (and log) again
_opened: dict[tuple[str, int], WebBusy | None] = {}


def opened(path: str | None = None) -> WebBusy | None:
    """This process's :class:`WebBusy` for ``path`` (default: ``DAMA_WEB_BUSY_FILE``), or None
    when no file is set or it cannot be opened."""
    path = os.environ.get("DAMA_WEB_BUSY_FILE", "") if path is None else path
    if not path:
        return None
    key = (path, os.getpid())
    if key not in _opened:
        try:
            _opened[key] = WebBusy(path)
        except OSError as exc:  # a hint, never a reason to fail a request or a search
            log.warning("DAMA_WEB_BUSY_FILE %s cannot be opened: %s", path, exc)
            _opened[key] = None
    return _opened[key]
