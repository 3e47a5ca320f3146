"""Exams: a sitting (:class:`Exam`) with its questions, answers and clock; the certificate it
earns; a teacher's exam for a class. The puzzles kept for the exams are the puzzles app's
(``Puzzle.for_exams``, see :mod:`exams.pool`).

The state changes are methods: :meth:`Exam.start` (draws the questions, refuses during the
cool-down or outside a class exam's time, and a real exam while the player has no name for the
certificate), :meth:`Exam.answer` (judges one entry on the server; a real exam's answer says
only that it is saved), :meth:`Exam.skip`, :meth:`Exam.hand_in` (asks to be confirmed while
questions are open) and :meth:`Exam.finish` (score, pass mark, certificate). Each runs in a
transaction on the row read with ``select_for_update()``; the deadline is a timestamp on the row,
so an answer after it is refused and the exam is finished as it stood. The deadline is moved
later by the time the computer thought in the exam's endgame games (:meth:`Exam.ends_at`: the
clock stands still meanwhile).

A real exam's cool-down holds across requests, processes and databases: the start judges it and
creates the sitting in one transaction that first locks the player's profile row (on SQLite the
transaction's ``BEGIN IMMEDIATE`` takes the database's write lock), and a partial unique
constraint keeps one open real sitting per player, variant and level.
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from accounts.models import Profile, profile_of
from core import endgames, exercise
from core.board import board_from_fen, board_view, play_line, read_entry, solver_flipped
from core.models import SealedPosition
from core.variants import VARIANT_CHOICES
from play.models import Game
from puzzles.models import Puzzle

from . import pool
from .levels import Level, level, rule_questions

RIGHT, WRONG, OPEN = "right", "wrong", "open"
#: the label of the seals on the positions of the won endings kept for the real exams
DRILL_SEAL = "exam-drills"
#: a verification code: no 0/O or 1/I, easy to read aloud and to type
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def cooldown() -> timedelta:
    return timedelta(hours=float(getattr(settings, "DAMA_EXAM_COOLDOWN_HOURS", 24)))


def engine_level() -> int:
    """The ``play`` app's level the engine defends an exam's endgame at."""
    return int(getattr(settings, "DAMA_EXAM_ENGINE_LEVEL", 6))


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(12))


class Refused(Exception):
    """An exam cannot be started (the message says why, in the page's language)."""


class NameNeeded(Refused):
    """A real exam cannot start before the player gives the name its certificate would print."""


class ClassExam(models.Model):
    """A teacher's exam for a class: its students start it from My classes between
    ``starts_at`` and ``starts_at + open_minutes``."""

    classroom = models.ForeignKey(
        "classroom.Classroom",
        on_delete=models.CASCADE,
        related_name="exams",
        verbose_name=_("class"),
    )
    variant = models.CharField(_("variant"), max_length=20, choices=VARIANT_CHOICES)
    level = models.PositiveSmallIntegerField(_("level"))
    starts_at = models.DateTimeField(_("starts at"))
    open_minutes = models.PositiveSmallIntegerField(
        _("minutes to start it"),
        default=15,
        help_text=_("How long after the start students may still begin the exam."),
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("created by"),
    )
    created = models.DateTimeField(_("created"), default=timezone.now, editable=False)

    class Meta:
        ordering = ["-starts_at", "pk"]
        verbose_name = _("class exam")
        verbose_name_plural = _("class exams")

    def __str__(self) -> str:
        return f"{self.classroom} {self.variant} {self.level}"

    def get_absolute_url(self) -> str:
        return reverse("exams:class_exam", args=[self.pk])

    @property
    def level_info(self) -> Level | None:
        return level(self.level)

    @property
    def closes_at(self) -> datetime:
        return self.starts_at + timedelta(minutes=self.open_minutes)

    def is_open(self, now: datetime | None = None) -> bool:
        now = now or timezone.now()
        return self.starts_at <= now < self.closes_at

    def is_upcoming(self, now: datetime | None = None) -> bool:
        return (now or timezone.now()) < self.starts_at


class Exam(models.Model):
    """One sitting of a level's exam by a player."""

    class Kind(models.TextChoices):
        PRACTICE = "practice", _("practice exam")
        REAL = "real", _("exam")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="exams",
        verbose_name=_("player"),
    )
    variant = models.CharField(_("variant"), max_length=20, choices=VARIANT_CHOICES)
    level = models.PositiveSmallIntegerField(_("level"))
    kind = models.CharField(_("kind"), max_length=10, choices=Kind, default=Kind.REAL)
    class_exam = models.ForeignKey(
        ClassExam,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="sittings",
        verbose_name=_("class exam"),
    )
    #: ``[{"type": "rule"|"puzzle", "id": ...}, ...]``
    questions = models.JSONField(_("questions"), default=list)
    signature = models.CharField(_("question set"), max_length=64)
    #: parallel to ``questions``: ``{"state", "line", "entered", "message", "selection"}``
    answers = models.JSONField(_("answers"), default=list)
    current = models.PositiveSmallIntegerField(_("current question"), default=0)
    pass_mark = models.PositiveSmallIntegerField(_("pass mark"))
    started_at = models.DateTimeField(_("started at"), default=timezone.now)
    deadline = models.DateTimeField(_("deadline"))
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    timed_out = models.BooleanField(_("time ran out"), default=False)
    score = models.PositiveSmallIntegerField(_("score"), default=0)
    passed = models.BooleanField(_("passed"), default=False)

    class Meta:
        ordering = ["-started_at", "-pk"]
        constraints = [
            # the same exam is never drawn twice for a player
            models.UniqueConstraint(
                fields=["user", "variant", "level", "signature"], name="exam_never_drawn_twice"
            ),
            models.UniqueConstraint(
                fields=["user", "class_exam"],
                condition=Q(class_exam__isnull=False),
                name="exam_one_sitting_per_class_exam",
            ),
            # the backstop of the cool-down (Exam.start): one open real sitting of a level
            models.UniqueConstraint(
                fields=["user", "variant", "level"],
                condition=Q(kind="real", class_exam__isnull=True, finished_at__isnull=True),
                name="exam_one_open_real_sitting",
            ),
        ]
        indexes = [models.Index(fields=["user", "variant", "level", "kind"])]
        verbose_name = _("exam")
        verbose_name_plural = _("exams")

    def __str__(self) -> str:
        return f"{self.user} {self.variant} {self.level} {self.kind}"

    def get_absolute_url(self) -> str:
        return reverse("exams:sitting", args=[self.pk])

    # -- reading ---------------------------------------------------------------------------------

    @property
    def level_info(self) -> Level | None:
        return level(self.level)

    @property
    def is_practice(self) -> bool:
        return self.kind == self.Kind.PRACTICE

    @property
    def is_finished(self) -> bool:
        return self.finished_at is not None

    def _current_game(self) -> Game | None:
        """The game of the current question while it is open (an endgame being played)."""
        if self.current >= len(self.answers):
            return None
        state = self.answers[self.current]
        if not state.get("game") or state.get("state", OPEN) != OPEN:
            return None
        return Game.objects.filter(pk=state["game"]).only("thought", "thinking_since").first()

    def clock_stopped(self, now: datetime | None = None) -> timedelta:
        """How long the clock has stood still: the time the computer thought in the exam's
        endgame games (from each of the player's moves to the reply, the wait for a worker
        included; a closed question's as it was when it closed, the open one's to ``now``)."""
        seconds = sum(float(state.get("thought") or 0) for state in self.answers)
        game = self._current_game()
        if game is not None:
            seconds += game.thinking_time(now).total_seconds()
        return timedelta(seconds=seconds)

    def is_clock_stopped(self) -> bool:
        """The computer thinks in the current question's game: the clock stands still."""
        game = self._current_game()
        return game is not None and game.thinking_since is not None

    def ends_at(self, now: datetime | None = None) -> datetime:
        """When the time is up: the deadline, later by the time the clock stood still."""
        return self.deadline + self.clock_stopped(now)

    def seconds_left(self, now: datetime | None = None) -> int:
        now = now or timezone.now()
        return max(0, int((self.ends_at(now) - now).total_seconds()))

    def is_due(self, now: datetime | None = None) -> bool:
        """The time is up (and the exam not finished yet)."""
        if self.is_finished:
            return False
        now = now or timezone.now()
        return now >= self.ends_at(now)

    @property
    def total(self) -> int:
        return len(self.questions)

    def right_count(self) -> int:
        return sum(1 for a in self.answers if a.get("state") == RIGHT)

    def open_count(self) -> int:
        """How many questions are not answered yet (handing in counts them wrong)."""
        return sum(1 for a in self.answers if a.get("state", OPEN) == OPEN)

    def question(self, index: int) -> Question:
        return Question.of(self.variant, self.questions[index], self.answers[index])

    # -- starting --------------------------------------------------------------------------------

    @classmethod
    def last_real(cls, user, variant: str, number: int) -> Exam | None:
        return (
            cls.objects.filter(
                user=user, variant=variant, level=number, kind=cls.Kind.REAL, class_exam=None
            )
            .order_by("-started_at")
            .first()
        )

    @classmethod
    def retake_at(
        cls, user, variant: str, number: int, now: datetime | None = None
    ) -> datetime | None:
        """When ``user`` may take the real exam of this level again (None: now). A passed level
        has its certificate: taking it again is not needed, but allowed after the cool-down."""
        return cls._wait_ends(cls.last_real(user, variant, number), now or timezone.now())

    @staticmethod
    def _wait_ends(last: Exam | None, now: datetime) -> datetime | None:
        """When the cool-down after the real sitting ``last`` ends (None: it has ended)."""
        if last is None:
            return None
        at = (last.finished_at or last.ends_at(now)) + cooldown()
        return at if at > now else None

    @classmethod
    def start(
        cls,
        user,
        variant: str,
        number: int,
        kind: str = "real",
        *,
        class_exam: ClassExam | None = None,
        now: datetime | None = None,
        rng: random.Random | None = None,
    ) -> Exam:
        """Draw a new exam of level ``number`` for ``user`` and start its clock. Raises
        :class:`Refused` during the cool-down of a real exam (or while one is open), outside a
        class exam's time, or when no new exam can be drawn; :class:`NameNeeded` for a real exam
        while the player has no name for the certificate (``Profile.printed_name``)."""
        now = now or timezone.now()
        info = level(number)
        if info is None or kind not in cls.Kind.values:
            raise Refused(gettext("There is no such exam."))
        if class_exam is not None:
            kind = cls.Kind.REAL
            variant, number = class_exam.variant, class_exam.level
            if not class_exam.is_open(now):
                raise Refused(gettext("This class exam is not open now."))
            if cls.objects.filter(user=user, class_exam=class_exam).exists():
                raise Refused(gettext("You have already sat this class exam."))
        elif kind == cls.Kind.REAL:  # judged again under the lock; here: no draw for nothing
            cls._finish_overdue(user, variant, number, now)
            if refusal := cls._waiting(user, variant, number, now):
                raise Refused(refusal)
        if kind == cls.Kind.REAL and not profile_of(user).printed_name:
            raise NameNeeded(gettext("Write the name your certificate will print first."))
        earlier = list(
            cls.objects.filter(user=user, variant=variant).values_list(
                "level", "signature", "questions"
            )
        )
        seen = {f"{q['type']}:{q['id']}" for _lv, _sig, qs in earlier for q in qs}
        drawn = {sig for lv, sig, _qs in earlier if lv == number}
        rng = rng or random.Random(secrets.randbits(64))
        try:
            questions = pool.draw(
                info,
                variant,
                seen=seen,
                practised=pool.practised_puzzles(user, variant),
                drawn=drawn,
                rng=rng,
                practice=kind == cls.Kind.PRACTICE,
            )
        except pool.NotEnoughQuestions:
            raise Refused(
                gettext("There are not enough new questions for this exam yet.")
            ) from None
        refusal = ""
        try:
            with transaction.atomic():
                if kind == cls.Kind.REAL and class_exam is None:
                    refusal = cls._claim_real(user, variant, number, now)
                if not refusal:
                    sitting = cls.objects.create(
                        user=user,
                        variant=variant,
                        level=number,
                        kind=kind,
                        class_exam=class_exam,
                        questions=questions,
                        signature=pool.signature(questions),
                        answers=[{"state": OPEN} for _ in questions],
                        pass_mark=info.pass_mark,
                        started_at=now,
                        deadline=now + timedelta(minutes=info.minutes),
                    )
                    if kind == cls.Kind.REAL:  # a won ending kept for the exams: no analysis
                        fens = [str(q["id"]) for q in questions if q["type"] == "drill"]
                        if fens:
                            SealedPosition.seal(fens, variant, label=DRILL_SEAL)
                    sitting.seal_kept_questions()
                    return sitting
        except IntegrityError:  # a double click: the other request started it
            raise Refused(gettext("This exam was started already.")) from None
        raise Refused(refusal)  # after the commit: a sitting finished meanwhile stays finished

    @classmethod
    def _claim_real(cls, user, variant: str, number: int, now: datetime) -> str:
        """In the start's transaction, before the sitting is created: lock the player's profile
        row, so that starts of the player's real exams run one after another (whichever process
        or database serves them); finish a sitting whose time ran out; then judge the cool-down
        as it stands. Returns why the start is refused, "" when it is not."""
        Profile.objects.select_for_update().get(user=user)
        cls._finish_overdue(user, variant, number, now)
        return cls._waiting(user, variant, number, now)

    @classmethod
    def _finish_overdue(cls, user, variant: str, number: int, now: datetime) -> None:
        """Finish the player's real sitting of this level whose time ran out (and that nobody
        has loaded since): its score and certificate, before a new start is judged."""
        overdue = cls.objects.filter(
            user=user,
            variant=variant,
            level=number,
            kind=cls.Kind.REAL,
            class_exam=None,
            finished_at=None,
            deadline__lte=now,
        )
        for sitting in overdue:
            if sitting.is_due(now):  # the computer's thinking may have moved its end later
                sitting.finish(now)

    @classmethod
    def _waiting(cls, user, variant: str, number: int, now: datetime) -> str:
        """Why the player cannot start the real exam of this level now (its sitting is open, or
        its cool-down has not ended), in the page's language; "" when they can."""
        last = cls.last_real(user, variant, number)
        if last is not None and last.finished_at is None and not last.is_due(now):
            return gettext("You are taking this exam already: go on with it.")
        at = cls._wait_ends(last, now)
        if at is None:
            return ""
        # the time before the end of the sentence: an English time ends in "p.m." already
        return gettext("From %(when)s you can take this exam again.") % {
            "when": date_format(timezone.localtime(at), "DATETIME_FORMAT")
        }

    # -- answering -------------------------------------------------------------------------------

    def _locked(self) -> Exam:
        return Exam.objects.select_for_update().get(pk=self.pk)

    def seal_kept_questions(self) -> None:
        """Seal for good the positions of the kept strategy questions this real sitting shows
        (label ``strategy:<id>``): no game, hint or engine analysis may answer them elsewhere,
        as for a puzzle kept for the exams. Practice asks none of them."""
        if self.is_practice:
            return
        rules = rule_questions(self.variant)
        for ref in self.questions:
            found = rules.get(str(ref["id"])) if ref["type"] == "rule" else None
            if found is not None and found.reserved:
                SealedPosition.seal([found.step.fen], self.variant, label=f"strategy:{found.id}")

    @property
    def seal_label(self) -> str:
        """The label of the seals on the positions this sitting's endgame reaches."""
        return f"exam:{self.pk}"

    def answer(
        self, *, index: int, route: str = "", text: str = "", now: datetime | None = None
    ) -> Outcome:
        """Judge one entry for question ``index`` (the current one): a clicked route so far or
        typed text. Illegal or unreadable input is refused and changes nothing; a legal wrong
        move (or answer) makes the question wrong; a right one goes on or makes it right. A
        practice exam's outcome says which (``right``, ``wrong``); a real exam's only that the
        answer is saved (``saved``), until the exam is over."""
        now = now or timezone.now()
        with transaction.atomic():
            exam = self._locked()
            if exam.is_due(now):
                exam._finish(now, timed_out=True)
                self.refresh_from_db()
                return Outcome("over", gettext("The time is up: your exam is finished."))
            if exam.is_finished:
                return Outcome("over", gettext("This exam is finished."))
            if index != exam.current or index >= exam.total:
                return Outcome("stale", gettext("That question is no longer open."))
            question = exam.question(index)
            outcome = question.judge(route=route, text=text, tell=exam.is_practice)
            if outcome.kind == "continue" and outcome.changed and not exam.is_practice:
                question.seal_shown()
            if outcome.kind in ("right", "wrong", "saved", "continue", "added") and outcome.changed:
                exam.answers[index] = question.state
                if question.state["state"] != OPEN:
                    exam.current = index + 1
                exam.save(update_fields=["answers", "current"])
                if exam.current >= exam.total:
                    exam._finish(now)
            self.refresh_from_db()
            return outcome

    def start_endgame(self, *, index: int, now: datetime | None = None) -> int | None:
        """Start the game of endgame question ``index`` against the engine (the ``play`` app's
        computer, at ``DAMA_EXAM_ENGINE_LEVEL``, its moves searched on a worker); returns the
        game's id (the one already started, if any), None when the question is not open."""
        now = now or timezone.now()
        with transaction.atomic():
            exam = self._locked()
            if exam.is_due(now) or exam.is_finished or index != exam.current:
                return None
            question = exam.question(index)
            if not question.is_endgame:
                return None
            if question.game_id:
                return question.game_id
            puzzle = question.puzzle
            if puzzle is None:
                return None
            game = Game.start(
                user=exam.user,
                variant=exam.variant,
                level=engine_level(),
                player_white=puzzle.white_to_move,
                fen=puzzle.fen,
                source=Game.Source.EXAM,
                # a real sitting's game: no hint, its positions sealed while the sitting is open
                sealed_by="" if exam.is_practice else exam.seal_label,
                # the clock stands still while the computer thinks, so the sitting may end after
                # its deadline: sealed for twice its time; its end lifts the seal anyway
                sealed_until=None
                if exam.is_practice
                else exam.deadline + (exam.deadline - exam.started_at),
            )
            exam.answers[index] = {**exam.answers[index], "game": game.pk}
            exam.save(update_fields=["answers"])
        self.refresh_from_db()
        return game.pk

    def sync_endgame(self, now: datetime | None = None) -> None:
        """The current question is an endgame whose game is over: right when the player won it
        without a takeback or a hint, wrong otherwise; the exam moves on."""
        question = self.question(self.current) if self.current < self.total else None
        if question is None or not question.is_endgame or not question.game_id:
            return
        game = Game.objects.filter(pk=question.game_id, user=self.user).first()
        if game is not None and not game.is_over:
            return
        now = now or timezone.now()
        with transaction.atomic():
            exam = self._locked()
            if exam.is_finished or exam.current != self.current:
                return
            won = game is not None and game.player_won and not game.takebacks and not game.hints
            state = {**exam.answers[exam.current], "state": RIGHT if won else WRONG}
            if game is not None:
                state["entered"] = [game.result or "-"]
                state["thought"] = game.thinking_time(now).total_seconds()
            exam.answers[exam.current] = state
            exam.current += 1
            exam.save(update_fields=["answers", "current"])
            if exam.current >= exam.total:
                exam._finish(now, timed_out=exam.is_due(now))
        self.refresh_from_db()

    def skip(self, *, index: int, now: datetime | None = None) -> bool:
        """Give up question ``index`` (it counts as wrong)."""
        now = now or timezone.now()
        with transaction.atomic():
            exam = self._locked()
            if exam.is_due(now):
                exam._finish(now, timed_out=True)
            elif not exam.is_finished and index == exam.current < exam.total:
                game = exam._current_game()
                exam.answers[index] = {**exam.answers[index], "state": WRONG, "skipped": True}
                if game is not None:  # the clock stood still for its game until now, no longer
                    exam.answers[index]["thought"] = game.thinking_time(now).total_seconds()
                exam.current = index + 1
                exam.save(update_fields=["answers", "current"])
                if exam.current >= exam.total:
                    exam._finish(now)
            self.refresh_from_db()
            return True

    def hand_in(self, *, confirmed: bool = False, now: datetime | None = None) -> int:
        """The player hands the exam in. While questions are open (they would count as wrong,
        and a real exam's cool-down would start) it waits for ``confirmed``: it then changes
        nothing and returns how many are open. Returns 0 once the exam is finished (at once
        when its time is up)."""
        now = now or timezone.now()
        with transaction.atomic():
            exam = self._locked()
            waiting = 0 if exam.is_finished else exam.open_count()
            if exam.is_due(now) or (not exam.is_finished and (confirmed or not waiting)):
                exam._finish(now, timed_out=exam.is_due(now))
                waiting = 0
        self.refresh_from_db()
        return waiting

    def retake_if_handed_in(self, now: datetime | None = None) -> datetime | None:
        """When the player could take this level's real exam again if they handed this one in
        now (None for a practice exam or a class exam: no wait follows them)."""
        if self.is_practice or self.class_exam_id:
            return None
        return (now or timezone.now()) + cooldown()

    def finish(self, now: datetime | None = None) -> None:
        """Finish the exam as it stands (also when the time is up): score, pass mark,
        certificate. The player's hand-in is :meth:`hand_in`."""
        now = now or timezone.now()
        with transaction.atomic():
            exam = self._locked()
            if not exam.is_finished:
                exam._finish(now, timed_out=exam.is_due(now))
        self.refresh_from_db()

    def expire_if_due(self, now: datetime | None = None) -> None:
        if self.is_due(now):
            self.finish(now)

    def _finish(self, now: datetime, *, timed_out: bool = False) -> None:
        self.score = self.right_count()
        self.passed = self.score >= self.pass_mark
        self.finished_at = min(now, self.ends_at(now))
        self.timed_out = timed_out
        self.save(update_fields=["score", "passed", "finished_at", "timed_out"])
        if not self.is_practice:  # the endgame's positions are free again
            Game.unseal(self.seal_label)
        if self.passed and not self.is_practice:
            Certificate.issue(self)


@dataclass
class Outcome:
    """The answer to one entry in an exam."""

    #: right, wrong (a practice exam's verdicts), saved (a real exam's), continue, added, illegal,
    #: bad, over, stale
    kind: str
    message: str = ""
    article: str = ""
    path: tuple[int, ...] = ()
    squares: tuple[int, ...] = ()
    changed: bool = False

    @property
    def status(self) -> int:
        return 400 if self.kind in ("illegal", "bad", "over", "stale") else 200


@dataclass
class Question:
    """One question of a sitting with its state, judged on the server."""

    variant: str
    ref: dict[str, Any]
    state: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, variant: str, ref: dict[str, Any], state: dict[str, Any]) -> Question:
        return cls(variant, ref, dict(state))

    @property
    def is_puzzle(self) -> bool:
        return self.ref["type"] == "puzzle"

    @property
    def is_endgame(self) -> bool:
        return self.ref["type"] == "endgame"

    @property
    def is_drill(self) -> bool:
        """A won ending of the endgame databases, played out against the database's defence."""
        return self.ref["type"] == "drill"

    @property
    def fen(self) -> str:
        """The start of a drill question."""
        return str(self.ref["id"])

    @property
    def game_id(self) -> int | None:
        return self.state.get("game")

    @property
    def rule(self):
        return rule_questions(self.variant).get(str(self.ref["id"]))

    @property
    def puzzle(self) -> Puzzle | None:
        """The puzzle of a puzzle question, or the position of an endgame."""
        found = self.__dict__.get("_puzzle")
        if found is None:
            found = self.__dict__["_puzzle"] = (
                Puzzle.objects.defer("proof").filter(pk=self.ref["id"]).first()
            )
        return found

    @property
    def line(self) -> list[str]:
        return list(self.state.get("line") or [])

    def seal_shown(self) -> None:
        """Seal for good the position a puzzle question of a real sitting shows now (after the
        player's right move and the defence's reply): it is a position of the solution of a
        puzzle kept for the exams, as its first one is (``Puzzle.save`` sealed that)."""
        if self.is_drill:  # a won ending kept for the real exams: its line's positions too
            here, _texts = play_line(self.variant, self.fen, self.line)
            SealedPosition.seal([here.fen()], self.variant, label=DRILL_SEAL)
            return
        puzzle = self.puzzle
        if puzzle is None or not puzzle.for_exams:
            return
        here, _texts = play_line(puzzle.variant, puzzle.fen, self.line)
        SealedPosition.seal([here.fen()], puzzle.variant, label=puzzle.seal_label)

    def judge(self, *, route: str, text: str, tell: bool = True) -> Outcome:
        """The outcome of an entry, and the question's new :attr:`state`. ``tell``: say whether
        the answer is right (a practice exam); otherwise a right or wrong answer is only
        ``saved``, and a move of a puzzle that goes on is answered without "Right!" (that the
        puzzle goes on cannot be hidden)."""
        if self.is_endgame:
            return Outcome("bad", gettext("This question is played as a game: start the game."))
        if self.is_drill:
            outcome = self._judge_drill(route=route, text=text)
        elif self.is_puzzle:
            outcome = self._judge_puzzle(route=route, text=text, tell=tell)
        else:
            outcome = self._judge_rule(route=route, text=text)
        if not tell and outcome.kind in ("right", "wrong"):
            return Outcome("saved", gettext("Your answer is saved."), changed=outcome.changed)
        return outcome

    def _judge_puzzle(self, *, route: str, text: str, tell: bool) -> Outcome:
        puzzle = self.puzzle
        if puzzle is None:
            return Outcome("bad", gettext("This question is no longer available."))
        line = self.line
        board, _texts = play_line(puzzle.variant, puzzle.fen, line)
        entry = read_entry(board, route=route, text=text)
        if entry.status == "continue":
            return Outcome("continue", entry.message, path=entry.path)
        if entry.status == "bad":
            return Outcome("bad", entry.message, article=entry.article)
        if entry.status == "illegal":
            return Outcome("illegal", entry.message, article=entry.article, squares=entry.squares)
        judge = puzzle.judge()
        start, end, captured = entry.key
        accepted = judge.find(line, (start, end, frozenset(captured)))
        entered = [*(self.state.get("entered") or []), entry.notation]
        if accepted is None:
            self.state = {**self.state, "state": WRONG, "entered": entered}
            return Outcome("wrong", gettext("Not the solution."), changed=True)
        reply_text, _after = judge.answer(puzzle.variant, board.fen(), accepted)
        line = [*line, accepted.move, *([accepted.reply] if accepted.reply else [])]
        if reply_text:
            entered.append(reply_text)
        state = OPEN if not accepted.done else RIGHT
        self.state = {**self.state, "state": state, "line": line, "entered": entered}
        if accepted.done:
            return Outcome("right", gettext("Right!"), changed=True)
        side = gettext("Black") if puzzle.white_to_move else gettext("White")
        if tell:
            message = gettext("Right! %(side)s answers %(reply)s. Your move.")
        else:
            message = gettext("%(side)s answers %(reply)s. Your move.")
        return Outcome("continue", message % {"side": side, "reply": reply_text}, changed=True)

    def _judge_drill(self, *, route: str, text: str) -> Outcome:
        """A move of a drill question and the database's reply (``core.endgames.play``): right
        when the ending is won within the count, wrong when the move lets the win go."""
        line = self.line
        try:
            turn = endgames.play(self.variant, self.fen, line, goal="win", route=route, text=text)
        except ValidationError as exc:
            return Outcome("bad", " ".join(exc.messages))
        if turn.status == endgames.CONTINUE:
            return Outcome("continue", turn.message, path=turn.path)
        if turn.status == endgames.MISSING:
            return Outcome("bad", turn.message)
        if turn.is_bad:
            kind = "illegal" if turn.article or turn.squares else "bad"
            return Outcome(kind, turn.message, article=turn.article, squares=turn.squares)
        line = [*line, *turn.stored]
        entered = [*(self.state.get("entered") or []), *turn.stored]
        if turn.status == endgames.PASSED:
            self.state = {**self.state, "state": RIGHT, "line": line, "entered": entered}
            return Outcome("right", gettext("Right!"), changed=True)
        if turn.status == endgames.FAILED:
            self.state = {
                **self.state,
                "state": WRONG,
                "line": line,
                "entered": entered,
                "message": turn.message,
            }
            return Outcome("wrong", gettext("Not the right answer."), changed=True)
        self.state = {**self.state, "line": line, "entered": entered}
        side = gettext("Black") if self.fen[:1].upper() != "B" else gettext("White")
        message = gettext("%(side)s answers %(reply)s. Your move.")
        return Outcome("continue", message % {"side": side, "reply": turn.reply}, changed=True)

    def _judge_rule(self, *, route: str, text: str) -> Outcome:
        rule = self.rule
        if rule is None:
            return Outcome("bad", gettext("This question is no longer available."))
        selection = self.state.get("selection", "")
        verdict = exercise.judge(rule.step, route=route, text=text, selection=text)
        if verdict.status == exercise.CONTINUE:
            return Outcome("continue", verdict.message, path=verdict.path)
        if verdict.status == exercise.BAD:
            return Outcome("bad", verdict.message, article=verdict.article)
        if verdict.status == exercise.ADDED:
            self.state = {**self.state, "selection": verdict.selection}
            return Outcome("added", verdict.message, changed=verdict.selection != selection)
        if verdict.status == exercise.RIGHT:
            self.state = {**self.state, "state": RIGHT, "entered": [verdict.entered]}
            return Outcome("right", gettext("Right!"), changed=True)
        if verdict.status == exercise.LEGAL and not verdict.counts:
            return Outcome("bad", verdict.message)
        # an illegal move (explained by the engine) or a legal one that is not the answer
        self.state = {
            **self.state,
            "state": WRONG,
            "entered": [verdict.entered] if verdict.entered else [],
            "message": verdict.message,
            "article": verdict.article,
        }
        return Outcome("wrong", gettext("Not the right answer."), changed=True)


class Certificate(models.Model):
    """What a passed exam earns: checked by anyone at ``/certificates/<code>/`` (the name,
    variant, level and date, nothing else)."""

    code = models.CharField(_("verification code"), max_length=16, unique=True, default=new_code)
    exam = models.OneToOneField(
        Exam, on_delete=models.CASCADE, related_name="certificate", verbose_name=_("exam")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="certificates",
        verbose_name=_("player"),
    )
    name = models.CharField(_("name"), max_length=150)
    variant = models.CharField(_("variant"), max_length=20, choices=VARIANT_CHOICES)
    level = models.PositiveSmallIntegerField(_("level"))
    issued_on = models.DateField(_("issued on"))

    class Meta:
        ordering = ["-issued_on", "-pk"]
        verbose_name = _("certificate")
        verbose_name_plural = _("certificates")

    def __str__(self) -> str:
        return self.code

    def get_absolute_url(self) -> str:
        return reverse("exams:verify", args=[self.code])

    @property
    def level_info(self) -> Level | None:
        return level(self.level)

    @classmethod
    def issue(cls, exam: Exam) -> Certificate:
        """The certificate of a passed exam, with the name the player gave
        (``Profile.printed_name``, asked before the exam started): never the user name or the
        e-mail. Issued once; a name changed later leaves it as it was."""
        found = cls.objects.filter(exam=exam).first()
        if found is not None:
            return found
        user = exam.user
        return cls.objects.create(
            exam=exam,
            user=user,
            name=profile_of(user).printed_name[:150],
            variant=exam.variant,
            level=exam.level,
            issued_on=timezone.localdate(exam.finished_at),
        )

    def pdf(self, language: str, base_url: str) -> bytes:
        """This certificate as a one-page PDF in ``language``, its QR code pointing at
        ``base_url``: drawn once (about 60 ms, at the first download in that language) and kept
        in a :class:`CertificatePdf` row, so every later download costs one read. A certificate
        never changes after it is issued; a new drawing (``certificate.LAYOUT``) or another
        address of the site draws it again."""
        from . import certificate as drawing

        kept = self.pdfs.filter(language=language, base_url=base_url, layout=drawing.LAYOUT).first()
        if kept is not None:
            return bytes(kept.pdf)
        body = drawing.render([self], drawing.absolute_from(base_url), language)
        CertificatePdf.objects.update_or_create(
            certificate=self,
            language=language,
            defaults={"base_url": base_url, "layout": drawing.LAYOUT, "pdf": body},
        )
        return body


class CertificatePdf(models.Model):
    """A certificate's PDF as drawn for one language (see :meth:`Certificate.pdf`)."""

    certificate = models.ForeignKey(
        Certificate, on_delete=models.CASCADE, related_name="pdfs", verbose_name=_("certificate")
    )
    language = models.CharField(_("language"), max_length=10)
    base_url = models.CharField(_("address of the site"), max_length=200)
    layout = models.PositiveSmallIntegerField(_("layout"))
    pdf = models.BinaryField(_("PDF"))
    made = models.DateTimeField(_("made"), default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["certificate", "language"], name="exams_one_pdf_per_language"
            )
        ]
        verbose_name = _("certificate PDF")
        verbose_name_plural = _("certificate PDFs")

    def __str__(self) -> str:
        return f"{self.certificate_id} ({self.language})"


class CertificatePrint(models.Model):
    """The PDF of a class exam's certificates, drawn by a worker (``exams.tasks``) for a
    :class:`core.models.Job` that the teacher's page follows. Kept for :attr:`KEEP`: a print
    older than that is deleted (:meth:`sweep`, run after each new print); printing again
    draws the class's certificates as they are then."""

    KEEP = timedelta(days=1)

    job = models.OneToOneField(
        "core.Job",
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="certificate_print",
        verbose_name=_("background job"),
    )
    class_exam = models.ForeignKey(
        "ClassExam", on_delete=models.CASCADE, related_name="prints", verbose_name=_("class exam")
    )
    pdf = models.BinaryField(_("PDF"))
    pages = models.PositiveSmallIntegerField(_("pages"))
    made = models.DateTimeField(_("made"), default=timezone.now)

    class Meta:
        ordering = ["-made"]
        verbose_name = _("certificates print")
        verbose_name_plural = _("certificates prints")

    def __str__(self) -> str:
        return f"{self.class_exam_id} {self.made:%Y-%m-%d %H:%M}"

    @classmethod
    def sweep(cls, now: datetime | None = None) -> int:
        """Delete the prints older than :attr:`KEEP`; how many were deleted."""
        now = now or timezone.now()
        deleted, _kinds = cls.objects.filter(made__lt=now - cls.KEEP).delete()
        return deleted


def question_board(question: Question, *, path: tuple[int, ...] = ()):
    """The board of ``question`` as it stands (``core.board.BoardView``), seen from the side to
    move, in lesson mode: no legal move and no target reaches the page (in an exam every one of
    them would help)."""
    if question.is_drill:
        board, _texts = play_line(question.variant, question.fen, question.line)
        return board_view(
            board,
            last_move=board.peek(),
            flipped=solver_flipped(board_from_fen(question.fen, question.variant)),
            path=path,
        )
    if question.is_puzzle or question.is_endgame:
        puzzle = question.puzzle
        assert puzzle is not None
        board, _texts = play_line(puzzle.variant, puzzle.fen, question.line)
        return board_view(
            board,
            last_move=board.peek(),
            flipped=solver_flipped(board_from_fen(puzzle.fen, puzzle.variant)),
            path=path,
        )
    step = question.rule.step
    board = board_from_fen(step.fen, question.variant)
    mode = step.exercise.mode
    return board_view(
        board,
        mode="square" if mode == "square" else "lesson",
        select=mode == "select",
        path=path,
        flipped=solver_flipped(board),
    )
