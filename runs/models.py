"""A run: a puzzle streak or a puzzle storm, played by an account or a visitor.

The server keeps the whole run (:class:`Run`): its puzzles, chosen at the start (rising in
difficulty, none twice), the one being played (a ``puzzles.Attempt`` of source ``run``, judged by
the trainer's own judge), the score, the combo and, for a storm, the clock: ``deadline`` is when
the storm ends, moved by the bonuses and the penalties, so that a reload changes nothing and a
move is judged by when the server received it (``now``, which the tests give). Every change
(:meth:`Run.start`, :meth:`Run.answer`, :meth:`Run.skip`, :meth:`Run.finish`) is a method that
locks the row (``select_for_update``) in a transaction; an answer names the puzzle it answers
(``at``), so a second tab's answer to a puzzle already left is refused (:class:`Stale`), never
scored twice.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core import progress
from core.owners import OwnedQuerySet
from core.variants import VARIANT_CHOICES
from live import push
from puzzles.daily import todays_ids
from puzzles.models import Attempt, Puzzle
from puzzles.player import Player
from puzzles.stream import pool_rows, served_puzzle
from puzzles.trainer import Outcome, Result

from . import rules

#: the session's progress key of the runs (``core.progress``: a visitor's runs go to the account)
PROGRESS_KEY = "runs"


class Stale(Exception):
    """The answer is to a puzzle the run has left (another tab, a double submit)."""


class Kind(models.TextChoices):
    STREAK = "streak", _("Puzzle streak")
    STORM = "storm", _("Puzzle storm")


@dataclass
class Answer:
    """What one action on a run came to: the trainer's :class:`~puzzles.trainer.Result` of the
    move (if one was played), the seconds gained or lost, and whether the run went on to its
    next puzzle or ended."""

    result: Result
    bonus: int = 0
    penalty: int = 0
    combo: int = 0
    advanced: bool = False
    finished: bool = False
    events: list[str] = field(default_factory=list)

    @property
    def status(self) -> int:
        return self.result.status


class RaceQuerySet(models.QuerySet["Race"]):
    pass


class Race(models.Model):
    """A storm the teacher starts for the whole class in a live lesson: each student plays their
    own storm (a :class:`Run` with this race), the teacher's screen shows the leaderboard, and
    the results stay with the lesson."""

    lesson = models.ForeignKey(
        "live.LiveSession", on_delete=models.CASCADE, related_name="races", verbose_name=_("lesson")
    )
    variant = models.CharField(_("variant"), max_length=20, choices=VARIANT_CHOICES)
    #: the same puzzles for every student of the race
    puzzles = models.JSONField(_("puzzles"), default=list)
    started_at = models.DateTimeField(_("started at"), default=timezone.now)
    #: when the race's storms end (each student's own clock may gain or lose time)
    ends_at = models.DateTimeField(_("ends at"))

    objects = RaceQuerySet.as_manager()

    class Meta:
        ordering = ["-started_at", "-pk"]
        verbose_name = _("class race")
        verbose_name_plural = _("class races")

    def __str__(self) -> str:
        return f"{self.lesson} · {self.started_at:%Y-%m-%d %H:%M}"

    @classmethod
    def start(cls, lesson: Any, *, now: datetime | None = None, rng: random.Random | None = None):
        """A storm for the whole class of the running ``lesson`` (a ``live.LiveSession``), in
        the class's variant, the same puzzles for every student; a race of the lesson still
        running is ended first. None when there is no puzzle to play; ``ValidationError`` when
        the lesson has ended."""
        now = now or timezone.now()
        puzzles = Run.choose(lesson.variant, Kind.STORM, rng)
        if not puzzles:
            return None
        with transaction.atomic():
            locked = type(lesson).objects.select_for_update().get(pk=lesson.pk)
            if locked.ended is not None:
                raise ValidationError(gettext("This live lesson has ended."), code="ended")
            cls.objects.filter(lesson=locked, ends_at__gt=now).update(ends_at=now)
            race = cls.objects.create(
                lesson=locked,
                variant=lesson.variant,
                puzzles=puzzles,
                started_at=now,
                ends_at=now + timedelta(seconds=rules.STORM_SECONDS),
            )
            pk = lesson.pk
            transaction.on_commit(lambda: push.race(pk))
        return race

    def is_running(self, now: datetime | None = None) -> bool:
        """Whether students may still join (a student's own clock may run on past ``ends_at``
        by the bonuses they earned)."""
        return (now or timezone.now()) < self.ends_at

    def join(self, player: Player, *, now: datetime | None = None) -> Run | None:
        """The student's storm in this race: the one they started (a reload, a second tab), or
        a new one on the race's puzzles that ends with the race (None once it is over)."""
        now = now or timezone.now()
        with transaction.atomic():
            Race.objects.select_for_update().get(pk=self.pk)  # one storm a student
            found = self.runs.filter(user=player.user).first()
            if found is not None:
                return found
            if not self.is_running(now):
                return None
            run = Run.start(
                player, Kind.STORM, self.variant, now=now, puzzles=self.puzzles, race=self
            )
            pk = self.lesson_id
            transaction.on_commit(lambda: push.race(pk, teachers_only=True))
        return run

    def leaderboard(self) -> list[Run]:
        """The race's runs, best first (score, then fewer mistakes, then who started first)."""
        return list(
            self.runs.select_related("user").order_by("-score", "mistakes", "started_at", "pk")
        )


class RunQuerySet(OwnedQuerySet["Run"]):
    def bests(self, player: Player, kind: str, variant: str, now: datetime) -> dict[str, int]:
        """The player's best score today, this week (from Monday) and of all time, finished runs
        only (0 where none was played)."""
        today = timezone.localtime(now).replace(hour=0, minute=0, second=0, microsecond=0)
        monday = today - timedelta(days=today.weekday())
        rows = self.of(player).filter(kind=kind, variant=variant, finished_at__isnull=False)
        found = rows.aggregate(
            today=Max("score", filter=models.Q(finished_at__gte=today)),
            week=Max("score", filter=models.Q(finished_at__gte=monday)),
            ever=Max("score"),
        )
        return {key: value or 0 for key, value in found.items()}

    def high_scores(
        self, kind: str, variant: str, *, users: Any = None, limit: int = 10
    ) -> list[dict[str, Any]]:
        """The best score of each account in ``kind`` and ``variant`` (of ``users`` only, when
        given: a class), best first."""
        rows = self.filter(
            kind=kind, variant=variant, finished_at__isnull=False, user__isnull=False
        )
        if users is not None:
            rows = rows.filter(user__in=users)
        return list(
            rows.values("user_id", "user__username", "user__first_name", "user__last_name")
            .annotate(best=Max("score"))
            .order_by("-best", "user_id")[:limit]
        )


class Run(models.Model):
    """One streak or storm (see the module's docstring)."""

    kind = models.CharField(_("kind"), max_length=10, choices=Kind)
    variant = models.CharField(_("variant"), max_length=20, choices=VARIANT_CHOICES)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="puzzle_runs",
        verbose_name=_("user"),
    )
    #: a visitor's run: their token (the trainer's, ``Player.visitor_token``)
    visitor = models.CharField(_("visitor"), max_length=64, blank=True, db_index=True)
    race = models.ForeignKey(
        Race,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="runs",
        verbose_name=_("class race"),
    )
    started_at = models.DateTimeField(_("started at"), default=timezone.now)
    #: a storm's end, as the bonuses and penalties moved it (none for a streak)
    deadline = models.DateTimeField(_("deadline"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True, db_index=True)
    #: the run's puzzles in order (ids), chosen at the start
    puzzles = models.JSONField(_("puzzles"), default=list)
    #: the puzzle being played: its place in ``puzzles`` and its attempt
    index = models.PositiveIntegerField(_("puzzle number"), default=0)
    attempt = models.ForeignKey(
        Attempt,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("attempt"),
    )
    score = models.PositiveIntegerField(_("puzzles solved"), default=0)
    combo = models.PositiveIntegerField(_("combo"), default=0)
    best_combo = models.PositiveIntegerField(_("best combo"), default=0)
    mistakes = models.PositiveIntegerField(_("mistakes"), default=0)
    bonus_seconds = models.PositiveIntegerField(_("seconds gained"), default=0)
    #: the puzzles missed (a wrong move), to replay after the run
    missed = models.JSONField(_("missed puzzles"), default=list, blank=True)
    #: a streak's skipped puzzle (one skip a streak)
    skipped = models.PositiveIntegerField(_("skipped puzzle"), null=True, blank=True)

    objects = RunQuerySet.as_manager()

    class Meta:
        ordering = ["-started_at", "-pk"]
        indexes = [
            models.Index(fields=["kind", "variant", "score"]),
            models.Index(fields=["user", "kind", "variant"]),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["race", "user"],
                condition=models.Q(race__isnull=False),
                name="runs_one_storm_a_student_a_race",
            )
        ]
        verbose_name = _("puzzle run")
        verbose_name_plural = _("puzzle runs")

    def __str__(self) -> str:
        who = self.user or gettext("visitor")
        return f"{self.get_kind_display()} · {who} · {self.score}"

    # -- starting -----------------------------------------------------------------------------

    @staticmethod
    def choose(variant: str, kind: str, rng: random.Random | None = None) -> list[int]:
        """The puzzles of a new run in ``variant``: from the site's pool, rising in difficulty
        (the puzzle's rating, else its difficulty), never today's daily puzzle, none twice."""
        daily = todays_ids()
        rows = [
            (pk, rating if rating is not None else level)
            for pk, _goal, _motifs, level, rating in pool_rows(variant)
            if pk not in daily
        ]
        return rules.rising(rows, rules.RUN_LENGTH[kind], rng or random.Random())

    @classmethod
    def start(
        cls,
        player: Player,
        kind: str,
        variant: str,
        *,
        now: datetime | None = None,
        puzzles: list[int] | None = None,
        race: Race | None = None,
        rng: random.Random | None = None,
    ) -> Run | None:
        """A new run of ``kind`` for ``player``, on its first puzzle (None: no puzzle to play).
        A race gives its own ``puzzles`` and clock."""
        now = now or timezone.now()
        chosen = puzzles if puzzles is not None else cls.choose(variant, kind, rng)
        if not chosen:
            return None
        run = cls(
            kind=kind,
            variant=variant,
            user=player.user,
            visitor=player.visitor_token(make=True),
            race=race,
            started_at=now,
            puzzles=chosen,
        )
        if kind == Kind.STORM:
            run.deadline = (
                race.ends_at if race is not None else now + timedelta(seconds=rules.STORM_SECONDS)
            )
        # the account takes the visitor's runs at sign-up
        kept = progress.session_data(player, PROGRESS_KEY).get("visitor")
        if not player.is_account and kept != run.visitor:
            progress.update_session_data(player, PROGRESS_KEY, {"visitor": run.visitor})
        with transaction.atomic():
            first = run._open(player, 0)
            if first is None:
                return None
            run.save()
        return run

    def _open(self, player: Player, index: int) -> Attempt | None:
        """Go to puzzle number ``index`` (skipping any that left the pool): its new attempt,
        or None when the run has no puzzle left."""
        while index < len(self.puzzles):
            puzzle = served_puzzle(int(self.puzzles[index]))
            if puzzle is not None and puzzle.servable and not puzzle.for_exams:
                self.index = index
                self.attempt = Attempt.for_run(player, puzzle)
                return self.attempt
            index += 1
        self.index = index
        self.attempt = None
        return None

    # -- state --------------------------------------------------------------------------------

    @property
    def is_finished(self) -> bool:
        return self.finished_at is not None

    @property
    def is_storm(self) -> bool:
        return self.kind == Kind.STORM

    def remaining(self, now: datetime) -> float | None:
        """A storm's seconds left at ``now`` (never below 0); None for a streak."""
        if self.deadline is None:
            return None
        return max(0.0, (self.deadline - now).total_seconds())

    def skips_left(self) -> int:
        if self.kind != Kind.STREAK or self.is_finished:
            return 0
        return 0 if self.skipped is not None else rules.STREAK_SKIPS

    def current_attempt(self) -> Attempt | None:
        """The attempt being played, with its puzzle as the trainer serves it (read once: an
        answer keeps the attempt it played or opened for the page it renders)."""
        if self.attempt_id is None or self.is_finished:
            return None
        kept = self._state.fields_cache.get("attempt")
        if kept is not None and kept.pk == self.attempt_id and "puzzle" in kept._state.fields_cache:
            return kept
        attempt = Attempt.objects.filter(pk=self.attempt_id).first()
        if attempt is None:
            return None
        puzzle = served_puzzle(attempt.puzzle_id) or Puzzle.objects.get(pk=attempt.puzzle_id)
        attempt.puzzle = puzzle
        self.attempt = attempt
        return attempt

    def missed_puzzles(self) -> list[Puzzle]:
        """The puzzles missed (and a streak's skipped one), in the run's order, to replay."""
        ids = [int(pk) for pk in self.missed]
        if self.skipped is not None:
            ids.append(self.skipped)
        found = Puzzle.objects.only("pk", "variant", "difficulty").in_bulk(ids)
        return [found[pk] for pk in dict.fromkeys(ids) if pk in found]

    # -- changes ------------------------------------------------------------------------------

    def _locked(self) -> Run:
        """This run's row, locked until the transaction ends (read again: another tab may have
        changed it)."""
        return Run.objects.select_for_update().get(pk=self.pk)

    def _finish(self, now: datetime) -> None:
        end = now if self.deadline is None else min(now, self.deadline)
        self.finished_at = max(end, self.started_at)
        self.attempt = None

    def expire(self, now: datetime | None = None) -> bool:
        """End a storm whose time is up (a page shown after the deadline, a late answer):
        whether it ended now."""
        now = now or timezone.now()
        if self.is_finished or self.deadline is None or now < self.deadline:
            return False
        with transaction.atomic():
            run = self._locked()
            if run.is_finished:
                self._copy(run)
                return False
            run._finish(now)
            run.save(update_fields=["finished_at", "attempt"])
            self._copy(run)
        return True

    def finish(self, now: datetime | None = None) -> None:
        """The player ends the run (or the page, when the storm's clock reaches zero)."""
        now = now or timezone.now()
        with transaction.atomic():
            run = self._locked()
            if not run.is_finished:
                run._finish(now)
                run.save(update_fields=["finished_at", "attempt"])
            self._copy(run)

    def answer(
        self,
        player: Player,
        *,
        at: int,
        route: str = "",
        text: str = "",
        now: datetime | None = None,
    ) -> Answer:
        """Judge a move on puzzle number ``at`` (a clicked route so far, or typed notation) by
        the server's ``now`` against the storm's deadline. An accepted move adds to the combo
        (a storm's clock gains :func:`~runs.rules.combo_bonus`); a solved puzzle scores one and
        the next puzzle comes in the same answer; a legal wrong move ends a streak, and in a
        storm costs :data:`~runs.rules.WRONG_PENALTY` seconds, breaks the combo and goes on. An
        illegal or unreadable move changes nothing (400). Raises :class:`Stale` when the run has
        left puzzle ``at``."""
        now = now or timezone.now()
        with transaction.atomic():
            run = self._locked()
            try:
                answer = run._answer(player, at, route, text, now)
            finally:
                self._copy(run)
            if run.race_id is not None and (answer.advanced or answer.finished or answer.combo):
                self._tell_race()
            return answer

    def _tell_race(self) -> None:
        """The race's leaderboard changed: the teachers' pages fetch it (after commit)."""
        lesson = Race.objects.filter(pk=self.race_id).values_list("lesson_id", flat=True).first()
        if lesson is not None:
            transaction.on_commit(lambda: push.race(lesson, teachers_only=True))

    def _answer(self, player: Player, at: int, route: str, text: str, now: datetime) -> Answer:
        if self.is_finished:
            return Answer(Result(Outcome.FINISHED, gettext("This run is over.")), finished=True)
        if self.deadline is not None and now >= self.deadline:
            self._finish(now)
            self.save(update_fields=["finished_at", "attempt"])
            return Answer(
                Result(Outcome.FINISHED, gettext("Time is up: that move came too late.")),
                finished=True,
            )
        if at != self.index:
            raise Stale(self.pk)
        attempt = self.current_attempt()
        if attempt is None:  # the puzzle left the pool: on to the next one
            return self._next(player, Answer(Result(Outcome.RETRY, "")), now)
        result = attempt.play(player, route=route, text=text)
        answer = Answer(result)
        if result.kind in (Outcome.RIGHT, Outcome.SOLVED):
            self.combo += 1
            self.best_combo = max(self.best_combo, self.combo)
            answer.combo = self.combo
            if self.is_storm:
                answer.bonus = rules.combo_bonus(self.combo)
                if answer.bonus:
                    assert self.deadline is not None
                    self.deadline += timedelta(seconds=answer.bonus)
                    self.bonus_seconds += answer.bonus
        if result.kind == Outcome.RIGHT:
            self.save(update_fields=["combo", "best_combo", "deadline", "bonus_seconds"])
            return answer
        if result.kind == Outcome.SOLVED:
            self.score += 1
            return self._next(player, answer, now)
        if result.kind == Outcome.WRONG:
            self.mistakes += 1
            self.combo = 0
            self.missed = [*self.missed, attempt.puzzle_id]
            if not self.is_storm:
                self._finish(now)
                answer.finished = True
                self.save()
                return answer
            assert self.deadline is not None
            answer.penalty = rules.WRONG_PENALTY
            self.deadline -= timedelta(seconds=rules.WRONG_PENALTY)
            if now >= self.deadline:
                self._finish(now)
                answer.finished = True
                self.save()
                return answer
            return self._next(player, answer, now)
        return answer  # a capture going on, or refused input: nothing changes

    def _next(self, player: Player, answer: Answer, now: datetime) -> Answer:
        answer.advanced = True
        if self._open(player, self.index + 1) is None:
            self._finish(now)
            answer.finished = True
        self.save()
        return answer

    def skip(self, player: Player, *, at: int, now: datetime | None = None) -> bool:
        """Skip puzzle number ``at`` of a streak (once a streak): whether it was skipped. The
        streak goes on; the skipped puzzle is shown after the run to replay."""
        now = now or timezone.now()
        with transaction.atomic():
            run = self._locked()
            try:
                if run.skips_left() <= 0:
                    return False
                if at != run.index:
                    raise Stale(run.pk)
                run.skipped = run.puzzles[run.index]
                run._next(player, Answer(Result(Outcome.RETRY, "")), now)
                return True
            finally:
                self._copy(run)

    def _copy(self, other: Run) -> None:
        for f in self._meta.concrete_fields:
            setattr(self, f.attname, getattr(other, f.attname))
        if other.attempt_id is not None and "attempt" in other._state.fields_cache:
            self.attempt = other.attempt


@progress.handover(PROGRESS_KEY)
def hand_over_runs(user, data: dict[str, Any]) -> None:
    """A visitor logged in or signed up: their runs (and so their personal bests) become the
    account's."""
    token = str(data.get("visitor", ""))
    if token:
        Run.objects.filter(visitor=token, user__isnull=True).update(user=user)
