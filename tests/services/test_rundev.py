"""`make run`: ``manage.py rundev`` starts runserver and a real Celery worker together, and any
way of stopping it ends every process it started within ``STOP_SECONDS``: one Ctrl-C (SIGINT to
the terminal's process group), a SIGTERM to the command alone (what ``make`` sends its command
when it is killed), or two SIGTERMs to its process group in quick succession (``kill -- -PGID``
twice, as an impatient user or a supervisor does: the second must not cut the first one's
shutdown short).

The command runs as a subprocess in a process group of its own, on a SQLite database (migrated
once for the module, copied for each test), broker (the SQLite file of `make run`) and var
directory of its own, on a free port; the test waits for the home page, for the worker to show up
in /healthz (its details, asked for with the bearer token DAMA_HEALTHZ_TOKEN) and for every
process (runserver and its autoreloader child, the worker, its pool and its embedded beat), then
stops it and polls until all of them are gone and the port is free.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest

from tests.conftest import ROOT, wait_until

pytestmark = [pytest.mark.services, pytest.mark.slow]

START_SECONDS = 120
#: every process is gone this long after the signals (rundev kills what is left after 5 s)
STOP_SECONDS = 10
MANAGE = str(ROOT / "manage.py")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def process_tree(root: int) -> list[psutil.Process]:
    """``root`` and its descendants (whatever process group they are in), zombies left out."""
    try:
        top = psutil.Process(root)
        return [p for p in [top, *top.children(recursive=True)] if running(p)]
    except psutil.NoSuchProcess:
        return []


def running(process: psutil.Process) -> bool:
    """Whether ``process`` (the very one: psutil checks its start time) still runs."""
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def describe(processes: list[psutil.Process]) -> dict[int, str]:
    out = {}
    for p in processes:
        try:
            out[p.pid] = " ".join(p.cmdline())
        except psutil.Error:
            out[p.pid] = "?"
    return out


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:  # noqa: S310 - loopback
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def port_is_free(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
    except OSError:
        return True
    return False


def site_env(folder: Path, token: str = "") -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("REDIS_URL", "CELERY_BROKER_URL", "DATABASE_URL", "DJANGO_SETTINGS_MODULE")
    }
    env.update(
        DAMA_VAR_DIR=str(folder / "var"),
        DATABASE_URL=f"sqlite:///{folder / 'db.sqlite3'}",
        DEBUG="1",
        PYTHONUNBUFFERED="1",
        DAMA_HEALTHZ_TOKEN=token,
    )
    return env


@pytest.fixture(scope="module")
def migrated(tmp_path_factory) -> Path:
    """A migrated SQLite database, made once for the module (migrating takes longer than the
    rest of a test); each test runs on a copy."""
    folder = tmp_path_factory.mktemp("rundev-template")
    subprocess.run(
        [sys.executable, MANAGE, "migrate", "--noinput", "-v", "0"],
        env=site_env(folder), check=True, cwd=ROOT, timeout=300,
    )  # fmt: skip
    return folder / "db.sqlite3"


@dataclass
class Site:
    process: subprocess.Popen
    port: int
    log: Path
    #: every process rundev started, once they are all up
    started: list[psutil.Process]

    @property
    def pgid(self) -> int:
        return self.process.pid  # the leader of its own process group

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]


#: ``rundev`` run by a script whose output stream, once rundev announces the stop, sends the
#: command a second SIGTERM at its next call of ``signal.signal`` (where a clean-up that changes
#: the signals' handlers begins): the moment a second signal of ``kill -- -PGID`` (or ``make``
#: passing it on) can land, made exact instead of left to the scheduler
SECOND_SIGTERM_AS_THE_CLEAN_UP_BEGINS = """
import os, signal, sys

import django
from django.core.management import call_command


def second_sigterm(frame, event, arg):
    if event == "call" and frame.f_code is signal.signal.__code__:
        sys.setprofile(None)
        os.kill(os.getpid(), signal.SIGTERM)


class Terminal:
    def write(self, text):
        sys.stdout.write(text)
        if "Stopping the site" in text:
            sys.setprofile(second_sigterm)

    def flush(self):
        sys.stdout.flush()


os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dama_learn.settings")
django.setup()
call_command("rundev", *sys.argv[1:], stdout=Terminal())
"""


@pytest.fixture
def start_site(tmp_path, migrated):
    """``start_site(command)`` runs ``command`` (``manage.py rundev`` unless told) in a process
    group of its own and returns once it serves, its worker answers in /healthz and every process
    it starts is up; whatever is left is SIGKILLed after the test."""
    sites: list[Site] = []

    def start(command: list[str] | None = None) -> Site:
        shutil.copy(migrated, tmp_path / "db.sqlite3")
        port = free_port()
        token = secrets.token_urlsafe(32)
        log_path = tmp_path / "rundev.log"
        with open(log_path, "wb") as log:
            process = subprocess.Popen(
                [*(command or [sys.executable, MANAGE, "rundev"]),
                 f"127.0.0.1:{port}", "--concurrency", "1"],
                env=site_env(tmp_path, token), cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group, as a terminal gives `make run`
            )  # fmt: skip
        site = Site(process, port, log_path, [])
        sites.append(site)
        base = f"http://127.0.0.1:{port}"

        def serving() -> dict | None:
            assert process.poll() is None, f"rundev exited early:\n{site.output()}"
            try:
                home, _page = get(base + "/")
                status, body = get(base + "/healthz", {"Authorization": f"Bearer {token}"})
                health = json.loads(body)
            except (OSError, ValueError):
                return None
            return health if home == 200 and status == 200 and health["workers"]["ok"] else None

        def all_up() -> list[psutil.Process]:
            tree = process_tree(process.pid)
            commands = " | ".join(describe(tree).values())
            # rundev, runserver and its reloader child, the worker, its pool process and its beat
            if len(tree) >= 6 and "runserver" in commands and "celery" in commands:
                return tree
            return []

        health = wait_until(
            serving, START_SECONDS, "a site with a worker", every=0.5, details=site.output
        )
        assert any(name.startswith("dev@") for name in health["workers"]["workers"]), health
        site.started = wait_until(
            all_up, 30, "every process of the site", details=lambda: str(describe(all_up()))
        )
        return site

    yield start
    for site in sites:
        for p in process_tree(site.process.pid) + site.started:
            if running(p):
                p.kill()
        if site.process.poll() is None:
            site.process.wait(timeout=10)


def send(site: Site, stop: str) -> None:
    if stop == "ctrl_c":
        os.killpg(site.pgid, signal.SIGINT)  # Ctrl-C: the terminal signals its foreground group
    elif stop == "sigterm":
        os.kill(site.pgid, signal.SIGTERM)  # make killed: it sends SIGTERM to its command only
    else:  # `kill -- -PGID` twice, 50 ms apart: the interval is the scenario, not a wait
        os.killpg(site.pgid, signal.SIGTERM)
        time.sleep(0.05)
        os.killpg(site.pgid, signal.SIGTERM)


def assert_everything_stops(site: Site, stop: str) -> None:
    """Every process the site started is gone within ``STOP_SECONDS``, rundev too, and the port
    is free."""

    def left() -> dict[int, str]:
        return describe([p for p in site.started if running(p)])

    wait_until(
        lambda: not left(),
        STOP_SECONDS,
        f"every process of the site gone after {stop}",
        details=lambda: f"still running: {left()}\n{site.output()}",
    )
    site.process.wait(timeout=5)
    assert port_is_free(site.port)
    assert "Stopping the site and the worker" in site.output()


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to list the processes")
@pytest.mark.parametrize(
    "stop",
    ["ctrl_c", "sigterm", "two_sigterms"],
    ids=[
        "one Ctrl-C in the terminal",
        "SIGTERM to the command alone",
        "two SIGTERMs to the process group 50 ms apart",
    ],
)
def test_rundev_serves_the_site_runs_a_worker_and_stopping_it_ends_every_process_in_seconds(
    start_site, stop
):
    site = start_site()
    send(site, stop)
    assert_everything_stops(site, stop)


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc to list the processes")
def test_a_second_sigterm_as_the_clean_up_begins_does_not_cut_it_short(start_site):
    """The second SIGTERM of ``kill -- -PGID`` (or the one ``make`` passes on to its command)
    arriving just as rundev begins to stop its children: the children still stop, and rundev
    exits without a traceback."""
    site = start_site([sys.executable, "-c", SECOND_SIGTERM_AS_THE_CLEAN_UP_BEGINS])
    os.killpg(site.pgid, signal.SIGTERM)
    assert_everything_stops(site, "a second SIGTERM as the clean-up began")
    assert site.process.returncode == 0, site.output()


def test_stopping_kills_a_child_that_ignores_sigterm_and_its_whole_group_within_the_grace_time():
    """A worker finishing a long proof (warm shutdown waits for it) or a beat process left
    behind does not keep `make run` alive: after the grace time the child's group is killed."""
    from core.management.commands.rundev import stop_children

    stubborn = subprocess.Popen(
        ["sh", "-c", "trap '' TERM; sleep 300 & sleep 300; wait"], process_group=0
    )
    group = wait_until(
        lambda: [] if len(tree := process_tree(stubborn.pid)) < 3 else tree,
        10,
        "the shell and its two sleeps",
    )
    stop_children([stubborn], seconds=1.0)
    assert stubborn.returncode == -signal.SIGKILL  # killed after the grace time, not finished
    wait_until(
        lambda: not any(running(p) for p in group),
        10,
        "every process of the child's group gone",
        details=lambda: str(describe([p for p in group if running(p)])),
    )


def test_make_run_passes_port_to_rundev():
    """`make run PORT=8100` serves on 8100 (a dry run prints the commands it would run)."""
    dry = subprocess.run(
        ["make", "-n", "run", "PORT=8100"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert "manage.py rundev 127.0.0.1:8100" in dry.stdout
    default = subprocess.run(["make", "-n", "run"], cwd=ROOT, capture_output=True, text=True)
    assert "manage.py rundev 127.0.0.1:8000" in default.stdout
