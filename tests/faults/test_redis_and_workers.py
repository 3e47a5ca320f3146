"""Faults with real processes: Redis (broker and cache) stopped while users solve puzzles, a worker
SIGKILLed mid-proof, a proof over its time limit. Everything runs on a throwaway redis-server of
the test's own."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from puzzles.models import Puzzle
from puzzles.verification import sweep
from tests.conftest import PASSWORD, wait_until
from tests.puzzle_fixtures import make_puzzle
from tests.web.test_puzzle_proofs import CAPTURE, SLOW

from .conftest import answered_within

pytestmark = [pytest.mark.services, pytest.mark.slow]
HX = {"HTTP_HX_REQUEST": "true"}
#: a request that has not answered by then is stuck on the dead Redis
STALL_SECONDS = 20
FINAL = {"unique", "cooked", "no_solution", "undecided", "error"}


def verdict_of(pk: int) -> str:
    return Puzzle.objects.get(pk=pk).verdict


def test_redis_stopped_while_users_solve_then_verification_resumes(
    client, on_own_redis, workers, student, teacher, settings
):
    redis = on_own_redis
    puzzle = make_puzzle("czech_gain")
    solution = puzzle.proof["solution"]
    client.post("/accounts/login/", {"username": "standa", "password": PASSWORD})
    html = client.get(f"/puzzles/czech/{puzzle.pk}/").content.decode()
    attempt = re.search(r'data-attempt="(\d+)"', html).group(1)
    assert (
        client.post(f"/puzzles/attempt/{attempt}/move", {"move": solution[0]}, **HX).status_code
        == 200
    )

    redis.stop()  # broker and cache gone
    # the site keeps serving pages and checking moves, without waiting on the dead Redis
    response = answered_within(
        STALL_SECONDS,
        "the move",
        lambda: client.post(f"/puzzles/attempt/{attempt}/move", {"move": solution[2]}, **HX),
    )
    assert response.status_code == 200 and 'data-state="solved"' in response.content.decode()
    for url in (
        "/",
        "/learn/czech/",
        f"/puzzles/czech/{puzzle.pk}/",
        "/daily/czech/",
        "/puzzles/czech/dashboard/",
    ):
        page = answered_within(STALL_SECONDS, url, lambda url=url: client.get(url))
        assert page.status_code in (200, 302), url
    # log-in still works (the rate limiter fails open without its cache)
    other = client.__class__()
    logged_in = answered_within(
        STALL_SECONDS,
        "the log-in",
        lambda: other.post("/accounts/login/", {"username": "tereza", "password": PASSWORD}),
    )
    assert logged_in.status_code == 302
    # a teacher saves a puzzle: the proof cannot be sent now, the save must not fail
    new = answered_within(
        STALL_SECONDS, "the save", lambda: Puzzle.objects.create(**CAPTURE, author=teacher)
    )
    assert new.verdict == "pending"

    redis.start()  # back on the same port, empty: the message sent at commit time is lost
    workers(redis.url)
    # the sweeper (beat, every 5 minutes) enqueues what waited; here at once, as if its threshold
    # had passed
    settings.DAMA_VERIFY_PENDING_SECONDS = 0
    sweep(now=timezone.now() + timedelta(seconds=1))
    wait_until(lambda: verdict_of(new.pk) in FINAL, 60, "the proof after Redis came back")
    assert verdict_of(new.pk) == "unique"
    # and the solved attempt was kept
    from puzzles.models import Attempt

    assert Attempt.objects.get(pk=attempt).solved


def test_a_worker_killed_mid_proof_is_redelivered(on_own_redis, workers):
    redis = on_own_redis
    first = workers(redis.url)
    puzzle = Puzzle.objects.create(**SLOW, limits={"nodes": 500_000_000, "seconds": 5})
    wait_until(lambda: verdict_of(puzzle.pk) == "running", 30, "the proof to start")
    first.kill()  # SIGKILL to the worker and its pool: no acknowledgement
    assert verdict_of(puzzle.pk) == "running"
    workers(redis.url)  # Redis hands the unacknowledged message to the new worker
    wait_until(lambda: verdict_of(puzzle.pk) in FINAL, 60, "the redelivered proof")
    assert verdict_of(puzzle.pk) in FINAL - {"error"}  # a verdict, not a lost proof


def test_a_proof_over_its_time_limit_ends_undecided_not_stuck(on_own_redis, workers):
    workers(on_own_redis.url)
    puzzle = Puzzle.objects.create(**SLOW, limits={"nodes": 500_000_000, "seconds": 1})
    # the poll's deadline: a proof stuck past its 1 s limit would wait for the sweeper (900 s)
    wait_until(lambda: verdict_of(puzzle.pk) in FINAL, 30, "the verdict of a proof over its limit")
    row = Puzzle.objects.get(pk=puzzle.pk)
    assert row.verdict == "undecided", row.proof
