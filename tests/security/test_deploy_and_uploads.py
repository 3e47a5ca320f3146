"""Production settings: `check --deploy` clean, session and CSRF cookies secure and HTTP-only where
they should be; uploaded files are read, never stored, served or executed."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys

import pytest
from django.apps import apps
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import models

from tests.conftest import PASSWORD

PRODUCTION = {
    "DEBUG": "0",
    "DJANGO_SECRET_KEY": secrets.token_urlsafe(60),
    "ALLOWED_HOSTS": "dama.example.org",
    "CSRF_TRUSTED_ORIGINS": "https://dama.example.org",
    "REDIS_URL": "redis://redis.internal:6379/0",  # a shared cache (check --deploy requires one)
}


def production(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, **PRODUCTION}
    return subprocess.run(
        [sys.executable, "manage.py", *code.split()] if not code.startswith("import") else [sys.executable, "-c", code],
        cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_check_deploy_is_clean_with_production_settings():
    done = production("check --deploy --fail-level DEBUG")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no issues" in done.stdout


def test_cookies_are_secure_in_production():
    done = production(
        "import django, json, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'dama_learn.settings'; "
        "django.setup(); from django.conf import settings as s; print(json.dumps({k: getattr(s, k) for k in "
        "['SESSION_COOKIE_SECURE', 'CSRF_COOKIE_SECURE', 'SESSION_COOKIE_HTTPONLY', 'SECURE_SSL_REDIRECT', "
        "'SECURE_HSTS_SECONDS', 'SECURE_CONTENT_TYPE_NOSNIFF', 'X_FRAME_OPTIONS', 'SESSION_COOKIE_SAMESITE', "
        "'CSRF_COOKIE_SAMESITE']}))"
    )
    assert done.returncode == 0, done.stderr
    values = json.loads(done.stdout.strip().splitlines()[-1])
    assert values["SESSION_COOKIE_SECURE"] and values["CSRF_COOKIE_SECURE"]
    assert values["SESSION_COOKIE_HTTPONLY"] and values["SECURE_SSL_REDIRECT"]
    assert values["SECURE_HSTS_SECONDS"] >= 31536000 and values["SECURE_CONTENT_TYPE_NOSNIFF"]
    assert values["X_FRAME_OPTIONS"] == "DENY"
    assert values["SESSION_COOKIE_SAMESITE"] == "Lax" and values["CSRF_COOKIE_SAMESITE"] == "Lax"


@pytest.mark.django_db
def test_the_session_cookie_of_a_login_carries_the_secure_flag(client, student, settings):
    settings.SESSION_COOKIE_SECURE = True  # what production sets (checked above)
    response = client.post(
        "/accounts/login/", {"username": "standa", "password": PASSWORD}, secure=True
    )
    cookie = response.cookies["sessionid"]
    assert cookie["secure"] and cookie["httponly"] and cookie["samesite"] == "Lax"


def test_no_model_stores_an_uploaded_file():
    fields = [
        f"{m._meta.label}.{f.name}"
        for m in apps.get_models()
        for f in m._meta.get_fields()
        if isinstance(f, models.FileField)
    ]
    assert fields == []
    assert not settings.MEDIA_URL or settings.MEDIA_URL == "/"  # nothing configured to serve media


@pytest.mark.django_db
def test_an_uploaded_file_is_parsed_never_kept_served_or_executed(
    client, teacher, tmp_path, settings
):
    from classroom.models import PuzzleSet

    settings.FILE_UPLOAD_TEMP_DIR = str(tmp_path)
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 10  # force a temporary file on disk
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Set", variant="czech")
    client.force_login(teacher)
    marker = tmp_path / "executed"
    payload = (
        f'<script>alert(1)</script>\n[Event "<img src=x onerror=alert(1)>"]\n'
        f"{{% load x %}}{{{{ 7|add:7 }}}}\nimport os; open({str(marker)!r}, 'w')\n"
    ).encode()
    before = {p.name for p in settings.BASE_DIR.iterdir()}
    response = client.post(
        f"/teach/sets/{puzzle_set.pk}/import/",
        {"file": SimpleUploadedFile("evil.py.html", payload, "text/html"), "goal": "capture"},
    )
    assert response.status_code in (200, 400)
    html = response.content.decode()
    assert "<script>alert(1)</script>" not in html and "<img src=x" not in html
    assert not marker.exists()
    assert list(tmp_path.iterdir()) == []  # the temporary upload is gone
    assert {p.name for p in settings.BASE_DIR.iterdir()} == before
    for url in (
        "/media/evil.py.html",
        "/evil.py.html",
        "/static/evil.py.html",
        "/uploads/evil.py.html",
    ):
        assert client.get(url).status_code == 404, url


@pytest.mark.django_db
def test_a_position_quoted_in_an_editor_error_is_escaped(client, teacher):
    from classroom.models import PuzzleSet

    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Set", variant="czech")
    client.force_login(teacher)
    fen = "W:W<img src=x onerror=alert(1)>:B1"
    for url, data in (
        ("editor/solve/", {"fen": fen, "goal": "capture"}),
        ("editor/line/", {"fen": fen, "move": "22-18"}),
    ):
        response = client.post(f"/teach/sets/{puzzle_set.pk}/{url}", data, HTTP_HX_REQUEST="true")
        assert response.status_code == 400
        assert b"<img" not in response.content and b"&lt;img" in response.content, url
