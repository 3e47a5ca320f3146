"""Level exams (issue 19): the level data, the exams' own puzzle pool, drawing, judging, the clock,
the pass mark, the cool-down, certificates (PDF and the public check) and a teacher's class exam."""

from __future__ import annotations

import io
import random
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from pypdf import PdfReader

from core import exercise
from core.variants import VARIANT_NAMES
from exams import models as exam_models
from exams import pool
from exams.levels import Draw, Level, PuzzleFilter, levels, rule_questions
from exams.models import Certificate, ClassExam, Exam, Refused
from lessons.course import get_course
from puzzles import daily
from puzzles.engine import normalize_fen, normalize_goal, read_puzzles
from puzzles.models import Puzzle, in_exam_share
from puzzles.player import Player
from puzzles.stream import next_puzzle, public_pool
from tests.puzzle_fixtures import make_puzzle

from .test_classroom import classroom, co_teacher, other_class, other_teacher  # noqa: F401

T0 = timezone.now().replace(microsecond=0)


def give_name(user, name: str):
    """``user`` gave ``name`` as the name their certificates print (asked before a real exam)."""
    from accounts.models import profile_of

    profile = profile_of(user)
    profile.certificate_name = name
    profile.save(update_fields=["certificate_name"])
    return user


@pytest.fixture
def student(student):
    """The learner of tests/conftest.py, who gave the name their certificates print."""
    return give_name(student, "Standa Řehoř")


def right_answers(question) -> list[str]:
    """What a player types to answer a rule question right (the exercise's own answers)."""
    ex = question.step.exercise
    if ex.kind == "select_captures":
        return [", ".join(ex.answers)]
    return list(ex.answers)


def answer_right(exam: Exam, now=None) -> None:
    question = exam.question(exam.current)
    index = exam.current
    outcome = exam.answer(index=index, text=right_answers(question.rule)[0], now=now)
    assert outcome.kind == ("right" if exam.is_practice else "saved"), outcome
    exam.refresh_from_db()
    assert exam.answers[index]["state"] == "right"


def tiny_level(*draws: Draw, number: int = 3, pass_mark: int = 1) -> Level:
    from lessons.course import Text

    return Level(
        number=number,
        slug="tiny",
        name=Text("Malá", "Tiny"),
        covers=Text("Zkouška", "A test"),
        questions=sum(d.count for d in draws),
        minutes=10,
        pass_mark=pass_mark,
        draw=draws,
    )


@pytest.fixture
def use_level(monkeypatch):
    """Replace level ``number`` with ``level`` everywhere the exams read it."""

    def use(level: Level) -> Level:
        from exams import levels as levels_module

        real = levels_module.level

        def patched(number: int):
            return level if number == level.number else real(number)

        for module in (exam_models, levels_module):
            monkeypatch.setattr(module, "level", patched)
        return level

    return use


#: the share of the corpus kept for the exams on a site (the tests' own is 0: tests/conftest.py)
SITE_SHARE = 0.25


@pytest.fixture
def exam_puzzles(db, settings):
    """The two czech test puzzles, both proven unique and both kept for the exams."""
    settings.DAMA_EXAM_SHARE = 1.0
    puzzles = [make_puzzle("czech_capture"), make_puzzle("czech_gain")]
    assert all(p.for_exams for p in puzzles)
    return puzzles


@pytest.fixture
def practice_puzzles(db, settings):
    """The two czech test puzzles, both proven unique and both practice puzzles."""
    settings.DAMA_EXAM_SHARE = 0.0
    return [make_puzzle("czech_capture"), make_puzzle("czech_gain")]


# -- the level data ---------------------------------------------------------------------------------


def test_there_are_eight_levels_each_with_a_draw_that_adds_up():
    found = levels()
    assert [lv.number for lv in found] == [1, 2, 3, 4, 5, 6, 7, 8]
    for lv in found:
        assert lv.name.cs and lv.name.en and lv.covers.cs and lv.covers.en
        assert sum(d.count for d in lv.draw) == lv.questions
        assert 0 < lv.pass_mark <= lv.questions and lv.minutes > 0
    # the first levels ask the rules, the higher ones combinations
    assert all(d.rules for d in found[0].draw + found[1].draw)
    assert all(d.positions for lv in found[2:6] for d in lv.draw)
    # the higher levels end with an endgame to win against the engine
    assert [lv.number for lv in found if any(d.endgame for d in lv.draw)] == [5, 6]
    # level 7 asks won endings of the endgame databases (tests/web/test_exam_drills.py)
    assert all(d.drill for d in found[6].draw)
    # level 8 asks strategy: choose the better move (tests/web/test_exam_strategy.py)
    assert [d.rules for d in found[7].draw] == ["strategy"]


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_every_rule_question_is_answered_right_by_its_answer_and_wrong_otherwise(variant):
    questions = rule_questions(variant)
    assert len(questions) > 100
    for question in questions.values():
        for text in right_answers(question):
            verdict = exercise.judge(question.step, text=text)
            assert verdict.status == exercise.RIGHT, (question.id, text, verdict)
    # a quiet move where a capture is compulsory is wrong, with the rule's article
    compulsory = next(q for q in questions.values() if q.kind == "compulsory")
    wrong = exercise.judge(compulsory.step, text="1-2")
    assert wrong.status != exercise.RIGHT


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_rule_questions_are_never_a_position_practice_serves(variant, settings):
    pdn = (settings.BASE_DIR / "fixtures" / "puzzles" / f"{variant}.pdn").read_text()
    served = {
        normalize_fen(p.fen, variant)
        for p in read_puzzles(pdn, variant)
        if not isinstance(p, Exception)
    }
    lessons = {normalize_fen(s.fen, variant) for s in get_course(variant).steps}
    for question in rule_questions(variant).values():
        fen = normalize_fen(question.step.fen, variant)
        assert fen not in served and fen not in lessons, question.id


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_the_shipped_corpus_gives_every_level_enough_exam_questions(variant, settings):
    """Per line of every level's draw, the exams' share of the shipped corpus holds at least
    twice what one exam takes (the rule questions at least three times)."""
    pdn = (settings.BASE_DIR / "fixtures" / "puzzles" / f"{variant}.pdn").read_text()
    corpus = [p for p in read_puzzles(pdn, variant) if not isinstance(p, Exception)]
    reserved, practice = [], []
    for p in corpus:
        kept = in_exam_share(
            variant, normalize_fen(p.fen, variant), normalize_goal(p.goal), SITE_SHARE
        )
        (reserved if kept else practice).append(p)
    assert 0.15 * len(corpus) < len(reserved) < 0.35 * len(corpus)
    rules = rule_questions(variant).values()
    for lv in levels():
        for line in lv.draw:
            if line.rules == "strategy":  # split: the kept ones for exams, the others for practice
                for kept in (True, False):
                    have = sum(q.kind == "strategy" and q.reserved == kept for q in rules)
                    assert have >= line.count + 2, (variant, lv.number, kept, have)
            elif line.rules:
                assert sum(q.kind == line.rules for q in rules) >= 3 * line.count, (lv.number, line)
            elif line.drill:  # the endgame databases' endings: tests/web/test_exam_drills.py
                continue
            else:  # real exams draw from the kept puzzles, practice exams from the others
                for puzzles in (reserved, practice):
                    have = sum(
                        line.positions.matches(normalize_goal(p.goal), p.motifs, p.difficulty or 0)
                        for p in puzzles
                    )
                    assert have >= 2 * line.count, (variant, lv.number, line, have)


def test_the_exams_czech_says_ty_and_uses_the_glossarys_words(settings):
    import re

    import yaml

    from tests.web.test_czech_text import NOT_VY, PLACEHOLDER, VY_PRONOUNS, WORD, avoided_words

    texts = []

    def walk(node) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "cs" and isinstance(value, str):
                    texts.append(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    root = settings.BASE_DIR / "exams"
    for path in [root / "levels.yaml", *sorted((root / "questions").glob("*.yaml"))]:
        walk(yaml.safe_load(path.read_text("utf-8")))
    assert len(texts) > 400
    avoided = [
        re.compile(r"\b" + re.escape(w.rstrip("*")) + (r"\w*" if w.endswith("*") else r"\b"), re.I)
        for w in avoided_words()
    ]
    for text in set(texts):
        for word in WORD.findall(PLACEHOLDER.sub(" ", text)):
            lower = word.lower()
            assert lower not in VY_PRONOUNS, text
            assert not (lower.endswith("te") and len(lower) > 3 and lower not in NOT_VY), text
        assert not any(p.search(text) for p in avoided), text


# -- the exams' own pool ------------------------------------------------------------------------


def test_reserved_puzzles_leave_the_stream_the_daily_puzzle_and_their_address(
    client, exam_puzzles, student
):
    assert not public_pool("czech").exists()
    player = Player(student, client.session)
    assert next_puzzle(player, "czech") is None
    assert daily.choose("czech", daily.today()) is None
    client.force_login(student)
    for puzzle in exam_puzzles:
        assert client.get(f"/puzzles/czech/{puzzle.pk}/").status_code == 404


def test_unkept_puzzles_stay_in_practice_and_keeping_a_grown_share_is_idempotent(db, settings):
    settings.DAMA_EXAM_SHARE = 0.0
    puzzle = make_puzzle("czech_capture")
    assert Puzzle.objects.keep_exam_share() == 0
    assert list(public_pool("czech")) == [puzzle]
    settings.DAMA_EXAM_SHARE = 1.0
    assert Puzzle.objects.keep_exam_share() == 1 and Puzzle.objects.keep_exam_share() == 0
    assert not public_pool("czech").exists()
    # once kept, always kept: a smaller share gives nothing back to practice
    settings.DAMA_EXAM_SHARE = 0.0
    assert Puzzle.objects.keep_exam_share() == 0 and not public_pool("czech").exists()


def test_the_share_is_decided_by_a_hash_of_the_puzzle():
    picks = [in_exam_share("czech", f"W:W{n}:B1", "capture", 0.25) for n in range(5, 33)]
    assert picks == [in_exam_share("czech", f"W:W{n}:B1", "capture", 0.25) for n in range(5, 33)]
    assert 0 < sum(picks) < len(picks)


# -- drawing ------------------------------------------------------------------------------------


def test_an_exam_never_draws_a_puzzle_practice_serves(db, settings):
    settings.DAMA_EXAM_SHARE = 0.0
    practice = make_puzzle("czech_capture")
    settings.DAMA_EXAM_SHARE = 1.0
    kept = make_puzzle("czech_gain")
    level = tiny_level(Draw(1, puzzles=PuzzleFilter()))
    for seed in range(20):
        drawn = pool.draw(
            level, "czech", seen=set(), practised=set(), drawn=set(), rng=random.Random(seed)
        )
        assert drawn == [{"type": "puzzle", "id": kept.pk}]
    assert practice.pk not in {q["id"] for q in pool.candidates(level, "czech")[0]}


def test_an_unproven_puzzle_is_never_an_exam_question(db, settings):
    settings.DAMA_EXAM_SHARE = 1.0
    puzzle = make_puzzle("czech_capture")
    puzzle.__class__.objects.filter(pk=puzzle.pk).update(verdict="cooked")
    assert pool.candidates(tiny_level(Draw(1, puzzles=PuzzleFilter())), "czech") == [[]]


def test_the_same_exam_is_never_drawn_twice_for_a_player(practice_puzzles, student, use_level):
    level = use_level(tiny_level(Draw(1, puzzles=PuzzleFilter())))
    first = Exam.start(student, "czech", level.number, "practice")
    second = Exam.start(student, "czech", level.number, "practice")
    assert first.signature != second.signature
    with pytest.raises(Refused):  # two puzzles, two exams: a third would repeat one
        Exam.start(student, "czech", level.number, "practice")


def test_fresh_rule_questions_come_first(student):
    exams = [Exam.start(student, "czech", 1, "practice") for _ in range(4)]
    assert len({e.signature for e in exams}) == 4
    crowns = [q["id"] for e in exams for q in e.questions if q["id"].startswith("cz-crown")]
    assert len(crowns) == len(set(crowns)) == 12  # 3 crown questions each, none met twice


# -- answering, the clock, the pass mark ---------------------------------------------------------


#: the examples of the move box's help text (an answer such as 15x6 may stand inside them)
NOTATION_EXAMPLES = "(22-18, 22x15x6, c3-d4)"  # a Czech board's


def test_the_exam_page_holds_no_answer_and_the_server_judges(client, student):
    client.force_login(student)
    response = client.post(reverse("exams:start", args=["czech", 1]), {"kind": "real"})
    exam = Exam.objects.get(user=student)
    assert response.status_code == 302 and response.url == exam.get_absolute_url()
    page = client.get(exam.get_absolute_url()).content.decode()
    question = exam.question(0).rule
    assert "data-moves" not in page and "data-targets" not in page
    # the move box's help shows how to type moves, with the same examples in every language
    assert NOTATION_EXAMPLES in page
    shown = page.replace(NOTATION_EXAMPLES, "")
    for text in question.step.exercise.answers:
        assert text not in shown
    url = reverse("exams:answer", args=[exam.pk])
    answered = client.post(url, {"index": "0", "answer": right_answers(question)[0]})
    assert answered.status_code == 302
    exam.refresh_from_db()
    assert exam.answers[0]["state"] == "right" and exam.current == 1
    # answering a question that is no longer open changes nothing
    again = client.post(
        url, {"index": "0", "answer": right_answers(question)[0]}, HTTP_HX_REQUEST="true"
    )
    assert again.status_code == 400
    exam.refresh_from_db()
    assert exam.current == 1 and exam.score == 0


@pytest.mark.parametrize(
    "data",
    [{"index": "x", "answer": "22-18"}, {"index": "0", "answer": "x" * 500}, {"index": "0", "answer": "zz"}, {"index": "0", "route": "99,1"}],
)  # fmt: skip
def test_bad_input_is_a_400_that_changes_nothing(client, student, data):
    client.force_login(student)
    exam = Exam.start(student, "czech", 1, "real")
    response = client.post(reverse("exams:answer", args=[exam.pk]), data, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    exam.refresh_from_db()
    assert exam.current == 0 and exam.answers[0]["state"] == "open"


def test_a_puzzle_question_is_played_against_the_proof(client, exam_puzzles, student, use_level):
    gain = exam_puzzles[1]
    level = use_level(tiny_level(Draw(1, puzzles=PuzzleFilter(goals=("gain",)))))
    exam = Exam.start(student, "czech", level.number, "real")
    assert exam.questions == [{"type": "puzzle", "id": gain.pk}]
    client.force_login(student)
    page = client.get(exam.get_absolute_url()).content.decode()
    for move in ("22-17", "13x22", "25x18x11", "25x11", "data-moves", "data-targets"):
        assert move not in page
    illegal = exam.answer(index=0, text="22-26")
    assert illegal.kind in ("illegal", "bad") and illegal.status == 400
    first = exam.answer(index=0, text="22-17")
    assert first.kind == "continue" and "13x22" in first.message
    done = exam.answer(index=0, text="25x18x11")
    assert done.kind == "saved"  # a real exam says whether it was right at the end only
    exam.refresh_from_db()
    assert exam.is_finished and exam.score == 1 and exam.passed
    assert Certificate.objects.filter(exam=exam, name="Standa Řehoř").exists()


def test_a_wrong_move_makes_a_puzzle_question_wrong(exam_puzzles, student, use_level):
    level = use_level(tiny_level(Draw(1, puzzles=PuzzleFilter(goals=("gain",)))))
    exam = Exam.start(student, "czech", level.number, "real")
    assert exam.answer(index=0, text="21-17").kind == "saved"
    exam.refresh_from_db()
    assert exam.answers[0]["state"] == "wrong"
    assert exam.is_finished and exam.score == 0 and not exam.passed
    assert not Certificate.objects.filter(exam=exam).exists()


def test_the_pass_mark_decides(student):
    passed = Exam.start(student, "czech", 1, "practice")
    for _ in range(passed.pass_mark):
        answer_right(passed)
    while not passed.is_finished:
        passed.skip(index=passed.current)
    assert passed.score == passed.pass_mark == 8 and passed.passed
    failed = Exam.start(student, "czech", 1, "practice")
    for _ in range(failed.pass_mark - 1):
        answer_right(failed)
    failed.finish()
    assert failed.score == 7 and not failed.passed
    # a practice exam gives no certificate
    assert not Certificate.objects.exists()


def test_the_time_limit_is_kept_on_the_server(student):
    exam = Exam.start(student, "czech", 1, "real", now=T0)
    assert exam.deadline == T0 + timedelta(minutes=levels()[0].minutes)
    answer_right(exam, now=T0 + timedelta(minutes=1))
    late = T0 + timedelta(minutes=levels()[0].minutes, seconds=1)
    question = exam.question(exam.current).rule
    outcome = exam.answer(index=exam.current, text=right_answers(question)[0], now=late)
    assert outcome.kind == "over" and outcome.status == 400
    exam.refresh_from_db()
    assert exam.is_finished and exam.timed_out and exam.score == 1
    assert exam.finished_at == exam.deadline


def test_a_real_exam_is_retaken_only_after_the_cool_down(student, settings):
    settings.DAMA_EXAM_COOLDOWN_HOURS = 24
    first = Exam.start(student, "czech", 2, "real", now=T0)
    first.finish(now=T0 + timedelta(minutes=3))
    with pytest.raises(Refused):
        Exam.start(student, "czech", 2, "real", now=T0 + timedelta(hours=23))
    Exam.start(student, "czech", 2, "practice", now=T0 + timedelta(hours=23))  # practice: any time
    again = Exam.start(student, "czech", 2, "real", now=T0 + timedelta(hours=24, minutes=4))
    assert again.signature != first.signature


def test_the_ladder_says_when_the_exam_can_be_taken_again(client, student):
    exam = Exam.start(student, "czech", 1, "real")
    exam.finish()
    client.force_login(student)
    page = client.get(reverse("exams:ladder", args=["czech"]))
    assert page.status_code == 200
    assert 'data-testid="cooldown"' in page.content.decode()
    refused = client.post(reverse("exams:start", args=["czech", 1]), {"kind": "real"})
    assert refused.status_code == 400 and 'data-testid="exam-error"' in refused.content.decode()
    for bad in ({"kind": "nonsense"}, {}):
        assert client.post(reverse("exams:start", args=["czech", 1]), bad).status_code == 400
    assert (
        client.post(reverse("exams:start", args=["czech", 9]), {"kind": "real"}).status_code == 400
    )


def test_a_time_at_the_end_of_a_sentence_has_one_full_stop(client, student, settings):
    """English times end in "p.m." already: "... again from 9:08 p.m.." was shown."""
    settings.DAMA_EXAM_COOLDOWN_HOURS = 24
    evening = timezone.localtime().replace(hour=21, minute=8) + timedelta(days=1)
    exam = Exam.start(student, "czech", 1, "real", now=evening - timedelta(hours=24, minutes=5))
    exam.finish(now=evening - timedelta(hours=24))
    client.force_login(student)
    ladder = client.get(reverse("exams:ladder", args=["czech"])).content.decode()
    results = client.get(exam.get_absolute_url()).content.decode()
    refused = client.post(reverse("exams:start", args=["czech", 1]), {"kind": "real"})
    for html in (ladder, results, refused.content.decode()):
        assert "9:08 p.m." in html and "p.m.." not in html


def test_the_practice_results_explain_the_answers_and_the_real_ones_do_not(client, student):
    client.force_login(student)
    practice = Exam.start(student, "czech", 1, "practice")
    practice.finish()
    page = client.get(practice.get_absolute_url()).content.decode()
    assert page.count('data-testid="explanation"') == practice.total
    first = practice.question(0).rule.step
    assert exercise.answer_text(first) in page
    real = Exam.start(student, "czech", 1, "real")
    real.finish()
    page = client.get(real.get_absolute_url()).content.decode()
    assert 'data-testid="explanation"' not in page
    assert exercise.answer_text(real.question(0).rule.step) not in page


def test_an_endgame_is_won_against_the_engine_in_a_game_of_the_play_app(
    client, student, settings, use_level
):
    settings.DAMA_EXAM_SHARE = 1.0
    settings.DAMA_EXAM_ENGINE_LEVEL = 1
    # White c3 takes Black's last man: a proven win in one move
    won = make_puzzle("czech_capture", fen="W:W22:B18", goal="win", horizon=1, motifs=[])
    level = use_level(tiny_level(Draw(1, endgame=PuzzleFilter(goals=("win",)))))
    exam = Exam.start(student, "czech", level.number, "real")
    assert exam.questions == [{"type": "endgame", "id": won.pk}]
    client.force_login(student)
    page = client.get(exam.get_absolute_url()).content.decode()
    assert 'data-testid="endgame-start"' in page and "data-moves" not in page
    assert (
        client.post(
            reverse("exams:answer", args=[exam.pk]), {"index": "0", "answer": "22x15"}
        ).status_code
        == 400
    )
    started = client.post(reverse("exams:endgame", args=[exam.pk]), {"index": "0"})
    exam.refresh_from_db()
    game = exam.answers[0]["game"]
    assert started.status_code == 302 and started.url == reverse("play:game", args=[game])
    # a second press goes back to the same game
    again = client.post(reverse("exams:endgame", args=[exam.pk]), {"index": "0"})
    assert again.url == started.url
    assert client.post(reverse("play:move", args=[game]), {"move": "22x15"}).status_code in (
        200,
        302,
    )
    results = client.get(exam.get_absolute_url()).content.decode()
    exam.refresh_from_db()
    assert exam.is_finished and exam.score == 1 and exam.passed, results[:300]


def test_an_endgame_with_a_hint_or_a_takeback_is_wrong(client, student, settings, use_level):
    from play.models import Game

    settings.DAMA_EXAM_SHARE = 1.0
    settings.DAMA_EXAM_ENGINE_LEVEL = 1
    make_puzzle("czech_capture", fen="W:W22:B18", goal="win", horizon=1, motifs=[])
    level = use_level(tiny_level(Draw(1, endgame=PuzzleFilter(goals=("win",)))))
    exam = Exam.start(student, "czech", level.number, "real")
    game = Game.objects.get(pk=exam.start_endgame(index=0))
    Game.objects.filter(pk=game.pk).update(hints=1)
    game.refresh_from_db()
    game.play(text="22x15")
    exam.sync_endgame()
    assert exam.is_finished and exam.score == 0


# -- certificates -----------------------------------------------------------------------------------


@pytest.fixture
def passed_exam(student):
    give_name(student, "Anna Nováková Řeřichová")
    exam = Exam.start(student, "czech", 1, "real")
    while not exam.is_finished:
        answer_right(exam)
    assert exam.passed
    return exam


def pdf_text(content: bytes) -> tuple[int, str]:
    reader = PdfReader(io.BytesIO(content))
    return len(reader.pages), "\n".join(page.extract_text() for page in reader.pages)


def test_passing_gives_a_certificate_pdf_with_the_name_and_the_code(client, passed_exam):
    cert = passed_exam.certificate
    assert cert.name == "Anna Nováková Řeřichová" and cert.level == 1 and len(cert.code) == 12
    client.force_login(passed_exam.user)
    response = client.get(reverse("exams:certificate_pdf", args=[cert.code]))
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert response.content.startswith(b"%PDF-")
    pages, text = pdf_text(response.content)
    assert pages == 1
    assert "Anna Nováková Řeřichová" in text and cert.code in text
    assert f"/certificates/{cert.code}/" in text


def test_a_certificate_pdf_is_only_for_its_owner(client, passed_exam, outsider):
    url = reverse("exams:certificate_pdf", args=[passed_exam.certificate.code])
    client.force_login(outsider)
    assert client.get(url).status_code == 404
    client.logout()
    assert client.get(url).status_code == 302


def test_the_verification_page_confirms_a_certificate_and_shows_nothing_else(client, passed_exam):
    cert = passed_exam.certificate
    page = client.get(f"/certificates/{cert.code.lower()}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Anna Nováková Řeřichová" in html and cert.code in html
    for private in (passed_exam.user.username, passed_exam.user.email, "score"):
        assert private not in html
    missing = client.get("/certificates/NOPE-<b>/")
    assert missing.status_code == 404 and "<b>" not in missing.content.decode()


# -- a teacher's exam for a class -----------------------------------------------------------------


def test_a_teacher_holds_a_class_exam_students_sit_it_and_certificates_print(
    client,
    classroom,  # noqa: F811
    teacher,
    student,
    outsider,  # noqa: F811
    monkeypatch,
    django_capture_on_commit_callbacks,
):
    student.first_name, student.last_name = "Standa", "Řehoř"
    student.save()
    client.force_login(teacher)
    form_url = reverse("exams:class_exams", args=[classroom.pk])
    assert client.get(form_url).status_code == 200
    bad = client.post(
        form_url, {"variant": "czech", "level": "1", "starts_at": "tomorrow", "open_minutes": "15"}
    )
    assert bad.status_code == 400 and "errorlist" in bad.content.decode()
    start = timezone.localtime().strftime("%Y-%m-%dT%H:%M")
    made = client.post(
        form_url, {"variant": "czech", "level": "1", "starts_at": start, "open_minutes": "30"}
    )
    class_exam = ClassExam.objects.get(classroom=classroom)
    assert made.status_code == 302 and made.url == class_exam.get_absolute_url()

    client.force_login(student)
    my = client.get(reverse("classroom:my_classes")).content.decode()
    assert 'data-testid="start-class-exam"' in my
    started = client.post(reverse("exams:class_exam_start", args=[class_exam.pk]))
    sitting = Exam.objects.get(user=student, class_exam=class_exam)
    assert started.status_code == 302 and started.url == sitting.get_absolute_url()
    answer_right(sitting)

    client.force_login(teacher)
    results = client.get(class_exam.get_absolute_url()).content.decode()
    assert "Standa Řehoř" in results and 'hx-trigger="every 10s"' in results
    assert 'data-testid="per-question">1/1<' in results
    assert client.post(reverse("exams:class_certificates", args=[class_exam.pk])).status_code == 409

    while not sitting.is_finished:
        answer_right(sitting)
    # printed by a worker job (tests/web/test_exams_jobs.py): run here as the worker would
    from exams.tasks import print_certificates

    monkeypatch.setattr(print_certificates, "delay", print_certificates)
    with django_capture_on_commit_callbacks(execute=True):
        printed = client.post(reverse("exams:class_certificates", args=[class_exam.pk]))
    assert printed.status_code == 302
    pdf = client.get(printed.url.rstrip("/") + ".pdf")
    assert pdf.status_code == 200
    pages, text = pdf_text(pdf.content)
    assert pages == 1 and "Standa Řehoř" in text and sitting.certificate.code in text

    # one sitting per class exam; students of other classes and late starts are refused
    client.force_login(student)
    again = client.post(reverse("exams:class_exam_start", args=[class_exam.pk]))
    assert again.status_code == 302 and again.url == sitting.get_absolute_url()
    client.force_login(outsider)
    assert client.post(reverse("exams:class_exam_start", args=[class_exam.pk])).status_code == 404
    ClassExam.objects.filter(pk=class_exam.pk).update(starts_at=timezone.now() - timedelta(hours=2))
    latecomer = classroom.create_student_accounts(["Pozdní Petr"])[0][0]
    client.force_login(latecomer)
    late = client.post(reverse("exams:class_exam_start", args=[class_exam.pk]))
    assert late.status_code == 400 and not Exam.objects.filter(user=latecomer).exists()


# -- who may see what ---------------------------------------------------------------------------------

TEACHERS = {
    "teacher": 200,
    "co_teacher": 200,
    "student": 403,
    "other_student": 404,
    "anonymous": 302,
}


@pytest.fixture
def world(db, classroom, teacher, co_teacher, student, outsider, other_class):  # noqa: F811
    class_exam = ClassExam.objects.create(
        classroom=classroom, variant="czech", level=1, starts_at=timezone.now(), created_by=teacher
    )
    sitting = Exam.start(student, "czech", 1, class_exam=class_exam)
    return {
        "users": {"teacher": teacher, "co_teacher": co_teacher, "student": student, "other_student": outsider},
        "class_exam": class_exam,
        "sitting": sitting,
        "classroom": classroom,
    }  # fmt: skip


@pytest.mark.parametrize("role", ["teacher", "co_teacher", "student", "other_student", "anonymous"])
def test_each_role_gets_what_it_may_see(client, world, role):
    if role != "anonymous":
        client.force_login(world["users"][role])
    ce, sitting = world["class_exam"], world["sitting"]
    expected = {
        reverse("exams:class_exams", args=[world["classroom"].pk]): TEACHERS[role],
        ce.get_absolute_url(): TEACHERS[role],
        sitting.get_absolute_url(): {"student": 200, "anonymous": 302}.get(role, 404),
        reverse("exams:ladder", args=["czech"]): 200,
        "/certificates/ABCDEFGHJKLM/": 404,
    }
    for url, status in expected.items():
        assert client.get(url).status_code == status, (role, url)
    post = client.post(reverse("exams:answer", args=[sitting.pk]), {"index": "0", "answer": "zz"})
    assert post.status_code == {"student": 400, "anonymous": 302}.get(role, 404)
    start = client.post(reverse("exams:class_exam_start", args=[ce.pk]))
    assert start.status_code == {
        "student": 302,
        "anonymous": 302,
        "teacher": 403,
        "co_teacher": 403,
    }.get(role, 404)


def test_the_pages_and_the_certificate_speak_czech(client, passed_exam):
    client.force_login(passed_exam.user)
    client.post("/language", {"language": "cs", "next": "/"})
    ladder = client.get(reverse("exams:ladder", args=["czech"])).content.decode()
    assert "Zkoušky" in ladder and "Stupeň 1: Kámen" in ladder
    results = client.get(passed_exam.get_absolute_url()).content.decode()
    assert "Zkoušku jsi složil(a)!" in results
    code = passed_exam.certificate.code
    _pages, text = pdf_text(client.get(reverse("exams:certificate_pdf", args=[code])).content)
    assert "Osvědčení" in text and "Kámen" in text and code in text


# -- the exams' positions are sealed (issue 45) -----------------------------------------------------

#: a proven win in two: 23-19, then White takes Black's last man whatever it plays
ENDGAME = "W:W22,23:B14"


def play_new(client, fen: str, method: str = "get"):
    """Ask /play/czech/ for a game from ``fen`` (the form, or starting it)."""
    url = reverse("play:new", args=["czech"])
    if method == "get":
        return client.get(url, {"fen": fen})
    return client.post(url, {"fen": fen, "level": "1", "color": "white"})


@pytest.fixture
def endgame_sitting(client, student, settings, use_level, monkeypatch):
    """A real sitting of a one-question level, its endgame game started and one move played:
    ``(exam, game, fen_now)``, the computer (the first legal move) having answered."""
    from play.models import Game
    from tests.web.play_helpers import install_fake_search

    install_fake_search(monkeypatch)
    settings.DAMA_EXAM_SHARE = 1.0
    settings.DAMA_EXAM_ENGINE_LEVEL = 1
    make_puzzle("czech_capture", fen=ENDGAME, goal="win", horizon=2, motifs=[])
    level = use_level(tiny_level(Draw(1, endgame=PuzzleFilter(goals=("win",)))))
    exam = Exam.start(student, "czech", level.number, "real")
    client.force_login(student)
    started = client.post(reverse("exams:endgame", args=[exam.pk]), {"index": "0"})
    game = Game.objects.get(pk=int(started.url.rstrip("/").rsplit("/", 1)[1]))
    assert client.post(reverse("play:move", args=[game.pk]), {"move": "23-19"}).status_code == 302
    game.refresh_from_db()
    assert len(game.moves) == 2 and not game.is_over and game.player_to_move
    return exam, game, game.board().fen()


def test_the_exam_games_position_cannot_be_copied_into_a_game_while_the_sitting_is_open(
    client, endgame_sitting, outsider
):
    """The probe's path: the exam game's replay offers no "play on", and the position typed
    into a new game is refused (a form error) for the player, a second account and a visitor,
    before the game, after the first move, and turned round with the colours swapped."""
    from django.test import Client

    from play.models import Game

    exam, game, now = endgame_sitting
    replay = client.get(reverse("play:replay", args=[game.pk])).content.decode()
    assert 'data-testid="play-on"' not in replay
    turned = "B:W19:B10,11"  # the exam's position turned round, the colours swapped
    second, visitor = Client(), Client()
    second.force_login(outsider)
    games = Game.objects.count()
    for who in (client, second, visitor):
        for fen in (ENDGAME, now, turned):
            for method in ("get", "post"):
                response = play_new(who, fen, method)
                assert response.status_code == 400, (fen, method)
                assert "belongs to an exam" in response.content.decode()
    assert Game.objects.count() == games


def test_the_exam_game_gives_no_hint_and_shows_no_hint_button(client, endgame_sitting):
    exam, game, _now = endgame_sitting
    page = client.get(reverse("play:game", args=[game.pk])).content.decode()
    assert 'data-testid="hint-button"' not in page
    refused = client.post(reverse("play:hint", args=[game.pk]), HTTP_HX_REQUEST="true")
    assert refused.status_code == 403 and "belongs to an exam" in refused.content.decode()
    game.refresh_from_db()
    assert game.hints == 0 and game.hint is None


def test_a_game_may_not_move_into_an_exam_position_for_the_computer_to_play_on(
    client, endgame_sitting
):
    """A position one move before the sitting's (not one the sitting reached): the player's
    move into the sitting's position is refused, or the computer would answer it."""
    import dama

    exam, game, now = endgame_sitting
    before = None
    for square in range(1, 33):  # a black man one step behind where Black's man stands now
        fen = f"B:W19,22:B{square}"
        try:
            board = dama.Board("czech", fen)
        except ValueError:
            continue
        for move in board.generate_legal_moves():
            board.push(move)
            if board.fen() == now and square != 14:
                before = (fen, move)
            board.pop()
    assert before is not None
    fen, move = before
    other = client.post(
        reverse("play:new", args=["czech"]), {"fen": fen, "level": "1", "color": "black"}
    )
    assert other.status_code == 302
    copy = int(other.url.rstrip("/").rsplit("/", 1)[1])
    route = ",".join(str(sq) for sq in move.routes[0])
    refused = client.post(
        reverse("play:move", args=[copy]), {"route": route}, HTTP_HX_REQUEST="true"
    )
    assert refused.status_code == 403 and "belongs to an exam" in refused.content.decode()


def test_after_the_sitting_its_endgame_positions_are_free_but_the_puzzles_stay_sealed(
    client, endgame_sitting
):
    exam, game, now = endgame_sitting
    exam.finish()
    assert play_new(client, now).status_code == 200
    assert play_new(client, ENDGAME).status_code == 400  # the exams' puzzle: sealed for good
    game.refresh_from_db()
    refused = client.post(reverse("play:hint", args=[game.pk]), HTTP_HX_REQUEST="true")
    assert refused.status_code == 403  # the exam's own game never gives a hint


def test_the_position_a_real_puzzle_question_shows_next_is_sealed_for_good(
    client, student, settings, use_level
):
    settings.DAMA_EXAM_SHARE = 1.0
    make_puzzle("czech_gain")
    level = use_level(tiny_level(Draw(1, puzzles=PuzzleFilter(goals=("gain",)))))
    exam = Exam.start(student, "czech", level.number, "real")
    assert exam.answer(index=0, text="22-17").kind == "continue"
    shown = "W:W21,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,10,12,15,22"  # after 22-17 13x22
    client.force_login(student)
    assert play_new(client, shown).status_code == 400
    exam.finish()
    assert play_new(client, shown).status_code == 400


# -- kept for the exams from the first save, never practice (issue 45) -----------------------------


def site_share_puzzles(settings) -> tuple[Puzzle, Puzzle]:
    """The practice puzzle and the one the site's share keeps for the exams (czech_capture and
    czech_gain: their hashes fall either side of 25 %), ``reserve_exam_puzzles`` run as on a
    site; no exam is started."""
    from io import StringIO

    from django.core.management import call_command

    settings.DAMA_EXAM_SHARE = SITE_SHARE
    practice, kept = make_puzzle("czech_capture"), make_puzzle("czech_gain")
    call_command("reserve_exam_puzzles", stdout=StringIO())
    return practice, kept


#: the moves of czech_gain's solution, as a page would write them
KEPT_SOLUTION = ("22-17", "13x22", "25x18x11", "25x11")


@pytest.mark.parametrize("way", ["loaded", "mined", "saved"])
def test_a_corpus_puzzle_in_the_exams_share_is_never_served_even_before_any_exam(
    client, teacher, settings, tmp_path, way
):
    """Item 6: the trainer, the daily puzzle, the puzzle's address and the teachers' search
    never serve a puzzle of the share, from the moment it is loaded, mined or saved: no exam
    has to start first."""
    from io import StringIO

    from django.core.management import call_command

    from classroom.models import PuzzleSet
    from puzzles.engine import write_puzzles

    settings.DAMA_EXAM_SHARE = 0.0
    shipped = [make_puzzle(name).to_data() for name in ("czech_capture", "czech_gain")]
    Puzzle.objects.all().delete()
    settings.DAMA_EXAM_SHARE = SITE_SHARE
    if way == "loaded":
        path = tmp_path / "czech.pdn"
        path.write_text(write_puzzles(shipped), "utf-8")
        call_command("load_puzzles", str(path), stdout=StringIO())
    elif way == "mined":  # a mining task saves what it finds so
        for data in shipped:
            Puzzle.objects.import_data(data)
    else:
        make_puzzle("czech_capture")
        make_puzzle("czech_gain")
    practice = Puzzle.objects.get(fen=normalize_fen(shipped[0].fen, "czech"))
    kept = Puzzle.objects.get(fen=normalize_fen(shipped[1].fen, "czech"))
    assert not Exam.objects.exists()
    assert list(public_pool("czech")) == [practice]
    assert next_puzzle(Player(teacher, client.session), "czech") == practice
    assert daily.choose("czech", daily.today()) == practice
    client.force_login(teacher)
    assert client.get(f"/puzzles/czech/{kept.pk}/").status_code == 404
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Search", variant="czech")
    search = client.get(f"/teach/sets/{puzzle_set.pk}/corpus/").content.decode()
    assert f"#{practice.pk} " in search and f"#{kept.pk} " not in search
    added = client.post(f"/teach/sets/{puzzle_set.pk}/corpus/", {"puzzle": str(kept.pk)})
    assert added.status_code == 404 and not puzzle_set.setitem_set.exists()


def test_a_practice_exam_reveals_no_puzzle_kept_for_the_exams(client, student, settings, use_level):
    """Item 2: every practice sitting a player can get, and all its results show, holds no
    puzzle kept for the exams."""
    import re

    practice, kept = site_share_puzzles(settings)
    level = use_level(tiny_level(Draw(1, puzzles=PuzzleFilter())))
    client.force_login(student)
    asked, revealed = set(), []
    while True:  # practice is unlimited: as many sittings as there are new sets
        try:
            sitting = Exam.start(student, "czech", level.number, "practice")
        except Refused:
            break
        sitting.finish()
        asked |= {q["id"] for q in sitting.questions}
        revealed.append(client.get(sitting.get_absolute_url()).content.decode())
    assert asked == {practice.pk}
    text = re.sub(r"<svg.*?</svg>", "", "".join(revealed), flags=re.S)
    assert 'data-testid="explained-answer"' in text  # practice does show its own answers
    assert kept.fen not in text and not any(move in text for move in KEPT_SOLUTION)


def test_a_practice_sitting_from_before_no_longer_shows_a_kept_puzzles_answer(
    client, student, settings
):
    _practice, kept = site_share_puzzles(settings)
    now = timezone.now()
    sitting = Exam.objects.create(
        user=student, variant="czech", level=3, kind="practice", signature="before",
        questions=[{"type": "puzzle", "id": kept.pk}], answers=[{"state": "wrong"}],
        pass_mark=1, started_at=now, deadline=now, finished_at=now,
    )  # fmt: skip
    client.force_login(student)
    page = client.get(sitting.get_absolute_url()).content.decode()
    assert 'data-testid="explained-answer"' not in page
    assert not any(move in page for move in KEPT_SOLUTION)


def test_an_attempt_begun_before_its_puzzle_was_kept_shows_neither_solution_nor_hint(
    client, student, settings
):
    from puzzles.models import Attempt

    _practice, kept = site_share_puzzles(settings)
    attempt = Attempt.objects.create(user=student, puzzle=kept, position=kept.fen, first=True)
    client.force_login(student)
    for action in ("solution", "hint", "move"):
        response = client.post(f"/puzzles/attempt/{attempt.pk}/{action}", {"move": "22-17"})
        assert response.status_code == 404, action
        assert not any(move in response.content.decode() for move in KEPT_SOLUTION)


def test_a_daily_puzzle_the_exams_keep_leaves_the_archive_and_today_is_chosen_again(
    client, db, settings
):
    from puzzles.models import DailyPuzzle

    practice, kept = site_share_puzzles(settings)
    yesterday = daily.today() - timedelta(days=1)
    DailyPuzzle.objects.create(variant="czech", date=yesterday, puzzle=kept)
    DailyPuzzle.objects.create(variant="czech", date=daily.today(), puzzle=kept)
    assert daily.daily_puzzle("czech").puzzle == practice
    archive = client.get(reverse("puzzles:daily_archive", args=["czech"])).content.decode()
    assert yesterday.isoformat() not in archive
    old = client.get(reverse("puzzles:daily_day", args=["czech", yesterday.isoformat()]))
    assert old.status_code == 404


# -- the computer's turn in an exam (issue 45) --------------------------------------------------------


@pytest.fixture
def endgame_exam(student, settings, use_level):
    """A real exam whose one question is an endgame (White wins in three), the engine at a
    level that searches on a worker; the play app's computer is the tests' stand-in."""
    settings.DAMA_EXAM_SHARE = 1.0
    settings.DAMA_EXAM_ENGINE_LEVEL = 5
    make_puzzle("czech_capture", fen="W:W17,18:B9", goal="win", horizon=3, motifs=[])
    level = use_level(tiny_level(Draw(1, endgame=PuzzleFilter(goals=("win",)))))
    return level


def test_the_exams_clock_stands_still_while_the_computer_thinks(
    client, student, endgame_exam, monkeypatch
):
    from play import models as play_models
    from play import tasks
    from play.models import Game
    from tests.web.play_helpers import install_fake_search
    from tests.web.test_play import Clock

    install_fake_search(monkeypatch)
    t0 = timezone.now().replace(microsecond=0)
    clock = Clock(t0 + timedelta(minutes=1))  # the games' clock
    monkeypatch.setattr(play_models, "timezone", clock)
    exam = Exam.start(student, "czech", endgame_exam.number, "real", now=t0)
    assert exam.seconds_left(now=t0 + timedelta(minutes=1)) == 9 * 60
    game = Game.objects.get(pk=exam.start_endgame(index=0, now=clock.at))
    assert game.play(text="18-14").kind == "moved" and game.state == Game.State.THINKING
    # the computer thinks from minute 1: the clock stands at 9 minutes left
    for minute in (1, 4, 30):
        assert exam.seconds_left(now=t0 + timedelta(minutes=minute)) == 9 * 60
        assert not exam.is_due(now=t0 + timedelta(minutes=minute))
    client.force_login(student)
    page = client.get(exam.get_absolute_url()).content.decode()
    assert "data-clock-stopped" in page and 'data-testid="clock-stopped"' in page
    # the reply comes at minute 4: three minutes were the computer's
    clock.at = t0 + timedelta(minutes=4)
    assert tasks.computer_move(game.pk, 1) == "played"
    assert exam.seconds_left(now=t0 + timedelta(minutes=5)) == 8 * 60
    assert not exam.is_due(now=t0 + timedelta(minutes=12, seconds=59))
    assert exam.is_due(now=t0 + timedelta(minutes=13))
    assert "data-clock-stopped" not in client.get(exam.get_absolute_url()).content.decode()
    # handed in late, the exam ends when its time was up
    exam.finish(now=t0 + timedelta(minutes=20))
    assert exam.finished_at == t0 + timedelta(minutes=13) and exam.timed_out


def test_a_skipped_endgames_game_stops_the_clock_no_more(
    student, endgame_exam, use_level, monkeypatch
):
    """The computer's time in a question's game counts until the question closes: playing the
    game on afterwards gives the exam no more time."""
    from play import models as play_models
    from play import tasks
    from play.models import Game
    from tests.web.play_helpers import install_fake_search
    from tests.web.test_play import Clock

    install_fake_search(monkeypatch)
    make_puzzle("czech_capture", fen="W:W17,18:B10", goal="win", horizon=3, motifs=[])
    two = use_level(tiny_level(Draw(2, endgame=PuzzleFilter(goals=("win",)))))
    t0 = timezone.now().replace(microsecond=0)
    clock = Clock(t0)
    monkeypatch.setattr(play_models, "timezone", clock)
    exam = Exam.start(student, "czech", two.number, "real", now=t0)
    game = Game.objects.get(pk=exam.start_endgame(index=0, now=t0))
    game.play(text="18-14")
    clock.at = t0 + timedelta(minutes=2)
    tasks.computer_move(game.pk, 1)
    exam.skip(index=0, now=t0 + timedelta(minutes=3))
    assert exam.seconds_left(now=t0 + timedelta(minutes=3)) == 9 * 60
    # the skipped question's game played on: its computer's time is not the exam's
    game.refresh_from_db()
    game.play(route=",".join(map(str, game.board().legal_moves[0].routes[0])))
    clock.at = t0 + timedelta(minutes=6)
    assert tasks.computer_move(game.pk, game.version) == "played"
    assert exam.seconds_left(now=t0 + timedelta(minutes=7)) == 5 * 60


def test_an_exams_endgame_is_searched_on_the_exam_queue_ahead_of_its_players_games(
    client,
    student,
    endgame_exam,
    monkeypatch,
    django_capture_on_commit_callbacks,
    settings,
    sent_tasks,
):
    """The student's own games wait for each other; the exam's game has a line of its own, sent
    at once to the ``exam`` queue, which the play workers take first. The limits on new games
    do not refuse it."""
    from django.core.cache import cache

    from play.models import Game
    from tests.web.play_helpers import install_fake_search

    install_fake_search(monkeypatch)
    cache.clear()
    settings.DAMA_PLAY_GAMES_PER_HOUR = settings.DAMA_PLAY_GAMES_PER_HOUR_PER_ADDRESS = 2
    client.force_login(student)
    with django_capture_on_commit_callbacks(execute=True):
        games = []
        for _ in range(2):
            response = client.post("/play/czech/", {"level": "8", "color": "black"})
            games.append(int(response["Location"].strip("/").split("/")[-1]))
        assert client.post("/play/czech/", {"level": "8", "color": "black"}).status_code == 429
        exam = Exam.start(student, "czech", endgame_exam.number, "real")
        started = client.post(reverse("exams:endgame", args=[exam.pk]), {"index": "0"})
        assert started.status_code == 302  # the limits do not count an exam's game
        exam.refresh_from_db()
        game = Game.objects.get(pk=exam.answers[0]["game"])
        response = client.post(reverse("play:move", args=[game.pk]), {"move": "18-14"})
        assert response.status_code == 302
    # the first game's search runs, the second waits for it; the exam's is sent at once
    assert sent_tasks == [
        ("play.computer_move", (games[0], 0), "play"),
        ("play.computer_move", (game.pk, 1), "exam"),
    ]
    cache.clear()
