from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from core.variants import current_variant, get_variant

from . import engine


def index(request: HttpRequest) -> HttpResponse:
    return redirect("puzzles:trainer", variant=current_variant(request))


def trainer(request: HttpRequest, variant: str) -> HttpResponse:
    """The puzzle trainer of a variant (puzzles arrive with the puzzle feature)."""
    info = get_variant(variant)
    return render(
        request, "puzzles/trainer.html", {"variant": info, "diagram": engine.diagram(variant)}
    )


def daily_index(request: HttpRequest) -> HttpResponse:
    return redirect("puzzles:daily", variant=current_variant(request))


def daily(request: HttpRequest, variant: str) -> HttpResponse:
    """Today's puzzle of a variant (chosen by the puzzle feature)."""
    info = get_variant(variant)
    return render(request, "puzzles/daily.html", {"variant": info})
