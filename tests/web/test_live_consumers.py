# ruff: noqa: F811 - fixtures imported from tests.web.test_live are used as arguments
"""The live lesson's WebSocket consumer, driven by Channels' ``WebsocketCommunicator``: who may
connect, the state sent on connecting (a late joiner, a reconnect), a teacher's action pushed to
every student, answers counted for the teachers, and the whole ASGI stack (session cookie,
Origin check).

The channel layer is Redis (its own database, 11) when REDIS_URL is set, as in CI and production;
otherwise the in-memory layer.
"""

from __future__ import annotations

import asyncio
import os
from urllib.parse import urlparse, urlunparse

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings

from live.consumers import REFUSED, TOO_MANY
from live.models import LiveAnswer, LiveParticipant, LiveSession, LiveSocket, StepData
from live.routing import websocket_urlpatterns
from tests.conftest import redis_problem, service_unavailable
from tests.web.test_live import CAPTURE_ROUTE, FREE, classroom, puzzle_set, second  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)

#: a test's channel layer on Redis: a database of its own and a prefix
REDIS_DB = 11


def live_redis_url() -> str | None:
    """REDIS_URL with the live tests' own database, or None without REDIS_URL."""
    url = os.environ.get("REDIS_URL", "").strip()
    if not url:
        return None
    parts = urlparse(url)
    return urlunparse(parts._replace(path=f"/{REDIS_DB}"))


@pytest.fixture(autouse=True)
def channel_layer(settings):
    """The Redis channel layer on its own database when REDIS_URL is set (a skip, or with
    DAMA_REQUIRE_SERVICES=1 a failure, when Redis does not answer), else the in-memory one."""
    url = live_redis_url()
    if url:
        problem = redis_problem(url)
        if problem:
            service_unavailable(f"Redis at {url}: {problem}")
        settings.CHANNEL_LAYERS = {
            "default": {
                "BACKEND": settings.CHANNELS_LAYER_BACKENDS[settings.DAMA_CHANNELS_LAYER],
                # a prefix of its own: test runs at the same time on one Redis do not mix
                "CONFIG": {"hosts": [url], "prefix": f"dama-live-test-{os.getpid()}"},
            }
        }
    else:
        settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    yield settings.CHANNEL_LAYERS["default"]["BACKEND"]


@pytest.fixture
def live(classroom, teacher, puzzle_set):  # noqa: F811
    return LiveSession.start(
        classroom,
        teacher,
        [StepData(p.fen, "shot", puzzle=p) for p in puzzle_set.ordered_puzzles()]
        + [StepData(FREE, "free", expected=("22-18",))],
    )


ROUTER = URLRouter(websocket_urlpatterns)


def socket(session: LiveSession, user, lang: str = "en") -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(ROUTER, f"/ws/live/{session.pk}/?lang={lang}")
    communicator.scope["user"] = user
    return communicator


async def receive(communicator, kind: str, timeout: float = 5):
    """The next message of ``kind`` (others, e.g. the teacher's results, are passed over)."""
    while True:
        message = await communicator.receive_json_from(timeout=timeout)
        if message["type"] == kind:
            return message


def run(coroutine_function):
    return async_to_sync(coroutine_function)()


def test_a_student_connecting_gets_the_lesson_as_it_stands(live, student):
    live.go_to(1)
    live.play(text="22-18")

    async def scenario():
        communicator = socket(live, student)
        connected, _ = await communicator.connect()
        assert connected
        state = await receive(communicator, "state")
        await communicator.disconnect()
        return state

    state = run(scenario)
    live.refresh_from_db()
    assert state["version"] == live.version
    assert 'id="live-stage"' in state["html"] and "last move 22-18" in state["html"]
    assert "Last move 22-18." in state["announce"]


def test_a_teachers_action_reaches_every_student(live, student, second):  # noqa: F811
    async def scenario():
        sockets = [socket(live, student), socket(live, second)]
        for s in sockets:
            assert (await s.connect())[0]
            await receive(s, "state")
        await database_sync_to_async(live.ask)()
        states = [await receive(s, "state") for s in sockets]
        for s in sockets:
            await s.disconnect()
        return states

    states = run(scenario)
    live.refresh_from_db()
    for state in states:
        assert state["version"] == live.version
        assert 'data-open="1"' in state["html"] and 'id="live-move"' in state["html"]
    assert states[0]["html"] == states[1]["html"]  # rendered once for the students


def test_the_teacher_sees_each_answer_counted(live, teacher, student, second):  # noqa: F811
    live.ask()

    async def scenario():
        desk = socket(live, teacher)
        assert (await desk.connect())[0]
        await receive(desk, "results")
        await database_sync_to_async(live.answer)(student, route=CAPTURE_ROUTE)
        first = await receive(desk, "results")
        await database_sync_to_async(live.answer)(second, text="28x19x12x3")
        both = await receive(desk, "results")
        await desk.disconnect()
        return first, both

    first, both = run(scenario)
    assert 'data-answered="1"' in first["html"]
    assert 'data-answered="2"' in both["html"] and "2 right" in both["html"]
    assert LiveAnswer.objects.count() == 2


@pytest.mark.parametrize("who", ["outsider", "anonymous"])
def test_only_the_classs_students_and_teachers_get_in(live, outsider, who):
    from django.contrib.auth.models import AnonymousUser

    user = outsider if who == "outsider" else AnonymousUser()

    async def scenario():
        communicator = socket(live, user)
        return await communicator.connect()

    connected, code = run(scenario)
    assert not connected and code == REFUSED
    assert not LiveParticipant.objects.exists()


def test_a_student_of_another_lesson_cannot_listen_to_this_one(live, outsider, other_class_live):
    async def scenario():
        return await socket(live, outsider).connect()

    assert run(scenario) == (False, REFUSED)


@pytest.fixture
def other_class_live(django_user_model, outsider):
    from classroom.models import Classroom
    from tests.conftest import _make_user

    other = Classroom.objects.create(name="Other", variant="czech")
    other.teachers.add(_make_user(django_user_model, "otto", teacher=True))
    other.add_student(outsider)
    return LiveSession.start(other, None, [])


def test_a_reconnecting_student_stays_in_the_lesson_and_catches_up(live, student):
    async def scenario():
        first = socket(live, student)
        assert (await first.connect())[0]
        await receive(first, "state")
        await first.disconnect()
        # while the student is away, the teacher moves on
        await database_sync_to_async(live.go_to)(1)
        again = socket(live, student)
        assert (await again.connect())[0]
        state = await receive(again, "state")
        connected = await database_sync_to_async(
            lambda: LiveParticipant.objects.get(user=student).connected
        )()
        await again.disconnect()
        return state, connected

    state, connected = run(scenario)
    live.refresh_from_db()
    assert state["version"] == live.version and "Position 2 of 2" in state["html"]
    assert connected == 1
    row = LiveParticipant.objects.get()
    assert row.user == student and row.connected == 0


def test_the_socket_answers_a_ping(live, student):
    async def scenario():
        communicator = socket(live, student)
        await communicator.connect()
        await receive(communicator, "state")
        await communicator.send_json_to({"type": "ping"})
        pong = await receive(communicator, "pong")
        await communicator.disconnect()
        return pong

    assert run(scenario) == {"type": "pong"}


def test_the_stage_comes_in_the_pages_language(live, student):
    async def scenario():
        communicator = socket(live, student, lang="cs")
        await communicator.connect()
        state = await receive(communicator, "state")
        await communicator.disconnect()
        return state

    state = run(scenario)
    assert "Pozice 1 z 2" in state["html"]


def test_the_asgi_application_takes_the_session_cookie_and_refuses_other_sites(
    client, live, student
):
    from dama_learn.asgi import application

    client.force_login(student)
    cookie = f"{django_settings.SESSION_COOKIE_NAME}={client.cookies[django_settings.SESSION_COOKIE_NAME].value}"

    async def connect(origin: str):
        communicator = WebsocketCommunicator(
            application,
            f"/ws/live/{live.pk}/",
            headers=[
                (b"cookie", cookie.encode()),
                (b"origin", origin.encode()),
                (b"host", b"localhost"),
            ],
        )
        connected, _ = await communicator.connect()
        state = await receive(communicator, "state") if connected else None
        await communicator.disconnect()
        return connected, state

    connected, state = async_to_sync(connect)("http://localhost")
    assert connected and state["version"] == live.version
    connected, _ = async_to_sync(connect)("http://evil.example")
    assert not connected


# -- frames the page never sends -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("frame", "code"),
    [
        ({"text_data": "{not json"}, 1007),
        ({"text_data": '{"type": "ping"'}, 1007),
        ({"bytes_data": b"\x00\x01"}, 1003),
        ({"text_data": '{"type": "ping", "x": "' + "a" * 5000 + '"}'}, 1009),
    ],
)
def test_a_frame_that_is_not_a_small_json_text_closes_the_socket_with_its_code_and_a_warning(
    live, student, caplog, frame, code
):
    async def scenario():
        communicator = socket(live, student)
        assert (await communicator.connect())[0]
        await receive(communicator, "state")
        await communicator.send_to(**frame)
        closed = await communicator.receive_output(timeout=5)
        await communicator.disconnect()
        return closed

    with caplog.at_level("WARNING", logger="live.consumers"):
        closed = run(scenario)
    assert closed == {"type": "websocket.close", "code": code}
    (record,) = [r for r in caplog.records if r.name == "live.consumers"]
    assert record.levelname == "WARNING" and f"closed with {code}" in record.getMessage()
    assert LiveParticipant.objects.get(user=student).connected == 0  # its slot is free again


# -- how many sockets one user may hold ------------------------------------------------------------


async def open_sockets(live, user, n: int) -> list[tuple[WebsocketCommunicator, dict]]:
    """``n`` sockets of ``user``, each with its first message (a state, or the close)."""
    opened = []
    for _ in range(n):
        communicator = socket(live, user)
        connected, _code = await communicator.connect()
        assert connected  # accepted, then closed with a code the page reads when refused
        first = await communicator.receive_output(timeout=5)
        opened.append((communicator, first))
    return opened


def closed_with(first: dict) -> int | None:
    return first["code"] if first["type"] == "websocket.close" else None


def test_one_user_holds_at_most_the_allowed_sockets_in_a_lesson_and_the_next_gets_4429(
    live,
    student,
    second,
    settings,
):
    settings.DAMA_LIVE_SOCKETS_PER_USER = 3

    async def scenario():
        mine = await open_sockets(live, student, 5)
        theirs = await open_sockets(live, second, 1)  # another student is not held back
        await database_sync_to_async(live.go_to)(1)
        pushed = [await receive(c, "state") for c, first in mine + theirs if not closed_with(first)]
        for c, _first in mine + theirs:
            await c.disconnect()
        return [closed_with(first) for _c, first in mine + theirs], pushed

    codes, pushed = run(scenario)
    assert codes == [None, None, None, TOO_MANY, TOO_MANY, None]
    assert len(pushed) == 4 and all("Position 2 of 2" in m["html"] for m in pushed)
    assert not LiveSocket.objects.exists()


def test_a_closed_socket_frees_its_slot(live, student, settings):
    settings.DAMA_LIVE_SOCKETS_PER_USER = 2

    async def scenario():
        first, second_one, refused = await open_sockets(live, student, 3)
        await first[0].disconnect()
        (again,) = await open_sockets(live, student, 1)
        for c, _ in (second_one, refused, again):
            await c.disconnect()
        return closed_with(refused[1]), closed_with(again[1])

    assert run(scenario) == (TOO_MANY, None)


def test_the_slots_are_shared_by_every_process_and_a_dead_processs_sockets_free_theirs(
    live, student, settings
):
    """Another ASGI process's sockets are rows like this process's: they count. A process killed
    without closing its sockets stops marking them alive: once stale they free their slots."""
    from datetime import timedelta

    from django.utils import timezone

    settings.DAMA_LIVE_SOCKETS_PER_USER = 2
    for slot in range(2):
        LiveSocket.objects.create(
            session=live, user=student, slot=slot, channel=f"other-process!{slot}"
        )

    async def one():
        ((communicator, first),) = await open_sockets(live, student, 1)
        await communicator.disconnect()
        return closed_with(first)

    assert run(one) == TOO_MANY
    dead = timezone.now() - timedelta(seconds=LiveSocket.STALE + 1)
    LiveSocket.objects.filter(channel="other-process!0").update(seen=dead)
    assert LiveParticipant(session=live, user=student).connected == 1  # the live one
    assert run(one) is None
    assert list(LiveSocket.objects.values_list("channel", flat=True)) == ["other-process!1"]


def test_a_socket_marks_its_slot_alive(live, student, monkeypatch):
    from datetime import timedelta

    from django.utils import timezone

    monkeypatch.setattr(LiveSocket, "HEARTBEAT", 0.01)
    old = timezone.now() - timedelta(seconds=60)

    async def scenario():
        communicator = socket(live, student)
        await communicator.connect()
        await receive(communicator, "state")
        await database_sync_to_async(LiveSocket.objects.update)(seen=old)
        for _ in range(500):  # the consumer marks it within a few heartbeats
            seen = await database_sync_to_async(lambda: LiveSocket.objects.get().seen)()
            if seen > old:
                break
            await asyncio.sleep(0.01)
        await communicator.disconnect()
        return seen

    assert run(scenario) > old


# -- who is in the class, at every push ---------------------------------------------------------------


def test_a_student_removed_from_the_class_has_their_socket_closed_and_gets_no_more_state(
    live,
    student,
    second,
    classroom,
):
    async def scenario():
        leaving, staying = socket(live, student), socket(live, second)
        for s in (leaving, staying):
            assert (await s.connect())[0]
            await receive(s, "state")
        await database_sync_to_async(classroom.remove_student)(student)
        closed = await leaving.receive_output(timeout=5)
        await database_sync_to_async(live.go_to)(1)
        state = await receive(staying, "state")
        nothing = await leaving.receive_nothing(timeout=0.2)
        for s in (leaving, staying):
            await s.disconnect()
        return closed, state, nothing

    closed, state, nothing = run(scenario)
    assert closed == {"type": "websocket.close", "code": REFUSED}
    assert "Position 2 of 2" in state["html"] and nothing
    assert not LiveSocket.objects.filter(user=student).exists()


def test_a_socket_that_missed_the_removal_closes_at_the_next_push(
    live,
    student,
    classroom,
    monkeypatch,
):
    from live import push

    lost: list = []
    monkeypatch.setattr(push, "left", lambda *args: lost.append(args))  # the layer lost it

    async def scenario():
        leaving = socket(live, student)
        assert (await leaving.connect())[0]
        await receive(leaving, "state")
        await database_sync_to_async(classroom.remove_student)(student)
        await database_sync_to_async(live.go_to)(1)  # carries the new roster
        closed = await leaving.receive_output(timeout=5)
        await leaving.disconnect()
        return closed

    assert run(scenario) == {"type": "websocket.close", "code": REFUSED}
    assert lost == [(live.pk, student.pk)]


def test_a_teacher_taken_off_the_class_has_their_socket_closed(
    live,
    teacher,
    classroom,
    django_user_model,
):
    from tests.conftest import _make_user

    classroom.teachers.add(_make_user(django_user_model, "tomas", teacher=True))

    async def scenario():
        desk = socket(live, teacher)
        assert (await desk.connect())[0]
        await receive(desk, "state")
        assert await database_sync_to_async(classroom.remove_teacher)(teacher)
        closed = await desk.receive_output(timeout=5)
        while closed["type"] == "websocket.send":  # the answers panel sent on connecting
            closed = await desk.receive_output(timeout=5)
        await desk.disconnect()
        return closed

    assert run(scenario) == {"type": "websocket.close", "code": REFUSED}
