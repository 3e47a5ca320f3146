"""Who trains: an account, or a visitor known by a random token in the session.

A visitor's runs carry the token (``SquareRun.visitor``); the session keeps it under the
``core.progress`` key ``squares``, and at log-in or sign-up the runs (and so the best scores)
become the account's (:func:`hand_over_runs`). The token is made with the first run only, so
opening the trainer writes no session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from django.apps import apps

from core import progress
from core.owners import Visitor

PROGRESS_KEY = "squares"


@dataclass(eq=False)
class Trainee(Visitor):
    """An account (``user``) or a visitor (``user`` None) with their session."""

    PROGRESS_KEY: ClassVar[str] = PROGRESS_KEY

    @classmethod
    def of(cls, request) -> Trainee:
        user = request.user if request.user.is_authenticated else None
        return cls(user, request.session)


@progress.handover(PROGRESS_KEY)
def hand_over_runs(user, data: dict[str, Any]) -> None:
    """A visitor's runs become ``user``'s at log-in or sign-up (their best scores with them)."""
    token = str(data.get("visitor", ""))
    if token:
        run = apps.get_model("squares", "SquareRun")
        run.objects.filter(user__isnull=True, visitor=token).update(user=user, visitor="")
