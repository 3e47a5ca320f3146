from django.conf import settings
from django.db import migrations, models
from django.utils import timezone


def close_extra_open_sittings(apps, schema_editor):
    """Before the constraint: where parallel starts opened several real sittings of one level
    (issue 45), the first started stays open; the others end as they stand, without a pass
    (they should never have started, so they earn no certificate)."""
    Exam = apps.get_model("exams", "Exam")
    now = timezone.now()
    open_real = Exam.objects.filter(kind="real", class_exam__isnull=True, finished_at__isnull=True)
    seen = set()
    for exam in open_real.order_by("started_at", "pk"):
        key = (exam.user_id, exam.variant, exam.level)
        if key not in seen:
            seen.add(key)
            continue
        exam.score = sum(1 for a in exam.answers if a.get("state") == "right")
        exam.passed = False
        exam.finished_at = min(now, exam.deadline)
        exam.timed_out = exam.deadline <= now
        exam.save(update_fields=["score", "passed", "finished_at", "timed_out"])


class Migration(migrations.Migration):
    dependencies = [
        ("exams", "0003_puzzles_kept_by_the_puzzles_app"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(close_extra_open_sittings, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="exam",
            constraint=models.UniqueConstraint(
                condition=models.Q(
                    ("class_exam__isnull", True), ("finished_at__isnull", True), ("kind", "real")
                ),
                fields=("user", "variant", "level"),
                name="exam_one_open_real_sitting",
            ),
        ),
    ]
