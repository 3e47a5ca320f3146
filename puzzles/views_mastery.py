"""Every-defence mastery's pages (docs/trainer.md, "Every-defence mastery"): a solved puzzle
played again, the defender choosing in turn each defence of the proof's winning line
(:class:`~puzzles.models.Mastery`). For accounts: the progress is kept per account and shown on
the dashboard by motif. The board region is the ``mastery`` partial; a move is a POST."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from core.numbers import read_int
from core.variants import get_variant

from . import daily as daily_mod
from . import engine
from .models import MAX_ID, Attempt, Mastery
from .stream import can_solve, playable
from .trainer import Conflict, Outcome, Result, goal_text

TEMPLATE = "puzzles/mastery.html"


def _context(mastery: Mastery, result: Result | None = None, error: str = "") -> dict:
    puzzle = mastery.puzzle
    path: tuple[int, ...] = ()
    marks: dict[int, str] = {}
    if result is not None and result.kind == Outcome.CONTINUE:
        path = result.path
    if result is not None and result.kind == Outcome.ILLEGAL:
        marks = {sq: "wrong" for sq in result.squares}
    board = engine.trainer_board(
        puzzle.variant,
        puzzle.fen,
        list(mastery.line),  # the round so far: the defender's last reply is marked
        path=path,
        marks=marks,
        animate=result is not None and bool(result.reply),
        goal=puzzle.goal,
    )
    return {
        "mastery": mastery,
        "puzzle": puzzle,
        "variant": get_variant(puzzle.variant),
        "board": board,
        "result": result,
        "error": error,
        "goal_text": goal_text(puzzle.white_to_move, puzzle.goal, puzzle.horizon, puzzle.motifs),
        "move_url": reverse("puzzles:mastery_move", args=[mastery.pk]),
        "ply": len(mastery.line),
    }


def _render(request: HttpRequest, context: dict, status: int = 200) -> HttpResponse:
    template = f"{TEMPLATE}#mastery" if request.htmx else TEMPLATE
    return render(request, template, context, status=status)


@never_cache
@require_GET
@login_required
def mastery(request: HttpRequest, variant: str, pk: int) -> HttpResponse:
    """Meet every defence of a puzzle the account has solved (else: back to the puzzle)."""
    get_variant(variant)
    puzzle = playable(variant, pk)
    if puzzle is None or not can_solve(request.user, puzzle):
        raise Http404(_("No such puzzle."))
    if daily_mod.is_todays(puzzle):
        return redirect("puzzles:daily", variant=variant)
    if not Attempt.objects.filter(user=request.user, puzzle=puzzle, solved=True).exists():
        return redirect("puzzles:solve", variant=variant, pk=pk)
    return _render(request, _context(Mastery.of(request.user, puzzle)))


@never_cache
@require_POST
@login_required
def mastery_move(request: HttpRequest, pk: int) -> HttpResponse:
    """One move of the round: ``ply`` (the moves on the board the page shows), ``route`` (a
    clicked route so far) or ``move`` (typed). 400 for unreadable or illegal input or a missing
    ``ply``, 409 when the board changed in another tab."""
    found = (
        Mastery.objects.filter(pk=pk, user=request.user).select_related("puzzle").first()
        if 0 < pk <= MAX_ID
        else None
    )
    if found is None:
        raise Http404(_("No such puzzle."))
    ply = read_int(request.POST.get("ply", ""), 0, 999)
    if ply is None:
        return _render(request, _context(found, error=_("Reload the page and play again.")), 400)
    route = str(request.POST.get("route", "")).strip()
    try:
        result = found.play(ply, route=route, text=str(request.POST.get("move", "")))
    except Conflict:
        error = _("This board was played on in another tab: here is where it stands.")
        return _render(request, _context(found, error=error), 409)
    if not request.htmx:
        return redirect("puzzles:mastery", variant=found.puzzle.variant, pk=found.puzzle_id)
    return _render(request, _context(found, result=result), result.status)
