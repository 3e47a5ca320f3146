from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from core.variants import current_variant, get_variant

from . import engine


def index(request: HttpRequest) -> HttpResponse:
    return redirect("lessons:course", variant=current_variant(request))


def course(request: HttpRequest, variant: str) -> HttpResponse:
    """A variant's rule course (the steps arrive with the lessons feature)."""
    info = get_variant(variant)
    return render(
        request,
        "lessons/course.html",
        {
            "variant": info,
            "diagram": engine.start_diagram(variant),
            "men": engine.men_per_side(variant),
        },
    )
