"""Playing the computer (issue 16): starting a game, moves, illegal moves with their rule, the
computer's reply in the request (instant levels) or from a worker's task (the page follows the
game), takeback, hint, resignation, the end by the rules, my games, replay, PDN, the visitor's
games handed over at sign-up, a class's games for its teachers, and bad input (never a 500).

The computer here is ``play_helpers.FakeSearch`` (the first legal move by its route; levels 1-2
instant), so a test knows what it will play; the worker tests and the browser journeys use the
real engine."""

from __future__ import annotations

import re

import pytest
from django.template import Context, Template
from django.test import Client

import dama
from play import tasks
from play.models import Conflict, Game
from play.suggest import level_for_rating
from tests.web.play_helpers import game_id, install_fake_search

pytestmark = pytest.mark.django_db


@pytest.fixture
def fake_search(monkeypatch):
    return install_fake_search(monkeypatch)


HX = {"HTTP_HX_REQUEST": "true"}
HX_HEADER = {"HX-Request": "true"}
#: White (the player) captures Black's last man with 22x15
LAST_CAPTURE = "W:W22:B18"
#: two kings that shuffle: the fake computer and the first legal moves repeat the position
SHUFFLE = "W:WK32:BK1"


def start(client, variant="czech", level="1", color="white", fen="") -> Game:
    data = {"level": level, "color": color}
    if fen:
        data["fen"] = fen
    response = client.post(f"/play/{variant}/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    return Game.objects.get(pk=game_id(response))


def move(client, game, text="", route="") -> tuple[int, str]:
    response = client.post(f"/play/game/{game.pk}/move", {"move": text, "route": route}, **HX)
    return response.status_code, response.content.decode()


# -- starting ------------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["czech", "international", "brazilian"])
def test_the_start_page_offers_levels_and_colours_in_each_variant(client, variant, fake_search):
    page = client.get(f"/play/{variant}/").content.decode()
    assert page.count('name="level"') == 8 and page.count('name="color"') == 3
    assert 'data-testid="new-game"' in page


def test_a_visitor_starts_a_game_and_the_computer_replies_at_once_at_an_instant_level(
    client, fake_search
):
    game = start(client)
    assert game.user is None and game.state == Game.State.PLAYER and game.moves == []
    status, html = move(client, game, "22-18")
    assert status == 200
    game.refresh_from_db()
    assert game.moves == [[22, 18], [9, 13]]  # the fake computer: the first route, 9-13
    assert game.state == Game.State.PLAYER and game.version == 2
    assert 'data-testid="computer-move">The computer played 9-13.' in html
    assert re.search(r'data-ply="1"[^>]*>22-18</a> <a [^>]*data-ply="2"[^>]*>9-13</a>', html)
    assert len(fake_search.calls) == 1


def test_a_clicked_move_is_posted_as_its_route(client, fake_search):
    game = start(client)
    status, _html = move(client, game, route="22,18")
    assert status == 200
    game.refresh_from_db()
    assert game.moves[0] == [22, 18]


def test_a_capture_clicked_landing_by_landing_goes_on_until_it_is_complete(client, fake_search):
    game = start(client, fen="W:W27:B23,14,2")  # 27x18x9 (one more to take? no: 9 is the end)
    status, html = move(client, game, route="27,18")
    assert status == 200 and 'data-path="27,18"' in html
    game.refresh_from_db()
    assert game.moves == []
    status, html = move(client, game, route="27,18,9")
    assert status == 200
    game.refresh_from_db()
    assert game.moves[0] == [27, 18, 9]


def test_the_computer_moves_first_when_the_player_takes_black(client, fake_search):
    game = start(client, color="black")
    assert not game.player_white and game.moves == [[21, 17]]
    page = client.get(f"/play/game/{game.pk}/").content.decode()
    assert 'data-flipped="1"' in page  # seen from Black's side
    assert "The computer played 21-17." in page


def test_a_random_colour_is_white_or_black(client, fake_search):
    game = start(client, color="random")
    assert game.player_white in (True, False)


def test_a_game_from_a_position_keeps_it_and_starts_there(client, fake_search):
    game = start(client, fen="W:W25,K30:B12")
    assert game.start_fen == "W:W25,K30:B12" and game.source == Game.Source.POSITION
    response = client.get("/play/czech/?fen=W:W25,K30:B12&from=puzzle&color=black")
    html = response.content.decode()
    assert response.status_code == 200 and 'data-testid="from-position"' in html
    assert 'value="puzzle"' in html and 'value="black" checked' in html


# -- illegal and bad input ---------------------------------------------------------------------------


def test_an_illegal_move_is_refused_with_the_rule_and_its_article_and_changes_nothing(
    client, fake_search
):
    game = start(client)
    status, html = move(client, game, "22-26")  # a man backwards
    assert status == 400
    assert 'data-testid="illegal"' in html and "CUD 2006 art." in html
    game.refresh_from_db()
    assert game.moves == [] and game.version == 0
    assert not fake_search.calls


def test_ignoring_a_compulsory_capture_is_explained(client, fake_search):
    game = start(client, fen="W:W22,31:B18")
    status, html = move(client, game, "31-27")
    assert status == 400 and 'data-testid="illegal"' in html
    assert "capture" in html.lower() and "CUD 2006 art." in html


@pytest.mark.parametrize(
    "data",
    [
        {"move": ""},
        {"move": "zzz"},
        {"move": "99-100"},
        {"move": "22-18" * 100},
        {"route": "a,b"},
        {"route": "22"},
        {"route": ",".join(["22"] * 300)},
        {"move": "\x00"},
    ],
)
def test_unreadable_moves_get_a_400_with_a_message(client, fake_search, data):
    game = start(client)
    response = client.post(f"/play/game/{game.pk}/move", data, **HX)
    assert response.status_code == 400, data
    assert 'data-testid="bad"' in response.content.decode() or 'data-testid="illegal"' in (
        response.content.decode()
    )
    game.refresh_from_db()
    assert game.moves == []


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"level": "9", "color": "white"}, "Choose a level from 1 to 8."),
        ({"level": "abc", "color": "white"}, "Choose a level from 1 to 8."),
        ({"level": "", "color": "white"}, "Choose a level from 1 to 8."),
        ({"level": "1", "color": "purple"}, "Choose White, Black or a random colour."),
        ({"level": "1", "color": "white", "fen": "not a fen"}, "The position is not valid"),
        ({"level": "1", "color": "white", "fen": "B:W22:B"}, "The game is already over"),
        ({"level": "1", "color": "white", "fen": "W:W" + "1," * 300}, "too long"),
    ],
)
def test_a_bad_start_is_a_400_with_the_reason(client, fake_search, data, message):
    response = client.post("/play/czech/", data)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Game.objects.exists()


def test_a_bad_position_in_the_link_is_a_400_and_an_unknown_variant_a_404(client, fake_search):
    response = client.get("/play/czech/?fen=W:W99:B1")
    assert response.status_code == 400 and "The position is not valid" in response.content.decode()
    assert client.get("/play/checkers/").status_code == 404


def test_a_level_of_five_thousand_digits_is_a_form_error_not_a_500(client, fake_search):
    response = client.post("/play/czech/", {"level": "9" * 5000, "color": "white"})
    assert response.status_code == 400
    assert "Choose a level from 1 to 8." in response.content.decode()
    assert not Game.objects.exists()


@pytest.mark.parametrize("version", ["9" * 4400, "9" * 5000, "²", "١", "-1", "1_0"])
def test_a_wait_poll_whose_version_is_not_a_number_gets_the_game_as_it_stands(
    client, fake_search, version
):
    game = start(client, level="5")
    assert move(client, game, "22-18")[0] == 200  # the computer thinks: version 1 waits
    response = client.get(f"/play/game/{game.pk}/wait", {"v": version, "n": "9" * 5000}, **HX)
    assert response.status_code == 200 and response.headers["HX-Retarget"] == "#game"
    assert 'data-testid="thinking"' in response.content.decode()
    response = client.get(f"/play/game/{game.pk}/wait", {"v": version})
    assert response.status_code == 302 and response.url == f"/play/game/{game.pk}/"


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("server", ["uvicorn", "daphne"])
def test_a_wait_poll_with_a_4400_digit_version_is_no_500_under_a_real_asgi_server(
    student, fake_search, server
):
    """The poll as a browser sends it to the ASGI servers the site runs under (uvicorn in
    production, daphne's runserver on a laptop), on loopback in this process."""
    import urllib.error
    import urllib.request

    from dama_learn.asgi import application
    from tests.load.servers import serve_daphne_in_thread, serve_in_thread

    client = Client()
    client.force_login(student)
    game = start(client)
    serve = serve_in_thread if server == "uvicorn" else serve_daphne_in_thread
    with serve(application) as base:
        request = urllib.request.Request(
            f"{base}/play/game/{game.pk}/wait?v={'9' * 4400}&n=1",
            headers={"Cookie": f"sessionid={client.cookies['sessionid'].value}", **HX_HEADER},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, headers = response.status, response.headers
        except urllib.error.HTTPError as exc:
            status, headers = exc.code, exc.headers
    assert status == 200 and headers["HX-Retarget"] == "#game"


@pytest.mark.parametrize(
    "url",
    [
        "/play/game/999999/",
        "/play/game/99999999999999999999999/",
        "/play/game/99999999999999999999999/replay/",
        "/play/game/99999999999999999999999/pdn",
        "/play/class/99999999999999999999999/",
    ],
)
def test_unknown_ids_are_404s(client, student, url):
    client.force_login(student)
    assert client.get(url).status_code == 404


def test_moves_while_the_computer_thinks_or_after_the_end_are_refused(client, fake_search):
    game = start(client, level="5")
    status, _ = move(client, game, "22-18")
    assert status == 200
    status, html = move(client, game, "18-15")
    assert status == 409 and "Wait for the computer" in html
    won = start(client, fen=LAST_CAPTURE)
    assert move(client, won, "22x15")[0] == 200
    status, html = move(client, won, "15-10")
    assert status == 400 and "The game is over." in html


# -- the worker's reply, followed by the page ---------------------------------------------------------


def test_at_a_worker_level_the_page_follows_the_game_until_the_reply_comes(
    client, fake_search, django_capture_on_commit_callbacks
):
    game = start(client, level="5")
    with django_capture_on_commit_callbacks() as callbacks:
        status, html = move(client, game, "22-18")
    assert status == 200 and 'data-testid="thinking"' in html
    assert f"/play/game/{game.pk}/wait?v=1&amp;n=1" in html
    assert 'hx-trigger="load delay:500ms"' in html
    assert len(callbacks) == 1  # the task is sent once the move is committed
    game.refresh_from_db()
    assert game.state == Game.State.THINKING and game.version == 1
    # the poll: nothing new yet, so the next poll, a little later
    response = client.get(f"/play/game/{game.pk}/wait?v=1&n=1", **HX)
    html = response.content.decode()
    assert response.status_code == 200 and html.startswith('<div class="poll"')
    assert "wait?v=1&amp;n=2" in html and 'hx-trigger="load delay:1000ms"' in html
    assert "HX-Retarget" not in response.headers
    # without htmx: nothing new
    assert client.get(f"/play/game/{game.pk}/wait?v=1").status_code == 204
    assert tasks.computer_move(game.pk, 1) == "played"
    response = client.get(f"/play/game/{game.pk}/wait?v=1&n=2", **HX)
    html = response.content.decode()
    assert response.status_code == 200 and "The computer played 9-13." in html
    # the game region replaces the game (the poll was the target)
    assert (
        response.headers["HX-Retarget"] == "#game" and response.headers["HX-Reswap"] == "outerHTML"
    )
    assert "hx-trigger" not in html.split('data-testid="feedback"')[1]  # polling stops
    # the same task delivered again does nothing
    assert tasks.computer_move(game.pk, 1) == "stale"
    game.refresh_from_db()
    assert game.moves == [[22, 18], [9, 13]] and game.version == 2


def test_a_reply_for_a_position_taken_back_is_not_played(client, fake_search):
    game = start(client, level="5")
    move(client, game, "22-18")
    response = client.post(f"/play/game/{game.pk}/takeback", **HX)
    assert response.status_code == 200
    game.refresh_from_db()
    assert game.moves == [] and game.state == Game.State.PLAYER and game.version == 2
    assert tasks.computer_move(game.pk, 1) == "stale"
    game.refresh_from_db()
    assert game.moves == [] and game.version == 2


def test_a_double_submit_writes_once(client, fake_search):
    game = start(client)
    first, second = Game.objects.get(pk=game.pk), Game.objects.get(pk=game.pk)
    assert first.play(text="22-18").kind == "moved"
    with pytest.raises(Conflict):
        second.play(text="21-17")
    game.refresh_from_db()
    assert game.moves == [[22, 18], [9, 13]]


def test_a_stale_tab_gets_a_409_with_the_game_as_it_stands(client, fake_search, monkeypatch):
    game = start(client)
    real_write = Game._write

    def raced(self, expected, **fields):
        Game.objects.filter(pk=self.pk).update(version=expected + 5)  # another tab was first
        return real_write(self, expected, **fields)

    monkeypatch.setattr(Game, "_write", raced)
    status, html = move(client, game, "22-18")
    assert status == 409 and "changed in another window" in html


def test_a_lost_message_is_sent_again_when_the_page_asks(
    client, fake_search, django_capture_on_commit_callbacks
):
    from datetime import timedelta

    from django.utils import timezone

    game = start(client, level="5")
    move(client, game, "22-18")
    Game.objects.filter(pk=game.pk).update(asked=timezone.now() - timedelta(seconds=60))
    with django_capture_on_commit_callbacks() as callbacks:
        assert 'class="poll"' in client.get(f"/play/game/{game.pk}/wait?v=1", **HX).content.decode()
    assert len(callbacks) == 1
    with django_capture_on_commit_callbacks() as callbacks:  # asked just now: not again
        client.get(f"/play/game/{game.pk}/wait?v=1", **HX)
    assert callbacks == []


# -- takeback, hint, resignation ---------------------------------------------------------------------


def test_takeback_undoes_the_players_move_and_the_computers_reply(client, fake_search):
    game = start(client)
    move(client, game, "22-18")
    move(client, game, "18-14")
    response = client.post(f"/play/game/{game.pk}/takeback", **HX)
    html = response.content.decode()
    assert response.status_code == 200 and 'data-testid="taken-back"' in html
    game.refresh_from_db()
    assert game.moves == [[22, 18], [9, 13]] and game.takebacks == 1


def test_takeback_with_no_move_of_the_players_is_a_400(client, fake_search):
    game = start(client, color="black")
    response = client.post(f"/play/game/{game.pk}/takeback", **HX)
    assert response.status_code == 400 and "no move of yours" in response.content.decode()
    game.refresh_from_db()
    assert game.moves == [[21, 17]]


def test_a_takeback_after_a_lost_game_plays_on(client, fake_search):
    game = start(client, fen="W:W28:B19,K1")  # 28-24 walks into 19x28: no White piece left
    status, html = move(client, game, "28-24")
    assert status == 200 and 'data-testid="result"' in html and "The computer won." in html
    response = client.post(f"/play/game/{game.pk}/takeback", **HX)
    assert response.status_code == 200
    game.refresh_from_db()
    assert game.state == Game.State.PLAYER and game.result == "" and game.moves == []


def test_a_hint_at_an_instant_level_comes_with_the_answer(client, fake_search):
    game = start(client)
    response = client.post(f"/play/game/{game.pk}/hint", **HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert 'data-testid="hint">The engine would play 21-17.' in html
    assert "arrow" in html.split('id="game-board-svg"')[1].split("</svg>")[0].lower()
    game.refresh_from_db()
    assert game.hints == 1 and game.moves == []


def test_no_hint_is_given_in_a_sealed_position_the_computer_led_to(client, fake_search):
    """A position sealed for an exam (core.models.SealedPosition) gets no hint, even when the
    game came there by the computer's move: the page has no Hint button and a POST is refused."""
    from core.models import SealedPosition

    board = dama.Board("czech")
    board.push(sorted(board.generate_legal_moves(), key=lambda m: m.routes[0])[0])
    SealedPosition.seal([board.fen()], "czech", label="exam:1")
    game = start(client, color="black")  # the fake computer plays that first move
    assert game.board().fen() == board.fen() and game.player_to_move
    page = client.get(f"/play/game/{game.pk}/").content.decode()
    assert 'data-testid="hint-button"' not in page
    response = client.post(f"/play/game/{game.pk}/hint", **HX)
    assert response.status_code == 403 and "belongs to an exam" in response.content.decode()
    game.refresh_from_db()
    assert game.hints == 0 and game.hint is None


def test_a_hint_at_a_worker_level_is_searched_by_the_worker(
    client, fake_search, django_capture_on_commit_callbacks
):
    game = start(client, level="6")
    with django_capture_on_commit_callbacks() as callbacks:
        html = client.post(f"/play/game/{game.pk}/hint", **HX).content.decode()
    assert 'data-testid="hint-pending"' in html and len(callbacks) == 1
    assert 'hx-trigger="load delay:1000ms"' in html  # the hint is searched at level 8: a second
    poll = client.get(f"/play/game/{game.pk}/wait?v=0&n=1", **HX).content.decode()
    assert 'hx-trigger="load delay:2000ms"' in poll and 'data-testid="hint-pending"' not in poll
    assert tasks.find_hint(game.pk, 0) == "found"
    html = client.get(f"/play/game/{game.pk}/wait?v=0", **HX).content.decode()
    assert "The engine would play 21-17." in html
    assert tasks.find_hint(game.pk, 0) == "stale"  # delivered twice: searched once
    # after the next move the hint is gone
    move(client, game, "22-18")
    html = client.get(f"/play/game/{game.pk}/", **HX).content.decode()
    assert "The engine would play" not in html


def test_resigning_ends_the_game_and_cannot_be_done_twice(client, fake_search):
    game = start(client)
    html = client.post(f"/play/game/{game.pk}/resign", **HX).content.decode()
    assert "You resigned" in html and "The computer won." in html
    game.refresh_from_db()
    assert game.result == "0-2" and game.reason == "resigned"
    assert client.post(f"/play/game/{game.pk}/resign", **HX).status_code == 400
    assert client.post(f"/play/game/{game.pk}/takeback", **HX).status_code == 400


def test_a_plain_form_post_is_sent_back_to_the_game_page(client, fake_search):
    game = start(client)
    response = client.post(f"/play/game/{game.pk}/move", {"move": "22-18"})
    assert response.status_code == 302 and response["Location"] == f"/play/game/{game.pk}/"
    response = client.post(f"/play/game/{game.pk}/move", {"move": "22-26"})
    assert response.status_code == 400 and "<html" in response.content.decode()


# -- the end by the rules ------------------------------------------------------------------------------


def test_capturing_the_last_piece_wins_with_the_article(client, fake_search):
    game = start(client, fen=LAST_CAPTURE)
    status, html = move(client, game, "22x15")
    assert status == 200
    assert "You won!" in html and "Black has no pieces left and loses." in html
    assert "CUD 2006 art. 7.2c" in html
    game.refresh_from_db()
    assert (game.state, game.result, game.reason) == (Game.State.OVER, "2-0", "no_pieces")
    assert 'data-testid="pdn-link"' in html and 'data-testid="replay-link"' in html


def test_a_threefold_repetition_is_a_draw_with_the_article(client, fake_search):
    game = start(client, fen=SHUFFLE)
    for text in ("32-5", "5-1", "1-5", "5-1", "1-5"):
        status, html = move(client, game, text)
        assert status == 200, html
    game.refresh_from_db()
    assert (game.result, game.reason) == ("1-1", "threefold")
    assert "The game is drawn." in html and "CUD 2006 art. 6.1" in html


def test_the_end_is_told_in_czech_too(client, fake_search):
    client.post("/language", {"language": "cs", "next": "/"})
    game = start(client, fen=LAST_CAPTURE)
    _status, html = move(client, game, "22x15")
    assert "Černý nemá žádné figury a prohrává." in html and "CUD 2006 čl. 7.2c" in html


@pytest.mark.parametrize(
    ("variant", "fen", "capture", "article"),
    [
        ("international", "W:W33:B28", "33x22", "SDS international art. 7"),
        ("brazilian", "W:W22:B18", "22x15", "SDS Brazilian art. 7"),
    ],
)
def test_each_variant_ends_by_its_own_rules(client, fake_search, variant, fen, capture, article):
    game = start(client, variant=variant, fen=fen)
    status, html = move(client, game, capture)
    assert status == 200 and "You won!" in html and article in html


# -- my games, replay, PDN ------------------------------------------------------------------------------


def test_my_games_lists_the_accounts_games_only(client, student, outsider, fake_search):
    client.force_login(outsider)
    start(client)
    client.force_login(student)
    mine = start(client)
    html = client.get("/play/").content.decode()
    assert f'data-game="{mine.pk}"' in html and html.count("data-game=") == 1


def test_the_replay_steps_through_every_move(client, fake_search):
    game = start(client)
    move(client, game, "22-18")
    html = client.get(f"/play/game/{game.pk}/replay/").content.decode()
    assert html.count("data-frame=") == 3 and "1. 22-18" in html and "2. 9-13" in html
    assert "data-replay" in html and 'data-testid="play-on"' in html


def test_the_pdn_download_has_the_tags_moves_and_result(client, student, fake_search):
    client.force_login(student)
    game = start(client, fen=LAST_CAPTURE)
    move(client, game, "22x15")
    response = client.get(f"/play/game/{game.pk}/pdn")
    assert response.status_code == 200
    assert response["Content-Disposition"] == f'attachment; filename="game-{game.pk}.pdn"'
    text = response.content.decode()
    assert '[White "standa"]' in text and '[Black "Computer (level 1)"]' in text
    assert '[FEN "W:W22:B18"]' in text and '[Result "2-0"]' in text
    assert "1. 22x15 2-0" in text
    # it reads back with the engine's own reader
    from play import engine

    assert engine.dama.pdn.read_game(text).end_board().fen() == "B:W15:B"


def test_a_game_in_play_downloads_with_an_open_result(client, fake_search):
    game = start(client)
    move(client, game, "22-18")
    text = client.get(f"/play/game/{game.pk}/pdn").content.decode()
    assert '[Result "*"]' in text and "1. 22-18 9-13 *" in text


# -- visitors, accounts and teachers ------------------------------------------------------------


def test_a_visitors_games_are_handed_over_at_sign_up(client, fake_search, django_user_model):
    game = start(client)
    move(client, game, "22-18")
    other = Client()
    assert other.get(f"/play/game/{game.pk}/").status_code == 404  # another visitor
    response = client.post(
        "/accounts/signup/",
        {
            "username": "newbie",
            "email": "newbie@example.com",
            "password1": "a-long-test-password-42",
            "password2": "a-long-test-password-42",
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    game.refresh_from_db()
    assert game.user == django_user_model.objects.get(username="newbie")
    assert client.get(f"/play/game/{game.pk}/").status_code == 200
    assert f'data-game="{game.pk}"' in client.get("/play/").content.decode()


def test_a_visitors_games_are_handed_over_at_log_in(client, student, fake_search):
    game = start(client)
    response = client.post(
        "/accounts/login/", {"username": "standa", "password": "a-long-test-password-42"}
    )
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.user == student


def test_an_accounts_game_is_not_anyone_elses(client, student, outsider, fake_search):
    client.force_login(student)
    game = start(client)
    other = Client()
    other.force_login(outsider)
    for url in ("", "replay/", "pdn"):
        assert other.get(f"/play/game/{game.pk}/{url}").status_code == 404
    assert other.post(f"/play/game/{game.pk}/move", {"move": "22-18"}).status_code == 404
    assert Client().get(f"/play/game/{game.pk}/").status_code == 404


@pytest.fixture
def school(teacher, student, outsider, django_user_model):
    from classroom.models import Classroom
    from tests.conftest import _make_user

    mine = Classroom.objects.create(name="4.B", variant="czech")
    mine.teachers.add(teacher)
    mine.memberships.create(user=student)
    other_teacher = _make_user(django_user_model, "oto", teacher=True)
    theirs = Classroom.objects.create(name="5.A", variant="czech")
    theirs.teachers.add(other_teacher)
    theirs.memberships.create(user=outsider)
    return mine, theirs, other_teacher


def test_a_teacher_sees_the_games_of_their_classes_students_only(
    client, teacher, student, outsider, school, fake_search
):
    mine, theirs, other_teacher = school
    games = {}
    for user in (student, outsider):
        player = Client()
        player.force_login(user)
        games[user.username] = start(player)
        move(player, games[user.username], "22-18")
    client.force_login(teacher)
    html = client.get(f"/play/class/{mine.pk}/").content.decode()
    assert f'data-game="{games["standa"].pk}"' in html
    assert f'data-game="{games["olga"].pk}"' not in html
    assert client.get(f"/play/class/{theirs.pk}/").status_code == 404
    assert client.get(f"/play/game/{games['standa'].pk}/replay/").status_code == 200
    assert client.get(f"/play/game/{games['standa'].pk}/pdn").status_code == 200
    assert client.get(f"/play/game/{games['olga'].pk}/replay/").status_code == 404
    assert client.get(f"/play/game/{games['olga'].pk}/pdn").status_code == 404
    # a teacher watches; only the player plays
    assert client.get(f"/play/game/{games['standa'].pk}/").status_code == 404
    class_page = client.get(f"/teach/classes/{mine.pk}/").content.decode()
    assert f"/play/class/{mine.pk}/" in class_page
    # the class page's own section: its students' latest games
    section = class_page.split('data-testid="class-games-section"')[1].split("</section>")[0]
    assert f'data-game="{games["standa"].pk}"' in section and "standa" in section
    assert f'data-game="{games["olga"].pk}"' not in section


def test_a_student_of_the_class_gets_a_403_for_its_games_page(client, student, school):
    mine, _theirs, _other = school
    client.force_login(student)
    assert client.get(f"/play/class/{mine.pk}/").status_code == 403


# -- links from the rest of the site, the suggested level ---------------------------------------


def render(text: str, **context) -> str:
    return Template("{% load play_tags %}" + text).render(Context(context))


def test_play_on_from_here_links_to_a_game_from_the_position(fake_search):
    html = render('{% play_on "czech" fen "puzzle" "black" %}', fen="W:W25,K30:B12")
    assert 'data-testid="play-on"' in html
    assert "/play/czech/?fen=W%3AW25%2CK30%3AB12&amp;from=puzzle&amp;color=black" in html
    # nothing where the game is over, or for a bad position or variant
    assert render('{% play_on "czech" "B:W22:B" %}').strip() == ""
    assert render('{% play_on "czech" "nonsense" %}').strip() == ""
    assert render('{% play_on "chess" "W:W22:B18" %}').strip() == ""


def test_the_board_editor_has_play_on_from_here(client, teacher, fake_search):
    from classroom.models import PuzzleSet

    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Shots", variant="czech")
    client.force_login(teacher)
    html = client.get(f"/teach/sets/{puzzle_set.pk}/puzzles/new/").content.decode()
    assert 'id="position-editor"' in html
    # the editor starts empty: no game there, but the start position has one
    response = client.post(
        f"/teach/sets/{puzzle_set.pk}/editor/board/",
        {"fen": "W:W21:B", "action": "start"},
        **HX,
    )
    html = response.content.decode()
    assert response.status_code == 200, html[:2000]
    assert 'data-testid="play-on"' in html and "from=editor" in html


def test_the_course_map_offers_a_first_game_at_the_suggested_level(rf, fake_search):
    from django.contrib.auth.models import AnonymousUser
    from django.contrib.sessions.backends.db import SessionStore

    request = rf.get("/learn/czech/")
    request.user, request.session = AnonymousUser(), SessionStore()
    html = render('{% play_offer "czech" %}', request=request)
    assert "Play your first game against the computer" in html and "level=1" in html


def test_a_finished_course_map_shows_the_offer(client, fake_search, monkeypatch):
    from lessons import views as lesson_views

    real = lesson_views.course_map

    def finished(course, records):
        cmap = real(course, records)
        cmap.next_step = None
        return cmap

    monkeypatch.setattr(lesson_views, "course_map", finished)
    html = client.get("/learn/czech/").content.decode()
    assert 'data-testid="course-finished"' in html and 'data-testid="play-offer"' in html


@pytest.mark.parametrize(
    ("rating", "deviation", "level"),
    [(1500, 350, 1), (1100, 60, 1), (1250, 60, 2), (1500, 80, 4), (1700, 80, 5), (2300, 60, 8)],
)
def test_the_suggested_level_follows_a_settled_puzzle_rating(rating, deviation, level):
    assert level_for_rating(rating, deviation) == level


def test_the_start_page_suggests_the_level_of_the_players_rating(client, student, fake_search):
    from puzzles.models import PlayerRating

    PlayerRating.objects.create(user=student, variant="czech", rating=1700, deviation=70)
    client.force_login(student)
    html = client.get("/play/czech/").content.decode()
    assert 'value="5" checked' in html and "Suggested for you: level 5" in html


def test_the_navigation_has_a_play_link(client, fake_search):
    html = client.get("/").content.decode()
    assert re.search(r'href="/play/\w+/"', html)


def test_a_solved_puzzle_offers_to_play_on_from_its_last_position(client, student, fake_search):
    from tests.puzzle_fixtures import make_puzzle

    puzzle = make_puzzle("czech_capture")
    client.force_login(student)
    html = client.get(f"/puzzles/czech/{puzzle.pk}/").content.decode()
    assert 'data-testid="play-on"' not in html  # not before it is solved
    attempt = re.search(r'data-attempt="(\d+)"', html).group(1)
    html = client.post(
        f"/puzzles/attempt/{attempt}/move", {"move": "28x19x12x3"}, **HX
    ).content.decode()
    assert 'data-testid="solved"' in html and 'data-testid="play-on"' in html
    url = re.search(r'href="(/play/czech/\?[^"]+)" data-testid="play-on"', html).group(1)
    assert "from=puzzle" in url and "color=white" in url
    page = client.get(url.replace("&amp;", "&"))
    assert page.status_code == 200 and 'data-testid="from-position"' in page.content.decode()


def test_a_done_lesson_step_offers_to_play_on_from_its_position(client, student, fake_search):
    from django.utils import timezone

    from lessons.course import get_course
    from lessons.models import StepProgress

    course = get_course("czech")
    step = next(s for s in course.steps if s.exercise.kind == "move")
    for done in course.steps[: step.index + 1]:
        StepProgress.objects.create(
            user=student, course="czech", step=done.slug, stars=3, attempts=1,
            completed_at=timezone.now(),
        )  # fmt: skip
    client.force_login(student)
    html = client.get(step.get_absolute_url()).content.decode()
    assert 'data-testid="play-on"' in html and "from=lesson" in html


def test_a_lost_hint_is_sent_again_when_the_page_asks(
    client, fake_search, django_capture_on_commit_callbacks, sent_tasks
):
    from datetime import timedelta

    from django.utils import timezone

    game = start(client, level="6")
    client.post(f"/play/game/{game.pk}/hint", **HX)
    with django_capture_on_commit_callbacks() as callbacks:  # asked just now
        assert client.get(f"/play/game/{game.pk}/wait?v=0").status_code == 204
    assert callbacks == []
    Game.objects.filter(pk=game.pk).update(asked=timezone.now() - timedelta(seconds=60))
    with django_capture_on_commit_callbacks(execute=True):
        assert client.get(f"/play/game/{game.pk}/wait?v=0").status_code == 204
    assert sent_tasks == [("play.find_hint", (game.pk, 0), "play")]  # the hint's, not a move's


@pytest.mark.parametrize("level", ["²", "٣٣", "8 ", "0", "9", "", "9" * 5000, "٨", "-1"])
def test_a_level_that_is_not_1_to_8_in_ascii_digits_is_a_form_error(level):
    from django.core.exceptions import ValidationError

    from play.models import check_level

    if level.strip() == "8":
        assert check_level(level) == 8
        return
    with pytest.raises(ValidationError):
        check_level(level)


def test_the_computer_goes_on_from_its_last_search_of_the_game_in_this_process(fake_search):
    """A worker level's search is given the game's memory (its tables from the last move), kept
    for the last few games of the process; an instant level's is given none."""
    from play import engine

    board = dama.Board("czech")
    engine._memories.clear()
    engine.search(board, 5, seed=1, game=7)
    engine.search(board, 8, seed=2, game=7)
    engine.search(board, 5, seed=3, game=8)
    engine.search(board, 1, seed=4, game=7)
    first, again, other, instant = fake_search.memories
    assert first is not None and again is first
    assert other is not None and other is not first
    assert first.max_entries == engine.MEMORY_ENTRIES
    assert instant is None
    for game in range(100, 100 + engine.GAME_MEMORIES):
        engine.search(board, 5, game=game)
    kept = [game for _module, game in engine._memories]
    assert kept == list(range(100, 100 + engine.GAME_MEMORIES))
    engine._memories.clear()


def test_a_search_memory_goes_only_to_the_engine_that_made_it(fake_search, monkeypatch):
    """The memories are kept by engine too: the real search never gets the tables a stand-in
    engine left for the same game id (the compiled search refuses a foreign object), nor the
    stand-in the real one's."""
    from play import engine
    from tests.web.play_helpers import FakeSearch

    board = dama.Board("czech")
    engine._memories.clear()
    engine.search(board, 5, seed=1, game=7)
    other = FakeSearch()
    monkeypatch.setattr(engine, "_search_module", lambda: other)
    engine.search(board, 5, seed=2, game=7)
    assert other.memories[0] is not fake_search.memories[0]
    assert len(engine._memories) == 2
    engine._memories.clear()


# -- how many games, and whose turn on the workers (issue 45) ------------------------------------


@pytest.fixture
def broker(sent_tasks):
    """The messages the workers get (task name, arguments, queue), in the order sent."""
    return sent_tasks


@pytest.fixture
def none_counted():
    """The games started an hour count in the cache: none counted before and after."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def committed(django_capture_on_commit_callbacks):
    """``with committed():`` runs what waits for the transaction's commit (the messages)."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def test_a_player_may_start_only_so_many_games_an_hour(
    client, student, fake_search, settings, none_counted
):
    settings.DAMA_PLAY_GAMES_PER_HOUR = 3
    client.force_login(student)
    for _ in range(3):
        start(client, level="5")
    response = client.post("/play/czech/", {"level": "5", "color": "white"})
    html = response.content.decode()
    assert response.status_code == 429 and int(response["Retry-After"]) > 3000
    assert 'data-testid="limit"' in html and "You have started 3 games in the last hour" in html
    assert 'data-testid="new-game"' in html  # the form is there, as it was
    assert Game.objects.count() == 3
    # a visitor is a player by their session
    visitor = Client()
    for _ in range(3):
        start(visitor)
    assert visitor.post("/play/czech/", {"level": "1", "color": "white"}).status_code == 429
    assert start(Client()).user is None  # another visitor


def test_one_address_may_start_only_so_many_games_an_hour(fake_search, settings, none_counted):
    settings.DAMA_PLAY_GAMES_PER_HOUR_PER_ADDRESS = 4
    for _ in range(4):  # a new session (no cookie) for each game
        start(Client(REMOTE_ADDR="203.0.113.7"))
    refused = Client(REMOTE_ADDR="203.0.113.7").post(
        "/play/czech/", {"level": "1", "color": "white"}
    )
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Too many games have been started from your network" in refused.content.decode()
    assert Game.objects.count() == 4
    start(Client(REMOTE_ADDR="198.51.100.1"))  # another address


def test_a_player_has_one_search_on_the_workers_the_next_is_sent_when_it_ends(
    client, fake_search, broker, committed
):
    with committed():
        first, second, third = (start(client, level="5") for _ in range(3))
        move(client, first, "22-18")
        move(client, second, "22-18")
        client.post(f"/play/game/{third.pk}/hint", **HX)  # a hint waits its turn as well
    assert broker == [("play.computer_move", (first.pk, 1), "play")]
    assert Game.objects.get(pk=second.pk).state == Game.State.THINKING
    with committed():
        assert tasks.computer_move(first.pk, 1) == "played"
    assert broker[1:] == [("play.computer_move", (second.pk, 1), "play")]
    with committed():
        assert tasks.computer_move(second.pk, 1) == "played"
    assert broker[2:] == [("play.find_hint", (third.pk, 0), "play")]
    with committed():
        assert tasks.find_hint(third.pk, 0) == "found"
    from play.models import Search

    assert Search.objects.count() == 0


def test_another_player_is_not_queued_behind_one_players_twelve_games(
    client, student, fake_search, broker, committed
):
    hog = Client(REMOTE_ADDR="203.0.113.9")
    with committed():
        games = [start(hog, level="8", color="black") for _ in range(12)]
    assert broker == [("play.computer_move", (games[0].pk, 0), "play")]
    client.force_login(student)
    with committed():
        mine = start(client, level="5")
        move(client, mine, "22-18")
    assert broker[1:] == [("play.computer_move", (mine.pk, 1), "play")]  # at once
    with committed():
        tasks.computer_move(games[0].pk, 0)
    # the hog's next game joins the queue behind the other player's search
    assert broker[2:] == [("play.computer_move", (games[1].pk, 0), "play")]


def test_the_visitors_of_one_address_share_a_few_turns(fake_search, broker, committed, settings):
    """A client that drops its cookie for each game is a new visitor each time: its address
    holds at most ``DAMA_PLAY_SEARCHES_PER_ADDRESS`` searches on the workers all the same."""
    settings.DAMA_PLAY_SEARCHES_PER_ADDRESS = 2
    with committed():
        games = [
            start(Client(REMOTE_ADDR="203.0.113.9"), color="black", level="8") for _ in range(3)
        ]
    assert [args for _name, args, _queue in broker] == [(games[0].pk, 0), (games[1].pk, 0)]
    with committed():
        tasks.computer_move(games[1].pk, 0)
    assert broker[2][1] == (games[2].pk, 0)


def test_a_lost_search_gives_its_players_turn_up_after_the_time_limit(
    client, fake_search, broker, committed, settings
):
    from datetime import timedelta

    from django.utils import timezone

    with committed():
        lost, waiting = start(client, level="5"), start(client, level="5")
        move(client, lost, "22-18")
        move(client, waiting, "22-18")
    assert broker == [("play.computer_move", (lost.pk, 1), "play")]
    from play.models import Search

    # its worker died: nothing comes back; the other game's page polls on
    long_ago = timezone.now() - timedelta(seconds=settings.DAMA_PLAY_SEARCH_LOST_SECONDS - 1)
    Search.objects.filter(game=lost).update(sent=long_ago)
    Game.objects.filter(pk=waiting.pk).update(asked=long_ago)
    with committed():  # not lost yet: the turn stays
        client.get(f"/play/game/{waiting.pk}/wait?v=1")
    assert len(broker) == 1
    long_ago -= timedelta(seconds=2)
    Search.objects.filter(game=lost).update(sent=long_ago)
    Game.objects.filter(pk=waiting.pk).update(asked=long_ago)
    with committed():
        assert client.get(f"/play/game/{waiting.pk}/wait?v=1").status_code == 204
    assert broker[1:] == [("play.computer_move", (waiting.pk, 1), "play")]
    # the lost game waits at the back of the line, and is sent again in its turn
    assert Search.objects.get(game=lost).sent is None
    with committed():
        tasks.computer_move(waiting.pk, 1)
    assert broker[2:] == [("play.computer_move", (lost.pk, 1), "play")]


def test_two_processes_never_send_a_players_searches_at_once(client, fake_search, broker):
    """The turn is a conditional update that a unique constraint guards: the second claim fails
    whatever the first process believed."""
    first, second = start(client, level="5"), start(client, level="5")
    move(client, first, "22-18")
    move(client, second, "22-18")  # both wait: nothing committed has sent them
    from play.models import Search

    searches = list(Search.objects.order_by("pk"))
    now = searches[0].asked
    assert searches[0]._claim(now) is True
    assert searches[1]._claim(now) is False
    assert list(Search.objects.order_by("pk").values_list("sent", flat=True)) == [now, None]


def test_the_computers_time_is_kept_from_the_move_to_its_reply(client, fake_search, monkeypatch):
    from datetime import timedelta

    from play import models as play_models

    clock = Clock(play_models.timezone.now())
    monkeypatch.setattr(play_models, "timezone", clock)
    game = start(client, level="5")
    move(client, game, "22-18")
    game.refresh_from_db()
    assert game.thinking_since == clock.at and game.thought == timedelta(0)
    assert game.thinking_time(clock.at + timedelta(seconds=5)) == timedelta(seconds=5)
    clock.at += timedelta(seconds=7)
    tasks.computer_move(game.pk, 1)
    game.refresh_from_db()
    assert game.thinking_since is None and game.thought == timedelta(seconds=7)
    assert game.thinking_time(clock.at + timedelta(minutes=5)) == timedelta(seconds=7)


class Clock:
    """A stand-in for ``django.utils.timezone`` whose ``now()`` is ``at``."""

    def __init__(self, at) -> None:
        self.at = at

    def now(self):
        return self.at


def test_a_search_sent_after_its_wait_in_the_line_is_not_sent_twice(
    client, fake_search, broker, committed
):
    """A game that waited its turn for long is sent when its turn comes; its page's poll then
    (the game has waited more than ``ASK_AGAIN_SECONDS`` since the move) must not send it a
    second time: the copy would search beside it, on a process another player needs."""
    from datetime import timedelta

    from django.utils import timezone

    from play.models import ASK_AGAIN_SECONDS

    with committed():
        first, second = start(client, level="5"), start(client, level="5")
        move(client, first, "22-18")
        move(client, second, "22-18")
    long_ago = timezone.now() - timedelta(seconds=ASK_AGAIN_SECONDS + 5)
    Game.objects.filter(pk=second.pk).update(asked=long_ago)  # it waited its turn that long
    with committed():
        tasks.computer_move(first.pk, 1)  # its turn: sent now
        assert client.get(f"/play/game/{second.pk}/wait?v=1").status_code == 204
    assert [args for _name, args, _queue in broker] == [(first.pk, 1), (second.pk, 1)]
