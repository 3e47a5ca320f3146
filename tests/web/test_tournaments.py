"""Class tournaments through the pages: who may do what, a round robin of four run to the end by
the teacher's results, the standings and the printable cross-table, an arena and a Swiss."""

from __future__ import annotations

from itertools import combinations

import pytest

from classroom.models import Classroom
from tournaments.models import Pairing, Tournament
from tournaments.pairing import BLACK_WINS, DRAW, WHITE_WINS


@pytest.fixture
def classroom(teacher, student, django_user_model):
    """The teacher's class of four students: the student and three more."""
    classroom = Classroom.objects.create(name="Club", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    classroom.add_student(student)
    for name in ("anna", "bara", "cyril"):
        classroom.add_student(django_user_model.objects.create_user(name, first_name=name.title()))
    return classroom


def create(client, classroom, **fields):
    data = {
        "name": "Friday cup",
        "kind": "round_robin",
        "players": [u.pk for u in classroom.students()],
        "length": 45,
        "minutes": 5,
        "increment": 0,
        "rounds": "",
        "bye_points": 2,
    }
    data.update(fields)
    return client.post(f"/teach/tournaments/class/{classroom.pk}/new/", data)


@pytest.fixture
def tournament(client, teacher, classroom):
    client.force_login(teacher)
    response = create(client, classroom)
    assert response.status_code == 302, response.content.decode()[:2000]
    client.logout()
    return Tournament.objects.get()


def test_the_class_page_links_to_the_tournaments(client, teacher, student, classroom):
    for user in (teacher, student):
        client.force_login(user)
        html = client.get(f"/teach/classes/{classroom.pk}/").content.decode()
        assert f'href="/teach/tournaments/class/{classroom.pk}/"' in html, user


def test_only_the_class_teachers_create_a_tournament(client, student, outsider, classroom):
    client.force_login(student)
    assert create(client, classroom).status_code == 403
    assert client.get(f"/teach/tournaments/class/{classroom.pk}/new/").status_code == 403
    client.force_login(outsider)
    assert create(client, classroom).status_code == 404
    assert client.get(f"/teach/tournaments/class/{classroom.pk}/").status_code == 404
    assert not Tournament.objects.exists()
    client.logout()
    response = client.get(f"/teach/tournaments/class/{classroom.pk}/new/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_students_see_the_tournament_and_strangers_get_a_404(client, student, outsider, tournament):
    client.force_login(student)
    for url in ("", "table/"):
        assert client.get(f"/teach/tournaments/{tournament.pk}/{url}").status_code == 200
    html = client.get(f"/teach/tournaments/class/{tournament.classroom_id}/").content.decode()
    assert tournament.get_absolute_url() in html
    client.force_login(outsider)
    for url in ("", "table/"):
        assert client.get(f"/teach/tournaments/{tournament.pk}/{url}").status_code == 404


def test_only_the_class_teachers_record_results_and_pair(client, student, outsider, tournament):
    game = Pairing.objects.filter(black__isnull=False).first()
    for user, status in ((student, 403), (outsider, 404)):
        client.force_login(user)
        url = f"/teach/tournaments/{tournament.pk}/games/{game.pk}/"
        assert client.post(url, {"result": WHITE_WINS}).status_code == status
        assert client.post(f"/teach/tournaments/{tournament.pk}/next/").status_code == status
        assert client.post(f"/teach/tournaments/{tournament.pk}/finish/").status_code == status
    game.refresh_from_db()
    assert game.result == ""
    tournament.refresh_from_db()
    assert tournament.status == Tournament.RUNNING


def test_a_round_robin_of_four_runs_to_the_end_through_the_pages(
    client, teacher, classroom, tournament
):
    client.force_login(teacher)
    results = [WHITE_WINS, DRAW, BLACK_WINS]
    for number in range(1, 4):
        page = client.get(tournament.get_absolute_url()).content.decode()
        games = Pairing.objects.filter(round__tournament=tournament, round__number=number)
        assert len(games) == 2
        for game in games:
            assert f'data-pairing="{game.pk}"' in page, "the round's pairings are published"
        # the next round waits for this one's results
        assert client.post(f"/teach/tournaments/{tournament.pk}/next/").status_code == 400
        for index, game in enumerate(games):
            url = f"/teach/tournaments/{tournament.pk}/games/{game.pk}/"
            response = client.post(url, {"result": results[(number + index) % 3]})
            assert response.status_code == 302
        if number < 3:
            assert client.post(f"/teach/tournaments/{tournament.pk}/next/").status_code == 302
    tournament.refresh_from_db()
    assert tournament.status == Tournament.FINISHED, "the last result finishes a round robin"
    games = Pairing.objects.filter(round__tournament=tournament)
    assert {frozenset((g.white_id, g.black_id)) for g in games} == {
        frozenset(pair)
        for pair in combinations(classroom.students().values_list("pk", flat=True), 2)
    }, "everyone met everyone once"
    rows = tournament.standings()
    assert sum(row.points for row in rows) == 2 * 6, "six games, two points each"
    table = client.get(f"/teach/tournaments/{tournament.pk}/table/")
    assert table.status_code == 200
    html = table.content.decode()
    assert 'data-testid="cross-table"' in html and "print.css" in html
    for row in rows:
        assert f'data-player="{row.player}"' in html
    assert html.index(f'data-player="{rows[0].player}"') < html.index(
        f'data-player="{rows[-1].player}"'
    ), "the table is in standing order"
    # nothing more to record once it has finished
    url = f"/teach/tournaments/{tournament.pk}/games/{games[0].pk}/"
    assert client.post(url, {"result": DRAW}).status_code == 400


def test_bad_results_and_foreign_games_are_refused(client, teacher, classroom, tournament):
    client.force_login(teacher)
    game = Pairing.objects.filter(black__isnull=False).first()
    url = f"/teach/tournaments/{tournament.pk}/games/{game.pk}/"
    assert client.post(url, {"result": "3-0"}).status_code == 400
    assert client.post(url, {}).status_code == 400
    assert client.post(f"/teach/tournaments/{tournament.pk}/games/{2**70}/").status_code == 404
    assert client.post(f"/teach/tournaments/{tournament.pk}/games/999999/").status_code == 404
    assert client.get(url).status_code == 405
    game.refresh_from_db()
    assert game.result == ""


def test_a_tournament_takes_only_students_of_the_class(client, teacher, outsider, classroom):
    client.force_login(teacher)
    response = create(client, classroom, players=[outsider.pk])
    assert response.status_code == 400
    assert not Tournament.objects.exists()


def test_a_swiss_of_five_fits_the_lesson_and_rests_one_player_a_round(
    client, teacher, classroom, django_user_model
):
    classroom.add_student(django_user_model.objects.create_user("dana"))
    client.force_login(teacher)
    assert create(client, classroom, kind="swiss", length=20, minutes=5).status_code == 302
    tournament = Tournament.objects.get()
    assert tournament.rounds == 2, "two rounds of two five-minute clocks fit in 20 minutes"
    first = list(Pairing.objects.filter(round__number=1))
    assert sum(p.is_bye for p in first) == 1
    for game in first:
        if not game.is_bye:
            tournament.record(game, DRAW)
    tournament.pair_next_round()
    second = Pairing.objects.filter(round__number=2)
    assert second.get(black__isnull=True).white_id != next(p for p in first if p.is_bye).white_id
    rows = tournament.standings()
    bye_player = next(p for p in first if p.is_bye).white_id
    assert next(r for r in rows if r.player == bye_player).points == 2, "a bye scores a win"


def test_an_arena_pairs_players_again_as_they_finish(client, teacher, classroom):
    client.force_login(teacher)
    assert create(client, classroom, kind="arena").status_code == 302
    tournament = Tournament.objects.get()
    first = list(Pairing.objects.filter(round__tournament=tournament))
    assert len(first) == 2
    tournament.record(first[0], WHITE_WINS)
    assert Pairing.objects.filter(round__tournament=tournament).count() == 2, "two wait: no one"
    tournament.record(first[1], DRAW)
    later = Pairing.objects.filter(round__tournament=tournament, round__number=2)
    assert len(later) == 2, "the four who finished are paired again"
    assert {frozenset((g.white_id, g.black_id)) for g in later}.isdisjoint(
        {frozenset((g.white_id, g.black_id)) for g in first}
    ), "not the last opponent again"
    assert client.post(f"/teach/tournaments/{tournament.pk}/finish/").status_code == 302
    tournament.refresh_from_db()
    assert tournament.status == Tournament.FINISHED


def test_the_class_progress_page_shows_each_students_place_and_points(
    client, teacher, classroom, tournament
):
    for game in Pairing.objects.filter(round__tournament=tournament):
        tournament.record(game, WHITE_WINS)
    client.force_login(teacher)
    html = client.get(f"/teach/classes/{classroom.pk}/progress/").content.decode()
    assert 'data-testid="class-tournaments"' in html and "Friday cup" in html
    for row in tournament.standings():
        username = type(teacher).objects.get(pk=row.player).username
        start = html.index(f'data-student="{username}"', html.index("class-tournaments"))
        line = html[start : html.index("</tr>", start)]
        assert f"{row.rank}. place, {row.points} point" in line, line


def test_a_player_id_beyond_a_database_integer_is_a_400_not_a_500(client, teacher, classroom):
    client.force_login(teacher)
    response = create(client, classroom, players=[str(2**63), "9" * 5000])
    assert response.status_code == 400
    assert "Choose students of the class." in response.content.decode()
    assert not Tournament.objects.exists()
