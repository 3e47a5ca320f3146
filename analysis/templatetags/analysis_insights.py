"""``{% game_motifs variant by_motif %}``: on the player's puzzle dashboard, the motifs they miss
in their own analysed games beside those they fail in puzzles (``by_motif``: the dashboard's
rows). ``{% class_game_motifs classroom %}``: on a class's progress page, the motifs its students
miss in their own games, and the way to their personal puzzles. One query each
(:mod:`analysis.insights`)."""

from __future__ import annotations

from typing import Any

from django import template

from ..insights import beside_puzzles, class_motifs, player_motifs

register = template.Library()


@register.inclusion_tag("analysis/_game_motifs.html", takes_context=True)
def game_motifs(context: Any, variant: str, by_motif: Any = ()) -> dict[str, Any]:
    user = context["request"].user
    return {
        "variant": variant,
        "rows": beside_puzzles(player_motifs(user, variant), by_motif),
        "account": user.is_authenticated,
    }


@register.inclusion_tag("analysis/_class_game_motifs.html")
def class_game_motifs(classroom: Any) -> dict[str, Any]:
    return {"classroom": classroom, "rows": class_motifs(list(classroom.students()))}
