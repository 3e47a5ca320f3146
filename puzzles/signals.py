"""What the puzzles tell other apps (the review app listens): sent after the rows are written.

``attempt_failed``: the first legal wrong move of an attempt (``attempt``, ``player``).
``attempt_finished``: an attempt solved or given up (``attempt``, ``player``); ``attempt.seconds``,
``hints``, ``failed`` and ``solution_shown`` say how it went.
``personal_puzzle_made``: a new personal puzzle (``puzzle``, its ``owner``), made from one of the
owner's games by :meth:`Puzzle.make_personal <puzzles.models.Puzzle.make_personal>`; sent once the
puzzle has committed, once a puzzle.
"""

from django.dispatch import Signal

attempt_failed = Signal()
attempt_finished = Signal()
personal_puzzle_made = Signal()
