"""A short run of the load test (tests/load/run_load.py): 10 users for 20 s against gunicorn and a
worker, on the embedded default (SQLite) and on PostgreSQL + Redis. It asserts no errors, and that
the report has its figures (server times, CPU by role), not their values: the timings of a shared
CI machine mean nothing; `make load` measures them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import service_unavailable

pytestmark = [pytest.mark.services, pytest.mark.slow]
HERE = Path(__file__).resolve().parent


def _postgres_problem() -> str | None:
    import psycopg

    url = os.environ.get("DAMA_LOAD_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    try:
        psycopg.connect(url, connect_timeout=3).close()
    except Exception as exc:
        return f"PostgreSQL is not reachable at {url}: {exc}"
    return None


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_a_short_load_run_has_no_errors(backend, tmp_path):
    if backend == "postgres":
        problem = _postgres_problem() or (
            None if shutil.which("redis-server") else "redis-server is not installed"
        )
        if problem:
            service_unavailable(problem)
    report = tmp_path / "load.md"
    env = {
        **os.environ,
        "LOAD_SECONDS": "20",
        "LOAD_USERS": "10",
        "LOAD_BACKENDS": backend,
        "LOAD_REPORT": str(report),
        "LOAD_CORPUS": "0",  # the six test puzzles only: proving the corpus takes 20 s
    }
    done = subprocess.run(
        [sys.executable, str(HERE / "run_load.py")],
        env=env, capture_output=True, text=True, timeout=400,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    (summary,) = json.loads(report.with_suffix(".json").read_text())
    assert summary["errors"] == 0 and summary["server_errors"] == []
    names = {row["endpoint"] for row in summary["rows"]}
    assert {"move", "puzzle page", "lesson step", "lesson check", "login"} <= names
    # how many requests 20 s allow depends on the machine's other work: the run is judged by every
    # endpoint having answered (above) and the totals adding up, never by a count
    assert summary["requests"] == sum(row["requests"] for row in summary["rows"]) > 0
    # the server's own times came with the responses (Server-Timing, on for the load test only)
    timed = {row["endpoint"]: row["server"][0] for row in summary["rows"]}
    assert timed["move"] > 0 and timed["puzzle page"] > 0, timed
    # and every request's server time is kept, to pool the runs of an experiment
    times = json.loads(report.with_suffix(".times.json").read_text())[backend]
    move = next(row for row in summary["rows"] if row["endpoint"] == "move")
    assert len(times["move"]) == move["requests"] and min(times["move"]) > 0
    # the CPU the run took, by role: the web server's and the load generator's are never none,
    # and the server's CPU a request gives the requests a second the cores could answer
    cpu = summary["cpu"]
    assert cpu["seconds"]["web"] > 0 and cpu["seconds"]["load generator"] > 0, cpu
    assert ("database" in cpu["seconds"]) == (backend == "postgres"), cpu
    assert cpu["server_ms_per_request"] > 0
    assert cpu["capacity_rps"] == pytest.approx(1000 * cpu["cores"] / cpu["server_ms_per_request"])
    assert "The server's CPU a request" in report.read_text()


def test_a_short_fair_play_run_measures_the_replies_alone_and_beside_a_hog(tmp_path):
    """LOAD_MIX=fairplay: a student's level-5 replies alone, then beside a visitor holding 12
    level-8 games, on PostgreSQL and Redis with the play worker; the report has both figures."""
    problem = _postgres_problem() or (
        None if shutil.which("redis-server") else "redis-server is not installed"
    )
    if problem:
        service_unavailable(problem)
    report = tmp_path / "fair.md"
    env = {
        **os.environ,
        "LOAD_MIX": "fairplay",
        # the play worker at the web's priority: an idle-priority one on a busy CI machine may
        # get no core for the 20 s (the figures are `make load`'s to measure, not this test's)
        "LOAD_PLAY_SCHED": "nice",
        "LOAD_PLAY_NICE": "0",
        "LOAD_SECONDS": "20",
        "LOAD_BACKENDS": "postgres",
        "LOAD_REPORT": str(report),
    }
    done = subprocess.run(
        [sys.executable, str(HERE / "run_load.py")],
        env=env, capture_output=True, text=True, timeout=400,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    quiet, hog = json.loads(report.with_suffix(".json").read_text())
    assert quiet["errors"] == hog["errors"] == 0 and hog["server_errors"] == []
    rows = {s["backend"]: {r["endpoint"]: r for r in s["rows"]} for s in (quiet, hog)}
    assert rows["postgres, quiet"]["level-5 reply"]["requests"] > 0
    assert "hog start" not in rows["postgres, quiet"]
    assert rows["postgres, hog"]["hog start"]["requests"] == 12
    assert rows["postgres, hog"]["level-5 reply"]["requests"] > 0
    assert "level-5 reply p50/p95/p99 (1 round of 20 s each): quiet" in report.read_text()
