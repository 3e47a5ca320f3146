"""Run the development site and a real Celery worker together; one Ctrl-C stops both.

    python manage.py rundev [addrport]     # default 127.0.0.1:8000

``runserver`` is daphne's (``daphne`` comes first in INSTALLED_APPS): it serves the site and the
live lessons' WebSockets (``dama_learn/asgi.py``) in one process, with the in-memory channel layer
unless REDIS_URL is set, and reloads on code changes as Django's does.

The worker consumes every queue (exam, default, deep, verify, play, analysis: ``QUEUES``) with the broker
from settings (a SQLite file unless REDIS_URL or CELERY_BROKER_URL is set) and runs the periodic
jobs (embedded beat). The queues are declared before either process starts (``declare_queues``).
When either process exits, the other is stopped too.

Stopping: Ctrl-C, SIGTERM (what ``make`` sends its command when it is killed, as a supervisor
does) or SIGHUP (the terminal closed), once or several times, all stop everything within a few
seconds. Each child runs in a process group of its own, so this command alone decides how it
stops: the site and the worker are asked to stop (SIGTERM: the worker's warm shutdown, which also
ends its embedded beat), and whatever is still running after ``STOP_SECONDS`` (a proof the worker
is finishing, the beat's process, the autoreloader's child) is killed with its whole group.
Killing a task is safe: tasks are acknowledged late, so the broker delivers it again when a
worker starts.

The signal handler only notes the signal; the main loop sees the note and stops the children in
plain code. A handler that raised an exception instead would raise it wherever the next signal
found the command, the clean-up included: ``kill -- -PGID`` reaches ``make`` and this command,
``make`` passes a SIGTERM on to its command, so two or more arrive within microseconds, and one
that landed as the clean-up began left the site and the worker running.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand

from core.demo import DEMO_ACCOUNTS
from dama_learn.celery import QUEUES, declare_queues

#: seconds the site and the worker have to stop after the request before their groups are killed
STOP_SECONDS = 5.0


#: the signals that stop the command (Ctrl-C, a supervisor or ``make``, the terminal closed)
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
#: how often the command looks whether a child exited or a stop signal came
POLL_SECONDS = 0.2


def stop_children(children: list[subprocess.Popen], seconds: float = STOP_SECONDS) -> None:
    """Ask each child (the leader of its own process group) to stop, wait up to ``seconds``, then
    kill every process left in their groups."""
    for child in children:
        if child.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                child.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + seconds
    for child in children:
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
    for child in children:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.pid, signal.SIGKILL)  # stragglers: the beat, pool or reloader child
        if child.poll() is None:
            child.wait()


class Command(BaseCommand):
    help = (
        "Start runserver (daphne's: HTTP and the live lessons' WebSockets) and a Celery worker "
        "in the foreground (Ctrl-C stops both)."
    )

    def add_arguments(self, parser):
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--concurrency", type=int, default=2)

    def handle(self, *args, addrport: str, concurrency: int, **options):
        broker = settings.CELERY_BROKER_URL.split("://", 1)[0]
        database = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
        self.stdout.write(
            self.style.SUCCESS(
                f"dama_learn on http://{addrport}/  (database: {database}, broker: {broker})"
            )
        )
        self.stdout.write("Demo accounts (user name / password):")
        for username, password, role in DEMO_ACCOUNTS:
            self.stdout.write(f"  {username:<8} / {password:<16} ({role})")
        self.stdout.write("Press Ctrl-C to stop the site and the worker.\n")
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        signals: list[int] = []  # the stop signals received, noted by the handler

        def note(signum: int, frame: object) -> None:
            signals.append(signum)

        # Ctrl-C too: a process started with SIGINT ignored (a background job of a script) gets
        # no KeyboardInterrupt from Python
        previous = {signum: signal.signal(signum, note) for signum in STOP_SIGNALS}
        worker = [
            sys.executable, "-m", "celery", "-A", "dama_learn", "worker",
            "-Q", ",".join(QUEUES), "--loglevel", "INFO",
            "--concurrency", str(concurrency), "-n", "dev@%h",
            "--beat", "--schedule", str(settings.VAR_DIR / "celerybeat-schedule"),
        ]  # fmt: skip
        server = [sys.executable, str(settings.BASE_DIR / "manage.py"), "runserver", addrport]
        children: list[subprocess.Popen] = []
        try:
            declare_queues()
            for command in (worker, server):
                if not signals:  # its own group: a Ctrl-C reaches this command only
                    children.append(subprocess.Popen(command, env=env, process_group=0))
            while not signals and all(child.poll() is None for child in children):
                time.sleep(POLL_SECONDS)
            if signals:
                self.stdout.write("\nStopping the site and the worker ...")
        finally:
            stop_children(children)
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        for label, child in zip(("worker", "site"), children, strict=False):
            if child.returncode not in (0, 1, -signal.SIGTERM, -signal.SIGINT, -signal.SIGKILL):
                self.stderr.write(f"the {label} exited with code {child.returncode}")
