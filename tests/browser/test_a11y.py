"""Accessibility: axe-core (vendored in tests/browser/vendor, MPL-2.0) run in Chromium on the main
pages, as a visitor, a student and a teacher: no serious or critical violation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.puzzle_fixtures import make_all

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = next((Path(__file__).parent / "vendor").glob("axe-*.min.js"))
BLOCKING = {"serious", "critical"}


def log_in(page, live_server, user) -> None:
    """Give the browser the session of ``user`` (no log-in form: that page is checked alone)."""
    from django.test import Client

    client = Client()
    client.force_login(user)
    cookie = client.cookies["sessionid"]
    page.context.add_cookies([{"name": "sessionid", "value": cookie.value, "url": live_server.url}])


def violations(page, path: str) -> list[dict]:
    page.goto(page.base_url + path)
    page.wait_for_load_state("networkidle")
    page.add_script_tag(path=str(AXE))
    result = page.evaluate(
        "async () => { const r = await axe.run(document, {resultTypes: ['violations']});"
        " return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,"
        " nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))})); }"
    )
    return [v for v in result if v["impact"] in BLOCKING]


@pytest.fixture
def puzzles(db):
    return make_all()


def first_step_url() -> str:
    from lessons.course import get_course

    step = get_course("czech").steps[0]
    return f"/learn/czech/{step.lesson.slug}/{step.slug}/"


VISITOR_PAGES = [
    "/",
    "/learn/",
    "/learn/czech/",
    "step",
    "puzzle",
    "/daily/czech/",
    "/accounts/login/",
    "/accounts/signup/",
]


def test_visitor_pages_have_no_serious_violations(page, live_server, puzzles):
    found = {}
    for path in VISITOR_PAGES:
        if path == "step":
            path = first_step_url()
        elif path == "puzzle":
            path = f"/puzzles/czech/{puzzles['czech_gain'].pk}/"
        bad = violations(page, path)
        if bad:
            found[path] = bad
    assert found == {}, json.dumps(found, indent=1)


def test_student_pages_have_no_serious_violations(page, live_server, student, puzzles):
    log_in(page, live_server, student)
    found = {}
    for path in [
        "/accounts/profile/",
        "/puzzles/czech/dashboard/",
        "/teach/my/",
        f"/puzzles/international/{puzzles['international_capture'].pk}/",
    ]:
        bad = violations(page, path)
        if bad:
            found[path] = bad
    assert found == {}, json.dumps(found, indent=1)


def test_teacher_pages_have_no_serious_violations(page, live_server, teacher):
    from classroom.models import Classroom, PuzzleSet

    classroom = Classroom.objects.create(name="Club", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Set", variant="czech")
    log_in(page, live_server, teacher)
    found = {}
    for path in [
        "/teach/",
        f"/teach/classes/{classroom.pk}/",
        f"/teach/sets/{puzzle_set.pk}/",
        f"/teach/sets/{puzzle_set.pk}/puzzles/new/",
    ]:
        bad = violations(page, path)
        if bad:
            found[path] = bad
    assert found == {}, json.dumps(found, indent=1)


def test_the_check_finds_a_violation_when_there_is_one(page, live_server):
    page.goto(page.base_url + "/")
    page.evaluate(
        "document.body.insertAdjacentHTML('beforeend', '<img src=\"data:image/gif;base64,R0lGODlhAQABAAAAACw=\">')"
    )
    page.add_script_tag(path=str(AXE))
    ids = page.evaluate("async () => (await axe.run(document)).violations.map(v => v.id)")
    assert "image-alt" in ids
