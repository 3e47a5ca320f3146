"""A small fixed-window rate limiter on Django's cache (locmem in development, Redis in production).

``Limiter("login", limit=5, window=300)`` counts events per key (e.g. username + client address)
for ``window`` seconds; once ``limit`` is reached, ``is_blocked`` says so until the window ends.
A cache that fails (Redis down) never locks anyone out: the limiter then lets requests through
and logs a warning, so a broken cache cannot take log-in down with it.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass

from django.core.cache import cache

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Limiter:
    name: str
    limit: int
    window: int

    def key(self, *parts: str) -> str:
        digest = hashlib.sha256("\x00".join(parts).encode("utf-8", "replace")).hexdigest()[:32]
        return f"ratelimit:{self.name}:{digest}"

    def count(self, *parts: str) -> int:
        try:
            return int(cache.get(self.key(*parts), 0))
        except Exception as exc:  # the cache server is down: fail open
            log.warning("rate limiter %s: cache unavailable (%s)", self.name, exc)
            return 0

    def is_blocked(self, *parts: str) -> bool:
        return self.count(*parts) >= self.limit

    def hit(self, *parts: str) -> int:
        """Count one event; the window starts with the first event of a key."""
        key = self.key(*parts)
        try:
            cache.add(key, 0, self.window)
            try:
                return int(cache.incr(key))
            except ValueError:  # expired between add and incr
                cache.set(key, 1, self.window)
                return 1
        except Exception as exc:
            log.warning("rate limiter %s: cache unavailable (%s)", self.name, exc)
            return 0

    def reset(self, *parts: str) -> None:
        try:
            cache.delete(self.key(*parts))
        except Exception as exc:
            log.warning("rate limiter %s: cache unavailable (%s)", self.name, exc)


def client_address(request) -> str:
    """The client's address as the server sees it (REMOTE_ADDR; behind a proxy, its address)."""
    return request.META.get("REMOTE_ADDR", "") or "unknown"
