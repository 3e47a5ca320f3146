"""Details found trying the site as a new user (issue 15) whose honest check is the response
itself: the CSV export's bytes, the PDN reader's errors in the page's language."""

from __future__ import annotations

import codecs
import csv
import io

import pytest
from django.utils import translation

from tests.web.test_classroom import assignment, classroom, co_teacher, puzzle_set, queue  # noqa: F401

pytestmark = pytest.mark.django_db


def test_the_progress_csv_starts_with_a_utf8_byte_order_mark_so_excel_reads_the_accents(
    client,
    teacher,
    classroom,  # noqa: F811 - the fixture of test_classroom
    assignment,  # noqa: F811
):
    classroom.create_student_accounts(["Šárka Dvořáková"])
    client.force_login(teacher)
    response = client.get(f"/teach/classes/{classroom.pk}/progress.csv")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response.content.startswith(codecs.BOM_UTF8)
    assert response.content.count(codecs.BOM_UTF8) == 1
    text = response.content.decode("utf-8-sig")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert "Šárka Dvořáková" in {r["student"] for r in rows}  # the first column reads cleanly


BROKEN = b"""[FEN "W:W21:B10"]
1. 21-17 30-25 *

[FEN "W:W21:B10"]
1. 21-17 $1 ( ) *
"""


@pytest.mark.parametrize(
    ("language", "first", "second"),
    [
        ("cs", "1... 30-25 nelze zahrát: Na poli 30", "prázdná varianta"),
        ("en", "1... 30-25 is not playable: There is no piece on 30", "empty variation"),
    ],
)
def test_pdn_reader_errors_are_said_in_the_pages_language(language, first, second):
    from classroom import engine

    with translation.override(language):
        errors = [e.error for e in engine.read_pdn(BROKEN, "czech", "win", None)]
    assert errors[0].startswith(first), errors
    assert second in errors[1], errors


def test_every_kind_of_pdn_reader_error_has_a_message_in_the_catalogue():
    import dama.pdn  # noqa: F401 - the reader whose kinds are listed
    from classroom import engine

    for code, message in engine.PDN_ERRORS.items():
        with translation.override("cs"):
            czech = str(message)
        with translation.override("en"):
            english = str(message)
        assert czech != english, f"{code} is not translated into Czech"
