"""The students of a class: accounts made by the teacher (a worker's job, then login cards), new
passwords, leaving the class, and one student's page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core.models import Job

from .. import progress
from ..forms import StudentAccountsForm
from ..models import ACCOUNTS_JOB
from .access import class_for, student_of


@login_required
@require_http_methods(["GET", "POST"])
def students_create(request: HttpRequest, pk: int) -> HttpResponse:
    """Accounts for children without e-mail: the list of names becomes a worker's job
    (``Classroom.start_student_accounts``), and the answer leads to the page that follows it
    (:func:`students_job`) until the login cards are printed."""
    classroom = class_for(request, pk)
    form = StudentAccountsForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        job = classroom.start_student_accounts(form.cleaned_data["names"], request.user)
        return redirect("classroom:students_job", pk=classroom.pk, job_id=job.pk)
    return render(
        request,
        "classroom/students_form.html",
        {"classroom": classroom, "form": form},
        status=400 if form.errors else 200,
    )


@login_required
@never_cache  # the answer shows the new passwords in clear: no cache may keep it
@require_GET
def students_job(request: HttpRequest, pk: int, job_id: str) -> HttpResponse:
    """The new accounts as the teacher who asked for them follows them: the job's progress while
    a worker makes them (the region polls itself), then, once, the page of login cards (the
    passwords leave the job as they are shown: ``Classroom.take_login_cards``); a later visit
    lists the accounts without passwords. To an htmx poll a finished job answers with a redirect
    to this page, so the cards always come on a whole page of their own."""
    classroom = class_for(request, pk)
    job = Job.objects.filter(
        pk=job_id, kind=ACCOUNTS_JOB, owner=request.user, params__classroom=classroom.pk
    ).first()
    if job is None:
        raise Http404(_("No such list of new accounts."))
    context = {"classroom": classroom, "job": job, "count": len(job.params.get("names", []))}
    if job.status == Job.Status.DONE:
        if request.htmx:
            response = HttpResponse(status=204)
            response["HX-Redirect"] = request.path
            return response
        made = classroom.take_login_cards(job)
        if made is not None:
            return render(
                request,
                "classroom/cards.html",
                {
                    "classroom": classroom,
                    "cards": made,
                    "login_url": request.build_absolute_uri(reverse("login")),
                },
            )
        context["accounts"] = classroom.accounts_of(job)
    template = "classroom/accounts_job.html"
    return render(request, f"{template}#accounts-job" if request.htmx else template, context)


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
    classroom.remove_student(membership.user)
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
