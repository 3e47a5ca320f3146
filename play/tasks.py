"""Celery tasks of the play app, on the ``play`` queue (``CELERY_TASK_ROUTES``): the computer's
move and a hint. Thin and idempotent: each takes the game's id and the version it was asked
for, reloads the row, returns early when the game moved on (a takeback, a resignation, another
delivery), searches, and writes with a conditional update on the version."""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError
from kombu.exceptions import OperationalError as BrokerOperationalError

from .models import Game

logger = logging.getLogger(__name__)

#: errors worth a retry: the database or the broker was briefly out of reach
TRANSIENT_ERRORS = (OperationalError, InterfaceError, BrokerOperationalError, ConnectionError)
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


@shared_task(name="play.computer_move", **TASK_OPTIONS)
def computer_move(game_id: int, version: int) -> str:
    """The computer's move in game ``game_id`` at ``version``: "played", or "stale" when the
    game is gone or moved on."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None or game.version != version or game.state != Game.State.THINKING:
        return "stale"
    played = game.think()
    logger.info("game %s version %s: %s", game_id, version, "played" if played else "stale")
    return "played" if played else "stale"


@shared_task(name="play.find_hint", **TASK_OPTIONS)
def find_hint(game_id: int, version: int) -> str:
    """The hint asked for game ``game_id`` at ``version``: "found" or "stale"."""
    game = Game.objects.filter(pk=game_id).first()
    if game is None:
        return "stale"
    return "found" if game.hint_found(version) else "stale"
