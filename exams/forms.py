from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from core.variants import VARIANT_CHOICES

from .levels import levels, text
from .models import ClassExam


def level_choices() -> list[tuple[int, str]]:
    return [(lv.number, f"{lv.number}. {text(lv.name)}") for lv in levels()]


class ClassExamForm(forms.ModelForm):
    variant = forms.ChoiceField(label=_("Variant"), choices=VARIANT_CHOICES)
    level = forms.TypedChoiceField(
        label=pgettext_lazy("an exam's level", "Level"), coerce=int, choices=level_choices
    )
    starts_at = forms.DateTimeField(
        label=_("Starts at"),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"],
    )
    open_minutes = forms.IntegerField(
        label=_("Minutes to start it"),
        min_value=1,
        max_value=24 * 60,
        initial=15,
        help_text=_("How long after the start students may still begin the exam."),
    )

    class Meta:
        model = ClassExam
        fields = ["variant", "level", "starts_at", "open_minutes"]
