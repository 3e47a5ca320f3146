"""Links into the analysis board from other apps' pages: "Analyse this position" (a puzzle once
solved or given up, the teacher's board editor) and "Analyse the game" (a finished game against
the computer or between players, its moves as the board's main line)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django import template
from django.core.exceptions import ValidationError

from core.variants import VARIANTS

from ..forms import refuse_sealed
from ..tree import MAX_NODES, Tree, board_url

register = template.Library()


@register.inclusion_tag("explore/_link.html")
def analyse_link(
    variant: str, fen: str, moves: Iterable[Sequence[int] | str] = (), game: bool = False
) -> dict:
    """A link to the analysis board at ``fen`` and after ``moves`` (routes as the games store
    them, or move text), the board at the last one; nothing when the position or a move is not
    valid, or a position on the way is sealed (an exam's, a rated game's in play)."""
    if variant not in VARIANTS or not fen:
        return {"url": ""}
    try:
        tree = Tree.parse(variant, fen)
        for n, move in enumerate(list(moves)[:MAX_NODES]):
            if isinstance(move, str):
                tree.add(n, text=move)
            else:
                tree.add(n, route=",".join(map(str, move)))
        refuse_sealed(tree)
    except ValidationError:
        return {"url": ""}
    return {"url": board_url(tree, len(tree.moves) if game else 0), "game": game}
