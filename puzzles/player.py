"""Who is playing: an account, or a visitor known by the session.

The trainer's model methods take a :class:`Player` instead of the request: it is what they need
of it (whose attempts, where a visitor's rating is kept) and nothing else. Views make one with
:meth:`Player.of`; tests can make one from a user and a dict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import QuerySet

from core import progress

from . import glicko2, rating
from .models import Attempt

#: the session's progress key of the trainer (``core.progress``: handed over at login)
PROGRESS_KEY = rating.PROGRESS_KEY
#: how many attempt ids a visitor's session keeps
VISITOR_ATTEMPTS = 500


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

    def visitor_attempt_ids(self) -> list[int]:
        return list(self.progress().get("attempts", []))

    def session_key(self) -> str:
        if not getattr(self.session, "session_key", None) and hasattr(self.session, "save"):
            self.session.save()
        return getattr(self.session, "session_key", None) or ""

    # -- attempts ----------------------------------------------------------------------------------

    def attempts(self) -> QuerySet[Attempt]:
        """The attempts of the account, or of the visitor (the ids their session holds)."""
        if self.is_account:
            return Attempt.objects.filter(user=self.user)
        return Attempt.objects.filter(user__isnull=True, pk__in=self.visitor_attempt_ids())

    def may_own(self, pk: int) -> bool:
        """Whether attempt ``pk`` can be this player's (a visitor's must be in the session)."""
        return self.is_account or pk in self.visitor_attempt_ids()

    def remember(self, attempt: Attempt) -> None:
        """A visitor's new attempt is theirs: its id is kept in the session (an account's
        attempts are its rows; the session is not written)."""
        if not self.is_account:
            ids = self.visitor_attempt_ids()[-VISITOR_ATTEMPTS:]
            self.update_progress({"attempts": [*ids, attempt.pk]})

    # -- ratings -----------------------------------------------------------------------------------

    def rating(self, variant: str) -> glicko2.Rating:
        """The player's puzzle rating in ``variant`` (the account's row, or the session's)."""
        return rating.player_rating(self, variant)
