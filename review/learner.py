"""Whose cards: an account's rows, or a visitor's (the ids kept in the session, handed over to the
account at login or sign-up through ``core.progress``), and the count of due cards the
navigation shows (kept in the cache until a card changes or the next one falls due)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.db.models import Count, Min, Q, QuerySet
from django.utils import timezone

from core import progress

from .models import Card

log = logging.getLogger(__name__)

#: the session's progress key (``core.progress``)
PROGRESS_KEY = "review"
#: how many card ids a visitor's session keeps
VISITOR_CARDS = 300
#: how long the navigation's count is kept at most (seconds)
COUNT_SECONDS = 600


@dataclass(eq=False)
class Learner:
    """An account (``user``) or a visitor (``user`` None) with the ``session``."""

    user: Any
    session: Any

    @classmethod
    def of(cls, request) -> Learner:
        user = getattr(request, "user", None)
        return cls(user if user is not None and user.is_authenticated else None, request.session)

    @property
    def is_account(self) -> bool:
        return self.user is not None

    def card_ids(self) -> list[int]:
        ids = progress.session_data(self, PROGRESS_KEY).get("cards", [])
        return [i for i in ids if isinstance(i, int)]

    def cards(self) -> QuerySet[Card]:
        if self.is_account:
            return Card.objects.filter(user=self.user)
        ids = self.card_ids()
        if not ids:
            return Card.objects.none()
        return Card.objects.filter(user__isnull=True, pk__in=ids)

    def remember(self, card: Card) -> None:
        if not self.is_account:
            ids = [i for i in self.card_ids() if i != card.pk][-VISITOR_CARDS + 1 :]
            progress.update_session_data(self, PROGRESS_KEY, {"cards": [*ids, card.pk]})

    def changed(self) -> None:
        """A card of this learner changed: the navigation counts again."""
        if self.is_account:
            forget_count(self.user.pk)

    # -- the cards of one puzzle or step -----------------------------------------------------------

    def puzzle_card(self, puzzle_id: int) -> Card | None:
        return self.cards().filter(puzzle_id=puzzle_id).first()

    def step_card(self, course: str, step: str) -> Card | None:
        return self.cards().filter(kind=Card.Kind.STEP, course=course, step=step).first()

    def add(self, card: Card) -> Card:
        """Save a new card of this learner (an account's twin, made meanwhile in another tab,
        is returned instead)."""
        card.user = self.user
        if self.is_account:
            lookup = (
                {"puzzle_id": card.puzzle_id}
                if card.is_puzzle
                else {"kind": Card.Kind.STEP, "course": card.course, "step": card.step}
            )
            values = {
                f.attname: getattr(card, f.attname)
                for f in Card._meta.concrete_fields
                if f.attname not in ("id", "user_id", *lookup)
            }
            card, _created = Card.objects.get_or_create(user=self.user, **lookup, defaults=values)
        else:
            card.save()
            self.remember(card)
        self.changed()
        return card

    # -- the navigation's count ----------------------------------------------------------------

    def due_count(self, now: datetime | None = None) -> int:
        """How many cards are due: one query, or none when the count is kept (an account's, in
        the cache until a card changes or the next card falls due) or nothing was ever kept (a
        visitor without cards)."""
        now = now or timezone.now()
        if not self.is_account:
            return self.cards().filter(due__lte=now).count() if self.card_ids() else 0
        key = count_key(self.user.pk)
        kept = _cached(cache.get, key)
        if kept is not None and (kept[1] is None or kept[1] > now.timestamp()):
            return int(kept[0])
        found = self.cards().aggregate(
            count=Count("pk", filter=Q(due__lte=now)), upcoming=Min("due", filter=Q(due__gt=now))
        )
        count = found["count"]
        upcoming = found["upcoming"].timestamp() if found["upcoming"] else None
        _cached(cache.set, key, (count, upcoming), COUNT_SECONDS)
        return count


def count_key(user_id: int) -> str:
    return f"review:due:{user_id}"


def forget_count(user_id: int) -> None:
    _cached(cache.delete, count_key(user_id))


def _cached(operation: Callable[..., Any], *args: Any) -> Any:
    """A cache operation, or None when the cache server is down: the count is then read from
    the database on every page (as for a visitor), never an error page."""
    try:
        return operation(*args)
    except Exception as exc:
        log.warning("review count: cache unavailable (%s)", exc)
        return None


@progress.handover(PROGRESS_KEY)
def move_cards_to_account(user, data: dict[str, Any]) -> None:
    """A visitor signed up or logged in: their cards become the account's. Where the account
    already has a card for the same puzzle or step, the one due sooner is kept."""
    ids = [i for i in data.get("cards", []) if isinstance(i, int)]
    if not ids:
        return
    visitor = list(Card.objects.filter(pk__in=ids, user__isnull=True))
    mine = Card.objects.filter(user=user)
    have_puzzles = {c.puzzle_id: c for c in mine.filter(kind=Card.Kind.PUZZLE)}
    have_steps = {(c.course, c.step): c for c in mine.filter(kind=Card.Kind.STEP)}
    drop: list[int] = []
    take: list[int] = []
    for card in visitor:
        twin = (
            have_puzzles.get(card.puzzle_id)
            if card.is_puzzle
            else have_steps.get((card.course, card.step))
        )
        if twin is None:
            take.append(card.pk)
        elif card.due < twin.due:  # the visitor's is due sooner: it replaces the account's
            drop.append(twin.pk)
            take.append(card.pk)
        else:
            drop.append(card.pk)
    Card.objects.filter(pk__in=drop).delete()
    Card.objects.filter(pk__in=take).update(user=user)
    forget_count(user.pk)
