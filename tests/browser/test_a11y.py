"""Accessibility and the Content-Security-Policy: axe-core (vendored in tests/browser/vendor,
MPL-2.0) run in Chromium on the main pages, as a visitor, a student and a teacher: no serious or
critical violation, and no page makes the browser report a CSP violation (a ``securitypolicyviolation``
event: an inline script or event handler, a style attribute, eval, anything from elsewhere)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.puzzle_fixtures import make_all

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = next((Path(__file__).parent / "vendor").glob("axe-*.min.js"))
#: axe is served to the page from the site's own origin (a route of the browser), as the policy
#: runs no inline script (Playwright's add_script_tag(path=...) inserts one)
AXE_URL = "/__tests__/axe.min.js"
BLOCKING = {"serious", "critical"}
#: runs before the page's own scripts: records every CSP violation the browser reports
WATCH_CSP = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__cspViolations.push(
  `${e.effectiveDirective} refused ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber}) ${e.sample}`
));
window.__printed = 0;
window.print = () => { window.__printed += 1; };
"""


def prepare(tab) -> None:
    """Watch for CSP violations, serve axe-core at AXE_URL, count window.print() calls instead of
    opening the print dialogue."""
    tab.add_init_script(WATCH_CSP)
    tab.route(
        "**" + AXE_URL, lambda route: route.fulfill(path=str(AXE), content_type="text/javascript")
    )


@pytest.fixture
def page(page):
    """The browser tab of tests/browser/conftest.py (which also fails a test on any console error,
    so on a CSP violation in every browser test), prepared."""
    prepare(page)
    return page


def log_in(page, live_server, user) -> None:
    """Give the browser the session of ``user`` (no log-in form: that page is checked alone)."""
    from django.test import Client

    client = Client()
    client.force_login(user)
    cookie = client.cookies["sessionid"]
    page.context.add_cookies([{"name": "sessionid", "value": cookie.value, "url": live_server.url}])


def csp_violations(page) -> list[str]:
    return page.evaluate("window.__cspViolations")


def run_axe(page) -> list[dict]:
    page.add_script_tag(url=page.base_url + AXE_URL)
    result = page.evaluate(
        "async () => { const r = await axe.run(document, {resultTypes: ['violations']});"
        " return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,"
        " nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))})); }"
    )
    return [v for v in result if v["impact"] in BLOCKING]


def violations(page, path: str | None = None) -> list[dict | str]:
    """The serious accessibility violations and the CSP violations of the page at ``path`` (or
    of the page the tab shows)."""
    if path is not None:
        page.goto(page.base_url + path)
    page.wait_for_load_state("networkidle")
    found: list[dict | str] = [f"CSP: {v}" for v in csp_violations(page)]  # before axe is added
    return found + run_axe(page)


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
    "/learn/czech/czech-king/test-out/",
    "puzzle",
    "/daily/czech/",
    "/runs/czech/",
    "/accounts/login/",
    "/accounts/signup/",
    "/explore/",
]


def test_visitor_pages_have_no_serious_or_csp_violations(page, live_server, puzzles):
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


def test_student_pages_have_no_serious_or_csp_violations(page, live_server, student, puzzles):
    log_in(page, live_server, student)
    found = {}
    for path in [
        "/accounts/profile/",
        "/accounts/profile/name/",
        "/exams/czech/",  # with the form of the name certificates print
        "/puzzles/czech/dashboard/",
        "/teach/my/",
        f"/puzzles/international/{puzzles['international_capture'].pk}/",
        # the analysis board with a side line (the engine's button: the account's)
        "/explore/?variant=czech&fen=W:W21-32:B1-12&tree=0:22-18+1:11-15+1:9-13&at=3",
    ]:
        bad = violations(page, path)
        if bad:
            found[path] = bad
    assert found == {}, json.dumps(found, indent=1)


def test_teacher_pages_have_no_serious_or_csp_violations(page, live_server, teacher):
    from classroom.models import Classroom, PuzzleSet

    classroom = Classroom.objects.create(name="Club", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Set", variant="czech")
    log_in(page, live_server, teacher)
    found = {}
    for path in [
        "/teach/",
        "/teach/classes/",
        "/teach/sets/",
        f"/teach/classes/{classroom.pk}/",
        f"/teach/sets/{puzzle_set.pk}/",
        f"/teach/sets/{puzzle_set.pk}/puzzles/new/",
        f"/teach/sets/{puzzle_set.pk}/worksheet/",
    ]:
        bad = violations(page, path)
        if bad:
            found[path] = bad
    assert found == {}, json.dumps(found, indent=1)


def test_the_print_buttons_print_without_an_inline_handler(
    page, live_server, teacher, puzzles, django_user_model
):
    """The login cards (a new password for a student the class made) and a set's worksheet: the
    Print button (static/js/print.js) prints, and neither page breaks the policy."""
    from classroom.models import Classroom, PuzzleSet

    classroom = Classroom.objects.create(name="Club", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    ada = django_user_model.objects.create_user("ada", password="a-long-test-password-42")
    classroom.add_student(ada, managed=True)  # an account the class made: it gets new passwords
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Set", variant="czech")
    puzzle_set.add(puzzles["czech_gain"])
    log_in(page, live_server, teacher)
    page.goto(f"{page.base_url}/teach/classes/{classroom.pk}/")
    page.get_by_role("button", name="New password").click()
    page.get_by_role("heading", name="Login cards").wait_for()
    found = {}
    for name, path in [("cards", None), ("worksheet", f"/teach/sets/{puzzle_set.pk}/worksheet/")]:
        bad = violations(page, path)
        if bad:
            found[name] = bad
        page.get_by_role("button", name="Print").click()
        assert page.evaluate("window.__printed") == 1, name
    assert found == {}, json.dumps(found, indent=1)


def test_the_admin_breaks_no_csp_rule(page, live_server, staff, puzzles):
    """Django's admin (its own templates and scripts) under the site's policy: the index, a list
    with filters and search, and a change form."""
    log_in(page, live_server, staff)
    found = {}
    for path in [
        "/admin/",
        "/admin/auth/user/",
        f"/admin/auth/user/{staff.pk}/change/",
        "/admin/puzzles/puzzle/",
        f"/admin/puzzles/puzzle/{puzzles['czech_gain'].pk}/change/",
    ]:
        page.goto(page.base_url + path)
        page.wait_for_load_state("networkidle")
        bad = csp_violations(page)
        if bad:
            found[path] = bad
    assert found == {}, json.dumps(found, indent=1)


def test_the_check_finds_a_violation_when_there_is_one(chromium, live_server):
    """On a tab of its own: the violations it makes on purpose are not errors of the test."""
    context = chromium.new_context(locale="en-US")
    page = context.new_page()
    page.base_url = live_server.url
    prepare(page)
    page.goto(page.base_url + "/")
    page.wait_for_load_state("networkidle")
    assert csp_violations(page) == []
    # an image without a text alternative, with an inline event handler the policy refuses
    page.evaluate(
        "document.body.insertAdjacentHTML('beforeend', '<img src=\"/no-such-image.png\" onerror=\"window.ran = 1\">')"
    )
    page.wait_for_function("window.__cspViolations.length > 0")
    assert "script-src-attr" in csp_violations(page)[0]
    assert page.evaluate("window.ran") is None
    page.add_script_tag(url=page.base_url + AXE_URL)
    ids = page.evaluate("async () => (await axe.run(document)).violations.map(v => v.id)")
    assert "image-alt" in ids
    context.close()
