"""Details of the pages found trying the site as a new user (issue 15), in Chromium on a desktop
and on a 390x844 phone: the rating chart on the Czech profile, the class progress table, the
profile's language field, the teacher's proof panel, the comparison course's variant pills and
the PDN import errors in Czech."""

from __future__ import annotations

import re

import pytest

from tests.browser.test_a11y import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
SIZES = pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])


def expect():
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect


def horizontal_overflow(tab) -> int:
    """How many pixels the page is wider than the window (0: nothing cut off or scrolled)."""
    return tab.evaluate("document.documentElement.scrollWidth - window.innerWidth")


# -- the rating chart --------------------------------------------------------------------------------


@SIZES
def test_the_rating_charts_last_point_sits_on_the_end_of_the_line_on_the_czech_profile(
    open_tab, live_server, student, viewport
):
    from datetime import timedelta

    from django.utils import timezone

    from puzzles.models import PlayerRating, RatingHistory

    PlayerRating.objects.create(user=student, variant="czech", rating=1532.5, games=3)
    now = timezone.now()
    for i, rating in enumerate([1500.0, 1521.3, 1509.8, 1532.5]):
        RatingHistory.objects.create(
            user=student, variant="czech", rating=rating, deviation=120.5 - i, at=now + timedelta(i)
        )
    tab = open_tab(viewport, "cs-CZ")
    log_in(tab, live_server, student)
    tab.goto(f"{live_server.url}/accounts/profile/")
    chart = tab.locator('[data-variant="czech"] svg.rating-chart')
    expect()(chart).to_be_visible()
    circle = chart.locator("circle")
    assert "," not in circle.get_attribute("cx") + circle.get_attribute("cy")
    end = tab.evaluate(
        """() => {
        const svg = document.querySelector('[data-variant="czech"] svg.rating-chart');
        const line = svg.querySelector('polyline').points;
        const last = line.getItem(line.numberOfItems - 1);
        const dot = svg.querySelector('circle');
        return [last.x, last.y, dot.cx.baseVal.value, dot.cy.baseVal.value];
    }"""
    )
    assert end[0] == pytest.approx(end[2]) and end[1] == pytest.approx(end[3]), end
    assert end[2] > 300  # the last point is at the right end, not at the corner (0, 0)


# -- the class progress table ------------------------------------------------------------------------


@SIZES
def test_the_class_progress_table_scrolls_inside_its_box_and_shows_its_last_column(
    open_tab, live_server, teacher, student, viewport
):
    from classroom.models import Assignment, Classroom, PuzzleSet
    from puzzles.models import Puzzle

    classroom = Classroom.objects.create(name="Draughts club", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    classroom.add_student(student)
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Many captures", variant="czech")
    for n in range(24):  # far more columns than a phone or a desktop shows at once
        puzzle = Puzzle.objects.create(
            variant="czech", fen=f"W:W{n + 9}:B{n + 5 if n + 5 != n + 9 else 1}", goal="win"
        )
        puzzle_set.add(puzzle)
    Puzzle.objects.update(verdict="unique")
    Assignment.objects.create(puzzle_set=puzzle_set, classroom=classroom, assigned_by=teacher)

    tab = open_tab(viewport)
    log_in(tab, live_server, teacher)
    tab.goto(f"{live_server.url}/teach/classes/{classroom.pk}/progress/")
    table = tab.locator('[data-testid="progress-table"]')
    expect()(table).to_be_visible()
    assert horizontal_overflow(tab) <= 0
    box = tab.evaluate(
        """() => { const t = document.querySelector('[data-testid="progress-table"]');
        const s = t.parentElement; const r = s.getBoundingClientRect();
        return {right: r.right, scroll: s.scrollWidth, client: s.clientWidth,
                overflow: getComputedStyle(s).overflowX}; }"""
    )
    assert box["right"] <= viewport["width"], box
    assert box["scroll"] > box["client"] and box["overflow"] == "auto", box
    scroll = tab.locator('[data-testid="progress-scroll"]')
    expect()(scroll).to_have_attribute("tabindex", "0")  # a keyboard can scroll it too
    expect()(scroll).to_have_accessible_name("Progress of Draughts club")
    scroll.evaluate("box => { box.scrollLeft = box.scrollWidth; }")
    last = table.locator("tbody tr").first.locator("td").last
    expect()(last).to_have_text(re.compile(r"0 / 24"))
    right = last.bounding_box()
    assert right["x"] + right["width"] <= viewport["width"] + 1, right
    name = table.locator("tbody tr").first.locator("th")  # the names stay in place
    expect()(name).to_have_text("standa")
    left = name.bounding_box()
    assert abs(left["x"] - scroll.bounding_box()["x"]) < 2, left
    hit = tab.evaluate(
        "([x, y]) => document.elementFromPoint(x, y).closest('th')?.textContent.trim()",
        [left["x"] + 10, left["y"] + left["height"] / 2],
    )
    assert hit == "standa"  # drawn above the scrolled cells, not under them


# -- the profile's language field ---------------------------------------------------------------


def test_the_profile_language_field_names_its_empty_choice(open_tab, live_server, student):
    tab = open_tab(DESKTOP)
    log_in(tab, live_server, student)
    tab.goto(f"{live_server.url}/accounts/profile/")
    options = tab.locator("#id_profile-language option").all_inner_texts()
    assert options == ["As the browser asks", "Czech", "English"]
    assert "---------" not in tab.locator("main").inner_text()


# -- the teacher's proof panel and the editor's notes after a live verdict ------------------------

#: two first moves capture: the proof finds the puzzle cooked
COOKED = {"variant": "czech", "fen": "W:W22,24:B18,19", "goal": "capture"}
#: one capture, 22x15x8: proven unique
UNIQUE = {"variant": "czech", "fen": "W:W22:B18,11", "goal": "capture"}


def pending_puzzle(teacher, fields, monkeypatch):
    """The teacher's set with a puzzle that waits for its proof (nothing is sent to a worker)."""
    from classroom.models import PuzzleSet
    from puzzles.models import Puzzle

    puzzle = Puzzle(**fields, author=teacher)
    puzzle.full_clean(validate_constraints=False)
    puzzle.save()
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Captures", variant="czech")
    puzzle_set.add(puzzle)
    return puzzle_set, puzzle


@SIZES
def test_a_live_cooked_verdict_brings_the_second_solution_button_and_plain_words(
    open_tab, live_server, teacher, monkeypatch, viewport
):
    from puzzles import verification

    puzzle_set, puzzle = pending_puzzle(teacher, COOKED, monkeypatch)
    tab = open_tab(viewport)
    log_in(tab, live_server, teacher)
    tab.goto(f"{live_server.url}/teach/sets/{puzzle_set.pk}/puzzles/{puzzle.pk}/")
    check = expect()
    check(tab.locator("#proof-status")).to_have_attribute("data-verdict", "pending")
    check(tab.locator('[data-testid="show-cook"]')).to_have_count(0)

    verification.run(puzzle.pk, puzzle.revision)  # as a worker would, while the page waits
    puzzle.refresh_from_db()
    assert puzzle.verdict == "cooked"
    check(tab.locator("#proof-status")).to_have_attribute("data-verdict", "cooked")
    check(tab.locator('[data-testid="show-cook"]').first).to_be_visible()  # no reload
    check(tab.locator('[data-testid="not-assignable"]')).to_be_visible()
    tab.locator('[data-testid="show-cook"]').first.click()
    check(tab.locator("#solution-editor")).to_contain_text("second solution")

    panel = tab.locator("#proof-status").inner_text()
    assert "The engine may look at up to" in panel
    for raw in ("max_depth", "nodes ", "seconds ", puzzle.engine_version, "Worker"):
        assert raw not in panel, raw
    if puzzle.worker:
        assert puzzle.worker not in panel
    check(tab.locator('[data-testid="proof-technical"]')).to_have_count(0)  # for staff only


def test_a_live_unique_verdict_takes_away_the_not_assignable_note(
    open_tab, live_server, teacher, monkeypatch
):
    from puzzles import verification

    puzzle_set, puzzle = pending_puzzle(teacher, UNIQUE, monkeypatch)
    tab = open_tab(DESKTOP)
    log_in(tab, live_server, teacher)
    tab.goto(f"{live_server.url}/teach/sets/{puzzle_set.pk}/puzzles/{puzzle.pk}/")
    check = expect()
    check(tab.locator('[data-testid="not-assignable"]')).to_be_visible()
    verification.run(puzzle.pk, puzzle.revision)
    check(tab.locator("#proof-status")).to_have_attribute("data-verdict", "unique")
    check(tab.locator('[data-testid="not-assignable"]')).to_have_count(0)
    check(tab.locator('[data-testid="proof-notes"]')).to_have_attribute("data-verdict", "unique")


# -- the comparison course -----------------------------------------------------------------------


@SIZES
def test_the_comparison_course_marks_no_single_variant_and_every_variant_link_works(
    open_tab, live_server, viewport
):
    tab = open_tab(viewport)
    tab.goto(f"{live_server.url}/learn/czech/")  # the visitor has chosen Czech draughts
    tab.goto(f"{live_server.url}/learn/comparison/")
    switcher = tab.locator(".variant-switcher a")
    assert switcher.count() == 3
    expect()(tab.locator(".variant-switcher a[aria-current]")).to_have_count(0)
    expect()(tab.locator(".variant-switcher a.active")).to_have_count(0)
    pill = tab.locator('[data-testid="settings-menu"]')
    if pill.count():  # the compact header's summary of the variant and language
        expect()(pill).to_contain_text("All variants")
    for href in switcher.evaluate_all("links => links.map(a => a.href)"):
        assert tab.request.get(href).status == 200, href
    tab.goto(f"{live_server.url}/learn/czech/")  # a variant's own course is marked again
    expect()(tab.locator('.variant-switcher a[aria-current][data-variant="czech"]')).to_have_count(
        1
    )


# -- PDN import errors on the Czech site -----------------------------------------------------------

BROKEN_PDN = """[FEN "W:W21:B10"]
1. 21-17 30-25 *

[GameType "30"]
1. 22-18 *

[FEN "W:W21:B10"]
1. 21-17 ( ) *

1. foo *
"""


def test_pdn_import_errors_are_in_czech_on_the_czech_site(open_tab, live_server, teacher, tmp_path):
    from classroom.models import PuzzleSet

    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Import", variant="czech")
    upload = tmp_path / "broken.pdn"
    upload.write_text(BROKEN_PDN)
    tab = open_tab(DESKTOP, "cs-CZ")
    log_in(tab, live_server, teacher)
    tab.goto(f"{live_server.url}/teach/sets/{puzzle_set.pk}/import/")
    tab.set_input_files("#id_file", str(upload))
    tab.locator("main form button[type=submit]").click()
    errors = tab.locator('[data-testid="import-errors"] li')
    expect()(errors).to_have_count(4)
    texts = errors.all_inner_texts()
    assert "nelze zahrát" in texts[0] and "30" in texts[0]
    assert "GameType 30" in texts[1] and "se tu nehraje" in texts[1]
    assert "prázdná varianta" in texts[2]
    assert "„foo“ není tah" in texts[3]
    english = ("is not", "not playable", "empty variation", "must", "line ")
    for text in texts:
        assert not any(word in text for word in english), text


# -- one form of address in Czech ------------------------------------------------------------------

CZECH_PAGES = [
    "/",
    "/learn/czech/",
    "/learn/czech/czech-board/cz-board-main-diagonal/",
    "/learn/comparison/",
    "/puzzles/czech/",
    "/daily/czech/",
    "/accounts/login/",
    "/accounts/signup/",
    "/accounts/password/reset/",
]
#: and as a teacher who has a class
TEACHER_PAGES = ["/teach/", "/teach/my/", "/accounts/profile/", "/accounts/password/change/"]


@SIZES
def test_czech_pages_speak_to_the_reader_with_ty_only(open_tab, live_server, teacher, viewport):
    from classroom.models import Classroom
    from tests.web.test_czech_text import NOT_VY, PLACEHOLDER, VY_PRONOUNS, WORD

    classroom = Classroom.objects.create(name="Kroužek", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    tab = open_tab(viewport, "cs-CZ")
    seen = ""
    for n, path in enumerate(CZECH_PAGES + TEACHER_PAGES + [f"/teach/classes/{classroom.pk}/"]):
        if n == len(CZECH_PAGES):
            log_in(tab, live_server, teacher)
        tab.goto(f"{live_server.url}{path}")
        expect()(tab.locator("html")).to_have_attribute("lang", "cs")
        text = tab.locator("body").inner_text()
        words = {w.lower() for w in WORD.findall(PLACEHOLDER.sub(" ", text))}
        vy = {w for w in words if w in VY_PRONOUNS or (w.endswith("te") and len(w) > 3)}
        assert vy - NOT_VY == set(), (path, vy)
        seen += text
    assert "Nauč se" in seen  # the pages do address the reader: as "ty"
