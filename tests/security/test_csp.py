"""The Content-Security-Policy (django-csp, dama_learn/settings.py): every response carries it, and
no template holds what it would block (inline scripts and event handlers, style attributes, eval
through htmx). tests/browser/test_a11y.py loads every main page in Chromium and fails on any
violation the browser reports."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from .urlconf import site_routes

pytestmark = pytest.mark.django_db

POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "connect-src": "'self'",  # htmx and the live lessons' WebSocket (ws:// and wss:// to the site)
    "object-src": "'none'",
    "base-uri": "'self'",
    "frame-ancestors": "'none'",
    "form-action": "'self'",
}


def policy_of(response) -> dict[str, str]:
    header = response.get("Content-Security-Policy")
    assert header, (response.status_code, response.get("Content-Type"))
    return dict(part.strip().split(" ", 1) for part in header.split(";") if part.strip())


@pytest.mark.parametrize("role", ["anonymous", "staff"])
def test_every_address_of_the_site_answers_with_the_policy(client, staff, role):
    """Whatever the answer (a page, a redirect, 404, 405 to a GET of a form's address, JSON)."""
    if role == "staff":
        client.force_login(staff)
    statuses = set()
    for route in site_routes(admin=True):
        response = client.get(route.url)
        statuses.add(response.status_code)
        assert policy_of(response) == POLICY, route.url
    assert {200, 302, 404} <= statuses


def test_static_files_carry_the_policy_too(client):
    response = client.get(f"{settings.STATIC_URL}js/print.js")
    response.close()  # WhiteNoise streams the file
    assert response.status_code == 200
    assert policy_of(response) == POLICY


def test_the_csrf_failure_page_carries_the_policy():
    response = Client(enforce_csrf_checks=True).post("/language", {"language": "cs"})
    assert response.status_code == 403
    assert policy_of(response) == POLICY


def test_the_server_error_page_carries_the_policy_and_needs_no_inline_style(client, monkeypatch):
    from core import health

    def broken():
        raise RuntimeError("a bug")

    monkeypatch.setattr(health, "report", broken)
    client.raise_request_exception = False
    response = client.get("/healthz")
    assert response.status_code == 500
    assert policy_of(response) == POLICY
    assert "style=" not in response.content.decode()


def test_htmx_is_configured_without_eval_or_injected_styles(client):
    html = client.get("/").content.decode()
    config = re.search(r"<meta name=\"htmx-config\" content='([^']*)'>", html).group(1)
    assert '"allowEval":false' in config  # hx-on, js: values and event filters would need eval
    assert '"includeIndicatorStyles":false' in config  # htmx would add a <style> element
    assert '"allowScriptTags":false' in config


TEMPLATE_DIRS = [settings.BASE_DIR / "templates"] + sorted(settings.BASE_DIR.glob("*/templates"))
TEMPLATES = sorted(p for d in TEMPLATE_DIRS for p in d.rglob("*.html"))
#: what the policy would block, or what would need eval
FORBIDDEN = {
    "an inline script": re.compile(
        r"<script\b(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", re.I
    ),
    "an inline event handler": re.compile(r"<[a-z][^>]*\son[a-z]+\s*=", re.I),
    "a style attribute": re.compile(r"<[a-z][^>]*\sstyle\s*=", re.I),
    "a <style> element": re.compile(r"<style\b", re.I),
    "a javascript: URL": re.compile(r"javascript:", re.I),
    "hx-on (eval)": re.compile(r"\b(?:data-)?hx-on\b", re.I),
    "hx-vars (eval)": re.compile(r"\b(?:data-)?hx-vars\b", re.I),
    "a js: value (eval)": re.compile(r"hx-(?:vals|headers)\s*=\s*['\"]\s*js:", re.I),
    "an event filter (eval)": re.compile(r"hx-trigger\s*=\s*['\"][^'\"]*\[", re.I),
}


def test_the_site_has_templates_to_check():
    names = {p.relative_to(settings.BASE_DIR).as_posix() for p in TEMPLATES}
    assert {"templates/base.html", "classroom/templates/classroom/cards.html"} <= names


@pytest.mark.parametrize(
    "path", TEMPLATES, ids=lambda p: p.relative_to(settings.BASE_DIR).as_posix()
)
def test_no_template_holds_what_the_policy_blocks(path: Path):
    text = path.read_text()
    found = {what: pattern.findall(text)[:3] for what, pattern in FORBIDDEN.items()}
    assert {what: hits for what, hits in found.items() if hits} == {}


def test_the_check_of_templates_finds_what_it_looks_for():
    samples = {
        "an inline script": "<script>alert(1)</script>",
        "an inline event handler": '<button type="button" onclick="window.print()">',
        "a style attribute": '<body style="margin: 0">',
        "hx-on (eval)": '<div hx-on:click="x()">',
        "an event filter (eval)": '<form hx-trigger="keyup[ctrlKey]">',
    }
    for what, sample in samples.items():
        assert FORBIDDEN[what].search(sample), what
    assert not FORBIDDEN["an inline script"].search('<script src="/static/js/print.js" defer>')
