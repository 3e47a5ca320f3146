from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _


class ReminderForm(forms.Form):
    daily_email = forms.BooleanField(
        label=_("Send me an e-mail once a day when puzzles or steps are due for review"),
        required=False,
    )


class AddSetForm(forms.Form):
    """A set to add to a class's review (the choices: the sets the teacher may see)."""

    puzzle_set = forms.ModelChoiceField(
        queryset=None,
        label=_("Set"),
        empty_label=None,
        error_messages={"invalid_choice": _("Choose one of your sets.")},
    )

    def __init__(self, *args, sets=None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["puzzle_set"].queryset = sets
