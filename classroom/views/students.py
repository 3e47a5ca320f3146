"""The students of a class: accounts made by the teacher (login cards), new passwords, leaving
the class, and one student's page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from .. import progress
from ..forms import StudentAccountsForm
from .access import class_for, student_of


@login_required
@never_cache  # the answer shows new passwords in clear: no cache may keep it
@require_http_methods(["GET", "POST"])
def students_create(request: HttpRequest, pk: int) -> HttpResponse:
    """Accounts for children without e-mail; the answer is the page of login cards to print (the
    passwords are shown this once and never stored in clear)."""
    classroom = class_for(request, pk)
    form = StudentAccountsForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        made = classroom.create_student_accounts(form.cleaned_data["names"])
        return render(
            request,
            "classroom/cards.html",
            {
                "classroom": classroom,
                "cards": made,
                "login_url": request.build_absolute_uri(reverse("login")),
            },
        )
    return render(
        request,
        "classroom/students_form.html",
        {"classroom": classroom, "form": form},
        status=400 if form.errors else 200,
    )


@login_required
@never_cache  # the answer shows the new password in clear
@require_POST
def student_password(request: HttpRequest, pk: int, user_id: int) -> HttpResponse:
    classroom = class_for(request, pk)
    membership = student_of(classroom, user_id)
    if not membership.managed:
        raise PermissionDenied("only accounts the class made")
    password = classroom.reset_password(membership.user)
    return render(
        request,
        "classroom/cards.html",
        {
            "classroom": classroom,
            "cards": [(membership.user, password)],
            "login_url": request.build_absolute_uri(reverse("login")),
            "reset": True,
        },
    )


@login_required
@require_POST
def student_remove(request: HttpRequest, pk: int, user_id: int) -> HttpResponse:
    classroom = class_for(request, pk)
    membership = student_of(classroom, user_id)
    membership.delete()
    messages.success(
        request,
        _("%(name)s left the class.")
        % {"name": membership.user.get_full_name() or membership.user},
    )
    return redirect(classroom.get_absolute_url())


@login_required
def student_detail(request: HttpRequest, pk: int, user_id: int) -> HttpResponse:
    classroom = class_for(request, pk)
    membership = student_of(classroom, user_id)
    student = membership.user
    set_ids = list(classroom.assignments.values_list("puzzle_set_id", flat=True))
    return render(
        request,
        "classroom/student_detail.html",
        {
            "classroom": classroom,
            "membership": membership,
            "student": student,
            "lessons": progress.lesson_progress(student),
            "ratings": progress.ratings(student),
            "attempts": progress.attempt_log(student, set_ids),
            "assignments": [
                (a, progress.student_cells(a, student))
                for a in classroom.assignments.select_related("puzzle_set")
            ],
        },
    )
