"""The variants the site teaches, as the web layer shows them.

Built from the engine's registry ``dama.VARIANTS``: the name, the board size and the title (in
English and Czech) are the engine's; the web adds only its own words, the short name of the
variant switcher and the home page's one-line blurb.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404
from django.utils.functional import Promise, lazy
from django.utils.translation import get_language, ngettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

import dama
from dama.lang import lang_code

from .signals import preferences_chosen


@dataclass(frozen=True)
class VariantInfo:
    name: str
    title: str | Promise
    short: str | Promise
    size: int
    blurb: str | Promise


def _title(variant: dama.Variant) -> str:
    """The engine's title of ``variant`` in the active language."""
    return variant.title_cs if lang_code(get_language()) == "cs" else variant.title


_lazy_title = lazy(_title, str)


def _international_blurb() -> str:
    men = dama.VARIANTS["international"].men_per_side
    return ngettext(
        "10×10 board, %(men)d man each, men capture backwards too, the longest capture is "
        "compulsory.",
        "10×10 board, %(men)d men each, men capture backwards too, the longest capture is "
        "compulsory.",
        men,
    ) % {"men": men}


#: the web's own words for each variant of the engine (a variant without them fails at start)
_WORDS: dict[str, tuple[Promise, Promise]] = {
    "czech": (
        pgettext_lazy("variant", "Czech"),
        _(
            "8×8 board, men capture only forwards, a king must capture first, free choice of capture."
        ),
    ),
    "international": (
        pgettext_lazy("variant", "International"),
        lazy(_international_blurb, str)(),
    ),
    "brazilian": (
        pgettext_lazy("variant", "Brazilian"),
        _("The international rules on an 8×8 board."),
    ),
}


def _info(variant: dama.Variant) -> VariantInfo:
    short, blurb = _WORDS[variant.name]
    return VariantInfo(variant.name, _lazy_title(variant), short, variant.size, blurb)


VARIANTS: dict[str, VariantInfo] = {v.name: _info(v) for v in dama.VARIANTS.values()}
VARIANT_NAMES = tuple(VARIANTS)
DEFAULT_VARIANT = "czech"
VARIANT_CHOICES = [(v.name, v.title) for v in VARIANTS.values()]
SESSION_KEY = "dama_variant"


def get_variant(name: str) -> VariantInfo:
    """The variant called ``name``, or a friendly 404."""
    try:
        return VARIANTS[name]
    except KeyError:
        raise Http404(f"Unknown variant {name!r}") from None


def current_variant(request) -> str:
    """The variant this visitor last chose: session, then profile, then the default."""
    name = request.session.get(SESSION_KEY) if hasattr(request, "session") else None
    if name in VARIANTS:
        return name
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        profile = getattr(user, "profile", None)
        if profile is not None and profile.preferred_variant in VARIANTS:
            return profile.preferred_variant
    return DEFAULT_VARIANT


def remember_variant(request, name: str) -> None:
    """Keep the visitor's choice in the session, and (through ``preferences_chosen``) in the
    profile of an account."""
    get_variant(name)
    request.session[SESSION_KEY] = name
    if request.user.is_authenticated:
        preferences_chosen.send(sender=None, user=request.user, preferred_variant=name)


class VariantConverter:
    """URL converter ``<variant:variant>`` matching any name, so that a typo reaches a friendly 404."""

    regex = "[a-z0-9-]+"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value
