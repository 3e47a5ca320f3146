"""The site as a new user sees it (issue 47), in Chromium in Czech and English, on a 1280x800 and a
1366x768 desktop and a 390x844 phone, measured as lichess would be:

* the board and its status line on the first screen of every page with a board (the trainer of
  each variant, the daily puzzle, an exam, a game, a lesson step), the page's buttons beside the
  board on a desktop, and the board's resize handle (mouse, keyboard, remembered, labelled);
* the header in one row, the phone's menu button, the other language one click away;
* no Content-Security-Policy violation and no console message across the htmx swaps of a game, an
  exam, a lesson step and a live lesson, even when the visitor's tools have set styles on the page;
* a game on a phone: what the computer played and the Hint, Take back and Resign buttons on the
  first screen, with the board.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.utils import translation
from django.utils.translation import gettext

from tests.browser.test_a11y import prepare, run_axe
from tests.conftest import _make_user
from tests.puzzle_fixtures import make_puzzle

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
    # the static files through the live lesson's ASGI server (tests/browser/test_live.py)
    pytest.mark.filterwarnings("ignore:StreamingHttpResponse must consume synchronous iterators"),
]

DESKTOP = {"width": 1280, "height": 800}
LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
VIEWPORTS = pytest.mark.parametrize(
    "viewport", [DESKTOP, LAPTOP, PHONE], ids=["1280x800", "1366x768", "390x844"]
)
LANGUAGES = pytest.mark.parametrize("language", ["cs", "en"])
LOCALE = {"cs": "cs-CZ", "en": "en-US"}


def expect():
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect


def log_in(tab, base: str, user) -> None:
    """Give the tab the session of ``user`` (the log-in form is tested on its own)."""
    client = Client()
    client.force_login(user)
    cookie = client.cookies["sessionid"].value
    tab.context.add_cookies([{"name": "sessionid", "value": cookie, "url": base}])


def box(tab, selector: str) -> dict:
    found = tab.locator(selector).first.bounding_box()
    assert found is not None, f"{selector} is not shown"
    return found


def on_screen(found: dict, viewport: dict) -> bool:
    """The whole box is inside the window (at the top of the page, nothing scrolled)."""
    return (
        found["x"] >= 0
        and found["y"] >= 0
        and found["x"] + found["width"] <= viewport["width"] + 0.5
        and found["y"] + found["height"] <= viewport["height"] + 0.5
    )


def start_practice_exam(tab, base: str) -> str:
    tab.goto(base + "/exams/czech/")
    tab.get_by_test_id("start-practice-1").click()
    expect()(tab.get_by_test_id("question-number")).to_be_visible()
    return tab.url


def start_storm(tab, base: str) -> str:
    """A puzzle storm in Czech draughts (runs): its page with the clock and the board."""
    tab.goto(base + "/runs/czech/")
    tab.get_by_test_id("start-storm").click()
    expect()(tab.get_by_test_id("clock")).to_be_visible()
    return tab.url


def start_game(tab, base: str) -> str:
    """A game of Czech draughts from the start, the player White, the computer at level 1 (it
    answers in the request)."""
    tab.goto(base + "/play/czech/?level=1")
    tab.get_by_test_id("start").click()
    expect()(tab.locator("#game")).to_have_attribute("data-state", "player")
    return tab.url


def first_step() -> str:
    from lessons.course import get_course

    step = get_course("czech").steps[0]
    return f"/learn/czech/{step.lesson.slug}/{step.slug}/"


# -- 1. the board on the first screen ------------------------------------------------------------


@LANGUAGES
@VIEWPORTS
def test_every_board_and_its_status_line_are_on_the_first_screen(
    open_tab, live_server, student, viewport, language
):
    for name in ("czech_capture", "international_gain", "brazilian_capture"):
        make_puzzle(name)
    tab = open_tab(viewport, LOCALE[language])
    log_in(tab, live_server.url, student)
    pages = {
        "the Czech trainer": "/puzzles/czech/",
        "the international trainer": "/puzzles/international/",
        "the Brazilian trainer": "/puzzles/brazilian/",
        "the daily puzzle": "/daily/czech/",
        "an exam": start_practice_exam(tab, live_server.url).removeprefix(live_server.url),
        "a game": start_game(tab, live_server.url).removeprefix(live_server.url),
        "a puzzle storm": start_storm(tab, live_server.url).removeprefix(live_server.url),
        "a lesson step": first_step(),
        "a drill": "/learn/endgames-czech/cz-eg-lone-king/cz-eg-take-the-main-road/",
    }
    wide = viewport["width"] >= 1280
    for page, path in pages.items():
        tab.goto(live_server.url + path)
        expect()(tab.locator("html")).to_have_attribute("lang", language)
        assert tab.evaluate("window.scrollY") == 0, page
        board = box(tab, ".board-widget .board-svg")
        status = box(tab, ".board-widget .board-status")
        assert on_screen(board, viewport), (page, board)
        assert on_screen(status, viewport), (page, status)
        assert tab.evaluate("document.documentElement.scrollWidth") <= viewport["width"], page
        if wide:
            # the page's buttons beside the board, on the first screen too
            controls = box(tab, ".trainer-actions, .lesson-actions")
            assert controls["x"] >= board["x"] + board["width"], (page, controls, board)
            assert controls["y"] < board["y"] + board["height"], (page, controls, board)
            assert on_screen(controls, viewport), (page, controls)
            assert board["width"] >= 520, (page, board)  # as large as the window lets it be
        else:
            assert board["width"] >= viewport["width"] - 32, (page, board)


def zoom_of(tab) -> int:
    return int(tab.get_by_role("slider", name="Board size").get_attribute("aria-valuenow"))


def test_the_board_resize_handle_works_by_mouse_and_keyboard_and_is_remembered(
    open_tab, live_server, student
):
    check = expect()
    make_puzzle("czech_capture")
    tab = open_tab(DESKTOP)
    log_in(tab, live_server.url, student)
    tab.goto(live_server.url + "/puzzles/czech/")
    handle = tab.get_by_role("slider", name="Board size")  # labelled
    check(handle).to_be_visible()
    check(handle).to_have_attribute("aria-valuenow", "100")
    check(handle).to_have_attribute("aria-valuemin", "50")
    check(handle).to_have_attribute("aria-valuemax", "100")
    largest = box(tab, "#trainer-board .board-svg")["width"]

    # by mouse: the corner dragged up and to the left makes the board smaller
    grip = box(tab, "[data-board-resize]")
    x, y = grip["x"] + grip["width"] / 2, grip["y"] + grip["height"] / 2
    tab.mouse.move(x, y)
    tab.mouse.down()
    tab.mouse.move(x - 150, y - 150, steps=6)
    tab.mouse.up()
    dragged = zoom_of(tab)
    assert 50 <= dragged <= 80, dragged
    width = box(tab, "#trainer-board .board-svg")["width"]
    assert abs(width - largest * dragged / 100) <= 2, (width, largest, dragged)
    check(handle).to_have_attribute("aria-valuetext", f"{dragged} percent")
    # and down to the right, larger again
    grip = box(tab, "[data-board-resize]")
    x, y = grip["x"] + grip["width"] / 2, grip["y"] + grip["height"] / 2
    tab.mouse.move(x, y)
    tab.mouse.down()
    tab.mouse.move(x + 60, y + 60, steps=3)
    tab.mouse.up()
    assert zoom_of(tab) > dragged

    # by keyboard: arrows in steps of 5, Home the smallest, End the largest
    handle.focus()
    tab.keyboard.press("End")
    check(handle).to_have_attribute("aria-valuenow", "100")
    assert box(tab, "#trainer-board .board-svg")["width"] == pytest.approx(largest, abs=1)
    tab.keyboard.press("ArrowRight")  # no larger than the largest
    check(handle).to_have_attribute("aria-valuenow", "100")
    tab.keyboard.press("Home")
    check(handle).to_have_attribute("aria-valuenow", "50")
    assert box(tab, "#trainer-board .board-svg")["width"] == pytest.approx(largest / 2, abs=2)
    for _ in range(6):
        tab.keyboard.press("ArrowUp")
    tab.keyboard.press("ArrowDown")
    check(handle).to_have_attribute("aria-valuenow", "75")
    assert tab.evaluate("localStorage.getItem('dama.board-zoom')") == "75"
    # a smaller board leaves more room beside it
    assert box(tab, ".trainer-actions")["x"] < box(tab, ".board-widget")["x"] + largest

    # remembered: the next page, and the next visit, draw the board at that size
    for path in ("/puzzles/czech/", first_step()):
        tab.goto(live_server.url + path)
        check(tab.locator("html")).to_have_class(re.compile(r"\bboard-zoom-75\b"))
        check(tab.get_by_role("slider", name="Board size")).to_have_attribute("aria-valuenow", "75")
        width = box(tab, ".board-widget .board-svg")["width"]
        assert width == pytest.approx(largest * 0.75, abs=2), (path, width)
    again = open_tab(DESKTOP)  # another visitor (another browser profile): the largest
    again.goto(live_server.url + first_step())
    assert box(again, ".board-widget .board-svg")["width"] == pytest.approx(largest, abs=1)


# -- 2. the header -------------------------------------------------------------------------------


def header_rows(tab) -> dict:
    """The header's height, one line's height, and how far apart the middles of the header's
    visible links and buttons are (one row: less than half a line)."""
    return tab.evaluate(
        """() => {
          const header = document.querySelector('.site-header');
          const line = parseFloat(getComputedStyle(header.querySelector('.brand')).lineHeight)
            || parseFloat(getComputedStyle(document.body).lineHeight);
          const bodyLine = parseFloat(getComputedStyle(document.body).lineHeight);
          const items = Array.from(header.querySelectorAll('a, button, summary'))
            .filter(e => e.checkVisibility({visibilityProperty: true}))
            .map(e => e.getBoundingClientRect()).filter(r => r.width > 1 && r.height > 1);
          const middles = items.map(r => r.top + r.height / 2);
          return {height: header.getBoundingClientRect().height, line: bodyLine,
                  spread: Math.max(...middles) - Math.min(...middles), items: items.length};
        }"""
    )


def assert_one_row(tab) -> None:
    rows = header_rows(tab)
    assert rows["items"] >= 3, rows
    assert rows["spread"] < rows["line"] / 2, rows  # every link and button on one line
    assert rows["height"] < 2.25 * rows["line"], rows  # a second row would make it 2.5 lines


@LANGUAGES
@pytest.mark.parametrize("logged_in", [False, True], ids=["visitor", "logged-in"])
def test_the_header_is_one_row_at_1280_pixels(open_tab, live_server, student, language, logged_in):
    tab = open_tab(DESKTOP, LOCALE[language])
    if logged_in:
        log_in(tab, live_server.url, student)
    for path in ("/", "/puzzles/czech/", "/learn/czech/"):
        tab.goto(live_server.url + path)
        expect()(tab.locator("html")).to_have_attribute("lang", language)
        expect()(tab.locator(".main-nav a").first).to_be_visible()  # the links themselves
        expect()(tab.locator("[data-menu-toggle]")).to_be_hidden()
        assert_one_row(tab)


@LANGUAGES
def test_the_phone_header_is_one_row_with_a_menu_button(open_tab, live_server, student, language):
    check = expect()
    tab = open_tab(PHONE, LOCALE[language])
    prepare(tab)  # axe-core, and CSP violations recorded
    log_in(tab, live_server.url, student)
    tab.goto(live_server.url + "/puzzles/czech/")
    assert_one_row(tab)
    toggle = tab.locator("[data-menu-toggle]")
    menu = tab.locator("#site-menu")
    exams = tab.get_by_test_id("exams-link")
    check(toggle).to_be_visible()
    check(toggle).to_have_attribute("aria-controls", "site-menu")
    check(toggle).to_have_attribute("aria-expanded", "false")
    with translation.override(language):
        check(toggle).to_have_accessible_name(gettext("Menu"))
    check(exams).to_be_hidden()

    # by keyboard: Tab reaches it, Enter opens it and the focus goes to the first link, Escape
    # closes it and gives the focus back
    for _ in range(5):  # the skip links, the brand, the button
        tab.keyboard.press("Tab")
        if tab.evaluate("document.activeElement.hasAttribute('data-menu-toggle')"):
            break
    check(toggle).to_be_focused()
    tab.keyboard.press("Enter")
    check(toggle).to_have_attribute("aria-expanded", "true")
    check(menu).to_be_visible()
    check(tab.locator(".main-nav a").first).to_be_focused()
    assert run_axe(tab) == []  # the open menu too
    tab.keyboard.press("Escape")
    check(toggle).to_have_attribute("aria-expanded", "false")
    check(exams).to_be_hidden()
    check(toggle).to_be_focused()
    tab.keyboard.press("Space")
    check(toggle).to_have_attribute("aria-expanded", "true")
    # Tab goes on through the menu: the links, the variant, the account
    tab.keyboard.press("Tab")
    check(tab.locator(".main-nav a").nth(1)).to_be_focused()
    # a click outside the header closes it; a link in it leads to its page
    tab.locator(".site-footer").click()
    check(toggle).to_have_attribute("aria-expanded", "false")
    toggle.click()
    check(exams).to_be_visible()
    exams.click()
    tab.wait_for_url(re.compile(r"/exams/czech/$"))
    assert_one_row(tab)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280x800", "390x844"])
def test_the_other_language_is_one_click_away(open_tab, live_server, viewport):
    check = expect()
    tab = open_tab(viewport)
    tab.goto(live_server.url + "/learn/czech/")
    check(tab.locator("html")).to_have_attribute("lang", "en")
    for other, text in (("cs", "Čeština"), ("en", "English")):
        switch = tab.get_by_test_id("language-switch")
        check(switch).to_be_visible()  # in the header itself, not behind a menu
        check(switch).to_have_text(text)
        check(switch).to_have_attribute("lang", other)
        form = tab.locator("form.language-switcher")
        check(form).to_have_attribute("method", "post")
        check(form).to_have_attribute("action", "/language")
        check(form.locator("input[name=csrfmiddlewaretoken]")).to_have_count(1)
        switch.click()
        check(tab.locator("html")).to_have_attribute("lang", other)
        assert tab.url == live_server.url + "/learn/czech/"  # the same page
    check(tab.get_by_test_id("language-switch")).to_have_text("Čeština")


# -- 4. no CSP violation across htmx swaps -------------------------------------------------------

#: what the visitor's own tools do to a page (a password manager's icon on a field, a dark mode, a
#: screenshot hiding the caret): a style set through the CSSOM, which the policy allows, here on
#: every element with an id (htmx settles the elements of a swap by their ids)
TOOLS = "document.querySelectorAll('[id]').forEach(e => { e.style.caretColor = 'auto'; })"
#: reports every securitypolicyviolation event to the test, whatever page the tab is on
REPORT = """document.addEventListener("securitypolicyviolation", (e) => window.__reportViolation(
  `${e.effectiveDirective} refused ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber})`));"""


class Watched:
    """A tab whose console messages (every error and warning) and CSP violations are collected."""

    def __init__(self, chromium, base: str, user, viewport=DESKTOP):
        self.context = chromium.new_context(locale="en-US", viewport=viewport)
        self.tab = self.context.new_page()
        self.tab.set_default_timeout(15_000)
        self.messages: list[str] = []
        self.violations: list[str] = []
        self.tab.expose_function("__reportViolation", lambda text: self.violations.append(text))
        self.tab.add_init_script(REPORT)
        self.tab.on("console", self._console)
        self.tab.on("pageerror", lambda exc: self.messages.append(f"page error: {exc}"))
        log_in(self.tab, base, user)

    def _console(self, msg) -> None:
        # a refused move is a 400, a hand-in that asks first a 409: Chromium logs every 4xx
        expected = ("status of 400", "status of 409")
        if msg.type in ("error", "warning") and not any(t in msg.text for t in expected):
            self.messages.append(f"{msg.type}: {msg.text}")

    def tools(self) -> None:
        self.tab.evaluate(TOOLS)

    def problems(self) -> list[str]:
        return self.messages + [f"CSP: {v}" for v in self.violations]


@pytest.fixture
def watched(chromium, server):
    opened: list[Watched] = []

    def open_(user, viewport=DESKTOP) -> Watched:
        tab = Watched(chromium, server, user, viewport)
        opened.append(tab)
        return tab

    open_.base = server
    yield open_
    for tab in opened:
        tab.context.close()


def test_a_game_swaps_without_a_policy_violation(watched, student):
    check = expect()
    w = watched(student)
    tab = w.tab
    start_game(tab, watched.base)
    game = tab.locator("#game")
    w.tools()
    tab.locator('#game-board [data-square="22"]').first.click()
    tab.locator('#game-board [data-square="18"]').first.click()
    check(tab.get_by_test_id("computer-move")).to_be_visible()
    w.tools()
    tab.locator("#game-move").fill("22-26")  # backwards: refused (a 400, swapped in)
    tab.locator("#game-move").press("Enter")
    check(tab.get_by_test_id("illegal")).to_be_visible()
    w.tools()
    tab.get_by_test_id("hint-button").click()
    check(tab.get_by_test_id("hint")).to_be_visible()
    w.tools()
    tab.get_by_test_id("takeback").click()
    check(tab.get_by_test_id("taken-back")).to_be_visible()
    w.tools()
    tab.get_by_test_id("resign").click()
    check(game).to_have_attribute("data-state", "over")
    assert w.problems() == []


def test_an_exam_swaps_without_a_policy_violation(watched, student):
    check = expect()
    w = watched(student)
    tab = w.tab
    start_practice_exam(tab, watched.base)
    for _ in range(2):
        w.tools()
        tab.locator("#exam-answer").fill("1-2")  # a wrong answer, or one that cannot be read
        tab.get_by_test_id("answer").click()
        check(tab.locator("#exam-feedback")).not_to_be_empty()
        w.tools()
        tab.get_by_test_id("skip").click()
        check(tab.locator(".htmx-request")).to_have_count(0)
    check(tab.get_by_test_id("question-number")).not_to_contain_text("Question 1 of")
    w.tools()
    tab.get_by_test_id("hand-in").click()  # asks first (a 409, swapped in)
    check(tab.locator("#hand-in-heading")).to_be_focused()
    tab.keyboard.press("Escape")
    check(tab.locator("#hand-in-confirm")).to_be_empty()
    assert w.problems() == []


def test_a_lesson_step_swaps_without_a_policy_violation(watched, student):
    check = expect()
    w = watched(student)
    tab = w.tab
    tab.goto(watched.base + first_step())
    feedback = tab.locator("#lesson-feedback")
    for action in ("hint-button", "answer-button", "retry"):
        w.tools()
        tab.get_by_test_id(action).click()
        check(tab.locator(".htmx-request")).to_have_count(0)
    w.tools()
    tab.locator('#lesson-board [data-square="29"]').first.click()  # not the square asked for
    check(feedback).not_to_be_empty()
    w.tools()
    tab.locator('#lesson-board [data-square="4"]').first.click()
    check(feedback).to_contain_text("Right")
    w.tools()
    tab.get_by_test_id("next-step").click()
    check(tab.locator(".step-count")).to_contain_text("Step 2 of")
    assert w.problems() == []


def test_a_live_lesson_swaps_without_a_policy_violation(watched, django_user_model):
    from classroom.models import Classroom, PuzzleSet
    from tests.load.live_load import FREE

    check = expect()
    teacher = _make_user(django_user_model, "tereza", teacher=True)
    anna = _make_user(django_user_model, "anna")
    classroom = Classroom.objects.create(name="Club", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    classroom.add_student(anna)
    the_set = PuzzleSet.objects.create(owner=teacher, title="Shots", variant="czech")
    the_set.add(make_puzzle("czech_capture"))
    t, a = watched(teacher), watched(anna, PHONE)
    desk, student = t.tab, a.tab
    desk.goto(f"{watched.base}/teach/classes/{classroom.pk}/")
    desk.click('[data-testid="live-start-link"]')
    desk.select_option("#id_puzzle_set", str(the_set.pk))
    desk.fill("#id_positions", f"{FREE} | 22-18")
    desk.click('[data-testid="live-start"]')
    check(desk.locator("#live")).to_have_attribute("data-live-socket", "open")
    student.goto(f"{watched.base}/teach/my/")
    student.click('[data-testid="live-join"] a')
    check(student.locator("#live")).to_have_attribute("data-live-socket", "open")
    for action in ("live-next", "live-previous", "live-ask"):
        t.tools()
        a.tools()
        desk.click(f'[data-testid="{action}"]')
        check(desk.locator(".htmx-request")).to_have_count(0)
    check(student.locator("#live-move")).to_be_visible()
    a.tools()
    student.fill("#live-move", "28x19x12x3")
    student.press("#live-move", "Enter")
    check(student.get_by_test_id("live-mine")).to_contain_text("28x3")
    t.tools()
    a.tools()
    # the question open, closing it is the primary action; revealing is among the others
    desk.click('[data-testid="live-more"] > summary')
    desk.click('[data-testid="live-reveal"]')
    check(student.get_by_test_id("live-solution")).to_have_text("28x3")
    assert t.problems() == [] and a.problems() == []


# -- 6. a game's controls on a phone -------------------------------------------------------------


@LANGUAGES
def test_a_games_status_and_buttons_are_on_a_phones_first_screen(
    open_tab, live_server, student, language
):
    check = expect()
    tab = open_tab(PHONE, LOCALE[language])
    log_in(tab, live_server.url, student)
    start_game(tab, live_server.url)
    tab.locator('#game-board [data-square="22"]').first.click()
    tab.locator('#game-board [data-square="18"]').first.click()
    check(tab.get_by_test_id("computer-move")).to_be_visible()
    assert tab.evaluate("window.scrollY") == 0
    board = box(tab, "#game-board .board-svg")
    assert on_screen(board, PHONE), board
    for testid in ("computer-move", "hint-button", "takeback", "resign"):
        found = box(tab, f'[data-testid="{testid}"]')
        assert on_screen(found, PHONE), (testid, found)
        assert found["y"] >= board["y"] + board["height"], (testid, found)  # under the board
    # and above the move box
    assert box(tab, '[data-testid="resign"]')["y"] < box(tab, "#game-move")["y"]
