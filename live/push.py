"""Telling a live lesson's sockets that something changed (Django Channels' channel layer).

A message carries no state, only that the lesson changed (``live.changed``, with its version) or
that an answer came in (``live.answered``, to the teachers): each consumer reads the lesson from
the database and sends its page what it needs (:mod:`live.consumers`). So a lost message costs
nothing but time: the next one, a reconnect or the page's polling brings the page up to date.
``live.race`` says that a class race of the lesson changed (the ``runs`` app sends it: a race
started or ended to everyone, a student's score to the teachers): the pages ask for the race's
panel again. Both ``changed`` and ``answered`` carry the lesson's ``roster`` (raised when someone leaves the class), and ``live.left``
tells a user's sockets that the user left the class: they close.
A channel layer that is down (Redis stopped) is logged and does not fail the request that made
the change.
"""

from __future__ import annotations

import logging

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)


def group_name(session_id: int) -> str:
    """Everyone in lesson ``session_id``."""
    return f"live-{session_id}"


def teachers_group(session_id: int) -> str:
    """The teachers in lesson ``session_id`` (they follow the answers)."""
    return f"live-{session_id}-teachers"


def _send(group: str, message: dict) -> None:
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, message)
    except Exception:  # the layer's server is down: the pages poll and catch up
        log.warning("live: could not send %s to %s", message.get("type"), group, exc_info=True)


def changed(session_id: int, version: int | None = None, roster: int | None = None) -> None:
    """The lesson changed (to ``version``): every page in it shows it anew."""
    _send(group_name(session_id), {"type": "live.changed", "version": version, "roster": roster})


def answered(session_id: int, roster: int | None = None) -> None:
    """An answer came in: the teachers' pages count it."""
    _send(teachers_group(session_id), {"type": "live.answered", "roster": roster})


def left(session_id: int, user_id: int) -> None:
    """``user_id`` is no longer in the lesson's class: their sockets in it close."""
    _send(group_name(session_id), {"type": "live.left", "user": user_id})


def race(session_id: int, *, teachers_only: bool = False) -> None:
    """A class race of the lesson changed: the pages (the teachers' only, for a score) fetch the
    race's panel again (the ``runs`` app's, ``static/runs/race.js``)."""
    group = teachers_group(session_id) if teachers_only else group_name(session_id)
    _send(group, {"type": "live.race"})
