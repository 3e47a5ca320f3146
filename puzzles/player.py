"""Who is playing: an account, or a visitor known by the session.

The trainer's model methods take a :class:`Player` instead of the request: it is what they need
of it (whose attempts, where a visitor's rating is kept) and nothing else. Views make one with
:meth:`Player.of`; tests can make one from a user and a dict. A player is a value: the models
read and write by it (``Attempt.objects.of(player)``,
``PlayerRating.objects.rating_of(player, variant)``), and this module reads no row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from core import progress
from core.owners import Visitor

from . import glicko2

#: the session's progress key of the trainer (``core.progress``: handed over at login)
PROGRESS_KEY = "puzzles"


@dataclass(eq=False)
class Player(Visitor):
    """An account (``user``) or a visitor (``user`` None), with the session; a visitor's
    attempts carry their token (:meth:`~core.owners.Visitor.visitor_token`)."""

    PROGRESS_KEY: ClassVar[str] = PROGRESS_KEY
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
    def user_id(self) -> int | None:
        return self.user.pk if self.user is not None else None

    # -- the visitor's session ---------------------------------------------------------------------

    def progress(self) -> dict[str, Any]:
        """What the session keeps for the trainer (``core.progress``, which reads the ``session``
        of what it is given: here the player's)."""
        return progress.session_data(self, PROGRESS_KEY)

    def update_progress(self, data: dict[str, Any]) -> None:
        progress.update_session_data(self, PROGRESS_KEY, data)

    def session_rating(self, variant: str) -> glicko2.Rating | None:
        """A visitor's rating in ``variant`` as the session keeps it (None: not rated yet)."""
        stored = self.progress().get("ratings", {}).get(variant)
        return glicko2.Rating(*stored[:3]) if stored else None

    def keep_session_rating(self, variant: str, rating: glicko2.Rating) -> None:
        """Keep a visitor's new rating in ``variant`` in the session, one more puzzle rated (the
        attempts are rated again in the account at sign-up)."""
        ratings = dict(self.progress().get("ratings", {}))
        games = (ratings.get(variant) or [0, 0, 0, 0])[3]
        ratings[variant] = [rating.rating, rating.deviation, rating.volatility, games + 1]
        self.update_progress({"ratings": ratings})
