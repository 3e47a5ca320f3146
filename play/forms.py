"""The start of a game: the level, the colour and maybe a position."""

from __future__ import annotations

import random

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _

from .models import check_clock, check_level, check_start

COLOURS = ("white", "black", "random")
#: the longest position accepted (a FEN of the 10x10 board with every square named is shorter)
MAX_FEN = 400


class StartForm(forms.Form):
    level = forms.CharField(required=False)
    color = forms.CharField(required=False)
    fen = forms.CharField(required=False)
    clock = forms.CharField(required=False)

    def __init__(self, variant: str, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.variant = variant

    def clean_level(self) -> int:
        return check_level(self.cleaned_data.get("level"))

    def clean_color(self) -> str:
        colour = self.cleaned_data.get("color", "")
        if colour not in COLOURS:
            raise ValidationError(_("Choose White, Black or a random colour."), code="color")
        return random.choice(("white", "black")) if colour == "random" else colour

    def clean_clock(self) -> str:
        """The clock chosen: "" for none, else a name of ``play.models.TIME_CONTROLS``."""
        return check_clock(self.cleaned_data.get("clock", ""))

    def clean_fen(self) -> str:
        """The position as the engine writes it ("" for the variant's start position); never a
        sealed one (an exam's)."""
        fen = self.cleaned_data.get("fen", "")
        if len(fen) > MAX_FEN:
            raise ValidationError(_("The position is missing or too long."), code="fen")
        return check_start(self.variant, fen) if fen else ""

    def messages(self) -> dict[str, str]:
        """The errors by field, each as one text."""
        return {name: " ".join(errors) for name, errors in self.errors.items()}
