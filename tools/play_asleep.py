"""The load test's control arm for the play mix: a play worker whose computer thinks by sleeping.

``LOAD_MIX=play LOAD_PLAY_THINK=sleep`` starts the play worker as
``celery -A tools.play_asleep worker`` instead of ``-A dama_learn``: the site's Celery app
and tasks unchanged, except that each pool process's searches (``play.engine``'s search module)
sleep instead of computing: ``LOAD_PLAY_SLEEP`` seconds (default 1.5: level 8's 400,000
nodes took about that in the play mix here, measured while the searches still waited for the
web; a weaker level its share by nodes, level 5 about 22 ms) when the side to move has more than
one move, then play level 1's move (a few hundred nodes). The 30 players then make the same
requests at about the same pace (the report gives the computer's moves of each run) while no
search takes a core: the difference between this arm and the real one is what the searches
cost the other users, and the difference between this arm and the class alone is what 30 more
users cost them. In LOAD_MIX=fairplay it tells the queue's share of a player's wait from the
cores' (a machine shared with other work starves an idle-priority search).

This is a load experiment's stand-in, never used by the site or by a test of it.
"""

from __future__ import annotations

import os
import time
from typing import Any

from celery.signals import worker_process_init

from dama_learn.celery import app

__all__ = ["app"]

#: how long the sleeping computer "thinks" about a position with more than one move
SLEEP_SECONDS = float(os.environ.get("LOAD_PLAY_SLEEP") or 1.5)


class Asleep:
    """``dama.search`` with ``best_move`` thinking by sleeping (see the module docstring)."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def seconds(self, level: int) -> float:
        """How long a move at ``level`` sleeps: ``SLEEP_SECONDS`` at the strongest level, a
        weaker level's share of it by its nodes (level 5's 6,000 of level 8's 400,000)."""
        levels = self._real.LEVELS
        top = levels[max(levels)].nodes
        nodes = levels[level].nodes
        return SLEEP_SECONDS * nodes / top if nodes and top else SLEEP_SECONDS

    def best_move(self, board: Any, level: int, seed: Any = None, memory: Any = None) -> Any:
        if len(board.legal_moves) > 1 and not self._real.LEVELS[level].instant:
            time.sleep(self.seconds(level))
        return self._real.best_move(board, 1, seed=seed)


@worker_process_init.connect
def _fall_asleep(**kwargs: Any) -> None:
    import dama.search
    import play.engine

    asleep = Asleep(dama.search)
    play.engine._search_module = lambda: asleep  # this worker's searches only
