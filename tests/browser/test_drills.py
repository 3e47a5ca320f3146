"""In Chromium, in English and in Czech: a learner wins an Endgames drill against the endgame
database (typing the database's own best moves), and fails one with a move that lets the result
go, reads the explanation, and starts again."""

from __future__ import annotations

import pytest
from django.urls import reverse

from dama import Board
from dama.endgames import Tables
from lessons.course import get_course
from lessons.models import DrillRun

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIN = {
    "en-US": ("endgames-czech", "cz-eg-men", "cz-eg-breakthrough"),
    "cs-CZ": ("endgames-international", "int-eg-men", "int-eg-breakthrough"),
}
#: a drill and a move that lets its result go
FAIL = {
    "en-US": (("endgames-international", "int-eg-lone-king", "int-eg-three-kings-win"), "24-19"),
    "cs-CZ": (("endgames-czech", "cz-eg-lone-king", "cz-eg-main-road-draw"), "29-15"),
}


def expect():
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect


def best_after(tables: Tables, step, moves: list[str]) -> str:
    board = Board(step.variant, step.fen)
    for text in moves:
        board.push(board.parse_move(text))
    return board.move_text(tables.best_moves(board)[0])


def play(tab, move: str) -> None:
    tab.fill("#answer-input", move)
    tab.click('[data-testid="check"]')


@pytest.mark.parametrize("locale", ["en-US", "cs-CZ"])
def test_a_learner_wins_a_drill(open_tab, endgame_tables, locale):
    where = WIN[locale]
    step = get_course(where[0]).step(where[1], where[2])
    tables = Tables.open(endgame_tables)
    tab = open_tab(locale=locale)
    tab.goto(tab.base_url + reverse("lessons:step", args=list(where)))
    check = expect()
    lang = "cs" if locale.startswith("cs") else "en"
    check(tab.locator("html")).to_have_attribute("lang", lang)
    check(tab.locator(".step-text")).to_contain_text(getattr(step.text, lang)[:30])
    drill = tab.locator('[data-testid="drill"]')
    for _ in range(20):
        if drill.get_attribute("data-status") != "playing":
            break
        ply = int(drill.get_attribute("data-ply"))
        run = DrillRun.objects.first()
        moves = list(run.moves) if run else []
        assert len(moves) == ply
        play(tab, best_after(tables, step, moves))
        check(drill).not_to_have_attribute("data-ply", str(ply))
    check(tab.locator('[data-testid="drill-passed"]').first).to_be_visible()
    check(tab.locator('[data-testid="next-step"]')).to_be_visible()
    assert DrillRun.objects.get().status == DrillRun.Status.PASSED


@pytest.mark.parametrize("locale", ["en-US", "cs-CZ"])
def test_a_learner_fails_a_drill_by_letting_the_result_go_and_starts_again(
    open_tab, endgame_tables, locale
):
    where, move = FAIL[locale]
    tab = open_tab(locale=locale, viewport={"width": 1280, "height": 800})
    tab.goto(tab.base_url + reverse("lessons:step", args=list(where)))
    check = expect()
    play(tab, move)
    failed = tab.locator('#lesson-feedback [data-testid="drill-failed"]')
    check(failed).to_be_visible()
    check(failed).to_contain_text(move)
    run = DrillRun.objects.get()
    assert run.status == DrillRun.Status.FAILED and run.better in failed.inner_text()
    tab.click('[data-testid="retry"]')
    drill = tab.locator('[data-testid="drill"]')
    check(drill).to_have_attribute("data-status", "playing")
    check(drill).to_have_attribute("data-ply", "0")
    check(tab.locator("#answer-input")).to_be_visible()
