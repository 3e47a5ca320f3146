"""Live lessons (issue 20): starting one, the teacher's board and actions, the students' answers
judged by the proof or the expected moves, one answer per student and question, the state a
reloading page or a late joiner sees, and the polling fallback. The WebSocket consumers are in
test_live_consumers.py, the permission matrix in test_live_permissions.py."""

from __future__ import annotations

import re

import pytest
from django.db import IntegrityError, transaction
from django.urls import reverse

from classroom.models import Classroom, PuzzleSet
from live.models import LiveAnswer, LiveParticipant, LiveSession, StepData
from tests.conftest import _make_user
from tests.puzzle_fixtures import make_puzzle

pytestmark = pytest.mark.django_db

#: White 22 and 27 against Black 13 and 9: quiet moves only (22-17, 22-18, 27-23, 27-24)
FREE = "W:W22,27:B13,9"
CAPTURE_ROUTE = "28,19,12,3"  # the czech_capture puzzle's only move: 28x19x12x3


@pytest.fixture
def classroom(teacher, student):
    classroom = Classroom.objects.create(name="Club", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    classroom.add_student(student)
    return classroom


@pytest.fixture
def second(classroom, django_user_model):
    user = _make_user(django_user_model, "sara")
    classroom.add_student(user)
    return user


@pytest.fixture
def puzzle_set(teacher):
    the_set = PuzzleSet.objects.create(owner=teacher, title="Shots", variant="czech")
    the_set.add(make_puzzle("czech_capture"))
    return the_set


@pytest.fixture
def live(classroom, teacher, puzzle_set):
    return LiveSession.start(
        classroom,
        teacher,
        [StepData(p.fen, "shot", puzzle=p) for p in puzzle_set.ordered_puzzles()]
        + [StepData(FREE, "free", expected=("22-18",))],
    )


def post(client, session, action, **data):
    return client.post(
        reverse("live:control", args=[session.pk]),
        {"action": action, **data},
        HTTP_HX_REQUEST="true",
    )


def answer(client, session, **data):
    return client.post(reverse("live:answer", args=[session.pk]), data, HTTP_HX_REQUEST="true")


def test_teacher_starts_a_live_lesson_on_a_puzzle_set_and_sees_its_first_position(
    client, teacher, classroom, puzzle_set
):
    client.force_login(teacher)
    response = client.post(
        reverse("live:start", args=[classroom.pk]), {"puzzle_set": puzzle_set.pk, "title": "Monday"}
    )
    session = LiveSession.objects.get()
    assert response.status_code == 302 and response.url == session.get_absolute_url()
    assert session.steps.count() == 1 and session.fen == puzzle_set.ordered_puzzles()[0].fen
    page = client.get(session.get_absolute_url()).content.decode()
    assert 'data-role="teacher"' in page and "live-results" in page and "Position 1 of 1" in page


def test_a_live_lesson_from_the_teachers_own_positions_keeps_the_expected_moves(
    client, teacher, classroom
):
    client.force_login(teacher)
    client.post(
        reverse("live:start", args=[classroom.pk]),
        {"positions": f"{FREE} | 22-18, 27-23\n\n{FREE}"},
    )
    steps = list(LiveSession.objects.get().steps.all())
    assert [s.expected for s in steps] == [["22-18", "27-23"], []]


def test_a_bad_position_or_expected_move_is_a_form_error_not_a_500(client, teacher, classroom):
    client.force_login(teacher)
    response = client.post(reverse("live:start", args=[classroom.pk]), {"positions": "W:W99:B1"})
    assert response.status_code == 400 and "Line 1" in response.content.decode()
    response = client.post(
        reverse("live:start", args=[classroom.pk]), {"positions": f"{FREE} | 22-15"}
    )
    assert response.status_code == 400 and "22-15" in response.content.decode()
    assert not LiveSession.objects.exists()


def test_an_empty_start_form_starts_from_the_starting_position(client, teacher, classroom):
    client.force_login(teacher)
    client.post(reverse("live:start", args=[classroom.pk]), {})
    session = LiveSession.objects.get()
    assert session.fen.startswith("W:W21,22,") and session.steps.count() == 1


def test_starting_again_ends_the_lesson_still_running(classroom, teacher, live):
    again = LiveSession.start(classroom, teacher, [])
    live.refresh_from_db()
    assert live.ended is not None and again.ended is None


def test_the_teachers_move_arrows_and_marks_are_on_the_shared_board(client, teacher, live):
    client.force_login(teacher)
    post(client, live, "goto", index=1)
    response = post(client, live, "play", move="22-18")
    assert response.status_code == 200
    live.refresh_from_db()
    assert live.last_move == {"route": [22, 18], "text": "22-18"}
    post(client, live, "draw", draw="13-17")
    post(client, live, "draw", draw="9")
    live.refresh_from_db()
    assert live.arrows == [[13, 17]] and live.marks == [9]
    post(client, live, "draw", draw="9")  # the same again takes it away
    live.refresh_from_db()
    assert live.marks == []
    response = post(client, live, "draw", draw="99-1")
    assert response.status_code == 400 and 'data-testid="live-error"' in response.content.decode()


def test_an_illegal_move_of_the_teacher_is_refused_with_the_rule(client, teacher, live):
    client.force_login(teacher)
    version = live.version
    response = post(client, live, "play", route="28,23")  # a capture is compulsory
    assert response.status_code == 400
    live.refresh_from_db()
    assert live.version == version


def test_a_puzzle_question_is_judged_by_the_proof_and_counted_once_per_student(
    client, teacher, student, second, live
):
    client.force_login(teacher)
    assert post(client, live, "ask").status_code == 200
    live.refresh_from_db()
    assert live.question == 1 and live.question_open and live.question_puzzle is not None
    client.force_login(student)
    # a capture entered landing by landing goes on, then is recorded
    response = answer(client, live, route="28,19")
    assert response.status_code == 200 and "live-board-widget" in response.content.decode()
    assert not LiveAnswer.objects.exists()
    response = answer(client, live, route=CAPTURE_ROUTE)
    assert response.status_code == 200 and response["HX-Retarget"] == "#live-stage"
    assert "Your answer: 28x3" in response.content.decode()
    # a second answer of the same student changes nothing
    response = answer(client, live, move="28x19x12x3")
    assert "Your answer: 28x3" in response.content.decode()
    assert LiveAnswer.objects.filter(student=student).count() == 1
    client.force_login(second)
    response = answer(client, live, move="32-27")  # legal? no: the capture is compulsory
    assert response.status_code == 400 and not LiveAnswer.objects.filter(student=second).exists()
    mine = LiveAnswer.objects.get(student=student)
    assert mine.correct is True and mine.question == 1


def test_a_free_position_is_judged_against_the_teachers_expected_moves(
    client, teacher, student, second, live
):
    client.force_login(teacher)
    post(client, live, "goto", index=1)
    post(client, live, "ask", expected="22-18 27-23")
    client.force_login(student)
    answer(client, live, move="27-23")
    client.force_login(second)
    answer(client, live, route="22,17")
    judged = dict(LiveAnswer.objects.values_list("student__username", "correct"))
    assert judged == {"standa": True, "sara": False}
    live.refresh_from_db()
    results = live.results()
    assert results["answered"] == 2 and results["right"] == 1
    assert {r["notation"]: r["count"] for r in results["counts"]} == {"27-23": 1, "22-17": 1}


def test_without_expected_moves_answers_are_counted_not_judged(client, teacher, student, live):
    client.force_login(teacher)
    post(client, live, "goto", index=1)
    live.steps.filter(position=1).update(expected=[])
    post(client, live, "ask")
    client.force_login(student)
    answer(client, live, move="22-17")
    assert LiveAnswer.objects.get().correct is None


def test_no_answer_is_taken_when_no_question_is_open(client, teacher, student, live):
    client.force_login(student)
    response = answer(client, live, route=CAPTURE_ROUTE)
    assert response.status_code == 409 and not LiveAnswer.objects.exists()


def test_one_answer_per_student_and_question_is_a_database_rule(live, student):
    LiveAnswer.objects.create(session=live, question=1, student=student, route="a", notation="a")
    with pytest.raises(IntegrityError), transaction.atomic():
        LiveAnswer.objects.create(
            session=live, question=1, student=student, route="b", notation="b"
        )


def test_reveal_replay_and_a_students_answer_on_the_board(client, teacher, student, live):
    client.force_login(teacher)
    post(client, live, "ask")
    client.force_login(student)
    answer(client, live, route=CAPTURE_ROUTE)
    client.force_login(teacher)
    response = post(client, live, "reveal")
    live.refresh_from_db()
    assert not live.question_open and live.revealed and live.arrows == [[28, 19, 12, 3]]
    assert 'data-testid="live-solution">28x3' in response.content.decode()
    post(client, live, "replay-next")
    live.refresh_from_db()
    assert live.replay_ply == 1 and live.last_move["route"][0] == 28
    post(client, live, "replay-start")
    live.refresh_from_db()
    assert live.replay_ply == 0 and live.fen == live.question_fen
    mine = LiveAnswer.objects.get()
    response = post(client, live, "show", answer=str(mine.pk))
    live.refresh_from_db()
    assert live.shown_id == mine.pk and live.arrows and live.arrows[0][0] == 28
    assert "standa" in response.content.decode()
    # the students see the move, not the name
    client.force_login(student)
    page = client.get(reverse("live:state", args=[live.pk])).content.decode()
    shown = page.split('data-testid="live-shown">')[1].split("</p>")[0]
    assert "a student's answer, 28x3" in shown and "standa" not in shown


def test_a_reloaded_page_and_a_late_joiner_see_the_lesson_as_it_stands(
    client, teacher, student, second, live
):
    client.force_login(teacher)
    post(client, live, "goto", index=1)
    post(client, live, "play", move="22-18")
    post(client, live, "ask", expected="13-17")
    client.force_login(second)  # joins now
    page = client.get(live.get_absolute_url()).content.decode()
    assert 'data-open="1"' in page and "last move 22-18" in page and 'id="live-move"' in page
    # the teacher reloads: the question is still open, the answers panel still there
    client.force_login(teacher)
    page = client.get(live.get_absolute_url()).content.decode()
    assert "Question open." in page and "live-results" in page


def test_the_state_url_answers_204_when_the_page_is_up_to_date(client, student, teacher, live):
    client.force_login(student)
    url = reverse("live:state", args=[live.pk])
    assert client.get(url, {"since": live.version}).status_code == 204
    live.go_to(1)
    response = client.get(url, {"since": live.version - 1})
    assert (
        response.status_code == 200
        and f'data-version="{live.version}"' in response.content.decode()
    )


@pytest.mark.parametrize("number", ["²", "9" * 5000, "١", "-1"])
def test_a_version_index_or_answer_that_is_not_a_number_is_refused_not_a_500(
    client, teacher, live, number
):
    client.force_login(teacher)
    response = client.get(reverse("live:state", args=[live.pk]), {"since": number})
    assert response.status_code == 200 and 'id="live-stage"' in response.content.decode()
    response = post(client, live, "goto", index=number)
    assert response.status_code == 400
    assert "There is no such position in this lesson." in response.content.decode()
    response = post(client, live, "show", answer=number)
    assert response.status_code == 400
    assert "There is no such answer to this question." in response.content.decode()
    live.refresh_from_db()
    assert live.index == 0 and live.version == 1


def test_a_student_who_answered_sees_their_answer_after_polling(client, teacher, student, live):
    live.ask()
    client.force_login(student)
    answer(client, live, route=CAPTURE_ROUTE)
    page = client.get(reverse("live:state", args=[live.pk])).content.decode()
    assert 'data-testid="live-mine"' in page and 'id="live-move"' not in page


def test_students_see_join_the_live_lesson_in_my_classes_and_on_the_dashboard(
    client, student, outsider, live
):
    client.force_login(student)
    for url in (reverse("classroom:my_classes"), reverse("puzzles:dashboard", args=["czech"])):
        page = client.get(url).content.decode()
        assert live.get_absolute_url() in page and "Join the live lesson" in page, url
    client.force_login(outsider)
    assert (
        live.get_absolute_url() not in client.get(reverse("classroom:my_classes")).content.decode()
    )
    live.end()
    client.force_login(student)
    assert (
        live.get_absolute_url() not in client.get(reverse("classroom:my_classes")).content.decode()
    )


def test_the_title_typed_on_the_start_form_heads_the_lesson_and_the_students_link(
    client, teacher, student, classroom
):
    client.force_login(teacher)
    client.post(reverse("live:start", args=[classroom.pk]), {"title": "Shots on Monday"})
    session = LiveSession.objects.get()
    for user in (teacher, student):
        client.force_login(user)
        page = client.get(session.get_absolute_url()).content.decode()
        assert re.search(r'<h1 data-testid="live-title">Shots on Monday</h1>', page), user
        assert "<title>Shots on Monday" in page and "Live lesson of Club" in page
    for url in (reverse("classroom:my_classes"), reverse("puzzles:dashboard", args=["czech"])):
        join = re.search(r'data-testid="live-join">(.*?)</p>', client.get(url).content.decode())
        assert "Shots on Monday" in join.group(1) and "Club" in join.group(1), url


def test_a_lesson_without_a_title_is_headed_by_its_class(client, student, live):
    client.force_login(student)
    page = client.get(live.get_absolute_url()).content.decode()
    assert re.search(r'<h1 data-testid="live-title">Live lesson of Club</h1>', page)


def test_a_position_without_a_title_of_its_own_is_not_named_twice(client, teacher, classroom):
    client.force_login(teacher)
    client.post(reverse("live:start", args=[classroom.pk]), {"positions": f"{FREE}\n{FREE}"})
    session = LiveSession.objects.get()
    page = client.get(session.get_absolute_url()).content.decode()
    step = re.search(r'data-testid="live-step">(.*?)</p>', page).group(1)
    assert step == "Position 1 of 2"


def primary(page: str) -> str:
    """The teacher's one primary action: the data-testid of the button marked data-primary."""
    buttons = re.findall(r"<button[^>]*data-primary[^>]*>", page)
    assert len(buttons) == 1, buttons
    return re.search(r'data-testid="([\w-]+)"', buttons[0]).group(1)


def test_the_teacher_has_one_primary_action_that_follows_the_lesson(client, teacher, student, live):
    client.force_login(teacher)
    state = reverse("live:state", args=[live.pk])
    assert primary(client.get(live.get_absolute_url()).content.decode()) == "live-ask"
    assert primary(post(client, live, "ask").content.decode()) == "live-close"
    assert primary(post(client, live, "close").content.decode()) == "live-reveal"
    assert primary(post(client, live, "reveal").content.decode()) == "live-go-next"
    page = post(client, live, "goto", index="1").content.decode()  # the last position
    assert primary(page) == "live-ask"
    post(client, live, "ask")
    post(client, live, "reveal")
    assert primary(client.get(state).content.decode()) == "live-ask"  # no position after it


def test_the_teachers_other_actions_are_grouped_in_details(client, teacher, live):
    client.force_login(teacher)
    page = client.get(live.get_absolute_url()).content.decode()
    start = page.index('data-testid="live-more"')
    more = page[start : page.index("</details>", start)]
    for name in ("goto", "keep", "end"):
        assert f'value="{name}"' in more, name
    drawing = page[page.index('data-testid="live-drawing"') :]
    assert 'id="live-draw"' in drawing and 'value="clear"' in drawing
    # outside the groups: the positions, the board's move and the one primary action
    rest = page[page.index('id="live-stage"') : start]
    buttons = [b for b in re.findall(r"<button[^>]*>", rest) if "data-board-flip" not in b]
    assert len(buttons) == 4  # previous, next, the board's play, ask
    assert (
        "<summary>More actions</summary>" in page and "<summary>Draw on the board</summary>" in page
    )


def test_the_next_action_follows_the_state_of_the_lesson():
    import doctest

    import live.models

    assert doctest.testmod(live.models, optionflags=doctest.ELLIPSIS).failed == 0


def test_participants_keep_one_row_across_reconnects(live, student):
    assert LiveParticipant.connect(live.pk, student, "socket-1")
    LiveParticipant.disconnect(live.pk, student, "socket-1")
    assert LiveParticipant.connect(live.pk, student, "socket-2")
    row = LiveParticipant.objects.get()
    assert row.connected == 1 and live.results()["present"] == 1


def test_the_lesson_page_speaks_czech(client, student, live):
    client.force_login(student)
    client.cookies["django_language"] = "cs"
    page = client.get(live.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="cs").content.decode()
    assert 'lang="cs"' in page and "Sleduj" in page


def test_a_live_lesson_from_a_lessons_steps_asks_with_the_lessons_answers(
    client, teacher, student, classroom
):
    from live.forms import lesson_choices

    slug = lesson_choices("czech")[0][0]
    client.force_login(teacher)
    client.post(reverse("live:start", args=[classroom.pk]), {"lesson": slug})
    session = LiveSession.objects.get()
    first = session.steps.get(position=0)
    assert first.fen == "W:W21-32:B1-12" or first.fen.startswith("W:W21,22,")
    assert "22-18" in first.expected and len(first.expected) == 7
    post(client, session, "ask")
    client.force_login(student)
    answer(client, session, move="22-18")
    assert LiveAnswer.objects.get().correct is True


def test_without_htmx_an_answer_and_an_action_lead_back_to_the_lesson_page(
    client, teacher, student, live
):
    client.force_login(teacher)
    response = client.post(reverse("live:control", args=[live.pk]), {"action": "ask"})
    assert response.status_code == 302 and response.url == live.get_absolute_url()
    client.force_login(student)
    response = client.post(reverse("live:answer", args=[live.pk]), {"move": "nonsense"})
    assert response.status_code == 400 and "not a move" in response.content.decode()
    response = client.post(reverse("live:answer", args=[live.pk]), {"move": "28x3"})
    assert response.status_code == 302 and LiveAnswer.objects.get().correct is True
