"""Teachers' puzzles are theirs: the public pool (the puzzle stream, the daily puzzle, the motif
filter, the corpus search of the teachers' sets) is the corpus (no author) and puzzles staff made
public; a teacher's change to a puzzle that is used elsewhere (another set, the pool, a past daily
puzzle) is copy-on-write; ``?set=`` counts only for a set of the player's class."""

from __future__ import annotations

import io
import re
from datetime import timedelta

import pytest
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction

from classroom.models import Assignment, Classroom, PuzzleSet, SetItem
from puzzles import daily, stream
from puzzles.models import Attempt, DailyPuzzle, Puzzle, Verdict
from tests.puzzle_fixtures import PUZZLES, make_puzzle

from . import test_classroom as classroom_tests
from .test_classroom import CAPTURE, COOKED, GAIN, proven

# fixtures of the classroom tests: the co-teacher, another teacher, the verify queue as a list
co_teacher = classroom_tests.co_teacher
other_teacher = classroom_tests.other_teacher
queue = classroom_tests.queue

pytestmark = pytest.mark.django_db


def stream_target(client, variant: str = "czech", query: str = "") -> str:
    """Where the stream sends the player (a puzzle page), or "" when it has nothing to serve."""
    response = client.get(f"/puzzles/{variant}/{query}")
    if response.status_code == 302:
        return response["Location"]
    assert 'data-testid="trainer-empty"' in response.content.decode()
    return ""


# -- 1. the public pool -----------------------------------------------------------------------------


def test_a_teachers_proven_puzzle_stays_out_of_the_stream_daily_and_motif_filter(client, teacher):
    mine = make_puzzle("czech_gain", author=teacher)
    assert mine.verdict == Verdict.UNIQUE and stream.servable("czech").filter(pk=mine.pk)
    assert stream_target(client) == ""
    assert stream.public_pool("czech").count() == 0
    assert daily.choose("czech", daily.today()) is None
    assert daily.daily_puzzle("czech") is None
    assert stream.motif_choices("czech") == []
    client.force_login(teacher)  # not even for its author: the stream is the site's pool
    assert stream_target(client) == ""

    corpus = make_puzzle("czech_capture")
    assert stream_target(client) == f"/puzzles/czech/{corpus.pk}/"
    assert daily.choose("czech", daily.today()) == corpus
    assert stream.motif_choices("czech") == ["capture"]


def test_staff_can_make_a_teachers_puzzle_public(client, teacher):
    mine = make_puzzle("czech_gain", author=teacher)
    Puzzle.objects.filter(pk=mine.pk).update(public=True)
    assert stream_target(client) == f"/puzzles/czech/{mine.pk}/"
    assert daily.choose("czech", daily.today()).pk == mine.pk


def test_the_public_flag_is_set_in_the_admin_only(client, teacher, staff):
    from classroom.forms import PuzzleForm

    assert "public" not in PuzzleForm.base_fields
    mine = make_puzzle("czech_gain", author=teacher)
    client.force_login(staff)
    page = client.get(f"/admin/puzzles/puzzle/{mine.pk}/change/").content.decode()
    assert 'name="public"' in page


def test_corpus_search_offers_no_other_teachers_puzzle(client, teacher, other_teacher, queue):
    theirs = proven(CAPTURE, author=other_teacher)
    corpus = proven(GAIN)
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="S", variant="czech")
    client.force_login(teacher)
    url = f"/teach/sets/{puzzle_set.pk}/corpus/"
    page = client.get(url).content.decode()
    assert f"#{theirs.pk} " not in page and f"#{corpus.pk} " in page
    assert client.post(url, {"puzzle": theirs.pk}).status_code == 404
    assert not puzzle_set.puzzles.exists()


def test_a_deleted_teachers_puzzles_go_with_the_account_and_never_join_the_corpus(teacher):
    mine = make_puzzle("czech_gain", author=teacher)
    teacher.delete()
    assert not Puzzle.objects.filter(pk=mine.pk).exists()
    assert stream.public_pool("czech").count() == 0


# -- 2. copy-on-write -------------------------------------------------------------------------------


def edit(client, puzzle_set, puzzle, **data):
    fields = {"fen": puzzle.fen, "goal": "capture", "solution": "", "title": puzzle.title}
    return client.post(
        f"/teach/sets/{puzzle_set.pk}/puzzles/{puzzle.pk}/", {**fields, **data}, follow=False
    )


@pytest.fixture
def teachers_puzzle(teacher, queue):
    """The teacher's own proven capture puzzle in the teacher's set."""
    puzzle = proven(CAPTURE, author=teacher, title="Mine")
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Mine", variant="czech")
    puzzle_set.add(puzzle)
    return puzzle_set, puzzle


def snapshot(puzzle: Puzzle) -> tuple:
    puzzle.refresh_from_db()
    return (puzzle.fen, puzzle.goal, puzzle.title, puzzle.revision, puzzle.verdict)


def test_changing_a_puzzle_another_set_uses_gives_this_set_a_copy(
    client, teacher, other_teacher, teachers_puzzle, queue, django_capture_on_commit_callbacks
):
    puzzle_set, puzzle = teachers_puzzle
    # another teacher's set holds the row (as the old code's reuse made it happen)
    theirs = PuzzleSet.objects.create(owner=other_teacher, title="Theirs", variant="czech")
    theirs.add(puzzle)
    before = snapshot(puzzle)
    client.force_login(teacher)
    with django_capture_on_commit_callbacks(execute=True):
        response = edit(client, puzzle_set, puzzle, fen=COOKED["fen"], title="Changed")
    assert response.status_code == 302
    copy = puzzle_set.ordered_puzzles()[0]
    assert copy.pk != puzzle.pk and copy.author == teacher
    assert (copy.fen, copy.title, copy.verdict) == (COOKED["fen"], "Changed", Verdict.PENDING)
    assert response.url == f"/teach/sets/{puzzle_set.pk}/puzzles/{copy.pk}/"
    assert snapshot(puzzle) == before  # the other set's puzzle did not change ...
    assert theirs.ordered_puzzles() == [puzzle]
    assert queue == [(copy.pk, 1)]  # ... nor was its proof queued again
    page = client.get(response.url).content.decode()
    assert f"Puzzle #{puzzle.pk} is used elsewhere too" in page


def test_changing_a_puzzle_of_two_of_my_own_sets_changes_only_the_one_edited(
    client, teacher, teachers_puzzle, queue
):
    puzzle_set, puzzle = teachers_puzzle
    second = PuzzleSet.objects.create(owner=teacher, title="Second", variant="czech")
    second.add(puzzle)
    before = snapshot(puzzle)
    client.force_login(teacher)
    edit(client, puzzle_set, puzzle, title="Renamed")  # the same position: a copy all the same
    copy = puzzle_set.ordered_puzzles()[0]
    assert copy.pk != puzzle.pk and (copy.fen, copy.title) == (puzzle.fen, "Renamed")
    assert second.ordered_puzzles() == [puzzle] and snapshot(puzzle) == before
    # the copy is used by this set only: the next change is made in place
    edit(client, puzzle_set, copy, title="Renamed again")
    assert puzzle_set.ordered_puzzles() == [copy]
    copy.refresh_from_db()
    assert copy.title == "Renamed again"


def test_changing_a_past_daily_puzzle_or_a_public_one_makes_a_copy(
    client, teacher, teachers_puzzle, queue
):
    puzzle_set, puzzle = teachers_puzzle
    DailyPuzzle.objects.create(
        variant="czech", date=daily.today() - timedelta(days=3), puzzle=puzzle
    )
    before = snapshot(puzzle)
    client.force_login(teacher)
    edit(client, puzzle_set, puzzle, fen=COOKED["fen"])
    assert snapshot(puzzle) == before and puzzle_set.ordered_puzzles()[0].pk != puzzle.pk

    public = proven(COOKED | {"fen": "W:W21,22:B13,14"}, author=teacher, public=True)
    puzzle_set.add(public)
    before = snapshot(public)
    edit(client, puzzle_set, public, fen="W:W21,22:B13,15")
    assert snapshot(public) == before and public not in puzzle_set.ordered_puzzles()


def test_a_puzzle_used_by_this_set_only_is_changed_in_place(
    client, teacher, teachers_puzzle, queue
):
    puzzle_set, puzzle = teachers_puzzle
    client.force_login(teacher)
    edit(client, puzzle_set, puzzle, fen=COOKED["fen"])
    assert puzzle_set.ordered_puzzles() == [puzzle]
    puzzle.refresh_from_db()
    assert puzzle.fen == COOKED["fen"] and puzzle.revision == 2
    assert Puzzle.objects.count() == 1


def test_saving_without_a_change_makes_no_copy(client, teacher, other_teacher, teachers_puzzle):
    puzzle_set, puzzle = teachers_puzzle
    PuzzleSet.objects.create(owner=other_teacher, title="T", variant="czech").add(puzzle)
    client.force_login(teacher)
    edit(client, puzzle_set, puzzle)
    assert puzzle_set.ordered_puzzles() == [puzzle] and Puzzle.objects.count() == 1


def test_a_teacher_never_changes_a_corpus_puzzle_or_another_teachers_row(
    client, teacher, other_teacher, queue
):
    corpus = proven(CAPTURE)
    theirs = proven(COOKED, author=other_teacher)
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="S", variant="czech")
    for puzzle in (corpus, theirs):
        SetItem.objects.create(puzzle_set=puzzle_set, puzzle=puzzle, position=puzzle.pk)
        before = snapshot(puzzle)
        client.force_login(teacher)
        response = edit(client, puzzle_set, puzzle, fen="W:W22:B9", goal="win", horizon="2")
        assert response.status_code == 200  # the read-only page
        assert "can be removed from the set, not changed" in response.content.decode()
        assert snapshot(puzzle) == before
        with pytest.raises(PermissionDenied):
            puzzle_set.save_puzzle(
                teacher, fen="W:W22:B9", goal="win", horizon=2, solution=[],
                puzzle=puzzle,
            )  # fmt: skip
        assert snapshot(puzzle) == before


def test_a_new_puzzle_reuses_my_own_row_or_the_corpus_but_never_another_teachers(
    client, teacher, other_teacher, queue
):
    theirs = proven(CAPTURE, author=other_teacher, title="Theirs")
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="S", variant="czech")
    client.force_login(teacher)
    url = f"/teach/sets/{puzzle_set.pk}/puzzles/new/"
    response = client.post(url, {"fen": CAPTURE["fen"], "goal": "capture", "title": "Mine"})
    mine = puzzle_set.ordered_puzzles()[0]
    assert mine.pk != theirs.pk and mine.author == teacher and mine.title == "Mine"
    assert response.url == f"/teach/sets/{puzzle_set.pk}/puzzles/{mine.pk}/"
    second = PuzzleSet.objects.create(owner=teacher, title="S2", variant="czech")
    client.post(f"/teach/sets/{second.pk}/puzzles/new/", {"fen": CAPTURE["fen"], "goal": "capture"})
    assert second.ordered_puzzles() == [mine]  # my own row is reused
    theirs.refresh_from_db()
    assert theirs.title == "Theirs" and theirs.revision == 1


def test_the_corpus_has_one_row_per_position_and_goal_teachers_their_own(teacher, other_teacher):
    Puzzle.objects.create(**CAPTURE)
    with pytest.raises(IntegrityError), transaction.atomic():
        Puzzle.objects.create(**CAPTURE)
    Puzzle.objects.create(**CAPTURE, author=teacher)
    Puzzle.objects.create(**CAPTURE, author=other_teacher)
    assert Puzzle.objects.filter(fen=CAPTURE["fen"]).count() == 3


def test_loading_the_corpus_stays_idempotent_next_to_a_teachers_copy(teacher, tmp_path, queue):
    from django.core.management import call_command

    Puzzle.objects.create(**CAPTURE, author=teacher, title="Mine")
    path = tmp_path / "one.pdn"
    path.write_text(f'[GameType "29"]\n[FEN "{CAPTURE["fen"]}"]\n[Goal "capture"]\n\n*\n')
    for _run in range(2):
        call_command("load_puzzles", str(path), "--queue", stdout=io.StringIO())
    assert Puzzle.objects.filter(fen=CAPTURE["fen"], author__isnull=True).count() == 1
    assert Puzzle.objects.get(fen=CAPTURE["fen"], author=teacher).title == "Mine"


# -- 3. the trainer and ``?set=`` ---------------------------------------------------------------------


@pytest.fixture
def assigned(teacher, co_teacher, student, outsider):
    """A teacher's puzzle in the teacher's set, assigned to the class (teacher, co-teacher and
    student); the outsider is in another class that has a set of its own."""
    puzzle = make_puzzle("czech_capture", author=teacher)
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="S", variant="czech")
    puzzle_set.add(puzzle)
    classroom = Classroom.objects.create(name="Club", variant="czech")
    classroom.teachers.add(teacher, co_teacher)
    classroom.add_student(student)
    Assignment.objects.create(puzzle_set=puzzle_set, classroom=classroom)
    return puzzle, puzzle_set


def attempt_of(html: str) -> Attempt:
    return Attempt.objects.get(pk=int(re.search(r'data-attempt="(\d+)"', html).group(1)))


def test_set_counts_only_when_it_holds_the_puzzle_and_is_assigned_to_the_players_class(
    client, teacher, student, outsider, assigned, other_teacher
):
    puzzle, puzzle_set = assigned
    corpus = make_puzzle("czech_gain")
    # another class's set holding the corpus puzzle
    theirs = PuzzleSet.objects.create(owner=other_teacher, title="T", variant="czech")
    theirs.add(corpus)
    other = Classroom.objects.create(name="Other", variant="czech")
    other.teachers.add(other_teacher)
    other.add_student(outsider)
    Assignment.objects.create(puzzle_set=theirs, classroom=other)

    client.force_login(student)
    row = attempt_of(
        client.get(f"/puzzles/czech/{puzzle.pk}/?set={puzzle_set.pk}").content.decode()
    )
    assert (row.source, row.set_id) == ("set", puzzle_set.pk)
    # a set of another class, a set without the puzzle, a set that does not exist: ignored
    for set_id in (theirs.pk, 999999):
        html = client.get(f"/puzzles/czech/{corpus.pk}/?set={set_id}").content.decode()
        row = attempt_of(html)
        assert (row.source, row.set_id) == ("stream", None)
        next_link = re.search(r'href="([^"]*)" data-testid="next-puzzle"', html).group(1)
        assert "set=" not in next_link
    html = client.get(f"/puzzles/czech/{corpus.pk}/?set={puzzle_set.pk}").content.decode()
    assert attempt_of(html).set_id is None
    assert not Attempt.objects.filter(set_id=theirs.pk).exists()
    # the owner of an unassigned set previews their own puzzle, but nothing is logged to the set
    lonely = PuzzleSet.objects.create(owner=teacher, title="L", variant="czech")
    lonely.add(puzzle)
    client.force_login(teacher)
    html = client.get(f"/puzzles/czech/{puzzle.pk}/?set={lonely.pk}").content.decode()
    assert attempt_of(html).set_id is None


def test_an_unassigned_teachers_puzzle_is_for_its_author_only(
    client, teacher, co_teacher, student, queue
):
    puzzle = make_puzzle("czech_capture", author=teacher)
    PuzzleSet.objects.create(owner=teacher, title="Draft", variant="czech").add(puzzle)
    url = f"/puzzles/czech/{puzzle.pk}/"
    assert client.get(url).status_code == 404
    for user, status in ((co_teacher, 404), (student, 404), (teacher, 200)):
        client.force_login(user)
        assert client.get(url).status_code == status, user


def test_every_test_puzzle_of_the_corpus_is_open_to_everyone(client):
    for name in PUZZLES:
        puzzle = make_puzzle(name)
        assert client.get(f"/puzzles/{puzzle.variant}/{puzzle.pk}/").status_code == 200
