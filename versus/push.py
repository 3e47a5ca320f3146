"""Telling a game's sockets that it changed (Django Channels' channel layer), as ``live.push``
does for a lesson. The message carries the game's version and its news
(:meth:`versus.models.VersusGame.news`: the move just played, the clocks, the offers), so that a
player's page, and a spectator's of a casual game, shows the move without asking the server; a
spectator of a rated game is sent the version alone and asks for the game as they may see it (a
few plies late). A game of a simul tells the simul's page too (its grid of boards). A lost
message costs only time (the page's poll, a reconnect), and a layer that is down is logged.

A change made by the game's consumer (a move over the socket) is not sent from the database's
thread: :func:`held` keeps its messages there, and the consumer sends them from its event loop
(:func:`send_held`), where sending costs no hop between threads while the loop is busy with every
other socket of the process."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

log = logging.getLogger(__name__)

_held = threading.local()


def group_name(game_id: int) -> str:
    """Everyone following game ``game_id``: both players and the spectators."""
    return f"versus-{game_id}"


def simul_group_name(simul_id: int) -> str:
    """Every page of simul ``simul_id``'s grid."""
    return f"versus-simul-{simul_id}"


def _send(group: str, message: dict) -> None:
    kept = getattr(_held, "messages", None)
    if kept is not None:
        kept.append((group, message))
        return
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group, message)
    except Exception:  # the layer's server is down: the pages poll and catch up
        log.warning("versus: could not tell %s's pages", group, exc_info=True)


def changed(
    game_id: int, version: int, simul_id: int | None = None, news: dict | None = None
) -> None:
    _send(group_name(game_id), {"type": "versus.changed", "version": version, "news": news})
    if simul_id is not None:
        simul_changed(simul_id)


def simul_changed(simul_id: int) -> None:
    _send(simul_group_name(simul_id), {"type": "simul.changed"})


@contextlib.contextmanager
def held() -> Iterator[list[tuple[str, dict]]]:
    """Keep the messages of the changes made in this thread inside the block, to be sent with
    :func:`send_held`."""
    _held.messages = []
    try:
        yield _held.messages
    finally:
        del _held.messages


async def send_held(layer, messages: list[tuple[str, dict]]) -> None:
    for group, message in messages:
        try:
            await layer.group_send(group, message)
        except Exception:  # the layer's server is down: the pages poll and catch up
            log.warning("versus: could not tell %s's pages", group, exc_info=True)
