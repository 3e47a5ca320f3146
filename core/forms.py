from django import forms
from django.utils.translation import gettext_lazy as _


class MoveForm(forms.Form):
    """A move on a board: the position it was made in, and either a clicked route or notation."""

    fen = forms.CharField(max_length=400, widget=forms.HiddenInput)
    route = forms.CharField(max_length=200, required=False, widget=forms.HiddenInput)
    move = forms.CharField(
        label=_("Your move"),
        max_length=200,
        required=False,
        # the board widget (templates/core/board.html) draws the field, its placeholder from the
        # board shown (core.board.BoardView.example_move)
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )
    flipped = forms.BooleanField(required=False, widget=forms.HiddenInput)
