"""A sitting of an exam (issue 45): a real exam says whether an answer was right only once it is
over (the page of a right answer and of a wrong one are the same), and handing it in with
questions still open asks first, with JavaScript and without."""

from __future__ import annotations

import random
import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from core import exercise
from exams.levels import Draw, PuzzleFilter
from exams.models import Exam

from .test_exams import (  # noqa: F401 - fixtures
    exam_puzzles,
    give_name,
    right_answers,
    student,
    tiny_level,
    use_level,
)

HX = {"HTTP_HX_REQUEST": "true"}
#: words that would tell how an answer went
VERDICT_WORDS = re.compile(r"right|wrong|not the|correct|mistake", re.IGNORECASE)


def wrong_answer(question) -> str:
    """A typed answer that rule question ``question`` counts wrong: a quiet move where a
    capture is compulsory, or a legal move that is not the one asked for."""
    for start in range(1, 33):
        for end in (start - 5, start - 4, start - 3, start + 3, start + 4, start + 5):
            text = f"{start}-{end}"
            verdict = exercise.judge(question.step, text=text)
            if verdict.status in (exercise.WRONG, exercise.LEGAL) and verdict.counts:
                return text
    raise AssertionError(f"no wrong answer found for {question.id}")


def same_for_everyone(html: str) -> str:
    """The page without what differs between two players' sittings of the same questions: the
    sitting's number in its addresses and the CSRF token."""
    html = re.sub(r"/exams/sitting/\d+/", "/exams/sitting/N/", html)
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)


def main_of(html: str) -> str:
    """The page's main region (the header names the player)."""
    return re.split(r'<main id="main"[^>]*>', html, maxsplit=1)[1].split("</main>", 1)[0]


def visible_text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.fixture
def twins(django_user_model):
    """Two players sitting the same real exam of level 1 (the same draw), each with a client."""
    from django.test import Client

    sittings = []
    for name in ("Adam První", "Bára Druhá"):
        user = django_user_model.objects.create_user(name.split()[0].lower(), password="x-pw-42")
        give_name(user, name)
        client = Client()
        client.force_login(user)
        exam = Exam.start(user, "czech", 1, "real", rng=random.Random(45))
        sittings.append((client, exam))
    assert sittings[0][1].questions == sittings[1][1].questions
    return sittings


# -- a real exam tells the verdicts at the end only ---------------------------------------------------


def test_a_right_and_a_wrong_answer_of_a_real_exam_give_the_same_page(twins):
    (right_client, right_exam), (wrong_client, wrong_exam) = twins
    question = right_exam.question(0).rule
    url = "/exams/sitting/{}/answer"
    right = right_client.post(
        url.format(right_exam.pk), {"index": "0", "answer": right_answers(question)[0]}, **HX
    )
    wrong = wrong_client.post(
        url.format(wrong_exam.pk), {"index": "0", "answer": wrong_answer(question)}, **HX
    )
    right_exam.refresh_from_db()
    wrong_exam.refresh_from_db()
    assert right_exam.answers[0]["state"] == "right" and wrong_exam.answers[0]["state"] == "wrong"
    # the status, the headers htmx reads and every byte of the partial are the same
    assert right.status_code == wrong.status_code == 200
    assert {k: v for k, v in right.items() if k.startswith("HX-")} == {
        k: v for k, v in wrong.items() if k.startswith("HX-")
    }
    page = same_for_everyone(right.content.decode())
    assert page == same_for_everyone(wrong.content.decode())
    # and it says the answer is saved, nothing more: not in the feedback, the board's status
    # line, a class or a data attribute
    assert "Your answer is saved." in page
    assert re.search(r"data-board-status[^>]*>\s*</p>", page)
    assert not VERDICT_WORDS.search(visible_text(page).replace("Skip (counts as wrong)", ""))
    assert not re.search(r'class="[^"]*\b(verdict|right|wrong|legal)\b', page)
    assert "data-state" not in page
    # without htmx: the same redirect, then the same page
    question = right_exam.question(1).rule
    for client, exam, text in (
        (right_client, right_exam, right_answers(question)[0]),
        (wrong_client, wrong_exam, wrong_answer(question)),
    ):
        answered = client.post(url.format(exam.pk), {"index": "1", "answer": text})
        assert answered.status_code == 302 and answered.url == exam.get_absolute_url()
    pages = [
        same_for_everyone(main_of(client.get(exam.get_absolute_url()).content.decode()))
        for client, exam in twins
    ]
    # the clocks may differ by the second the requests took apart
    pages = [re.sub(r'data-seconds-left="\d+"', "", p) for p in pages]
    pages = [re.sub(r"\d+ min</span>", "", p) for p in pages]
    assert pages[0] == pages[1]


def test_a_real_puzzle_that_goes_on_answers_without_saying_right(
    client,
    exam_puzzles,  # noqa: F811
    student,  # noqa: F811
    use_level,  # noqa: F811
):
    level = use_level(tiny_level(Draw(1, puzzles=PuzzleFilter(goals=("gain",)))))
    exam = Exam.start(student, "czech", level.number, "real")
    client.force_login(student)
    response = client.post(
        reverse("exams:answer", args=[exam.pk]), {"index": "0", "answer": "22-17"}, **HX
    )
    page = response.content.decode()
    assert response.status_code == 200
    assert "Black answers 13x22. Your move." in page  # the puzzle goes on: that cannot be hidden
    assert "Right" not in page


# -- handing in asks first ------------------------------------------------------------------------------


def test_hand_in_waits_for_a_confirmation_while_questions_are_open(student):  # noqa: F811
    exam = Exam.start(student, "czech", 1, "real")
    assert exam.hand_in() == 10
    exam.refresh_from_db()
    assert not exam.is_finished
    answer = right_answers(exam.question(0).rule)[0]
    exam.answer(index=0, text=answer)
    assert exam.hand_in() == 9 and not exam.is_finished
    assert exam.hand_in(confirmed=True) == 0
    exam.refresh_from_db()
    assert exam.is_finished and exam.score == 1 and not exam.timed_out
    # once the time is up, handing in asks nothing: the exam is over anyway
    late = Exam.start(student, "czech", 2, "real", now=timezone.now() - timedelta(hours=1))
    assert late.hand_in() == 0 and late.is_finished and late.timed_out


def test_one_click_on_hand_in_asks_how_many_questions_are_open_and_ends_nothing(
    client,
    student,  # noqa: F811
):
    exam = Exam.start(student, "czech", 1, "real")
    client.force_login(student)
    url = reverse("exams:finish", args=[exam.pk])
    page = client.get(exam.get_absolute_url()).content.decode()
    assert f'hx-post="{url}"' in page and 'hx-target="#hand-in-confirm"' in page
    # without JavaScript: a page with the question
    asked = client.post(url)
    html = asked.content.decode()
    assert asked.status_code == 409 and "<html" in html
    assert "10 questions are not answered yet: they count as wrong." in html
    assert "the exam can be taken again if you hand it in now" in html  # the wait it would start
    assert 'name="confirm" value="1"' in html and 'data-testid="hand-in-cancel"' in html
    assert f'href="{exam.get_absolute_url()}"' in html
    exam.refresh_from_db()
    assert not exam.is_finished and exam.current == 0
    # with htmx: the question alone, its heading taking the focus
    partial = client.post(url, **HX)
    html = partial.content.decode()
    assert partial.status_code == 409 and "<html" not in html
    assert re.search(r'<h2 id="hand-in-heading" tabindex="-1" data-focus-next>', html)
    assert 'aria-labelledby="hand-in-heading"' in html
    exam.refresh_from_db()
    assert not exam.is_finished
    # confirmed: handed in, the results follow
    done = client.post(url, {"confirm": "1"})
    assert done.status_code == 302 and done.url == exam.get_absolute_url()
    exam.refresh_from_db()
    assert exam.is_finished and exam.score == 0
    assert 'data-testid="exam-score"' in client.get(exam.get_absolute_url()).content.decode()


def test_the_hand_in_question_counts_one_open_question_in_the_singular(
    client,
    student,  # noqa: F811
):
    exam = Exam.start(student, "czech", 1, "practice")
    for index in range(exam.total - 1):
        exam.skip(index=index)
    client.force_login(student)
    asked = client.post(reverse("exams:finish", args=[exam.pk]), **HX)
    html = asked.content.decode()
    assert asked.status_code == 409
    assert "1 question is not answered yet: it counts as wrong." in html
    assert "can be taken again" not in html  # a practice exam has no wait
