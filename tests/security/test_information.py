"""What the site tells anyone who asks: no server timings in production (they make timing attacks
easy), and /healthz gives a bare status to visitors, its details only to staff and to the holder of
the bearer token DAMA_HEALTHZ_TOKEN."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys

import pytest
from django.conf import settings as django_settings

from core.models import WorkerHeartbeat

pytestmark = pytest.mark.django_db

TOKEN = secrets.token_urlsafe(32)
DETAILS = {"database", "broker", "workers", "pending_jobs", "reasons"}


@pytest.fixture
def token(settings):
    settings.DAMA_HEALTHZ_TOKEN = TOKEN
    return TOKEN


@pytest.fixture
def healthy(settings, tmp_path):
    """A site whose checks pass: a broker that needs no server and a fresh worker heartbeat."""
    settings.CELERY_BROKER_URL = f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}"
    WorkerHeartbeat.beat("celery@worker-7.internal")


# --- Server-Timing --------------------------------------------------------------------------------


def test_no_server_timing_header_when_the_setting_is_off(client, settings):
    settings.DAMA_SERVER_TIMING = False
    for path in ("/", "/accounts/login/", "/healthz", "/no-such-page/"):
        assert "Server-Timing" not in client.get(path), path


def test_staff_get_no_server_timing_either_when_it_is_off(client, settings, staff):
    settings.DAMA_SERVER_TIMING = False
    client.force_login(staff)
    assert "Server-Timing" not in client.get("/")


def test_the_server_timing_header_is_sent_when_the_setting_is_on(client, settings):
    settings.DAMA_SERVER_TIMING = True
    header = client.get("/")["Server-Timing"]
    assert header.startswith("app;dur=") and float(header.removeprefix("app;dur=")) > 0


# --- /healthz -------------------------------------------------------------------------------------


def test_a_visitor_gets_a_bare_ok_from_a_healthy_site(client, healthy):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert b"worker-7" not in response.content


def test_a_visitor_gets_a_bare_503_without_the_reasons(client, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # unreachable
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json() == {"status": "unavailable"}


def test_a_student_gets_the_bare_status_too(client, healthy, student):
    client.force_login(student)
    assert client.get("/healthz").json() == {"status": "ok"}


def test_staff_get_the_details(client, healthy, staff):
    client.force_login(staff)
    body = client.get("/healthz").json()
    assert set(body) >= DETAILS
    assert body["workers"]["workers"] == ["celery@worker-7.internal"]


def test_the_bearer_token_gets_the_details(client, healthy, token):
    response = client.get("/healthz", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.status_code == 200
    assert response.json()["workers"]["workers"] == ["celery@worker-7.internal"]


def test_the_token_gets_the_reasons_of_a_503(client, settings, token):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"
    response = client.get("/healthz", HTTP_AUTHORIZATION=f"bearer {token}")
    assert response.status_code == 503
    assert any("broker unreachable" in reason for reason in response.json()["reasons"])


@pytest.mark.parametrize(
    "authorization",
    ["Bearer wrong-token-of-a-good-length-0123456789abcdef", f"Basic {TOKEN}", TOKEN, "Bearer "],
    ids=["wrong", "basic", "no-scheme", "empty"],
)
def test_a_wrong_token_gets_the_bare_status(client, healthy, token, authorization):
    response = client.get("/healthz", HTTP_AUTHORIZATION=authorization)
    assert response.json() == {"status": "ok"}


def test_without_a_token_set_an_empty_bearer_gets_nothing_more(client, healthy, settings):
    settings.DAMA_HEALTHZ_TOKEN = ""
    assert client.get("/healthz", HTTP_AUTHORIZATION="Bearer ").json() == {"status": "ok"}


def test_a_token_that_is_not_ascii_is_refused_without_an_error(client, healthy, token):
    response = client.get("/healthz", HTTP_AUTHORIZATION="Bearer žluťoučký-kůň")
    assert response.json() == {"status": "ok"}


# --- under the production settings ----------------------------------------------------------------


def test_under_production_settings_a_visitor_sees_no_timing_and_no_health_details(tmp_path):
    """A fresh interpreter with DEBUG=0 (no DAMA_SERVER_TIMING): the database is unreachable, so
    /healthz is 503, and says so without naming the database or the reason."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DAMA_SERVER_TIMING", "DAMA_HEALTHZ_TOKEN", "REDIS_URL", "CELERY_BROKER_URL")
    }
    env.update(
        DEBUG="0",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(60),
        ALLOWED_HOSTS="dama.example.org",
        DATABASE_URL="postgres://nobody@127.0.0.1:1/nothing",
        DAMA_VAR_DIR=str(tmp_path / "var"),
        DJANGO_SETTINGS_MODULE="dama_learn.settings",
    )
    code = (
        "import django, json; django.setup(); from django.test import Client; "
        "r = Client(HTTP_HOST='dama.example.org').get('/healthz', secure=True); "
        "print(json.dumps([r.status_code, r.json(), dict(r.headers)]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=django_settings.BASE_DIR, env=env,
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    status, body, headers = json.loads(done.stdout.strip().splitlines()[-1])
    assert status == 503
    assert body == {"status": "unavailable"}
    assert "Server-Timing" not in headers
