"""Joining a class: the join link (and its QR code) and the form for typing a code."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from ..forms import JoinForm
from ..models import Classroom


@login_required
@require_http_methods(["GET", "POST"])
def join_with_code(request: HttpRequest) -> HttpResponse:
    form = JoinForm(request.POST or request.GET or None)
    if form.is_bound and form.is_valid():
        return redirect("classroom:join", code=form.cleaned_data["code"])
    return render(
        request, "classroom/join_form.html", {"form": form}, status=400 if form.errors else 200
    )


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest, code: str) -> HttpResponse:
    """The join link (and its QR code): a logged-in student joins with one click; a visitor is
    asked to sign up or log in first."""
    classroom = Classroom.objects.filter(join_code=code.upper(), joining_open=True).first()
    if classroom is None:
        raise Http404(_("No class takes students with this code."))
    user = request.user
    if request.method == "POST":
        if not user.is_authenticated:
            return redirect(f"{reverse('login')}?next={request.path}")
        if classroom.is_teacher(user):
            messages.info(request, _("You teach this class."))
        else:
            classroom.add_student(user)
            messages.success(request, _("You are in the class %(name)s.") % {"name": classroom})
        return redirect(classroom.get_absolute_url())
    return render(
        request,
        "classroom/join.html",
        {
            "classroom": classroom,
            "already": classroom.is_student(user) or classroom.is_teacher(user),
        },
    )
