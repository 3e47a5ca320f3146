"""In Chromium, with a real Celery worker: the analysis board. A FEN is pasted, the engine's
lines arrive from the worker while the page follows the job, a move is typed and another
clicked, a side line is played from an earlier move, a reload keeps the line, the PDN
downloaded holds the side line and the engine's evaluation, and the engine's best line is played
onto the board.

Needs Redis and a worker (skipped without Redis, a failure when DAMA_REQUIRE_SERVICES=1) and
Chromium.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.browser.test_a11y import log_in
from tests.services import conftest as services

redis_broker = services.redis_broker
start_worker = services.start_worker

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.django_db(transaction=True)]

START = "W:W21-32:B1-12"


def expect():
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect


def test_a_pasted_position_its_engine_lines_a_side_line_and_the_pdn(
    request, page, live_server, student
):
    check = expect()
    broker = request.getfixturevalue("redis_broker")
    request.getfixturevalue("start_worker")(broker, queues="deep")
    log_in(page, live_server, student)

    page.goto(f"{page.base_url}/explore/")
    page.select_option("#id_variant", "czech")
    page.fill("#id_position", START)
    page.click('[data-testid="explore-setup"]')
    check(page.locator("#explore-board")).to_have_attribute(
        "data-fen", "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12"
    )

    # the engine, on the worker: the page follows the job to the lines
    page.click('[data-testid="explore-analyse"]')
    check(page.locator('[data-testid="explore-lines"] li')).to_have_count(3, timeout=60_000)
    check(page.locator('[data-testid="explore-eval"]')).to_have_text(
        re.compile(r"(about equal|better by|slightly better)")  # said in words
    )

    # a typed move, then a clicked one
    page.fill("#explore-move", "22-18")
    page.press("#explore-move", "Enter")
    check(page.locator('[data-testid="explore-node-1"]')).to_have_attribute("aria-current", "step")
    page.locator('#explore-board [data-square="11"]').first.click()
    page.locator('#explore-board [data-square="15"]').first.click()
    check(page.locator('[data-testid="explore-node-2"]')).to_contain_text("11-15")

    # back to 22-18 by its move in the list, and a side line from there
    page.click('[data-testid="explore-node-1"]')
    check(page.locator('[data-testid="explore-node-1"]')).to_have_attribute("aria-current", "step")
    page.fill("#explore-move", "9-13")
    page.press("#explore-move", "Enter")
    side = page.locator(".explore-line li.variation")
    check(side).to_contain_text("9-13")
    check(page.locator('[data-testid="explore-node-3"]')).to_have_attribute("aria-current", "step")
    assert "at=3" in page.url

    page.reload()  # the line is in the address
    check(page.locator(".explore-line li.variation")).to_contain_text("9-13")

    with page.expect_download() as download:
        page.click('[data-testid="explore-pdn"]')
    text = Path(download.value.path()).read_text(encoding="utf-8")
    assert '[GameType "29"]' in text
    moves = " ".join(text.split("\n\n", 1)[1].split())
    assert "(1... 9-13)" in moves and "22-18" in moves
    assert moves.startswith("{")  # the engine's evaluation of the start position

    # back at the start, the kept analysis is shown at once; its best line goes onto the board
    page.click('[data-testid="explore-start"]')
    line = page.locator('[data-testid="explore-play-line"]').first
    check(line).to_be_visible()
    first = page.locator('[data-testid="explore-lines"] li').first.inner_text().split()[1]
    line.click()
    check(page.locator('.explore-line a[aria-current="step"]')).to_contain_text(first)
