"""Every "choose the better move" exercise is checked by the engine's deep search.

The strategy courses (``fixtures/lessons/strategy-<variant>.yaml``) and the strategy exam pools
(``exams/questions/strategy-<variant>.yaml``) name their check as data: ``check: {depth,
margin}``. Each ``better_move`` exercise holds while the answer's score, searched to ``depth``
plies by :func:`dama.compare.compare_moves` (a depth limit alone: the same verdict on every
machine), beats every other option's by at least ``margin`` centi-men. An exercise whose margin
shrinks below that (a change of the engine, of the position or of the options) fails here.

Pure engine + PyYAML, no Django. The 8x8 files are searched at depth 10, the 10x10 ones at depth
8: every exercise takes well under a second (all of them about 20 s on a loaded 2-core machine),
so none is marked ``slow``. Figures: ``docs/benchmarks/strategy.md``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

import dama
from dama.compare import compare_moves, margin

ROOT = Path(__file__).resolve().parents[2]
VARIANTS = ("czech", "international", "brazilian")
COURSES = {v: ROOT / "fixtures" / "lessons" / f"strategy-{v}.yaml" for v in VARIANTS}
POOLS = {v: ROOT / "exams" / "questions" / f"strategy-{v}.yaml" for v in VARIANTS}


def _load(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    assert isinstance(data, dict), f"{path.name} must be a mapping"
    return data


def _check(data: dict[str, Any], where: str) -> tuple[int, int]:
    check = (data.get("course") or {}).get("check") or data.get("check")
    assert isinstance(check, dict), f"{where}: no check: {{depth, margin}}"
    depth, threshold = check["depth"], check["margin"]
    assert isinstance(depth, int) and 2 <= depth <= 12, f"{where}: depth {depth}"
    assert isinstance(threshold, int) and threshold >= 100, f"{where}: margin {threshold}"
    return depth, threshold


def exercises() -> list[Any]:
    """``(variant, where, fen, exercise, depth, margin)`` of every ``better_move`` exercise."""
    out = []
    for variant in VARIANTS:
        course = _load(COURSES[variant])
        depth, threshold = _check(course, COURSES[variant].name)
        for lesson in course["lessons"]:
            for step in lesson["steps"]:
                if step["exercise"]["kind"] == "better_move":
                    where = f"strategy-{variant}/{step['slug']}"
                    out.append((variant, where, step["diagram"]["fen"], step["exercise"]))
                    out[-1] = (*out[-1], depth, threshold)
        pool = _load(POOLS[variant])
        depth, threshold = _check(pool, POOLS[variant].name)
        for q in pool["questions"]:
            where = f"exam:{variant}/{q['id']}"
            out.append((variant, where, q["fen"], q["exercise"], depth, threshold))
    return out


def _param(item: tuple[Any, ...]) -> Any:
    return pytest.param(*item, id=item[1])


EXERCISES = exercises()


@pytest.mark.parametrize(
    ("variant", "where", "fen", "ex", "depth", "threshold"), [_param(e) for e in EXERCISES]
)
def test_the_answer_is_better_by_the_margin(variant, where, fen, ex, depth, threshold):
    board = dama.Board(variant, fen)
    answer = str(ex["answer"])
    others = [str(o) for o in ex["options"] if str(o) != answer]
    assert others, f"{where}: no other option"
    scores = compare_moves(board, [answer, *others], depth)
    found = scores[answer] - max(scores[o] for o in others)
    assert found >= threshold, (
        f"{where}: {answer} beats the other options by {found} centi-men at depth {depth}, "
        f"less than the margin {threshold}: {scores}"
    )


def test_a_swapped_answer_fails_the_margin():
    """The check is not vacuous: the first Czech exercise asked the other way round (a weaker
    option as the answer) is far below its margin."""
    variant, where, fen, ex, depth, threshold = next(e for e in EXERCISES if e[0] == "czech")
    board = dama.Board(variant, fen)
    weaker = next(str(o) for o in ex["options"] if str(o) != str(ex["answer"]))
    rest = [str(o) for o in ex["options"] if str(o) != weaker]
    assert margin(board, weaker, rest, depth) <= -threshold, where


def test_every_variant_has_course_and_pool_exercises():
    for variant in VARIANTS:
        mine = [e for e in EXERCISES if e[0] == variant]
        assert any(e[1].startswith("strategy-") for e in mine), variant
        assert sum(e[1].startswith("exam:") for e in mine) >= 8, variant


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_exam_pool_asks_no_position_the_course_shows(variant):
    """The exam's questions are positions the course does not show: neither a diagram nor a
    position reached by a step's moves (the same pieces with either side to move count)."""
    course = _load(COURSES[variant])
    shown = set()
    for lesson in course["lessons"]:
        for step in lesson["steps"]:
            board = dama.Board(variant, step["diagram"]["fen"])
            shown.add(board.fen().split(":", 1)[1])
            for text in step["exercise"].get("after") or []:
                board.push(board.parse_move(str(text)))
                shown.add(board.fen().split(":", 1)[1])
    pool = _load(POOLS[variant])
    for q in pool["questions"]:
        pieces = dama.Board(variant, q["fen"]).fen().split(":", 1)[1]
        assert pieces not in shown, f"{q['id']}: the course shows this position"
    ids = [q["id"] for q in pool["questions"]]
    assert len(set(ids)) == len(ids)
    kept = [q for q in pool["questions"] if q["pool"] == "exam"]
    practice = [q for q in pool["questions"] if q["pool"] == "practice"]
    assert kept and practice and len(kept) + len(practice) == len(ids)
