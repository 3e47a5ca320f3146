"""Whose games: an account's (its rows), or a visitor's (the ids their session keeps).

A visitor's games are handed over to the account at log-in or sign-up (``core.progress`` key
``play``), like the rest of their progress.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from core import progress

from .models import Game

#: the session's progress key of the games (``core.progress``)
PROGRESS_KEY = "play"
#: how many game ids a visitor's session keeps
VISITOR_GAMES = 200


@dataclass(eq=False)
class Owner:
    """An account (``user``) or a visitor (``user`` None) with the session."""

    user: Any
    session: Any

    @classmethod
    def of(cls, request) -> Owner:
        user = request.user if request.user.is_authenticated else None
        return cls(user, request.session)

    @property
    def is_account(self) -> bool:
        return self.user is not None

    def visitor_ids(self) -> list[int]:
        return [int(pk) for pk in progress.session_data(self, PROGRESS_KEY).get("games", [])]

    def games(self) -> QuerySet[Game]:
        if self.is_account:
            return Game.objects.filter(user=self.user)
        return Game.objects.filter(user__isnull=True, pk__in=self.visitor_ids())

    def game(self, pk: int) -> Game | None:
        """The owner's game ``pk`` (None when it is not theirs)."""
        if not self.is_account and pk not in self.visitor_ids():
            return None
        return self.games().filter(pk=pk).first()

    def remember(self, game: Game) -> None:
        if not self.is_account:
            ids = self.visitor_ids()[-VISITOR_GAMES:]
            progress.update_session_data(self, PROGRESS_KEY, {"games": [*ids, game.pk]})


@progress.handover(PROGRESS_KEY)
def hand_over_games(user, data: dict[str, Any]) -> None:
    """A visitor's games become the account's (games already someone's stay theirs)."""
    ids = [int(pk) for pk in data.get("games", []) if str(pk).isdecimal()]
    if ids:
        Game.objects.filter(pk__in=ids, user__isnull=True).update(user=user)
