"""The Combinations courses (issue 17): one lesson per named shot of ``dama.shots`` per variant.

The rest of each course (schema, both languages, every answer legal, the coverage table of the
sources) is checked with the rule courses by ``test_course_fixtures.py``; here:

* every step's ``shot.line`` is proven by the solver (unique for its goal, free of duals on the
  main line) and is exactly the line the course shows;
* the shot's own predicate names that line, and the name is one ``dama.shots`` gives the variant;
* the exercise asks for the line's first move (``move``), or for the solver's move after the
  line's first moves (``what_if`` with ``after`` = the start of the line);
* each course teaches every shot ``dama.shots`` names for its variant;
* on the site: the courses render in Czech and English, the variant's course map leads to its
  Combinations course, a step names its source, and its drill links to the puzzle trainer filtered
  by the shot when the collection has puzzles of it, and says so when it has none.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

import dama
from dama.mine import is_dual_free, rule_motifs
from dama.shots import Line, named_shots, shot_names
from dama.solve import Limits, solve

ROOT = Path(__file__).resolve().parents[2]
LESSONS_DIR = ROOT / "fixtures" / "lessons"
VARIANTS = ("czech", "international", "brazilian")
FILES = {v: f"combinations-{v}" for v in VARIANTS}


def _load(name: str) -> dict[str, Any]:
    with open(LESSONS_DIR / f"{name}.yaml", encoding="utf-8") as fh:
        return yaml.safe_load(fh)


COURSES = {v: _load(name) for v, name in FILES.items()}
SHOT_STEPS = [
    (variant, step)
    for variant, course in COURSES.items()
    for lesson in course["lessons"]
    for step in lesson["steps"]
    if "shot" in step
]
IDS = [f"{v}/{s['slug']}" for v, s in SHOT_STEPS]


def _moves(board: dama.Board, texts: list[str]) -> list[dama.Move]:
    b = board.copy()
    out = []
    for t in texts:
        m = b.parse_move(str(t))
        out.append(m)
        b.push(m)
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_each_course_is_of_its_variant_and_every_step_teaches_a_shot(variant):
    course = COURSES[variant]
    assert course["course"]["slug"] == FILES[variant]
    assert course["course"]["variant"] == variant
    for lesson in course["lessons"]:
        for step in lesson["steps"]:
            assert "shot" in step, f"{step['slug']}: a Combinations step names its shot"


#: shots dama.shots names for a variant that have no lesson yet (no composed position proven
#: for them so far); the test below keeps this list exact, so it shrinks as lessons are added
NOT_YET: dict[str, set[str]] = {
    "czech": {"coup_turc", "coup_suisse", "breakthrough"},
    "international": {
        "coup_raphael",
        "coup_de_repos",
        "coup_turc",
        "coup_suisse",
        "coup_de_dame",
        "lock",
    },
    "brazilian": {"coup_turc", "coup_suisse", "coup_de_dame"},
}


@pytest.mark.parametrize("variant", VARIANTS)
def test_each_course_teaches_every_shot_named_for_its_variant(variant):
    taught = {step["shot"]["name"] for v, step in SHOT_STEPS if v == variant}
    named = set(shot_names(variant))
    assert taught <= named, f"{variant}: names dama.shots does not give it {taught - named}"
    assert not taught & NOT_YET[variant], f"{variant}: taught now, drop from NOT_YET"
    assert named == taught | NOT_YET[variant], (
        f"{variant}: shots without a lesson {sorted(named - taught - NOT_YET[variant])}"
    )


@pytest.mark.parametrize(("variant", "step"), SHOT_STEPS, ids=IDS)
def test_the_line_is_proven_unique_and_the_shot_predicate_names_it(variant, step):
    shot = step["shot"]
    board = dama.Board(variant, str(step["diagram"]["fen"]))
    line = [str(t) for t in shot["line"]]
    moves = _moves(board, line)
    horizon = (len(line) + 1) // 2
    verdict = solve(board, shot["goal"], Limits(moves=horizon, nodes=2_000_000, seconds=120))
    assert verdict.kind == "unique", (step["slug"], verdict.kind, verdict.reason)
    assert is_dual_free(verdict), (step["slug"], verdict.duals)
    assert _moves(board, list(verdict.solution)) == moves, (step["slug"], verdict.solution)
    names = named_shots(Line.from_moves(board, moves, rule_motifs))
    assert shot["name"] in names, (step["slug"], names)
    assert shot["name"] in shot_names(variant)


@pytest.mark.parametrize(("variant", "step"), SHOT_STEPS, ids=IDS)
def test_the_exercise_asks_for_the_shot_s_own_move(variant, step):
    board = dama.Board(variant, str(step["diagram"]["fen"]))
    line = [str(t) for t in step["shot"]["line"]]
    ex = step["exercise"]
    after = [str(t) for t in ex.get("after") or []]
    assert ex["kind"] in ("move", "what_if", "capture_route")
    assert line[: len(after)] == after, f"{step['slug']}: after must be the start of the line"
    assert len(after) % 2 == 0, f"{step['slug']}: the learner plays the solver's move"
    expected = _moves(board, line)[len(after)]
    b = board.copy()
    for m in _moves(board, after):
        b.push(m)
    answers = ex["answer"]
    if isinstance(answers, dict):
        answers = answers.get("routes") or [answers["move"]]
    for answer in answers:
        assert b.parse_move(str(answer)) == expected, (step["slug"], answer)


# -- on the site -------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("variant", VARIANTS)
def test_the_course_map_renders_in_both_languages_and_the_variant_course_leads_to_it(
    client, variant
):
    from lessons.course import get_course

    course = get_course(FILES[variant])
    html = client.get(f"/learn/{variant}/").content.decode()
    assert 'data-testid="combinations-course"' in html
    assert f'href="/learn/{FILES[variant]}/"' in html
    html = client.get(f"/learn/{FILES[variant]}/").content.decode()
    assert course.title.en in html and course.steps[0].title.en in html
    client.post("/language", {"language": "cs"})
    html = client.get(f"/learn/{FILES[variant]}/").content.decode()
    assert course.title.cs in html and course.steps[0].title.cs in html


@pytest.mark.django_db
def test_a_step_names_its_source_and_its_drill_says_there_is_no_puzzle_yet(client):
    from lessons.course import get_course

    step = get_course("combinations-czech").steps[0]
    html = client.get(step.get_absolute_url()).content.decode()
    assert "Source:" in html and step.articles[0].split(":")[0] in html
    assert 'data-testid="drill-none"' in html
    assert 'data-testid="drill-link"' not in html
    assert "no puzzle with this shot yet" in html
    client.post("/language", {"language": "cs"})
    html = client.get(step.get_absolute_url()).content.decode()
    assert "Zdroj:" in html and 'data-testid="drill-none"' in html


@pytest.mark.django_db
def test_the_drill_links_to_the_trainer_filtered_by_the_shot_when_puzzles_have_it(client):
    from lessons.course import get_course
    from tests.puzzle_fixtures import make_puzzle

    step = get_course("combinations-czech").steps[0]
    name = step.shot.name
    puzzle = make_puzzle("czech_capture", motifs=["capture:1", name])
    make_puzzle("czech_capture", fen="W:W22:B18", goal="capture", motifs=["capture:1"])
    html = client.get(step.get_absolute_url()).content.decode()
    href = f'href="/puzzles/czech/?motif={name}"'
    assert href in html and 'data-testid="drill-link"' in html
    assert "(1 in the collection)" in html
    assert 'data-testid="drill-none"' not in html
    # the trainer serves the puzzle of the shot
    response = client.get(f"/puzzles/czech/?motif={name}")
    assert response.status_code == 302
    assert response["Location"].startswith(f"/puzzles/czech/{puzzle.pk}/")
