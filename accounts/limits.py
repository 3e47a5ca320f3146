"""The accounts' rate limits (core.ratelimit), made from the settings each time they are used.

* Log-in, the site's and the admin's alike (``ThrottledLogin``): growing delays per account, from
  any address (``DAMA_LOGIN_FAILURES`` free failures, then ``DAMA_LOGIN_DELAY_SECONDS`` doubled
  after each further failure, at most ``DAMA_LOGIN_MAX_DELAY_SECONDS``), and 4x
  ``DAMA_LOGIN_FAILURES`` failures per client address and ``DAMA_LOGIN_WINDOW_SECONDS``.
* Sign-ups per client address, password-reset requests per client address, e-mail changes per
  account (``DAMA_SIGNUPS_PER_HOUR``, ``DAMA_RESETS_PER_HOUR``), and mails to one address
  (``DAMA_MAILS_PER_ADDRESS_PER_HOUR``), each per hour. These count whether or not an account has
  the address, so a refusal tells nothing about accounts.
"""

from __future__ import annotations

import math

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
