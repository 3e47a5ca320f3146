"""``manage.py send_review_reminders``: the daily review e-mail (run once a day, e.g. from cron)."""

from __future__ import annotations

from django.core.management.base import BaseCommand

from review.reminders import default_base_url, send_reminders


class Command(BaseCommand):
    help = "E-mail the accounts that asked for a daily reminder and have review cards due."

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--base-url",
            default=default_base_url(),
            help="The site's address for the link in the mail (default: https://<first host>).",
        )

    def handle(self, *args, base_url: str, **options) -> None:
        sent = send_reminders(base_url=base_url)
        self.stdout.write(f"{sent} reminder(s) sent")
