"""What the lessons tell other apps (the review app listens).

``step_answered``: an answer to a step was checked and counted (``request``, ``step``, ``right``;
``hints`` and ``answer_shown``: what the learner's record of the step says). Sent for every
counted answer, also on a step done before (going over it again).
"""

from django.dispatch import Signal

step_answered = Signal()
