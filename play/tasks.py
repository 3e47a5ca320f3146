"""Celery tasks of the play app, on the ``play`` queue (``CELERY_TASK_ROUTES``; an exam's game's
on the ``exam`` queue, which the play workers take first): the computer's move and a hint. Thin
and idempotent: each takes the game's id and the version it was asked for, reloads the row,
returns early when the game moved on (a takeback, a resignation, another delivery), searches,
and writes with a conditional update on the version. When it ends, its player's next search
is sent (``Search.done``: one search of a player's on the workers at a time)."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import Any

from celery import shared_task
from django.conf import settings

from core.workers import TRANSIENT_ERRORS

from .models import Game, Search

logger = logging.getLogger(__name__)

#: the strongest level searches about a second a move; the limits leave room for a busy machine
#: (and stay within the site's, which the broker's visibility timeout is set above)
SOFT_TIME_LIMIT = min(30, settings.CELERY_TASK_SOFT_TIME_LIMIT)
TIME_LIMIT = min(40, settings.CELERY_TASK_TIME_LIMIT)
#: both tasks: acknowledged late (a lost worker's game is searched again), retried on a lost
#: database or broker connection
TASK_OPTIONS: dict[str, Any] = {
    "acks_late": True,
    "reject_on_worker_lost": True,
    "soft_time_limit": SOFT_TIME_LIMIT,
    "time_limit": TIME_LIMIT,
    "autoretry_for": TRANSIENT_ERRORS,
    "retry_backoff": 1,
    "retry_backoff_max": 10,
    "max_retries": 5,
}


@contextlib.contextmanager
def turn(game_id: int, version: int, kind: str) -> Iterator[None]:
    """The search's turn ends with the task, however it ends (its player's next search is
    sent), unless the task will be retried (a transient error: it keeps the turn)."""
    try:
        yield
    except TRANSIENT_ERRORS:
        raise
    except Exception:
        Search.done(game_id, version, kind)
        raise
    Search.done(game_id, version, kind)


@shared_task(name="play.computer_move", **TASK_OPTIONS)
def computer_move(game_id: int, version: int) -> str:
    """The computer's move in game ``game_id`` at ``version``: "played", or "stale" when the
    game is gone or moved on."""
    with turn(game_id, version, Search.Kind.MOVE):
        game = Game.objects.filter(pk=game_id).first()
        if game is None or game.version != version or game.state != Game.State.THINKING:
            return "stale"
        played = game.think()
    logger.info("game %s version %s: %s", game_id, version, "played" if played else "stale")
    return "played" if played else "stale"


@shared_task(name="play.find_hint", **TASK_OPTIONS)
def find_hint(game_id: int, version: int) -> str:
    """The hint asked for game ``game_id`` at ``version``: "found" or "stale"."""
    with turn(game_id, version, Search.Kind.HINT):
        game = Game.objects.filter(pk=game_id).first()
        found = game is not None and game.hint_found(version)
    return "found" if found else "stale"
