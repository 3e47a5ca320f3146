"""Links into the analyses from the games' pages of the floors below (``play`` and ``versus``,
which do not import the analysis): ``{% game_analysis_link game %}``, "Analysis", from a finished
game to its report when it has one the viewer may see; ``{% analyses_link %}``, "Analyses of your
games", from a user's lists of games to theirs."""

from __future__ import annotations

from typing import Any

from django import template

from ..models import GameAnalysis

register = template.Library()


@register.inclusion_tag("analysis/_game_link.html", takes_context=True)
def game_analysis_link(context: Any, game: Any) -> dict[str, Any]:
    """The link to the report of ``game`` (a ``play.Game`` or a ``versus.VersusGame``): nothing
    when the game has no analysis or the viewer may not see it (a spectator)."""
    user = context["request"].user
    row = GameAnalysis.objects.visible_to(user).of_game(game).only("pk").first()
    return {"url": row.get_absolute_url() if row is not None else ""}


@register.inclusion_tag("analysis/_analyses_link.html", takes_context=True)
def analyses_link(context: Any) -> dict[str, Any]:
    """The link to the user's analyses (nothing for a visitor)."""
    return {"account": context["request"].user.is_authenticated}
