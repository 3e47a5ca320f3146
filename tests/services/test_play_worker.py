"""Games against the computer on a real worker: a request stores the player's move and sends the
computer's move to the ``play`` queue; a worker process that consumes only that queue searches
with the real engine and writes the reply, which the page's poll then shows. The hint goes the
same way.

Redis database 12 (``DAMA_TEST_PLAY_REDIS_URL`` overrides) with this run's key prefix, so that
other test runs on the same Redis see none of these messages.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlparse, urlunparse

import pytest

from play.models import Game
from tests.conftest import redis_url, wait_until

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
    def finished() -> Game | None:
        game = Game.objects.get(pk=pk)
        return game if done(game) else None

    return wait_until(
        finished,
        seconds,
        f"game {pk} done",
        details=lambda: f"{Game.objects.filter(pk=pk).values().first()}\n{worker.log()[-3000:]}",
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


def pool_processes(worker, count: int, seconds: float = 30) -> list[int]:
    """The pids of the worker's ``count`` pool processes (its children), once they are up."""
    path = Path(f"/proc/{worker.proc.pid}/task/{worker.proc.pid}/children")

    def children() -> list[int]:
        found = [int(pid) for pid in path.read_text().split()]
        return found if len(found) >= count else []

    return wait_until(
        children,
        seconds,
        f"the worker's {count} pool processes",
        details=lambda: worker.log()[-3000:],
    )


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


def test_another_players_reply_is_not_queued_behind_a_hogs_twelve_games(
    client, play_broker, start_worker, student
):
    """One visitor's twelve games at level 8 (the computer to move in each) hold one search on
    the workers at a time: another player's level-5 reply is searched next, not after the
    twelve (issue 45: it waited 22 s for them)."""
    from django.test import Client

    worker = start_worker(play_broker, queues="exam,play")
    hog = Client(REMOTE_ADDR="203.0.113.9")
    for _ in range(12):
        assert hog.post("/play/czech/", {"level": "8", "color": "black"}).status_code == 302
    hogs = Game.objects.filter(user=None)
    assert hogs.count() == 12
    client.force_login(student)
    client.post("/play/czech/", {"level": "5", "color": "white"})
    mine = Game.objects.get(user=student)
    assert client.post(f"/play/game/{mine.pk}/move", {"move": "22-18"}, **HX).status_code == 200
    wait_for_game(mine.pk, lambda g: g.state == Game.State.PLAYER, worker)
    replied = hogs.filter(state=Game.State.PLAYER).count()
    assert replied <= 2, f"{replied} of the hog's games were answered first"
    # the hog's games go on, one at a time, the next one after the other player's
    second = hogs.order_by("pk")[1]
    wait_for_game(second.pk, lambda g: g.state == Game.State.PLAYER, worker)


def test_an_exams_search_is_taken_before_the_play_queue(
    play_broker, start_worker, django_user_model
):
    """An exam's game's search goes to the ``exam`` queue, which the play worker serves beside
    ``play``: it is taken at the worker's next pick, not after the searches waiting there."""
    worker = start_worker(play_broker, queues="exam,play")
    games = [
        Game.start(
            user=django_user_model.objects.create_user(f"player{i}"),
            variant="czech", level=8, player_white=False,
        )
        for i in range(4)
    ]  # fmt: skip
    sitter = django_user_model.objects.create_user("sitter")
    exam_game = Game.start(
        user=sitter, variant="czech", level=5, player_white=False, source=Game.Source.EXAM
    )
    wait_for_game(exam_game.pk, lambda g: g.state == Game.State.PLAYER, worker)
    replied = Game.objects.filter(pk__in=[g.pk for g in games], state=Game.State.PLAYER).count()
    assert replied <= 1, f"{replied} of the players' games were answered before the exam's"
