from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts.models import profile_of


@login_required
def dashboard(request: HttpRequest) -> HttpResponse:
    """Teachers see their classes and sets here; anyone else learns how to become a teacher."""
    profile = profile_of(request.user)
    template = "classroom/dashboard.html" if profile.is_teacher else "classroom/not_teacher.html"
    return render(request, template, {"profile": profile})
