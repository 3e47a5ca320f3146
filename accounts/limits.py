"""The accounts' rate limits (core.ratelimit), made from the settings each time they are used.

* Log-in, the site's and the admin's alike (``ThrottledLogin``): growing delays per account, from
  any address (``DAMA_LOGIN_FAILURES`` free failures, then ``DAMA_LOGIN_DELAY_SECONDS`` doubled
  after each further failure, at most ``DAMA_LOGIN_MAX_DELAY_SECONDS``), and 4x
  ``DAMA_LOGIN_FAILURES`` failures per client address and ``DAMA_LOGIN_WINDOW_SECONDS``.
* A browser that logged in to an account before (its signed ``dama_device`` cookie, set at each
  log-in) has delays of its own for that account: someone who keeps failing from elsewhere makes
  the account wait for everyone else, not for its owner's own browser.
* Sign-ups per client address, password-reset requests per client address, e-mail changes per
  account (``DAMA_SIGNUPS_PER_HOUR``, ``DAMA_RESETS_PER_HOUR``), and mails to one address
  (``DAMA_MAILS_PER_ADDRESS_PER_HOUR``), each per hour. These count whether or not an account has
  the address, so a refusal tells nothing about accounts.
"""

from __future__ import annotations

import hashlib
import math
import secrets

from django.conf import settings
from django.utils.translation import ngettext

from core.ratelimit import Backoff, Limiter

HOUR = 3600


def login_account() -> Backoff:
    return Backoff(
        "login-account",
        free=settings.DAMA_LOGIN_FAILURES,
        base=settings.DAMA_LOGIN_DELAY_SECONDS,
        cap=settings.DAMA_LOGIN_MAX_DELAY_SECONDS,
    )


def login_address() -> Limiter:
    return Limiter("login-ip", 4 * settings.DAMA_LOGIN_FAILURES, settings.DAMA_LOGIN_WINDOW_SECONDS)


DEVICE_COOKIE = "dama_device"
DEVICE_SALT = "accounts.login-device"
DEVICE_DAYS = 180


def _account_digest(account: str) -> str:
    return hashlib.sha256(account.encode()).hexdigest()[:32]


def device_of(request, account: str) -> str:
    """This browser's id when its cookie says it logged in to ``account`` before, else ""."""
    if request is None:
        return ""
    value = request.get_signed_cookie(
        DEVICE_COOKIE, default="", salt=DEVICE_SALT, max_age=DEVICE_DAYS * 24 * 3600
    )
    device, _, digest = value.partition(":")
    return device if device and digest == _account_digest(account) else ""


def remember_device(request, response, account: str) -> None:
    """Give this browser (the one just logged in to ``account``) its signed device cookie."""
    device = device_of(request, account) or secrets.token_hex(16)
    response.set_signed_cookie(
        DEVICE_COOKIE,
        f"{device}:{_account_digest(account)}",
        salt=DEVICE_SALT,
        max_age=DEVICE_DAYS * 24 * 3600,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )


def signups() -> Limiter:
    return Limiter("signup-ip", settings.DAMA_SIGNUPS_PER_HOUR, HOUR)


def reset_requests() -> Limiter:
    return Limiter("reset-ip", settings.DAMA_RESETS_PER_HOUR, HOUR)


def email_changes() -> Limiter:
    return Limiter("email-change", settings.DAMA_RESETS_PER_HOUR, HOUR)


def mails_to() -> Limiter:
    return Limiter("mail-to", settings.DAMA_MAILS_PER_ADDRESS_PER_HOUR, HOUR)


def email_key(address: str) -> str:
    """An e-mail address as a limiter key (addresses differing in case are one)."""
    return address.strip().casefold()


def wait_text(seconds: int) -> str:
    """``seconds`` for a message: "5 seconds", "3 minutes" (rounded up)."""
    if seconds < 90:
        return ngettext("%(count)d second", "%(count)d seconds", seconds) % {"count": seconds}
    minutes = math.ceil(seconds / 60)
    return ngettext("%(count)d minute", "%(count)d minutes", minutes) % {"count": minutes}
