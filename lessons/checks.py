"""A system check that reads every course and plays its answers through the engine.

It runs with ``manage.py check``, ``migrate`` and ``runserver``, so ``make run`` stops on a
broken course file. (The full content test is ``tests/lessons/test_course_fixtures.py``.)
"""

from __future__ import annotations

from django.core.checks import Error, register

from .course import COURSE_FILES, CourseDataError, lessons_dir, read_course


@register("lessons")
def check_courses(app_configs=None, **kwargs) -> list[Error]:
    from .engine import course_problems

    errors: list[Error] = []
    for slug in COURSE_FILES:
        path = lessons_dir() / f"{slug}.yaml"
        try:
            course = read_course(path)
        except CourseDataError as exc:
            errors.append(Error(str(exc), hint="See docs/lessons-coverage.md", id="lessons.E001"))
            continue
        for problem in course_problems(course):
            errors.append(Error(problem, hint=f"Fix {path.name}", id="lessons.E002"))
    return errors
