"""The board editor: placing pieces, the solution board, asking the engine, saving a puzzle of
the set (which proves it on the workers)."""

from __future__ import annotations

from datetime import timedelta

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.html import escape
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core.board import play_line
from core.models import Job
from core.numbers import read_int
from puzzles.models import Puzzle
from puzzles.views import proof_context

from .. import engine
from ..forms import PuzzleForm
from ..models import PuzzleSet
from ..tasks import SOLVE_JOB, deep_solve
from .access import set_for


def _pieces() -> list[tuple[str, str]]:
    """The editor's palette: what a click on a square puts there."""
    return [
        ("w", _("White man")),
        ("W", _("White king")),
        ("b", _("Black man")),
        ("B", _("Black king")),
        ("", _("Empty square")),
    ]


def _editor_context(
    puzzle_set: PuzzleSet, form: PuzzleForm, puzzle: Puzzle | None, *, fen: str, line: list[str]
) -> dict:
    context = {
        "puzzle_set": puzzle_set,
        "form": form,
        "puzzle": puzzle,
        "position": engine.editor_board(fen, puzzle_set.variant),
        "pieces": _pieces(),
    }
    context.update(_line_context(puzzle_set, fen, line))
    if puzzle is not None and puzzle.pk:
        context.update(proof_context(puzzle))  # the proof partials of the puzzles app
    return context


def _line_context(puzzle_set: PuzzleSet, fen: str, line: list[str], **extra) -> dict:
    try:
        board = engine.line_view(puzzle_set.variant, fen, line)
    except ValidationError:
        line = []
        board = engine.line_view(puzzle_set.variant, fen, line)
    return {"puzzle_set": puzzle_set, "line_fen": fen, "line": line, "line_board": board, **extra}


@login_required
@never_cache
@require_http_methods(["GET", "POST"])
def puzzle_editor(request: HttpRequest, pk: int, puzzle_id: int | None = None) -> HttpResponse:
    """The board editor: a new puzzle of the set, or one of the set's own puzzles. Saving proves
    it on the workers and this page shows the proof arriving."""
    puzzle_set = set_for(request, pk)
    puzzle = None
    if puzzle_id is not None:
        puzzle = get_object_or_404(puzzle_set.puzzles.filter(for_exams=False), pk=puzzle_id)
        if puzzle.author_id != request.user.pk:
            return render(
                request,
                "classroom/puzzle_readonly.html",
                {"puzzle_set": puzzle_set, "puzzle": puzzle, **proof_context(puzzle)},
            )
    initial = (
        PuzzleForm.initial_for(puzzle)
        if puzzle
        else {"fen": engine.empty_fen(puzzle_set.variant), "goal": "capture"}
    )
    form = PuzzleForm(request.POST or None, initial=initial, variant=puzzle_set.variant)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            saved, created = puzzle_set.save_puzzle(
                request.user,
                fen=data["fen"],
                goal=data["goal_text"],
                horizon=data.get("horizon"),
                solution=data["solution"],
                title=data.get("title", ""),
                description=data.get("description", ""),
                source=_("set %(title)s") % {"title": puzzle_set.title},
                puzzle=puzzle,
            )
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            if puzzle is not None and saved.pk != puzzle.pk:
                messages.info(
                    request,
                    _(
                        "Puzzle #%(old)s is used elsewhere too (another set, the puzzle corpus or "
                        "a daily puzzle), so it stays as it was: your set has your changed copy, "
                        "puzzle #%(id)s."
                    )
                    % {"old": puzzle.pk, "id": saved.pk},
                )
            elif saved.author_id != request.user.pk:
                messages.info(
                    request,
                    _(
                        "This position with this goal is already puzzle #%(id)s; it is in your set now."
                    )
                    % {"id": saved.pk},
                )
            elif saved.is_finished:
                messages.success(request, _("Saved; the proof is unchanged."))
            else:
                messages.success(request, _("Saved; the workers are proving it."))
            return redirect("classroom:puzzle_edit", pk=puzzle_set.pk, puzzle_id=saved.pk)
    fen = request.POST.get("fen") or initial["fen"]
    line = (request.POST.get("solution") or initial.get("solution", "")).split()
    try:
        fen = engine.normalise_fen(fen, puzzle_set.variant)
    except ValidationError:
        fen = engine.start_fen(puzzle_set.variant)
    return render(
        request,
        "classroom/editor.html",
        _editor_context(puzzle_set, form, puzzle, fen=fen, line=line),
        status=400 if form.errors else 200,
    )


@login_required
@require_POST
def editor_board(request: HttpRequest, pk: int) -> HttpResponse:
    """One change to the position in the editor: a piece placed or removed, the side to move,
    clear, start position, or a pasted FEN. Answers the editor's partials."""
    puzzle_set = set_for(request, pk)
    variant = puzzle_set.variant
    action = request.POST.get("action", "place")
    fen = request.POST.get("fen", "")
    error = ""
    try:
        fen = engine.normalise_fen(fen, variant)
    except ValidationError:
        fen = engine.empty_fen(variant)
    before = fen
    try:
        if action == "clear":
            fen = engine.empty_fen(variant, engine.white_to_move(fen))
        elif action == "start":
            fen = engine.start_fen(variant)
        elif action == "load":
            fen = engine.normalise_fen(request.POST.get("fen_text", ""), variant)
        elif action == "turn":
            fen = engine.with_turn(fen, variant, request.POST.get("turn", "W") != "B")
        else:
            square = read_int(
                request.POST.get("square"), 0, 999
            )  # the engine says if it is on the board
            if square is None:
                raise ValidationError(_("Click a dark square."))
            fen = engine.toggle_piece(fen, variant, square, request.POST.get("piece", "w"))
    except ValidationError as exc:
        error = " ".join(exc.messages)
    try:
        position = engine.editor_board(fen, variant)
    except ValidationError as exc:  # a change that makes the position invalid: keep the old one
        error, fen = " ".join(exc.messages), before
        position = engine.editor_board(fen, variant)
    context = {
        "puzzle_set": puzzle_set,
        "position": position,
        "piece": request.POST.get("piece", "w"),
        "pieces": _pieces(),
        "error": error,
        **_line_context(puzzle_set, fen, []),
    }
    return render(
        request, "classroom/editor.html#position-update", context, status=400 if error else 200
    )


@login_required
@require_POST
def editor_line(request: HttpRequest, pk: int) -> HttpResponse:
    """The solution board: play a move (clicked or typed), take one back, or start again."""
    puzzle_set = set_for(request, pk)
    variant = puzzle_set.variant
    try:
        fen = engine.normalise_fen(request.POST.get("fen", ""), variant)
    except ValidationError as exc:
        return HttpResponse(escape(" ".join(exc.messages)), status=400)  # htmx swaps it in
    line = request.POST.get("line", "").split()
    action = request.POST.get("action", "play")
    message, is_error = "", False
    if action == "show":  # a line of the proof (the cook, the refutation) to step through
        try:
            play_line(variant, fen, line)
        except ValidationError as exc:
            return HttpResponse(escape(" ".join(exc.messages)), status=400)  # htmx swaps it in
        context = _line_context(
            puzzle_set, fen, line, message=request.POST.get("label", "")[:200], showing=True
        )
        return render(request, "classroom/editor.html#solution-update", context)
    try:
        if action == "undo":
            line = line[:-1]
        elif action == "reset":
            line = []
        else:
            line = engine.play_on_line(
                variant,
                fen,
                line,
                route=request.POST.get("route", ""),
                text=request.POST.get("move", ""),
            )
    except ValidationError as exc:
        message, is_error = " ".join(exc.messages), True
    context = _line_context(
        puzzle_set,
        fen,
        line,
        message=message,
        is_error=is_error,
        showing=request.POST.get("showing") == "1",
    )
    return render(
        request, "classroom/editor.html#solution-update", context, status=400 if is_error else 200
    )


#: a teacher waits for one "Ask the engine" at a time (a job older than this no longer counts)
SOLVE_JOB_PATIENCE = timedelta(seconds=60)


@login_required
@require_POST
def editor_solve(request: HttpRequest, pk: int) -> HttpResponse:
    """Ask the engine for the solution: a job for the workers (``classroom.tasks.deep_solve``),
    answered at once (202) with its progress, which the page polls (:func:`editor_solve_job`);
    the solution found then goes on the solution board. The full proof runs on the workers when
    the puzzle is saved."""
    puzzle_set = set_for(request, pk)
    variant = puzzle_set.variant
    form = PuzzleForm(request.POST, variant=variant)
    form.is_valid()
    data = form.cleaned_data
    fen = data.get("fen") or ""
    context = {"puzzle_set": puzzle_set}
    if "fen" in form.errors or "goal_text" not in data:
        message = " ".join(m for errs in form.errors.values() for m in errs)
        context["engine_error"] = message
        return render(request, "classroom/editor.html#engine-job", context, status=400)
    busy = Job.objects.pending().filter(
        kind=SOLVE_JOB, owner=request.user, created__gte=timezone.now() - SOLVE_JOB_PATIENCE
    )
    if busy.exists():
        context["engine_error"] = _(
            "The engine is still answering your last question: wait for it, then ask again."
        )
        return render(request, "classroom/editor.html#engine-job", context, status=409)
    job = Job.objects.create(
        kind=SOLVE_JOB,
        owner=request.user,
        params={
            "set": puzzle_set.pk,
            "variant": variant,
            "fen": fen,
            "goal": data["goal_text"],
            "horizon": data.get("horizon"),
            "language": translation.get_language(),
        },
    )
    job_id = str(job.pk)
    transaction.on_commit(lambda: deep_solve.delay(job_id))
    context["job"] = job
    response = render(request, "classroom/editor.html#engine-job", context, status=202)
    response["Location"] = reverse("classroom:editor_solve_job", args=[puzzle_set.pk, job.pk])
    return response


def engine_answer(verdict: dict) -> tuple[list[str], str]:
    """The line to put on the solution board and what to say, for the engine's ``verdict``."""
    kind = verdict["kind"]
    if kind == "unique":
        return verdict["solution"], _(
            "The engine found the solution; it is unique within its quick search."
        )
    if kind == "cooked":
        others = ", ".join(alt[0] for alt in verdict["alternatives"] if alt)
        message = _("The engine found a solution, but also %(others)s: the puzzle is cooked.") % {
            "others": others
        }
        return verdict["solution"], message
    if kind == "no_solution":
        message = _("The engine found no solution for this goal.")
        if verdict["refutation"]:
            message += " " + _("Best try and refutation: %(line)s") % {
                "line": " ".join(verdict["refutation"])
            }
        return [], message
    return [], _(
        "The quick search could not decide; save the puzzle and the workers prove it with "
        "their full limits."
    )


@login_required
@never_cache
@require_GET
def editor_solve_job(request: HttpRequest, pk: int, job_id: str) -> HttpResponse:
    """The "Ask the engine" job as the editor polls it: its progress while it runs; once done,
    the solution on the solution board (swapped in out of band) and what the engine said."""
    puzzle_set = set_for(request, pk)
    job = Job.objects.visible_to(request).filter(pk=job_id, kind=SOLVE_JOB).first()
    if job is None or job.params.get("set") != puzzle_set.pk:
        raise Http404(_("No such job."))
    context: dict = {"puzzle_set": puzzle_set, "job": job}
    if job.status == Job.Status.FAILED:
        context["engine_error"] = _("The engine could not answer: %(error)s") % {"error": job.error}
    if job.status != Job.Status.DONE:
        return render(request, "classroom/editor.html#engine-job", context)
    line, message = engine_answer(job.result)
    kind = job.result["kind"]
    context.update(
        _line_context(
            puzzle_set,
            job.params["fen"],
            line,
            message=message,
            is_error=kind != "unique",
            verdict=kind,
        )
    )
    return render(request, "classroom/editor.html#engine-answer", context)
