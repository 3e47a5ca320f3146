"""The games' load script (tests/load/versus_load.py) in a smoke size, and the two-process run.

* A few games for a few seconds over real WebSockets to uvicorn serving the site on loopback (in
  this process, on the test database, the channel layer on Redis): no move lost or doubled, every
  move sent again refused, and the report has its figures. Not the times: the times of a shared
  CI machine mean nothing (the full run of 100 games reports them: docs/benchmarks/versus.md).
* Two uvicorn processes on two ports behind one Redis channel layer and one database (a SQLite
  file), each game's White on one and its Black on the other: the moves are relayed both ways.

Both need Redis: skipped with the reason without it, failed when DAMA_REQUIRE_SERVICES=1.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pytest
from django.conf import settings

from tests.conftest import redis_problem, redis_url, service_unavailable
from tests.load import versus_load
from tests.web.test_live_consumers import channel_layer  # noqa: F401 - the layer fixture

pytestmark = [pytest.mark.services, pytest.mark.slow]

FIGURES = ("relay_p50_ms", "relay_p95_ms", "relay_p99_ms", "answer_p50_ms", "moves_per_second")


@pytest.fixture
def redis_at():
    url = redis_url() if os.environ.get("REDIS_URL") else ""
    problem = redis_problem(url) if url else "REDIS_URL is not set"
    if problem:
        service_unavailable(f"the games' load test needs Redis: {problem}")
    return url


@pytest.mark.django_db(transaction=True)
def test_a_few_games_lose_and_double_no_move_and_report_their_figures(redis_at):
    from dama_learn.asgi import application
    from tests.load.servers import serve_in_thread

    pairs = versus_load.make_pairs(3, 2, tag="smoke")
    with serve_in_thread(application) as base:
        figures = asyncio.run(
            versus_load.run_games(
                [base], pairs, versus_load.first_routes(), seconds=3, think=(0.02, 0.1), resend=0.3
            )  # fmt: skip
        )
    figures.update(versus_load.stored_check(figures))
    assert figures["moves"] > 6, figures
    assert (figures["lost"], figures["doubled"], figures["stored_mismatched"]) == (0, 0, 0)
    assert figures["received_not_answered"] == 0 and figures["refused"] == []
    assert figures["resent"] > 0 and figures["resend_played"] == 0
    for name in FIGURES:
        assert isinstance(figures[name], float) and figures[name] >= 0, (name, figures[name])


def test_two_servers_behind_one_redis_relay_the_moves_both_ways(redis_at, tmp_path):
    """Separate processes: the script sets up its SQLite file, starts both servers and plays."""
    out = tmp_path / "figures.json"
    env = {
        **os.environ,
        "REDIS_URL": redis_at,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'shared.sqlite3'}",
    }
    env.pop("DAMA_CHANNELS_REDIS_URL", None)
    done = subprocess.run(
        [sys.executable, str(versus_load.ROOT / "tests/load/versus_load.py"), "--servers", "2",
         "--games", "3", "--per-pair", "1", "--seconds", "4", "--think-ms", "20", "100",
         "--json", str(out)],
        env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    figures = json.loads(out.read_text())
    layer = settings.CHANNELS_LAYER_BACKENDS[settings.DAMA_CHANNELS_LAYER].rsplit(".", 1)[1]
    assert figures["servers"] == 2 and figures["channel_layer"] == layer
    assert figures["lost"] == 0 and figures["doubled"] == 0 and figures["stored_mismatched"] == 0
    # White's moves reached Black on the other server, and Black's White
    assert figures["relayed"]["w"] > 0 and figures["relayed"]["b"] > 0, figures["relayed"]
