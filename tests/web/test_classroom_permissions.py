"""Every classroom address, asked by each role: the teacher (owner of the class and the set), a
co-teacher of the class, a student of the class, a student of another class, and an anonymous
visitor. 302 to the login page for visitors, 404 for what a user may not know exists, 403 for what
a user can see but may not do.

A test checks that the matrix names every URL of ``classroom.urls``: a new view without a row
here fails.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from classroom import urls as classroom_urls
from core.models import Job

from .test_classroom import (  # noqa: F401 - fixtures
    CAPTURE,
    assignment,
    child,
    classroom,
    co_teacher,
    other_class,
    other_teacher,
    puzzle_set,
    queue,
)

ROLES = ("teacher", "co_teacher", "student", "other_student", "anonymous")
LOGIN = 302

#: what each role gets: the teacher, the co-teacher, the class's student, another class's student
TEACHERS_ONLY = {"teacher": 200, "co_teacher": 200, "student": 403, "other_student": 404}
TEACHERS_ONLY_POST = {"teacher": 302, "co_teacher": 302, "student": 403, "other_student": 404}
CLASS_MEMBERS = {"teacher": 200, "co_teacher": 200, "student": 200, "other_student": 404}
ANY_ACCOUNT = {"teacher": 200, "co_teacher": 200, "student": 200, "other_student": 200}
ANY_TEACHER = {"teacher": 200, "co_teacher": 200, "student": 403, "other_student": 403}
SET_OWNER = {"teacher": 200, "co_teacher": 403, "student": 404, "other_student": 404}
SET_OWNER_POST = {"teacher": 302, "co_teacher": 403, "student": 404, "other_student": 404}
SET_READERS = {"teacher": 200, "co_teacher": 200, "student": 404, "other_student": 404}

# (url name, method, kwargs builder, POST data, expected by role; anonymous is always LOGIN
# unless given)
MATRIX = [
    ("dashboard", "get", lambda o: {}, None, ANY_ACCOUNT),
    ("my_classes", "get", lambda o: {}, None, ANY_ACCOUNT),
    ("join_with_code", "get", lambda o: {}, None, ANY_ACCOUNT),
    ("join", "get", lambda o: {"code": o.classroom.join_code}, None, {**ANY_ACCOUNT, "anonymous": 200}),
    ("join", "post", lambda o: {"code": o.classroom.join_code}, {}, {r: 302 for r in ROLES}),
    ("class_list", "get", lambda o: {}, None, ANY_TEACHER),
    ("class_create", "get", lambda o: {}, None, ANY_TEACHER),
    ("class_detail", "get", lambda o: {"pk": o.classroom.pk}, None, CLASS_MEMBERS),
    ("class_edit", "get", lambda o: {"pk": o.classroom.pk}, None, TEACHERS_ONLY),
    ("class_edit", "post", lambda o: {"pk": o.classroom.pk}, {"name": "Renamed", "variant": "czech"}, TEACHERS_ONLY_POST),
    ("class_new_code", "post", lambda o: {"pk": o.classroom.pk}, {}, TEACHERS_ONLY_POST),
    ("co_teacher_add", "post", lambda o: {"pk": o.classroom.pk}, {"username": "oskar"}, TEACHERS_ONLY_POST),
    ("co_teacher_remove", "post", lambda o: {"pk": o.classroom.pk, "user_id": o.co_teacher.pk}, {}, TEACHERS_ONLY_POST),
    ("students_create", "get", lambda o: {"pk": o.classroom.pk}, None, TEACHERS_ONLY),
    ("students_create", "post", lambda o: {"pk": o.classroom.pk}, {"names": "Jan"}, TEACHERS_ONLY_POST),
    ("students_job", "get", lambda o: {"pk": o.classroom.pk, "job_id": o.accounts_job.pk}, None, {**TEACHERS_ONLY, "co_teacher": 404}),
    ("student_detail", "get", lambda o: {"pk": o.classroom.pk, "user_id": o.student.pk}, None, TEACHERS_ONLY),
    ("student_password", "post", lambda o: {"pk": o.classroom.pk, "user_id": o.child.pk}, {}, TEACHERS_ONLY),
    ("student_remove", "post", lambda o: {"pk": o.classroom.pk, "user_id": o.child.pk}, {}, TEACHERS_ONLY_POST),
    ("progress", "get", lambda o: {"pk": o.classroom.pk}, None, TEACHERS_ONLY),
    ("progress_csv", "get", lambda o: {"pk": o.classroom.pk}, None, TEACHERS_ONLY),
    ("assignment", "get", lambda o: {"pk": o.classroom.pk, "assignment_id": o.assignment.pk}, None, CLASS_MEMBERS),
    ("assignment_remove", "post", lambda o: {"pk": o.classroom.pk, "assignment_id": o.assignment.pk}, {}, TEACHERS_ONLY_POST),
    ("set_list", "get", lambda o: {}, None, ANY_TEACHER),
    ("set_create", "get", lambda o: {}, None, ANY_TEACHER),
    ("set_create", "post", lambda o: {}, {"title": "T", "variant": "czech"}, {**ANY_TEACHER, "teacher": 302, "co_teacher": 302}),
    ("set_detail", "get", lambda o: {"pk": o.puzzle_set.pk}, None, SET_READERS),
    ("set_edit", "get", lambda o: {"pk": o.puzzle_set.pk}, None, SET_OWNER),
    ("set_edit", "post", lambda o: {"pk": o.puzzle_set.pk}, {"title": "T", "variant": "czech"}, SET_OWNER_POST),
    ("set_delete", "post", lambda o: {"pk": o.puzzle_set.pk}, {}, SET_OWNER_POST),
    ("set_order", "post", lambda o: {"pk": o.puzzle_set.pk}, {"item": []}, SET_OWNER_POST),
    ("item_move", "post", lambda o: {"pk": o.puzzle_set.pk, "item_id": o.item.pk}, {"direction": "up"}, SET_OWNER_POST),
    ("item_remove", "post", lambda o: {"pk": o.puzzle_set.pk, "item_id": o.item.pk}, {}, SET_OWNER_POST),
    ("corpus", "get", lambda o: {"pk": o.puzzle_set.pk}, None, SET_OWNER),
    ("corpus", "post", lambda o: {"pk": o.puzzle_set.pk}, {"puzzle": 0}, {**SET_OWNER, "teacher": 404}),
    ("import", "get", lambda o: {"pk": o.puzzle_set.pk}, None, SET_OWNER),
    ("puzzle_new", "get", lambda o: {"pk": o.puzzle_set.pk}, None, SET_OWNER),
    ("puzzle_new", "post", lambda o: {"pk": o.puzzle_set.pk}, {"fen": "W:W22:B9", "goal": "win", "horizon": "2"}, SET_OWNER_POST),
    ("puzzle_edit", "get", lambda o: {"pk": o.puzzle_set.pk, "puzzle_id": o.item.puzzle_id}, None, SET_OWNER),
    ("editor_board", "post", lambda o: {"pk": o.puzzle_set.pk}, {"fen": "W:W:B", "square": "22", "piece": "w"}, SET_OWNER),
    ("editor_line", "post", lambda o: {"pk": o.puzzle_set.pk}, {"fen": CAPTURE["fen"], "line": "", "move": "28x3"}, SET_OWNER),
    ("editor_solve", "post", lambda o: {"pk": o.puzzle_set.pk}, {"fen": CAPTURE["fen"], "goal": "capture"}, {**SET_OWNER, "teacher": 202}),
    ("editor_solve_job", "get", lambda o: {"pk": o.puzzle_set.pk, "job_id": o.solve_job.pk}, None, SET_OWNER),
    ("set_assign", "get", lambda o: {"pk": o.puzzle_set.pk}, None, SET_OWNER),
    ("set_assign", "post", lambda o: {"pk": o.puzzle_set.pk}, lambda o: {"classroom": o.other_class.pk}, {**SET_OWNER, "teacher": 400}),
    ("worksheet", "get", lambda o: {"pk": o.puzzle_set.pk}, None, SET_READERS),
    ("set_pdn", "get", lambda o: {"pk": o.puzzle_set.pk}, None, SET_READERS),
]  # fmt: skip


class World:
    """The objects a URL of the matrix is about."""

    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)


@pytest.fixture
def world(db, request):
    """Every role and the class, set and assignment of the teacher (fixtures of test_classroom)."""
    get = request.getfixturevalue
    assigned = get("assignment")
    the_set = assigned.puzzle_set
    return World(
        teacher=get("teacher"),
        co_teacher=get("co_teacher"),
        student=get("student"),
        other_student=get("outsider"),
        other_teacher=get("other_teacher"),
        classroom=get("classroom"),
        other_class=get("other_class"),
        child=get("child"),
        assignment=assigned,
        puzzle_set=the_set,
        item=the_set.items().first(),
        accounts_job=Job.objects.create(
            kind="student_accounts",
            owner=get("teacher"),
            params={"classroom": get("classroom").pk, "names": ["Jan"]},
        ),
        solve_job=Job.objects.create(
            kind="editor_solve",
            owner=get("teacher"),
            params={"set": the_set.pk},
            status=Job.Status.FAILED,
            error="out of time",
        ),
    )


CASES = [
    pytest.param(name, method, kwargs, data, role, expected.get(role, LOGIN), id=f"{method}-{name}-{role}")
    for name, method, kwargs, data, expected in MATRIX
    for role in ROLES
]  # fmt: skip


@pytest.mark.parametrize(("name", "method", "kwargs", "data", "role", "status"), CASES)
def test_every_classroom_view_answers_each_role_as_it_should(
    client, world, name, method, kwargs, data, role, status
):
    url = reverse(f"classroom:{name}", kwargs=kwargs(world))
    if role != "anonymous":
        client.force_login(getattr(world, role))
    if callable(data):
        data = data(world)
    response = client.post(url, data) if method == "post" else client.get(url)
    assert response.status_code == status, (url, role, response.content.decode()[:500])
    if role == "anonymous" and status == LOGIN and name != "join":
        assert response.url.startswith("/accounts/login/?next=")


def test_the_matrix_covers_every_classroom_url():
    names = {p.name for p in classroom_urls.urlpatterns}
    assert names == {row[0] for row in MATRIX}


def test_a_teacher_of_another_class_gets_nothing_of_this_one(client, world):
    client.force_login(world.other_teacher)
    for url in (
        world.classroom.get_absolute_url(),
        f"/teach/classes/{world.classroom.pk}/progress/",
        world.assignment.get_absolute_url(),
        world.puzzle_set.get_absolute_url(),
        f"/teach/sets/{world.puzzle_set.pk}/worksheet/",
    ):
        assert client.get(url).status_code == 404, url


# -- the trainer's page of a teacher's puzzle (``/puzzles/<variant>/<id>/?set=<set id>``) -----------

#: the teacher's puzzle of the assigned set: for its author, the class's teachers and students
TRAINER = {
    "teacher": 200,
    "co_teacher": 200,
    "student": 200,
    "other_student": 404,
    "anonymous": 404,
}
#: the same puzzle once the set is no longer assigned: its author only
TRAINER_UNASSIGNED = {r: 404 for r in ROLES} | {"teacher": 200}


@pytest.mark.parametrize("assigned", [True, False], ids=["assigned", "unassigned"])
@pytest.mark.parametrize("role", ROLES)
def test_the_trainer_page_of_a_teachers_puzzle_answers_each_role(client, world, role, assigned):
    from puzzles.models import Attempt

    puzzle = world.item.puzzle
    assert puzzle.author == world.teacher and puzzle.verdict == "unique"
    if not assigned:
        world.assignment.delete()
    expected = (TRAINER if assigned else TRAINER_UNASSIGNED)[role]
    if role != "anonymous":
        client.force_login(getattr(world, role))
    url = f"/puzzles/{puzzle.variant}/{puzzle.pk}/"
    for query in ("", f"?set={world.puzzle_set.pk}"):
        response = client.get(url + query)
        assert response.status_code == expected, (role, query)
    logged = Attempt.objects.filter(puzzle=puzzle, set_id=world.puzzle_set.pk)
    # the set is logged on the attempt exactly when it is assigned to a class of the player's
    assert logged.exists() == (assigned and expected == 200)
    assert not Attempt.objects.filter(puzzle=puzzle).exists() or expected == 200
