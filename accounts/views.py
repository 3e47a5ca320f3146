"""Sign-up, log-in with the profile's language, the profile page and the teacher request."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from .forms import EmailForm, ProfileForm, SignupForm
from .models import profile_of


def _apply_language(response: HttpResponse, language: str) -> HttpResponse:
    if language:
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME, language, max_age=365 * 24 * 3600, samesite="Lax"
        )
        translation.activate(language)
    return response


def _next_url(request: HttpRequest, default: str) -> str:
    url = request.POST.get("next") or request.GET.get("next") or ""
    if url and url_has_allowed_host_and_scheme(url, {request.get_host()}, request.is_secure()):
        return url
    return default


class LoginView(auth_views.LoginView):
    template_name = "accounts/login.html"

    def form_valid(self, form):
        response = super().form_valid(form)
        return _apply_language(response, profile_of(form.get_user()).language)


def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("profile")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        profile = profile_of(user)
        language = translation.get_language() or ""
        if language[:2] in dict(settings.LANGUAGES):
            profile.language = language[:2]
            profile.save(update_fields=["language"])
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(
            request, _("Welcome, %(name)s! Your account is ready.") % {"name": user.username}
        )
        if form.cleaned_data["want_teacher"]:
            if profile.request_teacher_role():
                messages.success(
                    request, _("You are a teacher now: you can create classes under Teach.")
                )
            else:
                messages.info(
                    request,
                    _(
                        "We have your request to become a teacher; an administrator will confirm it."
                    ),
                )
        return redirect(_next_url(request, "home"))
    return render(
        request,
        "accounts/signup.html",
        {"form": form, "next": _next_url(request, "")},
        status=400 if form.errors else 200,
    )


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    prof = profile_of(request.user)
    form = ProfileForm(request.POST or None, instance=prof, prefix="profile")
    email_form = EmailForm(request.POST or None, instance=request.user, prefix="account")
    if request.method == "POST":
        if form.is_valid() and email_form.is_valid():
            form.save()
            email_form.save()
            request.session["dama_variant"] = prof.preferred_variant
            messages.success(request, _("Your profile is saved."))
            return _apply_language(redirect("profile"), prof.language)
        status = 400
    else:
        status = 200
    return render(
        request,
        "accounts/profile.html",
        {"form": form, "email_form": email_form, "profile": prof},
        status=status,
    )


@login_required
@require_POST
def request_teacher(request: HttpRequest) -> HttpResponse:
    prof = profile_of(request.user)
    if prof.is_teacher:
        messages.info(request, _("You are already a teacher."))
    elif prof.request_teacher_role():
        messages.success(request, _("You are a teacher now: you can create classes under Teach."))
    else:
        messages.info(
            request,
            _("We have your request to become a teacher; an administrator will confirm it."),
        )
    return redirect(_next_url(request, "profile"))
