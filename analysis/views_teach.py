"""A class's teachers and their students' games: the students' personal puzzles (the shots
missed in their own games), by motif, each of which a teacher may copy into one of their own
sets (``PuzzleSet.add_personal``). Teachers of the class only (``class_for``: a student of the
class gets a 403, anyone else a 404)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from classroom.models import PuzzleSet
from classroom.views.access import class_for
from puzzles.models import Puzzle

from .insights import class_puzzles as students_puzzles
from .insights import motif_names


class AddPuzzleForm(forms.Form):
    """A student's personal puzzle and one of the teacher's sets."""

    puzzle = forms.ModelChoiceField(queryset=Puzzle.objects.none())
    puzzle_set = forms.ModelChoiceField(queryset=PuzzleSet.objects.none())
    motif = forms.CharField(max_length=40, required=False)

    def __init__(self, data, *, students, teacher) -> None:
        super().__init__(data)
        self.fields["puzzle"].queryset = Puzzle.objects.filter(owner__in=students)  # type: ignore[attr-defined]
        self.fields["puzzle_set"].queryset = PuzzleSet.objects.filter(owner=teacher)  # type: ignore[attr-defined]


@login_required
@require_GET
def class_puzzles(request: HttpRequest, pk: int) -> HttpResponse:
    """The newest personal puzzles of the class's students (of one motif with ``?motif=``), each
    with a form that copies it into one of the teacher's sets of its variant."""
    classroom = class_for(request, pk)
    students = list(classroom.students())
    motif = request.GET.get("motif", "")[:40]
    moments = students_puzzles(students, motif)
    sets = list(PuzzleSet.objects.filter(owner=request.user).only("pk", "title", "variant"))
    rows = [
        {
            "moment": m,
            "motifs": motif_names(m.motifs),
            "sets": [s for s in sets if s.variant == m.puzzle.variant],
        }
        for m in moments
    ]
    return render(
        request,
        "analysis/class_puzzles.html",
        {"classroom": classroom, "rows": rows, "motif": motif, "has_sets": bool(sets)},
    )


@login_required
@require_POST
def class_add_puzzle(request: HttpRequest, pk: int) -> HttpResponse:
    """Copy a student's personal puzzle into one of the teacher's sets; a puzzle of no student
    of the class, a set not the teacher's own, or one the puzzle cannot join is a 400."""
    classroom = class_for(request, pk)
    form = AddPuzzleForm(request.POST, students=classroom.students(), teacher=request.user)
    if not form.is_valid():
        return HttpResponse(
            _("Choose a puzzle of a student of this class and one of your sets."),
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    puzzle_set = form.cleaned_data["puzzle_set"]
    try:
        puzzle, _created = puzzle_set.add_personal(request.user, form.cleaned_data["puzzle"])
    except ValidationError as exc:
        return HttpResponse(
            " ".join(exc.messages), status=400, content_type="text/plain; charset=utf-8"
        )
    messages.success(
        request,
        _("The puzzle is in your set “%(set)s” as puzzle #%(id)s.")
        % {"set": puzzle_set.title, "id": puzzle.pk},
    )
    url = reverse("analysis:class_puzzles", args=[classroom.pk])
    motif = form.cleaned_data["motif"]
    return redirect(url + ("?" + urlencode({"motif": motif}) if motif else ""))
