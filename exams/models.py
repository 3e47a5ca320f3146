"""Exams: a sitting (:class:`Exam`) with its questions, answers and clock; the certificate it
earns; a teacher's exam for a class; the puzzles reserved for exams.

The state changes are methods: :meth:`Exam.start` (draws the questions, refuses during the
cool-down or outside a class exam's time), :meth:`Exam.answer` (judges one entry on the server),
:meth:`Exam.skip`, :meth:`Exam.finish` (score, pass mark, certificate). Each runs in a
transaction on the row read with ``select_for_update()``; the deadline is a timestamp on the row,
so an answer after it is refused and the exam is finished as it stood.
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.variants import VARIANT_CHOICES
from lessons import engine as lessons_engine
from play.models import Game
from puzzles import engine as puzzles_engine
from puzzles.models import Puzzle

from . import pool
from .levels import Level, level, rule_questions

RIGHT, WRONG, OPEN = "right", "wrong", "open"
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


class ReservedPuzzle(models.Model):
    """A puzzle kept for the exams: practice never serves it (see :mod:`exams.pool`)."""

    puzzle = models.OneToOneField(Puzzle, on_delete=models.CASCADE, related_name="exam_reservation")
    variant = models.CharField(_("variant"), max_length=20, choices=VARIANT_CHOICES)
    reserved_at = models.DateTimeField(_("reserved at"), default=timezone.now)

    class Meta:
        verbose_name = _("puzzle reserved for exams")
        verbose_name_plural = _("puzzles reserved for exams")

    def __str__(self) -> str:
        return f"{self.variant} #{self.puzzle_id}"


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

    def seconds_left(self, now: datetime | None = None) -> int:
        now = now or timezone.now()
        return max(0, int((self.deadline - now).total_seconds()))

    def is_due(self, now: datetime | None = None) -> bool:
        """The time is up (and the exam not finished yet)."""
        return not self.is_finished and (now or timezone.now()) >= self.deadline

    @property
    def total(self) -> int:
        return len(self.questions)

    def right_count(self) -> int:
        return sum(1 for a in self.answers if a.get("state") == RIGHT)

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
        last = cls.last_real(user, variant, number)
        if last is None:
            return None
        ends = last.finished_at or last.deadline
        at = ends + cooldown()
        return at if at > (now or timezone.now()) else None

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
        :class:`Refused` during the cool-down of a real exam, outside a class exam's time, or
        when no new exam can be drawn."""
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
        elif kind == cls.Kind.REAL:
            at = cls.retake_at(user, variant, number, now)
            if at is not None:
                raise Refused(
                    gettext("You can take this exam again from %(when)s.")
                    % {"when": timezone.localtime(at).strftime("%Y-%m-%d %H:%M")}
                )
        pool.reserve(variant)
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
            )
        except pool.NotEnoughQuestions:
            raise Refused(
                gettext("There are not enough new questions for this exam yet.")
            ) from None
        try:
            with transaction.atomic():
                return cls.objects.create(
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
        except IntegrityError:  # a double click: the other request started it
            raise Refused(gettext("This exam was started already.")) from None

    # -- answering -------------------------------------------------------------------------------

    def _locked(self) -> Exam:
        return Exam.objects.select_for_update().get(pk=self.pk)

    def answer(
        self, *, index: int, route: str = "", text: str = "", now: datetime | None = None
    ) -> Outcome:
        """Judge one entry for question ``index`` (the current one): a clicked route so far or
        typed text. Illegal or unreadable input is refused and changes nothing; a legal wrong
        move (or answer) makes the question wrong; a right one goes on or makes it right."""
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
            outcome = question.judge(route=route, text=text)
            if outcome.kind in ("right", "wrong", "continue", "added") and outcome.changed:
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
                source=Game.Source.POSITION,
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
                exam.answers[index] = {**exam.answers[index], "state": WRONG, "skipped": True}
                exam.current = index + 1
                exam.save(update_fields=["answers", "current"])
                if exam.current >= exam.total:
                    exam._finish(now)
            self.refresh_from_db()
            return True

    def finish(self, now: datetime | None = None) -> None:
        """Hand the exam in (also when the time is up): score, pass mark, certificate."""
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
        self.finished_at = min(now, self.deadline)
        self.timed_out = timed_out
        self.save(update_fields=["score", "passed", "finished_at", "timed_out"])
        if self.passed and not self.is_practice:
            Certificate.issue(self)


@dataclass
class Outcome:
    """The answer to one entry in an exam."""

    kind: str  # right, wrong, continue, added, illegal, bad, over, stale
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

    def judge(self, *, route: str, text: str) -> Outcome:
        if self.is_endgame:
            return Outcome("bad", gettext("This question is played as a game: start the game."))
        if self.is_puzzle:
            return self._judge_puzzle(route=route, text=text)
        return self._judge_rule(route=route, text=text)

    def _judge_puzzle(self, *, route: str, text: str) -> Outcome:
        puzzle = self.puzzle
        if puzzle is None:
            return Outcome("bad", gettext("This question is no longer available."))
        line = self.line
        entry = puzzles_engine.read_entry(puzzle.variant, puzzle.fen, line, route=route, text=text)
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
        here = puzzles_engine.fen_after(puzzle.variant, puzzle.fen, line)
        reply_text, _after = judge.answer(puzzle.variant, here, accepted)
        line = [*line, accepted.move, *([accepted.reply] if accepted.reply else [])]
        if reply_text:
            entered.append(reply_text)
        state = OPEN if not accepted.done else RIGHT
        self.state = {**self.state, "state": state, "line": line, "entered": entered}
        if accepted.done:
            return Outcome("right", gettext("Right!"), changed=True)
        return Outcome(
            "continue",
            gettext("Right! %(side)s answers %(reply)s. Your move.")
            % {
                "side": gettext("Black") if puzzle.white_to_move else gettext("White"),
                "reply": reply_text,
            },
            changed=True,
        )

    def _judge_rule(self, *, route: str, text: str) -> Outcome:
        rule = self.rule
        if rule is None:
            return Outcome("bad", gettext("This question is no longer available."))
        selection = self.state.get("selection", "")
        verdict = lessons_engine.judge(rule.step, route=route, text=text, selection=text)
        if verdict.status == lessons_engine.CONTINUE:
            return Outcome("continue", verdict.message, path=verdict.path)
        if verdict.status == lessons_engine.BAD:
            return Outcome("bad", verdict.message, article=verdict.article)
        if verdict.status == lessons_engine.ADDED:
            self.state = {**self.state, "selection": verdict.selection}
            return Outcome("added", verdict.message, changed=verdict.selection != selection)
        if verdict.status == lessons_engine.RIGHT:
            self.state = {**self.state, "state": RIGHT, "entered": [verdict.entered]}
            return Outcome("right", gettext("Right!"), changed=True)
        if verdict.status == lessons_engine.LEGAL and not verdict.counts:
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
        found = cls.objects.filter(exam=exam).first()
        if found is not None:
            return found
        user = exam.user
        return cls.objects.create(
            exam=exam,
            user=user,
            name=(user.get_full_name() or user.get_username())[:150],
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
    from core.board import board_from_fen, board_view, solver_flipped

    if question.is_puzzle or question.is_endgame:
        puzzle = question.puzzle
        assert puzzle is not None
        return puzzles_engine.trainer_board(
            puzzle.variant, puzzle.fen, question.line, path=path, goal="capture"
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
