"""What a live lesson looks like on each screen: the shared board and the question (the
``stage``), and the teacher's answers panel. Used by the views (a page, its polling, the answers
to actions) and by the consumer (pushed over the WebSocket).

A student's stage is the same for every student of the lesson in one language, so the consumer
renders it once per version and language (:func:`student_state`) and sends the same text to
each socket; what is a student's own (their answer) comes with their own requests.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import override

from core import board as core_board

from .models import LiveAnswer, LiveSession

#: the CSRF token of a stage rendered for the socket, emptied before it is sent
NO_TOKEN = "live-no-token"
#: rendered student stages kept by (session, version, language)
_KEPT = 256
_stages: OrderedDict[tuple[int, int, str], dict] = OrderedDict()
_lock = threading.Lock()
_render_lock = threading.Lock()


def board_view(session: LiveSession, *, mode: str, path: tuple[int, ...] = (), marks=None):
    """The shared board as the board widget draws it: its arrows, marks and last move; seen
    from the side to move when a question is open (the students solve it)."""
    board = core_board.board_from_fen(session.fen, session.variant)
    drawn = {sq: "highlight" for sq in session.marks}
    drawn.update(marks or {})
    last = session.last_move or {}
    return core_board.board_view(
        board,
        mode=mode,
        marks=drawn,
        arrows=[tuple(a) for a in session.arrows if a],
        last_move=tuple(last["route"]) if last.get("route") else None,
        notation=last.get("text", ""),
        flipped=core_board.solver_flipped(board) if session.question_open else False,
        path=path,
    )


def announcement(session: LiveSession) -> str:
    """What a screen reader says when the stage changes."""
    if session.ended:
        return _("The live lesson has ended.")
    board = core_board.board_from_fen(session.fen, session.variant)
    turn = _("White to move") if core_board.solver_flipped(board) is False else _("Black to move")
    parts = [_("Position %(n)d.") % {"n": session.index + 1}, turn + "."]
    if session.last_move.get("text"):
        parts.append(_("Last move %(move)s.") % {"move": session.last_move["text"]})
    if session.question_open:
        parts.append(_("Question: find the move and play it on your board."))
    elif session.revealed and session.solution:
        parts.append(_("The solution is shown."))
    if session.shown_id:
        parts.append(_("A student's answer is on the board."))
    return " ".join(parts)


def solution_texts(session: LiveSession) -> list[str]:
    if not session.solution:
        return []
    _board, texts = core_board.play_line(session.variant, session.question_fen, session.solution)
    return texts


def stage_context(session: LiveSession, role: str, *, mine: LiveAnswer | None = None) -> dict:
    step = session.current_step
    answering = role == "student" and session.question_open and mine is None
    mode = "free" if role == "teacher" else "lesson"
    shown = session.shown if session.shown_id else None
    steps_count = session.steps.count()
    return {
        "session": session,
        "role": role,
        "step": step,
        "steps_count": steps_count,
        "next_action": session.next_action(steps_count) if role == "teacher" else "",
        "board": board_view(session, mode=mode),
        "answering": answering,
        "mine": mine,
        "shown": shown,
        "solution": solution_texts(session) if session.revealed else [],
        "announce": announcement(session),
        "answer_url": reverse("live:answer", args=[session.pk]),
        "control_url": reverse("live:control", args=[session.pk]),
        # rendered without a request (pushed over the socket): an empty token field, so that
        # Django reads the token htmx sends from <body hx-headers> (see stage_html)
        "csrf_token": NO_TOKEN,
    }


def stage_html(
    session: LiveSession, role: str, *, mine: LiveAnswer | None = None, request=None
) -> str:
    """The stage; with ``request``, as that user's page has it (their CSRF token, their answer),
    without, for the socket: its forms' token fields are left empty (Django then takes the
    X-CSRFToken header htmx sends)."""
    context = stage_context(session, role, mine=mine)
    if request is not None:
        del context["csrf_token"]
    template = "live/_teacher_stage.html" if role == "teacher" else "live/_stage.html"
    html = render_to_string(template, context, request=request)
    return html if request is not None else without_token(html)


def without_token(html: str) -> str:
    return html.replace(f'value="{NO_TOKEN}"', 'value=""')


def kept_student_state(session_id: int, version: int, language: str) -> dict | None:
    """The students' state message of ``version`` of the lesson, if this process made it."""
    with _lock:
        return _stages.get((session_id, version, language))


def student_state(session: LiveSession, language: str) -> dict:
    """The message that brings a student's page (no answer of their own yet) to ``session`` as
    read, in ``language``: made once per version and language in this process (one socket's
    consumer renders it, the others of the lesson send the same text)."""
    key = (session.pk, session.version, language)
    with _render_lock:  # the sockets of a lesson ask at the same moment: one renders
        kept = kept_student_state(*key)
        if kept is not None:
            return kept
        with override(language):
            message = {
                "type": "state",
                "version": session.version,
                "html": stage_html(session, "student"),
                "announce": announcement(session),
            }
        with _lock:
            _stages[key] = message
            while len(_stages) > _KEPT:
                _stages.popitem(last=False)
    return message


def results_html(session: LiveSession, request=None) -> str:
    html = render_to_string(
        "live/_results.html",
        {
            "session": session,
            "results": session.results(),
            "control_url": reverse("live:control", args=[session.pk]),
            **({} if request is not None else {"csrf_token": NO_TOKEN}),
        },
        request=request,
    )
    return html if request is not None else without_token(html)
