# ruff: noqa: F811 - fixtures imported from tests.web.test_classroom are used as arguments
"""Bad input to every form and endpoint that takes a FEN, PDN, move, square, id or file: no answer
of 500 or more, rejections that say what is wrong, nothing written by a refused submission.
(Addresses with ids are also asked with ids that do not exist or do not fit a database integer.)"""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from hypothesis import given
from hypothesis import strategies as st

from lessons.course import get_course
from tests.puzzle_fixtures import make_puzzle
from tests.web.test_classroom import (  # noqa: F401 - fixtures
    CAPTURE,
    assignment,
    classroom,
    co_teacher,
    puzzle_set,
    queue,
)

from .conftest import FUZZ, HX, counts, judge

pytestmark = pytest.mark.django_db

# -- strategies -------------------------------------------------------------------------------------

VALID_FENS = [
    "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12",
    "W:W31-50:B1-20",
    "B:W18,K22:B9,K3",
    "W:W14,17,21,28,30,32:B1,5,8,11,16,23,24",
    "W:Wc3,e3:Bd6",
    "W:W8:B",
]
FEN_ALPHABET = "WBK:,-x0123456789abcdefghij ."
fens = st.one_of(
    st.sampled_from(VALID_FENS),
    st.text(alphabet=FEN_ALPHABET, max_size=80),
    st.builds(
        lambda base, cut, junk: base[:cut] + junk + base[cut:],
        st.sampled_from(VALID_FENS),
        st.integers(0, 60),
        st.text(alphabet=FEN_ALPHABET, max_size=6),
    ),
    st.text(max_size=40),
    st.just("W:W" + ",".join(str(n) for n in range(1, 400))),
    st.just("x" * 5000),
)
moves = st.one_of(
    st.sampled_from(
        ["22-18", "c3-d4", "28x19x12x3", "46x37x48x25", "1-5", "22-", "x", "0-0", "99-100"]
    ),
    st.text(alphabet="0123456789-x abcdefghij:,", max_size=30),
    st.text(max_size=20),
    st.just("1x" * 2000),
)
routes = st.one_of(
    st.lists(st.integers(-5, 60), max_size=12).map(lambda xs: ",".join(map(str, xs))),
    st.text(alphabet="0123456789,- ", max_size=40),
    st.just(",".join(["22"] * 3000)),
)
ids = st.one_of(st.integers(0, 10**6), st.integers(2**31, 2**70))
#: numbers as a client or a file may write them: thousands of digits (``int()`` refuses more than
#: 4,300), beyond a database integer, negative, in other scripts' digits (``int()`` reads '١٢' and
#: '１２', ``isdigit()`` passes '²', which ``int()`` refuses), and what only looks like a number
NUMBER_TRAPS = [
    "9" * 4300, "9" * 4301, "9" * 4400, "9" * 5000, "-" + "9" * 5000, "0" * 5000 + "1",
    str(2**63), str(2**64), "-1", "-0", "+3", " 3 ", "٣", "١٢", "۱۲", "１２", "²", "³", "½", "⑫",
    "1_0", "1e3", "1e999", "nan", "inf", "0x1f", "3.0", "", "\x00",
]  # fmt: skip
numbers = st.one_of(
    st.sampled_from(NUMBER_TRAPS),
    st.integers(-10, 10**6).map(str),
    st.text(alphabet="0123456789١٢²١-+_. ", max_size=8),
)
squares = st.one_of(
    st.integers(-3, 60).map(str),
    st.text(alphabet="0123456789abcdefghij", max_size=4),
    st.text(max_size=6),
    numbers,
)


# -- the free board, lessons -----------------------------------------------------------------------


@FUZZ
@given(
    fen=fens,
    move=moves,
    route=routes,
    flipped=st.sampled_from(["", "1", "on", "x"]),
    htmx=st.booleans(),
    variant=st.sampled_from(["czech", "international", "brazilian"]),
)
def test_free_board_move(client, fen, move, route, flipped, htmx, variant):
    response = client.post(
        f"/board/{variant}/move",
        {"fen": fen, "move": move, "route": route, "flipped": flipped},
        **(HX if htmx else {}),
    )
    judge(response, what=(fen, move, route))


STEPS = [(s.lesson.slug, s.slug) for s in get_course("czech").steps]


@FUZZ
@given(
    step=st.sampled_from(STEPS),
    answer=st.one_of(moves, squares),
    route=routes,
    choice=st.one_of(st.just(""), moves),
)
def test_lesson_check(client, step, answer, route, choice):
    lesson, slug = step
    before = counts()
    response = client.post(
        f"/learn/czech/{lesson}/{slug}/check",
        {"answer": answer, "route": route, "choice": choice},
        **HX,
    )
    judge(response, what=(step, answer, route, choice))
    if response.status_code >= 400:
        assert counts() == before


TEST_OUT_LESSONS = [ls.slug for ls in get_course("czech").lessons if len(ls.steps) > 2]


@FUZZ
@given(
    lesson=st.sampled_from(TEST_OUT_LESSONS),
    started=st.booleans(),
    answer=st.one_of(moves, squares),
    route=routes,
    choice=st.one_of(st.just(""), moves),
)
def test_lesson_test_out_check(client, lesson, started, answer, route, choice):
    if started:
        client.post(f"/learn/czech/{lesson}/test-out/start")
    before = counts()
    response = client.post(
        f"/learn/czech/{lesson}/test-out/check",
        {"answer": answer, "route": route, "choice": choice},
        **HX,
    )
    judge(response, what=(lesson, started, answer, route, choice))
    if response.status_code >= 400:
        assert counts() == before


# -- the trainer ---------------------------------------------------------------------------------------


@pytest.fixture
def attempt_url(client):
    puzzle = make_puzzle("czech_gain")
    html = client.get(f"/puzzles/czech/{puzzle.pk}/").content.decode()
    attempt = re.search(r'data-attempt="(\d+)"', html).group(1)
    return f"/puzzles/attempt/{attempt}", puzzle


@FUZZ
@given(move=moves, route=routes, htmx=st.booleans())
def test_trainer_move(client, attempt_url, move, route, htmx):
    base, _puzzle = attempt_url
    before = counts()
    response = client.post(f"{base}/move", {"move": move, "route": route}, **(HX if htmx else {}))
    judge(response, what=(move, route))
    if response.status_code >= 400:
        assert counts() == before
    client.post(f"{base}/retry", **HX)  # a fresh attempt for the next example


@pytest.fixture
def run_puzzle():
    return make_puzzle("czech_gain")


@FUZZ
@given(
    move=moves,
    route=routes,
    at=numbers,
    action=st.sampled_from(["move", "skip", "finish"]),
    htmx=st.booleans(),
)
def test_run_move(client, run_puzzle, move, route, at, action, htmx):
    """A fresh streak for each example: bad input to its move, skip and finish is refused with
    a message and writes nothing."""
    run_url = client.post("/runs/czech/streak/start").url.rstrip("/")
    before = counts()
    response = client.post(
        f"{run_url}/{action}", {"move": move, "route": route, "at": at}, **(HX if htmx else {})
    )
    judge(response, what=(move[:20], route[:20], at[:20], action))
    if response.status_code >= 400:
        assert counts() == before


@FUZZ
@given(
    pk=ids,
    kind=st.one_of(st.sampled_from(["streak", "storm"]), st.text(max_size=12)),
    variant=st.sampled_from(["czech", "international", "brazilian", "chess"]),
)
def test_ids_and_kinds_of_the_run_pages(client, pk, kind, variant):
    for response in (
        client.get(f"/runs/run/{pk}/"),
        client.post(f"/runs/run/{pk}/move", {"at": "0", "move": "22-18"}, **HX),
        client.get(f"/runs/{variant}/"),
        client.get(f"/runs/{variant}/class/{pk}/"),
        client.get(f"/runs/race/lesson/{pk}/"),
        client.post(f"/runs/race/lesson/{pk}/start", **HX),
        client.post(f"/runs/race/{pk}/join"),
    ):
        judge(response, what=(pk, variant))
    if kind and "/" not in kind and "?" not in kind and "#" not in kind:
        judge(client.post(f"/runs/{variant}/{kind}/start"), what=(kind, variant))


@FUZZ
@given(
    pk=ids,
    action=st.sampled_from(["move", "hint", "solution", "retry"]),
    variant=st.sampled_from(["czech", "international", "brazilian"]),
    query=st.dictionaries(
        st.sampled_from(["goal", "motif", "set", "after", "replay"]),
        st.one_of(st.text(max_size=30), numbers),
        max_size=3,
    ),
    day=st.text(alphabet="0123456789-T:x", max_size=14),
)
def test_ids_and_queries_of_the_puzzle_pages(client, pk, action, variant, query, day):
    for response in (
        client.post(f"/puzzles/attempt/{pk}/{action}", {"move": "22-18"}, **HX),
        client.get(f"/puzzles/{variant}/{pk}/", query),
        client.get(f"/puzzles/{variant}/", query),
        client.get(f"/puzzles/{variant}/{pk}/proof/"),
        client.get(f"/daily/{variant}/{day or 'x'}/"),
        client.get(f"/teach/sets/{pk}/"),
        client.get(f"/teach/classes/{pk}/"),
    ):
        judge(response, what=(pk, action, query, day))


# -- the name on certificates ---------------------------------------------------------------------------

NAMES = ["Anna Nováková", "Jean-Luc O’Neil Jr.", "Дмитрий", "Μαρία", "Nguyễn Văn Anh"]
names = st.one_of(
    st.sampled_from(NAMES),
    st.text(max_size=70),
    st.text(alphabet="AaŘřěůΩжẫ '-.’ʼ\u0301\u00a0@0_", max_size=40),
    st.builds(lambda name, junk: name + junk, st.sampled_from(NAMES), st.text(max_size=4)),
)


@FUZZ
@given(name=names, htmx=st.booleans())
def test_the_name_on_certificates(client, student, name, htmx):
    from accounts.models import profile_of
    from accounts.names import clean_name, name_problem

    client.force_login(student)
    before = profile_of(student).certificate_name
    response = client.post(
        "/accounts/profile/name/", {"certificate_name": name}, **(HX if htmx else {})
    )
    judge(response, what=name)
    stored = profile_of(student).certificate_name
    if response.status_code == 302:
        assert stored == clean_name(name) and name_problem(stored) == "", name
    else:
        assert response.status_code == 400 and stored == before, name


# -- the teacher's editor, forms and import ----------------------------------------------------------


@pytest.fixture
def teacher_client(client, teacher, puzzle_set):
    client.force_login(teacher)
    return client, puzzle_set


@FUZZ
@given(
    fen=fens,
    square=squares,
    piece=st.sampled_from(["w", "b", "W", "B", "", "x", "wk"]),
    action=st.sampled_from(["place", "clear", "start", "paste", "turn", "", "bogus"]),
    turn=st.sampled_from(["W", "B", "", "x"]),
)
def test_editor_board(teacher_client, fen, square, piece, action, turn):
    client, puzzle_set = teacher_client
    response = client.post(
        f"/teach/sets/{puzzle_set.pk}/editor/board/",
        {
            "fen": fen,
            "fen_text": fen,
            "square": square,
            "piece": piece,
            "action": action,
            "turn": turn,
        },
        **HX,
    )
    judge(response, what=(fen, square, piece, action))


@FUZZ
@given(
    fen=fens,
    line=st.lists(moves, max_size=4).map(" ".join),
    move=moves,
    route=routes,
    action=st.sampled_from(["play", "back", "clear", "", "x"]),
)
def test_editor_line(teacher_client, fen, line, move, route, action):
    client, puzzle_set = teacher_client
    response = client.post(
        f"/teach/sets/{puzzle_set.pk}/editor/line/",
        {"fen": fen, "line": line, "move": move, "route": route, "action": action},
        **HX,
    )
    judge(response, what=(fen, line, move, action))


goals = st.sampled_from(["capture", "gain", "win", "", "gain:2", "x", "gain:-1"])
horizons = st.one_of(st.integers(-2, 40).map(str), st.text(max_size=5), numbers)


@FUZZ
@given(
    fen=fens,
    goal=goals,
    gain=horizons,
    horizon=horizons,
    solution=st.lists(moves, max_size=3).map(" ".join),
    title=st.text(max_size=300),
)
def test_puzzle_editor_save(teacher_client, fen, goal, gain, horizon, solution, title):
    client, puzzle_set = teacher_client
    before = counts()
    response = client.post(
        f"/teach/sets/{puzzle_set.pk}/puzzles/new/",
        {
            "fen": fen,
            "goal": goal,
            "gain": gain,
            "horizon": horizon,
            "solution": solution,
            "title": title,
        },
    )
    judge(response, what=(fen, goal, horizon, solution))
    if response.status_code >= 400:
        assert counts() == before


@FUZZ
@given(
    fen=st.one_of(st.text(alphabet=FEN_ALPHABET, max_size=60), st.text(max_size=20)),
    goal=goals,
    horizon=horizons,
)
def test_editor_solve_refuses_bad_positions_quickly(teacher_client, fen, goal, horizon):
    client, puzzle_set = teacher_client
    response = client.post(
        f"/teach/sets/{puzzle_set.pk}/editor/solve/",
        {"fen": fen, "goal": goal, "horizon": horizon},
        **HX,
    )
    judge(response, what=(fen, goal, horizon))


@FUZZ
@given(
    items=st.lists(st.one_of(ids.map(str), st.text(max_size=6), numbers), max_size=6),
    direction=st.text(max_size=6),
    pk=ids,
    classroom_id=st.one_of(ids.map(str), st.text(max_size=6), numbers),
    names=st.text(max_size=200),
    username=st.text(max_size=40),
)
def test_set_and_class_forms_with_bad_ids(
    teacher_client, classroom, items, direction, pk, classroom_id, names, username
):
    client, puzzle_set = teacher_client
    for url, data in (
        (f"/teach/sets/{puzzle_set.pk}/order/", {"item": items}),
        (f"/teach/sets/{puzzle_set.pk}/items/{pk}/move/", {"direction": direction}),
        (f"/teach/sets/{puzzle_set.pk}/items/{pk}/remove/", {}),
        (f"/teach/sets/{puzzle_set.pk}/corpus/", {"puzzle": classroom_id}),
        (f"/teach/sets/{puzzle_set.pk}/assign/", {"classroom": classroom_id, "due": names[:20]}),
        (f"/teach/classes/{classroom.pk}/teachers/", {"username": username}),
        (f"/teach/classes/{classroom.pk}/students/{pk}/remove/", {}),
        ("/teach/join/", {"code": username}),
    ):
        before = counts()
        response = client.post(url, data)
        judge(response, what=(url, data))
        if response.status_code >= 400:
            assert counts() == before, url


@FUZZ
@given(
    kind=st.sampled_from(["round_robin", "swiss", "arena", "", "knockout"]),
    players=st.lists(st.one_of(ids.map(str), numbers), max_size=4),
    length=numbers,
    minutes=numbers,
    increment=numbers,
    rounds=numbers,
    bye=numbers,
    result=st.one_of(st.sampled_from(["2-0", "1-1", "0-2", "1-0", "2-2"]), st.text(max_size=6)),
    pk=ids,
)
def test_tournament_forms(
    client, teacher, classroom, django_user_model, kind, players, length, minutes, increment,
    rounds, bye, result, pk
):  # fmt: skip
    from tournaments.models import Pairing, Tournament

    client.force_login(teacher)
    tournament = Tournament.objects.first()
    if tournament is None:
        second = django_user_model.objects.create_user("second")
        classroom.add_student(second)
        tournament = Tournament.create(
            classroom, teacher, name="Cup", kind="swiss", players=classroom.students()
        )
        tournament.start()
    student_ids = [str(pk) for pk in classroom.students().values_list("pk", flat=True)]
    data = {
        "name": "Cup",
        "kind": kind,
        "players": players + student_ids[: len(players) % 3],
        "length": length,
        "minutes": minutes,
        "increment": increment,
        "rounds": rounds,
        "bye_points": bye,
    }
    game = Pairing.objects.filter(round__tournament=tournament).first()
    for url, form in (
        (f"/teach/tournaments/class/{classroom.pk}/new/", data),
        (f"/teach/tournaments/{tournament.pk}/games/{game.pk}/", {"result": result}),
        (f"/teach/tournaments/{tournament.pk}/games/{pk}/", {"result": result}),
        (f"/teach/tournaments/{tournament.pk}/next/", {}),
    ):
        before = counts()
        response = client.post(url, form)
        judge(response, what=(url, form))
        if response.status_code >= 400:
            assert counts() == before, url


# -- PDN files ----------------------------------------------------------------------------------------

TAGS = ["FEN", "GameType", "Goal", "Horizon", "Solution", "Event", "Title", "Proof"]
pdn_tag = st.one_of(
    st.builds(
        lambda tag, value: f'[{tag} "{value}"]',
        st.sampled_from(TAGS),
        st.one_of(fens, st.text(max_size=20), numbers),
    ),
    # numbers where the reader converts them: the variant, the goal's gain, the horizon
    st.builds(lambda n: f'[GameType "{n}"]', numbers),
    st.builds(lambda n: f'[GameType "29,W,{n},8"]', numbers),
    st.builds(lambda n: f'[Goal "gain:{n}"]', numbers),
    st.builds(lambda n: f'[Horizon "{n}"]', numbers),
)
pdn_moves = st.lists(
    st.one_of(
        moves,
        st.sampled_from(
            ["1.", "2.", "(", ")", "{comment}", "*", "1-0", "2-0", "0-2", "1-1", "$1", ";x\n"]
        ),
    ),
    max_size=20,
).map(" ".join)
pdn_text = st.lists(
    st.builds(
        lambda tags, mv: "\n".join(tags) + "\n\n" + mv + "\n",
        st.lists(pdn_tag, max_size=5),
        pdn_moves,
    ),
    max_size=6,
).map("\n".join)
pdn_bytes = st.one_of(
    pdn_text.map(lambda t: t.encode()),
    st.binary(max_size=400),
    pdn_text.map(lambda t: t.encode("utf-16")),
)


@FUZZ
@given(
    data=pdn_bytes,
    goal=st.sampled_from(["capture", "gain", "win", "x"]),
    horizon=horizons,
    name=st.sampled_from(["a.pdn", "x.html", "../../etc/passwd", "a.py", ""]),
)
def test_pdn_import(teacher_client, data, goal, horizon, name):
    client, puzzle_set = teacher_client
    before = counts()
    upload = SimpleUploadedFile(name or "f", data, content_type="application/octet-stream")
    response = client.post(
        f"/teach/sets/{puzzle_set.pk}/import/", {"file": upload, "goal": goal, "horizon": horizon}
    )
    judge(response, what=(data[:200], goal, horizon))
    if response.status_code >= 400:
        assert counts() == before


# -- numbers: every other endpoint that reads one ---------------------------------------------------


@pytest.fixture
def fake_search(monkeypatch):
    from tests.web.play_helpers import install_fake_search

    return install_fake_search(monkeypatch)


@FUZZ
@given(level=numbers, color=st.sampled_from(["white", "black", "random", "x"]))
def test_new_game_level(client, fake_search, level, color):
    from play.models import Game

    before = Game.objects.count()
    response = client.post("/play/czech/", {"level": level, "color": color})
    judge(response, what=(level[:20], color))
    if response.status_code >= 400:
        assert Game.objects.count() == before


@pytest.fixture
def thinking_game(client, fake_search):
    """A visitor's game at a worker level, waiting for the computer's reply (version 1)."""
    from play.models import Game

    response = client.post("/play/czech/", {"level": "5", "color": "white"})
    game = Game.objects.get(pk=response.url.rstrip("/").rsplit("/", 1)[-1])
    client.post(f"/play/game/{game.pk}/move", {"move": "22-18"}, **HX)
    return game


@FUZZ
@given(v=numbers, n=numbers, htmx=st.booleans())
def test_wait_poll_version_and_number(client, thinking_game, v, n, htmx):
    response = client.get(
        f"/play/game/{thinking_game.pk}/wait", {"v": v, "n": n}, **(HX if htmx else {})
    )
    judge(response, what=(v[:20], n[:20]))


@pytest.fixture
def lesson(classroom, teacher):
    from live.models import LiveSession, StepData

    session = LiveSession.start(classroom, teacher, [StepData(CAPTURE["fen"], "one")] * 2)
    session.ask()
    return session


@FUZZ
@given(
    since=numbers,
    index=numbers,
    answer=numbers,
    who=st.sampled_from(["teacher", "student"]),
    htmx=st.booleans(),
)
def test_live_lesson_numbers(client, lesson, teacher, student, since, index, answer, who, htmx):
    client.force_login(teacher if who == "teacher" else student)
    judge(client.get(f"/live/{lesson.pk}/state/", {"since": since}), what=(who, since[:20]))
    if who == "student":
        return  # the teacher's actions: a 403 for a student, whatever the numbers
    control = f"/live/{lesson.pk}/control/"
    for response in (
        client.post(control, {"action": "goto", "index": index}, **(HX if htmx else {})),
        client.post(control, {"action": "show", "answer": answer}, **(HX if htmx else {})),
    ):
        judge(response, what=(since[:20], index[:20], answer[:20]))


@FUZZ
@given(card=numbers, variant=st.sampled_from(["czech", "international"]))
def test_review_skip_card(client, student, card, variant):
    client.force_login(student)
    judge(client.post(f"/review/{variant}/skip", {"card": card}), what=card[:20])


@pytest.fixture
def sitting(student):
    from exams.models import Exam

    return Exam.start(student, "czech", 1, "practice")


@FUZZ
@given(index=numbers, answer=moves)
def test_exam_question_index(client, student, sitting, index, answer):
    client.force_login(student)
    for response in (
        client.post(
            f"/exams/sitting/{sitting.pk}/answer", {"index": index, "answer": answer}, **HX
        ),
        client.post(f"/exams/sitting/{sitting.pk}/skip", {"index": index}, **HX),
    ):
        judge(response, what=(index[:20], answer[:20]))


@FUZZ
@given(low=numbers, high=numbers, goal=goals, level=numbers)
def test_corpus_search_and_the_start_pages_numbers(teacher_client, low, high, goal, level):
    client, puzzle_set = teacher_client
    for response in (
        client.get(
            f"/teach/sets/{puzzle_set.pk}/corpus/",
            {"min_difficulty": low, "max_difficulty": high, "goal": goal},
        ),
        client.get("/play/czech/", {"level": level}),
    ):
        judge(response, what=(low[:20], high[:20], goal, level[:20]))


@FUZZ
@given(tasks=st.one_of(st.just("2"), numbers), games=st.one_of(st.just("1"), numbers), seed=numbers)
def test_mining_form_numbers(client, staff, tasks, games, seed):
    from puzzles.models import MiningJob

    client.force_login(staff)
    before = MiningJob.objects.count()
    response = client.post(
        "/puzzles/mining/", {"variant": "czech", "tasks": tasks, "games": games, "first_seed": seed}
    )
    judge(response, what=(tasks[:20], games[:20], seed[:20]))
    if response.status_code >= 400:
        assert MiningJob.objects.count() == before


# -- regressions found by the fuzzer (kept as plain tests) -------------------------------------------


def test_an_id_beyond_a_database_integer_is_a_404_on_every_address_with_an_id(
    client, teacher, puzzle_set, classroom
):
    from tests.security.urlconf import site_routes

    client.force_login(teacher)
    big = str(2**63)
    for route in site_routes(admin=False):
        if "<int:" not in route.route:
            continue
        url = route.url.replace("/1/", f"/{big}/").replace("/1", f"/{big}")
        for response in (client.get(url), client.post(url, {})):
            assert response.status_code in (302, 400, 403, 404, 405), (url, response.status_code)


def test_a_man_placed_on_its_crowning_row_in_the_editor_is_refused_with_the_rule(teacher_client):
    client, puzzle_set = teacher_client
    response = client.post(
        f"/teach/sets/{puzzle_set.pk}/editor/board/",
        {"fen": "W:W:B", "square": "1", "piece": "w"},
        **HX,
    )
    assert response.status_code == 400
    assert "crowning row" in response.content.decode()


def test_a_corpus_puzzle_id_that_is_not_a_number_is_a_404(teacher_client):
    client, puzzle_set = teacher_client
    assert client.post(f"/teach/sets/{puzzle_set.pk}/corpus/", {"puzzle": ":"}).status_code == 404


# -- oversized and deeply nested PDN ------------------------------------------------------------------


def test_an_oversized_pdn_upload_is_refused_with_its_size_and_nothing_is_written(teacher_client):
    client, puzzle_set = teacher_client
    before = counts()
    data = b'[FEN "W:W22:B9"]\n\n22-18 *\n' * 40000  # about 1 MB
    response = client.post(
        f"/teach/sets/{puzzle_set.pk}/import/",
        {"file": SimpleUploadedFile("big.pdn", data), "goal": "capture"},
    )
    assert response.status_code == 400
    assert "at most 512 KB" in response.content.decode()
    assert counts() == before


def test_more_entries_than_allowed_are_refused(teacher_client):
    client, puzzle_set = teacher_client
    before = counts()
    data = b'[FEN "W:W22:B9"]\n\n*\n\n' * 300
    response = client.post(
        f"/teach/sets/{puzzle_set.pk}/import/",
        {"file": SimpleUploadedFile("many.pdn", data), "goal": "capture"},
    )
    assert response.status_code == 400
    assert "more than 200 entries" in response.content.decode()
    assert counts() == before


@pytest.mark.parametrize("depth", [50, 5000, 100_000])
def test_deeply_nested_variations_are_refused_cleanly(teacher_client, depth):
    client, puzzle_set = teacher_client
    nested = "(" * depth + "22-18" + ")" * depth
    data = f'[FEN "{CAPTURE["fen"]}"]\n\n1. 28x3 {nested} *\n'.encode()
    response = client.post(
        f"/teach/sets/{puzzle_set.pk}/import/",
        {"file": SimpleUploadedFile("deep.pdn", data), "goal": "capture"},
    )
    judge(response, what=depth)
    assert response.status_code in (200, 400)


# -- the square trainer and every-defence mastery (issue 51) -----------------------------------------


@pytest.fixture
def square_runs(client):
    """A run in each mode (names on 8x8, numbers on 10x10), started by this visitor."""
    urls = []
    for variant, notation, mode in (
        ("czech", "names", "name"),
        ("international", "numbers", "find"),
    ):
        response = client.post(
            f"/squares/{variant}/start", {"notation": notation, "side": "black", "mode": mode}
        )
        urls.append(response.url)
    return urls


@FUZZ
@given(answer=squares, route=routes, asked=numbers, htmx=st.booleans(), which=st.integers(0, 1))
def test_square_trainer_answer(client, square_runs, answer, route, asked, htmx, which):
    before = counts()
    data = {"answer": answer, "route": route, "asked": asked}
    response = client.post(f"{square_runs[which]}answer", data, **(HX if htmx else {}))
    judge(response, what=(answer, route, asked))
    if response.status_code >= 400:
        assert counts() == before


@FUZZ
@given(
    variant=st.sampled_from(["czech", "international", "brazilian", "chess"]),
    notation=st.one_of(st.sampled_from(["numbers", "names"]), st.text(max_size=8)),
    side=st.one_of(st.sampled_from(["white", "black"]), st.text(max_size=8)),
    mode=st.one_of(st.sampled_from(["find", "name"]), st.text(max_size=8)),
    pk=ids,
)
def test_square_trainer_settings_and_ids(client, variant, notation, side, mode, pk):
    data = {"notation": notation, "side": side, "mode": mode}
    for response in (
        client.post(f"/squares/{variant}/start", data),
        client.get(f"/squares/{variant}/", data),
        client.get(f"/squares/run/{pk}/"),
        client.post(f"/squares/run/{pk}/answer", {"asked": "1", "route": "1"}),
    ):
        judge(response, what=(variant, notation, side, mode, pk))


@pytest.fixture
def mastery_url(client, student):
    from django.urls import reverse

    from puzzles.models import Attempt, Mastery

    puzzle = make_puzzle("czech_two_defences")
    client.force_login(student)
    Attempt.objects.create(user=student, puzzle=puzzle, solved=True, position=puzzle.fen)
    client.get(reverse("puzzles:mastery", args=["czech", puzzle.pk]))
    mastery = Mastery.objects.get(user=student, puzzle=puzzle)
    return reverse("puzzles:mastery_move", args=[mastery.pk]), mastery


@FUZZ
@given(move=moves, route=routes, ply=numbers, htmx=st.booleans(), pk=ids)
def test_mastery_move(client, mastery_url, move, route, ply, htmx, pk):
    url, mastery = mastery_url
    before = counts()
    response = client.post(url, {"move": move, "route": route, "ply": ply}, **(HX if htmx else {}))
    judge(response, what=(move, route, ply))
    if response.status_code >= 400:
        assert counts() == before
    judge(client.post(f"/puzzles/mastery/{pk}/move", {"move": move, "ply": "0"}, **HX))
    judge(client.get(f"/puzzles/czech/{pk}/defences/"))
    type(mastery).objects.filter(pk=mastery.pk).update(line=[], position="")  # the start again
