"""`make run`: ``manage.py rundev`` starts runserver and a real Celery worker together, and one
Ctrl-C (SIGINT to the terminal's process group) stops both.

The command runs as a subprocess on a database, broker (the SQLite file of `make run`) and var
directory of its own, on a free port; the test waits for the home page and for the worker to show
up in /healthz (its details, asked for with the bearer token DAMA_HEALTHZ_TOKEN), then interrupts the whole process group and checks that every process of it (the
command, runserver and its autoreloader child, the worker and its pool) is gone.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = [pytest.mark.services, pytest.mark.slow]

START_SECONDS = 120
STOP_SECONDS = 30


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def group_members(pgid: int) -> set[int]:
    """The live (not zombie) processes of process group ``pgid``."""
    members = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses
        fields = stat.rsplit(")", 1)[1].split()
        state, pgrp = fields[0], int(fields[2])
        if pgrp == pgid and state not in ("Z", "X"):
            members.add(int(entry.name))
    return members


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:  # noqa: S310 - loopback
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to list the processes")
def test_rundev_serves_the_site_runs_a_worker_and_one_ctrl_c_stops_both(tmp_path):
    port = free_port()
    token = secrets.token_urlsafe(32)
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("REDIS_URL", "CELERY_BROKER_URL", "DATABASE_URL", "DJANGO_SETTINGS_MODULE")
    }
    env.update(
        DAMA_VAR_DIR=str(tmp_path / "var"),
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        DEBUG="1",
        PYTHONUNBUFFERED="1",
        DAMA_HEALTHZ_TOKEN=token,
    )
    manage = str(ROOT / "manage.py")
    subprocess.run(
        [sys.executable, manage, "migrate", "--noinput", "-v", "0"],
        env=env,
        check=True,
        cwd=ROOT,
        timeout=180,
    )
    log = open(tmp_path / "rundev.log", "w+b")  # noqa: SIM115 - read back in the messages
    process = subprocess.Popen(
        [sys.executable, manage, "rundev", f"127.0.0.1:{port}", "--concurrency", "1"],
        env=env,
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group, as a terminal gives `make run`
    )
    pgid = process.pid

    def output() -> str:
        log.flush()
        return (tmp_path / "rundev.log").read_text(errors="replace")[-4000:]

    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + START_SECONDS
        health: dict = {}
        home = 0
        while time.monotonic() < deadline:
            assert process.poll() is None, f"rundev exited early:\n{output()}"
            try:
                home, _page = get(base + "/")
                status, body = get(base + "/healthz", {"Authorization": f"Bearer {token}"})
                health = json.loads(body)
                if home == 200 and status == 200 and health["workers"]["ok"]:
                    break
            except (OSError, ValueError):
                pass
            time.sleep(0.5)
        else:
            pytest.fail(f"no site with a worker after {START_SECONDS} s: {health}\n{output()}")
        assert any(name.startswith("dev@") for name in health["workers"]["workers"]), health
        members = group_members(pgid)
        assert pgid in members and len(members) >= 3, members  # rundev, runserver, worker

        os.killpg(pgid, signal.SIGINT)  # Ctrl-C in the terminal
        process.wait(timeout=STOP_SECONDS)
        deadline = time.monotonic() + STOP_SECONDS
        while group_members(pgid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert group_members(pgid) == set(), f"still running after Ctrl-C:\n{output()}"
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
        assert "Stopping the site and the worker" in output()
    finally:
        if group_members(pgid):
            os.killpg(pgid, signal.SIGKILL)
        if process.poll() is None:
            process.wait(timeout=10)
        log.close()
