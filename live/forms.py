from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError
from django.http import Http404
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from classroom.models import Classroom, PuzzleSet
from core import board as core_board
from lessons.course import get_course

from .models import MAX_STEPS, StepData, too_many_positions

#: the kinds of lesson steps answered by one move on the step's position
LESSON_KINDS = ("move", "choose_move", "capture_route")


def lesson_choices(variant: str) -> list[tuple[str, str]]:
    """The lessons of the class's course that have steps answered with a move."""
    try:
        course = get_course(variant)
    except Http404:
        return []
    return [
        (lesson.slug, f"{lesson.number}. {lesson.title}")
        for lesson in course.lessons
        if any(step.exercise.kind in LESSON_KINDS for step in lesson.steps)
    ]


class StartForm(forms.Form):
    """The positions of a new live lesson: a puzzle set, a lesson's steps or the teacher's own
    positions (one FEN a line, ``|`` and the expected moves after it); none: the start position,
    where the teacher plays on."""

    title = forms.CharField(label=gettext_lazy("Title (optional)"), max_length=120, required=False)
    puzzle_set = forms.ModelChoiceField(
        label=gettext_lazy("A puzzle set"),
        queryset=PuzzleSet.objects.none(),
        required=False,
        empty_label=gettext_lazy("(none)"),
    )
    lesson = forms.ChoiceField(label=gettext_lazy("A lesson's steps"), required=False)
    positions = forms.CharField(
        label=gettext_lazy("Your own positions"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 4, "spellcheck": "false"}),
        help_text=gettext_lazy(
            "One position (FEN, as the board editor writes it) a line; after a | the expected "
            "moves, e.g. W:W22,27:B13,18 | 22-17. Leave everything empty to start from the "
            "starting position and play on your board."
        ),
    )

    def __init__(self, *args, classroom: Classroom, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.classroom = classroom
        self.fields["puzzle_set"].queryset = PuzzleSet.objects.visible_to(user).filter(
            variant=classroom.variant
        )
        self.fields["lesson"].choices = [("", _("(none)"))] + lesson_choices(classroom.variant)

    def clean(self) -> dict:
        data = super().clean()
        steps: list[StepData] = []
        puzzle_set = data.get("puzzle_set")
        if puzzle_set is not None:
            for n, puzzle in enumerate(puzzle_set.ordered_puzzles(), 1):
                steps.append(StepData(puzzle.fen, f"{puzzle_set.title} #{n}", puzzle=puzzle))
        if data.get("lesson"):
            course = get_course(self.classroom.variant)
            for lesson in course.lessons:
                if lesson.slug != data["lesson"]:
                    continue
                for step in lesson.steps:
                    if step.exercise.kind not in LESSON_KINDS:
                        continue
                    board = core_board.board_from_fen(step.fen, self.classroom.variant)
                    answers = (core_board.read_entry(board, text=t) for t in step.exercise.answers)
                    expected = tuple(a.route for a in answers if a.move is not None)
                    steps.append(StepData(board.fen(), str(step.title), expected=expected))
        for n, line in enumerate((data.get("positions") or "").splitlines(), 1):
            if not line.strip():
                continue
            fen, _sep, moves = line.partition("|")
            try:
                board = core_board.board_from_fen(fen.strip(), self.classroom.variant)
            except ValidationError as exc:
                raise ValidationError(
                    _("Line %(n)d: %(reason)s") % {"n": n, "reason": exc.messages[0]},
                    code="fen",
                ) from None
            expected = []
            for text in moves.replace(",", " ").split():
                entry = core_board.read_entry(board, text=text)
                if entry.move is None:
                    raise ValidationError(
                        _("Line %(n)d, move %(move)s: %(reason)s")
                        % {"n": n, "move": text, "reason": entry.message},
                        code="move",
                    )
                expected.append(entry.route)
            # no title: the stage says "Position 2 of 5" already, a title would only repeat it
            steps.append(StepData(board.fen(), expected=tuple(expected)))
        if len(steps) > MAX_STEPS:
            raise too_many_positions()
        data["steps"] = steps
        return data
