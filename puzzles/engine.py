"""The puzzles app's one seam to the rules engine ``dama``.

Only this module imports ``dama`` in ``puzzles``; it turns engine objects into plain data and
engine errors into ``ValidationError``.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

import dama
import dama.svg
from core.variants import get_variant


def svg_lang() -> str:
    """The language of diagram titles and descriptions: the page's."""
    return "cs" if (get_language() or "").startswith("cs") else "en"


def diagram(variant: str, fen: str | None = None) -> SafeString:
    """A diagram of ``fen`` (the starting position when None) in ``variant``."""
    get_variant(variant)
    board = dama.Board(variant) if fen is None else position(fen, variant)
    return mark_safe(dama.svg.board_svg(board, labels="auto", lang=svg_lang()))  # engine-made SVG


def position(fen: str, variant: str) -> dama.Board:
    try:
        return dama.Board.from_fen(fen, variant)
    except ValueError as exc:
        raise ValidationError(
            _("The position is not valid: %(reason)s") % {"reason": exc}, code="fen"
        ) from None
