"""The live lesson's WebSocket: ``/ws/live/<pk>/?lang=cs``.

Only the class's teachers and students get in (anyone else's handshake is refused: the socket
closes with code 4403 before it opens). On connecting, and whenever the lesson changes
(``live.changed`` from :mod:`live.push`), the consumer reads the lesson from the database and sends
its page the stage to show::

    {"type": "state", "version": 7, "html": "<div id=\"live-stage\" ...>", "announce": "..."}

(a student's stage is rendered once per version and language for all the students; a teacher's
with the controls), and to teachers, whenever an answer comes in, the answers panel::

    {"type": "results", "version": 7, "html": "<div id=\"live-results\" ...>"}

and, when a class race of the lesson changes (``live.race``), ``{"type": "race"}``: the page asks
for the race's panel (``runs``). So a student who reconnects or joins late gets the lesson as it stands at once. The page sends
``{"type": "ping"}`` now and then and gets ``{"type": "pong"}``. Everything a page does (a
teacher's action, a student's answer) is an HTTP request: a page without a socket works the same,
polling the state.

The socket closes, with a code the page knows (``live.js``):

* ``4429`` when the user already has ``DAMA_LIVE_SOCKETS_PER_USER`` sockets open in the lesson
  (:class:`live.models.LiveSocket`, counted in the database, so across every ASGI process): the
  socket is accepted first so that the page gets the code (a refused handshake is 1006 to it);
  the page says why and does not reconnect;
* ``4403`` when the user leaves the class (removed as a student, taken off as a teacher): the
  class's removal tells the user's sockets (``live.left``), and every push carries the lesson's
  roster, so a socket that missed that message checks its user at the next push (one query, only
  when the roster changed); the page says so and stops;
* ``1003`` for a binary frame, ``1009`` for a frame longer than :data:`MAX_FRAME`, ``1007`` for a
  text frame that is not JSON, each logged as a warning (the page sends only small JSON pings).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.utils.translation import override

from . import push
from . import render as live_render
from .models import LiveParticipant, LiveSession, LiveSocket

log = logging.getLogger(__name__)

#: seconds a teacher's answers panel waits for more answers before it is sent
RESULTS_EVERY = 0.1
#: the close code of a refused socket, or of the socket of a user who left the class
REFUSED = 4403
#: the close code of a socket beyond the user's DAMA_LIVE_SOCKETS_PER_USER in the lesson
TOO_MANY = 4429
#: the close codes of a frame that cannot be read (RFC 6455): binary, not JSON, too long
UNSUPPORTED_DATA = 1003
INVALID_DATA = 1007
TOO_BIG = 1009
#: the longest text frame read (the page sends ``{"type": "ping"}``)
MAX_FRAME = 1024


def _language(scope) -> str:
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    wanted = (query.get("lang") or [""])[0][:8]
    codes = [code for code, _name in settings.LANGUAGES]
    return wanted if wanted in codes else settings.LANGUAGE_CODE


class LiveConsumer(AsyncJsonWebsocketConsumer):
    session_id: int = 0
    user_id: int | None = None
    role: str = ""
    #: the lesson's roster when this socket's user was last found in the class
    roster: int = 0
    language: str = ""
    #: whether this socket holds one of the user's slots (LiveSocket), and the groups it is in
    counted: bool = False
    joined: tuple[str, ...] = ()
    results_due: bool = False
    results_task: asyncio.Task | None = None
    heartbeat_task: asyncio.Task | None = None

    async def connect(self) -> None:
        self.session_id = int(self.scope["url_route"]["kwargs"]["pk"])
        self.language = _language(self.scope)
        user = self.scope.get("user")
        self.user_id = getattr(user, "pk", None)
        self.role, self.roster = await database_sync_to_async(self._role_of)(user)
        if not self.role:
            await self.close(code=REFUSED)
            return
        self.counted = await database_sync_to_async(LiveParticipant.connect)(
            self.session_id, user, self.channel_name
        )
        if not self.counted:
            log.info(
                "live: user %s has %s sockets open in lesson %s: one more refused",
                self.user_id,
                settings.DAMA_LIVE_SOCKETS_PER_USER,
                self.session_id,
            )
            self.role = ""
            await self.accept()  # first, so that the page gets the code (not 1006)
            await self.close(code=TOO_MANY)
            return
        self.joined = (push.group_name(self.session_id),)
        if self.role == "teacher":
            self.joined += (push.teachers_group(self.session_id),)
        for group in self.joined:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()
        self.heartbeat_task = asyncio.create_task(self._heartbeat())
        await self.send_state()
        if self.role == "teacher":
            await self.send_results()

    async def disconnect(self, code: int) -> None:
        for task in (self.results_task, self.heartbeat_task):
            if task is not None:
                task.cancel()
        for group in self.joined:
            await self.channel_layer.group_discard(group, self.channel_name)
        self.joined = ()
        if self.counted:
            self.counted = False
            await database_sync_to_async(LiveParticipant.disconnect)(
                self.session_id, self.scope.get("user"), self.channel_name
            )

    async def receive(self, text_data=None, bytes_data=None, **kwargs) -> None:
        """A frame from the page: JSON text, or the socket closes (1003, 1009, 1007) with a
        warning in the log (an error here would drop the socket with 1011 and a traceback)."""
        if text_data is None:
            await self._refuse_frame(UNSUPPORTED_DATA, "a binary frame")
            return
        if len(text_data) > MAX_FRAME:
            await self._refuse_frame(TOO_BIG, f"a frame of {len(text_data)} characters")
            return
        try:
            content = json.loads(text_data)
        except ValueError:
            await self._refuse_frame(INVALID_DATA, "a frame that is not JSON")
            return
        await self.receive_json(content, **kwargs)

    async def _refuse_frame(self, code: int, what: str) -> None:
        log.warning(
            "live: %s on the socket of user %s in lesson %s: closed with %s",
            what,
            self.user_id,
            self.session_id,
            code,
        )
        await self.close(code=code)

    async def receive_json(self, content, **kwargs) -> None:
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong"})

    async def _heartbeat(self) -> None:
        """Mark this socket's slot alive (a dead process's slots go stale and free up)."""
        while True:
            await asyncio.sleep(LiveSocket.HEARTBEAT)
            await database_sync_to_async(LiveSocket.beat)(self.channel_name)

    # -- from the channel layer -----------------------------------------------------------------

    async def live_changed(self, event: dict) -> None:
        if not await self._still_in(event.get("roster")):
            return
        version = event.get("version")
        if self.role == "student" and version:
            # the other sockets of the lesson in this process made it already: no query
            kept = live_render.kept_student_state(self.session_id, version, self.language)
            if kept is not None:
                await self.send_message(kept)
                return
        await self.send_state()
        if self.role == "teacher":
            await self.send_results()

    async def live_answered(self, event: dict) -> None:
        """A teacher's panel counts the answers: answers that come in together (a class
        answering at once) are sent as one panel, RESULTS_EVERY seconds after the first."""
        if self.role != "teacher" or self.results_due:
            return
        if not await self._still_in(event.get("roster")):
            return
        self.results_due = True
        self.results_task = asyncio.create_task(self._results_later())

    async def live_race(self, event: dict) -> None:
        """A class race of the lesson changed (``push.race``): the page fetches its panel."""
        if self.role:
            await self.send_json({"type": "race"})

    async def live_left(self, event: dict) -> None:
        """Someone left the class: if it is this socket's user, the socket closes."""
        if self.role and event.get("user") == self.user_id:
            await self._leave()

    async def _still_in(self, roster: int | None) -> bool:
        """Whether this socket's user is still in the class, asked of the database only when
        the lesson's ``roster`` is not the one kept (someone left since): else the socket
        closes."""
        if not self.role:
            return False
        if roster is None or roster <= self.roster:
            return True
        role, now = await database_sync_to_async(self._role_of)(self.scope.get("user"))
        if role != self.role:
            await self._leave()
            return False
        self.roster = max(self.roster, now)
        return True

    async def _leave(self) -> None:
        log.info(
            "live: user %s left lesson %s's class: socket closed", self.user_id, self.session_id
        )
        self.role = ""
        await self.close(code=REFUSED)

    async def _results_later(self) -> None:
        await asyncio.sleep(RESULTS_EVERY)
        self.results_due = False
        await self.send_results()

    # -- what is sent ----------------------------------------------------------------------------

    async def send_message(self, message: dict) -> None:
        """Send ``message``; a socket that closed while it was on its way (the student left:
        the server refuses a send after the close) is not an error."""
        with contextlib.suppress(RuntimeError):
            await self.send_json(message)

    async def send_state(self) -> None:
        message = await database_sync_to_async(self._state)()
        if message is not None:
            await self.send_message(message)

    async def send_results(self) -> None:
        message = await database_sync_to_async(self._results)()
        if message is not None:
            await self.send_message(message)

    def _role_of(self, user) -> tuple[str, int]:
        """The user's role in the lesson ("" when none) and the lesson's roster as read."""
        if user is None or not user.is_authenticated:
            return "", 0
        session = self._session()
        return (session.role_of(user), session.roster) if session is not None else ("", 0)

    def _session(self) -> LiveSession | None:
        return LiveSession.objects.select_related("classroom").filter(pk=self.session_id).first()

    def _state(self) -> dict | None:
        session = self._session()
        if session is None:
            return None
        if self.role != "teacher":
            return live_render.student_state(session, self.language)
        with override(self.language):
            html = live_render.stage_html(session, "teacher")
            announce = live_render.announcement(session)
        return {"type": "state", "version": session.version, "html": html, "announce": announce}

    def _results(self) -> dict | None:
        session = self._session()
        if session is None:
            return None
        with override(self.language):
            html = live_render.results_html(session)
        return {"type": "results", "version": session.version, "html": html}
