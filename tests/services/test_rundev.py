"""`make run`: ``manage.py rundev`` starts runserver and a real Celery worker together, and one
Ctrl-C (SIGINT to the terminal's process group) or a SIGTERM to the command alone (what ``make``
sends when it is killed) stops both within a few seconds.

The command runs as a subprocess on a database, broker (the SQLite file of `make run`) and var
directory of its own, on a free port; the test waits for the home page and for the worker to show
up in /healthz (its details, asked for with the bearer token DAMA_HEALTHZ_TOKEN), then stops it and
checks that every process it started (runserver and its autoreloader child, the worker, its pool
and its embedded beat) is gone within ``STOP_SECONDS``.
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
#: every process is gone this long after Ctrl-C or SIGTERM (rundev kills what is left after 5 s)
STOP_SECONDS = 8


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def process_tree(root: int) -> dict[int, str]:
    """``root`` and its live descendants (whatever process group they are in): pid -> command."""
    parents: dict[int, int] = {}
    commands: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] not in ("Z", "X"):
            parents[int(entry.name)] = int(fields[1])
            commands[int(entry.name)] = command.strip()
    tree = {root} if root in parents else set()
    grew = True
    while grew:
        found = {pid for pid, parent in parents.items() if parent in tree} - tree
        grew = bool(found)
        tree |= found
    return {pid: commands[pid] for pid in tree}


def alive(pids) -> set[int]:
    """Those of ``pids`` still running (not zombies)."""
    left = set()
    for pid in pids:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in ("Z", "X"):
            left.add(pid)
    return left


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:  # noqa: S310 - loopback
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to list the processes")
@pytest.mark.parametrize(
    "stop",
    ["ctrl_c", "sigterm"],
    ids=["one Ctrl-C in the terminal", "SIGTERM to the command alone"],
)
def test_rundev_serves_the_site_runs_a_worker_and_stopping_it_ends_every_process_in_seconds(
    tmp_path, stop
):
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
    started: dict[int, str] = {}

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
        time.sleep(2)  # the embedded beat has started its process
        started = process_tree(pgid)
        commands = " | ".join(started.values())
        # rundev, runserver and its reloader child, the worker, its pool process and its beat
        assert len(started) >= 6 and "runserver" in commands and "celery" in commands, started

        stopped_at = time.monotonic()
        if stop == "ctrl_c":
            os.killpg(pgid, signal.SIGINT)  # Ctrl-C: the terminal signals its foreground group
        else:
            os.kill(pgid, signal.SIGTERM)  # make killed: it sends SIGTERM to its command only
        while alive(started) and time.monotonic() < stopped_at + STOP_SECONDS:
            time.sleep(0.2)
        left = {pid: started[pid] for pid in alive(started)}
        assert left == {}, f"still running {STOP_SECONDS} s after {stop}: {left}\n{output()}"
        process.wait(timeout=5)
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
        assert "Stopping the site and the worker" in output()
    finally:
        for pid in alive(process_tree(pgid)) | alive(started):
            os.kill(pid, signal.SIGKILL)
        if process.poll() is None:
            process.wait(timeout=10)
        log.close()


def test_stopping_kills_a_child_that_ignores_sigterm_and_its_whole_group_within_the_grace_time():
    """A worker finishing a long proof (warm shutdown waits for it) or a beat process left
    behind does not keep `make run` alive: after the grace time the child's group is killed."""
    from core.management.commands.rundev import stop_children

    stubborn = subprocess.Popen(
        ["sh", "-c", "trap '' TERM; sleep 300 & sleep 300; wait"], process_group=0
    )
    time.sleep(0.5)
    group = process_tree(stubborn.pid)
    assert len(group) >= 2, group  # the shell and its background sleep
    began = time.monotonic()
    stop_children([stubborn], seconds=1.0)
    assert time.monotonic() - began < 3
    time.sleep(0.2)
    assert alive(group) == set()


def test_make_run_passes_port_to_rundev():
    """`make run PORT=8100` serves on 8100 (a dry run prints the commands it would run)."""
    dry = subprocess.run(
        ["make", "-n", "run", "PORT=8100"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert "manage.py rundev 127.0.0.1:8100" in dry.stdout
    default = subprocess.run(["make", "-n", "run"], cwd=ROOT, capture_output=True, text=True)
    assert "manage.py rundev 127.0.0.1:8000" in default.stdout
