"""PDN in and out: importing a file of positions into a set, exporting a set."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from puzzles.verification import IMPORTS, over_limit

from .. import engine
from ..forms import ImportForm
from .access import set_for


@login_required
@require_http_methods(["GET", "POST"])
def pdn_import(request: HttpRequest, pk: int) -> HttpResponse:
    """A PDN file with many positions or games: each good entry becomes a draft puzzle of the set
    (proven on the workers); each bad one is listed with its line."""
    puzzle_set = set_for(request, pk)
    form = ImportForm(request.POST or None, request.FILES or None)
    report = None
    status = 200
    if request.method == "POST" and form.is_valid():
        # one teacher may not fill the proof queue: a number of imports per window
        refused = over_limit(IMPORTS, request.user)
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
            report = puzzle_set.import_entries(entries, request.user)
    return render(
        request,
        "classroom/import.html",
        {"puzzle_set": puzzle_set, "form": form, "report": report},
        status=status if status != 200 else (400 if form.errors else 200),
    )


@login_required
def set_pdn(request: HttpRequest, pk: int) -> HttpResponse:
    puzzle_set = set_for(request, pk, edit=False)
    text = engine.set_pdn(puzzle_set.ordered_puzzles(), puzzle_set.title)
    response = HttpResponse(text, content_type="application/x-pdn; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="set-{puzzle_set.pk}.pdn"'
    return response
