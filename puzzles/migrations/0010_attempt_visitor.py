"""A visitor's attempts carry their token, kept in their session, instead of the session's key
(the session no longer lists the attempts' ids, so opening a puzzle does not write it)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("puzzles", "0009_proof_complete_stored")]

    operations = [
        migrations.RenameField(model_name="attempt", old_name="session_key", new_name="visitor"),
        migrations.AlterField(
            model_name="attempt",
            name="visitor",
            field=models.CharField(blank=True, db_index=True, max_length=64, verbose_name="visitor"),
        ),
    ]
