"""The live lesson's WebSocket: ``/ws/live/<pk>/?lang=cs``.

Only the class's teachers and students get in (anyone else's handshake is refused: the socket
closes with code 4403 before it opens). On connecting, and whenever the lesson changes
(``live.changed`` from :mod:`live.push`), the consumer reads the lesson from the database and sends
its page the stage to show::

    {"type": "state", "version": 7, "html": "<div id=\"live-stage\" ...>", "announce": "..."}

(a student's stage is rendered once per version and language for all the students; a teacher's
with the controls), and to teachers, whenever an answer comes in, the answers panel::

    {"type": "results", "version": 7, "html": "<div id=\"live-results\" ...>"}

So a student who reconnects or joins late gets the lesson as it stands at once. The page sends
``{"type": "ping"}`` now and then and gets ``{"type": "pong"}``. Everything a page does (a
teacher's action, a student's answer) is an HTTP request: a page without a socket works the same,
polling the state.
"""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.utils.translation import override

from . import push
from . import render as live_render
from .models import LiveParticipant, LiveSession

#: seconds a teacher's answers panel waits for more answers before it is sent
RESULTS_EVERY = 0.1
#: the close code of a refused socket (the page stops trying and polls, which answers 404)
REFUSED = 4403


def _language(scope) -> str:
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    wanted = (query.get("lang") or [""])[0][:8]
    codes = [code for code, _name in settings.LANGUAGES]
    return wanted if wanted in codes else settings.LANGUAGE_CODE


class LiveConsumer(AsyncJsonWebsocketConsumer):
    session_id: int = 0
    role: str = ""
    language: str = ""
    results_due: bool = False
    results_task: asyncio.Task | None = None

    async def connect(self) -> None:
        self.session_id = int(self.scope["url_route"]["kwargs"]["pk"])
        self.language = _language(self.scope)
        user = self.scope.get("user")
        self.role = await database_sync_to_async(self._role_of)(user)
        if not self.role:
            await self.close(code=REFUSED)
            return
        await self.channel_layer.group_add(push.group_name(self.session_id), self.channel_name)
        if self.role == "teacher":
            await self.channel_layer.group_add(
                push.teachers_group(self.session_id), self.channel_name
            )
        await self.accept()
        await database_sync_to_async(LiveParticipant.connect)(self.session_id, user)
        await self.send_state()
        if self.role == "teacher":
            await self.send_results()

    async def disconnect(self, code: int) -> None:
        if self.results_task is not None:
            self.results_task.cancel()
        if not self.role:
            return
        await self.channel_layer.group_discard(push.group_name(self.session_id), self.channel_name)
        if self.role == "teacher":
            await self.channel_layer.group_discard(
                push.teachers_group(self.session_id), self.channel_name
            )
        await database_sync_to_async(LiveParticipant.disconnect)(
            self.session_id, self.scope.get("user")
        )

    async def receive_json(self, content, **kwargs) -> None:
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong"})

    # -- from the channel layer -----------------------------------------------------------------

    async def live_changed(self, event: dict) -> None:
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
        self.results_due = True
        self.results_task = asyncio.create_task(self._results_later())

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

    def _role_of(self, user) -> str:
        if user is None or not user.is_authenticated:
            return ""
        session = LiveSession.objects.select_related("classroom").filter(pk=self.session_id).first()
        return session.role_of(user) if session is not None else ""

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
