"""The versus app's tasks: judge a game's flag when its clock runs out (queued by name,
``versus.flag_game``, by :meth:`versus.models.VersusGame._write`; thin and idempotent: a game
that moved on since, another version, is left alone, its own later task judges it), and the
hourly reminder of the correspondence players whose move's time runs out, and the sweep every
minute that judges the clocks no task was queued for. The workers judge a flag only once the
site's heartbeat shows it answering at the deadline (``VersusGame.judge_clock_unattended``): a
flag does not fall while the web is down."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError

from .models import VersusGame, judge_clocks, queue_flag, remind_correspondence


@shared_task(
    name="versus.flag_game",
    acks_late=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=1,
    max_retries=5,
)
def flag_game(game_id: int, version: int) -> bool:
    """Judge the flag; one that waits for the site's heartbeat (the web may be down at the
    deadline: ``VersusGame.judge_clock_unattended``) is asked again a heartbeat later."""
    game = VersusGame.objects.filter(pk=game_id, version=version).first()
    if game is None:
        return False
    if game.judge_clock_unattended():
        return True
    if game.flag_waits_for_heartbeat():
        queue_flag(game.pk, game.version, float(settings.DAMA_HEARTBEAT_SECONDS))
    return False


@shared_task(name="versus.remind_correspondence", acks_late=True, time_limit=600)
def remind_correspondence_moves() -> int:
    """Hourly (the beat schedule): mail the correspondence players whose move's time runs out
    within a day, once per move."""
    host = next((h for h in settings.ALLOWED_HOSTS if h and h != "*"), "localhost:8000")
    return remind_correspondence(base_url=f"https://{host.lstrip('.')}")


@shared_task(name="versus.judge_clocks", acks_late=True, time_limit=120)
def judge_all_clocks() -> int:
    """Every minute (the beat schedule): end the games whose clock ran out that no flag task
    and no visitor has judged (a deadline further ahead than a task is queued for)."""
    return judge_clocks()
