"""A class exam's results for its teachers: one row per student (the score, the pass, each
question right, wrong or open), and per question number how many got it right."""

from __future__ import annotations

from django.utils import timezone

from .models import OPEN, RIGHT, WRONG, ClassExam, Exam


def class_results(class_exam: ClassExam) -> dict:
    sittings = {
        e.user_id: e
        for e in Exam.objects.filter(class_exam=class_exam).select_related("certificate")
    }
    for sitting in sittings.values():
        sitting.expire_if_due()
    info = class_exam.level_info
    total = info.questions if info else 0
    per_question = [{"number": i + 1, "right": 0, "wrong": 0} for i in range(total)]
    rows = []
    for student in class_exam.classroom.students():
        sitting = sittings.get(student.pk)
        states = []
        if sitting is not None:
            for i, answer in enumerate(sitting.answers[:total]):
                state = answer.get("state", OPEN)
                states.append(state)
                if state == RIGHT:
                    per_question[i]["right"] += 1
                elif state == WRONG:
                    per_question[i]["wrong"] += 1
        rows.append(
            {
                "student": student,
                "name": student.get_full_name() or student.get_username(),
                "sitting": sitting,
                "states": states,
                "right": sum(1 for s in states if s == RIGHT),
            }
        )
    now = timezone.now()
    live = class_exam.is_open(now) or any(s.finished_at is None for s in sittings.values())
    return {
        "rows": rows,
        "per_question": per_question,
        "started": len(sittings),
        "finished": sum(1 for s in sittings.values() if s.finished_at is not None),
        "passed": sum(1 for s in sittings.values() if s.passed),
        "live": live,
        "upcoming": class_exam.is_upcoming(now),
    }
