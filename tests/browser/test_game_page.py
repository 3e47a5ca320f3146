"""In Chromium, the game page as lichess players expect it (issue 47): a move clicked in the move
list shows its position on a board that takes no move, with the way back to the game; the arrow
keys, Home and End step through the moves; the sound of the moves, off until turned on and
remembered across reloads; the clock chosen at the start, shown and counting, announced at its
marks and not every second, and a time run out judged by the server; the board, the clocks and
the game's buttons on the first screen of a desktop, a laptop and a phone.

The computer plays at level 1 (instant: in the request, no worker needed); the test chooses the
player's moves with the engine (``tests.browser.test_play.engine_move``)."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from tests.browser.test_layout import DESKTOP, LAPTOP, PHONE, box, log_in, on_screen
from tests.browser.test_play import engine_move, wait_for_answer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def expect():
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect


def start(tab, base: str, clock: str = "") -> int:
    """A Czech game from the start, the player White, level 1; its id."""
    tab.goto(base + "/play/czech/?level=1")
    if clock:
        tab.get_by_test_id(f"clock-{clock}").check()
    tab.get_by_test_id("start").click()
    expect()(tab.locator("#game")).to_have_attribute("data-state", "player")
    return int(re.search(r"/play/game/(\d+)/", tab.url).group(1))


def play_moves(tab, count: int) -> list[str]:
    """``count`` of the player's moves, typed (each answered by the computer); the board's
    position before each."""
    seen = []
    for _ in range(count):
        game = tab.locator("#game")
        version = game.get_attribute("data-version")
        fen = tab.locator("#game-board").get_attribute("data-fen")
        seen.append(fen)
        tab.locator("#game-move").fill(engine_move("czech", fen)[1])
        tab.locator("#game-move").press("Enter")
        wait_for_answer(tab, version)
    return seen


def fen_after(game_pk: int, ply: int) -> str:
    from play.models import Game

    return Game.objects.get(pk=game_pk).board_at(ply).fen()


def shown(tab) -> str:
    """The position the page shows: the ply looked at, or "game"."""
    return tab.locator("#game").get_attribute("data-viewing") or "game"


# -- the move list --------------------------------------------------------------------------------


def test_a_move_clicked_in_the_list_shows_its_position_and_the_player_cannot_move_there(
    open_tab, live_server, student
):
    check = expect()
    tab = open_tab(DESKTOP)
    log_in(tab, live_server.url, student)
    pk = start(tab, live_server.url)
    play_moves(tab, 2)  # four moves in the list
    game = tab.locator("#game")
    check(tab.locator('#game a.move[aria-current="step"]')).to_have_attribute("data-ply", "4")

    tab.locator('#game a.move[data-ply="2"]').click()
    check(game).to_have_attribute("data-viewing", "2")
    check(tab.locator("#game-board")).to_have_attribute("data-fen", fen_after(pk, 2))
    check(tab.locator('#game a.move[aria-current="step"]')).to_have_attribute("data-ply", "2")
    check(tab.locator('#game a.move[data-ply="2"]')).to_be_focused()  # the focus stays
    check(tab.get_by_test_id("viewing")).to_contain_text("You are looking at the position after")
    assert tab.url.endswith(f"/play/game/{pk}/?ply=2")  # a reload shows it again
    # no move on the old position: a board to look at, no move box, and a move clicked on it
    # posts nothing (the step after it, a request of its own, comes back first)
    check(tab.locator("#game-board")).to_have_attribute("data-board-view", "")
    check(tab.locator("#game .move-form")).to_have_count(0)
    check(tab.get_by_test_id("hint-button")).to_have_count(0)
    posts: list[str] = []
    tab.on(
        "request", lambda request: posts.append(request.url) if request.method == "POST" else None
    )
    tab.locator('#game-board [data-square="21"]').first.click()
    tab.locator('#game-board [data-square="17"]').first.click()
    tab.get_by_test_id("step-next").click()
    check(game).to_have_attribute("data-viewing", "3")
    tab.get_by_test_id("step-prev").click()
    check(game).to_have_attribute("data-viewing", "2")
    assert posts == []

    tab.reload()
    check(game).to_have_attribute("data-viewing", "2")

    # back to the game: the position as it stands, the board takes moves and has the focus
    tab.get_by_test_id("back-to-game").click()
    check(game).not_to_have_attribute("data-viewing", re.compile(".*"))
    check(tab.locator("#game-board")).to_have_attribute("data-fen", fen_after(pk, 4))
    check(tab.locator("#game-board-svg")).to_be_focused()
    assert tab.url.endswith(f"/play/game/{pk}/")
    play_moves(tab, 1)  # and the game goes on
    check(tab.locator('#game a.move[aria-current="step"]')).to_have_attribute("data-ply", "6")


def test_the_arrow_keys_home_and_end_step_through_the_moves(open_tab, live_server, student):
    check = expect()
    tab = open_tab(DESKTOP)
    log_in(tab, live_server.url, student)
    pk = start(tab, live_server.url)
    play_moves(tab, 2)
    game = tab.locator("#game")
    tab.locator("h1").click()  # the focus out of the move box: the page's keys
    check(tab.locator("#game-move")).not_to_be_focused()

    tab.keyboard.press("ArrowLeft")
    check(game).to_have_attribute("data-viewing", "3")
    tab.keyboard.press("ArrowLeft")
    check(game).to_have_attribute("data-viewing", "2")
    check(tab.locator("#game-board")).to_have_attribute("data-fen", fen_after(pk, 2))
    tab.keyboard.press("Home")
    check(game).to_have_attribute("data-viewing", "0")
    check(tab.locator("#game-board")).to_have_attribute("data-fen", fen_after(pk, 0))
    check(tab.get_by_test_id("viewing")).to_contain_text("the start position")
    check(tab.locator('#game a.move[aria-current="step"]')).to_have_count(0)
    tab.keyboard.press("ArrowRight")
    check(game).to_have_attribute("data-viewing", "1")
    check(tab.locator('#game a.move[aria-current="step"]')).to_have_attribute("data-ply", "1")
    tab.keyboard.press("End")
    check(tab.locator("#game .move-form")).to_have_count(1)  # the game itself
    assert shown(tab) == "game"
    tab.keyboard.press("ArrowRight")  # nothing after the game as it stands
    check(tab.locator("#game .move-form")).to_have_count(1)

    # by Tab to a move, then its steps: the focus follows the move shown
    tab.locator('#game a.move[data-ply="3"]').focus()
    tab.keyboard.press("Enter")
    check(game).to_have_attribute("data-viewing", "3")
    check(tab.locator('#game a.move[data-ply="3"]')).to_be_focused()
    tab.keyboard.press("ArrowLeft")
    check(game).to_have_attribute("data-viewing", "2")
    check(tab.locator('#game a.move[data-ply="2"]')).to_be_focused()

    # the keys of the move box and of the board are their own
    tab.get_by_test_id("back-to-game").click()
    check(tab.locator("#game .move-form")).to_have_count(1)
    tab.locator("#game-move").fill("22-18")
    tab.locator("#game-move").press("ArrowLeft")
    tab.locator("#game-move").press("Home")
    assert shown(tab) == "game"
    tab.locator("#game-board-svg").focus()
    tab.keyboard.press("ArrowLeft")  # the board's cursor
    tab.keyboard.press("Home")
    assert shown(tab) == "game"


# -- the sound ------------------------------------------------------------------------------------


def test_the_sound_is_off_until_turned_on_and_remembered_across_reloads(
    open_tab, live_server, student
):
    check = expect()
    tab = open_tab(DESKTOP)
    log_in(tab, live_server.url, student)
    start(tab, live_server.url)
    sound = tab.get_by_role("button", name="Sound")
    check(sound).to_be_visible()
    check(sound).to_have_attribute("aria-pressed", "false")
    play_moves(tab, 1)
    check(sound).not_to_have_attribute("data-sounded", re.compile(".*"))  # silent

    sound.click()
    check(sound).to_have_attribute("aria-pressed", "true")
    assert tab.evaluate("localStorage.getItem('dama.sound')") == "1"
    tab.reload()
    check(sound).to_have_attribute("aria-pressed", "true")  # remembered
    play_moves(tab, 1)
    # the player's move and the computer's reply, as they came (a capture sounds otherwise)
    check(sound).to_have_attribute("data-sounded", re.compile(r"^[mc],[mc]$"))

    sound.focus()
    tab.keyboard.press("Enter")  # by keyboard too
    check(sound).to_have_attribute("aria-pressed", "false")
    tab.reload()
    check(sound).to_have_attribute("aria-pressed", "false")
    assert tab.evaluate("localStorage.getItem('dama.sound')") is None


# -- the clock ------------------------------------------------------------------------------------


def test_the_clocks_are_shown_and_count_down_on_the_players_turn(open_tab, live_server, student):
    check = expect()
    tab = open_tab(DESKTOP)
    log_in(tab, live_server.url, student)
    start(tab, live_server.url, clock="5+3")
    player, computer = tab.get_by_test_id("player-clock"), tab.get_by_test_id("computer-clock")
    check(tab.get_by_text("Clock 5+3")).to_be_visible()
    check(computer).to_have_text("5:00")
    check(player).to_have_text(re.compile(r"^(5:00|4:5\d)$"))
    check(player).to_have_text(re.compile(r"^4:5\d$"))  # it counts
    check(computer).to_have_text("5:00")  # the computer's stands still
    check(tab.locator('[data-clock="player"]')).to_have_class(re.compile(r"\brunning\b"))
    # the time is not read out every second: the clocks are not live regions, one region is
    live = tab.locator("[data-clocks] [aria-live]")
    check(live).to_have_count(1)
    check(live).to_have_attribute("aria-live", "polite")
    check(live).to_have_text("")

    play_moves(tab, 1)  # the increment: more than before the move
    check(tab.get_by_test_id("computer-move")).to_contain_text("Your clock: 5:0")
    check(player).to_have_text(re.compile(r"^5:0\d$"))
    check(computer).to_have_text(re.compile(r"^5:0[0-3]$"))


def test_a_time_run_out_loses_the_game_and_the_last_seconds_are_announced(
    open_tab, live_server, student
):
    from django.utils import timezone

    from play.models import Game

    check = expect()
    tab = open_tab(DESKTOP)
    log_in(tab, live_server.url, student)
    pk = start(tab, live_server.url, clock="5+3")
    # as if 4:49 were gone: 10.7 s left, from now
    Game.objects.filter(pk=pk).update(
        player_clock=timedelta(seconds=10.7), player_clock_since=timezone.now()
    )
    tab.reload()
    said = tab.get_by_test_id("clock-said")
    check(said).to_have_text("10 seconds left on your clock.")
    check(tab.get_by_test_id("result")).to_contain_text(
        "Your time ran out: the computer wins.", timeout=30_000
    )
    check(tab.locator("#game")).to_have_attribute("data-state", "over")
    check(tab.get_by_test_id("player-clock")).to_have_text("0:00")
    assert Game.objects.get(pk=pk).reason == "time"  # judged by the server


# -- the page on the first screen --------------------------------------------------------------


@pytest.mark.parametrize(
    "viewport", [DESKTOP, LAPTOP, PHONE], ids=["1280x800", "1366x768", "390x844"]
)
def test_the_board_clocks_and_buttons_are_on_the_first_screen(
    open_tab, live_server, student, viewport
):
    check = expect()
    tab = open_tab(viewport)
    log_in(tab, live_server.url, student)
    pk = start(tab, live_server.url, clock="10+5")
    play_moves(tab, 2)
    wide = viewport["width"] >= 1280
    for query in ("", "?ply=2"):
        tab.goto(f"{live_server.url}/play/game/{pk}/{query}")
        check(tab.get_by_test_id("player-clock")).to_be_visible()
        assert tab.evaluate("window.scrollY") == 0
        board = box(tab, "#game-board .board-svg")
        assert on_screen(board, viewport), (query, board)
        assert tab.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        for part in ('[data-testid="clocks"]', ".trainer-actions"):
            found = box(tab, part)
            assert on_screen(found, viewport), (query, part, found)
            if wide:  # beside the board
                assert found["x"] >= board["x"] + board["width"], (query, part, found)


def test_the_game_page_with_a_clock_and_an_earlier_position_has_no_serious_violations(
    page, live_server, student
):
    """axe-core and the Content-Security-Policy (``tests.browser.test_a11y``) on the game with
    its clocks running, an earlier position, the start position, and a game lost on time."""
    from play.models import Game
    from tests.browser.test_a11y import log_in as log_in_page
    from tests.browser.test_a11y import prepare, violations

    prepare(page)
    log_in_page(page, live_server, student)
    playing = Game.start(user=student, variant="czech", level=1, player_white=True, clock="5+3")
    playing.play(text="22-18")
    lost = Game.start(user=student, variant="czech", level=1, player_white=True, clock="5+3")
    Game.objects.filter(pk=lost.pk).update(player_clock=timedelta(0))
    found = {}
    for path in (
        f"/play/game/{playing.pk}/",
        f"/play/game/{playing.pk}/?ply=1",
        f"/play/game/{playing.pk}/?ply=0",
        f"/play/game/{lost.pk}/",
    ):
        bad = violations(page, path)
        if bad:
            found[path] = bad
    assert found == {}, found
    assert Game.objects.get(pk=lost.pk).reason == "time"
