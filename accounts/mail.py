"""Mail about accounts, sent by the workers (``accounts.tasks``) so that no page's answer or timing
depends on whether an account has an address.

* A password reset: the link goes to every active account with the address, or nothing is sent.
* A new address (at sign-up or in the profile) is not stored at once. Its owner gets a link that
  adds it to the account (``confirmation_token``, valid ``CONFIRMATION_DAYS``); when another account
  has the address already, its owner gets "someone tried to use your address" instead, naming their
  own account and how to reset its password. Either way the page says the same: check your mail.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.forms import PasswordResetForm
from django.contrib.auth.models import User
from django.core import signing
from django.core.mail import send_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation

CONFIRMATION_SALT = "accounts.email-confirmation"
CONFIRMATION_DAYS = 3


def owners_of(email: str):
    """Active accounts that use ``email`` (any case)."""
    return User.objects.filter(email__iexact=email, is_active=True)


def confirmation_token(user: User, email: str) -> str:
    return signing.dumps({"user": user.pk, "email": email}, salt=CONFIRMATION_SALT, compress=True)


def read_confirmation(token: str) -> tuple[User, str] | None:
    """The account and address a confirmation link names, or None (bad, expired, account gone)."""
    try:
        data = signing.loads(token, salt=CONFIRMATION_SALT, max_age=CONFIRMATION_DAYS * 24 * 3600)
        user = User.objects.get(pk=int(data["user"]), is_active=True)
        email = str(data["email"])
    except (signing.BadSignature, KeyError, TypeError, ValueError, User.DoesNotExist):
        return None
    return user, email


def confirm_address(user: User, email: str) -> bool:
    """Give ``user`` the confirmed address ``email``; False when another account took it since."""
    with transaction.atomic():
        if owners_of(email).exclude(pk=user.pk).exists():
            return False
        User.objects.filter(pk=user.pk).update(email=email)
    user.email = email
    return True


def _url(domain: str, use_https: bool, path: str) -> str:
    return f"{'https' if use_https else 'http'}://{domain}{path}"


def _send(template: str, email: str, context: dict) -> None:
    subject = render_to_string(f"accounts/{template}_subject.txt", context)
    body = render_to_string(f"accounts/{template}_email.txt", context)
    send_mail(" ".join(subject.split()), body, settings.DEFAULT_FROM_EMAIL, [email])


def send_confirmation(user_id: int, email: str, domain: str, use_https: bool, language: str) -> str:
    """Mail the link that adds ``email`` to account ``user_id``, or tell the address's owner that
    someone tried to use it. Returns what was done."""
    user = User.objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        return "account gone"
    if user.email.casefold() == email.casefold():
        return "already the account's address"
    owners = list(owners_of(email).exclude(pk=user_id).order_by("pk"))
    context = {"site_name": domain, "domain": domain, "email": email}
    with translation.override(language or settings.LANGUAGE_CODE):
        if owners:
            context.update(
                names=[owner.get_username() for owner in owners],
                login_url=_url(domain, use_https, reverse("login")),
                reset_url=_url(domain, use_https, reverse("password_reset")),
            )
            _send("email_in_use", email, context)
            return "address in use: its owner was told"
        token = confirmation_token(user, email)
        context.update(
            name=user.get_username(),
            url=_url(domain, use_https, reverse("confirm_email", kwargs={"token": token})),
            days=CONFIRMATION_DAYS,
        )
        _send("email_confirm", email, context)
    return "confirmation sent"


def send_password_reset(email: str, domain: str, use_https: bool, language: str) -> int:
    """Mail a reset link to each active account with ``email``; how many were sent."""
    form = PasswordResetForm({"email": email})
    if not form.is_valid():
        return 0
    users = list(form.get_users(email))
    if users:
        with translation.override(language or settings.LANGUAGE_CODE):
            form.save(
                domain_override=domain,
                use_https=use_https,
                subject_template_name="accounts/password_reset_subject.txt",
                email_template_name="accounts/password_reset_email.txt",
            )
    return len(users)
