"""What a teacher may ask of the workers: how far a puzzle of theirs may look ahead, and how many
PDN imports and proofs asked again they may make in ``DAMA_PROOF_RATE_WINDOW``.

The site's puzzles are for teaching, and a deep horizon or a flood of proofs costs the workers
minutes; staff are not limited. (How many of one teacher's proofs run at once is the models'
``PuzzleQuerySet.dispatch``.)
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import ngettext

from core.ratelimit import Limiter

#: what a teacher may do a limited number of times per ``DAMA_PROOF_RATE_WINDOW``
IMPORTS = "pdn-import"
REPROOFS = "reproof"


def check_author_horizon(horizon: int | None) -> None:
    """``ValidationError`` when a teacher's puzzle asks for a horizon beyond
    ``DAMA_AUTHOR_MAX_HORIZON`` moves (the site's puzzles are for teaching, and a deep horizon costs
    the workers minutes)."""
    limit = settings.DAMA_AUTHOR_MAX_HORIZON
    if horizon is not None and horizon > limit:
        raise ValidationError(
            ngettext(
                "A teacher's puzzle may look at most %(max)s move ahead; this one asks for "
                "%(horizon)s.",
                "A teacher's puzzle may look at most %(max)s moves ahead; this one asks for "
                "%(horizon)s.",
                limit,
            )
            % {"max": limit, "horizon": horizon},
            code="horizon",
        )


def limiter(kind: str) -> Limiter:
    limit = settings.DAMA_IMPORT_LIMIT if kind == IMPORTS else settings.DAMA_REPROOF_LIMIT
    return Limiter(kind, limit=limit, window=settings.DAMA_PROOF_RATE_WINDOW)


def over_limit(kind: str, user, *, count: bool = True) -> str:
    """Count one import or "prove again" of ``user`` and say why it is refused ("" when it is
    not: staff are not limited). The count is the cache's atomic increment, so parallel requests
    cannot slip past the limit together. ``count=False`` only asks whether one more would be
    refused (an import asks before it reads the file, and counts once the file was read)."""
    if user.is_staff:
        return ""
    lim = limiter(kind)
    if (lim.hit(str(user.pk)) if count else lim.count(str(user.pk)) + 1) <= lim.limit:
        return ""
    minutes = max(1, settings.DAMA_PROOF_RATE_WINDOW // 60)
    if kind == IMPORTS:
        return ngettext(
            "You may import at most %(n)s PDN file in %(minutes)s minutes: try again later.",
            "You may import at most %(n)s PDN files in %(minutes)s minutes: try again later.",
            lim.limit,
        ) % {"n": lim.limit, "minutes": minutes}
    return ngettext(
        "You may ask for at most %(n)s proof again in %(minutes)s minutes: try again later.",
        "You may ask for at most %(n)s proofs again in %(minutes)s minutes: try again later.",
        lim.limit,
    ) % {"n": lim.limit, "minutes": minutes}
