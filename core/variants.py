"""The three variants the site teaches, as the web layer names them.

The names match the engine's ``dama.VARIANT_NAMES`` (a test checks it); the titles are translated.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.http import Http404
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from .signals import preferences_chosen


@dataclass(frozen=True)
class VariantInfo:
    name: str
    title: str | Promise
    short: str | Promise
    size: int
    blurb: str | Promise


VARIANTS: dict[str, VariantInfo] = {
    "czech": VariantInfo(
        "czech",
        _("Czech draughts"),
        pgettext_lazy("variant", "Czech"),
        8,
        _(
            "8×8 board, men capture only forwards, a king must capture first, free choice of capture."
        ),
    ),
    "international": VariantInfo(
        "international",
        _("International draughts"),
        pgettext_lazy("variant", "International"),
        10,
        _(
            "10×10 board, 20 men each, men capture backwards too, the longest capture is compulsory."
        ),
    ),
    "brazilian": VariantInfo(
        "brazilian",
        _("Brazilian draughts"),
        pgettext_lazy("variant", "Brazilian"),
        8,
        _("The international rules on an 8×8 board."),
    ),
}
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
