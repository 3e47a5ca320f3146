"""The database restarted under a running site: a PostgreSQL cluster of the test's own (initdb in
a temporary folder, never the shared server), gunicorn on it with persistent connections; after
``pg_ctl restart`` every request succeeds again without restarting the site."""

from __future__ import annotations

import contextlib
import glob
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import service_unavailable, wait_until

from .conftest import free_port

pytestmark = [pytest.mark.services, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]


def pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return Path(found[-1]).parent if found else None


class OwnPostgres:
    def __init__(self) -> None:
        self.bin = pg_bin()
        self.dir = Path(tempfile.mkdtemp(prefix="dama-faults-pg-"))
        self.data = self.dir / "data"
        self.port = free_port()
        shutil.chown(self.dir, "postgres")
        self.dir.chmod(0o700)

    def _as_postgres(self, *args: str, timeout: float = 60) -> None:
        subprocess.run(
            ["runuser", "-u", "postgres", "--", *args],
            check=True, capture_output=True, timeout=timeout,
        )  # fmt: skip

    def init(self) -> None:
        self._as_postgres(
            str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres"
        )

    def pg_ctl(self, action: str) -> None:
        self._as_postgres(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-w", "-m", "fast",
            "-l", str(self.dir / "log"),
            "-o", f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1", action,
        )  # fmt: skip

    def cleanup(self) -> None:
        with contextlib.suppress(Exception):
            self.pg_ctl("stop")
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def own_postgres():
    if pg_bin() is None or not shutil.which("runuser"):
        service_unavailable(
            "PostgreSQL server binaries are not installed (apt-get install postgresql)"
        )
    server = OwnPostgres()
    try:
        server.init()
        server.pg_ctl("start")
        subprocess.run(
            [str(server.bin / "createdb"), "-h", "127.0.0.1", "-p", str(server.port), "-U", "postgres", "dama"],
            check=True, capture_output=True, timeout=30,
        )  # fmt: skip
        yield server
    finally:
        server.cleanup()


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError:
        return 0  # no answer at all


def test_the_site_recovers_after_the_database_restarts(own_postgres, tmp_path):
    port = free_port()
    env = {
        **os.environ,
        "DEBUG": "0",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(60),
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:{own_postgres.port}/dama",
        "DB_CONN_MAX_AGE": "600",  # persistent connections: the hard case
        "DAMA_VAR_DIR": str(tmp_path / "var"),
        "STATIC_ROOT": str(tmp_path / "static"),
        "CELERY_BROKER_URL": f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}",
        "LOG_LEVEL": "WARNING",
    }
    env.pop("REDIS_URL", None)
    for args in (["migrate", "--noinput", "-v0"], ["collectstatic", "--noinput", "-v0"]):
        subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, timeout=300
        )
    log = open(tmp_path / "gunicorn.log", "w")  # noqa: SIM115
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "dama_learn.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "2"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    pages = ["/learn/czech/", "/puzzles/czech/", "/accounts/login/", "/daily/czech/"]
    try:
        wait_until(lambda: get(base + "/accounts/login/") == 200, 60, "gunicorn to answer")
        for _ in range(3):  # every gunicorn worker opens its persistent connection
            assert [get(base + p) for p in pages] == [200] * len(pages)

        own_postgres.pg_ctl("restart")  # every open connection is cut

        statuses = [get(base + p) for _ in range(5) for p in pages]
        assert statuses == [200] * len(statuses), (
            statuses,
            (tmp_path / "gunicorn.log").read_text()[-3000:],
        )
        assert server.poll() is None
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        log.close()
        # its workers too, before the cluster stops under them
        wait_until(lambda: not group_alive(server.pid), 30, "gunicorn's workers gone")
