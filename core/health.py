"""What /healthz reports: the database, the broker, the workers and the pending jobs.

Anyone learns whether the site is up (``{"status": "ok"}`` or ``"unavailable"``); the details name
the database, the broker's transport, the workers' host names and the errors, which help an
attacker map the site, so only staff and callers with the bearer token ``DAMA_HEALTHZ_TOKEN``
(monitoring) get them: see :func:`may_see_details`.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.db import connection
from django.http import HttpRequest
from kombu import Connection

from . import board
from .models import Job, WorkerHeartbeat

TIMEOUT = 2.0


def check_database() -> dict[str, Any]:
    try:
        WorkerHeartbeat.objects.exists()  # one small query through the ORM
    except Exception as exc:
        return {"ok": False, "error": f"database unreachable: {exc.__class__.__name__}: {exc}"}
    return {"ok": True, "vendor": connection.vendor}


def _transport(url: str) -> str:
    return url.split("://", 1)[0]


def check_broker() -> dict[str, Any]:
    url = settings.CELERY_BROKER_URL
    try:
        with Connection(url, connect_timeout=TIMEOUT) as conn:
            conn.ensure_connection(max_retries=1, timeout=TIMEOUT)
            supports_ping = "fanout" in conn.transport.implements.exchange_type
    except Exception as exc:
        return {
            "ok": False,
            "transport": _transport(url),
            "error": f"broker unreachable: {exc.__class__.__name__}: {exc}",
        }
    return {"ok": True, "transport": _transport(url), "supports_ping": supports_ping}


def check_workers(broker: dict[str, Any]) -> dict[str, Any]:
    """Celery ping where the broker can broadcast (Redis), else the workers' database heartbeats."""
    names: list[str] = []
    method = "heartbeat"
    if broker.get("ok") and broker.get("supports_ping"):
        from dama_learn.celery import app

        method = "ping"
        try:
            replies = app.control.ping(timeout=1.0) or []
        except Exception as exc:
            return {
                "ok": False,
                "method": method,
                "error": f"worker ping failed: {exc.__class__.__name__}: {exc}",
            }
        names = sorted(name for reply in replies for name in reply)
    else:
        names = WorkerHeartbeat.alive()
    if not names:
        return {"ok": False, "method": method, "workers": [], "error": "no worker answered"}
    return {"ok": True, "method": method, "workers": names}


def may_see_details(request: HttpRequest) -> bool:
    """Staff, or a caller sending ``Authorization: Bearer <DAMA_HEALTHZ_TOKEN>`` (when one is set;
    compared in constant time)."""
    token = settings.DAMA_HEALTHZ_TOKEN
    if token:
        scheme, _, given = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() == "bearer" and secrets.compare_digest(
            given.strip().encode(), token.encode()
        ):
            return True
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_active and user.is_staff)


def report() -> tuple[bool, dict[str, Any]]:
    database = check_database()
    broker = check_broker()
    workers = (
        check_workers(broker)
        if database["ok"]
        else {"ok": False, "error": "not checked: no database"}
    )
    pending: int | None = Job.objects.pending().count() if database["ok"] else None
    ok = database["ok"] and broker["ok"] and workers["ok"]
    reasons = [part["error"] for part in (database, broker, workers) if not part["ok"]]
    body = {
        "status": "ok" if ok else "unavailable",
        "reasons": reasons,
        "database": database,
        "broker": broker,
        "workers": workers,
        "pending_jobs": pending,
        # which engine this install runs: compiled with mypyc or pure Python (dama._loader)
        "engine": board.engine_build(),
    }
    return ok, body
