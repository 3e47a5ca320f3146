"""Assigning a set to a class, an assignment's page, and taking it back."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from puzzles.models import Puzzle

from .. import engine, progress
from ..forms import AssignForm
from ..models import Assignment
from .access import class_for, set_for


def trainer_url(puzzle: Puzzle, set_id: int) -> str:
    """The trainer's page for ``puzzle`` (``/puzzles/<variant>/<id>/``), recording attempts
    against the set."""
    return reverse("puzzles:solve", args=[puzzle.variant, puzzle.pk]) + f"?set={set_id}"


@login_required
@require_http_methods(["GET", "POST"])
def set_assign(request: HttpRequest, pk: int) -> HttpResponse:
    puzzle_set = set_for(request, pk)
    form = AssignForm(request.POST or None, user=request.user, puzzle_set=puzzle_set)
    if request.method == "POST" and form.is_valid():
        assignment = form.save(commit=False)
        assignment.puzzle_set = puzzle_set
        assignment.assigned_by = request.user
        assignment.save()
        messages.success(
            request,
            _("%(set)s is assigned to %(cls)s.") % {"set": puzzle_set, "cls": assignment.classroom},
        )
        return redirect(assignment.classroom.get_absolute_url())
    return render(
        request,
        "classroom/assign.html",
        {"puzzle_set": puzzle_set, "form": form, "not_assignable": puzzle_set.not_assignable()},
        status=400 if form.errors else 200,
    )


@login_required
def assignment_detail(request: HttpRequest, pk: int, assignment_id: int) -> HttpResponse:
    """An assigned set as students see it (positions and goals, never solutions), with how the
    student did on each puzzle; teachers see the same, with a link to the results."""
    classroom = class_for(request, pk, students=True)
    assignment = get_object_or_404(
        Assignment.objects.select_related("puzzle_set"), pk=assignment_id, classroom=classroom
    )
    cells = progress.student_cells(assignment, request.user)
    puzzles = [
        {
            "puzzle": puzzle,
            "cell": cell,
            "diagram": engine.diagram(puzzle.variant, puzzle.fen),
            "goal": engine.describe_goal(puzzle.goal, engine.white_to_move(puzzle.fen)),
            "url": trainer_url(puzzle, assignment.puzzle_set_id),
        }
        for puzzle, cell in cells
    ]
    return render(
        request,
        "classroom/assignment.html",
        {
            "classroom": classroom,
            "assignment": assignment,
            "puzzles": puzzles,
            "is_teacher": classroom.is_teacher(request.user),
        },
    )


@login_required
@require_POST
def assignment_remove(request: HttpRequest, pk: int, assignment_id: int) -> HttpResponse:
    classroom = class_for(request, pk)
    assignment = get_object_or_404(Assignment, pk=assignment_id, classroom=classroom)
    assignment.delete()
    messages.success(request, _("The set is no longer assigned to this class."))
    return redirect(classroom.get_absolute_url())
