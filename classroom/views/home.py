"""The teacher's dashboard and a student's "My classes"."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts.models import profile_of

from .. import progress
from ..forms import JoinForm
from ..models import Classroom, PuzzleSet


@login_required
def dashboard(request: HttpRequest) -> HttpResponse:
    """Teachers see their classes and sets here; anyone else learns how to become a teacher (and
    finds the classes they attend)."""
    profile = profile_of(request.user)
    attended = Classroom.objects.attended_by(request.user)
    if not profile.is_teacher:
        return render(
            request, "classroom/not_teacher.html", {"profile": profile, "attended": attended}
        )
    classes = Classroom.objects.taught_by(request.user).annotate(
        student_count=Count("memberships", distinct=True)
    )
    sets = PuzzleSet.objects.filter(owner=request.user).annotate(
        puzzle_count=Count("puzzles", distinct=True)
    )
    return render(
        request,
        "classroom/dashboard.html",
        {"profile": profile, "classes": classes, "sets": sets, "attended": attended},
    )


@login_required
def my_classes(request: HttpRequest) -> HttpResponse:
    """A student's classes and what is assigned in them."""
    classes = Classroom.objects.attended_by(request.user).prefetch_related("teachers")
    rows = []
    for classroom in classes:
        assignments = []
        for assignment in classroom.assignments.select_related("puzzle_set"):
            cells = progress.student_cells(assignment, request.user)
            solved = sum(1 for _p, c in cells if c.status == progress.SOLVED)
            assignments.append((assignment, solved, len(cells)))
        rows.append((classroom, assignments))
    return render(request, "classroom/my_classes.html", {"rows": rows, "join_form": JoinForm()})
