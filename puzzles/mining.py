"""Puzzle mining on the workers (issue 17): a job fanned out as tasks on the ``deep`` queue, one
per seed, each playing engine games and saving the natural, proven, dual-free puzzles it finds.

Idempotent and resumable: a puzzle whose position and goal are already in the corpus is skipped
(never saved twice), so a task delivered again, or a job started again over the same seeds, adds
only what is new. Staff start a job (``MiningJob.start``, which sends the tasks by name) and
follow it on :func:`puzzles.views_mining.job` (the page polls its progress).
"""

from __future__ import annotations

import time

from . import engine
from .models import MiningJob, Puzzle


def mine_range(job_id: int, seed: int, worker: str = "") -> dict[str, int]:
    """Task body: mine the job's games of ``seed``, save the new puzzles, record the work."""
    job = MiningJob.objects.filter(pk=job_id).first()
    if job is None or seed in job.finished_seeds:
        return {"found": 0, "known": 0, "games": 0}
    t0 = time.process_time()
    known = set(
        Puzzle.objects.filter(
            variant=job.variant, author__isnull=True, owner__isnull=True
        ).values_list("fen", "goal")
    )
    counts = {"found": 0, "known": 0, "games": 0}

    def skip(fen: str, goal: str) -> bool:
        if (engine.normalize_fen(fen, job.variant), goal) in known:
            counts["known"] += 1
            return True
        return False

    def progress(games: int, found: int, per_kind: dict[str, int]) -> None:
        counts["games"] = games

    part = (seed - job.first_seed, job.tasks)
    if job.pdn:
        counts["games"], problems = engine.pdn_games(job.pdn, job.variant, part)
        if not counts["games"] and problems:
            job.note_error(problems)
    for data in engine.mine(
        job.variant, job.per_task, seed, natural=True, level=job.level, nodes=job.nodes,
        max_games=job.games, skip=skip, progress=progress,
        pdn_text=job.pdn or None, part=part,
    ):  # fmt: skip
        _puzzle, status = Puzzle.objects.import_data(data)
        if status == "created":
            counts["found"] += 1
        else:
            counts["known"] += 1
        known.add((engine.normalize_fen(data.fen, job.variant), data.goal))
    job.record(
        seed, found=counts["found"], known=counts["known"], games=counts["games"],
        seconds=time.process_time() - t0, worker=worker, finished=True,
    )  # fmt: skip
    return counts
