"""Who may see what: ``class_for``, ``set_for`` and ``student_of`` decide every request of the
classroom views. Someone who may not know that a class or set exists gets a 404; a student of a
class, or a co-teacher, asking for what only the teachers or the set's owner may do gets a 403;
anonymous visitors go to the login page (the views' ``login_required``)."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _

from ..models import Classroom, PuzzleSet


def class_for(request: HttpRequest, pk: int, *, students: bool = False) -> Classroom:
    """The class ``pk`` if the user teaches it (or, with ``students``, attends it)."""
    classroom = get_object_or_404(Classroom, pk=pk)
    user = request.user
    if classroom.is_teacher(user):
        return classroom
    if classroom.is_student(user):
        if students:
            return classroom
        raise PermissionDenied("teachers of the class only")
    raise Http404(_("No such class."))


def set_for(request: HttpRequest, pk: int, *, edit: bool = True) -> PuzzleSet:
    """The set ``pk`` if the user owns it (or, without ``edit``, teaches a class it is assigned to)."""
    puzzle_set = get_object_or_404(PuzzleSet, pk=pk)
    user = request.user
    if puzzle_set.can_edit(user):
        return puzzle_set
    if puzzle_set.can_view(user):
        if not edit:
            return puzzle_set
        raise PermissionDenied("the set's owner only")
    raise Http404(_("No such set."))


def student_of(classroom: Classroom, user_id: int):
    membership = None
    if user_id < 2**63:  # (a foreign key lookup has no range check: SQLite would overflow)
        membership = classroom.memberships.select_related("user").filter(user_id=user_id).first()
    if membership is None:
        raise Http404(_("No such student in this class."))
    return membership
