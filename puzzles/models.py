"""Puzzles and their proofs.

A puzzle is a position, a goal and a horizon. Saving a new puzzle, or changing what it asks
(position, goal, horizon, intended solution, limits), bumps its ``revision`` and enqueues its
verification on the ``verify`` queue once the transaction commits. The task
(:mod:`puzzles.tasks`) proves the revision it was given and writes the verdict with a conditional
update, so a verdict can never land on a puzzle that changed in the meantime.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.apps import apps
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import Case, Exists, ExpressionWrapper, F, OuterRef, Q, Value, When
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.kept import Kept, bump
from core.variants import VARIANT_CHOICES

from . import engine, glicko2, signals
from .trainer import (
    Conflict,
    Judge,
    Outcome,
    Result,
    build_judge,
    cached_judge,
    refutation_message,
)

if TYPE_CHECKING:
    from .player import Player

logger = logging.getLogger(__name__)


class Verdict(models.TextChoices):
    PENDING = "pending", _("waiting for a worker")
    RUNNING = "running", _("being proven")
    UNIQUE = "unique", _("unique")
    COOKED = "cooked", _("cooked (more than one solution)")
    NO_SOLUTION = "no_solution", _("no solution")
    UNDECIDED = "undecided", _("undecided (limits reached)")
    ERROR = "error", _("error")


#: verdicts that end a proof (a delivery of the same revision finding one of these does nothing)
FINAL = (Verdict.UNIQUE, Verdict.COOKED, Verdict.NO_SOLUTION, Verdict.UNDECIDED, Verdict.ERROR)
#: the fields that define what a puzzle asks; changing one makes the proof void
CONTENT_FIELDS = ("variant", "fen", "goal", "horizon", "solution", "limits")
#: a puzzle the trainer can serve: proven unique, with a proof whose tree is complete (the trainer
#: judges by it). The pool's queries filter by it; a served row carries it as ``servable``.
SERVABLE = Q(verdict=Verdict.UNIQUE, proof__isnull=False, proof_complete=True)


def default_limits() -> dict[str, Any]:
    return engine.default_limits(settings.DAMA_PROOF_NODES, settings.DAMA_PROOF_SECONDS)


class PuzzleQuerySet(models.QuerySet["Puzzle"]):
    def proven(self) -> PuzzleQuerySet:
        """Puzzles with a unique solution (of any author: see :meth:`public`)."""
        return self.filter(verdict=Verdict.UNIQUE)

    def public(self) -> PuzzleQuerySet:
        """The site's own pool: the shipped and mined corpus (no author) and the puzzles staff
        made public. Teachers' puzzles stay with their sets (the stream, the daily puzzle and
        the corpus search never offer them)."""
        return self.filter(Q(author__isnull=True) | Q(public=True))

    def needing_proof(self) -> PuzzleQuerySet:
        return self.filter(verdict__in=[Verdict.PENDING, Verdict.ERROR])

    def stale(self) -> PuzzleQuerySet:
        """Puzzles whose verdict was not made by the current engine (or that have none yet)."""
        return self.exclude(engine_version=engine.engine_version())

    def lost(self, now=None) -> PuzzleQuerySet:
        """Proofs that look lost: pending for too long, or running without a sign of life."""
        now = now or timezone.now()
        pending_cutoff = now - timedelta(seconds=settings.DAMA_VERIFY_PENDING_SECONDS)
        stall_cutoff = now - timedelta(seconds=settings.DAMA_VERIFY_STALL_SECONDS)
        return self.filter(
            Q(verdict=Verdict.PENDING, queued_at__lt=pending_cutoff)
            | Q(verdict=Verdict.PENDING, queued_at__isnull=True)
            | Q(verdict=Verdict.RUNNING, progress_updated__lt=stall_cutoff)
            | Q(verdict=Verdict.RUNNING, progress_updated__isnull=True)
        )

    def enqueue(self, *, force: bool = False) -> int:
        """Enqueue the verification of every puzzle here (on commit). ``force`` first sets them
        back to pending, so that even a current verdict is proven again. Returns how many."""
        count = 0
        for pk, revision in self.values_list("pk", "revision"):
            if Puzzle.request_verification(pk, revision, force=force):
                count += 1
        return count

    def import_data(self, data: engine.PuzzleData, *, author=None) -> tuple[Puzzle, str]:
        """Create or update the puzzle ``data`` describes, keyed by variant, position, goal and
        author (the corpus is the rows without an author).

        Returns the puzzle and ``"created"``, ``"updated"`` or ``"unchanged"``. A new puzzle
        stores the proof shipped with it when that proof is about this very puzzle; otherwise
        (and when what it asks changed) its verification is enqueued. Raises ValidationError.
        """
        fen = engine.normalize_fen(data.fen, data.variant)
        goal = engine.normalize_goal(data.goal)
        horizon = engine.fixed_horizon(goal) or data.horizon or engine.default_horizon(goal)
        fields: dict[str, Any] = {
            "horizon": horizon,
            "solution": list(data.solution),
            "motifs": list(data.motifs),
            "source": data.source[:200],
            "title": data.title[:200],
            "description": data.description,
        }
        if data.difficulty:
            fields["difficulty"] = data.difficulty
        owner = Q(author__isnull=True) if author is None else Q(author=author)
        puzzle = self.filter(owner, variant=data.variant, fen=fen, goal=goal).first()
        if puzzle is None:
            puzzle = Puzzle(variant=data.variant, fen=fen, goal=goal, author=author, **fields)
            puzzle.full_clean(validate_constraints=False)
            if data.proof is not None:
                puzzle.adopt_proof(data.proof)
            puzzle.save()
            return puzzle, "created"
        changed = [k for k, v in fields.items() if getattr(puzzle, k) != v]
        if not changed:
            return puzzle, "unchanged"
        for key in changed:
            setattr(puzzle, key, fields[key])
        puzzle.full_clean(validate_constraints=False)
        puzzle.save()
        return puzzle, "updated"


class Puzzle(models.Model):
    variant = models.CharField(_("variant"), max_length=20, choices=VARIANT_CHOICES)
    fen = models.CharField(
        _("position (FEN)"), max_length=400, help_text=_("The side to move is the solver.")
    )
    goal = models.CharField(
        _("goal"),
        max_length=20,
        default="capture",
        help_text=_("capture, gain:N (win N points of material: man 1, king 3) or win."),
    )
    horizon = models.PositiveSmallIntegerField(
        _("horizon"),
        null=True,
        blank=True,
        help_text=_(
            "Moves of the side to move within which the goal is reached (1 for capture; empty: the goal's default)."
        ),
    )
    solution = models.JSONField(
        _("intended solution"),
        default=list,
        blank=True,
        help_text=_('The moves of the author\'s solution, both sides, e.g. ["22-18", "13x22"].'),
    )
    source = models.CharField(_("source"), max_length=200, blank=True)
    # a teacher's puzzles go with the account (with no author they would join the public corpus)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="puzzles",
        verbose_name=_("author"),
    )
    public = models.BooleanField(
        _("public"),
        default=False,
        help_text=_(
            "Offer this teacher's puzzle to everyone (stream, daily puzzle, corpus search). "
            "Puzzles without an author always are."
        ),
    )
    title = models.CharField(_("title"), max_length=200, blank=True)
    description = models.TextField(_("description"), blank=True)
    motifs = models.JSONField(_("motifs"), default=list, blank=True)
    difficulty = models.PositiveSmallIntegerField(_("difficulty"), default=1500)
    # how good a daily puzzle it makes: an estimate from its motifs, then players' votes
    quality = models.PositiveSmallIntegerField(_("quality estimate"), default=0)
    likes = models.PositiveIntegerField(_("likes"), default=0)
    dislikes = models.PositiveIntegerField(_("dislikes"), default=0)

    # the proof and its provenance (written by the verification task only)
    verdict = models.CharField(
        _("verdict"), max_length=12, choices=Verdict, default=Verdict.PENDING
    )
    proof = models.JSONField(_("proof"), null=True, blank=True)
    #: whether the proof's tree is complete (the trainer judges by it; a proof without the key
    #: is): kept by the database from the proof on every write, ``update()`` included, so that
    #: reading the pool does not open every proof's JSON (13 ms for 3,000 puzzles)
    proof_complete = models.GeneratedField(
        expression=Case(
            When(proof__proof_complete=False, then=Value(False)),
            default=Value(True),
        ),
        output_field=models.BooleanField(),
        db_persist=True,
    )
    engine_version = models.CharField(_("engine version"), max_length=40, blank=True)
    limits = models.JSONField(
        _("limits"),
        default=default_limits,
        blank=True,
        help_text=_("Search limits of the proof: nodes, seconds, max_depth (plies)."),
    )
    nodes = models.BigIntegerField(_("nodes"), default=0)
    seconds = models.FloatField(_("seconds"), default=0.0)
    depth = models.PositiveSmallIntegerField(_("depth (plies)"), default=0)
    verified_at = models.DateTimeField(_("verified at"), null=True, blank=True)
    revision = models.PositiveIntegerField(_("revision"), default=1, editable=False)
    error = models.TextField(_("error"), blank=True)
    worker = models.CharField(_("worker"), max_length=200, blank=True)
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)

    # live progress of a running proof
    queued_at = models.DateTimeField(_("queued at"), null=True, blank=True)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    progress_nodes = models.BigIntegerField(_("nodes so far"), default=0)
    progress_depth = models.PositiveSmallIntegerField(_("depth so far (plies)"), default=0)
    progress_updated = models.DateTimeField(_("progress updated"), null=True, blank=True)

    created = models.DateTimeField(_("created"), default=timezone.now, editable=False)
    updated = models.DateTimeField(_("updated"), auto_now=True)

    objects = PuzzleQuerySet.as_manager()

    class Meta:
        ordering = ["variant", "difficulty", "pk"]
        constraints = [
            # the corpus has one puzzle per position and goal (loading it is idempotent); a
            # teacher's puzzles are their own rows (copied on write, see classroom.views)
            models.UniqueConstraint(
                fields=["variant", "fen", "goal"],
                condition=Q(author__isnull=True),
                name="puzzle_unique_corpus_position_and_goal",
            )
        ]
        indexes = [
            models.Index(fields=["variant", "verdict", "difficulty"]),
            models.Index(fields=["verdict", "queued_at"]),
        ]
        verbose_name = _("puzzle")
        verbose_name_plural = _("puzzles")

    def __str__(self) -> str:
        label = self.title or f"{self.get_variant_display()} {self.goal}"
        return f"#{self.pk} {label}" if self.pk else str(label)

    def get_absolute_url(self) -> str:
        return reverse("puzzles:proof", args=[self.variant, self.pk])

    # -- loading and change tracking ---------------------------------------------------------------

    @classmethod
    def from_db(cls, db, field_names, values):
        obj = super().from_db(db, field_names, values)
        obj._loaded = obj._content()
        return obj

    def _content(self) -> dict[str, Any]:
        deferred = self.get_deferred_fields()
        return {f: getattr(self, f) for f in CONTENT_FIELDS if f not in deferred}

    def content_changed(self) -> bool:
        """True when what the puzzle asks differs from the row it was loaded from."""
        loaded = getattr(self, "_loaded", None)
        if loaded is None:
            return self._state.adding
        current = self._content()
        return any(current.get(k) != v for k, v in loaded.items())

    # -- validation --------------------------------------------------------------------------------

    def clean(self) -> None:
        errors: dict[str, list[ValidationError]] = {}
        try:
            self.fen = engine.normalize_fen(self.fen, self.variant)
        except ValidationError as exc:
            errors.setdefault("fen", []).append(exc)
        try:
            self.goal = engine.normalize_goal(self.goal)
        except ValidationError as exc:
            errors.setdefault("goal", []).append(exc)
        else:
            fixed = engine.fixed_horizon(self.goal)
            if fixed is not None:
                self.horizon = fixed
        if not isinstance(self.limits, dict):
            errors.setdefault("limits", []).append(
                ValidationError(_("The limits must be an object."), code="limits")
            )
        else:
            try:
                self.limits = engine.check_limits(self.horizon, {**default_limits(), **self.limits})
            except ValidationError as exc:
                errors.setdefault("limits", []).append(exc)
            else:
                if self.limits["seconds"] > settings.DAMA_PROOF_MAX_SECONDS:
                    errors.setdefault("limits", []).append(
                        ValidationError(
                            _("A proof may take at most %(max)s seconds.")
                            % {"max": settings.DAMA_PROOF_MAX_SECONDS},
                            code="limits",
                        )
                    )
        if self.author_id is not None:  # a teacher's puzzle: the site's limits for teaching
            from .verification import check_author_horizon

            try:
                check_author_horizon(self.horizon)
            except ValidationError as exc:
                errors.setdefault("horizon", []).append(exc)
        if not isinstance(self.solution, list) or not all(
            isinstance(m, str) for m in self.solution
        ):
            errors.setdefault("solution", []).append(
                ValidationError(_("The solution must be a list of moves."), code="solution")
            )
        elif self.solution and "fen" not in errors:
            try:
                engine.check_line(self.variant, self.fen, self.solution)
            except ValidationError as exc:
                errors.setdefault("solution", []).append(exc)
        if not isinstance(self.motifs, list):
            errors.setdefault("motifs", []).append(
                ValidationError(_("The motifs must be a list."), code="motifs")
            )
        if errors:
            raise ValidationError(errors)

    # -- saving and verification -------------------------------------------------------------------

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Save; a new puzzle, or a change to what it asks, voids the proof and enqueues a new one."""
        creating = self._state.adding
        changed = not creating and self.content_changed()
        self.fill_horizon()
        self.limits = {**default_limits(), **(self.limits or {})}
        update_fields = kwargs.get("update_fields")
        if update_fields is None and isinstance(self.motifs, list):
            self.quality = engine.quality(self.goal, self.horizon, self.motifs)
        if changed:
            self.revision = F("revision") + 1
            self._void_proof()
            if update_fields is not None:
                kwargs["update_fields"] = {*update_fields, *VOIDED_FIELDS, "revision"}
        if (creating or changed) and self.verdict == Verdict.PENDING:
            self.queued_at = timezone.now()
            if update_fields is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "queued_at"}
        super().save(*args, **kwargs)
        if changed:
            self.refresh_from_db(fields=["revision"])
        self._loaded = self._content()
        if (creating or changed) and self.verdict == Verdict.PENDING:
            enqueue_on_commit(self.pk, self.revision)

    def fill_horizon(self) -> None:
        """The goal's fixed horizon, or its default when none is given (as saving does)."""
        try:  # a goal that was never cleaned is left for the proof to report
            fixed = engine.fixed_horizon(self.goal)
            if fixed is not None:
                self.horizon = fixed
            if self.horizon is None:
                self.horizon = engine.default_horizon(self.goal)
        except ValueError:
            pass

    def _void_proof(self) -> None:
        self.verdict = Verdict.PENDING
        self.proof = None
        self.engine_version = ""
        self.nodes = self.depth = self.progress_nodes = self.progress_depth = 0
        self.seconds = 0.0
        self.verified_at = self.started_at = self.progress_updated = None
        self.error = self.worker = ""
        self.attempts = 0

    # -- votes -----------------------------------------------------------------------------------

    def vote(self, user, liked: bool) -> None:
        """``user`` liked (or did not like) this puzzle: one vote an account, which it may
        change; the counts the daily puzzle's choice reads follow in the same transaction (in
        the database only: this instance may be the one the process keeps for every request)."""
        with transaction.atomic():
            old = PuzzleVote.objects.select_for_update().filter(puzzle=self, user=user).first()
            if old is not None and old.liked == liked:
                return
            if old is None:
                PuzzleVote.objects.create(puzzle=self, user=user, liked=liked)
            else:
                PuzzleVote.objects.filter(pk=old.pk).update(liked=liked)
            gained, lost = ("likes", "dislikes") if liked else ("dislikes", "likes")
            change = {gained: F(gained) + 1}
            if old is not None:
                change[lost] = F(lost) - 1
            Puzzle.objects.filter(pk=self.pk).update(**change)

    def vote_of(self, user) -> bool | None:
        """Whether ``user`` liked this puzzle (None: no vote)."""
        if not getattr(user, "is_authenticated", False):
            return None
        return (
            PuzzleVote.objects.filter(puzzle=self, user=user)
            .values_list("liked", flat=True)
            .first()
        )

    def adopt_proof(self, proof: dict[str, Any]) -> bool:
        """Take a verdict made elsewhere (shipped in PDN) as this puzzle's proof, when it is
        about this position, goal and horizon; False (and nothing changes) otherwise."""
        if not (
            engine.is_verdict(proof)
            and proof.get("fen") == self.fen
            and proof.get("goal") == self.goal
            and proof.get("horizon") == self.horizon
        ):
            return False
        self.verdict = proof["kind"]
        self.proof = proof
        self.engine_version = proof["engine_version"]
        self.limits = {k: v for k, v in proof["limits"].items() if k != "moves"}
        self.nodes, self.seconds, self.depth = proof["nodes"], proof["seconds"], proof["depth"]
        self.verified_at = timezone.now()
        self.worker = "PDN"
        return True

    def to_data(self) -> engine.PuzzleData:
        """This puzzle as plain data for PDN (with its proof when it is unique)."""
        return engine.PuzzleData(
            variant=self.variant,
            fen=self.fen,
            goal=self.goal,
            horizon=self.horizon,
            solution=list(self.solution),
            motifs=list(self.motifs),
            difficulty=self.difficulty,
            source=self.source,
            title=self.title,
            description=self.description,
            engine_version=self.engine_version,
            proof=self.proof if self.verdict == Verdict.UNIQUE else None,
        )

    @staticmethod
    def request_verification(pk: int, revision: int, *, force: bool = False) -> bool:
        """Enqueue the proof of revision ``revision`` of puzzle ``pk`` on commit; ``force`` sets a
        finished verdict back to pending first. False when the puzzle changed or is gone."""
        updates: dict[str, Any] = {"queued_at": timezone.now()}
        if force:
            updates.update(verdict=Verdict.PENDING, attempts=0, error="")
        if not Puzzle.objects.filter(pk=pk, revision=revision).update(**updates):
            return False
        if force:  # back to pending, it left the pool: every process reads the pool again
            transaction.on_commit(lambda: bump("puzzles"))
        enqueue_on_commit(pk, revision)
        return True

    def verify_again(self) -> bool:
        """Prove this puzzle again (even with a current verdict)."""
        done = Puzzle.request_verification(self.pk, self.revision, force=True)
        if done:
            self.refresh_from_db()
        return done

    # -- reading the proof -------------------------------------------------------------------------

    def judge(self) -> Judge:
        """What the proof accepts at each point of the puzzle (:class:`~puzzles.trainer.Judge`):
        worked out once per proof and process, and shared by every player."""
        if "proof" not in self.__dict__:  # not loaded with the row: the process's cache
            return cached_judge(self.pk, self.revision, self.verified_at)
        judge = self.__dict__.get("_judge")
        if judge is None:
            judge = self.__dict__["_judge"] = build_judge(self.proof or {})
        return judge

    @property
    def is_finished(self) -> bool:
        return self.verdict in FINAL

    @property
    def is_public(self) -> bool:
        """In the site's pool (the corpus, or made public by staff): see ``Puzzle.objects.public``."""
        return self.author_id is None or self.public

    @property
    def is_current(self) -> bool:
        """A finished verdict made by the engine version running now."""
        return self.is_finished and self.engine_version == engine.engine_version()

    @property
    def white_to_move(self) -> bool:
        return engine.white_to_move(self.fen)

    def line(self, key: str) -> list[str]:
        """A line of the proof (``solution`` or ``refutation``) in the variant's notation."""
        return engine.line_texts(self.variant, self.fen, (self.proof or {}).get(key, []))

    @property
    def alternatives(self) -> list[list[str]]:
        return [
            engine.line_texts(self.variant, self.fen, alt)
            for alt in (self.proof or {}).get("alternatives", [])
        ]

    def numbered(self, moves: list[str]) -> str:
        """``1. 22-18 13x22 2. 31x13`` (``1... 13x22`` when Black moves first)."""
        parts = []
        number, white = 1, self.white_to_move
        for i, move in enumerate(moves):
            if white:
                parts.append(f"{number}. {move}")
            else:
                parts.append(f"{number}... {move}" if i == 0 else move)
                number += 1
            white = not white
        return " ".join(parts)

    @property
    def numbered_solution(self) -> str:
        return self.numbered(self.line("solution"))

    @property
    def numbered_refutation(self) -> str:
        return self.numbered(self.line("refutation"))

    @property
    def numbered_alternatives(self) -> list[str]:
        return [self.numbered(alt) for alt in self.alternatives]

    @property
    def intended_first_move_accepted(self) -> bool | None:
        """Whether the proof accepts the author's first move (None without both)."""
        if self.verdict != Verdict.UNIQUE or not self.solution or not self.proof:
            return None
        entry = engine.read_entry(self.variant, self.fen, [], text=self.solution[0])
        if entry.status != "move":
            return False
        start, end, captured = entry.key
        return self.judge().find([], (start, end, frozenset(captured))) is not None


#: fields :meth:`Puzzle._void_proof` resets
VOIDED_FIELDS = (
    "verdict",
    "proof",
    "engine_version",
    "nodes",
    "depth",
    "progress_nodes",
    "progress_depth",
    "seconds",
    "verified_at",
    "started_at",
    "progress_updated",
    "error",
    "worker",
    "attempts",
)


#: while :func:`proofs_held` is active: the (pk, revision) of the proofs not sent to the workers
_held: ContextVar[list[tuple[int, int]] | None] = ContextVar("dama_held_proofs", default=None)


@contextmanager
def proofs_held() -> Iterator[list[tuple[int, int]]]:
    """Puzzles saved inside the block are not sent to the workers: their (pk, revision) are
    collected in the list it yields, for the caller to prove (``load_puzzles`` proves the corpus
    in-process). They stay ``pending`` meanwhile, so the sweeper would still find a lost one."""
    held: list[tuple[int, int]] = []
    token = _held.set(held)
    try:
        yield held
    finally:
        _held.reset(token)


def enqueue_on_commit(pk: int, revision: int) -> None:
    """Send the proof to the workers once the current transaction commits (a broker that is
    down is logged, not raised: the sweeper enqueues the puzzle again later)."""
    held = _held.get()
    if held is not None:
        held.append((pk, revision))
        return
    transaction.on_commit(lambda: send_verification(pk, revision), robust=True)


def send_verification(pk: int, revision: int) -> None:
    """Put the proof of ``pk`` at ``revision`` on the ``verify`` queue (called on commit; a broker
    that is down is logged, and the sweeper enqueues the puzzle again later). A teacher's proofs
    take turns: see ``verification.dispatch``."""
    from .verification import dispatch

    dispatch(pk, revision)


# -- the trainer: attempts, ratings, daily puzzles (issue 6) ----------------------------------------


#: the largest id a row can have (a larger one in an address is no attempt, and no query)
MAX_ID = 2**63 - 1
#: puzzle columns the trainer never needs (read apart, or only by the proof page)
HEAVY_FIELDS = ("proof", "description", "limits", "solution", "error", "worker", "source")
#: how long a process keeps a puzzle of the site's pool (:func:`served_puzzle`). Any change made
#: through the models drops it at once in every process (``core.kept``): this bounds only how long
#: a change made without them (a bulk ``update()`` in a shell) goes unseen
KEEP_SECONDS = 600.0
#: at most this many kept puzzles (the corpus has about nine thousand)
KEEP_MAX = 16384
_served = Kept("puzzles", seconds=KEEP_SECONDS, size=KEEP_MAX)


def served_puzzle(pk: int) -> Puzzle | None:
    """Puzzle ``pk`` as the trainer serves it: without its heavy columns (the proof is read
    apart, into :meth:`Puzzle.judge`), with the two facts every puzzle page checks read in the
    same query: ``daily_today`` (it is today's daily puzzle of its variant) and ``exam_reserved``
    (the exams keep it: practice never serves it).

    Every move and puzzle page needs its puzzle, the same row for every player: a puzzle of the
    site's pool (the corpus, rarely edited) is kept by the process for :data:`KEEP_SECONDS`
    (``core.kept``: dropped in every process as soon as any process saves or deletes a puzzle
    or a daily puzzle, reserves puzzles for the exams, sends a puzzle to be proven again, or a
    worker writes a verdict), by date, so that no kept ``daily_today`` outlives its day. A
    teacher's puzzle, which its author may be editing, is read every time."""
    day = timezone.localdate()
    return _served.get(
        (pk, day),
        lambda: _served_rows(day).filter(pk=pk).order_by().first(),
        keep=lambda puzzle: puzzle is not None and puzzle.is_public,
    )


def keep_served_pool() -> int:
    """Read the servable puzzles of the site's pool in one query and keep them as
    :func:`served_puzzle` keeps the rows it reads one at a time; return how many. A gunicorn
    worker does this as it starts (``gunicorn.conf.py``, before ``gc.freeze()``), so that no
    puzzle page of the pool waits for its row (9,267 rows: about 25 MB a process)."""
    day = timezone.localdate()
    rows = _served_rows(day).filter(SERVABLE).public().order_by()
    return _served.fill({(puzzle.pk, day): puzzle for puzzle in rows.iterator(chunk_size=2000)})


def _served_rows(day) -> PuzzleQuerySet:
    today = DailyPuzzle.objects.filter(puzzle=OuterRef("pk"), date=day)
    rows = (
        Puzzle.objects.defer(*HEAVY_FIELDS)
        .annotate(daily_today=Exists(today))
        .annotate(servable=ExpressionWrapper(SERVABLE, models.BooleanField()))
    )
    try:  # looked up lazily: the exams build on the puzzles app
        reserved = apps.get_model("exams", "ReservedPuzzle")
    except LookupError:
        return rows.annotate(exam_reserved=Value(False))
    return rows.annotate(exam_reserved=Exists(reserved.objects.filter(puzzle=OuterRef("pk"))))


def forget_served(**_signal: Any) -> None:
    """Read puzzles again at the next request in this process."""
    _served.forget()


class Attempt(models.Model):
    """One go at one puzzle by a player (an account, or a visitor's session until sign-up).

    The trainer keeps the whole state on the server: ``line`` holds the moves on the board so far
    (solver and defender alternating, full routes as in the proof) and ``position`` the position
    they lead to, so that a move is read against it without replaying the line; the browser only
    ever gets the board. ``moves`` is what the player entered, each judged (``ok``) with the time
    it took. The state changes (:meth:`play`, :meth:`hint`, :meth:`give_up`, :meth:`retry`) take
    the :class:`~puzzles.player.Player`; each writes only if nobody wrote the attempt since it
    was read (``version``), else raises :class:`~puzzles.trainer.Conflict` having written nothing.
    """

    class Source(models.TextChoices):
        STREAM = "stream", _("puzzle stream")
        DAILY = "daily", _("daily puzzle")
        SET = "set", _("puzzle set")
        REPLAY = "replay", _("replay")

    class State(models.TextChoices):
        """What the page shows (``data-state``): not labelled, never shown in words."""

        PLAYING = "playing"
        SOLVED = "solved"
        SHOWN = "shown"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="puzzle_attempts",
        verbose_name=_("user"),
    )
    #: a visitor's attempt: their token (``Player.visitor_token``, kept in their session)
    visitor = models.CharField(_("visitor"), max_length=64, blank=True, db_index=True)
    puzzle = models.ForeignKey(
        Puzzle, on_delete=models.CASCADE, related_name="player_attempts", verbose_name=_("puzzle")
    )
    source = models.CharField(_("source"), max_length=10, choices=Source, default=Source.STREAM)
    set_id = models.PositiveIntegerField(_("puzzle set"), null=True, blank=True)
    started_at = models.DateTimeField(_("started at"), default=timezone.now)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    moves = models.JSONField(_("moves entered"), default=list, blank=True)
    hints = models.PositiveSmallIntegerField(_("hints"), default=0)
    solution_shown = models.BooleanField(_("solution shown"), default=False)
    solved = models.BooleanField(_("solved"), default=False)
    failed = models.BooleanField(_("failed"), default=False)
    rated = models.BooleanField(_("rated"), default=False)
    #: the player's first attempt at the puzzle (only that one is rated), stored when it is made
    first = models.BooleanField(_("first attempt"), default=False)
    seconds = models.FloatField(_("seconds"), default=0.0)
    # trainer state
    line = models.JSONField(_("moves on the board"), default=list, blank=True)
    #: the position after ``line`` (empty: the puzzle's own)
    position = models.CharField(_("position"), max_length=300, blank=True)
    daily_date = models.DateField(_("daily puzzle of"), null=True, blank=True)
    #: how many times the trainer wrote the attempt: each write is made only if nobody wrote it
    #: since it was read (two tabs, a double submit), see ``puzzles.trainer.Conflict``
    version = models.PositiveIntegerField(_("version"), default=0, editable=False)

    class Meta:
        ordering = ["-started_at", "-pk"]
        indexes = [
            models.Index(fields=["user", "puzzle"]),
            models.Index(fields=["user", "source", "solved"]),
        ]
        verbose_name = _("attempt")
        verbose_name_plural = _("attempts")

    def __str__(self) -> str:
        who = self.user or _("visitor")
        return f"{who} · {self.puzzle}"

    # -- finding and starting attempts -------------------------------------------------------------

    @classmethod
    def owned(cls, player: Player, pk: int, puzzle: Puzzle | None = None) -> Attempt | None:
        """The attempt ``pk`` if ``player`` owns it, with its puzzle (``puzzle`` when given, else
        :func:`served_puzzle`: no join, and the pool's puzzles are kept by the process)."""
        if not 0 < pk <= MAX_ID:
            return None
        try:  # a visitor without a token has no attempts: no query
            attempt = player.attempts().get(pk=pk)
        except cls.DoesNotExist:
            return None
        found = puzzle if puzzle is not None else served_puzzle(attempt.puzzle_id)
        if found is None or found.pk != attempt.puzzle_id:
            return None
        attempt.puzzle = found
        return attempt

    @classmethod
    def start(
        cls,
        player: Player,
        puzzle: Puzzle,
        *,
        source: str = Source.STREAM,
        set_id: int | None = None,
        daily_date=None,
        fresh: bool = False,
    ) -> Attempt:
        """The attempt ``player`` is on for ``puzzle`` in this context (the stream, a set, a
        day): the latest they made in it, resumed; or a new one (when there is none, or
        ``fresh``). One query reads the player's attempts at the puzzle: whether the new one is
        their first (only that one is rated), and what a set's attempt inherits."""
        earlier = list(
            player.attempts()
            .filter(puzzle=puzzle)
            .order_by("-pk")
            .values_list(
                "pk", "source", "set_id", "daily_date", "hints", "failed", "solution_shown"
            )
        )
        if not fresh:
            for pk, was_source, was_set, was_day, *_seen in earlier:
                if (was_source, was_set, was_day) == (source, set_id, daily_date):
                    attempt = cls.owned(player, pk, puzzle)
                    if attempt is not None:
                        return attempt
                    break
        attempt = cls(
            user=player.user,
            visitor=player.visitor_token(make=True),
            puzzle=puzzle,
            source=source,
            set_id=set_id,
            daily_date=daily_date,
            position=puzzle.fen,
            first=not earlier,
        )
        if set_id and earlier:
            attempt.inherit([(s, h, f, shown) for _pk, _src, s, _d, h, f, shown in earlier])
        attempt.save()
        return attempt

    @classmethod
    def open(
        cls, player: Player, puzzle: Puzzle, *, set_id: int | None = None, replay: bool = False
    ) -> Attempt:
        """The attempt a puzzle page shows: the player's in the set ``set_id`` (one that holds
        the puzzle and is assigned to their class: the caller checks), a replay (a new one once
        the last replay is finished), or the stream's."""
        if set_id:
            return cls.start(player, puzzle, source=cls.Source.SET, set_id=set_id)
        if not replay:
            return cls.start(player, puzzle)
        attempt = cls.start(player, puzzle, source=cls.Source.REPLAY)
        if attempt.is_finished:
            attempt = cls.start(player, puzzle, source=cls.Source.REPLAY, fresh=True)
        return attempt

    def inherit(self, earlier: list[tuple[int | None, int, bool, bool]]) -> None:
        """A set's attempt starts with what the player already saw of the puzzle: a failure or
        a solution shown in any earlier attempt, and the hints taken outside the set (a teacher's
        table must not read "solved, no hints" after the solution was shown elsewhere)."""
        self.solution_shown = any(shown for _set, _hints, _failed, shown in earlier)
        self.failed = self.solution_shown or any(failed for _s, _h, failed, _shown in earlier)
        self.hints = sum(hints for set_id, hints, _f, _s in earlier if set_id != self.set_id)

    # -- state -------------------------------------------------------------------------------------

    @property
    def is_finished(self) -> bool:
        return self.finished_at is not None

    @property
    def state(self) -> str:
        if not self.is_finished:
            return self.State.PLAYING
        return self.State.SOLVED if self.solved else self.State.SHOWN

    @property
    def variant(self) -> str:
        return self.puzzle.variant

    @property
    def score(self) -> float | None:
        """The rated result of the attempt, or None while it is still open."""
        if self.failed or self.solution_shown:
            return 0.0
        if self.solved:
            return 0.5 if self.hints else 1.0
        return None

    # -- playing -----------------------------------------------------------------------------------

    def play(self, player: Player, *, route: str = "", text: str = "") -> Result:
        """Judge one move (a clicked route so far, or typed notation) against the proof; a move
        it accepts is answered with the defender's most stubborn reply. Only a legal move the
        proof does not accept is a mistake (the attempt has failed, and a first attempt is rated
        0); an illegal or unreadable one is refused with its explanation and changes nothing."""
        if self.is_finished:
            return Result(
                Outcome.FINISHED, gettext("This puzzle is finished: press Retry to play it again.")
            )
        puzzle = self.puzzle
        here = self.position or puzzle.fen
        entry = engine.read_entry(puzzle.variant, here, [], route=route, text=text)
        if entry.status == "continue":
            return Result(Outcome.CONTINUE, entry.message, path=entry.path)
        if entry.status == "bad":
            return Result(Outcome.BAD, entry.message, article=entry.article)
        if entry.status == "illegal":
            # refused with the rule it breaks, as unreadable input is: not a mistake, never
            # rated, nothing written; the player tries again from the same position (lichess
            # never rates an illegal move either)
            return Result(
                Outcome.ILLEGAL,
                entry.message,
                article=entry.article,
                squares=entry.squares,
                played=entry.entered,
            )
        ms = self._elapsed_ms()
        line = list(self.line)
        judge = puzzle.judge()
        start, end, captured = entry.key
        accepted = judge.find(line, (start, end, frozenset(captured)))
        if accepted is None:
            self.moves = [*self.moves, {"text": entry.notation, "ok": False, "ms": ms}]
            first_failure = not self.failed
            change = self._fail(player)
            if first_failure:
                signals.attempt_failed.send(sender=Attempt, attempt=self, player=player)
            # refuted by the proof's worker (no search here); none stored: answered without
            refutation = judge.refutation(line, entry.route)
            if refutation:
                refutation["wrong"] = entry.route
                refutation["wrong_notation"] = entry.notation
            return Result(
                Outcome.WRONG,
                refutation_message(puzzle.white_to_move, entry.notation, refutation),
                played=entry.notation,
                refutation=refutation,
                rating_change=change,
            )
        self.moves = [*self.moves, {"text": entry.notation, "ok": True, "ms": ms}]
        reply_text, self.position = judge.answer(puzzle.variant, here, accepted)
        self.line = [*line, accepted.move, *([accepted.reply] if accepted.reply else [])]
        if accepted.done:
            self.solved = True
            self._stamp_finish()
            score = None if self.failed else (0.5 if self.hints else 1.0)
            change = self._write_and_rate(
                player, ["moves", "line", "position", "solved", *FINISH_FIELDS], score
            )
            signals.attempt_finished.send(sender=Attempt, attempt=self, player=player)
            return Result(
                Outcome.SOLVED,
                gettext("Solved!") if not self.failed else gettext("Solved, after a mistake."),
                played=entry.notation,
                reply=reply_text,
                rating_change=change,
            )
        self._write(["moves", "line", "position"])
        return Result(
            Outcome.RIGHT,
            gettext("Right! %(side)s answers %(reply)s. Your move.")
            % {
                "side": gettext("Black") if puzzle.white_to_move else gettext("White"),
                "reply": reply_text,
            },
            played=entry.notation,
            reply=reply_text,
        )

    def hint(self) -> int | None:
        """The square of the piece to move (counted as a hint); None when nothing is left to do."""
        if self.is_finished:
            return None
        point = self.puzzle.judge().at(list(self.line))
        if point is None:
            return None
        self.hints += 1
        self._write(["hints"])
        return point.hint

    def give_up(self, player: Player) -> float | None:
        """Finish the attempt by showing the solution (a failure when not solved yet): the
        rating change, if it was rated."""
        if self.is_finished:
            return None
        first_failure = not self.failed
        self.solution_shown = True
        self.failed = True
        self._stamp_finish()
        change = self._write_and_rate(
            player, ["solution_shown", "failed", *FINISH_FIELDS], 0.0 if first_failure else None
        )
        signals.attempt_finished.send(sender=Attempt, attempt=self, player=player)
        return change

    def retry(self, player: Player) -> Attempt:
        """Back to the start: the same attempt while unfinished, else a new (unrated) replay."""
        if not self.is_finished:
            self.line = []
            self.position = self.puzzle.fen
            self._write(["line", "position"])
            return self
        return Attempt.start(
            player,
            self.puzzle,
            source=self.Source.REPLAY if self.source != self.Source.DAILY else self.source,
            set_id=self.set_id,
            daily_date=self.daily_date,
            fresh=True,
        )

    def solution(self) -> list[str]:
        """The proof's main line (show it only once the attempt is finished)."""
        return list(self.puzzle.judge().solution)

    # -- writing -----------------------------------------------------------------------------------

    def _elapsed_ms(self) -> int:
        spent = sum(int(m.get("ms", 0)) for m in self.moves)
        elapsed = (timezone.now() - self.started_at).total_seconds()
        return max(0, int(elapsed * 1000) - spent)

    def _stamp_finish(self) -> None:
        now = timezone.now()
        self.finished_at = now
        self.seconds = round((now - self.started_at).total_seconds(), 3)

    def _fail(self, player: Player) -> float | None:
        first_failure = not self.failed
        self.failed = True
        return self._write_and_rate(player, ["moves", "failed"], 0.0 if first_failure else None)

    def _write(self, fields: list[str]) -> None:
        """Write ``fields`` if the row is still the one read (same ``version``), counting the
        write; otherwise write nothing and raise :class:`~puzzles.trainer.Conflict`."""
        written = Attempt.objects.filter(pk=self.pk, version=self.version).update(
            version=F("version") + 1, **{name: getattr(self, name) for name in fields}
        )
        if not written:
            raise Conflict(self.pk)
        self.version += 1

    def _write_and_rate(
        self, player: Player, fields: list[str], score: float | None
    ) -> float | None:
        """Write ``fields`` and, given a ``score`` on the player's first attempt at the puzzle,
        rate it in the same transaction (:mod:`puzzles.rating`): the player's rating change."""
        if score is None or not self.first or self.rated:
            self._write(fields)
            return None
        from . import rating  # the ratings module reads these models

        with transaction.atomic():
            if player.is_account:  # a visitor's rating is kept in the session
                self.rated = True
                fields = [*fields, "rated"]
            self._write(fields)
            return rating.rate(player, self, score)


#: what finishing an attempt writes besides the result
FINISH_FIELDS = ["finished_at", "seconds"]


class PlayerRating(models.Model):
    """A player's Glicko-2 puzzle rating in one variant."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="puzzle_ratings",
        verbose_name=_("user"),
    )
    variant = models.CharField(_("variant"), max_length=20, choices=VARIANT_CHOICES)
    rating = models.FloatField(_("rating"), default=1500.0)
    deviation = models.FloatField(_("deviation"), default=350.0)
    volatility = models.FloatField(_("volatility"), default=0.06)
    games = models.PositiveIntegerField(_("rated puzzles"), default=0)
    updated = models.DateTimeField(_("updated"), auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "variant"], name="player_rating_per_variant")
        ]
        verbose_name = _("player rating")
        verbose_name_plural = _("player ratings")

    def __str__(self) -> str:
        return f"{self.user} {self.variant} {self.rating:.0f}"

    def as_rating(self, now: datetime | None = None) -> glicko2.Rating:
        """The rating as of ``now``: the deviation widened once per rating period
        (:data:`glicko2.PERIOD_DAYS`) since the last rated puzzle."""
        elapsed = ((now or timezone.now()) - self.updated).total_seconds() if self.updated else 0
        periods = int(max(0.0, elapsed) // (glicko2.PERIOD_DAYS * 86400))
        return glicko2.idle(glicko2.Rating(self.rating, self.deviation, self.volatility), periods)

    @property
    def deviation_now(self) -> float:
        """The deviation shown to the player (widened for the time away)."""
        return self.as_rating().deviation


class RatingHistory(models.Model):
    """A player's rating after one rated attempt (the points of the profile's chart)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="puzzle_rating_history",
        verbose_name=_("user"),
    )
    variant = models.CharField(_("variant"), max_length=20, choices=VARIANT_CHOICES)
    rating = models.FloatField(_("rating"))
    deviation = models.FloatField(_("deviation"))
    attempt = models.ForeignKey(
        Attempt, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    at = models.DateTimeField(_("at"), default=timezone.now)

    class Meta:
        ordering = ["at", "pk"]
        indexes = [models.Index(fields=["user", "variant", "at"])]
        verbose_name = _("rating history")
        verbose_name_plural = _("rating history")


class PuzzleRating(models.Model):
    """A puzzle's Glicko-2 rating (in the puzzle's variant), starting from its difficulty."""

    puzzle = models.OneToOneField(
        Puzzle, on_delete=models.CASCADE, related_name="rating", verbose_name=_("puzzle")
    )
    rating = models.FloatField(_("rating"), default=1500.0)
    deviation = models.FloatField(_("deviation"), default=250.0)
    volatility = models.FloatField(_("volatility"), default=0.06)
    games = models.PositiveIntegerField(_("rated attempts"), default=0)

    class Meta:
        verbose_name = _("puzzle rating")
        verbose_name_plural = _("puzzle ratings")

    def __str__(self) -> str:
        return f"{self.puzzle} {self.rating:.0f}"


class PuzzleVote(models.Model):
    """An account's opinion of a puzzle it finished (see :meth:`Puzzle.vote`)."""

    puzzle = models.ForeignKey(
        Puzzle, on_delete=models.CASCADE, related_name="votes", verbose_name=_("puzzle")
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="puzzle_votes",
        verbose_name=_("user"),
    )
    liked = models.BooleanField(_("liked"))
    created = models.DateTimeField(_("created"), auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["puzzle", "user"], name="one_vote_per_puzzle_and_user")
        ]
        verbose_name = _("puzzle vote")
        verbose_name_plural = _("puzzle votes")

    def __str__(self) -> str:
        return f"{self.user} {'+' if self.liked else '-'} {self.puzzle_id}"


class DailyPuzzle(models.Model):
    """The puzzle of one date in one variant: the same for everyone."""

    variant = models.CharField(_("variant"), max_length=20, choices=VARIANT_CHOICES)
    date = models.DateField(_("date"))
    puzzle = models.ForeignKey(
        Puzzle, on_delete=models.CASCADE, related_name="daily", verbose_name=_("puzzle")
    )

    class Meta:
        ordering = ["-date"]
        constraints = [
            models.UniqueConstraint(fields=["variant", "date"], name="one_daily_puzzle_per_day")
        ]
        verbose_name = _("daily puzzle")
        verbose_name_plural = _("daily puzzles")

    def __str__(self) -> str:
        return f"{self.variant} {self.date}: {self.puzzle}"


class MiningJob(models.Model):
    """A run of puzzle mining fanned out over the workers: ``tasks`` tasks, task ``i`` playing
    engine games of seed ``first_seed + i`` (see :mod:`puzzles.mining`). Each task adds what it did
    with :meth:`record`; staff follow it on its page."""

    class Status(models.TextChoices):
        RUNNING = "running", _("running")
        DONE = "done", _("done")

    variant = models.CharField(_("variant"), max_length=20, choices=VARIANT_CHOICES)
    first_seed = models.PositiveIntegerField(_("first seed"), default=1)
    tasks = models.PositiveSmallIntegerField(_("tasks"))
    games = models.PositiveIntegerField(_("games per task"))
    per_task = models.PositiveIntegerField(_("puzzles per task at most"), default=1000)
    level = models.PositiveSmallIntegerField(_("engine level"), default=4)
    nodes = models.PositiveIntegerField(_("search nodes per move"), default=1500)
    #: games uploaded by staff to mine instead of engine games (task ``i`` mines every
    #: ``tasks``-th game from game ``i``)
    pdn = models.TextField(_("PDN games"), blank=True, default="")
    #: why a task found nothing to mine (e.g. no readable game of the variant in the file)
    error = models.TextField(_("error"), blank=True, default="")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    done_tasks = models.PositiveSmallIntegerField(default=0)
    games_played = models.PositiveIntegerField(default=0)
    found = models.PositiveIntegerField(default=0)
    known = models.PositiveIntegerField(default=0)
    cpu_seconds = models.FloatField(default=0.0)
    #: the seeds whose task has finished (a task delivered twice counts once)
    finished_seeds = models.JSONField(default=list, blank=True)
    workers = models.JSONField(default=list, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-pk"]

    def __str__(self) -> str:
        return f"mining {self.variant} #{self.pk}"

    def get_absolute_url(self) -> str:
        return reverse("puzzles:mining_job", args=[self.pk])

    @property
    def percent(self) -> int:
        return round(100 * self.done_tasks / self.tasks) if self.tasks else 100

    def note_error(self, problems: list[str]) -> None:
        """Keep why a task of this job found no readable game to mine (the reader's first
        messages), for the job's page."""
        MiningJob.objects.filter(pk=self.pk).update(error="\n".join(problems))

    @property
    def per_cpu_hour(self) -> float:
        return 3600 * self.found / self.cpu_seconds if self.cpu_seconds else 0.0

    def record(self, seed: int, *, found: int, known: int, games: int, seconds: float,
               worker: str, finished: bool) -> None:  # fmt: skip
        """Add one task's work (its games, new and already known puzzles, CPU time); a task that
        finished marks its seed done once, even when it was delivered twice."""
        with transaction.atomic():
            job = MiningJob.objects.select_for_update().get(pk=self.pk)
            job.found = F("found") + found
            job.known = F("known") + known
            job.games_played = F("games_played") + games
            job.cpu_seconds = F("cpu_seconds") + seconds
            if worker and worker not in job.workers:
                job.workers = [*job.workers, worker]
            if finished and seed not in job.finished_seeds:
                job.finished_seeds = [*job.finished_seeds, seed]
                job.done_tasks = len(job.finished_seeds)
                if job.done_tasks >= job.tasks:
                    job.status = MiningJob.Status.DONE
            job.save()
        self.refresh_from_db()
