"""How many games against the computer may be started (``core.ratelimit``, on the cache): a
player (an account, or a visitor's session) ``DAMA_PLAY_GAMES_PER_HOUR`` an hour, a client
address ``DAMA_PLAY_GAMES_PER_HOUR_PER_ADDRESS`` an hour (a class behind one school address:
set it to what a class plays). Only the new-game form counts: an exam's endgame game is started
by the exam (``exams.models.Exam.start_endgame``) and never refused.

What a player has running is limited elsewhere: one search of the computer's at a time
(``play.models.Search``).
"""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.limits import wait_text
from core.ratelimit import Limiter

from .owner import Owner

HOUR = 3600


def games_by_player() -> Limiter:
    return Limiter("play-games", settings.DAMA_PLAY_GAMES_PER_HOUR, HOUR)


def games_by_address() -> Limiter:
    return Limiter("play-games-ip", settings.DAMA_PLAY_GAMES_PER_HOUR_PER_ADDRESS, HOUR)


def _player_refusal(limiter: Limiter, who: str) -> tuple[str, int]:
    wait = limiter.retry_after(who)
    text = ngettext(
        "You have started %(n)s game in the last hour, the most there may be. Go on with one of "
        "your games, or wait %(wait)s for a new one.",
        "You have started %(n)s games in the last hour, the most there may be. Go on with one of "
        "your games, or wait %(wait)s for a new one.",
        limiter.limit,
    ) % {"n": limiter.limit, "wait": wait_text(wait)}
    return text, wait


def _address_refusal(limiter: Limiter, address: str) -> tuple[str, int]:
    wait = limiter.retry_after(address)
    text = _(
        "Too many games have been started from your network in the last hour. Go on with one of "
        "your games, or wait %(wait)s for a new one."
    ) % {"wait": wait_text(wait)}
    return text, wait


def refusal(owner: Owner) -> tuple[str, int]:
    """Count a new game of ``owner`` if the limits allow it: ("", 0); else why it is refused and
    the seconds to wait (a refused start is not counted: it does not lengthen the wait). The
    count is the cache's atomic increment, so parallel starts cannot slip past together."""
    player, address = games_by_player(), games_by_address()
    who = owner.player()
    if player.is_blocked(who):
        return _player_refusal(player, who)
    if address.is_blocked(owner.address):
        return _address_refusal(address, owner.address)
    if not player.allow(who):
        return _player_refusal(player, who)
    if not address.allow(owner.address):
        return _address_refusal(address, owner.address)
    return "", 0
