"""PDN in and out: importing a file of positions into a set, exporting a set."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from .. import engine
from ..forms import ImportForm
from ..models import PuzzleSet
from .access import set_for


@login_required
@require_http_methods(["GET", "POST"])
def pdn_import(request: HttpRequest, pk: int) -> HttpResponse:
    """A PDN file with many positions or games: each good entry becomes a draft puzzle of the set
    (proven on the workers); each bad one is listed with its line."""
    puzzle_set = set_for(request, pk)
    form = ImportForm(request.POST or None, request.FILES or None)
    report = None
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data["file"].read(engine.MAX_IMPORT_BYTES + 1)
        try:
            entries = engine.read_pdn(
                data, puzzle_set.variant, form.goal_text(), form.cleaned_data.get("horizon")
            )
        except ValidationError as exc:
            form.add_error("file", exc)
        else:
            report = _import_entries(puzzle_set, entries, request.user)
    return render(
        request,
        "classroom/import.html",
        {"puzzle_set": puzzle_set, "form": form, "report": report},
        status=400 if form.errors else 200,
    )


def _import_entries(puzzle_set: PuzzleSet, entries, user) -> dict:
    report: dict[str, list] = {"created": [], "existing": [], "errors": []}
    for entry in entries:
        if entry.error:
            report["errors"].append((entry.index, entry.line, entry.error))
            continue
        if entry.variant != puzzle_set.variant:
            report["errors"].append(
                (
                    entry.index,
                    entry.line,
                    _("the entry is %(v)s, the set is not") % {"v": entry.variant},
                )
            )
            continue
        try:
            puzzle, created = puzzle_set.save_puzzle(
                user,
                fen=entry.fen,
                goal=entry.goal,
                horizon=entry.horizon,
                solution=entry.solution,
                title=entry.title,
                source=f"PDN import, entry {entry.index}",
            )
        except ValidationError as exc:
            report["errors"].append((entry.index, entry.line, " ".join(exc.messages)))
            continue
        report["created" if created else "existing"].append((entry.index, puzzle))
    return report


@login_required
def set_pdn(request: HttpRequest, pk: int) -> HttpResponse:
    puzzle_set = set_for(request, pk, edit=False)
    text = engine.set_pdn(puzzle_set.ordered_puzzles(), puzzle_set.title)
    response = HttpResponse(text, content_type="application/x-pdn; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="set-{puzzle_set.pk}.pdn"'
    return response
