"""The Endgames courses (fixtures/lessons/endgames-*.yaml) checked against the endgame databases.

Every drill starts where its goal holds for the learner, the side to move: a win that fits the
variant's draw count (CUD 2006 art. 6 for Czech, the FMJD counts for 10x10; Brazilian has none),
or a draw; every claim a step states (``claims:``: this position is a draw, White wins in N
moves) is what the databases say. The databases are built once per test session
(``endgame_dir`` in tests/conftest.py). The texts are our own words, in both languages.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dama import Board
from dama.endgames import Tables, fits_count
from lessons.course import ENDGAME_COURSES, Course, Step, read_course

ROOT = Path(__file__).resolve().parents[2]
LESSONS_DIR = ROOT / "fixtures" / "lessons"
RULEBOOKS_DIR = ROOT.parent / "shared" / "rulebooks"
COURSES: dict[str, Course] = {
    slug: read_course(LESSONS_DIR / f"{slug}.yaml") for slug in ENDGAME_COURSES
}
STEPS: list[Step] = [step for course in COURSES.values() for step in course.steps]
IDS = [step.slug for step in STEPS]
CLAIMS = [(step, claim) for step in STEPS for claim in step.claims]
CLAIM_IDS = [f"{step.slug}:{claim.fen}" for step, claim in CLAIMS]


@pytest.fixture(scope="module")
def tables(endgame_dir) -> Tables:
    opened = Tables.open(endgame_dir)
    yield opened
    opened.close()


def test_one_course_per_variant_with_drills_of_every_theme():
    assert {c.variant for c in COURSES.values()} == {"czech", "international", "brazilian"}
    for course in COURSES.values():
        assert len(course.lessons) >= 3, course.slug
        goals = {step.exercise.goal for step in course.steps}
        assert goals == {"win", "draw"}, f"{course.slug}: a drill to win and one to hold"
        assert all(step.exercise.kind == "drill" for step in course.steps)
        assert all(step.claims for step in course.steps), f"{course.slug}: a step claims nothing"


def test_slugs_are_unique_and_carry_the_course():
    assert len(IDS) == len(set(IDS))
    prefixes = {"endgames-czech": "cz-eg-", "endgames-international": "int-eg-"}
    prefixes["endgames-brazilian"] = "br-eg-"
    for course in COURSES.values():
        assert all(s.slug.startswith(prefixes[course.slug]) for s in course.steps)


@pytest.mark.parametrize("step", STEPS, ids=IDS)
def test_drill_start_holds_the_goal(tables, step):
    """The learner moves first; a win fits the count, a draw is a draw to hold."""
    board = Board(step.variant, step.fen)
    assert board.outcome() is None and board.legal_moves
    probe = tables.probe(board)
    assert probe is not None, f"{step.slug}: its slice is not built"
    assert probe.result == step.exercise.goal, f"{step.slug}: the database says {probe}"
    if step.exercise.goal == "win":
        assert fits_count(board, probe) is not False, f"{step.slug}: the win takes {probe.plies}"
        best = tables.best_moves(board)
        assert len(best) < len(board.legal_moves), f"{step.slug}: every move wins, no lesson"
    else:
        assert step.exercise.hold >= 1
        ranked = tables.rank_moves(board)
        assert any(p.result == "loss" for _m, p in ranked), f"{step.slug}: nothing to go wrong"


@pytest.mark.parametrize(("step", "claim"), CLAIMS, ids=CLAIM_IDS)
def test_claim_is_what_the_database_says(tables, step, claim):
    board = Board(step.variant, claim.fen)
    probe = tables.probe(board)
    assert probe is not None, f"{step.slug}: the slice of {claim.fen} is not built"
    assert probe.result == claim.result, f"{step.slug}: {claim.fen} is {probe}"
    if claim.moves:
        assert probe.moves == claim.moves, f"{step.slug}: {claim.fen} takes {probe.moves} moves"
    if claim.fits is not None:
        assert fits_count(board, probe) is claim.fits, f"{step.slug}: {claim.fen} count"


def test_every_drill_position_is_in_a_claim():
    """What a drill's text says of its own position is a claim the test checks."""
    for step in STEPS:
        assert step.fen in {c.fen for c in step.claims}, step.slug


def test_claimed_move_counts_are_in_the_texts():
    """A claim of N moves is the number the step's text or prompt gives (in words or digits)."""
    words_en = {2: "two", 3: "three", 4: "four", 5: "five", 7: "seven", 8: "eight", 11: "eleven"}
    for step in STEPS:
        for claim in step.claims:
            if claim.fen != step.fen or not claim.moves:
                continue
            text = f"{step.text.en} {step.exercise.prompt.en}"
            said = {str(claim.moves), words_en.get(claim.moves, "?")}
            assert any(re.search(rf"\b{w}\b", text) for w in said), step.slug


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def _shingles(words: list[str], n: int = 8) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def test_texts_are_ours_in_both_languages():
    book: set[tuple[str, ...]] = set()
    for path in RULEBOOKS_DIR.glob("*.txt"):
        book |= _shingles(_words(path.read_text(encoding="utf-8")))
    for step in STEPS:
        for text in (step.title, step.text, step.exercise.prompt, step.exercise.hint):
            assert text.cs != text.en, step.slug
            assert not _shingles(_words(text.cs)) & book, f"{step.slug} copies a rulebook"
        assert re.search(r"[áčďéěíňóřšťúůýž]", step.text.cs.lower()), f"{step.slug}: Czech?"
        assert step.articles, step.slug
