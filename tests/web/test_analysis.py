"""The analysis of finished games (analysis/): moments proven and made personal puzzles, marks,
the engine's version, uploads and their errors, fair turns on the workers, the daily limit and
who may see an analysis. The worker's task is run in this process here
(tests/services/test_analysis_worker.py runs it on a real worker)."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from analysis import engine, tasks
from analysis.models import GameAnalysis, GameUpload, Moment
from analysis.tasks import analyse_game
from classroom.models import Classroom, Membership
from play.models import Game
from puzzles.models import Puzzle
from puzzles.stream import can_solve
from tests.conftest import PASSWORD

#: Czech: White to move has a unique shot, 22-17 13x22 25x18x11 (a man won), and plays 21-17
SHOT_FEN = "W:W21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,10,12,13,15"
SHOT_MISSED = ["21-17", "5-9", "27-24", "2-7", "25-21", "9-14"]
#: Czech: Black to move gains a man, but by more than one first move (cooked), and plays 8-11
COOKED_FEN = "B:W19,26,29,30:B3,7,8,10,12"
COOKED_MISSED = ["8-11", "19-15", "10x19", "26-23", "19x26", "30x23"]

TASK = "analysis.analyse_game"


def finished_game(user, fen=SHOT_FEN, moves=SHOT_MISSED, white=True) -> Game:
    return Game.objects.create(
        user=user, variant="czech", level=5, player_white=white, start_fen=fen,
        moves=list(moves), state=Game.State.OVER, result="0-2", reason="resigned",
    )  # fmt: skip


def analysed(game: Game) -> GameAnalysis:
    row = GameAnalysis.of_play_game(game)
    assert row is not None
    assert analyse_game(row.pk) == "done"
    row.refresh_from_db()
    return row


def sent_ids(sent_tasks) -> list[int]:
    return [args[0] for name, args, _queue in sent_tasks if name == TASK]


# -- the analysis ---------------------------------------------------------------------------------


def test_the_analysis_finds_a_planted_missed_shot_and_proves_it_as_a_personal_puzzle(student):
    row = analysed(finished_game(student))
    assert row.state == GameAnalysis.State.DONE and row.progress == 100
    assert row.engine_version == engine.engine_key()
    assert len(row.evaluations) == len(SHOT_MISSED) + 1
    first = row.evaluations[0]
    assert first["best"] == "22-17" and first["line"][:3] == ["22-17", "13x22", "25x11"]
    moment = row.moments.get(ply=0, kind=Moment.Kind.MISSED)
    assert moment.side == "white" and moment.user == student and moment.played == "21-17"
    assert moment.verdict == "unique" and moment.goal == "gain:1"
    assert moment.solution == ["22-17", "13x22", "25x18x11"] and "shot" in moment.motifs
    puzzle = moment.puzzle
    assert puzzle is not None and puzzle.owner == student and puzzle.author is None
    assert puzzle.fen == SHOT_FEN and puzzle.goal == "gain:1" and puzzle.verdict == "unique"
    assert puzzle.motifs == moment.motifs and "shot" in puzzle.motifs
    assert puzzle.origin.startswith("from your game against Level 5")
    assert not puzzle.for_exams


def test_a_personal_puzzle_is_never_served_to_others(student, outsider):
    puzzle = analysed(finished_game(student)).moments.get(kind="missed").puzzle
    assert not Puzzle.objects.public().filter(pk=puzzle.pk).exists()
    assert not Puzzle.objects.practice().filter(pk=puzzle.pk).exists()
    assert can_solve(student, puzzle) and not can_solve(outsider, puzzle)


def test_no_personal_puzzle_from_a_position_whose_solution_is_not_unique(student):
    row = analysed(finished_game(student, COOKED_FEN, COOKED_MISSED, white=False))
    moment = row.moments.get(ply=0, kind=Moment.Kind.MISSED)
    assert moment.verdict == "cooked" and moment.puzzle is None
    assert not Puzzle.objects.filter(fen=COOKED_FEN).exists()


def test_moves_are_marked_by_the_evaluation_they_lost(student):
    row = analysed(finished_game(student, COOKED_FEN, COOKED_MISSED, white=False))
    marks = {m["ply"]: m for m in row.marks}
    # two of White's moves lost evaluation: 19-15 (after it Black wins by force, as a search of
    # 3,000,000 nodes finds: 11x18; the analysis's budget does not see that far, so how much it
    # loses is the evaluation's say: more than a man and a half, a mistake with the trained
    # Czech evaluation, a blunder with the hand-tuned one) and 30x23, a blunder
    assert marks[1]["side"] == "white" and marks[1]["kind"] in ("mistake", "blunder")
    assert marks[1]["drop"] >= 150
    assert marks[5]["kind"] == "blunder" and marks[5]["best"] == row.evaluations[5]["best"]
    e1, e2 = row.evaluations[1]["eval"], row.evaluations[2]["eval"]
    assert marks[1]["drop"] == e1 - e2  # White's view: what White's move lost
    for mark in row.marks:
        assert mark["drop"] >= engine.MARK_THRESHOLDS[-1][1]
        assert mark["kind"] == engine.mark_of(mark["drop"])


def test_the_thresholds_of_the_marks_are_named_data():
    assert [engine.mark_of(d) for d in (49, 50, 99, 100, 199, 200)] == [
        None, "inaccuracy", "inaccuracy", "mistake", "mistake", "blunder",
    ]  # fmt: skip


def test_an_analysis_is_not_redone_with_the_same_engine_but_redone_with_another(
    student, sent_tasks, django_capture_on_commit_callbacks
):
    game = finished_game(student)
    row = analysed(game)
    with django_capture_on_commit_callbacks(execute=True):
        again = GameAnalysis.of_play_game(game)
    assert again.pk == row.pk and again.state == GameAnalysis.State.DONE
    assert sent_ids(sent_tasks) == []
    GameAnalysis.objects.filter(pk=row.pk).update(engine_version="dama-0.0.9/0.0.9/n50000")
    assert list(GameAnalysis.objects.stale()) == [row]
    with django_capture_on_commit_callbacks(execute=True):
        assert GameAnalysis.objects.redo_stale() == 1
    row.refresh_from_db()
    assert row.state == GameAnalysis.State.QUEUED and sent_ids(sent_tasks) == [row.pk]
    assert analyse_game(row.pk) == "done"
    row.refresh_from_db()
    assert (
        row.engine_version == engine.engine_key() and row.moments.filter(kind="missed").count() == 1
    )
    assert Puzzle.objects.filter(owner=student, fen=SHOT_FEN).count() == 1  # kept, not doubled


def test_the_beats_task_redoes_the_stale_analyses_a_batch_at_a_time_newest_first(
    student, sent_tasks, django_capture_on_commit_callbacks, monkeypatch
):
    rows = [analysed(finished_game(student)) for _ in range(3)]
    GameAnalysis.objects.update(engine_version="dama-0.0.9/0.0.9/n50000")
    monkeypatch.setattr(tasks, "REDO_BATCH", 2)
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.redo_stale() == 2
    states = {row.pk: row.state for row in GameAnalysis.objects.all()}
    assert [states[row.pk] for row in rows] == ["done", "queued", "queued"]
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.redo_stale() == 1
    assert GameAnalysis.objects.filter(state="queued").count() == 3


def test_a_game_against_the_computer_is_analysed_when_it_ends(
    student, sent_tasks, django_capture_on_commit_callbacks
):
    game = finished_game(student)
    Game.objects.filter(pk=game.pk).update(state=Game.State.PLAYER, result="", reason="")
    game.refresh_from_db()
    with django_capture_on_commit_callbacks(execute=True):
        game.resign()
    row = GameAnalysis.objects.get(game=game)
    assert row.source == "play" and row.white_user == student and row.black_user is None
    assert row.black_name == "Level 5" and sent_ids(sent_tasks) == [row.pk]


def test_a_short_game_and_an_exams_game_are_not_analysed(student):
    assert GameAnalysis.of_play_game(finished_game(student, moves=SHOT_MISSED[:3])) is None
    exam_game = finished_game(student)
    exam_game.source = Game.Source.EXAM
    assert GameAnalysis.of_play_game(exam_game) is None
    assert not GameAnalysis.objects.exists()


def test_a_game_between_players_is_analysed_for_both(
    student, outsider, sent_tasks, django_capture_on_commit_callbacks
):
    from versus.models import VersusGame
    from versus.signals import game_over

    game = VersusGame.objects.create(
        variant="czech", challenger=student, white=student, black=outsider,
        start_fen=SHOT_FEN, moves=SHOT_MISSED, state="over", result="0-2", reason="resigned",
    )  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        game_over.send(sender=VersusGame, game=game)
    row = GameAnalysis.objects.get(versus_game=game)
    assert row.players() == [student, outsider] and row.user == student
    assert analyse_game(row.pk) == "done"
    assert row.moments.get(kind="missed").puzzle.owner == student


# -- uploads --------------------------------------------------------------------------------------


def good_game(fen=SHOT_FEN, moves=SHOT_MISSED) -> str:
    numbered = []
    for i in range(0, len(moves), 2):
        numbered.append(f"{i // 2 + 1}. {moves[i]} {moves[i + 1]}")
    return f'[White "Eva"]\n[Black "Jan"]\n[FEN "{fen}"]\n\n{" ".join(numbered)} 0-2\n'


ILLEGAL = '[White "Eva"]\n[Black "Jan"]\n\n1. 22-18 11-15 2. 18x11 8x15 3. 21-16 *\n'
OTHER_VARIANT = '[GameType "20"]\n\n1. 32-27 20-25 2. 38-32 15-20 3. 34-29 10-15 *\n'
MALFORMED = '[White "Eva"\n\n1. 22-18 {never closed 11-15 *\n'


def upload(client, text: str, **extra):
    data = {"file": SimpleUploadedFile("games.pdn", text.encode()), "variant": "czech", **extra}
    return client.post("/analysis/upload/", data)


def test_an_upload_names_each_bad_game_and_its_move_and_analyses_the_good_ones(
    client, student, sent_tasks, django_capture_on_commit_callbacks
):
    client.login(username=student.username, password=PASSWORD)
    text = "\n".join([good_game(), ILLEGAL, OTHER_VARIANT, good_game()])
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(client, text, player="eva")
    assert response.status_code == 302
    up = GameUpload.objects.get()
    assert up.games == 4
    errors = {e["game"]: e for e in up.errors}
    assert errors[2]["kind"] == "illegal" and errors[2]["move"] == "3. 21-16"
    assert "Game 2" in errors[2]["message"] and "3. 21-16" in errors[2]["message"]
    assert errors[3]["kind"] == "variant" and "Game 3" in errors[3]["message"]
    rows = list(up.analyses.order_by("upload_index"))
    assert [r.upload_index for r in rows] == [1, 4]
    assert rows[0].white_user == student and rows[0].black_user is None  # "eva" is White
    page = client.get(response["Location"]).content.decode()
    assert "3. 21-16" in page and "Game 3" in page
    assert analyse_game(rows[0].pk) == "done"
    assert rows[0].moments.get(kind="missed").puzzle.owner == student


def test_a_malformed_game_is_named_and_the_others_are_still_analysed(
    client, student, django_capture_on_commit_callbacks
):
    client.login(username=student.username, password=PASSWORD)
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(client, good_game() + "\n" + MALFORMED + "\n" + good_game())
    assert response.status_code == 302
    up = GameUpload.objects.get()
    assert [e["game"] for e in up.errors] == [2] and up.errors[0]["kind"] == "malformed"
    assert "Game 2" in up.errors[0]["message"]
    assert sorted(up.analyses.values_list("upload_index", flat=True)) == [1, 3]


def test_an_upload_too_large_or_not_pdn_is_refused_with_a_form_error(client, student, settings):
    client.login(username=student.username, password=PASSWORD)
    settings.DAMA_ANALYSIS_UPLOAD_BYTES = 100
    response = upload(client, good_game() * 3)
    assert response.status_code == 400 and "too large" in response.content.decode()
    settings.DAMA_ANALYSIS_UPLOAD_BYTES = 100_000
    response = upload(client, "hello, this is not a game")
    assert response.status_code == 400 and "no game" in response.content.decode()
    response = client.post("/analysis/upload/", {"variant": "czech"})
    assert response.status_code == 400
    assert not GameUpload.objects.exists()


# -- the workers: fair turns and the daily limit ---------------------------------------------------


def test_one_users_twenty_games_do_not_delay_anothers_single_game(
    client, student, outsider, sent_tasks, django_capture_on_commit_callbacks
):
    client.login(username=student.username, password=PASSWORD)
    with django_capture_on_commit_callbacks(execute=True):
        assert upload(client, "\n".join([good_game()] * 20)).status_code == 302
    a_rows = list(GameAnalysis.objects.filter(user=student).order_by("upload_index"))
    assert len(a_rows) == 20
    assert sent_ids(sent_tasks) == [a_rows[0].pk]  # one of A's in the broker; 19 wait
    with django_capture_on_commit_callbacks(execute=True):
        b_row = GameAnalysis.of_play_game(finished_game(outsider))
    assert sent_ids(sent_tasks) == [a_rows[0].pk, b_row.pk]  # B's at once, before A's second
    with django_capture_on_commit_callbacks(execute=True):
        assert analyse_game(a_rows[0].pk) == "done"
    assert sent_ids(sent_tasks) == [a_rows[0].pk, b_row.pk, a_rows[1].pk]


def test_the_daily_limit_refuses_an_upload_and_says_how_many_are_left(
    client, student, settings, django_capture_on_commit_callbacks
):
    settings.DAMA_ANALYSIS_DAILY_GAMES = 2
    client.login(username=student.username, password=PASSWORD)
    response = upload(client, "\n".join([good_game()] * 3))
    assert response.status_code == 400
    assert "Only 2 more games can be analysed today" in response.content.decode()
    with django_capture_on_commit_callbacks(execute=True):
        assert upload(client, "\n".join([good_game()] * 2)).status_code == 302
    row = GameAnalysis.of_play_game(finished_game(student))
    assert row.state == GameAnalysis.State.LIMITED
    page = client.get("/analysis/").content.decode()
    assert "You have reached today&#x27;s limit of 2 analysed games" in page


def test_a_lost_analysis_is_sent_again(student, sent_tasks, django_capture_on_commit_callbacks):
    from datetime import timedelta

    from django.utils import timezone

    with django_capture_on_commit_callbacks(execute=True):
        row = GameAnalysis.of_play_game(finished_game(student))
    GameAnalysis.objects.filter(pk=row.pk).update(sent=timezone.now() - timedelta(hours=2))
    with django_capture_on_commit_callbacks(execute=True):
        assert GameAnalysis.objects.resend_lost() == 1
    assert sent_ids(sent_tasks) == [row.pk, row.pk]


# -- who may see an analysis -----------------------------------------------------------------------


@pytest.fixture
def student_analysis(student):
    return analysed(finished_game(student))


def test_an_analysis_is_its_players_and_their_teachers(
    client, student, teacher, outsider, student_analysis
):
    url = f"/analysis/{student_analysis.pk}/"
    classroom = Classroom.objects.create(name="4.A")
    classroom.teachers.add(teacher)
    Membership.objects.create(classroom=classroom, user=student)
    client.login(username=student.username, password=PASSWORD)
    page = client.get(url)
    assert page.status_code == 200 and 'data-kind="missed"' in page.content.decode()
    client.login(username=teacher.username, password=PASSWORD)
    assert client.get(url).status_code == 200
    client.login(username=outsider.username, password=PASSWORD)
    assert client.get(url).status_code == 404
    client.logout()
    assert client.get(url).status_code == 404


def test_an_upload_is_its_uploaders_alone(client, student, outsider):
    up = GameUpload.objects.create(user=student, name="x.pdn", variant="czech")
    client.login(username=outsider.username, password=PASSWORD)
    assert client.get(f"/analysis/upload/{up.pk}/").status_code == 404
    client.login(username=student.username, password=PASSWORD)
    assert client.get(f"/analysis/upload/{up.pk}/").status_code == 200


def test_the_owner_plays_a_personal_puzzle_in_the_trainer_and_no_one_else_does(
    client, student, outsider
):
    puzzle = analysed(finished_game(student)).moments.get(kind="missed").puzzle
    url = f"/puzzles/czech/{puzzle.pk}/"
    client.login(username=student.username, password=PASSWORD)
    assert client.get(url).status_code == 200
    client.login(username=outsider.username, password=PASSWORD)
    assert client.get(url).status_code == 404
