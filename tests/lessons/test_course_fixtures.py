"""Every rule lesson in ``fixtures/lessons/*.yaml`` is checked against the engine.

Pure engine + PyYAML: no Django, no database. The schema is documented at the top of each course
file and in ``docs/lessons-coverage.md``; in short::

    course: {slug, variant, notation, title, summary}
    lessons: [{slug, title, summary, steps: [step, ...]}, ...]
    step: {slug, title, text, articles, diagram: {fen, variant?, highlight?, arrows?},
           compare?, exercise: {kind, prompt, hint, answer, wrong, ...}}
    coverage: {"CUD 2006 art. 4.14": [step slug, ...], ...}
    not_covered: {"CUD 2006 art. 10": {cs, en}, ...}

What is checked, step by step:

* the schema: required fields, both languages present and non-empty, slugs unique everywhere;
* every FEN is valid for its variant, every highlighted square exists;
* every expected answer is legal (``select_captures``: the set equals the engine's full set of
  captures; ``capture_route``: each route is a complete legal route; ``click_square``: the square
  exists; ``what_if``: the ``after`` moves are legal in sequence, then the answer is checked there);
* every ``wrong`` example with a ``code`` is illegal and the engine explains it with exactly that
  code; every ``wrong`` example with ``feedback`` is legal but not an accepted answer;
* ``outcome`` (when given): playing the answer ends the game for exactly that reason;
* comparison steps: the listed legal moves per variant equal the engine's legal moves;
* coverage: every article in a course's table has at least one existing step, the table and the
  steps' ``articles`` agree exactly, and ``docs/lessons-coverage.md`` shows the same table;
* the texts are our own words: no eight-word run of a rulebook appears in a lesson text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

import dama
from dama import AmbiguousMoveError, IllegalMoveError, InvalidMoveError

ROOT = Path(__file__).resolve().parents[2]
LESSONS_DIR = ROOT / "fixtures" / "lessons"
COVERAGE_DOC = ROOT / "docs" / "lessons-coverage.md"
RULEBOOKS_DIR = ROOT.parent / "shared" / "rulebooks"

#: the Combinations courses (issue 17) are checked here like the rule courses; their shots' lines
#: are proven and named by tests/lessons/test_combinations.py
COMBINATION_COURSES = ("combinations-czech", "combinations-international", "combinations-brazilian")
#: the Strategy courses (issue 50): their "choose the better move" margins are searched by
#: tests/lessons/test_strategy.py
STRATEGY_COURSES = ("strategy-czech", "strategy-international", "strategy-brazilian")
COURSE_FILES = (
    "czech",
    "international",
    "brazilian",
    "comparison",
    *COMBINATION_COURSES,
    *STRATEGY_COURSES,
)
#: the rule courses use the first six; ``better_move`` is the strategy courses' own
RULE_KINDS = ("move", "capture_route", "select_captures", "choose_move", "click_square", "what_if")
KINDS = (*RULE_KINDS, "better_move")
OUTCOMES = ("no_pieces", "no_moves", "threefold", "move_rule", "endgame_count", "none")
LANGS = ("cs", "en")
SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
CZECH_LETTERS = set("áčďéěíňóřšťúůýžÁČĎÉĚÍŇÓŘŠŤÚŮÝŽ")
#: the variant courses must use every exercise kind; the comparison course is free
VARIANT_COURSES = ("czech", "international", "brazilian")


# -- loading -------------------------------------------------------------------------------------
def load_course(name: str) -> dict[str, Any]:
    with open(LESSONS_DIR / f"{name}.yaml", encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    assert isinstance(data, dict), f"{name}.yaml must be a mapping"
    return data


COURSES: dict[str, dict[str, Any]] = {}
for _name in COURSE_FILES:
    if (LESSONS_DIR / f"{_name}.yaml").exists():
        COURSES[_name] = load_course(_name)


def iter_steps() -> Iterator[tuple[str, dict[str, Any], dict[str, Any]]]:
    for cname, course in COURSES.items():
        for lesson in course.get("lessons") or []:
            for step in lesson.get("steps") or []:
                yield cname, lesson, step


STEPS = list(iter_steps())
STEP_IDS = [f"{c}/{s.get('slug', '?')}" for c, _, s in STEPS]


def step_variant(course: dict[str, Any], step: dict[str, Any]) -> str:
    return str(step["diagram"].get("variant") or course["course"]["variant"])


def diagram_board(course: dict[str, Any], step: dict[str, Any]) -> dama.Board:
    return dama.Board(step_variant(course, step), str(step["diagram"]["fen"]))


# -- engine helpers ------------------------------------------------------------------------------
def parse_legal(board: dama.Board, text: str) -> dama.Move:
    """The legal move ``text``; fails the test (not an error) when it is not one."""
    try:
        return board.parse_move(str(text))
    except (IllegalMoveError, InvalidMoveError, AmbiguousMoveError) as e:
        pytest.fail(f"{text!r} should be legal in {board.fen()} ({board.variant.name}): {e}")


def is_complete_route(board: dama.Board, text: str) -> dama.Move | None:
    """The move of which ``text`` is a complete landing-by-landing route, or None."""
    try:
        squares = [board.parse_square(p) for p in re.split(r"\s*[-x:]\s*", text.strip())]
    except dama.DamaError:
        return None
    for m in board.legal_moves:
        if m.captured and tuple(squares) in m.routes:
            return m
    return None


def assert_wrong(board: dama.Board, wrong: dict[str, Any], accepted: set[dama.Move], where: str):
    text = str(wrong["move"])
    if "code" in wrong:
        legal = True
        try:
            board.parse_move(text)
        except IllegalMoveError:
            legal = False
        except AmbiguousMoveError:
            pytest.fail(f"{where}: wrong example {text!r} is ambiguous, write the full route")
        assert not legal, f"{where}: wrong example {text!r} is legal in {board.fen()}"
        exp = board.explain_illegal(text)
        assert exp is not None, f"{where}: the engine gives no explanation for {text!r}"
        assert exp.code == wrong["code"], (
            f"{where}: {text!r} in {board.fen()} is explained as {exp.code!r} "
            f"({exp.message_en}), the lesson expects {wrong['code']!r}"
        )
        assert exp.article and exp.message_en and exp.message_cs
    else:
        m = parse_legal(board, text)
        assert m not in accepted, f"{where}: legal-wrong example {text!r} is an accepted answer"


def check_outcome(board: dama.Board, expected: str | None, where: str) -> None:
    if expected is None:
        return
    out = board.outcome()
    got = out.reason if out is not None else "none"
    assert got == expected, (
        f"{where}: after the answer the outcome is {got!r}, expected {expected!r}"
    )


def check_moves_answer(board: dama.Board, ex: dict[str, Any], where: str) -> None:
    answers = ex["answer"]
    assert isinstance(answers, list) and answers, f"{where}: answer must be a non-empty list"
    accepted = {parse_legal(board, a) for a in answers}
    for a in answers:
        m = board.parse_move(str(a))
        board.push(m)
        check_outcome(board, ex.get("outcome"), f"{where} ({a})")
        board.pop()
    for w in ex.get("wrong") or []:
        assert_wrong(board, w, accepted, where)


# -- schema --------------------------------------------------------------------------------------
def assert_text(value: Any, where: str) -> None:
    assert isinstance(value, dict), f"{where} must be a mapping {{cs: ..., en: ...}}"
    assert set(value) == set(LANGS), f"{where} must have exactly the languages cs and en"
    for lang in LANGS:
        assert isinstance(value[lang], str) and value[lang].strip(), f"{where}.{lang} is empty"
    assert value["cs"].strip() != value["en"].strip(), f"{where}: cs and en are the same text"


def test_all_course_files_exist():
    missing = [n for n in COURSE_FILES if n not in COURSES]
    assert not missing, f"missing course files: {missing}"


@pytest.mark.parametrize("cname", list(COURSES))
def test_course_schema(cname):
    course = COURSES[cname]
    assert set(course) >= {"course", "lessons", "coverage"}, f"{cname}: top-level keys"
    meta = course["course"]
    assert meta["slug"] == cname
    if cname == "comparison":
        assert meta["variant"] == "mixed"
    else:
        assert meta["variant"] in dama.VARIANT_NAMES
    assert meta["notation"] in ("numeric", "algebraic")
    assert_text(meta["title"], f"{cname}.title")
    assert_text(meta["summary"], f"{cname}.summary")
    lessons = course["lessons"]
    assert isinstance(lessons, list) and lessons
    for lesson in lessons:
        assert SLUG.match(lesson["slug"]), lesson["slug"]
        assert_text(lesson["title"], f"{lesson['slug']}.title")
        assert_text(lesson["summary"], f"{lesson['slug']}.summary")
        assert lesson["steps"], f"{lesson['slug']} has no steps"


@pytest.mark.parametrize("cname", [c for c in VARIANT_COURSES if c in COURSES])
def test_variant_course_size_and_kinds(cname):
    course = COURSES[cname]
    lessons = course["lessons"]
    steps = [s for lesson in lessons for s in lesson["steps"]]
    assert 6 <= len(lessons) <= 9, f"{cname}: {len(lessons)} lessons"
    assert 30 <= len(steps) <= 45, f"{cname}: {len(steps)} steps"
    kinds = {s["exercise"]["kind"] for s in steps}
    assert kinds == set(RULE_KINDS), f"{cname}: kinds missing {set(RULE_KINDS) - kinds}"


def test_slugs_unique_everywhere():
    seen: dict[str, str] = {}
    for cname, course in COURSES.items():
        for lesson in course["lessons"]:
            for slug in [lesson["slug"], *(s["slug"] for s in lesson["steps"])]:
                assert slug not in seen, f"slug {slug!r} in {cname} already used in {seen[slug]}"
                seen[slug] = cname


@pytest.mark.parametrize(("cname", "lesson", "step"), STEPS, ids=STEP_IDS)
def test_step_schema(cname, lesson, step):
    course = COURSES[cname]
    slug = step["slug"]
    assert SLUG.match(slug), slug
    for key in ("title", "text"):
        assert_text(step[key], f"{slug}.{key}")
    assert any(ch in CZECH_LETTERS for ch in step["text"]["cs"]), (
        f"{slug}: text.cs has no diacritics"
    )
    assert isinstance(step["articles"], list) and step["articles"], f"{slug}: no articles"
    diagram = step["diagram"]
    board = diagram_board(course, step)  # raises InvalidFenError on a bad FEN
    for sq in diagram.get("highlight") or []:
        board.parse_square(str(sq))
    for arrow in diagram.get("arrows") or []:
        assert len(arrow) == 2, f"{slug}: an arrow is [from, to]"
        for sq in arrow:
            board.parse_square(str(sq))
    ex = step["exercise"]
    assert ex["kind"] in KINDS, f"{slug}: unknown kind {ex['kind']!r}"
    assert_text(ex["prompt"], f"{slug}.exercise.prompt")
    assert_text(ex["hint"], f"{slug}.exercise.hint")
    assert "answer" in ex, f"{slug}: no answer"
    if "solution" in ex:
        assert_text(ex["solution"], f"{slug}.exercise.solution")
    assert ex.get("outcome", "none") in OUTCOMES
    for w in ex.get("wrong") or []:
        assert ("move" in w) != ("square" in w), f"{slug}: a wrong example names a move or a square"
        assert ("code" in w) != ("feedback" in w), f"{slug}: wrong example needs code xor feedback"
        if "feedback" in w:
            assert_text(w["feedback"], f"{slug}.wrong.feedback")
        if "square" in w:
            assert "feedback" in w, f"{slug}: a wrong square needs feedback"
    if cname != "comparison":
        assert "variant" not in diagram, f"{slug}: only comparison steps name a variant per diagram"
        assert "compare" not in step


# -- exercises through the engine ----------------------------------------------------------------
@pytest.mark.parametrize(("cname", "lesson", "step"), STEPS, ids=STEP_IDS)
def test_exercise_is_right_by_the_engine(cname, lesson, step):
    course = COURSES[cname]
    board = diagram_board(course, step)
    ex = step["exercise"]
    kind = ex["kind"]
    where = f"{cname}/{step['slug']}"
    if kind == "move":
        check_moves_answer(board, ex, where)

    elif kind == "capture_route":
        ans = ex["answer"]
        if isinstance(ans, dict) and ans.get("any_route"):
            m = parse_legal(board, ans["move"])
            assert m.captured, f"{where}: {ans['move']} is not a capture"
            accepted = {m}
        else:
            assert isinstance(ans, dict) and ans.get("routes"), f"{where}: answer.routes"
            accepted = set()
            for r in ans["routes"]:
                m2 = is_complete_route(board, str(r))
                assert m2 is not None, f"{where}: {r!r} is not a complete legal capture route"
                accepted.add(m2)
        for m in accepted:
            board.push(m)
            check_outcome(board, ex.get("outcome"), where)
            board.pop()
        for w in ex.get("wrong") or []:
            assert_wrong(board, w, accepted, where)

    elif kind == "select_captures":
        answers = ex["answer"]
        chosen = {parse_legal(board, a) for a in answers}
        assert len(chosen) == len(answers), f"{where}: the same capture is listed twice"
        engine = {m for m in board.legal_moves if m.captured}
        assert engine, f"{where}: there is no capture to find"
        assert chosen == engine, (
            f"{where}: listed {sorted(map(str, chosen))}, engine has {sorted(map(str, engine))}"
        )
        for w in ex.get("wrong") or []:
            assert_wrong(board, w, chosen, where)

    elif kind == "choose_move":
        options = [str(o) for o in ex["options"]]
        assert len(options) >= 2 and len(set(options)) == len(options)
        assert str(ex["answer"]) in options, f"{where}: the answer is not among the options"
        legal_options = []
        for o in options:
            try:
                board.parse_move(o)
                legal_options.append(o)
            except IllegalMoveError:
                pass
        assert legal_options == [str(ex["answer"])], f"{where}: legal options {legal_options}"
        wrong_moves = {str(w["move"]) for w in ex.get("wrong") or []}
        assert wrong_moves == set(options) - {str(ex["answer"])}, (
            f"{where}: every other option needs a wrong entry with its code"
        )
        accepted = {board.parse_move(str(ex["answer"]))}
        for w in ex["wrong"]:
            assert "code" in w, f"{where}: the other options of choose_move are illegal moves"
            assert_wrong(board, w, accepted, where)
        m = next(iter(accepted))
        board.push(m)
        check_outcome(board, ex.get("outcome"), where)
        board.pop()

    elif kind == "better_move":
        options = [str(o) for o in ex["options"]]
        assert 2 <= len(options) <= 3 and len(set(options)) == len(options), f"{where}: options"
        assert str(ex["answer"]) in options, f"{where}: the answer is not among the options"
        moves = [parse_legal(board, o) for o in options]  # every option is a legal move
        assert len(set(moves)) == len(moves), f"{where}: two options are the same move"
        wrong_moves = {str(w["move"]) for w in ex.get("wrong") or []}
        assert wrong_moves == set(options) - {str(ex["answer"])}, (
            f"{where}: every other option needs a wrong entry with its feedback"
        )
        accepted = {board.parse_move(str(ex["answer"]))}
        for w in ex["wrong"]:
            assert "feedback" in w, f"{where}: the other options of better_move are legal moves"
            assert_wrong(board, w, accepted, where)

    elif kind == "click_square":
        target = board.parse_square(str(ex["answer"]))
        for w in ex.get("wrong") or []:
            assert "square" in w, f"{where}: click_square wrong examples are squares"
            assert board.parse_square(str(w["square"])) != target

    elif kind == "what_if":
        after = ex["after"]
        assert isinstance(after, list) and after, f"{where}: what_if needs after: [moves]"
        for text in after:
            board.push(parse_legal(board, str(text)))
        assert ex["answer_type"] in ("move", "square"), f"{where}: answer_type move or square"
        check_outcome_before = ex.get("outcome_after")
        check_outcome(board, check_outcome_before, f"{where} (after the given moves)")
        if ex["answer_type"] == "move":
            check_moves_answer(board, ex, where)
        else:
            target = board.parse_square(str(ex["answer"]))
            for w in ex.get("wrong") or []:
                assert board.parse_square(str(w["square"])) != target

    else:  # pragma: no cover - the schema test rejects unknown kinds
        pytest.fail(f"{where}: unknown kind {kind}")


@pytest.mark.parametrize(
    ("cname", "lesson", "step"),
    [x for x in STEPS if "compare" in x[2]],
    ids=[i for i, x in zip(STEP_IDS, STEPS, strict=True) if "compare" in x[2]],
)
def test_comparison_legal_moves_per_variant(cname, lesson, step):
    variants = []
    for entry in step["compare"]:
        variant = entry["variant"]
        variants.append(variant)
        fen = entry.get("fen") or step["diagram"]["fen"]
        board = dama.Board(variant, str(fen))
        listed = {parse_legal(board, t) for t in entry["legal"]}
        assert len(listed) == len(entry["legal"]), f"{step['slug']}: a move is listed twice"
        engine = set(board.legal_moves)
        assert listed == engine, (
            f"{step['slug']} ({variant}): listed {sorted(map(str, listed))}, "
            f"engine {sorted(map(str, engine))}"
        )
        assert_text(entry["note"], f"{step['slug']}.compare.{variant}.note")
    assert len(set(variants)) == len(variants) >= 2
    assert step["diagram"]["variant"] in variants


def test_comparison_course_covers_all_three_variants():
    course = COURSES["comparison"]
    seen = {
        e["variant"] for lesson in course["lessons"] for s in lesson["steps"] for e in s["compare"]
    }
    assert seen == set(dama.VARIANT_NAMES)
    for lesson in course["lessons"]:
        for s in lesson["steps"]:
            assert "compare" in s, f"{s['slug']}: every comparison step lists moves per variant"


# -- coverage ------------------------------------------------------------------------------------
@pytest.mark.parametrize("cname", list(COURSES))
def test_coverage_table_matches_steps(cname):
    course = COURSES[cname]
    coverage: dict[str, list[str]] = course["coverage"]
    steps = {s["slug"]: s for lesson in course["lessons"] for s in lesson["steps"]}
    for article, slugs in coverage.items():
        assert slugs, f"{cname}: article {article!r} has no step"
        for slug in slugs:
            assert slug in steps, f"{cname}: coverage of {article!r} names unknown step {slug!r}"
            assert article in steps[slug]["articles"], f"{slug} does not cite {article!r}"
    for slug, step in steps.items():
        for article in step["articles"]:
            assert article in coverage, f"{cname}: {slug} cites {article!r}, not in the table"
            assert slug in coverage[article], f"{cname}: table of {article!r} misses {slug}"
    not_covered = course.get("not_covered") or {}
    for article, why in not_covered.items():
        assert article not in coverage, f"{article!r} is both covered and not covered"
        assert_text(why, f"{cname}.not_covered[{article!r}]")


def _article_order_key(article: str) -> list[Any]:
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", article)]


REQUIRED_ARTICLES = {
    "czech": [
        *(f"CUD 2006 art. 2.{n}" for n in (1, 2, 3, 4, 5, 7, 8)),
        "CUD 2006 art. 2.6a",
        "CUD 2006 art. 2.6b",
        *(f"CUD 2006 art. 3.{n}" for n in range(1, 10)),
        *(f"CUD 2006 art. 4.{n}" for n in range(1, 15)),
        *(f"CUD 2006 art. 6.{n}" for n in range(1, 5)),
        "CUD 2006 art. 7.2b",
        "CUD 2006 art. 7.2c",
        "CUD 2006 art. 7.3a",
        "CUD 2006 art. 8.1a",
        "CUD 2006 art. 8.1b",
        "CUD 2006 art. 8.2",
    ],
    "international": [
        *(f"SDS international art. {n}" for n in range(1, 10)),
        "FMJD rules: 25-move rule",
        "FMJD rules: 16-move rule",
        "FMJD rules: 5-move rule",
    ],
    "brazilian": [f"SDS Brazilian art. {n}" for n in range(1, 10)],
}


@pytest.mark.parametrize("cname", [c for c in REQUIRED_ARTICLES if c in COURSES])
def test_every_rule_bearing_article_is_covered(cname):
    coverage = COURSES[cname]["coverage"]
    missing = [a for a in REQUIRED_ARTICLES[cname] if not coverage.get(a)]
    assert not missing, f"{cname}: rule-bearing articles with no step: {missing}"


def _doc_tables() -> dict[str, dict[str, set[str]]]:
    """``docs/lessons-coverage.md`` rows ``| article | course | lesson | steps |`` per course."""
    out: dict[str, dict[str, set[str]]] = {}
    for line in COVERAGE_DOC.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| "):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[1] not in COURSE_FILES:
            continue
        slugs = set(re.findall(r"`([a-z0-9-]+)`", cells[3]))
        out.setdefault(cells[1], {})[cells[0]] = slugs
    return out


@pytest.mark.parametrize("cname", list(COURSES))
def test_coverage_doc_matches_the_course(cname):
    doc = _doc_tables().get(cname, {})
    coverage = {a: set(s) for a, s in COURSES[cname]["coverage"].items()}
    assert doc == coverage, (
        f"docs/lessons-coverage.md and {cname}.yaml disagree: "
        f"only in doc {sorted(set(doc) - set(coverage))}, "
        f"only in yaml {sorted(set(coverage) - set(doc))}, "
        f"different steps {sorted(a for a in doc if a in coverage and doc[a] != coverage[a])}"
    )
    steps = {s["slug"] for lesson in COURSES[cname]["lessons"] for s in lesson["steps"]}
    for article, slugs in doc.items():
        assert slugs and slugs <= steps, f"docs: {article!r} needs existing steps"


# -- our own words -------------------------------------------------------------------------------
def _words(text: str) -> list[str]:
    text = unicodedata.normalize("NFC", text.lower())
    return re.findall(r"\w+", text)


def _shingles(words: list[str], n: int = 8) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


@pytest.mark.skipif(not RULEBOOKS_DIR.is_dir(), reason="the shared rulebooks are not checked out")
def test_lesson_texts_are_our_own_words():
    book: set[tuple[str, ...]] = set()
    for path in RULEBOOKS_DIR.glob("*.txt"):
        book |= _shingles(_words(path.read_text(encoding="utf-8")))
    for cname, _lesson, step in STEPS:
        texts = [
            step["text"]["cs"],
            step["exercise"]["prompt"]["cs"],
            step["exercise"]["hint"]["cs"],
        ]
        for t in texts:
            common = _shingles(_words(t)) & book
            assert not common, (
                f"{cname}/{step['slug']} copies the rulebook: {' '.join(min(common))}"
            )
