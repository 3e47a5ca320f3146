"""A mining job: puzzle mining fanned out over the workers, one task a seed (the tasks' work is
:mod:`puzzles.mining`), and what each task found."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models, transaction
from django.db.models import F
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from core import workers
from core.variants import VARIANT_CHOICES

#: the task that mines one seed of a job
MINE_TASK = "puzzles.deep_mine_range"


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

    @classmethod
    def start(cls, variant: str, *, tasks: int, games: int, per_task: int = 1000, level: int = 4,
              nodes: int = 1500, first_seed: int = 1, user: Any = None,
              pdn: str = "") -> MiningJob:  # fmt: skip
        """Create a job and send its tasks, one per seed, once the row is committed. With
        ``pdn`` (a text of games), the tasks mine those games' positions, shared out among them,
        instead of playing engine games."""
        job = cls.objects.create(
            variant=variant, tasks=tasks, games=games, per_task=per_task, level=level,
            nodes=nodes, first_seed=first_seed, pdn=pdn,
            created_by=user if getattr(user, "pk", None) else None,
        )  # fmt: skip
        transaction.on_commit(job.send)
        return job

    @property
    def seeds(self) -> list[int]:
        return [self.first_seed + i for i in range(self.tasks)]

    def send(self) -> None:
        """Send the job's tasks to the ``deep`` queue, one per seed (``puzzles.deep_mine_range``,
        by name)."""
        for seed in self.seeds:
            workers.send(MINE_TASK, self.pk, seed)

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
