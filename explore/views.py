"""The analysis board: set a position up, try moves, ask the engine (docs/explore.md)."""

from __future__ import annotations

from urllib.parse import quote, urlencode

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from core.board import board_view, end_message, start_board
from core.models import Job
from core.variants import VARIANTS, current_variant

from . import analysis, engine
from .forms import SetupForm, StateForm, refuse_sealed
from .tree import Tree, board_url

TEMPLATE = "explore/board.html"


def _context(request, tree: Tree, at: int, **extra) -> dict:
    board = tree.boards[at]
    last = board.peek() if at else None
    view = board_view(
        board,
        mode="free",
        last_move=last,
        notation=tree.moves[at - 1][1] if at else None,
        flipped=bool(extra.pop("flipped", False)),
    )
    fen = board.fen()
    result = analysis.cached(tree.variant, fen)
    end, _article = end_message(board)
    path = tree.path(at)
    kids = tree.children(at)
    state = {
        "variant": tree.variant,
        "fen": tree.fen,
        "tree": tree.encode(),
        "at": at,
        "flipped": view.flipped,
    }
    tokens = tree.tokens()
    for token in tokens:
        if token.kind == "move":
            token.url = board_url(tree, token.node, view.flipped)
    context = {
        "tree": tree,
        "at": at,
        "board": view,
        "state": state,
        "state_form": StateForm(initial=state, auto_id=False),
        "tokens": tokens,
        "on_path": set(path),
        "prev_url": board_url(tree, tree.parent(at), view.flipped) if at else "",
        "next_url": board_url(tree, kids[0], view.flipped) if kids else "",
        "start_url": board_url(tree, 0, view.flipped),
        "self_url": board_url(tree, at, view.flipped),
        "self_url_quoted": quote(board_url(tree, at, view.flipped), safe=""),
        "pdn_url": reverse("explore:pdn") + "?" + board_url(tree, 0).split("?", 1)[1],
        "position_fen": fen,
        "result": analysis.present(result, tree, at) if result else None,
        "end": end,
        "variant_info": VARIANTS[tree.variant],
        "setup_form": extra.pop("setup_form", None)
        or SetupForm(initial={"variant": tree.variant, "position": tree.fen}),
    }
    context.update(extra)
    return context


@never_cache
@require_GET
def board(request: HttpRequest) -> HttpResponse:
    """The board: the variant's start position, or the state in the address (a link from another
    page: ``?variant=czech&fen=W:...``; a line: ``&tree=0:22-18 1:11-15&at=2``)."""
    if "fen" not in request.GET:
        variant = request.GET.get("variant")
        variant = variant if variant in VARIANTS else current_variant(request)
        tree = Tree.parse(variant, start_board(variant).fen())
        return render(request, TEMPLATE, _context(request, tree, 0))
    form = StateForm(request.GET)
    if not form.is_valid():
        return _bad_setup(request, request.GET.get("variant"), request.GET.get("fen"), form)
    data = form.cleaned_data
    context = _context(request, data["tree_obj"], data["at"], flipped=data["flipped"])
    template = f"{TEMPLATE}#workspace" if request.htmx else TEMPLATE
    return render(request, template, context)


def _bad_setup(request, variant, text, form) -> HttpResponse:
    """The board at the start position with the set-up form saying what is wrong (400)."""
    variant = variant if variant in VARIANTS else current_variant(request)
    setup = SetupForm(initial={"variant": variant, "position": (text or "")[:400]})
    messages = [m for errors in form.errors.values() for m in errors]
    tree = Tree.parse(variant, start_board(variant).fen())
    context = _context(request, tree, 0, setup_form=setup, setup_errors=messages)
    return render(request, TEMPLATE, context, status=400)


@require_POST
def setup(request: HttpRequest) -> HttpResponse:
    """A pasted FEN or PDN: the board set up from it (a redirect to its address), or the form
    with what is wrong (400)."""
    form = SetupForm(request.POST)
    if not form.is_valid():
        variant = request.POST.get("variant")
        variant = variant if variant in VARIANTS else current_variant(request)
        tree = Tree.parse(variant, start_board(variant).fen())
        return render(request, TEMPLATE, _context(request, tree, 0, setup_form=form), status=400)
    tree = form.cleaned_data["tree"]
    return redirect(board_url(tree, 0))


@require_POST
def move(request: HttpRequest) -> HttpResponse:
    """A move tried on the board: the engine checks it (a rules check, no search); it continues
    the line, or starts a side line, or follows the move already there. A move that is not legal
    answers 400 with the rule it breaks, the board unchanged."""
    form = StateForm(request.POST)
    if not form.is_valid():
        messages = " ".join(m for errors in form.errors.values() for m in errors)
        if request.htmx:
            return HttpResponse(messages, status=400, content_type="text/plain; charset=utf-8")
        return _bad_setup(request, request.POST.get("variant"), request.POST.get("fen"), form)
    data = form.cleaned_data
    tree, at = data["tree_obj"], data["at"]
    try:
        node = tree.play(
            at,
            route=request.POST.get("route", "")[:200],
            text=request.POST.get("move", "")[:200],
        )
        refuse_sealed(tree, node)  # a move may not lead into a sealed position
    except ValidationError as exc:
        context = _context(
            request,
            tree,
            at,
            flipped=data["flipped"],
            message=" ".join(exc.messages),
            is_error=True,
        )
        template = f"{TEMPLATE}#workspace" if request.htmx else TEMPLATE
        return render(request, template, context, status=400)
    url = board_url(tree, node, data["flipped"])
    if not request.htmx:
        return redirect(url)
    context = _context(
        request,
        tree,
        node,
        flipped=data["flipped"],
        message=_("Played %(move)s.") % {"move": tree.moves[node - 1][1]},
    )
    response = render(request, f"{TEMPLATE}#workspace", context)
    response["HX-Push-Url"] = url
    return response


@login_required
@require_POST
def analyse(request: HttpRequest) -> HttpResponse:
    """Ask the engine about the board's position: the kept analysis at once, or a job for the
    workers (202) that the page follows; the user's analysis still to do is replaced."""
    form = StateForm(request.POST)
    if not form.is_valid():
        messages = " ".join(m for errors in form.errors.values() for m in errors)
        return render(request, f"{TEMPLATE}#analysis", {"analysis_error": messages}, status=400)
    data = form.cleaned_data
    tree, at = data["tree_obj"], data["at"]
    fen = tree.boards[at].fen()
    state = {k: data[k] for k in ("variant", "fen", "tree", "at", "flipped")}
    context = {
        "position_fen": fen,
        "state": state,
        "state_form": StateForm(initial=state, auto_id=False),
    }
    result = analysis.cached(tree.variant, fen)
    if result is not None:
        context["result"] = analysis.present(result, tree, at)
        return render(request, f"{TEMPLATE}#analysis", context)
    if not tree.boards[at].legal_moves:
        context["analysis_error"] = _(
            "The game is over in this position: there is nothing to analyse."
        )
        return render(request, f"{TEMPLATE}#analysis", context, status=400)
    try:
        job = analysis.start(
            request.user, tree.variant, fen, {"root": tree.fen, "tree": tree.encode(), "at": at}
        )
    except ValidationError as exc:
        context["analysis_error"] = " ".join(exc.messages)
        return render(request, f"{TEMPLATE}#analysis", context, status=400)
    context["job"] = job
    if not request.htmx:  # without scripts: the job's own page, which refreshes itself
        return redirect("explore:job", job.pk)
    response = render(request, f"{TEMPLATE}#analysis", context, status=202)
    response["Location"] = reverse("explore:job", args=[job.pk])
    return response


@never_cache
@require_GET
def job(request: HttpRequest, job_id: str) -> HttpResponse:
    """An analysis as the page follows it: its progress, then its lines."""
    found = Job.objects.visible_to(request).filter(pk=job_id, kind=analysis.KIND).first()
    if found is None:
        raise Http404(_("No such job."))
    fen = found.params.get("fen", "")
    context: dict = {"job": found, "position_fen": fen}
    if found.status == Job.Status.DONE:
        tree, at = _tree_of(found)
        context["result"] = analysis.present(found.result, tree, at)
    elif found.status == Job.Status.FAILED:
        context["analysis_error"] = (
            _("A newer analysis replaced this one.")
            if found.error == analysis.REPLACED
            else _("The engine could not answer: %(error)s") % {"error": found.error}
        )
    if request.htmx:
        return render(request, f"{TEMPLATE}#analysis", context)
    variant = found.params.get("variant", "")
    query = urlencode({"variant": variant, "fen": fen})
    context["board_url"] = f"{reverse('explore:board')}?{query}"
    context["standalone"] = True
    return render(request, "explore/job.html", context)


def _tree_of(job: Job) -> tuple[Tree | None, int]:
    """The board's line the job was asked from (checked again), or None."""
    board = job.params.get("board") or {}
    try:
        tree = Tree.parse(job.params["variant"], board["root"], board.get("tree", ""))
        at = int(board.get("at", 0))
    except (KeyError, TypeError, ValueError, ValidationError):
        return None, 0
    if not 0 <= at <= len(tree.moves) or tree.boards[at].fen() != job.params["fen"]:
        return None, 0
    return tree, at


@require_GET
def pdn(request: HttpRequest) -> HttpResponse:
    """The line with its side lines as a PDN file, the engine's evaluations as comments where
    they are known."""
    form = StateForm(request.GET)
    if not form.is_valid():
        messages = " ".join(m for errors in form.errors.values() for m in errors)
        return HttpResponse(messages, status=400, content_type="text/plain; charset=utf-8")
    tree: Tree = form.cleaned_data["tree_obj"]
    comments = {}
    for node, board in enumerate(tree.boards):
        text = analysis.comment(analysis.cached(tree.variant, board.fen()))
        if text:
            comments[node] = text
    text = engine.write_pdn(
        tree.variant, tree.fen, tree.moves, comments, {"Event": _("Analysis board")}
    )
    response = HttpResponse(text, content_type="application/x-pdn; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="analysis.pdn"'
    return response
