"""The tournaments listen: a game between players ended (``versus.signals.game_over``, sent once
the end has committed), and when it is a tournament's game its result is recorded
(:meth:`tournaments.models.Tournament.record_game`; an arena pairs the freed players again)."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from versus.models import VersusGame
from versus.signals import game_over

from .models import Tournament


@receiver(game_over, sender=VersusGame, dispatch_uid="tournaments.game_over")
def record_result(sender: Any, game: VersusGame, **_signal: Any) -> None:
    if game.arranged:
        Tournament.record_game(game)
