"""The report of one analysed game: the chart, the moments in words, the move list and the board
to step through (``?ply=N``), and the engine's line of a position as a job the page follows.

Only who may see the analysis (``GameAnalysis.objects.visible_to``: its players and their
teachers) gets the pages; anyone else a 404, as for an analysis that does not exist. The words
and the values are :mod:`analysis.report`'s; the views pick the position and render.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from core.numbers import read_int

from . import report as rp
from .models import GameAnalysis


def _analysis_or_404(request: HttpRequest, pk: int) -> GameAnalysis:
    row = (
        GameAnalysis.objects.visible_to(request.user).filter(pk=pk).first() if pk < 2**62 else None
    )
    if row is None:
        raise Http404(_("No such analysis."))
    return row


def _partial(request: HttpRequest) -> bool:
    return bool(request.htmx) and not request.htmx.boosted


def _context(request: HttpRequest, analysis: GameAnalysis, ply: int) -> dict[str, Any]:
    game = rp.Game.of(analysis)
    ply = min(ply, game.last)
    flipped = analysis.user_side(request.user) == "black"
    done = analysis.state == GameAnalysis.State.DONE
    context: dict[str, Any] = {
        "analysis": analysis,
        "ply": ply,
        "last": game.last,
        "label": game.label(ply),
        "board": rp.position_view(game, ply, flipped),
        "position": rp.position_words(game, ply) if done else {},
        "numbered": rp.numbered_moves(game, ply),
        "steps": rp.steps(analysis, ply, game.last),
        "done": done,
        "can_ask_line": bool(game.boards[ply].legal_moves),
    }
    if done:
        context["chart"], context["points"] = rp.chart_of(game, ply)
        context["moments"] = rp.moments_of(game, request.user)
    job_id = request.GET.get("line", "")
    if job_id:
        job = rp.line_job(request.user, analysis, job_id)
        if job is not None and job.params.get("ply") == ply:
            context["line"] = rp.line_answer(game, job)
    return context


@never_cache
@require_GET
def report(request: HttpRequest, pk: int) -> HttpResponse:
    """The report, showing position ``?ply=N`` (the final position without it)."""
    analysis = _analysis_or_404(request, pk)
    last = len(analysis.moves)
    status, message = 200, ""
    ply = last
    if "ply" in request.GET:
        asked = read_int(request.GET.get("ply"), 0, last)
        if asked is None:
            status = 400
            message = _(
                "There is no such move in this game: choose a number from 0 to %(last)s."
            ) % {"last": last}
        else:
            ply = asked
    context = _context(request, analysis, ply)
    context["message"] = message
    template = "analysis/report.html#report-view" if _partial(request) else "analysis/report.html"
    return render(request, template, context, status=status)


@never_cache
@require_GET
def progress(request: HttpRequest, pk: int) -> HttpResponse:
    """The analysis's progress as the page polls it; once it has finished, the page again."""
    analysis = _analysis_or_404(request, pk)
    if not _partial(request):
        return redirect(analysis)
    if analysis.is_finished:
        response = HttpResponse(status=204)
        response["HX-Redirect"] = analysis.get_absolute_url()
        return response
    return render(request, "analysis/report.html#progress", {"analysis": analysis})


@require_POST
def line(request: HttpRequest, pk: int) -> HttpResponse:
    """Ask for the engine's line of position ``ply`` (a job for the workers, answered at once)."""
    analysis = _analysis_or_404(request, pk)
    game = rp.Game.of(analysis)
    ply = read_int(request.POST.get("ply"), 0, game.last)
    context: dict[str, Any] = {"analysis": analysis}
    if ply is None:
        context["line_error"] = _(
            "There is no such move in this game: choose a number from 0 to %(last)s."
        ) % {"last": game.last}
        return render(request, "analysis/report.html#engine-line", context, status=400)
    context["ply"] = ply
    try:
        job = rp.ask_line(request.user, game, ply)
    except rp.LineRefused as exc:
        if not _partial(request):  # without a script: the page, saying why
            context = {**_context(request, analysis, ply), "message": ""}
        context["line_error"] = exc.message
        template = "analysis/report.html" + ("#engine-line" if _partial(request) else "")
        return render(request, template, context, status=exc.status)
    if not _partial(request):
        return redirect(f"{rp.ply_url(analysis, ply)}&line={job.pk}")
    context["line"] = rp.line_answer(game, job)
    return render(request, "analysis/report.html#engine-line", context, status=202)


@never_cache
@require_GET
def line_job(request: HttpRequest, pk: int, job_id: str) -> HttpResponse:
    """The engine's line as the page follows it: searching, then the line in words."""
    analysis = _analysis_or_404(request, pk)
    job = rp.line_job(request.user, analysis, job_id)
    if job is None:
        raise Http404(_("No such job."))
    ply = int(job.params.get("ply") or 0)
    if not _partial(request):
        return redirect(f"{rp.ply_url(analysis, ply)}&line={job.pk}")
    game = rp.Game.of(analysis)
    context = {"analysis": analysis, "ply": ply, "line": rp.line_answer(game, job)}
    return render(request, "analysis/report.html#engine-line", context)
