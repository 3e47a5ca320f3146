"""Work for the Celery workers: a task sent by its name, and the errors worth a retry.

A model that queues work names the task (``send("play.computer_move", game_id, version)``)
instead of importing its app's ``tasks`` module, which imports the models: the tasks stay above
the models and no import runs in a circle. ``CELERY_TASK_ROUTES`` routes a task by its name, so
it reaches the same queue either way; ``queue`` overrides the route (an exam's game's searches).
Send on commit (``transaction.on_commit``), so that a worker never reads a row before it exists.

Every app's tasks retry on :data:`TRANSIENT_ERRORS` alone, and on nothing else.
"""

from __future__ import annotations

import smtplib
from typing import Any

from celery import current_app
from django.db import InterfaceError, OperationalError
from kombu.exceptions import OperationalError as BrokerOperationalError

#: errors worth a retry: the database, the broker or the mail server was briefly out of reach
TRANSIENT_ERRORS: tuple[type[Exception], ...] = (
    OperationalError,
    InterfaceError,
    BrokerOperationalError,
    ConnectionError,
    TimeoutError,
    smtplib.SMTPConnectError,
    smtplib.SMTPServerDisconnected,
)


def send(name: str, *args: Any, queue: str | None = None) -> None:
    """Put the task named ``name`` with ``args`` on its queue (its route, or ``queue``)."""
    current_app.send_task(name, args, **({"queue": queue} if queue else {}))
