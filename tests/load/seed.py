"""Seed the load test's database (run by run_load.py in the server's environment) and write the
plan the simulated users follow: accounts, the puzzles with the moves that solve them (six test
puzzles and, unless LOAD_CORPUS=0, the site's whole corpus), a class with its teacher, and the
lesson steps of the Czech course with their answers.

    DJANGO_SETTINGS_MODULE=dama_learn.settings python tests/load/seed.py USERS plan.json
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dama_learn.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.contrib.auth.hashers import make_password  # noqa: E402

from accounts.models import profile_of  # noqa: E402
from classroom.models import Assignment, Classroom, PuzzleSet  # noqa: E402
from lessons.course import get_course  # noqa: E402
from tests.puzzle_fixtures import PUZZLES, make_puzzle  # noqa: E402

PASSWORD = "load-test-password-42"


def main(users: int, plan_path: str) -> None:
    User = get_user_model()
    # one hash (salted once) for every load account: the site's first hasher, or LOAD_SEED_HASHER
    # (e.g. pbkdf2_sha256: accounts from before a change of hasher, each replaced at its log-in)
    hashed = make_password(PASSWORD, hasher=os.environ.get("LOAD_SEED_HASHER") or "default")
    teacher = User.objects.create(username="load-teacher", password=hashed)
    profile_of(teacher).grant_teacher_role()
    students = User.objects.bulk_create(
        [User(username=f"load-{n:03d}", password=hashed) for n in range(users)]
    )
    puzzles = []
    for name in PUZZLES:
        puzzle = make_puzzle(name)  # the public pool (a teacher's own puzzles stay private)
        if puzzle.for_exams:  # kept for the exams: never served, nor put in a set
            continue
        solution = list(puzzle.proof["solution"])
        puzzles.append(
            {
                "id": puzzle.pk,
                "variant": puzzle.variant,
                "moves": solution[::2],
                "name": name,
                "fen": puzzle.fen,
            }
        )
    class_puzzles = list(puzzles)
    if os.environ.get("LOAD_CORPUS", "1") == "1":
        # the site's own pool: the mined corpus of the three variants, proven here (about 20 s);
        # the stream then serves what a class really meets, the simulated students play the
        # proof's solution and the site answers with its most stubborn defence
        from io import StringIO

        from django.core.management import call_command

        from puzzles.models import Puzzle

        call_command("load_puzzles", str(ROOT / "fixtures" / "puzzles"), stdout=StringIO())
        known = {p["id"] for p in puzzles}
        for row in Puzzle.objects.practice().exclude(pk__in=known):
            solution = list((row.proof or {}).get("solution", []))
            if solution:
                puzzles.append(
                    {
                        "id": row.pk,
                        "variant": row.variant,
                        "moves": solution[::2],
                        "name": "",
                        "fen": row.fen,
                    }
                )
    classroom = Classroom.objects.create(name="Load club", variant="czech", created_by=teacher)
    classroom.teachers.add(teacher)
    for student in students:
        classroom.add_student(student)
    puzzle_set = PuzzleSet.objects.create(owner=teacher, title="Load set", variant="czech")
    for p in class_puzzles:
        if p["variant"] == "czech":
            from puzzles.models import Puzzle

            puzzle_set.add(Puzzle.objects.get(pk=p["id"]))
    Assignment.objects.create(puzzle_set=puzzle_set, classroom=classroom, assigned_by=teacher)
    steps = []
    for step in get_course("czech").steps:
        ex = step.exercise
        answer = ", ".join(ex.answers) if ex.mode == "select" else ex.answers[0]
        data = {"choice": answer} if ex.kind == "choose_move" else {"answer": answer}
        steps.append({"url": f"/learn/czech/{step.lesson.slug}/{step.slug}/", "data": data})
    # today's daily puzzles picked now, as the beat job does at the start of a day: picked by the
    # first visit to /daily/ during the run, one could be a puzzle the stream had just served, whose
    # plain address then leads on to the daily puzzle (a 302 the run counts as an error)
    from puzzles.daily import pick_daily_puzzles, todays_ids

    pick_daily_puzzles()
    daily = todays_ids()
    puzzles = [p for p in puzzles if p["id"] not in daily]
    plan = {
        "password": PASSWORD,
        "students": [s.username for s in students],
        "teacher": teacher.username,
        "classroom": classroom.pk,
        "set": puzzle_set.pk,
        "puzzles": puzzles,
        "steps": steps,
    }
    Path(plan_path).write_text(json.dumps(plan, indent=1))
    print(f"seeded {users} students, {len(puzzles)} puzzles, {len(steps)} lesson steps")


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
