"""Learning from one's own games, in Chromium (issue 49): the player's dashboard with the motifs
missed in games, their review card that names the game, and a teacher who follows the class's
motif table to the students' puzzles and copies one into a set; no serious accessibility or CSP
violation on these pages (axe-core, as tests/browser/test_a11y.py)."""

from __future__ import annotations

import contextlib
import json

import pytest

from analysis.models import Moment
from classroom.models import Classroom, PuzzleSet
from tests.browser.test_a11y import log_in, prepare, violations
from tests.web.test_analysis_review import analysis_of, moment, personal

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def page(page):
    prepare(page)
    return page


def committed(execute: bool = True):
    """No transaction to wait for: each statement commits (a transactional test)."""
    return contextlib.nullcontext([])


def test_the_player_and_the_teacher_learn_from_the_players_games(
    page, live_server, student, teacher
):
    classroom = Classroom.objects.create(name="4.B", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    classroom.add_student(student)
    puzzle = personal(student, capture=committed)
    moment(analysis_of(student), 16, Moment.Kind.MISSED, ["sacrifice:1", "capture:2"], puzzle)
    mine = PuzzleSet.objects.create(owner=teacher, title="Z partií", variant="czech")

    log_in(page, live_server, student)
    found = {}
    for path in ("/puzzles/czech/dashboard/", "/review/czech/"):
        bad = violations(page, path)
        if bad:
            found[path] = bad
        if path == "/review/czech/":
            origin = page.get_by_test_id("review-origin")
            assert origin.inner_text() == "From your game against Level 5 on 28 Nov."
            page.get_by_test_id("review-go").click()
            from playwright.sync_api import expect

            expect(page.get_by_test_id("puzzle-origin")).to_be_visible()  # waits for the page
        else:
            row = page.locator('[data-testid="game-motifs-table"] tr[data-motif="sacrifice"]')
            assert row.get_by_test_id("missed").inner_text() == "1"

    page.context.clear_cookies()
    log_in(page, live_server, teacher)
    for path in (f"/teach/classes/{classroom.pk}/progress/",):
        bad = violations(page, path)
        if bad:
            found[path] = bad
    page.locator('[data-testid="class-game-motifs-table"] tr[data-motif="sacrifice"] a').click()
    page.wait_for_url("**/analysis/class/**")
    bad = violations(page)
    if bad:
        found["class puzzles"] = bad
    form = page.locator(f'tr[data-puzzle="{puzzle.pk}"] [data-testid="add-puzzle-form"]')
    form.get_by_role("button", name="Add").click()
    page.get_by_text("The puzzle is in your set “Z partií”").wait_for()
    assert found == {}, json.dumps(found, indent=1)
    copy = mine.ordered_puzzles()[0]
    assert (copy.author, copy.owner, copy.verdict) == (teacher, None, "unique")
