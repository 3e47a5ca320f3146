"""Learn: the course picker, a course map, and a step with its exercise (checked on the server).

htmx requests get the ``exercise`` partial (plus the feedback, swapped out of band into the page's
aria-live region); the same views answer a plain form post with the whole page.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from core.variants import SESSION_KEY as VARIANT_SESSION_KEY
from core.variants import VARIANTS, get_variant, remember_variant

from . import engine
from .course import (
    COURSE_FILES,
    Course,
    Step,
    all_courses,
    combinations_of,
    find_step_anywhere,
    get_course,
)
from .progress import Tracker, course_map
from .signals import step_answered


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
    """A course map: lessons and steps, done / next / locked, stars, and where to resume."""
    the_course = _course(variant)
    if variant in VARIANTS and request.session.get(VARIANT_SESSION_KEY) != variant:
        remember_variant(request, variant)  # the Learn link then comes back here
    tracker = Tracker(request)
    cmap = course_map(the_course, tracker.records(the_course))
    others = [c for c in all_courses() if c.slug != the_course.slug]
    combinations = combinations_of(variant) if variant in VARIANTS else None
    return render(
        request,
        "lessons/course.html",
        {
            "course": the_course,
            "map": cmap,
            "others": others,
            "variant": VARIANTS.get(variant),
            "combinations": combinations,
        },
    )


def _drill(step: Step) -> dict | None:
    """A Combinations step's drill: the puzzle trainer filtered by the step's shot (a motif of
    ``dama.shots``) and how many puzzles of the site's pool show it (0: the page says so instead
    of linking to an empty trainer)."""
    if step.shot is None:
        return None
    from puzzles.stream import pool_rows  # the pool's rows, kept per process

    name = step.shot.name
    count = sum(
        1 for row in pool_rows(step.variant) if any(m.split(":")[0] == name for m in row[2])
    )
    return {"url": step.drill_url, "count": count}


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
    verdict: engine.Verdict | None = None,
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
        "hint_inline": verdict is not None and verdict.status == engine.LEGAL and not feedback,
        "show_answer": show_answer,
        "answer_text": engine.answer_text(step) if show_answer else "",
        "board": engine.exercise_board(step, verdict=verdict, show_answer=show_answer),
        "before": engine.diagram_before(step) if ex.after else None,
        "compare": [
            (entry, engine.compare_diagram(entry), VARIANTS[entry.variant])
            for entry in step.compare
        ],
        "reveal_compare": done or show_answer,
        "selection": verdict.selection if verdict is not None and verdict.selection else "",
        "total": len(step.course.steps),
        "drill": None if request.htmx else _drill(step),
    }
    template = "lessons/step_htmx.html" if request.htmx else "lessons/step.html"
    return render(request, template, context, status=status)


def _locked(request: HttpRequest, step: Step, tracker: Tracker) -> Step | None:
    """The step the visitor must do first when ``step`` is still locked, else None."""
    cmap = course_map(step.course, tracker.records(step.course))
    return None if cmap.is_open(step) else cmap.next_step


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
    first = _locked(request, found, tracker)
    if first is not None:
        messages.info(
            request,
            _("“%(locked)s” is still locked: finish “%(step)s” first.")
            % {"locked": found.title, "step": first.title},
        )
        return redirect(first.get_absolute_url())
    notice = _("The board is reset. Try again.") if request.htmx else ""
    return _render_step(request, found, tracker, notice=notice)


def _refuse_locked(request: HttpRequest, found: Step, tracker: Tracker) -> HttpResponse | None:
    first = _locked(request, found, tracker)
    if first is None:
        return None
    return HttpResponse(
        _("This step is still locked: finish “%(step)s” first.") % {"step": first.title},
        status=403,
        content_type="text/plain; charset=utf-8",
    )


@require_POST
def check(request: HttpRequest, variant: str, lesson: str, step: str) -> HttpResponse:
    """Judge an answer with the engine; right answers earn stars and open the next step."""
    found, tracker = _resolve(request, variant, lesson, step)
    refused = _refuse_locked(request, found, tracker)
    if refused is not None:
        return refused
    text = request.POST.get("choice") or request.POST.get("answer", "")
    verdict = engine.judge(
        found,
        route=request.POST.get("route", "").strip(),
        text=text,
        selection=request.POST.get("answer", ""),
    )
    just_done = False
    if verdict.counts and verdict.status in (engine.RIGHT, engine.WRONG, engine.LEGAL):
        record, just_done = tracker.update(found, lambda r: r.note_attempt(verdict.is_right))
        step_answered.send(
            sender=Step,
            request=request,
            step=found,
            right=verdict.is_right,
            hints=record.hints_used,
            answer_shown=record.answer_shown,
        )
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
    refused = _refuse_locked(request, found, tracker)
    if refused is not None:
        return refused
    tracker.update(found, lambda r: r.note_hint())
    return _render_step(request, found, tracker, hint_now=True)


@require_POST
def solution(request: HttpRequest, variant: str, lesson: str, step: str) -> HttpResponse:
    """Show the answer (the step then earns one star at most)."""
    found, tracker = _resolve(request, variant, lesson, step)
    refused = _refuse_locked(request, found, tracker)
    if refused is not None:
        return refused
    tracker.update(found, lambda r: r.note_answer_shown())
    return _render_step(request, found, tracker, answer_now=True)
