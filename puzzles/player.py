"""Who is playing: an account, or a visitor known by the session.

The trainer's model methods take a :class:`Player` instead of the request: it is what they need
of it (whose attempts, where a visitor's rating is kept) and nothing else. Views make one with
:meth:`Player.of`; tests can make one from a user and a dict.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from django.db.models import QuerySet

from core import progress

from . import glicko2, rating
from .models import Attempt

#: the session's progress key of the trainer (``core.progress``: handed over at login)
PROGRESS_KEY = rating.PROGRESS_KEY


@dataclass(eq=False)
class Player:
    """An account (``user``) or a visitor (``user`` None), with the session."""

    user: Any
    session: Any
    #: the ratings this request wrote, by variant (read back instead of the database)
    ratings_seen: dict[str, glicko2.Rating] = field(default_factory=dict)

    @classmethod
    def of(cls, request) -> Player:
        """The player of ``request`` (one per request)."""
        player = getattr(request, "_puzzle_player", None)
        if player is None:
            user = request.user if request.user.is_authenticated else None
            player = request._puzzle_player = cls(user, request.session)
        return player

    @property
    def is_account(self) -> bool:
        return self.user is not None

    @property
    def user_id(self) -> int | None:
        return self.user.pk if self.user is not None else None

    # -- the visitor's session ---------------------------------------------------------------------

    def progress(self) -> dict[str, Any]:
        """What the session keeps for the trainer (``core.progress``, which reads the ``session``
        of what it is given: here the player's)."""
        return progress.session_data(self, PROGRESS_KEY)

    def update_progress(self, data: dict[str, Any]) -> None:
        progress.update_session_data(self, PROGRESS_KEY, data)

    def visitor_token(self, *, make: bool = False) -> str:
        """The visitor's own random token, which their attempts carry (``Attempt.visitor``):
        made, and written to the session, with their first attempt only, so that opening a
        puzzle does not write the session. Empty for an account, or before the first attempt."""
        if self.is_account:
            return ""
        token = str(self.progress().get("visitor", ""))
        if not token and make:
            token = secrets.token_urlsafe(24)
            self.update_progress({"visitor": token})
        return token

    # -- attempts ----------------------------------------------------------------------------------

    def attempts(self) -> QuerySet[Attempt]:
        """The attempts of the account, or of the visitor (those carrying their token)."""
        if self.is_account:
            return Attempt.objects.filter(user=self.user)
        token = self.visitor_token()
        if not token:
            return Attempt.objects.none()
        return Attempt.objects.filter(user__isnull=True, visitor=token)

    # -- ratings -----------------------------------------------------------------------------------

    def rating(self, variant: str) -> glicko2.Rating:
        """The player's puzzle rating in ``variant`` (the account's row, or the session's)."""
        return rating.player_rating(self, variant)
