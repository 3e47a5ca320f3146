"""Mining on real workers: puzzles per CPU-hour and the speed-up from one to two worker processes.

For each worker concurrency (1, then 2) it creates a PostgreSQL database of its own (on
DAMA_LOAD_POSTGRES_URL's server, dropped after), migrates it, starts one Celery worker on the
``deep`` queue with that many processes (broker: REDIS_URL's server, database 12, emptied first),
starts a mining job of ``--tasks`` seeds of ``--games`` engine games each (``puzzles.mining``, as
staff do on the mining page) and waits until every task has reported. The same seeds both times,
so the work is the same; it prints the wall time, the puzzles found, the job's CPU seconds, the
puzzles per CPU-hour and the speed-up.

    .venv/bin/python tools/mining_speedup.py --variant czech --tasks 4 --games 8

Only 127.0.0.1 is contacted; the worker is stopped and the database dropped before it exits.
"""

from __future__ import annotations

import argparse
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
BROKER_DB = 12


def _fresh_database(base: str, name: str) -> None:
    import psycopg
    from django.db import connections

    connections.close_all()
    with psycopg.connect(base, autocommit=True, connect_timeout=5) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def one_run(variant: str, tasks: int, games: int, concurrency: int) -> dict[str, float]:
    from django.core.cache import cache
    from django.core.management import call_command

    from puzzles.models import MiningJob

    _fresh_database(BASE, NAME)
    call_command("migrate", "--noinput", verbosity=0)
    cache.clear()  # the broker's database too: no task left from an earlier run
    log = (TMP / f"worker-{concurrency}.log").open("w")
    worker = subprocess.Popen(
        [PY, "-m", "celery", "-A", "dama_learn", "worker", "-Q", "deep",
         "--concurrency", str(concurrency), "--prefetch-multiplier", "1",
         "--loglevel", "WARNING", "-n", f"mining-{concurrency}-{os.getpid()}@localhost"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        time.sleep(5)  # the worker's processes start
        t0 = time.perf_counter()
        job = MiningJob.start(variant, tasks=tasks, games=games, first_seed=1)
        while True:
            time.sleep(0.5)
            job.refresh_from_db()
            if job.done_tasks >= tasks:
                break
            if worker.poll() is not None:
                raise RuntimeError((TMP / f"worker-{concurrency}.log").read_text()[-3000:])
        wall = time.perf_counter() - t0
        assert isinstance(job, MiningJob)
        return {
            "processes": concurrency,
            "wall": wall,
            "found": job.found,
            "games": job.games_played,
            "cpu": job.cpu_seconds,
        }
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGTERM)
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(worker.pid, signal.SIGKILL)


BASE = os.environ.get("DAMA_LOAD_POSTGRES_URL", "postgres://postgres@127.0.0.1:5432/postgres")
NAME = f"dama_mining_{os.getpid()}_{secrets.token_hex(3)}"
TMP = Path(tempfile.mkdtemp(prefix="dama-mining-"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--variant", default="czech", choices=("czech", "international", "brazilian")
    )
    parser.add_argument("--tasks", type=int, default=4, help="seeds of the job (tasks)")
    parser.add_argument("--games", type=int, default=8, help="engine games per task")
    args = parser.parse_args()
    redis = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0").rsplit("/", 1)[0]
    os.environ.update(
        {
            "DATABASE_URL": BASE.rsplit("/", 1)[0] + "/" + NAME,
            "REDIS_URL": f"{redis}/{BROKER_DB}",
            "DAMA_VAR_DIR": str(TMP),
            "CELERY_TASK_SOFT_TIME_LIMIT": "3000",
            "DEBUG": "0",
            "DJANGO_SECRET_KEY": "mining-speedup-only-" + "k3" * 30,
            "ALLOWED_HOSTS": "localhost",
            "DJANGO_SETTINGS_MODULE": "dama_learn.settings",
        }
    )
    sys.path.insert(0, str(ROOT))
    _fresh_database(BASE, NAME)
    import django

    django.setup()
    try:
        rows = [one_run(args.variant, args.tasks, args.games, n) for n in (1, 2)]
    finally:
        import psycopg
        from django.db import connections

        connections.close_all()
        with psycopg.connect(BASE, autocommit=True, connect_timeout=5) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{NAME}" WITH (FORCE)')
    for r in rows:
        per_hour = r["found"] / r["cpu"] * 3600 if r["cpu"] else 0.0
        print(
            f"{args.variant}: {r['processes']} worker process(es): {r['found']} puzzles from "
            f"{r['games']} games in {r['wall']:.1f} s wall, {r['cpu']:.1f} CPU s "
            f"({per_hour:,.0f} puzzles per CPU-hour)"
        )
    print(f"speed-up from 1 to 2 processes: {rows[0]['wall'] / rows[1]['wall']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
