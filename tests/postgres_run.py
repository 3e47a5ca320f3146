"""Run the web tests a second time, on PostgreSQL (called by `make test`).

The database URL comes from DAMA_TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test);
Django's test runner creates and drops its own ``test_<name>`` database there. When PostgreSQL is
not reachable this run is skipped with a message, unless DAMA_REQUIRE_SERVICES=1: then it fails.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/test"
ROOT = Path(__file__).resolve().parent.parent


def reachable(url: str) -> str | None:
    """None when a connection works, else the reason."""
    import psycopg

    dsn = url.replace("postgres://", "postgresql://", 1)
    try:
        with psycopg.connect(dsn, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except Exception as exc:
        return f"{exc.__class__.__name__}: {str(exc).strip()}"
    return None


def main() -> int:
    url = os.environ.get("DAMA_TEST_POSTGRES_URL", DEFAULT_URL)
    required = os.environ.get("DAMA_REQUIRE_SERVICES") == "1"
    problem = reachable(url)
    if problem is not None:
        if required:
            print(
                f"FAILED: PostgreSQL at {url} is required (DAMA_REQUIRE_SERVICES=1) but not reachable: {problem}"
            )
            return 1
        print(f"SKIPPED the PostgreSQL run of the web tests: {url} is not reachable ({problem}).")
        print("Set DAMA_TEST_POSTGRES_URL to a PostgreSQL server to run them.")
        return 0
    print(f"Web tests on PostgreSQL ({url}):", flush=True)
    # a database name of this run's own, so that runs sharing one server do not collide
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DAMA_TEST_DB_NAME": os.environ.get("DAMA_TEST_DB_NAME", f"test_dama_{os.getpid()}"),
    }
    return subprocess.call(
        [sys.executable, "-m", "pytest", "tests/web", *sys.argv[1:]], cwd=ROOT, env=env
    )


if __name__ == "__main__":
    sys.exit(main())
