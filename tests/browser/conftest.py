"""Chromium for the browser tests: the system's, driven by Playwright (no browser download)."""

from __future__ import annotations

import os

import pytest

from tests.conftest import chromium_path, service_unavailable

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


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
        # a 400 answer to an illegal move is expected; Chromium logs every 4xx response
        if msg.type == "error" and "status of 400" not in msg.text:
            errors.append(f"console {msg.type}: {msg.text}")

    tab.on("console", on_console)
    tab.set_default_timeout(15_000)
    tab.base_url = live_server.url
    yield tab
    context.close()
    assert errors == [], errors
