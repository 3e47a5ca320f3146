"""A live lesson: a teacher's board shown on every student's screen, questions answered live.

The whole state of a lesson is on :class:`LiveSession` (the step shown, the shared board with its
arrows and marks, the question and whether its solution is revealed, the answer put on the board)
and its rows (:class:`LiveStep`, :class:`LiveAnswer`, :class:`LiveParticipant`), so a teacher who
reloads, a student who reconnects and a student who joins late all see the lesson as it stands.
Every change is a method here that locks the row (``select_for_update``), writes the new state
with a new ``version`` and, once committed, tells the lesson's WebSockets (:mod:`live.push`).

Answers are judged on the server: a puzzle's position by its proof (the trainer's
``Puzzle.judge()``, from ``dama.proof.ProofTree``), any other position by the moves the teacher
expects (read by the engine seam, ``core.board.read_entry``, so any route or notation of the same
move counts). One answer per student and question: ``(session, question, student)`` is unique.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, models, transaction
from django.db.models import F, Q
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from classroom.models import Classroom
from core import board as core_board
from core.variants import VARIANT_CHOICES
from puzzles.models import Puzzle

from . import push

#: at most this many positions in one lesson, and moves a teacher may expect
MAX_STEPS = 60
MAX_EXPECTED = 8


def too_many_positions() -> ValidationError:
    """The refusal of a lesson with more than :data:`MAX_STEPS` positions."""
    return ValidationError(
        ngettext(
            "A live lesson has at most %(n)d position.",
            "A live lesson has at most %(n)d positions.",
            MAX_STEPS,
        )
        % {"n": MAX_STEPS},
        code="steps",
    )


@dataclass(frozen=True)
class StepData:
    """A position to put in a lesson: its FEN, a title, the puzzle that judges it (or the moves
    the teacher expects)."""

    fen: str
    title: str = ""
    puzzle: Puzzle | None = None
    expected: tuple[str, ...] = ()


@dataclass
class Reply:
    """The answer to a student's move: ``kind`` ``recorded`` (with ``correct``: True, False, or
    None when nothing judges the position), ``continue`` (a capture goes on: ``path``), ``bad`` or
    ``illegal`` (refused, not counted), ``closed`` (no question is open) or ``already`` (this
    student answered the question before)."""

    kind: str
    message: str = ""
    article: str = ""
    path: tuple[int, ...] = ()
    squares: tuple[int, ...] = ()
    answer: LiveAnswer | None = None

    @property
    def status(self) -> int:
        return 400 if self.kind in ("bad", "illegal") else 409 if self.kind == "closed" else 200


def parse_squares(board, text: str) -> list[int]:
    """The squares written in ``text`` for a drawing on ``board``: one (``27``, ``c3``) or two
    (``22-18``, ``c3 d4``); a ``ValidationError`` for anything else."""
    parts = [p for p in re.split(r"[-x:,\s]+", (text or "").strip()[:20]) if p]
    if not 1 <= len(parts) <= 2:
        raise ValidationError(
            _("Write a square to mark (27) or two for an arrow (22-18)."), code="draw"
        )
    try:
        squares = [board.parse_square(part) for part in parts]
    except ValueError as exc:
        raise ValidationError(str(exc), code="draw") from None
    return squares[:1] if len(squares) == 2 and squares[0] == squares[1] else squares


class LiveSessionQuerySet(models.QuerySet["LiveSession"]):
    def running(self) -> LiveSessionQuerySet:
        return self.filter(ended__isnull=True)

    def for_student(self, user) -> LiveSessionQuerySet:
        """The running lessons of the classes ``user`` attends."""
        if not user.is_authenticated:
            return self.none()
        return self.running().filter(classroom__memberships__user=user)


class LiveSession(models.Model):
    classroom = models.ForeignKey(
        Classroom, on_delete=models.CASCADE, related_name="live_sessions", verbose_name=_("class")
    )
    teacher = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    title = models.CharField(gettext_lazy("title"), max_length=120, blank=True)
    variant = models.CharField(gettext_lazy("variant"), max_length=20, choices=VARIANT_CHOICES)
    started = models.DateTimeField(default=timezone.now, editable=False)
    ended = models.DateTimeField(null=True, blank=True)
    #: the step shown (0-based), and the shared board: its position, last move, arrows and marks
    index = models.PositiveIntegerField(default=0)
    fen = models.CharField(max_length=400)
    #: {"route": [22, 18], "text": "22-18"} or {}
    last_move = models.JSONField(default=dict, blank=True)
    #: routes, each a list of squares from start to end
    arrows = models.JSONField(default=list, blank=True)
    marks = models.JSONField(default=list, blank=True)
    #: the number of the current (or last) question; its position, how it is judged, its state
    question = models.PositiveIntegerField(default=0)
    question_open = models.BooleanField(default=False)
    question_fen = models.CharField(max_length=400, blank=True)
    question_puzzle = models.ForeignKey(
        Puzzle, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    expected = models.JSONField(default=list, blank=True)
    revealed = models.BooleanField(default=False)
    #: the solution's moves from the question's position (routes as the engine writes them)
    solution = models.JSONField(default=list, blank=True)
    #: how many moves of the solution are on the shared board (None: not replaying)
    replay_ply = models.PositiveIntegerField(null=True, blank=True)
    #: a student's answer on the shared board for discussion
    shown = models.ForeignKey(
        "LiveAnswer", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    #: raised by every change: pages and sockets compare it to know they are behind
    version = models.PositiveIntegerField(default=1)
    #: raised whenever someone leaves the class (a student removed, a teacher taken off): every
    #: push carries it, and a socket whose kept roster is older checks its user is still in
    roster = models.PositiveIntegerField(default=0)

    objects = LiveSessionQuerySet.as_manager()

    class Meta:
        ordering = ["-started", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["classroom"], condition=Q(ended__isnull=True), name="live_one_running"
            )
        ]
        verbose_name = gettext_lazy("live lesson")
        verbose_name_plural = gettext_lazy("live lessons")

    def __str__(self) -> str:
        return self.title or str(self.classroom)

    def get_absolute_url(self) -> str:
        return reverse("live:session", args=[self.pk])

    @property
    def group(self) -> str:
        return push.group_name(self.pk)

    # -- who may take part ------------------------------------------------------------------------

    def role_of(self, user) -> str:
        """``teacher`` (a teacher of the class), ``student`` (a student of it) or ""."""
        if not user.is_authenticated:
            return ""
        if self.classroom.teachers.filter(pk=user.pk).exists():
            return "teacher"
        if self.classroom.memberships.filter(user=user).exists():
            return "student"
        return ""

    @classmethod
    def someone_left(cls, classroom_id: int, user_id: int) -> None:
        """``user_id`` is no longer in class ``classroom_id``: the roster of its running lesson
        (and of any lesson where the user still has a socket) is raised and, once committed,
        the user's sockets in them close (:func:`live.push.left`); a socket that misses that
        message checks at the next push, which carries the new roster."""
        sessions = list(
            cls.objects.filter(classroom_id=classroom_id)
            .filter(Q(ended__isnull=True) | Q(sockets__user_id=user_id))
            .values_list("pk", flat=True)
            .distinct()
        )
        if not sessions:
            return
        cls.objects.filter(pk__in=sessions).update(roster=F("roster") + 1)
        for pk in sessions:
            transaction.on_commit(lambda pk=pk: push.left(pk, user_id))

    # -- starting ------------------------------------------------------------------------------

    @classmethod
    def start(
        cls, classroom: Classroom, teacher, steps: list[StepData], title: str = ""
    ) -> LiveSession:
        """A new lesson of ``classroom`` on ``steps`` (the start position when there are none);
        a lesson of the class still running is ended first."""
        variant = classroom.variant
        if not steps:
            steps = [StepData(core_board.start_board(variant).fen(), _("Starting position"))]
        if len(steps) > MAX_STEPS:
            raise too_many_positions()
        for step in steps:
            core_board.board_from_fen(step.fen, variant)
        with transaction.atomic():
            for old in cls.objects.select_for_update().filter(classroom=classroom, ended=None):
                old.ended = timezone.now()
                old.version = F("version") + 1
                old.save(update_fields=["ended", "version"])
                pk = old.pk
                transaction.on_commit(lambda pk=pk: push.changed(pk))
            session = cls.objects.create(
                classroom=classroom,
                teacher=teacher,
                title=title[:120],
                variant=variant,
                fen=steps[0].fen,
            )
            LiveStep.objects.bulk_create(
                LiveStep(
                    session=session,
                    position=n,
                    fen=step.fen,
                    title=step.title[:200],
                    puzzle=step.puzzle,
                    expected=list(step.expected),
                )
                for n, step in enumerate(steps)
            )
        return session

    # -- the changes -----------------------------------------------------------------------------

    def _locked(self) -> LiveSession:
        return LiveSession.objects.select_for_update().get(pk=self.pk)

    def _save(self, fresh: LiveSession, fields: list[str]) -> None:
        """Write ``fields`` of the locked row ``fresh`` with a new version, then take them."""
        fresh.version = F("version") + 1
        fresh.save(update_fields=[*fields, "version"])
        fresh.refresh_from_db()
        for name in [*fields, "version"]:
            setattr(self, name, getattr(fresh, name))
        if "shown" in fields:
            self.shown_id = fresh.shown_id
        if "question_puzzle" in fields:
            self.question_puzzle_id = fresh.question_puzzle_id
        pk, version, roster = self.pk, self.version, fresh.roster
        transaction.on_commit(lambda: push.changed(pk, version, roster))

    def _check_running(self, fresh: LiveSession) -> None:
        if fresh.ended is not None:
            raise ValidationError(_("This live lesson has ended."), code="ended")

    BOARD_FIELDS = ["fen", "last_move", "arrows", "marks", "shown", "replay_ply"]

    @transaction.atomic
    def go_to(self, index: int) -> None:
        """Show step ``index``: its position on the shared board, no question open."""
        fresh = self._locked()
        self._check_running(fresh)
        step = fresh.steps.filter(position=index).first()
        if step is None:
            raise ValidationError(_("There is no such position in this lesson."), code="index")
        fresh.index = index
        fresh.fen = step.fen
        fresh.last_move, fresh.arrows, fresh.marks = {}, [], []
        fresh.shown = None
        fresh.replay_ply = None
        fresh.question_open = False
        fresh.revealed = False
        self._save(fresh, ["index", "question_open", "revealed", *self.BOARD_FIELDS])

    @transaction.atomic
    def play(self, *, route: str = "", text: str = "") -> core_board.Entry:
        """Play the move the teacher entered on the shared board (not while a question is open).
        A capture entered landing by landing that goes on is answered without a change."""
        fresh = self._locked()
        self._check_running(fresh)
        if fresh.question_open:
            raise ValidationError(
                _("Close the question before playing on the board."), code="question"
            )
        board = core_board.board_from_fen(fresh.fen, fresh.variant)
        if board.outcome() is not None:
            raise ValidationError(_("The game is over in this position."), code="over")
        entry = core_board.read_entry(board, route=route, text=text)
        if entry.status == "continue":
            return entry
        if entry.move is None:
            raise entry.error()
        board.push(entry.move)
        fresh.fen = board.fen()
        fresh.last_move = {"route": list(entry.move.routes[0]), "text": entry.notation}
        fresh.arrows, fresh.marks = [], []
        fresh.shown = None
        fresh.replay_ply = None
        self._save(fresh, self.BOARD_FIELDS)
        return entry

    @transaction.atomic
    def draw(self, text: str) -> None:
        """Draw on the shared board: a square (``27``) is marked, two (``22-18``, ``c3-d4``) make
        an arrow; drawing the same again takes it away."""
        fresh = self._locked()
        self._check_running(fresh)
        board = core_board.board_from_fen(fresh.fen, fresh.variant)
        squares = parse_squares(board, text)
        if len(squares) == 1:
            sq = squares[0]
            marks = [m for m in fresh.marks if m != sq]
            fresh.marks = marks if len(marks) < len(fresh.marks) else [*fresh.marks, sq]
            self._save(fresh, ["marks"])
        else:
            arrow = squares[:2]
            arrows = [a for a in fresh.arrows if list(a) != arrow]
            fresh.arrows = arrows if len(arrows) < len(fresh.arrows) else [*fresh.arrows, arrow]
            self._save(fresh, ["arrows"])

    @transaction.atomic
    def clear_drawing(self) -> None:
        fresh = self._locked()
        self._check_running(fresh)
        fresh.arrows, fresh.marks = [], []
        fresh.shown = None
        self._save(fresh, ["arrows", "marks", "shown"])

    @transaction.atomic
    def add_current_position(self, title: str = "") -> LiveStep:
        """Keep the shared board's position as a new step at the end of the lesson (a position
        played on the board during the lesson) and show it."""
        fresh = self._locked()
        self._check_running(fresh)
        count = fresh.steps.count()
        if count >= MAX_STEPS:
            raise too_many_positions()
        step = LiveStep.objects.create(
            session=fresh, position=count, fen=fresh.fen, title=title[:200]
        )
        fresh.index = count
        self._save(fresh, ["index"])
        return step

    @transaction.atomic
    def ask(self, expected_text: str = "") -> None:
        """Open a question on the shared board's position. The step's puzzle judges it when the
        board shows the puzzle's position; otherwise the moves in ``expected_text`` (comma or
        space separated, any notation) do, and without them answers are counted, not judged."""
        fresh = self._locked()
        self._check_running(fresh)
        board = core_board.board_from_fen(fresh.fen, fresh.variant)
        if board.outcome() is not None:
            raise ValidationError(_("The game is over in this position."), code="over")
        step = fresh.current_step
        puzzle = step.puzzle if step is not None else None
        if puzzle is not None and (
            puzzle.for_exams
            or puzzle.fen != fresh.fen
            or puzzle.judge().at([]) is None
            or expected_text.strip()
        ):
            # kept for the exams (its proof never shows), moved on from the puzzle's position,
            # not proven, or the teacher says
            puzzle = None
        expected: list[str] = []
        texts = expected_text.replace(",", " ").replace(";", " ").split()
        if len(texts) > MAX_EXPECTED:
            raise ValidationError(
                ngettext(
                    "Give at most %(n)d expected move.",
                    "Give at most %(n)d expected moves.",
                    MAX_EXPECTED,
                )
                % {"n": MAX_EXPECTED},
                code="expected",
            )
        if not texts and puzzle is None and step is not None and step.fen == fresh.fen:
            texts = list(step.expected)  # the step's own (a lesson's answers, a teacher's list)
        for text in texts:
            entry = core_board.read_entry(board, text=text)
            if entry.move is None:
                raise ValidationError(
                    _("Expected move %(move)s: %(reason)s")
                    % {"move": text, "reason": entry.message},
                    code="expected",
                )
            expected.append(entry.route)
        solution: list[str] = []
        if puzzle is not None:
            solution = list(puzzle.judge().solution)
        elif expected:
            solution = [expected[0]]
        fresh.question = F("question") + 1
        fresh.question_open = True
        fresh.question_fen = fresh.fen
        fresh.question_puzzle = puzzle
        fresh.expected = expected
        fresh.solution = solution
        fresh.revealed = False
        fresh.replay_ply = None
        fresh.shown = None
        fresh.arrows, fresh.marks = [], []
        self._save(
            fresh,
            [
                "question",
                "question_open",
                "question_fen",
                "question_puzzle",
                "expected",
                "solution",
                "revealed",
                "replay_ply",
                "shown",
                "arrows",
                "marks",
            ],
        )

    @transaction.atomic
    def close_question(self) -> None:
        fresh = self._locked()
        self._check_running(fresh)
        fresh.question_open = False
        self._save(fresh, ["question_open"])

    @transaction.atomic
    def reveal(self) -> None:
        """Close the question and show its solution: the first move as an arrow on the
        question's position."""
        fresh = self._locked()
        self._check_running(fresh)
        if not fresh.question:
            raise ValidationError(_("No question has been asked yet."), code="question")
        fresh.question_open = False
        fresh.revealed = True
        fresh.fen = fresh.question_fen
        fresh.last_move, fresh.marks = {}, []
        fresh.arrows = (
            [fresh._route(fresh.question_fen, fresh.solution[0])] if fresh.solution else []
        )
        fresh.shown = None
        fresh.replay_ply = None
        self._save(fresh, ["question_open", "revealed", *self.BOARD_FIELDS])

    @transaction.atomic
    def replay(self, step: int = 1) -> None:
        """Play the revealed solution on the shared board one move further (``step`` 1), one
        back (-1), or from the start again (0)."""
        fresh = self._locked()
        self._check_running(fresh)
        if not fresh.revealed or not fresh.solution:
            raise ValidationError(_("Reveal the solution first."), code="replay")
        ply = 0 if step == 0 else max(0, min(len(fresh.solution), (fresh.replay_ply or 0) + step))
        board, texts = core_board.play_line(fresh.variant, fresh.question_fen, fresh.solution[:ply])
        last = board.peek()
        fresh.fen = board.fen()
        fresh.last_move = {"route": list(last.routes[0]), "text": texts[-1]} if ply else {}
        fresh.arrows, fresh.marks = [], []
        fresh.shown = None
        fresh.replay_ply = ply
        self._save(fresh, self.BOARD_FIELDS)

    @transaction.atomic
    def show_answer(self, answer_id: int) -> LiveAnswer:
        """Put a student's answer to the current question on the shared board: an arrow on
        the question's position."""
        fresh = self._locked()
        self._check_running(fresh)
        answer = fresh.answers.filter(pk=answer_id, question=fresh.question).first()
        if answer is None:
            raise ValidationError(_("There is no such answer to this question."), code="answer")
        fresh.fen = fresh.question_fen
        fresh.last_move, fresh.marks = {}, []
        fresh.arrows = [fresh._route(fresh.question_fen, answer.route)]
        fresh.shown = answer
        fresh.replay_ply = None
        self._save(fresh, self.BOARD_FIELDS)
        return answer

    @transaction.atomic
    def end(self) -> None:
        fresh = self._locked()
        if fresh.ended is not None:
            return
        fresh.ended = timezone.now()
        fresh.question_open = False
        self._save(fresh, ["ended", "question_open"])

    # -- answers -------------------------------------------------------------------------------

    def answer(self, student, *, route: str = "", text: str = "") -> Reply:
        """Judge and record ``student``'s move for the open question (read fresh from the
        database: a question closed a moment ago takes no more answers)."""
        state = (
            LiveSession.objects.filter(pk=self.pk)
            .values("question", "question_open", "question_fen", "ended")
            .first()
        )
        if not state or not state["question_open"] or state["ended"] is not None:
            return Reply("closed", _("No question is open now: watch the teacher's board."))
        question = state["question"]
        mine = self.answers.filter(question=question, student=student).first()
        if mine is not None:
            return Reply(
                "already",
                _("You have already answered: %(move)s.") % {"move": mine.notation},
                answer=mine,
            )
        board = core_board.board_from_fen(state["question_fen"], self.variant)
        entry = core_board.read_entry(board, route=route, text=text)
        if entry.status == "continue":
            return Reply("continue", entry.message, path=entry.path)
        if entry.move is None:
            return Reply(entry.status, entry.message, article=entry.article, squares=entry.squares)
        correct = self._judge(board, entry)
        try:
            with transaction.atomic():
                answer = LiveAnswer.objects.create(
                    session=self,
                    question=question,
                    student=student,
                    route=entry.route,
                    notation=entry.notation,
                    correct=correct,
                )
        except IntegrityError:  # the same student's second tab, a moment earlier
            answer = LiveAnswer.objects.get(session=self, question=question, student=student)
            return Reply(
                "already",
                _("You have already answered: %(move)s.") % {"move": answer.notation},
                answer=answer,
            )
        pk, roster = self.pk, self.roster
        transaction.on_commit(lambda: push.answered(pk, roster))
        return Reply(
            "recorded", _("Your answer %(move)s is in.") % {"move": entry.notation}, answer=answer
        )

    def _judge(self, board, entry: core_board.Entry) -> bool | None:
        """Whether ``entry`` answers the question: by the puzzle's proof, or the expected moves;
        None when nothing judges the position."""
        fresh = LiveSession.objects.filter(pk=self.pk).values(
            "question_puzzle", "expected"
        ).first() or {"question_puzzle": None, "expected": []}
        if fresh["question_puzzle"]:
            # without its proof column: the judge comes from the process's judges (kept_judge)
            puzzle = Puzzle.objects.defer("proof").filter(pk=fresh["question_puzzle"]).first()
            if puzzle is not None:
                start, end, captured = entry.key
                return puzzle.judge().find([], (start, end, frozenset(captured))) is not None
        if fresh["expected"]:
            keys = {core_board.read_entry(board, text=route).key for route in fresh["expected"]}
            return entry.key in keys
        return None

    # -- reading ---------------------------------------------------------------------------------

    @property
    def current_step(self) -> LiveStep | None:
        return self.steps.filter(position=self.index).select_related("puzzle").first()

    #: the teacher's next action, by the lesson's state (:meth:`next_action`)
    ASK, CLOSE, REVEAL, NEXT = "ask", "close", "reveal", "next"

    def next_action(self, steps_count: int) -> str:
        """What the teacher does next in the lesson as it stands, the one action the page puts
        first: close the open question; reveal the solution of a closed question still on the
        board; after the solution, go on to the next position (when there is one); else ask a
        question on the board's position.

        >>> s = LiveSession(fen="W:W22:B9", question=1, question_fen="W:W22:B9", index=0)
        >>> s.question_open = True; s.next_action(2)
        'close'
        >>> s.question_open = False; s.next_action(2)
        'reveal'
        >>> s.revealed = True; s.next_action(2), s.next_action(1)
        ('next', 'ask')
        """
        if self.question_open:
            return self.CLOSE
        if self.question and not self.revealed and self.fen == self.question_fen:
            return self.REVEAL
        if self.revealed and self.index + 1 < steps_count:
            return self.NEXT
        return self.ASK

    def _route(self, fen: str, move: str) -> list[int]:
        """The squares of ``move`` (any notation) on ``fen``, for an arrow."""
        board = core_board.board_from_fen(fen, self.variant)
        entry = core_board.read_entry(board, text=move)
        return list(entry.move.routes[0]) if entry.move is not None else []

    def current_answers(self) -> models.QuerySet[LiveAnswer]:
        return self.answers.filter(question=self.question).select_related("student")

    def results(self) -> dict:
        """The current question's answers for the teacher: how many answered of the students,
        the count of each answer (most first) and each student's answer."""
        answers = list(self.current_answers().order_by("created", "pk"))
        students = list(self.classroom.students())
        connected = (
            LiveSocket.objects.alive().filter(session=self).values_list("user_id", flat=True)
        )
        present = set(connected) & {s.pk for s in students}  # the students (not the teachers)
        counts: dict[str, dict] = {}
        for a in answers:
            row = counts.setdefault(
                a.notation, {"notation": a.notation, "count": 0, "correct": a.correct}
            )
            row["count"] += 1
        by_student = {a.student_id: a for a in answers}
        return {
            "answered": len(answers),
            "students": len(students),
            "present": len(present),
            "right": sum(1 for a in answers if a.correct),
            "counts": sorted(counts.values(), key=lambda r: (-r["count"], r["notation"])),
            "rows": [
                {"student": s, "answer": by_student.get(s.pk), "present": s.pk in present}
                for s in students
            ],
        }


class LiveStep(models.Model):
    """A position of a live lesson, in order: from a puzzle set (judged by the puzzle's proof), a
    lesson step or the teacher's own position (judged by the expected moves)."""

    session = models.ForeignKey(LiveSession, on_delete=models.CASCADE, related_name="steps")
    position = models.PositiveIntegerField()
    fen = models.CharField(max_length=400)
    title = models.CharField(max_length=200, blank=True)
    puzzle = models.ForeignKey(
        Puzzle, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    #: moves the teacher expects (routes), when no puzzle judges the position
    expected = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["session", "position"]
        constraints = [
            models.UniqueConstraint(fields=["session", "position"], name="live_step_position")
        ]

    def __str__(self) -> str:
        return self.title or f"{self.position + 1}"


class LiveAnswer(models.Model):
    """A student's move for one question of a lesson, as judged when it came in."""

    session = models.ForeignKey(LiveSession, on_delete=models.CASCADE, related_name="answers")
    question = models.PositiveIntegerField()
    student = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="live_answers"
    )
    route = models.CharField(max_length=200)
    notation = models.CharField(max_length=100)
    #: None: nothing judged the position (the teacher expected no move)
    correct = models.BooleanField(null=True)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["session", "question", "created"]
        constraints = [
            models.UniqueConstraint(
                fields=["session", "question", "student"], name="live_one_answer"
            )
        ]

    def __str__(self) -> str:
        return f"{self.student} {self.notation}"


class LiveParticipant(models.Model):
    """A student or teacher who opened the lesson (a reconnect takes the same row, so a student
    stays in the lesson); their open sockets are :class:`LiveSocket` rows."""

    session = models.ForeignKey(LiveSession, on_delete=models.CASCADE, related_name="participants")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    joined = models.DateTimeField(default=timezone.now)
    seen = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["session", "user"], name="live_one_participant")
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.session}"

    @property
    def connected(self) -> int:
        """How many sockets the user has open in the lesson."""
        return LiveSocket.objects.alive().filter(session=self.session_id, user=self.user_id).count()

    @classmethod
    def connect(cls, session_id: int, user, channel: str) -> bool:
        """The user's socket ``channel`` opens in the lesson: True, or False when the user has
        ``DAMA_LIVE_SOCKETS_PER_USER`` open there already (:meth:`LiveSocket.take`)."""
        row, _created = cls.objects.get_or_create(session_id=session_id, user_id=user.pk)
        cls.objects.filter(pk=row.pk).update(seen=timezone.now())
        return LiveSocket.take(session_id, user.pk, channel)

    @classmethod
    def disconnect(cls, session_id: int, user, channel: str) -> None:
        LiveSocket.objects.filter(channel=channel).delete()
        cls.objects.filter(session_id=session_id, user_id=user.pk).update(seen=timezone.now())


class LiveSocketQuerySet(models.QuerySet["LiveSocket"]):
    def alive(self) -> LiveSocketQuerySet:
        """The sockets whose consumer said it was alive lately (a process killed without closing
        its sockets stops saying so: its rows go stale and free their slots)."""
        return self.filter(seen__gte=timezone.now() - timedelta(seconds=LiveSocket.STALE))


class LiveSocket(models.Model):
    """An open WebSocket of a user in a lesson, in one of the user's numbered slots there.

    The slots are what limits one user's sockets in a lesson across every ASGI process of the
    site: ``(session, user, slot)`` is unique, a socket takes a free slot below
    ``DAMA_LIVE_SOCKETS_PER_USER`` (an insert that fails when another process took it), and
    there is no other slot. The consumer marks its row ``seen`` every :attr:`HEARTBEAT` seconds
    and deletes it when the socket closes; a row not seen for :attr:`STALE` seconds (its process
    died without closing it) is taken for closed: not counted, and deleted when a slot is
    wanted."""

    #: seconds between a consumer's marks; a row older than STALE is a dead process's
    HEARTBEAT = 30
    STALE = 90

    session = models.ForeignKey(LiveSession, on_delete=models.CASCADE, related_name="sockets")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    slot = models.PositiveSmallIntegerField()
    #: the consumer's channel name (unique to the socket)
    channel = models.CharField(max_length=200, unique=True)
    opened = models.DateTimeField(default=timezone.now)
    seen = models.DateTimeField(default=timezone.now)

    objects = LiveSocketQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["session", "user", "slot"], name="live_socket_slot")
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.session} ({self.slot})"

    @classmethod
    def take(cls, session_id: int, user_id: int, channel: str) -> bool:
        """Take a free slot for socket ``channel``: False when every slot is taken."""
        now = timezone.now()
        mine = cls.objects.filter(session_id=session_id, user_id=user_id)
        mine.filter(seen__lt=now - timedelta(seconds=cls.STALE)).delete()  # dead processes'
        taken = set(mine.values_list("slot", flat=True))
        for slot in range(settings.DAMA_LIVE_SOCKETS_PER_USER):
            if slot in taken:
                continue
            try:
                with transaction.atomic():
                    cls.objects.create(
                        session_id=session_id, user_id=user_id, slot=slot, channel=channel
                    )
            except IntegrityError:  # another process took this slot a moment ago
                continue
            return True
        return False

    @classmethod
    def beat(cls, channel: str) -> None:
        """The consumer of ``channel`` is alive."""
        cls.objects.filter(channel=channel).update(seen=timezone.now())
