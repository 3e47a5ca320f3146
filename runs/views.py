"""The runs' pages: the choice of streak or storm with the personal bests and the high scores,
a run being played (its region, ``run``, swapped by htmx after each move), and a class's table.

Each action is one model method (``Run.start``, ``answer``, ``skip``, ``finish``) given the
server's time of the request (``now``, read once as the request arrives): a storm's move is
judged by when it reached the server, never by the network's delay back.
"""

from __future__ import annotations

from datetime import datetime
from functools import wraps
from typing import Any

from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from classroom.models import Classroom
from core import board as core_board
from core.numbers import read_int
from core.variants import get_variant
from live.models import LiveSession
from puzzles.player import Player
from puzzles.trainer import Outcome, Result, goal_kind, goal_text

from . import rules
from .models import Answer, Kind, Race, Run, Stale


def _kind(kind: str) -> str:
    if kind not in Kind.values:
        raise Http404(_("No such run."))
    return kind


def _now() -> datetime:
    return timezone.now()


def _classes_of(user) -> list[Classroom]:
    if not user.is_authenticated:
        return []
    taught = Classroom.objects.filter(teachers=user)
    attended = Classroom.objects.filter(memberships__user=user)
    return list((taught | attended).distinct().order_by("name", "pk"))


def name_of(row: dict[str, Any]) -> str:
    full = f"{row.get('user__first_name', '')} {row.get('user__last_name', '')}".strip()
    return full or str(row.get("user__username", ""))


@never_cache
@require_GET
def index(request: HttpRequest, variant: str) -> HttpResponse:
    """Streak or storm in ``variant``: the rules, the player's bests, the site's high scores."""
    info = get_variant(variant)
    player = Player.of(request)
    now = _now()
    modes = []
    for kind, label in Kind.choices:
        modes.append(
            {
                "kind": kind,
                "label": label,
                "bests": Run.objects.bests(player, kind, variant, now),
                "high": [
                    {"name": row["user__username"], "best": row["best"]}
                    for row in Run.objects.high_scores(kind, variant)
                ],
            }
        )
    return render(
        request,
        "runs/index.html",
        {
            "variant": info,
            "modes": modes,
            "classes": _classes_of(request.user),
            "rules": {
                "seconds": rules.STORM_SECONDS,
                "minutes": rules.STORM_SECONDS // 60,
                "combo": rules.COMBO_BONUS,
                "every": rules.COMBO_EVERY,
                "penalty": rules.WRONG_PENALTY,
            },
        },
    )


@never_cache
@require_POST
def start(request: HttpRequest, variant: str, kind: str) -> HttpResponse:
    get_variant(variant)
    run = Run.start(Player.of(request), _kind(kind), variant, now=_now())
    if run is None:
        return HttpResponse(_("There are no puzzles to play in this variant yet."), status=400)
    return redirect("runs:run", pk=run.pk)


def _owned(request: HttpRequest, pk: int) -> Run:
    run = Run.objects.owned(Player.of(request), pk)
    if run is None:
        raise Http404(_("No such run."))
    return run


def _context(request: HttpRequest, run: Run, now: datetime, answer: Answer | None = None) -> dict:
    context: dict[str, Any] = {
        "run": run,
        "variant": get_variant(run.variant),
        "answer": answer,
        "result": answer.result if answer else None,
        "remaining_ms": int((run.remaining(now) or 0) * 1000),
        "move_url": reverse("runs:move", args=[run.pk]),
        "skip_url": reverse("runs:skip", args=[run.pk]),
        "finish_url": reverse("runs:finish", args=[run.pk]),
        "page_url": reverse("runs:run", args=[run.pk]),
    }
    attempt = run.current_attempt() if not run.is_finished else None
    if attempt is not None:
        puzzle = attempt.puzzle
        result = answer.result if answer and not answer.advanced else None
        board = core_board.board_from_fen(attempt.position or puzzle.fen, puzzle.variant)
        start = core_board.board_from_fen(puzzle.fen, puzzle.variant)
        context.update(
            puzzle=puzzle,
            attempt=attempt,
            goal_text=goal_text(puzzle.white_to_move, puzzle.goal, puzzle.horizon, puzzle.motifs),
            board=core_board.board_view(
                board,
                flipped=core_board.solver_flipped(start),
                path=result.path if result is not None and result.kind == Outcome.CONTINUE else (),
                targets=goal_kind(puzzle.goal) in ("gain", "win"),
            ),
            message=result.message if result is not None else "",
        )
    if run.is_finished:
        player = Player.of(request)
        context.update(
            missed=run.missed_puzzles(),
            bests=Run.objects.bests(player, run.kind, run.variant, now),
        )
    return context


def _render(request: HttpRequest, context: dict, status: int = 200) -> HttpResponse:
    partial = bool(request.htmx) and not request.htmx.boosted
    template = "runs/run.html#run" if partial else "runs/run.html"
    return render(request, template, context, status=status)


@never_cache
@require_GET
def run_page(request: HttpRequest, pk: int) -> HttpResponse:
    """A run: its puzzle and clock while it goes on (a storm whose time is up ends here), its
    result and the puzzles to replay once it is over."""
    now = _now()
    run = _owned(request, pk)
    run.expire(now)
    return _render(request, _context(request, run, now))


def _action(act):
    @never_cache
    @require_POST
    @wraps(act)
    def view(request: HttpRequest, pk: int) -> HttpResponse:
        now = _now()  # the server's time of receipt: what a storm's move is judged by
        run = _owned(request, pk)
        at = read_int(request.POST.get("at", ""), 0, 10**6)
        if at is None:
            return HttpResponse(_("Say which puzzle of the run this is for (at)."), status=400)
        try:
            answer = act(request, run, Player.of(request), at, now)
        except Stale:
            answer = Answer(
                Result(
                    Outcome.CONFLICT,
                    _("This run went on in another window or tab. Here is where it stands now."),
                )
            )
        status = answer.status
        if not request.htmx and status == 200:
            return redirect("runs:run", pk=run.pk)
        return _render(request, _context(request, run, now, answer), status=status)

    return view


@_action
def move(request: HttpRequest, run: Run, player: Player, at: int, now: datetime) -> Answer:
    route = request.POST.get("route", "").strip()[:200]
    text = request.POST.get("move", "")[:200]
    return run.answer(player, at=at, route=route, text=text, now=now)


@_action
def skip(request: HttpRequest, run: Run, player: Player, at: int, now: datetime) -> Answer:
    if not run.skip(player, at=at, now=now):
        return Answer(Result(Outcome.BAD, _("No skip is left in this run.")))
    return Answer(Result(Outcome.RETRY, _("Puzzle skipped.")), advanced=True)


@_action
def finish(request: HttpRequest, run: Run, player: Player, at: int, now: datetime) -> Answer:
    run.finish(now)
    return Answer(Result(Outcome.SHOWN, _("The run is over.")), finished=True)


@never_cache
@require_GET
def class_table(request: HttpRequest, variant: str, class_id: int) -> HttpResponse:
    """The high scores of a class's students: for its teachers and students only (404 for
    anyone else)."""
    info = get_variant(variant)
    classroom = get_object_or_404(Classroom, pk=class_id)
    if not (classroom.is_teacher(request.user) or classroom.is_student(request.user)):
        raise Http404(_("No such class."))
    students = classroom.students()
    tables = [
        {
            "kind": kind,
            "label": label,
            "rows": [
                {"name": name_of(row), "best": row["best"], "me": row["user_id"] == request.user.pk}
                for row in Run.objects.high_scores(kind, variant, users=students, limit=100)
            ],
        }
        for kind, label in Kind.choices
    ]
    return render(
        request, "runs/class.html", {"variant": info, "classroom": classroom, "tables": tables}
    )


# -- a class race in a live lesson ---------------------------------------------------------------


def _lesson_for(request: HttpRequest, pk: int) -> tuple[LiveSession, str]:
    """The live lesson ``pk`` and the user's role in it (404 for anyone else)."""
    lesson = LiveSession.objects.select_related("classroom").filter(pk=pk).first()
    role = lesson.role_of(request.user) if lesson is not None else ""
    if lesson is None or not role:
        raise Http404(_("No such live lesson."))
    return lesson, role


def race_context(lesson: LiveSession, role: str, user: Any, now: datetime) -> dict[str, Any]:
    """What the race panel of a live lesson shows: the last race, its leaderboard (the teacher's
    screen; the class's once it is over), the student's own storm."""
    race = lesson.races.order_by("-started_at", "-pk").first()
    running = race is not None and race.is_running(now)
    board = race.leaderboard() if race is not None else []
    mine = next((run for run in board if run.user_id == user.pk), None)
    return {
        "lesson": lesson,
        "role": role,
        "race": race,
        "running": running,
        "ended": lesson.ended is not None,
        "remaining_ms": int((race.ends_at - now).total_seconds() * 1000) if running else 0,
        "board": [
            {
                "name": run.user.get_full_name() or run.user.username if run.user else "",
                "score": run.score,
                "mistakes": run.mistakes,
                "combo": run.best_combo,
                "playing": not run.is_finished and (run.deadline is None or run.deadline > now),
                "me": run.user_id == user.pk,
            }
            for run in board
        ],
        "mine": mine,
        "panel_url": reverse("runs:race_panel", args=[lesson.pk]),
        "start_url": reverse("runs:race_start", args=[lesson.pk]),
        "join_url": reverse("runs:race_join", args=[race.pk]) if race is not None else "",
    }


@never_cache
@require_GET
def race_panel(request: HttpRequest, pk: int) -> HttpResponse:
    """The race panel of a live lesson (fetched again when the lesson's socket says the race
    changed, and every few seconds while a race runs)."""
    lesson, role = _lesson_for(request, pk)
    return render(request, "runs/_race.html", race_context(lesson, role, request.user, _now()))


@never_cache
@require_POST
def race_start(request: HttpRequest, pk: int) -> HttpResponse:
    """The teacher starts a storm for the whole class (a student: 403)."""
    lesson, role = _lesson_for(request, pk)
    if role != "teacher":
        return HttpResponse(_("Only the class's teachers start a race."), status=403)
    try:
        race = Race.start(lesson, now=_now())
    except ValidationError as error:
        return HttpResponse(" ".join(error.messages), status=400)
    if race is None:
        return HttpResponse(_("There are no puzzles to play in this variant yet."), status=400)
    if request.htmx:
        context = race_context(lesson, role, request.user, _now())
        return render(request, "runs/_race.html", context)
    return redirect(lesson.get_absolute_url())


@never_cache
@require_POST
def race_join(request: HttpRequest, pk: int) -> HttpResponse:
    """A student joins the class race: their storm on the race's puzzles (the same one again
    after a reload); the race is over: 400."""
    race = get_object_or_404(Race.objects.select_related("lesson__classroom"), pk=pk)
    if race.lesson.role_of(request.user) != "student":
        raise Http404(_("No such race."))
    run = race.join(Player.of(request), now=_now())
    if run is None:
        return HttpResponse(_("This race is over."), status=400)
    return redirect("runs:run", pk=run.pk)
