"""Learning from one's own games, into review (issue 49): a personal puzzle (a shot of the player's
own game, ``Puzzle.owner``) joins the owner's review due now, with the game it comes from on the
card; its owner and their teachers play it, nobody else, and no pool ever serves it; the puzzle
dashboard shows the motifs missed in games beside the puzzles'; a class's teachers see the
motifs their students miss in their games and copy a student's personal puzzle into a set.
"""

from __future__ import annotations

import doctest
import re
from datetime import date

import pytest
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from analysis import insights
from analysis.insights import class_motifs, class_puzzles, player_motifs
from analysis.models import GameAnalysis, GameUpload, Moment
from classroom.models import Assignment, Classroom, PuzzleSet
from puzzles import daily, engine, stream
from puzzles.models import Attempt, Puzzle
from puzzles.models.puzzle import default_limits
from puzzles.player import Player
from puzzles.signals import personal_puzzle_made
from review.models import Card
from tests.conftest import _make_user
from tests.puzzle_fixtures import PUZZLES, make_puzzle

pytestmark = pytest.mark.django_db

ORIGIN = "from your game against Level 5 on 28 Nov"


@pytest.fixture(autouse=True)
def _no_kept_counts():
    """The navigation's counts are kept in the cache by user id, which the next test reuses."""
    from django.core.cache import cache

    cache.clear()


def proven(name: str) -> dict:
    """Puzzle ``name``'s data with the verdict the engine gives it now (as the analysis's solver
    hands it over)."""
    data = dict(PUZZLES[name])
    data["fen"] = engine.normalize_fen(data["fen"], data["variant"])
    data["horizon"] = data.get("horizon") or engine.default_horizon(data["goal"])
    data["proof"] = engine.prove(
        data["variant"], data["fen"], data["goal"], data["horizon"], default_limits()
    )
    assert data["proof"]["kind"] == "unique", name
    return data


def personal(owner, name: str = "czech_gain", *, capture, origin: str = ORIGIN) -> Puzzle:
    """Make ``owner``'s personal puzzle ``name`` as the analysis does, the commit's callbacks
    run (``capture``: pytest-django's ``django_capture_on_commit_callbacks``)."""
    data = proven(name)
    with capture(execute=True):
        puzzle = Puzzle.make_personal(
            owner,
            variant=data["variant"],
            fen=data["fen"],
            goal=data["goal"],
            horizon=data["horizon"],
            solution=[],
            motifs=data["motifs"],
            proof=data["proof"],
            origin=origin,
            source="analysis:1:16",
            difficulty=data["difficulty"],
        )
    assert puzzle is not None
    return puzzle


def analysis_of(user, variant: str = "czech", **fields) -> GameAnalysis:
    """An analysed game of ``user`` (an uploaded one: White), done."""
    upload = GameUpload.objects.create(user=user, variant=variant, games=1)
    return GameAnalysis.objects.create(
        source=GameAnalysis.Source.UPLOAD,
        upload=upload,
        upload_index=1,
        variant=variant,
        start_fen="W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
        moves=["22-18", "9-13", "18x9", "5x14", "23-19", "14x23"],
        played=date(2026, 11, 28),
        white_name=user.username,
        black_name="Pepa",
        user=user,
        white_user=user,
        state=GameAnalysis.State.DONE,
        **fields,
    )


def moment(analysis, ply: int, kind: str, motifs: list[str], puzzle=None) -> Moment:
    return Moment.objects.create(
        analysis=analysis,
        ply=ply,
        side="white" if ply % 2 == 0 else "black",
        kind=kind,
        user=analysis.white_user,
        played="22-18",
        fen=analysis.start_fen,
        goal="gain:1",
        motifs=motifs,
        verdict="unique" if puzzle else "cooked",
        puzzle=puzzle,
    )


@pytest.fixture
def classroom(teacher, student):
    room = Classroom.objects.create(name="4.B", created_by=teacher)
    room.teachers.add(teacher)
    room.add_student(student)
    return room


@pytest.fixture
def other_teacher(django_user_model):
    return _make_user(django_user_model, "tomas", teacher=True)


# -- into review -------------------------------------------------------------------------------


def test_a_personal_puzzle_made_becomes_a_card_due_now_that_says_which_game(
    client, student, django_capture_on_commit_callbacks
):
    puzzle = personal(student, capture=django_capture_on_commit_callbacks)
    assert (puzzle.owner, puzzle.origin, puzzle.is_public) == (student, ORIGIN, False)
    assert puzzle.verdict == "unique" and puzzle.for_exams is False
    card = Card.objects.get(user=student)
    assert (card.puzzle, card.origin, card.is_due()) == (puzzle, Card.Origin.GAME, True)
    client.force_login(student)
    html = client.get("/review/czech/").content.decode()
    assert f'data-card="{card.pk}"' in html
    assert "A shot of your own game: find what was there." in html
    origin = re.search(r'data-testid="review-origin">(.*?)</p>', html).group(1)
    assert origin == "From your game against Level 5 on 28 Nov."
    index = client.get("/review/").content.decode()
    assert "From your game against Level 5 on 28 Nov." in index
    # the session's puzzle opens for its owner, and back to the session after it
    url = re.search(r'href="([^"]+)" data-testid="review-go"', html).group(1).replace("&amp;", "&")
    page = client.get(url).content.decode()
    assert (
        '<p class="muted" data-testid="puzzle-origin">From your game against Level 5 on 28 Nov.</p>'
        in page
    )


def test_a_personal_puzzle_is_made_once_a_position_and_only_from_a_unique_proof(
    student, outsider, django_capture_on_commit_callbacks
):
    sent = []

    def heard(sender, puzzle, owner, **kwargs):
        sent.append((puzzle.pk, owner.pk))

    personal_puzzle_made.connect(heard)
    try:
        first = personal(student, capture=django_capture_on_commit_callbacks)
        again = personal(student, capture=django_capture_on_commit_callbacks, origin="another")
        theirs = personal(outsider, capture=django_capture_on_commit_callbacks)
    finally:
        personal_puzzle_made.disconnect(heard)
    assert again == first and again.origin == ORIGIN  # the first game's stays
    assert theirs != first  # the same position in another player's game: their own row
    assert sent == [(first.pk, student.pk), (theirs.pk, outsider.pk)]
    assert Card.objects.filter(user=student).count() == 1
    data = proven("czech_capture")
    cooked = {**data["proof"], "kind": "cooked"}
    fields = {k: data[k] for k in ("variant", "fen", "goal", "horizon", "motifs")}
    assert Puzzle.make_personal(student, **fields, solution=[], proof=cooked) is None
    assert Puzzle.make_personal(student, **fields, solution=[], proof=None) is None
    other = {**data["proof"], "fen": PUZZLES["czech_gain"]["fen"]}  # about another position
    assert Puzzle.make_personal(student, **fields, solution=[], proof=other) is None
    assert Puzzle.objects.filter(owner=student).count() == 1


def test_a_card_the_player_already_has_keeps_its_schedule(
    student, django_capture_on_commit_callbacks
):
    puzzle = personal(student, capture=django_capture_on_commit_callbacks)
    card = Card.objects.get(user=student)
    later = timezone.now() + timezone.timedelta(days=5)
    Card.objects.filter(pk=card.pk).update(due=later)
    Card.objects.add_personal(student, puzzle)
    assert Card.objects.get(pk=card.pk).due == later


# -- who plays it --------------------------------------------------------------------------------


def test_the_owner_and_their_teachers_play_it_anyone_else_gets_404(
    client, student, teacher, outsider, other_teacher, classroom, django_capture_on_commit_callbacks
):
    puzzle = personal(student, capture=django_capture_on_commit_callbacks)
    url = f"/puzzles/czech/{puzzle.pk}/"
    assert client.get(url).status_code == 404  # a visitor
    for user, status in ((student, 200), (teacher, 200), (outsider, 404), (other_teacher, 404)):
        client.force_login(user)
        assert client.get(url).status_code == status, user
    client.force_login(teacher)  # the game's words are its owner's ("your game")
    assert 'data-testid="puzzle-origin"' not in client.get(url).content.decode()
    # another class of the other teacher, without the student: still nothing for them
    Classroom.objects.create(name="5.A").teachers.add(other_teacher)
    client.force_login(other_teacher)
    assert client.get(url).status_code == 404
    # a student of the same class is not a teacher
    classmate = _make_user(type(student), "karel")
    classroom.add_student(classmate)
    client.force_login(classmate)
    assert client.get(url).status_code == 404
    # its proof page is the staff's and a teacher's own puzzles' only
    client.force_login(student)
    assert client.get(f"/puzzles/czech/{puzzle.pk}/proof/").status_code == 404


def test_a_personal_puzzle_is_never_in_the_stream_the_daily_puzzle_or_the_exams(
    student, outsider, django_capture_on_commit_callbacks
):
    puzzle = personal(student, capture=django_capture_on_commit_callbacks)
    assert stream.playable("czech", puzzle.pk) is not None  # the trainer can serve it...
    assert puzzle not in stream.public_pool("czech")  # ...but no pool holds it
    assert puzzle not in Puzzle.objects.practice()
    assert puzzle not in Puzzle.objects.public()
    assert puzzle.pk not in [row[0] for row in stream.pool_rows("czech")]
    for user in (student, outsider):
        assert stream.next_puzzle(Player(user=user, session=None), "czech") is None
    assert daily.choose("czech", daily.today()) is None
    public = make_puzzle("czech_capture")
    assert stream.next_puzzle(Player(user=student, session=None), "czech") == public


def test_a_set_takes_a_personal_puzzle_only_as_a_teachers_copy(
    teacher, student, classroom, django_capture_on_commit_callbacks
):
    puzzle = personal(student, capture=django_capture_on_commit_callbacks)
    mine = PuzzleSet.objects.create(owner=teacher, title="Z partií", variant="czech")
    with pytest.raises(ValidationError):
        mine.add(puzzle)
    assert not mine.setitem_set.exists()


# -- the dashboard ---------------------------------------------------------------------------------


def test_the_dashboard_shows_the_motifs_missed_in_games_beside_the_puzzles(
    client, student, outsider
):
    game = analysis_of(student)
    moment(game, 10, Moment.Kind.MISSED, ["sacrifice:1", "capture:2"])
    moment(game, 14, Moment.Kind.MISSED, ["sacrifice:2", "capture:3", "shot"])
    moment(game, 17, Moment.Kind.ALLOWED, ["capture:2"])
    moment(analysis_of(outsider), 10, Moment.Kind.MISSED, ["crowning"])  # someone else's
    moment(analysis_of(student, "international"), 10, Moment.Kind.MISSED, ["majority"])
    gain = make_puzzle("czech_gain")  # motifs sacrifice, capture
    Attempt.objects.create(user=student, puzzle=gain, failed=True, finished_at=timezone.now())
    client.force_login(student)
    html = client.get("/puzzles/czech/dashboard/").content.decode()
    table = re.search(r'data-testid="game-motifs-table">(.*?)</table>', html, re.S).group(1)
    rows = {
        motif: tuple(int(n) for n in re.findall(r'data-testid="[a-z-]+">(\d+)</td>', row))
        for motif, row in re.findall(r'<tr data-motif="([^"]+)">(.*?)</tr>', table, re.S)
    }
    # motif: (missed in games, walked into, failed in puzzles)
    assert rows == {"capture": (2, 1, 1), "sacrifice": (2, 0, 1), "shot": (1, 0, 0)}
    assert list(rows) == ["capture", "sacrifice", "shot"]  # the most frequent first
    assert "sacrifice" in re.search(r'data-testid="by-motif">(.*?)</table>', html, re.S).group(1)
    client.force_login(outsider)
    html = client.get("/puzzles/international/dashboard/").content.decode()
    assert "No shots missed in your analysed games yet." in html
    client.logout()
    html = client.get("/puzzles/czech/dashboard/").content.decode()
    assert 'data-testid="game-motifs-table"' not in html


def test_the_insights_examples_run():
    assert doctest.testmod(insights).failed == 0


def test_the_players_motifs_are_read_in_one_query(student):
    game = analysis_of(student)
    for ply in range(12):
        moment(game, ply, Moment.Kind.MISSED, ["shot", f"capture:{ply % 3 + 1}"])
    with CaptureQueriesContext(connection) as queries:
        counts = player_motifs(student, "czech")
    assert len(queries) == 1
    assert [(c.motif, c.missed) for c in counts] == [("capture", 12), ("shot", 12)]


# -- the teachers ----------------------------------------------------------------------------------


def test_the_class_progress_page_shows_the_motifs_its_students_miss_in_their_games(
    client, teacher, student, outsider, classroom, django_user_model
):
    karel = _make_user(django_user_model, "karel")
    classroom.add_student(karel)
    moment(analysis_of(student), 10, Moment.Kind.MISSED, ["coup_philippe", "capture:2"])
    moment(analysis_of(karel), 12, Moment.Kind.ALLOWED, ["coup_philippe"])
    moment(analysis_of(karel), 14, Moment.Kind.MISSED, ["crowning"])
    moment(analysis_of(outsider), 10, Moment.Kind.MISSED, ["coup_philippe"])  # not in the class
    client.force_login(teacher)
    html = client.get(reverse("classroom:progress", args=[classroom.pk])).content.decode()
    table = re.search(r'data-testid="class-game-motifs-table">(.*?)</table>', html, re.S).group(1)
    row = re.search(r'<tr data-motif="coup_philippe">(.*?)</tr>', table, re.S).group(1)
    assert '<td data-testid="missed">1</td><td data-testid="allowed">1</td>' in row
    assert '<td data-testid="students">2: karel, standa</td>' in row
    assert "coup Philippe" in row
    row = re.search(r'<tr data-motif="crowning">(.*?)</tr>', table, re.S).group(1)
    assert '<td data-testid="students">1: karel</td>' in row
    assert "olga" not in table
    with CaptureQueriesContext(connection) as queries:
        class_motifs([student, karel])
    assert len(queries) == 1


def test_the_class_puzzles_page_is_the_teachers_only(
    client, teacher, student, outsider, other_teacher, classroom, django_capture_on_commit_callbacks
):
    puzzle = personal(student, capture=django_capture_on_commit_callbacks)
    moment(analysis_of(student), 16, Moment.Kind.MISSED, ["sacrifice:1"], puzzle=puzzle)
    url = reverse("analysis:class_puzzles", args=[classroom.pk])
    client.force_login(teacher)
    html = client.get(url).content.decode()
    assert f'<tr data-puzzle="{puzzle.pk}">' in html
    assert "Make a set first" in html
    html = client.get(url + "?motif=crowning").content.decode()
    assert 'data-testid="no-class-puzzles"' in html
    assert (
        f'<tr data-puzzle="{puzzle.pk}">' in client.get(url + "?motif=sacrifice").content.decode()
    )
    with CaptureQueriesContext(connection) as queries:
        assert [m.puzzle for m in class_puzzles([student])] == [puzzle]
    assert len(queries) == 1
    client.force_login(student)
    assert client.get(url).status_code == 403
    for user in (outsider, other_teacher):
        client.force_login(user)
        assert client.get(url).status_code == 404
    client.logout()
    assert client.get(url).status_code == 302  # to the login page


def test_a_teacher_copies_a_students_personal_puzzle_into_their_set(
    client, teacher, student, classroom, django_user_model, django_capture_on_commit_callbacks
):
    puzzle = personal(student, capture=django_capture_on_commit_callbacks)
    moment(analysis_of(student), 16, Moment.Kind.MISSED, ["sacrifice:1"], puzzle=puzzle)
    mine = PuzzleSet.objects.create(owner=teacher, title="Z partií", variant="czech")
    client.force_login(teacher)
    url = reverse("analysis:class_add_puzzle", args=[classroom.pk])
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client.post(url, {"puzzle": puzzle.pk, "puzzle_set": mine.pk})
    assert response.status_code == 302
    copy = mine.ordered_puzzles()[0]
    assert copy != puzzle
    assert (copy.author, copy.owner, copy.verdict, copy.fen) == (
        teacher,
        None,
        "unique",
        puzzle.fen,
    )
    assert copy.proof == puzzle.proof and not callbacks  # proven already: nothing for the workers
    puzzle.refresh_from_db()
    assert (puzzle.owner, puzzle.author) == (student, None)  # the student's row stays theirs
    page = client.get(response["Location"]).content.decode()
    assert f"The puzzle is in your set “Z partií” as puzzle #{copy.pk}." in page
    # twice: the same copy, no second row
    client.post(url, {"puzzle": puzzle.pk, "puzzle_set": mine.pk})
    assert mine.setitem_set.count() == 1
    assert Puzzle.objects.filter(author=teacher).count() == 1
    # assigned, the class plays the copy (and still not the student's own row)
    Assignment.objects.create(puzzle_set=mine, classroom=classroom, assigned_by=teacher)
    classmate = _make_user(django_user_model, "karel")
    classroom.add_student(classmate)
    client.force_login(classmate)
    assert client.get(f"/puzzles/czech/{copy.pk}/?set={mine.pk}").status_code == 200
    assert client.get(f"/puzzles/czech/{puzzle.pk}/").status_code == 404


def test_only_a_teacher_of_the_student_copies_and_only_into_their_own_set(
    client, teacher, student, outsider, other_teacher, classroom, django_capture_on_commit_callbacks
):
    puzzle = personal(student, capture=django_capture_on_commit_callbacks)
    strangers = personal(outsider, "czech_capture", capture=django_capture_on_commit_callbacks)
    mine = PuzzleSet.objects.create(owner=teacher, title="Moje", variant="czech")
    theirs = PuzzleSet.objects.create(owner=other_teacher, title="Cizí", variant="czech")
    other_variant = PuzzleSet.objects.create(owner=teacher, title="Brazil", variant="brazilian")
    url = reverse("analysis:class_add_puzzle", args=[classroom.pk])
    client.force_login(other_teacher)  # teaches no class of the student's
    assert client.post(url, {"puzzle": puzzle.pk, "puzzle_set": theirs.pk}).status_code == 404
    with pytest.raises(PermissionDenied):
        theirs.add_personal(other_teacher, puzzle)
    classroom.teachers.add(other_teacher)  # a co-teacher now: into their own set only
    assert client.post(url, {"puzzle": puzzle.pk, "puzzle_set": mine.pk}).status_code == 400
    client.force_login(teacher)
    response = client.post(url, {"puzzle": strangers.pk, "puzzle_set": mine.pk})
    assert response.status_code == 400  # not a student of the class
    with pytest.raises(PermissionDenied):
        mine.add_personal(teacher, strangers)
    response = client.post(url, {"puzzle": puzzle.pk, "puzzle_set": other_variant.pk})
    assert response.status_code == 400
    assert "another variant" in response.content.decode()
    for bad in ({"puzzle": "x", "puzzle_set": mine.pk}, {"puzzle": puzzle.pk}, {}):
        assert client.post(url, bad).status_code == 400
    client.force_login(student)
    assert client.post(url, {"puzzle": puzzle.pk, "puzzle_set": mine.pk}).status_code == 403
    assert not mine.setitem_set.exists() and not theirs.setitem_set.exists()
    assert not other_variant.setitem_set.exists()


# -- in Czech --------------------------------------------------------------------------------------


def test_the_card_shows_the_game_in_the_owners_words(
    client, student, django_capture_on_commit_callbacks
):
    personal(
        student,
        capture=django_capture_on_commit_callbacks,
        origin="z tvé partie proti Úrovni 5 dne 28. lis",
    )
    client.force_login(student)
    html = client.get("/review/czech/", HTTP_ACCEPT_LANGUAGE="cs").content.decode()
    assert (
        '<p class="review-origin" data-testid="review-origin">Z tvé partie proti Úrovni 5 dne 28. lis.</p>'
        in html
    )


@pytest.mark.parametrize("value", ["99999999999999999999999", "-1", "1e3", " "])
def test_a_bad_id_to_copy_is_a_clear_400(client, teacher, classroom, value):
    mine = PuzzleSet.objects.create(owner=teacher, title="Moje", variant="czech")
    client.force_login(teacher)
    url = reverse("analysis:class_add_puzzle", args=[classroom.pk])
    assert client.post(url, {"puzzle": value, "puzzle_set": mine.pk}).status_code == 400
    assert client.post(url, {"puzzle": "1", "puzzle_set": value}).status_code == 400


def test_a_copy_reuses_the_position_the_site_already_has(
    teacher, student, classroom, django_capture_on_commit_callbacks
):
    corpus = make_puzzle("czech_gain")
    puzzle = personal(student, capture=django_capture_on_commit_callbacks)
    mine = PuzzleSet.objects.create(owner=teacher, title="Moje", variant="czech")
    assert mine.add_personal(teacher, puzzle) == (corpus, False)
    assert mine.ordered_puzzles() == [corpus]
    assert not Puzzle.objects.filter(author=teacher).exists()
