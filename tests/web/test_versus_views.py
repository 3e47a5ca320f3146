"""The versus pages: a challenge made and accepted by link, a classmate challenged from the class
page, moves and offers posted, who may see or act on a game (a stranger: 403 or 404), the poll,
the PDN, and the player's list of games with the ratings."""

from __future__ import annotations

import pytest
from django.urls import reverse

from classroom.models import Classroom
from tests.conftest import _make_user
from versus.models import VersusGame, VersusRating

pytestmark = pytest.mark.django_db


@pytest.fixture
def classroom(teacher, student):
    classroom = Classroom.objects.create(name="Club", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    classroom.add_student(student)
    return classroom


@pytest.fixture
def classmate(classroom, django_user_model):
    user = _make_user(django_user_model, "sara")
    classroom.add_student(user)
    return user


def url(game: VersusGame, name: str = "game") -> str:
    return reverse(f"versus:{name}", args=[game.token])


def as_user(client, user):
    client.force_login(user)
    return client


def test_a_challenge_by_link_is_made_opened_and_accepted(client, student, outsider):
    as_user(client, student)
    response = client.post(
        reverse("versus:new"),
        {"variant": "czech", "colour": "white", "time": "clock", "base": "5", "increment": "3"},
    )
    game = VersusGame.objects.get()
    assert response.status_code == 302 and response["Location"] == url(game)
    page = client.get(url(game)).content.decode()
    assert 'data-testid="share-link"' in page and game.token in page
    client.force_login(outsider)
    page = client.get(url(game)).content.decode()
    assert 'data-testid="accept"' in page
    assert client.post(url(game, "accept")).status_code == 302
    game.refresh_from_db()
    assert (game.state, game.white_id, game.black_id) == ("playing", student.pk, outsider.pk)
    assert (game.base_seconds, game.increment_seconds) == (300, 3)


def test_a_bad_challenge_is_a_400_with_the_message(client, student):
    as_user(client, student)
    response = client.post(
        reverse("versus:new"), {"variant": "czech", "time": "clock", "base": "90", "rated": "1"}
    )
    assert response.status_code == 400
    assert "Minutes for the game: choose from 1 to 60." in response.content.decode()
    response = client.post(
        reverse("versus:new"), {"variant": "czech", "time": "none", "rated": "1"}
    )
    assert (
        response.status_code == 400 and "A rated game needs a clock." in response.content.decode()
    )
    assert not VersusGame.objects.exists()


def test_a_student_challenges_a_classmate_from_the_class_page(
    client, student, classmate, classroom
):
    as_user(client, student)
    page = client.get(reverse("classroom:my_classes")).content.decode()
    link = reverse("versus:classmates", args=[classroom.pk])
    assert link in page
    page = client.get(link).content.decode()
    assert "sara" in page and f"opponent={classmate.pk}" in page
    response = client.post(
        reverse("versus:new"),
        {"variant": "czech", "colour": "black", "time": "none", "public": "",
         "classroom": classroom.pk, "opponent": classmate.pk},
    )  # fmt: skip
    assert response.status_code == 302
    game = VersusGame.objects.get()
    assert (game.invited_id, game.classroom_id, game.public) == (classmate.pk, classroom.pk, False)
    client.force_login(classmate)
    assert 'data-testid="versus-row"' in client.get(reverse("versus:index")).content.decode()


def test_a_stranger_cannot_open_a_class_page_nor_challenge_someone_outside_their_class(
    client, outsider, student, classroom
):
    as_user(client, outsider)
    assert client.get(reverse("versus:classmates", args=[classroom.pk])).status_code == 404
    response = client.post(
        reverse("versus:new"),
        {"variant": "czech", "time": "none", "classroom": classroom.pk, "opponent": student.pk},
    )
    assert response.status_code == 404 and not VersusGame.objects.exists()


def test_a_private_game_is_a_404_to_a_stranger_and_seen_by_the_class(
    client, student, classmate, classroom, teacher, outsider
):
    game = VersusGame.challenge(student, variant="czech", colour="white", public=False,
                                invited=classmate, classroom=classroom)  # fmt: skip
    game.accept(classmate)
    as_user(client, outsider)
    assert client.get(url(game)).status_code == 404
    assert client.post(url(game, "move"), {"move": "22-18"}).status_code == 404
    assert client.get(url(game, "pdn")).status_code == 404
    client.force_login(teacher)
    assert client.get(url(game)).status_code == 200


def test_a_stranger_cannot_move_or_resign_in_a_public_game(
    client, student, outsider, django_user_model
):
    game = VersusGame.challenge(student, variant="czech", colour="white")
    game.accept(outsider)
    third = _make_user(django_user_model, "tomas")
    as_user(client, third)
    assert client.get(url(game)).status_code == 200, "anyone with the link may watch"
    for action, data in (("move", {"move": "22-18"}), ("resign", {}), ("draw", {})):
        response = client.post(url(game, action), data, HTTP_HX_REQUEST="true")
        assert response.status_code == 403, action
    client.logout()
    assert client.get(url(game)).status_code == 200, "a visitor with the link may watch too"
    response = client.post(url(game, "move"), {"move": "22-18"})
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    game.refresh_from_db()
    assert game.moves == [] and game.is_playing


def test_moves_are_posted_and_an_out_of_turn_move_is_refused_with_the_rule(
    client, student, outsider
):
    game = VersusGame.challenge(student, variant="czech", colour="white")
    game.accept(outsider)
    as_user(client, student)
    response = client.post(url(game, "move"), {"move": "22-18"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and 'data-testid="their-move"' in response.content.decode()
    response = client.post(url(game, "move"), {"move": "18-14"}, HTTP_HX_REQUEST="true")
    page = response.content.decode()
    assert response.status_code == 400 and "CUD 2006 art. 3.3" in page
    client.force_login(outsider)
    response = client.post(url(game, "move"), {"move": "11-20"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 400 and 'data-testid="illegal"' in response.content.decode()
    response = client.post(url(game, "move"), {"route": "11,15"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    game.refresh_from_db()
    assert game.moves == [[22, 18], [11, 15]]


def test_the_poll_answers_204_until_the_game_changes(client, student, outsider):
    game = VersusGame.challenge(student, variant="czech", colour="white")
    game.accept(outsider)
    as_user(client, outsider)
    state = url(game, "state")
    assert client.get(state, {"v": game.version}, HTTP_HX_REQUEST="true").status_code == 204
    game.play(student, text="22-18")
    response = client.get(state, {"v": game.version - 1}, HTTP_HX_REQUEST="true")
    page = response.content.decode()
    assert response.status_code == 200 and 'id="versus-game"' in page
    assert "Your opponent played 22-18. Your move." in page


def test_draw_offer_and_take_back_over_the_pages(client, student, outsider):
    game = VersusGame.challenge(student, variant="czech", colour="white")
    game.accept(outsider)
    as_user(client, student)
    client.post(url(game, "move"), {"move": "22-18"})
    client.post(url(game, "takeback"))
    client.force_login(outsider)
    page = client.get(url(game)).content.decode()
    assert 'data-testid="takeback-asked"' in page
    client.post(url(game, "takeback_answer"), {"answer": "yes"})
    client.post(url(game, "draw"))
    client.force_login(student)
    assert 'data-testid="draw-offered"' in client.get(url(game)).content.decode()
    client.post(url(game, "draw_answer"), {"answer": "yes"})
    game.refresh_from_db()
    assert (game.moves, game.result, game.reason) == ([], "1-1", "agreed")


def test_a_finished_game_is_in_both_players_lists_with_its_pdn(client, student, outsider):
    game = VersusGame.challenge(
        student, variant="czech", colour="white", base_minutes=5, rated=True
    )
    game.accept(outsider)
    game.play(student, text="22-18")
    game.resign(outsider)
    for user in (student, outsider):
        client.force_login(user)
        page = client.get(reverse("versus:index")).content.decode()
        assert url(game) in page and "2-0" in page
    response = client.get(url(game, "pdn"))
    assert response.status_code == 200 and "22-18" in response.content.decode()
    assert VersusRating.objects.filter(speed="blitz").count() == 2


def test_a_rated_game_in_play_gives_spectators_no_pdn(client, student, outsider, django_user_model):
    game = VersusGame.challenge(
        student, variant="czech", colour="white", base_minutes=5, rated=True
    )
    game.accept(outsider)
    game.play(student, text="22-18")
    as_user(client, _make_user(django_user_model, "tomas"))
    assert client.get(url(game, "pdn")).status_code == 404
    page = client.get(url(game)).content.decode()
    assert 'data-testid="delayed"' in page and "22-18" not in page.split('data-testid="moves"')[-1]


def test_a_seek_in_a_class_is_taken_by_someone_in_the_class_only(
    client, student, classmate, classroom, outsider
):
    as_user(client, student)
    page = client.get(reverse("versus:classmates", args=[classroom.pk])).content.decode()
    assert 'data-testid="open-seek"' in page
    client.post(
        reverse("versus:new"), {"variant": "czech", "time": "none", "classroom": classroom.pk}
    )
    game = VersusGame.objects.get()
    assert game.invited is None and game.classroom == classroom
    client.force_login(outsider)
    assert client.post(url(game, "accept")).status_code == 404, "a private seek: not found"
    client.force_login(classmate)
    assert (
        url(game) in client.get(reverse("versus:classmates", args=[classroom.pk])).content.decode()
    )
    assert client.post(url(game, "accept")).status_code == 302
    game.refresh_from_db()
    assert game.is_playing and classmate.pk in (game.white_id, game.black_id)


def test_no_page_of_a_rated_game_in_play_offers_its_position_elsewhere(client, student, outsider):
    game = VersusGame.challenge(
        student, variant="czech", colour="white", base_minutes=5, rated=True
    )
    game.accept(outsider)
    game.play(student, text="22-18")
    for user in (student, outsider):
        client.force_login(user)
        page = client.get(url(game)).content.decode()
        assert "?fen=" not in page and "&amp;fen=" not in page
        assert "/play/" not in page.split("<main")[-1]


@pytest.mark.parametrize(
    "data",
    [
        {"move": "zz"},
        {"move": "99-100"},
        {"move": "x" * 500},
        {"route": "999,1"},
        {"route": "a,b,c"},
        {"route": ",,,"},
        {},
    ],
)
def test_a_move_that_is_not_one_is_a_400_with_a_message_never_a_500(
    client, student, outsider, data
):
    game = VersusGame.challenge(student, variant="czech", colour="white")
    game.accept(outsider)
    as_user(client, student)
    response = client.post(url(game, "move"), data, HTTP_HX_REQUEST="true")
    assert response.status_code == 400, response.status_code
    assert 'data-testid="bad"' in response.content.decode() or 'data-testid="illegal"' in (
        response.content.decode()
    )
    game.refresh_from_db()
    assert game.moves == []


def test_bad_numbers_in_a_challenge_or_a_poll_are_400_or_ignored_never_a_500(client, student):
    as_user(client, student)
    for data in (
        {"variant": "czech", "time": "clock", "base": "1e9", "increment": "-1"},
        {"variant": "nope", "time": "correspondence", "days": "x"},
        {"variant": "czech", "time": "sometimes"},
        {"variant": "czech", "time": "none", "classroom": "x", "colour": "purple"},
    ):
        assert client.post(reverse("versus:new"), data).status_code == 400, data
    game = VersusGame.challenge(student, variant="czech")
    for v in ("x", "-1", "9" * 40):
        response = client.get(url(game, "state"), {"v": v}, HTTP_HX_REQUEST="true")
        assert response.status_code == 200, v


def test_the_teacher_follows_the_class_games_from_the_class_page(
    client, teacher, student, classmate, classroom
):
    game = VersusGame.challenge(
        student, variant="czech", invited=classmate, classroom=classroom, public=False
    )
    game.accept(classmate)
    as_user(client, teacher)
    page = client.get(reverse("classroom:class_detail", args=[classroom.pk])).content.decode()
    link = reverse("versus:classmates", args=[classroom.pk])
    assert link in page
    assert url(game) in client.get(link).content.decode()
    assert client.get(url(game)).status_code == 200


# -- the move list: each move a link to its position (?ply=N), to look at only -----------------


def played(student, outsider, *moves: str, **options) -> VersusGame:
    """A game of ``student`` (White) and ``outsider`` with ``moves`` played in turn."""
    game = VersusGame.challenge(student, variant="czech", colour="white", **options)
    game.accept(outsider)
    for n, move in enumerate(moves):
        reply = game.play(student if n % 2 == 0 else outsider, text=move)
        assert reply.kind == "moved", reply
    return game


def board_fen(page: str) -> str:
    import re

    return re.search(r'id="versus-board"[^>]*data-fen="([^"]+)"', page).group(1)


def test_the_move_list_links_each_move_to_its_position(client, student, outsider):
    game = played(student, outsider, "22-18", "11-15", "18x11")
    as_user(client, outsider)
    page = client.get(url(game)).content.decode()
    moves = page.split('data-testid="moves"')[1].split("</ol>")[0]
    for ply in (1, 2):
        assert f'href="{url(game)}?ply={ply}"' in moves
    assert f'href="{url(game)}" hx-get' in moves and 'aria-current="step"' in moves, "the last"
    assert 'data-kinds="mmc"' in page and 'data-plies="3"' in page


@pytest.mark.parametrize("ply", [0, 1, 2])
def test_ply_shows_the_position_after_that_many_moves_on_a_board_that_takes_no_move(
    client, student, outsider, ply
):
    from versus import engine

    game = played(student, outsider, "22-18", "11-15", "18x11")
    as_user(client, student)
    response = client.get(url(game), {"ply": ply})
    page = response.content.decode()
    assert response.status_code == 200
    expected = engine.replay(game.variant, game.start_fen, game.moves[:ply]).fen()
    assert board_fen(page) == expected
    assert 'data-testid="viewing"' in page and 'data-testid="back-to-game"' in page
    assert f'data-viewing="{ply}"' in page
    assert 'data-testid="resign"' not in page and 'name="route"' not in page, "to look at only"
    label = {0: "the start position", 1: "1. 22-18", 2: "1… 11-15"}[ply]
    assert label in page
    if ply:
        assert f'data-ply="{ply}" aria-label="{label}" aria-current="step"' in page
    # the game as it stands is the page without ?ply
    assert client.get(url(game), {"ply": 3}).content.decode().count('data-viewing="') == 0


@pytest.mark.parametrize("ply", ["x", "-1", "4", "99999999999999999999", "1.5", ""])
def test_a_bad_ply_is_a_400_with_a_message_never_a_500(client, student, outsider, ply):
    game = played(student, outsider, "22-18", "11-15", "18x11")
    as_user(client, student)
    response = client.get(url(game), {"ply": ply})
    page = response.content.decode()
    assert response.status_code == 400
    assert "There is no such move in this game: choose a number from 0 to 3." in page
    assert 'data-viewing="' not in page, "the game as it stands, with the message"


def test_a_spectator_of_a_rated_game_cannot_look_past_the_moves_they_may_see(
    client, student, outsider, django_user_model
):
    """A spectator sees a rated game in play SPECTATOR_DELAY_PLIES late: ?ply beyond what they
    see is refused (400 with the message), as any ply the game does not have; its players, and
    everyone once the game is over, may see every ply."""
    from versus.models import SPECTATOR_DELAY_PLIES

    game = played(student, outsider, "22-18", "11-15", "18x11", base_minutes=5, rated=True)
    seen = len(game.moves) - SPECTATOR_DELAY_PLIES
    as_user(client, _make_user(django_user_model, "tomas"))
    page = client.get(url(game)).content.decode()
    assert f'data-plies="{seen}"' in page and "18x11" not in page
    assert client.get(url(game), {"ply": seen - 1}).status_code == 200
    for ply in range(seen + 1, len(game.moves) + 1):
        response = client.get(url(game), {"ply": ply})
        page = response.content.decode()
        assert response.status_code == 400, ply
        assert f"choose a number from 0 to {seen}." in page
        assert "11-15" not in page and "18x11" not in page, "nothing of the moves not yet shown"
    # the poll of a page looking at an earlier position: never past the spectator's view
    state = client.get(url(game, "state"), {"ply": len(game.moves)}, HTTP_HX_REQUEST="true")
    assert state.status_code == 200 and "18x11" not in state.content.decode()
    assert 'data-viewing="' not in state.content.decode()
    # a player may look at every ply
    client.force_login(outsider)
    assert client.get(url(game), {"ply": len(game.moves) - 1}).status_code == 200


def test_the_poll_of_a_page_looking_at_an_earlier_position_keeps_it(client, student, outsider):
    game = played(student, outsider, "22-18", "11-15")
    as_user(client, outsider)
    game.play(student, text="18x11")
    response = client.get(
        url(game, "state"), {"v": game.version - 1, "ply": 1}, HTTP_HX_REQUEST="true"
    )
    page = response.content.decode()
    assert response.status_code == 200 and 'data-viewing="1"' in page
    assert 'data-plies="3"' in page and "18x11" in page, "the new move in the list"
    response = client.get(url(game, "state"), {"ply": "nope"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and 'data-viewing="' not in response.content.decode()


def test_the_move_lists_examples_run():
    """``core.movelist`` (the move list of both game pages): its docstring examples hold."""
    import doctest

    from core import movelist

    result = doctest.testmod(movelist)
    assert result.attempted > 0 and result.failed == 0
