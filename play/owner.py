"""Whose games: an account's (its rows), or a visitor's (the ids their session keeps).

A visitor's games are handed over to the account at log-in or sign-up (``core.progress`` key
``play``), like the rest of their progress.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from django.utils.crypto import salted_hmac

from core import progress
from core.numbers import read_id
from core.ratelimit import client_address

from .models import Game

#: the session's progress key of the games (``core.progress``)
PROGRESS_KEY = "play"
#: how many game ids a visitor's session keeps
VISITOR_GAMES = 200


def _key(kind: str, value: str) -> str:
    """A key of a visitor's session or address as the games keep it: a keyed hash (the games
    keep neither the session's key nor the address)."""
    return kind + salted_hmac("play.owner", value).hexdigest()[:20]


@dataclass(eq=False)
class Owner:
    """An account (``user``) or a visitor (``user`` None) with the session, from the client
    address ``address`` (``core.ratelimit.client_address``)."""

    user: Any
    session: Any
    address: str = ""

    @classmethod
    def of(cls, request) -> Owner:
        user = request.user if request.user.is_authenticated else None
        return cls(user, request.session, client_address(request))

    @property
    def is_account(self) -> bool:
        return self.user is not None

    def player(self) -> str:
        """Who plays, for the limits and the searches' lines: ``u<id>`` for an account, a key
        of the visitor's session (made now if the session has none yet)."""
        if self.is_account:
            return f"u{self.user.pk}"
        if self.session.session_key is None:
            self.session.save()
        return _key("s", self.session.session_key)

    def search_keys(self) -> dict[str, str]:
        """What a visitor's new game keeps of them for its searches' line (``Game.start``):
        their session's key and their address's; nothing for an account's."""
        if self.is_account:
            return {}
        return {"player_key": self.player(), "address_key": _key("a", self.address)}

    def visitor_ids(self) -> list[int]:
        return _ids(progress.session_data(self, PROGRESS_KEY).get("games", []))

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


def _ids(values) -> list[int]:
    """The game ids kept in a session (anything that is not one is left out)."""
    ids = (read_id(pk) for pk in values) if isinstance(values, list) else ()
    return [pk for pk in ids if pk is not None]


@progress.handover(PROGRESS_KEY)
def hand_over_games(user, data: dict[str, Any]) -> None:
    """A visitor's games become the account's (games already someone's stay theirs)."""
    ids = _ids(data.get("games", []))
    if ids:
        Game.objects.filter(pk__in=ids, user__isnull=True).update(user=user)
