"""What games against the computer tell other apps (the analysis listens).

``game_over``: a game ended (``game``, the :class:`~play.models.Game` as it was written:
``result``, ``reason``, ``moves``). Sent once the end has committed, once a game; a receiver that
fails is logged and the game's end stands.
"""

from django.dispatch import Signal

game_over = Signal()
