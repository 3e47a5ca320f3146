"""Run the development site and a real Celery worker together; one Ctrl-C stops both.

    python manage.py rundev [addrport]     # default 127.0.0.1:8000

The worker consumes every queue (default, deep, verify) with the broker from settings (a SQLite
file unless REDIS_URL or CELERY_BROKER_URL is set) and runs the periodic jobs (embedded beat).
When either process exits, the other is stopped too.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from django.conf import settings
from django.core.management.base import BaseCommand

from core.demo import DEMO_ACCOUNTS


class Command(BaseCommand):
    help = "Start runserver and a Celery worker in the foreground (Ctrl-C stops both)."

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
        worker = subprocess.Popen(
            [
                sys.executable, "-m", "celery", "-A", "dama_learn", "worker",
                "-Q", "default,deep,verify", "--loglevel", "INFO", "--concurrency", str(concurrency),
                "-n", "dev@%h", "--beat", "--schedule", str(settings.VAR_DIR / "celerybeat-schedule"),
            ],
            env=env,
        )  # fmt: skip
        server = subprocess.Popen(
            [sys.executable, str(settings.BASE_DIR / "manage.py"), "runserver", addrport], env=env
        )
        children = [server, worker]
        try:
            while all(child.poll() is None for child in children):
                time.sleep(0.5)
        except KeyboardInterrupt:
            self.stdout.write("\nStopping the site and the worker ...")
        finally:
            for child in children:
                if child.poll() is None:
                    child.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + 15
            for child in children:
                try:
                    child.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    child.kill()
        for label, child in (("site", server), ("worker", worker)):
            if child.returncode not in (0, 1, -signal.SIGTERM, -signal.SIGINT):
                self.stderr.write(f"the {label} exited with code {child.returncode}")
