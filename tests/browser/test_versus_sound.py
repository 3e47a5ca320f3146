"""In Chromium, a game between players has what the game against the computer has (issue 48):
the sound of the moves, off until turned on, one choice for the whole site (turned on on the
play page, it is on on the versus page: localStorage "dama.sound"), an opponent's move sounding
as it arrives over the socket (a capture with the capture's tone), never on the page's load and
one's own move once; and a move list whose moves are links to their positions, stepped through
with the arrow keys, the position looked at kept while the opponent's moves arrive, and the way
back to the game. No JavaScript error, no CSP violation, no serious accessibility violation.

What sounded is read from the page's ``DamaSound.play`` (static/js/sound.js), watched by a script
the test adds before the page's own: the calls made while the sound is on."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

from tests.browser.conftest import ASGI_MARKS, WAIT_MS, expect, open_as, type_move
from tests.browser.test_a11y import csp_violations, run_axe
from tests.conftest import _make_user
from versus.models import VersusGame

pytestmark = ASGI_MARKS

#: the page's DamaSound.play, watched: window.__sounded lists what sounded ("m", "c,m", ...)
WATCH_SOUND = """
window.__sounded = [];
Object.defineProperty(window, "DamaSound", {
  configurable: true,
  get: function () { return window.__damaSound; },
  set: function (api) {
    var play = api.play;
    api.play = function (kinds) {
      if (api.isOn() && kinds.length) window.__sounded.push(kinds.join(","));
      return play(kinds);
    };
    window.__damaSound = api;
  }
});
"""


def sounded(tab) -> list[str]:
    return tab.evaluate("window.__sounded")


def in_thread(fn, *args):
    """A database write outside the thread of Playwright's event loop."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(fn, *args).result()


def capture_for_black() -> str:
    """Black's capture in the game as it stands (a capture is forced), as the move box takes it."""
    board = VersusGame.objects.get().board()
    move = next(m for m in board.legal_moves if m.captured)
    return board.move_text(move)


def test_the_sound_is_one_choice_for_the_site_and_sounds_the_opponents_moves_as_they_arrive(
    chromium,
    server,
    django_user_model,
):
    check = expect()
    anna = _make_user(django_user_model, "anna")
    bruno = _make_user(django_user_model, "bruno")
    game = VersusGame.challenge(anna, variant="czech", colour="white")
    in_thread(game.accept, bruno)
    in_thread(lambda: game.play(anna, text="22-18"))
    errors: list[str] = []
    contexts = []
    try:
        a_ctx, a = open_as(chromium, server, anna, errors)
        b_ctx, b = open_as(chromium, server, bruno, errors)
        contexts = [a_ctx, b_ctx]
        for tab in (a, b):
            tab.add_init_script(WATCH_SOUND)

        # Anna turns the sound on on a game against the computer...
        a.goto(f"{server}/play/czech/?level=1")
        a.get_by_test_id("start").click()
        # the game's page, set up (a click on the settings page's button as it goes is lost)
        check(a.locator("#game")).to_have_attribute("data-state", "player")
        sound = a.get_by_role("button", name="Sound")
        check(sound).to_have_attribute("data-ready", "1")
        check(sound).to_have_attribute("aria-pressed", "false")
        sound.click()
        check(sound).to_have_attribute("aria-pressed", "true")

        # ...and it is on on her game against Bruno: one choice for the site
        a.goto(f"{server}/versus/g/{game.token}/")
        b.goto(f"{server}/versus/g/{game.token}/")
        for tab in (a, b):
            check(tab.locator("#versus")).to_have_attribute("data-socket", "open", timeout=WAIT_MS)
        sound = a.get_by_role("button", name="Sound")
        check(sound).to_have_attribute("aria-pressed", "true")
        assert a.evaluate("localStorage.getItem('dama.sound')") == "1"
        assert sounded(a) == [], "nothing sounds on the page's load"
        check(b.get_by_role("button", name="Sound")).to_have_attribute("aria-pressed", "false")

        # Bruno's move arrives over the socket and sounds once on Anna's page, not on his (off)
        type_move(b, "11-15")
        check(a.locator('[data-testid="moves"]')).to_contain_text("11-15", timeout=WAIT_MS)
        check(sound).to_have_attribute("data-sounded", "m")
        assert sounded(a) == ["m"]
        assert sounded(b) == []

        # Anna's own move (a capture) sounds once, though told by the socket and the region both
        type_move(a, "18x11")
        check(b.locator('[data-testid="moves"]')).to_contain_text("18x11", timeout=WAIT_MS)
        check(a.locator("#versus-game")).to_have_attribute("data-plies", "3", timeout=WAIT_MS)
        check(sound).to_have_attribute("data-sounded", "c")
        assert sounded(a) == ["m", "c"]

        # Bruno's capture sounds with the capture's tone
        type_move(b, capture_for_black())
        check(a.locator("#versus-game")).to_have_attribute("data-plies", "4", timeout=WAIT_MS)
        check(sound).to_have_attribute("data-sounded", "c")
        assert sounded(a) == ["m", "c", "c"]

        # a reload sounds nothing; turned off on the versus page, it is off on the play page too
        a.reload()
        check(a.locator("#versus")).to_have_attribute("data-socket", "open", timeout=WAIT_MS)
        assert sounded(a) == []
        sound.click()
        check(sound).to_have_attribute("aria-pressed", "false")
        a.goto(f"{server}/play/czech/?level=1")
        a.get_by_test_id("start").click()
        check(a.get_by_role("button", name="Sound")).to_have_attribute("aria-pressed", "false")
        assert a.evaluate("localStorage.getItem('dama.sound')") is None
    finally:
        for context in contexts:
            context.close()
    assert errors == [], errors


def test_the_move_list_shows_each_moves_position_and_keeps_it_while_the_game_goes_on(
    chromium,
    server,
    django_user_model,
):
    check = expect()
    anna = _make_user(django_user_model, "anna")
    bruno = _make_user(django_user_model, "bruno")
    game = VersusGame.challenge(anna, variant="czech", colour="white")
    in_thread(game.accept, bruno)
    for by, move in ((anna, "22-18"), (bruno, "11-15"), (anna, "18x11")):
        in_thread(lambda by=by, move=move: game.play(by, text=move))
    errors: list[str] = []
    contexts = []
    try:
        a_ctx, a = open_as(chromium, server, anna, errors)
        b_ctx, b = open_as(chromium, server, bruno, errors)
        contexts = [a_ctx, b_ctx]
        for tab in (a, b):
            tab.goto(f"{server}/versus/g/{game.token}/")
            check(tab.locator("#versus")).to_have_attribute("data-socket", "open", timeout=WAIT_MS)
        region = a.locator("#versus-game")

        # a move of the list shows its position, to look at only
        a.locator('[data-testid="moves"] a[data-ply="1"]').click()
        check(region).to_have_attribute("data-viewing", "1")
        assert a.url.endswith("?ply=1")
        check(a.get_by_test_id("viewing")).to_contain_text("the position after 1. 22-18")
        check(a.locator('[data-ply="1"]')).to_have_attribute("aria-current", "step")
        check(a.locator("#versus-move")).to_have_count(0)
        # the arrow keys step through the moves
        a.keyboard.press("ArrowRight")
        check(region).to_have_attribute("data-viewing", "2")
        a.keyboard.press("ArrowLeft")
        check(region).to_have_attribute("data-viewing", "1")
        a.keyboard.press("ArrowLeft")
        check(region).to_have_attribute("data-viewing", "0")
        check(a.get_by_test_id("viewing")).to_contain_text("the start position")
        a.keyboard.press("ArrowRight")
        check(region).to_have_attribute("data-viewing", "1")
        assert csp_violations(a) == []
        assert run_axe(a) == []

        # Bruno moves meanwhile: the list grows, the position looked at stays
        type_move(b, capture_for_black())
        check(region).to_have_attribute("data-plies", "4", timeout=WAIT_MS)
        check(region).to_have_attribute("data-viewing", "1")
        check(a.locator('[data-testid="moves"] a.move')).to_have_count(4)

        # back to the game: the board takes moves again
        a.get_by_test_id("back-to-game").click()
        check(region).not_to_have_attribute("data-viewing", re.compile(".*"))
        check(a.locator("#versus-move")).to_be_visible()
        assert not a.url.endswith("?ply=1")
        check(a.locator('[data-testid="moves"] a[aria-current]')).to_have_attribute("data-ply", "4")
        assert csp_violations(a) == []
    finally:
        for context in contexts:
            context.close()
    assert errors == [], errors


def test_a_spectator_of_a_rated_game_hears_each_move_when_it_reaches_their_late_view(
    chromium,
    server,
    django_user_model,
):
    """The spectator's socket tells the version alone; the region they fetch sounds its moves
    as they come into view (SPECTATOR_DELAY_PLIES late), each once."""
    from versus.models import SPECTATOR_DELAY_PLIES

    check = expect()
    anna = _make_user(django_user_model, "anna")
    bruno = _make_user(django_user_model, "bruno")
    cara = _make_user(django_user_model, "cara")
    game = VersusGame.challenge(anna, variant="czech", colour="white", base_minutes=5, rated=True)
    in_thread(game.accept, bruno)
    errors: list[str] = []
    contexts = []
    try:
        a_ctx, a = open_as(chromium, server, anna, errors)
        b_ctx, b = open_as(chromium, server, bruno, errors)
        c_ctx, c = open_as(chromium, server, cara, errors)
        contexts = [a_ctx, b_ctx, c_ctx]
        c.add_init_script(WATCH_SOUND)
        c.add_init_script("localStorage.setItem('dama.sound', '1')")
        for tab in (a, b, c):
            tab.goto(f"{server}/versus/g/{game.token}/")
            check(tab.locator("#versus")).to_have_attribute("data-socket", "open", timeout=WAIT_MS)
        spectator = c.locator("#versus-game")
        check(c.get_by_role("button", name="Sound")).to_have_attribute("aria-pressed", "true")

        type_move(a, "22-18")
        check(b.locator('[data-testid="moves"]')).to_contain_text("22-18", timeout=WAIT_MS)
        type_move(b, "11-15")
        check(a.locator('[data-testid="moves"]')).to_contain_text("11-15", timeout=WAIT_MS)
        assert sounded(c) == [], "nothing in the spectator's view yet"
        type_move(a, "18x11")
        check(spectator).to_have_attribute("data-plies", str(3 - SPECTATOR_DELAY_PLIES))
        check(c.locator('[data-testid="moves"]')).to_contain_text("22-18")
        check(c.locator('[data-testid="moves"]')).not_to_contain_text("11-15")
        assert sounded(c) == ["m"]
        type_move(b, capture_for_black())
        check(spectator).to_have_attribute("data-plies", str(4 - SPECTATOR_DELAY_PLIES))
        check(c.locator('[data-testid="moves"]')).to_contain_text("11-15")
        assert sounded(c) == ["m", "m"]
        assert csp_violations(c) == []
    finally:
        for context in contexts:
            context.close()
    assert errors == [], errors
