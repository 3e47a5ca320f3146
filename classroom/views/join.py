"""Joining a class: the join link (and its QR code) and the form for typing a code.

Join codes cannot be guessed at speed: each client address may try ``DAMA_JOIN_GUESSES_PER_HOUR``
wrong codes an hour (only wrong ones count: a class joining from a school shares one address),
then every code, right or wrong, gets a 429 page until the hour is over, so a guesser learns
nothing more.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts.limits import wait_text
from core.ratelimit import Limiter, client_address

from ..forms import JoinForm
from ..models import Classroom


def wrong_codes() -> Limiter:
    """Wrong join codes per client address and hour."""
    return Limiter("join-code-ip", settings.DAMA_JOIN_GUESSES_PER_HOUR, 3600)


def _refused(request: HttpRequest) -> HttpResponse | None:
    """The 429 page when this client has used up its wrong codes, else None."""
    limiter, address = wrong_codes(), client_address(request)
    if not limiter.is_blocked(address):
        return None
    wait = limiter.retry_after(address)
    refusal = _(
        "Too many wrong join codes from your network in the last hour. Wait %(wait)s and try again."
    ) % {"wait": wait_text(wait)}
    response = render(
        request, "classroom/join_form.html", {"form": JoinForm(), "refusal": refusal}, status=429
    )
    response["Retry-After"] = str(wait)
    return response


@login_required
@require_http_methods(["GET", "POST"])
def join_with_code(request: HttpRequest) -> HttpResponse:
    form = JoinForm(request.POST or request.GET or None)
    if form.is_bound:
        if (refused := _refused(request)) is not None:
            return refused
        if form.is_valid():
            return redirect("classroom:join", code=form.cleaned_data["code"])
        if form.has_error("code", "unknown"):
            wrong_codes().hit(client_address(request))
    return render(
        request, "classroom/join_form.html", {"form": form}, status=400 if form.errors else 200
    )


@require_http_methods(["GET", "POST"])
def join(request: HttpRequest, code: str) -> HttpResponse:
    """The join link (and its QR code): a logged-in student joins with one click; a visitor is
    asked to sign up or log in first."""
    if (refused := _refused(request)) is not None:
        return refused
    classroom = Classroom.objects.joinable(code).first()
    if classroom is None:
        wrong_codes().hit(client_address(request))
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
