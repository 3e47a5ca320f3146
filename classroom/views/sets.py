"""A teacher's puzzle sets: creating, editing, deleting, the set's page and its order, and the
printable worksheet."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.decorators import teacher_required
from accounts.models import profile_of
from core.numbers import read_id
from puzzles.models import Verdict

from .. import engine
from ..forms import PuzzleSetForm
from ..models import PuzzleSet, SetItem
from .access import set_for


@teacher_required
@require_GET
def set_list(request: HttpRequest) -> HttpResponse:
    """The user's puzzle sets, the most recently changed first."""
    sets = (
        PuzzleSet.objects.filter(owner=request.user)
        .annotate(
            puzzle_count=Count("puzzles", distinct=True),
            class_count=Count("assignments", distinct=True),
        )
        .order_by("-updated", "pk")
    )
    return render(request, "classroom/set_list.html", {"sets": sets})


@teacher_required
@require_http_methods(["GET", "POST"])
def set_create(request: HttpRequest) -> HttpResponse:
    form = PuzzleSetForm(
        request.POST or None, initial={"variant": profile_of(request.user).preferred_variant}
    )
    if request.method == "POST" and form.is_valid():
        puzzle_set = form.save(commit=False)
        puzzle_set.owner = request.user
        puzzle_set.save()
        messages.success(
            request, _("The set %(title)s is ready: add puzzles.") % {"title": puzzle_set}
        )
        return redirect(puzzle_set.get_absolute_url())
    return render(
        request, "classroom/set_form.html", {"form": form}, status=400 if form.errors else 200
    )


@login_required
@require_http_methods(["GET", "POST"])
def set_edit(request: HttpRequest, pk: int) -> HttpResponse:
    puzzle_set = set_for(request, pk)
    form = PuzzleSetForm(request.POST or None, instance=puzzle_set)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, _("The set is saved."))
        return redirect(puzzle_set.get_absolute_url())
    return render(
        request,
        "classroom/set_form.html",
        {"form": form, "puzzle_set": puzzle_set},
        status=400 if form.errors else 200,
    )


@login_required
@require_POST
def set_delete(request: HttpRequest, pk: int) -> HttpResponse:
    puzzle_set = set_for(request, pk)
    puzzle_set.delete()
    messages.success(request, _("The set is deleted."))
    return redirect("classroom:dashboard")


def _items_context(puzzle_set: PuzzleSet, user) -> dict:
    items = []
    for item in puzzle_set.items():
        puzzle = item.puzzle
        items.append(
            {
                "item": item,
                "puzzle": puzzle,
                "diagram": engine.diagram(puzzle.variant, puzzle.fen),
                "goal": engine.describe_goal(puzzle.goal, engine.white_to_move(puzzle.fen)),
                "mine": puzzle.author_id == user.pk,
            }
        )
    return {
        "puzzle_set": puzzle_set,
        "items": items,
        "can_edit": puzzle_set.can_edit(user),
    }


@login_required
def set_detail(request: HttpRequest, pk: int) -> HttpResponse:
    puzzle_set = set_for(request, pk, edit=False)
    context = _items_context(puzzle_set, request.user)
    context["assignments"] = puzzle_set.assignments.select_related("classroom")
    context["not_assignable"] = puzzle_set.not_assignable()
    return render(request, "classroom/set_detail.html", context)


@login_required
@require_POST
def item_move(request: HttpRequest, pk: int, item_id: int) -> HttpResponse:
    puzzle_set = set_for(request, pk)
    item = get_object_or_404(SetItem, pk=item_id, puzzle_set=puzzle_set)
    puzzle_set.move(item, -1 if request.POST.get("direction") == "up" else 1)
    return _items_response(request, puzzle_set)


@login_required
@require_POST
def set_order(request: HttpRequest, pk: int) -> HttpResponse:
    """The order after a drag: the item ids in their new order."""
    puzzle_set = set_for(request, pk)
    ids = [read_id(i) for i in request.POST.getlist("item")]
    if None in ids:
        return HttpResponse(_("The order is not valid."), status=400)
    puzzle_set.reorder(ids)
    return _items_response(request, puzzle_set)


@login_required
@require_POST
def item_remove(request: HttpRequest, pk: int, item_id: int) -> HttpResponse:
    puzzle_set = set_for(request, pk)
    item = get_object_or_404(SetItem, pk=item_id, puzzle_set=puzzle_set)
    item.delete()
    puzzle_set.reorder([])
    return _items_response(request, puzzle_set)


def _items_response(request: HttpRequest, puzzle_set: PuzzleSet) -> HttpResponse:
    if request.htmx:
        return render(
            request, "classroom/set_detail.html#items", _items_context(puzzle_set, request.user)
        )
    return redirect(puzzle_set.get_absolute_url())


@login_required
def worksheet(request: HttpRequest, pk: int) -> HttpResponse:
    """A printable worksheet: numbered diagrams, goals, space to write; answers on a new page."""
    puzzle_set = set_for(request, pk, edit=False)
    sheets = []
    for n, puzzle in enumerate(puzzle_set.ordered_puzzles(), 1):
        sheets.append(
            {
                "number": n,
                "puzzle": puzzle,
                "diagram": engine.diagram(puzzle.variant, puzzle.fen, numbers=True),
                "goal": engine.describe_goal(puzzle.goal, engine.white_to_move(puzzle.fen)),
                "answer": puzzle.numbered_solution
                if puzzle.verdict in (Verdict.UNIQUE, Verdict.COOKED)
                else puzzle.numbered(puzzle.solution),
            }
        )
    return render(request, "classroom/worksheet.html", {"puzzle_set": puzzle_set, "sheets": sheets})
