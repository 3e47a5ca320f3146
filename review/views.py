"""Review pages: what is due (per variant, with the reasons), a review session (one item at a
time: the trainer or the lesson step, then back here), the reminder switch, and a teacher adding
a set to a class's review. Views parse input, call one function and render one template."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from classroom.views.access import class_for
from core.variants import current_variant, get_variant
from puzzles.models import Verdict
from puzzles.player import Player

from . import queue
from .context_processors import STEP_KEY
from .forms import AddSetForm, ReminderForm
from .learner import Learner
from .models import Card, ReminderSetting
from .queue import class_sets

#: the session's list of cards skipped in a review session (seen again in the next one)
SKIPPED = "review_skipped"


@never_cache
@require_GET
def index(request: HttpRequest) -> HttpResponse:
    """What is due, by variant, and the first cards of the list with their reasons."""
    learner = Learner.of(request)
    variant = current_variant(request)
    counts = queue.due_counts(learner)
    player = Player.of(request)
    reminder = None
    if request.user.is_authenticated:
        setting = ReminderSetting.objects.filter(user=request.user).first()
        reminder = ReminderForm(initial={"daily_email": bool(setting and setting.daily_email)})
    return render(
        request,
        "review/index.html",
        {
            "variant": get_variant(variant),
            "variants": queue.variant_rows(counts, player),
            "total": sum(counts.values()),
            "items": queue.due_items(learner),
            "upcoming": queue.upcoming(learner),
            "weakest": queue.weakest_motifs(player, variant),
            "reminder": reminder,
        },
    )


@never_cache
@require_GET
def session(request: HttpRequest, variant: str) -> HttpResponse:
    """The next item of a review session of ``variant`` and why it was chosen."""
    info = get_variant(variant)
    skipped = set(request.session.get(SKIPPED, []))
    nxt = queue.next_item(request, variant, skip=skipped)
    if nxt is not None and nxt.card is not None and not nxt.card.is_puzzle:
        # the step's page offers the way back here (review.context_processors.review_back)
        request.session[STEP_KEY] = [nxt.card.course, nxt.card.step, request.path]
    counts = queue.due_counts(Learner.of(request))
    return render(
        request,
        "review/session.html",
        {"variant": info, "next": nxt, "due": counts.get(variant, 0), "skipped": len(skipped)},
    )


@require_POST
def skip(request: HttpRequest, variant: str) -> HttpResponse:
    """Leave a card for the next session (``card``: one of the learner's cards); a bad or foreign
    id is refused with 400."""
    get_variant(variant)
    raw = request.POST.get("card", "")
    if request.POST.get("reset"):
        request.session.pop(SKIPPED, None)
        return redirect("review:session", variant=variant)
    pk = int(raw) if raw.isdecimal() and len(raw) < 12 else None
    if pk is None or not Learner.of(request).cards().filter(pk=pk).exists():
        return HttpResponse(
            _("There is no such card in your review."),
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    skipped = [i for i in request.session.get(SKIPPED, []) if isinstance(i, int)][-200:]
    request.session[SKIPPED] = [*skipped, pk]
    return redirect("review:session", variant=variant)


@login_required
@require_POST
def reminders(request: HttpRequest) -> HttpResponse:
    form = ReminderForm(request.POST)
    form.is_valid()  # a checkbox: anything but "on" is off
    on = bool(form.cleaned_data.get("daily_email"))
    ReminderSetting.objects.update_or_create(user=request.user, defaults={"daily_email": on})
    if on and not request.user.email:
        messages.warning(
            request, _("Reminders are on, but your account has no e-mail address yet.")
        )
    else:
        messages.success(
            request,
            _("You will get an e-mail on days when something is due.")
            if on
            else _("No more reminder e-mails."),
        )
    return redirect("review:index")


@login_required
@require_POST
def class_add_set(request: HttpRequest, pk: int) -> HttpResponse:
    """A teacher of the class adds a set assigned to it to every student's review (the set's
    puzzles are the students' to play: the trainer lets them through the assignment)."""
    classroom = class_for(request, pk)
    form = AddSetForm(request.POST, sets=class_sets(classroom))
    if not form.is_valid():
        return HttpResponse(
            _("Choose one of your sets."), status=400, content_type="text/plain; charset=utf-8"
        )
    puzzle_set = form.cleaned_data["puzzle_set"]
    students = list(classroom.students())
    # proven puzzles only: the trainer serves no other
    puzzles = [p for p in puzzle_set.ordered_puzzles() if p.verdict == Verdict.UNIQUE]
    added = Card.objects.add_set(students, puzzles, note=puzzle_set.title)
    for student in students:
        Learner(student, None).changed()
    messages.success(
        request,
        ngettext(
            "%(set)s is in the review of %(class)s: %(count)s new card.",
            "%(set)s is in the review of %(class)s: %(count)s new cards.",
            added,
        )
        % {"set": puzzle_set.title, "class": classroom.name, "count": added},
    )
    return redirect("classroom:progress", pk=classroom.pk)
