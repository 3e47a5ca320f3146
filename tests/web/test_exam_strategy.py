"""The strategy level of the exams (issue 50): "choose the better move" questions drawn from
``exams/questions/strategy-<variant>.yaml``, judged on the server like every rule question. A
real sitting draws the questions kept for it (and seals their positions for good), a practice
sitting the others, and no page shows a kept question's answer."""

from __future__ import annotations

import pytest
from django.urls import reverse

from core.models import SealedPosition
from core.variants import VARIANT_NAMES
from exams.levels import level, rule_questions
from exams.models import Certificate, Exam, Refused

from .test_exams import give_name

STRATEGY = 8


@pytest.fixture
def student(student):
    return give_name(student, "Standa Řehoř")


def strategy_questions(variant: str, *, reserved: bool) -> dict:
    return {
        q.id: q
        for q in rule_questions(variant).values()
        if q.kind == "strategy" and q.reserved == reserved
    }


def post_choice(client, exam: Exam, choice: str):
    return client.post(
        reverse("exams:answer", args=[exam.pk]),
        {"index": str(exam.current), "choice": choice},
        HTTP_HX_REQUEST="true",
    )


def wrong_option(question) -> str:
    ex = question.step.exercise
    return next(o for o in ex.options if o != ex.answers[0])


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_each_variant_keeps_enough_strategy_questions_for_both_kinds_of_exam(variant):
    info = level(STRATEGY)
    assert info is not None and info.slug == "strategist"
    count = info.draw[0].count
    for reserved in (True, False):
        found = strategy_questions(variant, reserved=reserved)
        assert len(found) >= count + 2, (variant, reserved, len(found))
        for q in found.values():
            ex = q.step.exercise
            assert ex.kind == "better_move" and ex.answers[0] in ex.options
            assert q.tier == 3


def test_a_real_sitting_asks_only_kept_questions_and_seals_them(student):
    exam = Exam.start(student, "czech", STRATEGY, "real")
    kept = strategy_questions("czech", reserved=True)
    assert exam.total == 6 and all(q["type"] == "rule" for q in exam.questions)
    assert {q["id"] for q in exam.questions} <= set(kept)
    for ref in exam.questions:
        assert SealedPosition.is_sealed(kept[ref["id"]].step.fen, "czech")
    # a position of the pool that this sitting did not ask stays free
    other = next(q for q in kept.values() if q.id not in {r["id"] for r in exam.questions})
    assert not SealedPosition.is_sealed(other.step.fen, "czech")


def test_a_practice_sitting_asks_only_practice_questions_and_seals_nothing(student):
    exam = Exam.start(student, "czech", STRATEGY, "practice")
    free = strategy_questions("czech", reserved=False)
    assert {q["id"] for q in exam.questions} <= set(free)
    assert not SealedPosition.objects.filter(label__startswith="strategy:").exists()


def test_the_sitting_offers_the_options_as_buttons_and_judges_a_choice(client, student):
    client.force_login(student)
    exam = Exam.start(student, "czech", STRATEGY, "real")
    page = client.get(exam.get_absolute_url()).content.decode()
    question = exam.question(0).rule
    assert 'data-testid="options"' in page
    for option in question.step.exercise.options:
        assert f'name="choice" value="{option}"' in page
    answered = post_choice(client, exam, question.step.exercise.answers[0])
    assert answered.status_code == 200
    exam.refresh_from_db()
    assert exam.answers[0]["state"] == "right" and exam.current == 1
    # a real sitting says only "saved", right or wrong
    assert "Your answer is saved" in answered.content.decode()
    wrong = post_choice(client, exam, wrong_option(exam.question(1).rule))
    exam.refresh_from_db()
    assert exam.answers[1]["state"] == "wrong"
    assert "Your answer is saved" in wrong.content.decode()


def test_a_sitting_answered_right_passes_and_earns_a_certificate(client, student):
    client.force_login(student)
    exam = Exam.start(student, "international", STRATEGY, "real")
    for _ in range(exam.total):
        rule = exam.question(exam.current).rule
        post_choice(client, exam, rule.step.exercise.answers[0])
        exam.refresh_from_db()
    assert exam.is_finished and exam.score == exam.total and exam.passed
    assert Certificate.objects.filter(exam=exam, level=STRATEGY).exists()


def test_a_sitting_with_two_wrong_choices_fails(client, student):
    client.force_login(student)
    exam = Exam.start(student, "brazilian", STRATEGY, "real")
    for i in range(exam.total):
        rule = exam.question(exam.current).rule
        ex = rule.step.exercise
        post_choice(client, exam, wrong_option(rule) if i < 2 else ex.answers[0])
        exam.refresh_from_db()
    assert exam.is_finished and exam.score == exam.total - 2 and not exam.passed
    assert not Certificate.objects.filter(exam=exam).exists()
    with pytest.raises(Refused):  # the cool-down holds for the strategy level too
        Exam.start(student, "brazilian", STRATEGY, "real")


def test_the_practice_results_explain_only_practice_questions(client, student):
    client.force_login(student)
    practice = Exam.start(student, "czech", STRATEGY, "practice")
    practice.finish()
    page = client.get(practice.get_absolute_url()).content.decode()
    assert page.count('data-testid="explanation"') == practice.total
    real = Exam.start(student, "czech", STRATEGY, "real")
    real.finish()
    page = client.get(real.get_absolute_url()).content.decode()
    assert 'data-testid="explanation"' not in page
    for i in range(real.total):
        ex = real.question(i).rule.step.exercise
        assert str(ex.solution) not in page


def test_an_unreadable_choice_is_a_400_and_not_counted(client, student):
    client.force_login(student)
    exam = Exam.start(student, "czech", STRATEGY, "practice")
    answered = post_choice(client, exam, "99-98")
    assert answered.status_code == 400
    exam.refresh_from_db()
    assert exam.answers[0]["state"] == "open"
