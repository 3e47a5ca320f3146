"""Access rules shared by the apps."""

from __future__ import annotations

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied

from .models import is_teacher


def teacher_required(view):
    """Only for teachers: anonymous visitors go to the login page, others get a 403 page."""

    @login_required
    @wraps(view)
    def wrapper(request, *args, **kwargs):
        if not is_teacher(request.user):
            raise PermissionDenied("teachers only")
        return view(request, *args, **kwargs)

    return wrapper
