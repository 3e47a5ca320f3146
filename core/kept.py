"""Values a process keeps between requests, dropped everywhere as soon as their data changes.

A web process keeps a few values that every request would otherwise read again (the rows of the
puzzle pool, a served puzzle's row, today's daily puzzles). Another process (a second gunicorn
worker, a Celery worker writing a verdict) may change the data behind them, and the next request
anywhere must see the change: a puzzle deleted on one worker must not be served by another.

So each kind of value belongs to a *group* whose generation lives in Django's cache, shared by
every process where it matters (Redis in production; locmem in development, where one process
serves). A change calls :func:`bump` (one cache write); a kept value is used only while its
group's generation is the one it was made under (one cache read per use) and it is younger than
its ``seconds``. When the cache is down nothing is kept: every use reads the database, as
without this module.

Why our own: Django's cache would have to pickle and unpickle the values (model instances, a
few hundred rows) on every request, which costs more than the query it saves; here only an
integer crosses the wire, and the values stay in the process.

    >>> pool = Kept("doctest", seconds=30)
    >>> pool.get("czech", lambda: [1, 2, 3])
    [1, 2, 3]
    >>> pool.get("czech", lambda: [4])  # kept
    [1, 2, 3]
    >>> bump("doctest")
    >>> pool.get("czech", lambda: [4])  # the group changed: made again
    [4]
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.cache import cache

log = logging.getLogger(__name__)
T = TypeVar("T")

#: every Kept instance, so that tests can start each test with empty process caches
_instances: list[Kept] = []


def _key(group: str) -> str:
    return f"kept-generation:{group}"


def generation(group: str) -> int | None:
    """The group's current generation, or None when the cache cannot say (nothing is kept)."""
    try:
        value = cache.get(_key(group))
        if value is None:  # first use, or evicted: a new generation drops what was kept
            cache.add(_key(group), secrets.randbits(62), timeout=None)
            value = cache.get(_key(group))
    except Exception as exc:  # the cache server is down: keep nothing, read the database
        log.warning("kept values of %s: cache unavailable (%s)", group, exc)
        return None
    return int(value) if value is not None else None


def bump(group: str, **_signal: Any) -> None:
    """The data behind ``group`` changed: every process makes its kept values again.
    (Usable as a signal receiver through ``functools.partial``.)"""
    try:
        cache.set(_key(group), secrets.randbits(62), timeout=None)
    except Exception as exc:
        log.warning("kept values of %s: cache unavailable (%s)", group, exc)
    for kept in _instances:
        if kept.group == group:
            kept.values.clear()


class Kept:
    """Values of one kind kept by this process, by key, for at most ``seconds`` each and only
    while the group's generation stays the same."""

    def __init__(self, group: str, *, seconds: float, size: int = 4096) -> None:
        self.group = group
        self.seconds = seconds
        self.size = size
        self.values: dict[Any, tuple[int, float, Any]] = {}
        _instances.append(self)

    def get(self, key: Any, make: Callable[[], T], *, keep: Callable[[T], bool] | None = None) -> T:
        """The kept value of ``key``, or ``make()`` (kept when ``keep`` says so, or always)."""
        current = generation(self.group)
        now = time.monotonic()
        found = self.values.get(key)
        if found is not None and found[0] == current and now - found[1] < self.seconds:
            return found[2]  # type: ignore[no-any-return]
        value = make()
        if current is not None and (keep is None or keep(value)):
            if len(self.values) >= self.size:
                self.values.clear()
            self.values[key] = (current, now, value)
        return value

    def fill(self, values: dict[Any, Any]) -> int:
        """Keep ``values`` (by key) as if each had just been made (a process warming up); return
        how many were kept (none while the cache cannot say the generation)."""
        current = generation(self.group)
        if current is None:
            return 0
        now = time.monotonic()
        items = list(values.items())[: self.size]
        if len(self.values) + len(items) > self.size:
            self.values.clear()
        self.values.update((key, (current, now, value)) for key, value in items)
        return len(items)

    def forget(self) -> None:
        self.values.clear()


def forget_process() -> None:
    """Empty every kept value of this process (the tests do this before each test: a test
    database rolled back sends no signal)."""
    for kept in _instances:
        kept.forget()
