"""Chromium for the browser tests: the system's, driven by Playwright (no browser download).

The pages that follow over a WebSocket (a game, a simul, a live lesson) are tested against the
site served by uvicorn in this process (the fixture ``server``), each user in a browser context of
their own (``open_as``); ``ASGI_MARKS``, ``WAIT_MS``, ``expect`` and ``type_move`` are theirs.
"""

from __future__ import annotations

import os

import pytest

from tests.conftest import chromium_path, service_unavailable

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]

#: the marks of a test against the site served by uvicorn (``server``)
ASGI_MARKS = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    # the site's static files (WhiteNoise, a WSGI middleware) come through the ASGI server here:
    # Django streams their sync file iterator and says so (docs/production.md: in production
    # gunicorn or the proxy serves them)
    pytest.mark.filterwarnings("ignore:StreamingHttpResponse must consume synchronous iterators"),
]

#: the deadline of every wait for another screen: a push arrives within a second; a machine busy
#: with other tests (make test runs two processes) gets slack, and a wait that is met returns at once
WAIT_MS = 15_000


def expect():
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect


def type_move(tab, move: str) -> None:
    tab.fill("#versus-move", move)
    tab.click('[data-testid="play"]')


@pytest.fixture(scope="module")
def chromium():
    path = chromium_path()
    if path is None:
        service_unavailable(
            "Chromium is not installed (apt-get install chromium, or set DAMA_CHROMIUM)"
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        service_unavailable(f"the playwright package is missing: {exc}")
    # Playwright's sync API keeps an event loop running in this thread while it is open; Django then
    # refuses database calls from it unless told they are safe (they are: the test thread is sync).
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=path, args=CHROMIUM_ARGS, headless=True
            )
            yield browser
            browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def page(chromium, live_server):
    """A fresh English-speaking browser tab; fails the test on any JavaScript error."""
    context = chromium.new_context(locale="en-US", viewport={"width": 390, "height": 844})
    tab = context.new_page()
    errors: list[str] = []
    tab.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))

    def on_console(msg) -> None:
        # a 400 answer to an illegal move and a 409 asking to confirm (handing an exam in) are
        # expected; Chromium logs every 4xx response
        expected = ("status of 400", "status of 409 (Conflict)")
        if msg.type == "error" and not any(text in msg.text for text in expected):
            errors.append(f"console {msg.type}: {msg.text}")

    tab.on("console", on_console)
    tab.set_default_timeout(15_000)
    tab.base_url = live_server.url
    yield tab
    context.close()
    assert errors == [], errors


@pytest.fixture
def open_tab(chromium, live_server):
    """``open_tab(viewport, locale)``: a new tab of that size (a 390x844 phone unless told) and
    language; every tab fails the test on a JavaScript error."""
    contexts = []
    errors: list[str] = []

    def open_(viewport=None, locale="en-US"):
        context = chromium.new_context(
            locale=locale, viewport=viewport or {"width": 390, "height": 844}
        )
        contexts.append(context)
        tab = context.new_page()
        tab.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
        tab.on(
            "console",
            lambda msg: (
                errors.append(msg.text)
                if msg.type == "error" and "status of 4" not in msg.text
                else None
            ),
        )
        tab.set_default_timeout(15_000)
        tab.base_url = live_server.url
        return tab

    yield open_
    for context in contexts:
        context.close()
    assert errors == [], errors


@pytest.fixture
def server():
    """The site served by uvicorn on loopback in this process (HTTP and WebSockets); its URL."""
    from dama_learn.asgi import application
    from tests.load.servers import serve_in_thread

    with serve_in_thread(application) as base:
        yield base


def open_as(chromium, base: str, user, errors: list[str], *, phone: bool = False):
    """A browser context signed in as ``user`` on ``base`` (a laptop, or a phone), and its tab;
    its JavaScript errors and CSP violations go to ``errors``."""
    from django.test import Client

    from tests.browser.test_a11y import prepare

    client = Client()
    client.force_login(user)
    context = chromium.new_context(
        locale="en-US",
        viewport={"width": 390, "height": 844} if phone else {"width": 1280, "height": 900},
    )
    context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": base}]
    )
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    tab.base_url = base
    prepare(tab)  # CSP violations recorded, axe-core served (tests/browser/test_a11y.py)
    name = user.username
    tab.on("pageerror", lambda exc: errors.append(f"{name}: page error: {exc}"))

    def on_console(msg) -> None:
        # a refused move answers 400 (Chromium logs every 4xx response)
        if msg.type == "error" and "status of 400" not in msg.text:
            errors.append(f"{name}: console: {msg.text}")

    tab.on("console", on_console)
    return context, tab
