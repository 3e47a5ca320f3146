"""Tournament games played on the site: each pairing of a round is a game between the two players
(``VersusGame.arrange``), its end records the result (``versus.signals.game_over`` heard by
``tournaments/receivers.py``), an arena pairs the freed players again, the teacher's word still
stands, and the class's progress page and CSV show each student's tournament points. A rated
game in play seals its positions past the opening against a game against the computer.

The games are played through the model's methods (a few moves, then a resignation or an agreed
draw), with the end's on-commit work run (``django_capture_on_commit_callbacks``); the push to
the game's pages and the flag's task are left out (no channel layer or broker here).
"""

from __future__ import annotations

import csv
import io
import random
from collections import Counter
from datetime import timedelta

import pytest
from django.urls import reverse

from classroom.models import Classroom
from core.models import SealedPosition
from tournaments.models import ARENA, ROUND_ROBIN, SWISS, Pairing, Tournament
from tournaments.pairing import POINTS
from versus import engine
from versus.models import SEAL_FROM_PLY, VersusGame, VersusRating

pytestmark = pytest.mark.django_db

OUTCOMES = ("white", "draw", "black")


@pytest.fixture(autouse=True)
def _no_push_or_flag(monkeypatch):
    """The game's pages and the flag's task are other tests' business."""
    monkeypatch.setattr("versus.push.changed", lambda *args: None)
    monkeypatch.setattr("versus.models.queue_flag", lambda *args: None)


def make_class(teacher, django_user_model, count: int) -> Classroom:
    classroom = Classroom.objects.create(name="Club", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    for n in range(count):
        classroom.add_student(
            django_user_model.objects.create_user(f"p{n:02d}", first_name=f"Player {n}")
        )
    return classroom


def new_tournament(classroom, teacher, kind: str, **options) -> Tournament:
    tournament = Tournament.create(
        classroom, teacher, name="Cup", kind=kind, players=classroom.students(), **options
    )
    tournament.start()
    return tournament


def play_some_moves(game: VersusGame, plies: int, rng: random.Random) -> None:
    """``plies`` legal moves (fewer if the game ends), by whoever is to move."""
    for _ply in range(plies):
        game.refresh_from_db()
        if not game.is_playing:
            return
        moves = list(game.board().generate_legal_moves())
        route = ",".join(str(square) for square in rng.choice(moves).routes[0])
        reply = game.play(game.player(game.side_to_move), route=route)
        assert reply.kind == "moved", reply


def finish_game(game: VersusGame, outcome: str, capture, rng: random.Random) -> str:
    """Play a few moves, then end the game as ``outcome`` says (White wins by Black's
    resignation, Black by White's, or a draw offered and accepted); the game's result."""
    play_some_moves(game, rng.randrange(2, 7), rng)
    game.refresh_from_db()
    if game.is_playing:
        with capture(execute=True):
            if outcome == "white":
                assert game.resign(game.black).kind == "done"
            elif outcome == "black":
                assert game.resign(game.white).kind == "done"
            else:
                assert game.offer_draw(game.white).kind == "done"
                assert game.answer_draw(game.black, True).kind == "done"
    game.refresh_from_db()
    assert game.is_over and game.result
    return game.result


def open_pairings(tournament: Tournament) -> list[Pairing]:
    return list(
        Pairing.objects.filter(round__tournament=tournament, result="", black__isnull=False)
        .select_related("game", "white", "black")
        .order_by("round__number", "board")
    )


def run_to_the_end(tournament: Tournament, capture, rng: random.Random) -> Counter:
    """Play every round's games until the tournament finishes, the teacher publishing each next
    round; the points each player scored, counted here from the games' results and the byes."""
    points: Counter = Counter()
    while True:
        current = tournament.current_round()
        for pairing in current.pairings.all():
            if pairing.is_bye:
                assert pairing.game is None
                points[pairing.white_id] += tournament.bye_points if tournament.kind == SWISS else 0
        for pairing in open_pairings(tournament):
            result = finish_game(pairing.game, rng.choice(OUTCOMES), capture, rng)
            white_points, black_points = POINTS[result]
            points[pairing.white_id] += white_points
            points[pairing.black_id] += black_points
        tournament.refresh_from_db()
        if tournament.status == Tournament.FINISHED:
            return points
        tournament.pair_next_round()


def assert_every_pairing_was_its_games(tournament: Tournament) -> None:
    pairings = Pairing.objects.filter(round__tournament=tournament).select_related("game")
    for pairing in pairings:
        if pairing.is_bye:
            continue
        game = pairing.game
        assert (game.white_id, game.black_id) == (pairing.white_id, pairing.black_id)
        assert (game.variant, game.base_seconds, game.increment_seconds) == (
            tournament.variant,
            tournament.minutes * 60,
            tournament.increment,
        )
        assert game.arranged and game.classroom_id == tournament.classroom_id
        assert game.rated == tournament.rated
        assert game.is_over and pairing.result == game.result


def test_a_round_robin_of_four_is_played_to_the_end_as_games_between_players(
    teacher, django_user_model, django_capture_on_commit_callbacks
):
    classroom = make_class(teacher, django_user_model, 4)
    tournament = new_tournament(classroom, teacher, ROUND_ROBIN, minutes=5, increment=3)
    first = list(tournament.current_round().pairings.select_related("game"))
    assert len(first) == 2 and all(p.game.state == VersusGame.State.PLAYING for p in first)
    assert all(p.game.moves == [] and p.game.turn_started is not None for p in first)
    points = run_to_the_end(tournament, django_capture_on_commit_callbacks, random.Random(4))
    assert tournament.status == Tournament.FINISHED
    assert VersusGame.objects.count() == 6  # everyone met everyone once
    assert_every_pairing_was_its_games(tournament)
    standings = tournament.standings()
    assert {row.player: row.points for row in standings} == {
        player: points[player] for player in tournament.seeds()
    }
    assert sum(row.points for row in standings) == 6 * 2
    assert [row.points for row in standings] == sorted(
        (row.points for row in standings), reverse=True
    )


@pytest.mark.parametrize("seed", [1, 9])
def test_a_swiss_of_nine_is_played_to_the_end_and_the_bye_scores_without_a_game(
    teacher, django_user_model, django_capture_on_commit_callbacks, seed
):
    classroom = make_class(teacher, django_user_model, 9)
    tournament = new_tournament(classroom, teacher, SWISS, rounds=4, minutes=10, rated=True)
    points = run_to_the_end(tournament, django_capture_on_commit_callbacks, random.Random(seed))
    assert tournament.status == Tournament.FINISHED
    byes = Pairing.objects.filter(round__tournament=tournament, black__isnull=True)
    assert byes.count() == 4 and not byes.filter(game__isnull=False).exists()
    assert len(set(byes.values_list("white_id", flat=True))) == 4, "nobody rests twice"
    assert VersusGame.objects.count() == 4 * 4
    assert_every_pairing_was_its_games(tournament)
    rows = tournament.standings()
    assert {row.player: row.points for row in rows} == {p: points[p] for p in tournament.seeds()}
    assert sum(row.points for row in rows) == 16 * 2 + 4 * tournament.bye_points
    # rated: the games rated both players
    assert VersusRating.objects.filter(games__gt=0).count() == 9


def test_the_tournament_page_and_the_players_games_link_the_game(
    client, teacher, django_user_model
):
    classroom = make_class(teacher, django_user_model, 3)
    tournament = new_tournament(classroom, teacher, ROUND_ROBIN)
    pairing = next(p for p in tournament.current_round().pairings.all() if not p.is_bye)
    game_url = reverse("versus:game", args=[pairing.game.token])
    client.force_login(pairing.white)
    page = client.get(tournament.get_absolute_url()).content.decode()
    assert 'data-testid="my-game"' in page and game_url in page
    mine = client.get(reverse("versus:index")).content.decode()
    playing = mine.split('data-testid="playing"')[1].split("</section>")[0]
    assert game_url in playing and tournament.get_absolute_url() in playing
    game_page = client.get(game_url).content.decode()
    assert tournament.get_absolute_url() in game_page and 'data-testid="abort"' not in game_page
    resting = next(p for p in tournament.current_round().pairings.all() if p.is_bye).white
    client.force_login(resting)
    page = client.get(tournament.get_absolute_url()).content.decode()
    assert 'data-testid="my-game"' not in page and game_url in page  # to watch
    client.force_login(teacher)
    assert client.get(game_url).status_code == 200  # a class game: the teacher follows it


def test_a_resignation_posted_on_the_game_page_records_the_result_and_the_arena_pairs_again(
    client, teacher, django_user_model, django_capture_on_commit_callbacks
):
    """The signal's whole path: the player's POST, the game's end committed, the signal, the
    receiver, ``Tournament.record``, and the arena's next pairing with its new game."""
    classroom = make_class(teacher, django_user_model, 6)
    tournament = new_tournament(classroom, teacher, ARENA)
    first = list(tournament.current_round().pairings.select_related("game", "white", "black"))
    assert len(first) == 3
    for pairing in first[:2]:
        client.force_login(pairing.black)
        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(reverse("versus:resign", args=[pairing.game.token]))
        assert response.status_code == 302
        pairing.refresh_from_db()
        assert pairing.result == "2-0"
    freed = {p.white_id for p in first[:2]} | {p.black_id for p in first[:2]}
    again = Pairing.objects.filter(round__tournament=tournament, round__number__gt=1)
    assert again.count() == 2 and all(p.game.is_playing for p in again)
    assert {p for pairing in again for p in (pairing.white_id, pairing.black_id)} == freed
    for pairing in again:
        assert {pairing.white_id, pairing.black_id} not in (
            {p.white_id, p.black_id} for p in first
        ), "no rematch of the game just played"
    rows = {row.player: row.points for row in tournament.standings()}
    assert [rows[p.white_id] for p in first[:2]] == [2, 2]


def test_a_game_after_the_teachers_result_changes_nothing_and_the_teacher_corrects_a_game(
    teacher, django_user_model, django_capture_on_commit_callbacks
):
    classroom = make_class(teacher, django_user_model, 4)
    tournament = new_tournament(classroom, teacher, ROUND_ROBIN)
    one, two = tournament.current_round().pairings.select_related("game")
    tournament.record(one, "1-1")  # the teacher's word, while the game is played
    rng = random.Random(2)
    assert finish_game(one.game, "white", django_capture_on_commit_callbacks, rng) == "2-0"
    one.refresh_from_db()
    assert one.result == "1-1"
    assert finish_game(two.game, "black", django_capture_on_commit_callbacks, rng) == "0-2"
    two.refresh_from_db()
    assert two.result == "0-2"
    tournament.record(two, "2-0")  # the teacher's correction
    two.refresh_from_db()
    assert two.result == "2-0"


def test_a_tournament_game_cannot_be_aborted_and_a_missing_first_move_loses_it(
    teacher, django_user_model, django_capture_on_commit_callbacks
):
    classroom = make_class(teacher, django_user_model, 4)
    tournament = new_tournament(classroom, teacher, ROUND_ROBIN, rated=True)
    one, two = tournament.current_round().pairings.select_related("game", "white", "black")
    reply = one.game.abort(one.white)
    assert reply.kind == "refused" and "cannot be aborted" in reply.message
    assert not one.game.can_abort
    # White never moves: White loses; Black never answers: Black loses (no rating either way)
    two.game.play(two.white, text="22-18")
    late = timezone_after(one.game, seconds=301)
    with django_capture_on_commit_callbacks(execute=True):
        assert not one.game.judge_clock(timezone_after(one.game, seconds=299))
        assert one.game.judge_clock(late)
        two.game.refresh_from_db()
        assert two.game.judge_clock(timezone_after(two.game, seconds=301))
    one.refresh_from_db()
    two.refresh_from_db()
    assert (one.result, two.result) == ("0-2", "2-0")
    assert one.game.reason == "no_start" and one.game.rating_change is None
    assert not VersusRating.objects.exists()


def timezone_after(game: VersusGame, *, seconds: int):
    return game.turn_started + timedelta(seconds=seconds)


def test_a_game_ending_after_the_tournament_ended_changes_nothing(
    teacher, django_user_model, django_capture_on_commit_callbacks
):
    classroom = make_class(teacher, django_user_model, 4)
    tournament = new_tournament(classroom, teacher, ARENA)
    pairing = tournament.current_round().pairings.select_related("game").first()
    tournament.finish()
    finish_game(pairing.game, "white", django_capture_on_commit_callbacks, random.Random(1))
    pairing.refresh_from_db()
    assert pairing.result == ""
    assert Pairing.objects.filter(round__tournament=tournament).count() == 2


def test_a_casual_game_between_players_is_no_tournaments_business(
    teacher, student, outsider, django_capture_on_commit_callbacks
):
    game = VersusGame.challenge(student, variant="czech", colour="white", base_minutes=5)
    game.accept(outsider)
    with django_capture_on_commit_callbacks(execute=True) as done:
        game.resign(outsider)
    assert done, "the end's on-commit work ran"
    assert not Pairing.objects.exists()


def test_the_progress_page_and_csv_show_each_students_tournament_points(
    client, teacher, django_user_model, django_capture_on_commit_callbacks
):
    classroom = make_class(teacher, django_user_model, 4)
    tournament = new_tournament(classroom, teacher, ROUND_ROBIN)
    points = run_to_the_end(tournament, django_capture_on_commit_callbacks, random.Random(7))
    second = new_tournament(classroom, teacher, ARENA)  # started: one game each so far
    client.force_login(teacher)
    response = client.get(reverse("classroom:progress_csv", args=[classroom.pk]))
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    students = list(classroom.students())
    assert {row["username"] for row in rows} == {s.username for s in students}
    for student in students:
        mine = next(row for row in rows if row["username"] == student.username)
        assert mine["tournaments"] == "2"
        assert mine["tournament_games"] == "3"
        assert mine["tournament_points"] == str(points[student.pk])
    page = client.get(reverse("classroom:progress", args=[classroom.pk])).content.decode()
    totals = page.split('data-testid="tournament-totals"')[1].split("</section>")[0]
    for student in students:
        row = totals.split(f'data-student="{student.username}"')[1].split("</tr>")[0]
        assert f"<td>2</td><td>3</td><td>{points[student.pk]}</td>" in row
    assert second.status == Tournament.RUNNING


def test_the_progress_csv_of_a_class_without_tournaments_has_no_tournament_lines(
    client, teacher, django_user_model
):
    classroom = make_class(teacher, django_user_model, 2)
    client.force_login(teacher)
    response = client.get(reverse("classroom:progress_csv", args=[classroom.pk]))
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows == []
    page = client.get(reverse("classroom:progress", args=[classroom.pk])).content.decode()
    assert 'data-testid="tournament-totals"' not in page


def test_a_rated_games_position_cannot_be_copied_into_a_game_against_the_computer_until_it_ends(
    client, student, outsider, django_capture_on_commit_callbacks
):
    game = VersusGame.challenge(
        student, variant="czech", colour="white", base_minutes=10, rated=True
    )
    game.accept(outsider)
    play_some_moves(game, SEAL_FROM_PLY, random.Random(3))
    game.refresh_from_db()
    assert game.is_playing and len(game.moves) == SEAL_FROM_PLY
    fen = engine.fen_of(game.board())
    url = reverse("play:new", args=["czech"])
    client.force_login(student)
    refused = client.get(url, {"fen": fen})
    assert refused.status_code == 400
    assert "from a rated game still in play" in refused.content.decode()
    posted = client.post(url, {"fen": fen, "level": "1", "color": "white"})
    assert (
        posted.status_code == 400 and "from a rated game still in play" in posted.content.decode()
    )
    assert "belongs to an exam" not in posted.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        assert game.resign(outsider).kind == "done"
    assert not SealedPosition.objects.filter(label=game.seal_label).exists()
    assert client.get(url, {"fen": fen}).status_code == 200
    started = client.post(url, {"fen": fen, "level": "1", "color": "white"})
    assert started.status_code == 302


def test_a_casual_game_and_a_rated_games_opening_seal_nothing(student, outsider):
    casual = VersusGame.challenge(student, variant="czech", colour="white", base_minutes=10)
    casual.accept(outsider)
    play_some_moves(casual, SEAL_FROM_PLY + 2, random.Random(5))
    rated = VersusGame.challenge(
        student, variant="czech", colour="white", base_minutes=10, rated=True
    )
    rated.accept(outsider)
    play_some_moves(rated, SEAL_FROM_PLY - 1, random.Random(5))
    assert not SealedPosition.objects.exists()
    play_some_moves(rated, 1, random.Random(5))
    assert SealedPosition.objects.filter(label=rated.seal_label).count() == 1


def test_the_teacher_chooses_rated_games_and_a_clock_the_games_allow(
    client, teacher, django_user_model
):
    classroom = make_class(teacher, django_user_model, 4)
    client.force_login(teacher)
    data = {
        "name": "Rated cup",
        "kind": "round_robin",
        "players": [u.pk for u in classroom.students()],
        "length": 45,
        "minutes": 61,
        "increment": 0,
        "rounds": "",
        "bye_points": 2,
        "rated": "on",
    }
    url = reverse("tournaments:create", args=[classroom.pk])
    assert client.post(url, data).status_code == 400  # the games' clock: 60 minutes at most
    assert not Tournament.objects.exists()
    assert client.post(url, {**data, "minutes": 10}).status_code == 302
    tournament = Tournament.objects.get()
    games = [p.game for p in tournament.current_round().pairings.select_related("game")]
    assert tournament.rated and len(games) == 2 and all(g.rated for g in games)
    casual = client.post(url, {**data, "minutes": 10, "rated": ""})
    assert casual.status_code == 302
    newest = Tournament.objects.order_by("-pk").first()
    assert not newest.rated
    assert not any(p.game.rated for p in newest.current_round().pairings.select_related("game"))


def test_an_exams_seal_says_so_before_a_games_seal(student, outsider):
    game = VersusGame.challenge(
        student, variant="czech", colour="white", base_minutes=10, rated=True
    )
    game.accept(outsider)
    play_some_moves(game, SEAL_FROM_PLY, random.Random(3))
    fen = engine.fen_of(game.board())
    assert "rated game still in play" in SealedPosition.why_sealed(fen, "czech")
    SealedPosition.seal([fen], "czech", label="exam:1")
    assert "belongs to an exam" in SealedPosition.why_sealed(fen, "czech")
    assert SealedPosition.why_sealed(engine.start_fen("czech"), "czech") == ""


def test_the_tournament_page_collects_a_result_whose_signal_was_lost_and_a_late_first_move(
    client, teacher, django_user_model
):
    """Without the on-commit work (the signal never sent, as when the process died after the
    game's commit), the tournament's page records the finished game's result, and judges the
    clock of a game whose first move is overdue."""
    classroom = make_class(teacher, django_user_model, 4)
    tournament = new_tournament(classroom, teacher, ROUND_ROBIN)
    one, two = tournament.current_round().pairings.select_related("game", "white", "black")
    assert one.game.resign(one.black).kind == "done"  # no on-commit callbacks: no signal
    one.refresh_from_db()
    assert one.result == ""
    VersusGame.objects.filter(pk=two.game.pk).update(
        turn_started=two.game.turn_started - timedelta(minutes=6)
    )
    client.force_login(teacher)
    assert client.get(tournament.get_absolute_url()).status_code == 200
    one.refresh_from_db()
    two.refresh_from_db()
    assert (one.result, two.result) == ("2-0", "0-2")
    assert tournament.collect_results() == 0  # nothing left to collect
