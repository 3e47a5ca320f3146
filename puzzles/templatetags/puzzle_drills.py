"""``{% puzzle_drill step %}``: a Combinations lesson step's drill, the puzzle trainer filtered by
the step's shot, with how many puzzles of the site's pool show it (none: the section says so
instead of linking to an empty trainer).

A tag of the puzzles app, loaded by the lessons' template: the lessons build on ``core`` alone and
never import the puzzles app (``make lint``'s contracts), which counts its own pool here.
"""

from __future__ import annotations

from typing import Any

from django import template

from ..stream import motif_count

register = template.Library()


@register.inclusion_tag("puzzles/_drill.html")
def puzzle_drill(step) -> dict[str, Any]:
    """The drill of ``step`` (a lesson step with a ``shot``: its variant, the shot's name and the
    trainer's address for it, ``drill_url``)."""
    return {"url": step.drill_url, "count": motif_count(step.variant, step.shot.name)}
