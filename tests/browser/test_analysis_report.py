"""In Chromium, the report of an analysed game (analysis/views_report.py): stepping through the
positions with the keyboard (Left, Right, Home, End), a click on the chart showing that position,
the board beside the chart on a laptop and one column on a phone, and the page clean under axe
and the site's CSP. The analysis is built by hand (tests/web/test_analysis_report.py)."""

from __future__ import annotations

import pytest

from tests.browser.test_a11y import csp_violations, prepare, run_axe
from tests.browser.test_layout import LAPTOP, PHONE, box, log_in
from tests.web.test_analysis_report import MOVES, make_analysis

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def expect():
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect


@pytest.fixture
def report_url(student):
    return make_analysis(student).get_absolute_url()


def shown(tab):
    return tab.locator("#report-view")


def test_the_keyboard_steps_through_the_positions(open_tab, live_server, student, report_url):
    tab = open_tab(LAPTOP)
    prepare(tab)
    log_in(tab, live_server.url, student)
    tab.goto(live_server.url + report_url + "?ply=2")
    expect()(shown(tab)).to_have_attribute("data-ply", "2")
    tab.locator("h1").click()  # the focus on the page, not in a field
    tab.keyboard.press("ArrowRight")
    expect()(shown(tab)).to_have_attribute("data-ply", "3")
    assert tab.url.endswith("?ply=3")
    expect()(tab.locator("#position-heading")).to_have_text("2. 27-24")
    tab.keyboard.press("ArrowLeft")
    tab.keyboard.press("ArrowLeft")
    expect()(shown(tab)).to_have_attribute("data-ply", "1")
    tab.keyboard.press("Home")
    expect()(shown(tab)).to_have_attribute("data-ply", "0")
    tab.keyboard.press("End")
    expect()(shown(tab)).to_have_attribute("data-ply", str(len(MOVES)))
    # a move of the list, chosen by keyboard, keeps the focus on the move shown
    tab.locator('.move-pairs a[data-ply="2"]').focus()
    tab.keyboard.press("Enter")
    expect()(shown(tab)).to_have_attribute("data-ply", "2")
    expect()(tab.locator('.move-pairs a[data-ply="2"]')).to_be_focused()
    assert csp_violations(tab) == []


def test_a_click_on_the_chart_shows_that_position(open_tab, live_server, student, report_url):
    tab = open_tab(LAPTOP)
    prepare(tab)
    log_in(tab, live_server.url, student)
    tab.goto(live_server.url + report_url)
    point = tab.locator('[data-chart] a[data-point][data-ply="3"] rect')
    found = point.bounding_box()
    assert found is not None
    tab.mouse.click(found["x"] + found["width"] / 2, found["y"] + found["height"] / 2)
    expect()(shown(tab)).to_have_attribute("data-ply", "3")
    assert tab.url.endswith("?ply=3")
    expect()(tab.locator(".chart-current")).to_have_attribute("data-current", "3")
    expect()(tab.get_by_test_id("position-played")).to_contain_text("2… 2-7")


def test_the_board_is_beside_the_chart_on_a_laptop_and_above_it_on_a_phone(
    open_tab, live_server, student, report_url
):
    for viewport, beside in ((LAPTOP, True), (PHONE, False)):
        tab = open_tab(viewport)
        log_in(tab, live_server.url, student)
        tab.goto(live_server.url + report_url)
        board, chart = box(tab, "#report-board-svg"), box(tab, "[data-chart]")
        if beside:
            assert chart["x"] >= board["x"] + board["width"] - 1
        else:
            assert chart["y"] >= board["y"] + board["height"] - 1
            assert chart["x"] + chart["width"] <= viewport["width"] + 0.5
        assert tab.evaluate("document.documentElement.scrollWidth") <= viewport["width"]


def test_the_report_is_clean_under_axe_and_the_csp(open_tab, live_server, student, report_url):
    for language in ("en-US", "cs-CZ"):
        tab = open_tab(LAPTOP, language)
        prepare(tab)
        log_in(tab, live_server.url, student)
        tab.goto(live_server.url + report_url + "?ply=3")
        tab.wait_for_load_state("networkidle")
        assert csp_violations(tab) == []
        assert run_axe(tab) == []
        # the list in words shows itself when the keyboard is in it
        tab.locator('.eval-list a[data-ply="3"]').focus()
        listed = tab.locator(".eval-list").bounding_box()
        assert listed is not None and listed["width"] > 100


def test_the_report_fills_in_when_the_analysis_is_done(open_tab, live_server, student):
    from analysis.models import GameAnalysis
    from tests.web.test_analysis_report import EVALUATIONS, MARKS

    row = make_analysis(student, state=GameAnalysis.State.RUNNING, progress=30)
    tab = open_tab(PHONE)
    prepare(tab)
    log_in(tab, live_server.url, student)
    tab.goto(live_server.url + row.get_absolute_url())
    expect()(tab.get_by_test_id("analysis-progress")).to_contain_text("30 % done")
    assert tab.get_by_test_id("eval-chart").count() == 0
    GameAnalysis.objects.filter(pk=row.pk).update(
        state=GameAnalysis.State.DONE, progress=100, evaluations=EVALUATIONS, marks=MARKS
    )
    expect()(tab.get_by_test_id("eval-chart")).to_be_visible()
    assert tab.get_by_test_id("analysis-progress").count() == 0
    assert csp_violations(tab) == []
