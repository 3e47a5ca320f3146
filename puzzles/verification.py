"""Proving one revision of one puzzle: the work of the ``verify_puzzle`` task, also run
in-process by ``manage.py verify_puzzles --in-process``; and the periodic jobs that send the lost
and the stale proofs again.

Every write is conditional on the revision (and a claim on the verdict), so running the same
revision twice, or after the puzzle changed or was deleted, is harmless. Sending a proof, and
one author's proofs taking their turn, is the models' (``PuzzleQuerySet.dispatch``).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import OperationalError, transaction
from django.db.models import F, Q
from django.utils import timezone

from core import kept

from . import engine
from .models import Puzzle, Verdict

logger = logging.getLogger(__name__)

#: outcomes of :func:`run` besides the verdict kinds
GONE = "gone"
STALE = "stale revision"
DONE = "already verified"
BUSY = "being proven elsewhere"


def claim(pk: int, revision: int, worker: str) -> bool:
    """Mark revision ``revision`` as running on ``worker``. Refused when the revision moved on,
    when it already has a verdict of the current engine, or when another worker is proving it
    and still reports progress."""
    now = timezone.now()
    stall_cutoff = now - timedelta(seconds=settings.DAMA_VERIFY_STALL_SECONDS)
    claimable = (
        Q(verdict=Verdict.PENDING)
        | Q(verdict=Verdict.RUNNING, progress_updated__lt=stall_cutoff)
        | Q(verdict=Verdict.RUNNING, progress_updated__isnull=True)
        | (~Q(verdict=Verdict.RUNNING) & ~Q(engine_version=engine.engine_version()))
    )
    return bool(
        Puzzle.objects.filter(claimable, pk=pk, revision=revision).update(
            verdict=Verdict.RUNNING,
            worker=worker[:200],
            started_at=now,
            progress_nodes=0,
            progress_depth=0,
            progress_updated=now,
            attempts=F("attempts") + 1,
            error="",
        )
    )


def skip_reason(pk: int, revision: int) -> str:
    """Why a claim was refused."""
    row = Puzzle.objects.filter(pk=pk).values("revision", "verdict").first()
    if row is None:
        return GONE
    if row["revision"] != revision:
        return STALE
    return BUSY if row["verdict"] == Verdict.RUNNING else DONE


def run(
    pk: int,
    revision: int,
    *,
    worker: str = "",
    on_progress: Callable[[int, int, float], None] | None = None,
) -> str:
    """Prove revision ``revision`` of puzzle ``pk`` and store the verdict.

    Returns the verdict kind written, or why nothing was done (:data:`GONE`, :data:`STALE`,
    :data:`DONE`, :data:`BUSY`). Database errors propagate (the task retries them).
    """
    puzzle = Puzzle.objects.filter(pk=pk).first()
    if puzzle is None:
        return GONE
    if puzzle.revision != revision:
        return STALE
    if not claim(pk, revision, worker):
        return skip_reason(pk, revision)
    row = Puzzle.objects.filter(pk=pk, revision=revision)
    last = 0.0
    every = settings.DAMA_VERIFY_PROGRESS_SECONDS

    def progress(nodes: int, depth: int, elapsed: float) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= every:
            last = now
            try:
                row.update(
                    progress_nodes=nodes, progress_depth=depth, progress_updated=timezone.now()
                )
            except OperationalError:  # progress is for display: a locked database can wait
                logger.debug("progress of puzzle %s not written", pk, exc_info=True)
        if on_progress is not None:
            on_progress(nodes, depth, elapsed)

    started = time.monotonic()
    try:
        verdict = engine.prove(
            puzzle.variant,
            puzzle.fen,
            puzzle.goal,
            puzzle.horizon,
            proof_limits(puzzle),
            progress,
            refute_seconds=0,
        )
    except ValidationError as exc:
        return record_error(pk, revision, " ".join(exc.messages))
    if verdict["kind"] == Verdict.UNIQUE:
        # the tempting wrong moves, refuted here once, so that the trainer never searches
        verdict["refutations"] = engine.refutations(
            puzzle.variant,
            verdict["fen"],
            verdict["goal"],
            verdict["horizon"],
            verdict["proof"],
            seconds=refutation_seconds(time.monotonic() - started),
        )
    return record(pk, revision, verdict)


def proof_limits(puzzle: Puzzle) -> dict[str, Any]:
    """The limits the proof runs with: the puzzle's own, and for a teacher's puzzle (one with an
    author) no more than ``DAMA_AUTHOR_PROOF_NODES`` and ``DAMA_AUTHOR_PROOF_SECONDS``, so that a
    teacher's puzzle costs the workers a bounded time whatever it asks."""
    limits = dict(puzzle.limits or {})
    if puzzle.author_id is not None:
        limits["nodes"] = min(
            int(limits.get("nodes", settings.DAMA_AUTHOR_PROOF_NODES)),
            settings.DAMA_AUTHOR_PROOF_NODES,
        )
        limits["seconds"] = min(
            float(limits.get("seconds", settings.DAMA_AUTHOR_PROOF_SECONDS)),
            float(settings.DAMA_AUTHOR_PROOF_SECONDS),
        )
    return limits


def refutation_seconds(elapsed: float) -> float:
    """Time for the refutations of the wrong moves when the proof took ``elapsed`` seconds: at
    most ``DAMA_REFUTATION_SECONDS``, and what the task's soft time limit leaves (with ten seconds
    to spare for writing the verdict)."""
    left = settings.DAMA_VERIFY_SOFT_TIME_LIMIT - elapsed - 10
    return max(0.0, min(float(settings.DAMA_REFUTATION_SECONDS), left))


def record(pk: int, revision: int, verdict: dict[str, Any]) -> str:
    """Write ``verdict`` (``Verdict.to_dict()``) to revision ``revision``; :data:`STALE` when the
    puzzle changed meanwhile."""
    now = timezone.now()
    limits = dict(verdict.get("limits", {}))
    limits.pop("moves", None)
    written = Puzzle.objects.filter(pk=pk, revision=revision).update(
        verdict=verdict["kind"],
        proof=verdict,
        engine_version=verdict["engine_version"],
        limits=limits,
        nodes=verdict["nodes"],
        seconds=verdict["seconds"],
        depth=verdict["depth"],
        verified_at=now,
        progress_nodes=verdict["nodes"],
        progress_depth=verdict["depth"],
        progress_updated=now,
        error="",
    )
    if written:  # the pool may have gained or lost it: every process reads it again
        transaction.on_commit(lambda: kept.bump("puzzles"))
    return verdict["kind"] if written else STALE


def record_error(pk: int, revision: int, message: str) -> str:
    written = Puzzle.objects.filter(pk=pk, revision=revision).update(
        verdict=Verdict.ERROR,
        error=message,
        engine_version=engine.engine_version(),
        verified_at=timezone.now(),
    )
    return Verdict.ERROR.value if written else STALE


def record_timeout(pk: int, revision: int, seconds: int) -> str:
    """The worker's time limit stopped the proof: undecided, saying so."""
    written = Puzzle.objects.filter(pk=pk, revision=revision).update(
        verdict=Verdict.UNDECIDED,
        proof=None,
        error=f"the proof ran past the worker's time limit ({seconds} s)",
        engine_version=engine.engine_version(),
        verified_at=timezone.now(),
    )
    return Verdict.UNDECIDED.value if written else STALE


# -- the periodic jobs --------------------------------------------------------------------------


def sweep(now=None) -> dict[str, int]:
    """Enqueue again the proofs that look lost (pending too long, or running without progress);
    give up on those tried ``DAMA_VERIFY_MAX_ATTEMPTS`` times (verdict error). Proofs waiting for
    their author's turn are not lost: the sweeper sends them if their author has a free turn (a
    release that was missed: a worker lost after the verdict, a broker down)."""
    waiting = Q(author__isnull=False, verdict=Verdict.PENDING, queued_at__isnull=True)
    lost = Puzzle.objects.lost(now).exclude(waiting)
    gave_up = lost.filter(attempts__gte=settings.DAMA_VERIFY_MAX_ATTEMPTS).update(
        verdict=Verdict.ERROR,
        error=f"gave up after {settings.DAMA_VERIFY_MAX_ATTEMPTS} attempts (the worker was lost each time)",
        verified_at=timezone.now(),
    )
    requeued = Puzzle.objects.lost(now).exclude(waiting).enqueue()
    authors = Puzzle.objects.filter(waiting).values_list("author_id", flat=True).distinct()
    released = sum(Puzzle.objects.release(author) for author in authors.order_by("author_id"))
    return {"requeued": requeued, "gave_up": gave_up, "released": released}


def enqueue_stale(limit: int = 500) -> int:
    """Enqueue the proofs of puzzles whose verdict an older engine made (not those queued
    recently); they keep their old verdict until the new one arrives."""
    recent = timezone.now() - timedelta(seconds=settings.DAMA_VERIFY_PENDING_SECONDS)
    stale = (
        Puzzle.objects.stale()
        .exclude(verdict__in=[Verdict.PENDING, Verdict.RUNNING])
        .exclude(queued_at__gte=recent)
        .order_by("pk")
    )
    pks = list(stale.values_list("pk", flat=True)[:limit])
    return Puzzle.objects.filter(pk__in=pks).enqueue()
