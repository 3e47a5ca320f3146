"""The daily reminder: one e-mail to each account that asked for it (off unless switched on), on
a day when cards are due, at most once a day. Sent by ``manage.py send_review_reminders`` (run it
daily, e.g. from cron) through Django's mail settings."""

from __future__ import annotations

import logging
from datetime import date

from django.conf import settings
from django.core.mail import send_mail
from django.db.models import Count, Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation

from .models import Card, ReminderSetting

log = logging.getLogger(__name__)


def default_base_url() -> str:
    """The site's address for the link in the mail: ``https://`` and the first allowed host."""
    host = next((h for h in settings.ALLOWED_HOSTS if h and h != "*"), "localhost:8000")
    return f"https://{host.lstrip('.')}"


def send_reminders(*, base_url: str, today: date | None = None) -> int:
    """Mail every account with the reminder on, an address and due cards, not yet mailed today;
    returns how many were sent. Two queries find them, whatever their number."""
    today = today or timezone.localdate()
    now = timezone.now()
    due = dict(
        Card.objects.filter(
            due__lte=now,
            user__review_reminder__daily_email=True,
            user__is_active=True,
        )
        .exclude(user__email="")
        .exclude(user__review_reminder__last_sent=today)
        .values_list("user_id")
        .annotate(n=Count("pk"))
        .order_by()
    )
    if not due:
        return 0
    settings_rows = (
        ReminderSetting.objects.filter(user_id__in=list(due))
        .filter(Q(last_sent__isnull=True) | ~Q(last_sent=today))
        .select_related("user", "user__profile")
    )
    sent = 0
    for row in settings_rows:
        user = row.user
        profile = getattr(user, "profile", None)
        language = (profile.language if profile is not None else "") or settings.LANGUAGE_CODE
        with translation.override(language):
            context = {
                "user": user,
                "count": due[user.pk],
                "url": base_url.rstrip("/") + reverse("review:index"),
            }
            subject = render_to_string("review/reminder_subject.txt", context).strip()
            body = render_to_string("review/reminder_email.txt", context)
        # marked first: a crash after the mail never sends a second one the same day
        if (
            not ReminderSetting.objects.filter(pk=row.pk)
            .exclude(last_sent=today)
            .update(last_sent=today)
        ):
            continue
        send_mail(subject, body, None, [user.email])
        sent += 1
    log.info("sent %s review reminders", sent)
    return sent
