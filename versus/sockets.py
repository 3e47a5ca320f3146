"""How many game sockets (``/ws/versus/...``) one account holds open across the site.

Each open socket of a signed-in account takes one of its ``DAMA_VERSUS_SOCKETS_PER_USER``
numbered slots in the default cache: ``cache.add`` of the slot's key (Redis's ``SET NX``, so one
slot is one socket across every ASGI process that shares the Redis; with the laptop's
local-memory cache, within one process). A visitor who is not signed in is not counted. A slot expires ``STALE`` seconds after its socket last said it was alive (the
consumer renews it every ``HEARTBEAT`` seconds), so the slots of a process killed without closing
its sockets come free by themselves. When the cache is out of reach the socket is let in
(logged): a cap is not worth refusing every game.

No table: the count changes with every tab opened and closed, and a lost count heals by expiry.
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.core.cache import cache

log = logging.getLogger(__name__)

#: seconds between a socket's renewals of its slot; a slot not renewed for STALE is free
HEARTBEAT = 30
STALE = 90


def _key(who: str, slot: int) -> str:
    return f"versus-socket:{who}:{slot}"


def owner(user) -> str:
    """Whose slots a socket takes: the account's; "" for a visitor who is not signed in (a
    spectator of a public game), whose sockets are not counted: behind a proxy that does not
    pass the visitor's address, every visitor would share one address and its slots."""
    if user is not None and user.is_authenticated:
        return f"u{user.pk}"
    return ""


def take(who: str, channel: str) -> int | None:
    """A free slot of ``who``'s (:func:`owner`) for socket ``channel``: its number, -1 when the
    cache is out of reach or ``who`` is not counted (let in), None when every slot is taken."""
    if not who:
        return -1
    try:
        for slot in range(settings.DAMA_VERSUS_SOCKETS_PER_USER):
            if cache.add(_key(who, slot), channel, timeout=STALE):
                return slot
    except Exception:
        log.warning("versus: the socket count is out of reach; socket let in", exc_info=True)
        return -1
    return None


def renew(who: str, slot: int, channel: str) -> None:
    """Keep the slot (the socket is alive): set again, in case it expired meanwhile."""
    if slot < 0:
        return
    try:
        cache.set(_key(who, slot), channel, timeout=STALE)
    except Exception:
        log.warning("versus: could not renew a socket's slot", exc_info=True)


def free(who: str, slot: int, channel: str) -> None:
    """Give the slot back when it is still this socket's."""
    if slot < 0:
        return
    try:
        key = _key(who, slot)
        if cache.get(key) == channel:
            cache.delete(key)
    except Exception:
        log.warning("versus: could not free a socket's slot", exc_info=True)
