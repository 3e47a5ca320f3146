"""Where the board, its status line and the header end on the pages with a board, as a new user
sees them (issue 47): docs/benchmarks/layout.md.

    make run                                                  # the demo site on :8000
    .venv/bin/python tests/browser/measure_layout.py http://127.0.0.1:8000

Logs in as the demo student (core/demo.py), starts a practice exam (level 1) and a game (Czech,
level 1), then in Czech and English at 1280x800, 1366x768 and 390x844 prints for the trainer of
each variant, the daily puzzle, the exam, the game and the first Czech lesson step: the board's
box (left, top, right, bottom, CSS pixels, the page not scrolled), the bottom of its status line,
and the header's height; then the header's height for a visitor.
"""

from __future__ import annotations

import sys

from playwright.sync_api import sync_playwright

SIZES = [(1280, 800), (1366, 768), (390, 844)]
CHROMIUM = "/usr/bin/chromium"


def log_in(tab, base: str) -> None:
    tab.goto(base + "/accounts/login/")
    tab.fill("input[name=username]", "student")
    tab.fill("input[name=password]", "learn-draughts")
    tab.locator("main form button[type=submit]").click()
    tab.wait_for_load_state()


def set_language(tab, base: str, code: str) -> None:
    """Through the header's language form, as a visitor would."""
    tab.goto(base + "/")
    if tab.evaluate("document.documentElement.lang") == code:
        return
    with tab.expect_navigation():
        tab.evaluate(
            """code => { const form = document.querySelector('form[action="/language"]');
              form.requestSubmit(form.querySelector('[name=language][value="' + code + '"]')); }""",
            code,
        )
    assert tab.evaluate("document.documentElement.lang") == code


def edges(tab, selector: str) -> tuple[int, int, int, int] | None:
    found = tab.locator(selector).first
    if not found.count():
        return None
    box = found.bounding_box()
    if box is None:
        return None
    return (
        round(box["x"]),
        round(box["y"]),
        round(box["x"] + box["width"]),
        round(box["y"] + box["height"]),
    )


def main(base: str) -> None:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
        tab = context.new_page()
        log_in(tab, base)
        tab.goto(base + "/play/czech/?level=1")
        tab.locator('[data-testid="start"]').click()
        tab.wait_for_load_state()
        game = tab.url.removeprefix(base)
        tab.goto(base + "/exams/czech/")
        running = tab.locator('[data-testid="resume-exam"]')
        if running.count():
            running.first.click()
        else:
            tab.locator('[data-testid="start-practice-1"]').click()
        tab.wait_for_load_state()
        exam = tab.url.removeprefix(base)
        state = context.storage_state()
        context.close()
        pages = [
            ("trainer czech", "/puzzles/czech/"),
            ("trainer international", "/puzzles/international/"),
            ("trainer brazilian", "/puzzles/brazilian/"),
            ("daily", "/daily/czech/"),
            ("exam", exam),
            ("play", game),
            ("lesson", "/learn/czech/czech-board/cz-board-main-diagonal/"),
        ]
        print("language size page: board (left, top, right, bottom) status-bottom header-height")
        for language in ("cs", "en"):
            for width, height in SIZES:
                context = browser.new_context(
                    viewport={"width": width, "height": height}, storage_state=state
                )
                tab = context.new_page()
                set_language(tab, base, language)
                for name, path in pages:
                    tab.goto(base + path)
                    tab.wait_for_load_state("networkidle")
                    board = edges(tab, ".board-widget .board-svg")
                    status = edges(tab, ".board-widget .board-status")
                    header = edges(tab, ".site-header")
                    print(
                        language,
                        f"{width}x{height}",
                        name,
                        board,
                        status and status[3],
                        header and header[3] - header[1],
                        flush=True,
                    )
                context.close()
        for language in ("cs", "en"):
            for width, height in SIZES:
                context = browser.new_context(viewport={"width": width, "height": height})
                tab = context.new_page()
                set_language(tab, base, language)
                header = edges(tab, ".site-header")
                print("visitor", language, f"{width}x{height}", header and header[3] - header[1])
                context.close()
        browser.close()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000")
