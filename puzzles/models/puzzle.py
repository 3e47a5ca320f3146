"""A puzzle and its proof.

A puzzle is a position, a goal and a horizon. Saving a new puzzle, or changing what it asks
(position, goal, horizon, intended solution, limits), bumps its ``revision`` and sends its proof
to the ``verify`` queue once the transaction commits (by the task's name: :mod:`puzzles.proofs`).
The task (:mod:`puzzles.tasks`) proves the revision it was given and writes the verdict with a
conditional update, so a verdict can never land on a puzzle that changed in the meantime. One
teacher's proofs take their turn on the workers (:meth:`PuzzleQuerySet.dispatch`).
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.db.models import Case, F, Q, Value, When
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from core.kept import bump
from core.models import SealedPosition
from core.variants import VARIANT_CHOICES

from .. import engine, proofs, signals
from ..limits import check_author_horizon
from ..trainer import Judge, build_judge, kept_judge

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


def exam_share() -> float:
    """The share of the corpus kept for the exams (``DAMA_EXAM_SHARE_PERCENT``)."""
    return float(getattr(settings, "DAMA_EXAM_SHARE", 0.25))


def in_exam_share(variant: str, fen: str, goal: str, fraction: float | None = None) -> bool:
    """Whether the corpus puzzle (variant, position, goal) is one the exams keep for themselves:
    a hash of the three falls in the share, so the same puzzles on every installation (this
    text must not change: it decides which puzzles were ever shown as practice).

    >>> in_exam_share("czech", "W:W21:B1", "capture", 1.0), in_exam_share("czech", "W:W21:B1", "capture", 0.0)
    (True, False)
    """
    fraction = exam_share() if fraction is None else fraction
    digest = hashlib.sha256(f"exam|{variant}|{fen}|{goal}".encode()).hexdigest()
    return int(digest[:8], 16) < fraction * 2**32


def default_limits() -> dict[str, Any]:
    return engine.default_limits(settings.DAMA_PROOF_NODES, settings.DAMA_PROOF_SECONDS)


class PuzzleQuerySet(models.QuerySet["Puzzle"]):
    def proven(self) -> PuzzleQuerySet:
        """Puzzles with a unique solution (of any author: see :meth:`public`)."""
        return self.filter(verdict=Verdict.UNIQUE)

    def public(self) -> PuzzleQuerySet:
        """The site's own pool: the shipped and mined corpus (no author) and the puzzles staff
        made public. Teachers' puzzles stay with their sets (the stream, the daily puzzle and
        the corpus search never offer them), nor anyone's personal puzzles (``owner``)."""
        return self.filter(Q(author__isnull=True) | Q(public=True)).filter(owner__isnull=True)

    def practice(self) -> PuzzleQuerySet:
        """What practice may serve and show the solution of: the site's pool (:meth:`public`)
        without the puzzles kept for the exams (``for_exams``). The stream, the daily puzzle,
        the motif filter, the teachers' corpus search and the practice exams draw from it."""
        return self.public().filter(for_exams=False)

    def keep_exam_share(self) -> int:
        """Keep for the exams every corpus puzzle here that is in their share
        (:func:`in_exam_share`) and not kept yet, sealing its position; how many. Saving a
        puzzle does this for it; run after ``DAMA_EXAM_SHARE_PERCENT`` grows (``manage.py
        reserve_exam_puzzles``). A puzzle once kept is never given back to practice: an exam
        may have asked it."""
        rows = self.filter(author__isnull=True, owner__isnull=True, for_exams=False).values_list(
            "pk", "variant", "fen", "goal"
        )
        kept = [row for row in rows if in_exam_share(row[1], row[2], row[3])]
        if not kept:
            return 0
        with transaction.atomic():
            Puzzle.objects.filter(pk__in=[pk for pk, *_rest in kept]).update(for_exams=True)
            for pk, variant, fen, _goal in kept:
                seal_exam_position(pk, variant, [fen])
        transaction.on_commit(lambda: bump("puzzles"))
        return len(kept)

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

    # -- the proofs on the workers: one author's proofs take their turn ---------------------------

    def prove_on_commit(self, pk: int, revision: int) -> None:
        """Send the proof of revision ``revision`` of puzzle ``pk`` to the workers once the
        current transaction commits (:meth:`dispatch`; held instead inside
        ``proofs.proofs_held``). A broker that is down is logged, not raised: the sweeper
        enqueues the puzzle again later."""
        if proofs.hold(pk, revision):
            return
        transaction.on_commit(lambda: Puzzle.objects.dispatch(pk, revision), robust=True)

    def on_the_workers(self, author_id: int) -> PuzzleQuerySet:
        """The author's proofs on the workers: running, or pending and sent (``queued_at`` set)."""
        return self.filter(author_id=author_id).filter(
            Q(verdict=Verdict.RUNNING) | Q(verdict=Verdict.PENDING, queued_at__isnull=False)
        )

    def waiting_turn(self, author_id: int) -> PuzzleQuerySet:
        """The author's proofs that wait their turn (pending, not sent)."""
        return self.filter(author_id=author_id, verdict=Verdict.PENDING, queued_at__isnull=True)

    def dispatch(self, pk: int, revision: int) -> bool:
        """Send the proof of revision ``revision`` of puzzle ``pk`` to the ``verify`` queue, unless
        it is a teacher's puzzle and ``DAMA_AUTHOR_ACTIVE_PROOFS`` of the same author's proofs are
        ahead of it (running, or pending and sent earlier): then it waits its turn, ``pending``
        with no ``queued_at``, and :meth:`release` sends it when one of them ends (the sweeper
        would too).

        So one teacher's 200 imported puzzles take at most that many workers, and everyone
        else's proofs keep going. Returns whether the proof was sent."""
        row = self.filter(pk=pk, revision=revision).values("author_id").first()
        if row is not None and row["author_id"] is not None:
            ahead = list(
                self.on_the_workers(row["author_id"])
                .order_by(
                    Case(When(verdict=Verdict.RUNNING, then=0), default=1),
                    F("queued_at").asc(nulls_last=True),
                    "pk",
                )
                .values_list("pk", flat=True)[: settings.DAMA_AUTHOR_ACTIVE_PROOFS]
            )
            if pk not in ahead:
                self.filter(pk=pk, revision=revision, verdict=Verdict.PENDING).update(
                    queued_at=None
                )
                logger.info("puzzle %s waits for its author's earlier proofs", pk)
                return False
        proofs.send(pk, revision)
        return True

    def release(self, author_id: int | None) -> int:
        """Send the author's waiting proofs (oldest first) while fewer than
        ``DAMA_AUTHOR_ACTIVE_PROOFS`` are on the workers; called when one of their proofs ends.
        Returns how many were sent."""
        if author_id is None:
            return 0
        sent = 0
        free = settings.DAMA_AUTHOR_ACTIVE_PROOFS - self.on_the_workers(author_id).count()
        waiting = self.waiting_turn(author_id).order_by("created", "pk")
        for pk, revision in waiting.values_list("pk", "revision")[: max(0, free)]:
            # the conditional update is the claim: of two releasers, one sends each proof
            if self.filter(
                pk=pk, revision=revision, verdict=Verdict.PENDING, queued_at__isnull=True
            ).update(queued_at=timezone.now()):
                proofs.send(pk, revision)
                sent += 1
        return sent

    def release_after(self, pk: int) -> int:
        """Release the waiting proofs of the author of puzzle ``pk`` (its proof just ended)."""
        row = self.filter(pk=pk).values("author_id").first()
        return self.release(row["author_id"]) if row else 0

    # -- loading -----------------------------------------------------------------------------------

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
        owner = Q(author__isnull=True, owner__isnull=True) if author is None else Q(author=author)
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
    #: a personal puzzle (made from one of the owner's games by the ``analysis`` app): only its
    #: owner is ever shown it (their review); never public, never for the exams or the stream
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="personal_puzzles",
        verbose_name=_("owner (a personal puzzle)"),
    )
    #: where a personal puzzle comes from, in words ("from your game against level 5 on 28 Nov")
    origin = models.CharField(_("origin"), max_length=200, blank=True)
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

    #: kept for the exams (:func:`in_exam_share`, set when the puzzle is saved): practice never
    #: serves it, no page shows its solution, and its position is sealed (no game, hint or
    #: analysis there: ``core.models.SealedPosition``). A teacher's puzzle never is.
    for_exams = models.BooleanField(_("kept for exams"), default=False, editable=False)

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
                condition=Q(author__isnull=True, owner__isnull=True),
                name="puzzle_unique_corpus_position_and_goal",
            )
        ]
        indexes = [
            models.Index(fields=["variant", "verdict", "difficulty"]),
            models.Index(fields=["verdict", "queued_at"]),
            models.Index(fields=["variant", "for_exams"]),
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
                            ngettext(
                                "A proof may take at most %(max)s second.",
                                "A proof may take at most %(max)s seconds.",
                                settings.DAMA_PROOF_MAX_SECONDS,
                            )
                            % {"max": settings.DAMA_PROOF_MAX_SECONDS},
                            code="limits",
                        )
                    )
        if self.author_id is not None:  # a teacher's puzzle: the site's limits for teaching
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
        if creating or changed:  # a corpus puzzle in the exams' share is theirs from its first save
            self.for_exams = (
                self.author_id is None
                and self.owner_id is None
                and in_exam_share(self.variant, self.fen, self.goal)
            )
            if update_fields is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "for_exams"}
        if (creating or changed) and self.verdict == Verdict.PENDING:
            self.queued_at = timezone.now()
            if update_fields is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "queued_at"}
        super().save(*args, **kwargs)
        if changed:
            self.refresh_from_db(fields=["revision"])
            SealedPosition.lift(self.seal_label)
        if (creating or changed) and self.for_exams:
            seal_exam_position(self.pk, self.variant, [self.fen])
        self._loaded = self._content()
        if (creating or changed) and self.verdict == Verdict.PENDING:
            Puzzle.objects.prove_on_commit(self.pk, self.revision)

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
            old = self.votes.select_for_update().filter(user=user).first()
            if old is not None and old.liked == liked:
                return
            if old is None:
                self.votes.create(user=user, liked=liked)
            else:
                self.votes.filter(pk=old.pk).update(liked=liked)
            gained, lost = ("likes", "dislikes") if liked else ("dislikes", "likes")
            change = {gained: F(gained) + 1}
            if old is not None:
                change[lost] = F(lost) - 1
            Puzzle.objects.filter(pk=self.pk).update(**change)

    def vote_of(self, user) -> bool | None:
        """Whether ``user`` liked this puzzle (None: no vote)."""
        if not getattr(user, "is_authenticated", False):
            return None
        return self.votes.filter(user=user).values_list("liked", flat=True).first()

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

    # -- personal puzzles -------------------------------------------------------------------------

    @classmethod
    def make_personal(
        cls,
        owner: Any,
        *,
        variant: str,
        fen: str,
        goal: str,
        horizon: int | None,
        solution: list[str],
        motifs: list[str],
        proof: dict[str, Any] | None,
        origin: str = "",
        source: str = "",
        difficulty: int | None = None,
    ) -> Puzzle | None:
        """The personal puzzle of ``owner`` at ``fen`` with ``goal`` (a shot of one of their games,
        found by the ``analysis`` app): the one they already have there, else a new row, proven by
        ``proof`` (a unique verdict the analysis's solver made about this very position, goal and
        horizon: nothing is sent to the workers). ``origin`` says where it comes from, in the
        owner's words ("from your game against Level 5 on 28 Nov").

        None when it cannot be one: a position the exams keep sealed, data that is no puzzle, a
        proof that is not unique or is about something else. A new puzzle sends
        :data:`puzzles.signals.personal_puzzle_made` once it has committed (the review makes the
        owner's card, due now); an existing one sends nothing (its card keeps its schedule)."""
        if not proof or proof.get("kind") != Verdict.UNIQUE:
            return None
        try:
            if SealedPosition.is_sealed(fen, variant):
                return None
        except ValueError:
            return None
        existing = cls.objects.filter(owner=owner, variant=variant, fen=fen, goal=goal).first()
        if existing is not None:
            return existing
        puzzle = cls(
            variant=variant,
            fen=fen,
            goal=goal,
            horizon=horizon,
            solution=list(solution),
            motifs=list(motifs),
            owner=owner,
            origin=origin[:200],
            source=source[:200],
            difficulty=difficulty or 1500,
        )
        try:
            puzzle.full_clean(validate_constraints=False)
        except ValidationError as exc:
            logger.warning("no personal puzzle (%s): %s", source, exc)
            return None
        if not puzzle.adopt_proof(proof):
            logger.warning("no personal puzzle (%s): the proof is about another puzzle", source)
            return None
        puzzle.save()
        transaction.on_commit(
            lambda: signals.personal_puzzle_made.send(sender=cls, puzzle=puzzle, owner=owner),
            robust=True,
        )
        return puzzle

    @property
    def is_personal(self) -> bool:
        """Made from one of its owner's games (``owner``): theirs and their teachers' only."""
        return self.owner_id is not None

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
    def pdn_of(puzzles: Iterable[Puzzle], title: str = "") -> str:
        """``puzzles`` as PDN, one entry each (position, goal, solution, the proof of unique ones);
        with ``title``, an untitled one is called "``title`` #n"."""
        data = []
        for n, puzzle in enumerate(puzzles, 1):
            entry = puzzle.to_data()
            if title and not entry.title:
                entry.title = f"{title} #{n}"
            data.append(entry)
        return engine.write_puzzles(data)

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
        Puzzle.objects.prove_on_commit(pk, revision)
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
        if "proof" not in self.__dict__:  # not loaded with the row: the process's judges
            return kept_judge((self.pk, self.revision, self.verified_at), self._read_proof)
        judge = self.__dict__.get("_judge")
        if judge is None:
            judge = self.__dict__["_judge"] = build_judge(self.proof or {})
        return judge

    def _read_proof(self) -> dict[str, Any] | None:
        """The proof column alone (a row served without it: ``stream.served_puzzle``)."""
        return Puzzle.objects.filter(pk=self.pk).values_list("proof", flat=True).order_by().first()

    @property
    def is_finished(self) -> bool:
        return self.verdict in FINAL

    @property
    def is_public(self) -> bool:
        """In the site's pool (the corpus, or made public by staff): see ``Puzzle.objects.public``."""
        return self.owner_id is None and (self.author_id is None or self.public)

    @property
    def is_current(self) -> bool:
        """A finished verdict made by the engine version running now."""
        return self.is_finished and self.engine_version == engine.engine_version()

    @property
    def white_to_move(self) -> bool:
        return engine.white_to_move(self.fen)

    @property
    def seal_label(self) -> str:
        """The label of the seals of this puzzle's positions (``core.models.SealedPosition``)."""
        return f"puzzle:{self.pk}"

    def line(self, key: str) -> list[str]:
        """A line of the proof (``solution`` or ``refutation``) in the variant's notation; none
        for a puzzle kept for the exams, whose solution no page shows (the exams judge by
        :meth:`judge`)."""
        if self.for_exams:
            return []
        return engine.line_texts(self.variant, self.fen, (self.proof or {}).get(key, []))

    @property
    def alternatives(self) -> list[list[str]]:
        if self.for_exams:
            return []
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


def seal_exam_position(pk: int, variant: str, fens: list[str]) -> None:
    """Seal positions of puzzle ``pk``, kept for the exams, for good (no game, hint or analysis
    there); a position that is not valid (a puzzle never cleaned) is left to its proof."""
    try:
        SealedPosition.seal(fens, variant, label=f"puzzle:{pk}")
    except ValidationError:
        logger.warning("puzzle %s: a position not valid to seal: %s", pk, fens)
