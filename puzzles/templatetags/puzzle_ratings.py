"""``{% puzzle_ratings user %}``: the player's puzzle ratings per variant, each with its history
as an inline SVG chart (no JavaScript, no chart library); ``{{ change|signed }}``: a rating
change with its sign."""

from __future__ import annotations

from typing import Any

from django import template

from core.variants import VARIANTS

from ..models import PlayerRating, RatingHistory

register = template.Library()

WIDTH, HEIGHT, PAD = 360, 120, 28
MAX_POINTS = 200


def chart(points: list[tuple[float, float]]) -> dict[str, Any]:
    """Polyline and deviation band coordinates for (rating, deviation) points, oldest first."""
    points = points[-MAX_POINTS:]
    lows = [r - d for r, d in points]
    highs = [r + d for r, d in points]
    top = max(max(highs), max(r for r, _d in points) + 50)
    bottom = min(min(lows), min(r for r, _d in points) - 50)
    span = max(top - bottom, 1.0)
    n = len(points)

    def x(i: int) -> float:
        return round(PAD + (WIDTH - PAD - 6) * (i / (n - 1) if n > 1 else 0.5), 1)

    def y(v: float) -> float:
        return round(6 + (HEIGHT - 12) * (top - v) / span, 1)

    line = " ".join(f"{x(i)},{y(r)}" for i, (r, _d) in enumerate(points))
    band = " ".join(f"{x(i)},{y(h)}" for i, h in enumerate(highs)) + " "
    band += " ".join(f"{x(i)},{y(lo)}" for i, lo in reversed(list(enumerate(lows))))
    return {
        "width": WIDTH,
        "height": HEIGHT,
        "line": line,
        "band": band,
        "top": round(top),
        "bottom": round(bottom),
        "pad": PAD,
        "last_x": x(n - 1),
        "last_y": y(points[-1][0]),
    }


@register.inclusion_tag("puzzles/ratings.html")
def puzzle_ratings(user) -> dict[str, Any]:
    rows = []
    for rating in PlayerRating.objects.filter(user=user).order_by("variant"):
        points = list(
            RatingHistory.objects.filter(user=user, variant=rating.variant)
            .order_by("at", "pk")
            .values_list("rating", "deviation")
        )
        rows.append(
            {
                "variant": VARIANTS.get(rating.variant),
                "rating": rating,
                "chart": chart(points) if points else None,
            }
        )
    return {"rows": rows}


@register.filter
def signed(change: float | None) -> str:
    """A rating change in whole points with its sign, as lichess shows it: "+12", "-9", and
    "±0" for a change that rounds to nothing (Django's ``floatformat`` signs only negatives).

    >>> signed(11.6), signed(-9.2), signed(-0.4), signed(None)
    ('+12', '-9', '±0', '')
    """
    if change is None:
        return ""
    points = round(float(change))
    if points > 0:
        return f"+{points}"
    return f"-{-points}" if points < 0 else "±0"


@register.filter
def motif_name(name: str) -> str:
    """A motif tag as the learner reads it (``coup_royal`` -> "coup royal", in the language)."""
    from puzzles.views_trainer import motif_label

    return str(motif_label(name))
