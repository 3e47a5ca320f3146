"""PDN in and out: importing a file of positions into a set, exporting a set."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from puzzles.limits import IMPORTS, over_limit
from puzzles.models import Puzzle

from .. import engine
from ..forms import ImportForm
from .access import set_for


@login_required
@require_http_methods(["GET", "POST"])
def pdn_import(request: HttpRequest, pk: int) -> HttpResponse:
    """A PDN file with many positions or games: each good entry becomes a draft puzzle of the set
    (proven on the workers); each bad one is listed with its line.

    One teacher may not fill the proof queue: a number of imports per window. Only a file that
    was read and has an entry to import counts: a file refused as a whole (too big, not PDN, no
    entry that reads) is a form error that leaves the teacher's allowance as it was."""
    puzzle_set = set_for(request, pk)
    form = ImportForm(request.POST or None, request.FILES or None)
    report = None
    status = 200
    if request.method == "POST" and form.is_valid():
        refused = over_limit(IMPORTS, request.user, count=False)  # at the limit: not even read
        if refused:
            form.add_error(None, refused)
            status = 429
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data["file"].read(engine.MAX_IMPORT_BYTES + 1)
        try:
            entries = engine.read_pdn(
                data, puzzle_set.variant, form.goal_text(), form.cleaned_data.get("horizon")
            )
        except ValidationError as exc:
            form.add_error("file", exc)
        else:
            readable = any(not e.error and e.variant == puzzle_set.variant for e in entries)
            refused = over_limit(IMPORTS, request.user) if readable else ""
            if refused:
                form.add_error(None, refused)
                status = 429
            else:
                report = puzzle_set.import_entries(entries, request.user)
            if not readable:
                form.add_error(
                    "file", _("No entry of this file could be read: nothing was imported.")
                )
    return render(
        request,
        "classroom/import.html",
        {"puzzle_set": puzzle_set, "form": form, "report": report},
        status=status if status != 200 else (400 if form.errors else 200),
    )


@login_required
def set_pdn(request: HttpRequest, pk: int) -> HttpResponse:
    puzzle_set = set_for(request, pk, edit=False)
    text = Puzzle.pdn_of(puzzle_set.ordered_puzzles(), puzzle_set.title)
    response = HttpResponse(text, content_type="application/x-pdn; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="set-{puzzle_set.pk}.pdn"'
    return response
