"""A teacher's simul: a new simul (the class, the variant, the host's colour, the students),
its page (while open: who is in, join, start, cancel; then the grid of boards with whose move
each is, the results and the host's score), the grid for the page that follows it (``state``,
``?v=<grid version>``: 204 while nothing changed), and the host's next board waiting for a
move. Every action is a POST that calls one :class:`versus.models.Simul` method.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from classroom.models import Classroom
from core.numbers import MAX_ID, read_id, read_int
from core.replies import Reply
from core.variants import VARIANTS

from . import engine
from .models import MAX_SIMUL_BOARDS, Simul, VersusGame


def _simul_or_404(request: HttpRequest, pk: int) -> Simul:
    simul = (
        Simul.objects.select_related("classroom", "host").filter(pk=pk).first()
        if pk < MAX_ID
        else None
    )
    if simul is None or not simul.can_view(request.user):
        raise Http404(_("No such simul."))
    return simul


# -- a new simul ----------------------------------------------------------------------------------


def _new_context(request: HttpRequest, classroom: Classroom | None, data, errors=None) -> dict:
    variant = data.get("variant") or (classroom.variant if classroom else "czech")
    return {
        "classes": Classroom.objects.taught_by(request.user),
        "classroom": classroom,
        "students": list(classroom.students()) if classroom else [],
        "variants": list(VARIANTS.values()),
        "chosen": {
            "variant": variant if variant in VARIANTS else "czech",
            "colour": data.get("colour", "white"),
            "students": {read_id(s) for s in data.getlist("students")},
        },
        "errors": errors or {},
        "max_boards": MAX_SIMUL_BOARDS,
    }


@never_cache
@require_http_methods(["GET", "POST"])
@login_required
def simul_new(request: HttpRequest) -> HttpResponse:
    """Choose one of the classes one teaches, then its students (or none: they join), the
    variant and the host's colour."""
    data = request.POST if request.method == "POST" else request.GET
    class_pk = read_id(data.get("classroom"))
    classroom = Classroom.objects.taught_by(request.user).filter(pk=class_pk).first()
    if classroom is None and (class_pk is not None or request.method == "POST"):
        raise Http404(_("No such class."))
    if request.method == "GET":
        return render(request, "versus/simul_new.html", _new_context(request, classroom, data))
    assert classroom is not None
    ids = [read_id(s) for s in data.getlist("students")[: MAX_SIMUL_BOARDS + 1]]
    students = list(classroom.students().filter(pk__in=[i for i in ids if i is not None]))
    errors = {}
    if len(students) != len(ids):
        errors["students"] = _("Choose students of the class.")
    else:
        try:
            simul = Simul.create(
                request.user,
                classroom,
                variant=data.get("variant", ""),
                host_colour=data.get("colour", ""),
                students=students,
            )
        except ValidationError as exc:
            errors[exc.code or "students"] = " ".join(exc.messages)
    if errors:
        context = _new_context(request, classroom, data, errors)
        return render(request, "versus/simul_new.html", context, status=400)
    return redirect("versus:simul", pk=simul.pk)


# -- the simul's page -----------------------------------------------------------------------------


def _status(simul: Simul, game: VersusGame, host_view: bool, student) -> str:
    """Whose move it is, or the result, in words."""
    if game.is_playing:
        if simul.host_to_move(game):
            if host_view:
                return _("Your move.")
            return _("%(name)s to move.") % {"name": simul.host.get_username()}
        return _("%(name)s to move.") % {"name": student.get_username()}
    outcome = game.outcome_for(simul.host_side)
    if outcome == "drawn":
        return _("The game is drawn.")
    if outcome == "aborted":
        return _("The game was aborted: no result.")
    if host_view:
        return _("You won!") if outcome == "won" else _("You lost.")
    winner = simul.host if outcome == "won" else student
    return _("%(name)s won.") % {"name": winner.get_username()}


def _score_line(simul: Simul, score: dict[str, int]) -> str:
    parts = [
        ngettext("%(count)s win", "%(count)s wins", score["won"]) % {"count": score["won"]},
        ngettext("%(count)s draw", "%(count)s draws", score["drawn"]) % {"count": score["drawn"]},
        ngettext("%(count)s loss", "%(count)s losses", score["lost"]) % {"count": score["lost"]},
    ]
    line = _("Score of %(host)s: %(results)s.") % {
        "host": simul.host.get_username(),
        "results": ", ".join(parts),
    }
    if score["playing"]:
        line += " " + ngettext(
            "%(count)s game in play.", "%(count)s games in play.", score["playing"]
        ) % {"count": score["playing"]}
    return line


def _known(text: str) -> dict[str, int]:
    """The boards the page shows already: ``<token>.<version>,...`` read into a dict (what does
    not read is left out: that board is sent whole)."""
    known = {}
    for item in text.split(",")[: MAX_SIMUL_BOARDS + 1]:
        token, _dot, version = item.partition(".")
        number = read_int(version, 0, MAX_ID)
        if token and number is not None:
            known[token[:16]] = number
    return known


def _grid_context(request: HttpRequest, simul: Simul, known: dict[str, int] | None = None) -> dict:
    """The grid as ``request.user`` sees it; the boards in ``known`` at the version the page
    shows are left out (``skip``: the page keeps its own)."""
    user = request.user
    games = simul.boards()
    host_view = simul.is_host(user)
    student_side = "b" if simul.host_side == "w" else "w"
    boards = []
    for number, game in enumerate(games, 1):
        student = game.player(student_side)
        host_turn = simul.host_to_move(game)
        row = {
            "number": number,
            "game": game,
            "student": student,
            "mine": student.pk == user.pk,
            "host_turn": host_turn,
            "url": reverse("versus:game", args=[game.token]),
        }
        if known and known.get(game.token) == game.version:
            boards.append({**row, "skip": True})
            continue
        board = game.board()
        texts = engine.line_texts(game.variant, game.start_fen, game.moves) if game.moves else []
        status = _status(simul, game, host_view, student)
        announce = status
        if host_view and host_turn and texts:
            announce = _("Board %(number)s: %(name)s played %(move)s. Your move.") % {
                "number": number,
                "name": student.get_username(),
                "move": texts[-1],
            }
        boards.append(
            {
                **row,
                "view": engine.game_board(board, flipped=simul.host_side == "b"),
                "status": status,
                "announce": announce,
            }
        )
    score = simul.score(games)
    waiting = sum(1 for b in boards if b["host_turn"])
    return {
        "simul": simul,
        "boards": boards,
        "host_view": host_view,
        "grid_version": simul.grid_version(games),
        "score": score,
        "score_line": _score_line(simul, score) if games else "",
        "waiting": waiting,
        "waiting_line": ngettext(
            "%(count)s board waits for your move.", "%(count)s boards wait for your move.", waiting
        )
        % {"count": waiting},
        "next_url": reverse("versus:simul_next", args=[simul.pk]),
        "players": list(simul.players.order_by("username")),
        "may_join": simul.may_join(user),
        "joined": simul.players.filter(pk=user.pk).exists(),
    }


def _partial(request: HttpRequest) -> bool:
    return bool(request.htmx) and not request.htmx.boosted


@never_cache
@require_GET
@login_required
def simul(request: HttpRequest, pk: int) -> HttpResponse:
    the_simul = _simul_or_404(request, pk)
    return render(request, "versus/simul.html", _grid_context(request, the_simul))


@never_cache
@require_GET
@login_required
def simul_state(request: HttpRequest, pk: int) -> HttpResponse:
    """The grid region; 204 while the simul and its games are still at ``?v=``. The boards
    the page shows at their game's version (``?known=<token>.<version>,...``) come as empty
    placeholders (``data-skip``): a move on one board of thirty sends one board."""
    the_simul = _simul_or_404(request, pk)
    seen = read_int(request.GET.get("v"), 0, MAX_ID)
    if seen is not None and seen == the_simul.grid_version():
        return HttpResponse(status=204)
    if not _partial(request):
        return redirect("versus:simul", pk=pk)
    known = _known(request.GET.get("known", "")[:2000])
    return render(request, "versus/simul.html#grid", _grid_context(request, the_simul, known))


@never_cache
@require_GET
@login_required
def simul_next(request: HttpRequest, pk: int) -> HttpResponse:
    """The host: the next board where it is their move (after ``?after=<token>``), else the
    grid. A student: their own board, else the grid."""
    the_simul = _simul_or_404(request, pk)
    games = the_simul.boards()
    if the_simul.is_host(request.user):
        game = the_simul.next_board(games, request.GET.get("after", "")[:16])
    else:
        game = next((g for g in games if g.side_of(request.user)), None)
    if game is None:
        return redirect("versus:simul", pk=pk)
    return redirect("versus:game", token=game.token)


def _action(act, may):
    """A POST calling ``act(simul, user)``; a refusal is 403 for whoever ``may`` not do it at
    all (``may(simul, user)`` false), else 400 with the reason on the page."""

    @never_cache
    @require_POST
    @login_required
    def view(request: HttpRequest, pk: int) -> HttpResponse:
        the_simul = _simul_or_404(request, pk)
        reply: Reply = act(the_simul, request.user)
        if reply.status == 200:
            return redirect("versus:simul", pk=pk)
        if not may(the_simul, request.user):
            raise PermissionDenied
        context = {**_grid_context(request, the_simul), "notice": reply.message}
        return render(request, "versus/simul.html", context, status=400)

    return view


simul_join = _action(lambda s, u: s.join(u), lambda s, u: s.classroom.is_student(u))
simul_start = _action(lambda s, u: s.start(u), lambda s, u: s.is_host(u))
simul_cancel = _action(lambda s, u: s.cancel(u), lambda s, u: s.is_host(u))
