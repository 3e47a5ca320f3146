"""The engine's analysis of a position on the analysis board: a :class:`core.models.Job` per
request, done by ``explore.deep_analyse`` on the ``deep`` queue, never in the request.

* **One at a time per user**: :func:`start` marks the user's analysis still queued or running as
  replaced (failed, :data:`REPLACED`) before it queues the new one; the worker stops a replaced
  search between its lines.
* **Done once**: a result is kept per (variant, position, budget, engine version), in the cache
  and in the finished job's row (so it survives a cache without Redis, each process's own);
  :func:`cached` finds it, and the board shows it at once without a job.
"""

from __future__ import annotations

import contextlib
import hashlib
from typing import Any

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from core.models import Job, SealedPosition
from core.workers import send

from . import engine
from .tree import Tree, board_url, with_line

#: the job kind of an analysis
KIND = "explore_analysis"
#: the task that does it (``*.deep_*``: the ``deep`` queue)
TASK = "explore.deep_analyse"
#: what a replaced job's error says
REPLACED = "replaced by a newer analysis"
#: how long the cache keeps a result, in seconds (the job's row keeps it for good)
CACHE_SECONDS = 7 * 24 * 3600


def cache_key(variant: str, fen: str) -> str:
    digest = hashlib.sha256(f"{variant}|{fen}".encode()).hexdigest()[:32]
    return f"explore:{engine.engine_version()}:{engine.BUDGET}:{digest}"


def cached(variant: str, fen: str) -> dict[str, Any] | None:
    """The kept analysis of ``fen`` (a position as the engine writes it), or None."""
    key = cache_key(variant, fen)
    try:
        result = cache.get(key)
    except Exception:  # Redis down: the rows still answer
        result = None
    if result is not None:
        return result
    job = (
        Job.objects.filter(kind=KIND, status=Job.Status.DONE, params__key=key)
        .only("result")
        .first()
    )
    if job is None:
        return None
    keep(variant, fen, job.result)
    return job.result


def keep(variant: str, fen: str, result: dict[str, Any]) -> None:
    with contextlib.suppress(Exception):  # Redis down: the job's row keeps it
        cache.set(cache_key(variant, fen), result, CACHE_SECONDS)


def start(user, variant: str, fen: str, board: dict[str, Any] | None = None) -> Job:
    """Queue the analysis of ``fen`` for ``user`` (replacing the user's analysis still to do);
    a ``ValidationError`` when the position is sealed (an exam's, a rated game's in play).
    ``board``: where on the board's line it was asked (``root``, ``tree``, ``at``), so that the
    page can add the engine's lines to it."""
    SealedPosition.refuse(fen, variant)
    with transaction.atomic():
        # one request of a user at a time here: two at once would both keep their job
        get_user_model().objects.select_for_update().filter(pk=user.pk).first()
        Job.objects.pending().filter(kind=KIND, owner=user).update(
            status=Job.Status.FAILED, error=REPLACED, finished=timezone.now()
        )
        job = Job.objects.create(
            kind=KIND,
            owner=user,
            params={
                "variant": variant,
                "fen": fen,
                "key": cache_key(variant, fen),
                "board": board or {},
            },
        )
        job_id = str(job.pk)
        transaction.on_commit(lambda: send(TASK, job_id))
    return job


# -- in words ----------------------------------------------------------------------------------


def score_text(score: int) -> str:
    """The evaluation as a number in men, White's view (``+0.85``), or a win (``+W12``: in 12
    plies)."""
    if engine.is_win(score):
        side = "+" if score > 0 else "-"
        return f"{side}#{engine.plies_to_win(score)}"
    return f"{score / 100:+.2f}"


def describe(score: int) -> str:
    """The evaluation in words, White's view in centi-men (100 is a man)."""
    if engine.is_win(score):
        moves = (engine.plies_to_win(score) + 1) // 2
        if score > 0:
            return ngettext("White wins in %(n)s move.", "White wins in %(n)s moves.", moves) % {
                "n": moves
            }
        return ngettext("Black wins in %(n)s move.", "Black wins in %(n)s moves.", moves) % {
            "n": moves
        }
    size = abs(score)
    if size < 25:
        return _("The position is about equal.")
    if size < 60:
        return _("White is slightly better.") if score > 0 else _("Black is slightly better.")
    men = max(1, round(size / 100))
    if score > 0:
        return ngettext(
            "White is better by about %(n)s man.", "White is better by about %(n)s men.", men
        ) % {"n": men}
    return ngettext(
        "Black is better by about %(n)s man.", "Black is better by about %(n)s men.", men
    ) % {"n": men}


def present(result: dict[str, Any], tree: Tree | None = None, at: int = 0) -> dict[str, Any]:
    """The result as the page shows it: each line's words, number and moves, and with the
    board's ``tree`` (the result being of its node ``at``), the address of the board with the
    line added to the tree."""
    lines = []
    for line in result["lines"]:
        shown = {
            "words": describe(line["score"]),
            "score": score_text(line["score"]),
            "moves": line["moves"],
            "depth": line["depth"],
            "url": "",
        }
        if tree is not None:
            added, first = with_line(tree, at, line["moves"])
            if first != at:
                shown["url"] = board_url(added, first)
        lines.append(shown)
    return {
        "lines": lines,
        "over": not result["lines"],
        "single": result.get("legal", 0) == 1,
        "nodes": result.get("nodes", 0),
        "seconds": result.get("seconds", 0),
    }


def comment(result: dict[str, Any] | None) -> str:
    """The analysis as a PDN comment (the best line's evaluation and its first moves)."""
    if not result or not result["lines"]:
        return ""
    best = result["lines"][0]
    return "{score} {words} {line}".format(
        score=score_text(best["score"]),
        words=describe(best["score"]),
        line=" ".join(best["moves"][:6]),
    )
