from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.models import is_teacher
from core.board import play_line
from core.models import SealedPosition
from puzzles.limits import check_author_horizon

from . import engine
from .models import Assignment, Classroom, PuzzleSet, normalise_code

MAX_NEW_STUDENTS = 60
#: the longest name of a child's account the teacher may write
MAX_NAME_LENGTH = 100


class ClassroomForm(forms.ModelForm):
    class Meta:
        model = Classroom
        fields = ("name", "description", "variant", "joining_open")
        widgets = {"description": forms.Textarea(attrs={"rows": 3})}


class JoinForm(forms.Form):
    code = forms.CharField(label=_("Join code"), max_length=20)

    def clean_code(self) -> str:
        code = normalise_code(self.cleaned_data["code"])
        if not Classroom.objects.joinable(code).exists():
            raise ValidationError(_("No class takes students with this code."), code="unknown")
        return code


class StudentAccountsForm(forms.Form):
    names = forms.CharField(
        label=_("Names of the students, one per line"),
        widget=forms.Textarea(attrs={"rows": 8}),
        help_text=_("Each gets a username and a password, printed on a login card."),
    )

    def clean_names(self) -> list[str]:
        names = [" ".join(line.split()) for line in self.cleaned_data["names"].splitlines()]
        names = [n for n in names if n]
        if not names:
            raise ValidationError(_("Write at least one name."), code="empty")
        if len(names) > MAX_NEW_STUDENTS:
            raise ValidationError(
                ngettext(
                    "At most %(max)s account at once.",
                    "At most %(max)s accounts at once.",
                    MAX_NEW_STUDENTS,
                ),
                code="too_many",
                params={"max": MAX_NEW_STUDENTS},
            )
        too_long = [n for n in names if len(n) > MAX_NAME_LENGTH]
        if too_long:
            raise ValidationError(
                ngettext(
                    "A name may have at most %(max)d character.",
                    "A name may have at most %(max)d characters.",
                    MAX_NAME_LENGTH,
                ),
                code="long",
                params={"max": MAX_NAME_LENGTH},
            )
        return names


class CoTeacherForm(forms.Form):
    username = forms.CharField(label=_("Username of the teacher"), max_length=150)

    def __init__(self, *args, classroom: Classroom, **kwargs):
        super().__init__(*args, **kwargs)
        self.classroom = classroom

    def clean_username(self):
        user = (
            get_user_model()
            .objects.filter(username__iexact=self.cleaned_data["username"].strip())
            .first()
        )
        if user is None or not is_teacher(user):
            raise ValidationError(_("No teacher has this username."), code="unknown")
        if self.classroom.is_teacher(user):
            raise ValidationError(_("%(name)s already teaches this class."), params={"name": user})
        return user


class PuzzleSetForm(forms.ModelForm):
    class Meta:
        model = PuzzleSet
        fields = ("title", "description", "variant")
        widgets = {"description": forms.Textarea(attrs={"rows": 4})}

    def clean_variant(self):
        variant = self.cleaned_data["variant"]
        instance = self.instance
        if (
            instance.pk
            and variant != PuzzleSet.objects.get(pk=instance.pk).variant
            and instance.setitem_set.exists()
        ):
            raise ValidationError(
                _("The variant of a set with puzzles cannot change."), code="variant"
            )
        return variant


GOAL_CHOICES = [
    ("capture", _("Find the forced capture")),
    ("gain", _("Win material")),
    ("win", _("Win the game")),
]


class PuzzleForm(forms.Form):
    """What the board editor saves: the position and solution come from the boards (hidden
    fields the editor keeps up to date), the rest from the teacher."""

    fen = forms.CharField(widget=forms.HiddenInput, max_length=400)
    solution = forms.CharField(widget=forms.HiddenInput, required=False, max_length=2000)
    goal = forms.ChoiceField(label=_("Goal"), choices=GOAL_CHOICES, initial="capture")
    gain = forms.IntegerField(
        label=_("Material to win (man 1, king 3)"), min_value=1, max_value=30, initial=1,
        required=False,
    )  # fmt: skip
    horizon = forms.IntegerField(
        label=_("Within how many moves"),
        min_value=1,
        max_value=30,
        required=False,
        help_text=_("Moves of the side to move; empty: 1 for a capture, else 5."),
    )
    title = forms.CharField(label=_("Title"), max_length=200, required=False)
    description = forms.CharField(
        label=_("Note for the students"),
        widget=forms.Textarea(attrs={"rows": 2}),
        required=False,
    )

    def __init__(self, *args, variant: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.variant = variant

    def clean_fen(self) -> str:
        """The position as the engine writes it; never an exam's (no puzzle is made of it and
        the engine does not analyse it)."""
        fen = engine.normalise_fen(self.cleaned_data["fen"], self.variant)
        SealedPosition.refuse(fen, self.variant)
        return fen

    def clean_horizon(self) -> int | None:
        horizon = self.cleaned_data.get("horizon")
        check_author_horizon(horizon)
        return horizon

    def clean_solution(self) -> list[str]:
        return self.cleaned_data["solution"].split()

    def clean(self):
        data = super().clean()
        goal = data.get("goal")
        if goal == "gain":
            data["goal_text"] = f"gain:{data.get('gain') or 1}"
        elif goal:
            data["goal_text"] = goal
        if goal == "capture":
            data["horizon"] = 1
        if data.get("fen") and data.get("solution"):
            try:
                play_line(self.variant, data["fen"], data["solution"])
            except ValidationError as exc:
                self.add_error(None, exc)
        return data

    @staticmethod
    def initial_for(puzzle) -> dict:
        goal = puzzle.goal
        kind, _sep, n = goal.partition(":")
        return {
            "fen": puzzle.fen,
            "solution": " ".join(puzzle.solution),
            "goal": kind,
            "gain": int(n) if n.isdecimal() else 1,
            "horizon": puzzle.horizon,
            "title": puzzle.title,
            "description": puzzle.description,
        }


class CorpusSearchForm(forms.Form):
    goal = forms.ChoiceField(
        label=_("Goal"), choices=[("", _("any"))] + GOAL_CHOICES, required=False
    )
    motif = forms.CharField(label=_("Motif"), max_length=40, required=False)
    min_difficulty = forms.IntegerField(label=_("Difficulty from"), required=False, min_value=0)
    max_difficulty = forms.IntegerField(label=_("to"), required=False, min_value=0)

    def filter(self, queryset):
        data = self.cleaned_data
        if data.get("goal") == "gain":
            queryset = queryset.filter(goal__startswith="gain:")
        elif data.get("goal"):
            queryset = queryset.filter(goal=data["goal"])
        if data.get("min_difficulty") is not None:
            queryset = queryset.filter(difficulty__gte=data["min_difficulty"])
        if data.get("max_difficulty") is not None:
            queryset = queryset.filter(difficulty__lte=data["max_difficulty"])
        motif = (data.get("motif") or "").strip()
        if motif:
            # motifs is a JSON list of strings; a text match works on SQLite and PostgreSQL alike
            queryset = [p for p in queryset if motif in p.motifs]
        return queryset


class ImportForm(forms.Form):
    file = forms.FileField(label=_("PDN file"))
    goal = forms.ChoiceField(
        label=_("Goal of entries without a Goal tag"), choices=GOAL_CHOICES, initial="capture"
    )
    gain = forms.IntegerField(
        label=_("Material to win"), min_value=1, max_value=30, initial=1, required=False
    )
    horizon = forms.IntegerField(
        label=_("Within how many moves"), min_value=1, max_value=30, required=False
    )

    def clean_file(self):
        upload = self.cleaned_data["file"]
        if upload.size > engine.MAX_IMPORT_BYTES:
            raise ValidationError(
                _("The file is %(size)s KB; at most %(max)s KB can be imported at once."),
                code="too_big",
                params={"size": upload.size // 1024, "max": engine.MAX_IMPORT_BYTES // 1024},
            )
        return upload

    def clean_horizon(self) -> int | None:
        horizon = self.cleaned_data.get("horizon")
        check_author_horizon(horizon)
        return horizon

    def goal_text(self) -> str:
        goal = self.cleaned_data["goal"]
        return f"gain:{self.cleaned_data.get('gain') or 1}" if goal == "gain" else goal


class AssignForm(forms.ModelForm):
    class Meta:
        model = Assignment
        fields = ("classroom", "due")
        widgets = {"due": forms.DateInput(attrs={"type": "date"})}

    def __init__(self, *args, user, puzzle_set: PuzzleSet, **kwargs):
        super().__init__(*args, **kwargs)
        self.puzzle_set = puzzle_set
        self.fields["classroom"].queryset = Classroom.objects.taught_by(user)
        self.fields["classroom"].label = _("Class")

    def clean(self):
        data = super().clean()
        classroom = data.get("classroom")
        if (
            classroom
            and Assignment.objects.filter(puzzle_set=self.puzzle_set, classroom=classroom).exists()
        ):
            raise ValidationError(_("This set is already assigned to that class."))
        if not self.puzzle_set.setitem_set.exists():
            raise ValidationError(_("The set has no puzzles yet."), code="empty")
        bad = self.puzzle_set.not_assignable()
        if bad:
            raise ValidationError(
                _("Only puzzles proven unique can be assigned; not yet: %(list)s."),
                code="not_unique",
                params={"list": ", ".join(f"#{p.pk} ({p.get_verdict_display()})" for p in bad)},
            )
        return data

    def validate_unique(self):
        """The form checks the (set, class) pair itself: the set is not a field here."""
