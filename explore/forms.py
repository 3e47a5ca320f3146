"""The analysis board's forms: a position set up from a FEN or a PDN, and the board's state (the
start position, the tree of moves and where on it the board stands) as a link or hidden fields
carry it."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.board import position_key
from core.models import SealedPosition
from core.variants import VARIANT_CHOICES

from . import engine
from .tree import Tree

#: the largest PDN pasted, in characters
MAX_PASTE = 20_000


def refuse_sealed(tree: Tree, *nodes: int) -> None:
    """A ``ValidationError`` (the seal's words) when a position of ``tree`` is sealed: those of
    ``nodes``, or with none named, every one (in one query)."""
    boards = [tree.boards[n] for n in nodes] if nodes else tree.boards
    keys = {position_key(board.fen(), tree.variant): board.fen() for board in boards}
    sealed = SealedPosition.objects.in_force().filter(key__in=keys).values_list("key", flat=True)
    for key in sealed[:1]:
        SealedPosition.refuse(keys[key], tree.variant)


class SetupForm(forms.Form):
    """A position pasted as FEN (``W:W21-32:B1-12``) or as a PDN game (its start position and its
    moves, side lines and all)."""

    variant = forms.ChoiceField(label=gettext_lazy("Variant"), choices=VARIANT_CHOICES)
    position = forms.CharField(
        label=gettext_lazy("Position: a FEN or a PDN game"),
        max_length=MAX_PASTE,
        widget=forms.Textarea(attrs={"rows": 3, "spellcheck": "false"}),
    )

    def clean(self):
        data = super().clean()
        variant, text = data.get("variant"), (data.get("position") or "").strip()
        if not variant or not text:
            return data
        if text[:2].upper() in ("W:", "B:"):
            try:
                tree = Tree.parse(variant, text)
            except ValidationError as exc:
                self.add_error("position", exc)
                return data
        else:
            try:
                variant, fen, moves = engine.read_pdn(text, variant)
            except ValueError as exc:
                self.add_error(
                    "position", _("The PDN cannot be read: %(reason)s") % {"reason": exc}
                )
                return data
            tree = Tree.parse(variant, fen, " ".join(f"{p}:{m}" for p, m in moves))
        try:
            refuse_sealed(tree)
        except ValidationError as exc:
            self.add_error("position", exc)
            return data
        data["tree"] = tree
        return data


class StateForm(forms.Form):
    """The board's state: the variant, the start position, the tree of moves and the node the
    board shows (0: the start)."""

    variant = forms.ChoiceField(choices=VARIANT_CHOICES, widget=forms.HiddenInput)
    fen = forms.CharField(max_length=400, widget=forms.HiddenInput)
    tree = forms.CharField(max_length=8000, required=False, widget=forms.HiddenInput)
    at = forms.IntegerField(min_value=0, required=False, widget=forms.HiddenInput)
    flipped = forms.BooleanField(required=False, widget=forms.HiddenInput)

    def clean(self):
        data = super().clean()
        if "variant" not in data or "fen" not in data or self.errors:
            return data
        try:
            tree = Tree.parse(data["variant"], data["fen"], data.get("tree") or "")
        except ValidationError as exc:
            raise ValidationError(exc.messages) from None
        at = data.get("at") or 0
        if at > len(tree.moves):
            raise ValidationError(_("There is no such move in the line."), code="at")
        refuse_sealed(tree)
        data["tree_obj"], data["at"] = tree, at
        return data
