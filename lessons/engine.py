"""The lessons app's one seam to the rules engine ``dama``.

Only this module imports ``dama`` in ``lessons``; it turns engine objects into plain data and
engine errors into ``ValidationError``.
"""

from __future__ import annotations

from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

import dama
import dama.svg
from core.variants import get_variant


def svg_lang() -> str:
    """The language of diagram titles and descriptions: the page's."""
    return "cs" if (get_language() or "").startswith("cs") else "en"


def start_diagram(variant: str) -> SafeString:
    """The starting position of ``variant`` as an accessible SVG diagram."""
    get_variant(variant)
    board = dama.Board(variant)
    return mark_safe(dama.svg.board_svg(board, labels="auto", lang=svg_lang()))  # engine-made SVG


def men_per_side(variant: str) -> int:
    get_variant(variant)
    return len(dama.Board(variant).pieces(dama.WHITE))
