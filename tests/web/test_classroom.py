"""Teachers' classes, puzzle sets, the board editor, PDN import, proofs, assignments, progress,
worksheets and PDN export; the permission matrix over every classroom address is in
test_classroom_permissions.py."""

from __future__ import annotations

import csv
import io
from datetime import date, timedelta
from typing import ClassVar

import pytest
from django.contrib.auth.hashers import MD5PasswordHasher
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test import TestCase
from django.utils import timezone

from classroom import engine
from classroom.models import Assignment, Classroom, Membership, PuzzleSet
from core.models import Job
from lessons.models import StepProgress
from puzzles import verification
from puzzles.models import Puzzle, Verdict
from tests.conftest import PASSWORD, _make_user

CAPTURE = {"variant": "czech", "fen": "W:W14,17,21,28,30,32:B1,5,8,11,16,23,24", "goal": "capture"}
COOKED = {"variant": "czech", "fen": "W:W22,24:B18,19", "goal": "capture"}
GAIN = {
    "variant": "czech",
    "fen": "W:W21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,10,12,13,15",
    "goal": "gain:1",
    "horizon": 2,
}


# -- fixtures: the roles (teacher, co-teacher, student of the class, student of another class) and
# -- what they work on; test_classroom_permissions.py imports them


@pytest.fixture
def queue(verify_queue):
    """The verify queue, as a list of (puzzle id, revision) sent to it."""
    return verify_queue


def proven(fields: dict, **extra) -> Puzzle:
    """A puzzle saved and proven in this process."""
    puzzle = Puzzle(**fields, **extra)
    puzzle.full_clean(validate_constraints=False)
    puzzle.save()
    verification.run(puzzle.pk, puzzle.revision)
    puzzle.refresh_from_db()
    return puzzle


@pytest.fixture
def co_teacher(db, django_user_model):
    """A teacher who teaches the class with the teacher, but owns none of the sets."""
    return _make_user(django_user_model, "ctibor", teacher=True)


@pytest.fixture
def other_teacher(db, django_user_model):
    """A teacher with a class of their own and nothing to do with the teacher's."""
    return _make_user(django_user_model, "oskar", teacher=True)


@pytest.fixture
def classroom(teacher, co_teacher, student):
    """The teacher's class: the co-teacher teaches it too, the student attends it."""
    classroom = Classroom.objects.create(name="Draughts club", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher, co_teacher)
    classroom.add_student(student)
    return classroom


@pytest.fixture
def other_class(other_teacher, outsider):
    """Another teacher's class; the outsider is its student (a student of another class)."""
    classroom = Classroom.objects.create(name="Chess corner", variant="czech")
    classroom.teachers.add(other_teacher)
    classroom.add_student(outsider)
    return classroom


@pytest.fixture
def child(classroom, teacher):
    """A child whose account the class made (no e-mail; the teachers reset the password)."""
    user, _password = classroom.create_student_accounts(["Eva Malá"])[0]
    return user


@pytest.fixture
def puzzle_set(teacher, queue):
    """The teacher's set with one proven-unique puzzle."""
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Forced captures", variant="czech")
    puzzle_set.add(proven(CAPTURE, author=teacher))
    return puzzle_set


@pytest.fixture
def assignment(puzzle_set, classroom, teacher):
    return Assignment.objects.create(
        puzzle_set=puzzle_set, classroom=classroom, assigned_by=teacher
    )


# -- classes ----------------------------------------------------------------------------------------


def test_teacher_creates_a_class_with_a_join_code_and_a_qr_code_of_the_join_link(client, teacher):
    client.force_login(teacher)
    response = client.post(
        "/teach/classes/new/",
        {"name": "Tuesday club", "description": "", "variant": "czech", "joining_open": "on"},
    )
    classroom = Classroom.objects.get(name="Tuesday club")
    assert response.status_code == 302 and response.url == f"/teach/classes/{classroom.pk}/"
    assert classroom.is_teacher(teacher) and len(classroom.join_code) == 8
    page = client.get(response.url).content.decode()
    assert classroom.join_code in page
    assert f"http://testserver/teach/join/{classroom.join_code}/" in page
    assert "<svg" in page.split('class="qr"')[1][:300]


def test_a_new_class_without_a_name_is_refused(client, teacher):
    client.force_login(teacher)
    response = client.post("/teach/classes/new/", {"name": "", "variant": "czech"})
    assert response.status_code == 400
    assert not Classroom.objects.exists()


def test_student_joins_with_the_code_and_sees_only_their_own_classes(
    client, student, classroom, other_class
):
    Membership.objects.filter(user=student).delete()
    client.force_login(student)
    response = client.post("/teach/join/", {"code": classroom.join_code.lower()})
    assert response.status_code == 302 and response.url == f"/teach/join/{classroom.join_code}/"
    assert "Join the class" in client.get(response.url).content.decode()
    response = client.post(response.url)
    assert response.status_code == 302 and classroom.is_student(student)
    page = client.get("/teach/my/").content.decode()
    assert classroom.name in page and other_class.name not in page
    assert client.get(other_class.get_absolute_url()).status_code == 404


def test_visitor_following_the_join_link_is_asked_to_sign_up_first(client, classroom):
    page = client.get(classroom.join_url()).content.decode()
    assert f"/accounts/signup/?next=/teach/join/{classroom.join_code}/" in page
    response = client.post(classroom.join_url())
    assert response.status_code == 302 and response.url.startswith("/accounts/login/")


def test_a_closed_or_unknown_code_lets_nobody_in(client, outsider, classroom):
    classroom.joining_open = False
    classroom.save()
    client.force_login(outsider)
    assert client.get(classroom.join_url()).status_code == 404
    assert client.post(classroom.join_url()).status_code == 404
    assert client.post("/teach/join/", {"code": "NOPE2345"}).status_code == 400
    assert not classroom.is_student(outsider)


def test_a_new_code_replaces_the_old_one(client, teacher, classroom):
    old = classroom.join_code
    client.force_login(teacher)
    client.post(f"/teach/classes/{classroom.pk}/code/")
    classroom.refresh_from_db()
    assert classroom.join_code != old
    assert client.get(f"/teach/join/{old}/").status_code == 404


def test_too_many_or_no_names_are_refused(client, teacher, classroom):
    client.force_login(teacher)
    url = f"/teach/classes/{classroom.pk}/students/new/"
    assert client.post(url, {"names": "\n  \n"}).status_code == 400
    assert client.post(url, {"names": "\n".join(f"kid {i}" for i in range(61))}).status_code == 400


def test_teacher_resets_a_childs_password_but_not_a_self_registered_students(
    client, teacher, classroom, child, student
):
    client.force_login(teacher)
    response = client.post(f"/teach/classes/{classroom.pk}/students/{child.pk}/password/")
    assert response.status_code == 200
    password = response.content.decode().split('data-testid="card-password">')[1].split("<")[0]
    child.refresh_from_db()
    assert child.check_password(password)
    response = client.post(f"/teach/classes/{classroom.pk}/students/{student.pk}/password/")
    assert response.status_code == 403
    student.refresh_from_db()
    assert student.check_password(PASSWORD)


def test_teacher_invites_a_co_teacher_by_username_and_only_a_teacher(
    client, teacher, classroom, other_teacher, student
):
    client.force_login(teacher)
    client.post(f"/teach/classes/{classroom.pk}/teachers/", {"username": student.username})
    assert not classroom.is_teacher(student)
    client.post(f"/teach/classes/{classroom.pk}/teachers/", {"username": other_teacher.username})
    assert classroom.is_teacher(other_teacher)
    client.force_login(other_teacher)
    assert client.get(classroom.get_absolute_url()).status_code == 200


def test_a_class_keeps_at_least_one_teacher(client, teacher, co_teacher, classroom):
    client.force_login(teacher)
    client.post(f"/teach/classes/{classroom.pk}/teachers/{co_teacher.pk}/remove/")
    assert not classroom.is_teacher(co_teacher)
    client.post(f"/teach/classes/{classroom.pk}/teachers/{teacher.pk}/remove/")
    assert classroom.is_teacher(teacher)


def test_removing_a_student_from_the_class_ends_their_access(client, teacher, classroom, student):
    client.force_login(teacher)
    client.post(f"/teach/classes/{classroom.pk}/students/{student.pk}/remove/")
    client.force_login(student)
    assert client.get(classroom.get_absolute_url()).status_code == 404


# -- sets -------------------------------------------------------------------------------------------


def test_teacher_creates_a_set_and_only_sees_their_own_sets(client, teacher, other_teacher):
    client.force_login(teacher)
    response = client.post(
        "/teach/sets/new/", {"title": "Shots", "description": "Two-for-one", "variant": "czech"}
    )
    puzzle_set = PuzzleSet.objects.get(title="Shots")
    assert response.url == f"/teach/sets/{puzzle_set.pk}/"
    assert "Shots" in client.get("/teach/").content.decode()
    client.force_login(other_teacher)
    assert "Shots" not in client.get("/teach/").content.decode()
    assert client.get(f"/teach/sets/{puzzle_set.pk}/").status_code == 404


def test_the_classes_address_lists_the_teachers_classes_with_their_links(
    client, teacher, co_teacher, other_teacher, classroom
):
    Classroom.objects.create(name="Other club", variant="czech", created_by=other_teacher)
    for user in (teacher, co_teacher):  # the class's own teacher and the one who teaches it too
        client.force_login(user)
        response = client.get("/teach/classes/")
        assert response.status_code == 200
        html = response.content.decode()
        assert f'href="/teach/classes/{classroom.pk}/"' in html and "Draughts club" in html
        assert f'href="/teach/classes/{classroom.pk}/progress/"' in html
        assert f'href="/live/start/{classroom.pk}/"' in html
        assert "1 student" in html and "Other club" not in html
    # the class page and the dashboard lead there
    assert (
        'href="/teach/classes/"' in client.get(f"/teach/classes/{classroom.pk}/").content.decode()
    )
    assert 'href="/teach/classes/"' in client.get("/teach/").content.decode()


def test_the_sets_address_lists_the_teachers_own_sets_with_their_links(
    client, teacher, co_teacher, puzzle_set, assignment
):
    client.force_login(teacher)
    response = client.get("/teach/sets/")
    assert response.status_code == 200
    html = response.content.decode()
    assert f'href="/teach/sets/{puzzle_set.pk}/"' in html and "Forced captures" in html
    assert f'href="/teach/sets/{puzzle_set.pk}/assign/"' in html
    assert "1 puzzle" in html and "assigned to 1 class" in html
    assert 'href="/teach/sets/"' in client.get(f"/teach/sets/{puzzle_set.pk}/").content.decode()
    client.force_login(co_teacher)  # sees the set through the class, but it is not theirs
    assert "Forced captures" not in client.get("/teach/sets/").content.decode()


def test_the_list_pages_are_for_teachers(client, student):
    assert client.get("/teach/classes/")["Location"].startswith("/accounts/login/")
    client.force_login(student)
    assert client.get("/teach/classes/").status_code == 403
    assert client.get("/teach/sets/").status_code == 403


def test_the_variant_of_a_set_with_puzzles_cannot_change(client, teacher, puzzle_set):
    client.force_login(teacher)
    response = client.post(
        f"/teach/sets/{puzzle_set.pk}/edit/",
        {"title": "x", "description": "", "variant": "international"},
    )
    assert response.status_code == 400
    puzzle_set.refresh_from_db()
    assert puzzle_set.variant == "czech"


def test_corpus_search_filters_by_goal_motif_and_difficulty_and_adds_a_puzzle(
    client, teacher, queue
):
    a = proven(CAPTURE, motifs=["sacrifice"], difficulty=1200)
    b = proven(GAIN, difficulty=1900)
    proven({"variant": "international", "fen": "W:W28:B23", "goal": "capture"})
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="S", variant="czech")
    client.force_login(teacher)
    url = f"/teach/sets/{puzzle_set.pk}/corpus/"
    page = client.get(url).content.decode()
    assert f"#{a.pk} " in page and f"#{b.pk} " in page and "2 puzzles found" in page
    page = client.get(url, {"motif": "sacrifice"}, HTTP_HX_REQUEST="true").content.decode()
    assert page.strip().startswith('<div id="corpus-results">') and f"#{b.pk} " not in page
    page = client.get(url, {"min_difficulty": 1500}).content.decode()
    assert f"#{a.pk} " not in page and f"#{b.pk} " in page
    response = client.post(url, {"puzzle": b.pk}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200 and "is in the set" in response.content.decode()
    assert list(puzzle_set.puzzles.all()) == [b]
    assert f"#{b.pk} " not in client.get(url).content.decode()


def test_puzzles_are_ordered_with_up_and_down_buttons_and_by_dragging(client, teacher, queue):
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="S", variant="czech")
    p1 = proven(CAPTURE)
    p2 = proven(COOKED)
    p3 = proven(GAIN)
    items = [puzzle_set.add(p)[0] for p in (p1, p2, p3)]
    client.force_login(teacher)
    response = client.post(
        f"/teach/sets/{puzzle_set.pk}/items/{items[2].pk}/move/",
        {"direction": "up"},
        HTTP_HX_REQUEST="true",
    )
    assert response.content.decode().strip().startswith('<ol class="set-items" id="set-items"')
    assert puzzle_set.ordered_puzzles() == [p1, p3, p2]
    client.post(f"/teach/sets/{puzzle_set.pk}/items/{items[0].pk}/move/", {"direction": "down"})
    assert puzzle_set.ordered_puzzles() == [p3, p1, p2]
    client.post(
        f"/teach/sets/{puzzle_set.pk}/order/",
        {"item": [items[1].pk, items[0].pk, items[2].pk]},
        HTTP_HX_REQUEST="true",
    )
    assert puzzle_set.ordered_puzzles() == [p2, p1, p3]
    client.post(f"/teach/sets/{puzzle_set.pk}/items/{items[0].pk}/remove/")
    assert puzzle_set.ordered_puzzles() == [p2, p3]
    assert [i.position for i in puzzle_set.items()] == [0, 1]


# -- the board editor -------------------------------------------------------------------------------


def editor(client, puzzle_set, **data):
    return client.post(f"/teach/sets/{puzzle_set.pk}/editor/board/", data, HTTP_HX_REQUEST="true")


def test_board_editor_places_and_removes_men_and_kings_by_click(client, teacher, puzzle_set):
    client.force_login(teacher)
    response = editor(client, puzzle_set, fen="W:W:B", square="22", piece="w")
    page = response.content.decode()
    assert response.status_code == 200
    assert page.strip().startswith('<div id="position-editor"')
    assert 'id="puzzle-fen" value="W:W22:B" hx-swap-oob="true"' in page
    assert 'id="solution-editor" hx-swap-oob="true"' in page
    page = editor(client, puzzle_set, fen="W:W22:B", square="18", piece="B").content.decode()
    assert 'id="puzzle-fen" value="W:W22:BK18"' in page
    page = editor(client, puzzle_set, fen="W:W22:BK18", square="18", piece="B").content.decode()
    assert 'id="puzzle-fen" value="W:W22:B"' in page


def test_board_editor_sets_the_side_to_move_clears_starts_and_loads_a_fen(
    client, teacher, puzzle_set
):
    client.force_login(teacher)
    page = editor(client, puzzle_set, fen="W:W22:B9", action="turn", turn="B").content.decode()
    assert 'id="puzzle-fen" value="B:W22:B9"' in page
    page = editor(client, puzzle_set, fen="B:W22:B9", action="clear").content.decode()
    assert 'id="puzzle-fen" value="B:W:B"' in page
    page = editor(client, puzzle_set, fen="W:W:B", action="start").content.decode()
    assert f'id="puzzle-fen" value="{engine.start_fen("czech")}"' in page
    page = editor(
        client, puzzle_set, fen="W:W:B", action="load", fen_text=CAPTURE["fen"]
    ).content.decode()
    assert f'id="puzzle-fen" value="{CAPTURE["fen"]}"' in page
    response = editor(client, puzzle_set, fen="W:W:B", action="load", fen_text="W:W99:B")
    assert response.status_code == 400
    assert "The position is not valid" in response.content.decode()


def test_solution_is_entered_by_playing_it_on_the_board(client, teacher, puzzle_set):
    client.force_login(teacher)
    url = f"/teach/sets/{puzzle_set.pk}/editor/line/"
    fen = "W:W21,22:B13,14"
    response = client.post(url, {"fen": fen, "line": "", "route": "22,18"}, HTTP_HX_REQUEST="true")
    page = response.content.decode()
    assert response.status_code == 200
    assert 'data-testid="solution-line">22-18<' in page
    assert 'id="puzzle-solution" form="puzzle-form" value="22-18" hx-swap-oob="true"' in page
    response = client.post(url, {"fen": fen, "line": "22-18", "move": "9-13"})
    assert response.status_code == 400 and "22-18" in response.content.decode()
    page = client.post(url, {"fen": fen, "line": "22-18", "move": "14x23"}).content.decode()
    assert 'data-testid="solution-line">22-18 14x23<' in page
    page = client.post(url, {"fen": fen, "line": "22-18 14x23", "action": "undo"}).content.decode()
    assert 'data-testid="solution-line">22-18<' in page


def ask_engine(client, puzzle_set, data: dict, monkeypatch) -> tuple[str, str]:
    """Ask the engine from the editor: the request only creates a job (202, no search: the
    search functions raise meanwhile); the worker's task runs it here; the page's poll gets the
    answer. Returns the first answer and the answer of the poll."""
    import dama.solve
    from classroom.tasks import deep_solve

    sent: list[str] = []
    with monkeypatch.context() as m:
        m.setattr(deep_solve, "delay", sent.append)
        m.setattr(dama.solve, "solve", search_forbidden)
        m.setattr(engine, "quick_solve", search_forbidden)
        with TestCase.captureOnCommitCallbacks(execute=True):
            response = client.post(
                f"/teach/sets/{puzzle_set.pk}/editor/solve/", data, HTTP_HX_REQUEST="true"
            )
    first = response.content.decode()
    assert response.status_code == 202, first
    job = Job.objects.get(pk=sent[-1])
    assert job.kind == "editor_solve" and job.status == Job.Status.QUEUED
    assert f'hx-get="{response["Location"]}"' in first and 'hx-trigger="load delay:1s"' in first
    assert deep_solve.apply(args=(str(job.pk),)).get() == "done"
    poll = client.get(response["Location"], HTTP_HX_REQUEST="true")
    assert poll.status_code == 200
    return first, poll.content.decode()


def search_forbidden(*args, **kwargs):
    raise AssertionError("the engine searched inside a web request")


def test_the_engine_finds_the_solution_when_the_teacher_asks(
    client, teacher, puzzle_set, monkeypatch
):
    client.force_login(teacher)
    _first, page = ask_engine(
        client, puzzle_set, {"fen": CAPTURE["fen"], "goal": "capture"}, monkeypatch
    )
    assert 'data-testid="solution-line">28x3<' in page or 'solution-line">28x19x12x3<' in page
    assert 'id="solution-editor" hx-swap-oob="true"' in page  # the solution board, out of band
    assert "hx-get" not in page.split('id="solution-editor"')[0]  # the polling stopped
    _first, page = ask_engine(
        client,
        puzzle_set,
        {"fen": GAIN["fen"], "goal": "gain", "gain": "1", "horizon": "2"},
        monkeypatch,
    )
    assert 'data-testid="solution-line">22-17 13x22 25x11<' in page or "22-17 13x22" in page
    assert "unique" in page
    _first, page = ask_engine(
        client, puzzle_set, {"fen": COOKED["fen"], "goal": "capture"}, monkeypatch
    )
    assert "cooked" in page


def test_the_editor_follows_the_engines_progress_until_the_answer_comes(
    client, teacher, puzzle_set
):
    client.force_login(teacher)
    job = Job.objects.create(
        kind="editor_solve",
        owner=teacher,
        params={"set": puzzle_set.pk, "variant": "czech", "fen": CAPTURE["fen"], "goal": "capture"},
    )
    url = f"/teach/sets/{puzzle_set.pk}/editor/solve/{job.pk}/"
    page = client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert "waits for a worker" in page and f'hx-get="{url}"' in page
    job.claim("w1")
    job.report(40)
    page = client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert "The engine is searching" in page and 'value="40"' in page and f'hx-get="{url}"' in page
    job.fail("the search ran past the worker's time limit")
    page = client.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert "The engine could not answer: the search ran past" in page and "hx-get" not in page


def test_one_question_to_the_engine_at_a_time_and_only_the_asker_follows_it(
    client, teacher, other_teacher, puzzle_set, monkeypatch
):
    from classroom.tasks import deep_solve

    monkeypatch.setattr(deep_solve, "delay", lambda job_id: None)
    client.force_login(teacher)
    url = f"/teach/sets/{puzzle_set.pk}/editor/solve/"
    first = client.post(url, {"fen": CAPTURE["fen"], "goal": "capture"}, HTTP_HX_REQUEST="true")
    assert first.status_code == 202
    again = client.post(url, {"fen": CAPTURE["fen"], "goal": "capture"}, HTTP_HX_REQUEST="true")
    assert again.status_code == 409
    assert "still answering your last question" in again.content.decode()
    assert Job.objects.count() == 1
    client.force_login(other_teacher)
    assert client.get(first["Location"]).status_code == 404


def test_asking_the_engine_about_a_bad_position_is_a_400_saying_why(client, teacher, puzzle_set):
    client.force_login(teacher)
    response = client.post(
        f"/teach/sets/{puzzle_set.pk}/editor/solve/", {"fen": "W:W99:B1", "goal": "capture"}
    )
    assert response.status_code == 400
    assert 'id="engine-job"' in response.content.decode()
    assert not Job.objects.exists()


def test_saving_a_puzzle_from_the_editor_enqueues_its_proof_and_shows_it_arriving(
    client, teacher, queue, django_capture_on_commit_callbacks
):
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="S", variant="czech")
    client.force_login(teacher)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"/teach/sets/{puzzle_set.pk}/puzzles/new/",
            {"fen": CAPTURE["fen"], "solution": "", "goal": "capture", "title": "First"},
        )
    puzzle = Puzzle.objects.get(title="First")
    assert response.url == f"/teach/sets/{puzzle_set.pk}/puzzles/{puzzle.pk}/"
    assert queue == [(puzzle.pk, 1)] and puzzle.author == teacher
    assert list(puzzle_set.puzzles.all()) == [puzzle]
    page = client.get(response.url).content.decode()
    assert 'id="proof-status"' in page and 'hx-trigger="every 1s"' in page
    assert f'hx-get="/puzzles/czech/{puzzle.pk}/proof/"' in page
    verification.run(puzzle.pk, puzzle.revision)
    page = client.get(response.url).content.decode()
    assert 'data-verdict="unique"' in page and 'hx-trigger="every 1s"' not in page
    puzzle.refresh_from_db()
    assert puzzle.numbered_solution in page


def test_a_cooked_puzzle_shows_the_second_solution_so_the_teacher_can_fix_it(
    client, teacher, queue
):
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="S", variant="czech")
    cooked = proven(COOKED, author=teacher)
    puzzle_set.add(cooked)
    client.force_login(teacher)
    page = client.get(f"/teach/sets/{puzzle_set.pk}/puzzles/{cooked.pk}/").content.decode()
    assert 'data-verdict="cooked"' in page
    assert 'data-line="alternative">1. 24x15<' in page
    assert "The second solution starts with 24x15" in page
    assert "change the position" in page
    assert 'data-testid="show-cook"' in page
    response = client.post(
        f"/teach/sets/{puzzle_set.pk}/editor/line/",
        {"action": "show", "fen": cooked.fen, "line": "24x15", "label": "The cook"},
        HTTP_HX_REQUEST="true",
    )
    page = response.content.decode()
    assert 'data-testid="shown-line">24x15<' in page and "The cook" in page
    assert 'id="puzzle-solution"' not in page  # the intended solution stays as it was
    page = client.post(
        f"/teach/sets/{puzzle_set.pk}/editor/line/",
        {"action": "undo", "fen": cooked.fen, "line": "24x15", "showing": "1"},
    ).content.decode()
    assert 'data-testid="shown-line">–<' in page and 'id="puzzle-solution"' not in page


def test_a_solution_with_an_illegal_move_is_refused(client, teacher, puzzle_set, queue):
    client.force_login(teacher)
    response = client.post(
        f"/teach/sets/{puzzle_set.pk}/puzzles/new/",
        {"fen": CAPTURE["fen"], "solution": "1-5", "goal": "capture"},
    )
    assert response.status_code == 400
    assert "is not legal" in response.content.decode()


def test_saving_a_position_that_already_is_a_puzzle_reuses_it(client, teacher, queue):
    existing = proven(CAPTURE)
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="S", variant="czech")
    client.force_login(teacher)
    response = client.post(
        f"/teach/sets/{puzzle_set.pk}/puzzles/new/",
        {"fen": CAPTURE["fen"], "goal": "capture"},
    )
    assert response.url == f"/teach/sets/{puzzle_set.pk}/puzzles/{existing.pk}/"
    assert Puzzle.objects.count() == 1 and list(puzzle_set.puzzles.all()) == [existing]
    page = client.get(response.url).content.decode()
    assert "can be removed from the set, not changed" in page
    response = client.post(response.url, {"fen": "W:W22:B9", "goal": "capture"})
    assert response.status_code == 200
    existing.refresh_from_db()
    assert existing.fen == CAPTURE["fen"]


def test_editing_a_puzzle_changes_it_and_proves_it_again(client, teacher, queue):
    mine = proven(CAPTURE, author=teacher)
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="S", variant="czech")
    puzzle_set.add(mine)
    client.force_login(teacher)
    client.post(
        f"/teach/sets/{puzzle_set.pk}/puzzles/{mine.pk}/",
        {"fen": COOKED["fen"], "goal": "capture", "title": "changed"},
    )
    mine.refresh_from_db()
    assert mine.fen == COOKED["fen"] and mine.revision == 2 and mine.verdict == Verdict.PENDING


# -- PDN import -------------------------------------------------------------------------------------

PDN = """[Event "good one"]
[GameType "29"]
[FEN "W:W14,17,21,28,30,32:B1,5,8,11,16,23,24"]

*

[Event "broken"]
[GameType "29"]
[FEN "W:W99:B5"]

*

[Event "with a solution"]
[GameType "29"]
[FEN "W:W21,22,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,10,12,13,15"]
[Goal "gain:1"]
[Horizon "2"]

1. 22-17 13x22 2. 25x11 *

[Event "illegal move"]
[GameType "29"]
[FEN "W:W22:B10"]

1. 22-17 10-14 2. 17x5 *
"""


def test_pdn_import_keeps_good_entries_as_draft_puzzles_and_lists_errors_with_lines(
    client, teacher, queue
):
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Imported", variant="czech")
    client.force_login(teacher)
    upload = SimpleUploadedFile("set.pdn", PDN.encode(), content_type="application/octet-stream")
    response = client.post(
        f"/teach/sets/{puzzle_set.pk}/import/", {"file": upload, "goal": "capture"}
    )
    page = response.content.decode()
    assert response.status_code == 200
    assert "2 new draft puzzles" in page
    lines = PDN.splitlines()
    bad_fen = lines.index('[FEN "W:W99:B5"]') + 1
    assert f"Entry 2, line {bad_fen}:" in page
    assert f"Entry 4, line {lines.index('1. 22-17 10-14 2. 17x5 *') + 1}:" in page
    assert "17x5 is not playable" in page
    titles = [p.title for p in puzzle_set.ordered_puzzles()]
    assert titles == ["good one", "with a solution"]
    drafts = Puzzle.objects.filter(title__in=["good one", "with a solution"])
    assert {p.verdict for p in drafts} == {Verdict.PENDING}
    with_solution = Puzzle.objects.get(title="with a solution")
    assert (with_solution.goal, with_solution.horizon) == ("gain:1", 2)
    assert with_solution.solution == ["22-17", "13x22", "25x11"]


def test_an_oversized_pdn_file_is_refused_cleanly(client, teacher, puzzle_set):
    client.force_login(teacher)
    big = SimpleUploadedFile("big.pdn", b" " * (engine.MAX_IMPORT_BYTES + 1))
    response = client.post(f"/teach/sets/{puzzle_set.pk}/import/", {"file": big, "goal": "win"})
    assert response.status_code == 400
    assert "at most 512 KB" in response.content.decode()


def import_file(client, puzzle_set, text: str, **data):
    upload = SimpleUploadedFile("set.pdn", text.encode(), content_type="application/octet-stream")
    return client.post(
        f"/teach/sets/{puzzle_set.pk}/import/", {"file": upload, "goal": "capture", **data}
    )


#: an entry whose Horizon tag has more digits than int() reads (4,300)
HUGE_HORIZON = """[Event "deep"]
[GameType "29"]
[FEN "W:W14,17,21,28,30,32:B1,5,8,11,16,23,24"]
[Horizon "%s"]

*
""" % ("9" * 5000)


@pytest.fixture
def no_imports_counted():
    """The imports are counted in the cache: each test starts with none."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


def test_a_horizon_tag_of_five_thousand_digits_is_an_entry_error_not_a_500(
    client, teacher, queue, no_imports_counted
):
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Imported", variant="czech")
    client.force_login(teacher)
    response = import_file(client, puzzle_set, PDN.split("\n\n[Event")[0] + "\n\n" + HUGE_HORIZON)
    page = response.content.decode()
    assert response.status_code == 200 and "1 new draft puzzle" in page
    assert "Entry 2, line 7: the Horizon tag 999999999999… is not a number of moves" in page
    assert [p.title for p in puzzle_set.ordered_puzzles()] == ["good one"]


@pytest.mark.parametrize(
    ("tag", "message"),
    [
        ('[Horizon "²"]', "the Horizon tag ² is not a number of moves"),
        ('[Horizon "-1"]', "the Horizon tag -1 is not a number of moves"),
        ('[Goal "gain:%s"]' % ("9" * 5000), "a whole number N from 1 to 99"),
        ('[Goal "gain:١٢"]', "a whole number N from 1 to 99"),
        ('[GameType "%s"]' % ("2" * 5000), "must start with a number"),
        ('[GameType "²"]', "must start with a number"),
    ],
)
def test_a_number_in_a_tag_that_cannot_be_read_is_an_entry_error_with_its_reason(
    client, teacher, queue, no_imports_counted, tag, message
):
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Imported", variant="czech")
    client.force_login(teacher)
    good = PDN.split("\n\n[Event")[0]
    bad = f'[Event "bad"]\n{tag}\n[FEN "W:W22:B9"]\n\n*\n'
    response = import_file(client, puzzle_set, f"{good}\n\n{bad}")
    assert response.status_code == 200, response.content.decode()[:3000]
    assert "Entry 2, line" in response.content.decode() and message in response.content.decode()
    assert [p.title for p in puzzle_set.ordered_puzzles()] == ["good one"]


def test_a_file_that_cannot_be_imported_does_not_use_up_the_hourly_imports(
    client, teacher, queue, settings, no_imports_counted
):
    settings.DAMA_IMPORT_LIMIT = 1
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Imported", variant="czech")
    client.force_login(teacher)
    for text, message in [
        (HUGE_HORIZON, "No entry of this file could be read: nothing was imported."),
        ('[FEN "W:W22:B9"]\n\n{ never closed\n', "is never closed"),
        ("", "The submitted file is empty."),
        ("\n\n", "No entry of this file could be read"),
        (" " * (engine.MAX_IMPORT_BYTES + 1), "at most 512 KB"),
    ]:
        response = import_file(client, puzzle_set, text)
        assert response.status_code == 400 and message in response.content.decode()
    assert not Puzzle.objects.exists()
    assert import_file(client, puzzle_set, PDN).status_code == 200  # the one import of the hour
    response = import_file(client, puzzle_set, PDN.replace("good one", "again"))
    assert response.status_code == 429 and "at most 1 PDN file" in response.content.decode()
    assert not Puzzle.objects.filter(title="again").exists()


# -- assignments ------------------------------------------------------------------------------------


def test_only_a_set_of_unique_puzzles_can_be_assigned(client, teacher, classroom, queue):
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="S", variant="czech")
    client.force_login(teacher)
    url = f"/teach/sets/{puzzle_set.pk}/assign/"
    assert client.post(url, {"classroom": classroom.pk}).status_code == 400
    puzzle_set.add(proven(CAPTURE))
    cooked = puzzle_set.add(proven(COOKED))[0]
    response = client.post(url, {"classroom": classroom.pk})
    assert response.status_code == 400 and "Only puzzles proven unique" in response.content.decode()
    cooked.delete()
    due = date.today() + timedelta(days=7)
    response = client.post(url, {"classroom": classroom.pk, "due": due.isoformat()})
    assert response.status_code == 302
    assert Assignment.objects.get(puzzle_set=puzzle_set, classroom=classroom).due == due


def test_teacher_cannot_assign_to_a_class_they_do_not_teach(
    client, teacher, puzzle_set, other_class
):
    client.force_login(teacher)
    response = client.post(f"/teach/sets/{puzzle_set.pk}/assign/", {"classroom": other_class.pk})
    assert response.status_code == 400
    assert not Assignment.objects.filter(classroom=other_class).exists()


def test_student_finds_the_assignment_with_links_to_the_trainer_and_no_solution(
    client, student, assignment
):
    client.force_login(student)
    page = client.get("/teach/my/").content.decode()
    assert assignment.get_absolute_url() in page and "0 of 1 solved" in page
    page = client.get(assignment.get_absolute_url()).content.decode()
    puzzle = assignment.puzzle_set.ordered_puzzles()[0]
    assert f'href="/puzzles/czech/{puzzle.pk}/?set={assignment.puzzle_set_id}"' in page
    assert "White: find the forced capture." in page
    for move in puzzle.line("solution") + list(puzzle.proof["solution"]):
        assert move not in page


def test_students_never_get_the_sets_pages_with_solutions(client, student, assignment):
    client.force_login(student)
    pk = assignment.puzzle_set_id
    for url in (
        f"/teach/sets/{pk}/",
        f"/teach/sets/{pk}/worksheet/",
        f"/teach/sets/{pk}/export.pdn",
    ):
        assert client.get(url).status_code == 404


def test_a_puzzle_that_stops_being_unique_is_hidden_from_students(
    client, student, assignment, queue
):
    puzzle = assignment.puzzle_set.ordered_puzzles()[0]
    Puzzle.objects.filter(pk=puzzle.pk).update(verdict=Verdict.PENDING)
    client.force_login(student)
    page = client.get(assignment.get_absolute_url()).content.decode()
    assert f"/puzzles/czech/{puzzle.pk}/" not in page


# -- progress ---------------------------------------------------------------------------------------


def test_student_page_shows_their_lesson_progress(client, teacher, classroom, student):
    from lessons.course import all_courses

    course = all_courses()[0]
    step = course.steps[0]
    StepProgress.objects.create(
        user=student, course=course.slug, step=step.slug, stars=3, completed_at="2025-01-01T00:00Z"
    )
    StepProgress.objects.create(  # tested out with its lesson: apart from the steps done
        user=student, course=course.slug, step=course.steps[1].slug, tested_out_at=timezone.now()
    )
    client.force_login(teacher)
    page = client.get(f"/teach/classes/{classroom.pk}/students/{student.pk}/").content.decode()
    assert f"<td>{course.title}</td><td>1 / {len(course.steps)}</td><td>1</td><td>3</td>" in page


def test_csv_cells_that_look_like_formulas_are_quoted(client, teacher, classroom, assignment):
    classroom.create_student_accounts(["=HYPERLINK(1)"])
    client.force_login(teacher)
    text = client.get(f"/teach/classes/{classroom.pk}/progress.csv").content.decode()
    assert "'=HYPERLINK(1)" in text and ",=HYPERLINK" not in text


def test_progress_table_and_csv_list_every_student_and_puzzle(
    client, teacher, classroom, assignment, student, child
):
    client.force_login(teacher)
    page = client.get(f"/teach/classes/{classroom.pk}/progress/").content.decode()
    assert (
        f'data-student="{student.username}"' in page and f'data-student="{child.username}"' in page
    )
    assert page.count('data-status="not_tried"') == 2
    response = client.get(f"/teach/classes/{classroom.pk}/progress.csv")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert {r["username"] for r in rows} == {student.username, child.username}
    assert {r["status"] for r in rows} == {"not_tried"}


def test_attempts_logged_against_the_set_fill_the_progress_table(
    client, teacher, classroom, assignment, student
):
    from puzzles.models import Attempt

    puzzle = assignment.puzzle_set.ordered_puzzles()[0]
    Attempt.objects.create(
        user=student, puzzle=puzzle, source="set", set_id=assignment.puzzle_set_id,
        moves=[{"text": "1-5", "ok": False, "ms": 900}], failed=True, seconds=12,
    )  # fmt: skip
    Attempt.objects.create(
        user=student, puzzle=puzzle, source="set", set_id=assignment.puzzle_set_id,
        moves=[{"text": "x", "ok": True, "ms": 500}], solved=True, seconds=40,
    )  # fmt: skip
    Attempt.objects.create(user=student, puzzle=puzzle, source="stream", solved=False, seconds=5)
    client.force_login(teacher)
    page = client.get(f"/teach/classes/{classroom.pk}/progress/").content.decode()
    row = page.split(f'data-student="{student.username}"')[1].split("</tr>")[0]
    # the first attempt's outcome, the later solve marked (issue 22)
    assert 'data-status="failed"' in row and "0:12" in row and "solved after a mistake" in row
    rows = list(
        csv.DictReader(
            io.StringIO(client.get(f"/teach/classes/{classroom.pk}/progress.csv").content.decode())
        )
    )
    mine = next(r for r in rows if r["username"] == student.username)
    assert (mine["status"], mine["attempts"], mine["seconds"]) == ("failed", "2", "12")
    assert mine["later"] == "solved_after_mistake"
    from django.apps import apps

    apps.get_model("puzzles", "PlayerRating").objects.create(
        user=student, variant="czech", rating=1623.4, deviation=80.2
    )
    page = client.get(f"/teach/classes/{classroom.pk}/students/{student.pk}/").content.decode()
    assert 'data-testid="attempts"' in page and "1-5" in page
    assert "Czech draughts: <strong>1623</strong>" in page
    client.force_login(student)
    assert "0 of 1 solved" in client.get("/teach/my/").content.decode()


# -- print and share --------------------------------------------------------------------------------


def test_worksheet_has_numbered_diagrams_goals_space_to_write_and_answers_on_their_own_page(
    client, teacher, puzzle_set
):
    client.force_login(teacher)
    page = client.get(f"/teach/sets/{puzzle_set.pk}/worksheet/").content.decode()
    puzzle = puzzle_set.ordered_puzzles()[0]
    assert 'class="write-here"' in page and "White: find the forced capture." in page
    assert 'media="print"' in page and "css/print.css" in page
    answers = page.split('data-testid="answers"')[1]
    assert puzzle.numbered_solution in answers
    assert ">32<" in page.split('class="sheet-puzzle"')[1]  # square numbers on the diagram


def test_pdn_export_of_a_set_reads_back_as_the_same_positions(client, teacher, puzzle_set):
    client.force_login(teacher)
    response = client.get(f"/teach/sets/{puzzle_set.pk}/export.pdn")
    assert response.status_code == 200
    assert 'attachment; filename="set-' in response["Content-Disposition"]
    entries = engine.read_pdn(response.content, "czech", "win", None)
    assert [e.fen for e in entries] == [p.fen for p in puzzle_set.ordered_puzzles()]
    assert [e.goal for e in entries] == ["capture"]


# -- language ---------------------------------------------------------------------------------------


def test_the_catalogue_translates_the_classrooms_strings_into_czech_and_is_compiled():
    import gettext
    from pathlib import Path

    from tests.web.test_i18n import read_po

    locale = Path(__file__).resolve().parents[2] / "locale"
    entries = read_po(locale / "cs/LC_MESSAGES/django.po")
    assert len(entries) > 200
    assert [k for k, (v, fuzzy) in entries.items() if not v or fuzzy] == []
    with open(locale / "cs/LC_MESSAGES/django.mo", "rb") as mo:
        compiled = gettext.GNUTranslations(mo)
    assert [k for k, (v, _f) in entries.items() if compiled.gettext(k) != v] == []


def test_teachers_pages_speak_czech(client, teacher, classroom):
    client.force_login(teacher)
    page = client.get("/teach/", HTTP_ACCEPT_LANGUAGE="cs").content.decode()
    assert "Tvoje třídy" in page and "Nová sbírka" in page
    page = client.get(classroom.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="cs").content.decode()
    assert "Pozvat žáky" in page and "Založit účty dětem" in page


# -- issue 22: accounts made outside a long transaction, passwords never cached, join codes --------

HASHER = f"{__name__}.RecordingHasher"


class RecordingHasher(MD5PasswordHasher):
    """MD5 (fast, for tests) that notes, for each password it hashes, whether a transaction is
    open at that moment."""

    in_transaction: ClassVar[list[bool]] = []

    def encode(self, password: str, salt: str) -> str:
        RecordingHasher.in_transaction.append(connection.in_atomic_block)
        return super().encode(password, salt)


@pytest.fixture
def recording_hasher(settings):
    settings.PASSWORD_HASHERS = [HASHER, *settings.PASSWORD_HASHERS]
    RecordingHasher.in_transaction.clear()
    return RecordingHasher.in_transaction


def queries_in_transactions(action) -> list[str]:
    """The SQL that ``action()`` runs while a transaction is open."""
    inside: list[str] = []

    def record(execute, sql, params, many, context):
        if connection.in_atomic_block:
            inside.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        action()
    return inside


# -- new students' accounts -------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_students_passwords_are_hashed_before_the_transaction_that_makes_their_accounts(
    classroom, recording_hasher
):
    made = classroom.create_student_accounts(["Anna Nováková", "Petr Dvořák", "Eva Malá"])
    assert recording_hasher == [False, False, False]
    for user, password in made:
        user.refresh_from_db()
        assert user.check_password(password)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("count", [2, 12])
def test_making_any_number_of_accounts_writes_three_queries_in_one_transaction(classroom, count):
    names = [f"Kid {n}" for n in range(count)]
    inside = queries_in_transactions(lambda: classroom.create_student_accounts(names))
    assert len(inside) == 3 and all(sql.lstrip().upper().startswith("INSERT") for sql in inside)
    made = Membership.objects.filter(classroom=classroom, managed=True).select_related(
        "user__profile"
    )
    assert sorted(m.user.first_name for m in made) == sorted(names)
    assert {m.user.profile.preferred_variant for m in made} == {classroom.variant}


@pytest.mark.django_db
def test_children_with_the_same_name_get_different_usernames(classroom):
    made = classroom.create_student_accounts(["Jan Novák"] * 8)
    usernames = [user.username for user, _password in made]
    assert len(set(usernames)) == 8 and all(u.startswith("jan-novak-") for u in usernames)


# -- passwords in clear are never cached ------------------------------------------------------------


def assert_not_stored(response) -> None:
    assert response.status_code == 200
    assert 'data-testid="card-password"' in response.content.decode()
    assert "no-store" in response["Cache-Control"]


@pytest.mark.django_db
def test_a_childs_new_password_is_never_stored_by_a_cache(client, teacher, classroom, child):
    client.force_login(teacher)
    url = f"/teach/classes/{classroom.pk}/students/{child.pk}/password/"
    assert_not_stored(client.post(url))
    client.logout()
    assert not client.login(username=child.username, password=PASSWORD)


# -- join codes cannot be guessed at speed ----------------------------------------------------------


@pytest.fixture
def few_guesses(settings):
    """Three wrong join codes an hour, counted afresh for the test client's address."""
    from classroom.views.join import wrong_codes

    settings.DAMA_JOIN_GUESSES_PER_HOUR = 3
    for address in ("127.0.0.1", "192.0.2.7"):
        wrong_codes().reset(address)
    yield
    for address in ("127.0.0.1", "192.0.2.7"):
        wrong_codes().reset(address)


def test_wrong_join_codes_from_one_address_are_refused_with_429_even_the_right_one(
    client, outsider, classroom, few_guesses
):
    client.force_login(outsider)
    for guess in ("AAAA2222", "BBBB3333", "CCCC4444"):
        assert client.post("/teach/join/", {"code": guess}).status_code == 400
    response = client.post("/teach/join/", {"code": classroom.join_code})
    assert response.status_code == 429 and 0 < int(response["Retry-After"]) <= 3600
    assert "Too many wrong join codes from your network" in response.content.decode()
    assert client.get(classroom.join_url()).status_code == 429
    assert client.post(classroom.join_url()).status_code == 429
    assert not classroom.is_student(outsider)
    other = client.get(classroom.join_url(), REMOTE_ADDR="192.0.2.7")
    assert other.status_code == 200  # another address has its own count


def test_wrong_codes_in_the_join_link_count_too_and_the_refusal_speaks_czech(
    client, classroom, few_guesses
):
    for guess in ("AAAA2222", "BBBB3333", "CCCC4444"):
        assert client.get(f"/teach/join/{guess}/").status_code == 404
    response = client.get(classroom.join_url(), HTTP_ACCEPT_LANGUAGE="cs")
    assert response.status_code == 429
    assert "Příliš mnoho chybných kódů" in response.content.decode()


def test_a_whole_class_joining_with_the_right_code_is_never_throttled(
    client, student, classroom, few_guesses
):
    client.force_login(student)
    for _n in range(10):
        assert client.get(classroom.join_url()).status_code == 200
        assert client.post("/teach/join/", {"code": classroom.join_code.lower()}).status_code == 302


# -- puzzles kept for the exams (issue 45) ------------------------------------------------------------


@pytest.fixture
def kept_puzzle(db, settings):
    """A corpus puzzle the exams keep (the whole share), as ``reserve_exam_puzzles`` leaves it."""
    from django.core.management import call_command

    from tests.puzzle_fixtures import make_puzzle

    settings.DAMA_EXAM_SHARE = 1.0
    kept = make_puzzle("czech_gain")
    call_command("reserve_exam_puzzles", stdout=io.StringIO())
    return kept


#: czech_gain's solution as a page writes it
KEPT_SOLUTION = ("22-17", "13x22", "25x18x11", "25x11")


def test_no_page_of_a_set_shows_a_puzzle_the_exams_keep(client, teacher, kept_puzzle):
    """A set that took the puzzle before the exams kept it: the set's page, worksheet and PDN
    show nothing of it, its page is gone, and it cannot be added again."""
    from classroom.models import SetItem

    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Old set", variant="czech")
    SetItem.objects.create(puzzle_set=puzzle_set, puzzle=kept_puzzle, position=0)
    client.force_login(teacher)
    base = f"/teach/sets/{puzzle_set.pk}"
    for url in (f"{base}/", f"{base}/worksheet/", f"{base}/export.pdn"):
        response = client.get(url)
        text = response.content.decode()
        assert response.status_code == 200, url
        assert not any(move in text for move in KEPT_SOLUTION), url
        assert kept_puzzle.fen not in text, url
    assert client.get(f"{base}/puzzles/{kept_puzzle.pk}/").status_code == 404
    with pytest.raises(ValidationError):
        puzzle_set.add(kept_puzzle)


def test_the_editor_neither_analyses_nor_makes_a_puzzle_of_a_position_the_exams_keep(
    client, teacher, kept_puzzle, queue
):
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Mine", variant="czech")
    client.force_login(teacher)
    asked = {"fen": kept_puzzle.fen, "goal": "gain", "gain": "1", "horizon": "2"}
    jobs = Job.objects.count()
    engine_refused = client.post(
        f"/teach/sets/{puzzle_set.pk}/editor/solve/", asked, HTTP_HX_REQUEST="true"
    )
    assert engine_refused.status_code == 400
    assert "belongs to an exam" in engine_refused.content.decode()
    assert Job.objects.count() == jobs
    saved = client.post(f"/teach/sets/{puzzle_set.pk}/puzzles/new/", {**asked, "solution": ""})
    assert saved.status_code == 400 and "belongs to an exam" in saved.content.decode()
    pdn = f'[GameType "29"]\n[FEN "{kept_puzzle.fen}"]\n[Goal "gain:1"]\n[Horizon "2"]\n\n*\n'
    upload = SimpleUploadedFile("set.pdn", pdn.encode(), content_type="application/octet-stream")
    imported = client.post(
        f"/teach/sets/{puzzle_set.pk}/import/", {"file": upload, "goal": "capture"}
    )
    assert "belongs to an exam" in imported.content.decode()
    assert not puzzle_set.setitem_set.exists()
    assert not Puzzle.objects.filter(author=teacher).exists()
