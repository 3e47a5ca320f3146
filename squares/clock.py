"""The square trainer's clock: the server's time, which the tests replace with a fake one
(``monkeypatch.setattr(squares.clock, "now", ...)``). A run's start and deadline are read from
it, never from the browser."""

from __future__ import annotations

from datetime import datetime

from django.utils import timezone


def now() -> datetime:
    return timezone.now()
