"""Background jobs and worker heartbeats: the site's side of the Celery path."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


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
