"""A game's WebSocket: ``/ws/versus/<token>/``.

Whoever may see the game (:meth:`versus.models.VersusGame.can_view`: the players, anyone with
the link of a public game, a class game's teachers and students) gets in; anyone else's
handshake is refused (code 4403), and so is a socket beyond the
``DAMA_VERSUS_SOCKETS_PER_USER`` (8) that one account holds open across the site (code 4429, after the handshake so that the page reads the code: :mod:`versus.sockets`).

On connecting the page is sent the game's version, ``{"type": "state", "version": 7}``; whenever
the game changes (``versus.changed`` from :mod:`versus.push`), a player's page and a spectator's
of a casual game are sent its news with it (:meth:`~versus.models.VersusGame.news`)::

    {"type": "state", "version": 8, "state": "playing", "plies": 3,
     "move": {"route": [22, 18], "notation": "22-18", "by": "w", "legal": [[9, 13], ...]},
     "clocks": {"w": 299000, "b": 300000}, "running": "b", "draw_offer": "", ...}

(``legal``, the next side's routes, to the players alone), and a spectator of a rated game the
version alone: their page asks for the game over HTTP as they may see it (a few plies late).

The players act over the socket as over HTTP (the posts stay for a page without a socket)::

    {"type": "move", "route": [22, 18], "version": 7, "id": 1}    or "text": "22-18"
    {"type": "draw" | "resign" | "abort" | "takeback", "version": 7}
    {"type": "draw_answer" | "takeback_answer", "answer": "yes" | "no", "version": 7}

Each is answered to its sender alone with the model's :class:`~core.replies.Reply`:
``{"type": "reply", "action": "move", "id": 1, "kind": "moved" | "continue" | "illegal" |
"turn" | "bad" | "over" | "refused" | "done" | "conflict", "message", "article", "code",
"squares", "path", "version"}``. ``version`` is the version the player saw when acting: an
action made on another version (a frame sent again after a reconnect, another tab's move) is
not carried out and is answered ``conflict`` with the game's version, so a move is never played
twice. The page sends ``{"type": "ping"}`` now and then (and when its clock shows a side out of
time): the flag is judged, and it gets ``{"type": "pong"}``.

A simul's grid: ``/ws/versus/simul/<id>/``, for whoever may see the simul
(:meth:`versus.models.Simul.can_view`: the class's teachers and students). It is sent
``{"type": "changed"}`` on connecting and whenever the simul or one of its games changes, and
asks for the grid over HTTP.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.utils.translation import gettext as _

from core.numbers import MAX_ID
from core.replies import Conflict, Reply

from . import push, sockets
from .models import Simul, VersusGame

REFUSED = 4403
TOO_MANY = 4429
MAX_FRAME = 1024
#: the longest route a frame may carry (a capture's landings)
MAX_ROUTE = 30


def _yes(content: dict) -> bool:
    return content.get("answer") == "yes"


#: what a player may do over the socket: the model's method for each frame's type
ACTIONS = {
    "draw": lambda game, user, content: game.offer_draw(user),
    "draw_answer": lambda game, user, content: game.answer_draw(user, _yes(content)),
    "resign": lambda game, user, content: game.resign(user),
    "abort": lambda game, user, content: game.abort(user),
    "takeback": lambda game, user, content: game.request_takeback(user),
    "takeback_answer": lambda game, user, content: game.answer_takeback(user, _yes(content)),
}


def read_route(value: Any) -> str | None:
    """A route as the model reads it ("22,18"), from a frame's list of squares; None when it is
    not one.

    >>> read_route([22, 18]), read_route("22"), read_route([True]), read_route([])
    ('22,18', None, None, None)
    """
    if not isinstance(value, list) or not 0 < len(value) <= MAX_ROUTE:
        return None
    if not all(type(sq) is int and 0 < sq < 1000 for sq in value):
        return None
    return ",".join(str(sq) for sq in value)


class VersusConsumer(AsyncJsonWebsocketConsumer):
    game_id: int = 0
    group: str = ""
    #: the viewer's side ("w", "b" or ""), and whether the game is rated (its spectators wait)
    side: str = ""
    rated: bool = False
    owner: str = ""
    slot: int | None = None
    heartbeat: asyncio.Task | None = None

    async def connect(self) -> None:
        token = str(self.scope["url_route"]["kwargs"]["token"])[:16]
        game = await database_sync_to_async(self._game)(token)
        if game is None:
            await self.close(code=REFUSED)
            return
        self.owner = sockets.owner(self.scope.get("user"))
        self.slot = await database_sync_to_async(sockets.take)(self.owner, self.channel_name)
        if self.slot is None:
            await self.accept()  # first, so that the page gets the code (not 1006)
            await self.close(code=TOO_MANY)
            return
        self.game_id, self.rated = game.pk, game.rated
        self.side = game.side_of(self.scope.get("user"))
        self.group = push.group_name(game.pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        self.heartbeat = asyncio.create_task(self._heartbeat())
        await self.send_message({"type": "state", "version": game.version})

    def _game(self, token: str) -> VersusGame | None:
        user = self.scope.get("user")
        game = VersusGame.objects.select_related("classroom").filter(token=token).first()
        if game is None or user is None or not game.can_view(user):
            return None
        game.judge_clock()
        return game

    async def _heartbeat(self) -> None:
        while self.slot is not None:
            await asyncio.sleep(sockets.HEARTBEAT)
            await database_sync_to_async(sockets.renew)(self.owner, self.slot, self.channel_name)

    async def disconnect(self, code: int) -> None:
        if self.heartbeat is not None:
            self.heartbeat.cancel()
            self.heartbeat = None
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)
            self.group = ""
        if self.slot is not None:
            slot, self.slot = self.slot, None
            await database_sync_to_async(sockets.free)(self.owner, slot, self.channel_name)

    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        if text_data is None or len(text_data) > MAX_FRAME:
            await self.close(code=1003 if text_data is None else 1009)
            return
        try:
            content = json.loads(text_data)
        except ValueError:
            await self.close(code=1007)
            return
        if not isinstance(content, dict) or not self.game_id:
            return
        kind = content.get("type")
        if kind == "ping":
            await database_sync_to_async(self._judge)()
            await self.send_message({"type": "pong"})
        elif kind == "move" or kind in ACTIONS:
            answer, messages = await database_sync_to_async(self._held_act)(str(kind), content)
            await push.send_held(self.channel_layer, messages)  # the opponent's first
            await self.send_message(answer)

    def _held_act(self, kind: str, content: dict) -> tuple[dict, list]:
        with push.held() as messages:
            answer = self._act(kind, content)
        return answer, list(messages)

    def _judge(self) -> None:
        game = VersusGame.objects.filter(pk=self.game_id).first()
        if game is not None:
            game.judge_clock()

    def _act(self, kind: str, content: dict) -> dict:
        """Carry out a player's frame on the game as it is, when it is still at the frame's
        version; the answer to send back."""
        user = self.scope.get("user")
        seen = content.get("version")
        game = VersusGame.objects.filter(pk=self.game_id).first()
        if game is None:
            return self._reply(kind, content, Reply("refused", _("No such game.")), 0)
        if type(seen) is not int:
            return self._reply(kind, content, Reply("bad", _("Reload the page.")), game.version)
        if seen != game.version:
            return self._changed(kind, content, game)
        try:
            if kind == "move":
                text = content.get("text")
                route = read_route(content.get("route")) if "route" in content else ""
                if route is None or (text is not None and not isinstance(text, str)):
                    reply = Reply("bad", _("That is not a move."))
                else:
                    reply = game.play(user, route=route, text=(text or "")[:200])
            else:
                reply = ACTIONS[kind](game, user, content)
        except Conflict:
            game = VersusGame.objects.get(pk=self.game_id)
            return self._changed(kind, content, game)
        return self._reply(kind, content, reply, game.version)

    def _changed(self, kind: str, content: dict, game: VersusGame) -> dict:
        message = _("The game changed meanwhile (the other player, or another tab). Here it is.")
        return self._reply(kind, content, Reply("conflict", message), game.version)

    @staticmethod
    def _reply(kind: str, content: dict, reply: Reply, version: int) -> dict:
        answer = {
            "type": "reply",
            "action": kind,
            "kind": reply.kind,
            "message": str(reply.message),
            "article": str(reply.article),
            "code": reply.code,
            "squares": list(reply.squares),
            "path": list(reply.path),
            "version": version,
        }
        if "notation" in reply.extra:
            answer["notation"] = reply.extra["notation"]
        if isinstance(content.get("id"), int | str):
            answer["id"] = content["id"]
        return answer

    async def versus_changed(self, event: dict) -> None:
        news = event.get("news")
        if not isinstance(news, dict):
            await self.send_message({"type": "state", "version": event.get("version")})
            return
        news = dict(news)
        players = news.pop("players", None) or {}
        user = self.scope.get("user")
        if not self.side and user is not None and user.is_authenticated:
            # a challenge taken: the one who took it is a player from now on
            self.side = next((s for s, pk in players.items() if pk == user.pk), "")
        if not self.side and self.rated:
            # a spectator of a rated game sees it late: they ask for it over HTTP
            await self.send_message({"type": "state", "version": event.get("version")})
            return
        move = news.get("move")
        if isinstance(move, dict) and not self.side:
            news["move"] = {k: v for k, v in move.items() if k != "legal"}
        await self.send_message({"type": "state", **news})

    async def send_message(self, message: dict) -> None:
        with contextlib.suppress(RuntimeError):
            await self.send_json(message)


class SimulConsumer(AsyncJsonWebsocketConsumer):
    group: str = ""

    async def connect(self) -> None:
        pk = min(int(self.scope["url_route"]["kwargs"]["pk"]), MAX_ID)
        allowed = await database_sync_to_async(self._allowed)(pk)
        if not allowed:
            await self.close(code=REFUSED)
            return
        self.group = push.simul_group_name(pk)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_message({"type": "changed"})

    def _allowed(self, pk: int) -> bool:
        user = self.scope.get("user")
        simul = Simul.objects.select_related("classroom").filter(pk=pk).first()
        return simul is not None and user is not None and simul.can_view(user)

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)
            self.group = ""

    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        if text_data is None or len(text_data) > MAX_FRAME:
            await self.close(code=1003 if text_data is None else 1009)
            return
        with contextlib.suppress(ValueError):
            if json.loads(text_data) == {"type": "ping"}:
                await self.send_message({"type": "pong"})

    async def simul_changed(self, event: dict) -> None:
        await self.send_message({"type": "changed"})

    async def send_message(self, message: dict) -> None:
        with contextlib.suppress(RuntimeError):
            await self.send_json(message)
