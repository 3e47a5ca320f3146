"""The game page as lichess players expect it (issue 47): a move list whose moves show their
positions (``?ply=N``, a board that takes no move there, the steps and the way back to the game,
a 400 for a bad number), and the clock chosen at the start (the player's time runs on their turn
only, from when their page shows it; the increment after each of their moves; the computer's
thinking never counted; a time run out loses, judged by the server).

The computer is ``play_helpers.FakeSearch`` (the first legal move by its route; levels 1-2 in the
request), the time a stand-in for ``django.utils.timezone`` in ``play.models``."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

import dama
from play import models as play_models
from play import tasks
from play.models import CLOCK_GRACE, Game
from tests.web.play_helpers import game_id, install_fake_search

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


class Clock:
    """``play.models``' ``timezone`` in these tests: ``now()`` is ``at``, moved on by the test."""

    def __init__(self, at) -> None:
        self.at = at

    def now(self):
        return self.at

    def wait(self, seconds: float) -> None:
        self.at += timedelta(seconds=seconds)


@pytest.fixture
def fake_search(monkeypatch):
    return install_fake_search(monkeypatch)


@pytest.fixture
def clock(monkeypatch) -> Clock:
    from django.utils import timezone

    at = Clock(timezone.now())
    monkeypatch.setattr(play_models, "timezone", at)
    return at


def start(client, level="1", clock="", fen="", color="white") -> Game:
    data = {"level": level, "color": color, "clock": clock}
    if fen:
        data["fen"] = fen
    response = client.post("/play/czech/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    return Game.objects.get(pk=game_id(response))


def move(client, game, text) -> tuple[int, str]:
    response = client.post(f"/play/game/{game.pk}/move", {"move": text}, **HX)
    return response.status_code, response.content.decode()


def page(client, game, query="", **headers) -> tuple[int, str]:
    response = client.get(f"/play/game/{game.pk}/{query}", **headers)
    return response.status_code, response.content.decode()


def fen_after(*texts: str) -> str:
    board = dama.Board("czech")
    for text in texts:
        board.push(board.parse_move(text))
    return board.fen()


def links(html: str) -> dict[int, str]:
    """The move list's links: ply -> address."""
    found = re.findall(r'<a class="move" href="([^"]*)"[^>]*data-ply="(\d+)"', html)
    return {int(ply): href.replace("&amp;", "&") for href, ply in found}


def current(html: str) -> list[int]:
    """The plies whose link is marked as the one shown."""
    return [int(p) for p in re.findall(r'data-ply="(\d+)"[^>]*aria-current="step"', html)]


def step_links(html: str) -> dict[str, str]:
    found = re.findall(r'<a class="[^"]*\bstep\b[^"]*" href="([^"]*)"[^>]*data-step="(\w+)"', html)
    return {name: href for href, name in found}


# -- the move list and the positions ---------------------------------------------------------------


def test_each_move_in_the_list_links_to_the_position_after_it(client, fake_search):
    game = start(client)
    move(client, game, "22-18")  # the computer: 9-13
    move(client, game, "23-19")  # the computer: 10-14
    status, html = page(client, game)
    assert status == 200
    url = f"/play/game/{game.pk}/"
    assert links(html) == {1: url + "?ply=1", 2: url + "?ply=2", 3: url + "?ply=3", 4: url}
    assert current(html) == [4]  # the game as it stands: its last move
    assert 'aria-label="1. 22-18"' in html and 'aria-label="1… 9-13"' in html
    assert 'hx-get="' + url + '?ply=1"' in html  # swapped in by htmx, a real link without it


def test_an_earlier_position_is_shown_on_a_board_that_takes_no_move(client, fake_search):
    game = start(client)
    move(client, game, "22-18")
    move(client, game, "23-19")
    status, html = page(client, game, "?ply=1")
    assert status == 200
    assert f'data-fen="{fen_after("22-18")}"' in html
    assert 'data-viewing="1"' in html and current(html) == [1]
    assert "You are looking at the position after 1. 22-18." in html
    # nothing to move with: no move form, no hint, no takeback; the way back to the game
    assert 'name="route"' not in html and 'class="move-form' not in html
    assert 'data-testid="hint-button"' not in html and 'data-testid="takeback"' not in html
    assert re.search(rf'href="/play/game/{game.pk}/"[^>]*data-testid="back-to-game"', html)
    game.refresh_from_db()
    assert len(game.moves) == 4 and game.version == 4  # looking changes nothing


def test_the_start_position_is_ply_zero_and_the_latest_is_the_game_itself(client, fake_search):
    game = start(client)
    move(client, game, "22-18")
    status, html = page(client, game, "?ply=0")
    assert status == 200 and f'data-fen="{dama.Board("czech").fen()}"' in html
    assert "You are looking at the start position." in html and current(html) == []
    status, html = page(client, game, "?ply=2")  # the last: the game, with its move form
    assert status == 200 and "data-viewing" not in html and 'name="route"' in html
    assert current(html) == [2]


def test_the_steps_lead_to_the_start_the_moves_before_and_after_and_the_game(client, fake_search):
    game = start(client)
    move(client, game, "22-18")
    move(client, game, "23-19")
    url = f"/play/game/{game.pk}/"
    _status, html = page(client, game, "?ply=2")
    assert step_links(html) == {
        "first": url + "?ply=0",
        "prev": url + "?ply=1",
        "next": url + "?ply=3",
        "last": url,
    }
    _status, html = page(client, game, "?ply=3")
    assert step_links(html)["next"] == url  # the move after the one before last: the game
    _status, html = page(client, game, "?ply=0")
    assert set(step_links(html)) == {"next", "last"}  # nothing before the start
    _status, html = page(client, game)
    assert step_links(html) == {"first": url + "?ply=0", "prev": url + "?ply=3"}


def test_htmx_gets_the_game_region_of_an_earlier_position(client, fake_search):
    game = start(client)
    move(client, game, "22-18")
    status, html = page(client, game, "?ply=1", **HX)
    assert status == 200 and html.lstrip().startswith('<div id="game"')
    assert 'data-viewing="1"' in html and f'data-fen="{fen_after("22-18")}"' in html


@pytest.mark.parametrize("ply", ["abc", "-1", "3", "1.5", "", "9" * 5000, "١", "²", "1_0", "%2B1"])
def test_a_bad_ply_is_a_400_with_a_message(client, fake_search, ply):
    game = start(client)
    move(client, game, "22-18")
    status, html = page(client, game, f"?ply={ply}")
    assert status == 400, ply
    assert "There is no such move in this game: choose a number from 0 to 2." in html
    status, html = page(client, game, f"?ply={ply}", **HX)
    assert status == 400 and 'data-testid="bad"' in html
    response = client.get(f"/play/game/{game.pk}/wait?v=0&ply={ply}", **HX)
    assert response.status_code == 400 and "no such move" in response.content.decode()


def test_a_poll_while_looking_at_an_earlier_position_keeps_it_and_adds_the_reply(
    client, fake_search
):
    game = start(client, level="5")  # the computer on a worker
    move(client, game, "22-18")
    status, html = page(client, game, "?ply=0", **HX)
    assert status == 200 and re.search(r'hx-get="[^"]*/wait\?v=1&amp;n=1&amp;ply=0"', html)
    assert 'data-testid="thinking"' in html
    assert client.get(f"/play/game/{game.pk}/wait?v=1&n=1&ply=0", **HX).status_code == 200
    tasks.computer_move(game.pk, 1)
    response = client.get(f"/play/game/{game.pk}/wait?v=1&n=1&ply=0", **HX)
    html = response.content.decode()
    assert response.status_code == 200 and response["HX-Retarget"] == "#game"
    assert 'data-viewing="0"' in html and set(links(html)) == {1, 2}  # the reply in the list


# -- the clock ------------------------------------------------------------------------------------


def test_the_start_form_offers_the_clocks(client, fake_search):
    html = client.get("/play/czech/").content.decode()
    values = re.findall(r'name="clock" value="([^"]*)"', html)
    assert values == ["", "5+3", "10+5", "15+10"]
    assert re.search(r'name="clock" value="" checked', html)  # none unless chosen


@pytest.mark.parametrize("clock", ["7+2", "5+", "abc", "5+3" * 200])
def test_a_clock_that_is_not_offered_is_a_400(client, fake_search, clock):
    response = client.post("/play/czech/", {"level": "1", "color": "white", "clock": clock})
    assert response.status_code == 400
    assert "Choose a clock: none, 5+3, 10+5, 15+10." in response.content.decode()
    assert not Game.objects.exists()


def test_a_game_with_a_clock_shows_both_clocks(client, fake_search, clock):
    game = start(client, clock="5+3")
    assert game.clock_base == timedelta(minutes=5) and game.clock_increment == timedelta(seconds=3)
    assert game.time_control == "5+3"
    status, html = page(client, game)
    assert status == 200 and "Clock 5+3" in html
    assert re.search(r'data-clock="player" data-ms="300000" data-running>', html)
    assert re.search(r'data-clock="computer" data-ms="300000">', html)
    assert 'data-testid="player-clock">5:00<' in html
    assert 'data-testid="computer-clock">5:00<' in html
    without = start(client)
    _status, html = page(client, without)
    assert "data-clocks" not in html and without.player_time_left() is None


def test_the_players_time_runs_on_their_turn_and_each_move_adds_the_increment(
    client, fake_search, clock
):
    game = start(client, clock="5+3")
    page(client, game)  # the page shows the game: the clock runs from now
    clock.wait(10)
    status, html = move(client, game, "22-18")  # the computer replies in the request
    assert status == 200
    game.refresh_from_db()
    assert game.player_time_left() == timedelta(minutes=5, seconds=-10 + 3)
    assert "Your clock: 4:53." in html  # said with the computer's move
    clock.wait(20)
    game.refresh_from_db()
    assert game.player_time_left() == timedelta(minutes=4, seconds=33)
    move(client, game, "23-19")
    game.refresh_from_db()
    assert game.player_time_left() == timedelta(minutes=4, seconds=36)


def test_the_computers_thinking_does_not_count_against_the_player(client, fake_search, clock):
    game = start(client, level="5", clock="5+3")  # the computer on a worker
    page(client, game)
    clock.wait(10)
    move(client, game, "22-18")
    game.refresh_from_db()
    assert game.state == Game.State.THINKING and game.player_clock_since is None
    clock.wait(60)  # the computer thinks (and waits for a worker) a minute
    assert game.player_time_left() == timedelta(minutes=4, seconds=53)
    assert game.computer_time_left() == timedelta(minutes=4)
    tasks.computer_move(game.pk, 1)
    clock.wait(1)  # the page's poll shows the reply a second later
    response = client.get(f"/play/game/{game.pk}/wait?v=1", **HX)
    assert response.status_code == 200
    game.refresh_from_db()
    assert game.player_time_left() == timedelta(minutes=4, seconds=53)
    assert game.computer_time_left() == timedelta(minutes=4, seconds=3)  # its increment too
    clock.wait(5)
    assert game.player_time_left() == timedelta(minutes=4, seconds=48)


def test_the_players_clock_starts_at_the_latest_a_little_after_the_reply(
    client, fake_search, clock
):
    """A page that does not look (closed, or a poll that never comes) does not stop the clock:
    it runs from ``CLOCK_GRACE`` after the computer's move."""
    game = start(client, level="5", clock="5+3")
    page(client, game)
    move(client, game, "22-18")
    tasks.computer_move(game.pk, 1)
    clock.wait(60)
    game.refresh_from_db()
    assert game.player_time_left() == timedelta(minutes=5, seconds=3) - (
        timedelta(seconds=60) - CLOCK_GRACE
    )


def test_a_time_run_out_loses_the_game_when_the_page_asks(client, fake_search, clock):
    game = start(client, clock="5+3")
    page(client, game)
    clock.wait(299)
    status, html = page(client, game, **HX)
    assert status == 200 and 'data-state="player"' in html
    assert 'data-testid="player-clock">0:01<' in html
    clock.wait(1)
    status, html = page(client, game, **HX)
    game.refresh_from_db()
    assert game.state == Game.State.OVER and game.reason == "time" and game.result == "0-2"
    assert game.outcome_for_player == "lost" and game.player_time_left() == timedelta(0)
    assert "Your time ran out: the computer wins." in html
    assert 'data-testid="takeback"' not in html


def test_a_move_after_the_time_ran_out_is_refused_and_the_game_lost(client, fake_search, clock):
    game = start(client, clock="5+3", color="black")  # the computer moved first, in the request
    page(client, game)
    clock.wait(301)
    status, _html = move(client, game, "9-13")
    assert status == 400
    game.refresh_from_db()
    assert game.state == Game.State.OVER and game.reason == "time" and game.result == "2-0"
    assert len(game.moves) == 1  # the move was not played
    assert game.takeback().kind == "nothing"  # nor is a time run out taken back


def test_the_model_judges_the_clock_without_a_page(client, fake_search, clock):
    game = start(client, clock="5+3")
    page(client, game)
    game.refresh_from_db()
    clock.wait(120)
    assert game.flag() is False
    clock.wait(180)
    assert game.flag() is True and game.reason == "time"
    assert game.flag() is False  # once
    game.refresh_from_db()
    assert game.state == Game.State.OVER and game.reason == "time"


def test_the_games_list_shows_a_game_whose_time_ran_out_as_lost(client, fake_search, clock):
    game = start(client, clock="5+3")
    page(client, game)
    clock.wait(400)
    html = client.get("/play/").content.decode()
    assert re.search(rf'data-game="{game.pk}">.*?game-result lost', html, re.S)
    game.refresh_from_db()
    assert game.reason == "time"


def test_a_game_without_a_clock_never_runs_out(client, fake_search, clock):
    game = start(client)
    page(client, game)
    clock.wait(36_000)
    assert game.flag() is False
    assert move(client, game, "22-18")[0] == 200


def test_a_resignation_stops_the_clock(client, fake_search, clock):
    game = start(client, clock="10+5")
    page(client, game)
    clock.wait(30)
    client.post(f"/play/game/{game.pk}/resign", **HX)
    game.refresh_from_db()
    clock.wait(3600)
    assert game.player_time_left() == timedelta(minutes=9, seconds=30)
    assert game.flag() is False and game.reason == "resigned"


def test_the_replay_and_the_pdn_of_a_game_whose_time_ran_out_say_it_was_lost(
    client, fake_search, clock
):
    game = start(client, clock="5+3")
    page(client, game)
    clock.wait(301)
    html = client.get(f"/play/game/{game.pk}/replay/").content.decode()
    assert "The player&#x27;s time ran out." in html and "game-result lost" in html
    assert '[Result "0-2"]' in client.get(f"/play/game/{game.pk}/pdn").content.decode()


@pytest.mark.parametrize("clock", ["", "none"])
def test_a_game_started_without_a_clock_has_none(student, clock):
    game = Game.start(user=student, variant="czech", level=1, player_white=True, clock=clock)
    assert not game.has_clock and game.time_control == "" and game.computer_time_left() is None
