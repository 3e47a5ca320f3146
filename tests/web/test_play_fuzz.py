"""Hypothesis over the play app's inputs: a move (typed text and clicked route), the start form
(level, colour, position, clock), the position looked at (``?ply=``) and the game ids in
addresses. Never a 500; every refusal says why
(``tests/fuzz/conftest.judge``); a refused move or start writes nothing. ``FUZZ_EXAMPLES`` sets
the examples per test, as in tests/fuzz."""

from __future__ import annotations

import pytest
from django.test import Client
from hypothesis import given
from hypothesis import strategies as st

from core.numbers import read_int
from play.models import Game
from tests.fuzz.conftest import FUZZ, HX, judge
from tests.web.play_helpers import game_id, install_fake_search

pytestmark = pytest.mark.django_db

SQUARES = st.integers(min_value=-3, max_value=60).map(str)
ROUTES = st.lists(SQUARES | st.text(max_size=3), max_size=12).map(",".join)
MOVE_TEXT = st.text(max_size=40) | st.from_regex(
    r"[a-k]?[0-9]{1,2}[-x:][a-k]?[0-9]{1,2}", fullmatch=True
)
FENS = st.text(max_size=60) | st.from_regex(r"[WB]:W[K0-9,]{0,20}:B[K0-9,]{0,20}", fullmatch=True)


@pytest.fixture
def game(monkeypatch):
    install_fake_search(monkeypatch)
    client = Client()
    response = client.post("/play/czech/", {"level": "1", "color": "white"})
    return client, Game.objects.get(pk=game_id(response))


@FUZZ
@given(route=ROUTES, text=MOVE_TEXT)
def test_any_move_is_played_refused_with_a_reason_or_goes_on(game, route, text):
    client, the_game = game
    before = Game.objects.get(pk=the_game.pk)
    response = client.post(f"/play/game/{the_game.pk}/move", {"route": route, "move": text}, **HX)
    judge(response, what=f"move {route!r} {text!r}")
    after = Game.objects.get(pk=the_game.pk)
    if response.status_code != 200:
        assert after.moves == before.moves and after.version == before.version
    if after.moves:  # played: back to the start for the next example
        client.post(f"/play/game/{the_game.pk}/takeback", **HX)


@FUZZ
@given(ply=st.text(max_size=30) | st.integers(min_value=-5, max_value=10**25).map(str))
def test_any_ply_shows_a_position_or_says_why(game, ply):
    """A number of the game's moves (none yet: 0, as ``core.numbers.read_int`` reads it) shows
    that position; anything else is a 400 that says why."""
    client, the_game = game
    expected = 200 if read_int(ply, 0, 0) is not None else 400
    for url in (f"/play/game/{the_game.pk}/", f"/play/game/{the_game.pk}/wait"):
        response = client.get(url, {"ply": ply, "v": "0"}, **HX)
        judge(response, what=f"{url}?ply={ply!r}")
        assert response.status_code == expected, (url, ply, response.status_code)


@FUZZ
@given(
    level=st.text(max_size=4),
    color=st.text(max_size=8),
    fen=FENS,
    clock=st.sampled_from(["", "5+3", "15+10"]) | st.text(max_size=8),
)
def test_any_start_form_starts_a_game_or_says_why(monkeypatch, level, color, fen, clock):
    install_fake_search(monkeypatch)
    client = Client()
    count = Game.objects.count()
    data = {"level": level, "color": color, "fen": fen, "clock": clock}
    response = client.post("/play/czech/", data)
    judge(response, what=f"start {level!r} {color!r} {fen!r} {clock!r}")
    if response.status_code != 302:
        assert Game.objects.count() == count
    response = client.get("/play/international/", {"fen": fen, "level": level, "color": color})
    judge(response, what=f"link {fen!r}")


@FUZZ
@given(pk=st.integers(min_value=0, max_value=10**30))
def test_any_game_id_is_a_game_or_a_404(pk):
    for url in (f"/play/game/{pk}/", f"/play/game/{pk}/replay/", f"/play/game/{pk}/pdn"):
        response = Client().get(url)
        assert response.status_code == 404, url
