"""Sign-up, log-in with the profile's language, the profile page, e-mail confirmation, password
reset and the teacher request. Log-in, sign-up and reset are rate-limited (``accounts.limits``);
no page tells whether an account has an e-mail address (the mails say it, to the address)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from core.ratelimit import client_address, username_key
from core.signals import CHOSEN_LANGUAGE

from . import limits, mail, tasks
from .forms import (
    CertificateNameForm,
    EmailForm,
    LoginForm,
    OwnSetPasswordForm,
    ProfileForm,
    SignupForm,
)
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
    # a path of this site only: anything else (``next=0``) would be taken for a view's name
    if url.startswith("/") and url_has_allowed_host_and_scheme(
        url, {request.get_host()}, request.is_secure()
    ):
        return url
    return default


def _mail_args(request: HttpRequest) -> tuple[str, bool, str]:
    """Where the links of a mail point, and its language: the site as this request reached it."""
    return request.get_host(), request.is_secure(), translation.get_language() or ""


def _too_many(response: HttpResponse, retry_after: int) -> HttpResponse:
    response.status_code = 429
    response["Retry-After"] = str(retry_after)
    return response


def _mail_refusal(wait: int) -> str:
    return _(
        "We sent too many e-mails to this address in the last hour. Wait %(wait)s and try again."
    ) % {"wait": limits.wait_text(wait)}


def _confirmation_sent(email: str) -> str:
    return _(
        "We sent a link to %(email)s: open it to use this address for your account. "
        "(If another account has the address, we tell its owner instead.)"
    ) % {"email": email}


class LoginView(auth_views.LoginView):
    """The site's log-in, through the limits of ``ThrottledLogin`` (429 with Retry-After)."""

    template_name = "accounts/login.html"
    authentication_form = LoginForm

    def form_invalid(self, form):
        response = super().form_invalid(form)
        return _too_many(response, form.retry_after) if form.retry_after else response

    def form_valid(self, form):
        response = super().form_valid(form)
        user = form.get_user()
        limits.remember_device(self.request, response, username_key(user.get_username()))
        return _apply_language(response, profile_of(user).language)


def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("profile")
    context = {"next": _next_url(request, "")}
    if request.method == "POST":
        by_address, address = limits.signups(), client_address(request)
        if not by_address.allow(address):
            wait = by_address.retry_after(address)
            refusal = _(
                "Too many sign-ups from your network in the last hour. Wait %(wait)s and try again."
            ) % {"wait": limits.wait_text(wait)}
            page = render(
                request,
                "accounts/signup.html",
                {**context, "form": SignupForm(), "refusal": refusal},
            )
            return _too_many(page, wait)
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        email = form.cleaned_data["email"]
        to_address = limits.mails_to()
        if email and not to_address.allow(limits.email_key(email)):
            wait = to_address.retry_after(limits.email_key(email))
            form.add_error("email", _mail_refusal(wait))
            page = render(request, "accounts/signup.html", {**context, "form": form})
            return _too_many(page, wait)
        user = form.save()
        profile = profile_of(user)
        language = translation.get_language() or ""
        if language[:2] in dict(settings.LANGUAGES):
            profile.language = language[:2]
            profile.save(update_fields=["language"])
        login(request, user)
        messages.success(
            request, _("Welcome, %(name)s! Your account is ready.") % {"name": user.username}
        )
        if email:
            tasks.enqueue(tasks.send_email_confirmation, user.pk, email, *_mail_args(request))
            messages.info(request, _confirmation_sent(email))
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
        {**context, "form": form},
        status=400 if form.errors else 200,
    )


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    user = request.user
    prof = profile_of(user)
    form = ProfileForm(request.POST or None, instance=prof, prefix="profile")
    email_form = EmailForm(request.POST or None, initial={"email": user.email}, prefix="account")
    context = {"form": form, "email_form": email_form, "profile": prof}
    if request.method != "POST":
        return render(request, "accounts/profile.html", context)
    if not (form.is_valid() and email_form.is_valid()):
        return render(request, "accounts/profile.html", context, status=400)
    email = email_form.cleaned_data["email"]
    confirm = bool(email) and email.casefold() != user.email.casefold()
    if confirm:
        by_account, to_address = limits.email_changes(), limits.mails_to()
        if not by_account.allow(str(user.pk)):
            wait = by_account.retry_after(str(user.pk))
        elif not to_address.allow(limits.email_key(email)):
            wait = to_address.retry_after(limits.email_key(email))
        else:
            wait = 0
        if wait:
            email_form.add_error("email", _mail_refusal(wait))
            return _too_many(render(request, "accounts/profile.html", context), wait)
    form.save()
    if not email and user.email:
        user.email = ""  # removing the address needs no confirmation
        user.save(update_fields=["email"])
    request.session["dama_variant"] = prof.preferred_variant
    if prof.language:  # the choice of this session from now on (core.signals.CHOSEN_LANGUAGE)
        request.session[CHOSEN_LANGUAGE] = prof.language
    else:
        request.session.pop(CHOSEN_LANGUAGE, None)
    messages.success(request, _("Your profile is saved."))
    if confirm:
        tasks.enqueue(tasks.send_email_confirmation, user.pk, email, *_mail_args(request))
        messages.info(request, _confirmation_sent(email))
    return _apply_language(redirect("profile"), prof.language)


@login_required
def certificate_name(request: HttpRequest) -> HttpResponse:
    """The name the account's certificates print, asked before a first real exam (the exam's
    start sends the player here when there is none, and the player comes back to ``next``)."""
    prof = profile_of(request.user)
    form = CertificateNameForm(request.POST or None, instance=prof)
    context = {"form": form, "next": _next_url(request, "")}
    if request.method == "POST" and form.is_valid():
        form.save()
        messages.success(
            request,
            _("Your certificates will print the name %(name)s.") % {"name": prof.certificate_name},
        )
        return redirect(_next_url(request, "profile"))
    status = 400 if form.errors else 200
    return render(request, "accounts/certificate_name.html", context, status=status)


def confirm_email(request: HttpRequest, token: str) -> HttpResponse:
    """The link mailed to a new address: a page with a button (mail scanners that open links
    change nothing); the button adds the address to the account the link names."""
    found = mail.read_confirmation(token)
    if found is None:
        return render(request, "accounts/email_confirm.html", {"invalid": True}, status=400)
    user, email = found
    if request.method == "POST":
        if not mail.confirm_address(user, email):
            return render(
                request, "accounts/email_confirm.html", {"taken": True, "email": email}, status=409
            )
        messages.success(
            request, _("%(email)s is the e-mail address of your account now.") % {"email": email}
        )
        return redirect("profile" if request.user == user else "login")
    return render(
        request, "accounts/email_confirm.html", {"email": email, "name": user.get_username()}
    )


class PasswordResetView(auth_views.PasswordResetView):
    """Asks a worker to mail the link: the answer, and its timing, are the same for any address
    (no database query here). Limited per client address and per address asked for."""

    template_name = "accounts/password_reset.html"

    def post(self, request, *args, **kwargs):
        by_address, address = limits.reset_requests(), client_address(request)
        if not by_address.allow(address):
            wait = by_address.retry_after(address)
            refusal = _(
                "Too many password-reset requests from your network in the last hour. "
                "Wait %(wait)s and try again."
            ) % {"wait": limits.wait_text(wait)}
            page = self.render_to_response(self.get_context_data(refusal=refusal))
            return _too_many(page, wait)
        return super().post(request, *args, **kwargs)

    def form_valid(self, form):
        email = form.cleaned_data["email"]
        to_address = limits.mails_to()
        if not to_address.allow(limits.email_key(email)):
            wait = to_address.retry_after(limits.email_key(email))
            form.add_error("email", _mail_refusal(wait))
            return _too_many(self.form_invalid(form), wait)
        tasks.enqueue(tasks.send_password_reset, email, *_mail_args(self.request))
        return HttpResponseRedirect(self.get_success_url())


class PasswordResetConfirmView(auth_views.PasswordResetConfirmView):
    template_name = "accounts/password_reset_confirm.html"
    form_class = OwnSetPasswordForm

    def form_valid(self, form):
        # the owner showed they read the account's mail: its log-in delays end
        limits.login_account().reset(username_key(form.user.get_username()))
        return super().form_valid(form)


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
