"""The class's results table, on the page and as CSV."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from .. import progress
from .access import class_for


@login_required
def class_progress(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = class_for(request, pk)
    columns, rows = progress.class_table(classroom)
    return render(
        request,
        "classroom/progress.html",
        {
            "classroom": classroom,
            "columns": columns,
            "rows": rows,
            "tournament_rows": progress.tournament_rows(classroom),
        },
    )


@login_required
def class_progress_csv(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = class_for(request, pk)
    # the byte order mark tells Excel the file is UTF-8 (without it, names with accents are garbled)
    response = HttpResponse(
        "\ufeff" + progress.table_csv(classroom), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="class-{classroom.pk}-progress.csv"'
    return response
