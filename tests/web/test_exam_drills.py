"""Exam level 7: won endings of the endgame databases, played out against the database's best
defence (``exams.drills``, the lessons' drill machinery ``core.endgames.play``).

The positions are drawn from the slices the Endgames courses use (built once per test session:
``endgame_tables``), never a course's own, half kept for the real exams and half for practice;
a question is right when the ending is won within the count, wrong when a move lets the win go;
a real sitting says only "saved", offers no hint and seals the positions it shows; bad input is
a 400 that changes nothing.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from core import endgames
from core.models import SealedPosition
from dama import Board
from dama.endgames import Tables
from exams import drills
from exams.levels import level
from exams.models import DRILL_SEAL, Exam

from .test_exams import give_name

pytestmark = pytest.mark.django_db


@pytest.fixture
def student(student):
    return give_name(student, "Standa Řehoř")


@pytest.fixture
def tables(endgame_tables):
    drills.forget()
    yield Tables.open(endgame_tables)
    drills.forget()


def best_move(tables, variant, fen, line):
    board = Board(variant, fen)
    for text in line:
        board.push(board.parse_move(text))
    return board.move_text(tables.best_moves(board)[0])


def losing_move(tables, variant, fen, line):
    board = Board(variant, fen)
    for text in line:
        board.push(board.parse_move(text))
    keeping = set(map(str, tables.best_moves(board)))
    return next(board.move_text(m) for m in board.legal_moves if str(m) not in keeping)


@pytest.mark.parametrize("variant", ["czech", "international", "brazilian"])
def test_the_positions_are_won_endings_the_course_does_not_show(tables, variant):
    info = level(7)
    shown = drills.course_fens(variant)
    for line in info.draw:
        real = drills.positions(variant, line.drill, practice=False)
        practice = drills.positions(variant, line.drill, practice=True)
        assert len(real) >= 2 * line.count and len(practice) >= 2 * line.count, variant
        assert not set(real) & set(practice)
        for fen in real + practice:
            assert fen not in shown
            board = Board(variant, fen)
            probe = tables.probe(board)
            assert probe.result == "win"
            assert line.drill.min_moves <= probe.moves <= line.drill.max_moves
            assert len(tables.best_moves(board)) < len(board.legal_moves)


def test_a_real_exam_is_won_by_playing_the_endings_out(client, student, tables):
    exam = Exam.start(student, "czech", 7, "real")
    assert [q["type"] for q in exam.questions] == ["drill"] * 4
    fens = [q["id"] for q in exam.questions]
    assert all(drills.reserved("czech", fen) for fen in fens)
    assert all(SealedPosition.is_sealed(fen, "czech") for fen in fens)
    client.force_login(student)
    url = reverse("exams:answer", args=[exam.pk])
    for index, fen in enumerate(fens):
        page = client.get(exam.get_absolute_url()).content.decode()
        assert "against the endgame database" in page and "hint-button" not in page
        for _ in range(40):
            exam.refresh_from_db()
            if exam.current != index:
                break
            line = exam.answers[index].get("line") or []
            move = best_move(tables, "czech", fen, line)
            response = client.post(
                url, {"index": str(index), "answer": move}, HTTP_HX_REQUEST="true"
            )
            assert response.status_code in (200, 204)  # 204: the last answer ends the exam
            assert "Right!" not in response.content.decode()  # a real sitting says "saved"
        assert exam.answers[index]["state"] == "right"
    exam.refresh_from_db()
    assert exam.is_finished and exam.score == 4 and exam.passed


def test_a_move_that_lets_the_win_go_makes_the_question_wrong(student, tables):
    exam = Exam.start(student, "international", 7, "practice")
    fen = exam.questions[0]["id"]
    assert not drills.reserved("international", fen)  # practice never shows a kept one
    move = losing_move(tables, "international", fen, [])
    outcome = exam.answer(index=0, text=move)
    assert outcome.kind == "wrong"
    exam.refresh_from_db()
    state = exam.answers[0]
    assert state["state"] == "wrong" and exam.current == 1
    better = best_move(tables, "international", fen, [])
    assert better in state["message"] and move in state["message"]


@pytest.mark.parametrize("data", [{"index": "0", "answer": "zz"}, {"index": "0", "answer": "1-2"}])
def test_bad_input_is_a_400_that_changes_nothing(client, student, tables, data):
    exam = Exam.start(student, "brazilian", 7, "real")
    client.force_login(student)
    response = client.post(reverse("exams:answer", args=[exam.pk]), data, HTTP_HX_REQUEST="true")
    assert response.status_code == 400
    exam.refresh_from_db()
    assert exam.current == 0 and exam.answers[0] == {"state": "open"}


def test_the_positions_a_real_sitting_shows_are_sealed(student, tables):
    exam = Exam.start(student, "czech", 7, "real")
    fen = exam.questions[0]["id"]
    move = best_move(tables, "czech", fen, [])
    outcome = exam.answer(index=0, text=move)
    assert outcome.kind == "continue" and outcome.changed
    exam.refresh_from_db()
    line = exam.answers[0]["line"]
    board = Board("czech", fen)
    for text in line:
        board.push(board.parse_move(text))
    assert SealedPosition.objects.filter(label=DRILL_SEAL).exists()
    assert SealedPosition.is_sealed(board.fen(), "czech")


def test_without_the_databases_level_7_cannot_be_drawn(student, settings, tmp_path):
    from exams.models import Refused

    settings.DAMA_ENDGAMES_DIR = tmp_path
    endgames.forget()
    drills.forget()
    with pytest.raises(Refused):
        Exam.start(student, "czech", 7, "practice")
    drills.forget()
    endgames.forget()
