"""A class: creating and editing it, its page, its join code and its co-teachers."""

from __future__ import annotations

import segno
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.decorators import teacher_required
from accounts.models import profile_of

from .. import progress
from ..forms import ClassroomForm, CoTeacherForm
from ..models import Classroom, PuzzleSet
from .access import class_for


@teacher_required
@require_GET
def class_list(request: HttpRequest) -> HttpResponse:
    """The classes the user teaches (their own and those they teach with another teacher)."""
    classes = (
        Classroom.objects.taught_by(request.user)
        .annotate(
            student_count=Count("memberships", distinct=True),
            set_count=Count("assignments", distinct=True),
        )
        .order_by("name", "pk")
    )
    return render(request, "classroom/class_list.html", {"classes": classes})


@teacher_required
@require_http_methods(["GET", "POST"])
def class_create(request: HttpRequest) -> HttpResponse:
    form = ClassroomForm(
        request.POST or None, initial={"variant": profile_of(request.user).preferred_variant}
    )
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            classroom = form.save(commit=False)
            classroom.created_by = request.user
            classroom.save()
            classroom.teachers.add(request.user)
        messages.success(request, _("The class %(name)s is ready.") % {"name": classroom})
        return redirect(classroom.get_absolute_url())
    return render(
        request,
        "classroom/class_form.html",
        {"form": form},
        status=400 if form.errors else 200,
    )


@login_required
@require_http_methods(["GET", "POST"])
def class_edit(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = class_for(request, pk)
    form = ClassroomForm(request.POST or None, instance=classroom)
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(request, _("The class is saved."))
        return redirect(classroom.get_absolute_url())
    return render(
        request,
        "classroom/class_form.html",
        {"form": form, "classroom": classroom},
        status=400 if form.errors else 200,
    )


def join_qr(request: HttpRequest, classroom: Classroom) -> str:
    """The join link as an inline SVG QR code."""
    url = request.build_absolute_uri(classroom.join_url())
    return segno.make(url, error="m").svg_inline(scale=5, dark="#1f2328", omitsize=True)


@login_required
def class_detail(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = class_for(request, pk, students=True)
    if not classroom.is_teacher(request.user):
        assignments = [
            (a, progress.student_cells(a, request.user))
            for a in classroom.assignments.select_related("puzzle_set")
        ]
        return render(
            request,
            "classroom/class_student.html",
            {"classroom": classroom, "assignments": assignments},
        )
    memberships = classroom.memberships.select_related("user").order_by(
        "user__first_name", "user__username"
    )
    return render(
        request,
        "classroom/class_detail.html",
        {
            "classroom": classroom,
            "memberships": memberships,
            "teachers": classroom.teachers.order_by("username"),
            "assignments": classroom.assignments.select_related("puzzle_set", "assigned_by"),
            "join_link": request.build_absolute_uri(classroom.join_url()),
            "qr": join_qr(request, classroom),
            "co_teacher_form": CoTeacherForm(classroom=classroom),
            "my_sets": PuzzleSet.objects.filter(owner=request.user),
        },
    )


@login_required
@require_POST
def class_new_code(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = class_for(request, pk)
    classroom.new_code()
    messages.success(request, _("The class has a new join code; the old one no longer works."))
    return redirect(classroom.get_absolute_url())


@login_required
@require_POST
def co_teacher_add(request: HttpRequest, pk: int) -> HttpResponse:
    classroom = class_for(request, pk)
    form = CoTeacherForm(request.POST, classroom=classroom)
    if form.is_valid():
        classroom.teachers.add(form.cleaned_data["username"])
        messages.success(
            request,
            _("%(name)s teaches this class too now.") % {"name": form.cleaned_data["username"]},
        )
    else:
        for error in form.errors.get("username", []):
            messages.error(request, error)
    return redirect(classroom.get_absolute_url())


@login_required
@require_POST
def co_teacher_remove(request: HttpRequest, pk: int, user_id: int) -> HttpResponse:
    classroom = class_for(request, pk)
    teacher = get_object_or_404(classroom.teachers, pk=user_id)
    if classroom.remove_teacher(teacher):
        messages.success(request, _("%(name)s no longer teaches this class.") % {"name": teacher})
    else:
        messages.error(request, _("A class needs at least one teacher."))
    if not classroom.is_teacher(request.user):
        return redirect("classroom:dashboard")
    return redirect(classroom.get_absolute_url())
