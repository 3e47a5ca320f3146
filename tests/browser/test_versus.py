"""Games between two accounts in Chromium, in each variant: two browser contexts against uvicorn
serving the site (HTTP and WebSockets) on loopback in this process.

White makes a challenge and sends its link; Black opens it and accepts. Each move typed by one
player reaches the other over the socket (and is announced in the aria-live line); White asks
to take a move back and Black allows it; Black reloads the page (a dropped connection) and finds
the game where it was; White offers a draw, Black accepts, and both see the drawn result with
the PDN to download. No JavaScript error, no CSP violation, no serious accessibility violation.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.browser.conftest import ASGI_MARKS, WAIT_MS, expect, open_as, type_move
from tests.browser.test_a11y import csp_violations, run_axe
from tests.conftest import _make_user
from versus.models import VersusGame


def click_move(tab, *squares: int) -> None:
    for square in squares:
        tab.click(f'#versus-board [data-square="{square}"]')


pytestmark = ASGI_MARKS


def test_two_players_play_a_game_to_a_draw_with_a_take_back_and_a_reload(
    chromium,
    server,
    django_user_model,
):
    check = expect()
    anna = _make_user(django_user_model, "anna")
    bruno = _make_user(django_user_model, "bruno")
    errors: list[str] = []
    contexts = []
    try:
        a_ctx, a = open_as(chromium, server, anna, errors)
        b_ctx, b = open_as(chromium, server, bruno, errors, phone=True)
        contexts = [a_ctx, b_ctx]

        # Anna challenges by link, as White, with no clock
        a.goto(f"{server}/versus/new/")
        a.check('input[name="variant"][value="czech"]')
        a.check('input[name="colour"][value="white"]')
        a.check('input[name="time"][value="none"]')
        a.click('[data-testid="create-challenge"]')
        link = a.locator('[data-testid="share-link"]').input_value()
        assert "/versus/g/" in link

        # Bruno opens the link and accepts; Anna's page follows
        b.goto(link)
        b.click('[data-testid="accept"]')
        check(b.locator('[data-testid="their-move"]')).to_be_visible()
        for tab in (a, b):
            check(tab.locator("#versus")).to_have_attribute("data-socket", "open", timeout=WAIT_MS)
        check(a.locator('[data-testid="your-move"]')).to_be_visible(timeout=WAIT_MS)

        # moves typed reach the other side, announced
        type_move(a, "22-18")
        check(b.locator('[data-testid="moves"]')).to_contain_text("22-18", timeout=WAIT_MS)
        check(b.locator('[data-testid="announce"]')).to_have_text(
            "Your opponent played 22-18. Your move.", timeout=WAIT_MS
        )
        check(a.locator('[data-testid="their-move"]')).to_be_visible(timeout=WAIT_MS)
        type_move(b, "11-15")
        check(a.locator('[data-testid="moves"]')).to_contain_text("11-15", timeout=WAIT_MS)

        # Anna asks to take her move back; Bruno allows it
        a.click('[data-testid="takeback"]')
        check(a.locator('[data-testid="takeback-pending"]')).to_be_visible()
        b.click('[data-testid="accept-takeback"]', timeout=WAIT_MS)
        check(a.locator('[data-testid="your-move"]')).to_be_visible(timeout=WAIT_MS)
        check(a.locator('[data-testid="moves"]')).to_have_count(0)

        # Anna plays again; Bruno reloads (a dropped connection) and finds the game as it is
        type_move(a, "21-17")
        b.reload()
        check(b.locator('[data-testid="moves"]')).to_contain_text("21-17")
        check(b.locator("#versus")).to_have_attribute("data-socket", "open", timeout=WAIT_MS)
        type_move(b, "11-15")
        check(a.locator('[data-testid="moves"]')).to_contain_text("11-15", timeout=WAIT_MS)

        # a draw offered and accepted ends the game on both screens
        a.click('[data-testid="offer-draw"]')
        check(a.locator('[data-testid="draw-pending"]')).to_be_visible()
        b.click('[data-testid="accept-draw"]', timeout=WAIT_MS)
        for tab in (a, b):
            check(tab.locator('[data-testid="result"]')).to_contain_text(
                "The game is drawn.", timeout=WAIT_MS
            )
            check(tab.locator('[data-testid="pdn-link"]')).to_be_visible()
        game = VersusGame.objects.get()
        assert (game.result, game.reason, len(game.moves)) == ("1-1", "agreed", 2)

        for tab in (a, b):
            assert csp_violations(tab) == []
            assert run_axe(tab) == []
        # the finished game is in both lists; the list and the challenge form pass axe too
        for tab in (a, b):
            tab.goto(f"{server}/versus/")
            check(tab.locator('[data-testid="finished"]')).to_contain_text("1-1")
        for path in ("/versus/", "/versus/new/"):
            a.goto(server + path)
            assert run_axe(a) == [], path
            assert csp_violations(a) == [], path
    finally:
        for context in contexts:
            context.close()
    assert errors == [], errors


def quiet_move(variant_board) -> str:
    """A legal move of the game's position that captures nothing and offers the opponent no
    capture, as the move box takes it (the game stays quiet for the steps of the test)."""
    board = variant_board
    for move in board.legal_moves:
        if move.captured:
            continue
        text = board.move_text(move)
        board.push(move)
        quiet = not any(reply.captured for reply in board.legal_moves)
        board.pop()
        if quiet:
            return text
    raise AssertionError(f"no quiet move in {board!r}")


@pytest.mark.parametrize("variant", ["international", "brazilian"])
def test_a_game_in_each_variant_goes_to_its_end_with_a_take_back_a_reconnect_and_a_resignation(
    chromium,
    server,
    django_user_model,
    variant,
):
    """The Czech game above ends in a draw agreed; here the 10x10 and the Brazilian game: moves
    both ways, a draw offered and declined, a take-back allowed, a reload, and Black resigns."""
    check = expect()
    anna = _make_user(django_user_model, "anna")
    bruno = _make_user(django_user_model, "bruno")
    errors: list[str] = []
    contexts = []

    def play_next(tab, other) -> str:
        move = quiet_move(VersusGame.objects.get().board())
        type_move(tab, move)
        check(other.locator('[data-testid="moves"]')).to_contain_text(move, timeout=WAIT_MS)
        return move

    try:
        a_ctx, a = open_as(chromium, server, anna, errors)
        b_ctx, b = open_as(chromium, server, bruno, errors)
        contexts = [a_ctx, b_ctx]
        a.goto(f"{server}/versus/new/")
        a.check(f'input[name="variant"][value="{variant}"]')
        a.check('input[name="colour"][value="white"]')
        a.check('input[name="time"][value="none"]')
        a.click('[data-testid="create-challenge"]')
        b.goto(a.locator('[data-testid="share-link"]').input_value())
        b.click('[data-testid="accept"]')
        for tab in (a, b):
            check(tab.locator("#versus")).to_have_attribute("data-socket", "open", timeout=WAIT_MS)
        check(a.locator('[data-testid="your-move"]')).to_be_visible(timeout=WAIT_MS)
        assert VersusGame.objects.get().variant == variant

        play_next(a, b)
        play_next(b, a)
        # a draw offered by White and declined by Black: the game goes on
        a.click('[data-testid="offer-draw"]')
        b.click('[data-testid="decline-draw"]', timeout=WAIT_MS)
        check(a.locator('[data-testid="draw-pending"]')).to_have_count(0, timeout=WAIT_MS)
        # White moves and takes it back with Black's leave
        play_next(a, b)
        a.click('[data-testid="takeback"]')
        b.click('[data-testid="accept-takeback"]', timeout=WAIT_MS)
        check(a.locator('[data-testid="your-move"]')).to_be_visible(timeout=WAIT_MS)
        assert len(VersusGame.objects.get().moves) == 2
        # White plays again while Black's connection drops (a reload): Black finds the move
        move = quiet_move(VersusGame.objects.get().board())
        type_move(a, move)
        b.reload()
        check(b.locator('[data-testid="moves"]')).to_contain_text(move, timeout=WAIT_MS)
        check(b.locator("#versus")).to_have_attribute("data-socket", "open", timeout=WAIT_MS)
        play_next(b, a)
        # Black resigns: both screens show the end, and the game is over 2-0
        check(b.locator('[data-testid="their-move"]')).to_be_visible(timeout=WAIT_MS)
        b.click('[data-testid="resign"]')
        for tab in (a, b):
            check(tab.locator('[data-testid="result"]')).to_contain_text(
                "Black resigned.", timeout=WAIT_MS
            )
            check(tab.locator('[data-testid="pdn-link"]')).to_be_visible()
        game = VersusGame.objects.get()
        assert (game.variant, game.result, game.reason, len(game.moves)) == (
            variant,
            "2-0",
            "resigned",
            4,
        )
        for tab in (a, b):
            assert csp_violations(tab) == []
    finally:
        for context in contexts:
            context.close()
    assert errors == [], errors


def test_moves_go_over_the_socket_and_a_premove_is_played_as_soon_as_the_opponent_moves(
    chromium,
    server,
    django_user_model,
):
    """Clicked moves travel on the socket (no move is posted over HTTP); Black sets a premove
    while White thinks, sees it highlighted, and it is played the moment White's move arrives;
    a premove that White's move makes illegal is dropped with a note; Escape cancels one."""
    check = expect()
    anna = _make_user(django_user_model, "anna")
    bruno = _make_user(django_user_model, "bruno")
    game = VersusGame.challenge(anna, variant="czech", colour="white")
    with ThreadPoolExecutor(1) as pool:  # not in the thread of Playwright's event loop
        pool.submit(game.accept, bruno).result()
    errors: list[str] = []
    posted: list[str] = []
    contexts = []
    try:
        a_ctx, a = open_as(chromium, server, anna, errors)
        b_ctx, b = open_as(chromium, server, bruno, errors)
        contexts = [a_ctx, b_ctx]
        for tab in (a, b):
            tab.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)
            tab.goto(f"{server}/versus/g/{game.token}/")
            check(tab.locator("#versus")).to_have_attribute("data-socket", "open", timeout=WAIT_MS)

        # Black's premove while White thinks: shown, and played once White's move arrives
        click_move(b, 9, 13)
        check(b.locator('[data-testid="premove"]')).to_contain_text("9-13")
        check(b.locator('#versus-board [data-square="9"]')).to_have_class("square dark is-premove")
        click_move(a, 22, 18)
        for tab in (a, b):
            check(tab.locator('[data-testid="moves"]')).to_contain_text("9-13", timeout=WAIT_MS)
        check(b.locator('[data-testid="premove"]')).to_be_hidden()
        check(a.locator('[data-testid="your-move"]')).to_be_visible(timeout=WAIT_MS)

        # Escape cancels a premove (the keyboard, as on the board)
        click_move(b, 10, 15)
        check(b.locator('[data-testid="premove"]')).to_be_visible()
        b.locator("#versus-board-svg").focus()
        b.keyboard.press("Escape")
        check(b.locator('[data-testid="premove"]')).to_be_hidden()
        check(b.locator("#versus-board .is-premove")).to_have_count(0)

        # a premove that White's move makes illegal is dropped with a note
        click_move(b, 10, 15)
        click_move(a, 18, 15)
        check(b.locator('[data-testid="announce"]')).to_contain_text(
            "Your premove was not legal", timeout=WAIT_MS
        )
        check(b.locator('[data-testid="premove"]')).to_be_hidden()
        game.refresh_from_db()
        assert game.moves == [[22, 18], [9, 13], [18, 15]]
        assert not [url for url in posted if url.endswith("/move")], posted
        for tab in (a, b):
            assert csp_violations(tab) == []
            assert run_axe(tab) == []
    finally:
        for context in contexts:
            context.close()
    assert errors == [], errors
