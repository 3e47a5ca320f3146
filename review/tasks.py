"""The daily review reminder as a periodic job (``dama_learn/celery.py``'s beat schedule runs it
once a day; ``manage.py send_review_reminders`` does the same by hand or from cron). Idempotent:
an account is mailed at most once a day (``ReminderSetting.last_sent``, written before sending)."""

from __future__ import annotations

from celery import shared_task

from .reminders import default_base_url, send_reminders


@shared_task(name="review.send_review_reminders", acks_late=True, time_limit=600)
def send_review_reminders() -> int:
    return send_reminders(base_url=default_base_url())
