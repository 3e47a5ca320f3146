"""Learn: course picker, course maps, steps of every exercise kind judged on the server, progress.

The course content is the real one (``fixtures/lessons/*.yaml``); the steps named here are its
first steps and a few steps per exercise kind. Anonymous visitors use the test client's session;
``student`` (from ``tests/conftest.py``) is a learner with an account.
"""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse
from django.utils import timezone

from core import progress as core_progress
from core.board import svg_lang
from lessons.course import COURSE_FILES, get_course
from lessons.models import StepProgress, stars_for
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

CZECH_FIRST = ("czech", "czech-board", "cz-board-main-diagonal")  # click_square, answer 4 (h8)
CZECH_SECOND = ("czech", "czech-board", "cz-board-orientation")
MAN_FORWARD = ("czech", "czech-men", "cz-man-forward")  # move: 22-17 or 22-18
CAPTURE_COMPULSORY = ("czech", "czech-capture", "cz-capture-compulsory")  # choose_move
MULTI_CAPTURE = ("czech", "czech-multi", "cz-multi-capture")  # capture_route 30x23x16x7
FREE_CHOICE = ("czech", "czech-multi", "cz-free-choice")  # select_captures 21x7, 24x6
NEW_KING_WAITS = ("czech", "czech-king", "cz-new-king-waits")  # what_if after 7-3 12-16: 3-21
TURKISH_STRIKE = ("czech", "czech-multi", "cz-turkish-strike")
BRAZILIAN_MULTI = ("brazilian", "brazilian-multi", "br-multi-capture")  # c5xe7xg5xe3


def step_url(course: str, lesson: str, step: str, action: str = "step") -> str:
    return reverse(f"lessons:{action}", args=[course, lesson, step])


def check(client, where, htmx=True, **data):
    extra = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    return client.post(step_url(*where, action="check"), data, **extra)


def feedback_of(html: str) -> str:
    """The text of the aria-live feedback region (the out-of-band part of an htmx answer)."""
    match = re.search(r'<div id="lesson-feedback"[^>]*>(.*?)</div>', html, re.S)
    assert match, "the answer must fill the aria-live feedback region"
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", match.group(1))).split())


def states_of(html: str) -> dict[str, str]:
    return dict(re.findall(r'data-step="([a-z0-9-]+)" data-state="(\w+)"', html))


def complete(user, course: str, *slugs: str, stars: int = 3) -> None:
    for slug in slugs:
        StepProgress.objects.create(
            user=user,
            course=course,
            step=slug,
            stars=stars,
            attempts=1,
            completed_at=timezone.now(),
        )


def complete_before(user, where) -> None:
    """Mark every step before ``where`` done for ``user`` (so that ``where`` is the next one)."""
    course = get_course(where[0])
    target = course.step(where[1], where[2])
    complete(user, where[0], *(s.slug for s in course.steps[: target.index]))


def row(user, where) -> StepProgress:
    return StepProgress.objects.get(user=user, course=where[0], step=where[2])


# -- the course picker and the course maps ------------------------------------------------------------
def test_a_new_visitor_picks_a_course_on_the_learn_page(client):
    html = client.get("/learn/").content.decode()
    for slug in COURSE_FILES:
        assert f'href="/learn/{slug}/"' in html
    assert "Three variants side by side" in html


def test_a_visitor_who_chose_a_variant_goes_straight_to_its_course(client):
    client.get("/?variant=international")
    response = client.get("/learn/")
    assert response.status_code == 302
    assert response["Location"] == "/learn/international/"


def test_course_map_opens_every_step_and_recommends_the_first_to_a_newcomer(client):
    html = client.get("/learn/czech/").content.decode()
    states = states_of(html)
    assert len(states) == len(get_course("czech").steps)
    assert states["cz-board-main-diagonal"] == "next"
    assert set(list(states.values())[1:]) == {"open"}
    for step in get_course("czech").steps:  # every step is a link
        assert f'href="{step.get_absolute_url()}"' in html
    assert re.search(rf'href="{step_url(*CZECH_FIRST)}" aria-current="step"', html)
    assert "Start the course" in html


def test_course_map_shows_done_steps_with_stars_and_resumes_at_the_next(client, student):
    complete(student, "czech", "cz-board-main-diagonal", stars=3)
    complete(student, "czech", "cz-board-orientation", stars=1)
    client.force_login(student)
    html = client.get("/learn/czech/").content.decode()
    states = states_of(html)
    assert states["cz-board-main-diagonal"] == "done"
    assert states["cz-board-orientation"] == "done"
    assert states["cz-square-names-letters"] == "next"
    assert states["cz-square-numbers"] == "open"
    assert 'aria-label="3 stars of 3"' in html and 'aria-label="1 star of 3"' in html
    resume = re.search(r'data-testid="resume" href="([^"]+)"', html).group(1)
    assert resume == step_url("czech", "czech-board", "cz-square-names-letters")
    assert "Resume where you stopped" in html
    assert "2 of 37 steps done · 4 of 111 stars" in html


def test_the_comparison_course_has_its_own_map(client):
    response = client.get("/learn/comparison/")
    assert response.status_code == 200
    assert states_of(response.content.decode())["cmp-start-position"] == "next"


def test_unknown_course_and_unknown_step_are_404(client):
    assert client.get("/learn/checkers/").status_code == 404
    assert client.get("/learn/czech/czech-board/no-such-step/").status_code == 404


def test_variant_switcher_on_a_step_page_leads_to_the_other_course(client):
    html = client.get(step_url(*CZECH_FIRST)).content.decode()
    other = reverse("lessons:step", args=["international", "czech-board", "cz-board-main-diagonal"])
    assert f'href="{other}"' in html
    response = client.get(other)
    assert response.status_code == 302
    assert response["Location"] == "/learn/international/"


# -- every step open, and the test-out of a lesson -----------------------------------------------------
def test_a_learner_who_knows_the_basics_opens_a_step_on_kings_and_answers_it(client):
    response = client.get(step_url(*NEW_KING_WAITS))
    assert response.status_code == 200 and "is still locked" not in response.content.decode()
    response = check(client, CAPTURE_COMPULSORY, answer="this is no move")
    assert response.status_code == 400  # judged, not refused as locked
    html = check(client, MAN_FORWARD, answer="22-18").content.decode()
    assert "You earned 3 stars." in feedback_of(html)
    states = states_of(client.get("/learn/czech/").content.decode())
    assert states["cz-man-forward"] == "done"
    assert states["cz-board-main-diagonal"] == "next"  # the first step not done yet


KING = ("czech", "czech-king")


def url_of_test_out(lesson, action="test_out"):
    return reverse(f"lessons:{action}", args=list(lesson))


def answer_in_test_out(client, lesson, text):
    return client.post(
        url_of_test_out(lesson, "test_out_check"), {"answer": text}, HTTP_HX_REQUEST="true"
    )


def right_answer(step) -> str:
    ex = step.exercise
    return ",".join(ex.answers) if ex.kind == "select_captures" else ex.answers[0]


def test_a_lesson_is_tested_out_by_its_last_exercises_in_a_row(client, student):
    from lessons.progress import test_out_steps

    client.force_login(student)
    lesson = get_course("czech").lessons[4]  # the kings: 7 steps
    assert lesson.slug == KING[1]
    course_map = client.get("/learn/czech/").content.decode()
    assert f'href="{url_of_test_out(KING)}"' in course_map
    html = client.get(url_of_test_out(KING)).content.decode()
    assert "Start the test-out" in html and "last 2 exercises in a row" in html
    response = client.post(url_of_test_out(KING, "test_out_start"))
    assert response.status_code == 302 and response.url == url_of_test_out(KING)
    last, final = test_out_steps(lesson)
    assert [last, final] == lesson.steps[-2:]
    html = client.get(url_of_test_out(KING)).content.decode()
    assert "Exercise 1 of 2" in html and str(last.exercise.prompt) in html
    html = answer_in_test_out(client, KING, right_answer(last)).content.decode()
    assert "On to the next exercise." in html and "Exercise 2 of 2" in html
    html = answer_in_test_out(client, KING, right_answer(final)).content.decode()
    assert "You have tested out of this lesson." in html
    # recorded: the two exercises done (answered right), the five steps before them tested out
    rows = {r.step: r for r in StepProgress.objects.filter(user=student, course="czech")}
    assert {rows[last.slug].stars, rows[final.slug].stars} == {3}
    for step in lesson.steps[:-2]:
        row = rows[step.slug]
        assert (row.stars, row.completed_at) == (0, None) and row.tested_out_at is not None
    states = states_of(client.get("/learn/czech/").content.decode())
    assert [states[s.slug] for s in lesson.steps] == ["tested"] * 5 + ["done"] * 2
    assert states["cz-board-main-diagonal"] == "next"  # the earlier lessons are still to do
    html = client.get("/learn/czech/").content.decode()
    assert "5 steps tested out" in html and "2 of 37 steps done" in html
    assert f'href="{url_of_test_out(KING)}"' not in html  # passed: no test-out to offer
    # a tested-out step can still be done, for stars
    first = lesson.steps[0]
    page = client.get(first.get_absolute_url()).content.decode()
    assert 'data-testid="step-tested-out"' in page


def test_a_wrong_answer_ends_the_test_out_and_marks_nothing(client):
    from lessons.progress import test_out_steps

    lesson = get_course("czech").lessons[4]
    client.post(url_of_test_out(KING, "test_out_start"))
    last = test_out_steps(lesson)[0]
    wrong = (
        next(w.move for w in last.exercise.wrong if w.move)
        if last.exercise.wrong_moves
        else "22-26"
    )
    html = answer_in_test_out(client, KING, wrong).content.decode()
    assert "Not this time: the test-out is over." in html
    assert "Try the test-out again" in html
    states = states_of(client.get("/learn/czech/").content.decode())
    assert "tested" not in states.values()
    # an answer after the test-out ended is not taken for one
    response = answer_in_test_out(client, KING, right_answer(last))
    assert response.status_code == 409
    # and it can be taken again
    client.post(url_of_test_out(KING, "test_out_start"))
    assert "Exercise 1 of 2" in client.get(url_of_test_out(KING)).content.decode()


def test_a_visitors_tested_out_steps_move_to_the_account_at_login(client, student):
    lesson = get_course("czech").lessons[1]  # the men: 4 steps
    where = ("czech", lesson.slug)
    client.post(url_of_test_out(where, "test_out_start"))
    for step in lesson.steps[-2:]:
        answer_in_test_out(client, where, right_answer(step))
    client.post("/accounts/login/", {"username": "standa", "password": PASSWORD})
    rows = {r.step: r for r in StepProgress.objects.filter(user=student)}
    assert all(rows[s.slug].is_tested_out for s in lesson.steps[:2])
    assert all(rows[s.slug].stars == 3 for s in lesson.steps[2:])


def test_a_lesson_with_no_more_steps_than_its_test_has_no_test_out(client):
    short = next(ls for ls in get_course("international").lessons if len(ls.steps) == 2)
    response = client.get(url_of_test_out(("international", short.slug)))
    assert response.status_code == 404
    assert (
        client.post(url_of_test_out(("international", short.slug), "test_out_start")).status_code
        == 404
    )


# -- the step page -------------------------------------------------------------------------------------
def test_step_page_shows_text_articles_board_and_an_answer_field(client):
    html = client.get(step_url(*CZECH_FIRST)).content.decode()
    assert "We play on the dark squares" in html
    assert "CUD 2006 art. 2.1" in html
    assert 'data-board data-mode="square"' in html
    assert 'data-square="4"' in html
    assert 'name="answer"' in html and 'role="status" aria-live="polite"' in html
    assert "Step 1 of 37" in html
    assert 'data-testid="next-step"' not in html  # not done yet


@pytest.mark.parametrize("cname", COURSE_FILES)
def test_no_answer_is_in_the_page_before_the_learner_asks(client, cname):
    """Hints, solutions, wrong-answer feedback and the expected moves stay on the server."""
    course = get_course(cname)
    for step in course.steps:
        html = unescape(client.get(step.get_absolute_url()).content.decode())
        ex = step.exercise
        assert "data-moves" not in html, step.slug
        for text in [ex.hint, ex.solution, *(w.feedback for w in ex.wrong)]:
            if text is not None:
                assert text.en not in html, f"{step.slug}: {text.en!r} is in the page"
        if ex.mode == "square" or ex.kind in ("choose_move", "better_move"):
            continue  # squares are on the board and options on the buttons by necessity
        shown = str(step.text) + str(ex.prompt) + " ".join(f"{a}-{b}" for a, b in step.arrows)
        shown += " ".join(ex.after)
        for answer in ex.answers:
            if answer not in shown:
                assert not re.search(rf"(?<![\w-]){re.escape(answer)}(?![\w-])", html), (
                    f"{step.slug}: the answer {answer} is in the page"
                )
        if step.compare:
            assert "Legal moves" not in html


@pytest.mark.parametrize("cname", COURSE_FILES)
def test_every_step_renders_in_czech_too(client, cname):
    client.post("/language", {"language": "cs"})
    for step in get_course(cname).steps:
        response = client.get(step.get_absolute_url())
        assert response.status_code == 200, step.slug
        html = response.content.decode()
        assert step.title.cs in html and step.exercise.prompt.cs.split("\n")[0][:40] in html


# -- answers, kind by kind -----------------------------------------------------------------------------
def test_click_square_right_by_click_earns_three_stars_and_leads_to_the_next_step(client):
    response = check(client, CZECH_FIRST, route="4")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" not in html  # the htmx partial
    assert 'hx-swap-oob="innerHTML"' in html
    text = feedback_of(html)
    assert "Right: h8 (4)." in text and "You earned 3 stars." in text
    assert f'href="{step_url(*CZECH_SECOND)}" data-testid="next-step"' in html
    data = core_progress.session_data(client, "lessons")
    assert data["czech/cz-board-main-diagonal"]["stars"] == 3
    assert states_of(client.get("/learn/czech/").content.decode())["cz-board-orientation"] == "next"


def test_click_square_typed_name_or_number_is_accepted(client):
    assert "Right: h8 (4)." in feedback_of(check(client, CZECH_FIRST, answer="h8").content.decode())


def test_click_square_wrong_square_gets_the_steps_feedback(client):
    html = check(client, CZECH_FIRST, answer="3").content.decode()
    assert "f8 is dark, but it is not on the main diagonal" in feedback_of(html)


def test_click_square_other_wrong_square_names_the_square(client):
    html = check(client, CZECH_FIRST, route="22").content.decode()
    assert "You chose c3 (22); that is not the square asked for." in feedback_of(html)


def test_move_right_by_clicked_route(client, student):
    complete_before(student, MAN_FORWARD)
    client.force_login(student)
    html = check(client, MAN_FORWARD, route="22,18").content.decode()
    assert "Right: 22-18." in feedback_of(html)
    assert 'data-fen="B:W18:B4"' in html  # the board after the move
    assert row(student, MAN_FORWARD).stars == 3


def test_move_illegal_is_explained_by_the_engine_with_its_article(client, student):
    complete_before(student, MAN_FORWARD)
    client.force_login(student)
    html = check(client, MAN_FORWARD, answer="22-26").content.decode()
    text = feedback_of(html)
    assert "That move is not allowed." in text
    assert "A man moves only forward" in text or "only forward" in text
    assert "Rule: CUD 2006 art. 3.4" in text
    # the man is marked as the piece that moved, 26 as where the move goes wrong, with a legend
    assert 'class="square dark highlight" data-square="22"' in html
    assert 'class="square dark wrong" data-square="26"' in html
    assert "where the move goes wrong" in html
    assert row(student, MAN_FORWARD).attempts == 1
    assert row(student, MAN_FORWARD).stars == 0


def test_move_illegal_by_click_is_explained_too(client, student):
    complete_before(student, MAN_FORWARD)
    client.force_login(student)
    text = feedback_of(check(client, MAN_FORWARD, route="22,15").content.decode())
    assert "22 to 15 is more than one square" in text
    assert "CUD 2006 art. 3.4" in text


def test_legal_but_wrong_move_gets_the_steps_feedback(client, student):
    client.force_login(student)
    where = ("czech", "czech-king", "cz-king-moves")
    text = feedback_of(check(client, where, answer="29-15").content.decode())
    assert "A good move, but the corner is further on." in text
    assert row(student, where).attempts == 1


def test_legal_but_wrong_move_without_feedback_says_so_and_gives_the_hint(client):
    text = feedback_of(
        check(client, ("czech", "czech-king", "cz-king-moves"), answer="29-25").content.decode()
    )
    assert "29-25 is a legal move, but not the one asked for." in text
    assert "Hint:" in text


def test_the_strategy_course_is_linked_from_the_course_map_after_the_combinations(client):
    html = client.get(reverse("lessons:course", args=["czech"])).content.decode()
    combinations = html.index('data-testid="combinations-course"')
    strategy = html.index('data-testid="strategy-course"')
    assert combinations < strategy
    assert get_course("strategy-czech").get_absolute_url() in html[strategy:]


def test_a_better_move_step_offers_its_options_and_judges_each(client):
    step = next(s for s in get_course("strategy-czech").steps if s.exercise.kind == "better_move")
    ex = step.exercise
    where = ("strategy-czech", step.lesson.slug, step.slug)
    html = client.get(step.get_absolute_url()).content.decode()
    assert "Which of these moves is better?" in html and "Source:" in html
    for option in ex.options:
        assert f'name="choice" value="{option}"' in html
    weaker = ex.wrong[0]
    text = feedback_of(check(client, where, choice=weaker.move).content.decode())
    assert "Not this one." in text and weaker.feedback.en.split(" comes ")[0] in text
    text = feedback_of(check(client, where, choice=ex.answers[0]).content.decode())
    assert f"Right: {ex.answers[0]}." in text and "You earned 2 stars." in text
    assert ex.solution.en.split(" comes ")[0] in text  # why it is better: the engine's line


def test_choose_move_illegal_option_is_explained_and_the_legal_one_is_right(client):
    html = check(client, CAPTURE_COMPULSORY, choice="22-17").content.decode()
    text = feedback_of(html)
    assert "Capturing is compulsory" in text and "CUD 2006 art. 4.1" in text
    html = check(client, CAPTURE_COMPULSORY, choice="22x15").content.decode()
    assert "Right: 22x15." in feedback_of(html)
    assert "You earned 2 stars." in feedback_of(html)


def test_capture_route_goes_on_landing_by_landing_then_is_right(client, student):
    complete_before(student, MULTI_CAPTURE)
    client.force_login(student)
    html = check(client, MULTI_CAPTURE, route="30,23").content.decode()
    assert "Landed on 23. The capture goes on" in feedback_of(html)
    assert 'data-path="30,23"' in html
    html = check(client, MULTI_CAPTURE, route="30,23,16").content.decode()
    assert 'data-path="30,23,16"' in html
    assert not StepProgress.objects.filter(step=MULTI_CAPTURE[2]).exists()  # landings: no answer
    html = check(client, MULTI_CAPTURE, route="30,23,16,7").content.decode()
    assert "Right: 30x23x16x7." in feedback_of(html)
    assert row(student, MULTI_CAPTURE).stars == 3


def test_capture_route_stopped_early_is_explained(client):
    text = feedback_of(check(client, MULTI_CAPTURE, answer="30x23").content.decode())
    assert "The capture is not finished" in text and "CUD 2006 art. 4.5" in text


def test_capture_route_with_two_accepted_routes_and_a_legal_wrong_one(client):
    text = feedback_of(check(client, TURKISH_STRIKE, answer="30x19x1").content.decode())
    assert "it takes only two men" in text
    text = feedback_of(check(client, TURKISH_STRIKE, answer="30x21x14x7x16x30").content.decode())
    assert "Right: 30x21x14x7x16x30." in text


def test_brazilian_capture_route_in_algebraic_notation(client):
    html = check(client, BRAZILIAN_MULTI, route="14,7").content.decode()
    assert "Landed on e7. The capture goes on" in feedback_of(html)
    text = feedback_of(check(client, BRAZILIAN_MULTI, answer="c5xe7xg5xe3").content.decode())
    assert "Right: c5xe7xg5xe3." in text


def test_select_captures_clicked_capture_is_added_to_the_selection(client):
    html = check(client, FREE_CHOICE, route="21,14,7", answer="").content.decode()
    assert "21x7 is in your selection" in feedback_of(html)
    assert 'value="21x7"' in html
    html = check(client, FREE_CHOICE, route="24,15,6", answer="21x7").content.decode()
    assert 'value="21x7, 24x6"' in html


def test_select_captures_partial_then_complete_selection(client, student):
    client.force_login(student)
    text = feedback_of(check(client, FREE_CHOICE, answer="21x7").content.decode())
    assert "You found 1 capture, but there are more." in text
    text = feedback_of(check(client, FREE_CHOICE, answer="24x6, 21x7").content.decode())
    assert "Right: 24x6, 21x7." in text or "Right: 21x7, 24x6." in text
    assert row(student, FREE_CHOICE).stars == 2


def test_select_captures_unfinished_capture_is_explained(client):
    text = feedback_of(check(client, FREE_CHOICE, answer="21x14").content.decode())
    assert "The capture is not finished" in text and "CUD 2006 art. 4.5" in text


def test_what_if_is_asked_after_the_given_moves(client):
    html = client.get(step_url(*NEW_KING_WAITS)).content.decode()
    assert 'data-fen="W:WK3:B16"' in html  # after 7-3 and 12-16
    assert "7-3, 12-16" in html
    text = feedback_of(check(client, NEW_KING_WAITS, answer="3-7").content.decode())
    assert "the king can fly much further" in text
    text = feedback_of(check(client, NEW_KING_WAITS, route="3,21").content.decode())
    assert "Right: 3-21." in text


def test_an_answer_that_ends_the_game_shows_the_outcome(client):
    where = ("czech", "czech-end", "cz-win-capture-all")
    text = feedback_of(check(client, where, answer="30x16").content.decode())
    assert "Black has no pieces left and loses." in text


# -- bad input ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "where, data, message",
    [
        (CZECH_FIRST, {"answer": "z9"}, "is not a dark square of this board"),
        (CZECH_FIRST, {"answer": "99"}, "is not a dark square of this board"),
        (CZECH_FIRST, {"answer": ""}, "Type the square"),
        (CZECH_FIRST, {"route": "1,x"}, "The clicked route is not valid."),
        (MAN_FORWARD, {"answer": "hello"}, "is not a move"),
        (MAN_FORWARD, {"answer": "22-99"}, "There is no square 99"),
        (MAN_FORWARD, {"answer": "2" * 300}, "too long"),
        (MAN_FORWARD, {"route": "99,100"}, "The clicked route is not valid."),
        (FREE_CHOICE, {"answer": "21x7, nonsense"}, "is not a move"),
    ],
)
def test_bad_input_is_a_clear_400_in_the_partial_and_no_attempt(client, where, data, message):
    response = check(client, where, **data)
    assert response.status_code == 400
    assert message in feedback_of(response.content.decode())
    assert core_progress.session_data(client, "lessons") == {}


def test_without_htmx_the_same_answer_returns_the_whole_page(client):
    response = check(client, CZECH_FIRST, htmx=False, answer="3")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" in html and "hx-swap-oob" not in html
    assert "f8 is dark, but it is not on the main diagonal" in feedback_of(html)


# -- hint, answer, retry, stars ---------------------------------------------------------------------------
def test_hint_is_shown_on_request_and_costs_a_star(client):
    response = client.post(step_url(*CZECH_FIRST, action="hint"), HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert "Follow the marked squares up and to the right" in feedback_of(html)
    assert 'data-testid="hint"' in html
    assert "You earned 2 stars." in feedback_of(
        check(client, CZECH_FIRST, route="4").content.decode()
    )


def test_show_answer_reveals_it_and_leaves_one_star(client):
    html = client.post(step_url(*CZECH_FIRST, action="solution")).content.decode()
    assert "<html" in html
    assert "It is h8 (number 4) in the top right corner." in html
    assert "The answer: h8 (4)" in feedback_of(html)
    assert 'class="square dark good"' in html
    assert "You earned 1 star." in feedback_of(
        check(client, CZECH_FIRST, route="4").content.decode()
    )


def test_show_answer_of_a_move_draws_it(client):
    html = client.post(step_url(*MULTI_CAPTURE, action="solution")).content.decode()
    assert "The answer: 30x23x16x7" in feedback_of(html)
    assert 'data-route="30x23x16x7"' in html or 'data-route="30-23-16-7"' in html


@pytest.mark.parametrize(
    "wrong_answers, hint, stars",
    [(0, False, 3), (1, False, 2), (0, True, 2), (2, False, 1), (1, True, 1)],
)
def test_stars_count_retries_and_hints(client, wrong_answers, hint, stars):
    for _ in range(wrong_answers):
        check(client, CZECH_FIRST, answer="3")
    if hint:
        client.post(step_url(*CZECH_FIRST, action="hint"))
    check(client, CZECH_FIRST, answer="4")
    assert (
        core_progress.session_data(client, "lessons")["czech/cz-board-main-diagonal"]["stars"]
        == stars
    )


def test_stars_rule():
    assert [stars_for(1, 0, False), stars_for(2, 0, False), stars_for(1, 1, False)] == [3, 2, 2]
    assert [stars_for(3, 0, False), stars_for(2, 1, False), stars_for(1, 0, True)] == [1, 1, 1]


def test_a_done_step_keeps_its_stars_when_answered_again(client, student):
    client.force_login(student)
    check(client, CZECH_FIRST, answer="4")
    check(client, CZECH_FIRST, answer="3")
    check(client, CZECH_FIRST, answer="4")
    assert (row(student, CZECH_FIRST).stars, row(student, CZECH_FIRST).attempts) == (3, 1)
    html = client.get(step_url(*CZECH_FIRST)).content.decode()
    assert 'data-testid="step-done"' in html and 'data-testid="next-step"' in html


def test_retry_resets_the_board_in_the_partial(client):
    check(client, MULTI_CAPTURE, route="30,23")
    response = client.get(step_url(*MULTI_CAPTURE), HTTP_HX_REQUEST="true")
    html = response.content.decode()
    assert "<html" not in html
    assert 'data-path=""' in html
    assert "The board is reset. Try again." in feedback_of(html)


# -- comparison ---------------------------------------------------------------------------------------
def test_comparison_step_shows_three_boards_and_the_moves_once_answered(client):
    where = ("comparison", "comparison-men", "cmp-start-position")
    html = client.get(step_url(*where)).content.decode()
    assert html.count('class="diagram compare-board"') == 3
    assert "Legal moves" not in html
    html = check(client, where, answer="22-18").content.decode()
    assert "Right: 22-18." in feedback_of(html)
    assert "Legal moves" in html and "31-26, 31-27" in html


# -- progress for anonymous visitors and accounts ------------------------------------------------------
def test_anonymous_progress_moves_to_the_account_at_login(client, student):
    check(client, CZECH_FIRST, answer="4")
    client.post(step_url(*CZECH_SECOND, action="hint"))
    response = client.post(reverse("login"), {"username": "standa", "password": PASSWORD})
    assert response.status_code == 302
    assert row(student, CZECH_FIRST).stars == 3
    assert row(student, CZECH_SECOND).hints_used == 1 and row(student, CZECH_SECOND).stars == 0
    assert core_progress.session_data(client, "lessons") == {}
    states = states_of(client.get("/learn/czech/").content.decode())
    assert states["cz-board-main-diagonal"] == "done" and states["cz-board-orientation"] == "next"


def test_hand_over_keeps_the_better_of_session_and_account(client, student):
    complete(student, "czech", "cz-board-main-diagonal", stars=1)
    complete(student, "czech", "cz-board-orientation", stars=3)
    check(client, CZECH_FIRST, answer="4")  # 3 stars in the session: better than the account's 1
    session = client.session
    session["dama_progress"]["lessons"]["czech/cz-board-orientation"] = {  # worse than the 3
        "stars": 1,
        "attempts": 4,
        "hints": 1,
        "shown": True,
        "done": timezone.now().isoformat(),
    }
    session.save()
    client.post(reverse("login"), {"username": "standa", "password": PASSWORD})
    assert row(student, CZECH_FIRST).stars == 3
    assert row(student, CZECH_SECOND).stars == 3 and not row(student, CZECH_SECOND).answer_shown


def test_lessons_register_their_hand_over():
    assert "lessons" in core_progress.registered_keys()


def test_an_account_keeps_progress_in_the_database(client, student):
    client.force_login(student)
    check(client, CZECH_FIRST, answer="3")
    check(client, CZECH_FIRST, route="4")
    progress = row(student, CZECH_FIRST)
    assert (progress.stars, progress.attempts, progress.completed_at is not None) == (2, 2, True)
    assert "dama_progress" not in client.session


# -- languages -----------------------------------------------------------------------------------------
def test_czech_learner_gets_czech_text_and_czech_explanations(client):
    client.post("/language", {"language": "cs"})
    html = client.get(step_url(*MAN_FORWARD)).content.decode()
    assert '<html lang="cs">' in html
    assert "Kámen jde dopředu" in html and "CUD 2006 čl. 3.4" in html
    text = feedback_of(check(client, MAN_FORWARD, answer="22-26").content.decode())
    assert "Kámen táhne jen dopředu" in text
    assert "Pravidlo: CUD 2006 čl. 3.4" in text
    assert "Tento tah není dovolený." in text


def test_czech_feedback_for_a_right_answer_and_bad_input(client):
    client.post("/language", {"language": "cs"})
    text = feedback_of(check(client, CZECH_FIRST, route="4").content.decode())
    assert "Správně: h8 (4)." in text and "Získáváš 3 hvězdičky." in text
    response = check(client, CZECH_FIRST, answer="z9")
    assert response.status_code == 400
    assert "není tmavé pole této desky" in feedback_of(response.content.decode())


def test_english_is_the_default(client):
    html = client.get(step_url(*CZECH_FIRST)).content.decode()
    assert '<html lang="en">' in html and svg_lang() == "en"


# -- start-up validation ------------------------------------------------------------------------------
def test_the_system_check_rejects_a_broken_course(settings, tmp_path):
    from lessons.checks import check_courses

    assert check_courses() == []
    for name in COURSE_FILES:
        (tmp_path / f"{name}.yaml").write_text(
            (settings.BASE_DIR / "fixtures" / "lessons" / f"{name}.yaml").read_text("utf-8"),
            "utf-8",
        )
    broken = (
        (tmp_path / "czech.yaml")
        .read_text("utf-8")
        .replace('answer: ["22x15"]', 'answer: ["22-26"]', 1)
    )
    (tmp_path / "czech.yaml").write_text(broken, "utf-8")
    (tmp_path / "brazilian.yaml").write_text("course: [", "utf-8")
    settings.DAMA_LESSONS_DIR = tmp_path
    ids = sorted(e.id for e in check_courses())
    assert ids == ["lessons.E001", "lessons.E002"]


@pytest.mark.parametrize("cname", COURSE_FILES)
def test_every_step_is_solved_by_its_answer_and_explains_its_wrong_examples(client, cname):
    """Each step's own answer is right on the site; each illegal example gets the engine's rule."""
    for step in get_course(cname).steps:
        ex = step.exercise
        if ex.is_drill:  # played out against the endgame databases: tests/web/test_drills.py
            continue
        where = (cname, step.lesson.slug, step.slug)
        for wrong in ex.wrong:
            data = {"choice": wrong.move} if ex.kind in ("choose_move", "better_move") else {}
            data.setdefault("answer", wrong.move or wrong.square)
            response = check(client, where, **data)
            assert response.status_code == 200, (step.slug, wrong)
            text = feedback_of(response.content.decode())
            if wrong.code:
                assert "That move is not allowed." in text and "Rule:" in text, (step.slug, text)
            else:
                assert wrong.feedback.en.split(".")[0] in text, (step.slug, text)
        answer = ", ".join(ex.answers) if ex.mode == "select" else ex.answers[0]
        response = check(client, where, answer=answer)
        assert response.status_code == 200, step.slug
        assert "Right:" in feedback_of(response.content.decode()), step.slug


BLACK_REPLIES = ("czech", "czech-men", "cz-black-replies")  # what_if, Black to move after 22-18


def test_a_step_with_black_to_move_is_drawn_from_blacks_side(client):
    html = client.get(step_url(*BLACK_REPLIES)).content.decode()
    board = html[html.index('id="lesson-board"') :]
    assert 'data-flipped="1"' in board[: board.index("</svg>")]
    before = html[html.index('class="diagram before"') :]
    assert 'data-flipped="1"' in before[: before.index("</svg>")]
    first = client.get(step_url(*MAN_FORWARD)).content.decode()
    assert 'class="dama-board" data-variant="czech" data-flipped="0"' in first


def test_a_move_step_shows_quiet_targets_and_a_capture_step_none(client):
    quiet = client.get(step_url(*MAN_FORWARD)).content.decode()
    assert 'data-targets="{&quot;' in quiet
    for where in (MULTI_CAPTURE, CAPTURE_COMPULSORY, FREE_CHOICE, CZECH_FIRST):
        assert "data-targets" not in client.get(step_url(*where)).content.decode(), where
