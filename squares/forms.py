"""The square trainer's one form: the settings of a run."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from .models import Mode, Notation, Side, notations_of


class RunForm(forms.Form):
    """Board notation, side and mode of a new run on ``variant``'s board (the names only on 8x8)."""

    notation = forms.ChoiceField(label=_("Notation"), widget=forms.RadioSelect)
    side = forms.ChoiceField(label=_("Side"), choices=Side.choices, widget=forms.RadioSelect)
    mode = forms.ChoiceField(label=_("Mode"), choices=Mode.choices, widget=forms.RadioSelect)

    def __init__(self, variant: str, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        names = dict(Notation.choices)
        self.fields["notation"].choices = [(n, names[n]) for n in notations_of(variant)]
        self.fields["notation"].initial = notations_of(variant)[0]
        self.fields["side"].initial = Side.WHITE
        self.fields["mode"].initial = Mode.FIND
