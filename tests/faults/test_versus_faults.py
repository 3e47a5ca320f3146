"""Games between players through faults, with real processes (issue 48): the site's web servers
(daphne and uvicorn serving ``dama_learn.asgi``, gunicorn serving ``dama_learn.wsgi``) on the
test database (a SQLite file, or PostgreSQL), players on real HTTP and WebSocket clients.

* The web server SIGKILLed mid-game (its whole process group) and started again after an
  outage longer than the threshold: the moves made before are there, and the side to move's
  clock was given the outage back (its turn's start moved forward by at least the time no
  server ran), on each server.
* Redis (the channel layer, the cache, the sessions' cache; a throwaway redis-server of the
  test's own) stopped mid-game: a move over HTTP is accepted and stored, the opponent's poll
  (``state``) shows it; Redis back: a WebSocket connects again and gets the game's version, and
  the pushes reach it again.

No fixed sleeps: every wait polls a condition (``wait_until``). A server or redis-server missing:
skipped, or failed when DAMA_REQUIRE_SERVICES=1.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from datetime import timedelta
from pathlib import Path

import pytest
from django.test import Client
from django.utils import timezone
from websockets.exceptions import ConnectionClosed, WebSocketException

from tests.conftest import service_unavailable, wait_until
from tests.web.test_worker import database_url_for_worker
from versus import engine
from versus.models import SiteHeartbeat, VersusGame

from .conftest import answered_within, free_port

pytestmark = [pytest.mark.services, pytest.mark.slow, pytest.mark.django_db(transaction=True)]
ROOT = Path(__file__).resolve().parents[2]
#: the server's heartbeat and outage threshold (short, so that an outage takes seconds)
HEARTBEAT_SECONDS, OUTAGE_SECONDS = 1, 3
#: a request that has not answered by then is stuck on the dead service
STALL_SECONDS = 20
#: the CSRF cookie and header of the players' requests (Django takes the secret itself)
CSRF = "outage0test0csrf0secret000000000"


#: the web servers of the site: ASGI (HTTP and the sockets) and WSGI (HTTP), each a command
SERVERS = {
    "daphne": ["-m", "daphne", "-b", "127.0.0.1", "-p", "{port}", "dama_learn.asgi:application"],
    "uvicorn": ["-m", "uvicorn", "dama_learn.asgi:application", "--host", "127.0.0.1",
                "--port", "{port}", "--lifespan", "off"],
    "gunicorn": ["-m", "gunicorn", "dama_learn.wsgi", "--bind", "127.0.0.1:{port}",
                 "--workers", "2"],
}  # fmt: skip


class WebServer:
    """A web server of the site (``SERVERS``) on a port of its own, in its own process group."""

    def __init__(self, kind: str, tmp_path: Path, env: dict[str, str]) -> None:
        self.kind = kind
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.env = env
        self.tmp_path = tmp_path
        self.proc: subprocess.Popen | None = None
        self.starts = 0

    def start(self) -> None:
        self.starts += 1
        self.log_path = self.tmp_path / f"{self.kind}-{self.starts}.log"
        command = [arg.format(port=self.port) for arg in SERVERS[self.kind]]
        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen(
                [sys.executable, *command],
                cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        wait_until(self.answers, 60, f"{self.kind} to answer", every=0.1, details=self.log)

    def answers(self) -> bool:
        assert self.proc is not None and self.proc.poll() is None, self.log()
        try:
            with urllib.request.urlopen(self.base + "/accounts/login/", timeout=2) as response:
                return response.status == 200
        except OSError:  # URLError, HTTPError, a refused or reset connection
            return False

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]

    def kill(self) -> None:
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


@pytest.fixture
def web_server(transactional_db, tmp_path):
    """``web_server(kind, **env)`` starts the site on the test database (``kind`` of
    ``SERVERS``); stopped after the test."""
    servers: list[WebServer] = []

    def start(kind: str = "daphne", **extra: str) -> WebServer:
        if importlib.util.find_spec(kind) is None:
            service_unavailable(f"{kind} is not installed (pip install {kind})")
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "dama_learn.settings",
            "DATABASE_URL": database_url_for_worker(),
            "CELERY_BROKER_URL": f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}",
            "DAMA_VAR_DIR": str(tmp_path / "var"),
            "DAMA_HEARTBEAT_SECONDS": str(HEARTBEAT_SECONDS),
            "DAMA_OUTAGE_SECONDS": str(OUTAGE_SECONDS),
            "DEBUG": "1",
            "LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
        }
        for name in ("REDIS_URL", "DAMA_CHANNELS_REDIS_URL"):
            env.pop(name, None)
        env.update(extra)
        server = WebServer(kind, tmp_path, env)
        servers.append(server)
        server.start()
        return server

    yield start
    for server in servers:
        server.stop()


class Player:
    """A signed-in player's browser: HTTP with the session and CSRF cookies, and the socket."""

    def __init__(self, server: WebServer, user) -> None:
        client = Client()
        client.force_login(user)
        self.server = server
        self.session = client.cookies["sessionid"].value

    def request(self, method: str, path: str, data: dict | None = None) -> tuple[int, str]:
        """The status and the body of a request with the session (htmx's, as the page's)."""
        request = urllib.request.Request(
            self.server.base + path,
            data=urllib.parse.urlencode(data).encode() if data is not None else None,
            method=method,
            headers={
                "Cookie": f"sessionid={self.session}; csrftoken={CSRF}",
                "X-CSRFToken": CSRF,
                "HX-Request": "true",
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=STALL_SECONDS) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    def move(self, game: VersusGame, text: str) -> tuple[int, str]:
        return self.request("POST", f"/versus/g/{game.token}/move", {"move": text})

    def poll(self, game: VersusGame, version: int) -> tuple[int, str]:
        return self.request("GET", f"/versus/g/{game.token}/state?v={version}")

    def socket(self, game: VersusGame):
        from websockets.sync.client import connect

        return connect(
            f"ws://127.0.0.1:{self.server.port}/ws/versus/{game.token}/",
            additional_headers={"Cookie": f"sessionid={self.session}"},
            origin=self.server.base,
            open_timeout=5,
        )


def a_legal_move(game: VersusGame) -> str:
    board = engine.replay(game.variant, game.start_fen, game.moves)
    return board.move_text(next(iter(board.generate_legal_moves())))


def play(player: Player, game: VersusGame) -> str:
    """``player`` makes a legal move over HTTP; its text."""
    game.refresh_from_db()
    text = a_legal_move(game)
    status, body = answered_within(
        STALL_SECONDS, f"the move {text}", lambda: player.move(game, text)
    )
    assert status == 200, (status, body[-2000:])
    return text


def receive_state(socket) -> int:
    """The version of the next ``state`` message on ``socket`` (pongs skipped)."""
    while True:
        message = json.loads(socket.recv(timeout=10))
        if message.get("type") == "state":
            return int(message["version"])


def clocked_game(white, black) -> VersusGame:
    game = VersusGame.challenge(white, variant="czech", colour="white", base_minutes=5)
    assert game.accept(black).kind == "done"
    return game


@pytest.mark.parametrize("kind", SERVERS)
def test_a_web_process_killed_mid_game_loses_no_move_and_charges_no_clock(
    web_server, kind, student, outsider
):
    server = web_server(kind)
    game = clocked_game(student, outsider)
    white, black = Player(server, student), Player(server, outsider)
    played = [play(white, game), play(black, game), play(white, game)]  # Black's clock runs
    game.refresh_from_db()
    assert game.clock_running and game.side_to_move == "b"
    turn_before, black_ms = game.turn_started, game.black_ms
    # the server's heartbeat has seen the turn begin: the outage starts after it
    wait_until(lambda: (SiteHeartbeat.last_seen() or turn_before) > turn_before, 30, "a heartbeat")

    server.kill()  # SIGKILL: no goodbye
    killed = timezone.now()
    # the outage lasts longer than the threshold (the site does not answer meanwhile)
    wait_until(
        lambda: timezone.now() - killed > timedelta(seconds=OUTAGE_SECONDS + 1),
        30,
        "an outage longer than the threshold",
        every=0.2,
    )
    restarted = timezone.now()
    server.start()

    game.refresh_from_db()
    assert len(game.moves) == 3, "the moves made before the kill are there"
    assert engine.line_texts(game.variant, game.start_fen, game.moves) == played
    assert game.state == "playing"
    credited = game.turn_started - turn_before
    assert credited >= restarted - killed, (credited, restarted - killed, server.log())

    play(black, game)  # Black moves on the restarted site
    moved = timezone.now()
    game.refresh_from_db()
    assert len(game.moves) == 4
    # Black was charged only the time the site answered during the turn
    alive = (killed - turn_before) + (moved - restarted)
    assert game.black_ms >= black_ms - alive.total_seconds() * 1000, (
        game.black_ms,
        black_ms,
        alive,
    )


def test_redis_stopped_mid_game_moves_go_over_http_and_the_sockets_come_back(
    web_server, own_redis, student, outsider
):
    server = web_server("daphne", REDIS_URL=own_redis.url, CELERY_BROKER_URL=own_redis.url)
    game = clocked_game(student, outsider)
    white, black = Player(server, student), Player(server, outsider)
    with black.socket(game) as socket:
        game.refresh_from_db()
        assert receive_state(socket) == game.version
        play(white, game)
        game.refresh_from_db()
        assert receive_state(socket) == game.version, "White's move pushed to Black's page"
        seen = game.version

        own_redis.stop()
        # the server closes the socket: the page polls, and reconnects with backoff (versus.js)
        with pytest.raises(ConnectionClosed):
            socket.recv(timeout=STALL_SECONDS)
        text = play(black, game)  # over HTTP, Redis down
        game.refresh_from_db()
        assert engine.line_texts(game.variant, game.start_fen, game.moves)[-1] == text
        assert game.version > seen, "the move is stored"
        # White's page polls and gets the move
        status, body = answered_within(STALL_SECONDS, "the poll", lambda: white.poll(game, seen))
        assert status == 200 and text in body
        assert white.poll(game, game.version)[0] == 204, "and nothing newer"

    own_redis.start()  # back on the same port, empty

    def reconnected() -> int | None:
        try:
            with black.socket(game) as again:
                return receive_state(again)
        except (OSError, WebSocketException, TimeoutError):  # refused while the layer reconnects
            return None

    game.refresh_from_db()
    version = wait_until(reconnected, 60, "a socket after Redis came back", details=server.log)
    assert version == game.version, "the page gets the game as it stands"
    with black.socket(game) as socket:
        assert receive_state(socket) == game.version
        play(white, game)
        game.refresh_from_db()
        assert receive_state(socket) == game.version, "the pushes reach the sockets again"
