"""Celery tasks of the accounts app: the mails of ``accounts.mail``, sent by a worker.

The pages that ask for them (password reset, sign-up, the profile) only enqueue a task with the
address, so their answer and its timing are the same whether an account has the address or not.
A task is acknowledged when it ends (``acks_late``): a worker that dies mid-send may send a mail
twice, never lose it. Retries only for a database, broker or mail server briefly out of reach.
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.db import transaction

from core.workers import TRANSIENT_ERRORS

from . import mail

logger = logging.getLogger(__name__)

RETRIES = {
    "acks_late": True,
    "autoretry_for": TRANSIENT_ERRORS,
    "retry_backoff": 2,
    "retry_backoff_max": 300,
    "retry_jitter": True,
    "max_retries": 5,
}


@shared_task(name="accounts.send_password_reset", **RETRIES)
def send_password_reset(email: str, domain: str, use_https: bool, language: str) -> int:
    """Mail a password-reset link to the accounts with ``email`` (none: nothing is sent)."""
    return mail.send_password_reset(email, domain, use_https, language)


@shared_task(name="accounts.send_email_confirmation", **RETRIES)
def send_email_confirmation(
    user_id: int, email: str, domain: str, use_https: bool, language: str
) -> str:
    """Mail the link that adds ``email`` to account ``user_id`` (or tell the address's owner)."""
    outcome = mail.send_confirmation(user_id, email, domain, use_https, language)
    logger.info("e-mail confirmation for account %s: %s", user_id, outcome)
    return outcome


def enqueue(task, *args) -> None:
    """Send ``task`` to the workers once the current transaction commits (at once outside one);
    a broker that is down is logged, not raised, so the page still answers."""
    transaction.on_commit(lambda: task.delay(*args), robust=True)
