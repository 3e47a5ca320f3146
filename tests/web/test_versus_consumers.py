"""A game's WebSocket (``versus.consumers``), driven by Channels' ``WebsocketCommunicator``: a
move over the socket is judged as over HTTP (played, refused with its rule, out of turn), is
answered to the mover and reaches the other player and a spectator with the move in the message
(a rated game's spectator gets the version alone); a frame sent again is never played twice; a
stranger's handshake to a private game is refused, and so is an account's socket beyond its
cap. The channel layer is the one ``tests/web/test_live_consumers.py`` sets up (Redis when
REDIS_URL is set, else in memory)."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.core.cache import cache

from tests.conftest import _make_user
from tests.web.test_live_consumers import channel_layer  # noqa: F401 - an autouse fixture
from versus.consumers import REFUSED, TOO_MANY
from versus.models import VersusGame
from versus.routing import websocket_urlpatterns

pytestmark = pytest.mark.django_db(transaction=True)

ROUTER = URLRouter(websocket_urlpatterns)


@pytest.fixture(autouse=True)
def _no_sockets_counted():
    """The sockets' slots live in the cache: each test starts with none taken."""
    cache.clear()
    yield
    cache.clear()


def socket(game: VersusGame, user) -> WebsocketCommunicator:
    communicator = WebsocketCommunicator(ROUTER, f"/ws/versus/{game.token}/")
    communicator.scope["user"] = user
    return communicator


@pytest.fixture
def game(student, outsider):
    """A casual 5+3 game: the student has White, the outsider Black; White to move."""
    the_game = VersusGame.challenge(student, variant="czech", colour="white", base_minutes=5,
                                    increment_seconds=3)  # fmt: skip
    the_game.accept(outsider)
    the_game.refresh_from_db()
    return the_game


async def opened(game: VersusGame, user) -> WebsocketCommunicator:
    s = socket(game, user)
    assert (await s.connect())[0]
    assert await s.receive_json_from(timeout=5) == {"type": "state", "version": game.version}
    return s


async def close(*communicators: WebsocketCommunicator) -> None:
    for s in communicators:
        await s.disconnect()


def test_a_move_reaches_the_other_player_and_a_spectator(student, outsider, django_user_model):
    spectator = _make_user(django_user_model, "tomas")
    game = VersusGame.challenge(student, variant="czech", colour="white")
    game.accept(outsider)
    game.refresh_from_db()
    before = game.version

    async def scenario():
        sockets = [await opened(game, outsider), await opened(game, spectator)]
        reply = await database_sync_to_async(game.play)(student, text="22-18")
        assert reply.kind == "moved"
        got = [await s.receive_json_from(timeout=5) for s in sockets]
        await close(*sockets)
        return got

    to_black, to_spectator = async_to_sync(scenario)()
    for message in (to_black, to_spectator):
        assert message["type"] == "state" and message["version"] == before + 1
        assert message["move"]["route"] == [22, 18] and message["move"]["notation"] == "22-18"
    assert [9, 13] in to_black["move"]["legal"]  # Black's answers: a premove is checked there
    assert "legal" not in to_spectator["move"] and "players" not in to_spectator


def test_a_move_over_the_socket_is_played_and_the_opponent_gets_it_with_the_clocks(
    game, student, outsider
):
    async def scenario():
        white, black = await opened(game, student), await opened(game, outsider)
        await white.send_json_to({"type": "move", "route": [22, 18], "version": game.version,
                                  "id": 7})  # fmt: skip
        reply = await white.receive_json_from(timeout=5)
        pushed_to_white = await white.receive_json_from(timeout=5)
        pushed = await black.receive_json_from(timeout=5)
        await close(white, black)
        return reply, pushed_to_white, pushed

    reply, pushed_to_white, pushed = async_to_sync(scenario)()
    assert reply["type"] == "reply" and reply["kind"] == "moved" and reply["id"] == 7
    assert reply["notation"] == "22-18" and reply["version"] == game.version + 1
    assert pushed == pushed_to_white
    assert pushed["version"] == game.version + 1 and pushed["plies"] == 1
    assert pushed["move"]["route"] == [22, 18] and pushed["move"]["by"] == "w"
    assert pushed["clocks"] == {"w": 300_000, "b": 300_000}  # the clock runs from move two
    game.refresh_from_db()
    assert game.moves == [[22, 18]]


def test_an_illegal_move_over_the_socket_is_refused_with_its_rule(game, student):
    async def scenario():
        white = await opened(game, student)
        await white.send_json_to({"type": "move", "text": "22-19", "version": game.version})
        reply = await white.receive_json_from(timeout=5)
        await close(white)
        return reply

    reply = async_to_sync(scenario)()
    assert reply["kind"] == "illegal" and reply["code"] == "not_diagonal"
    assert "not on one diagonal" in reply["message"]
    assert reply["article"] == "CUD 2006 art. 3.4"
    game.refresh_from_db()
    assert game.moves == [] and game.version == reply["version"]


def test_a_move_out_of_turn_is_refused_with_the_rule(game, outsider):
    async def scenario():
        black = await opened(game, outsider)
        await black.send_json_to({"type": "move", "route": [9, 13], "version": game.version})
        reply = await black.receive_json_from(timeout=5)
        await close(black)
        return reply

    reply = async_to_sync(scenario)()
    assert reply["kind"] == "turn" and reply["article"] == "CUD 2006 art. 3.3"
    game.refresh_from_db()
    assert game.moves == []


def test_a_move_sent_again_is_not_played_twice(game, student, outsider):
    """A page that reconnects sends its move again: the second frame, made on the version
    before the move, is answered with the game as it is."""
    frame = {"type": "move", "route": [22, 18], "version": game.version}

    async def scenario():
        white = await opened(game, student)
        await white.send_json_to(frame)
        first = await white.receive_json_from(timeout=5)
        assert (await white.receive_json_from(timeout=5))["type"] == "state"
        await close(white)
        again = socket(game, student)
        assert (await again.connect())[0]
        await again.receive_json_from(timeout=5)
        await again.send_json_to(frame)
        second = await again.receive_json_from(timeout=5)
        await close(again)
        return first, second

    first, second = async_to_sync(scenario)()
    assert first["kind"] == "moved"
    assert second["kind"] == "conflict" and second["version"] == game.version + 1
    game.refresh_from_db()
    assert game.moves == [[22, 18]] and game.version == first["version"]


def test_a_move_without_the_version_it_was_made_on_is_not_played(game, student):
    async def scenario():
        white = await opened(game, student)
        await white.send_json_to({"type": "move", "route": [22, 18]})
        reply = await white.receive_json_from(timeout=5)
        await close(white)
        return reply

    assert async_to_sync(scenario)()["kind"] == "bad"
    game.refresh_from_db()
    assert game.moves == []


def test_a_stranger_cannot_move(game, django_user_model):
    stranger = _make_user(django_user_model, "tomas")

    async def scenario():
        s = await opened(game, stranger)  # a public game: anyone may follow it
        await s.send_json_to({"type": "move", "route": [22, 18], "version": game.version})
        reply = await s.receive_json_from(timeout=5)
        await close(s)
        return reply

    reply = async_to_sync(scenario)()
    assert reply["kind"] == "refused" and reply["message"] == "Only the players can do that."
    game.refresh_from_db()
    assert game.moves == [] and game.version == reply["version"]


def test_a_draw_offered_over_the_socket_is_agreed_over_the_socket(game, student, outsider):
    async def scenario():
        white, black = await opened(game, student), await opened(game, outsider)
        await white.send_json_to({"type": "draw", "version": game.version})
        offered = await white.receive_json_from(timeout=5)
        pushed = await black.receive_json_from(timeout=5)
        await black.send_json_to(
            {"type": "draw_answer", "answer": "yes", "version": pushed["version"]}
        )
        agreed = await black.receive_json_from(timeout=5)
        await close(white, black)
        return offered, pushed, agreed

    offered, pushed, agreed = async_to_sync(scenario)()
    assert offered["kind"] == "done" and pushed["draw_offer"] == "w"
    assert agreed["kind"] == "done"
    game.refresh_from_db()
    assert game.result == "1-1" and game.reason == "agreed"


def test_a_rated_games_spectator_is_sent_the_version_alone(student, outsider, django_user_model):
    spectator = _make_user(django_user_model, "tomas")
    game = VersusGame.challenge(student, variant="czech", colour="white", base_minutes=5,
                                rated=True)  # fmt: skip
    game.accept(outsider)
    game.refresh_from_db()
    before = game.version

    async def scenario():
        s = await opened(game, spectator)
        await database_sync_to_async(game.play)(student, text="22-18")
        message = await s.receive_json_from(timeout=5)
        await close(s)
        return message

    assert async_to_sync(scenario)() == {"type": "state", "version": before + 1}


def test_a_stranger_is_refused_a_private_games_socket(student, outsider, django_user_model):
    stranger = _make_user(django_user_model, "tomas")
    game = VersusGame.challenge(student, variant="czech", public=False, invited=outsider)
    game.accept(outsider)

    async def scenario():
        communicator = socket(game, stranger)
        connected, code = await communicator.connect()
        await communicator.disconnect()
        return connected, code

    assert async_to_sync(scenario)() == (False, REFUSED)


def test_a_socket_beyond_the_accounts_cap_is_refused_and_a_closed_one_frees_its_slot(
    game, student, settings
):
    settings.DAMA_VERSUS_SOCKETS_PER_USER = 2

    async def scenario():
        first, second = await opened(game, student), await opened(game, student)
        third = socket(game, student)
        assert (await third.connect())[0]  # accepted, then closed: the page reads the code
        refused = await third.receive_output(timeout=5)
        await close(first)
        fourth = await opened(game, student)
        await close(second, fourth)
        return refused

    assert async_to_sync(scenario)() == {"type": "websocket.close", "code": TOO_MANY}


def test_a_visitor_not_signed_in_follows_a_public_game_uncounted(game, settings):
    from django.contrib.auth.models import AnonymousUser

    settings.DAMA_VERSUS_SOCKETS_PER_USER = 1

    async def scenario():
        visitors = [await opened(game, AnonymousUser()) for _ in range(3)]
        await close(*visitors)

    async_to_sync(scenario)()
