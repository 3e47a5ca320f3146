"""The analyses of a user's games: the list with progress, a PDN upload and its games, and the
report of one game (a placeholder: the moments and evaluations as text).

The list and an upload's page follow their analyses still to finish: the page polls
``analysis:states`` with their ids (htmx, every two seconds), which answers each one's state, to be
swapped in its place, and the poll again while any of them is unfinished; then the polling stops.

An analysis is its players' and their teachers' (``GameAnalysis.objects.visible_to``); anyone
else gets a 404, as for a game that does not exist.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods

from core.numbers import read_id

from .forms import UploadForm
from .models import GameAnalysis, GameUpload

#: the most analyses a page shows and follows
SHOWN = 200


def _follow(rows: Iterable[GameAnalysis]) -> dict[str, Any]:
    """What a page needs to follow its analyses still to finish: their ids (``pending``) and
    the URL of their states (``follow_url``), empty when all have finished."""
    pending = [a.pk for a in rows if not a.is_finished]
    query = urlencode({"id": pending}, doseq=True)
    return {"pending": pending, "follow_url": f"{reverse('analysis:states')}?{query}"}


@login_required
def analyses(request: HttpRequest) -> HttpResponse:
    """The user's analyses, newest first, with their state and progress."""
    rows = list(GameAnalysis.objects.of(request.user).select_related("upload")[:SHOWN])
    return render(request, "analysis/list.html", {"analyses": rows, **_follow(rows)})


@never_cache
@login_required
@require_GET
def states(request: HttpRequest) -> HttpResponse:
    """The states of the analyses a page follows (``?id=`` each, the user's own), as the page
    polls them: each state to swap in its place, and the poll again while one is unfinished."""
    if not request.htmx:
        return redirect("analysis:list")
    ids = [read_id(value) for value in request.GET.getlist("id")]
    if None in ids or len(ids) > SHOWN:
        message = _("These analyses cannot be followed: reload the page.")
        return render(request, "analysis/_states.html#refused", {"message": message}, status=400)
    rows = list(GameAnalysis.objects.of(request.user).filter(pk__in=ids).order_by("pk"))
    return render(request, "analysis/_states.html", {"analyses": rows, **_follow(rows)})


@login_required
@require_http_methods(["GET", "POST"])
def upload_new(request: HttpRequest) -> HttpResponse:
    """Upload a PDN file of games: each good game is analysed, the bad ones are named."""
    form = UploadForm(request.user, request.POST or None, request.FILES or None)
    if request.method == "POST":
        if form.is_valid():
            upload = form.save()
            return redirect(upload.get_absolute_url())
        return render(request, "analysis/upload_new.html", {"form": form}, status=400)
    return render(request, "analysis/upload_new.html", {"form": form})


@login_required
def upload(request: HttpRequest, pk: int) -> HttpResponse:
    """An upload's games: each with its analysis's state, or the reason it was not analysed."""
    row = get_object_or_404(GameUpload, pk=pk, user=request.user)
    games = row.game_rows()
    follow = _follow(g["analysis"] for g in games if g["analysis"] is not None)
    return render(request, "analysis/upload.html", {"upload": row, "games": games, **follow})


def report(request: HttpRequest, pk: int) -> HttpResponse:
    """One game's analysis (placeholder page: the moments and the evaluations as text)."""
    row = GameAnalysis.objects.visible_to(request.user).filter(pk=pk).first()
    if row is None:
        raise Http404
    moments = row.moments.select_related("puzzle")
    return render(request, "analysis/report.html", {"analysis": row, "moments": moments})
