from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from core.variants import current_variant, get_variant

from . import engine, limits
from .models import Puzzle


def index(request: HttpRequest) -> HttpResponse:
    return redirect("puzzles:trainer", variant=current_variant(request))


def daily_index(request: HttpRequest) -> HttpResponse:
    return redirect("puzzles:daily", variant=current_variant(request))


def proof_context(puzzle: Puzzle) -> dict:
    """What the proof page shows; the diagram's arrows depend on the verdict: the key move of a
    unique puzzle, the second solution of a cooked one, the best try of one without a solution
    (none for a puzzle kept for the exams)."""
    proof = puzzle.proof or {}
    arrows: list[str] = []
    if puzzle.for_exams:  # kept for the exams: no line of its proof is shown
        pass
    elif puzzle.verdict == "unique":
        arrows = proof.get("solution", [])[:1]
    elif puzzle.verdict == "cooked":
        arrows = [alt[0] for alt in proof.get("alternatives", [])[:1] if alt]
    elif puzzle.verdict == "no_solution":
        arrows = proof.get("refutation", [])[:1]
    return {
        "puzzle": puzzle,
        "variant": get_variant(puzzle.variant),
        "diagram": engine.diagram(puzzle.variant, puzzle.fen, arrows=arrows),
        "arrow": engine.line_texts(puzzle.variant, puzzle.fen, arrows),
    }


@never_cache
@require_http_methods(["GET", "POST"])
def proof(request: HttpRequest, variant: str, pk: int) -> HttpResponse:
    """A puzzle's proof: live progress while a worker proves it (htmx polling every second that
    stops with the verdict), then the verdict. Staff and the puzzle's author only; a POST proves
    it again."""
    get_variant(variant)
    puzzle = Puzzle.objects.filter(pk=pk, variant=variant).first()
    user = request.user
    if puzzle is None or not (
        user.is_authenticated and (user.is_staff or puzzle.author_id == user.pk)
    ):
        raise Http404(_("No such puzzle."))
    status = 200
    refused = ""
    if request.method == "POST":
        refused = limits.over_limit(limits.REPROOFS, user)
        if refused:
            status = 429
        else:
            puzzle.verify_again()
            if not request.htmx:
                return redirect(puzzle.get_absolute_url())
    context = {**proof_context(puzzle), "refused": refused}
    if request.htmx:
        context["oob"] = True
        response = render(request, "puzzles/proof.html#status", context, status=status)
        if puzzle.is_finished:  # the editor fetches what the verdict allows (issue 15)
            response["HX-Trigger"] = "proof-finished"
        return response
    return render(request, "puzzles/proof.html", context, status=status)
