"""Every finished game is analysed: the games' end signals queue its analysis (sent once the
game's end has committed). A game against the computer: ``play.signals.game_over`` (an exam's
endgame is not analysed: it is the exam's, and its position is sealed); a game between players:
``versus.signals.game_over``. A receiver that fails is logged; the game's end stands."""

from __future__ import annotations

import logging
from typing import Any

from django.dispatch import receiver

from play.signals import game_over as play_game_over
from versus.signals import game_over as versus_game_over

from .models import GameAnalysis

log = logging.getLogger(__name__)


@receiver(play_game_over, dispatch_uid="analysis.play_game_over")
def play_game_ended(sender: Any, game: Any, **kwargs: Any) -> None:
    GameAnalysis.of_play_game(game)


@receiver(versus_game_over, dispatch_uid="analysis.versus_game_over")
def versus_game_ended(sender: Any, game: Any, **kwargs: Any) -> None:
    GameAnalysis.of_versus_game(game)
