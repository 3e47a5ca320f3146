"""The answer of a game to what a player did, and the view that posts it: one shape for the games
against the computer (``play``) and between players (``versus``).

A game's model method answers with a :class:`Reply`, or raises :class:`Conflict` when its row
changed under the request (a conditional update on ``version`` that wrote nothing). An app's
POST view hands the game and the method to :func:`answer`, which turns either into a response:

>>> Reply("moved").status, Reply("turn", "Not your move.").status, Reply("wait").status
(200, 400, 409)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect

__all__ = ["Conflict", "Reply", "answer"]

Game = TypeVar("Game")


class Conflict(Exception):
    """The game changed while this request worked on it: nothing was written."""


#: the HTTP status of each kind of reply that is not a 200
STATUS = {
    "illegal": 400,
    "bad": 400,
    "over": 400,
    "nothing": 400,
    "turn": 400,
    "refused": 400,
    "sealed": 403,
    "wait": 409,
}


@dataclass
class Reply:
    """The answer to something a player did: ``kind`` is ``moved`` (the move was played),
    ``continue`` (a capture goes on: ``path``), ``illegal`` (the rule it breaks: ``message``,
    ``article``, ``code``, ``squares``), ``bad`` (not a move), ``over`` (the game has ended),
    ``conflict`` (the game changed meanwhile: :class:`Conflict`), and each game's own:

    * against the computer: ``wait`` (the computer is to move), ``hint`` (``hint`` is there or
      being searched), ``takeback``, ``nothing`` (no move of the player's to take back),
      ``resigned``, ``sealed`` (a hint, or a move into a position, that an exam's seal forbids);
    * between players: ``turn`` (not this player's move: the rule), ``refused`` (not possible
      now: ``message``) or ``done`` (an offer, an answer, a resignation...).

    ``extra`` carries what a page or a socket needs besides (the move's notation, the version).
    """

    kind: str
    message: str = ""
    article: str = ""
    code: str = ""
    squares: tuple[int, ...] = ()
    path: tuple[int, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> int:
        """The HTTP status of the reply: 200, or 400, 403 or 409 as :data:`STATUS` says."""
        return STATUS.get(self.kind, 200)


def answer(
    request: HttpRequest,
    game: Game,
    act: Callable[[HttpRequest, Game], Reply],
    *,
    reload: Callable[[], Game],
    show: Callable[[Game, Reply, int], HttpResponse],
    page: str,
    conflict: str,
    status: Callable[[Game, Reply], int] | None = None,
) -> HttpResponse:
    """The response to a POST that calls ``act(request, game)``, one model method.

    Its reply is shown by ``show(game, reply, status)`` (the status is the reply's, or
    ``status(game, reply)``'s); a plain form post that worked (200) is sent back to ``page``.
    A :class:`Conflict` shows the game as it now stands (``reload()``) with the text
    ``conflict`` and a 409, or sends a plain form post back to ``page``.
    """
    try:
        reply = act(request, game)
    except Conflict:
        game = reload()
        if not request.htmx:  # type: ignore[attr-defined]
            return redirect(page)
        return show(game, Reply("conflict", conflict), 409)
    code = status(game, reply) if status else reply.status
    if not request.htmx and code == 200:  # type: ignore[attr-defined]
        return redirect(page)
    return show(game, reply, code)
