"""What the trainer tells other apps (the review app listens): sent after the attempt is written.

``attempt_failed``: the first legal wrong move of an attempt (``attempt``, ``player``).
``attempt_finished``: an attempt solved or given up (``attempt``, ``player``); ``attempt.seconds``,
``hints``, ``failed`` and ``solution_shown`` say how it went.
"""

from django.dispatch import Signal

attempt_failed = Signal()
attempt_finished = Signal()
