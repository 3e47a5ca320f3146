"""Django's Redis cache for what may be lost: a Redis outage is a cache miss, not an error.

The sessions use Django's ``cached_db`` engine on this cache (``SESSION_CACHE_ALIAS``): a request
reads its session from Redis, not from the database, and every write goes to the database first,
so the database stays the record. Django's ``cached_db`` store catches the cache's errors on some
paths (reading, saving) but not on others (it writes a session read from the database back to the
cache, asks the cache whether a new key exists, deletes at logout): on Django's own Redis cache
those paths would answer every request with a 500 while Redis is down (tests/faults stops
Redis). This backend is Django's ``RedisCache`` with each operation's connection error logged and
answered as a miss, so with Redis down the sessions are read from the database, as with the
``db`` engine.

Why our own: Django's cache backends raise on a lost connection by design, and django-redis's
``IGNORE_EXCEPTIONS`` would bring a second Redis client library for these few lines.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

log = logging.getLogger(__name__)


def _lost(operation: str, exc: Exception) -> None:
    log.warning("cache %s skipped, Redis unavailable: %s", operation, exc)


class TolerantRedisCache(RedisCache):
    """``RedisCache`` whose connection errors are misses (reads) and no-ops (writes)."""

    def get(self, key: Any, default: Any = None, version: int | None = None) -> Any:
        try:
            return super().get(key, default, version)
        except RedisError as exc:
            _lost("read", exc)
            return default

    def set(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None
    ) -> None:
        try:
            super().set(key, value, timeout, version)
        except RedisError as exc:
            _lost("write", exc)

    def add(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: int | None = None
    ) -> bool:
        try:
            return super().add(key, value, timeout, version)
        except RedisError as exc:
            _lost("write", exc)
            return False

    def delete(self, key: Any, version: int | None = None) -> bool:
        try:
            return super().delete(key, version)
        except RedisError as exc:
            _lost("delete", exc)
            return False

    def has_key(self, key: Any, version: int | None = None) -> bool:
        try:
            return super().has_key(key, version)
        except RedisError as exc:
            _lost("read", exc)
            return False
