"""Rows owned by an account or by a visitor: the visitor's random token, kept in the session
under a ``core.progress`` key, marks their rows (an attempt, a run) until they log in or sign
up, when the rows become the account's.

An app's player (``puzzles.player.Player``, ``squares.trainee.Trainee``) is a :class:`Visitor`
with its own session key; its models' querysets are :class:`OwnedQuerySet`:
``Attempt.objects.of(player)``, ``Run.objects.owned(player, pk)``.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from django.db import models

from core import progress

#: the largest id a row can have (a larger one in an address is no row, and no query)
MAX_ID = 2**63 - 1

_M = TypeVar("_M", bound=models.Model)


class Owner(Protocol):
    @property
    def is_account(self) -> bool: ...

    @property
    def user(self) -> Any: ...

    def visitor_token(self, *, make: bool = False) -> str: ...


@dataclass(eq=False)
class Visitor:
    """An account (``user``) or a visitor (``user`` None), with the session; a subclass names
    the session's progress key (``PROGRESS_KEY``) its visitor's token is kept under."""

    PROGRESS_KEY: ClassVar[str] = ""

    user: Any
    session: Any

    @property
    def is_account(self) -> bool:
        return self.user is not None

    def visitor_token(self, *, make: bool = False) -> str:
        """The visitor's own random token, which their rows carry: made, and written to the
        session, with their first row only (opening a page writes no session). Empty for an
        account, or before the first row."""
        if self.is_account:
            return ""
        token = str(progress.session_data(self, self.PROGRESS_KEY).get("visitor", ""))
        if not token and make:
            token = secrets.token_urlsafe(24)
            progress.update_session_data(self, self.PROGRESS_KEY, {"visitor": token})
        return token


class OwnedQuerySet(models.QuerySet[_M], Generic[_M]):
    """Rows with a ``user`` (an account's) or a ``visitor`` token (a visitor's)."""

    def of(self, owner: Owner) -> OwnedQuerySet[_M]:
        """The rows of the account, or of the visitor (those carrying their token)."""
        if owner.is_account:
            return self.filter(user=owner.user)
        token = owner.visitor_token()
        if not token:
            return self.none()
        return self.filter(user__isnull=True, visitor=token)

    def owned(self, owner: Owner, pk: int) -> _M | None:
        """Row ``pk`` if ``owner`` owns it (a visitor without a token has none: no query)."""
        if not 0 < pk <= MAX_ID:
            return None
        return self.of(owner).filter(pk=pk).first()
