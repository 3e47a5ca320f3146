"""The site served on loopback, for the load scripts and the tests that drive a real server:
uvicorn (or daphne) in a thread of this process (the tests: the server then uses the test
database), or uvicorn as a process of its own (the scripts' runs: tests/load/live_load.py,
tests/load/versus_load.py).
"""

from __future__ import annotations

import contextlib
import gc
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import warnings
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve_in_thread(application, port: int | None = None):
    """uvicorn serving ``application`` on loopback in a thread of this process (the tests: the
    server then uses the test database); yields the base URL."""
    import uvicorn

    port = port or free_port()
    config = uvicorn.Config(
        application,
        host="127.0.0.1",
        port=port,
        ws="websockets-sansio",
        lifespan="off",
        log_level="warning",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@contextlib.contextmanager
def serve_daphne_in_thread(application, port: int | None = None):
    """daphne (the server of ``manage.py runserver``) serving ``application`` on loopback in a
    thread of this process; yields the base URL. Twisted's reactor runs once per process: one
    test of a run may use this."""
    from daphne.server import Server
    from twisted.internet import reactor

    port = port or free_port()
    started = threading.Event()
    server = Server(
        application,
        endpoints=[f"tcp:port={port}:interface=127.0.0.1"],
        signal_handlers=False,
        verbosity=0,
        ready_callable=started.set,
    )
    thread = threading.Thread(target=server.run, name="daphne", daemon=True)
    thread.start()
    if not started.wait(20):
        raise RuntimeError("daphne did not start")
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while True:  # the reactor is running once the port answers
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError("daphne did not answer") from None
            time.sleep(0.05)
    try:
        yield base
    finally:
        reactor.callFromThread(reactor.stop)
        thread.join(timeout=10)
        # daphne leaves a request body's spooled file in a reference cycle, unclosed: collected
        # here, its ResourceWarning is daphne's, not the next test's (an unraisable error there)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ResourceWarning)
            gc.collect()


def script_env(workdir: Path, database: str, **settings: str) -> dict[str, str]:
    """The environment of a script's run: this process's, with the site's settings for serving on
    loopback (its files in ``workdir``, and ``settings``), the SQLite database ``database`` in
    ``workdir`` unless DATABASE_URL says otherwise, and with REDIS_URL the channel layer on Redis
    (database 11 unless DAMA_CHANNELS_REDIS_URL says otherwise)."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "dama_learn.settings",
        "DAMA_VAR_DIR": str(workdir),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "DAMA_SERVER_TIMING": "0",
        **settings,
    }
    env.setdefault("DATABASE_URL", f"sqlite:///{workdir / database}")
    if env.get("REDIS_URL") and not env.get("DAMA_CHANNELS_REDIS_URL"):
        parts = urllib.parse.urlparse(env["REDIS_URL"])
        env["DAMA_CHANNELS_REDIS_URL"] = urllib.parse.urlunparse(parts._replace(path="/11"))
    return env


def uvicorn_command(port: int) -> list[str]:
    """The command line of uvicorn serving the site on ``port``."""
    return [
        sys.executable, "-m", "uvicorn", "dama_learn.asgi:application",
        "--host", "127.0.0.1", "--port", str(port), "--ws", "websockets-sansio",
        "--lifespan", "off", "--log-level", "warning",
    ]  # fmt: skip


@contextlib.contextmanager
def serve_in_process(
    env: dict[str, str],
    command: list[str] | None = None,
    *,
    port: int | None = None,
    stop_seconds: float = 10,
) -> Iterator[tuple[str, subprocess.Popen]]:
    """The site served by a separate process: ``command`` (uvicorn on a free port unless told;
    a command of one's own names its ``port``), run in the project's folder with ``env``;
    yields (base URL, process) once it answers, and stops it after (killed when it takes
    longer than ``stop_seconds``)."""
    port = port or free_port()
    process = subprocess.Popen(command or uvicorn_command(port), cwd=ROOT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"uvicorn exited with {process.returncode}")
            try:
                urllib.request.urlopen(base + "/healthz", timeout=2).read()
                break
            except urllib.error.HTTPError:
                break  # it answers (503 without a worker is fine here)
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("uvicorn did not answer within 60 s") from None
                time.sleep(0.2)
        yield base, process
    finally:
        process.terminate()
        try:
            process.wait(timeout=stop_seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
