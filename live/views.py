"""The live lesson's pages: starting one, the lesson page (the teacher's or a student's), its state
(what the page polls when it cannot keep a WebSocket open), the teacher's answers panel, a
student's answer and the teacher's actions.

Who may do what: only the teachers of the class start a lesson and act in it; its students and
teachers see it; anyone else gets a 404 (they may not learn that the lesson exists), a student
asking for a teacher's action a 403. The WebSocket (``live.consumers``) checks the same.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from classroom.views.access import class_for
from core.numbers import MAX_ID, read_id, read_int

from . import render as live_render
from .forms import StartForm
from .models import MAX_STEPS, LiveSession


def _session_for(
    request: HttpRequest, pk: int, *, teacher: bool = False
) -> tuple[LiveSession, str]:
    """The lesson ``pk`` and the user's role in it: a 404 for anyone not in its class, a 403 for
    a student asking for what only the teachers may do."""
    session = get_object_or_404(LiveSession.objects.select_related("classroom"), pk=pk)
    role = session.role_of(request.user)
    if not role:
        raise Http404(_("No such live lesson."))
    if teacher and role != "teacher":
        raise PermissionDenied("the class's teachers only")
    return session, role


@login_required
@require_http_methods(["GET", "POST"])
def start(request: HttpRequest, class_pk: int) -> HttpResponse:
    """A teacher of the class starts a live lesson on the positions chosen."""
    classroom = class_for(request, class_pk)
    form = StartForm(
        request.POST if request.method == "POST" else None, classroom=classroom, user=request.user
    )
    if request.method == "POST" and form.is_valid():
        try:
            session = LiveSession.start(
                classroom, request.user, form.cleaned_data["steps"], form.cleaned_data["title"]
            )
        except ValidationError as exc:
            form.add_error(None, exc)
        else:
            return redirect(session)
    running = LiveSession.objects.running().filter(classroom=classroom).first()
    return render(
        request,
        "live/start.html",
        {"classroom": classroom, "form": form, "running": running},
        status=400 if form.errors else 200,
    )


def _mine(session: LiveSession, request: HttpRequest, role: str):
    if role != "student" or not (session.question_open or session.revealed):
        return None  # the student's answer is shown while its question is on the board
    return session.current_answers().filter(student=request.user).first()


@never_cache
@login_required
@require_GET
def session_page(request: HttpRequest, pk: int) -> HttpResponse:
    """The lesson: the shared board (the teacher's with the controls and the answers)."""
    session, role = _session_for(request, pk)
    stage = live_render.stage_html(
        session, role, mine=_mine(session, request, role), request=request
    )
    context = {
        "session": session,
        "role": role,
        "stage": mark_safe(stage),  # rendered by our templates
        "ws_path": f"/ws/live/{session.pk}/",
        # ?transport=poll: follow by polling only (a network whose proxy drops WebSockets)
        "transport": "poll" if request.GET.get("transport") == "poll" else "ws",
        "state_url": reverse("live:state", args=[session.pk]),
        "results_url": reverse("live:results", args=[session.pk]),
    }
    if role == "teacher":
        context["results"] = mark_safe(live_render.results_html(session, request))
    return render(request, "live/session.html", context)


@never_cache
@login_required
@require_GET
def state(request: HttpRequest, pk: int) -> HttpResponse:
    """The stage as it stands (``?since=<version>``: 204 when the page is up to date): what a
    page polls when it has no WebSocket."""
    session, role = _session_for(request, pk)
    since = read_int(request.GET.get("since"), 0, MAX_ID)
    if since is not None and since == session.version:
        return HttpResponse(status=204)
    html = live_render.stage_html(
        session, role, mine=_mine(session, request, role), request=request
    )
    return HttpResponse(html)


@never_cache
@login_required
@require_GET
def results(request: HttpRequest, pk: int) -> HttpResponse:
    """The teacher's answers panel."""
    session, _role = _session_for(request, pk, teacher=True)
    return HttpResponse(live_render.results_html(session, request))


@login_required
@require_POST
def answer(request: HttpRequest, pk: int) -> HttpResponse:
    """A student's move for the open question (a clicked route, posted landing by landing, or
    typed): refused with the reason (400) when it is not a legal move, recorded once."""
    session, role = _session_for(request, pk)
    if role != "student":
        raise PermissionDenied("the class's students answer")
    reply = session.answer(
        request.user,
        route=request.POST.get("route", "")[:200],
        text=request.POST.get("move", "")[:200],
    )
    if not request.htmx and reply.kind in ("recorded", "already", "continue"):
        return redirect(session)  # a plain form post: back to the lesson page
    if reply.kind in ("recorded", "already", "closed"):
        session.refresh_from_db()
        html = live_render.stage_html(
            session, role, mine=_mine(session, request, role), request=request
        )
        response = HttpResponse(html, status=reply.status)
        if request.htmx:
            response["HX-Retarget"] = "#live-stage"
            response["HX-Reswap"] = "outerHTML"
        return response
    if not request.htmx:
        return HttpResponse(reply.message, status=reply.status, content_type="text/plain")
    marks = {sq: "wrong" for sq in reply.squares}
    context = live_render.stage_context(session, role)
    context.update(
        board=live_render.board_view(session, mode="lesson", path=reply.path, marks=marks),
        message=f"{reply.message} ({reply.article})" if reply.article else reply.message,
        is_error=reply.kind != "continue",
    )
    del context["csrf_token"]
    return HttpResponse(
        render_to_string("live/_board.html", context, request=request), status=reply.status
    )


ACTIONS = (
    "goto", "play", "draw", "clear", "keep", "ask", "close", "reveal",
    "replay-start", "replay-back", "replay-next", "show", "end",
)  # fmt: skip


@login_required
@require_POST
def control(request: HttpRequest, pk: int) -> HttpResponse:
    """One action of the teacher on the lesson (``action``): the new stage, or the same stage
    with the reason (400) when the action cannot be done."""
    session, role = _session_for(request, pk, teacher=True)
    action = request.POST.get("action", "")
    error = ""
    path: tuple[int, ...] = ()
    try:
        if action == "goto":
            index = read_int(request.POST.get("index"), 0, MAX_STEPS - 1)
            if index is None:
                raise ValidationError(_("There is no such position in this lesson."))
            session.go_to(index)
        elif action == "play":
            entry = session.play(
                route=request.POST.get("route", "")[:200], text=request.POST.get("move", "")[:200]
            )
            path = entry.path
        elif action == "draw":
            session.draw(request.POST.get("draw", ""))
        elif action == "clear":
            session.clear_drawing()
        elif action == "keep":
            session.add_current_position()
        elif action == "ask":
            session.ask(request.POST.get("expected", "")[:200])
        elif action == "close":
            session.close_question()
        elif action == "reveal":
            session.reveal()
        elif action.startswith("replay-"):
            session.replay({"replay-start": 0, "replay-back": -1, "replay-next": 1}[action])
        elif action == "show":
            answer_id = read_id(request.POST.get("answer"))
            if answer_id is None:
                raise ValidationError(_("There is no such answer to this question."))
            session.show_answer(answer_id)
        elif action == "end":
            session.end()
        else:
            raise ValidationError(_("Unknown action."))
    except ValidationError as exc:
        error = " ".join(exc.messages)
    session.refresh_from_db()
    if not request.htmx and not error:
        return redirect(session)
    context = live_render.stage_context(session, role)
    del context["csrf_token"]
    context["error"] = error
    if path:
        context["board"] = live_render.board_view(session, mode="free", path=path)
    return HttpResponse(
        render_to_string("live/_teacher_stage.html", context, request=request),
        status=400 if error else 200,
    )
