"""The upload of a PDN file of games (thin: the reading and the queueing are the model's)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.template.defaultfilters import filesizeformat
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.variants import VARIANT_CHOICES

from .models import GameUpload


class UploadForm(forms.Form):
    file = forms.FileField(label=gettext_lazy("PDN file"))
    variant = forms.ChoiceField(
        label=gettext_lazy("Variant of the games"),
        choices=VARIANT_CHOICES,
        help_text=gettext_lazy("A game whose GameType tag names another variant is not analysed."),
    )

    player = forms.CharField(
        label=gettext_lazy("Your name in the games"),
        required=False,
        max_length=150,
        help_text=gettext_lazy(
            "As the White and Black tags write it: your moments are found on your side. "
            "Empty, or a game where it names neither side: both sides are looked at."
        ),
    )

    def __init__(self, user: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_file(self) -> str:
        upload = self.cleaned_data["file"]
        limit = settings.DAMA_ANALYSIS_UPLOAD_BYTES
        if upload.size > limit:
            raise ValidationError(
                _("The file is too large: at most %(size)s.") % {"size": filesizeformat(limit)},
                code="too_large",
            )
        data = upload.read(limit + 1)
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:
            text = data.decode("cp1252", errors="replace")
        if "\x00" in text:
            raise ValidationError(_("This is not a PDN text file."), code="binary")
        if not text.strip():
            raise ValidationError(_("The file is empty."), code="empty")
        self.file_name = (upload.name or "")[:200]
        return text

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if "file" in data and "variant" in data:
            try:
                self.games = GameUpload.read(data["file"], data["variant"])
            except ValidationError as exc:
                self.add_error("file", exc)
                return data
            try:
                GameUpload.check_room(self.user, len(self.games))
            except ValidationError as exc:
                self.add_error(None, exc)
        return data

    def save(self) -> GameUpload:
        return GameUpload.receive(
            self.user,
            self.file_name,
            self.cleaned_data["variant"],
            self.cleaned_data["file"],
            self.games,
            self.cleaned_data.get("player", ""),
        )
