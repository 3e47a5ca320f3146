"""Games against the computer on a real worker: a request stores the player's move and sends the
computer's move to the ``play`` queue; a worker process that consumes only that queue searches
with the real engine and writes the reply, which the page's poll then shows. The hint goes the
same way.

Redis database 12 (``DAMA_TEST_PLAY_REDIS_URL`` overrides) with this run's key prefix, so that
other test runs on the same Redis see none of these messages.
"""

from __future__ import annotations

import os
import time
from urllib.parse import urlparse, urlunparse

import pytest

from play.models import Game
from tests.conftest import redis_url

pytestmark = [pytest.mark.services, pytest.mark.slow]

PLAY_REDIS_DB = 12
HX = {"HTTP_HX_REQUEST": "true"}


def play_redis_url() -> str:
    explicit = os.environ.get("DAMA_TEST_PLAY_REDIS_URL")
    if explicit:
        return explicit
    return urlunparse(urlparse(redis_url())._replace(path=f"/{PLAY_REDIS_DB}"))


@pytest.fixture
def play_broker(request, monkeypatch):
    """The services' Redis broker (this run's key prefix), on database 12."""
    monkeypatch.setenv("DAMA_TEST_VERIFY_REDIS_URL", play_redis_url())
    return request.getfixturevalue("redis_broker")


def wait_for_game(pk: int, done, worker, seconds: float = 60) -> Game:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        game = Game.objects.get(pk=pk)
        if done(game):
            return game
        time.sleep(0.1)
    pytest.fail(
        f"game {pk} not done after {seconds} s: {Game.objects.filter(pk=pk).values().first()}\n{worker.log()[-3000:]}"
    )


def test_the_computers_move_and_a_hint_come_from_a_worker_on_the_play_queue(
    client, play_broker, start_worker
):
    worker = start_worker(play_broker, queues="play")
    response = client.post("/play/czech/", {"level": "3", "color": "white"})
    assert response.status_code == 302
    game = Game.objects.get()
    response = client.post(f"/play/game/{game.pk}/move", {"move": "22-18"}, **HX)
    assert response.status_code == 200 and 'data-testid="thinking"' in response.content.decode()
    game = wait_for_game(game.pk, lambda g: g.state != Game.State.THINKING, worker)
    assert len(game.moves) == 2 and game.version == 2 and game.state == Game.State.PLAYER
    assert game.last_search["depth"] >= 1 and game.last_search["nodes"] > 0
    # the page's poll brings the reply
    page = client.get(f"/play/game/{game.pk}/wait?v=1", **HX).content.decode()
    assert f"The computer played {game.last_search['notation']}." in page
    assert "play.computer_move" in worker.log()
    # a hint at a worker level is searched there too
    page = client.post(f"/play/game/{game.pk}/hint", **HX).content.decode()
    assert 'data-testid="hint-pending"' in page
    game = wait_for_game(game.pk, lambda g: g.current_hint is not None, worker)
    page = client.get(f"/play/game/{game.pk}/wait?v={game.version}", **HX).content.decode()
    assert f"The engine would play {game.hint['notation']}." in page


def test_a_worker_plays_the_first_move_when_the_player_takes_black(
    client, play_broker, start_worker
):
    worker = start_worker(play_broker, queues="play")
    client.post("/play/international/", {"level": "5", "color": "black"})
    game = Game.objects.get()
    assert game.state == Game.State.THINKING
    game = wait_for_game(game.pk, lambda g: g.state == Game.State.PLAYER, worker)
    assert len(game.moves) == 1 and not game.player_white


def test_a_play_worker_searches_only_while_no_web_request_runs(
    client, play_broker, start_worker, tmp_path
):
    """With ``DAMA_WEB_BUSY_FILE`` the worker's search waits while a web request is marked there
    (as gunicorn marks each request it serves), and goes on once it is over. (Requests without
    a gap let it on by a few hundred nodes every ``MOST_SECONDS``: level 6 searches 16,000.)"""
    from core.webbusy import WebBusy
    from play import engine

    busy_file = str(tmp_path / "web-busy")
    worker = start_worker(play_broker, queues="play", env={"DAMA_WEB_BUSY_FILE": busy_file})
    client.post("/play/czech/", {"level": "6", "color": "white"})
    game = Game.objects.get()
    client.post(f"/play/game/{game.pk}/move", {"move": "22-18"}, **HX)
    t0 = time.monotonic()
    game = wait_for_game(game.pk, lambda g: g.state == Game.State.PLAYER, worker)
    unhindered = time.monotonic() - t0  # the worker is warm: a reply well within a second
    web = WebBusy(busy_file)
    web.start()
    try:
        board = game.board()
        for move in sorted(board.generate_legal_moves(), key=lambda m: m.routes[0]):
            board.push(move)
            choices = len(board.generate_legal_moves())
            board.pop()
            if choices > 1:  # the computer has a choice to search (a forced move is not)
                break
        text = engine.notation_of(board, move.routes[0])
        response = client.post(f"/play/game/{game.pk}/move", {"move": text}, **HX)
        assert response.status_code == 200, response.content
        for _ in range(8):  # a long stream of requests: the computer waits
            time.sleep(0.25)
            web.start()
            assert Game.objects.get(pk=game.pk).state == Game.State.THINKING
    finally:
        web.end()
    t0 = time.monotonic()
    game = wait_for_game(game.pk, lambda g: g.state == Game.State.PLAYER, worker)
    assert len(game.moves) == 4
    assert time.monotonic() - t0 < max(5.0, 10 * unhindered)


def pool_processes(worker, count: int, seconds: float = 30) -> list[int]:
    """The pids of the worker's ``count`` pool processes (its children), once they are up."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        path = f"/proc/{worker.proc.pid}/task/{worker.proc.pid}/children"
        with open(path) as f:
            children = [int(pid) for pid in f.read().split()]
        if len(children) >= count:
            return children
        time.sleep(0.1)
    pytest.fail(f"the worker has not {count} pool processes:\n{worker.log()[-3000:]}")


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity on this OS")
def test_a_play_worker_keeps_each_search_process_on_a_core_of_its_own(play_broker, start_worker):
    cores = sorted(os.sched_getaffinity(0))
    worker = start_worker(
        play_broker, queues="play", concurrency=2, env={"DAMA_WORKER_PIN_CORES": "1"}
    )
    affinities = [os.sched_getaffinity(pid) for pid in pool_processes(worker, 2)]
    if len(cores) < 2:  # nothing to choose: the processes stay where they may run
        assert affinities == [set(cores)] * 2
    else:
        assert all(len(a) == 1 for a in affinities), affinities
        assert sorted(core for a in affinities for core in a) == cores[:2]
    # the worker itself (which only hands out the tasks) is left free
    assert os.sched_getaffinity(worker.proc.pid) == set(cores)


def test_a_worker_left_unpinned_lets_its_processes_run_anywhere(play_broker, start_worker):
    cores = set(os.sched_getaffinity(0))
    worker = start_worker(play_broker, queues="play", concurrency=2)
    assert [os.sched_getaffinity(pid) for pid in pool_processes(worker, 2)] == [cores, cores]
