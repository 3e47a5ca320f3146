"""What games between players tell other apps (the tournaments listen).

``game_over``: a game ended (``game``, the :class:`~versus.models.VersusGame` as it was written:
``result``, ``reason``). Sent once the end has committed, once a game; a receiver that fails is
logged and the game's end stands.
"""

from django.dispatch import Signal

game_over = Signal()
