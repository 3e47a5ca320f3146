"""Adding proven puzzles of the site's pool (the corpus) to a set."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from core.numbers import read_id
from puzzles.models import Puzzle

from .. import engine
from ..forms import CorpusSearchForm
from .access import set_for

CORPUS_PAGE = 24


@login_required
@require_http_methods(["GET", "POST"])
def corpus(request: HttpRequest, pk: int) -> HttpResponse:
    """Proven puzzles of the site's pool (the corpus, never another teacher's puzzles) to add to
    the set: search by goal, motif and difficulty."""
    puzzle_set = set_for(request, pk)
    if request.method == "POST":
        wanted = request.POST.get("puzzle", "")
        puzzle = get_object_or_404(
            Puzzle.objects.proven().practice(),
            pk=read_id(wanted) or 0,
            variant=puzzle_set.variant,
        )
        puzzle_set.add(puzzle)
        if request.htmx:
            return render(request, "classroom/corpus.html#added", {"puzzle": puzzle})
        messages.success(request, _("Puzzle #%(id)s is in the set.") % {"id": puzzle.pk})
        return redirect(reverse("classroom:corpus", args=[pk]) + "?" + request.GET.urlencode())
    form = CorpusSearchForm(request.GET or None)
    queryset = (
        Puzzle.objects.proven()
        .practice()  # never a puzzle kept for the exams
        .filter(variant=puzzle_set.variant)
        .exclude(pk__in=puzzle_set.puzzles.values("pk"))
        .order_by("difficulty", "pk")
    )
    if form.is_bound and form.is_valid():
        queryset = form.filter(queryset)
    found = list(queryset[: CORPUS_PAGE * 20])
    results = [
        {
            "puzzle": p,
            "diagram": engine.diagram(p.variant, p.fen),
            "goal": engine.describe_goal(p.goal, engine.white_to_move(p.fen)),
        }
        for p in found[:CORPUS_PAGE]
    ]
    context = {"puzzle_set": puzzle_set, "form": form, "results": results, "count": len(found)}
    if request.htmx:
        return render(request, "classroom/corpus.html#results", context)
    return render(request, "classroom/corpus.html", context)
