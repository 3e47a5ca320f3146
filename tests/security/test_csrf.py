"""CSRF protection on every state-changing request: a POST without a token to any address of the
URLconf (admin included) is refused with 403, the htmx header token is accepted, and every form
that posts carries the token."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from .urlconf import site_routes

pytestmark = pytest.mark.django_db

ROUTES = site_routes(admin=True)


def test_the_urlconf_walk_finds_the_sites_addresses():
    names = {r.name for r in ROUTES}
    assert {"home", "login", "lessons:step", "puzzles:attempt_move", "admin:index"} <= names
    assert len(ROUTES) > 60


@pytest.mark.parametrize("route", ROUTES, ids=[r.route or "/" for r in ROUTES])
@pytest.mark.parametrize("role", ["anonymous", "staff"])
def test_post_without_a_csrf_token_is_refused(route, role, staff):
    client = Client(enforce_csrf_checks=True)
    if role == "staff":
        client.force_login(staff)
    response = client.post(route.url, {"fen": "W:W22:B9", "move": "22-18", "username": "x"})
    assert response.status_code == 403, (route.url, response.status_code)
    assert b"CSRF" in response.content


def test_the_htmx_header_token_is_accepted(staff):
    client = Client(enforce_csrf_checks=True)
    client.force_login(staff)
    page = client.get("/")
    token = re.search(r'"X-CSRFToken": "([^"]+)"', page.content.decode()).group(1)
    response = client.post(
        "/board/czech/move",
        {"fen": "W:W21-32:B1-12", "move": "22-18"},
        HTTP_X_CSRFTOKEN=token,
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200


def _templates() -> list[Path]:
    roots = [Path(settings.BASE_DIR) / "templates"] + [
        Path(settings.BASE_DIR) / app / "templates"
        for app in ("core", "accounts", "lessons", "puzzles", "classroom")
    ]
    return sorted(p for root in roots if root.exists() for p in root.rglob("*.html"))


def test_every_form_that_posts_carries_the_csrf_token():
    form = re.compile(r"<form\b[^>]*method=[\"']post[\"'][^>]*>(.*?)</form>", re.S | re.I)
    missing = []
    for path in _templates():
        for body in form.findall(path.read_text()):
            if "csrf_token" not in body:
                missing.append(str(path.relative_to(settings.BASE_DIR)))
    assert missing == []
