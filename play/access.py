"""Who may see a game: its player (an account, or the visitor whose session holds it) and the
teachers of a class the player attends. Anyone else gets a 404: they do not learn that it
exists."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest
from django.utils.translation import gettext as _

from classroom.models import Classroom

from .models import Game
from .owner import Owner


def viewable_game(request: HttpRequest, pk: int) -> Game:
    """Game ``pk`` for its player or their teachers, its clock judged (``Game.flag``)."""
    if pk >= 2**62:
        raise Http404(_("No such game."))
    game = Owner.of(request).game(pk)
    user = request.user
    if game is None and user.is_authenticated:
        game = Game.objects.filter(pk=pk, user__isnull=False).select_related("user").first()
        if game is not None and not teaches(user, game.user_id):
            game = None
    if game is None:
        raise Http404(_("No such game."))
    game.flag()
    return game


def teaches(teacher, student_id: int) -> bool:
    """Whether ``teacher`` teaches a class that ``student_id`` attends."""
    return Classroom.objects.filter(teachers=teacher, memberships__user_id=student_id).exists()


def taught_class(request: HttpRequest, pk: int) -> Classroom:
    """Class ``pk`` when the user teaches it; a student of it gets a 403, anyone else a 404."""
    classroom = Classroom.objects.filter(pk=pk).first() if pk < 2**62 else None
    if classroom is None:
        raise Http404(_("No such class."))
    if classroom.is_teacher(request.user):
        return classroom
    if classroom.is_student(request.user):
        raise PermissionDenied("teachers of the class only")
    raise Http404(_("No such class."))
