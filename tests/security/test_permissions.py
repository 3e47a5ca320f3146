"""The permission matrix of every view of the site x role (visitor, student, teacher, staff),
beyond classroom (tests/web/test_classroom_permissions.py covers its five roles): a test fails when
a URL of the URLconf has a row in neither matrix. The admin: only staff get in."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.mail import confirmation_token
from tests.puzzle_fixtures import make_puzzle
from tests.web.play_helpers import FakeSearch
from tests.web.test_analysis_permissions import MATRIX as ANALYSIS_MATRIX
from tests.web.test_classroom_permissions import MATRIX as CLASSROOM_MATRIX
from tests.web.test_live_permissions import MATRIX as LIVE_MATRIX
from tests.web.test_tournament_permissions import MATRIX as TOURNAMENT_MATRIX
from tests.web.test_versus_permissions import MATRIX as VERSUS_MATRIX

from .urlconf import site_routes, url_names

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "student", "teacher", "staff")
LOGIN = 302
ALL = {r: 200 for r in ROLES}
REDIRECT = {r: 302 for r in ROLES}
ACCOUNT = {"anonymous": LOGIN, "student": 200, "teacher": 200, "staff": 200}
ACCOUNT_POST = {"anonymous": LOGIN, "student": 302, "teacher": 302, "staff": 302}
#: an attempt belongs to the student who made it: nobody else even learns that it exists
OWNER = {"anonymous": 404, "student": 200, "teacher": 404, "staff": 404}
AUTHOR = {"anonymous": 404, "student": 404, "teacher": 404, "staff": 200}  # staff (and the author)
STAFF = {"anonymous": LOGIN, "student": 302, "teacher": 302, "staff": 200}
YESTERDAY = (timezone.localdate() - timedelta(days=1)).isoformat()
#: an exam's sitting is its player's (a visitor is asked to log in)
EXAM_OWNER = {"anonymous": LOGIN, "student": 200, "teacher": 404, "staff": 404}
#: a class's exams are its teachers' (the class's student: 403; anyone else: 404)
CLASS_TEACHERS = {"anonymous": LOGIN, "student": 403, "teacher": 200, "staff": 404}

# (url name, method, kwargs builder, POST data, expected by role)
MATRIX = [
    ("home", "get", lambda w: {}, None, ALL),
    ("board_move", "get", lambda w: {"variant": "czech"}, None, REDIRECT),
    ("board_move", "post", lambda w: {"variant": "czech"}, {"fen": "W:W21-32:B1-12", "move": "22-18"}, ALL),
    ("set_language", "post", lambda w: {}, {"language": "cs"}, REDIRECT),
    ("healthz", "get", lambda w: {}, None, {r: (200, 503) for r in ROLES}),
    ("job_probe", "post", lambda w: {}, {"variant": "czech"}, {"anonymous": LOGIN, "student": 302, "teacher": 302, "staff": 202}),
    ("job_detail", "get", lambda w: {"job_id": w.job.pk}, None, {"anonymous": 404, "student": 404, "teacher": 404, "staff": 200}),
    ("signup", "get", lambda w: {}, None, {"anonymous": 200, "student": 302, "teacher": 302, "staff": 302}),
    ("login", "get", lambda w: {}, None, ALL),
    ("logout", "post", lambda w: {}, {}, REDIRECT),
    ("profile", "get", lambda w: {}, None, ACCOUNT),
    ("certificate_name", "get", lambda w: {}, None, ACCOUNT),
    ("certificate_name", "post", lambda w: {}, {"certificate_name": "Anna Nováková"}, ACCOUNT_POST),
    ("confirm_email", "get", lambda w: {"token": confirmation_token(w.student, "new@example.com")}, None, ALL),
    ("confirm_email", "get", lambda w: {"token": "bad-token"}, None, {r: 400 for r in ROLES}),
    ("confirm_email", "post", lambda w: {"token": confirmation_token(w.student, "new@example.com")}, {}, REDIRECT),
    ("confirm_email", "post", lambda w: {"token": "bad-token"}, {}, {r: 400 for r in ROLES}),
    ("request_teacher", "post", lambda w: {}, {}, ACCOUNT_POST),
    ("password_change", "get", lambda w: {}, None, ACCOUNT),
    ("password_change_done", "get", lambda w: {}, None, ACCOUNT),
    ("password_reset", "get", lambda w: {}, None, ALL),
    ("password_reset", "post", lambda w: {}, {"email": "nobody@example.com"}, REDIRECT),
    ("password_reset_done", "get", lambda w: {}, None, ALL),
    ("password_reset_confirm", "get", lambda w: {"uidb64": "MQ", "token": "bad-token"}, None, ALL),
    ("password_reset_complete", "get", lambda w: {}, None, ALL),
    ("lessons:index", "get", lambda w: {}, None, {r: (200, 302) for r in ROLES}),
    ("lessons:course", "get", lambda w: {"variant": "czech"}, None, ALL),
    ("lessons:step", "get", lambda w: w.step, None, ALL),
    ("lessons:check", "post", lambda w: w.step, {"answer": "4"}, ALL),
    ("lessons:hint", "post", lambda w: w.step, {}, ALL),
    ("lessons:solution", "post", lambda w: w.step, {}, ALL),
    ("lessons:retry", "post", lambda w: {"variant": "endgames-czech", "lesson": "cz-eg-lone-king", "step": "cz-eg-take-the-main-road"}, {}, ALL),
    ("lessons:build_tables", "post", lambda w: {"variant": "endgames-czech"}, {}, {"anonymous": 403, "student": 302, "teacher": 302, "staff": 302}),
    # a lesson's test-out: anyone's (a visitor's in the session); an answer with none going on: 409
    ("lessons:test_out", "get", lambda w: {"variant": "czech", "lesson": "czech-king"}, None, ALL),
    ("lessons:test_out_start", "post", lambda w: {"variant": "czech", "lesson": "czech-king"}, {}, REDIRECT),
    ("lessons:test_out_check", "post", lambda w: {"variant": "czech", "lesson": "czech-king"}, {"answer": "22-18"}, {r: 409 for r in ROLES}),
    ("puzzles:index", "get", lambda w: {}, None, REDIRECT),
    ("puzzles:dashboard_index", "get", lambda w: {}, None, REDIRECT),
    # every-defence mastery (issue 51): accounts only, once solved (else back to the puzzle); a
    # mastery is its account's
    ("puzzles:mastery", "get", lambda w: {"variant": "czech", "pk": w.puzzle.pk}, None, REDIRECT),
    ("puzzles:mastery_move", "post", lambda w: {"pk": mastery_of(w)}, {"ply": "0", "move": "22-17"}, {"anonymous": LOGIN, "student": 302, "teacher": 404, "staff": 404}),
    ("puzzles:mining", "get", lambda w: {}, None, STAFF),
    ("puzzles:mining_job", "get", lambda w: {"pk": w.mining_job}, None, STAFF),
    ("puzzles:attempt_move", "post", lambda w: {"pk": w.attempt}, {"move": "22-17"}, OWNER),
    ("puzzles:attempt_hint", "post", lambda w: {"pk": w.attempt}, {}, OWNER),
    ("puzzles:attempt_solution", "post", lambda w: {"pk": w.attempt}, {}, OWNER),
    ("puzzles:attempt_retry", "post", lambda w: {"pk": w.attempt}, {}, {**OWNER, "student": 302}),
    # a vote needs an account (403), the account's own attempt (404), finished (400 before)
    ("puzzles:attempt_vote", "post", lambda w: {"pk": w.attempt}, {"liked": "1"}, {**OWNER, "anonymous": 403, "student": 400}),
    ("puzzles:trainer", "get", lambda w: {"variant": "czech"}, None, REDIRECT),
    ("puzzles:dashboard", "get", lambda w: {"variant": "czech"}, None, ALL),
    ("puzzles:solve", "get", lambda w: {"variant": "czech", "pk": w.puzzle.pk}, None, ALL),
    ("puzzles:proof", "get", lambda w: {"variant": "czech", "pk": w.puzzle.pk}, None, AUTHOR),
    ("puzzles:daily_index", "get", lambda w: {}, None, REDIRECT),
    ("puzzles:daily", "get", lambda w: {"variant": "czech"}, None, ALL),
    ("puzzles:daily_archive", "get", lambda w: {"variant": "czech"}, None, ALL),
    ("puzzles:daily_day", "get", lambda w: {"variant": "czech", "day": YESTERDAY}, None, {r: 404 for r in ROLES}),
    # review (issue 18): a visitor's review is their session's; the reminder needs an account; only the class's teachers add a set (a set that is not theirs: 400)
    ("review:index", "get", lambda w: {}, None, ALL),
    ("review:session", "get", lambda w: {"variant": "czech"}, None, ALL),
    ("review:skip", "post", lambda w: {"variant": "czech"}, {"reset": "1"}, REDIRECT),
    ("review:reminders", "post", lambda w: {}, {"daily_email": "on"}, ACCOUNT_POST),
    ("review:class_add_set", "post", lambda w: {"pk": w.classroom.pk}, {"puzzle_set": "0"}, {"anonymous": LOGIN, "student": 403, "teacher": 400, "staff": 404}),
    # a class's students' personal puzzles from their games (issue 49): the class's teachers only; a puzzle or set not theirs to copy: 400
    ("analysis:class_puzzles", "get", lambda w: {"pk": w.classroom.pk}, None, CLASS_TEACHERS),
    ("analysis:class_add_puzzle", "post", lambda w: {"pk": w.classroom.pk}, {"puzzle": "0", "puzzle_set": "0"}, {**CLASS_TEACHERS, "teacher": 400}),
    ("play:games", "get", lambda w: {}, None, ALL),
    ("play:new", "get", lambda w: {"variant": "czech"}, None, ALL),
    ("play:new", "post", lambda w: {"variant": "czech"}, {"level": "5", "color": "white"}, REDIRECT),
    ("play:game", "get", lambda w: {"pk": w.game}, None, OWNER),
    ("play:wait", "get", lambda w: {"pk": w.game}, None, {**OWNER, "student": 302}),
    ("play:move", "post", lambda w: {"pk": w.game}, {"move": "22-18"}, {**OWNER, "student": 302}),
    ("play:takeback", "post", lambda w: {"pk": w.game}, {}, {**OWNER, "student": 400}),
    ("play:resign", "post", lambda w: {"pk": w.game}, {}, {**OWNER, "student": 302}),
    ("play:hint", "post", lambda w: {"pk": w.game}, {}, {**OWNER, "student": 302}),
    # a game is seen by its player and by the teachers of the player's classes
    ("play:replay", "get", lambda w: {"pk": w.game}, None, {**OWNER, "teacher": 200}),
    ("play:pdn", "get", lambda w: {"pk": w.game}, None, {**OWNER, "teacher": 200}),
    ("play:class_games", "get", lambda w: {"class_pk": w.classroom.pk}, None, {"anonymous": LOGIN, "student": 403, "teacher": 200, "staff": 404}),
    # exams (issue 19): a sitting and its certificate's PDF are the player's; a class exam its class's teachers'; the check of a certificate is public
    ("exams:index", "get", lambda w: {}, None, REDIRECT),
    ("exams:ladder", "get", lambda w: {"variant": "czech"}, None, ALL),
    ("exams:start", "post", lambda w: {"variant": "czech", "number": 1}, {"kind": "practice"}, REDIRECT),
    ("exams:sitting", "get", lambda w: {"pk": exams_of(w).exam.pk}, None, EXAM_OWNER),
    ("exams:answer", "post", lambda w: {"pk": exams_of(w).exam.pk}, {"index": "0", "answer": "zz"}, {**EXAM_OWNER, "student": 400}),
    ("exams:skip", "post", lambda w: {"pk": exams_of(w).exam.pk}, {"index": "0"}, {**EXAM_OWNER, "student": 302}),
    ("exams:endgame", "post", lambda w: {"pk": exams_of(w).exam.pk}, {"index": "0"}, {**EXAM_OWNER, "student": 400}),
    # handing in with questions open asks first (409 with the question); confirmed, it ends the exam
    ("exams:finish", "post", lambda w: {"pk": exams_of(w).exam.pk}, {}, {**EXAM_OWNER, "student": 409}),
    ("exams:finish", "post", lambda w: {"pk": exams_of(w).exam.pk}, {"confirm": "1"}, {**EXAM_OWNER, "student": 302}),
    ("exams:certificate_pdf", "get", lambda w: {"code": exams_of(w).certificate.code}, None, EXAM_OWNER),
    ("exams:verify", "get", lambda w: {"code": exams_of(w).certificate.code}, None, ALL),
    ("exams:class_exams", "get", lambda w: {"classroom": w.classroom.pk}, None, CLASS_TEACHERS),
    ("exams:class_exams", "post", lambda w: {"classroom": w.classroom.pk}, {"starts_at": "soon"}, {**CLASS_TEACHERS, "teacher": 400}),
    ("exams:class_exam", "get", lambda w: {"pk": exams_of(w).class_exam.pk}, None, CLASS_TEACHERS),
    # the class's certificates are printed by a worker job (nobody passed yet: 409), followed and downloaded by the class's teachers only
    ("exams:class_certificates", "post", lambda w: {"pk": exams_of(w).class_exam.pk}, {}, {**CLASS_TEACHERS, "teacher": 409}),
    ("exams:class_certificates_job", "get", lambda w: {"pk": exams_of(w).class_exam.pk, "job_id": exams_of(w).print_job.pk}, None, CLASS_TEACHERS),
    ("exams:class_certificates_pdf", "get", lambda w: {"pk": exams_of(w).class_exam.pk, "job_id": exams_of(w).print_job.pk}, None, CLASS_TEACHERS),
    # the analysis board (issue 49): anyone's; the engine needs an account; a job is its owner's (and staff's)
    ("explore:board", "get", lambda w: {}, None, ALL),
    ("explore:setup", "post", lambda w: {}, {"variant": "czech", "position": "W:W21:B1"}, REDIRECT),
    ("explore:move", "post", lambda w: {}, {"variant": "czech", "fen": "W:W21-32:B1-12", "move": "22-18"}, REDIRECT),
    ("explore:analyse", "post", lambda w: {}, {"variant": "czech", "fen": "W:W21-32:B1-12"}, REDIRECT),
    ("explore:job", "get", lambda w: {"job_id": explore_job_of(w)}, None, {**OWNER, "staff": 200}),
    ("explore:pdn", "get", lambda w: {}, None, {r: 400 for r in ROLES}),
    # puzzle streak and storm (issue 51): anyone's; a run is its player's; a class's table its teachers' and students'
    ("runs:index", "get", lambda w: {"variant": "czech"}, None, ALL),
    ("runs:start", "post", lambda w: {"variant": "czech", "kind": "storm"}, {}, REDIRECT),
    ("runs:run", "get", lambda w: {"pk": w.run}, None, OWNER),
    ("runs:move", "post", lambda w: {"pk": w.run}, {"at": "0", "move": "21-17"}, {**OWNER, "student": 302}),
    ("runs:skip", "post", lambda w: {"pk": w.run}, {"at": "0"}, {**OWNER, "student": 302}),
    ("runs:finish", "post", lambda w: {"pk": w.run}, {"at": "0"}, {**OWNER, "student": 302}),
    ("runs:class", "get", lambda w: {"variant": "czech", "class_id": w.classroom.pk}, None, {"anonymous": 404, "student": 200, "teacher": 200, "staff": 404}),
    # a class race in a live lesson: its teachers start it, its students join it, both see its panel
    ("runs:race_panel", "get", lambda w: {"pk": w.lesson}, None, {"anonymous": 404, "student": 200, "teacher": 200, "staff": 404}),
    ("runs:race_start", "post", lambda w: {"pk": w.lesson}, {}, {"anonymous": 404, "student": 403, "teacher": 302, "staff": 404}),
    ("runs:race_join", "post", lambda w: {"pk": w.race}, {}, {"anonymous": 404, "student": 302, "teacher": 404, "staff": 404}),
    # the square trainer (issue 51): anyone's; a run is its trainee's
    ("squares:index", "get", lambda w: {}, None, REDIRECT),
    ("squares:trainer", "get", lambda w: {"variant": "czech"}, None, ALL),
    ("squares:start", "post", lambda w: {"variant": "czech"}, {"notation": "numbers", "side": "white", "mode": "find"}, REDIRECT),
    ("squares:run", "get", lambda w: {"pk": squares_run_of(w)}, None, OWNER),
    ("squares:answer", "post", lambda w: {"pk": squares_run_of(w)}, {"asked": "1", "route": "1"}, {**{r: 404 for r in ROLES}, "student": 302}),
    ("exams:class_exam_start", "post", lambda w: {"pk": exams_of(w).class_exam.pk}, {}, {"anonymous": LOGIN, "student": 302, "teacher": 403, "staff": 404}),
]  # fmt: skip


def explore_job_of(w):
    """The student's analysis on the analysis board."""
    from core.models import Job

    return Job.objects.create(
        kind="explore_analysis", owner=w.student, params={"fen": "W:W21:B1", "variant": "czech"}
    ).pk


def mastery_of(w):
    """The student's every-defence mastery of the puzzle."""
    from puzzles.models import Mastery

    return Mastery.of(w.student, w.puzzle).pk


def squares_run_of(w):
    """The student's run of the square trainer."""
    from squares.models import SquareRun
    from squares.trainee import Trainee

    return SquareRun.start(
        Trainee(w.student, {}), variant="czech", notation="numbers", side="white", mode="find"
    ).pk


def exams_of(w):
    """The student's practice exam, a certificate of theirs and a class exam of the teacher's
    class open now, made the first time a row asks for them."""
    if not hasattr(w, "exam"):
        from exams.models import Certificate, ClassExam, Exam

        w.exam = Exam.start(w.student, "czech", 1, "practice")
        w.certificate = Certificate.objects.create(
            exam=w.exam, user=w.student, name="Standa", variant="czech", level=1,
            issued_on=timezone.localdate(),
        )  # fmt: skip
        w.class_exam = ClassExam.objects.create(
            classroom=w.classroom, variant="czech", level=1, starts_at=timezone.now()
        )
        from core.models import Job
        from exams.models import CertificatePrint
        from exams.tasks import PRINT_JOB

        w.print_job = Job.objects.create(
            kind=PRINT_JOB, status=Job.Status.DONE, params={"class_exam": w.class_exam.pk}
        )
        CertificatePrint.objects.create(
            job=w.print_job, class_exam=w.class_exam, pdf=b"%PDF-1.4 test", pages=1
        )
    return w


class World:
    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)


@pytest.fixture
def world(student, teacher, staff, monkeypatch):
    from django.test import Client

    from classroom.models import Classroom
    from core.models import Job
    from lessons.course import get_course
    from play import engine as play_engine
    from play.models import Game
    from puzzles.models import MiningJob

    monkeypatch.setattr(play_engine, "_search_module", FakeSearch)  # the moves do not matter here

    puzzle = make_puzzle("czech_gain")
    # the student's attempt, made in a browser of their own
    own = Client()
    own.force_login(student)
    page = own.get(f"/puzzles/czech/{puzzle.pk}/")
    assert page.status_code == 200, (page.status_code, page.get("Location"))
    html = page.content.decode()
    attempt = int(re.search(r'data-attempt="(\d+)"', html).group(1))
    step = get_course("czech").steps[0]
    job = Job.objects.create(kind="probe", owner=staff, params={"variant": "czech"})
    mining_job = MiningJob.objects.create(variant="czech", tasks=1, games=1).pk
    # the student's game against the computer (White to move), in a class the teacher runs
    game = Game.start(user=student, variant="czech", level=5, player_white=True).pk
    classroom = Classroom.objects.create(name="4.B", variant="czech")
    classroom.teachers.add(teacher)
    classroom.memberships.create(user=student)
    from django.contrib.sessions.backends.db import SessionStore

    from puzzles.player import Player
    from runs.models import Run

    run = Run.start(Player(student, SessionStore()), "streak", "czech").pk
    from live.models import LiveSession
    from runs.models import Race

    lesson = LiveSession.start(classroom, teacher, [])
    race = Race.start(lesson).pk
    return World(
        student=student, teacher=teacher, staff=staff, puzzle=puzzle, attempt=attempt, job=job,
        game=game, classroom=classroom, mining_job=mining_job, run=run,
        lesson=lesson.pk, race=race,
        step={"variant": "czech", "lesson": step.lesson.slug, "step": step.slug},
    )  # fmt: skip


CASES = [
    pytest.param(name, method, kwargs, data, role, expected[role], id=f"{method}-{name}-{role}")
    for name, method, kwargs, data, expected in MATRIX
    for role in ROLES
]


@pytest.mark.parametrize(("name", "method", "kwargs", "data", "role", "status"), CASES)
def test_every_view_answers_each_role_as_it_should(
    client, world, name, method, kwargs, data, role, status
):
    url = reverse(name, kwargs=kwargs(world))
    if role != "anonymous":
        client.force_login(getattr(world, role))
    response = client.post(url, data) if method == "post" else client.get(url)
    allowed = status if isinstance(status, tuple) else (status,)
    assert response.status_code in allowed, (url, role, response.content.decode()[:300])


def test_visitors_asking_for_account_pages_are_sent_to_the_login_page(client, world):
    for name in ("profile", "password_change"):
        response = client.get(reverse(name))
        assert response.url.startswith("/accounts/login/?next="), name


def test_the_two_matrices_cover_every_url_of_the_site():
    covered = (
        {row[0] for row in MATRIX}
        | {f"classroom:{row[0]}" for row in CLASSROOM_MATRIX}
        | {f"live:{row[0]}" for row in LIVE_MATRIX}
        | {f"versus:{row[0]}" for row in VERSUS_MATRIX}
        | {f"tournaments:{row[0]}" for row in TOURNAMENT_MATRIX}
        | {f"analysis:{row[0]}" for row in ANALYSIS_MATRIX}
    )
    assert url_names() - covered == set(), "add a row for each new view"


ADMIN_PAGES = [
    r
    for r in site_routes(admin=True)
    if r.is_admin
    and "<" not in r.route
    # the log-in page is for everyone; autocomplete answers a bad query with 403 even to staff
    and r.name not in ("admin:logout", "admin:login", "admin:autocomplete")
]


@pytest.mark.parametrize("role", ROLES)
def test_only_staff_get_into_the_admin(client, world, role):
    if role != "anonymous":
        client.force_login(getattr(world, role))
    for route in ADMIN_PAGES:
        response = client.get(route.url)
        if role == "staff":
            assert response.status_code in (200, 302), route.url
            if response.status_code == 302:
                assert "/admin/login/" not in response.url, route.url
        else:
            assert response.status_code in (302, 404), (route.url, response.status_code)
            if response.status_code == 302:
                assert response.url.startswith("/admin/login/"), route.url
