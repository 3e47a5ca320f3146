"""Background jobs and worker heartbeats (the site's side of the Celery path), and the positions
sealed for the exams."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from .board import position_key


class JobQuerySet(models.QuerySet["Job"]):
    def pending(self) -> JobQuerySet:
        return self.filter(status__in=[Job.Status.QUEUED, Job.Status.RUNNING])

    def visible_to(self, request) -> JobQuerySet:
        """Jobs the visitor started (by account or by session); staff see all."""
        user = request.user
        if user.is_authenticated and user.is_staff:
            return self
        if user.is_authenticated:
            return self.filter(owner=user)
        key = request.session.session_key
        return self.filter(owner=None, session_key=key) if key else self.none()


class Job(models.Model):
    """One piece of background work, started by a request and done by a Celery worker.

    The request creates the row and enqueues a task with its id once the transaction commits; the
    task moves the row from queued to running to done (or failed) with conditional updates, so a
    task delivered twice does the work once. Pages poll the row to show progress.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", _("queued")
        RUNNING = "running", _("running")
        DONE = "done", _("done")
        FAILED = "failed", _("failed")

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    kind = models.CharField(_("kind"), max_length=40)
    status = models.CharField(_("status"), max_length=10, choices=Status, default=Status.QUEUED)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        verbose_name=_("owner"),
    )
    session_key = models.CharField(max_length=40, blank=True)
    params = models.JSONField(_("parameters"), default=dict, blank=True)
    progress = models.PositiveSmallIntegerField(_("progress (%)"), default=0)
    result = models.JSONField(_("result"), null=True, blank=True)
    error = models.TextField(_("error"), blank=True)
    worker = models.CharField(_("worker"), max_length=200, blank=True)
    created = models.DateTimeField(_("created"), default=timezone.now)
    started = models.DateTimeField(_("started"), null=True, blank=True)
    finished = models.DateTimeField(_("finished"), null=True, blank=True)

    objects = JobQuerySet.as_manager()

    class Meta:
        ordering = ["-created"]
        indexes = [models.Index(fields=["status", "created"])]
        verbose_name = _("background job")
        verbose_name_plural = _("background jobs")

    def __str__(self) -> str:
        return f"{self.kind} {self.id} ({self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in {self.Status.DONE, self.Status.FAILED}

    def claim(self, worker: str) -> bool:
        """Move a queued job to running; False when another delivery got it first."""
        now = timezone.now()
        claimed = Job.objects.filter(pk=self.pk, status=self.Status.QUEUED).update(
            status=self.Status.RUNNING, worker=worker, started=now
        )
        if claimed:
            self.status, self.worker, self.started = self.Status.RUNNING, worker, now
        return bool(claimed)

    def report(self, progress: int) -> bool:
        """Write the progress (0-99 %) of a running job; False when it is no longer running."""
        progress = max(0, min(99, int(progress)))
        done = Job.objects.filter(pk=self.pk, status=self.Status.RUNNING).update(progress=progress)
        if done:
            self.progress = progress
        return bool(done)

    def finish(self, result: Any) -> bool:
        now = timezone.now()
        done = Job.objects.filter(pk=self.pk, status=self.Status.RUNNING).update(
            status=self.Status.DONE, result=result, progress=100, finished=now
        )
        if done:
            self.status, self.result, self.progress, self.finished = (
                self.Status.DONE,
                result,
                100,
                now,
            )
        return bool(done)

    def fail(self, error: str) -> bool:
        now = timezone.now()
        done = Job.objects.filter(pk=self.pk, status=self.Status.RUNNING).update(
            status=self.Status.FAILED, error=error, finished=now
        )
        if done:
            self.status, self.error, self.finished = self.Status.FAILED, error, now
        return bool(done)


class WorkerHeartbeat(models.Model):
    """The last time each Celery worker said it was alive (written by the worker itself)."""

    hostname = models.CharField(_("worker"), max_length=200, unique=True)
    seen = models.DateTimeField(_("last seen"))

    class Meta:
        ordering = ["hostname"]
        verbose_name = _("worker heartbeat")
        verbose_name_plural = _("worker heartbeats")

    def __str__(self) -> str:
        return self.hostname

    @classmethod
    def beat(cls, hostname: str) -> None:
        cls.objects.update_or_create(hostname=hostname, defaults={"seen": timezone.now()})

    @classmethod
    def alive(cls) -> list[str]:
        cutoff = timezone.now() - timedelta(seconds=settings.DAMA_WORKER_STALE_SECONDS)
        return list(cls.objects.filter(seen__gte=cutoff).values_list("hostname", flat=True))


#: why a sealed position is refused, wherever it is
SEALED_MESSAGE = _(
    "This position belongs to an exam: it cannot be played, hinted at or analysed here, nor "
    "made a puzzle."
)
#: why a position sealed by a rated game in play (label ``versus:<id>``) is refused
GAME_SEALED_MESSAGE = _(
    "This position is from a rated game still in play: it cannot be played against the "
    "computer, hinted at or analysed until that game is over."
)
#: the message of a seal by the kind of its label (the part before the colon); any other
#: seal is an exam's
SEALED_MESSAGES = {"versus": GAME_SEALED_MESSAGE}


class SealedPositionQuerySet(models.QuerySet["SealedPosition"]):
    def in_force(self, now=None) -> SealedPositionQuerySet:
        """Seals that hold now: for good, or until a time still to come."""
        now = now or timezone.now()
        return self.filter(models.Q(until__isnull=True) | models.Q(until__gt=now))


class SealedPosition(models.Model):
    """A position where no game may start, no hint is given and no engine analyses: an exam
    question's (see ``docs/exam-integrity.md``). Written by the app that owns the position, under a
    label of its own (``puzzle:12``: a puzzle kept for the exams, for good; ``exam:34``: the
    positions a sitting's endgame reached, until the sitting ends); every app that would start
    a game, give a hint or search a position asks :meth:`is_sealed` first.

    The position is its key (``core.board.position_key``: the side to move and the pieces, the
    same turned round with the colours swapped, the same on either 8x8 variant), so a position
    typed in by hand is found as well as one copied.
    """

    key = models.CharField(_("position"), max_length=64)
    label = models.CharField(_("sealed by"), max_length=40)
    #: None: for good
    until = models.DateTimeField(_("until"), null=True, blank=True)
    created = models.DateTimeField(_("created"), default=timezone.now)

    objects = SealedPositionQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["key", "label"], name="core_sealed_once_per_label")
        ]
        indexes = [models.Index(fields=["label"])]
        verbose_name = _("sealed position")
        verbose_name_plural = _("sealed positions")

    def __str__(self) -> str:
        return f"{self.label} {self.key[:12]}"

    @classmethod
    def is_sealed(cls, fen: str, variant: str, now=None) -> bool:
        """Whether the position ``fen`` of ``variant`` (a valid one) is sealed now."""
        return cls.objects.in_force(now).filter(key=position_key(fen, variant)).exists()

    @classmethod
    def why_sealed(cls, fen: str, variant: str, now=None) -> str:
        """Why the position ``fen`` of ``variant`` (a valid one) is sealed now, as the message
        to show (an exam's seal before a game's); "" when it is not."""
        labels = cls.objects.in_force(now).filter(key=position_key(fen, variant))
        kinds = {label.partition(":")[0] for label in labels.values_list("label", flat=True)}
        if not kinds:
            return ""
        if kinds <= SEALED_MESSAGES.keys():
            return str(SEALED_MESSAGES[min(kinds)])
        return str(SEALED_MESSAGE)

    @classmethod
    def refuse(cls, fen: str, variant: str) -> None:
        """A ``ValidationError`` (code ``sealed``) when the position is sealed now, saying why."""
        message = cls.why_sealed(fen, variant)
        if message:
            raise ValidationError(message, code="sealed")

    @classmethod
    def seal(cls, fens: Iterable[str], variant: str, *, label: str, until=None) -> None:
        """Seal the positions ``fens`` of ``variant`` under ``label`` (idempotent: a position
        sealed under the label already keeps its row and its time)."""
        keys = {position_key(fen, variant) for fen in fens}
        cls.objects.bulk_create(
            [cls(key=key, label=label, until=until) for key in keys], ignore_conflicts=True
        )

    @classmethod
    def lift(cls, label: str) -> int:
        """Lift every seal of ``label``; how many there were."""
        deleted, _kinds = cls.objects.filter(label=label).delete()
        return deleted
