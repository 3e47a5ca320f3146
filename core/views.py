"""Home page, the free board, the language switch, background jobs and the health check."""

from __future__ import annotations

from django.conf import settings
from django.contrib.admin.views.decorators import staff_member_required
from django.core.exceptions import ValidationError
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from . import health
from .board import board_from_fen, board_view, play, start_board
from .forms import MoveForm
from .models import Job
from .signals import CHOSEN_LANGUAGE, preferences_chosen
from .tasks import probe
from .variants import VARIANTS, current_variant, get_variant, remember_variant


def home(request: HttpRequest) -> HttpResponse:
    chosen = request.GET.get("variant")
    if chosen is not None:
        get_variant(chosen)  # a friendly 404 for an unknown name
        remember_variant(request, chosen)
    variant = current_variant(request)
    board = board_view(start_board(variant), mode="free")
    return render(
        request,
        "core/home.html",
        {
            "variant": get_variant(variant),
            "board": board,
            "form": MoveForm(initial={"fen": board.fen}),
            "post_url": reverse("board_move", args=[variant]),
        },
    )


@require_http_methods(["GET", "POST"])
def board_move(request: HttpRequest, variant: str) -> HttpResponse:
    """The free "try a move" board: the engine checks the move and answers with the new board.

    htmx requests get just the board partial; a plain form post gets the whole page. A wrong move
    answers 400 with the board unchanged and the reason.
    """
    info = get_variant(variant)
    if request.method == "GET":
        return redirect(f"{reverse('home')}?variant={variant}")
    post_url = reverse("board_move", args=[variant])
    form = MoveForm(request.POST)
    status = 200
    message = ""
    if not form.is_valid():
        board = board_view(start_board(variant), mode="free")
        message = _("The move form was incomplete; the board was reset.")
        status = 400
    else:
        data = form.cleaned_data
        try:
            new_board, move, notation = play(
                data["fen"], variant, route=data["route"], text=data["move"]
            )
        except ValidationError as exc:
            status = 400
            message = " ".join(exc.messages)
            try:
                board = board_view(
                    board_from_fen(data["fen"], variant), mode="free", flipped=data["flipped"]
                )
            except ValidationError:
                board = board_view(start_board(variant), mode="free")
        else:
            board = board_view(
                new_board, mode="free", flipped=data["flipped"], last_move=move, notation=notation
            )
            message = _("Played %(move)s.") % {"move": notation}
            if board.outcome:
                message = f"{message} {board.outcome}"
            elif not board.moves:
                message = f"{message} {_('No legal move is left.')}"
    context = {
        "variant": info,
        "board": board,
        "form": MoveForm(initial={"fen": board.fen, "flipped": board.flipped}),
        "post_url": post_url,
        "message": message,
        "is_error": status == 400,
    }
    template = "core/home.html#board" if request.htmx else "core/home.html"
    return render(request, template, context, status=status)


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """Switch the interface language (and remember it in the profile of a signed-in user)."""
    language = request.POST.get("language", "")
    if language not in dict(settings.LANGUAGES):
        return HttpResponse(
            _("Unknown language."), status=400, content_type="text/plain; charset=utf-8"
        )
    next_url = request.POST.get("next") or request.headers.get("referer") or "/"
    if not url_has_allowed_host_and_scheme(next_url, {request.get_host()}, request.is_secure()):
        next_url = "/"
    response = redirect(next_url)
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE or 365 * 24 * 3600,
        samesite="Lax",
        secure=request.is_secure(),
    )
    translation.activate(language)
    request.session[CHOSEN_LANGUAGE] = language  # wins at log-in (core.signals)
    if request.user.is_authenticated:
        preferences_chosen.send(sender=None, user=request.user, language=language)
    return response


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 ``{"status": "ok"}`` or 503 ``{"status": "unavailable"}``; the details (database, broker,
    workers, pending jobs, reasons) only for staff or the bearer token (core.health)."""
    ok, body = health.report()
    if not health.may_see_details(request):
        body = {"status": body["status"]}
    return JsonResponse(body, status=200 if ok else 503)


@staff_member_required
@require_POST
def job_probe(request: HttpRequest) -> HttpResponse:
    """Start a probe job on the workers (staff): proves that background work gets done."""
    variant = request.POST.get("variant", "czech")
    if variant not in VARIANTS:
        return HttpResponse(
            _("Unknown variant."), status=400, content_type="text/plain; charset=utf-8"
        )
    if not request.session.session_key:
        request.session.save()
    job = Job.objects.create(
        kind="probe",
        owner=request.user,
        session_key=request.session.session_key,
        params={"variant": variant},
    )
    job_id = str(job.pk)
    transaction.on_commit(lambda: probe.delay(job_id))
    response = render(request, "core/job.html#job", {"job": job}, status=202)
    response["Location"] = reverse("job_detail", args=[job.pk])
    return response


@require_GET
def job_detail(request: HttpRequest, job_id: str) -> HttpResponse:
    """A job's state: JSON for scripts, a partial for htmx polling, else a page."""
    job = Job.objects.visible_to(request).filter(pk=job_id).first()
    if job is None:
        raise Http404(_("No such job."))
    if request.headers.get("accept", "").startswith("application/json"):
        return JsonResponse(
            {
                "id": str(job.pk),
                "kind": job.kind,
                "status": job.status,
                "progress": job.progress,
                "result": job.result,
                "error": job.error,
            }
        )
    template = "core/job.html#job" if request.htmx else "core/job.html"
    return render(request, template, {"job": job})


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return render(request, "404.html", {"variants": VARIANTS.values()}, status=404)


def server_error(request: HttpRequest) -> HttpResponse:
    return render(request, "500.html", status=500)
