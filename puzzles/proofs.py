"""Proofs on their way to the workers: sent by the task's name, or held for the caller.

The models send a puzzle's proof (``puzzles.verify_puzzle``, on the ``verify`` queue) once the
transaction that saved it commits; the task (:mod:`puzzles.tasks`) imports the models, so the
models name it instead of importing it (``core.workers.send``). Which proof goes now and which
waits for its author's earlier ones is the models' ``PuzzleQuerySet.dispatch``.

Inside :func:`proofs_held` nothing is sent: ``load_puzzles`` proves the corpus in-process.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from core import workers

#: the task that proves one revision of one puzzle
VERIFY_TASK = "puzzles.verify_puzzle"

#: while :func:`proofs_held` is active: the (pk, revision) of the proofs not sent to the workers
_held: ContextVar[list[tuple[int, int]] | None] = ContextVar("dama_held_proofs", default=None)


@contextmanager
def proofs_held() -> Iterator[list[tuple[int, int]]]:
    """Puzzles saved inside the block are not sent to the workers: their (pk, revision) are
    collected in the list it yields, for the caller to prove (``load_puzzles`` proves the corpus
    in-process). They stay ``pending`` meanwhile, so the sweeper would still find a lost one."""
    held: list[tuple[int, int]] = []
    token = _held.set(held)
    try:
        yield held
    finally:
        _held.reset(token)


def hold(pk: int, revision: int) -> bool:
    """Keep the proof of ``pk`` at ``revision`` for the caller of :func:`proofs_held`, if one is
    active (True), instead of sending it."""
    held = _held.get()
    if held is None:
        return False
    held.append((pk, revision))
    return True


def send(pk: int, revision: int) -> None:
    """Put the proof of revision ``revision`` of puzzle ``pk`` on the ``verify`` queue."""
    workers.send(VERIFY_TASK, pk, revision)
