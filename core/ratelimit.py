"""Rate limits on Django's cache (locmem on a laptop, Redis in production), and who the client is.

Two kinds of limit, both keyed by parts that are joined and hashed (a user name, an address):

* ``Limiter("signup", limit=10, window=3600)`` counts events per key in a fixed window that starts
  with the key's first event; once ``limit`` is reached, ``is_blocked`` says so until the window
  ends (``retry_after`` says how long). ``allow`` counts and answers in one atomic step, so that
  parallel requests cannot slip past the limit together.
* ``Backoff("login-account", free=5, base=2, cap=900)`` gives growing delays instead of a hard lock:
  a key may fail ``free`` times; each failure after that makes the next attempt wait twice as long as
  the last (``base``, ``2 * base``, ... up to ``cap`` seconds). During the wait an attempt is refused
  unchecked; after it, one attempt at a time is let through, so the right password works again and
  parallel requests cannot sneak in extra guesses. Failures are forgotten ``memory`` seconds after
  the last one, or at once on ``reset`` (a successful log-in).

Helpers make the key parts: ``client_address(request)`` (the client's address, read from
``X-Forwarded-For`` only when the request comes from a proxy in ``DAMA_TRUSTED_PROXIES``; an IPv6
client as its /64 network) and ``username_key(name)`` (a user name as Django normalises it, NFKC, and
case-folded, so that look-alike names share their failures).

A cache that fails (Redis down) never locks anyone out: the limits then let requests through and log
a warning, so a broken cache cannot take log-in down with it. The cache must be shared by every
process of the site, or each gunicorn worker counts on its own: with DEBUG off, ``check --deploy``
fails unless it is (``check_shared_cache``).

>>> username_key("  ＳＴＡＮＤＡ ")
'standa'
>>> Backoff("doc", free=2, base=3, cap=20).delay(1), Backoff("doc", free=2, base=3, cap=20).delay(2)
(0, 3)
>>> [Backoff("doc", free=2, base=3, cap=20).delay(n) for n in (3, 4, 5)]
[6, 12, 20]
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import ipaddress
import logging
import math
import time
import unicodedata
from dataclasses import dataclass

from django.conf import settings
from django.core import checks
from django.core.cache import cache

log = logging.getLogger(__name__)

#: cache backends that every process of a site shares, with an atomic ``incr``
SHARED_CACHE_BACKENDS = {
    "django_redis.cache.RedisCache",
    "django.core.cache.backends.redis.RedisCache",
    "django.core.cache.backends.memcached.PyMemcacheCache",
    "django.core.cache.backends.memcached.PyLibMCCache",
}


def _digest(parts: tuple[str, ...]) -> str:
    return hashlib.sha256("\x00".join(parts).encode("utf-8", "replace")).hexdigest()[:32]


def _unavailable(name: str, exc: Exception) -> None:
    log.warning("rate limiter %s: cache unavailable (%s)", name, exc)


def _incr(key: str, timeout: int) -> int:
    """Add one to the counter at ``key`` (made with ``timeout`` if missing); the new value."""
    cache.add(key, 0, timeout)
    try:
        return int(cache.incr(key))
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout)
        return 1


@dataclass(frozen=True)
class Limiter:
    """At most ``limit`` events per key in a window of ``window`` seconds from the key's first."""

    name: str
    limit: int
    window: int

    def key(self, *parts: str) -> str:
        return f"ratelimit:{self.name}:{_digest(parts)}"

    def count(self, *parts: str) -> int:
        try:
            return int(cache.get(self.key(*parts), 0))
        except Exception as exc:  # the cache server is down: fail open
            _unavailable(self.name, exc)
            return 0

    def is_blocked(self, *parts: str) -> bool:
        return self.count(*parts) >= self.limit

    def hit(self, *parts: str) -> int:
        """Count one event; the window starts with the first event of a key."""
        key = self.key(*parts)
        try:
            cache.add(f"{key}:end", time.time() + self.window, self.window)
            return _incr(key, self.window)
        except Exception as exc:
            _unavailable(self.name, exc)
            return 0

    def allow(self, *parts: str) -> bool:
        """Count one event and say whether it is within the limit (one atomic step)."""
        return self.hit(*parts) <= self.limit

    def retry_after(self, *parts: str) -> int:
        """Whole seconds until the key's window ends (at least 1; the window if unknown)."""
        try:
            end = cache.get(f"{self.key(*parts)}:end")
        except Exception as exc:
            _unavailable(self.name, exc)
            end = None
        if end is None:
            return self.window
        return max(1, math.ceil(float(end) - time.time()))

    def reset(self, *parts: str) -> None:
        key = self.key(*parts)
        try:
            cache.delete_many([key, f"{key}:end"])
        except Exception as exc:
            _unavailable(self.name, exc)


@dataclass(frozen=True)
class Backoff:
    """Growing delays after ``free`` failures of a key (see the module docstring)."""

    name: str
    free: int
    base: int
    cap: int
    #: failures are forgotten this many seconds after the last one
    memory: int = 24 * 3600
    #: how long an attempt let through after a wait keeps the others out while it is checked
    hold: int = 30

    def delay(self, failures: int) -> int:
        """The wait (seconds) after a key's ``failures``-th failure in a row."""
        if failures < self.free:
            return 0
        return min(self.cap, self.base * 2 ** min(failures - self.free, 32))

    def key(self, *parts: str) -> str:
        """The cache key of the failure count (the gate's is this plus ``:gate``)."""
        return f"backoff:{self.name}:{_digest(parts)}"

    def _keys(self, parts: tuple[str, ...]) -> tuple[str, str]:
        key = self.key(*parts)
        return key, f"{key}:gate"

    def begin(self, *parts: str) -> int:
        """Claim an attempt: 0 when it may be checked now (the caller then calls ``fail`` or
        ``reset``), else the whole seconds to wait. A refused attempt is not counted."""
        count_key, gate_key = self._keys(parts)
        try:
            attempts = _incr(count_key, self.memory)
            if attempts <= self.free:
                return 0
            now = time.time()
            if cache.add(gate_key, now + self.hold, self.hold):
                return 0  # the wait is over: this attempt holds the gate while it is checked
            with contextlib.suppress(ValueError):  # forgotten meanwhile
                cache.decr(count_key)
            until = cache.get(gate_key)
            return max(1, math.ceil(float(until) - now)) if until is not None else 1
        except Exception as exc:
            _unavailable(self.name, exc)
            return 0

    def fail(self, *parts: str) -> int:
        """Record that the attempt claimed by ``begin`` failed; the wait now due (seconds)."""
        count_key, gate_key = self._keys(parts)
        try:
            failures = int(cache.get(count_key, 0))
            cache.touch(count_key, self.memory)
            wait = self.delay(failures)
            if wait:
                cache.set(gate_key, time.time() + wait, wait)
            return wait
        except Exception as exc:
            _unavailable(self.name, exc)
            return 0

    def failures(self, *parts: str) -> int:
        try:
            return int(cache.get(self._keys(parts)[0], 0))
        except Exception as exc:
            _unavailable(self.name, exc)
            return 0

    def reset(self, *parts: str) -> None:
        try:
            cache.delete_many(list(self._keys(parts)))
        except Exception as exc:
            _unavailable(self.name, exc)


def username_key(username: str) -> str:
    """A user name as a limiter key: NFKC-normalised as Django normalises user names, stripped
    and case-folded, so that ``Standa`` and full-width ``ｓｔａｎｄａ`` share their failures."""
    return unicodedata.normalize("NFKC", username).strip().casefold()[:150]


@functools.lru_cache(maxsize=8)
def _networks(
    entries: tuple[str, ...],
) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(entry, strict=False) for entry in entries)


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        return address.ipv4_mapped
    return address


def _trusted(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    proxies = _networks(tuple(getattr(settings, "DAMA_TRUSTED_PROXIES", ())))
    return any(address.version == net.version and address in net for net in proxies)


def client_address(request) -> str:
    """The client's address, the key part that every limit of the site uses.

    ``REMOTE_ADDR``, unless that is a trusted proxy (``DAMA_TRUSTED_PROXIES``): then
    ``X-Forwarded-For`` is read from the right, past the trusted proxies, and the first address
    that is not one is the client (what is to its left the client may have written itself). An
    entry that is not an address stops the walk at the proxy that passed it on. An IPv6 client is
    its /64 network, the share of one household or host, so it cannot take fresh addresses from it.

    >>> from django.test import RequestFactory
    >>> client_address(RequestFactory().get("/", REMOTE_ADDR="2001:db8:1:2:3:4:5:6"))
    '2001:db8:1:2::/64'
    """
    remote = _ip(request.META.get("REMOTE_ADDR", ""))
    if remote is None:
        return "unknown"
    client = remote
    if _trusted(remote):
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        for entry in reversed([part for part in forwarded.split(",") if part.strip()]):
            address = _ip(entry)
            if address is None:
                break
            client = address
            if not _trusted(address):
                break
    if isinstance(client, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((client, 64), strict=False))
    return str(client)


def check_shared_cache(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """Deploy check: with DEBUG off the limits need a cache that every process shares."""
    if settings.DEBUG:
        return []
    backend = settings.CACHES.get("default", {}).get("BACKEND", "")
    if backend in SHARED_CACHE_BACKENDS:
        return []
    return [
        checks.Error(
            f"The rate limits (log-in, sign-up, password reset) count in the default cache, and "
            f"{backend or 'no cache'} is not shared between processes: each gunicorn worker would "
            "count on its own and allow several times the limit.",
            hint="Set REDIS_URL (Redis is the site's shared cache and broker).",
            id="dama.E001",
        )
    ]
