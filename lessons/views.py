"""Learn: the course picker, a course map, a step with its exercise (checked on the server), and
a lesson's test-out (its last exercises in a row).

Every step can be opened, in any order; the map marks what is done, what is tested out and the
step to go on with. htmx requests get the ``exercise`` partial (plus the feedback, swapped out of
band into the page's aria-live region); the same views answer a plain form post with the whole
page.
"""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from core import endgames, exercise
from core.models import Job
from core.variants import SESSION_KEY as VARIANT_SESSION_KEY
from core.variants import VARIANTS, get_variant, remember_variant

from . import engine
from .course import (
    COURSE_FILES,
    Course,
    Lesson,
    Step,
    all_courses,
    combinations_of,
    endgames_of,
    find_step_anywhere,
    get_course,
    strategy_of,
)
from .models import DrillRun
from .progress import FAILED, GOES_ON, PASSED, Tracker, course_map, test_out_steps
from .signals import step_answered
from .tasks import BUILD_JOB, build_endgames


def _course(slug: str) -> Course:
    if slug not in COURSE_FILES:
        get_variant(slug)  # the site's friendly 404 for an unknown variant
    return get_course(slug)


@require_GET
def index(request: HttpRequest) -> HttpResponse:
    """Pick a course; a visitor who already chose a variant goes straight to its course."""
    chosen = request.session.get(VARIANT_SESSION_KEY)
    if chosen in VARIANTS:
        return redirect("lessons:course", variant=chosen)
    tracker = Tracker(request)
    maps = [course_map(course, tracker.records(course)) for course in all_courses()]
    return render(request, "lessons/index.html", {"maps": maps})


@require_GET
def course(request: HttpRequest, variant: str) -> HttpResponse:
    """A course map: lessons and steps, done / tested out / next, stars, where to resume and
    each lesson's test-out."""
    the_course = _course(variant)
    if variant in VARIANTS and request.session.get(VARIANT_SESSION_KEY) != variant:
        remember_variant(request, variant)  # the Learn link then comes back here
    tracker = Tracker(request)
    cmap = course_map(the_course, tracker.records(the_course))
    others = [c for c in all_courses() if c.slug != the_course.slug]
    combinations = combinations_of(variant) if variant in VARIANTS else None
    strategy = strategy_of(variant) if variant in VARIANTS else None
    endgame_course = endgames_of(variant) if variant in VARIANTS else None
    return render(
        request,
        "lessons/course.html",
        {
            "course": the_course,
            "map": cmap,
            "others": others,
            "variant": VARIANTS.get(variant),
            "combinations": combinations,
            "strategy": strategy,
            "endgame_course": endgame_course,
            "tables": tables_status(request, the_course) if the_course.is_endgames else None,
        },
    )


def _resolve(request: HttpRequest, variant: str, lesson: str, step: str) -> tuple[Step, Tracker]:
    the_course = _course(variant)
    found = the_course.step(lesson, step)
    if found is None:
        raise Http404(_("There is no such step in this course."))
    return found, Tracker(request)


def _render_step(
    request: HttpRequest,
    step: Step,
    tracker: Tracker,
    *,
    verdict: exercise.Verdict | None = None,
    just_done: bool = False,
    hint_now: bool = False,
    answer_now: bool = False,
    status: int = 200,
    notice: str = "",
) -> HttpResponse:
    record = tracker.get(step)
    ex = step.exercise
    show_answer = answer_now or record.answer_shown
    show_hint = hint_now or record.hints_used > 0
    feedback = ""
    if verdict is not None and verdict.wrong_index is not None:
        feedback = str(ex.feedback_for_move(verdict.wrong_index))
    done = record.is_done
    context = {
        "course": step.course,
        "lesson": step.lesson,
        "step": step,
        "ex": ex,
        "record": record,
        "done": done,
        "just_done": just_done,
        "verdict": verdict,
        "feedback": feedback,
        "notice": notice,
        "show_hint": show_hint,
        "hint_now": hint_now,
        "answer_now": answer_now,
        "hint_inline": verdict is not None and verdict.status == exercise.LEGAL and not feedback,
        "show_answer": show_answer,
        "answer_text": exercise.answer_text(step) if show_answer else "",
        "board": engine.exercise_board(step, verdict=verdict, show_answer=show_answer),
        "before": engine.diagram_before(step) if ex.after else None,
        "compare": [
            (entry, engine.compare_diagram(entry), VARIANTS[entry.variant])
            for entry in step.compare
        ],
        "reveal_compare": done or show_answer,
        "selection": verdict.selection if verdict is not None and verdict.selection else "",
        "total": len(step.course.steps),
        # a Combinations step's drill: the puzzles app's tag counts its pool (``puzzle_drill``)
        "drill": step.shot is not None and not request.htmx,
    }
    template = "lessons/step_htmx.html" if request.htmx else "lessons/step.html"
    return render(request, template, context, status=status)


@require_GET
def step(request: HttpRequest, variant: str, lesson: str, step: str) -> HttpResponse:
    the_course = _course(variant)
    found = the_course.step(lesson, step)
    if found is None:
        elsewhere = find_step_anywhere(step)
        if elsewhere is not None:  # e.g. the variant switcher on a step page: that course's map
            return redirect(the_course.get_absolute_url())
        raise Http404(_("There is no such step in this course."))
    tracker = Tracker(request)
    if found.exercise.is_drill:
        return _render_drill(request, found, tracker, _drill_run(request, found))
    notice = _("The board is reset. Try again.") if request.htmx else ""
    return _render_step(request, found, tracker, notice=notice)


def _judge_and_count(
    request: HttpRequest, found: Step, tracker: Tracker
) -> tuple[exercise.Verdict, bool]:
    """Judge the posted answer to ``found`` with the engine and count it when it is an answer
    (right, wrong or a legal wrong move): (the verdict, whether the step was just done)."""
    text = request.POST.get("choice") or request.POST.get("answer", "")
    verdict = exercise.judge(
        found,
        route=request.POST.get("route", "").strip(),
        text=text,
        selection=request.POST.get("answer", ""),
    )
    just_done = False
    if verdict.counts and verdict.status in (exercise.RIGHT, exercise.WRONG, exercise.LEGAL):
        record, just_done = tracker.update(found, lambda r: r.note_attempt(verdict.is_right))
        step_answered.send(
            sender=Step,
            request=request,
            step=found,
            right=verdict.is_right,
            hints=record.hints_used,
            answer_shown=record.answer_shown,
        )
    return verdict, just_done


@require_POST
def check(request: HttpRequest, variant: str, lesson: str, step: str) -> HttpResponse:
    """Judge an answer with the engine; a right answer earns the step its stars."""
    found, tracker = _resolve(request, variant, lesson, step)
    if found.exercise.is_drill:
        return _drill_check(request, found, tracker)
    verdict, just_done = _judge_and_count(request, found, tracker)
    return _render_step(
        request,
        found,
        tracker,
        verdict=verdict,
        just_done=just_done,
        status=400 if verdict.is_bad else 200,
    )


@require_POST
def hint(request: HttpRequest, variant: str, lesson: str, step: str) -> HttpResponse:
    found, tracker = _resolve(request, variant, lesson, step)
    tracker.update(found, lambda r: r.note_hint())
    if found.exercise.is_drill:
        return _drill_hint(request, found, tracker)
    return _render_step(request, found, tracker, hint_now=True)


@require_POST
def solution(request: HttpRequest, variant: str, lesson: str, step: str) -> HttpResponse:
    """Show the answer (the step then earns one star at most)."""
    found, tracker = _resolve(request, variant, lesson, step)
    tracker.update(found, lambda r: r.note_answer_shown())
    if found.exercise.is_drill:
        return _drill_hint(request, found, tracker)
    return _render_step(request, found, tracker, answer_now=True)


# -- the test-out of a lesson -------------------------------------------------------------------------


def _test_out_lesson(variant: str, lesson: str) -> Lesson:
    """The lesson ``lesson`` of the course, when it has a test-out (else a 404)."""
    found = next((ls for ls in _course(variant).lessons if ls.slug == lesson), None)
    if found is None or not test_out_steps(found):
        raise Http404(_("This lesson has no test-out."))
    return found


def _render_test_out(
    request: HttpRequest,
    lesson: Lesson,
    tracker: Tracker,
    *,
    verdict: exercise.Verdict | None = None,
    result: str = "",
    answered: Step | None = None,
    notice: str = "",
    status: int = 200,
) -> HttpResponse:
    """The test-out page: the intro (no test-out going on), the exercise to answer, or how the
    last answer ended it (``result``, with the step ``answered``)."""
    steps = test_out_steps(lesson)
    at = tracker.test_out_at(lesson)
    step = steps[at] if at is not None else None
    # an answer that decides nothing (a capture going on, a selection growing, unreadable input)
    # keeps its verdict on the board; after a right one the next exercise has a fresh board
    on_board = verdict if result == "" else None
    context = {
        "course": lesson.course,
        "lesson": lesson,
        "steps": steps,
        "at": at,
        "step": step,
        "ex": step.exercise if step is not None else None,
        "verdict": verdict,
        "on_board": on_board,
        "feedback": (
            str(answered.exercise.feedback_for_move(verdict.wrong_index) or "")
            if answered is not None and verdict is not None and verdict.wrong_index is not None
            else ""
        ),
        "result": result,
        "answered": answered,
        "notice": notice,
        "goes_on": result == GOES_ON,
        "passed": result == PASSED,
        "failed": result == FAILED,
        "board": (
            engine.exercise_board(step, verdict=on_board, show_answer=False) if step else None
        ),
        "selection": on_board.selection if on_board is not None and on_board.selection else "",
        "check_url": reverse("lessons:test_out_check", args=[lesson.course.slug, lesson.slug]),
        "map": course_map(lesson.course, tracker.records(lesson.course)),
    }
    template = "lessons/test_out_htmx.html" if request.htmx else "lessons/test_out.html"
    return render(request, template, context, status=status)


@require_GET
def test_out(request: HttpRequest, variant: str, lesson: str) -> HttpResponse:
    """A lesson's test-out: what it is and its start button, or the exercise to answer."""
    found = _test_out_lesson(variant, lesson)
    return _render_test_out(request, found, Tracker(request))


@require_POST
def test_out_start(request: HttpRequest, variant: str, lesson: str) -> HttpResponse:
    """Begin the lesson's test-out (again) at its first exercise."""
    found = _test_out_lesson(variant, lesson)
    Tracker(request).start_test_out(found)
    return redirect("lessons:test_out", variant=variant, lesson=lesson)


@require_POST
def test_out_check(request: HttpRequest, variant: str, lesson: str) -> HttpResponse:
    """Judge the answer to the test-out's current exercise, counted as an answer to its step; a
    wrong one ends the test-out, the last right one passes it."""
    found = _test_out_lesson(variant, lesson)
    tracker = Tracker(request)
    at = tracker.test_out_at(found)
    if at is None:  # no test-out going on (ended in another tab): its intro, said plainly
        notice = _("No test-out of this lesson is going on: start it first.")
        return _render_test_out(request, found, tracker, notice=notice, status=409)
    step = test_out_steps(found)[at]
    verdict, _just_done = _judge_and_count(request, step, tracker)
    result = ""
    if verdict.counts and verdict.status in (exercise.RIGHT, exercise.WRONG, exercise.LEGAL):
        result = tracker.answer_test_out(found, verdict.is_right)
    return _render_test_out(
        request,
        found,
        tracker,
        verdict=verdict,
        result=result,
        answered=step,
        status=400 if verdict.is_bad else 200,
    )


# -- the endgame databases a course needs ------------------------------------------------------------


def tables_status(request: HttpRequest, the_course: Course) -> dict[str, object]:
    """Whether the databases of ``the_course``'s drills are built, and the job building them."""
    missing = [
        s for s in the_course.steps if s.exercise.is_drill and not endgames.covers(s.variant, s.fen)
    ]
    job = None
    if missing:
        job = Job.objects.filter(kind=BUILD_JOB, params__course=the_course.slug).first()
    return {
        "ready": not missing,
        "missing": len(missing),
        "job": job,
        "may_build": request.user.is_authenticated,
        "url": the_course.get_absolute_url(),
        "build_url": reverse("lessons:build_tables", args=[the_course.slug]),
    }


@require_POST
def build_tables(request: HttpRequest, variant: str) -> HttpResponse:
    """Build the databases an Endgames course needs, on a worker (one job at a time per course);
    the course page follows it."""
    the_course = _course(variant)
    if not the_course.is_endgames:
        raise Http404(_("This course has no endgame databases."))
    if not request.user.is_authenticated:
        return HttpResponse(_("Log in to ask for them to be built."), status=403)
    if not Job.objects.pending().filter(kind=BUILD_JOB, params__course=the_course.slug).exists():
        job = Job.objects.create(
            kind=BUILD_JOB, owner=request.user, params={"course": the_course.slug}
        )
        job_id = str(job.pk)
        transaction.on_commit(lambda: build_endgames.delay(job_id))
    return redirect(the_course.get_absolute_url())


# -- drills: a position played out against the endgame database --------------------------------------


def _owner(request: HttpRequest) -> tuple[object | None, str]:
    """The drill's owner: the account, or the visitor's session (made now when there is none)."""
    if request.user.is_authenticated:
        return request.user, ""
    if not request.session.session_key:
        request.session.save()
    return None, request.session.session_key or ""


def _drill_run(request: HttpRequest, step: Step) -> DrillRun:
    user, key = _owner(request)
    return DrillRun.current(user, key, step.course.slug, step.slug)


def _render_drill(
    request: HttpRequest,
    step: Step,
    tracker: Tracker,
    run: DrillRun,
    *,
    turn: endgames.Turn | None = None,
    hint_text: str = "",
    notice: str = "",
    status: int = 200,
) -> HttpResponse:
    """A drill step: the board after the moves played, the moves, how the last answer went."""
    record = tracker.get(step)
    path = turn.path if turn is not None and turn.status == endgames.CONTINUE else ()
    try:
        board = engine.drill_board(step, list(run.moves), path=path)
    except ValidationError:  # a record the course's new position does not take: start afresh
        run = DrillRun.restart(*_owner(request), step.course.slug, step.slug)
        board = engine.drill_board(step, [], path=path)
    ready = endgames.covers(step.variant, step.fen)
    moves = list(run.moves)
    context = {
        "course": step.course,
        "lesson": step.lesson,
        "step": step,
        "ex": step.exercise,
        "record": record,
        "done": record.is_done,
        "run": run,
        "turn": turn,
        "ply": len(moves),
        "pairs": [moves[i : i + 2] for i in range(0, len(moves), 2)],
        "learner_moves": endgames.done_plies(moves),
        "hint_text": hint_text,
        "notice": notice,
        "ready": ready,
        "board": board,
        "total": len(step.course.steps),
        "retry_url": step.action_url("retry"),
    }
    template = "lessons/drill_htmx.html" if request.htmx else "lessons/drill.html"
    return render(request, template, context, status=status)


def _drill_check(request: HttpRequest, step: Step, tracker: Tracker) -> HttpResponse:
    """Play the learner's move and the database's reply; the end of the drill counts as an
    answer to the step (right when the goal is reached)."""
    ex = step.exercise
    ply = request.POST.get("ply", "")
    expected = int(ply) if ply.isdigit() and len(ply) < 5 else None
    if expected is None:
        notice = _("The page's position is missing: reload the page.")
        return _render_drill(
            request, step, tracker, _drill_run(request, step), notice=notice, status=400
        )
    route = request.POST.get("route", "").strip()
    text = request.POST.get("answer", "").strip()

    def judge(moves: list[str]) -> endgames.Turn:
        return endgames.play(
            step.variant, step.fen, moves, goal=ex.goal, hold=ex.hold, route=route, text=text
        )

    user, key = _owner(request)
    try:
        run, turn = DrillRun.advance(user, key, step.course.slug, step.slug, expected, judge)
    except ValidationError as exc:
        run = _drill_run(request, step)
        return _render_drill(request, step, tracker, run, notice=" ".join(exc.messages), status=400)
    if turn is None:
        notice = _(
            "The drill has moved on in another tab (or is over): here it is as it stands now."
        )
        return _render_drill(request, step, tracker, run, notice=notice, status=409)
    if turn.ends:
        passed = turn.status == endgames.PASSED
        record, _just = tracker.update(step, lambda r: r.note_attempt(passed))
        step_answered.send(
            sender=Step,
            request=request,
            step=step,
            right=passed,
            hints=record.hints_used,
            answer_shown=record.answer_shown,
        )
    status = 200
    if turn.is_bad:
        status = 400
    elif turn.status == endgames.MISSING:
        status = 409
    return _render_drill(request, step, tracker, run, turn=turn, status=status)


def _drill_hint(request: HttpRequest, step: Step, tracker: Tracker) -> HttpResponse:
    """The database's best move in the drill's position now."""
    run = _drill_run(request, step)
    if run.is_over:
        return _render_drill(request, step, tracker, run)
    if not endgames.covers(step.variant, step.fen):
        notice = _("The endgame database for this position is not built yet.")
        return _render_drill(request, step, tracker, run, notice=notice, status=409)
    best = endgames.best_move(step.variant, step.fen, list(run.moves))
    if step.exercise.goal == "draw":
        text = _("%(move)s keeps the draw.") % {"move": best}
    else:
        text = _("%(move)s keeps the win within the count.") % {"move": best}
    return _render_drill(request, step, tracker, run, hint_text=text)


@require_POST
def retry(request: HttpRequest, variant: str, lesson: str, step: str) -> HttpResponse:
    """Start a drill again from its position."""
    found, tracker = _resolve(request, variant, lesson, step)
    if not found.exercise.is_drill:
        raise Http404(_("There is no such step in this course."))
    user, key = _owner(request)
    run = DrillRun.restart(user, key, found.course.slug, found.slug)
    notice = _("The drill starts again from its position.")
    return _render_drill(request, found, tracker, run, notice=notice)
