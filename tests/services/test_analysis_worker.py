"""The analysis of finished games on a real worker: a game's end queues its analysis on the
``analysis`` queue; a worker process that consumes only that queue analyses it with the real
engine, writes the progress as it goes and the result at the end (the moments proven, the
personal puzzle made). One user's games take their turns: another user's game is analysed before
the first user's second one.

Redis database 11 (``DAMA_TEST_ANALYSIS_REDIS_URL`` overrides) with this run's key prefix, so that
other test runs on the same Redis see none of these messages.
"""

from __future__ import annotations

import os
from urllib.parse import urlparse, urlunparse

import pytest

from analysis.models import GameAnalysis
from tests.conftest import redis_url, wait_until
from tests.web.test_analysis import SHOT_FEN, SHOT_MISSED, finished_game

pytestmark = [pytest.mark.services, pytest.mark.slow]

ANALYSIS_REDIS_DB = 11


def analysis_redis_url() -> str:
    explicit = os.environ.get("DAMA_TEST_ANALYSIS_REDIS_URL")
    if explicit:
        return explicit
    return urlunparse(urlparse(redis_url())._replace(path=f"/{ANALYSIS_REDIS_DB}"))


@pytest.fixture
def analysis_broker(request, monkeypatch):
    """The services' Redis broker (this run's key prefix), on database 11."""
    monkeypatch.setenv("DAMA_TEST_VERIFY_REDIS_URL", analysis_redis_url())
    return request.getfixturevalue("redis_broker")


def wait_done(pks: list[int], worker, seconds: float = 120) -> list[GameAnalysis]:
    def finished() -> list[GameAnalysis] | None:
        rows = list(GameAnalysis.objects.filter(pk__in=pks).order_by("pk"))
        return rows if all(r.is_finished for r in rows) and len(rows) == len(pks) else None

    return wait_until(
        finished,
        seconds,
        f"analyses {pks} finished",
        details=lambda: (
            f"{list(GameAnalysis.objects.values('pk', 'state', 'progress', 'sent', 'error'))}\n"
            f"{worker.log()[-3000:]}"
        ),
    )


def test_a_finished_game_is_analysed_on_a_worker_of_the_analysis_queue(
    analysis_broker, start_worker, student
):
    worker = start_worker(analysis_broker, queues="analysis")
    game = finished_game(student)
    row = GameAnalysis.of_play_game(game)  # autocommit: sent at once
    (row,) = wait_done([row.pk], worker)
    assert row.state == GameAnalysis.State.DONE, row.error
    assert row.progress == 100 and row.attempts == 1 and row.started and row.finished
    assert len(row.evaluations) == len(SHOT_MISSED) + 1
    moment = row.moments.get(ply=0, kind="missed")
    assert moment.verdict == "unique" and "shot" in moment.motifs
    assert moment.puzzle.owner == student and moment.puzzle.fen == SHOT_FEN
    assert "analysis.analyse_game" in worker.log()


def test_another_users_game_is_analysed_before_the_first_users_second(
    analysis_broker, start_worker, student, outsider
):
    a_rows = [GameAnalysis.of_play_game(finished_game(student)) for _ in range(3)]
    b_row = GameAnalysis.of_play_game(finished_game(outsider))
    # one of A's in the broker, the rest waiting their turn in the database; B's sent at once
    assert [r.pk for r in GameAnalysis.objects.filter(sent__isnull=False).order_by("sent")] == [
        a_rows[0].pk,
        b_row.pk,
    ]
    worker = start_worker(analysis_broker, queues="analysis")
    rows = {r.pk: r for r in wait_done([*(r.pk for r in a_rows), b_row.pk], worker)}
    assert all(r.state == GameAnalysis.State.DONE for r in rows.values())
    order = sorted(rows.values(), key=lambda r: r.finished)
    assert [r.pk for r in order] == [a_rows[0].pk, b_row.pk, a_rows[1].pk, a_rows[2].pk]
