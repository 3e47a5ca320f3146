"""A challenge: the variant, the colour, the clock (or days a move, or none), rated or casual,
and who may follow it."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from core.numbers import read_int
from core.variants import VARIANTS

from .models import (
    MAX_BASE_MINUTES,
    MAX_DAYS,
    MAX_INCREMENT_SECONDS,
    MIN_BASE_MINUTES,
    MIN_DAYS,
    VersusGame,
    check_clock,
)

TIME_KINDS = ("clock", "correspondence", "none")


def read_challenge(data) -> tuple[dict[str, Any], dict[str, str]]:
    """The keyword arguments of :meth:`VersusGame.challenge` read from ``data`` (a POST), and
    the errors by field."""
    errors: dict[str, str] = {}
    variant = data.get("variant", "")
    if variant not in VARIANTS:
        errors["variant"] = _("Unknown variant.")
    colour = data.get("colour", "random")
    if colour not in VersusGame.Colour.values:
        errors["colour"] = _("Choose White, Black or random.")
    kind = data.get("time", "clock")
    if kind not in TIME_KINDS:
        kind, errors["time"] = "clock", _("Choose a clock, days a move or no clock.")
    base = increment = days = None
    if kind == "clock":
        base = read_int(data.get("base"), MIN_BASE_MINUTES, MAX_BASE_MINUTES)
        increment = read_int(data.get("increment") or "0", 0, MAX_INCREMENT_SECONDS)
        if base is None:
            errors["base"] = _("Minutes for the game: choose from 1 to 60.")
        if increment is None:
            errors["increment"] = _("Seconds added per move: choose from 0 to 30.")
    elif kind == "correspondence":
        days = read_int(data.get("days"), MIN_DAYS, MAX_DAYS)
        if days is None:
            errors["days"] = _("Days a move: choose from 1 to 14.")
    rated = data.get("rated") == "1"
    if rated and kind == "none":
        errors["rated"] = _("A rated game needs a clock.")
    if not errors:
        try:
            check_clock(base, increment or 0, days)
        except ValidationError as exc:
            errors["time"] = " ".join(exc.messages)
    return (
        {
            "variant": variant,
            "colour": colour,
            "base_minutes": base,
            "increment_seconds": increment or 0,
            "days_per_move": days,
            "rated": rated,
            "public": data.get("public") == "1",
        },
        errors,
    )
