"""What to review: the due list by variant, the motifs a player solves least often, the next item
of a review session (due cards first, then a new puzzle of the weakest motif) with the reason it
was chosen, and the teachers' summary of a class. Every function reads a bounded number of rows
with a fixed number of queries, however many cards there are."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, Min, Q, QuerySet
from django.http import Http404
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from classroom.models import PuzzleSet
from core.variants import VARIANTS
from lessons.course import Step, find_step_anywhere, get_course
from puzzles.models import Attempt
from puzzles.player import Player
from puzzles.stream import can_solve, next_puzzle, playable
from puzzles.trainer import goal_text
from puzzles.views_trainer import motif_label

from .learner import Learner
from .models import Card

#: how many due cards the review page lists (the counts cover them all)
LIST_LIMIT = 30
#: how many recent attempts the motif rates are read from
MOTIF_ATTEMPTS = 400
#: a motif needs this many attempts to be called weak
MOTIF_MIN_TRIES = 2
#: how far back the class summary reads the students' attempts
CLASS_DAYS = 90


# -- reasons ---------------------------------------------------------------------------------------


def days_ago(when: datetime | None, now: datetime | None = None) -> str:
    """When ``when`` was: today, yesterday, 3 days ago (localized)."""
    if when is None:
        return ""
    now = now or timezone.now()
    days = (timezone.localdate(now) - timezone.localdate(when)).days
    if days <= 0:
        return _("today")
    if days == 1:
        return _("yesterday")
    return ngettext("%(days)d day ago", "%(days)d days ago", days) % {"days": days}


def days_until(when: datetime, now: datetime | None = None) -> str:
    """When ``when`` comes: later today, tomorrow, in 3 days (localized)."""
    days = (timezone.localdate(when) - timezone.localdate(now or timezone.now())).days
    if days <= 0:
        return _("later today")
    if days == 1:
        return _("tomorrow")
    return ngettext("in %(days)d day", "in %(days)d days", days) % {"days": days}


def reason(card: Card, now: datetime | None = None) -> str:
    """Why the card is shown, in words."""
    when = days_ago(card.last_missed or card.last_review or card.created, now)
    if card.origin == Card.Origin.TEACHER and card.reps == 0:
        return _("Your teacher added it to your review (set “%(set)s”).") % {"set": card.note}
    if card.origin == Card.Origin.GAME and card.reps == 0:
        return _("A shot of your own game: find what was there.")
    if card.last_missed is not None or card.origin == Card.Origin.FAILED:
        if card.is_puzzle:
            return _("You missed this %(when)s.") % {"when": when}
        return _("You answered this step wrongly %(when)s.") % {"when": when}
    if card.origin == Card.Origin.HINT:
        return _("You needed a hint here %(when)s.") % {"when": when}
    if card.origin == Card.Origin.SLOW:
        return _("This took you a long time %(when)s.") % {"when": when}
    return _("Time to see it again: last time %(when)s.") % {"when": when}


# -- the due list ----------------------------------------------------------------------------------


@dataclass
class Item:
    """One card on the review page: its title, where it is played, why it is shown."""

    card: Card
    title: str
    url: str
    reason: str
    #: a puzzle's goal in words ("White to play and win one piece within 2 moves.")
    goal: str = ""
    #: which of the player's games a personal puzzle comes from (:func:`card_origin`)
    origin: str = ""


def step_of(card: Card) -> Step | None:
    try:
        course = get_course(card.course)
    except Http404:
        return None
    return course.step_by_slug(card.step) or find_step_anywhere(card.step)


def session_url(variant: str) -> str:
    return reverse("review:session", args=[variant])


def card_url(card: Card, step: Step | None = None) -> str:
    """Where the card is played: the trainer (a fresh go, then back to the session) or the step."""
    if card.is_puzzle:
        query = urlencode({"replay": 1, "then": session_url(card.variant)})
        return reverse("puzzles:solve", args=[card.variant, card.puzzle_id]) + "?" + query
    step = step or step_of(card)
    return step.get_absolute_url() if step is not None else ""


def card_origin(card: Card) -> str:
    """Which game a personal puzzle comes from, as its card says it ("From your game against
    Level 5 on 28 Nov."); empty for any other card."""
    puzzle = card.puzzle if card.is_puzzle else None
    if puzzle is None or puzzle.owner_id is None or not puzzle.origin:
        return ""
    return capfirst(puzzle.origin.rstrip(".")) + "."


def card_goal(card: Card) -> str:
    puzzle = card.puzzle if card.is_puzzle else None
    if puzzle is None:
        return ""
    return goal_text(puzzle.white_to_move, puzzle.goal, puzzle.horizon, puzzle.motifs)


def card_title(card: Card, step: Step | None = None) -> str:
    if card.is_puzzle:
        puzzle = card.puzzle
        title = puzzle.title if puzzle is not None and puzzle.title else ""
        return _("Puzzle #%(pk)s") % {"pk": card.puzzle_id} + (f": {title}" if title else "")
    step = step or step_of(card)
    return _("Lesson step: %(title)s") % {"title": step.title} if step else card.step


def due_counts(learner: Learner, now: datetime | None = None) -> dict[str, int]:
    """Due cards by variant (one query)."""
    rows = (
        learner.cards()
        .filter(due__lte=now or timezone.now())
        .values_list("variant")
        .annotate(n=Count("pk"))
        .order_by()
    )
    return {variant: n for variant, n in rows}


def upcoming(learner: Learner, now: datetime | None = None) -> dict[str, Any]:
    """How many cards the learner has in all, and when the next one not due yet comes back (one
    query)."""
    now = now or timezone.now()
    found = learner.cards().aggregate(total=Count("pk"), next=Min("due", filter=Q(due__gt=now)))
    found["when"] = days_until(found["next"], now) if found["next"] else ""
    return found


def due_items(
    learner: Learner, variant: str | None = None, now: datetime | None = None
) -> list[Item]:
    """The first :data:`LIST_LIMIT` due cards, oldest due first (one query with their puzzles)."""
    now = now or timezone.now()
    cards = learner.cards().filter(due__lte=now)
    if variant:
        cards = cards.filter(variant=variant)
    rows = cards.select_related("puzzle").only(
        *[f.name for f in Card._meta.concrete_fields],
        *(
            f"puzzle__{name}"
            for name in ("title", "variant", "fen", "goal", "horizon", "motifs", "owner", "origin")
        ),
    )
    items = []
    for card in rows.order_by("due", "pk")[:LIST_LIMIT]:
        step = None if card.is_puzzle else step_of(card)
        title, url = card_title(card, step), card_url(card, step)
        items.append(Item(card, title, url, reason(card, now), card_goal(card), card_origin(card)))
    return items


# -- the motifs a player misses --------------------------------------------------------------------


@dataclass
class MotifRate:
    motif: str
    tries: int
    clean: int

    @property
    def rate(self) -> float:
        return self.clean / self.tries if self.tries else 0.0

    @property
    def percent(self) -> int:
        return round(100 * self.rate)

    @property
    def label(self) -> str:
        return str(motif_label(self.motif))


def motif_rates(rows: Iterable[tuple[Any, ...]]) -> list[MotifRate]:
    """Success rates by motif from ``(motifs, solved, failed, solution_shown, hints)`` rows
    (a clean solve: no mistake, no hint, solution not shown), weakest first."""
    tries: dict[str, int] = defaultdict(int)
    clean: dict[str, int] = defaultdict(int)
    for motifs, solved, failed, shown, hints in rows:
        ok = solved and not failed and not shown and not hints
        for name in {str(m).split(":")[0] for m in motifs or []}:
            tries[name] += 1
            clean[name] += ok
    rates = [MotifRate(m, tries[m], clean[m]) for m in tries]
    return sorted(rates, key=lambda r: (r.rate, -r.tries, r.motif))


def weakest_motifs(player: Player, variant: str, limit: int = 3) -> list[MotifRate]:
    """The motifs of ``variant`` the player solves least often cleanly (with at least
    :data:`MOTIF_MIN_TRIES` attempts; all of them missed ones left out when every rate is 1)."""
    rows = (
        Attempt.objects.of(player)
        .filter(puzzle__variant=variant)
        .filter(Q(finished_at__isnull=False) | Q(failed=True))
        .order_by("-pk")
        .values_list("puzzle__motifs", "solved", "failed", "solution_shown", "hints")[
            :MOTIF_ATTEMPTS
        ]
    )
    rates = [r for r in motif_rates(rows) if r.tries >= MOTIF_MIN_TRIES and r.rate < 1.0]
    return rates[:limit]


# -- a review session ------------------------------------------------------------------------------


@dataclass
class Next:
    """What the session serves next: a card, or a new puzzle of a weak motif."""

    url: str
    title: str
    reason: str
    card: Card | None = None
    motif: MotifRate | None = None
    goal: str = ""
    origin: str = ""


def next_item(
    request: Any, variant: str, *, skip: set[int] | None = None, now: datetime | None = None
) -> Next | None:
    """Due cards of ``variant`` first (oldest due first; ``skip``'s cards and a puzzle the trainer
    can no longer serve are left out), then a new puzzle of the player's weakest motif; None
    when there is neither."""
    now = now or timezone.now()
    learner = Learner.of(request)
    cards = learner.cards().filter(variant=variant, due__lte=now).exclude(pk__in=skip or ())
    for card in cards.order_by("due", "pk")[:LIST_LIMIT]:
        if card.is_puzzle:
            puzzle = playable(variant, card.puzzle_id)
            if puzzle is None or not can_solve(request.user, puzzle):
                continue
            card.puzzle = puzzle
            return Next(
                card_url(card),
                card_title(card),
                reason(card, now),
                card=card,
                goal=card_goal(card),
                origin=card_origin(card),
            )
        step = step_of(card)
        if step is not None:
            return Next(card_url(card, step), card_title(card, step), reason(card, now), card=card)
    player = Player.of(request)
    for weak in weakest_motifs(player, variant):
        puzzle = next_puzzle(player, variant, motif=weak.motif)
        # new puzzles only (the stream starts again once every puzzle of the motif was tried)
        if puzzle is not None and not Attempt.objects.of(player).filter(puzzle=puzzle).exists():
            url = reverse("puzzles:solve", args=[variant, puzzle.pk])
            url += "?" + urlencode({"then": session_url(variant)})
            why = _("Your weakest motif: %(motif)s (%(percent)s %% solved cleanly).") % {
                "motif": weak.label,
                "percent": weak.percent,
            }
            title = _("A new puzzle: %(motif)s") % {"motif": weak.label}
            goal = goal_text(puzzle.white_to_move, puzzle.goal, puzzle.horizon, puzzle.motifs)
            return Next(url, title, why, motif=weak, goal=goal)
    return None


# -- the teachers' view ----------------------------------------------------------------------------


@dataclass
class StudentReview:
    student: Any
    due: int
    weakest: list[MotifRate]


def class_summary(students: list[Any], now: datetime | None = None) -> list[StudentReview]:
    """Each student's due cards and two weakest motifs: two queries for the whole class."""
    now = now or timezone.now()
    ids = [s.pk for s in students]
    due = dict(
        Card.objects.filter(user_id__in=ids, due__lte=now)
        .values_list("user_id")
        .annotate(n=Count("pk"))
        .order_by()
    )
    rows: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for user_id, *row in (
        Attempt.objects.filter(user_id__in=ids, started_at__gte=now - timedelta(days=CLASS_DAYS))
        .filter(Q(finished_at__isnull=False) | Q(failed=True))
        .values_list("user_id", "puzzle__motifs", "solved", "failed", "solution_shown", "hints")
    ):
        rows[user_id].append(tuple(row))
    summary = []
    for student in students:
        rates = [
            r
            for r in motif_rates(rows.get(student.pk, []))
            if r.tries >= MOTIF_MIN_TRIES and r.rate < 1.0
        ]
        summary.append(StudentReview(student, due.get(student.pk, 0), rates[:2]))
    return summary


def class_sets(classroom: Any) -> QuerySet:
    """The sets a class's review may be given: those assigned to the class."""
    return (
        PuzzleSet.objects.filter(assignments__classroom=classroom)
        .only("pk", "title")
        .order_by("title", "pk")
        .distinct()
    )


def variant_rows(counts: dict[str, int], player: Player) -> list[tuple[Any, int, bool]]:
    """(variant info, due count, whether the player has a weak motif to practise in it) for every
    variant, in the site's order: a variant with nothing due offers practice only when
    :func:`weakest_motifs` has something (a new learner is told to solve puzzles first)."""
    return [
        (info, counts.get(name, 0), bool(weakest_motifs(player, name, limit=1)))
        for name, info in VARIANTS.items()
    ]
