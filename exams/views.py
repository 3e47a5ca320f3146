"""The exam screens: the ladder of a variant, a sitting (one question at a time, then the
results), certificates (the PDF, the public check), and a teacher's class exam. Views parse the
input, call one model method and render one template."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.forms import CertificateNameForm
from accounts.models import profile_of
from classroom.views.access import class_for
from core import exercise
from core.models import Job
from core.variants import current_variant, get_variant
from puzzles.trainer import goal_text

from .forms import ClassExamForm
from .levels import level, levels, text
from .models import (
    OPEN,
    Certificate,
    CertificatePrint,
    ClassExam,
    Exam,
    NameNeeded,
    Outcome,
    Refused,
    question_board,
)
from .results import class_results
from .tasks import PRINT_JOB, print_certificates

MAX_INPUT = 200
#: a print of a class's certificates younger than this and not done is followed, not repeated
PRINT_PATIENCE = timedelta(minutes=5)


def index(request: HttpRequest) -> HttpResponse:
    return redirect("exams:ladder", variant=current_variant(request))


def _ladder_context(request: HttpRequest, variant: str) -> dict:
    info = get_variant(variant)
    rows = []
    user = request.user
    context: dict = {"variant": info, "rows": rows}
    if user.is_authenticated:
        profile = profile_of(user)
        if not profile.printed_name:  # asked before a real exam starts
            context["name_form"] = CertificateNameForm(instance=profile)
    for lv in levels():
        row: dict = {"level": lv, "name": text(lv.name), "covers": text(lv.covers)}
        if user.is_authenticated:
            mine = Exam.objects.filter(user=user, variant=variant, level=lv.number)
            row["certificate"] = (
                Certificate.objects.filter(user=user, variant=variant, level=lv.number)
                .order_by("-issued_on")
                .first()
            )
            row["running"] = [e for e in mine.filter(finished_at=None) if not e.is_due()]
            row["retake_at"] = Exam.retake_at(user, variant, lv.number)
            row["last"] = mine.exclude(finished_at=None).first()
        rows.append(row)
    return context


@require_GET
def ladder(request: HttpRequest, variant: str) -> HttpResponse:
    return render(request, "exams/ladder.html", _ladder_context(request, variant))


@login_required
@require_POST
def start(request: HttpRequest, variant: str, number: int) -> HttpResponse:
    get_variant(variant)
    kind = request.POST.get("kind", "")
    try:
        if level(number) is None or kind not in Exam.Kind.values:
            raise Refused(_("There is no such exam."))
        exam = Exam.start(request.user, variant, number, kind)
    except NameNeeded:
        return _ask_name(reverse("exams:ladder", args=[variant]))
    except Refused as exc:
        context = {**_ladder_context(request, variant), "error": str(exc)}
        return render(request, "exams/ladder.html", context, status=400)
    return redirect(exam)


def _ask_name(back: str) -> HttpResponse:
    """To the form of the name a certificate prints, which comes back to ``back``."""
    return redirect(f"{reverse('certificate_name')}?{urlencode({'next': back})}")


def _own(request: HttpRequest, pk: int) -> Exam:
    exam = Exam.objects.filter(pk=pk, user=request.user).first()
    if exam is None:
        raise Http404(_("No such exam."))
    return exam


def _question_context(exam: Exam, outcome: Outcome | None = None, moved: bool = False) -> dict:
    """The current question; ``moved``: the answer just given opened it (its heading takes the
    focus, board.js's ``data-focus-next``, so that a screen reader reads it)."""
    index = exam.current
    question = exam.question(index)
    if question.is_endgame:
        puzzle = question.puzzle
        prompt = (
            _("Win this endgame against the computer: you have White.")
            if puzzle.white_to_move
            else _("Win this endgame against the computer: you have Black.")
        )
        mode, kind = "game", "endgame"
    elif question.is_drill:
        prompt = (
            _("Win this ending within the count against the endgame database: you have White.")
            if question.fen[:1].upper() != "B"
            else _("Win this ending within the count against the endgame database: you have Black.")
        )
        mode, kind = "move", "drill"
    elif question.is_puzzle:
        puzzle = question.puzzle
        prompt = goal_text(puzzle.white_to_move, puzzle.goal, puzzle.horizon, puzzle.motifs)
        mode, kind = "move", "puzzle"
    else:
        step = question.rule.step
        prompt = str(step.exercise.prompt)
        mode, kind = step.exercise.mode, step.exercise.kind
        options = step.exercise.options if kind == "better_move" else ()
    if question.is_endgame or question.is_drill or question.is_puzzle:
        options = ()
    path = outcome.path if outcome is not None and outcome.kind == "continue" else ()
    board = question_board(question, path=path)
    return {
        "exam": exam,
        "level": exam.level_info,
        "level_name": text(exam.level_info.name),
        "variant": get_variant(exam.variant),
        "index": index,
        "number": index + 1,
        "question": question,
        "prompt": prompt,
        "mode": mode,
        "kind": kind,
        "options": options,
        "board": board,
        "outcome": outcome,
        # under the board: what the entry did; "saved" is said once, by the feedback
        "board_message": outcome.message if outcome is not None and outcome.kind != "saved" else "",
        "is_error": outcome is not None and outcome.status != 200,
        "moved": moved,
        "selection": question.state.get("selection", ""),
        "seconds_left": exam.seconds_left(),
        "clock_stopped": exam.is_clock_stopped(),
        "answer_url": reverse("exams:answer", args=[exam.pk]),
        "skip_url": reverse("exams:skip", args=[exam.pk]),
        "finish_url": reverse("exams:finish", args=[exam.pk]),
        "endgame_url": reverse("exams:endgame", args=[exam.pk]),
        "game_url": reverse("play:game", args=[question.game_id]) if question.game_id else "",
    }


def _results_context(exam: Exam) -> dict:
    rows = []
    for i in range(exam.total):
        question = exam.question(i)
        row: dict = {"number": i + 1, "state": question.state.get("state", OPEN)}
        row["entered"] = " ".join(question.state.get("entered") or [])
        if question.is_endgame:
            row["topic"] = _("An endgame to win against the computer")
            if question.game_id:
                row["game_url"] = reverse("play:replay", args=[question.game_id])
        elif question.is_drill:
            row["topic"] = _("A won ending to play out against the endgame database")
            if exam.is_practice:
                row["why"] = question.state.get("message", "")
                row["diagram"] = question_board(question.of(exam.variant, question.ref, {})).svg
        elif question.is_puzzle:
            puzzle = question.puzzle
            row["topic"] = goal_text(
                puzzle.white_to_move, puzzle.goal, puzzle.horizon, puzzle.motifs
            )
            if exam.is_practice and not puzzle.for_exams:  # (a sitting from before they split)
                full = type(puzzle).objects.get(pk=puzzle.pk)
                row["answer"] = full.numbered_solution
                row["diagram"] = question_board(question.of(exam.variant, question.ref, {})).svg
        else:
            rule = question.rule
            step = rule.step
            row["topic"] = str(step.exercise.prompt)
            if exam.is_practice and not rule.reserved:  # a kept strategy question: never
                row["answer"] = exercise.answer_text(step)
                row["why"] = str(step.exercise.hint)
                row["articles"] = step.article_texts
                row["message"] = question.state.get("message", "")
                row["diagram"] = question_board(question).svg
        rows.append(row)
    return {
        "exam": exam,
        "level": exam.level_info,
        "level_name": text(exam.level_info.name),
        "variant": get_variant(exam.variant),
        "rows": rows,
        "certificate": Certificate.objects.filter(exam=exam).first(),
        "retake_at": Exam.retake_at(exam.user, exam.variant, exam.level)
        if not exam.is_practice and not exam.class_exam_id
        else None,
    }


@never_cache
@login_required
@require_GET
def sitting(request: HttpRequest, pk: int) -> HttpResponse:
    exam = _own(request, pk)
    exam.expire_if_due()
    exam.sync_endgame()
    if exam.is_finished:
        return render(request, "exams/results.html", _results_context(exam))
    return render(request, "exams/sitting.html", _question_context(exam))


def _after(
    request: HttpRequest, exam: Exam, outcome: Outcome | None, index: int | None = None
) -> HttpResponse:
    if exam.is_finished:
        if request.htmx:
            response = HttpResponse(status=204)
            response["HX-Redirect"] = exam.get_absolute_url()
            return response
        return redirect(exam)
    status = outcome.status if outcome is not None else 200
    if not request.htmx:
        if status == 200:
            return redirect(exam)
        return render(
            request, "exams/sitting.html", _question_context(exam, outcome), status=status
        )
    moved = index is not None and index != exam.current
    return render(
        request,
        "exams/sitting.html#question",
        _question_context(exam, outcome, moved),
        status=status,
    )


def _index(request: HttpRequest) -> int | None:
    raw = request.POST.get("index", "")
    return int(raw) if raw.isdecimal() and len(raw) < 4 else None


@never_cache
@login_required
@require_POST
def answer(request: HttpRequest, pk: int) -> HttpResponse:
    exam = _own(request, pk)
    index = _index(request)
    route = request.POST.get("route", "").strip()
    # a "choose the better move" question's option buttons post ``choice``
    entered = (request.POST.get("choice") or request.POST.get("answer", "")).strip()
    if index is None or len(route) > MAX_INPUT or len(entered) > MAX_INPUT:
        outcome = Outcome("bad", _("That is not an answer."))
    else:
        outcome = exam.answer(index=index, route=route, text=entered)
    return _after(request, exam, outcome, index)


@never_cache
@login_required
@require_POST
def skip(request: HttpRequest, pk: int) -> HttpResponse:
    exam = _own(request, pk)
    index = _index(request)
    if index is None:
        return _after(request, exam, Outcome("bad", _("That is not an answer.")))
    exam.skip(index=index)
    return _after(request, exam, None, index)


@never_cache
@login_required
@require_POST
def endgame(request: HttpRequest, pk: int) -> HttpResponse:
    """Start (or go back to) the game of the current endgame question."""
    exam = _own(request, pk)
    index = _index(request)
    game = exam.start_endgame(index=index) if index is not None else None
    if game is None:
        return _after(request, exam, Outcome("bad", _("That question is no longer open.")))
    return redirect("play:game", pk=game)


@never_cache
@login_required
@require_POST
def finish(request: HttpRequest, pk: int) -> HttpResponse:
    """Hand the exam in. With questions not answered yet, only when the form says ``confirm``:
    otherwise a 409 with the question whether to hand it in (a page, or the htmx partial that
    the sitting shows under its buttons)."""
    exam = _own(request, pk)
    waiting = exam.hand_in(confirmed=request.POST.get("confirm") == "1")
    if waiting:
        context = {
            "exam": exam,
            "level": exam.level_info,
            "level_name": text(exam.level_info.name),
            "open": waiting,
            "finish_url": reverse("exams:finish", args=[exam.pk]),
            "retake_at": exam.retake_if_handed_in(),
        }
        template = "exams/hand_in.html#confirm" if request.htmx else "exams/hand_in.html"
        return render(request, template, context, status=409)
    return _after(request, exam, None)


# -- certificates ---------------------------------------------------------------------------------


def _pdf(body: bytes, filename: str) -> HttpResponse:
    response = HttpResponse(body, content_type="application/pdf")
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    response["Cache-Control"] = "private"
    return response


@login_required
@require_GET
def certificate_pdf(request: HttpRequest, code: str) -> HttpResponse:
    cert = Certificate.objects.filter(code=code.upper()[:16]).first()
    user = request.user
    allowed = cert is not None and (
        cert.user_id == user.pk
        or (cert.exam.class_exam and cert.exam.class_exam.classroom.is_teacher(user))
    )
    if not allowed:
        raise Http404(_("No such certificate."))
    body = cert.pdf(get_language(), request.build_absolute_uri("/"))
    return _pdf(body, f"certificate-{cert.code}.pdf")


@require_GET
def verify(request: HttpRequest, code: str) -> HttpResponse:
    """Anyone may check a certificate: the name, variant, level and date, nothing else."""
    clean = "".join(code.split()).upper()[:16]
    cert = Certificate.objects.filter(code=clean).first()
    status = 200 if cert is not None else 404
    context = {
        "code": clean,
        "cert": cert,
        "level_name": text(cert.level_info.name) if cert and cert.level_info else "",
        "variant": get_variant(cert.variant) if cert else None,
    }
    return render(request, "exams/verify.html", context, status=status)


# -- a teacher's exam for a class ---------------------------------------------------------------------


@login_required
@require_http_methods(["GET", "POST"])
def class_exams(request: HttpRequest, classroom: int) -> HttpResponse:
    room = class_for(request, classroom)
    form = ClassExamForm(
        request.POST or None,
        initial={"variant": room.variant, "starts_at": timezone.localtime().replace(second=0)},
    )
    if request.method == "POST" and form.is_valid():
        exam = form.save(commit=False)
        exam.classroom = room
        exam.created_by = request.user
        exam.save()
        return redirect(exam)
    status = 400 if request.method == "POST" else 200
    context = {"classroom": room, "form": form, "exams": room.exams.all()}
    return render(request, "exams/class_exams.html", context, status=status)


def _class_exam_for_teacher(request: HttpRequest, pk: int) -> ClassExam:
    exam = get_object_or_404(ClassExam, pk=pk)
    class_for(request, exam.classroom_id)
    return exam


@never_cache
@login_required
@require_GET
def class_exam(request: HttpRequest, pk: int) -> HttpResponse:
    exam = _class_exam_for_teacher(request, pk)
    context = {
        "class_exam": exam,
        "classroom": exam.classroom,
        "level_name": text(exam.level_info.name) if exam.level_info else "",
        "variant": get_variant(exam.variant),
        **class_results(exam),
    }
    template = "exams/class_exam.html#results" if request.htmx else "exams/class_exam.html"
    return render(request, template, context)


def _print_context(exam: ClassExam, job: Job | None = None, **extra) -> dict:
    return {
        "class_exam": exam,
        "classroom": exam.classroom,
        "level_name": text(exam.level_info.name) if exam.level_info else "",
        "variant": get_variant(exam.variant),
        "job": job,
        **extra,
    }


@never_cache
@login_required
@require_POST
def class_certificates(request: HttpRequest, pk: int) -> HttpResponse:
    """Print the class's certificates: a job for the workers (``exams.tasks``), answered at once
    (202 with its progress to poll, or a redirect to its page without htmx); a print of the class
    already under way is followed instead of starting a second. Nobody passed yet: 409."""
    exam = _class_exam_for_teacher(request, pk)
    partial = "exams/certificates_print.html#print" if request.htmx else None
    if not Certificate.objects.filter(exam__class_exam=exam).exists():
        context = _print_context(
            exam, error=_("Nobody has passed this exam yet: there are no certificates to print.")
        )
        return render(request, partial or "exams/certificates_print.html", context, status=409)
    job = (
        Job.objects.pending()
        .filter(
            kind=PRINT_JOB,
            params__class_exam=exam.pk,
            created__gte=timezone.now() - PRINT_PATIENCE,
        )
        .first()
    )
    if job is None:
        job = Job.objects.create(
            kind=PRINT_JOB,
            owner=request.user,
            params={
                "class_exam": exam.pk,
                "language": get_language(),
                "base_url": request.build_absolute_uri("/"),
            },
        )
        job_id = str(job.pk)
        transaction.on_commit(lambda: print_certificates.delay(job_id))
    url = reverse("exams:class_certificates_job", args=[exam.pk, job.pk])
    if partial is None:
        return redirect(url)
    response = render(request, partial, _print_context(exam, job), status=202)
    response["Location"] = url
    return response


def _print_job(request: HttpRequest, pk: int, job_id: str) -> tuple[ClassExam, Job]:
    """The class exam ``pk`` (its teachers only) and its print job ``job_id``."""
    exam = _class_exam_for_teacher(request, pk)
    job = Job.objects.filter(pk=job_id, kind=PRINT_JOB, params__class_exam=exam.pk).first()
    if job is None:
        raise Http404(_("No such print."))
    return exam, job


@never_cache
@login_required
@require_GET
def class_certificates_job(request: HttpRequest, pk: int, job_id: str) -> HttpResponse:
    """A print of the class's certificates as the page follows it: its progress while a worker
    draws it (the partial polls itself), then the download. Any teacher of the class may follow
    and download it."""
    exam, job = _print_job(request, pk, job_id)
    pages = CertificatePrint.objects.filter(job=job).values_list("pages", flat=True).first()
    done = job.status == Job.Status.DONE
    context = _print_context(exam, job, pages=pages, ready=done and pages is not None)
    context["expired"] = done and pages is None
    template = (
        "exams/certificates_print.html#print" if request.htmx else "exams/certificates_print.html"
    )
    return render(request, template, context)


@never_cache
@login_required
@require_GET
def class_certificates_pdf(request: HttpRequest, pk: int, job_id: str) -> HttpResponse:
    """The finished print's PDF (404 while it is being drawn, and once it is swept away)."""
    exam, job = _print_job(request, pk, job_id)
    done = CertificatePrint.objects.filter(job=job).first()
    if done is None:
        raise Http404(_("This print is not ready, or it is no longer kept: print again."))
    return _pdf(bytes(done.pdf), f"certificates-class-exam-{exam.pk}.pdf")


@login_required
@require_POST
def class_exam_start(request: HttpRequest, pk: int) -> HttpResponse:
    exam = get_object_or_404(ClassExam, pk=pk)
    if not exam.classroom.is_student(request.user):
        if exam.classroom.is_teacher(request.user):
            raise PermissionDenied("students of the class only")
        raise Http404(_("No such exam."))
    sitting = Exam.objects.filter(user=request.user, class_exam=exam).first()
    if sitting is not None:
        return redirect(sitting)
    try:
        sitting = Exam.start(request.user, exam.variant, exam.level, class_exam=exam)
    except NameNeeded:
        return _ask_name(reverse("classroom:my_classes"))
    except Refused as exc:
        return render(
            request, "exams/refused.html", {"message": str(exc), "class_exam": exam}, status=400
        )
    return redirect(sitting)
