"""A system check: the level data and the rule questions can be read (``manage.py check``,
``migrate`` and ``make run`` stop on a broken file). The answers are judged by the tests."""

from __future__ import annotations

from django.core.checks import Error, register

from core.variants import VARIANT_NAMES

from .levels import LevelDataError, levels, rule_questions


@register()
def level_data(app_configs, **kwargs):
    errors = []
    try:
        levels()
        for variant in VARIANT_NAMES:
            rule_questions(variant)
    except LevelDataError as exc:
        errors.append(Error(str(exc), id="exams.E001"))
    return errors
