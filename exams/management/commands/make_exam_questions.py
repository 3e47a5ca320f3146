"""Write the rule questions of the exams (``exams/questions/<variant>.yaml``) from the positions
along the shipped corpus's solution lines. Deterministic: running it again writes the same files."""

from __future__ import annotations

from pathlib import Path

import yaml
from django.conf import settings
from django.core.management.base import BaseCommand

from core.variants import VARIANT_NAMES
from exams import engine
from exams.levels import DATA

HEADER = (
    "# Rule questions of the exams (levels 1 and 2), written by `manage.py make_exam_questions`\n"
    "# from positions along the corpus's solution lines (never a puzzle's own position).\n"
    "# Each is a lesson exercise (schema: docs/lessons-coverage.md), judged by core.exercise.\n"
)


class _Plain(yaml.SafeDumper):
    """Writes every question in full (no YAML anchors): the file is read by people too."""

    def ignore_aliases(self, data):
        return True


class Command(BaseCommand):
    help = "Write exams/questions/<variant>.yaml (the rule questions of levels 1 and 2)."
    requires_system_checks: list[str] = []  # the files it writes are what the check reads

    def add_arguments(self, parser):
        parser.add_argument("--per-kind", type=int, default=40)

    def handle(self, *args, per_kind: int = 40, **options):
        for variant in VARIANT_NAMES:
            path = Path(settings.BASE_DIR) / "fixtures" / "puzzles" / f"{variant}.pdn"
            entries = engine.solution_lines(path.read_text(encoding="utf-8"))
            questions = engine.generate_rule_questions(variant, entries, per_kind=per_kind)
            out = DATA / "questions" / f"{variant}.yaml"
            out.write_text(
                HEADER
                + yaml.dump(
                    {"questions": questions},
                    Dumper=_Plain,
                    allow_unicode=True,
                    sort_keys=False,
                    width=100,
                ),
                encoding="utf-8",
            )
            self.stdout.write(f"{variant}: {len(questions)} questions -> {out}")
