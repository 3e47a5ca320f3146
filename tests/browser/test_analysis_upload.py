"""In Chromium, a PDN upload of three games (analysis/views.py): one good Czech game, one with
an illegal move, one malformed. The upload's page names the bad games with the move and the
reason, and follows the good game's analysis without a reload (its htmx poll of
``analysis:states``) from waiting its turn, through a worker's progress, to done; then the report
opens. The analysis is run from the test's thread, as tests/web/test_analysis.py runs it without a
worker, while the page is open. axe and the site's CSP find nothing on the way."""

from __future__ import annotations

import pytest

from tests.browser.test_a11y import csp_violations, prepare, run_axe
from tests.browser.test_layout import LAPTOP, log_in
from tests.web.test_analysis import ILLEGAL, MALFORMED, good_game

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def expect():
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect


def test_an_upload_names_its_bad_games_and_follows_the_good_ones_analysis_to_its_report(
    open_tab, live_server, student
):
    from analysis.models import GameAnalysis
    from analysis.tasks import analyse_game

    tab = open_tab(LAPTOP)
    prepare(tab)
    log_in(tab, live_server.url, student)
    tab.goto(live_server.url + "/analysis/")
    tab.get_by_role("link", name="Upload games (PDN)").click()
    text = "\n".join([good_game(), ILLEGAL, MALFORMED])
    tab.set_input_files(
        "input[type=file]",
        files=[{"name": "club.pdn", "mimeType": "text/plain", "buffer": text.encode()}],
    )
    tab.get_by_label("Variant of the games").select_option("czech")
    tab.get_by_label("Your name in the games").fill("Eva")
    tab.get_by_role("button", name="Upload").click()

    expect()(tab.locator("h1")).to_have_text("club.pdn")
    errors = tab.get_by_test_id("error")
    expect()(errors).to_have_count(2)
    expect()(tab.locator('[data-game="2"]')).to_contain_text("Game 2: 3. 21-16 is not a legal move")
    expect()(tab.locator('[data-game="3"]')).to_contain_text("Game 3 cannot be read (line")
    state = tab.locator('[data-game="1"]').get_by_test_id("state")
    expect()(state).to_have_text("waiting its turn")
    expect()(tab.get_by_test_id("analysis-follow")).to_contain_text("1 analysis is still to finish")
    tab.wait_for_load_state("networkidle")
    assert csp_violations(tab) == []
    assert run_axe(tab) == []
    tab.evaluate("window.__samePage = true")  # gone if the page reloads

    row = GameAnalysis.objects.get(upload__user=student, upload_index=1)
    running = GameAnalysis.claim(row.pk)  # a worker takes it and reports its progress
    assert running is not None
    running.write_progress(40)
    expect()(state).to_have_attribute("data-state", "running")
    expect()(state).to_contain_text("being analysed: 40 %")
    expect()(state.locator("progress")).to_have_attribute("value", "40")

    assert analyse_game(row.pk) == "done"
    expect()(state).to_have_attribute("data-state", "done")
    expect()(state).to_have_text("analysed")
    expect()(tab.get_by_test_id("analysis-follow")).to_have_text(
        "Every analysis on this page has finished."
    )
    assert tab.evaluate("window.__samePage") is True
    assert tab.get_by_test_id("follow-poll").count() == 0  # the polling has stopped
    assert csp_violations(tab) == []
    assert run_axe(tab) == []

    tab.get_by_role("link", name="Eva – Jan").click()
    expect()(tab.get_by_test_id("eval-chart")).to_be_visible()
    expect()(tab.get_by_test_id("moments")).to_contain_text("22-17")
    assert csp_violations(tab) == []


def test_the_list_of_analyses_is_clean_under_axe_and_the_csp_while_it_follows_them(
    open_tab, live_server, student
):
    from analysis.models import GameAnalysis
    from tests.web.test_analysis_report import make_analysis

    make_analysis(student, state=GameAnalysis.State.RUNNING, progress=30)
    for language in ("en-US", "cs-CZ"):
        tab = open_tab(LAPTOP, language)
        prepare(tab)
        log_in(tab, live_server.url, student)
        tab.goto(live_server.url + "/analysis/")
        expect()(tab.get_by_test_id("follow-poll")).to_be_attached()
        expect()(tab.get_by_test_id("state").locator("progress")).to_have_attribute("value", "30")
        tab.wait_for_load_state("networkidle")
        assert csp_violations(tab) == []
        assert run_axe(tab) == []
