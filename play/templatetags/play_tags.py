"""Links into play from other apps' pages: "Play on from here" (a puzzle, a lesson step, the
board editor) and the course map's offer of a game against the computer."""

from __future__ import annotations

from django import template
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.http import urlencode

from core.variants import VARIANTS

from ..models import check_start
from ..owner import Owner
from ..suggest import suggested_level

register = template.Library()


@register.inclusion_tag("play/_play_on.html")
def play_on(variant: str, fen: str, source: str = "", colour: str = "") -> dict:
    """A link that starts a game from ``fen`` (nothing when the game is over there, the
    position is not valid or it is sealed: an exam's)."""
    if variant not in VARIANTS or not fen:
        return {"url": ""}
    try:
        fen = check_start(variant, fen)
    except ValidationError:
        return {"url": ""}
    query = {"fen": fen}
    if source:
        query["from"] = source
    if colour in ("white", "black"):
        query["color"] = colour
    return {"url": reverse("play:new", args=[variant]) + "?" + urlencode(query)}


@register.inclusion_tag("play/_offer.html", takes_context=True)
def play_offer(context, variant: str) -> dict:
    """The course map's offer: a first game against the computer at the suggested level."""
    request = context.get("request")
    if request is None or variant not in VARIANTS:
        return {"url": ""}
    level = suggested_level(request, variant)
    first = not Owner.of(request).games().filter(variant=variant).exists()
    url = reverse("play:new", args=[variant]) + "?" + urlencode({"level": level})
    return {"url": url, "first": first, "level": level}


#: how many of a class's latest games its page shows
CLASS_LATEST = 5


@register.inclusion_tag("play/_class_section.html")
def class_games(classroom) -> dict:
    """The class page's section: its students' latest games against the computer."""
    from ..models import Game

    games = list(
        Game.objects.filter(user__in=classroom.students()).select_related("user")[:CLASS_LATEST]
    )
    return {"classroom": classroom, "games": games}
