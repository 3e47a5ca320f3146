"""A teacher's simul (versus.models.Simul): the teacher of a class plays three of its students
at once. Made from the form with two students chosen, the third joins, the host starts it: one
casual class game a student, the host White on each. Moves by the host and the students through
the game's HTTP endpoints; the grid says whose move each board is; the simul ends when the third
game ends, with the host's score. Who may host, join, start or see it (a stranger, a student of
another class: 404; a student starting it, a teacher joining it: 403), and its socket."""

from __future__ import annotations

import re

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.core.exceptions import PermissionDenied, ValidationError
from django.urls import reverse

from classroom.models import Classroom
from tests.conftest import _make_user
from tests.web.test_live_consumers import channel_layer  # noqa: F401 - an autouse fixture
from versus.consumers import REFUSED
from versus.models import Simul, VersusGame
from versus.routing import websocket_urlpatterns

pytestmark = pytest.mark.django_db


class World:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)


@pytest.fixture
def world(teacher, outsider, django_user_model):
    classroom = Classroom.objects.create(name="Club", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    anna, bruno, cyril = (_make_user(django_user_model, n) for n in ("anna", "bruno", "cyril"))
    for s in (anna, bruno, cyril):
        classroom.add_student(s)
    other_teacher = _make_user(django_user_model, "petr", teacher=True)
    other = Classroom.objects.create(name="Other", variant="czech", created_by=other_teacher)
    other.teachers.add(other_teacher)
    dana = _make_user(django_user_model, "dana")
    other.add_student(dana)
    return World(
        teacher=teacher, classroom=classroom, anna=anna, bruno=bruno, cyril=cyril,
        outsider=outsider, other_teacher=other_teacher, other=other, dana=dana,
    )  # fmt: skip


def simul_url(simul: Simul, name: str = "simul") -> str:
    return reverse(f"versus:{name}", args=[simul.pk])


def game_url(game: VersusGame, name: str = "game") -> str:
    return reverse(f"versus:{name}", args=[game.token])


def statuses(page: str) -> list[str]:
    return re.findall(r'data-testid="simul-board-status">([^<]*)<', page)


def move(client, user, game: VersusGame, text: str) -> None:
    client.force_login(user)
    response = client.post(game_url(game, "move"), {"move": text})
    assert response.status_code == 302, response.content.decode()[:300]


def started(client, w) -> Simul:
    """A simul of the world's class, the three students in, started by the host."""
    simul = Simul.create(
        w.teacher, w.classroom, variant="czech", students=[w.anna, w.bruno, w.cyril]
    )
    assert simul.start(w.teacher).kind == "done"
    simul.refresh_from_db()
    return simul


def test_a_simul_with_three_students_is_made_joined_started_played_and_scored(client, world):
    w = world
    client.force_login(w.teacher)
    form = client.get(reverse("versus:simul_new") + f"?classroom={w.classroom.pk}")
    assert form.status_code == 200 and form.content.decode().count('name="students"') == 3
    response = client.post(
        reverse("versus:simul_new"),
        {
            "classroom": w.classroom.pk,
            "variant": "czech",
            "colour": "white",
            "students": [w.anna.pk, w.bruno.pk],
        },
    )
    simul = Simul.objects.get()
    assert response.status_code == 302 and response["Location"] == simul_url(simul)
    assert (simul.state, simul.host, simul.host_colour) == ("open", w.teacher, "white")
    assert set(simul.players.all()) == {w.anna, w.bruno}

    # the third student joins from the simul's page
    client.force_login(w.cyril)
    assert 'data-testid="simul-join"' in client.get(simul_url(simul)).content.decode()
    assert client.post(simul_url(simul, "simul_join")).status_code == 302
    assert set(simul.players.all()) == {w.anna, w.bruno, w.cyril}

    # the host starts it: a casual, private class game a student, the host White
    client.force_login(w.teacher)
    assert client.post(simul_url(simul, "simul_start")).status_code == 302
    simul.refresh_from_db()
    games = simul.boards()
    assert simul.state == "playing" and len(games) == 3
    assert {g.black for g in games} == {w.anna, w.bruno, w.cyril}
    for g in games:
        assert (g.white, g.state, g.rated, g.public, g.classroom) == (
            w.teacher, "playing", False, False, w.classroom,
        )  # fmt: skip
        assert (g.base_seconds, g.days_per_move) == (None, None)
    page = client.get(simul_url(simul)).content.decode()
    assert statuses(page) == ["Your move."] * 3
    assert page.count('data-host-turn="1"') == 3
    assert "3 boards wait for your move." in page
    assert client.get(simul_url(simul, "simul_next"))["Location"] == game_url(games[0])

    # the host moves on board 1 and 2; board 1's student answers
    by_student = {g.black: g for g in games}
    move(client, w.teacher, by_student[w.anna], "22-18")
    move(client, w.teacher, by_student[w.bruno], "21-17")
    client.force_login(w.teacher)
    page = client.get(simul_url(simul)).content.decode()
    order = [g.black.username for g in games]
    expected = {"anna": "anna to move.", "bruno": "bruno to move.", "cyril": "Your move."}
    assert statuses(page) == [expected[name] for name in order]
    assert page.count('data-host-turn="1"') == 1
    move(client, w.anna, by_student[w.anna], "11-15")
    client.force_login(w.teacher)
    page = client.get(simul_url(simul)).content.decode()
    expected["anna"] = "Your move."
    assert statuses(page) == [expected[name] for name in order]
    after_anna = client.get(simul_url(simul, "simul_next") + f"?after={by_student[w.anna].token}")
    assert after_anna["Location"] == game_url(by_student[w.cyril])

    # a student sees their board is part of the simul, and the grid; the host gets the next board
    client.force_login(w.bruno)
    game_page = client.get(game_url(by_student[w.bruno])).content.decode()
    assert 'data-testid="simul-note"' in game_page and "simul-next-board" not in game_page
    assert 'data-testid="simul-my-board"' in client.get(simul_url(simul)).content.decode()
    client.force_login(w.teacher)
    assert "simul-next-board" in client.get(game_url(by_student[w.bruno])).content.decode()

    # the games end: Anna resigns, Bruno and the host agree a draw, the host resigns to Cyril
    client.force_login(w.anna)
    assert client.post(game_url(by_student[w.anna], "resign")).status_code == 302
    client.force_login(w.bruno)
    assert client.post(game_url(by_student[w.bruno], "draw")).status_code == 302
    client.force_login(w.teacher)
    answer = client.post(game_url(by_student[w.bruno], "draw_answer"), {"answer": "yes"})
    assert answer.status_code == 302
    simul.refresh_from_db()
    assert simul.state == "playing"
    assert client.post(game_url(by_student[w.cyril], "resign")).status_code == 302
    simul.refresh_from_db()
    assert simul.state == "over" and simul.finished is not None
    page = client.get(simul_url(simul)).content.decode()
    assert "The simul is over." in page
    assert "Score of tereza: 1 win, 1 draw, 1 loss." in page
    expected = {"anna": "You won!", "bruno": "The game is drawn.", "cyril": "You lost."}
    assert statuses(page) == [expected[name] for name in order]
    client.force_login(w.cyril)
    assert "cyril won." in client.get(simul_url(simul)).content.decode()


def test_a_bad_simul_form_is_a_400_with_the_message(client, world):
    client.force_login(world.teacher)
    new = reverse("versus:simul_new")
    base = {"classroom": world.classroom.pk, "variant": "czech", "colour": "white"}
    for data, message in (
        ({**base, "variant": "chess"}, "Unknown variant."),
        ({**base, "colour": "random"}, "Choose White or Black."),
        ({**base, "students": ["x"]}, "Choose students of the class."),
        ({**base, "students": [world.dana.pk]}, "Choose students of the class."),
    ):
        response = client.post(new, data)
        assert response.status_code == 400 and message in response.content.decode(), data
    assert client.post(new, {**base, "classroom": "nine"}).status_code == 404
    assert client.get(reverse("versus:simul", args=[2**63])).status_code == 404
    assert not Simul.objects.exists()


def test_a_host_playing_black_waits_for_every_student_to_open(client, world):
    w = world
    simul = Simul.create(
        w.teacher, w.classroom, variant="czech", host_colour="black", students=[w.anna, w.bruno]
    )
    simul.start(w.teacher)
    games = simul.boards()
    assert {(g.white, g.black) for g in games} == {(w.anna, w.teacher), (w.bruno, w.teacher)}
    client.force_login(w.teacher)
    page = client.get(simul_url(simul)).content.decode()
    assert statuses(page) == ["anna to move.", "bruno to move."]
    assert "0 boards wait for your move." in page
    assert client.get(simul_url(simul, "simul_next"))["Location"] == simul_url(simul)


def test_the_grid_answers_204_until_a_game_of_the_simul_changes(client, world):
    simul = started(client, world)
    client.force_login(world.teacher)
    seen = simul.grid_version()
    state = simul_url(simul, "simul_state") + f"?v={seen}"
    assert client.get(state, headers={"HX-Request": "true"}).status_code == 204
    move(client, world.teacher, simul.boards()[0], "22-18")
    client.force_login(world.anna)
    response = client.get(state, headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert f'data-version="{seen + 1}"' in response.content.decode()
    assert "<html" not in response.content.decode()


def test_the_grid_sends_only_the_boards_the_page_does_not_show_at_their_version(client, world):
    simul = started(client, world)
    first, second, third = simul.boards()
    client.force_login(world.teacher)
    move(client, world.teacher, second, "22-18")
    second.refresh_from_db()
    client.force_login(world.teacher)
    known = (
        f"{first.token}.{first.version},{second.token}.{second.version - 1},junk,{third.token}.x"
    )
    response = client.get(
        simul_url(simul, "simul_state") + f"?v=0&known={known}", headers={"HX-Request": "true"}
    )
    page = response.content.decode()
    assert response.status_code == 200
    assert re.findall(r'data-simul-board="([\w-]+)"[^>]*data-skip', page) == [first.token]
    assert page.count("<svg") == 2  # the board that moved, and the one whose version did not read
    assert statuses(page) == ["bruno to move.", "Your move."]
    assert "2 boards wait for your move." in page


def test_a_simul_cannot_start_without_students_nor_be_joined_once_started(client, world):
    w = world
    empty = Simul.create(w.teacher, w.classroom, variant="czech")
    client.force_login(w.teacher)
    response = client.post(simul_url(empty, "simul_start"))
    assert response.status_code == 400 and "No student has joined yet." in response.content.decode()
    simul = Simul.create(w.teacher, w.classroom, variant="czech", students=[w.anna])
    simul.start(w.teacher)
    client.force_login(w.bruno)
    response = client.post(simul_url(simul, "simul_join"))
    assert response.status_code == 400
    assert not simul.players.filter(pk=w.bruno.pk).exists()
    assert simul.boards()[0].black == w.anna


def test_a_simul_called_off_before_the_start_is_over_with_no_game(client, world):
    simul = Simul.create(world.teacher, world.classroom, variant="czech", students=[world.anna])
    client.force_login(world.teacher)
    assert client.post(simul_url(simul, "simul_cancel")).status_code == 302
    simul.refresh_from_db()
    assert simul.state == "over" and not simul.games.exists()
    assert "The simul was called off." in client.get(simul_url(simul)).content.decode()


def test_only_a_teacher_of_the_class_hosts_and_only_its_students_are_chosen(world):
    w = world
    for user in (w.anna, w.outsider, w.other_teacher, w.dana):
        with pytest.raises(PermissionDenied):
            Simul.create(user, w.classroom, variant="czech")
    with pytest.raises(ValidationError):
        Simul.create(w.teacher, w.classroom, variant="czech", students=[w.dana])
    with pytest.raises(ValidationError):
        Simul.create(w.teacher, w.classroom, variant="czech", host_colour="random")
    assert not Simul.objects.exists()


def test_a_stranger_or_a_student_of_another_class_cannot_host_join_or_see_a_simul(client, world):
    w = world
    simul = Simul.create(w.teacher, w.classroom, variant="czech", students=[w.anna])
    for user in (w.outsider, w.dana, w.other_teacher):
        client.force_login(user)
        new = reverse("versus:simul_new")
        assert client.get(new + f"?classroom={w.classroom.pk}").status_code == 404
        data = {"classroom": w.classroom.pk, "variant": "czech", "colour": "white"}
        assert client.post(new, data).status_code == 404
        for name in ("simul", "simul_state", "simul_next"):
            assert client.get(simul_url(simul, name)).status_code == 404, name
        for name in ("simul_join", "simul_start", "simul_cancel"):
            assert client.post(simul_url(simul, name)).status_code == 404, name
    assert list(simul.players.all()) == [w.anna] and Simul.objects.count() == 1
    simul.refresh_from_db()
    assert simul.state == "open"


def test_a_student_cannot_host_or_start_and_a_teacher_cannot_join(client, world, django_user_model):
    w = world
    simul = Simul.create(w.teacher, w.classroom, variant="czech", students=[w.anna])
    client.force_login(w.bruno)
    assert (
        client.get(reverse("versus:simul_new") + f"?classroom={w.classroom.pk}").status_code == 404
    )
    assert client.post(simul_url(simul, "simul_start")).status_code == 403
    assert client.post(simul_url(simul, "simul_cancel")).status_code == 403
    co_teacher = _make_user(django_user_model, "ivana", teacher=True)
    w.classroom.teachers.add(co_teacher)
    client.force_login(co_teacher)
    assert client.get(simul_url(simul)).status_code == 200
    assert client.post(simul_url(simul, "simul_join")).status_code == 403
    assert client.post(simul_url(simul, "simul_start")).status_code == 403
    simul.refresh_from_db()
    assert simul.state == "open" and list(simul.players.all()) == [w.anna]


@pytest.mark.django_db(transaction=True)
def test_a_move_on_a_board_tells_the_simuls_socket(teacher, outsider, django_user_model):
    classroom = Classroom.objects.create(name="Club", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    anna = _make_user(django_user_model, "anna")
    classroom.add_student(anna)
    simul = Simul.create(teacher, classroom, variant="czech", students=[anna])
    simul.start(teacher)
    game = simul.boards()[0]
    router = URLRouter(websocket_urlpatterns)

    async def scenario():
        grid = WebsocketCommunicator(router, f"/ws/versus/simul/{simul.pk}/")
        grid.scope["user"] = teacher
        assert (await grid.connect())[0]
        assert await grid.receive_json_from(timeout=5) == {"type": "changed"}
        reply = await database_sync_to_async(game.play)(teacher, text="22-18")
        assert reply.kind == "moved"
        got = await grid.receive_json_from(timeout=5)
        await grid.disconnect()
        stranger = WebsocketCommunicator(router, f"/ws/versus/simul/{simul.pk}/")
        stranger.scope["user"] = outsider
        connected, code = await stranger.connect()
        return got, connected, code

    got, connected, code = async_to_sync(scenario)()
    assert got == {"type": "changed"}
    assert (connected, code) == (False, REFUSED)
