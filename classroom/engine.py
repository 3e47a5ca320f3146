"""The classroom app's one seam to the rules engine ``dama``.

Only this module imports ``dama`` in ``classroom``; it turns engine errors into ``ValidationError``
(the board editor and PDN import of teachers' puzzle sets build on it).
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

import dama
from core.variants import get_variant


def normalise_fen(fen: str, variant: str) -> str:
    """The engine's spelling of a position a teacher entered; ``ValidationError`` when invalid."""
    get_variant(variant)
    try:
        return dama.Board.from_fen(fen.strip(), variant).fen()
    except ValueError as exc:
        raise ValidationError(
            _("The position is not valid: %(reason)s") % {"reason": exc}, code="fen"
        ) from None
