"""Proving one revision of one puzzle: the work of the ``verify_puzzle`` task, also run
in-process by ``manage.py verify_puzzles --in-process``.

Every write is conditional on the revision (and a claim on the verdict), so running the same
revision twice, or after the puzzle changed or was deleted, is harmless.
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
from django.db.models import Case, F, Q, When
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core import kept
from core.ratelimit import Limiter

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


# -- limits of teachers' puzzles --------------------------------------------------------------------


def check_author_horizon(horizon: int | None) -> None:
    """``ValidationError`` when a teacher's puzzle asks for a horizon beyond
    ``DAMA_AUTHOR_MAX_HORIZON`` moves (the site's puzzles are for teaching, and a deep horizon costs
    the workers minutes)."""
    limit = settings.DAMA_AUTHOR_MAX_HORIZON
    if horizon is not None and horizon > limit:
        raise ValidationError(
            _(
                "A teacher's puzzle may look at most %(max)s moves ahead; this one asks for "
                "%(horizon)s."
            )
            % {"max": limit, "horizon": horizon},
            code="horizon",
        )


#: what a teacher may do a limited number of times per ``DAMA_PROOF_RATE_WINDOW``
IMPORTS = "pdn-import"
REPROOFS = "reproof"


def limiter(kind: str) -> Limiter:
    limit = settings.DAMA_IMPORT_LIMIT if kind == IMPORTS else settings.DAMA_REPROOF_LIMIT
    return Limiter(kind, limit=limit, window=settings.DAMA_PROOF_RATE_WINDOW)


def over_limit(kind: str, user) -> str:
    """Count one import or "prove again" of ``user`` and say why it is refused ("" when it is
    not: staff are not limited). The count is the cache's atomic increment, so parallel requests
    cannot slip past the limit together."""
    if user.is_staff:
        return ""
    lim = limiter(kind)
    if lim.hit(str(user.pk)) <= lim.limit:
        return ""
    minutes = max(1, settings.DAMA_PROOF_RATE_WINDOW // 60)
    if kind == IMPORTS:
        return ngettext(
            "You may import at most %(n)s PDN file in %(minutes)s minutes: try again later.",
            "You may import at most %(n)s PDN files in %(minutes)s minutes: try again later.",
            lim.limit,
        ) % {"n": lim.limit, "minutes": minutes}
    return ngettext(
        "You may ask for at most %(n)s proof again in %(minutes)s minutes: try again later.",
        "You may ask for at most %(n)s proofs again in %(minutes)s minutes: try again later.",
        lim.limit,
    ) % {"n": lim.limit, "minutes": minutes}


# -- one author's proofs take their turn ------------------------------------------------------------


def _active(author_id: int):
    """The author's proofs on the workers: running, or pending and sent (``queued_at`` set)."""
    return Puzzle.objects.filter(author_id=author_id).filter(
        Q(verdict=Verdict.RUNNING) | Q(verdict=Verdict.PENDING, queued_at__isnull=False)
    )


def dispatch(pk: int, revision: int) -> bool:
    """Send the proof of revision ``revision`` of puzzle ``pk`` to the ``verify`` queue, unless it
    is a teacher's puzzle and ``DAMA_AUTHOR_ACTIVE_PROOFS`` of the same author's proofs are ahead
    of it (running, or pending and sent earlier): then it waits its turn, ``pending`` with no
    ``queued_at``, and :func:`release` sends it when one of them ends (the sweeper would too).

    So one teacher's 200 imported puzzles take at most that many workers, and everyone else's
    proofs keep going. Returns whether the proof was sent."""
    from .tasks import verify_puzzle

    row = Puzzle.objects.filter(pk=pk, revision=revision).values("author_id").first()
    if row is not None and row["author_id"] is not None:
        ahead = list(
            _active(row["author_id"])
            .order_by(
                Case(When(verdict=Verdict.RUNNING, then=0), default=1),
                F("queued_at").asc(nulls_last=True),
                "pk",
            )
            .values_list("pk", flat=True)[: settings.DAMA_AUTHOR_ACTIVE_PROOFS]
        )
        if pk not in ahead:
            Puzzle.objects.filter(pk=pk, revision=revision, verdict=Verdict.PENDING).update(
                queued_at=None
            )
            logger.info("puzzle %s waits for its author's earlier proofs", pk)
            return False
    verify_puzzle.delay(pk, revision)
    return True


def release(author_id: int | None) -> int:
    """Send the author's waiting proofs (oldest first) while fewer than
    ``DAMA_AUTHOR_ACTIVE_PROOFS`` are on the workers; called when one of their proofs ends.
    Returns how many were sent."""
    from .tasks import verify_puzzle

    if author_id is None:
        return 0
    sent = 0
    free = settings.DAMA_AUTHOR_ACTIVE_PROOFS - _active(author_id).count()
    waiting = Puzzle.objects.filter(
        author_id=author_id, verdict=Verdict.PENDING, queued_at__isnull=True
    ).order_by("created", "pk")
    for pk, revision in waiting.values_list("pk", "revision")[: max(0, free)]:
        # the conditional update is the claim: of two releasers, one sends each proof
        if Puzzle.objects.filter(
            pk=pk, revision=revision, verdict=Verdict.PENDING, queued_at__isnull=True
        ).update(queued_at=timezone.now()):
            verify_puzzle.delay(pk, revision)
            sent += 1
    return sent


def release_after(pk: int) -> int:
    """Release the waiting proofs of the author of puzzle ``pk`` (its proof just ended)."""
    row = Puzzle.objects.filter(pk=pk).values("author_id").first()
    return release(row["author_id"]) if row else 0


def waiting_count(author_id: int) -> int:
    """How many of the author's proofs wait their turn."""
    return Puzzle.objects.filter(
        author_id=author_id, verdict=Verdict.PENDING, queued_at__isnull=True
    ).count()


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
    released = sum(release(author) for author in authors.order_by("author_id"))
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
