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

from core.ratelimit import Limiter, client_address

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


def _login_limiters() -> tuple[Limiter, Limiter]:
    """Failures per username and address, and per address alone (4x as many)."""
    limit, window = settings.DAMA_LOGIN_FAILURES, settings.DAMA_LOGIN_WINDOW_SECONDS
    return Limiter("login-user", limit, window), Limiter("login-ip", 4 * limit, window)


class LoginView(auth_views.LoginView):
    template_name = "accounts/login.html"

    def _keys(self) -> tuple[tuple[str, str], tuple[str]]:
        address = client_address(self.request)
        username = self.request.POST.get("username", "")[:150].strip().lower()
        return (username, address), (address,)

    def post(self, request, *args, **kwargs):
        (by_user, by_ip), (user_key, ip_key) = _login_limiters(), self._keys()
        if by_user.is_blocked(*user_key) or by_ip.is_blocked(*ip_key):
            minutes = max(1, round(settings.DAMA_LOGIN_WINDOW_SECONDS / 60))
            # an unbound form: the password is not even checked while blocked
            form = self.get_form_class()(request, initial={"username": user_key[0]})
            form.cleaned_data = {}
            form.add_error(
                None,
                _(
                    "Too many failed log-in attempts. Wait %(minutes)s minutes and try again, "
                    "or reset your password."
                )
                % {"minutes": minutes},
            )
            response = self.render_to_response(self.get_context_data(form=form), status=429)
            response["Retry-After"] = str(settings.DAMA_LOGIN_WINDOW_SECONDS)
            return response
        return super().post(request, *args, **kwargs)

    def form_invalid(self, form):
        by_user, by_ip = _login_limiters()
        user_key, ip_key = self._keys()
        by_user.hit(*user_key)
        by_ip.hit(*ip_key)
        return super().form_invalid(form)

    def form_valid(self, form):
        _login_limiters()[0].reset(*self._keys()[0])
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
        login(request, user, backend="accounts.backends.ModelBackend")
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
