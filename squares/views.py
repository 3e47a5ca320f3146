"""The square trainer's pages (docs/squares.md): the settings and best scores of a board, a run,
an answer. Views read the input and call one model method; the run's state is the model's."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from core.board import board_from_fen, board_view, square_count, square_label, square_place
from core.numbers import read_int
from core.variants import VARIANTS, current_variant, get_variant

from .forms import RunForm
from .models import RUN_SECONDS, Answered, Conflict, Mode, Notation, Side, SquareRun, notations_of
from .trainee import Trainee

RUN_TEMPLATE = "squares/run.html"
#: an empty board of each size (the trainer draws no piece)
EMPTY = "W:W:B"


def square_words(variant: str, flipped: bool) -> dict[int, str]:
    """Where each square stands as the learner sees the board, for the keyboard cursor (never
    its name or number: that is what is trained)."""
    words = {}
    for sq in range(1, square_count(variant) + 1):
        column, row = square_place(variant, sq, flipped=flipped)
        words[sq] = _("column %(column)d from the left, row %(row)d from the bottom") % {
            "column": column,
            "row": row,
        }
    return words


def _label(run: SquareRun, square: int) -> str:
    return square_label(run.variant, square, algebraic=run.algebraic)


def prompt(run: SquareRun) -> str:
    """The question in words: the square to find, or where the square to name stands."""
    if run.mode == Mode.FIND:
        if run.algebraic:
            return _("Click the square %(square)s.") % {"square": _label(run, run.square)}
        return _("Click square number %(square)s.") % {"square": _label(run, run.square)}
    column, row = square_place(run.variant, run.square, flipped=run.flipped)
    place = _("column %(column)d from the left, row %(row)d from the bottom") % {
        "column": column,
        "row": row,
    }
    if run.algebraic:
        return _("Write the name of the marked square (%(place)s).") % {"place": place}
    return _("Write the number of the marked square (%(place)s).") % {"place": place}


def feedback(run: SquareRun, answered: Answered | None) -> str:
    """What the last answer came to (empty before the first)."""
    if answered is None or answered.over or not answered.asked:
        return ""
    asked, given = _label(run, answered.asked), _label(run, answered.given)
    if answered.right:
        return _("Right: %(square)s.") % {"square": asked}
    if run.mode == Mode.FIND:
        return _("Not that one: you clicked %(given)s, not %(asked)s.") % {
            "given": given,
            "asked": asked,
        }
    return _("Not that one: the square was %(asked)s, not %(given)s.") % {
        "asked": asked,
        "given": given,
    }


def settings_text(run: SquareRun) -> str:
    return ", ".join(
        str(x)
        for x in (
            VARIANTS[run.variant].title,
            Notation(run.notation).label,
            Side(run.side).label,
            Mode(run.mode).label,
        )
    )


def _run_context(
    request: HttpRequest,
    run: SquareRun,
    *,
    answered: Answered | None = None,
    error: str = "",
) -> dict:
    over = run.is_over()
    context = {"run": run, "over": over, "settings_text": settings_text(run)}
    if over:
        bests = SquareRun.objects.bests(Trainee.of(request), run.variant)
        context["best"] = bests.get(run.settings_key(), run.score)
        context["again"] = RunForm(
            run.variant,
            initial={"notation": run.notation, "side": run.side, "mode": run.mode},
        )
        return context
    board = board_from_fen(EMPTY, run.variant)
    marks = {run.square: "target"} if run.mode == Mode.NAME else {}
    view = board_view(
        board,
        mode="square",
        flipped=run.flipped,
        labels=None,
        marks=marks,
        square_words=square_words(run.variant, run.flipped),
    )
    question = prompt(run)
    said = feedback(run, answered)
    context.update(
        {
            "board": view,
            "prompt": question,
            "message": error or (f"{said} {question}" if said else question),
            "is_error": bool(error),
            "remaining_ms": run.remaining_ms(),
            "answer_url": reverse("squares:answer", args=[run.pk]),
        }
    )
    return context


def _render_run(request: HttpRequest, context: dict, status: int = 200) -> HttpResponse:
    template = f"{RUN_TEMPLATE}#run-region" if request.htmx else RUN_TEMPLATE
    return render(request, template, context, status=status)


def _owned_or_404(request: HttpRequest, pk: int) -> SquareRun:
    run = SquareRun.objects.owned(Trainee.of(request), pk)
    if run is None:
        raise Http404(_("No such run."))
    return run


@require_GET
def index(request: HttpRequest) -> HttpResponse:
    return redirect("squares:trainer", variant=current_variant(request))


def _trainer_context(request: HttpRequest, variant: str, form: RunForm) -> dict:
    trainee = Trainee.of(request)
    bests = SquareRun.objects.bests(trainee, variant)
    names = dict(Notation.choices)
    rows = [
        {
            "notation": names[notation],
            "side": label_side,
            "find": bests.get((notation, side, Mode.FIND)),
            "name": bests.get((notation, side, Mode.NAME)),
        }
        for notation in notations_of(variant)
        for side, label_side in Side.choices
    ]
    return {
        "variant": variant,
        "variant_info": get_variant(variant),
        "variants": VARIANTS.values(),
        "form": form,
        "rows": rows,
        "seconds": RUN_SECONDS,
    }


@never_cache
@require_GET
def trainer(request: HttpRequest, variant: str) -> HttpResponse:
    """A board's trainer: choose notation, side and mode; the best scores."""
    form = RunForm(variant)
    for name in ("notation", "side", "mode"):  # a link's choice (a lesson links to its notation)
        chosen = request.GET.get(name)
        if chosen in dict(form.fields[name].choices):
            form.fields[name].initial = chosen
    return render(request, "squares/trainer.html", _trainer_context(request, variant, form))


@require_POST
def start(request: HttpRequest, variant: str) -> HttpResponse:
    """Start a run with the settings posted (400 with the form's errors for bad ones)."""
    form = RunForm(variant, request.POST)
    if not form.is_valid():
        return render(
            request, "squares/trainer.html", _trainer_context(request, variant, form), status=400
        )
    try:
        run = SquareRun.start(Trainee.of(request), variant=variant, **form.cleaned_data)
    except ValidationError as exc:
        form.add_error(None, exc)
        return render(
            request, "squares/trainer.html", _trainer_context(request, variant, form), status=400
        )
    return redirect("squares:run", pk=run.pk)


@never_cache
@require_GET
def run(request: HttpRequest, pk: int) -> HttpResponse:
    """A run: the question and the time left, or the score once the time is up."""
    return _render_run(request, _run_context(request, _owned_or_404(request, pk)))


@require_POST
def answer(request: HttpRequest, pk: int) -> HttpResponse:
    """An answer to the question numbered ``asked``: a clicked square (``route``) or a written
    name or number (``answer``). 400 for input that gives no square, 409 for a question already
    answered (another tab); the next question (or the score, once the time is up) otherwise."""
    run = _owned_or_404(request, pk)
    asked = read_int(request.POST.get("asked", ""), 1, 2**31 - 1)
    route = str(request.POST.get("route", "")).strip()
    square = read_int(route, 1, 99) if route else None
    if asked is None:
        context = _run_context(request, run, error=_("The question is missing: reload the page."))
        return _render_run(request, context, status=400)
    try:
        answered = run.answer(asked, square=square, text=str(request.POST.get("answer", "")))
    except ValidationError as exc:
        return _render_run(request, _run_context(request, run, error=" ".join(exc.messages)), 400)
    except Conflict:
        context = _run_context(
            request, run, error=_("That question was answered already (in another tab?).")
        )
        return _render_run(request, context, status=409)
    if not request.htmx:
        return redirect("squares:run", pk=run.pk)
    return _render_run(request, _run_context(request, run, answered=answered))
