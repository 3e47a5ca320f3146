"""Progress made before signing in, kept in the session and handed over to the account.

Any feature that tracks progress for anonymous visitors (lessons, puzzles, ...) keeps it under its
own key in the session and registers one hand-over function::

    from core import progress

    @progress.handover("lessons")
    def move_lesson_progress(user, data):
        ...  # write `data` (what the session held under "lessons") into the database for `user`

    progress.session_data(request, "lessons")          # read (a dict, empty when nothing yet)
    progress.update_session_data(request, "lessons", {"czech/1": 3})

When a visitor logs in or signs up (Django's ``user_logged_in`` signal), every registered function
is called with the data kept for its key, inside one transaction, and the key is then cleared from
the session. A function should merge (keep the better of session and database), so that running it
twice does no harm.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from django.contrib.auth.signals import user_logged_in
from django.db import transaction
from django.dispatch import receiver

log = logging.getLogger(__name__)

SESSION_KEY = "dama_progress"

Handler = Callable[[Any, dict[str, Any]], None]
_handlers: dict[str, Handler] = {}


def handover(key: str) -> Callable[[Handler], Handler]:
    """Register ``func(user, data)`` to receive the session's progress under ``key`` at login."""

    def register(func: Handler) -> Handler:
        if key in _handlers and _handlers[key] is not func:
            raise ValueError(f"a progress hand-over for {key!r} is already registered")
        _handlers[key] = func
        return func

    return register


def unregister(key: str) -> None:
    _handlers.pop(key, None)


def registered_keys() -> list[str]:
    return sorted(_handlers)


def session_data(request, key: str) -> dict[str, Any]:
    """What the session holds for ``key`` (a copy; empty when nothing was kept)."""
    return dict(request.session.get(SESSION_KEY, {}).get(key, {}))


def update_session_data(request, key: str, data: dict[str, Any]) -> None:
    """Merge ``data`` into the session's progress for ``key``."""
    store = request.session.get(SESSION_KEY, {})
    store.setdefault(key, {}).update(data)
    request.session[SESSION_KEY] = store


def hand_over(request, user) -> list[str]:
    """Give every registered function its data; return the keys that were handed over."""
    store: dict[str, dict[str, Any]] = request.session.get(SESSION_KEY, {})
    done = []
    with transaction.atomic():
        for key, func in sorted(_handlers.items()):
            data = store.get(key)
            if data:
                func(user, dict(data))
                done.append(key)
    for key in done:
        store.pop(key, None)
    if store:
        request.session[SESSION_KEY] = store
    else:
        request.session.pop(SESSION_KEY, None)
    if done:
        log.info("handed over session progress %s to user %s", done, user.pk)
    return done


@receiver(user_logged_in, dispatch_uid="core.progress.hand_over")
def _on_login(sender, request, user, **kwargs) -> None:
    if request is not None and hasattr(request, "session"):
        hand_over(request, user)
