from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from classroom.models import Classroom
from core.numbers import read_id
from versus.models import MAX_BASE_MINUTES, MAX_INCREMENT_SECONDS, MIN_BASE_MINUTES

from .models import KIND_CHOICES, RESULT_CHOICES, SWISS


def player_name(user) -> str:
    return user.get_full_name() or user.username


class PlayerChoice(forms.ModelMultipleChoiceField):
    """The class's students, by id; an id that is no database id is refused before any query
    (an id beyond a database integer would overflow SQLite)."""

    def label_from_instance(self, obj) -> str:
        return player_name(obj)

    def clean(self, value):
        if isinstance(value, list | tuple) and any(read_id(pk) is None for pk in value):
            raise ValidationError(_("Choose students of the class."), code="invalid_pk_value")
        return super().clean(value)


class TournamentForm(forms.Form):
    """A tournament of a lesson's length: its kind, the players, the clock and the rounds."""

    name = forms.CharField(
        label=pgettext_lazy("the name of a tournament", "Name"),
        max_length=100,
        initial=pgettext_lazy("a tournament's default name", "Class tournament"),
    )
    kind = forms.ChoiceField(
        label=pgettext_lazy("of a tournament", "Kind"), choices=KIND_CHOICES, initial=SWISS
    )
    players = PlayerChoice(label=_("Players"), queryset=None, widget=forms.CheckboxSelectMultiple)
    length = forms.IntegerField(
        label=_("Length of the lesson in minutes"), min_value=5, max_value=240, initial=45
    )
    minutes = forms.IntegerField(
        label=_("Minutes per player per game"),
        min_value=MIN_BASE_MINUTES,
        max_value=MAX_BASE_MINUTES,
        initial=5,
    )
    increment = forms.IntegerField(
        label=_("Seconds added per move"), min_value=0, max_value=MAX_INCREMENT_SECONDS, initial=0
    )
    rated = forms.BooleanField(
        label=_("Rated games"),
        required=False,
        help_text=_("The games change the players' ratings against players. Else casual."),
    )
    rounds = forms.IntegerField(
        label=_("Rounds (Swiss)"),
        min_value=1,
        max_value=30,
        required=False,
        help_text=_(
            "Empty: as many as fit in the lesson, at most half the number of players. "
            "A round robin plays every opponent; an arena pairs whoever is free until you end it."
        ),
    )
    bye_points = forms.TypedChoiceField(
        label=_("Points for a bye (Swiss)"),
        choices=[(2, _("2, as a win")), (1, _("1, as a draw")), (0, "0")],
        coerce=int,
        initial=2,
    )

    def __init__(self, *args, classroom: Classroom, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        students = classroom.students()
        self.fields["players"].queryset = students
        self.fields["players"].initial = list(students.values_list("pk", flat=True))


class ResultForm(forms.Form):
    result = forms.ChoiceField(label=_("Result"), choices=RESULT_CHOICES)
